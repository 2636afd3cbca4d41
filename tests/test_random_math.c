/* kiln's own log, exp, sin and cos (kernels/random.kl, compiled for the
 * host exactly as kernels compile it) against long double: the largest
 * error in ulps over exhaustive or 10^6 random inputs, checked against
 * the bounds docs/random.md states. The float log over every (0, 1]
 * uniform Box-Muller can draw, all 2^24 of them. */
#include <float.h>

#include "core/kernel/host_dialect.h"
#include "harness.h"

/* |got - want| in units of the last place of want in a p-bit format
 * (normal range). */
static double ulps(long double got, long double want, int p) {
  if (want == 0) return got == 0 ? 0 : INFINITY;
  int e;
  frexpl(want, &e); /* want = m 2^e, m in [0.5, 1) */
  long double ulp = ldexpl(1.0L, e - p);
  return (double)(fabsl(got - want) / ulp);
}

static double random_normal_float(void) {
  /* a positive normal float of any exponent */
  uint32_t bits = (uint32_t)(harness_rand_u64() % (0x7f7fffffu - 0x00800000u)) + 0x00800000u;
  return (double)kiln_uint32_as_float(bits);
}

static void report(const char *name, double worst, double bound) {
  printf("  %-26s max error %.3f ulp (bound %.1f)\n", name, worst, bound);
  CHECK_MSG(worst <= bound, "%s: %.3f ulp above the documented %.1f", name, worst, bound);
}

static void test_log(kiln_context *unused) {
  (void)unused;
  double worst = 0;
  for (uint32_t k = 0; k < (1u << 24); k++) { /* every float uniform of (0, 1] */
    float u = (float)(k + 1) * 5.9604644775390625e-8f;
    worst = fmax(worst, ulps(kiln_log_portable_f32(u), logl(u), 24));
  }
  for (int i = 0; i < 1000000; i++) {
    float x = (float)random_normal_float();
    if (x == 1.0f) continue;
    worst = fmax(worst, ulps(kiln_log_portable_f32(x), logl(x), 24));
  }
  report("log float32", worst, 1.0);
  CHECK(kiln_log_portable_f32(1.0f) == 0.0f);

  worst = 0;
  for (int i = 0; i < 1000000; i++) {
    double u = kiln_uint64_to_double01(harness_rand_u64());
    if (u == 1.0) continue;
    worst = fmax(worst, ulps(kiln_log_portable_f64(u), logl(u), 53));
    double x = ldexp(1.0 + harness_rand_uniform(0, 1), (int)(harness_rand_u64() % 2040) - 1020);
    worst = fmax(worst, ulps(kiln_log_portable_f64(x), logl(x), 53));
  }
  report("log float64", worst, 1.0);
  CHECK(kiln_log_portable_f64(1.0) == 0.0);
}

static void test_exp(kiln_context *unused) {
  (void)unused;
  double worst = 0, worst_subnormal = 0;
  for (int i = 0; i < 1000000; i++) {
    float x = (float)harness_rand_uniform(-103.9, 88.72);
    long double want = expl(x);
    float got = kiln_exp_portable_f32(x);
    if (want >= FLT_MIN) worst = fmax(worst, ulps(got, want, 24));
    else worst_subnormal = fmax(worst_subnormal, (double)(fabsl(got - want) / 1.4012984643e-45L));
  }
  /* small arguments, where e^x is near 1 */
  for (int i = 0; i < 100000; i++) {
    float x = (float)harness_rand_uniform(-1e-3, 1e-3);
    worst = fmax(worst, ulps(kiln_exp_portable_f32(x), expl(x), 24));
  }
  report("exp float32", worst, 1.0);
  report("exp float32 (subnormal)", worst_subnormal, 1.0);
  CHECK(isinf(kiln_exp_portable_f32(89.5f)) && kiln_exp_portable_f32(-105.0f) == 0.0f);
  CHECK(kiln_exp_portable_f32(0.0f) == 1.0f && isnan(kiln_exp_portable_f32(NAN)));

  worst = 0;
  for (int i = 0; i < 1000000; i++) {
    double x = harness_rand_uniform(-708, 709.7);
    if (i % 10 == 0) x = harness_rand_uniform(-1e-6, 1e-6);
    worst = fmax(worst, ulps(kiln_exp_portable_f64(x), expl(x), 53));
  }
  report("exp float64", worst, 1.0);
  CHECK(isinf(kiln_exp_portable_f64(710.0)) && kiln_exp_portable_f64(-750.0) == 0.0);
  CHECK(kiln_exp_portable_f64(0.0) == 1.0);
}

static void test_sincos(kiln_context *unused) {
  (void)unused;
  const long double two_pi = 6.283185307179586476925286766559005768L;
  double worst_s = 0, worst_c = 0;
  for (int i = 0; i < 1000000; i++) {
    uint32_t turn = (uint32_t)harness_rand_u64();
    if (i < 64) turn = (uint32_t)i << 26; /* eighths and their neighbours */
    long double angle = two_pi * (long double)(turn >> 8) / 16777216.0L;
    kiln_sincos_f32 r = kiln_sincos_turn_f32(turn);
    long double s = sinl(angle), c = cosl(angle);
    /* relative to the larger of |sin|, |cos| (>= 0.7): what Box-Muller's
     * r cos, r sin need; near a zero the absolute error is what counts */
    worst_s = fmax(worst_s, ulps(r.s, s, 24) * fabsl(s) / fmaxl(fabsl(s), fabsl(c)));
    worst_c = fmax(worst_c, ulps(r.c, c, 24) * fabsl(c) / fmaxl(fabsl(s), fabsl(c)));
  }
  report("sin 2 pi t float32", worst_s, 1.1);
  report("cos 2 pi t float32", worst_c, 1.1);
  kiln_sincos_f32 zero = kiln_sincos_turn_f32(0), quarter = kiln_sincos_turn_f32(1u << 30);
  CHECK(zero.s == 0.0f && zero.c == 1.0f && quarter.s == 1.0f && quarter.c == 0.0f);

  worst_s = worst_c = 0;
  for (int i = 0; i < 1000000; i++) {
    uint64_t turn = harness_rand_u64();
    long double angle = two_pi * (long double)(turn >> 11) / 9007199254740992.0L;
    kiln_sincos_f64 r = kiln_sincos_turn_f64(turn);
    long double s = sinl(angle), c = cosl(angle);
    worst_s = fmax(worst_s, ulps(r.s, s, 53) * fabsl(s) / fmaxl(fabsl(s), fabsl(c)));
    worst_c = fmax(worst_c, ulps(r.c, c, 53) * fabsl(c) / fmaxl(fabsl(s), fabsl(c)));
  }
  report("sin 2 pi t float64", worst_s, 1.1);
  report("cos 2 pi t float64", worst_c, 1.1);
}

static const harness_test tests[] = {
    {"log", test_log},
    {"exp", test_exp},
    {"sincos", test_sincos},
    {0},
};

int main(int argc, char **argv) { return harness_main_no_context(argc, argv, tests); }
