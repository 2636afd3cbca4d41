/* kiln/dtype.h: element types of arrays, scalars and signatures. */
#ifndef KILN_DTYPE_H
#define KILN_DTYPE_H

#include <stddef.h>
#include <stdint.h>
#include "kiln/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Order matters: it is the order NumPy's safe-casting table is written in. */
typedef enum kiln_dtype {
  KILN_BOOL = 0, /* one byte, 0 or 1 */
  KILN_INT8,
  KILN_UINT8,
  KILN_INT16,
  KILN_UINT16,
  KILN_INT32,
  KILN_UINT32,
  KILN_INT64,
  KILN_UINT64,
  KILN_FLOAT32,
  KILN_FLOAT64,
  KILN_DTYPE_COUNT
} kiln_dtype;

/* Size in bytes of one element; 0 for a value that is not a dtype. */
KILN_API size_t kiln_dtype_size(kiln_dtype dtype);

/* NumPy-style name ("float32", "bool", ...); "invalid" for a bad value. */
KILN_API const char *kiln_dtype_name(kiln_dtype dtype);

/* Parses a NumPy-style name ("int16", "float64", "bool"). Also accepts the
 * short aliases "f4"/"f8"/"i4"/"i8"/"u1"... and "float"/"double".
 * Errors: KILN_ERROR_INVALID_ARGUMENT for NULL or an unknown name. */
KILN_API kiln_status kiln_dtype_from_name(const char *name, kiln_dtype *out);

/* The kernel-language type name for a dtype ("float", "int64_t",
 * "kiln_bool"...); "invalid" for a bad value. */
KILN_API const char *kiln_dtype_kernel_type(kiln_dtype dtype);

/* Nonzero when NumPy's "safe" casting allows from -> to. */
KILN_API int kiln_dtype_can_cast_safely(kiln_dtype from, kiln_dtype to);

/* Nonzero for float32/float64. */
KILN_API int kiln_dtype_is_float(kiln_dtype dtype);

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
