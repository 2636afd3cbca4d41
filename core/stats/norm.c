/* core/stats/norm.c: numpy.linalg.norm over kiln's reductions: each vector
 * order is one custom reduction (a map of |x|, a combining operation and a
 * post step), the matrix 1 and inf norms a sum of |x| along one axis then
 * a maximum (or minimum) along the other. No kernels of their own. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/codegen/elementwise.h"
#include "core/runtime/error.h"
#include "core/stats/stats_internal.h"
#include "kiln/stats.h"

/* NaN-propagating maximum and minimum, as NumPy's max/min */
#define MAX_EXPR "(isnan(a) ? a : (isnan(b) ? b : (a > b ? a : b)))"
#define MIN_EXPR "(isnan(a) ? a : (isnan(b) ? b : (a < b ? a : b)))"

typedef enum vector_kind { SUM_SQUARES, SUM_ABS, MAX_ABS, MIN_ABS, COUNT_NONZERO, SUM_POWER } vector_kind;

/* The reduction of one vector order for inputs of `input` dtype into
 * `result` (a real float dtype). */
static kiln_status vector_reduction(kiln_context *ctx, kiln_dtype input, kiln_dtype result,
                                    vector_kind kind, double p, kiln_reduction **out) {
  kiln_dtype in = kiln_dtype_is_complex(input) || kiln_dtype_is_float(input) ? input : KILN_FLOAT64;
  kiln_dtype acc = kiln_stats_accumulator(result);
  int complex_in = kiln_dtype_is_complex(in);
  const char *acc_type = acc == KILN_FLOAT64 ? "double" : "float";
  char name[64], signature[96], abs_expr[96], map[192], post[128] = "", identity[8] = "0";
  const char *reduce = "a + b";
  snprintf(name, sizeof name, "kiln_norm_%d_%s_%s", (int)kind, kiln_dtype_name(in),
           kiln_dtype_name(result));
  snprintf(signature, sizeof signature, "%s(%s x)", kiln_dtype_name(result), kiln_dtype_name(in));
  if (complex_in) snprintf(abs_expr, sizeof abs_expr, "kiln_%s_abs(x)", kiln_dtype_name(in));
  else snprintf(abs_expr, sizeof abs_expr, "fabs(x)");
  switch (kind) {
  case SUM_SQUARES:
    if (complex_in) snprintf(map, sizeof map, "x.real * x.real + x.imag * x.imag");
    else snprintf(map, sizeof map, "x * x");
    snprintf(post, sizeof post, "sqrt(a)");
    break;
  case SUM_ABS: snprintf(map, sizeof map, "%s", abs_expr); break;
  case MAX_ABS:
  case MIN_ABS:
    snprintf(map, sizeof map, "%s", abs_expr);
    reduce = kind == MAX_ABS ? MAX_EXPR : MIN_EXPR;
    identity[0] = '\0'; /* NumPy: an empty max has no identity */
    break;
  case COUNT_NONZERO:
    if (complex_in) snprintf(map, sizeof map, "(%s)(x.real != 0 || x.imag != 0)", acc_type);
    else snprintf(map, sizeof map, "(%s)(x != 0)", acc_type);
    break;
  case SUM_POWER:
    snprintf(map, sizeof map, "pow((%s)%s, (%s)%.17g)", acc_type, abs_expr, acc_type, p);
    snprintf(post, sizeof post, "pow(a, (%s)1 / (%s)%.17g)", acc_type, acc_type, p);
    /* a name per exponent (its bits): each is its own program */
    {
      uint64_t bits;
      memcpy(&bits, &p, sizeof bits);
      snprintf(name + strlen(name), sizeof name - strlen(name), "_%016llx",
               (unsigned long long)bits);
    }
    break;
  }
  kiln_reduction_desc d = {.name = name,
                           .signature = signature,
                           .accumulator = acc,
                           .map_expr = map,
                           .reduce_expr = reduce,
                           .post_expr = post[0] ? post : NULL,
                           .identity = identity[0] ? identity : NULL};
  return kiln_reduction_create(ctx, &d, out);
}

static kiln_status run_vector(kiln_context *ctx, kiln_array *x, kiln_dtype result, vector_kind kind,
                              double p, kiln_operand output, const kiln_reduce_options *axes,
                              kiln_stream *stream) {
  kiln_reduction *r = NULL;
  KILN_RETURN_IF_ERROR(vector_reduction(ctx, kiln_array_dtype(x), result, kind, p, &r));
  kiln_operand in = kiln_operand_array(x);
  kiln_status status = kiln_reduction_call(r, 1, &in, output, axes, stream);
  kiln_reduction_release(r);
  return status;
}

/* The vector kind of order p. */
static vector_kind vector_order(double p) {
  if (p == INFINITY) return MAX_ABS;
  if (p == -INFINITY) return MIN_ABS;
  if (p == 0) return COUNT_NONZERO;
  if (p == 1) return SUM_ABS;
  if (p == 2) return SUM_SQUARES;
  return SUM_POWER;
}

/* Matrix 1 / -1 / inf / -inf norms: |x| summed along `sum_axis`, then the
 * maximum or minimum along `other` (both kept, then both reduced, so the
 * axes never shift). */
static kiln_status matrix_abs_norm(kiln_context *ctx, kiln_array *x, kiln_dtype result,
                                   int sum_axis, int other, int use_max, int keepdims,
                                   kiln_operand output, kiln_stream *stream) {
  kiln_array *sums = NULL;
  kiln_ufunc *extreme = NULL;
  kiln_reduce_options first = kiln_reduce_axis(sum_axis);
  first.keepdims = 1;
  kiln_status status = run_vector(ctx, x, kiln_stats_accumulator(result), SUM_ABS, 1,
                                  kiln_operand_new(&sums), &first, stream);
  if (status == KILN_OK)
    status = kiln_ufunc_builtin(ctx, use_max ? "maximum" : "minimum", &extreme);
  if (status == KILN_OK) {
    kiln_reduce_options second = {.naxes = 2, .axes = {sum_axis, other}, .keepdims = keepdims};
    if (output.kind == KILN_OPERAND_NEW && kiln_array_dtype(sums) != result) {
      /* NumPy's dtype: reduce into a kept-dims temporary, then cast */
      kiln_array *r = NULL, *cast = NULL;
      status = kiln_ufunc_reduce(extreme, kiln_operand_array(sums), kiln_operand_new(&r),
                                 &second, stream);
      /* the cast on the reduction's stream, which the caller waits for */
      if (status == KILN_OK)
        status = kiln_array_empty(ctx, result, kiln_array_ndim(r), kiln_array_shape(r), &cast);
      if (status == KILN_OK) status = kiln_ew_copy_on(cast, r, stream);
      if (status == KILN_OK) {
        *output.value.result = cast;
        cast = NULL;
      }
      kiln_array_release(cast);
      kiln_array_release(r);
    } else {
      status = kiln_ufunc_reduce(extreme, kiln_operand_array(sums), output, &second, stream);
    }
  }
  kiln_ufunc_release(extreme);
  kiln_array_release(sums);
  return status;
}

static int normalize_axis(int axis, int ndim, int *out) {
  if (axis < -ndim || axis >= ndim) return 0;
  *out = axis < 0 ? axis + ndim : axis;
  return 1;
}

kiln_status kiln_norm(kiln_context *ctx, kiln_operand input, kiln_operand output,
                      const kiln_norm_options *options, kiln_stream *stream) {
  if (output.kind == KILN_OPERAND_NEW && output.value.result) *output.value.result = NULL;
  kiln_norm_options o = options ? *options : (kiln_norm_options){0};
  if (o.naxes < 0 || o.naxes > 2)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "norm: naxes is %d; 0 (axis=None), 1 or 2 axes", o.naxes);
  if ((int)o.order < KILN_NORM_DEFAULT || o.order > KILN_NORM_NUC)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "norm: unknown order %d", (int)o.order);
  kiln_array *x = NULL;
  KILN_RETURN_IF_ERROR(kiln_stats_input(ctx, "norm", input, &x));
  int ndim = kiln_array_ndim(x);
  kiln_dtype result = kiln_stats_real(kiln_stats_float_dtype(kiln_array_dtype(x)));
  kiln_status status = KILN_OK;
  int axes[2] = {0, 1};
  for (int i = 0; i < o.naxes; i++)
    if (!normalize_axis(o.axes[i], ndim, &axes[i])) {
      status = kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                              "norm: axis %d is out of bounds for array of dimension %d",
                              o.axes[i], ndim);
      goto done;
    }
  if (o.naxes == 2 && axes[0] == axes[1]) {
    status = kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "norm: duplicate axes given");
    goto done;
  }
  /* axis=None: ord None is the 2-norm of everything; an order needs 1-D
   * (vector) or 2-D (matrix) input */
  int matrix = o.naxes == 2;
  if (o.naxes == 0 && o.order != KILN_NORM_DEFAULT) {
    if (ndim != 1 && ndim != 2) {
      status = kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                              "norm: improper number of dimensions to norm (%d with an order and "
                              "no axes; 1 or 2)",
                              ndim);
      goto done;
    }
    matrix = ndim == 2;
  }
  kiln_reduce_options reduce = kiln_reduce_all();
  if (o.naxes > 0) {
    reduce = (kiln_reduce_options){.naxes = o.naxes, .axes = {axes[0], axes[1]}};
  }
  reduce.keepdims = o.keepdims;
  if (!matrix) {
    if (o.order == KILN_NORM_FRO || o.order == KILN_NORM_NUC) {
      status = kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "norm: invalid norm order '%s' for vectors",
                              o.order == KILN_NORM_FRO ? "fro" : "nuc");
      goto done;
    }
    vector_kind kind = o.order == KILN_NORM_DEFAULT ? SUM_SQUARES : vector_order(o.p);
    if (kind == SUM_POWER && isnan(o.p)) {
      status = kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "norm: the order p is NaN");
      goto done;
    }
    status = run_vector(ctx, x, result, kind, o.p, output, &reduce, stream);
    goto done;
  }
  if (o.order == KILN_NORM_DEFAULT || o.order == KILN_NORM_FRO) {
    status = run_vector(ctx, x, result, SUM_SQUARES, 2, output, &reduce, stream);
  } else if (o.order == KILN_NORM_NUC || o.p == 2 || o.p == -2) {
    status = kiln_error_set(KILN_ERROR_UNIMPLEMENTED,
                            "norm: the matrix norm '%s' needs singular values (an SVD), which kiln "
                            "does not compute",
                            o.order == KILN_NORM_NUC ? "nuc" : o.p == 2 ? "2" : "-2");
  } else if (o.p == 1 || o.p == -1) {
    /* the largest (smallest) column sum: sum along the row axis */
    status = matrix_abs_norm(ctx, x, result, axes[0], axes[1], o.p == 1, o.keepdims, output, stream);
  } else if (o.p == INFINITY || o.p == -INFINITY) {
    status = matrix_abs_norm(ctx, x, result, axes[1], axes[0], o.p > 0, o.keepdims, output, stream);
  } else {
    status = kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                            "norm: invalid norm order %g for matrices (1, -1, inf, -inf, 'fro'; 2, "
                            "-2 and 'nuc' are not implemented)",
                            o.p);
  }
done:
  if (status != KILN_OK && output.kind == KILN_OPERAND_NEW && output.value.result)
    *output.value.result = NULL;
  kiln_array_release(x);
  return status;
}
