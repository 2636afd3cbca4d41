/* Conformance: the float16 dtype on a device. Conversions on the device
 * (every one of the 65536 patterns to float; floats and doubles to float16
 * on every midpoint, its neighbours, random values, subnormals, overflow,
 * NaN) against the host's (tests/test_float16_host.c checks those against an
 * independent reference); casts with every dtype; fills; ufuncs (user
 * bodies and built-ins, contiguous and strided, sizes 0, 1 and primes) against
 * a host reference computed in float32 and rounded, as NumPy does; type
 * resolution as NumPy 2's; scalars; reductions, arg reductions and scans;
 * raw kernels over kiln_half; gufuncs (matmul: tests/test_linalg.c). */
#include "ufunc_testing.h"

static int has_double(kiln_context *ctx) {
  kiln_device_info info;
  return kiln_context_device_info(ctx, &info) == KILN_OK && info.has_double;
}

static int same_half(uint16_t got, uint16_t want) {
  int nan_got = (got & 0x7fffu) > 0x7c00u, nan_want = (want & 0x7fffu) > 0x7c00u;
  /* a NaN stays a NaN of its sign; a native conversion may quiet its
   * payload */
  if (nan_want) return nan_got && (got >> 15) == (want >> 15);
  return got == want;
}

static double field_value(uint32_t h) {
  uint32_t e = h >> 10, m = h & 0x3ffu;
  return e == 0 ? ldexp((double)m, -24) : ldexp((double)(1024 + m), (int)e - 25);
}

/* Every pattern to float32 and float64 (astype on the device) and back. */
static void test_every_pattern(kiln_context *ctx) {
  int64_t n = 65536;
  uint16_t *h = malloc(65536 * 2), *back = malloc(65536 * 2);
  float *f = malloc(65536 * 4);
  for (uint32_t i = 0; i < 65536; i++) h[i] = (uint16_t)i;
  kiln_array *a = NULL, *af = NULL, *ah = NULL;
  REQUIRE_OK(kiln_array_from_host(ctx, KILN_FLOAT16, 1, &n, NULL, h, &a));
  CHECK_OK(kiln_array_astype(a, KILN_FLOAT32, &af));
  if (af) CHECK_OK(kiln_array_to_host(af, f, NULL));
  if (af) CHECK_OK(kiln_array_astype(af, KILN_FLOAT16, &ah));
  if (ah) CHECK_OK(kiln_array_to_host(ah, back, NULL));
  int failures = 0;
  for (uint32_t i = 0; i < 65536 && af && ah && failures < 10; i++) {
    float want = kiln_float16_to_float((uint16_t)i);
    int ok = isnan(want) ? isnan(f[i]) && signbit(f[i]) == signbit(want)
                         : memcmp(&f[i], &want, 4) == 0;
    ok = ok && same_half(back[i], (uint16_t)i);
    if (!ok && failures++ < 10)
      harness_fail(__FILE__, __LINE__, "pattern 0x%04x: device %a (host %a), back 0x%04x", i,
                   (double)f[i], (double)want, back[i]);
  }
  kiln_array_release(a);
  kiln_array_release(af);
  kiln_array_release(ah);
  free(h);
  free(back);
  free(f);
}

/* Floats and doubles rounded to float16 on the device. */
static void test_rounding(kiln_context *ctx) {
  enum { RANDOM = 200000 };
  int64_t n = 3 * 0x7c00 * 2 + RANDOM + 8;
  float *x = malloc((size_t)n * 4);
  double *xd = malloc((size_t)n * 8);
  int64_t k = 0;
  for (uint32_t h = 0; h < 0x7c00u; h++) {
    double below = field_value(h), above = h == 0x7bffu ? 65536.0 : field_value(h + 1);
    double mid = (below + above) / 2;
    for (int s = 0; s < 2; s++) {
      float m = (float)(s ? -mid : mid);
      x[k] = m, xd[k++] = s ? -(mid + mid * 0x1p-40) : mid + mid * 0x1p-40;
      x[k] = nextafterf(m, INFINITY), xd[k++] = mid;
      x[k] = nextafterf(m, -INFINITY), xd[k++] = -(mid - mid * 0x1p-40);
    }
  }
  for (int i = 0; i < RANDOM; i++) {
    uint32_t bits = (uint32_t)harness_rand_u64();
    uint32_t e = 90 + (uint32_t)(harness_rand_u64() % 60);
    if (i % 4 != 0) bits = (bits & 0x807fffffu) | (e << 23);
    memcpy(&x[k], &bits, 4);
    xd[k++] = ldexp(harness_rand_uniform(-1, 1), (int)(harness_rand_u64() % 50) - 30);
  }
  const float specials[8] = {65520.0f, 65519.99f, INFINITY, -INFINITY, NAN, -0.0f, 1e-45f, 1e30f};
  for (int i = 0; i < 8; i++) x[k] = specials[i], xd[k++] = specials[i];
  uint16_t *out = malloc((size_t)n * 2);
  int doubles = has_double(ctx);
  for (int pass = 0; pass < 1 + doubles; pass++) {
    kiln_dtype from = pass ? KILN_FLOAT64 : KILN_FLOAT32;
    kiln_array *a = NULL, *h = NULL;
    REQUIRE_OK(kiln_array_from_host(ctx, from, 1, &n, NULL, pass ? (void *)xd : (void *)x, &a));
    CHECK_OK(kiln_array_astype(a, KILN_FLOAT16, &h));
    if (h) CHECK_OK(kiln_array_to_host(h, out, NULL));
    int failures = 0;
    for (int64_t i = 0; i < n && h; i++) {
      uint16_t want = pass ? kiln_float16_from_double(xd[i]) : kiln_float16_from_float(x[i]);
      if (!same_half(out[i], want) && failures++ < 10)
        harness_fail(__FILE__, __LINE__, "%s %a to float16 on the device: 0x%04x, host 0x%04x",
                     kiln_dtype_name(from), pass ? xd[i] : (double)x[i], out[i], want);
    }
    kiln_array_release(a);
    kiln_array_release(h);
  }
  free(x);
  free(xd);
  free(out);
}

/* astype between float16 and every dtype, both ways, on a strided view. */
static void test_casts(kiln_context *ctx) {
  enum { N = 211 };
  for (int d = 0; d < KILN_DTYPE_COUNT; d++) {
    kiln_dtype other = (kiln_dtype)d;
    if (other == KILN_FLOAT64 && !has_double(ctx)) continue;
    int is_unsigned = other == KILN_UINT8 || other == KILN_UINT16 || other == KILN_UINT32 ||
                      other == KILN_UINT64;
    double lo = other == KILN_BOOL ? 0 : is_unsigned ? 0 : -120, hi = 120;
    /* float16 -> other: values in range of every dtype, some with fractions */
    uint16_t h[2 * N];
    for (int i = 0; i < 2 * N; i++) h[i] = kiln_float16_from_double(harness_rand_uniform(lo, hi));
    h[0] = 0x8000u; /* -0.0 */
    kiln_array *a = NULL, *view = NULL, *c = NULL, *back = NULL;
    int64_t n2 = 2 * N;
    REQUIRE_OK(kiln_array_from_host(ctx, KILN_FLOAT16, 1, &n2, NULL, h, &a));
    REQUIRE_OK(kiln_array_slice(a, 1, (kiln_slice[]){{0, KILN_NONE, 2}}, &view));
    CHECK_OK(kiln_array_astype(view, other, &c));
    unsigned char out[2 * N * 8];
    if (c) CHECK_OK(kiln_array_to_host(c, out, NULL));
    for (int i = 0; i < N && c; i++) {
      double v = kiln_float16_to_float(h[2 * i]);
      double want = other == KILN_BOOL ? v != 0 : kiln_dtype_is_float(other) ? v : trunc(v);
      CHECK_MSG(harness_get(out, other, i) == want, "float16 %g -> %s: %g", v,
                kiln_dtype_name(other), harness_get(out, other, i));
    }
    /* other -> float16: through the host's rounding of the value */
    if (c) CHECK_OK(kiln_array_astype(c, KILN_FLOAT16, &back));
    uint16_t hb[N];
    if (back) CHECK_OK(kiln_array_to_host(back, hb, NULL));
    for (int i = 0; i < N && back; i++) {
      uint16_t want = kiln_float16_from_double(harness_get(out, other, i));
      CHECK_MSG(hb[i] == want, "%s %g -> float16: 0x%04x, want 0x%04x", kiln_dtype_name(other),
                harness_get(out, other, i), hb[i], want);
    }
    kiln_array_release(a);
    kiln_array_release(view);
    kiln_array_release(c);
    kiln_array_release(back);
  }
  /* large integers: beyond 65519 is an infinity, as NumPy's casts */
  int64_t big[4] = {65519, 65520, -70000, 2049}, n4 = 4;
  kiln_array *b = NULL, *bh = NULL;
  REQUIRE_OK(kiln_array_from_host(ctx, KILN_INT64, 1, &n4, NULL, big, &b));
  CHECK_OK(kiln_array_astype(b, KILN_FLOAT16, &bh));
  uint16_t r[4];
  if (bh) {
    CHECK_OK(kiln_array_to_host(bh, r, NULL));
    CHECK(r[0] == 0x7bffu && r[1] == 0x7c00u && r[2] == 0xfc00u && r[3] == 0x6800u);
  }
  kiln_array_release(b);
  kiln_array_release(bh);
}

static void test_fill(kiln_context *ctx) {
  int64_t shape[2] = {7, 13};
  uint16_t value = 0x3555u; /* 0.333251953125 */
  kiln_array *a = NULL;
  REQUIRE_OK(kiln_array_full(ctx, KILN_FLOAT16, 2, shape, &value, &a));
  uint16_t out[91];
  CHECK_OK(kiln_array_to_host(a, out, NULL));
  for (int i = 0; i < 91; i++) CHECK(out[i] == value);
  kiln_array_release(a);
}

/* A user ufunc over float16 (Numba's @vectorize('float16(float16,
 * float16)')): the body computes in float, the store rounds; and one that
 * returns float32 (no rounding). Sizes 0, 1 and primes, contiguous and
 * reversed views. */
static void test_user_ufunc(kiln_context *ctx) {
  const char *sigs[2] = {"float16(float16 a, float16 b)", "float32(float16 a, float32 b)"};
  kiln_ufunc *u = NULL;
  REQUIRE_OK(kiln_ufunc_create(ctx, "mul_half", 2, sigs, "return a * b;", NULL, &u));
  static const int64_t sizes[] = {0, 1, 7, 1031};
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
    int64_t n = sizes[s];
    uint16_t *ha = malloc((size_t)n * 2 + 2), *hb = malloc((size_t)n * 2 + 2);
    uint16_t *hr = malloc((size_t)n * 2 + 2);
    harness_fill_random(ha, KILN_FLOAT16, n, -300, 300);
    harness_fill_random(hb, KILN_FLOAT16, n, -300, 300);
    kiln_array *a = NULL, *b = NULL, *rev = NULL, *r = NULL;
    REQUIRE_OK(kiln_array_from_host(ctx, KILN_FLOAT16, 1, &n, NULL, ha, &a));
    REQUIRE_OK(kiln_array_from_host(ctx, KILN_FLOAT16, 1, &n, NULL, hb, &b));
    REQUIRE_OK(kiln_array_slice(b, 1, (kiln_slice[]){{KILN_NONE, KILN_NONE, -1}}, &rev));
    kiln_operand in[2] = {kiln_operand_array(a), kiln_operand_array(rev)};
    kiln_operand out[1] = {kiln_operand_new(&r)};
    CHECK_OK(kiln_ufunc_call(u, 2, in, 1, out, NULL));
    if (r) {
      CHECK(kiln_array_dtype(r) == KILN_FLOAT16);
      CHECK_OK(kiln_array_to_host(r, hr, NULL));
      for (int64_t i = 0; i < n; i++) {
        float prod = kiln_float16_to_float(ha[i]) * kiln_float16_to_float(hb[n - 1 - i]);
        uint16_t want = kiln_float16_from_float(prod);
        CHECK_MSG(hr[i] == want, "n %lld [%lld]: 0x%04x, want 0x%04x", (long long)n,
                  (long long)i, hr[i], want);
      }
    }
    kiln_array_release(r);
    r = NULL;
    /* float16 * float32 scalar -> float32 signature, unrounded */
    kiln_operand in2[2] = {kiln_operand_array(a), kiln_operand_float32(1.0f / 3)};
    kiln_operand out2[1] = {kiln_operand_new(&r)};
    CHECK_OK(kiln_ufunc_call(u, 2, in2, 1, out2, NULL));
    if (r) {
      CHECK(kiln_array_dtype(r) == KILN_FLOAT32);
      float *f = malloc((size_t)n * 4 + 4);
      CHECK_OK(kiln_array_to_host(r, f, NULL));
      for (int64_t i = 0; i < n; i++) CHECK(f[i] == kiln_float16_to_float(ha[i]) * (1.0f / 3));
      free(f);
    }
    kiln_array_release(r);
    kiln_array_release(a);
    kiln_array_release(b);
    kiln_array_release(rev);
    free(ha);
    free(hb);
    free(hr);
  }
  kiln_ufunc_release(u);
}

/* Result dtypes as NumPy 2's (np.sqrt(int8) and friends are float16) and
 * the values of the calls. */
static void test_type_resolution(kiln_context *ctx) {
  static const struct {
    const char *name;
    kiln_dtype a, b; /* b: KILN_DTYPE_COUNT for a unary call */
    kiln_dtype want;
  } cases[] = {
      {"sqrt", KILN_INT8, KILN_DTYPE_COUNT, KILN_FLOAT16},
      {"exp", KILN_UINT8, KILN_DTYPE_COUNT, KILN_FLOAT16},
      {"sin", KILN_BOOL, KILN_DTYPE_COUNT, KILN_FLOAT16},
      {"sqrt", KILN_INT16, KILN_DTYPE_COUNT, KILN_FLOAT32},
      {"add", KILN_INT8, KILN_FLOAT16, KILN_FLOAT16},
      {"add", KILN_UINT8, KILN_FLOAT16, KILN_FLOAT16},
      {"add", KILN_INT16, KILN_FLOAT16, KILN_FLOAT32},
      {"add", KILN_FLOAT16, KILN_FLOAT32, KILN_FLOAT32},
      {"divide", KILN_FLOAT16, KILN_BOOL, KILN_FLOAT16},
      {"less", KILN_FLOAT16, KILN_INT8, KILN_BOOL},
      {"arctan2", KILN_INT8, KILN_UINT8, KILN_FLOAT16},
  };
  int64_t n = 5;
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    kiln_ufunc *u = NULL;
    REQUIRE_OK(kiln_ufunc_builtin(ctx, cases[c].name, &u));
    int nin = cases[c].b == KILN_DTYPE_COUNT ? 1 : 2;
    kiln_array *a = random_array(ctx, cases[c].a, 1, &n, 1, 20);
    kiln_array *b = nin == 2 ? random_array(ctx, cases[c].b, 1, &n, 1, 20) : NULL;
    kiln_array *r = NULL;
    kiln_operand in[2] = {kiln_operand_array(a), kiln_operand_array(b)};
    kiln_operand out[1] = {kiln_operand_new(&r)};
    CHECK_OK(kiln_ufunc_call(u, nin, in, 1, out, NULL));
    if (r)
      CHECK_MSG(kiln_array_dtype(r) == cases[c].want, "%s(%s%s%s) gave %s, NumPy %s",
                cases[c].name, kiln_dtype_name(cases[c].a), nin == 2 ? ", " : "",
                nin == 2 ? kiln_dtype_name(cases[c].b) : "", kiln_dtype_name(kiln_array_dtype(r)),
                kiln_dtype_name(cases[c].want));
    kiln_array_release(a);
    kiln_array_release(b);
    kiln_array_release(r);
    kiln_ufunc_release(u);
  }
  /* sqrt(int8) values: the float32 sqrt rounded to float16 */
  int8_t i8[5] = {0, 1, 2, 3, 127};
  int64_t n5 = 5;
  kiln_ufunc *sq = NULL;
  REQUIRE_OK(kiln_ufunc_builtin(ctx, "sqrt", &sq));
  uint16_t r5[5];
  kiln_operand in[1] = {kiln_operand_host(i8, KILN_INT8, 1, &n5, NULL)};
  kiln_operand out[1] = {kiln_operand_host_output(r5, KILN_FLOAT16, 1, &n5, NULL)};
  CHECK_OK(kiln_ufunc_call(sq, 1, in, 1, out, NULL));
  for (int i = 0; i < 5; i++)
    CHECK(r5[i] == kiln_float16_from_float(sqrtf((float)i8[i])));
  kiln_ufunc_release(sq);
}

/* NEP 50: a Python float next to a float16 array stays float16 (the
 * scalar rounded to float16 first); a typed float16 scalar too; a
 * float32 scalar promotes. */
static void test_scalars(kiln_context *ctx) {
  kiln_ufunc *add = NULL;
  REQUIRE_OK(kiln_ufunc_builtin(ctx, "add", &add));
  int64_t n = 101;
  uint16_t h[101], r[101];
  harness_fill_random(h, KILN_FLOAT16, n, -1000, 1000);
  kiln_array *a = NULL;
  REQUIRE_OK(kiln_array_from_host(ctx, KILN_FLOAT16, 1, &n, NULL, h, &a));
  const kiln_operand scalars[3] = {kiln_operand_float(0.1), kiln_operand_float16(0.1),
                                   kiln_operand_int(70000)};
  for (int s = 0; s < 3; s++) {
    kiln_array *res = NULL;
    kiln_operand in[2] = {kiln_operand_array(a), scalars[s]};
    kiln_operand out[1] = {kiln_operand_new(&res)};
    CHECK_OK(kiln_ufunc_call(add, 2, in, 1, out, NULL));
    if (!res) continue;
    CHECK(kiln_array_dtype(res) == KILN_FLOAT16);
    CHECK_OK(kiln_array_to_host(res, r, NULL));
    float sv = kiln_float16_to_float(kiln_float16_from_double(s == 2 ? 70000.0 : 0.1));
    for (int i = 0; i < n; i++)
      CHECK_MSG(r[i] == kiln_float16_from_float(kiln_float16_to_float(h[i]) + sv),
                "scalar %d [%d]: 0x%04x", s, i, r[i]);
    kiln_array_release(res);
  }
  kiln_array *res = NULL;
  kiln_operand in[2] = {kiln_operand_array(a), kiln_operand_float32(0.5f)};
  kiln_operand out[1] = {kiln_operand_new(&res)};
  CHECK_OK(kiln_ufunc_call(add, 2, in, 1, out, NULL));
  if (res) CHECK(kiln_array_dtype(res) == KILN_FLOAT32);
  kiln_array_release(res);
  kiln_array_release(a);
  kiln_ufunc_release(add);
}

/* np.add.reduce, maximum, argmax, cumsum over float16: float16 results,
 * accumulated in float32 and rounded once (docs/reductions). */
static void test_reductions(kiln_context *ctx) {
  static const int64_t sizes[] = {1, 7, 1031, 100003};
  kiln_ufunc *add = NULL, *maximum = NULL;
  REQUIRE_OK(kiln_ufunc_builtin(ctx, "add", &add));
  REQUIRE_OK(kiln_ufunc_builtin(ctx, "maximum", &maximum));
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
    int64_t n = sizes[s];
    uint16_t *h = malloc((size_t)n * 2);
    harness_fill_random(h, KILN_FLOAT16, n, 0, 1);
    kiln_array *a = NULL, *sum = NULL, *mx = NULL, *arg = NULL, *cs = NULL;
    REQUIRE_OK(kiln_array_from_host(ctx, KILN_FLOAT16, 1, &n, NULL, h, &a));
    kiln_reduce_options all = kiln_reduce_all();
    CHECK_OK(kiln_ufunc_reduce(add, kiln_operand_array(a), kiln_operand_new(&sum), &all, NULL));
    CHECK_OK(kiln_ufunc_reduce(maximum, kiln_operand_array(a), kiln_operand_new(&mx), &all, NULL));
    CHECK_OK(kiln_argmax(ctx, kiln_operand_array(a), kiln_operand_new(&arg), NULL, NULL));
    CHECK_OK(kiln_ufunc_scan(add, kiln_operand_array(a), kiln_operand_new(&cs), NULL, NULL));
    double exact = 0, prefix_err = 0;
    uint16_t best = h[0];
    int64_t best_i = 0;
    uint16_t *hc = malloc((size_t)n * 2);
    if (cs) {
      CHECK(kiln_array_dtype(cs) == KILN_FLOAT16);
      CHECK_OK(kiln_array_to_host(cs, hc, NULL));
    }
    for (int64_t i = 0; i < n; i++) {
      exact += kiln_float16_to_float(h[i]);
      if (kiln_float16_to_float(h[i]) > kiln_float16_to_float(best)) best = h[i], best_i = i;
      /* each prefix: within one float16 ulp of the exact prefix sum */
      double got = cs ? kiln_float16_to_float(hc[i]) : exact;
      double ulp = fabs(kiln_float16_to_float((uint16_t)(kiln_float16_from_double(exact) + 1)) -
                        kiln_float16_to_float(kiln_float16_from_double(exact)));
      if (fabs(got - exact) > ulp && prefix_err == 0) {
        prefix_err = got - exact;
        harness_fail(__FILE__, __LINE__, "cumsum n %lld [%lld]: %g, exact %g", (long long)n,
                     (long long)i, got, exact);
      }
    }
    if (sum) {
      uint16_t hs;
      CHECK(kiln_array_dtype(sum) == KILN_FLOAT16);
      CHECK_OK(kiln_array_to_host(sum, &hs, NULL));
      /* float32 accumulation: the float16 of the exact sum, or a neighbour
       * when the exact sum is that close to a midpoint */
      uint16_t want = kiln_float16_from_double(exact);
      CHECK_MSG(hs == want || hs == want + 1 || hs + 1 == want,
                "add.reduce n %lld: %g, exact %g", (long long)n, kiln_float16_to_float(hs), exact);
    }
    if (mx) {
      uint16_t hm;
      CHECK(kiln_array_dtype(mx) == KILN_FLOAT16);
      CHECK_OK(kiln_array_to_host(mx, &hm, NULL));
      CHECK(hm == best);
    }
    if (arg) {
      int64_t ai = -1;
      CHECK_OK(kiln_array_to_host(arg, &ai, NULL));
      CHECK_MSG(ai == best_i, "argmax n %lld: %lld, want %lld", (long long)n, (long long)ai,
                (long long)best_i);
    }
    kiln_array_release(a);
    kiln_array_release(sum);
    kiln_array_release(mx);
    kiln_array_release(arg);
    kiln_array_release(cs);
    free(h);
    free(hc);
  }
  kiln_ufunc_release(add);
  kiln_ufunc_release(maximum);
}

/* A raw kernel over kiln_half elements with a kiln_half scalar. */
static void test_raw_kernel(kiln_context *ctx) {
  const char *source =
      "KILN_KERNEL void axpy_half(KILN_GLOBAL const kiln_half *x, KILN_GLOBAL kiln_half *y,\n"
      "                           kiln_half alpha, int64_t n) {\n"
      "  int64_t i = kiln_global_id(0);\n"
      "  if (i < n)\n"
      "    y[i] = kiln_float_to_half(kiln_half_to_float(alpha) * kiln_half_to_float(x[i]) +\n"
      "                              kiln_half_to_float(y[i]));\n"
      "}\n";
  kiln_kernel *k = NULL;
  REQUIRE_OK(kiln_kernel_create(ctx, source, "axpy_half", NULL, &k));
  int64_t n = 1031;
  uint16_t hx[1031], hy[1031], out[1031];
  harness_fill_random(hx, KILN_FLOAT16, n, -10, 10);
  harness_fill_random(hy, KILN_FLOAT16, n, -10, 10);
  kiln_array *x = NULL, *y = NULL;
  REQUIRE_OK(kiln_array_from_host(ctx, KILN_FLOAT16, 1, &n, NULL, hx, &x));
  REQUIRE_OK(kiln_array_from_host(ctx, KILN_FLOAT16, 1, &n, NULL, hy, &y));
  kiln_arg args[4] = {kiln_arg_array(x), kiln_arg_array(y), kiln_arg_float32(0.5f),
                      kiln_arg_int64(n)};
  CHECK_OK(kiln_kernel_launch(k, 1, &n, NULL, 4, args, NULL));
  CHECK_OK(kiln_array_to_host(y, out, NULL));
  for (int i = 0; i < n; i++) {
    /* 0.5 * x is exact, so a contraction into an FMA cannot change it */
    uint16_t want = kiln_float16_from_float(0.5f * kiln_float16_to_float(hx[i]) +
                                            kiln_float16_to_float(hy[i]));
    CHECK_MSG(out[i] == want, "[%d]: 0x%04x, want 0x%04x", i, out[i], want);
  }
  kiln_array_release(x);
  kiln_array_release(y);
  kiln_kernel_release(k);
}

/* gufuncs: float16 core-dim inputs read as floats, a float16 output
 * without core dims rounded on the store; a float16 output with core dims
 * (which a body writes through an lvalue) is refused with a message. */
static void test_gufunc(kiln_context *ctx) {
  static const char *const sum_sig[] = {"float16(float16 x)"};
  kiln_gufunc *g = NULL;
  REQUIRE_OK(kiln_gufunc_create(ctx, "sum_half", "(n)->()", 1, sum_sig,
                                "float s = 0; for (int64_t i = 0; i < n; i++) s += x(i); "
                                "return s;",
                                NULL, &g));
  int64_t shape[2] = {5, 37};
  uint16_t h[5 * 37], r[5];
  harness_fill_random(h, KILN_FLOAT16, 5 * 37, -4, 4);
  kiln_array *x = NULL, *y = NULL;
  REQUIRE_OK(kiln_array_from_host(ctx, KILN_FLOAT16, 2, shape, NULL, h, &x));
  kiln_operand in[1] = {kiln_operand_array(x)};
  kiln_operand out[1] = {kiln_operand_new(&y)};
  CHECK_OK(kiln_gufunc_call(g, 1, in, 1, out, NULL));
  if (y) {
    CHECK(kiln_array_dtype(y) == KILN_FLOAT16);
    CHECK_OK(kiln_array_to_host(y, r, NULL));
    for (int row = 0; row < 5; row++) {
      float s = 0; /* the same float32 additions in the same order */
      for (int i = 0; i < 37; i++) s += kiln_float16_to_float(h[row * 37 + i]);
      CHECK_MSG(r[row] == kiln_float16_from_float(s), "row %d: 0x%04x", row, r[row]);
    }
  }
  kiln_array_release(y);
  kiln_gufunc_release(g);
  static const char *const copy_sig[] = {"(float16 y)(float16 x)"};
  REQUIRE_OK(kiln_gufunc_create(ctx, "copy_half", "(n)->(n)", 1, copy_sig,
                                "for (int64_t i = 0; i < n; i++) y(i) = x(i);", NULL, &g));
  y = NULL;
  kiln_operand out2[1] = {kiln_operand_new(&y)};
  CHECK_STATUS(kiln_gufunc_call(g, 1, in, 1, out2, NULL), KILN_ERROR_UNIMPLEMENTED);
  CHECK_ERROR_CONTAINS("float16 with core dimensions");
  kiln_array_release(y);
  kiln_array_release(x);
  kiln_gufunc_release(g);
}

static const harness_test tests[] = {
    {"every_pattern", test_every_pattern},
    {"rounding", test_rounding},
    {"casts", test_casts},
    {"fill", test_fill},
    {"user_ufunc", test_user_ufunc},
    {"type_resolution", test_type_resolution},
    {"scalars", test_scalars},
    {"reductions", test_reductions},
    {"raw_kernel", test_raw_kernel},
    {"gufunc", test_gufunc},
    {0},
};

int main(int argc, char **argv) { return harness_main(argc, argv, tests); }
