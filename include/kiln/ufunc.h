/* kiln/ufunc.h: universal functions (element-wise kernels from a scalar
 * body), as Numba's @vectorize or CuPy's ElementwiseKernel
 * (docs/ufuncs.md).
 *
 * A ufunc is a name, one or more type signatures with parameter names, a
 * scalar body in kiln's kernel language and optional helper functions. kiln
 * generates, compiles (once per signature and memory layout, cached by the
 * context) and launches the element-wise kernel. A call takes any mix of
 * device arrays, host arrays and scalars, broadcasts them as NumPy does,
 * picks a signature from the input dtypes and writes or allocates the
 * outputs.
 *
 * Signatures ("column N" of a bad one is reported):
 *   "float32(float32 x, float32 mean, float32 sigma)"  one output; the body
 *                                                      returns its value
 *   "(float32 r, float32 theta)(float32 x, float32 y)" named outputs; the
 *                                                      body assigns them
 * Type names are kiln_dtype_from_name()'s ("float32", "f8", "double",
 * "int16", "bool", ...). Every signature of one ufunc has the same numbers
 * of inputs and outputs.
 *
 * Dispatch: the first signature whose inputs equal the input dtypes, else
 * the first one every input casts to safely (NumPy's safe casting), in the
 * order given. Scalars follow NumPy 2 (NEP 50): kiln_operand_int() and
 * kiln_operand_float() are "weak" (as Python's int and float: they take the
 * dtype of the arrays, 2.0 * a float32 array stays float32), the typed
 * kiln_operand_<dtype>() scalars are "strong" (as np.float64(2.0)). */
#ifndef KILN_UFUNC_H
#define KILN_UFUNC_H

#include <stdint.h>
#include "kiln/array.h"
#include "kiln/context.h"
#include "kiln/stream.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kiln_ufunc kiln_ufunc;

/* ---- creation ------------------------------------------------------------ */

/* Creates ufunc `name` (an identifier) on ctx from nsig >= 1 signatures,
 * the scalar `body` (kernel language: `return <expr>;` for the one-output
 * form, assignments to the named outputs for the other) and an optional
 * `preamble` of helper functions declared KILN_DEVICE (may be NULL). All
 * strings are copied. Nothing is compiled yet: each (signature, layout)
 * compiles on its first call.
 * Errors: INVALID_ARGUMENT (NULL arguments, a bad name, a signature that
 * does not parse: the message quotes it with a caret under the offending
 * column; signatures of different arities; more than 32 operands),
 * OUT_OF_MEMORY. *out is NULL on failure. The ufunc holds a reference to
 * ctx. */
KILN_API kiln_status kiln_ufunc_create(kiln_context *ctx, const char *name, int nsig,
                                       const char *const *signatures, const char *body,
                                       const char *preamble, kiln_ufunc **out);

/* One of kiln's built-in ufuncs by NumPy name ("add", "sqrt", "arctan2",
 * "less", "where", ...; docs/ufuncs.md lists them with their dtypes and
 * tolerances). Errors: NOT_FOUND (the message lists the names), as
 * kiln_ufunc_create otherwise. */
KILN_API kiln_status kiln_ufunc_builtin(kiln_context *ctx, const char *name,
                                        kiln_ufunc **out);

/* Number of built-in ufuncs, and the name of built-in i (NULL when out of
 * range). */
KILN_API int kiln_ufunc_builtin_count(void);
KILN_API const char *kiln_ufunc_builtin_name(int index);

/* Adds a reference; returns ufunc. */
KILN_API kiln_ufunc *kiln_ufunc_retain(kiln_ufunc *ufunc);

/* Drops a reference; the last one frees the ufunc (its compiled programs
 * stay in the context's cache). NULL is ignored. */
KILN_API void kiln_ufunc_release(kiln_ufunc *ufunc);

/* ---- properties (never fail; strings live as long as the ufunc) ---------- */

KILN_API const char *kiln_ufunc_name(const kiln_ufunc *ufunc);
KILN_API int kiln_ufunc_nin(const kiln_ufunc *ufunc);
KILN_API int kiln_ufunc_nout(const kiln_ufunc *ufunc);
KILN_API int kiln_ufunc_signature_count(const kiln_ufunc *ufunc);
/* Signature i as given at creation; NULL when out of range. */
KILN_API const char *kiln_ufunc_signature(const kiln_ufunc *ufunc, int index);

/* Bytes of each host operand staged per chunk on the host path (default
 * 8 MiB, at least one element is always staged). Changing it frees the
 * staging buffers kept from earlier calls. Errors: INVALID_ARGUMENT for
 * 0. */
KILN_API kiln_status kiln_ufunc_set_host_chunk_bytes(kiln_ufunc *ufunc, size_t bytes);

/* ---- operands ------------------------------------------------------------ */

typedef enum kiln_operand_kind {
  KILN_OPERAND_ARRAY = 1,   /* a device array, any view (inputs, outputs) */
  KILN_OPERAND_HOST,        /* host memory: data, dtype, shape, byte strides */
  KILN_OPERAND_SCALAR,      /* a typed value, "strong" (as np.float32(v)) */
  KILN_OPERAND_WEAK_SCALAR, /* an int, float or complex taking the arrays'
                               dtype (as a Python int/float/complex under
                               NEP 50) */
  KILN_OPERAND_NEW          /* output only: kiln allocates a device array */
} kiln_operand_kind;

/* One input or output of a call; build it with the kiln_operand_*()
 * helpers. Everything it points to is borrowed for the call only. */
typedef struct kiln_operand {
  kiln_operand_kind kind;
  kiln_dtype dtype; /* HOST, SCALAR; WEAK_SCALAR: INT64 (int), FLOAT64
                       (float) or COMPLEX128 (complex) */
  union {
    const kiln_array *array; /* ARRAY */
    struct {
      const void *data;       /* elements (may be NULL when the size is 0) */
      void *writable;         /* data again when it may be written, else NULL */
      int ndim;               /* 0..KILN_MAX_DIMS */
      const int64_t *shape;   /* ndim extents */
      const int64_t *strides; /* ndim byte strides (any sign), NULL: C order */
    } host;
    int64_t i;           /* SCALAR signed ints and bool, WEAK_SCALAR int */
    uint64_t u;          /* SCALAR unsigned ints */
    double f;            /* SCALAR floats, WEAK_SCALAR float */
    struct {
      double real, imag;
    } c;                 /* SCALAR complex64/complex128, WEAK_SCALAR complex */
    kiln_array **result; /* NEW: receives the new array (one reference) */
  } value;
} kiln_operand;

/* A device array (input or output). */
static inline kiln_operand kiln_operand_array(const kiln_array *array) {
  kiln_operand o; o.kind = KILN_OPERAND_ARRAY; o.dtype = KILN_DTYPE_COUNT;
  o.value.array = array; return o;
}
/* Host memory read by the call (an input). strides NULL means C order. */
static inline kiln_operand kiln_operand_host(const void *data, kiln_dtype dtype, int ndim,
                                             const int64_t *shape, const int64_t *strides) {
  kiln_operand o; o.kind = KILN_OPERAND_HOST; o.dtype = dtype;
  o.value.host.data = data; o.value.host.writable = NULL; o.value.host.ndim = ndim;
  o.value.host.shape = shape; o.value.host.strides = strides; return o;
}
/* Host memory written by the call (an output; also accepted as an input). */
static inline kiln_operand kiln_operand_host_output(void *data, kiln_dtype dtype, int ndim,
                                                    const int64_t *shape,
                                                    const int64_t *strides) {
  kiln_operand o = kiln_operand_host(data, dtype, ndim, shape, strides);
  o.value.host.writable = data; return o;
}
/* An output kiln allocates on the device (C order, the signature's dtype,
 * the broadcast shape); *result receives it, NULL on failure. */
static inline kiln_operand kiln_operand_new(kiln_array **result) {
  kiln_operand o; o.kind = KILN_OPERAND_NEW; o.dtype = KILN_DTYPE_COUNT;
  o.value.result = result; return o;
}
/* Weak scalars: a Python int, float or complex. A weak complex takes the
 * complex dtype of the arrays' precision (float32 or complex64 arrays:
 * complex64, float64: complex128) and complex128 next to integer or bool
 * arrays only, as NumPy 2's 1j. */
static inline kiln_operand kiln_operand_int(int64_t v) {
  kiln_operand o; o.kind = KILN_OPERAND_WEAK_SCALAR; o.dtype = KILN_INT64;
  o.value.i = v; return o;
}
static inline kiln_operand kiln_operand_float(double v) {
  kiln_operand o; o.kind = KILN_OPERAND_WEAK_SCALAR; o.dtype = KILN_FLOAT64;
  o.value.f = v; return o;
}
static inline kiln_operand kiln_operand_complex(double real, double imag) {
  kiln_operand o; o.kind = KILN_OPERAND_WEAK_SCALAR; o.dtype = KILN_COMPLEX128;
  o.value.c.real = real; o.value.c.imag = imag; return o;
}
/* Strong (typed) scalars. */
static inline kiln_operand kiln_operand_signed_(kiln_dtype dtype, int64_t v) {
  kiln_operand o; o.kind = KILN_OPERAND_SCALAR; o.dtype = dtype;
  o.value.i = v; return o;
}
static inline kiln_operand kiln_operand_unsigned_(kiln_dtype dtype, uint64_t v) {
  kiln_operand o; o.kind = KILN_OPERAND_SCALAR; o.dtype = dtype;
  o.value.u = v; return o;
}
static inline kiln_operand kiln_operand_bool(int v) {
  return kiln_operand_signed_(KILN_BOOL, v != 0);
}
static inline kiln_operand kiln_operand_int8(int8_t v) { return kiln_operand_signed_(KILN_INT8, v); }
static inline kiln_operand kiln_operand_int16(int16_t v) { return kiln_operand_signed_(KILN_INT16, v); }
static inline kiln_operand kiln_operand_int32(int32_t v) { return kiln_operand_signed_(KILN_INT32, v); }
static inline kiln_operand kiln_operand_int64(int64_t v) { return kiln_operand_signed_(KILN_INT64, v); }
static inline kiln_operand kiln_operand_uint8(uint8_t v) { return kiln_operand_unsigned_(KILN_UINT8, v); }
static inline kiln_operand kiln_operand_uint16(uint16_t v) { return kiln_operand_unsigned_(KILN_UINT16, v); }
static inline kiln_operand kiln_operand_uint32(uint32_t v) { return kiln_operand_unsigned_(KILN_UINT32, v); }
static inline kiln_operand kiln_operand_uint64(uint64_t v) { return kiln_operand_unsigned_(KILN_UINT64, v); }
/* A typed float16 scalar (np.float16(v)): v rounded to float16 once, by
 * kiln_float16_from_double, when the call converts it. */
static inline kiln_operand kiln_operand_float16(double v) {
  kiln_operand o; o.kind = KILN_OPERAND_SCALAR; o.dtype = KILN_FLOAT16;
  o.value.f = v; return o;
}
static inline kiln_operand kiln_operand_float32(float v) {
  kiln_operand o; o.kind = KILN_OPERAND_SCALAR; o.dtype = KILN_FLOAT32;
  o.value.f = v; return o;
}
static inline kiln_operand kiln_operand_float64(double v) {
  kiln_operand o; o.kind = KILN_OPERAND_SCALAR; o.dtype = KILN_FLOAT64;
  o.value.f = v; return o;
}

/* Typed complex scalars (np.complex64(complex(real, imag)), np.complex128):
 * complex64 rounds each part to float32 once when the call converts it. */
static inline kiln_operand kiln_operand_complex64(double real, double imag) {
  kiln_operand o; o.kind = KILN_OPERAND_SCALAR; o.dtype = KILN_COMPLEX64;
  o.value.c.real = real; o.value.c.imag = imag; return o;
}
static inline kiln_operand kiln_operand_complex128(double real, double imag) {
  kiln_operand o; o.kind = KILN_OPERAND_SCALAR; o.dtype = KILN_COMPLEX128;
  o.value.c.real = real; o.value.c.imag = imag; return o;
}
/* ---- calls --------------------------------------------------------------- */

/* Applies the ufunc element-wise. nin and nout must equal the ufunc's.
 *
 * Shapes broadcast by NumPy's rules over the inputs and the given outputs;
 * every given output must have the broadcast shape (it may be any view,
 * strided or reversed, but not a broadcast one) and a dtype the
 * signature's output casts to under NumPy's same_kind rule. Inputs are cast
 * to the signature inside the kernel, never copied. Outputs must not
 * overlap inputs other than by being the very same elements (in place).
 *
 * Device arrays only: the kernel is queued on `stream` (NULL: the context's
 * default stream) and the call returns; no transfer happens. Any host
 * operand: the call stages host data through pinned buffers in chunks on
 * its own streams, after waiting for `stream`, and returns when every
 * output is written (host inputs may be reused at once).
 *
 * Errors: INVALID_ARGUMENT (operand counts, NULL or bad operands, unknown
 * dtypes, shapes that do not broadcast, no signature for the input dtypes:
 * the message lists the signatures, output dtype or shape mismatch,
 * arrays of another context, too many scalar inputs), OUT_OF_RANGE (a weak
 * int scalar that does not fit the chosen integer dtype; the built-in
 * comparisons and divide use such an int by value instead, as NumPy 2),
 * COMPILE (the body
 * does not compile for the chosen signature: the message names the
 * signature and holds the compiler log and the numbered source),
 * OUT_OF_MEMORY, DEVICE. On failure, NEW outputs are NULL. */
KILN_API kiln_status kiln_ufunc_call(kiln_ufunc *ufunc, int nin, const kiln_operand *inputs,
                                     int nout, const kiln_operand *outputs,
                                     kiln_stream *stream);

#ifdef __cplusplus
}
#endif
#endif
