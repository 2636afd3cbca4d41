/* Conformance: user ufuncs on device arrays: generated kernels against
 * plain C on random data, sizes 0, 1, primes and large, NumPy broadcasting,
 * strided / reversed / broadcast / transposed views in and out without
 * copies, dispatch and casting (NEP 50 scalars), several outputs, streams,
 * threads, and every error path.
 *
 * Tolerances: float32 results 1e-5 relative (plus 1e-7 absolute near 0);
 * float64 results 1e-12 relative for exp-based bodies, exact for sums and
 * products of small integers held in floats. */
#include <pthread.h>

#include "ufunc_testing.h"

#define GAUSS_BODY \
  "return exp(-0.5f * ((x - mean) / sigma) * ((x - mean) / sigma)) / (sigma * 2.5066283f);"

static const char *const gauss_sigs[] = {"float32(float32 x, float32 mean, float32 sigma)",
                                         "float64(float64 x, float64 mean, float64 sigma)"};

static kiln_ufunc *gaussian(kiln_context *ctx) {
  kiln_ufunc *u = NULL;
  kiln_status s = kiln_ufunc_create(ctx, "gaussian_pdf", 2, gauss_sigs, GAUSS_BODY, NULL, &u);
  if (s != KILN_OK) harness_fail(__FILE__, __LINE__, "create: %s", kiln_last_error());
  return u;
}

/* The body's constants are float literals, in both signatures. */
static double gauss_ref(double x, double mean, double sigma) {
  double z = (x - mean) / sigma;
  return exp(-0.5 * z * z) / (sigma * (double)2.5066283f);
}

/* A ufunc computing x * 2 - y (exact in float64 for small integers), for
 * layout tests where any wrong element shows. */
static kiln_ufunc *axpy(kiln_context *ctx) {
  static const char *const sigs[] = {"float64(float64 x, float64 y)"};
  kiln_ufunc *u = NULL;
  kiln_status s = kiln_ufunc_create(ctx, "twice_minus", 1, sigs, "return x * 2 - y;", NULL, &u);
  if (s != KILN_OK) harness_fail(__FILE__, __LINE__, "create: %s", kiln_last_error());
  return u;
}

static void gaussian_case(kiln_context *ctx, kiln_ufunc *u, kiln_dtype dtype, int64_t n) {
  size_t item = kiln_dtype_size(dtype);
  void *x = malloc((size_t)n * item + 8), *y = malloc((size_t)n * item + 8);
  harness_fill_random(x, dtype, n, -4, 4);
  kiln_array *dx = NULL, *dy = NULL;
  CHECK_OK(kiln_array_from_host(ctx, dtype, 1, &n, NULL, x, &dx));
  double mean = harness_rand_uniform(-1, 1), sigma = harness_rand_uniform(0.5, 2);
  kiln_operand in[3] = {kiln_operand_array(dx), kiln_operand_float(mean),
                        kiln_operand_float(sigma)};
  kiln_operand out[1] = {kiln_operand_new(&dy)};
  CHECK_OK(kiln_ufunc_call(u, 3, in, 1, out, NULL));
  if (dy) {
    CHECK(kiln_array_dtype(dy) == dtype);
    CHECK(kiln_array_ndim(dy) == 1 && kiln_array_shape(dy)[0] == n);
    CHECK_OK(kiln_array_to_host(dy, y, NULL));
    /* the float32 signature sees mean and sigma rounded to float32 */
    double m = dtype == KILN_FLOAT32 ? (float)mean : mean;
    double s = dtype == KILN_FLOAT32 ? (float)sigma : sigma;
    for (int64_t i = 0; i < n && harness_failures < 20; i++) {
      double ref = gauss_ref(harness_get(x, dtype, i), m, s);
      if (dtype == KILN_FLOAT32) CHECK_CLOSE(harness_get(y, dtype, i), ref, 1e-5, 1e-7);
      else CHECK_CLOSE(harness_get(y, dtype, i), ref, 1e-12, 1e-15);
    }
  }
  kiln_array_release(dx);
  kiln_array_release(dy);
  free(x);
  free(y);
}

static void test_gaussian_sizes(kiln_context *ctx) {
  kiln_ufunc *u = gaussian(ctx);
  if (!u) return;
  CHECK(kiln_ufunc_nin(u) == 3 && kiln_ufunc_nout(u) == 1);
  CHECK(kiln_ufunc_signature_count(u) == 2);
  CHECK(strcmp(kiln_ufunc_signature(u, 1), gauss_sigs[1]) == 0);
  CHECK(kiln_ufunc_signature(u, 2) == NULL);
  CHECK(strcmp(kiln_ufunc_name(u), "gaussian_pdf") == 0);
  static const int64_t sizes[] = {0, 1, 2, 3, 7, 31, 1009, 65537, 1000003};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    gaussian_case(ctx, u, KILN_FLOAT32, sizes[i]);
    gaussian_case(ctx, u, KILN_FLOAT64, sizes[i]);
  }
  kiln_ufunc_release(u);
}

static void test_large(kiln_context *ctx) {
  kiln_ufunc *u = gaussian(ctx);
  if (!u) return;
  gaussian_case(ctx, u, KILN_FLOAT32, (1 << 23) + 9);
  kiln_ufunc_release(u);
}

/* Result dtype of gaussian_pdf for one kind of x and of the scalars. */
static kiln_dtype gaussian_dtype(kiln_context *ctx, kiln_ufunc *u, kiln_dtype x_dtype,
                                 kiln_operand mean, kiln_operand sigma, double *value,
                                 double *x0) {
  int64_t n = 5;
  kiln_array *dx = random_array(ctx, x_dtype, 1, &n, -3, 3), *dy = NULL;
  kiln_operand in[3] = {kiln_operand_array(dx), mean, sigma};
  kiln_operand out[1] = {kiln_operand_new(&dy)};
  kiln_dtype result = KILN_DTYPE_COUNT;
  CHECK_OK(kiln_ufunc_call(u, 3, in, 1, out, NULL));
  if (dy) {
    result = kiln_array_dtype(dy);
    double y[5], x[5];
    CHECK_OK(kiln_array_to_host(dy, y, NULL));
    kiln_array *dx64 = NULL;
    CHECK_OK(kiln_array_astype(dx, KILN_FLOAT64, &dx64));
    CHECK_OK(kiln_array_to_host(dx64, x, NULL));
    kiln_array_release(dx64);
    *value = harness_get(y, result, 0);
    *x0 = x[0];
  }
  kiln_array_release(dx);
  kiln_array_release(dy);
  return result;
}

static void test_dispatch_and_scalars(kiln_context *ctx) {
  kiln_ufunc *u = gaussian(ctx);
  if (!u) return;
  double v = 0, x = 0;
  /* weak Python-style floats keep float32 arrays float32 */
  CHECK(gaussian_dtype(ctx, u, KILN_FLOAT32, kiln_operand_float(0.5), kiln_operand_float(1.5), &v,
                       &x) == KILN_FLOAT32);
  CHECK_CLOSE(v, gauss_ref(x, 0.5, 1.5), 1e-5, 1e-7);
  /* weak ints too */
  CHECK(gaussian_dtype(ctx, u, KILN_FLOAT32, kiln_operand_int(0), kiln_operand_int(2), &v, &x) ==
        KILN_FLOAT32);
  CHECK_CLOSE(v, gauss_ref(x, 0, 2), 1e-5, 1e-7);
  /* a strong float64 scalar upcasts (NumPy 2: np.float64 is strong) */
  CHECK(gaussian_dtype(ctx, u, KILN_FLOAT32, kiln_operand_float64(0.25), kiln_operand_float(1), &v,
                       &x) == KILN_FLOAT64);
  CHECK_CLOSE(v, gauss_ref(x, 0.25, 1), 1e-12, 1e-15);
  /* a strong float32 scalar with float64 x: safe cast to the float64 loop */
  CHECK(gaussian_dtype(ctx, u, KILN_FLOAT64, kiln_operand_float32(0.5f), kiln_operand_float32(2),
                       &v, &x) == KILN_FLOAT64);
  CHECK_CLOSE(v, gauss_ref(x, 0.5, 2), 1e-12, 1e-15);
  /* integer arrays cast in the kernel: int16 -> float32 is safe, int32 ->
   * float64 (float32 cannot hold every int32) */
  CHECK(gaussian_dtype(ctx, u, KILN_INT16, kiln_operand_float(0.5), kiln_operand_float(2), &v,
                       &x) == KILN_FLOAT64);
  CHECK_CLOSE(v, gauss_ref(x, 0.5, 2), 1e-12, 1e-15);
  CHECK(gaussian_dtype(ctx, u, KILN_INT16, kiln_operand_float32(0.5f), kiln_operand_float32(2),
                       &v, &x) == KILN_FLOAT32);
  CHECK_CLOSE(v, gauss_ref(x, 0.5, 2), 1e-5, 1e-7);
  CHECK(gaussian_dtype(ctx, u, KILN_INT32, kiln_operand_float32(0.5f), kiln_operand_float32(2),
                       &v, &x) == KILN_FLOAT64);
  CHECK(gaussian_dtype(ctx, u, KILN_UINT8, kiln_operand_int(1), kiln_operand_int(3), &v, &x) ==
        KILN_FLOAT32);
  CHECK_CLOSE(v, gauss_ref(x, 1, 3), 1e-5, 1e-7);
  /* only weak scalars: their default dtypes, float64, a 0-d result */
  kiln_array *r = NULL;
  kiln_operand in[3] = {kiln_operand_float(0.5), kiln_operand_int(0), kiln_operand_int(1)};
  kiln_operand out[1] = {kiln_operand_new(&r)};
  CHECK_OK(kiln_ufunc_call(u, 3, in, 1, out, NULL));
  if (r) {
    CHECK(kiln_array_dtype(r) == KILN_FLOAT64 && kiln_array_ndim(r) == 0);
    double y = 0;
    CHECK_OK(kiln_array_to_host(r, &y, NULL));
    CHECK_CLOSE(y, gauss_ref(0.5, 0, 1), 1e-12, 0);
  }
  kiln_array_release(r);
  kiln_ufunc_release(u);
}

static void test_no_signature_matches(kiln_context *ctx) {
  static const char *const sigs[] = {"int16(int16 x)", "float32(float32 x)"};
  kiln_ufunc *u = NULL;
  REQUIRE_OK(kiln_ufunc_create(ctx, "narrow", 2, sigs, "return x;", NULL, &u));
  int64_t n = 4;
  kiln_array *a = random_array(ctx, KILN_FLOAT64, 1, &n, 1, 2), *r = NULL;
  kiln_operand in[1] = {kiln_operand_array(a)};
  kiln_operand out[1] = {kiln_operand_new(&r)};
  CHECK_STATUS(kiln_ufunc_call(u, 1, in, 1, out, NULL), KILN_ERROR_INVALID_ARGUMENT);
  CHECK(r == NULL);
  CHECK_ERROR_CONTAINS("no signature for inputs (float64)");
  CHECK_ERROR_CONTAINS("float32(float32 x)");
  CHECK_ERROR_CONTAINS("int16(int16 x)");
  /* a strong int64 scalar fits neither */
  in[0] = kiln_operand_int64(3);
  CHECK_STATUS(kiln_ufunc_call(u, 1, in, 1, out, NULL), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("(int64 scalar)");
  /* a weak float scalar alone is float64: no match either */
  in[0] = kiln_operand_float(3);
  CHECK_STATUS(kiln_ufunc_call(u, 1, in, 1, out, NULL), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("(float scalar)");
  /* uint8 goes to int16 by safe casting, exactly */
  kiln_array *b = random_array(ctx, KILN_UINT8, 1, &n, 0, 250);
  in[0] = kiln_operand_array(b);
  CHECK_OK(kiln_ufunc_call(u, 1, in, 1, out, NULL));
  if (r) {
    CHECK(kiln_array_dtype(r) == KILN_INT16);
    int16_t got[4];
    uint8_t want[4];
    CHECK_OK(kiln_array_to_host(r, got, NULL));
    CHECK_OK(kiln_array_to_host(b, want, NULL));
    for (int i = 0; i < 4; i++) CHECK(got[i] == want[i]);
  }
  kiln_array_release(r);
  kiln_array_release(a);
  kiln_array_release(b);
  kiln_ufunc_release(u);
}

/* c = x * 2 - y over shapes that broadcast; checked element by element. */
static void broadcast_case(kiln_context *ctx, kiln_ufunc *u, int na, const int64_t *sa, int nb,
                           const int64_t *sb, int nr, const int64_t *sr) {
  kiln_array *a = random_array(ctx, KILN_FLOAT64, na, sa, -50, 50);
  kiln_array *b = random_array(ctx, KILN_INT32, nb, sb, -50, 50);
  kiln_array *r = NULL;
  kiln_operand in[2] = {kiln_operand_array(a), kiln_operand_array(b)};
  kiln_operand out[1] = {kiln_operand_new(&r)};
  CHECK_OK(kiln_ufunc_call(u, 2, in, 1, out, NULL));
  if (r) {
    CHECK(kiln_array_ndim(r) == nr);
    CHECK(memcmp(kiln_array_shape(r), sr, (size_t)nr * 8) == 0);
    char *sa_, *sb_, *sr_;
    mirror ma = mirror_of_view(a, a, &sa_), mb = mirror_of_view(b, b, &sb_),
           mr = mirror_of_view(r, r, &sr_);
    int64_t idx[KILN_MAX_DIMS] = {0};
    if (shape_size(nr, sr) > 0) {
      do {
        double want = mirror_get(&ma, nr, idx) * 2 - mirror_get(&mb, nr, idx);
        CHECK_MSG(mirror_get(&mr, nr, idx) == want, "broadcast result differs");
      } while (index_next(nr, sr, idx) && harness_failures < 20);
    }
    free(sa_);
    free(sb_);
    free(sr_);
  }
  kiln_array_release(a);
  kiln_array_release(b);
  kiln_array_release(r);
}

static void test_broadcasting(kiln_context *ctx) {
  kiln_ufunc *u = axpy(ctx);
  if (!u) return;
  {
    int64_t a[] = {3, 1, 5}, b[] = {4, 1}, r[] = {3, 4, 5};
    broadcast_case(ctx, u, 3, a, 2, b, 3, r);
  }
  {
    int64_t a[] = {7}, b[] = {1}, r[] = {7};
    broadcast_case(ctx, u, 1, a, 1, b, 1, r);
  }
  {
    int64_t a[] = {1}, b[] = {2, 1, 3}, r[] = {2, 1, 3};
    broadcast_case(ctx, u, 0, a, 3, b, 3, r); /* 0-d a */
  }
  {
    int64_t a[] = {2, 1}, b[] = {1, 3}, r[] = {2, 3};
    broadcast_case(ctx, u, 2, a, 2, b, 2, r);
  }
  {
    int64_t a[] = {0, 3}, b[] = {1, 3}, r[] = {0, 3};
    broadcast_case(ctx, u, 2, a, 2, b, 2, r);
  }
  {
    int64_t a[] = {1, 1, 1}, b[] = {1}, r[] = {1, 1, 1};
    broadcast_case(ctx, u, 3, a, 0, b, 3, r);
  }
  {
    int64_t a[] = {2, 3, 1, 5, 1}, b[] = {4, 1, 6}, r[] = {2, 3, 4, 5, 6};
    broadcast_case(ctx, u, 5, a, 3, b, 5, r);
  }
  /* incompatible shapes: an error naming them */
  int64_t sa[] = {3}, sb[] = {4};
  kiln_array *a = random_array(ctx, KILN_FLOAT64, 1, sa, 0, 1);
  kiln_array *b = random_array(ctx, KILN_FLOAT64, 1, sb, 0, 1), *r = NULL;
  kiln_operand in[2] = {kiln_operand_array(a), kiln_operand_array(b)};
  kiln_operand out[1] = {kiln_operand_new(&r)};
  CHECK_STATUS(kiln_ufunc_call(u, 2, in, 1, out, NULL), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("could not be broadcast");
  CHECK_ERROR_CONTAINS("(3,)");
  CHECK_ERROR_CONTAINS("(4,)");
  CHECK(r == NULL);
  kiln_array_release(a);
  kiln_array_release(b);
  kiln_ufunc_release(u);
}

/* A random view of a fresh random base array: per dim a random step
 * (negative too), then a random transpose; `extents` are the view's. */
static kiln_array *random_view(kiln_context *ctx, kiln_dtype dtype, int ndim,
                               const int64_t *extents, kiln_array **base_out) {
  int64_t base_shape[KILN_MAX_DIMS];
  kiln_slice slices[KILN_MAX_DIMS];
  int perm[KILN_MAX_DIMS];
  for (int d = 0; d < ndim; d++) perm[d] = d;
  for (int d = ndim - 1; d > 0; d--) {
    int k = (int)(harness_rand_u64() % (uint64_t)(d + 1));
    int t = perm[d];
    perm[d] = perm[k];
    perm[k] = t;
  }
  /* base dim perm[d] holds view dim d */
  int64_t want[KILN_MAX_DIMS];
  for (int d = 0; d < ndim; d++) want[perm[d]] = extents[d];
  for (int d = 0; d < ndim; d++) {
    int64_t step = (int64_t)(harness_rand_u64() % 3) + 1;
    if (harness_rand_u64() & 1) step = -step;
    int64_t pad = (int64_t)(harness_rand_u64() % 3);
    base_shape[d] = want[d] == 0 ? pad : (want[d] - 1) * (step < 0 ? -step : step) + 1 + pad;
    if (step > 0) slices[d] = (kiln_slice){pad, KILN_NONE, step};
    else slices[d] = (kiln_slice){base_shape[d] - 1 - pad, KILN_NONE, step};
  }
  *base_out = random_array(ctx, dtype, ndim, base_shape, -50, 50);
  kiln_array *sliced = NULL, *view = NULL;
  if (!*base_out) return NULL;
  CHECK_OK(kiln_array_slice(*base_out, ndim, slices, &sliced));
  if (!sliced) return NULL;
  /* slicing gives ceil(...) elements; trim to exactly want[] */
  kiln_slice trim[KILN_MAX_DIMS];
  for (int d = 0; d < ndim; d++) trim[d] = (kiln_slice){0, want[d], 1};
  kiln_array *trimmed = NULL;
  CHECK_OK(kiln_array_slice(sliced, ndim, trim, &trimmed));
  kiln_array_release(sliced);
  if (!trimmed) return NULL;
  CHECK_OK(kiln_array_transpose(trimmed, perm, &view));
  kiln_array_release(trimmed);
  if (view)
    for (int d = 0; d < ndim; d++) CHECK(kiln_array_shape(view)[d] == extents[d]);
  return view;
}

static void test_random_strided_views(kiln_context *ctx) {
  kiln_ufunc *u = axpy(ctx);
  if (!u) return;
  for (int iter = 0; iter < 40 && harness_failures < 20; iter++) {
    int ndim = 1 + (int)(harness_rand_u64() % 4);
    int64_t shape[KILN_MAX_DIMS], sa[KILN_MAX_DIMS], sb[KILN_MAX_DIMS];
    for (int d = 0; d < ndim; d++) {
      static const int64_t extents[] = {1, 2, 3, 5, 7, 13};
      shape[d] = extents[harness_rand_u64() % 6];
      sa[d] = harness_rand_u64() % 4 == 0 ? 1 : shape[d]; /* broadcast sometimes */
      sb[d] = harness_rand_u64() % 4 == 0 ? 1 : shape[d];
    }
    kiln_array *base_a = NULL, *base_b = NULL, *base_r = NULL;
    kiln_array *a = random_view(ctx, KILN_FLOAT64, ndim, sa, &base_a);
    kiln_array *b = random_view(ctx, KILN_INT16, ndim, sb, &base_b);
    kiln_array *r = random_view(ctx, KILN_FLOAT64, ndim, shape, &base_r);
    if (!a || !b || !r) goto next;
    char *before_s, *after_s, *sa_, *sb_;
    mirror before = mirror_of_view(base_r, r, &before_s);
    kiln_operand in[2] = {kiln_operand_array(a), kiln_operand_array(b)};
    kiln_operand out[1] = {kiln_operand_array(r)};
    CHECK_OK(kiln_ufunc_call(u, 2, in, 1, out, NULL));
    mirror after = mirror_of_view(base_r, r, &after_s);
    mirror ma = mirror_of_view(base_a, a, &sa_), mb = mirror_of_view(base_b, b, &sb_);
    /* every element of the view is the result; every other element of the
     * base is untouched */
    int64_t n_base = kiln_array_size(base_r);
    char *touched = calloc((size_t)n_base + 1, 1);
    int64_t idx[KILN_MAX_DIMS] = {0};
    do {
      double want = mirror_get(&ma, ndim, idx) * 2 - mirror_get(&mb, ndim, idx);
      double got = mirror_get(&after, ndim, idx);
      CHECK_MSG(got == want, "iter %d: got %g want %g", iter, got, want);
      touched[(after.data - after_s + mirror_offset(&after, ndim, idx)) / 8] = 1;
    } while (index_next(ndim, shape, idx) && harness_failures < 20);
    for (int64_t i = 0; i < n_base; i++)
      if (!touched[i]) CHECK_MSG(memcmp(before_s + 8 * i, after_s + 8 * i, 8) == 0,
                                 "iter %d: element %lld outside the view changed", iter,
                                 (long long)i);
    (void)before;
    free(touched);
    free(before_s);
    free(after_s);
    free(sa_);
    free(sb_);
  next:
    kiln_array_release(a);
    kiln_array_release(b);
    kiln_array_release(r);
    kiln_array_release(base_a);
    kiln_array_release(base_b);
    kiln_array_release(base_r);
  }
  kiln_ufunc_release(u);
}

/* Columns of an (N, 2) points array in, columns of an (N, 2) result out:
 * strided on both sides, several outputs, a helper function. */
static void test_several_outputs_on_columns(kiln_context *ctx) {
  static const char *const sigs[] = {"(float32 r, float32 theta)(float32 x, float32 y)"};
  kiln_ufunc *u = NULL;
  REQUIRE_OK(kiln_ufunc_create(ctx, "to_polar", 1, sigs,
                               "r = radius(x, y);\n"
                               "if (r == 0) { theta = 0; return; }\n"
                               "theta = atan2(y, x);",
                               "KILN_DEVICE float radius(float x, float y) {\n"
                               "  return sqrt(x * x + y * y);\n"
                               "}\n",
                               &u));
  static const int64_t sizes[] = {1, 2, 1009, 100003};
  for (size_t t = 0; t < sizeof sizes / sizeof sizes[0]; t++) {
    int64_t shape[2] = {sizes[t], 2};
    kiln_array *points = random_array(ctx, KILN_FLOAT32, 2, shape, -10, 10);
    kiln_array *polar = NULL, *x = NULL, *y = NULL, *r = NULL, *theta = NULL;
    REQUIRE_OK(kiln_array_zeros(ctx, KILN_FLOAT32, 2, shape, &polar));
    CHECK_OK(kiln_array_index(points, 1, 0, &x));
    CHECK_OK(kiln_array_index(points, 1, 1, &y));
    CHECK_OK(kiln_array_index(polar, 1, 0, &r));
    CHECK_OK(kiln_array_index(polar, 1, 1, &theta));
    if (sizes[t] > 1) CHECK(!kiln_array_is_contiguous(x));
    kiln_operand in[2] = {kiln_operand_array(x), kiln_operand_array(y)};
    kiln_operand out[2] = {kiln_operand_array(r), kiln_operand_array(theta)};
    CHECK_OK(kiln_ufunc_call(u, 2, in, 2, out, NULL));
    float *p = malloc((size_t)sizes[t] * 8), *q = malloc((size_t)sizes[t] * 8);
    CHECK_OK(kiln_array_to_host(points, p, NULL));
    CHECK_OK(kiln_array_to_host(polar, q, NULL));
    for (int64_t i = 0; i < sizes[t] && harness_failures < 20; i++) {
      double px = p[2 * i], py = p[2 * i + 1];
      CHECK_CLOSE(q[2 * i], sqrt(px * px + py * py), 1e-5, 1e-6);
      CHECK_CLOSE(q[2 * i + 1], atan2(py, px), 1e-5, 1e-6);
    }
    /* new outputs of several: both allocated */
    kiln_array *nr = NULL, *nt = NULL;
    kiln_operand out2[2] = {kiln_operand_new(&nr), kiln_operand_new(&nt)};
    CHECK_OK(kiln_ufunc_call(u, 2, in, 2, out2, NULL));
    if (nr && nt) {
      CHECK(kiln_array_is_contiguous(nr) && kiln_array_ndim(nt) == 1);
      float *a = malloc((size_t)sizes[t] * 4), *b = malloc((size_t)sizes[t] * 4);
      CHECK_OK(kiln_array_to_host(nr, a, NULL));
      CHECK_OK(kiln_array_to_host(nt, b, NULL));
      for (int64_t i = 0; i < sizes[t]; i++)
        CHECK(a[i] == q[2 * i] && b[i] == q[2 * i + 1]);
      free(a);
      free(b);
    }
    free(p);
    free(q);
    kiln_array_release(nr);
    kiln_array_release(nt);
    kiln_array_release(points);
    kiln_array_release(polar);
    kiln_array_release(x);
    kiln_array_release(y);
    kiln_array_release(r);
    kiln_array_release(theta);
  }
  /* the early `return;` path keeps assigned outputs */
  float zeros[2] = {0, 0};
  int64_t one = 1;
  kiln_array *zx = NULL, *nr = NULL, *nt = NULL;
  REQUIRE_OK(kiln_array_from_host(ctx, KILN_FLOAT32, 1, &one, NULL, zeros, &zx));
  kiln_operand in[2] = {kiln_operand_array(zx), kiln_operand_float32(0)};
  kiln_operand out[2] = {kiln_operand_new(&nr), kiln_operand_new(&nt)};
  CHECK_OK(kiln_ufunc_call(u, 2, in, 2, out, NULL));
  float got[2] = {1, 1};
  if (nr && nt) {
    CHECK_OK(kiln_array_to_host(nr, &got[0], NULL));
    CHECK_OK(kiln_array_to_host(nt, &got[1], NULL));
    CHECK(got[0] == 0 && got[1] == 0);
  }
  kiln_array_release(zx);
  kiln_array_release(nr);
  kiln_array_release(nt);
  kiln_ufunc_release(u);
}

static void test_out_arrays(kiln_context *ctx) {
  kiln_ufunc *u = gaussian(ctx);
  if (!u) return;
  int64_t n = 1001;
  kiln_array *x = random_array(ctx, KILN_FLOAT32, 1, &n, -3, 3);
  float xs[1001];
  CHECK_OK(kiln_array_to_host(x, xs, NULL));
  kiln_operand in[3] = {kiln_operand_array(x), kiln_operand_float(0), kiln_operand_float(1)};
  /* float32 loop into a float64 out: safe */
  kiln_array *o64 = NULL;
  REQUIRE_OK(kiln_array_empty(ctx, KILN_FLOAT64, 1, &n, &o64));
  kiln_operand out[1] = {kiln_operand_array(o64)};
  CHECK_OK(kiln_ufunc_call(u, 3, in, 1, out, NULL));
  double d[1001];
  CHECK_OK(kiln_array_to_host(o64, d, NULL));
  for (int i = 0; i < n; i++) CHECK_CLOSE(d[i], gauss_ref(xs[i], 0, 1), 1e-5, 1e-7);
  /* float64 x into a float32 out: same_kind, allowed */
  kiln_array *x64 = NULL, *o32 = NULL;
  CHECK_OK(kiln_array_astype(x, KILN_FLOAT64, &x64));
  REQUIRE_OK(kiln_array_empty(ctx, KILN_FLOAT32, 1, &n, &o32));
  in[0] = kiln_operand_array(x64);
  out[0] = kiln_operand_array(o32);
  CHECK_OK(kiln_ufunc_call(u, 3, in, 1, out, NULL));
  float f[1001];
  CHECK_OK(kiln_array_to_host(o32, f, NULL));
  for (int i = 0; i < n; i++) CHECK_CLOSE(f[i], gauss_ref(xs[i], 0, 1), 1e-6, 1e-7);
  /* an int out: float -> int is unsafe even for same_kind */
  kiln_array *oi = NULL;
  REQUIRE_OK(kiln_array_empty(ctx, KILN_INT32, 1, &n, &oi));
  out[0] = kiln_operand_array(oi);
  CHECK_STATUS(kiln_ufunc_call(u, 3, in, 1, out, NULL), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("output 0 is int32");
  /* wrong shape */
  int64_t m = n - 1;
  kiln_array *short_out = NULL;
  REQUIRE_OK(kiln_array_empty(ctx, KILN_FLOAT64, 1, &m, &short_out));
  out[0] = kiln_operand_array(short_out);
  CHECK_STATUS(kiln_ufunc_call(u, 3, in, 1, out, NULL), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("could not be broadcast");
  /* a bigger out is fine when the inputs broadcast to it */
  int64_t big[2] = {3, 1001};
  kiln_array *o2 = NULL;
  REQUIRE_OK(kiln_array_empty(ctx, KILN_FLOAT64, 2, big, &o2));
  out[0] = kiln_operand_array(o2);
  CHECK_OK(kiln_ufunc_call(u, 3, in, 1, out, NULL));
  double *d2 = malloc(3 * 1001 * 8);
  CHECK_OK(kiln_array_to_host(o2, d2, NULL));
  for (int i = 0; i < 3 * 1001; i++) CHECK_CLOSE(d2[i], gauss_ref(xs[i % 1001], 0, 1), 1e-12, 1e-15);
  free(d2);
  /* an out that is a broadcast view cannot be written */
  kiln_array *row = NULL, *bview = NULL;
  REQUIRE_OK(kiln_array_empty(ctx, KILN_FLOAT64, 1, &n, &row));
  CHECK_OK(kiln_array_broadcast_to(row, 2, big, &bview));
  out[0] = kiln_operand_array(bview);
  CHECK_STATUS(kiln_ufunc_call(u, 3, in, 1, out, NULL), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("broadcast view");
  /* in place: x64 = gaussian(x64) */
  in[0] = kiln_operand_array(x64);
  out[0] = kiln_operand_array(x64);
  CHECK_OK(kiln_ufunc_call(u, 3, in, 1, out, NULL));
  CHECK_OK(kiln_array_to_host(x64, d, NULL));
  for (int i = 0; i < n; i++) CHECK_CLOSE(d[i], gauss_ref(xs[i], 0, 1), 1e-12, 1e-15);
  kiln_array *arrays[] = {x, o64, x64, o32, oi, short_out, o2, row, bview};
  for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++) kiln_array_release(arrays[i]);
  kiln_ufunc_release(u);
}

static void test_stream(kiln_context *ctx) {
  kiln_ufunc *u = axpy(ctx);
  if (!u) return;
  kiln_stream *stream = NULL;
  REQUIRE_OK(kiln_stream_create(ctx, &stream));
  int64_t n = 4099;
  kiln_array *a = random_array(ctx, KILN_FLOAT64, 1, &n, -9, 9), *r = NULL;
  double *h = malloc((size_t)n * 8), *g = malloc((size_t)n * 8);
  CHECK_OK(kiln_array_to_host(a, h, NULL));
  kiln_operand in[2] = {kiln_operand_array(a), kiln_operand_float(1)};
  kiln_operand out[1] = {kiln_operand_new(&r)};
  CHECK_OK(kiln_ufunc_call(u, 2, in, 1, out, stream));
  /* chained on the same stream: r = r * 2 - 1 */
  if (r) {
    in[0] = kiln_operand_array(r);
    out[0] = kiln_operand_array(r);
    CHECK_OK(kiln_ufunc_call(u, 2, in, 1, out, stream));
    CHECK_OK(kiln_stream_synchronize(ctx, stream));
    CHECK_OK(kiln_array_to_host(r, g, NULL));
    for (int64_t i = 0; i < n; i++) CHECK(g[i] == (h[i] * 2 - 1) * 2 - 1);
  }
  kiln_array_release(a);
  kiln_array_release(r);
  kiln_stream_release(stream);
  free(h);
  free(g);
  kiln_ufunc_release(u);
}

typedef struct thread_job {
  kiln_context *ctx;
  kiln_ufunc *u;
  int seed;
  int failures;
} thread_job;

static void *thread_main(void *arg) {
  thread_job *job = arg;
  int64_t n = 513 + job->seed;
  double *h = malloc((size_t)n * 8), *g = malloc((size_t)n * 8);
  for (int64_t i = 0; i < n; i++) h[i] = (double)(i % 97) - job->seed;
  for (int round = 0; round < 20; round++) {
    kiln_array *a = NULL, *r = NULL;
    if (kiln_array_from_host(job->ctx, KILN_FLOAT64, 1, &n, NULL, h, &a) != KILN_OK) {
      job->failures++;
      break;
    }
    /* alternate contiguous and reversed inputs: two variants raced on */
    kiln_array *view = NULL;
    kiln_slice rev = {KILN_NONE, KILN_NONE, round % 2 ? -1 : 1};
    kiln_array_slice(a, 1, &rev, &view);
    kiln_operand in[2] = {kiln_operand_array(view), kiln_operand_int(job->seed)};
    kiln_operand out[1] = {kiln_operand_new(&r)};
    if (kiln_ufunc_call(job->u, 2, in, 1, out, NULL) != KILN_OK ||
        kiln_array_to_host(r, g, NULL) != KILN_OK) {
      job->failures++;
    } else {
      for (int64_t i = 0; i < n; i++) {
        double x = h[round % 2 ? n - 1 - i : i];
        if (g[i] != x * 2 - job->seed) job->failures++;
      }
    }
    kiln_array_release(view);
    kiln_array_release(a);
    kiln_array_release(r);
  }
  free(h);
  free(g);
  return NULL;
}

static void test_threads(kiln_context *ctx) {
  kiln_ufunc *u = axpy(ctx);
  if (!u) return;
  pthread_t threads[4];
  thread_job jobs[4];
  for (int t = 0; t < 4; t++) {
    jobs[t] = (thread_job){ctx, u, t + 1, 0};
    pthread_create(&threads[t], NULL, thread_main, &jobs[t]);
  }
  for (int t = 0; t < 4; t++) {
    pthread_join(threads[t], NULL);
    CHECK_MSG(jobs[t].failures == 0, "thread %d: %d failures", t, jobs[t].failures);
  }
  kiln_ufunc_release(u);
}

static void test_bad_calls(kiln_context *ctx) {
  kiln_ufunc *u = gaussian(ctx);
  if (!u) return;
  int64_t n = 8;
  kiln_array *x = random_array(ctx, KILN_FLOAT32, 1, &n, 0, 1), *r = NULL;
  kiln_operand in[3] = {kiln_operand_array(x), kiln_operand_float(0), kiln_operand_float(1)};
  kiln_operand out[1] = {kiln_operand_new(&r)};
  /* arity */
  CHECK_STATUS(kiln_ufunc_call(u, 2, in, 1, out, NULL), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("takes 3 inputs and 1 output, 2 and 1 given");
  CHECK_STATUS(kiln_ufunc_call(u, 3, in, 2, out, NULL), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_ufunc_call(u, 3, NULL, 1, out, NULL), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_ufunc_call(u, 3, in, 1, NULL, NULL), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_ufunc_call(NULL, 3, in, 1, out, NULL), KILN_ERROR_INVALID_ARGUMENT);
  /* a NULL array */
  in[0] = kiln_operand_array(NULL);
  CHECK_STATUS(kiln_ufunc_call(u, 3, in, 1, out, NULL), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("input 0 is a NULL array");
  /* unknown dtypes */
  in[0] = kiln_operand_host(NULL, (kiln_dtype)42, 1, &n, NULL);
  CHECK_STATUS(kiln_ufunc_call(u, 3, in, 1, out, NULL), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("unknown dtype");
  in[0] = kiln_operand_array(x);
  in[1] = kiln_operand_float(0);
  in[1].dtype = (kiln_dtype)-3;
  CHECK_STATUS(kiln_ufunc_call(u, 3, in, 1, out, NULL), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("unknown dtype");
  in[1] = kiln_operand_float(0);
  in[1].kind = (kiln_operand_kind)99;
  CHECK_STATUS(kiln_ufunc_call(u, 3, in, 1, out, NULL), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("unknown kind");
  /* kinds in the wrong place */
  in[1] = kiln_operand_new(&r);
  CHECK_STATUS(kiln_ufunc_call(u, 3, in, 1, out, NULL), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("only outputs");
  in[1] = kiln_operand_float(0);
  kiln_operand scalar_out[1] = {kiln_operand_float(1)};
  CHECK_STATUS(kiln_ufunc_call(u, 3, in, 1, scalar_out, NULL), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("output 0 is a scalar");
  kiln_operand null_new[1] = {kiln_operand_new(NULL)};
  CHECK_STATUS(kiln_ufunc_call(u, 3, in, 1, null_new, NULL), KILN_ERROR_INVALID_ARGUMENT);
  /* weak ints out of range of the integer dtype the arrays give them */
  kiln_ufunc *add = NULL;
  REQUIRE_OK(kiln_ufunc_builtin(ctx, "add", &add));
  kiln_array *u8 = random_array(ctx, KILN_UINT8, 1, &n, 0, 100);
  kiln_operand ain[2] = {kiln_operand_array(u8), kiln_operand_int(300)};
  CHECK_STATUS(kiln_ufunc_call(add, 2, ain, 1, out, NULL), KILN_ERROR_OUT_OF_RANGE);
  CHECK_ERROR_CONTAINS("out of range for uint8");
  ain[1] = kiln_operand_int(-1);
  CHECK_STATUS(kiln_ufunc_call(add, 2, ain, 1, out, NULL), KILN_ERROR_OUT_OF_RANGE);
  CHECK(r == NULL);
  /* an array of another context */
  kiln_context *other = NULL;
  CHECK_OK(kiln_context_create(NULL, &other));
  if (other) {
    kiln_array *y = random_array(other, KILN_FLOAT32, 1, &n, 0, 1);
    in[0] = kiln_operand_array(y);
    CHECK_STATUS(kiln_ufunc_call(u, 3, in, 1, out, NULL), KILN_ERROR_INVALID_ARGUMENT);
    CHECK_ERROR_CONTAINS("another context");
    kiln_array_release(y);
    kiln_context_release(other);
  }
  kiln_array_release(u8);
  kiln_array_release(x);
  kiln_ufunc_release(add);
  kiln_ufunc_release(u);
}

static void test_bad_creation(kiln_context *ctx) {
  kiln_ufunc *u = (kiln_ufunc *)1;
  static const char *const ok[] = {"float32(float32 x)"};
  static const char *const bad_sig[] = {"float32(float32 x)", "float32(float32 x, float32 y"};
  static const char *const mixed[] = {"float32(float32 x)", "float32(float32 x, float32 y)"};
  CHECK_STATUS(kiln_ufunc_create(ctx, "f", 2, bad_sig, "return x;", NULL, &u),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK(u == NULL);
  CHECK_ERROR_CONTAINS("ufunc 'f'");
  CHECK_ERROR_CONTAINS("signature 1");
  CHECK_ERROR_CONTAINS("column 29");
  CHECK_STATUS(kiln_ufunc_create(ctx, "f", 2, mixed, "return x;", NULL, &u),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("all must agree");
  CHECK_STATUS(kiln_ufunc_create(ctx, "2fast", 1, ok, "return x;", NULL, &u),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("not an identifier");
  CHECK_STATUS(kiln_ufunc_create(ctx, "a-b", 1, ok, "return x;", NULL, &u),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_ufunc_create(ctx, "", 1, ok, "return x;", NULL, &u),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_ufunc_create(ctx, "f", 0, ok, "return x;", NULL, &u),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_ufunc_create(ctx, "f", 1, ok, NULL, NULL, &u), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_ufunc_create(NULL, "f", 1, ok, "return x;", NULL, &u),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_ufunc_create(ctx, "f", 1, NULL, "return x;", NULL, &u),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_ufunc_create(ctx, "f", 1, ok, "return x;", NULL, NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_ufunc_builtin(ctx, "no_such_ufunc", &u), KILN_ERROR_NOT_FOUND);
  CHECK_ERROR_CONTAINS("arctan2");
  CHECK(u == NULL);
  CHECK_STATUS(kiln_ufunc_set_host_chunk_bytes(NULL, 4), KILN_ERROR_INVALID_ARGUMENT);
  /* property getters on NULL never crash */
  CHECK(kiln_ufunc_nin(NULL) == 0 && kiln_ufunc_signature(NULL, 0) == NULL);
  kiln_ufunc_release(NULL);
  CHECK(kiln_ufunc_retain(NULL) == NULL);
}

static void test_body_fails_to_compile(kiln_context *ctx) {
  static const char *const sigs[] = {"float32(float32 x)", "float64(float64 x)"};
  kiln_ufunc *u = NULL;
  REQUIRE_OK(kiln_ufunc_create(ctx, "broken", 2, sigs, "return x + undefined_name;", NULL, &u));
  int64_t n = 3;
  kiln_array *x = random_array(ctx, KILN_FLOAT64, 1, &n, 0, 1), *r = NULL;
  kiln_operand in[1] = {kiln_operand_array(x)};
  kiln_operand out[1] = {kiln_operand_new(&r)};
  CHECK_STATUS(kiln_ufunc_call(u, 1, in, 1, out, NULL), KILN_ERROR_COMPILE);
  CHECK(r == NULL);
  CHECK_ERROR_CONTAINS("ufunc 'broken', signature 1 \"float64(float64 x)\"");
  CHECK_ERROR_CONTAINS("undefined_name");       /* the log or the source */
  CHECK_ERROR_CONTAINS("| KILN_DEVICE double"); /* the numbered source */
  /* a working ufunc refcount survives a retain/release pair */
  CHECK(kiln_ufunc_retain(u) == u);
  kiln_ufunc_release(u);
  kiln_array_release(x);
  kiln_ufunc_release(u);
}

static void test_many_inputs_and_scalars(kiln_context *ctx) {
  /* nine scalar inputs is one more than a launch carries by value */
  static const char *const sigs[] = {
      "float64(float64 a, float64 b, float64 c, float64 d, float64 e, float64 f, float64 g, "
      "float64 h, float64 i, float64 x)"};
  kiln_ufunc *u = NULL;
  REQUIRE_OK(kiln_ufunc_create(ctx, "poly", 1, sigs,
                               "return (((((((a * x + b) * x + c) * x + d) * x + e) * x + f) * x "
                               "+ g) * x + h) * x + i;",
                               NULL, &u));
  int64_t n = 33;
  kiln_array *x = random_array(ctx, KILN_FLOAT64, 1, &n, -1, 1), *r = NULL;
  kiln_operand in[10];
  for (int k = 0; k < 9; k++) in[k] = kiln_operand_int(k + 1);
  in[9] = kiln_operand_array(x);
  kiln_operand out[1] = {kiln_operand_new(&r)};
  CHECK_STATUS(kiln_ufunc_call(u, 10, in, 1, out, NULL), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("more than 8 scalar inputs");
  /* with one coefficient as a 0-d array it runs */
  double one = 1;
  kiln_array *c0 = NULL;
  REQUIRE_OK(kiln_array_from_host(ctx, KILN_FLOAT64, 0, NULL, NULL, &one, &c0));
  in[0] = kiln_operand_array(c0);
  CHECK_OK(kiln_ufunc_call(u, 10, in, 1, out, NULL));
  if (r) {
    double h[33], g[33];
    CHECK_OK(kiln_array_to_host(x, h, NULL));
    CHECK_OK(kiln_array_to_host(r, g, NULL));
    for (int i = 0; i < 33; i++) {
      double p = 0;
      for (int k = 1; k <= 9; k++) p = p * h[i] + k;
      CHECK_CLOSE(g[i], p, 1e-13, 1e-13);
    }
  }
  kiln_array_release(c0);
  kiln_array_release(x);
  kiln_array_release(r);
  kiln_ufunc_release(u);
}

static const harness_test tests[] = {
    {"gaussian_sizes", test_gaussian_sizes},
    {"large", test_large},
    {"dispatch_and_scalars", test_dispatch_and_scalars},
    {"no_signature_matches", test_no_signature_matches},
    {"broadcasting", test_broadcasting},
    {"random_strided_views", test_random_strided_views},
    {"several_outputs_on_columns", test_several_outputs_on_columns},
    {"out_arrays", test_out_arrays},
    {"stream", test_stream},
    {"threads", test_threads},
    {"bad_calls", test_bad_calls},
    {"bad_creation", test_bad_creation},
    {"body_fails_to_compile", test_body_fails_to_compile},
    {"many_inputs_and_scalars", test_many_inputs_and_scalars},
    {0},
};

int main(int argc, char **argv) { return harness_main(argc, argv, tests); }
