/* Conformance: every built-in ufunc against the C library on random inputs
 * in each function's domain, for float32 and float64; integer arithmetic
 * (wrapping as NumPy's) and comparisons for every integer dtype and bool;
 * where; NaN and infinity cases; the result dtypes of mixed-dtype calls
 * against NumPy's promotion table.
 *
 * Tolerances (relative, with an absolute floor for results near 0), also
 * in docs/ufuncs.md:
 *   float64 add subtract multiply divide sqrt negative absolute floor ceil
 *           minimum maximum: 1e-15 (correctly rounded operations)
 *   float64 other functions: 1e-12 relative, 1e-14 absolute
 *   float32 arithmetic and sqrt: 2e-7 (about one ulp)
 *   float32 other functions: 1e-5 relative, 1e-6 absolute
 *   float16 (computed in float32 and rounded, as NumPy): the float32
 *           reference rounded to float16, exactly for the correctly
 *           rounded operations, else within one float16 ulp
 * Integer results and comparisons are exact. */
#include "ufunc_testing.h"

#define N 1031 /* a prime: no chunk or work-group size divides it */

typedef struct float_case {
  const char *name;
  int nin;
  double lo[2], hi[2]; /* domain of each input */
  double (*ref)(double a, double b);
  int basic; /* correctly rounded in both dtypes */
} float_case;

static double ref_add(double a, double b) { return a + b; }
static double ref_subtract(double a, double b) { return a - b; }
static double ref_multiply(double a, double b) { return a * b; }
static double ref_divide(double a, double b) { return a / b; }
static double ref_negative(double a, double b) { (void)b; return -a; }
static double ref_absolute(double a, double b) { (void)b; return fabs(a); }
static double ref_sqrt(double a, double b) { (void)b; return sqrt(a); }
static double ref_exp(double a, double b) { (void)b; return exp(a); }
static double ref_expm1(double a, double b) { (void)b; return expm1(a); }
static double ref_log(double a, double b) { (void)b; return log(a); }
static double ref_log1p(double a, double b) { (void)b; return log1p(a); }
static double ref_log2(double a, double b) { (void)b; return log2(a); }
static double ref_log10(double a, double b) { (void)b; return log10(a); }
static double ref_sin(double a, double b) { (void)b; return sin(a); }
static double ref_cos(double a, double b) { (void)b; return cos(a); }
static double ref_tan(double a, double b) { (void)b; return tan(a); }
static double ref_arcsin(double a, double b) { (void)b; return asin(a); }
static double ref_arccos(double a, double b) { (void)b; return acos(a); }
static double ref_arctan(double a, double b) { (void)b; return atan(a); }
static double ref_arctan2(double a, double b) { return atan2(a, b); }
static double ref_sinh(double a, double b) { (void)b; return sinh(a); }
static double ref_cosh(double a, double b) { (void)b; return cosh(a); }
static double ref_tanh(double a, double b) { (void)b; return tanh(a); }
static double ref_hypot(double a, double b) { return hypot(a, b); }
static double ref_power(double a, double b) { return pow(a, b); }
static double ref_minimum(double a, double b) { return isnan(a) || a < b ? a : b; }
static double ref_maximum(double a, double b) { return isnan(a) || a > b ? a : b; }
static double ref_floor(double a, double b) { (void)b; return floor(a); }
static double ref_ceil(double a, double b) { (void)b; return ceil(a); }

static const float_case float_cases[] = {
    {"add", 2, {-100, -100}, {100, 100}, ref_add, 1},
    {"subtract", 2, {-100, -100}, {100, 100}, ref_subtract, 1},
    {"multiply", 2, {-100, -100}, {100, 100}, ref_multiply, 1},
    {"divide", 2, {-100, 0.5}, {100, 100}, ref_divide, 1},
    {"negative", 1, {-100, 0}, {100, 0}, ref_negative, 1},
    {"absolute", 1, {-100, 0}, {100, 0}, ref_absolute, 1},
    {"sqrt", 1, {0, 0}, {100, 0}, ref_sqrt, 1},
    {"exp", 1, {-20, 0}, {20, 0}, ref_exp, 0},
    {"expm1", 1, {-5, 0}, {5, 0}, ref_expm1, 0},
    {"log", 1, {0.01, 0}, {100, 0}, ref_log, 0},
    {"log1p", 1, {-0.9, 0}, {10, 0}, ref_log1p, 0},
    {"log2", 1, {0.01, 0}, {100, 0}, ref_log2, 0},
    {"log10", 1, {0.01, 0}, {100, 0}, ref_log10, 0},
    {"sin", 1, {-10, 0}, {10, 0}, ref_sin, 0},
    {"cos", 1, {-10, 0}, {10, 0}, ref_cos, 0},
    {"tan", 1, {-1.4, 0}, {1.4, 0}, ref_tan, 0},
    {"arcsin", 1, {-1, 0}, {1, 0}, ref_arcsin, 0},
    {"arccos", 1, {-1, 0}, {1, 0}, ref_arccos, 0},
    {"arctan", 1, {-10, 0}, {10, 0}, ref_arctan, 0},
    {"arctan2", 2, {-10, -10}, {10, 10}, ref_arctan2, 0},
    {"sinh", 1, {-10, 0}, {10, 0}, ref_sinh, 0},
    {"cosh", 1, {-10, 0}, {10, 0}, ref_cosh, 0},
    {"tanh", 1, {-5, 0}, {5, 0}, ref_tanh, 0},
    {"hypot", 2, {-10, -10}, {10, 10}, ref_hypot, 0},
    {"power", 2, {0.1, -3}, {10, 3}, ref_power, 0},
    {"minimum", 2, {-100, -100}, {100, 100}, ref_minimum, 1},
    {"maximum", 2, {-100, -100}, {100, 100}, ref_maximum, 1},
    {"floor", 1, {-100, 0}, {100, 0}, ref_floor, 1},
    {"ceil", 1, {-100, 0}, {100, 0}, ref_ceil, 1},
};
#define NFLOAT (int)(sizeof float_cases / sizeof float_cases[0])

/* Runs built-in `name` on device copies of host inputs, NEW output; the
 * result (dtype *out_dtype) is copied into `result`. */
static int run_builtin(kiln_context *ctx, const char *name, int nin, void *const *inputs,
                       const kiln_dtype *dtypes, int64_t n, void *result,
                       kiln_dtype *out_dtype) {
  kiln_ufunc *u = NULL;
  kiln_status s = kiln_ufunc_builtin(ctx, name, &u);
  if (s != KILN_OK) {
    harness_fail(__FILE__, __LINE__, "builtin %s: %s", name, kiln_last_error());
    return 0;
  }
  kiln_array *arrays[3] = {0}, *r = NULL;
  kiln_operand in[3];
  int ok = 1;
  for (int j = 0; j < nin && ok; j++) {
    ok = kiln_array_from_host(ctx, dtypes[j], 1, &n, NULL, inputs[j], &arrays[j]) == KILN_OK;
    in[j] = kiln_operand_array(arrays[j]);
  }
  kiln_operand out[1] = {kiln_operand_new(&r)};
  if (ok) {
    s = kiln_ufunc_call(u, nin, in, 1, out, NULL);
    if (s != KILN_OK)
      harness_fail(__FILE__, __LINE__, "%s(%s): %s", name, kiln_dtype_name(dtypes[0]),
                   kiln_last_error());
    ok = s == KILN_OK && kiln_array_to_host(r, result, NULL) == KILN_OK;
    if (ok) *out_dtype = kiln_array_dtype(r);
  }
  for (int j = 0; j < 3; j++) kiln_array_release(arrays[j]);
  kiln_array_release(r);
  kiln_ufunc_release(u);
  return ok;
}

/* One float16 ulp at x's magnitude (an infinity counts as 65536, so that
 * 65504 and inf are one step apart). */
static double float16_ulp(double x) {
  x = fabs(x);
  if (isinf(x)) x = 65536;
  if (x < 6.103515625e-05) return 5.9604644775390625e-08;
  int e;
  frexp(x, &e);
  return ldexp(1, e - 11);
}

/* float16: NumPy computes in float32 and rounds, so the reference is the
 * float32 result (of the double reference) rounded to float16: exact for
 * the correctly rounded operations, one float16 ulp for the others (their
 * float32 results differ from libm's in the last bits, which moves a
 * rounding at most one step). */
static int float16_matches(const float_case *fc, double want_double, double got) {
  double want = kiln_float16_to_float(kiln_float16_from_float((float)want_double));
  if (got == want || (isnan(got) && isnan(want))) return 1;
  if (fc->basic) return 0;
  double g = isinf(got) ? copysign(65536, got) : got, w = isinf(want) ? copysign(65536, want) : want;
  return fabs(g - w) <= float16_ulp(want) + 3e-7;
}

static void test_float_functions(kiln_context *ctx) {
  static const kiln_dtype floats[3] = {KILN_FLOAT16, KILN_FLOAT32, KILN_FLOAT64};
  for (int c = 0; c < NFLOAT; c++) {
    const float_case *fc = &float_cases[c];
    for (int t = 0; t < 3; t++) {
      kiln_dtype dtype = floats[t];
      void *inputs[2];
      kiln_dtype dtypes[2] = {dtype, dtype};
      for (int j = 0; j < fc->nin; j++) {
        inputs[j] = malloc(N * 8);
        for (int64_t i = 0; i < N; i++) {
          double v = harness_rand_uniform(fc->lo[j], fc->hi[j]);
          if (dtype == KILN_FLOAT16) ((uint16_t *)inputs[j])[i] = kiln_float16_from_double(v);
          else if (dtype == KILN_FLOAT32) ((float *)inputs[j])[i] = (float)v;
          else ((double *)inputs[j])[i] = v;
        }
      }
      double result[N];
      kiln_dtype out_dtype = KILN_DTYPE_COUNT;
      if (run_builtin(ctx, fc->name, fc->nin, inputs, dtypes, N, result, &out_dtype)) {
        CHECK_MSG(out_dtype == dtype, "%s(%s) gave %s", fc->name, kiln_dtype_name(dtype),
                  kiln_dtype_name(out_dtype));
        double rtol = dtype == KILN_FLOAT64 ? (fc->basic ? 1e-15 : 1e-12)
                                            : (fc->basic ? 2e-7 : 1e-5);
        double atol = fc->basic ? 0 : dtype == KILN_FLOAT64 ? 1e-14 : 1e-6;
        int failures = 0;
        for (int64_t i = 0; i < N && failures < 5; i++) {
          double a = harness_get(inputs[0], dtype, i);
          double b = fc->nin > 1 ? harness_get(inputs[1], dtype, i) : 0;
          double want = fc->ref(a, b), got = harness_get(result, dtype, i);
          int ok = dtype == KILN_FLOAT16 ? float16_matches(fc, want, got)
                                         : got == want || fabs(got - want) <= atol + rtol * fabs(want);
          if (!ok) {
            failures++;
            harness_fail(__FILE__, __LINE__, "%s(%.17g, %.17g) %s = %.17g, libm %.17g (rtol %g)",
                         fc->name, a, b, kiln_dtype_name(dtype), got, want, rtol);
          }
        }
      }
      for (int j = 0; j < fc->nin; j++) free(inputs[j]);
    }
  }
}

static void test_special_values(kiln_context *ctx) {
  static const kiln_dtype floats[2] = {KILN_FLOAT32, KILN_FLOAT64};
  for (int t = 0; t < 2; t++) {
    kiln_dtype dtype = floats[t];
    double a64[4] = {NAN, 1, NAN, -2}, b64[4] = {1, NAN, NAN, 3};
    float a32[4], b32[4];
    for (int i = 0; i < 4; i++) a32[i] = (float)a64[i], b32[i] = (float)b64[i];
    void *inputs[2] = {t ? (void *)a64 : (void *)a32, t ? (void *)b64 : (void *)b32};
    kiln_dtype dtypes[2] = {dtype, dtype}, out;
    double r[4];
    /* minimum/maximum propagate NaN from either side, as NumPy's */
    if (run_builtin(ctx, "minimum", 2, inputs, dtypes, 4, r, &out)) {
      for (int i = 0; i < 3; i++) CHECK(isnan(harness_get(r, dtype, i)));
      CHECK(harness_get(r, dtype, 3) == -2);
    }
    if (run_builtin(ctx, "maximum", 2, inputs, dtypes, 4, r, &out)) {
      for (int i = 0; i < 3; i++) CHECK(isnan(harness_get(r, dtype, i)));
      CHECK(harness_get(r, dtype, 3) == 3);
    }
    double x64[4] = {-1, 0, 1000, -0.0};
    float x32[4] = {-1, 0, 1000, -0.0f};
    void *x[1] = {t ? (void *)x64 : (void *)x32};
    if (run_builtin(ctx, "sqrt", 1, x, dtypes, 4, r, &out)) {
      CHECK(isnan(harness_get(r, dtype, 0)));
      CHECK(harness_get(r, dtype, 1) == 0);
    }
    if (run_builtin(ctx, "log", 1, x, dtypes, 4, r, &out)) {
      CHECK(isnan(harness_get(r, dtype, 0)));
      CHECK(isinf(harness_get(r, dtype, 1)) && harness_get(r, dtype, 1) < 0);
    }
    if (run_builtin(ctx, "exp", 1, x, dtypes, 4, r, &out)) {
      CHECK(isinf(harness_get(r, dtype, 2)) && harness_get(r, dtype, 2) > 0);
      CHECK(harness_get(r, dtype, 1) == 1);
    }
    /* comparisons with NaN are false, except not_equal */
    uint8_t flags[4];
    if (run_builtin(ctx, "equal", 2, inputs, dtypes, 4, flags, &out)) {
      CHECK(out == KILN_BOOL);
      CHECK(flags[0] == 0 && flags[1] == 0 && flags[2] == 0 && flags[3] == 0);
    }
    if (run_builtin(ctx, "not_equal", 2, inputs, dtypes, 4, flags, &out))
      CHECK(flags[0] == 1 && flags[1] == 1 && flags[2] == 1 && flags[3] == 1);
  }
}

/* ---- integers --------------------------------------------------------------- */

static int is_signed(kiln_dtype d) {
  return d == KILN_INT8 || d == KILN_INT16 || d == KILN_INT32 || d == KILN_INT64;
}

/* Raw bits of element i, zero-extended. */
static uint64_t bits_at(const void *data, kiln_dtype d, int64_t i) {
  uint64_t v = 0;
  size_t size = kiln_dtype_size(d);
  memcpy(&v, (const char *)data + (size_t)i * size, size);
  return v;
}

/* The value of low bits as the dtype (sign-extended for signed types), as
 * an int64 for comparisons; unsigned 64-bit compare by bits. */
static int64_t as_signed(uint64_t bits, kiln_dtype d) {
  int shift = 64 - 8 * (int)kiln_dtype_size(d);
  if (!is_signed(d)) return (int64_t)bits;
  return (int64_t)(bits << shift) >> shift;
}

static uint64_t mask(kiln_dtype d) {
  size_t size = kiln_dtype_size(d);
  return size == 8 ? UINT64_MAX : ((uint64_t)1 << (8 * size)) - 1;
}

/* Random raw values over the dtype's whole range (so sums and products
 * wrap), a few extremes and small values mixed in. */
static void fill_integers(void *data, kiln_dtype d, int64_t n) {
  size_t size = kiln_dtype_size(d);
  for (int64_t i = 0; i < n; i++) {
    uint64_t v = harness_rand_u64();
    if (i % 7 == 0) v %= 5;                                  /* small */
    if (i % 11 == 0) v = is_signed(d) ? mask(d) >> 1 : mask(d); /* max */
    if (i % 13 == 0) v = is_signed(d) ? (mask(d) >> 1) + 1 : 0; /* min */
    memcpy((char *)data + (size_t)i * size, &v, size);
  }
}

static void test_integer_arithmetic(kiln_context *ctx) {
  static const char *const names[] = {"add", "subtract", "multiply", "negative", "absolute",
                                      "minimum", "maximum"};
  for (int d = KILN_INT8; d <= KILN_UINT64; d++) {
    kiln_dtype dtype = (kiln_dtype)d;
    uint64_t a[N], b[N], r[N];
    fill_integers(a, dtype, N);
    fill_integers(b, dtype, N);
    void *inputs[2] = {a, b};
    kiln_dtype dtypes[2] = {dtype, dtype}, out;
    for (int f = 0; f < 7; f++) {
      int nin = f == 3 || f == 4 ? 1 : 2;
      if (!run_builtin(ctx, names[f], nin, inputs, dtypes, N, r, &out)) continue;
      CHECK_MSG(out == dtype, "%s(%s) gave %s", names[f], kiln_dtype_name(dtype),
                kiln_dtype_name(out));
      int failures = 0;
      for (int64_t i = 0; i < N && failures < 5; i++) {
        uint64_t x = bits_at(a, dtype, i), y = bits_at(b, dtype, i);
        int64_t sx = as_signed(x, dtype), sy = as_signed(y, dtype);
        int less = is_signed(dtype) ? sx < sy : x < y;
        uint64_t want;
        switch (f) {
          case 0: want = x + y; break;
          case 1: want = x - y; break;
          case 2: want = x * y; break;
          case 3: want = 0 - x; break;
          case 4: want = is_signed(dtype) && sx < 0 ? 0 - x : x; break;
          case 5: want = less ? x : y; break;
          default: want = less ? y : x; break;
        }
        want &= mask(dtype);
        uint64_t got = bits_at(r, dtype, i);
        if (got != want) {
          failures++;
          harness_fail(__FILE__, __LINE__, "%s %s(%llu, %llu) = %llu, want %llu", names[f],
                       kiln_dtype_name(dtype), (unsigned long long)x, (unsigned long long)y,
                       (unsigned long long)got, (unsigned long long)want);
        }
      }
    }
    /* true division gives float64 */
    double q[N];
    if (run_builtin(ctx, "divide", 2, inputs, dtypes, N, q, &out)) {
      CHECK(out == KILN_FLOAT64);
      for (int64_t i = 0; i < N; i++) {
        uint64_t x = bits_at(a, dtype, i), y = bits_at(b, dtype, i);
        double fx = is_signed(dtype) ? (double)as_signed(x, dtype) : (double)x;
        double fy = is_signed(dtype) ? (double)as_signed(y, dtype) : (double)y;
        CHECK_CLOSE(q[i], fx / fy, 1e-15, 0);
      }
    }
  }
}

/* Runs built-in `name` on a device copy of `a` (n of dtype) and the Python
 * int v (second input, or first when v_first), NEW output; status. */
static kiln_status run_with_int(kiln_context *ctx, const char *name, const void *a,
                                kiln_dtype dtype, int64_t n, int64_t v, int v_first,
                                void *result, kiln_dtype *out_dtype) {
  kiln_ufunc *u = NULL;
  kiln_array *x = NULL, *r = NULL;
  kiln_status s = kiln_ufunc_builtin(ctx, name, &u);
  if (s == KILN_OK) s = kiln_array_from_host(ctx, dtype, 1, &n, NULL, a, &x);
  if (s == KILN_OK) {
    kiln_operand in[2] = {kiln_operand_array(x), kiln_operand_int(v)};
    if (v_first) in[0] = kiln_operand_int(v), in[1] = kiln_operand_array(x);
    kiln_operand out[1] = {kiln_operand_new(&r)};
    s = kiln_ufunc_call(u, 2, in, 1, out, NULL);
  }
  if (s == KILN_OK) *out_dtype = kiln_array_dtype(r);
  if (s == KILN_OK) s = kiln_array_to_host(r, result, NULL);
  kiln_array_release(x);
  kiln_array_release(r);
  kiln_ufunc_release(u);
  return s;
}

/* NumPy 2 (NEP 50, its by-value promoters): a Python int out of an integer
 * array's range is compared by value in the six comparisons (int8 array
 * < 1000 is all true) and true_divide divides by it (int8 array / 1000 is
 * a / 1000.0, float64), where arithmetic refuses it (OverflowError; kiln:
 * OUT_OF_RANGE). Ints just past each limit, against an exact C reference;
 * four dtype and operand-order pairs (uint64 takes the float64 loop for a
 * negative int), two comparisons each, so that each kernel compiled is one
 * more case (numpy_diff covers the rest with random edge ints). */
static void test_python_int_by_value(kiln_context *ctx) {
  static const char *const names[] = {"equal", "not_equal", "less", "less_equal", "greater",
                                      "greater_equal"};
  static const int64_t edges[] = {INT64_MIN, -2147483649LL, -32769, -129, -1, 128,
                                  256, 1000, 32768, 65536, 4294967296LL, INT64_MAX};
  static const struct { kiln_dtype dtype; int v_first; } pairs[] = {
      {KILN_INT8, 0}, {KILN_UINT64, 1}, {KILN_UINT16, 0}, {KILN_INT32, 1}};
  for (int p = 0; p < 4; p++) {
    kiln_dtype dtype = pairs[p].dtype;
    int v_first = pairs[p].v_first;
    harness_current = kiln_dtype_name(dtype);
    uint64_t a[N];
    fill_integers(a, dtype, N);
    int64_t lo = is_signed(dtype) ? -(int64_t)(mask(dtype) >> 1) - 1 : 0;
    uint64_t hi = is_signed(dtype) ? mask(dtype) >> 1 : mask(dtype);
    for (size_t e = 0; e < sizeof edges / sizeof edges[0]; e++) {
      int64_t v = edges[e];
      if (v >= lo && (v < 0 || (uint64_t)v <= hi)) continue; /* in range: not this test */
      for (int f = 2 * p % 6; f < 2 * p % 6 + 2; f++) {
        uint8_t r[N];
        kiln_dtype out = KILN_DTYPE_COUNT;
        kiln_status s = run_with_int(ctx, names[f], a, dtype, N, v, v_first, r, &out);
        CHECK_MSG(s == KILN_OK, "%s(%s, %lld): %s", names[f], kiln_dtype_name(dtype),
                  (long long)v, kiln_last_error());
        if (s != KILN_OK) continue;
        CHECK(out == KILN_BOOL);
        int failures = 0;
        for (int64_t i = 0; i < N && failures < 3; i++) {
          uint64_t x = bits_at(a, dtype, i);
          int64_t sx = as_signed(x, dtype);
          /* sign of (array element - v), exactly */
          int cmp = is_signed(dtype) ? (sx > v) - (sx < v)
                    : v < 0          ? 1
                                     : (x > (uint64_t)v) - (x < (uint64_t)v);
          if (v_first) cmp = -cmp; /* then the element is the right operand */
          int want = f == 0 ? cmp == 0 : f == 1 ? cmp != 0 : f == 2 ? cmp < 0
                     : f == 3 ? cmp <= 0 : f == 4 ? cmp > 0 : cmp >= 0;
          if (r[i] != want) {
            failures++;
            harness_fail(__FILE__, __LINE__, "%s %s: element %llu, int %lld%s: %d", names[f],
                         kiln_dtype_name(dtype), (unsigned long long)x, (long long)v,
                         v_first ? " first" : "", r[i]);
          }
        }
      }
      double q[N];
      kiln_dtype out = KILN_DTYPE_COUNT;
      kiln_status s = run_with_int(ctx, "divide", a, dtype, N, v, v_first, q, &out);
      CHECK_MSG(s == KILN_OK && out == KILN_FLOAT64, "divide(%s, %lld): %s",
                kiln_dtype_name(dtype), (long long)v, kiln_last_error());
      for (int64_t i = 0; s == KILN_OK && i < N; i++) {
        uint64_t x = bits_at(a, dtype, i);
        double fx = is_signed(dtype) ? (double)as_signed(x, dtype) : (double)x;
        double want = v_first ? (double)v / fx : fx / (double)v;
        int same = memcmp(&q[i], &want, sizeof want) == 0 || (isnan(q[i]) && isnan(want));
        CHECK_MSG(same, "divide %s %llu, %lld%s: %g, want %g", kiln_dtype_name(dtype),
                  (unsigned long long)x, (long long)v, v_first ? " first" : "", q[i], want);
        if (!same) break;
      }
      /* arithmetic still refuses it, as NumPy 2 */
      uint64_t sum[N];
      s = run_with_int(ctx, "add", a, dtype, N, v, v_first, sum, &out);
      CHECK_MSG(s == KILN_ERROR_OUT_OF_RANGE, "add(%s, %lld): %s", kiln_dtype_name(dtype),
                (long long)v, kiln_status_string(s));
    }
  }
  harness_current = "python_int_by_value";
}

/* kiln's hypot gives glibc's bits (2.35 and later: Borges's corrected
 * algorithm, float in double), which NumPy's hypot has on Linux, on every
 * backend: float64 and float32 hypot and complex128 absolute, bit for bit,
 * on random bit patterns, near-equal pairs and the scaled ranges (huge,
 * tiny, subnormal). Skipped, with the reason, where the host's libm is
 * not glibc 2.35 or later (another reference algorithm). */
static void test_hypot_bits(kiln_context *ctx) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 35))
  enum { M = 4099 };
  double *x = malloc(M * sizeof *x), *y = malloc(M * sizeof *y), *r = malloc(M * sizeof *r);
  double *z = malloc(2 * M * sizeof *z);
  float *xf = malloc(M * sizeof *xf), *yf = malloc(M * sizeof *yf), *rf = malloc(M * sizeof *rf);
  for (int i = 0; i < M; i++) {
    uint64_t bx = harness_rand_u64(), by = harness_rand_u64();
    double u = (double)(bx >> 11) / 9007199254740992.0, v = (double)(by >> 11) / 9007199254740992.0;
    switch (i % 5) {
      case 0: memcpy(&x[i], &bx, 8), memcpy(&y[i], &by, 8); break; /* any bits */
      case 1: x[i] = (u - 0.5) * 40, y[i] = x[i] * (1 + (v - 0.5) * 1e-3); break;
      case 2: x[i] = ldexp(u, (int)(bx % 2100) - 1075), y[i] = ldexp(v, (int)(by % 2100) - 1075); break;
      case 3: x[i] = ldexp(u + 0.5, 500 + (int)(bx % 520)), y[i] = ldexp(v + 0.5, 480 + (int)(by % 540)); break;
      default: x[i] = ldexp(u + 0.5, -1070 + (int)(bx % 620)), y[i] = ldexp(v, -1074 + (int)(by % 620)); break;
    }
    if (i % 97 == 0) y[i] = i % 2 ? INFINITY : NAN;
    if (i % 89 == 0) x[i] = 0;
    uint32_t fx = (uint32_t)bx, fy = (uint32_t)by;
    memcpy(&xf[i], &fx, 4), memcpy(&yf[i], &fy, 4);
    if (i % 2) xf[i] = (float)x[i], yf[i] = (float)y[i];
    z[2 * i] = x[i], z[2 * i + 1] = y[i];
  }
  /* float64 hypot of (x, y), then complex128 absolute of x + yj */
  void *inputs[2][2] = {{x, y}, {z, NULL}};
  kiln_dtype dtypes[2][2] = {{KILN_FLOAT64, KILN_FLOAT64}, {KILN_COMPLEX128}}, out;
  int bad = 0;
  for (int f = 0; f < 2; f++) {
    if (!run_builtin(ctx, f ? "absolute" : "hypot", 2 - f, inputs[f], dtypes[f], M, r, &out))
      continue;
    for (int i = 0; i < M && bad < 5 * (f + 1); i++) {
      double want = hypot(x[i], y[i]);
      if (memcmp(&r[i], &want, 8) != 0 && !(isnan(r[i]) && isnan(want)))
        bad++, harness_fail(__FILE__, __LINE__, "%s(%a, %a) = %a, glibc hypot %a",
                            f ? "absolute" : "hypot", x[i], y[i], r[i], want);
    }
  }
  void *finputs[2] = {xf, yf};
  kiln_dtype ftypes[2] = {KILN_FLOAT32, KILN_FLOAT32};
  if (run_builtin(ctx, "hypot", 2, finputs, ftypes, M, rf, &out))
    for (int i = 0; i < M && bad < 15; i++) {
      float want = hypotf(xf[i], yf[i]);
      if (memcmp(&rf[i], &want, 4) != 0 && !(isnan(rf[i]) && isnan(want)))
        bad++, harness_fail(__FILE__, __LINE__, "hypot(%a, %a) = %a, glibc %a", xf[i], yf[i],
                            rf[i], want);
    }
  free(x), free(y), free(r), free(z), free(xf), free(yf), free(rf);
#else
  (void)ctx;
  printf("  hypot_bits: not checked: the host libm is not glibc 2.35 or later\n");
#endif
}

static void test_comparisons_and_where(kiln_context *ctx) {
  static const char *const names[] = {"equal", "not_equal", "less", "less_equal", "greater",
                                      "greater_equal"};
  for (int d = 0; d < KILN_DTYPE_COUNT; d++) {
    kiln_dtype dtype = (kiln_dtype)d;
    if (kiln_dtype_is_complex(dtype)) continue; /* lexicographic: tests/test_complex.c */
    /* values from a small set so that equal pairs are common */
    double a[N], b[N];
    char ha[N * 8], hb[N * 8], hr[N * 8];
    harness_fill_random(ha, dtype, N, 0, 4);
    harness_fill_random(hb, dtype, N, 0, 4);
    if (is_signed(dtype) || kiln_dtype_is_float(dtype)) {
      harness_fill_random(ha, dtype, N, -3, 3);
      harness_fill_random(hb, dtype, N, -3, 3);
    }
    for (int64_t i = 0; i < N; i++) a[i] = harness_get(ha, dtype, i), b[i] = harness_get(hb, dtype, i);
    void *inputs[3] = {ha, hb, NULL};
    kiln_dtype dtypes[3] = {dtype, dtype, dtype}, out;
    for (int f = 0; f < 6; f++) {
      uint8_t r[N];
      if (!run_builtin(ctx, names[f], 2, inputs, dtypes, N, r, &out)) continue;
      CHECK(out == KILN_BOOL);
      int failures = 0;
      for (int64_t i = 0; i < N && failures < 5; i++) {
        int want = f == 0   ? a[i] == b[i]
                   : f == 1 ? a[i] != b[i]
                   : f == 2 ? a[i] < b[i]
                   : f == 3 ? a[i] <= b[i]
                   : f == 4 ? a[i] > b[i]
                            : a[i] >= b[i];
        if (r[i] != want) {
          failures++;
          harness_fail(__FILE__, __LINE__, "%s %s(%g, %g) = %d", names[f],
                       kiln_dtype_name(dtype), a[i], b[i], r[i]);
        }
      }
    }
    /* where(cond, a, b) */
    uint8_t cond[N];
    harness_fill_random(cond, KILN_BOOL, N, 0, 1);
    void *where_in[3] = {cond, ha, hb};
    kiln_dtype where_types[3] = {KILN_BOOL, dtype, dtype};
    if (run_builtin(ctx, "where", 3, where_in, where_types, N, hr, &out)) {
      CHECK(out == dtype);
      size_t size = kiln_dtype_size(dtype);
      for (int64_t i = 0; i < N; i++)
        CHECK(memcmp(hr + (size_t)i * size, (cond[i] ? ha : hb) + (size_t)i * size, size) == 0);
    }
  }
  /* minimum/maximum of bools are logical and/or */
  uint8_t p[4] = {0, 0, 1, 1}, q[4] = {0, 1, 0, 1}, r[4];
  void *inputs[2] = {p, q};
  kiln_dtype dtypes[2] = {KILN_BOOL, KILN_BOOL}, out;
  if (run_builtin(ctx, "minimum", 2, inputs, dtypes, 4, r, &out))
    CHECK(out == KILN_BOOL && r[0] == 0 && r[1] == 0 && r[2] == 0 && r[3] == 1);
  if (run_builtin(ctx, "maximum", 2, inputs, dtypes, 4, r, &out))
    CHECK(r[0] == 0 && r[1] == 1 && r[2] == 1 && r[3] == 1);
}

/* NumPy's np.promote_types for the eleven numeric dtypes, in the order
 * int8 uint8 int16 uint16 int32 uint32 int64 uint64 float16 float32
 * float64, one letter per result: b B h H i I l L e f d (NumPy's type
 * characters; printed by NumPy 2.4). */
static const kiln_dtype numeric[11] = {KILN_INT8,   KILN_UINT8,  KILN_INT16,   KILN_UINT16,
                                       KILN_INT32,  KILN_UINT32, KILN_INT64,   KILN_UINT64,
                                       KILN_FLOAT16, KILN_FLOAT32, KILN_FLOAT64};
static const char *const numpy_promotion[11] = {
    "bhhiilldefd", "hBhHiIlLefd", "hhhiilldffd", "iHiHiIlLffd", "iiiiilldddd", "lIlIlIlLddd",
    "llllllldddd", "dLdLdLdLddd", "eeffddddefd", "ffffddddffd", "ddddddddddd",
};

static kiln_dtype from_char(char c) {
  switch (c) {
    case 'b': return KILN_INT8;
    case 'B': return KILN_UINT8;
    case 'h': return KILN_INT16;
    case 'H': return KILN_UINT16;
    case 'i': return KILN_INT32;
    case 'I': return KILN_UINT32;
    case 'l': return KILN_INT64;
    case 'L': return KILN_UINT64;
    case 'e': return KILN_FLOAT16;
    case 'f': return KILN_FLOAT32;
    default: return KILN_FLOAT64;
  }
}

static void test_mixed_dtype_promotion(kiln_context *ctx) {
  kiln_ufunc *add = NULL;
  REQUIRE_OK(kiln_ufunc_builtin(ctx, "add", &add));
  int64_t n = 3;
  for (int x = 0; x < 11; x++)
    for (int y = 0; y < 11; y++) {
      kiln_dtype dx = numeric[x], dy = numeric[y];
      kiln_dtype want = from_char(numpy_promotion[x][y]);
      kiln_array *a = random_array(ctx, dx, 1, &n, 1, 50), *b = random_array(ctx, dy, 1, &n, 1, 50);
      kiln_array *r = NULL;
      kiln_operand in[2] = {kiln_operand_array(a), kiln_operand_array(b)};
      kiln_operand out[1] = {kiln_operand_new(&r)};
      CHECK_OK(kiln_ufunc_call(add, 2, in, 1, out, NULL));
      if (r) {
        CHECK_MSG(kiln_array_dtype(r) == want, "add(%s, %s) gave %s, NumPy %s",
                  kiln_dtype_name(dx), kiln_dtype_name(dy), kiln_dtype_name(kiln_array_dtype(r)),
                  kiln_dtype_name(want));
        char ha[64], hb[64], hr[64];
        CHECK_OK(kiln_array_to_host(a, ha, NULL));
        CHECK_OK(kiln_array_to_host(b, hb, NULL));
        CHECK_OK(kiln_array_to_host(r, hr, NULL));
        /* a float16 sum of values up to 50 rounds to 11 bits */
        for (int i = 0; i < 3; i++)
          CHECK_CLOSE(harness_get(hr, want, i), harness_get(ha, dx, i) + harness_get(hb, dy, i),
                      want == KILN_FLOAT16 ? 1e-3 : 1e-7, 0);
      }
      kiln_array_release(a);
      kiln_array_release(b);
      kiln_array_release(r);
    }
  kiln_ufunc_release(add);
}

static void test_every_builtin_exists(kiln_context *ctx) {
  int n = kiln_ufunc_builtin_count();
  CHECK(n >= 36);
  CHECK(kiln_ufunc_builtin_name(n) == NULL && kiln_ufunc_builtin_name(-1) == NULL);
  for (int i = 0; i < n; i++) {
    kiln_ufunc *u = NULL;
    const char *name = kiln_ufunc_builtin_name(i);
    CHECK_OK(kiln_ufunc_builtin(ctx, name, &u));
    if (!u) continue;
    CHECK(strcmp(kiln_ufunc_name(u), name) == 0);
    int two = strcmp(name, "divmod") == 0 || strcmp(name, "modf") == 0 ||
              strcmp(name, "frexp") == 0;
    CHECK(kiln_ufunc_nout(u) == (two ? 2 : 1));
    /* signatures are listed in dtype order and parse back */
    for (int s = 0; s < kiln_ufunc_signature_count(u); s++) CHECK(kiln_ufunc_signature(u, s));
    kiln_ufunc_release(u);
  }
  kiln_ufunc *abs_u = NULL;
  CHECK_OK(kiln_ufunc_builtin(ctx, "abs", &abs_u));
  if (abs_u) CHECK(strcmp(kiln_ufunc_name(abs_u), "absolute") == 0);
  kiln_ufunc_release(abs_u);
  /* every name the issue lists is there */
  static const char *const required[] = {
      "add", "subtract", "multiply", "divide", "negative", "absolute", "sqrt", "exp",
      "expm1", "log", "log1p", "log2", "log10", "sin", "cos", "tan", "arcsin", "arccos",
      "arctan", "arctan2", "sinh", "cosh", "tanh", "hypot", "power", "minimum", "maximum",
      "floor", "ceil", "where", "equal", "not_equal", "less", "less_equal", "greater",
      "greater_equal"};
  for (size_t i = 0; i < sizeof required / sizeof required[0]; i++) {
    int found = 0;
    for (int k = 0; k < n; k++) found |= strcmp(kiln_ufunc_builtin_name(k), required[i]) == 0;
    CHECK_MSG(found, "no built-in %s", required[i]);
  }
}

static const harness_test tests[] = {
    {"every_builtin_exists", test_every_builtin_exists},
    {"float_functions", test_float_functions},
    {"special_values", test_special_values},
    {"integer_arithmetic", test_integer_arithmetic},
    {"comparisons_and_where", test_comparisons_and_where},
    {"python_int_by_value", test_python_int_by_value},
    {"hypot_bits", test_hypot_bits},
    {"mixed_dtype_promotion", test_mixed_dtype_promotion},
    {0},
};

int main(int argc, char **argv) { return harness_main(argc, argv, tests); }
