/* core/stats/closeness.c: numpy.isclose and allclose. isclose is one ufunc
 * call (NumPy 2's expression, element-wise); allclose reduces it with
 * logical_and and reads the 0-d result. */
#include <stdio.h>

#include "core/runtime/error.h"
#include "core/stats/stats_internal.h"
#include "kiln/stats.h"

/* NumPy 2's isclose: |x - y| <= atol + rtol |y| where y is finite, or
 * x == y (equal infinities), or both NaN with equal_nan. */
static const char real_body[] =
    "return (fabs(x - y) <= atol + rtol * fabs(y) && isfinite(y)) || x == y ||\n"
    "       (equal_nan && isnan(x) && isnan(y));";
static const char *const real_signatures[] = {
    "bool(float16 x, float16 y, float16 rtol, float16 atol, bool equal_nan)",
    "bool(float32 x, float32 y, float32 rtol, float32 atol, bool equal_nan)",
    "bool(float64 x, float64 y, float64 rtol, float64 atol, bool equal_nan)"};

static kiln_dtype operand_dtype(kiln_operand o) {
  if (o.kind == KILN_OPERAND_ARRAY) return o.value.array ? kiln_array_dtype(o.value.array) : KILN_BOOL;
  return o.dtype;
}

/* The isclose ufunc for inputs of these dtypes, and whether its tolerances
 * must be typed float64 (integer inputs compute in float64 as NumPy's
 * result_type(y, 1.0)). */
static kiln_status isclose_ufunc(kiln_context *ctx, kiln_dtype a, kiln_dtype b, kiln_ufunc **out,
                                 int *strong) {
  int complex_kind = kiln_dtype_is_complex(a) || kiln_dtype_is_complex(b);
  *strong = !complex_kind && !kiln_dtype_is_float(a) && !kiln_dtype_is_float(b);
  if (!complex_kind) return kiln_ufunc_create(ctx, "kiln_isclose", 3, real_signatures, real_body, NULL, out);
  const char *c = a == KILN_COMPLEX128 || b == KILN_COMPLEX128 || a == KILN_FLOAT64 ||
                          b == KILN_FLOAT64 || a == KILN_INT64 || b == KILN_INT64
                      ? "complex128"
                      : "complex64";
  char body[1024], signature[160], name[32];
  snprintf(body, sizeof body,
           "return (kiln_%s_abs(kiln_%s_sub(x, y)) <= atol.real + rtol.real * kiln_%s_abs(y) &&\n"
           "        isfinite(y.real) && isfinite(y.imag)) || kiln_%s_eq(x, y) ||\n"
           "       (equal_nan && (isnan(x.real) || isnan(x.imag)) &&\n"
           "        (isnan(y.real) || isnan(y.imag)));",
           c, c, c, c);
  snprintf(signature, sizeof signature, "bool(%s x, %s y, %s rtol, %s atol, bool equal_nan)", c,
           c, c, c);
  snprintf(name, sizeof name, "kiln_isclose_%s", c);
  const char *sigs[1] = {signature};
  return kiln_ufunc_create(ctx, name, 1, sigs, body, NULL, out);
}

kiln_status kiln_isclose(kiln_context *ctx, kiln_operand a, kiln_operand b, kiln_operand output,
                         double rtol, double atol, int equal_nan, kiln_stream *stream) {
  if (output.kind == KILN_OPERAND_NEW && output.value.result) *output.value.result = NULL;
  if (!ctx) return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "isclose: ctx is NULL");
  kiln_ufunc *u = NULL;
  int strong = 0;
  KILN_RETURN_IF_ERROR(isclose_ufunc(ctx, operand_dtype(a), operand_dtype(b), &u, &strong));
  kiln_operand in[5] = {a, b, strong ? kiln_operand_float64(rtol) : kiln_operand_float(rtol),
                        strong ? kiln_operand_float64(atol) : kiln_operand_float(atol),
                        kiln_operand_bool(equal_nan)};
  kiln_status status = kiln_ufunc_call(u, 5, in, 1, &output, stream);
  if (status != KILN_OK) kiln_error_prefix(status, "isclose: ");
  kiln_ufunc_release(u);
  return status;
}

kiln_status kiln_allclose(kiln_context *ctx, kiln_operand a, kiln_operand b, double rtol,
                          double atol, int equal_nan, int *result) {
  if (!result) return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "allclose: result is NULL");
  *result = 0;
  kiln_array *close = NULL, *all = NULL;
  kiln_ufunc *logical_and = NULL;
  /* host inputs go to the device first, so the element-wise result stays
   * there for the reduction */
  kiln_array *da = NULL, *db = NULL;
  kiln_status status = KILN_OK;
  if (a.kind == KILN_OPERAND_HOST && (status = kiln_stats_input(ctx, "allclose", a, &da)) == KILN_OK)
    a = kiln_operand_array(da);
  if (status == KILN_OK && b.kind == KILN_OPERAND_HOST &&
      (status = kiln_stats_input(ctx, "allclose", b, &db)) == KILN_OK)
    b = kiln_operand_array(db);
  if (status == KILN_OK)
    status = kiln_isclose(ctx, a, b, kiln_operand_new(&close), rtol, atol, equal_nan, NULL);
  if (status == KILN_OK) status = kiln_ufunc_builtin(ctx, "logical_and", &logical_and);
  if (status == KILN_OK)
    status = kiln_ufunc_reduce(logical_and, kiln_operand_array(close), kiln_operand_new(&all),
                               NULL, NULL);
  uint8_t value = 0;
  if (status == KILN_OK) status = kiln_array_item(all, &value);
  if (status == KILN_OK) *result = value != 0;
  else kiln_error_prefix(status, "allclose: ");
  kiln_ufunc_release(logical_and);
  kiln_array_release(all);
  kiln_array_release(close);
  kiln_array_release(da);
  kiln_array_release(db);
  return status;
}
