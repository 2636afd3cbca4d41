/* Conformance: the NumPy-parity built-ins (docs/ufuncs.md) against host
 * references on random inputs mixed with the edge values (0, -1, the
 * integer extremes, NaN, infinities, -0.0): integer division, remainders,
 * power, shifts, gcd/lcm, bitwise and logical operations for every integer
 * dtype (exact, and never trapping: zero divisors and MIN / -1 included);
 * floating floor division and remainders as NumPy's npy_divmod; the new
 * float functions against libm; classification; the result dtypes NumPy 2
 * gives. Inputs are read through reversed host strides (non-contiguous),
 * sizes 0, 1 and a prime. */
#include <float.h>
#include <inttypes.h>

#include "ufunc_testing.h"

#define N 1031

static int is_signed(kiln_dtype d) {
  return d == KILN_INT8 || d == KILN_INT16 || d == KILN_INT32 || d == KILN_INT64;
}
static int bits_of(kiln_dtype d) { return (int)kiln_dtype_size(d) * 8; }

/* v truncated to dtype d, as a sign- or zero-extended 64-bit pattern. */
static uint64_t wrap(uint64_t v, kiln_dtype d) {
  int w = bits_of(d);
  if (w == 64) return v;
  v &= (UINT64_C(1) << w) - 1;
  if (is_signed(d) && (v >> (w - 1)) & 1) v |= ~((UINT64_C(1) << w) - 1);
  return v;
}

static uint64_t load_int(const void *p, kiln_dtype d, int64_t i) {
  size_t w = kiln_dtype_size(d);
  uint64_t v = 0;
  memcpy(&v, (const char *)p + i * (int64_t)w, w);
  return wrap(v, d);
}

static void store_int(void *p, kiln_dtype d, int64_t i, uint64_t v) {
  size_t w = kiln_dtype_size(d);
  memcpy((char *)p + i * (int64_t)w, &v, w);
}

static uint64_t random_int(kiln_dtype d) {
  int w = bits_of(d);
  uint64_t min = is_signed(d) ? wrap(UINT64_C(1) << (w - 1), d) : 0;
  uint64_t max = is_signed(d) ? ~min : wrap(UINT64_MAX, d);
  uint64_t r = harness_rand_u64();
  switch (r % 8) {
    case 0: return min;
    case 1: return max;
    case 2: return 0;
    case 3: return wrap((uint64_t)-1, d);
    case 4: return wrap(r >> 59, d);                 /* small, 0..31 */
    case 5: return wrap((uint64_t)-(int64_t)(r >> 59), d); /* small negative */
    default: return wrap(r >> 3, d);
  }
}

/* ---- integer references (a, b as sign-extended patterns) ------------------ */
static uint64_t absu(uint64_t a, kiln_dtype d) {
  return is_signed(d) && (int64_t)a < 0 ? (uint64_t)0 - a : a;
}
static int lt0(uint64_t a, kiln_dtype d) { return is_signed(d) && (int64_t)a < 0; }

static uint64_t ref_int(const char *name, uint64_t a, uint64_t b, kiln_dtype d) {
  int s = is_signed(d);
  int64_t sa = (int64_t)a, sb = (int64_t)b;
  uint64_t w = (uint64_t)bits_of(d);
  if (!strcmp(name, "floor_divide") || !strcmp(name, "remainder") || !strcmp(name, "fmod")) {
    int rem = name[0] != 'f' || name[1] == 'm';
    if (b == 0) return 0;
    if (!s) return rem ? a % b : a / b;
    if (sb == -1) return rem ? 0 : wrap((uint64_t)0 - a, d);
    int64_t q = sa / sb, r = sa % sb;
    if (!strcmp(name, "fmod")) return (uint64_t)r;
    if (r != 0 && (r < 0) != (sb < 0)) q -= 1, r += sb;
    return (uint64_t)(rem ? r : q);
  }
  if (!strcmp(name, "power")) {
    if (lt0(b, d)) return 0;
    uint64_t r = 1, base = a;
    for (uint64_t e = b; e > 0; e >>= 1) {
      if (e & 1) r *= base;
      base *= base;
    }
    return wrap(r, d);
  }
  if (!strcmp(name, "left_shift")) return b < w ? wrap(a << b, d) : 0;
  if (!strcmp(name, "right_shift"))
    return b < w ? (s ? (uint64_t)(sa >> b) : a >> b) : lt0(a, d) ? (uint64_t)-1 : 0;
  if (!strcmp(name, "gcd") || !strcmp(name, "lcm")) {
    uint64_t x = absu(a, d), y = absu(b, d), g = x, h = y;
    while (h) {
      uint64_t t = g % h;
      g = h;
      h = t;
    }
    if (name[0] == 'g') return wrap(g, d);
    return g == 0 ? 0 : wrap(x / g * y, d);
  }
  if (!strcmp(name, "bitwise_and")) return a & b;
  if (!strcmp(name, "bitwise_or")) return a | b;
  if (!strcmp(name, "bitwise_xor")) return a ^ b;
  if (!strcmp(name, "invert")) return wrap(~a, d);
  if (!strcmp(name, "sign")) return lt0(a, d) ? (uint64_t)-1 : a != 0;
  if (!strcmp(name, "square")) return wrap(a * a, d);
  if (!strcmp(name, "reciprocal")) return a == 1 ? 1 : a == wrap((uint64_t)-1, d) && s ? a : 0;
  if (!strcmp(name, "positive") || !strcmp(name, "floor") || !strcmp(name, "ceil") ||
      !strcmp(name, "trunc") || !strcmp(name, "conjugate"))
    return a;
  if (!strcmp(name, "logical_and")) return a && b;
  if (!strcmp(name, "logical_or")) return a || b;
  if (!strcmp(name, "logical_xor")) return !a != !b;
  if (!strcmp(name, "logical_not")) return !a;
  if (!strcmp(name, "isnan") || !strcmp(name, "isinf")) return 0;
  if (!strcmp(name, "isfinite")) return 1;
  if (!strcmp(name, "bitwise_count")) {
    uint64_t x = absu(a, d), n = 0;
    for (int i = 0; i < 64; i++) n += (x >> i) & 1;
    return n;
  }
  return 0xdead;
}

/* Runs built-in `name` on host inputs read through reversed strides; the
 * outputs are NEW device arrays copied into results[k]. Returns the number
 * of outputs written, 0 on failure (reported). */
static int run(kiln_context *ctx, const char *name, int nin, void *const *inputs,
               kiln_dtype dtype, int64_t n, void **results, kiln_dtype *out_dtypes) {
  kiln_ufunc *u = NULL;
  if (kiln_ufunc_builtin(ctx, name, &u) != KILN_OK) {
    harness_fail(__FILE__, __LINE__, "builtin %s: %s", name, kiln_last_error());
    return 0;
  }
  int nout = kiln_ufunc_nout(u);
  int64_t stride = -(int64_t)kiln_dtype_size(dtype);
  kiln_operand in[2], out[2];
  kiln_array *r[2] = {0};
  for (int j = 0; j < nin; j++) {
    const char *last = (const char *)inputs[j] + (n > 0 ? (n - 1) * -stride : 0);
    in[j] = kiln_operand_host(last, dtype, 1, &n, &stride);
  }
  for (int k = 0; k < nout; k++) out[k] = kiln_operand_new(&r[k]);
  kiln_status s = kiln_ufunc_call(u, nin, in, nout, out, NULL);
  int ok = s == KILN_OK;
  if (!ok) harness_fail(__FILE__, __LINE__, "%s(%s): %s", name, kiln_dtype_name(dtype),
                        kiln_last_error());
  for (int k = 0; k < nout && ok; k++) {
    out_dtypes[k] = kiln_array_dtype(r[k]);
    ok = kiln_array_to_host(r[k], results[k], NULL) == KILN_OK;
  }
  for (int k = 0; k < nout; k++) kiln_array_release(r[k]);
  kiln_ufunc_release(u);
  return ok ? nout : 0;
}

static const kiln_dtype int_dtypes[] = {KILN_INT8,  KILN_UINT8,  KILN_INT16, KILN_UINT16,
                                        KILN_INT32, KILN_UINT32, KILN_INT64, KILN_UINT64};

static void test_integer_ufuncs(kiln_context *ctx) {
  static const char *binary[] = {"floor_divide", "remainder", "fmod", "power", "left_shift",
                                 "right_shift", "gcd", "lcm", "bitwise_and", "bitwise_or",
                                 "bitwise_xor", "logical_and", "logical_or", "logical_xor"};
  static const char *unary[] = {"invert", "sign", "square", "reciprocal", "positive",
                                "floor", "ceil", "trunc", "conjugate", "logical_not",
                                "isnan", "isinf", "isfinite", "bitwise_count"};
  static const int64_t sizes[] = {N, 1, 0};
  for (size_t t = 0; t < sizeof int_dtypes / sizeof int_dtypes[0]; t++) {
    kiln_dtype d = int_dtypes[t];
    for (int z = 0; z < 3; z++) {
      int64_t n = sizes[z];
      void *a = malloc(N * 8), *b = malloc(N * 8), *r = malloc(N * 8);
      for (int64_t i = 0; i < n; i++) {
        store_int(a, d, i, random_int(d));
        store_int(b, d, i, random_int(d));
      }
      for (int pass = 0; pass < 2; pass++) {
        int nnames = pass ? (int)(sizeof unary / sizeof *unary)
                          : (int)(sizeof binary / sizeof *binary);
        for (int f = 0; f < nnames; f++) {
          const char *name = pass ? unary[f] : binary[f];
          int logical = !strncmp(name, "logical", 7) || !strncmp(name, "is", 2);
          void *inputs[2] = {a, b}, *results[1] = {r};
          kiln_dtype od;
          if (!run(ctx, name, pass ? 1 : 2, inputs, d, n, results, &od)) continue;
          kiln_dtype want_d = logical ? KILN_BOOL : strcmp(name, "bitwise_count") ? d : KILN_UINT8;
          CHECK_MSG(od == want_d, "%s(%s) gave %s", name, kiln_dtype_name(d),
                    kiln_dtype_name(od));
          int failures = 0;
          for (int64_t i = 0; i < n && failures < 3; i++) {
            /* inputs were read reversed: element i saw a[n-1-i] */
            uint64_t x = load_int(a, d, n - 1 - i), y = load_int(b, d, n - 1 - i);
            uint64_t want = ref_int(name, x, pass ? 0 : y, d);
            uint64_t got = load_int(r, want_d, i);
            if (got != wrap(want, want_d)) {
              failures++;
              harness_fail(__FILE__, __LINE__, "%s(%s: %" PRId64 ", %" PRId64 ") = %" PRId64
                           ", want %" PRId64, name, kiln_dtype_name(d), (int64_t)x,
                           (int64_t)y, (int64_t)got, (int64_t)wrap(want, want_d));
            }
          }
        }
      }
      /* divmod: both outputs */
      void *q = malloc(N * 8), *inputs[2] = {a, b}, *results[2] = {q, r};
      kiln_dtype od[2];
      if (run(ctx, "divmod", 2, inputs, d, n, results, od) == 2) {
        CHECK(od[0] == d && od[1] == d);
        for (int64_t i = 0; i < n; i++) {
          uint64_t x = load_int(a, d, n - 1 - i), y = load_int(b, d, n - 1 - i);
          CHECK(load_int(q, d, i) == wrap(ref_int("floor_divide", x, y, d), d));
          CHECK(load_int(r, d, i) == wrap(ref_int("remainder", x, y, d), d));
        }
      }
      free(q);
      free(a);
      free(b);
      free(r);
    }
  }
}

/* ---- floats ------------------------------------------------------------- */
static double ref_divmod(double a, double b, double *mod_out) {
  double mod = fmod(a, b);
  if (b == 0) {
    *mod_out = mod;
    return a / b;
  }
  double div = (a - mod) / b, fd;
  if (mod != 0) {
    if ((b < 0) != (mod < 0)) mod += b, div -= 1;
  } else {
    mod = copysign(0, b);
  }
  if (div != 0) {
    fd = floor(div);
    if (div - fd > 0.5) fd += 1;
  } else {
    fd = copysign(0, a / b);
  }
  *mod_out = mod;
  return fd;
}

static double ref_float(const char *name, double a, double b) {
  double m;
  if (!strcmp(name, "floor_divide")) return ref_divmod(a, b, &m);
  if (!strcmp(name, "remainder")) return b == 0 ? fmod(a, b) : (ref_divmod(a, b, &m), m);
  if (!strcmp(name, "fmod")) return fmod(a, b);
  if (!strcmp(name, "copysign")) return copysign(a, b);
  if (!strcmp(name, "fmax")) return fmax(a, b);
  if (!strcmp(name, "fmin")) return fmin(a, b);
  if (!strcmp(name, "heaviside")) return isnan(a) ? a : a == 0 ? b : a < 0 ? 0 : 1;
  if (!strcmp(name, "logaddexp")) {
    if (a == b) return a + M_LN2;
    double t = a - b;
    return t > 0 ? a + log1p(exp(-t)) : t <= 0 ? b + log1p(exp(t)) : t;
  }
  if (!strcmp(name, "cbrt")) return cbrt(a);
  if (!strcmp(name, "exp2")) return exp2(a);
  if (!strcmp(name, "rint")) return rint(a);
  if (!strcmp(name, "trunc")) return trunc(a);
  if (!strcmp(name, "fabs")) return fabs(a);
  if (!strcmp(name, "arcsinh")) return asinh(a);
  if (!strcmp(name, "arctanh")) return atanh(a);
  if (!strcmp(name, "sign")) return a > 0 ? 1 : a < 0 ? -1 : a == 0 ? 0 : a;
  if (!strcmp(name, "square")) return a * a;
  if (!strcmp(name, "reciprocal")) return 1 / a;
  return NAN;
}

static double random_float(void) {
  static const double special[] = {0.0, -0.0, 1.0, -1.0, INFINITY, -INFINITY, NAN, 0.5, 2.5,
                                   -2.5, 3.0};
  uint64_t r = harness_rand_u64();
  if (r % 6 == 0) return special[(r >> 8) % (sizeof special / sizeof *special)];
  return harness_rand_uniform(-20, 20);
}

static void test_float_ufuncs(kiln_context *ctx) {
  static const struct {
    const char *name;
    int nin, exact; /* 1: exact, 0: a function (docs/ufuncs.md's bounds), 2: a division */
  } cases[] = {{"floor_divide", 2, 1}, {"remainder", 2, 1}, {"fmod", 2, 1},
               {"copysign", 2, 1},     {"fmax", 2, 1},      {"fmin", 2, 1},
               {"heaviside", 2, 1},    {"logaddexp", 2, 0}, {"cbrt", 1, 0},
               {"exp2", 1, 0},         {"rint", 1, 1},      {"trunc", 1, 1},
               {"fabs", 1, 1},         {"arcsinh", 1, 0},   {"arctanh", 1, 0},
               {"sign", 1, 1},         {"square", 1, 1},    {"reciprocal", 1, 2}};
  static const kiln_dtype floats[2] = {KILN_FLOAT32, KILN_FLOAT64};
  for (int t = 0; t < 2; t++) {
    kiln_dtype d = floats[t];
    double a64[N], b64[N];
    float a32[N], b32[N];
    for (int i = 0; i < N; i++) {
      a64[i] = random_float();
      b64[i] = random_float();
      a32[i] = (float)a64[i];
      b32[i] = (float)b64[i];
      if (t == 0) a64[i] = a32[i], b64[i] = b32[i];
    }
    void *inputs[2] = {t ? (void *)a64 : (void *)a32, t ? (void *)b64 : (void *)b32};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
      double r[N];
      void *results[1] = {r};
      kiln_dtype od;
      if (!run(ctx, cases[c].name, cases[c].nin, inputs, d, N, results, &od)) continue;
      CHECK(od == d);
      int failures = 0;
      for (int i = 0; i < N && failures < 3; i++) {
        double x = a64[N - 1 - i], y = b64[N - 1 - i];
        double want = ref_float(cases[c].name, x, y), got = harness_get(r, d, i);
        if (t == 0) want = (float)want;
        /* a division is within 3 ulp in float32 (OpenCL's bound) and
         * correctly rounded in float64 (docs/ufuncs.md); a function within
         * a relative bound of its result, or for logaddexp (the binary one)
         * of its largest term: max(x,y) + log1p(exp(-|x-y|)) cancels to a
         * result far smaller than its terms when x ~ -log 2 */
        double scale = cases[c].nin == 2 ? fmax(fabs(want), fmax(fabs(x), fabs(y))) : fabs(want);
        double tol = cases[c].exact == 1   ? 0
                     : cases[c].exact == 2 ? (t ? 1e-15 : 2e-7) * fabs(want)
                                           : (t ? 1e-14 : 1e-6) * scale;
        int ok = (isnan(want) && isnan(got)) ||
                 (got == want && (cases[c].exact != 1 || signbit(got) == signbit(want))) ||
                 (isfinite(want) && fabs(got - want) <= tol);
        if (!ok) {
          failures++;
          harness_fail(__FILE__, __LINE__, "%s(%s: %.17g, %.17g) = %.17g, want %.17g",
                       cases[c].name, kiln_dtype_name(d), x, y, got, want);
        }
      }
    }
    /* classification: bool results */
    static const char *cls[] = {"isnan", "isinf", "isfinite", "signbit"};
    for (int c = 0; c < 4; c++) {
      uint8_t r[N];
      void *results[1] = {r};
      kiln_dtype od;
      if (!run(ctx, cls[c], 1, inputs, d, N, results, &od)) continue;
      CHECK(od == KILN_BOOL);
      for (int i = 0; i < N; i++) {
        double x = a64[N - 1 - i];
        int want = c == 0 ? isnan(x) != 0 : c == 1 ? isinf(x) != 0 : c == 2 ? isfinite(x) != 0
                                                                         : signbit(x) != 0;
        CHECK_MSG(r[i] == want, "%s(%g) = %d", cls[c], x, r[i]);
      }
    }
  }
}

/* hypot near the overflow threshold: finite where C's is, within 2 ulp
 * (CUDA's own hypot rounded hypot(DBL_MAX, 5e-151) up to inf), and
 * hypot(inf, NaN) = inf as in C. */
static void test_hypot_extremes(kiln_context *ctx) {
  static const kiln_dtype floats[2] = {KILN_FLOAT32, KILN_FLOAT64};
  for (int t = 0; t < 2; t++) {
    double big = t ? DBL_MAX : FLT_MAX, a64[N], b64[N];
    float a32[N], b32[N];
    for (int i = 0; i < N; i++) {
      /* mostly one magnitude near the threshold, the other from tiny to
       * comparable; a few special pairs */
      double x = big * harness_rand_uniform(0.5, 1.0), y = x * ldexp(1.0, -(int)(i % 80));
      if (i % 4 == 1) y = t ? 5e-151 : 1e-30;
      if (i % 97 == 0) {
        x = INFINITY;
        y = NAN;
      }
      if (i % 101 == 0) {
        x = NAN;
        y = 1.0;
      }
      if (i == 3) { /* the case CUDA's hypot got wrong */
        x = big;
        y = t ? 5e-151 : 1e-30;
      }
      if (harness_rand_u64() & 1) x = -x;
      a32[i] = (float)x;
      b32[i] = (float)y;
      a64[i] = t ? x : a32[i];
      b64[i] = t ? y : b32[i];
    }
    void *inputs[2] = {t ? (void *)a64 : (void *)a32, t ? (void *)b64 : (void *)b32};
    double r[N];
    void *results[1] = {r};
    kiln_dtype od;
    if (!run(ctx, "hypot", 2, inputs, floats[t], N, results, &od)) continue;
    int failures = 0;
    for (int i = 0; i < N && failures < 3; i++) {
      double x = a64[N - 1 - i], y = b64[N - 1 - i];
      double want = t ? hypot(x, y) : (double)hypotf((float)x, (float)y);
      double got = harness_get(r, floats[t], i);
      double ulp = t ? nextafter(fabs(want), INFINITY) - fabs(want)
                     : (double)(nextafterf((float)fabs(want), INFINITY) - (float)fabs(want));
      int ok = (isnan(want) && isnan(got)) || got == want ||
               (isfinite(want) && isfinite(got) && fabs(got - want) <= 2 * ulp);
      if (!ok) {
        failures++;
        harness_fail(__FILE__, __LINE__, "hypot(%s: %.17g, %.17g) = %.17g, want %.17g",
                     kiln_dtype_name(floats[t]), x, y, got, want);
      }
    }
  }
}

/* NumPy 2's result dtypes for the loops this issue added. */
static void test_result_dtypes(kiln_context *ctx) {
  static const struct {
    const char *name;
    kiln_dtype in, out;
  } cases[] = {{"floor", KILN_INT16, KILN_INT16},     {"ceil", KILN_UINT8, KILN_UINT8},
               {"trunc", KILN_BOOL, KILN_BOOL},       {"absolute", KILN_BOOL, KILN_BOOL},
               {"power", KILN_INT32, KILN_INT32},     {"add", KILN_BOOL, KILN_BOOL},
               {"multiply", KILN_BOOL, KILN_BOOL},    {"float_power", KILN_FLOAT32, KILN_FLOAT64},
               {"isnan", KILN_INT8, KILN_BOOL},       {"invert", KILN_BOOL, KILN_BOOL},
               {"logical_not", KILN_FLOAT32, KILN_BOOL}};
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
    kiln_ufunc *u = NULL;
    CHECK_OK(kiln_ufunc_builtin(ctx, cases[c].name, &u));
    if (!u) continue;
    int nin = kiln_ufunc_nin(u);
    int64_t n = 3;
    uint64_t data[3] = {1, 0, 1};
    kiln_operand in[2] = {kiln_operand_host(data, cases[c].in, 1, &n, NULL),
                          kiln_operand_host(data, cases[c].in, 1, &n, NULL)};
    kiln_array *r = NULL;
    kiln_operand out[1] = {kiln_operand_new(&r)};
    CHECK_OK(kiln_ufunc_call(u, nin, in, 1, out, NULL));
    if (r) CHECK_MSG(kiln_array_dtype(r) == cases[c].out, "%s(%s) gave %s", cases[c].name,
                     kiln_dtype_name(cases[c].in), kiln_dtype_name(kiln_array_dtype(r)));
    kiln_array_release(r);
    kiln_ufunc_release(u);
  }
  /* aliases resolve to NumPy's names */
  static const char *alias[][2] = {{"mod", "remainder"}, {"bitwise_not", "invert"},
                                   {"acosh", "arccosh"}, {"degrees", "rad2deg"}};
  for (int i = 0; i < 4; i++) {
    kiln_ufunc *u = NULL;
    CHECK_OK(kiln_ufunc_builtin(ctx, alias[i][0], &u));
    if (u) CHECK(strcmp(kiln_ufunc_name(u), alias[i][1]) == 0);
    kiln_ufunc_release(u);
  }
  /* bad input: no float loop for bitwise ops */
  kiln_ufunc *u = NULL;
  CHECK_OK(kiln_ufunc_builtin(ctx, "bitwise_and", &u));
  if (u) {
    double x = 1;
    int64_t n = 1;
    kiln_array *r = NULL;
    kiln_operand in[2] = {kiln_operand_host(&x, KILN_FLOAT64, 1, &n, NULL),
                          kiln_operand_host(&x, KILN_FLOAT64, 1, &n, NULL)};
    kiln_operand out[1] = {kiln_operand_new(&r)};
    CHECK(kiln_ufunc_call(u, 2, in, 1, out, NULL) == KILN_ERROR_INVALID_ARGUMENT);
    CHECK(r == NULL);
  }
  kiln_ufunc_release(u);
}

/* ldexp (float32/float64 with int32 or int64 exponents, clamped to int's
 * range as NumPy's int64 loop does) and frexp (mantissa and int32
 * exponent), element by element against C's, with specials and huge
 * exponents. */
static void test_ldexp_frexp(kiln_context *ctx) {
  enum { M = 211 };
  kiln_ufunc *ldexp_u = NULL, *frexp_u = NULL;
  CHECK_OK(kiln_ufunc_builtin(ctx, "ldexp", &ldexp_u));
  CHECK_OK(kiln_ufunc_builtin(ctx, "frexp", &frexp_u));
  if (!ldexp_u || !frexp_u) goto done;
  static const double specials[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, 1e-310, -5e-324,
                                    1.5, -3.0, 1e300};
  static double x64[M], m64[M], y64[M];
  static float x32[M], m32[M], y32[M];
  static int64_t e64[M];
  static int32_t e32[M], ex[M];
  for (int i = 0; i < M; i++) {
    x64[i] = i < 10 ? specials[i] : random_float() * pow(2.0, (double)(i % 41) - 20);
    x32[i] = (float)x64[i];
    e64[i] = i % 7 == 0   ? (int64_t)(harness_rand_u64() >> 1) * (i % 2 ? 1 : -1)
             : i % 5 == 0 ? (i % 2 ? 3000000000ll : -3000000000ll)
                          : (int64_t)(harness_rand_u64() % 400) - 200;
    e32[i] = (int32_t)((harness_rand_u64() % 600) - 300);
  }
  int64_t n = M;
  for (int t = 0; t < 2; t++) {
    kiln_dtype d = t ? KILN_FLOAT64 : KILN_FLOAT32;
    void *x = t ? (void *)x64 : (void *)x32, *y = t ? (void *)y64 : (void *)y32;
    void *m = t ? (void *)m64 : (void *)m32;
    for (int w = 0; w < 2; w++) { /* int64, then int32 exponents */
      kiln_operand in[2] = {kiln_operand_host(x, d, 1, &n, NULL),
                            w ? kiln_operand_host(e32, KILN_INT32, 1, &n, NULL)
                              : kiln_operand_host(e64, KILN_INT64, 1, &n, NULL)};
      kiln_operand out[1] = {kiln_operand_host_output(y, d, 1, &n, NULL)};
      CHECK_OK(kiln_ufunc_call(ldexp_u, 2, in, 1, out, NULL));
      for (int i = 0, failures = 0; i < M && failures < 3; i++) {
        int64_t e = w ? e32[i] : e64[i];
        int ei = e > INT32_MAX ? INT32_MAX : e < INT32_MIN ? INT32_MIN : (int)e;
        double want = t ? ldexp(x64[i], ei) : (double)ldexpf(x32[i], ei);
        double got = t ? y64[i] : (double)y32[i];
        if (!((isnan(want) && isnan(got)) || (got == want && signbit(got) == signbit(want)))) {
          failures++;
          CHECK_MSG(0, "ldexp(%s %.17g, %lld) = %.17g, want %.17g", kiln_dtype_name(d),
                    t ? x64[i] : (double)x32[i], (long long)e, got, want);
        }
      }
    }
    kiln_operand in[1] = {kiln_operand_host(x, d, 1, &n, NULL)};
    kiln_operand out[2] = {kiln_operand_host_output(m, d, 1, &n, NULL),
                           kiln_operand_host_output(ex, KILN_INT32, 1, &n, NULL)};
    CHECK_OK(kiln_ufunc_call(frexp_u, 1, in, 2, out, NULL));
    for (int i = 0, failures = 0; i < M && failures < 3; i++) {
      int e = 0;
      double want = t ? frexp(x64[i], &e) : (double)frexpf(x32[i], &e);
      if (!isfinite(t ? x64[i] : (double)x32[i])) e = 0;
      double got = t ? m64[i] : (double)m32[i];
      if (!((isnan(want) && isnan(got)) || (got == want && signbit(got) == signbit(want))) ||
          ex[i] != e) {
        failures++;
        CHECK_MSG(0, "frexp(%s %.17g) = (%.17g, %d), want (%.17g, %d)", kiln_dtype_name(d),
                  t ? x64[i] : (double)x32[i], got, ex[i], want, e);
      }
    }
  }
  /* no float loop for the exponent */
  {
    kiln_operand in[2] = {kiln_operand_host(x64, KILN_FLOAT64, 1, &n, NULL),
                          kiln_operand_host(x64, KILN_FLOAT64, 1, &n, NULL)};
    kiln_operand out[1] = {kiln_operand_host_output(y64, KILN_FLOAT64, 1, &n, NULL)};
    CHECK_STATUS(kiln_ufunc_call(ldexp_u, 2, in, 1, out, NULL), KILN_ERROR_INVALID_ARGUMENT);
  }
done:
  kiln_ufunc_release(ldexp_u);
  kiln_ufunc_release(frexp_u);
}

/* NumPy's logical functions take a scalar's truth before any cast:
 * logical_xor(float32 array, 1e-300) treats 1e-300 as true although it
 * rounds to 0.0f (arithmetic, add, sees the rounded 0.0f), and a Python
 * int out of an int8 array's range is no error there. */
static void test_logical_weak_scalars(kiln_context *ctx) {
  enum { M = 37 };
  float x[M];
  for (int i = 0; i < M; i++) x[i] = i % 3 == 0 ? 0.0f : (float)random_float();
  static const char *names[] = {"logical_and", "logical_or", "logical_xor"};
  static const double tiny[] = {1e-300, -4.9406564584124654e-324, 0.0};
  for (int f = 0; f < 3; f++)
    for (int t = 0; t < 3; t++) {
      kiln_ufunc *u = NULL;
      CHECK_OK(kiln_ufunc_builtin(ctx, names[f], &u));
      if (!u) continue;
      int64_t n = M;
      uint8_t r[M];
      kiln_operand in[2] = {kiln_operand_host(x, KILN_FLOAT32, 1, &n, NULL),
                            kiln_operand_float(tiny[t])};
      kiln_operand out[1] = {kiln_operand_host_output(r, KILN_BOOL, 1, &n, NULL)};
      CHECK_OK(kiln_ufunc_call(u, 2, in, 1, out, NULL));
      int b = tiny[t] != 0, failures = 0;
      for (int i = 0; i < M && failures < 3; i++) {
        int a = x[i] != 0;
        int want = f == 0 ? a && b : f == 1 ? a || b : a != b;
        if (r[i] != want) {
          failures++;
          CHECK_MSG(0, "%s(%g, %g) = %d, want %d", names[f], (double)x[i], tiny[t], r[i], want);
        }
      }
      kiln_ufunc_release(u);
    }
  /* a Python int out of an int8 array's range: its truth, no error */
  {
    int8_t small[M];
    uint8_t r[M];
    for (int i = 0; i < M; i++) small[i] = (int8_t)(i % 3 ? i : 0);
    kiln_ufunc *la = NULL;
    CHECK_OK(kiln_ufunc_builtin(ctx, "logical_and", &la));
    int64_t n = M;
    kiln_operand in[2] = {kiln_operand_host(small, KILN_INT8, 1, &n, NULL),
                          kiln_operand_int(1000)};
    kiln_operand out[1] = {kiln_operand_host_output(r, KILN_BOOL, 1, &n, NULL)};
    if (la) CHECK_OK(kiln_ufunc_call(la, 2, in, 1, out, NULL));
    for (int i = 0; la && i < M; i++)
      CHECK_MSG(r[i] == (small[i] != 0), "logical_and(%d, 1000) = %d", small[i], r[i]);
    kiln_ufunc_release(la);
  }
  kiln_ufunc *add = NULL;
  CHECK_OK(kiln_ufunc_builtin(ctx, "add", &add));
  if (add) {
    int64_t n = M;
    float r[M];
    kiln_operand in[2] = {kiln_operand_host(x, KILN_FLOAT32, 1, &n, NULL),
                          kiln_operand_float(1e-300)};
    kiln_operand out[1] = {kiln_operand_host_output(r, KILN_FLOAT32, 1, &n, NULL)};
    CHECK_OK(kiln_ufunc_call(add, 2, in, 1, out, NULL));
    for (int i = 0; i < M; i++) CHECK_MSG(r[i] == x[i], "add(%g, 1e-300) = %g", x[i], r[i]);
  }
  kiln_ufunc_release(add);
}

int main(int argc, char **argv) {
  static const harness_test tests[] = {
      {"integer_ufuncs", test_integer_ufuncs},
      {"float_ufuncs", test_float_ufuncs},
      {"result_dtypes", test_result_dtypes},
      {"logical_weak_scalars", test_logical_weak_scalars},
      {"ldexp_frexp", test_ldexp_frexp},
      {"hypot_extremes", test_hypot_extremes},
      {NULL, NULL},
  };
  return harness_main(argc, argv, tests);
}
