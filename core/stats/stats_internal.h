/* core/stats/stats_internal.h: what the statistics calls (stats.c, norm.c,
 * closeness.c) share: operands brought to the device once, NumPy's default
 * dtypes, and the last step written to the caller's output (internal). They
 * sit above reduce/ and ufunc/: every value is computed by a reduction or a
 * ufunc call. */
#ifndef KILN_CORE_STATS_INTERNAL_H
#define KILN_CORE_STATS_INTERNAL_H

#include "kiln/reduce.h"

/* *x: the input as a device array on ctx (a new reference): the array
 * itself, or host memory copied once (a second pass reads it again).
 * Errors: INVALID_ARGUMENT (NULL ctx, a scalar, an output kind, another
 * context), as kiln_array_from_host. */
kiln_status kiln_stats_input(kiln_context *ctx, const char *what, kiln_operand input,
                             kiln_array **x);

/* NumPy's float result dtype for an input: bool and integers float64,
 * others their own (float16 stays float16, complex stays complex). */
kiln_dtype kiln_stats_float_dtype(kiln_dtype input);

/* The dtype sums of `result` are accumulated in: float16 in float32, else
 * itself. */
kiln_dtype kiln_stats_accumulator(kiln_dtype result);

/* The real dtype of a complex one (complex64: float32), else itself. */
kiln_dtype kiln_stats_real(kiln_dtype dtype);

/* Calls ufunc (one output) into the caller's output. A NEW output becomes a
 * device array of `dtype` and the shape of `shape_like`, so the result has
 * NumPy's dtype even where the ufunc computes in a wider one. */
kiln_status kiln_stats_deliver(kiln_ufunc *ufunc, int nin, const kiln_operand *inputs,
                               kiln_operand output, kiln_dtype dtype,
                               const kiln_array *shape_like, kiln_stream *stream);

/* The count operand NumPy divides by (np.intp, a strong int64 where the
 * device has float64, so float32 / N runs in float64 and rounds once, as
 * NumPy's; else a weak int). */
kiln_operand kiln_stats_count(kiln_context *ctx, int64_t count);

/* Options with the accumulator dtype set (options NULL: every axis). */
kiln_reduce_options kiln_stats_options(const kiln_reduce_options *options, kiln_dtype dtype,
                                       int keepdims);

#endif
