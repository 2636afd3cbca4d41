/* float16 conversions on the host (kiln/dtype.h: kiln_float16_*), against
 * an independent reference: the value of every binary16 pattern computed
 * from its fields, and "nearest float16" found by searching the sorted
 * list of all finite float16 values (ties to the even pattern), not by bit
 * manipulation. Exhaustive over the 65536 patterns; the float and double
 * roundings on every midpoint, its neighbours, random values of every
 * magnitude, subnormals, overflow and NaN. */
#include "harness.h"

/* The value of finite positive pattern h (h < 0x7c00), from its fields. */
static double field_value(uint32_t h) {
  uint32_t e = h >> 10, m = h & 0x3ffu;
  return e == 0 ? ldexp((double)m, -24) : ldexp((double)(1024 + m), (int)e - 25);
}

/* The nearest float16 to x by search; ties to the even pattern; beyond
 * the midpoint between 65504 and 65536 an infinity. */
static uint16_t reference_round(double x) {
  uint16_t sign = signbit(x) ? 0x8000u : 0;
  if (isnan(x)) return (uint16_t)(sign | 0x7e00u); /* any NaN: checked apart */
  double a = fabs(x);
  if (a >= 65520.0) return (uint16_t)(sign | 0x7c00u);
  uint32_t lo = 0, hi = 0x7bffu; /* the largest pattern whose value <= a */
  while (lo < hi) {
    uint32_t mid = (lo + hi + 1) / 2;
    if (field_value(mid) <= a) lo = mid;
    else hi = mid - 1;
  }
  double below = field_value(lo), above = lo == 0x7bffu ? 65536.0 : field_value(lo + 1);
  uint32_t pick = a - below < above - a   ? lo
                  : a - below > above - a ? lo + 1
                  : (lo & 1u)             ? lo + 1
                                          : lo;
  return (uint16_t)(sign | pick);
}

static void test_every_pattern(kiln_context *unused) {
  (void)unused;
  int failures = 0;
  for (uint32_t h = 0; h < 65536 && failures < 10; h++) {
    float f = kiln_float16_to_float((uint16_t)h);
    uint32_t magnitude = h & 0x7fffu;
    int negative = (h & 0x8000u) != 0;
    int ok;
    if (magnitude > 0x7c00u) ok = isnan(f) && (signbit(f) != 0) == negative;
    else if (magnitude == 0x7c00u) ok = isinf(f) && (f < 0) == negative;
    else ok = (double)f == (negative ? -1 : 1) * field_value(magnitude) &&
              (signbit(f) != 0) == negative;
    /* and back, bit for bit, NaN payloads included (through a double only
     * the non-NaNs: widening a signalling NaN quiets it) */
    ok = ok && kiln_float16_from_float(f) == h &&
         (magnitude > 0x7c00u || kiln_float16_from_double(f) == h);
    if (!ok) {
      failures++;
      harness_fail(__FILE__, __LINE__, "pattern 0x%04x: float %a, back 0x%04x / 0x%04x", h,
                   (double)f, kiln_float16_from_float(f), kiln_float16_from_double(f));
    }
  }
}

static void check_float(float x, int *failures) {
  uint16_t got = kiln_float16_from_float(x), want = reference_round(x);
  uint16_t got_d = kiln_float16_from_double(x);
  int ok = isnan(x) ? (got & 0x7fffu) > 0x7c00u && (got_d & 0x7fffu) > 0x7c00u &&
                          (got >> 15) == (signbit(x) != 0)
                    : got == want && got_d == want;
  if (!ok && (*failures)++ < 10)
    harness_fail(__FILE__, __LINE__, "float %a: 0x%04x (from double 0x%04x), nearest 0x%04x",
                 (double)x, got, got_d, want);
}

static void test_float_rounding(kiln_context *unused) {
  (void)unused;
  int failures = 0;
  /* every midpoint between neighbours (exact in float), and one float step
   * either side of it: ties to even, and no tie where there is none */
  for (uint32_t h = 0; h < 0x7c00u; h++) {
    double below = field_value(h), above = h == 0x7bffu ? 65536.0 : field_value(h + 1);
    float mid = (float)((below + above) / 2);
    for (int s = 0; s < 2; s++) {
      float m = s ? -mid : mid;
      check_float(m, &failures);
      check_float(nextafterf(m, INFINITY), &failures);
      check_float(nextafterf(m, -INFINITY), &failures);
    }
  }
  /* random floats of every magnitude: the float16 range and around it */
  for (int i = 0; i < 2000000; i++) {
    uint32_t bits = (uint32_t)harness_rand_u64();
    uint32_t e = 90 + (uint32_t)(harness_rand_u64() % 60); /* 2^-37 .. 2^22 */
    if (i % 4 != 0) bits = (bits & 0x807fffffu) | (e << 23);
    float x;
    memcpy(&x, &bits, sizeof x);
    check_float(x, &failures);
  }
  static const float specials[] = {0.0f,     -0.0f,       65504.0f,   65519.99f, 65520.0f,
                                   1e30f,    -1e30f,      INFINITY,   -INFINITY, NAN,
                                   -NAN,     1e-45f,      5.96e-8f,   2.98e-8f,  2.9802322e-8f,
                                   6.1e-5f,  6.103515625e-05f, 1.0f};
  for (size_t i = 0; i < sizeof specials / sizeof specials[0]; i++)
    check_float(specials[i], &failures);
  CHECK(kiln_float16_from_float(65520.0f) == 0x7c00u);
  CHECK(kiln_float16_from_float(65519.99f) == 0x7bffu);
  CHECK(kiln_float16_from_float(2.9802322387695312e-8f) == 0); /* 2^-25: tie, to 0 */
  CHECK(kiln_float16_from_float(-0.0f) == 0x8000u);
}

/* A double rounds once: one just above a midpoint goes up even where the
 * float nearest to it is the midpoint itself (which would then round to
 * even, down). */
static void test_double_rounding(kiln_context *unused) {
  (void)unused;
  int failures = 0;
  for (uint32_t h = 0; h < 0x7bffu; h++) {
    double mid = (field_value(h) + field_value(h + 1)) / 2;
    double up = mid + mid * 0x1p-40, down = mid - mid * 0x1p-40;
    uint16_t got_up = kiln_float16_from_double(up), got_down = kiln_float16_from_double(down);
    if ((got_up != h + 1 || got_down != h) && failures++ < 10)
      harness_fail(__FILE__, __LINE__, "around the midpoint after 0x%04x: up 0x%04x down 0x%04x",
                   h, got_up, got_down);
  }
  for (int i = 0; i < 1000000; i++) {
    double x = ldexp(harness_rand_uniform(-1, 1), (int)(harness_rand_u64() % 50) - 30);
    uint16_t got = kiln_float16_from_double(x), want = reference_round(x);
    if (got != want && failures++ < 10)
      harness_fail(__FILE__, __LINE__, "double %a: 0x%04x, nearest 0x%04x", x, got, want);
  }
  CHECK(kiln_float16_from_double(65520.0) == 0x7c00u);
  CHECK(kiln_float16_from_double(65519.999999) == 0x7bffu);
  CHECK(kiln_float16_from_double(1e300) == 0x7c00u);
  CHECK((kiln_float16_from_double(NAN) & 0x7fffu) > 0x7c00u);
  CHECK(kiln_float16_from_double(-1e-300) == 0x8000u);
}

static void test_names(kiln_context *unused) {
  (void)unused;
  static const char *const names[] = {"float16", "f2", "e", "half"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    kiln_dtype d = KILN_DTYPE_COUNT;
    CHECK_OK(kiln_dtype_from_name(names[i], &d));
    CHECK(d == KILN_FLOAT16);
  }
  CHECK(kiln_dtype_size(KILN_FLOAT16) == 2);
  CHECK(kiln_dtype_is_float(KILN_FLOAT16));
  CHECK(strcmp(kiln_dtype_name(KILN_FLOAT16), "float16") == 0);
  CHECK(strcmp(kiln_dtype_kernel_type(KILN_FLOAT16), "kiln_half") == 0);
  /* NumPy's safe casts into and out of float16 */
  static const kiln_dtype safe_in[] = {KILN_BOOL, KILN_INT8, KILN_UINT8, KILN_FLOAT16};
  for (int d = 0; d < KILN_DTYPE_COUNT; d++) {
    int want = 0;
    for (size_t i = 0; i < sizeof safe_in / sizeof safe_in[0]; i++)
      want |= (int)safe_in[i] == d;
    CHECK_MSG(kiln_dtype_can_cast_safely((kiln_dtype)d, KILN_FLOAT16) == want, "%s -> float16",
              kiln_dtype_name((kiln_dtype)d));
    int out = d == KILN_FLOAT16 || d == KILN_FLOAT32 || d == KILN_FLOAT64 ||
              d == KILN_COMPLEX64 || d == KILN_COMPLEX128;
    CHECK_MSG(kiln_dtype_can_cast_safely(KILN_FLOAT16, (kiln_dtype)d) == out, "float16 -> %s",
              kiln_dtype_name((kiln_dtype)d));
  }
}

static const harness_test tests[] = {
    {"every_pattern", test_every_pattern},
    {"float_rounding", test_float_rounding},
    {"double_rounding", test_double_rounding},
    {"names", test_names},
    {0},
};

int main(int argc, char **argv) { return harness_main_no_context(argc, argv, tests); }
