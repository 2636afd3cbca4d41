/* Conformance: what KILN_LOG=debug says about fusion (docs/fusion.md,
 * "Kernels and the cache"). Run with KILN_LOG=debug (tests/fusion.cmake;
 * the level is read once per process). The test sends fds 1 and 2 to a
 * file of its own while it runs a fused chain twice, then reads back: one
 * "fusion: fused" line per run naming the calls, the shape and what was
 * read, written and kept; the fused source once (the first run compiles,
 * the second finds it in the memory cache), with both calls' bodies in it;
 * and the line of a group that ran unfused because its kernel does not
 * compile. */
#include "gpu_test_capture.h"
#include "harness.h"

enum { LOG_BYTES = 1 << 22 };

static int count(const char *text, const char *needle) {
  int n = 0;
  for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle)) n++;
  return n;
}

/* y = fz_log_act(fz_log_scale(x, 0.5) * w), the intermediates released. */
static kiln_array *chain(kiln_context *ctx, kiln_ufunc *scale, kiln_ufunc *multiply,
                         kiln_ufunc *act, kiln_array *x, kiln_array *w) {
  kiln_array *t1 = NULL, *t2 = NULL, *y = NULL;
  CHECK_OK(kiln_fusion_begin(ctx, NULL));
  kiln_operand in1[2] = {kiln_operand_array(x), kiln_operand_float32(0.5f)};
  CHECK_OK(kiln_ufunc_call(scale, 2, in1, 1, (kiln_operand[]){kiln_operand_new(&t1)}, NULL));
  kiln_operand in2[2] = {kiln_operand_array(t1), kiln_operand_array(w)};
  CHECK_OK(kiln_ufunc_call(multiply, 2, in2, 1, (kiln_operand[]){kiln_operand_new(&t2)}, NULL));
  kiln_array_release(t1);
  kiln_operand in3[1] = {kiln_operand_array(t2)};
  CHECK_OK(kiln_ufunc_call(act, 1, in3, 1, (kiln_operand[]){kiln_operand_new(&y)}, NULL));
  kiln_array_release(t2);
  CHECK_OK(kiln_fusion_end(ctx, NULL));
  return y;
}

static void test_debug_log(kiln_context *ctx) {
  const char *level = getenv("KILN_LOG");
  if (!level || strcmp(level, "debug") != 0) {
    harness_skip("needs KILN_LOG=debug (tests/fusion.cmake sets it)");
    return;
  }
  setenv("KILN_FUSION", "1", 1);
  kiln_ufunc *scale = NULL, *act = NULL, *multiply = NULL, *twice = NULL, *plus = NULL;
  REQUIRE_OK(kiln_ufunc_create(ctx, "fz_log_scale", 1,
                               (const char *const[]){"float32(float32 v, float32 k)"},
                               "return v * k + 0.125f;", NULL, &scale));
  REQUIRE_OK(kiln_ufunc_create(ctx, "fz_log_act", 1, (const char *const[]){"float32(float32 v)"},
                               "return v / (1.0f + fabs(v));", NULL, &act));
  REQUIRE_OK(kiln_ufunc_builtin(ctx, "multiply", &multiply));
  /* two ufuncs whose helpers share a name: their fused kernel does not compile */
  static const char *const sigs[] = {"float32(float32 x)"};
  REQUIRE_OK(kiln_ufunc_create(ctx, "fz_log_twice", 1, sigs, "return helper(x);",
                               "KILN_DEVICE float helper(float v) { return 2 * v; }", &twice));
  REQUIRE_OK(kiln_ufunc_create(ctx, "fz_log_plus", 1, sigs, "return helper(x);",
                               "KILN_DEVICE float helper(float v) { return v + 5; }", &plus));
  int64_t n = 1031;
  float hx[1031], hw[1031], hy[1031];
  harness_fill_random(hx, KILN_FLOAT32, n, -3, 3);
  harness_fill_random(hw, KILN_FLOAT32, n, -1, 1);
  kiln_array *x = NULL, *w = NULL, *t = NULL, *r = NULL;
  REQUIRE_OK(kiln_array_from_host(ctx, KILN_FLOAT32, 1, &n, NULL, hx, &x));
  REQUIRE_OK(kiln_array_from_host(ctx, KILN_FLOAT32, 1, &n, NULL, hw, &w));

  capture c;
  if (!capture_begin(&c)) {
    CHECK_MSG(0, "cannot redirect fds 1 and 2");
    return;
  }
  kiln_array *y1 = chain(ctx, scale, multiply, act, x, w);
  kiln_array *y2 = chain(ctx, scale, multiply, act, x, w);
  kiln_status fallback = kiln_fusion_begin(ctx, NULL);
  if (fallback == KILN_OK)
    fallback = kiln_ufunc_call(twice, 1, (kiln_operand[]){kiln_operand_array(x)}, 1,
                               (kiln_operand[]){kiln_operand_new(&t)}, NULL);
  if (fallback == KILN_OK)
    fallback = kiln_ufunc_call(plus, 1, (kiln_operand[]){kiln_operand_array(t)}, 1,
                               (kiln_operand[]){kiln_operand_new(&r)}, NULL);
  kiln_array_release(t);
  kiln_status ended = kiln_fusion_end(ctx, NULL);
  char *text = malloc(LOG_BYTES);
  long length = capture_end(&c, text, LOG_BYTES);
  CHECK_OK(fallback);
  CHECK_OK(ended);
  CHECK_MSG(length < LOG_BYTES, "the log (%ld bytes) was cut", length);

  const char *fused_line = "kiln[debug]: fusion: fused 3 of 3 recorded calls over (1031,): "
                           "fz_log_scale -> multiply -> fz_log_act (2 inputs read, 1 outputs "
                           "written, 2 kept in registers)";
  CHECK_MSG(count(text, fused_line) == 2, "\"%s\" %d times, not 2, in:\n%s", fused_line,
            count(text, fused_line), text);
  const char *compiling = "compiling 'kiln_fused'";
  CHECK_MSG(count(text, compiling) == 2, "%d fused sources printed, expected 2 (the chain's "
            "first run, the fallback's), in:\n%s", count(text, compiling), text);
  /* the fused source: both user bodies, the built-in's, the chain's registers */
  const char *source = strstr(text, compiling);
  const char *end = source ? strstr(source, "fusion: fused 3 of 3") : NULL;
  CHECK_MSG(source && end, "no fused source before the first group line");
  if (source && end) {
    size_t span = (size_t)(end - source);
    char *s = malloc(span + 1);
    memcpy(s, source, span);
    s[span] = '\0';
    CHECK_MSG(strstr(s, "return v * k + 0.125f;") && strstr(s, "return v / (1.0f + fabs(v));"),
              "the fused source lacks the user bodies:\n%s", s);
    CHECK_MSG(strstr(s, "ufunc 'multiply'") && strstr(s, "kiln_fz2_body(f1)"),
              "the fused source lacks the chain:\n%s", s);
    free(s);
  }
  CHECK_MSG(strstr(text, "fusion: the fused kernel does not compile; running the calls one by one"),
            "no line for the group that ran unfused:\n%s", text);
  CHECK_MSG(strstr(text, "fusion: ran unfused 2 of 2 recorded calls over (1031,): fz_log_twice -> "
                         "fz_log_plus"),
            "no summary of the group that ran unfused:\n%s", text);
  free(text);

  /* and the values: float32 steps as the kernels take them */
  CHECK_OK(kiln_array_to_host(y2, hy, NULL));
  for (int64_t i = 0; i < n; i++) {
    float a = hx[i] * 0.5f;
    a = a + 0.125f;
    float v = a * hw[i];
    CHECK_CLOSE(hy[i], v / (1.0f + fabsf(v)), 1e-6, 1e-7);
  }
  unsigned char b1[1031 * 4], b2[1031 * 4];
  CHECK_OK(kiln_array_to_host(y1, b1, NULL));
  CHECK_OK(kiln_array_to_host(y2, b2, NULL));
  CHECK(memcmp(b1, b2, sizeof b1) == 0);
  float got[1031];
  CHECK_OK(kiln_array_to_host(r, got, NULL));
  for (int64_t i = 0; i < n; i++) CHECK_CLOSE(got[i], 2 * hx[i] + 5, 0, 0);
  kiln_array *arrays[] = {x, w, y1, y2, r};
  for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++) kiln_array_release(arrays[i]);
  kiln_ufunc *ufuncs[] = {scale, act, multiply, twice, plus};
  for (size_t i = 0; i < sizeof ufuncs / sizeof ufuncs[0]; i++) kiln_ufunc_release(ufuncs[i]);
}

static const harness_test tests[] = {
    {"debug_log", test_debug_log},
    {0},
};

int main(int argc, char **argv) { return harness_main(argc, argv, tests); }
