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

/* Box-Muller's float32 radius sqrt(-2 log u) over every u it can draw. */
static void test_box_muller_radius(kiln_context *unused) {
  (void)unused;
  double worst = 0;
  for (uint32_t k = 0; k < (1u << 24) - 1; k++) { /* u = (k + 1) 2^-24 < 1 */
    long double u = (long double)(k + 1) / 16777216.0L;
    worst = fmax(worst, ulps(kiln_box_muller_radius_f32(k << 8), sqrtl(-2.0L * logl(u)), 24));
  }
  report("Box-Muller radius float32", worst, 1.0);
  /* u = 1: the argument 2^-100 (never 0, for the sqrt's fast path), so 2^-50 */
  CHECK(kiln_box_muller_radius_f32(0xffffff00u) == 0x1p-50f);
}

/* sin and cos of every angle float32 Box-Muller draws, y = fl(x P - K)
 * for x = 1 + j 2^-23, j < 2^23, P = fl(pi/2), K = fl(3/2 P), and of the
 * largest, 2 P - K. */
static void test_sincos_eighth(kiln_context *unused) {
  (void)unused;
  double worst_s = 0, worst_c = 0;
  for (uint32_t j = 0; j <= (1u << 23); j++) {
    float y = fmaf(1.0f + (float)j / 8388608.0f, 1.57079637050628662109375f,
                   -2.35619449615478515625f);
    kiln_sincos_f32 r = kiln_sincos_eighth_f32(y);
    long double s = sinl(y), c = cosl(y);
    worst_s = fmax(worst_s, ulps(r.s, s, 24) * fabsl(s) / fmaxl(fabsl(s), fabsl(c)));
    worst_c = fmax(worst_c, ulps(r.c, c, 24));
  }
  report("sin |y| <= pi/4 float32", worst_s, 1.0);
  report("cos |y| <= pi/4 float32", worst_c, 1.0);
  kiln_sincos_f32 zero = kiln_sincos_eighth_f32(0.0f);
  CHECK(zero.s == 0.0f && zero.c == 1.0f);
}

/* The pair float32 Box-Muller makes of two words: the radius and angle
 * docs/random.md describes, computed here in long double from the bits. */
static void test_box_muller_pair(kiln_context *unused) {
  (void)unused;
  const long double pi = 3.141592653589793238462643383279502884L;
  double worst_r = 0, worst_angle = 0;
  int quadrants[4] = {0};
  for (int i = 0; i < 1000000; i++) {
    uint64_t w = harness_rand_u64();
    uint32_t a = (uint32_t)w, b = (uint32_t)(w >> 32);
    kiln_sincos_f32 z = kiln_box_muller_f32(a, b);
    long double u = (long double)((a >> 8) + 1) / 16777216.0L;
    long double want_r = sqrtl(-2.0L * logl(u));
    /* x P - K exactly: turned from (j 2^-23 - 1/2) pi/2 by P's and K's
     * roundings, every arc alike */
    long double angle = (1.0L + (long double)(b >> 9) / 8388608.0L) *
                            1.57079637050628662109375L - 2.35619449615478515625L;
    if (b & 0x100u) angle += pi / 2; /* a quarter turn */
    if (a & 1u) angle += pi;         /* a half turn */
    long double got_r = hypotl(z.c, z.s);
    if (want_r > 1e-3L) {
      worst_r = fmax(worst_r, (double)(fabsl(got_r - want_r) / want_r));
      long double d = atan2l(z.s, z.c) - angle;
      d -= 2 * pi * floorl(d / (2 * pi) + 0.5L); /* to (-pi, pi] */
      worst_angle = fmax(worst_angle, (double)fabsl(d));
    }
    quadrants[(z.c < 0) * 2 + (z.s < 0)]++;
  }
  printf("  Box-Muller pair: radius %.3g relative, angle %.3g rad, quadrants %d %d %d %d\n",
         worst_r, worst_angle, quadrants[0], quadrants[1], quadrants[2], quadrants[3]);
  CHECK(worst_r < 4e-7 && worst_angle < 2e-7);
  for (int q = 0; q < 4; q++) /* 250000 each; 5 sigma is 2165 */
    CHECK_MSG(abs(quadrants[q] - 250000) < 2165, "quadrant %d: %d of 10^6", q, quadrants[q]);
}

static const harness_test tests[] = {
    {"log", test_log},
    {"exp", test_exp},
    {"sincos", test_sincos},
    {"box_muller_radius", test_box_muller_radius},
    {"sincos_eighth", test_sincos_eighth},
    {"box_muller_pair", test_box_muller_pair},
    {0},
};

int main(int argc, char **argv) { return harness_main_no_context(argc, argv, tests); }
