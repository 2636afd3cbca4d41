/* kiln/linalg.h: matrix products (docs/linalg.md).
 *
 * kiln_matmul follows numpy.matmul: the last two dims of each operand are
 * the matrices, the dims before them are batch dims broadcast against each
 * other; a 1-D first operand is a row vector (a dim of 1 is put in front
 * and removed from the result), a 1-D second operand a column vector (a dim
 * of 1 appended and removed). Any strides are accepted: transposed views
 * go to the BLAS as transposes, what it cannot take is copied once.
 *
 * Where the backend can load its vendor's BLAS (at run time, never linked;
 * docs/linalg.md lists them) it does the product; otherwise kiln's own
 * tiled kernel does. KILN_BLAS=portable forces the kernel, KILN_BLAS=vendor makes
 * a missing vendor BLAS an error instead of a fallback (read once per
 * process); kiln_linalg_describe says which path a context takes and why.
 *
 * dtypes: float16, float32, float64, complex64, complex128; mixed operands
 * are promoted as NumPy (float16 @ float32 is float32, complex64 @ float64
 * complex128); float16 is computed in float32 and
 * rounded once per element, as NumPy and cuBLAS's float32 compute type. Work is queued on `stream` (NULL: the context's default stream),
 * like any kernel launch: the call returns before the product is done. */
#ifndef KILN_LINALG_H
#define KILN_LINALG_H

#include "kiln/array.h"
#include "kiln/context.h"
#include "kiln/stream.h"

#ifdef __cplusplus
extern "C" {
#endif

/* a @ b, as numpy.matmul(a, b, out=out).
 * out: NULL to allocate the result (C-contiguous); otherwise an array of
 * exactly the result's shape (any strides, not a broadcast view, not
 * overlapping a or b) that receives it, of the result's dtype or one it
 * casts to same_kind as NumPy's out (a float32 product into float64 out:
 * computed in float32, then cast; not complex into real, nor into an
 * integer dtype).
 * result: receives a new reference to the result (to out when given); may
 * be NULL when out is given. On failure *result is NULL.
 * Errors: INVALID_ARGUMENT for NULL a/b, arrays of different contexts, a
 * 0-d operand, inner dims that differ or batch dims that do not broadcast
 * (the message names both shapes), a dtype other than float16/32/64 or complex64/128, an
 * out of the wrong shape or of a dtype the result does not cast to same_kind, a bad KILN_BLAS; UNIMPLEMENTED for
 * float64 or complex128 on a device without float64; UNAVAILABLE when KILN_BLAS=vendor and
 * the backend has no usable vendor BLAS; device errors as for launches. */
KILN_API kiln_status kiln_matmul(const kiln_array *a, const kiln_array *b, kiln_array *out,
                                 kiln_stream *stream, kiln_array **result);

/* numpy.dot(a, b, out=out) for the cases it shares with matmul: 1-D . 1-D
 * (inner product, 0-d result), 2-D . 2-D, N-D . 1-D (sum over the last
 * axis of a), N-D . 2-D. out and result as kiln_matmul.
 * Errors: as kiln_matmul; INVALID_ARGUMENT for a 0-d operand (use a
 * multiply ufunc); UNIMPLEMENTED for a 1-D or more a with an operand b of
 * 3 or more dims (numpy.dot's tensor form). */
KILN_API kiln_status kiln_dot(const kiln_array *a, const kiln_array *b, kiln_array *out,
                              kiln_stream *stream, kiln_array **result);

/* numpy.vdot(a, b): both flattened (C order), the sum of their products
 * with a complex a conjugated, as a new 0-d array in *result (of the promoted dtype,
 * as kiln_matmul's). The arrays must have the same number of elements
 * (any shapes); an empty pair gives 0.
 * Errors: as kiln_matmul; INVALID_ARGUMENT when the sizes differ. */
KILN_API kiln_status kiln_vdot(const kiln_array *a, const kiln_array *b, kiln_stream *stream,
                               kiln_array **result);

/* One line saying which path matrix products take on ctx and why, e.g.
 * "vendor: <library> <version> (<file>)" or "portable kernel
 * (KILN_BLAS=portable)" or "portable kernel (no vendor BLAS: ...)",
 * written into text (truncated to size, NUL-terminated).
 * Errors: INVALID_ARGUMENT for NULL ctx/text or size 0, or a bad
 * KILN_BLAS (the message names the valid values). */
KILN_API kiln_status kiln_linalg_describe(kiln_context *ctx, char *text, size_t size);

#ifdef __cplusplus
}
#endif
#endif
