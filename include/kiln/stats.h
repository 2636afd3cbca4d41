/* kiln/stats.h: NumPy's statistics over axes: mean, var, std
 * (docs/statistics.md). Built on kiln's reductions (kiln/reduce.h), so
 * the results have the same bits on every backend and device.
 *
 * Operands as kiln_ufunc_reduce's: `input` a device array (any view) or
 * host memory; `output` kiln_operand_new(&result) (a device array),
 * a device array or host memory (kiln_operand_host_output) of the result
 * shape, of the result dtype or one it casts to same_kind. Axes, keepdims
 * and dtype come from kiln_reduce_options (NULL: every axis, NumPy's
 * axis=None). Device operands: queued on `stream` (NULL: default); host
 * ones: the call returns when the result is written. */
#ifndef KILN_STATS_H
#define KILN_STATS_H

#include <stdint.h>
#include "kiln/reduce.h"

#ifdef __cplusplus
extern "C" {
#endif

/* numpy.mean(input, axis, dtype, keepdims). Dtypes as NumPy's: bool and
 * integers are summed in float64 and give float64; float16 is summed in
 * float32 and the mean rounded once to float16; other dtypes keep theirs;
 * options->dtype (has_dtype) sets the sum's and the result's dtype. The
 * sum is kiln_ufunc_reduce's add; it is divided by the number of reduced
 * elements as NumPy does (by an int64, in float64 where the device has it:
 * the same bits as NumPy's true_divide by np.intp). An empty extent gives
 * NaN (NumPy's 0/0, without its warning).
 * Errors: INVALID_ARGUMENT (NULL ctx, bad operands, axes, an output of the
 * wrong shape or dtype), others as kiln_ufunc_reduce. */
KILN_API kiln_status kiln_mean(kiln_context *ctx, kiln_operand input, kiln_operand output,
                               const kiln_reduce_options *options, kiln_stream *stream);

/* numpy.var(input, axis, dtype, ddof, keepdims): the mean of the squared
 * deviations from the mean, divided by max(N - ddof, 0) (N: elements
 * reduced; N <= ddof gives inf or NaN as NumPy's). Two passes, as NumPy's:
 * the mean (kept dims), then a reduction of |x - mean|^2. Dtypes: as
 * kiln_mean's, a complex input giving its real dtype (complex64: float32);
 * float16 is computed in float32 throughout and rounded once (NumPy rounds
 * each float16 step: see docs/statistics.md). ddof must be >= 0.
 * Errors: as kiln_mean; INVALID_ARGUMENT for a negative ddof. */
KILN_API kiln_status kiln_var(kiln_context *ctx, kiln_operand input, kiln_operand output,
                              int64_t ddof, const kiln_reduce_options *options,
                              kiln_stream *stream);

/* numpy.std: the square root of kiln_var, taken in its dtype before the
 * output's rounding. Errors: as kiln_var. */
KILN_API kiln_status kiln_std(kiln_context *ctx, kiln_operand input, kiln_operand output,
                              int64_t ddof, const kiln_reduce_options *options,
                              kiln_stream *stream);

/* ---- norm (numpy.linalg.norm) ---------------------------------------------- */

typedef enum kiln_norm_order {
  KILN_NORM_DEFAULT = 0, /* ord=None: 2-norm of vectors, Frobenius of matrices */
  KILN_NORM_P,           /* ord = p (the field p) */
  KILN_NORM_FRO,         /* ord='fro' (matrices) */
  KILN_NORM_NUC          /* ord='nuc': UNIMPLEMENTED (needs an SVD) */
} kiln_norm_order;

/* What numpy.linalg.norm(x, ord, axis, keepdims) is asked (zero-initialise:
 * ord=None, axis=None). */
typedef struct kiln_norm_options {
  kiln_norm_order order;
  double p;    /* KILN_NORM_P: vectors any p (INFINITY, -INFINITY, 0: the
                  count of nonzeros, 1, 2, others: sum(|x|^p)^(1/p));
                  matrices 1, -1, INFINITY, -INFINITY */
  int naxes;   /* 0: axis=None; 1: a vector norm along axes[0]; 2: a matrix
                  norm over (axes[0], axes[1]) = (rows, columns) */
  int axes[2]; /* -ndim..ndim-1 */
  int keepdims;
} kiln_norm_options;

/* numpy.linalg.norm of `input` into `output` (operands as kiln_mean's;
 * NULL options: ord=None, axis=None, the 2-norm of every element whatever
 * the shape). With an order and axis=None the input must be 1-D (vector)
 * or 2-D (matrix). Result dtype: float64 for bool and integers, else the
 * real dtype of the input (float16 accumulates in float32; complex64 gives
 * float32 with |x| the modulus). Each norm is one of kiln's reductions (the
 * matrix 1 and inf norms two), so the bits are the same on every device.
 * Empty: 0, but the inf/-inf norms, as NumPy's max/min, are an error.
 * Errors: INVALID_ARGUMENT (axes, 'fro'/'nuc' for vectors, a matrix p
 * other than +-1, +-2, +-inf, more than 2 dims with an order and no axes,
 * NaN p), UNIMPLEMENTED (matrix 2, -2 and 'nuc': singular values), others
 * as kiln_reduction_call. */
KILN_API kiln_status kiln_norm(kiln_context *ctx, kiln_operand input, kiln_operand output,
                               const kiln_norm_options *options, kiln_stream *stream);

/* ---- isclose / allclose ---------------------------------------------------- */

#define KILN_ISCLOSE_RTOL 1e-05 /* NumPy's defaults */
#define KILN_ISCLOSE_ATOL 1e-08

/* numpy.isclose(a, b, rtol, atol, equal_nan) element-wise into `output`
 * (bool; operands as kiln_ufunc_call's: device arrays, host memory or
 * scalars, broadcast together): |a - b| <= atol + rtol |b| where b is
 * finite, or a == b (equal infinities), or both NaN when equal_nan (NumPy
 * 2's definition, not symmetric in a and b). Computed in the inputs'
 * float dtype (rtol and atol take it, as Python floats do), in float64 for
 * bool and integer inputs, in the complex dtype with |.| the modulus for
 * complex ones. Errors: as kiln_ufunc_call. */
KILN_API kiln_status kiln_isclose(kiln_context *ctx, kiln_operand a, kiln_operand b,
                                  kiln_operand output, double rtol, double atol, int equal_nan,
                                  kiln_stream *stream);

/* numpy.allclose: *result = 1 when kiln_isclose holds for every element
 * (an empty pair is close), else 0. Waits for the answer (one byte copied
 * back). Errors: as kiln_isclose; INVALID_ARGUMENT for NULL result. */
KILN_API kiln_status kiln_allclose(kiln_context *ctx, kiln_operand a, kiln_operand b, double rtol,
                                   double atol, int equal_nan, int *result);

#ifdef __cplusplus
}
#endif
#endif
