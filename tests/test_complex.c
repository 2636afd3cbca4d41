/* Conformance: the complex64/complex128 dtypes on a device. Transfers and
 * casts with every dtype on reversed strided views; fills; every built-in
 * complex loop on random inputs (no zeros), sizes 0, 1, 7 and 1031,
 * contiguous and reversed, against C99 <complex.h> computed in long double
 * or double on the host; branch cuts with signed zeros; special values
 * against glibc (exp, sinh, cosh, sin, cos where e^x overflows, arctan(h)
 * at its poles, power with infinite and NaN parts); NumPy 2's result
 * dtypes and weak complex scalars; sums; a raw kernel over kiln_complex64;
 * DLPack; refusals (no complex loop, complex scalar arguments); matmul in
 * tests/test_linalg.c. */
#include <complex.h>
#ifndef CMPLX /* glibc defines it for GCC only; clang has the builtin too */
#define CMPLX(x, y) __builtin_complex((double)(x), (double)(y))
#endif
#ifndef CMPLXF
#define CMPLXF(x, y) __builtin_complex((float)(x), (float)(y))
#endif

#include "ufunc_testing.h"

static int has_double(kiln_context *ctx) {
  kiln_device_info info;
  return kiln_context_device_info(ctx, &info) == KILN_OK && info.has_double;
}

/* Element i of host complex data of dtype d, as a double complex. */
static double complex get_c(const void *data, kiln_dtype d, int64_t i) {
  if (d == KILN_COMPLEX64)
    return CMPLX(((const float *)data)[2 * i], ((const float *)data)[2 * i + 1]);
  return CMPLX(((const double *)data)[2 * i], ((const double *)data)[2 * i + 1]);
}

static void set_c(void *data, kiln_dtype d, int64_t i, double complex z) {
  if (d == KILN_COMPLEX64) {
    ((float *)data)[2 * i] = (float)creal(z);
    ((float *)data)[2 * i + 1] = (float)cimag(z);
  } else {
    ((double *)data)[2 * i] = creal(z);
    ((double *)data)[2 * i + 1] = cimag(z);
  }
}

/* Random nonzero parts in [-3, 3], away from 0. */
static double random_part(void) {
  double v = harness_rand_uniform(0.05, 3);
  return harness_rand_u64() & 1 ? v : -v;
}

/* Casts each way between complex and every dtype, through reversed views. */
static void test_casts(kiln_context *ctx) {
  enum { N = 37 };
  int64_t n = N;
  for (int c = KILN_COMPLEX64; c <= KILN_COMPLEX128; c++) {
    kiln_dtype cd = (kiln_dtype)c;
    if (cd == KILN_COMPLEX128 && !has_double(ctx)) continue;
    double data[2 * N];
    for (int i = 0; i < 2 * N; i++) data[i] = floor(harness_rand_uniform(1, 100));
    data[2] = 0; /* one element with a zero real part: bool is its imaginary part's */
    unsigned char host[N * 16];
    for (int i = 0; i < N; i++) set_c(host, cd, i, CMPLX(data[2 * i], data[2 * i + 1]));
    kiln_array *a = NULL, *rev = NULL;
    REQUIRE_OK(kiln_array_from_host(ctx, cd, 1, &n, NULL, host, &a));
    kiln_slice backwards = {KILN_NONE, KILN_NONE, -1};
    REQUIRE_OK(kiln_array_slice(a, 1, &backwards, &rev));
    for (int t = 0; t < KILN_DTYPE_COUNT; t++) {
      kiln_dtype to = (kiln_dtype)t;
      if ((to == KILN_FLOAT64 || to == KILN_COMPLEX128) && !has_double(ctx)) continue;
      kiln_array *b = NULL, *back = NULL;
      unsigned char out[N * 16], again[N * 16];
      CHECK_OK(kiln_array_astype(rev, to, &b));
      if (!b) continue;
      CHECK_OK(kiln_array_to_host(b, out, NULL));
      /* and back from `to` into complex (imag 0 for real dtypes) */
      CHECK_OK(kiln_array_astype(b, cd, &back));
      if (back) CHECK_OK(kiln_array_to_host(back, again, NULL));
      for (int i = 0; i < N; i++) {
        double complex z = get_c(host, cd, N - 1 - i);
        if (kiln_dtype_is_complex(to)) {
          CHECK_MSG(get_c(out, to, i) == z, "%s -> %s [%d]", kiln_dtype_name(cd),
                    kiln_dtype_name(to), i);
        } else if (to == KILN_BOOL) {
          CHECK_MSG(out[i] == (z != 0), "%s -> bool [%d]", kiln_dtype_name(cd), i);
        } else {
          CHECK_MSG(harness_get(out, to, i) == creal(z), "%s -> %s [%d]: %g, want %g",
                    kiln_dtype_name(cd), kiln_dtype_name(to), i, harness_get(out, to, i),
                    creal(z));
        }
        if (back) {
          double complex want = kiln_dtype_is_complex(to) ? z
                                : to == KILN_BOOL        ? (double complex)(z != 0)
                                                         : (double complex)creal(z);
          CHECK_MSG(get_c(again, cd, i) == want, "%s -> %s -> %s [%d]", kiln_dtype_name(cd),
                    kiln_dtype_name(to), kiln_dtype_name(cd), i);
        }
      }
      kiln_array_release(b);
      kiln_array_release(back);
    }
    /* fill */
    kiln_array *full = NULL;
    unsigned char value[16];
    set_c(value, cd, 0, CMPLX(1.5, -2.25));
    CHECK_OK(kiln_array_full(ctx, cd, 1, &n, value, &full));
    if (full) {
      CHECK_OK(kiln_array_to_host(full, host, NULL));
      for (int i = 0; i < N; i++) CHECK(get_c(host, cd, i) == CMPLX(1.5, -2.25));
    }
    kiln_array_release(full);
    kiln_array_release(a);
    kiln_array_release(rev);
  }
}

/* ---- ufuncs against <complex.h> ------------------------------------------ */

typedef enum { OUT_COMPLEX, OUT_REAL, OUT_BOOL } out_kind;

typedef struct complex_case {
  const char *name;
  int nin;
  out_kind out;
  long double complex (*ref)(long double complex a, long double complex b);
} complex_case;

#define U(f) static long double complex ref_##f(long double complex a, long double complex b)
U(add) { return a + b; }
U(subtract) { return a - b; }
U(multiply) { return a * b; }
U(divide) { return a / b; }
U(power) { return cpowl(a, b); }
U(negative) { (void)b; return -a; }
U(positive) { (void)b; return a; }
U(conjugate) { (void)b; return conjl(a); }
U(square) { (void)b; return a * a; }
U(reciprocal) { (void)b; return 1 / a; }
U(sqrt) { (void)b; return csqrtl(a); }
U(exp) { (void)b; return cexpl(a); }
U(exp2) { (void)b; return cexpl(a * 0.693147180559945309417232121458176568L); }
U(expm1) { (void)b; return cexpl(a) - 1; }
U(log) { (void)b; return clogl(a); }
U(log2) { (void)b; return clogl(a) / 0.693147180559945309417232121458176568L; }
U(log10) { (void)b; return clogl(a) / 2.302585092994045684017991454684364208L; }
U(log1p) { (void)b; return clogl(1 + a); }
U(sin) { (void)b; return csinl(a); }
U(cos) { (void)b; return ccosl(a); }
U(tan) { (void)b; return ctanl(a); }
U(arcsin) { (void)b; return casinl(a); }
U(arccos) { (void)b; return cacosl(a); }
U(arctan) { (void)b; return catanl(a); }
U(sinh) { (void)b; return csinhl(a); }
U(cosh) { (void)b; return ccoshl(a); }
U(tanh) { (void)b; return ctanhl(a); }
U(arcsinh) { (void)b; return casinhl(a); }
U(arccosh) { (void)b; return cacoshl(a); }
U(arctanh) { (void)b; return catanhl(a); }
U(sign) { (void)b; return a / cabsl(a); }
U(absolute) { (void)b; return cabsl(a); }
U(angle) { (void)b; return cargl(a); }
U(real) { (void)b; return creall(a); }
U(imag) { (void)b; return cimagl(a); }
U(equal) { return a == b; }
U(not_equal) { return a != b; }
U(isfinite) { (void)b; return isfinite(creall(a)) && isfinite(cimagl(a)); }
U(logical_not) { (void)b; return a == 0; }
/* lexicographic, as NumPy */
U(less) { return creall(a) < creall(b) || (creall(a) == creall(b) && cimagl(a) < cimagl(b)); }
U(greater_equal) { return !(creall(a) < creall(b) || (creall(a) == creall(b) && cimagl(a) < cimagl(b))); }
U(maximum) {
  int ge = creall(a) > creall(b) || (creall(a) == creall(b) && cimagl(a) >= cimagl(b));
  return ge ? a : b;
}
U(minimum) {
  int le = creall(a) < creall(b) || (creall(a) == creall(b) && cimagl(a) <= cimagl(b));
  return le ? a : b;
}
#undef U

static const complex_case cases[] = {
    {"add", 2, OUT_COMPLEX, ref_add},         {"subtract", 2, OUT_COMPLEX, ref_subtract},
    {"multiply", 2, OUT_COMPLEX, ref_multiply}, {"divide", 2, OUT_COMPLEX, ref_divide},
    {"power", 2, OUT_COMPLEX, ref_power},     {"negative", 1, OUT_COMPLEX, ref_negative},
    {"positive", 1, OUT_COMPLEX, ref_positive}, {"conjugate", 1, OUT_COMPLEX, ref_conjugate},
    {"square", 1, OUT_COMPLEX, ref_square},   {"reciprocal", 1, OUT_COMPLEX, ref_reciprocal},
    {"sqrt", 1, OUT_COMPLEX, ref_sqrt},       {"exp", 1, OUT_COMPLEX, ref_exp},
    {"exp2", 1, OUT_COMPLEX, ref_exp2},       {"expm1", 1, OUT_COMPLEX, ref_expm1},
    {"log", 1, OUT_COMPLEX, ref_log},         {"log2", 1, OUT_COMPLEX, ref_log2},
    {"log10", 1, OUT_COMPLEX, ref_log10},     {"log1p", 1, OUT_COMPLEX, ref_log1p},
    {"sin", 1, OUT_COMPLEX, ref_sin},         {"cos", 1, OUT_COMPLEX, ref_cos},
    {"tan", 1, OUT_COMPLEX, ref_tan},         {"arcsin", 1, OUT_COMPLEX, ref_arcsin},
    {"arccos", 1, OUT_COMPLEX, ref_arccos},   {"arctan", 1, OUT_COMPLEX, ref_arctan},
    {"sinh", 1, OUT_COMPLEX, ref_sinh},       {"cosh", 1, OUT_COMPLEX, ref_cosh},
    {"tanh", 1, OUT_COMPLEX, ref_tanh},       {"arcsinh", 1, OUT_COMPLEX, ref_arcsinh},
    {"arccosh", 1, OUT_COMPLEX, ref_arccosh}, {"arctanh", 1, OUT_COMPLEX, ref_arctanh},
    {"sign", 1, OUT_COMPLEX, ref_sign},       {"maximum", 2, OUT_COMPLEX, ref_maximum},
    {"minimum", 2, OUT_COMPLEX, ref_minimum}, {"fmax", 2, OUT_COMPLEX, ref_maximum},
    {"fmin", 2, OUT_COMPLEX, ref_minimum},    {"absolute", 1, OUT_REAL, ref_absolute},
    {"angle", 1, OUT_REAL, ref_angle},        {"real", 1, OUT_REAL, ref_real},
    {"imag", 1, OUT_REAL, ref_imag},          {"equal", 2, OUT_BOOL, ref_equal},
    {"not_equal", 2, OUT_BOOL, ref_not_equal}, {"less", 2, OUT_BOOL, ref_less},
    {"greater_equal", 2, OUT_BOOL, ref_greater_equal}, {"isfinite", 1, OUT_BOOL, ref_isfinite},
    {"logical_not", 1, OUT_BOOL, ref_logical_not},
};

/* Norm-wise relative error bound of one result: a few ulp of the
 * component type (the formulas take several rounded steps). */
static double tolerance(kiln_dtype d) { return d == KILN_COMPLEX64 ? 4e-6 : 1e-14; }

/* Runs case c on dtype d with n elements: contiguous (reversed = 0) or on
 * reversed views of arrays with every second element (reversed = 1). */
static void run_case(kiln_context *ctx, const complex_case *c, kiln_dtype d, int64_t n,
                     int reversed) {
  kiln_ufunc *u = NULL;
  REQUIRE_OK(kiln_ufunc_builtin(ctx, c->name, &u));
  size_t item = kiln_dtype_size(d);
  int64_t full = reversed ? 2 * n + 1 : n;
  unsigned char *host[2];
  kiln_array *base[2] = {0}, *view[2] = {0};
  kiln_operand in[2];
  for (int j = 0; j < c->nin; j++) {
    host[j] = malloc((size_t)full * item + 1);
    for (int64_t i = 0; i < full; i++) {
      double complex z = CMPLX(random_part(), random_part());
      /* some equal operands, for comparisons and maximum */
      if (j == 1 && i % 5 == 0) z = get_c(host[0], d, i);
      if (j == 1 && i % 7 == 0) z = CMPLX(creal(get_c(host[0], d, i)), random_part());
      set_c(host[j], d, i, z);
    }
    REQUIRE_OK(kiln_array_from_host(ctx, d, 1, &full, NULL, host[j], &base[j]));
    kiln_slice s = {reversed ? -2 : KILN_NONE, KILN_NONE, reversed ? -2 : 1};
    REQUIRE_OK(kiln_array_slice(base[j], 1, &s, &view[j]));
    in[j] = kiln_operand_array(view[j]);
  }
  kiln_array *result = NULL;
  kiln_operand out = kiln_operand_new(&result);
  kiln_status status = kiln_ufunc_call(u, c->nin, in, 1, &out, NULL);
  CHECK_MSG(status == KILN_OK, "%s(%s) n=%lld: %s", c->name, kiln_dtype_name(d), (long long)n,
            kiln_last_error());
  kiln_dtype want_dtype = c->out == OUT_COMPLEX ? d
                          : c->out == OUT_BOOL  ? KILN_BOOL
                                                : kiln_dtype_component(d);
  if (result) {
    CHECK_MSG(kiln_array_dtype(result) == want_dtype, "%s(%s) gives %s", c->name,
              kiln_dtype_name(d), kiln_dtype_name(kiln_array_dtype(result)));
    CHECK(kiln_array_size(result) == n);
    unsigned char *got = malloc((size_t)n * 16 + 1);
    CHECK_OK(kiln_array_to_host(result, got, NULL));
    int failures = 0;
    for (int64_t i = 0; i < n && failures < 5; i++) {
      int64_t at = reversed ? 2 * n - 1 - 2 * i : i; /* [-2::-2] of 2n+1 */
      long double complex a = get_c(host[0], d, at);
      long double complex b = c->nin == 2 ? get_c(host[1], d, at) : 0;
      long double complex want = c->ref(a, b);
      int ok;
      double complex have;
      if (c->out == OUT_BOOL) {
        have = got[i];
        ok = got[i] == (creall(want) != 0);
      } else {
        have = c->out == OUT_COMPLEX ? get_c(got, d, i) : harness_get(got, want_dtype, i);
        double err = (double)cabsl((long double complex)have - want);
        double scale = (double)cabsl(want);
        /* log1p's and expm1's formulas (NumPy's) lose precision near 0 */
        double floor_abs = tolerance(d) * 4;
        ok = err <= tolerance(d) * scale + floor_abs * (strcmp(c->name, "log1p") == 0 ||
                                                         strcmp(c->name, "expm1") == 0 ||
                                                         strcmp(c->name, "log") == 0 ||
                                                         strcmp(c->name, "log2") == 0 ||
                                                         strcmp(c->name, "log10") == 0);
      }
      if (!ok && failures++ < 5)
        harness_fail(__FILE__, __LINE__,
                     "%s(%s)%s n=%lld [%lld]: (%.17g%+.17gj, %.17g%+.17gj) -> %.17g%+.17gj, "
                     "want %.17g%+.17gj",
                     c->name, kiln_dtype_name(d), reversed ? " reversed" : "", (long long)n,
                     (long long)i, (double)creall(a), (double)cimagl(a), (double)creall(b),
                     (double)cimagl(b), creal(have), cimag(have), (double)creall(want),
                     (double)cimagl(want));
    }
    free(got);
  }
  kiln_array_release(result);
  for (int j = 0; j < c->nin; j++) {
    kiln_array_release(view[j]);
    kiln_array_release(base[j]);
    free(host[j]);
  }
  kiln_ufunc_release(u);
}

static void test_ufuncs(kiln_context *ctx) {
  static const int64_t sizes[] = {0, 1, 7, 1031};
  for (int c = KILN_COMPLEX64; c <= KILN_COMPLEX128; c++) {
    if (c == KILN_COMPLEX128 && !has_double(ctx)) continue;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
      for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        run_case(ctx, &cases[k], (kiln_dtype)c, sizes[s], s == 2);
  }
}

/* Branch cuts and signed zeros: the sign of each part against C99's. */
static void test_branch_cuts(kiln_context *ctx) {
  static const double complex inputs[] = {
      CMPLX(-4, 0.0),  CMPLX(-4, -0.0), CMPLX(-0.0, 0.0), CMPLX(0.0, -0.0), CMPLX(2, 0.0),
      CMPLX(2, -0.0),  CMPLX(-2, 0.0),  CMPLX(-2, -0.0),  CMPLX(0.0, 2),    CMPLX(-0.0, 2),
      CMPLX(0.0, -2),  CMPLX(-0.0, -2), CMPLX(0.5, 0.0),  CMPLX(-0.5, -0.0),
  };
  enum { N = sizeof inputs / sizeof inputs[0] };
  static const struct {
    const char *name;
    double complex (*ref)(double complex);
  } fns[] = {{"sqrt", csqrt},     {"log", clog},         {"arcsin", casin},
             {"arccos", cacos},   {"arctan", catan},     {"arcsinh", casinh},
             {"arccosh", cacosh}, {"arctanh", catanh}};
  int64_t n = N;
  for (int c = KILN_COMPLEX64; c <= KILN_COMPLEX128; c++) {
    kiln_dtype d = (kiln_dtype)c;
    if (d == KILN_COMPLEX128 && !has_double(ctx)) continue;
    unsigned char host[N * 16], got[N * 16];
    for (int i = 0; i < N; i++) set_c(host, d, i, inputs[i]);
    for (size_t f = 0; f < sizeof fns / sizeof fns[0]; f++) {
      kiln_ufunc *u = NULL;
      REQUIRE_OK(kiln_ufunc_builtin(ctx, fns[f].name, &u));
      kiln_operand in = kiln_operand_host(host, d, 1, &n, NULL);
      kiln_operand out = kiln_operand_host_output(got, d, 1, &n, NULL);
      CHECK_OK(kiln_ufunc_call(u, 1, &in, 1, &out, NULL));
      for (int i = 0; i < N; i++) {
        double complex want = fns[f].ref(inputs[i]), have = get_c(got, d, i);
        double tol = d == KILN_COMPLEX64 ? 1e-6 : 1e-15;
        int ok = signbit(creal(have)) == signbit(creal(want)) &&
                 signbit(cimag(have)) == signbit(cimag(want)) &&
                 (isinf(creal(want)) ? creal(have) == creal(want)
                                     : fabs(creal(have) - creal(want)) <= tol * (1 + cabs(want))) &&
                 fabs(cimag(have) - cimag(want)) <= tol * (1 + cabs(want));
        CHECK_MSG(ok, "%s(%s)(%g%+gj) = %.17g%+.17gj, want %.17g%+.17gj", fns[f].name,
                  kiln_dtype_name(d), creal(inputs[i]), cimag(inputs[i]), creal(have),
                  cimag(have), creal(want), cimag(want));
      }
      kiln_ufunc_release(u);
    }
  }
}

/* Whether `have` is C99's `want` for an overflow case: NaN where it is NaN,
 * the same infinity, signed zero or sign, and close elsewhere. */
static int same_part(double have, double want, double tol) {
  if (isnan(want)) return isnan(have);
  if (signbit(have) != signbit(want)) return 0;
  if (isinf(want) || want == 0) return have == want;
  return fabs(have - want) <= tol * fabs(want);
}

/* One call of the built-in `name` on n complex elements of dtype d: a,
 * and b for a binary ufunc (else NULL); the results into got. */
static void call_complex(kiln_context *ctx, const char *name, kiln_dtype d, int64_t n,
                         const double complex *a, const double complex *b, unsigned char *got) {
  unsigned char *host[2] = {malloc((size_t)n * 16 + 1), malloc((size_t)n * 16 + 1)};
  for (int64_t i = 0; i < n; i++) {
    set_c(host[0], d, i, a[i]);
    if (b) set_c(host[1], d, i, b[i]);
  }
  kiln_ufunc *u = NULL;
  REQUIRE_OK(kiln_ufunc_builtin(ctx, name, &u));
  kiln_operand in[2] = {kiln_operand_host(host[0], d, 1, &n, NULL),
                        kiln_operand_host(host[1], d, 1, &n, NULL)};
  kiln_operand out = kiln_operand_host_output(got, d, 1, &n, NULL);
  CHECK_OK(kiln_ufunc_call(u, b ? 2 : 1, in, 1, &out, NULL));
  kiln_ufunc_release(u);
  free(host[0]);
  free(host[1]);
}

/* exp, sinh, cosh (and sin, cos through them) where e^|x| overflows:
 * real parts past one, two and three times the scaling threshold, with
 * imaginary parts of +-0 (the product with sin 0 must stay 0, not NaN) and
 * small and ordinary values; arctan and arctanh at +-i and +-1 with a tiny
 * other part (where (1 - x)^2 + y^2 underflows); power with infinite and
 * NaN parts (glibc's cpow multiplies b log a as C11 Annex G does, which
 * recovers infinities from NaN). Against glibc's cexpf/cexp... (which
 * NumPy calls). */
static void test_special_values(kiln_context *ctx) {
  static const double big32[] = {89, 100, 170, 200, 300, 1e30, -300};
  static const double big64[] = {710, 1000, 1500, 2200, 1e300, -2200};
  static const double small[] = {0.0, -0.0, 1e-30, -2, 0.5};
  static const struct {
    const char *name;
    float complex (*ref32)(float complex);
    double complex (*ref64)(double complex);
    int swap; /* sin and cos: the large part is the imaginary one */
  } fns[] = {{"exp", cexpf, cexp, 0},
             {"sinh", csinhf, csinh, 0},
             {"cosh", ccoshf, ccosh, 0},
             {"sin", csinf, csin, 1},
             {"cos", ccosf, ccos, 1}};
  static const double complex near_pole[] = {
      CMPLX(3.704672e-26, -1), CMPLX(-1e-30, 1), CMPLX(0.0, 1), CMPLX(1e-20, -1),
      CMPLX(1, 1e-30),         CMPLX(-1, -2e-26), CMPLX(1, 0.0), CMPLX(1, 1e-9)};
  const double inf = INFINITY, nan = NAN;
  static const int NPOW = 6;
  const double complex pow_a[] = {CMPLX(3e38, -0.03236145), CMPLX(2, 3),  CMPLX(inf, 1),
                                  CMPLX(0.5, nan),          CMPLX(-4, 1), CMPLX(inf, inf)};
  const double complex pow_b[] = {CMPLX(nan, inf),  CMPLX(inf, nan), CMPLX(0.5, 0.25),
                                  CMPLX(inf, 0.0), CMPLX(nan, -inf), CMPLX(2.5, 1)};
  enum { MAX_N = 7 * 5 };
  for (int c = KILN_COMPLEX64; c <= KILN_COMPLEX128; c++) {
    kiln_dtype d = (kiln_dtype)c;
    if (d == KILN_COMPLEX128 && !has_double(ctx)) continue;
    const double *big = d == KILN_COMPLEX64 ? big32 : big64;
    int nbig = d == KILN_COMPLEX64 ? 7 : 6;
    double tol = d == KILN_COMPLEX64 ? 1e-5 : 1e-13;
    unsigned char got[MAX_N * 16];
    double complex in[MAX_N], want[MAX_N];
#define CHECK_SPECIAL(name, i, arg)                                                              \
  do {                                                                                           \
    double complex have_ = get_c(got, d, i);                                                     \
    CHECK_MSG(same_part(creal(have_), creal(want[i]), tol) &&                                    \
                  same_part(cimag(have_), cimag(want[i]), tol),                                  \
              "%s(%s)(%s) = %g%+gj, want %g%+gj", name, kiln_dtype_name(d), arg, creal(have_),  \
              cimag(have_), creal(want[i]), cimag(want[i]));                                     \
  } while (0)
    char arg[96];
    for (size_t f = 0; f < sizeof fns / sizeof fns[0]; f++) {
      int64_t n = 0;
      for (int k = 0; k < nbig; k++)
        for (int j = 0; j < 5; j++, n++) {
          in[n] = fns[f].swap ? CMPLX(small[j], big[k]) : CMPLX(big[k], small[j]);
          want[n] = d == KILN_COMPLEX64
                        ? (double complex)fns[f].ref32(CMPLXF((float)creal(in[n]),
                                                              (float)cimag(in[n])))
                        : fns[f].ref64(in[n]);
        }
      call_complex(ctx, fns[f].name, d, n, in, NULL, got);
      for (int64_t i = 0; i < n; i++) {
        snprintf(arg, sizeof arg, "%g%+gj", creal(in[i]), cimag(in[i]));
        CHECK_SPECIAL(fns[f].name, i, arg);
      }
    }
    /* arctan near +-i, arctanh near +-1 (the same points turned by i) */
    for (int h = 0; h < 2; h++) {
      int64_t n = sizeof near_pole / sizeof near_pole[0];
      for (int64_t i = 0; i < n; i++) {
        in[i] = h ? CMPLX(cimag(near_pole[i]), creal(near_pole[i])) : near_pole[i];
        float complex z32 = CMPLXF((float)creal(in[i]), (float)cimag(in[i]));
        want[i] = d == KILN_COMPLEX64 ? (double complex)(h ? catanhf(z32) : catanf(z32))
                                      : (h ? catanh(in[i]) : catan(in[i]));
      }
      call_complex(ctx, h ? "arctanh" : "arctan", d, n, in, NULL, got);
      for (int64_t i = 0; i < n; i++) {
        snprintf(arg, sizeof arg, "%g%+gj", creal(in[i]), cimag(in[i]));
        CHECK_SPECIAL(h ? "arctanh" : "arctan", i, arg);
      }
    }
    for (int i = 0; i < NPOW; i++) {
      float complex a32 = CMPLXF((float)creal(pow_a[i]), (float)cimag(pow_a[i]));
      float complex b32 = CMPLXF((float)creal(pow_b[i]), (float)cimag(pow_b[i]));
      want[i] = d == KILN_COMPLEX64 ? (double complex)cpowf(a32, b32) : cpow(pow_a[i], pow_b[i]);
    }
    call_complex(ctx, "power", d, NPOW, pow_a, pow_b, got);
    for (int i = 0; i < NPOW; i++) {
      snprintf(arg, sizeof arg, "%g%+gj, %g%+gj", creal(pow_a[i]), cimag(pow_a[i]),
               creal(pow_b[i]), cimag(pow_b[i]));
      CHECK_SPECIAL("power", i, arg);
    }
#undef CHECK_SPECIAL
  }
}

/* The dtype a call of `name` on (a, b) gives, or KILN_DTYPE_COUNT. */
static kiln_dtype result_dtype(kiln_context *ctx, const char *name, kiln_operand a,
                               kiln_operand b) {
  kiln_ufunc *u = NULL;
  if (kiln_ufunc_builtin(ctx, name, &u) != KILN_OK) return KILN_DTYPE_COUNT;
  kiln_array *r = NULL;
  kiln_operand in[2] = {a, b}, out = kiln_operand_new(&r);
  kiln_dtype d = KILN_DTYPE_COUNT;
  if (kiln_ufunc_call(u, 2, in, 1, &out, NULL) == KILN_OK) d = kiln_array_dtype(r);
  kiln_array_release(r);
  kiln_ufunc_release(u);
  return d;
}

/* NumPy 2's promotion with complex, safe casting, and weak complex scalars. */
static void test_promotion(kiln_context *ctx) {
  if (!has_double(ctx)) return;
  static const struct {
    kiln_dtype a, b, want;
  } table[] = {
      {KILN_FLOAT32, KILN_COMPLEX64, KILN_COMPLEX64},
      {KILN_FLOAT64, KILN_COMPLEX64, KILN_COMPLEX128},
      {KILN_INT8, KILN_COMPLEX64, KILN_COMPLEX64},
      {KILN_UINT16, KILN_COMPLEX64, KILN_COMPLEX64},
      {KILN_INT32, KILN_COMPLEX64, KILN_COMPLEX128},
      {KILN_UINT64, KILN_COMPLEX64, KILN_COMPLEX128},
      {KILN_FLOAT16, KILN_COMPLEX64, KILN_COMPLEX64},
      {KILN_BOOL, KILN_COMPLEX64, KILN_COMPLEX64},
      {KILN_COMPLEX64, KILN_COMPLEX128, KILN_COMPLEX128},
      {KILN_COMPLEX128, KILN_FLOAT32, KILN_COMPLEX128},
  };
  int64_t one = 1;
  unsigned char x[16] = {1}, y[16] = {1};
  for (size_t t = 0; t < sizeof table / sizeof table[0]; t++) {
    kiln_operand a = kiln_operand_host(x, table[t].a, 1, &one, NULL);
    kiln_operand b = kiln_operand_host(y, table[t].b, 1, &one, NULL);
    kiln_dtype got = result_dtype(ctx, "add", a, b);
    CHECK_MSG(got == table[t].want, "%s + %s = %s, want %s", kiln_dtype_name(table[t].a),
              kiln_dtype_name(table[t].b), kiln_dtype_name(got), kiln_dtype_name(table[t].want));
    CHECK(kiln_dtype_can_cast_safely(table[t].a, table[t].want));
  }
  CHECK(!kiln_dtype_can_cast_safely(KILN_COMPLEX64, KILN_FLOAT64));
  CHECK(!kiln_dtype_can_cast_safely(KILN_COMPLEX128, KILN_COMPLEX64));
  CHECK(!kiln_dtype_can_cast_safely(KILN_INT32, KILN_COMPLEX64));
  /* NEP 50: a Python complex is weak */
  static const struct {
    kiln_dtype a, want;
  } weak[] = {{KILN_FLOAT32, KILN_COMPLEX64}, {KILN_FLOAT16, KILN_COMPLEX64},
              {KILN_FLOAT64, KILN_COMPLEX128}, {KILN_INT8, KILN_COMPLEX128},
              {KILN_BOOL, KILN_COMPLEX128},   {KILN_COMPLEX64, KILN_COMPLEX64}};
  for (size_t t = 0; t < sizeof weak / sizeof weak[0]; t++) {
    kiln_operand a = kiln_operand_host(x, weak[t].a, 1, &one, NULL);
    kiln_dtype got = result_dtype(ctx, "multiply", a, kiln_operand_complex(0.5, 2));
    CHECK_MSG(got == weak[t].want, "%s * 1j = %s, want %s", kiln_dtype_name(weak[t].a),
              kiln_dtype_name(got), kiln_dtype_name(weak[t].want));
  }
  kiln_operand c64 = kiln_operand_host(x, KILN_COMPLEX64, 1, &one, NULL);
  CHECK(result_dtype(ctx, "add", c64, kiln_operand_float(2.5)) == KILN_COMPLEX64);
  CHECK(result_dtype(ctx, "add", c64, kiln_operand_complex128(1, 1)) == KILN_COMPLEX128);
  /* the value of a weak complex scalar: (1.5-2j) * z */
  float z[2] = {2.0f, 0.5f}, r[2] = {0};
  kiln_ufunc *mul = NULL;
  REQUIRE_OK(kiln_ufunc_builtin(ctx, "multiply", &mul));
  kiln_operand in[2] = {kiln_operand_complex(1.5, -2), kiln_operand_host(z, KILN_COMPLEX64, 1, &one, NULL)};
  kiln_operand out = kiln_operand_host_output(r, KILN_COMPLEX64, 1, &one, NULL);
  CHECK_OK(kiln_ufunc_call(mul, 2, in, 1, &out, NULL));
  CHECK_MSG(r[0] == 4.0f && r[1] == -3.25f, "(1.5-2j)*(2+0.5j) = %g%+gj", r[0], r[1]);
  kiln_ufunc_release(mul);
}

/* add.reduce of complex arrays against a host sum; multiply.reduce. */
static void test_reductions(kiln_context *ctx) {
  static const int64_t sizes[] = {1, 7, 4099};
  for (int c = KILN_COMPLEX64; c <= KILN_COMPLEX128; c++) {
    kiln_dtype d = (kiln_dtype)c;
    if (d == KILN_COMPLEX128 && !has_double(ctx)) continue;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
      int64_t n = sizes[s];
      unsigned char *host = malloc((size_t)n * 16);
      long double complex sum = 0, prod = 1;
      for (int64_t i = 0; i < n; i++) {
        /* values near the unit circle: products stay in range */
        double complex w = cexp(CMPLX(harness_rand_uniform(-0.01, 0.01), random_part()));
        set_c(host, d, i, w);
        sum += get_c(host, d, i);
        prod *= get_c(host, d, i);
      }
      for (int op = 0; op < 2; op++) {
        kiln_ufunc *u = NULL;
        REQUIRE_OK(kiln_ufunc_builtin(ctx, op ? "multiply" : "add", &u));
        unsigned char got[16];
        kiln_operand in = kiln_operand_host(host, d, 1, &n, NULL);
        kiln_operand out = kiln_operand_host_output(got, d, 0, NULL, NULL);
        kiln_status status = kiln_ufunc_reduce(u, in, out, NULL, NULL);
        CHECK_MSG(status == KILN_OK, "%s.reduce(%s): %s", op ? "multiply" : "add",
                  kiln_dtype_name(d), kiln_last_error());
        if (status == KILN_OK) {
          long double complex want = op ? prod : sum;
          double complex have = get_c(got, d, 0);
          double tol = (d == KILN_COMPLEX64 ? 2e-6 : 1e-14) * (double)(n > 100 ? 50 : n + 1);
          double scale = op ? (double)cabsl(want) : 1.1 * (double)n;
          CHECK_MSG(cabsl((long double complex)have - want) <= tol * scale,
                    "%s.reduce(%s) n=%lld = %.17g%+.17gj, want %.17g%+.17gj",
                    op ? "multiply" : "add", kiln_dtype_name(d), (long long)n, creal(have),
                    cimag(have), (double)creall(want), (double)cimagl(want));
        }
        kiln_ufunc_release(u);
      }
      free(host);
    }
  }
  /* cumsum, inclusive and exclusive, over 5000 elements */
  for (int c = KILN_COMPLEX64; c <= KILN_COMPLEX128; c++) {
    kiln_dtype d = (kiln_dtype)c;
    if (d == KILN_COMPLEX128 && !has_double(ctx)) continue;
    int64_t count = 5000;
    unsigned char *in = malloc((size_t)count * 16), *out = malloc((size_t)count * 16);
    for (int64_t i = 0; i < count; i++) set_c(in, d, i, CMPLX(random_part(), random_part()));
    kiln_ufunc *add = NULL;
    REQUIRE_OK(kiln_ufunc_builtin(ctx, "add", &add));
    for (int exclusive = 0; exclusive < 2; exclusive++) {
      kiln_scan_options options = {.axis = 0, .exclusive = exclusive};
      CHECK_OK(kiln_ufunc_scan(add, kiln_operand_host(in, d, 1, &count, NULL),
                               kiln_operand_host_output(out, d, 1, &count, NULL), &options, NULL));
      long double complex run = 0;
      int failures = 0;
      for (int64_t i = 0; i < count && failures < 3; i++) {
        if (!exclusive) run += get_c(in, d, i);
        double tol = (d == KILN_COMPLEX64 ? 1e-6 : 1e-14) * 3.0 * (double)(i + 1);
        if (cabsl((long double complex)get_c(out, d, i) - run) > tol && failures++ < 3)
          harness_fail(__FILE__, __LINE__, "cumsum(%s)%s [%lld]", kiln_dtype_name(d),
                       exclusive ? " exclusive" : "", (long long)i);
        if (exclusive) run += get_c(in, d, i);
      }
    }
    kiln_ufunc_release(add);
    free(in);
    free(out);
  }
  /* maximum.reduce: NumPy's lexicographic order; argmax refused */
  int64_t n = 4;
  float host[8] = {1, 5, 3, -1, 3, 2, -4, 9}, got[2] = {0};
  kiln_ufunc *u = NULL;
  REQUIRE_OK(kiln_ufunc_builtin(ctx, "maximum", &u));
  CHECK_OK(kiln_ufunc_reduce(u, kiln_operand_host(host, KILN_COMPLEX64, 1, &n, NULL),
                             kiln_operand_host_output(got, KILN_COMPLEX64, 0, NULL, NULL), NULL,
                             NULL));
  CHECK_MSG(got[0] == 3 && got[1] == 2, "maximum.reduce = %g%+gj, want 3+2j", got[0], got[1]);
  kiln_ufunc_release(u);
  kiln_array *r = NULL;
  kiln_status status = kiln_argmax(ctx, kiln_operand_host(host, KILN_COMPLEX64, 1, &n, NULL),
                                   kiln_operand_new(&r), NULL, NULL);
  CHECK(status == KILN_ERROR_UNIMPLEMENTED && r == NULL);
  CHECK_MSG(strstr(kiln_last_error(), "complex64") != NULL, "message: %s", kiln_last_error());
}

/* A raw kernel over kiln_complex64 and kiln_complex128 arrays. */
static void test_raw_kernel(kiln_context *ctx) {
  static const char *source =
      "KILN_KERNEL void quarter_turn(KILN_GLOBAL const kiln_complex64 *x,\n"
      "                              KILN_GLOBAL kiln_complex64 *y, int64_t n) {\n"
      "  int64_t i = kiln_global_id(0);\n"
      "  if (i < n) y[i] = kiln_complex64_mul(x[i], kiln_complex64_make(0.0f, 1.0f));\n"
      "}\n";
  kiln_kernel *k = NULL;
  REQUIRE_OK(kiln_kernel_create(ctx, source, "quarter_turn", NULL, &k));
  int64_t n = 100;
  float x[200], y[200];
  for (int i = 0; i < 200; i++) x[i] = (float)random_part();
  kiln_array *ax = NULL, *ay = NULL;
  REQUIRE_OK(kiln_array_from_host(ctx, KILN_COMPLEX64, 1, &n, NULL, x, &ax));
  REQUIRE_OK(kiln_array_empty(ctx, KILN_COMPLEX64, 1, &n, &ay));
  kiln_arg args[3] = {kiln_arg_array(ax), kiln_arg_array(ay), kiln_arg_int64(n)};
  CHECK_OK(kiln_kernel_launch(k, 1, (const int64_t[]){128}, (const int64_t[]){64}, 3, args, NULL));
  CHECK_OK(kiln_array_to_host(ay, y, NULL));
  for (int i = 0; i < 100; i++)
    CHECK_MSG(y[2 * i] == -x[2 * i + 1] && y[2 * i + 1] == x[2 * i], "rotate [%d]", i);
  /* a float32 array where the kernel takes kiln_complex64 */
  kiln_array *af = NULL;
  REQUIRE_OK(kiln_array_empty(ctx, KILN_FLOAT32, 1, &n, &af));
  args[0] = kiln_arg_array(af);
  CHECK_STATUS(kiln_kernel_launch(k, 1, (const int64_t[]){128}, (const int64_t[]){64}, 3, args,
                                  NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("kiln_complex64");
  kiln_array_release(af);
  kiln_array_release(ax);
  kiln_array_release(ay);
  kiln_kernel_release(k);
}

/* Complex arrays through DLPack and back. */
static void test_dlpack(kiln_context *ctx) {
  int64_t shape[2] = {3, 5};
  kiln_array *a = random_array(ctx, KILN_COMPLEX64, 2, shape, -2, 2), *b = NULL;
  void *tensor = NULL;
  kiln_status s = kiln_array_to_dlpack(a, &tensor);
  if (s == KILN_ERROR_UNIMPLEMENTED) {
    kiln_array_release(a);
    return;
  }
  CHECK_OK(s);
  if (tensor) CHECK_OK(kiln_array_from_dlpack(ctx, tensor, &b));
  if (b) {
    CHECK(kiln_array_dtype(b) == KILN_COMPLEX64);
    float x[30], y[30];
    CHECK_OK(kiln_array_to_host(a, x, NULL));
    CHECK_OK(kiln_array_to_host(b, y, NULL));
    CHECK(memcmp(x, y, sizeof x) == 0);
  }
  kiln_array_release(a);
  kiln_array_release(b);
}

/* Functions with no complex loop, and names (matmul: tests/test_linalg.c). */
static void test_refusals(kiln_context *ctx) {
  int64_t n = 4;
  float z[8] = {1, 2, 3, 4, 5, 6, 7, 8}, r[8];
  static const char *const none[] = {"floor", "remainder", "arctan2", "logaddexp", "ceil"};
  for (size_t f = 0; f < sizeof none / sizeof none[0]; f++) {
    kiln_ufunc *u = NULL;
    REQUIRE_OK(kiln_ufunc_builtin(ctx, none[f], &u));
    kiln_operand in[2] = {kiln_operand_host(z, KILN_COMPLEX64, 1, &n, NULL),
                          kiln_operand_host(z, KILN_COMPLEX64, 1, &n, NULL)};
    kiln_operand out = kiln_operand_host_output(r, KILN_COMPLEX64, 1, &n, NULL);
    CHECK_STATUS(kiln_ufunc_call(u, kiln_ufunc_nin(u), in, 1, &out, NULL),
                 KILN_ERROR_INVALID_ARGUMENT);
    CHECK_ERROR_CONTAINS("complex64");
    kiln_ufunc_release(u);
  }
  /* a complex result into a float output: not same_kind */
  kiln_ufunc *add = NULL;
  REQUIRE_OK(kiln_ufunc_builtin(ctx, "add", &add));
  kiln_operand in[2] = {kiln_operand_host(z, KILN_COMPLEX64, 1, &n, NULL),
                        kiln_operand_host(z, KILN_COMPLEX64, 1, &n, NULL)};
  kiln_operand out = kiln_operand_host_output(r, KILN_FLOAT32, 1, &n, NULL);
  CHECK_STATUS(kiln_ufunc_call(add, 2, in, 1, &out, NULL), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("complex64");
  kiln_ufunc_release(add);
  kiln_dtype d = KILN_DTYPE_COUNT;
  CHECK_OK(kiln_dtype_from_name("complex128", &d));
  CHECK(d == KILN_COMPLEX128);
  CHECK_OK(kiln_dtype_from_name("c8", &d));
  CHECK(d == KILN_COMPLEX64);
  CHECK(strcmp(kiln_dtype_kernel_type(KILN_COMPLEX64), "kiln_complex64") == 0);
  CHECK(kiln_dtype_size(KILN_COMPLEX128) == 16 && kiln_dtype_component(KILN_COMPLEX64) == KILN_FLOAT32);
}

/* Strided host operands: the staging copy moves 16-byte elements whole
 * (it once copied 8 bytes of each complex128). */
static void test_host_strided(kiln_context *ctx) {
  if (!has_double(ctx)) return;
  enum { N = 9 };
  double in[4 * N], out[2 * N];
  for (int i = 0; i < 4 * N; i++) in[i] = random_part();
  int64_t n = N, stride = 32; /* every second complex128 */
  kiln_ufunc *u = NULL;
  REQUIRE_OK(kiln_ufunc_builtin(ctx, "conjugate", &u));
  kiln_operand a = kiln_operand_host(in, KILN_COMPLEX128, 1, &n, &stride);
  kiln_operand r = kiln_operand_host_output(out, KILN_COMPLEX128, 1, &n, NULL);
  CHECK_OK(kiln_ufunc_call(u, 1, &a, 1, &r, NULL));
  for (int i = 0; i < N; i++)
    CHECK_MSG(out[2 * i] == in[4 * i] && out[2 * i + 1] == -in[4 * i + 1], "[%d]", i);
  kiln_ufunc_release(u);
}

static const harness_test tests[] = {
    {"host_strided", test_host_strided},
    {"casts", test_casts},
    {"ufuncs", test_ufuncs},
    {"branch_cuts", test_branch_cuts},
    {"special_values", test_special_values},
    {"promotion", test_promotion},
    {"reductions", test_reductions},
    {"raw_kernel", test_raw_kernel},
    {"dlpack", test_dlpack},
    {"refusals", test_refusals},
    {0},
};

int main(int argc, char **argv) { return harness_main(argc, argv, tests); }
