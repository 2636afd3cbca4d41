/* tests/test_type_placeholders.c: KILN_T, KILN_OUT_T, KILN_ACC_T and
 * KILN_T_<name> in ufunc and gufunc bodies stand for the dispatched
 * signature's types (docs/kernel-language.md, "Type placeholders"), so a
 * body serving float32 and float64 computes in each one's precision. */
#include "harness.h"

static int has_double(kiln_context *ctx) {
  kiln_device_info info;
  kiln_context_device_info(ctx, &info);
  return info.has_double;
}

/* A ufunc whose body divides in KILN_OUT_T: 1/3 in float32 and in float64. */
static void test_ufunc_out_type(kiln_context *ctx) {
  if (!has_double(ctx)) {
    harness_skip("no float64 on this device");
    return;
  }
  static const char *const sigs[] = {"float32(float32 x)", "float64(float64 x)"};
  kiln_ufunc *third = NULL;
  REQUIRE_OK(kiln_ufunc_create(ctx, "third", 2, sigs,
                               "KILN_T one = x / x; return (KILN_OUT_T)one / (KILN_OUT_T)3;", NULL,
                               &third));
  int64_t n = 3;
  float xf[3] = {1.5f, 2.5f, 7.0f}, rf[3];
  double xd[3] = {1.5, 2.5, 7.0}, rd[3];
  kiln_operand in = kiln_operand_host(xf, KILN_FLOAT32, 1, &n, NULL);
  kiln_operand out = kiln_operand_host_output(rf, KILN_FLOAT32, 1, &n, NULL);
  CHECK_OK(kiln_ufunc_call(third, 1, &in, 1, &out, NULL));
  in = kiln_operand_host(xd, KILN_FLOAT64, 1, &n, NULL);
  out = kiln_operand_host_output(rd, KILN_FLOAT64, 1, &n, NULL);
  CHECK_OK(kiln_ufunc_call(third, 1, &in, 1, &out, NULL));
  for (int i = 0; i < 3; i++) {
    CHECK_MSG(rf[i] == 1.0f / 3.0f, "float32: %.9g", rf[i]);
    CHECK_MSG(rd[i] == 1.0 / 3.0, "float64: %.17g (float32 precision would be %.17g)", rd[i],
              (double)(1.0f / 3.0f));
  }
  kiln_ufunc_release(third);
}

/* Named outputs and inputs by name; KILN_ACC_T widens int8 to int64. */
static void test_named_and_accumulator(kiln_context *ctx) {
  static const char *const sigs[] = {"(int8 scaled, int16 wide)(int8 x, int16 y)"};
  kiln_ufunc *u = NULL;
  REQUIRE_OK(kiln_ufunc_create(ctx, "named_types", 1, sigs,
                               "KILN_ACC_T big = (KILN_ACC_T)x * 1000;\n"
                               "scaled = (KILN_T_scaled)(big / 1000);\n"
                               "wide = (KILN_T_wide)((KILN_T_y)y + (KILN_T_x)x);",
                               NULL, &u));
  int64_t n = 4;
  int8_t x[4] = {100, -120, 7, 127}, scaled[4];
  int16_t y[4] = {1000, -2000, 3, 30000}, wide[4];
  kiln_operand in[2] = {kiln_operand_host(x, KILN_INT8, 1, &n, NULL),
                        kiln_operand_host(y, KILN_INT16, 1, &n, NULL)};
  kiln_operand out[2] = {kiln_operand_host_output(scaled, KILN_INT8, 1, &n, NULL),
                         kiln_operand_host_output(wide, KILN_INT16, 1, &n, NULL)};
  CHECK_OK(kiln_ufunc_call(u, 2, in, 2, out, NULL));
  for (int i = 0; i < 4; i++) {
    CHECK_MSG(scaled[i] == x[i], "element %d: %d (KILN_ACC_T not int64?)", i, scaled[i]);
    CHECK(wide[i] == (int16_t)(y[i] + x[i]));
  }
  kiln_ufunc_release(u);
}

/* docs/gufuncs.md's l2_norm: a float64 call accumulates in float64. */
static void test_gufunc_l2_norm(kiln_context *ctx) {
  if (!has_double(ctx)) {
    harness_skip("no float64 on this device");
    return;
  }
  static const char *const sigs[] = {"float32(float32 x)", "float64(float64 x)"};
  kiln_gufunc *l2 = NULL;
  REQUIRE_OK(kiln_gufunc_create(ctx, "l2_norm_t", "(n)->()", 2, sigs,
                                "KILN_ACC_T s = 0;\n"
                                "for (int64_t i = 0; i < n; i++) s += x(i) * x(i);\n"
                                "return sqrt(s);",
                                NULL, &l2));
  enum { ROWS = 5, N = 37 };
  int64_t shape[2] = {ROWS, N}, rows = ROWS;
  double xd[ROWS * N], rd[ROWS];
  float xf[ROWS * N], rf[ROWS];
  harness_fill_random(xd, KILN_FLOAT64, ROWS * N, -1, 1);
  for (int i = 0; i < ROWS * N; i++) xf[i] = (float)xd[i];
  kiln_operand in = kiln_operand_host(xd, KILN_FLOAT64, 2, shape, NULL);
  kiln_operand out = kiln_operand_host_output(rd, KILN_FLOAT64, 1, &rows, NULL);
  CHECK_OK(kiln_gufunc_call(l2, 1, &in, 1, &out, NULL));
  in = kiln_operand_host(xf, KILN_FLOAT32, 2, shape, NULL);
  out = kiln_operand_host_output(rf, KILN_FLOAT32, 1, &rows, NULL);
  CHECK_OK(kiln_gufunc_call(l2, 1, &in, 1, &out, NULL));
  for (int r = 0; r < ROWS; r++) {
    double s = 0;
    float sf = 0;
    for (int i = 0; i < N; i++) {
      volatile double p = xd[r * N + i] * xd[r * N + i];
      s += p;
      volatile float pf = xf[r * N + i] * xf[r * N + i];
      sf += pf;
    }
    CHECK_CLOSE(rd[r], sqrt(s), 1e-15, 0);
    CHECK_CLOSE(rf[r], sqrtf(sf), 1e-6, 0);
  }
  kiln_gufunc_release(l2);
}

static const harness_test tests[] = {
    {"ufunc_out_type", test_ufunc_out_type},
    {"named_and_accumulator", test_named_and_accumulator},
    {"gufunc_l2_norm", test_gufunc_l2_norm},
    {0}};

int main(int argc, char **argv) { return harness_main(argc, argv, tests); }
