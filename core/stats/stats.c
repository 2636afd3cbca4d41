/* core/stats/stats.c: numpy.mean, var and std over kiln's reductions: the
 * sum is kiln_ufunc_reduce's add, the squared deviations a custom
 * reduction (kiln_reduction), the divisions and the square root ufunc
 * calls. No kernel of their own: the bits are those of the reductions. */
#include <stdio.h>

#include "core/runtime/error.h"
#include "core/stats/stats_internal.h"
#include "kiln/stats.h"

/* Reduced elements per result element. */
static int64_t reduced_count(const kiln_array *x, const kiln_array *reduced) {
  int64_t r = kiln_array_size(reduced);
  return r > 0 ? kiln_array_size(x) / r : 0;
}

/* The sum of x over the options' axes in `acc` (kept dims if keepdims),
 * and the number of elements each result element sums. */
static kiln_status sum_of(kiln_array *x, const kiln_reduce_options *options, kiln_dtype acc,
                          int keepdims, kiln_stream *stream, kiln_array **sum, int64_t *count) {
  kiln_ufunc *add = NULL;
  KILN_RETURN_IF_ERROR(kiln_ufunc_builtin(kiln_array_context(x), "add", &add));
  kiln_reduce_options o = kiln_stats_options(options, acc, keepdims);
  kiln_status status = kiln_ufunc_reduce(add, kiln_operand_array(x), kiln_operand_new(sum), &o,
                                         stream);
  kiln_ufunc_release(add);
  if (status == KILN_OK) *count = reduced_count(x, *sum);
  return status;
}

/* sum / count into `output` (NumPy's true_divide by np.intp). */
static kiln_status divide_into(kiln_array *sum, int64_t count, kiln_operand output,
                               kiln_dtype dtype, kiln_stream *stream) {
  kiln_context *ctx = kiln_array_context(sum);
  kiln_ufunc *divide = NULL;
  KILN_RETURN_IF_ERROR(kiln_ufunc_builtin(ctx, "divide", &divide));
  kiln_operand in[2] = {kiln_operand_array(sum), kiln_stats_count(ctx, count)};
  kiln_status status = kiln_stats_deliver(divide, 2, in, output, dtype, sum, stream);
  kiln_ufunc_release(divide);
  return status;
}

/* The sum's and the result's dtypes of a mean of `input`. */
static void mean_dtypes(kiln_dtype input, const kiln_reduce_options *options, kiln_dtype *acc,
                        kiln_dtype *result) {
  *result = options && options->has_dtype ? options->dtype : kiln_stats_float_dtype(input);
  *acc = kiln_stats_accumulator(*result);
}

kiln_status kiln_mean(kiln_context *ctx, kiln_operand input, kiln_operand output,
                      const kiln_reduce_options *options, kiln_stream *stream) {
  if (output.kind == KILN_OPERAND_NEW && output.value.result) *output.value.result = NULL;
  kiln_array *x = NULL, *sum = NULL;
  int64_t count = 0;
  KILN_RETURN_IF_ERROR(kiln_stats_input(ctx, "mean", input, &x));
  kiln_dtype acc, result;
  mean_dtypes(kiln_array_dtype(x), options, &acc, &result);
  kiln_status status = sum_of(x, options, acc, 0, stream, &sum, &count);
  if (status == KILN_OK) status = divide_into(sum, count, output, result, stream);
  if (status != KILN_OK) kiln_error_prefix(status, "mean: ");
  kiln_array_release(sum);
  kiln_array_release(x);
  return status;
}

/* The reduction of |x - m|^2 for inputs of dtype acc into real(acc). */
static kiln_status squared_deviations(kiln_context *ctx, kiln_dtype acc, kiln_reduction **out) {
  kiln_dtype real = kiln_stats_real(acc);
  char name[64], signature[128];
  snprintf(name, sizeof name, "kiln_var_%s", kiln_dtype_name(acc));
  snprintf(signature, sizeof signature, "%s(%s x, %s m)", kiln_dtype_name(real),
           kiln_dtype_name(acc), kiln_dtype_name(acc));
  kiln_reduction_desc d = {
      .name = name,
      .signature = signature,
      .accumulator = real,
      /* NumPy squares the parts of a complex deviation and adds them */
      .map_expr = kiln_dtype_is_complex(acc)
                      ? "(x.real - m.real) * (x.real - m.real) + (x.imag - m.imag) * (x.imag - m.imag)"
                      : "(x - m) * (x - m)",
      .reduce_expr = "a + b",
      .identity = "0"};
  return kiln_reduction_create(ctx, &d, out);
}

/* The sum of squared deviations over the options' axes (not yet divided),
 * its divisor max(N - ddof, 0) and the result dtype. */
static kiln_status deviations(kiln_context *ctx, const char *what, kiln_operand input,
                              int64_t ddof, const kiln_reduce_options *options,
                              kiln_stream *stream, kiln_array **ssd, int64_t *divisor, kiln_dtype *result) {
  *ssd = NULL;
  if (ddof < 0)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "%s: ddof is %lld; it must be >= 0", what,
                          (long long)ddof);
  kiln_array *x = NULL, *mean = NULL;
  kiln_reduction *r = NULL;
  int64_t count = 0;
  KILN_RETURN_IF_ERROR(kiln_stats_input(ctx, what, input, &x));
  kiln_dtype acc, mean_result;
  mean_dtypes(kiln_array_dtype(x), options, &acc, &mean_result);
  *result = kiln_stats_real(mean_result);
  kiln_status status = sum_of(x, options, acc, 1, stream, &mean, &count);
  /* the mean in place, with the kept dims, broadcast against x below */
  if (status == KILN_OK) status = divide_into(mean, count, kiln_operand_array(mean), acc, stream);
  if (status == KILN_OK) status = squared_deviations(ctx, acc, &r);
  if (status == KILN_OK) {
    kiln_operand in[2] = {kiln_operand_array(x), kiln_operand_array(mean)};
    kiln_reduce_options o = options ? *options : kiln_reduce_all();
    o.has_dtype = 0;
    status = kiln_reduction_call(r, 2, in, kiln_operand_new(ssd), &o, stream);
  }
  *divisor = count > ddof ? count - ddof : 0;
  if (status != KILN_OK) kiln_error_prefix(status, "%s: ", what);
  kiln_reduction_release(r);
  kiln_array_release(mean);
  kiln_array_release(x);
  return status;
}

/* var (root 0) or std (root 1): the squared deviations divided into the
 * output, or divided in place (the variance in its accumulator dtype) and
 * their square root into the output. */
static kiln_status spread(kiln_context *ctx, const char *what, kiln_operand input,
                          kiln_operand output, int64_t ddof, const kiln_reduce_options *options,
                          kiln_stream *stream, int root) {
  if (output.kind == KILN_OPERAND_NEW && output.value.result) *output.value.result = NULL;
  kiln_array *ssd = NULL;
  kiln_ufunc *sqrt_ufunc = NULL;
  int64_t divisor = 0;
  kiln_dtype result = KILN_FLOAT64;
  KILN_RETURN_IF_ERROR(deviations(ctx, what, input, ddof, options, stream, &ssd, &divisor, &result));
  kiln_status status =
      divide_into(ssd, divisor, root ? kiln_operand_array(ssd) : output, result, stream);
  if (root && status == KILN_OK) status = kiln_ufunc_builtin(ctx, "sqrt", &sqrt_ufunc);
  if (root && status == KILN_OK) {
    kiln_operand in = kiln_operand_array(ssd);
    status = kiln_stats_deliver(sqrt_ufunc, 1, &in, output, result, ssd, stream);
  }
  if (status != KILN_OK) kiln_error_prefix(status, "%s: ", what);
  kiln_ufunc_release(sqrt_ufunc);
  kiln_array_release(ssd);
  return status;
}

kiln_status kiln_var(kiln_context *ctx, kiln_operand input, kiln_operand output, int64_t ddof,
                     const kiln_reduce_options *options, kiln_stream *stream) {
  return spread(ctx, "var", input, output, ddof, options, stream, 0);
}

kiln_status kiln_std(kiln_context *ctx, kiln_operand input, kiln_operand output, int64_t ddof,
                     const kiln_reduce_options *options, kiln_stream *stream) {
  return spread(ctx, "std", input, output, ddof, options, stream, 1);
}
