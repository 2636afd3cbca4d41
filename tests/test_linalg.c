/* Conformance: kiln_matmul / kiln_dot / kiln_vdot (docs/linalg.md) against
 * a float64 host reference on random data in [-1, 1): sizes 1, primes,
 * non-square, tall and skinny, across the portable kernel's 128 x 128
 * tiles, empty dims (k = 0 gives zeros), batches with broadcasting,
 * transposed, strided and reversed views in and out, 1-D operands, mixed
 * dtypes, streams, and every bad input. Registered twice per backend
 * (tests/linalg.cmake): the default path (the vendor BLAS where one is
 * loaded) and KILN_BLAS=portable.
 *
 * Tolerance: each element of C is a sum of k products. Whatever order a
 * BLAS or the kernel sums in (blocked, split, with or without FMA), the
 * rounding error is bounded by gamma_k = k u / (1 - k u) times
 * sum_p |a_ip| |b_pj| (Higham, Accuracy and Stability of Numerical
 * Algorithms, 3.1); we check |c - ref| <= (k + 2) u sum_p |a_ip b_pj| with
 * u = 2^-24 (float32) or 2^-53 (float64) doubled for the reference's own
 * rounding, plus a few u absolute. An element taken from the wrong place
 * or a missed term is off by O(1) and fails; so would TF32 (u = 2^-11).
 * float16 products are computed in float32 (u = 2^-24) and rounded once
 * to float16 (2^-11 relative, 2^-25 absolute below the normal range): a
 * float16 accumulation (CLBlast's HGEMM, NumPy's own float16 loop) is off
 * by about k 2^-11 and fails for the larger k. */
#include "harness.h"

typedef struct host_array {
  int ndim;
  int64_t shape[KILN_MAX_DIMS];
  int64_t size;
  double *v; /* C order, (real, imaginary) pairs: imaginary 0 for a real dtype */
} host_array;


static void host_free(host_array *h) { free(h->v); }

/* The logical contents of any view, as doubles. */
static host_array host_of(const kiln_array *x) {
  host_array h = {.ndim = kiln_array_ndim(x), .size = kiln_array_size(x)};
  memcpy(h.shape, kiln_array_shape(x), (size_t)h.ndim * sizeof(int64_t));
  kiln_dtype dt = kiln_array_dtype(x);
  void *raw = malloc((size_t)(h.size + 1) * kiln_dtype_size(dt));
  h.v = calloc((size_t)(h.size + 1) * 2, sizeof(double));
  CHECK_OK(kiln_array_to_host(x, raw, NULL));
  int parts = kiln_dtype_is_complex(dt) ? 2 : 1;
  for (int64_t i = 0; i < h.size * parts; i++)
    h.v[i * 2 / parts] = harness_get(raw, kiln_dtype_component(dt), i);
  free(raw);
  return h;
}

/* numpy.matmul in float64, with for each element the bound sum |a||b|. */
static void reference(const host_array *a, const host_array *b, host_array *out,
                      double **bound) {
  int and = a->ndim, bnd = b->ndim;
  int64_t m = and >= 2 ? a->shape[and - 2] : 1, k = a->shape[and - 1];
  int64_t n = bnd >= 2 ? b->shape[bnd - 1] : 1;
  int ab = and >= 2 ? and - 2 : 0, bb = bnd >= 2 ? bnd - 2 : 0;
  int nb = ab > bb ? ab : bb;
  int64_t bshape[KILN_MAX_DIMS], batch = 1;
  for (int i = 0; i < nb; i++) {
    int ai = i - (nb - ab), bi = i - (nb - bb);
    int64_t da = ai >= 0 ? a->shape[ai] : 1, db = bi >= 0 ? b->shape[bi] : 1;
    bshape[i] = da == 1 ? db : da;
    batch *= bshape[i];
  }
  out->ndim = 0;
  for (int i = 0; i < nb; i++) out->shape[out->ndim++] = bshape[i];
  if (and >= 2) out->shape[out->ndim++] = m;
  if (bnd >= 2) out->shape[out->ndim++] = n;
  out->size = batch * m * n;
  out->v = calloc(((size_t)out->size + 1) * 2, sizeof(double));
  *bound = calloc((size_t)out->size + 1, sizeof(double));
  for (int64_t q = 0; q < batch; q++) {
    /* batch index -> offsets of a and b (broadcast dims repeat) */
    int64_t rest = q, aoff = 0, boff = 0, astride = m * k, bstride = k * n;
    for (int i = nb - 1; i >= 0; i--) {
      int64_t idx = rest % bshape[i];
      rest /= bshape[i];
      int ai = i - (nb - ab), bi = i - (nb - bb);
      if (ai >= 0) {
        if (a->shape[ai] != 1) aoff += idx * astride;
        astride *= a->shape[ai];
      }
      if (bi >= 0) {
        if (b->shape[bi] != 1) boff += idx * bstride;
        bstride *= b->shape[bi];
      }
    }
    for (int64_t i = 0; i < m; i++)
      for (int64_t j = 0; j < n; j++) {
        double s = 0, si = 0, t = 0;
        for (int64_t p = 0; p < k; p++) {
          const double *x = &a->v[2 * (aoff + i * k + p)], *y = &b->v[2 * (boff + p * n + j)];
          s += x[0] * y[0] - x[1] * y[1];
          si += x[0] * y[1] + x[1] * y[0];
          t += hypot(x[0], x[1]) * hypot(y[0], y[1]);
        }
        out->v[2 * ((q * m + i) * n + j)] = s;
        out->v[2 * ((q * m + i) * n + j) + 1] = si;
        (*bound)[(q * m + i) * n + j] = t;
      }
  }
}

static int has_double(kiln_context *ctx) {
  kiln_device_info info;
  kiln_context_device_info(ctx, &info);
  return info.has_double;
}

static kiln_array *random_array(kiln_context *ctx, kiln_dtype dt, int ndim,
                                const int64_t *shape) {
  int64_t size = 1;
  for (int i = 0; i < ndim; i++) size *= shape[i];
  void *data = malloc((size_t)(size + 1) * kiln_dtype_size(dt));
  /* a complex array: its parts, each uniform in [-1, 1) */
  harness_fill_random(data, kiln_dtype_component(dt), kiln_dtype_is_complex(dt) ? 2 * size : size, -1, 1);
  kiln_array *x = NULL;
  CHECK_OK(kiln_array_from_host(ctx, dt, ndim, shape, NULL, data, &x));
  free(data);
  return x;
}

/* How far a result (one part of it) of dtype dt summing k products may be
 * from the exact ref whose terms' magnitudes sum to bound. A complex part
 * sums 2k real products, each at most |a| |b|. */
static double tolerance(kiln_dtype dt, int64_t k, double bound, double ref) {
  if (kiln_dtype_is_complex(dt)) k *= 2;
  kiln_dtype part = kiln_dtype_component(dt);
  double u = part == KILN_FLOAT64 ? ldexp(1, -52) : ldexp(1, -24);
  double tol = (double)(k + 2) * u * bound + 4 * u;
  if (dt == KILN_FLOAT16) tol += ldexp(1, -11) * (fabs(ref) + tol) + ldexp(1, -25);
  return tol;
}

/* Checks result (already computed) against the reference of a @ b. */
static void check_result(const char *label, const kiln_array *a, const kiln_array *b,
                         const kiln_array *result) {
  host_array ha = host_of(a), hb = host_of(b), ref, got = host_of(result);
  double *bound = NULL;
  reference(&ha, &hb, &ref, &bound);
  kiln_dtype dt = kiln_array_dtype(result);
  int64_t k = ha.shape[ha.ndim - 1];
  CHECK_MSG(got.ndim == ref.ndim, "%s: result ndim %d, expected %d", label, got.ndim, ref.ndim);
  for (int i = 0; i < got.ndim && i < ref.ndim; i++)
    CHECK_MSG(got.shape[i] == ref.shape[i], "%s: dim %d is %lld, expected %lld", label, i,
              (long long)got.shape[i], (long long)ref.shape[i]);
  int bad = 0;
  for (int64_t i = 0; i < 2 * ref.size && i < 2 * got.size && bad < 5; i++) {
    double tol = tolerance(dt, k, bound[i / 2], ref.v[i]);
    if (!(fabs(got.v[i] - ref.v[i]) <= tol)) {
      harness_fail(__FILE__, __LINE__, "%s: element %lld %s part is %.17g, expected %.17g "
                   "(tol %.3g)", label, (long long)(i / 2), i % 2 ? "imaginary" : "real",
                   got.v[i], ref.v[i], tol);
      bad++;
    }
  }
  host_free(&ha);
  host_free(&hb);
  host_free(&ref);
  host_free(&got);
  free(bound);
}

static void matmul_case(const char *label, const kiln_array *a, const kiln_array *b) {
  kiln_array *c = NULL;
  kiln_status s = kiln_matmul(a, b, NULL, NULL, &c);
  CHECK_MSG(s == KILN_OK, "%s: %s: %s", label, kiln_status_string(s), kiln_last_error());
  if (c) check_result(label, a, b, c);
  kiln_array_release(c);
}

static const kiln_dtype dtypes[5] = {KILN_FLOAT32, KILN_FLOAT64, KILN_FLOAT16, KILN_COMPLEX64,
                                     KILN_COMPLEX128};

/* for each dtype the device has */
#define FOR_DTYPES(ctx, dt)                                                       \
  for (int di_ = 0; di_ < 5; di_++)                                               \
    for (kiln_dtype dt = dtypes[di_];                                             \
         dt != KILN_DTYPE_COUNT && (kiln_dtype_component(dt) != KILN_FLOAT64 || has_double(ctx)); \
         dt = KILN_DTYPE_COUNT)

static void test_sizes(kiln_context *ctx) {
  static const int64_t sizes[][3] = {
      {1, 1, 1},     {2, 3, 5},    {7, 13, 11},  {37, 91, 53},  {128, 128, 128},
      {129, 257, 131}, {300, 2, 5}, {513, 7, 3},  {3, 1000, 2},  {2, 9, 600},
      {1, 700, 1},   {64, 8, 192}, {17, 1, 19}};
  FOR_DTYPES(ctx, dt) {
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
      int64_t as[2] = {sizes[i][0], sizes[i][1]}, bs[2] = {sizes[i][1], sizes[i][2]};
      kiln_array *a = random_array(ctx, dt, 2, as), *b = random_array(ctx, dt, 2, bs);
      char label[96];
      snprintf(label, sizeof label, "%s %lldx%lld @ %lldx%lld", kiln_dtype_name(dt),
               (long long)as[0], (long long)as[1], (long long)bs[0], (long long)bs[1]);
      if (a && b) matmul_case(label, a, b);
      kiln_array_release(a);
      kiln_array_release(b);
    }
  }
}

static void test_empty(kiln_context *ctx) {
  FOR_DTYPES(ctx, dt) {
    /* k = 0: zeros, written over whatever out held */
    int64_t as[2] = {5, 0}, bs[2] = {0, 3}, cs[2] = {5, 3};
    kiln_array *a = random_array(ctx, dt, 2, as), *b = random_array(ctx, dt, 2, bs);
    kiln_array *out = random_array(ctx, dt, 2, cs), *c = NULL;
    CHECK_OK(kiln_matmul(a, b, out, NULL, &c));
    CHECK(c == out);
    if (c) check_result("k=0", a, b, c);
    kiln_array_release(c);
    kiln_array_release(out);
    kiln_array_release(a);
    kiln_array_release(b);
    /* m = 0, n = 0, batch 0 */
    static const int64_t shapes[][2][3] = {{{0, 4}, {4, 3}}, {{3, 4}, {4, 0}}};
    for (int i = 0; i < 2; i++) {
      a = random_array(ctx, dt, 2, shapes[i][0]);
      b = random_array(ctx, dt, 2, shapes[i][1]);
      matmul_case("empty m or n", a, b);
      kiln_array_release(a);
      kiln_array_release(b);
    }
    int64_t a3[3] = {0, 2, 3}, b3[2] = {3, 4};
    a = random_array(ctx, dt, 3, a3);
    b = random_array(ctx, dt, 2, b3);
    matmul_case("empty batch", a, b);
    kiln_array_release(a);
    kiln_array_release(b);
  }
}

static void test_batched(kiln_context *ctx) {
  static const struct { int an, bn; int64_t as[4], bs[4]; } cases[] = {
      {3, 3, {4, 5, 6}, {4, 6, 3}},          /* plain stack */
      {3, 2, {4, 5, 6}, {6, 3}},             /* b broadcast */
      {2, 3, {5, 6}, {4, 6, 3}},             /* a broadcast */
      {4, 3, {2, 1, 5, 7}, {3, 7, 4}},       /* both broadcast */
      {4, 4, {2, 3, 9, 7}, {1, 3, 7, 130}},  /* a dim of one in b */
      {3, 3, {1, 3, 4}, {6, 4, 2}},
  };
  FOR_DTYPES(ctx, dt) {
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
      kiln_array *a = random_array(ctx, dt, cases[i].an, cases[i].as);
      kiln_array *b = random_array(ctx, dt, cases[i].bn, cases[i].bs);
      char label[64];
      snprintf(label, sizeof label, "%s batched case %zu", kiln_dtype_name(dt), i);
      matmul_case(label, a, b);
      kiln_array_release(a);
      kiln_array_release(b);
    }
  }
}

/* More batch entries than the portable kernel's launch has groups in dim 2
 * on CPU devices (256; 65535 on GPUs): its grid-stride loop over the
 * batch. */
static void test_large_batch(kiln_context *ctx) {
  int64_t as[3] = {1001, 3, 2}, bs[2] = {2, 5};
  kiln_array *a = random_array(ctx, KILN_FLOAT32, 3, as), *b = random_array(ctx, KILN_FLOAT32, 2, bs);
  matmul_case("1001 batches", a, b);
  kiln_array_release(a);
  kiln_array_release(b);
}

static void test_views(kiln_context *ctx) {
  FOR_DTYPES(ctx, dt) {
    int64_t s1[2] = {23, 41}, s2[2] = {17, 23}, s3[3] = {3, 17, 29};
    kiln_array *x = random_array(ctx, dt, 2, s1); /* 23 x 41 */
    kiln_array *y = random_array(ctx, dt, 2, s2); /* 17 x 23 */
    kiln_array *z = random_array(ctx, dt, 3, s3); /* 3 x 17 x 29 */
    const int t2[2] = {1, 0}, t3[3] = {0, 2, 1}, t3b[3] = {1, 0, 2};
    kiln_array *xt = NULL, *yt = NULL, *zt = NULL, *zb = NULL;
    CHECK_OK(kiln_array_transpose(x, t2, &xt));  /* 41 x 23, column-major */
    CHECK_OK(kiln_array_transpose(y, t2, &yt));  /* 23 x 17 */
    CHECK_OK(kiln_array_transpose(z, t3, &zt));  /* 3 x 29 x 17 */
    CHECK_OK(kiln_array_transpose(z, t3b, &zb)); /* 17 x 3 x 29: batch dim not outermost */
    matmul_case("y @ x", y, x);       /* 17x23 @ 23x41 */
    matmul_case("xT @ yT", xt, yt);   /* both transposed */
    matmul_case("y @ x (a T)", yt, y); /* 23x17 @ 17x23 */
    matmul_case("zT @ y", zt, y);     /* 3x29x17 @ 17x23 */
    kiln_array *y29 = NULL;
    int64_t s4[2] = {29, 5};
    y29 = random_array(ctx, dt, 2, s4);
    matmul_case("zb @ w", zb, y29); /* 17x3x29 @ 29x5 */
    /* every other row and column, and reversed: not a BLAS layout */
    kiln_slice every2[2] = {{KILN_NONE, KILN_NONE, 2}, {1, KILN_NONE, 2}};
    kiln_slice rev[2] = {{KILN_NONE, KILN_NONE, -1}, KILN_SLICE_ALL};
    kiln_array *xs = NULL, *xr = NULL, *ys = NULL;
    CHECK_OK(kiln_array_slice(x, 2, every2, &xs)); /* 12 x 20 */
    CHECK_OK(kiln_array_slice(x, 2, rev, &xr));    /* 23 x 41 reversed rows */
    int64_t s5[2] = {20, 9}, s6[2] = {7, 12};
    kiln_array *w = random_array(ctx, dt, 2, s5), *v = random_array(ctx, dt, 2, s6);
    matmul_case("strided @ w", xs, w);
    matmul_case("v @ strided", v, xs);
    matmul_case("y @ reversed", y, xr);
    /* a column slice: row-major with a leading dim larger than the row */
    kiln_slice cols[2] = {KILN_SLICE_ALL, {3, 30, 1}};
    CHECK_OK(kiln_array_slice(x, 2, cols, &ys)); /* 23 x 27, ld 41 */
    matmul_case("y @ column slice", y, ys);
    kiln_array *arrays[] = {x, y, z, xt, yt, zt, zb, y29, xs, xr, ys, w, v};
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++) kiln_array_release(arrays[i]);
  }
}

static void test_vectors(kiln_context *ctx) {
  FOR_DTYPES(ctx, dt) {
    int64_t k = 131, sv[1] = {k}, sm[2] = {k, 9}, sn[2] = {6, k}, sb[3] = {4, 5, k};
    int64_t sbb[3] = {4, k, 3};
    kiln_array *v = random_array(ctx, dt, 1, sv), *w = random_array(ctx, dt, 1, sv);
    kiln_array *m = random_array(ctx, dt, 2, sm), *nn = random_array(ctx, dt, 2, sn);
    kiln_array *st = random_array(ctx, dt, 3, sb), *sb2 = random_array(ctx, dt, 3, sbb);
    matmul_case("v @ M", v, m);
    matmul_case("M @ v", nn, v);
    matmul_case("v @ v", v, w);
    matmul_case("stack @ v", st, v);
    matmul_case("v @ stack", v, sb2);
    /* a strided vector */
    kiln_slice half = {KILN_NONE, KILN_NONE, 2};
    int64_t s2[1] = {2 * k};
    kiln_array *big = random_array(ctx, dt, 1, s2), *strided = NULL;
    CHECK_OK(kiln_array_slice(big, 1, &half, &strided));
    matmul_case("M @ strided v", nn, strided);
    kiln_array *arrays[] = {v, w, m, nn, st, sb2, big, strided};
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++) kiln_array_release(arrays[i]);
  }
}

static void test_out(kiln_context *ctx) {
  FOR_DTYPES(ctx, dt) {
    int64_t as[2] = {19, 31}, bs[2] = {31, 11}, cs[2] = {19, 11}, ct[2] = {11, 19};
    int64_t cw[2] = {19, 25};
    kiln_array *a = random_array(ctx, dt, 2, as), *b = random_array(ctx, dt, 2, bs);
    /* contiguous out */
    kiln_array *out = random_array(ctx, dt, 2, cs), *c = NULL;
    CHECK_OK(kiln_matmul(a, b, out, NULL, &c));
    CHECK(c == out);
    if (c) check_result("out", a, b, c);
    kiln_array_release(c);
    c = NULL;
    /* result may be NULL with out */
    CHECK_OK(kiln_matmul(a, b, out, NULL, NULL));
    check_result("out, no result", a, b, out);
    /* out transposed: column-major C */
    const int t2[2] = {1, 0};
    kiln_array *outt_base = random_array(ctx, dt, 2, ct), *outt = NULL;
    CHECK_OK(kiln_array_transpose(outt_base, t2, &outt));
    CHECK_OK(kiln_matmul(a, b, outt, NULL, NULL));
    check_result("out transposed", a, b, outt);
    /* out a column slice of a wider array, and a strided one */
    kiln_array *wide = random_array(ctx, dt, 2, cw), *outs = NULL, *outs2 = NULL;
    kiln_slice sl[2] = {KILN_SLICE_ALL, {2, 13, 1}};
    CHECK_OK(kiln_array_slice(wide, 2, sl, &outs));
    CHECK_OK(kiln_matmul(a, b, outs, NULL, NULL));
    check_result("out column slice", a, b, outs);
    kiln_slice sl2[2] = {KILN_SLICE_ALL, {0, 22, 2}};
    CHECK_OK(kiln_array_slice(wide, 2, sl2, &outs2));
    CHECK_OK(kiln_matmul(a, b, outs2, NULL, NULL));
    check_result("out strided", a, b, outs2);
    /* out of the wrong shape or of a dtype the result does not cast to
     * same_kind (a float product into int32) */
    kiln_dtype other = KILN_INT32;
    kiln_array *bad_shape = NULL, *bad_dtype = NULL;
    CHECK_OK(kiln_array_empty(ctx, dt, 2, ct, &bad_shape));
    CHECK_OK(kiln_array_empty(ctx, other, 2, cs, &bad_dtype));
    c = (kiln_array *)1;
    CHECK_STATUS(kiln_matmul(a, b, bad_shape, NULL, &c), KILN_ERROR_INVALID_ARGUMENT);
    CHECK(c == NULL);
    CHECK_ERROR_CONTAINS("(11,19)");
    CHECK_ERROR_CONTAINS("(19,11)");
    CHECK_STATUS(kiln_matmul(a, b, bad_dtype, NULL, NULL), KILN_ERROR_INVALID_ARGUMENT);
    /* a broadcast out */
    kiln_array *row = NULL, *bcast = NULL;
    int64_t rs[1] = {11};
    CHECK_OK(kiln_array_empty(ctx, dt, 1, rs, &row));
    CHECK_OK(kiln_array_broadcast_to(row, 2, cs, &bcast));
    CHECK_STATUS(kiln_matmul(a, b, bcast, NULL, NULL), KILN_ERROR_INVALID_ARGUMENT);
    CHECK_ERROR_CONTAINS("broadcast");
    kiln_array *arrays[] = {a, b, out, outt_base, outt, wide, outs, outs2, bad_shape,
                            bad_dtype, row, bcast};
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++) kiln_array_release(arrays[i]);
  }
}

/* out of another dtype the result casts to same_kind (NumPy's out=): the
 * product is computed in the operands' dtype, then cast, so the values are
 * exactly those of the call without out, converted. */
static void out_cast_case(kiln_context *ctx, kiln_dtype in_dt, kiln_dtype out_dt, int dot) {
  int64_t as[2] = {23, 17}, bs[2] = {17, 9}, cs[2] = {23, 9}, ct[2] = {9, 23};
  kiln_array *a = random_array(ctx, in_dt, 2, as), *b = random_array(ctx, in_dt, 2, bs);
  kiln_array *plain = NULL, *out = NULL, *base = NULL, *outt = NULL, *r = NULL;
  CHECK_OK(kiln_matmul(a, b, NULL, NULL, &plain));
  CHECK_OK(kiln_array_empty(ctx, out_dt, 2, cs, &out));
  CHECK_OK((dot ? kiln_dot : kiln_matmul)(a, b, out, NULL, &r));
  CHECK(r == out);
  const int t2[2] = {1, 0};
  CHECK_OK(kiln_array_empty(ctx, out_dt, 2, ct, &base));
  CHECK_OK(kiln_array_transpose(base, t2, &outt));
  CHECK_OK(kiln_matmul(a, b, outt, NULL, NULL));
  kiln_array *want = NULL; /* plain's values cast to out_dt on the device */
  CHECK_OK(kiln_array_astype(plain, out_dt, &want));
  size_t bytes = (size_t)(23 * 9) * kiln_dtype_size(out_dt);
  unsigned char *h_want = malloc(bytes), *h_out = malloc(bytes), *h_outt = malloc(bytes);
  if (want && plain && h_want && h_out && h_outt) {
    CHECK_OK(kiln_array_to_host(want, h_want, NULL));
    CHECK_OK(kiln_array_to_host(out, h_out, NULL));
    CHECK_OK(kiln_array_to_host(outt, h_outt, NULL));
    CHECK_MSG(memcmp(h_want, h_out, bytes) == 0, "%s %s into %s out differs from the cast result",
              dot ? "dot" : "matmul", kiln_dtype_name(in_dt), kiln_dtype_name(out_dt));
    CHECK_MSG(memcmp(h_want, h_outt, bytes) == 0, "%s into a transposed %s out differs",
              kiln_dtype_name(in_dt), kiln_dtype_name(out_dt));
    /* and the cast really happened from the right values */
    host_array hp = host_of(plain);
    CHECK_CLOSE(harness_get(h_out, out_dt, 5), hp.v[2 * 5], 1e-3, 0);
    host_free(&hp);
  }
  free(h_want);
  free(h_out);
  free(h_outt);
  kiln_array *arrays[] = {a, b, plain, out, base, outt, want, r};
  for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++) kiln_array_release(arrays[i]);
}

static void test_out_same_kind(kiln_context *ctx) {
  int dbl = has_double(ctx);
  if (dbl) out_cast_case(ctx, KILN_FLOAT32, KILN_FLOAT64, 0); /* the case */
  if (dbl) out_cast_case(ctx, KILN_FLOAT32, KILN_FLOAT64, 1);
  if (dbl) out_cast_case(ctx, KILN_FLOAT64, KILN_FLOAT32, 0); /* same_kind narrows too */
  out_cast_case(ctx, KILN_FLOAT32, KILN_FLOAT16, 0);
  out_cast_case(ctx, KILN_FLOAT16, KILN_FLOAT32, 0);
  out_cast_case(ctx, KILN_FLOAT32, KILN_COMPLEX64, 0);
  /* complex into a real out, float into an integer out: not same_kind */
  int64_t s2[2] = {3, 3};
  kiln_array *z = random_array(ctx, KILN_COMPLEX64, 2, s2), *f = random_array(ctx, KILN_FLOAT32, 2, s2);
  kiln_array *real_out = NULL, *int_out = NULL, *r = (kiln_array *)1;
  CHECK_OK(kiln_array_empty(ctx, KILN_FLOAT32, 2, s2, &real_out));
  CHECK_OK(kiln_array_empty(ctx, KILN_INT64, 2, s2, &int_out));
  CHECK_STATUS(kiln_matmul(z, z, real_out, NULL, &r), KILN_ERROR_INVALID_ARGUMENT);
  CHECK(r == NULL);
  CHECK_ERROR_CONTAINS("same_kind");
  CHECK_STATUS(kiln_matmul(f, f, int_out, NULL, NULL), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("int64");
  kiln_array *arrays[] = {z, f, real_out, int_out};
  for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++) kiln_array_release(arrays[i]);
}

static void test_mixed_and_stream(kiln_context *ctx) {
  /* promotion as NumPy's */
  static const kiln_dtype mixed[][3] = {{KILN_FLOAT16, KILN_FLOAT32, KILN_FLOAT32},
                                        {KILN_FLOAT32, KILN_COMPLEX64, KILN_COMPLEX64},
                                        {KILN_COMPLEX64, KILN_FLOAT16, KILN_COMPLEX64},
                                        {KILN_COMPLEX64, KILN_FLOAT64, KILN_COMPLEX128}};
  for (size_t i = 0; i < sizeof mixed / sizeof mixed[0]; i++) {
    if (kiln_dtype_component(mixed[i][2]) == KILN_FLOAT64 && !has_double(ctx)) continue;
    int64_t hs[2] = {21, 37}, fs[2] = {37, 9};
    kiln_array *h = random_array(ctx, mixed[i][0], 2, hs);
    kiln_array *f = random_array(ctx, mixed[i][1], 2, fs), *c = NULL;
    CHECK_OK(kiln_matmul(h, f, NULL, NULL, &c));
    if (c) {
      char label[64];
      snprintf(label, sizeof label, "%s @ %s", kiln_dtype_name(mixed[i][0]),
               kiln_dtype_name(mixed[i][1]));
      CHECK_MSG(kiln_array_dtype(c) == mixed[i][2], "%s gave %s", label,
                kiln_dtype_name(kiln_array_dtype(c)));
      check_result(label, h, f, c);
    }
    kiln_array_release(c);
    kiln_array_release(h);
    kiln_array_release(f);
  }
  if (!has_double(ctx)) {
    harness_skip("no float64 on this device");
    return;
  }
  int64_t as[2] = {9, 14}, bs[2] = {14, 6};
  kiln_array *a = random_array(ctx, KILN_FLOAT32, 2, as);
  kiln_array *b = random_array(ctx, KILN_FLOAT64, 2, bs);
  kiln_array *c = NULL;
  CHECK_OK(kiln_matmul(a, b, NULL, NULL, &c));
  if (c) {
    CHECK(kiln_array_dtype(c) == KILN_FLOAT64);
    check_result("float32 @ float64", a, b, c);
  }
  kiln_array_release(c);
  c = NULL;
  kiln_stream *stream = NULL;
  REQUIRE_OK(kiln_stream_create(ctx, &stream));
  int64_t big[2] = {140, 150}, bigb[2] = {150, 133};
  kiln_array *x = random_array(ctx, KILN_FLOAT32, 2, big);
  kiln_array *y = random_array(ctx, KILN_FLOAT32, 2, bigb);
  CHECK_OK(kiln_matmul(x, y, NULL, stream, &c));
  CHECK_OK(kiln_stream_synchronize(ctx, stream));
  if (c) check_result("on a stream", x, y, c);
  kiln_array_release(c);
  kiln_stream_release(stream);
  kiln_array *arrays[] = {a, b, x, y};
  for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++) kiln_array_release(arrays[i]);
}

static void test_dot_vdot(kiln_context *ctx) {
  FOR_DTYPES(ctx, dt) {
    int64_t sv[1] = {97}, sm[2] = {8, 97}, sk[2] = {97, 10}, s3[3] = {2, 3, 97};
    kiln_array *v = random_array(ctx, dt, 1, sv), *w = random_array(ctx, dt, 1, sv);
    kiln_array *m = random_array(ctx, dt, 2, sm), *k = random_array(ctx, dt, 2, sk);
    kiln_array *t = random_array(ctx, dt, 3, s3), *c = NULL;
    kiln_array *pairs[][2] = {{v, w}, {m, k}, {m, v}, {t, v}, {t, k}, {v, k}};
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
      CHECK_OK(kiln_dot(pairs[i][0], pairs[i][1], NULL, NULL, &c));
      if (c) check_result("dot", pairs[i][0], pairs[i][1], c);
      kiln_array_release(c);
      c = NULL;
    }
    CHECK_STATUS(kiln_dot(v, t, NULL, NULL, &c), KILN_ERROR_UNIMPLEMENTED);
    /* vdot of two 8 x 97 arrays, one of them transposed (not contiguous) */
    int64_t s97[2] = {97, 8};
    kiln_array *q = random_array(ctx, dt, 2, s97), *qt = NULL;
    const int t2[2] = {1, 0};
    CHECK_OK(kiln_array_transpose(q, t2, &qt));
    CHECK_OK(kiln_vdot(m, qt, NULL, &c));
    if (c) {
      CHECK(kiln_array_ndim(c) == 0);
      host_array hm = host_of(m), hq = host_of(qt), hc = host_of(c);
      /* numpy.vdot: the first operand conjugated */
      double s = 0, si = 0, bound = 0;
      for (int64_t i = 0; i < hm.size; i++) {
        const double *x = &hm.v[2 * i], *y = &hq.v[2 * i];
        s += x[0] * y[0] + x[1] * y[1];
        si += x[0] * y[1] - x[1] * y[0];
        bound += hypot(x[0], x[1]) * hypot(y[0], y[1]);
      }
      CHECK_CLOSE(hc.v[0], s, 0, tolerance(dt, hm.size, bound, s));
      CHECK_CLOSE(hc.v[1], si, 0, tolerance(dt, hm.size, bound, si));
      host_free(&hm);
      host_free(&hq);
      host_free(&hc);
    }
    kiln_array_release(c);
    c = NULL;
    CHECK_STATUS(kiln_vdot(m, v, NULL, &c), KILN_ERROR_INVALID_ARGUMENT);
    CHECK_ERROR_CONTAINS("sizes differ");
    kiln_array *arrays[] = {v, w, m, k, t, q, qt};
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++) kiln_array_release(arrays[i]);
  }
}

static void test_bad_input(kiln_context *ctx) {
  int64_t s23[2] = {2, 3}, s45[2] = {4, 5}, s3[3] = {2, 3, 4}, s5[3] = {5, 4, 2};
  kiln_array *a = random_array(ctx, KILN_FLOAT32, 2, s23);
  kiln_array *b = random_array(ctx, KILN_FLOAT32, 2, s45);
  kiln_array *c = (kiln_array *)1;
  CHECK_STATUS(kiln_matmul(a, b, NULL, NULL, &c), KILN_ERROR_INVALID_ARGUMENT);
  CHECK(c == NULL);
  CHECK_ERROR_CONTAINS("(2,3)");
  CHECK_ERROR_CONTAINS("(4,5)");
  CHECK_ERROR_CONTAINS("inner dims differ");
  /* integer dtypes */
  kiln_array *ints = NULL, *scalar = NULL, *x = NULL, *y = NULL;
  int64_t s34[2] = {3, 4};
  CHECK_OK(kiln_array_zeros(ctx, KILN_INT32, 2, s34, &ints));
  CHECK_STATUS(kiln_matmul(a, ints, NULL, NULL, &c), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("int32");
  CHECK_ERROR_CONTAINS("(3,4)");
  /* too few dims */
  CHECK_OK(kiln_array_zeros(ctx, KILN_FLOAT32, 0, NULL, &scalar));
  CHECK_STATUS(kiln_matmul(scalar, a, NULL, NULL, &c), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("0-d");
  CHECK_STATUS(kiln_dot(scalar, a, NULL, NULL, &c), KILN_ERROR_INVALID_ARGUMENT);
  /* batch dims that do not broadcast */
  x = random_array(ctx, KILN_FLOAT32, 3, s3);
  y = random_array(ctx, KILN_FLOAT32, 3, s5);
  CHECK_STATUS(kiln_matmul(x, y, NULL, NULL, &c), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("(2,3,4)");
  CHECK_ERROR_CONTAINS("(5,4,2)");
  /* NULLs */
  CHECK_STATUS(kiln_matmul(NULL, a, NULL, NULL, &c), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_matmul(a, NULL, NULL, NULL, &c), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_matmul(a, b, NULL, NULL, NULL), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_vdot(a, b, NULL, NULL), KILN_ERROR_INVALID_ARGUMENT);
  char text[8];
  CHECK_STATUS(kiln_linalg_describe(ctx, text, 0), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_linalg_describe(NULL, text, sizeof text), KILN_ERROR_INVALID_ARGUMENT);
  kiln_array *arrays[] = {a, b, ints, scalar, x, y};
  for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++) kiln_array_release(arrays[i]);
}

static void test_describe(kiln_context *ctx) {
  char text[1024];
  const char *forced = getenv("KILN_BLAS");
  if (forced && strcmp(forced, "bogus") == 0) {
    /* registered as linalg_bad_setting: a bad value is an error naming it */
    CHECK_STATUS(kiln_linalg_describe(ctx, text, sizeof text), KILN_ERROR_INVALID_ARGUMENT);
    CHECK_ERROR_CONTAINS("KILN_BLAS=bogus");
    int64_t s[2] = {3, 3};
    kiln_array *a = random_array(ctx, KILN_FLOAT32, 2, s), *c = NULL;
    CHECK_STATUS(kiln_matmul(a, a, NULL, NULL, &c), KILN_ERROR_INVALID_ARGUMENT);
    CHECK_ERROR_CONTAINS("KILN_BLAS=bogus");
    kiln_array_release(a);
    return;
  }
  REQUIRE_OK(kiln_linalg_describe(ctx, text, sizeof text));
  printf("  blas path: %s\n", text);
  if (forced && strcmp(forced, "portable") == 0)
    CHECK_MSG(strncmp(text, "portable kernel (KILN_BLAS=portable)", 36) == 0, "%s", text);
  else
    CHECK_MSG(strncmp(text, "vendor: ", 8) == 0 || strncmp(text, "portable kernel", 15) == 0,
              "%s", text);
}

static const harness_test tests[] = {
    {"describe", test_describe},   {"sizes", test_sizes},
    {"empty", test_empty},         {"batched", test_batched},     {"large_batch", test_large_batch},
    {"views", test_views},         {"vectors", test_vectors},
    {"out", test_out},             {"out_same_kind", test_out_same_kind},
    {"mixed_and_stream", test_mixed_and_stream},
    {"dot_vdot", test_dot_vdot},   {"bad_input", test_bad_input},
    {0}};

int main(int argc, char **argv) { return harness_main(argc, argv, tests); }
