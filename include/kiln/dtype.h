/* kiln/dtype.h: element types of arrays, scalars and signatures. */
#ifndef KILN_DTYPE_H
#define KILN_DTYPE_H

#include <stddef.h>
#include <stdint.h>
#include "kiln/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The values are part of the ABI: a new dtype is appended with the next
 * value, so the order is not NumPy's type order (float16 comes after
 * float64 here; built-in ufuncs still try their loops in NumPy's order,
 * float16 before float32). */
typedef enum kiln_dtype {
  KILN_BOOL = 0, /* one byte, 0 or 1 */
  KILN_INT8 = 1,
  KILN_UINT8 = 2,
  KILN_INT16 = 3,
  KILN_UINT16 = 4,
  KILN_INT32 = 5,
  KILN_UINT32 = 6,
  KILN_INT64 = 7,
  KILN_UINT64 = 8,
  KILN_FLOAT32 = 9,
  KILN_FLOAT64 = 10,
  /* IEEE 754 binary16 (NumPy's float16, 'e'): stored as its 16 bits (a
   * uint16_t on the host) on every backend; kernels compute in float and
   * round on the store, as NumPy's half loops do, so no device extension
   * is needed. */
  KILN_FLOAT16 = 11,
  /* Complex numbers as NumPy's complex64 ('F') and complex128 ('D'): the
   * real part then the imaginary part, each a float32 (float64), so 8 (16)
   * bytes aligned as their component; kiln_complex64 / kiln_complex128 in
   * kernels, float[2] / double[2] (or C99's float/double _Complex, whose
   * layout is the same) on the host. */
  KILN_COMPLEX64 = 12,
  KILN_COMPLEX128 = 13,
  KILN_DTYPE_COUNT = 14
} kiln_dtype;

/* Size in bytes of one element; 0 for a value that is not a dtype. */
KILN_API size_t kiln_dtype_size(kiln_dtype dtype);

/* NumPy-style name ("float32", "bool", ...); "invalid" for a bad value. */
KILN_API const char *kiln_dtype_name(kiln_dtype dtype);

/* Parses a NumPy-style name ("int16", "float64", "bool", "complex64"). Also
 * accepts the short aliases "f2"/"f4"/"f8"/"i4"/"i8"/"u1"..., "e" and
 * "half" (float16), "c8"/"F" (complex64), "c16"/"D"/"complex" (complex128),
 * and "float"/"double".
 * Errors: KILN_ERROR_INVALID_ARGUMENT for NULL or an unknown name. */
KILN_API kiln_status kiln_dtype_from_name(const char *name, kiln_dtype *out);

/* The kernel-language storage type name for a dtype ("float", "int64_t",
 * "kiln_bool", "kiln_half" for float16,
 * "kiln_complex64"...): what a kernel declares a pointer
 * to the elements of such an array with; "invalid" for a bad value. A
 * kiln_half element is read and written through kiln_half_to_float and
 * kiln_float_to_half (docs/kernel-language.md). */
KILN_API const char *kiln_dtype_kernel_type(kiln_dtype dtype);

/* Nonzero when NumPy's "safe" casting allows from -> to. */
KILN_API int kiln_dtype_can_cast_safely(kiln_dtype from, kiln_dtype to);

/* Nonzero for float16/float32/float64 (not for the complex dtypes). */
KILN_API int kiln_dtype_is_float(kiln_dtype dtype);

/* Nonzero for complex64/complex128. */
KILN_API int kiln_dtype_is_complex(kiln_dtype dtype);

/* The dtype of one component of a complex dtype (complex64: float32,
 * complex128: float64); any other dtype is returned unchanged. */
KILN_API kiln_dtype kiln_dtype_component(kiln_dtype dtype);

/* ---- float16 on the host -------------------------------------------------
 * A float16 element is its IEEE binary16 bit pattern in a uint16_t. These
 * conversions are the kernel language's (the same code, compiled for the
 * host) and NumPy's (npy_float_to_half and friends): round to nearest, ties
 * to even; subnormals exact; values at or beyond 65520 in magnitude become
 * infinities; a NaN stays a NaN of the same sign, keeping the top bits of
 * its payload (a payload that would be lost becomes 1). Never fail. */

/* The float16 nearest to x (the bits). */
KILN_API uint16_t kiln_float16_from_float(float x);

/* The float16 nearest to x, rounded once from the double (not through a
 * float, which could round twice), as NumPy's float64 -> float16 cast. */
KILN_API uint16_t kiln_float16_from_double(double x);

/* The value of the float16 with bits h; exact (every float16 is a float). */
KILN_API float kiln_float16_to_float(uint16_t h);

#ifdef __cplusplus
}
#endif
#endif
