/* Conformance: kiln_searchsorted, kiln_bincount and kiln_histogram
 * (kiln/search.h) against host references (a count of the smaller
 * elements in NumPy's sort order; plain C counting) and against NumPy
 * itself for histogram's edge rules: every dtype, sizes 0, 1, primes and
 * more than a work-group, ties, NaNs, strided and reversed views, host
 * and device operands, given outputs, a stream, and bad input. */
#include <unistd.h>

#include "search_testing.h"

/* ---- searchsorted ----------------------------------------------------------- */

static kiln_dtype sort_dtype;
static int compare_elements(const void *a, const void *b) {
  double ar, ai, br, bi;
  st_get(a, sort_dtype, 0, &ar, &ai);
  st_get(b, sort_dtype, 0, &br, &bi);
  return st_less(ar, ai, br, bi) ? -1 : st_less(br, bi, ar, ai) ? 1 : 0;
}

/* Random elements in [-20, 20) (ties), NaNs among floats, sorted when
 * `sorted` (NumPy's order). */
static void *random_elements(kiln_dtype dtype, int64_t n, int sorted) {
  size_t item = kiln_dtype_size(dtype);
  char *h = malloc((size_t)n * item + 16);
  for (int64_t i = 0; i < n; i++) {
    double re = floor(harness_rand_uniform(-20, 20)), im = floor(harness_rand_uniform(-3, 3));
    if (dtype == KILN_BOOL || (dtype >= KILN_UINT8 && dtype <= KILN_UINT64 && dtype % 2 == 0))
      re = fabs(re);
    if (dtype == KILN_BOOL) re = re > 10;
    if ((kiln_dtype_is_float(dtype) || kiln_dtype_is_complex(dtype)) && harness_rand_u64() % 9 == 0)
      re = NAN;
    if (kiln_dtype_is_complex(dtype) && harness_rand_u64() % 11 == 0) im = NAN;
    if (kiln_dtype_is_float(dtype) && harness_rand_u64() % 3 == 0) re += 0.5;
    st_set(h, dtype, i, re, im);
  }
  if (sorted) {
    sort_dtype = dtype;
    qsort(h, (size_t)n, item, compare_elements);
  }
  return h;
}

/* Insertion point by counting: left = #{a < v}, right = #{!(v < a)}. */
static int64_t reference_insertion(const void *a, kiln_dtype da, int64_t n, double vr, double vi,
                                   int right) {
  int64_t count = 0;
  for (int64_t i = 0; i < n; i++) {
    double ar, ai;
    st_get(a, da, i, &ar, &ai);
    count += right ? !st_less(vr, vi, ar, ai) : st_less(ar, ai, vr, vi);
  }
  return count;
}

static void check_insertions(const void *a, kiln_dtype da, int64_t n, const void *v,
                             kiln_dtype dv, int64_t m, int right, const int64_t *got,
                             const char *what) {
  int bad = 0;
  for (int64_t i = 0; i < m && bad < 3; i++) {
    double vr, vi;
    st_get(v, dv, i, &vr, &vi);
    int64_t want = reference_insertion(a, da, n, vr, vi, right);
    if (got[i] != want) {
      bad++;
      harness_fail(__FILE__, __LINE__, "%s %s n=%lld: value %lld (%g%+gj) at %lld, expected %lld",
                   what, kiln_dtype_name(da), (long long)n, (long long)i, vr, vi,
                   (long long)got[i], (long long)want);
    }
  }
}

static void test_searchsorted_dtypes(kiln_context *ctx) {
  const int64_t sizes[] = {0, 1, 7, 131, 1031};
  for (int t = 0; t < NDTYPES; t++) {
    kiln_dtype d = all_dtypes[t];
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
      int64_t n = sizes[s], m = 263;
      void *a = random_elements(d, n, 1), *v = random_elements(d, m, 0);
      int64_t *got = malloc((size_t)m * sizeof *got);
      for (int right = 0; right < 2; right++) {
        int layout = (int)((s + (size_t)right) % 3);
        kiln_array *av = st_view_1d(ctx, a, d, n, layout), *out = NULL;
        CHECK(av != NULL);
        if (!av) continue;
        /* device sorted array (a view), host values, new device output */
        CHECK_OK(kiln_searchsorted(ctx, kiln_operand_array(av),
                                   kiln_operand_host(v, d, 1, &m, NULL), NULL,
                                   right ? KILN_SIDE_RIGHT : KILN_SIDE_LEFT,
                                   kiln_operand_new(&out), NULL));
        if (out) {
          CHECK(kiln_array_dtype(out) == KILN_INT64 && kiln_array_size(out) == m);
          CHECK_OK(kiln_array_to_host(out, got, NULL));
          check_insertions(a, d, n, v, d, m, right, got, right ? "right" : "left");
        }
        kiln_array_release(out);
        kiln_array_release(av);
      }
      free(got);
      free(a);
      free(v);
    }
  }
}

/* The sorted array given unsorted with an argsort as sorter. */
static void test_searchsorted_sorter(kiln_context *ctx) {
  kiln_dtype dtypes[] = {KILN_INT32, KILN_FLOAT64, KILN_COMPLEX64, KILN_UINT8};
  for (int t = 0; t < 4; t++) {
    kiln_dtype d = dtypes[t];
    size_t item = kiln_dtype_size(d);
    int64_t n = 509, m = 101;
    char *a = random_elements(d, n, 1), *v = random_elements(d, m, 0);
    /* shuffled[perm[k]] = a[k], so sorter = perm */
    int64_t *perm = malloc((size_t)n * sizeof *perm);
    harness_permutation(perm, n);
    char *shuffled = malloc((size_t)n * item);
    for (int64_t k = 0; k < n; k++) memcpy(shuffled + perm[k] * (int64_t)item, a + k * (int64_t)item, item);
    int32_t *sorter32 = malloc((size_t)n * sizeof *sorter32);
    for (int64_t k = 0; k < n; k++) sorter32[k] = (int32_t)perm[k];
    int64_t got[101];
    kiln_operand sorter = kiln_operand_host(sorter32, KILN_INT32, 1, &n, NULL);
    CHECK_OK(kiln_searchsorted(ctx, kiln_operand_host(shuffled, d, 1, &n, NULL),
                               kiln_operand_host(v, d, 1, &m, NULL), &sorter, KILN_SIDE_RIGHT,
                               kiln_operand_host_output(got, KILN_INT64, 1, &m, NULL), NULL));
    check_insertions(a, d, n, v, d, m, 1, got, "sorter right");
    free(sorter32);
    free(shuffled);
    free(perm);
    free(a);
    free(v);
  }
}

/* Sorted and values of different dtypes compare in NumPy's promoted
 * dtype: fractional float64 values in int32, int64 beside uint64, a weak
 * float scalar beside integers; a 2-D values view into a strided output
 * on a stream. */
static void test_searchsorted_promotion(kiln_context *ctx) {
  int64_t n = 97, m = 50;
  int32_t a[97];
  for (int i = 0; i < n; i++) a[i] = (int32_t)(i * 3 - 100);
  double v[50];
  for (int i = 0; i < m; i++) v[i] = harness_rand_uniform(-120, 200);
  v[0] = -1.0; /* a[33] exactly: ties */
  v[1] = 2.0;
  int64_t got[50];
  for (int right = 0; right < 2; right++) {
    CHECK_OK(kiln_searchsorted(ctx, kiln_operand_host(a, KILN_INT32, 1, &n, NULL),
                               kiln_operand_host(v, KILN_FLOAT64, 1, &m, NULL), NULL,
                               (kiln_side)right,
                               kiln_operand_host_output(got, KILN_INT64, 1, &m, NULL), NULL));
    check_insertions(a, KILN_INT32, n, v, KILN_FLOAT64, m, right, got, "int32 in float64");
  }
  /* a weak float scalar: a 0-d result */
  kiln_array *out = NULL;
  CHECK_OK(kiln_searchsorted(ctx, kiln_operand_host(a, KILN_INT32, 1, &n, NULL),
                             kiln_operand_float(-0.5), NULL, KILN_SIDE_LEFT,
                             kiln_operand_new(&out), NULL));
  if (out) {
    int64_t one = -1;
    CHECK(kiln_array_ndim(out) == 0);
    CHECK_OK(kiln_array_to_host(out, &one, NULL));
    CHECK(one == 34); /* a[33] = -1 < -0.5 < a[34] = 2 */
    kiln_array_release(out);
  }
  /* uint64 beside int64: float64 */
  uint64_t au[4] = {0, 5, UINT64_C(1) << 40, UINT64_C(1) << 62};
  int64_t vi[3] = {-3, 6, (int64_t)1 << 41}, n4 = 4, n3 = 3, gi[3];
  CHECK_OK(kiln_searchsorted(ctx, kiln_operand_host(au, KILN_UINT64, 1, &n4, NULL),
                             kiln_operand_host(vi, KILN_INT64, 1, &n3, NULL), NULL,
                             KILN_SIDE_LEFT,
                             kiln_operand_host_output(gi, KILN_INT64, 1, &n3, NULL), NULL));
  CHECK(gi[0] == 0 && gi[1] == 2 && gi[2] == 3);
  /* values as a transposed 2-D view, output a strided device view, stream */
  kiln_stream *stream = NULL;
  REQUIRE_OK(kiln_stream_create(ctx, &stream));
  int64_t shape[2] = {5, 10}, oshape[2] = {10, 10};
  kiln_array *vals = NULL, *vt = NULL, *big = NULL, *ov = NULL;
  CHECK_OK(kiln_array_from_host(ctx, KILN_FLOAT64, 2, shape, NULL, v, &vals));
  CHECK_OK(kiln_array_transpose(vals, NULL, &vt));
  CHECK_OK(kiln_array_zeros(ctx, KILN_INT64, 2, oshape, &big));
  /* the fill is on the default stream; the call below is on another */
  CHECK_OK(kiln_context_synchronize(ctx));
  kiln_slice sl[2] = {{KILN_NONE, KILN_NONE, 1}, {KILN_NONE, KILN_NONE, -2}};
  CHECK_OK(kiln_array_slice(big, 2, sl, &ov));
  if (vt && ov) {
    CHECK_OK(kiln_searchsorted(ctx, kiln_operand_host(a, KILN_INT32, 1, &n, NULL),
                               kiln_operand_array(vt), NULL, KILN_SIDE_RIGHT,
                               kiln_operand_array(ov), stream));
    CHECK_OK(kiln_stream_synchronize(ctx, stream));
    int64_t all[100];
    CHECK_OK(kiln_array_to_host(big, all, NULL));
    for (int i = 0; i < 10; i++)
      for (int j = 0; j < 5; j++) {
        /* ov[i][j] = big[i][9 - 2j] = insertion of vt[i][j] = v[j * 10 + i] */
        int64_t want = reference_insertion(a, KILN_INT32, n, v[j * 10 + i], 0, 1);
        CHECK_MSG(all[i * 10 + 9 - 2 * j] == want, "view [%d][%d]: %lld, expected %lld", i, j,
                  (long long)all[i * 10 + 9 - 2 * j], (long long)want);
        CHECK(all[i * 10 + 8 - 2 * j] == 0);
      }
  }
  kiln_array_release(ov);
  kiln_array_release(big);
  kiln_array_release(vt);
  kiln_array_release(vals);
  kiln_stream_release(stream);
}

static void test_searchsorted_bad_input(kiln_context *ctx) {
  int64_t shape2[2] = {2, 3}, n6 = 6, n5 = 5, n3 = 3;
  float a[6] = {1, 2, 3, 4, 5, 6};
  int64_t sorter_bad[6] = {0, 1, 2, 3, 4, 6}, sorter_ok[6] = {0, 1, 2, 3, 4, 5};
  float sorter_float[6] = {0, 1, 2, 3, 4, 5};
  int64_t got[6];
  kiln_operand v = kiln_operand_host(a, KILN_FLOAT32, 1, &n3, NULL);
  kiln_operand out = kiln_operand_host_output(got, KILN_INT64, 1, &n3, NULL);
  CHECK_STATUS(kiln_searchsorted(ctx, kiln_operand_host(a, KILN_FLOAT32, 2, shape2, NULL), v,
                                 NULL, KILN_SIDE_LEFT, out, NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("1-D");
  kiln_operand sorted = kiln_operand_host(a, KILN_FLOAT32, 1, &n6, NULL);
  kiln_operand s = kiln_operand_host(sorter_bad, KILN_INT64, 1, &n6, NULL);
  CHECK_STATUS(kiln_searchsorted(ctx, sorted, v, &s, KILN_SIDE_LEFT, out, NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("sorter holds 6");
  s = kiln_operand_host(sorter_ok, KILN_INT64, 1, &n5, NULL);
  CHECK_STATUS(kiln_searchsorted(ctx, sorted, v, &s, KILN_SIDE_LEFT, out, NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("sorter");
  s = kiln_operand_host(sorter_float, KILN_FLOAT32, 1, &n6, NULL);
  CHECK_STATUS(kiln_searchsorted(ctx, sorted, v, &s, KILN_SIDE_LEFT, out, NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("sorter's values are float32");
  CHECK_STATUS(kiln_searchsorted(ctx, sorted, v, NULL, (kiln_side)7, out, NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  kiln_operand short_out = kiln_operand_host_output(got, KILN_INT64, 1, &n5, NULL);
  CHECK_STATUS(kiln_searchsorted(ctx, sorted, v, NULL, KILN_SIDE_LEFT, short_out, NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("shape");
  CHECK_STATUS(kiln_searchsorted(ctx, kiln_operand_int(3), v, NULL, KILN_SIDE_LEFT, out, NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  kiln_operand bool_out = kiln_operand_host_output(got, KILN_BOOL, 1, &n3, NULL);
  CHECK_STATUS(kiln_searchsorted(ctx, sorted, v, NULL, KILN_SIDE_LEFT, bool_out, NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_searchsorted(NULL, sorted, v, NULL, KILN_SIDE_LEFT, out, NULL),
               KILN_ERROR_INVALID_ARGUMENT);
}

/* ---- bincount ------------------------------------------------------------------ */

static void test_bincount_dtypes(kiln_context *ctx) {
  const kiln_dtype dtypes[] = {KILN_BOOL,  KILN_INT8,   KILN_UINT8, KILN_INT16,
                               KILN_UINT16, KILN_INT32, KILN_UINT32, KILN_INT64};
  const int64_t sizes[] = {0, 1, 13, 1031, 100003};
  for (size_t t = 0; t < sizeof dtypes / sizeof dtypes[0]; t++)
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
      /* a kernel per dtype, bins in local or global memory, and weights:
       * under KILN_TEST_SAMPLE a sample of the (dtype, size) pairs */
      if (!harness_case_sampled(t + s)) continue;
      kiln_dtype d = dtypes[t];
      int64_t n = sizes[s];
      /* small values (the bins fit local memory) or, from 16 bits, up to
       * 6000 (they do not: global atomics) */
      int64_t top = d == KILN_BOOL ? 2 : (s % 2 && kiln_dtype_size(d) >= 2) ? 6000 : 100;
      size_t item = kiln_dtype_size(d);
      char *x = malloc((size_t)n * item + 1);
      double *w = malloc((size_t)n * sizeof *w + 1);
      int64_t max = -1;
      for (int64_t i = 0; i < n; i++) {
        int64_t v = (int64_t)(harness_rand_u64() % (uint64_t)top);
        st_set(x, d, i, (double)v, 0);
        w[i] = harness_rand_uniform(-1, 1);
        if (v > max) max = v;
      }
      int64_t minlength = s == 2 ? 500 : 0;
      int64_t want_length = max + 1 > minlength ? max + 1 : minlength;
      int64_t *want = calloc((size_t)want_length + 1, sizeof *want);
      double *want_w = calloc((size_t)want_length + 1, sizeof *want_w);
      for (int64_t i = 0; i < n; i++) {
        int64_t v = (int64_t)harness_get(x, d, i);
        want[v]++;
        want_w[v] += w[i];
      }
      int64_t length = -1;
      kiln_array *out = NULL;
      kiln_array *xv = st_view_1d(ctx, x, d, n, (int)(s % 3));
      CHECK(xv != NULL);
      CHECK_OK(kiln_bincount(ctx, kiln_operand_array(xv), NULL, minlength,
                             kiln_operand_new(&out), &length, NULL));
      CHECK_MSG(length == want_length, "%s n=%lld: length %lld, expected %lld",
                kiln_dtype_name(d), (long long)n, (long long)length, (long long)want_length);
      if (out && length == want_length) {
        int64_t *got = malloc((size_t)length * sizeof *got + 1);
        CHECK(kiln_array_dtype(out) == KILN_INT64 && kiln_array_size(out) == length);
        CHECK_OK(kiln_array_to_host(out, got, NULL));
        for (int64_t b = 0; b < length; b++)
          if (got[b] != want[b]) {
            harness_fail(__FILE__, __LINE__, "%s n=%lld: bin %lld holds %lld, expected %lld",
                         kiln_dtype_name(d), (long long)n, (long long)b, (long long)got[b],
                         (long long)want[b]);
            break;
          }
        free(got);
      }
      kiln_array_release(out);
      /* float64 weights, host x, host output longer than needed */
      double *got_w = malloc((size_t)(want_length + 3) * sizeof *got_w);
      for (int64_t b = 0; b < want_length + 3; b++) got_w[b] = -7;
      int64_t cap = want_length + 3;
      kiln_operand weights = kiln_operand_host(w, KILN_FLOAT64, 1, &n, NULL);
      CHECK_OK(kiln_bincount(ctx, kiln_operand_host(x, d, 1, &n, NULL), &weights, minlength,
                             kiln_operand_host_output(got_w, KILN_FLOAT64, 1, &cap, NULL),
                             &length, NULL));
      for (int64_t b = 0; b < want_length; b++)
        CHECK_CLOSE(got_w[b], want_w[b], 1e-12, 1e-12);
      CHECK(got_w[want_length] == -7 && got_w[want_length + 2] == -7);
      free(got_w);
      kiln_array_release(xv);
      free(want);
      free(want_w);
      free(w);
      free(x);
    }
}

/* float32 and int16 weights (cast to float64 as NumPy), a stream, and a
 * given device output of a wider dtype. */
static void test_bincount_weights(kiln_context *ctx) {
  int64_t n = 4099;
  int32_t *x = malloc((size_t)n * sizeof *x);
  float *wf = malloc((size_t)n * sizeof *wf);
  int16_t *wi = malloc((size_t)n * sizeof *wi);
  double want_f[37] = {0}, want_i[37] = {0};
  for (int64_t i = 0; i < n; i++) {
    x[i] = (int32_t)(harness_rand_u64() % 37);
    wf[i] = (float)harness_rand_uniform(0, 3);
    wi[i] = (int16_t)(harness_rand_u64() % 200) - 100;
    want_f[x[i]] += (double)wf[i];
    want_i[x[i]] += wi[i];
  }
  kiln_stream *stream = NULL;
  REQUIRE_OK(kiln_stream_create(ctx, &stream));
  int64_t length = 0, n37 = 37;
  kiln_array *out = NULL;
  REQUIRE_OK(kiln_array_zeros(ctx, KILN_FLOAT64, 1, &n37, &out));
  /* the fill is on the default stream; the call below is on another */
  CHECK_OK(kiln_context_synchronize(ctx));
  kiln_operand w = kiln_operand_host(wf, KILN_FLOAT32, 1, &n, NULL);
  CHECK_OK(kiln_bincount(ctx, kiln_operand_host(x, KILN_INT32, 1, &n, NULL), &w, 0,
                         kiln_operand_array(out), &length, stream));
  CHECK_OK(kiln_stream_synchronize(ctx, stream));
  double got[37];
  CHECK(length == 37);
  CHECK_OK(kiln_array_to_host(out, got, NULL));
  for (int b = 0; b < 37; b++) CHECK_CLOSE(got[b], want_f[b], 1e-12, 1e-9);
  w = kiln_operand_host(wi, KILN_INT16, 1, &n, NULL);
  CHECK_OK(kiln_bincount(ctx, kiln_operand_host(x, KILN_INT32, 1, &n, NULL), &w, 0,
                         kiln_operand_host_output(got, KILN_FLOAT64, 1, &n37, NULL), &length,
                         NULL));
  for (int b = 0; b < 37; b++) CHECK(got[b] == want_i[b]);
  kiln_array_release(out);
  kiln_stream_release(stream);
  free(x);
  free(wf);
  free(wi);
}

static void test_bincount_bad_input(kiln_context *ctx) {
  int64_t n = 5, n2[2] = {2, 2}, n4 = 4, length = 0, got[8];
  int32_t x[5] = {1, 2, -1, 4, 0};
  int32_t ok[5] = {1, 2, 3, 4, 0};
  float xf[5] = {1, 2, 3, 4, 0};
  uint64_t xu[5] = {1, 2, 3, 4, 0};
  double complex_w[10] = {0};
  kiln_operand out = kiln_operand_host_output(got, KILN_INT64, 1, &n, NULL);
  CHECK_STATUS(kiln_bincount(ctx, kiln_operand_host(x, KILN_INT32, 1, &n, NULL), NULL, 0, out,
                             &length, NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("no negative elements");
  CHECK_STATUS(kiln_bincount(ctx, kiln_operand_host(xf, KILN_FLOAT32, 1, &n, NULL), NULL, 0, out,
                             &length, NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("float32");
  CHECK_STATUS(kiln_bincount(ctx, kiln_operand_host(xu, KILN_UINT64, 1, &n, NULL), NULL, 0, out,
                             &length, NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_bincount(ctx, kiln_operand_host(ok, KILN_INT32, 2, n2, NULL), NULL, 0, out,
                             &length, NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("1-D");
  CHECK_STATUS(kiln_bincount(ctx, kiln_operand_host(ok, KILN_INT32, 1, &n, NULL), NULL, -1, out,
                             &length, NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("minlength");
  kiln_operand w = kiln_operand_host(xf, KILN_FLOAT32, 1, &n4, NULL);
  CHECK_STATUS(kiln_bincount(ctx, kiln_operand_host(ok, KILN_INT32, 1, &n, NULL), &w, 0, out,
                             &length, NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("weights");
  w = kiln_operand_host(complex_w, KILN_COMPLEX128, 1, &n, NULL);
  CHECK_STATUS(kiln_bincount(ctx, kiln_operand_host(ok, KILN_INT32, 1, &n, NULL), &w, 0, out,
                             &length, NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("complex");
  kiln_operand short_out = kiln_operand_host_output(got, KILN_INT64, 1, &n4, NULL);
  CHECK_STATUS(kiln_bincount(ctx, kiln_operand_host(ok, KILN_INT32, 1, &n, NULL), NULL, 0,
                             short_out, &length, NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("at least");
  CHECK_STATUS(kiln_bincount(ctx, kiln_operand_host(ok, KILN_INT32, 1, &n, NULL), NULL, 0, out,
                             NULL, NULL),
               KILN_ERROR_INVALID_ARGUMENT);
}

/* ---- histogram ------------------------------------------------------------------- */

/* Random data of a real dtype: values on a grid of tenths (many exactly
 * on or beside equal-width edges), a few NaNs and infinities among floats
 * when `specials`. */
static void *histogram_data(kiln_dtype d, int64_t n, int specials) {
  char *h = malloc((size_t)n * kiln_dtype_size(d) + 1);
  for (int64_t i = 0; i < n; i++) {
    double v = floor(harness_rand_uniform(-50, 150));
    if (kiln_dtype_is_float(d)) v = v / 10 + (harness_rand_u64() % 4 == 0 ? 1e-7 : 0);
    if (d == KILN_BOOL) v = (double)(harness_rand_u64() % 2);
    else if (!kiln_dtype_is_float(d) && (d == KILN_UINT8 || d == KILN_UINT16 || d == KILN_UINT32 ||
                                         d == KILN_UINT64))
      v = fabs(v);
    if (specials && kiln_dtype_is_float(d) && i % 17 == 3) v = i % 2 ? NAN : INFINITY;
    st_set(h, d, i, v, 0);
  }
  return h;
}

/* Runs kiln_histogram and NumPy on the same operands and compares counts
 * (exactly; weighted sums to 1e-12) and edges (bits). */
static void compare_histogram(kiln_context *ctx, kiln_dtype d, int64_t n, const void *a,
                              const kiln_histogram_options *o, const void *edges,
                              kiln_dtype edges_dtype, int64_t nedges, const void *weights,
                              kiln_dtype weights_dtype, const char *label) {
  int64_t nbins = o->edges ? (nedges > 1 ? nedges - 1 : 0) : o->bins;
  kiln_dtype hist_dtype = weights ? weights_dtype : KILN_INT64;
  size_t hist_item = kiln_dtype_size(hist_dtype);
  kiln_array *hist = NULL, *bin_edges = NULL;
  kiln_operand edges_out = kiln_operand_new(&bin_edges);
  kiln_histogram_options with = *o;
  kiln_operand weights_operand = kiln_operand_host(weights, weights_dtype, 1, &n, NULL);
  if (weights) with.weights = &weights_operand;
  CHECK_OK(kiln_histogram(ctx, kiln_operand_host(a, d, 1, &n, NULL), &with,
                          kiln_operand_new(&hist), &edges_out, NULL));
  if (!hist || !bin_edges) return;
  char args[1024];
  int at = snprintf(args, sizeof args, "histogram --a %s --dtype %s",
                    st_write(0, a, (size_t)n * kiln_dtype_size(d)), kiln_dtype_name(d));
  if (o->edges)
    at += snprintf(args + at, sizeof args - (size_t)at, " --edges %s --edges-dtype %s",
                   st_write(1, edges, (size_t)nedges * kiln_dtype_size(edges_dtype)),
                   kiln_dtype_name(edges_dtype));
  else
    at += snprintf(args + at, sizeof args - (size_t)at, " --bins %lld", (long long)o->bins);
  if (o->has_range)
    at += snprintf(args + at, sizeof args - (size_t)at, " --range %.17g %.17g", o->range_min,
                   o->range_max);
  if (weights)
    snprintf(args + at, sizeof args - (size_t)at, " --weights %s --weights-dtype %s",
             st_write(2, weights, (size_t)n * kiln_dtype_size(weights_dtype)),
             kiln_dtype_name(weights_dtype));
  size_t edges_bytes = (size_t)kiln_array_nbytes(bin_edges);
  size_t want_bytes = (size_t)nbins * hist_item + edges_bytes, got_bytes = 0;
  char *want = malloc(want_bytes + 64), *got = malloc(want_bytes + 64);
  CHECK(kiln_array_size(hist) == nbins && kiln_array_dtype(hist) == hist_dtype);
  CHECK_OK(kiln_array_to_host(hist, got, NULL));
  CHECK_OK(kiln_array_to_host(bin_edges, got + (size_t)nbins * hist_item, NULL));
  if (st_run_numpy(args, want, want_bytes + 64, &got_bytes) == 0) {
    CHECK_MSG(got_bytes == want_bytes, "%s %s: NumPy gave %zu bytes, kiln %zu (edges %s)", label,
              kiln_dtype_name(d), got_bytes, want_bytes, kiln_dtype_name(kiln_array_dtype(bin_edges)));
    if (got_bytes == want_bytes) {
      for (int64_t b = 0; b < nbins; b++) {
        double g = harness_get(got, hist_dtype, b), w = harness_get(want, hist_dtype, b);
        int same = weights && kiln_dtype_is_float(hist_dtype)
                       ? fabs(g - w) <= 1e-12 * fabs(w) + 1e-9
                       : g == w;
        if (!same) {
          harness_fail(__FILE__, __LINE__, "%s %s n=%lld: bin %lld holds %.17g, NumPy %.17g",
                       label, kiln_dtype_name(d), (long long)n, (long long)b, g, w);
          break;
        }
      }
      CHECK_MSG(memcmp(got + (size_t)nbins * hist_item, want + (size_t)nbins * hist_item,
                       edges_bytes) == 0,
                "%s %s: the edges differ from NumPy's", label, kiln_dtype_name(d));
    }
  }
  free(want);
  free(got);
  kiln_array_release(hist);
  kiln_array_release(bin_edges);
}

static void test_histogram_uniform(kiln_context *ctx) {
  if (!st_numpy()) {
    harness_skip("needs NumPy");
    return;
  }
  const kiln_dtype dtypes[] = {KILN_BOOL,  KILN_INT8,  KILN_UINT8,  KILN_INT16,   KILN_UINT16,
                               KILN_INT32, KILN_UINT32, KILN_INT64, KILN_UINT64, KILN_FLOAT16,
                               KILN_FLOAT32, KILN_FLOAT64};
  const int64_t bins[] = {1, 7, 10, 256};
  for (size_t t = 0; t < sizeof dtypes / sizeof dtypes[0]; t++) {
    kiln_dtype d = dtypes[t];
    int64_t n = t % 3 == 0 ? 1031 : 4099;
    void *a = histogram_data(d, n, 0);
    for (int r = 0; r < 3; r++) {
      kiln_histogram_options o = {0};
      o.bins = bins[(t + (size_t)r) % 4];
      if (r == 1) { /* narrower than the data: some values out */
        o.has_range = 1;
        o.range_min = kiln_dtype_is_float(d) ? -1.3 : 3;
        o.range_max = kiln_dtype_is_float(d) ? 7.7 : 90;
      } else if (r == 2) {
        o.has_range = 1;
        o.range_min = o.range_max = kiln_dtype_is_float(d) ? 0.1 : 7;
      }
      compare_histogram(ctx, d, n, a, &o, NULL, KILN_DTYPE_COUNT, 0, NULL, KILN_DTYPE_COUNT,
                        "uniform");
    }
    free(a);
  }
  /* a constant input (min == max), empty input, one element, float32
   * weights and int32 weights */
  float c[5] = {2.5f, 2.5f, 2.5f, 2.5f, 2.5f};
  kiln_histogram_options o = {0};
  o.bins = 4;
  compare_histogram(ctx, KILN_FLOAT32, 5, c, &o, NULL, KILN_DTYPE_COUNT, 0, NULL, KILN_DTYPE_COUNT,
                    "constant");
  compare_histogram(ctx, KILN_FLOAT64, 0, c, &o, NULL, KILN_DTYPE_COUNT, 0, NULL, KILN_DTYPE_COUNT,
                    "empty");
  int64_t i1[1] = {-3};
  compare_histogram(ctx, KILN_INT64, 1, i1, &o, NULL, KILN_DTYPE_COUNT, 0, NULL, KILN_DTYPE_COUNT,
                    "one");
  int64_t n = 2003;
  double *a = histogram_data(KILN_FLOAT64, n, 0);
  float *wf = malloc((size_t)n * sizeof *wf);
  int32_t *wi = malloc((size_t)n * sizeof *wi);
  for (int64_t i = 0; i < n; i++) {
    wf[i] = (float)harness_rand_uniform(-1, 2);
    wi[i] = (int32_t)(harness_rand_u64() % 9);
  }
  o.bins = 33;
  compare_histogram(ctx, KILN_FLOAT64, n, a, &o, NULL, KILN_DTYPE_COUNT, 0, wf, KILN_FLOAT32,
                    "float32 weights");
  o.has_range = 1;
  o.range_min = 0;
  o.range_max = 5;
  compare_histogram(ctx, KILN_FLOAT64, n, a, &o, NULL, KILN_DTYPE_COUNT, 0, wi, KILN_INT32,
                    "int32 weights");
  free(a);
  free(wf);
  free(wi);
}

static void test_histogram_edges(kiln_context *ctx) {
  if (!st_numpy()) {
    harness_skip("needs NumPy");
    return;
  }
  /* edges with repeats, data with NaNs, infinities and values on edges */
  double e64[9] = {-2, -0.5, 0, 0.5, 0.5, 1, 3.25, 9, 9};
  int32_t e32[4] = {-10, 0, 0, 40};
  const kiln_dtype dtypes[] = {KILN_FLOAT64, KILN_FLOAT32, KILN_FLOAT16, KILN_INT32,
                               KILN_UINT8, KILN_INT64, KILN_BOOL};
  for (size_t t = 0; t < sizeof dtypes / sizeof dtypes[0]; t++) {
    kiln_dtype d = dtypes[t];
    int64_t n = 3001;
    void *a = histogram_data(d, n, 1);
    kiln_histogram_options o = {0};
    kiln_operand edges = kiln_operand_host(e64, KILN_FLOAT64, 1, &(int64_t){9}, NULL);
    o.edges = &edges;
    compare_histogram(ctx, d, n, a, &o, e64, KILN_FLOAT64, 9, NULL, KILN_DTYPE_COUNT,
                      "float64 edges");
    kiln_operand edges32 = kiln_operand_host(e32, KILN_INT32, 1, &(int64_t){4}, NULL);
    o.edges = &edges32;
    compare_histogram(ctx, d, n, a, &o, e32, KILN_INT32, 4, NULL, KILN_DTYPE_COUNT,
                      "int32 edges");
    free(a);
  }
  /* weights with edges; one edge (no bins) */
  int64_t n = 999;
  double *a = histogram_data(KILN_FLOAT64, n, 0);
  double *w = malloc((size_t)n * sizeof *w);
  for (int64_t i = 0; i < n; i++) w[i] = harness_rand_uniform(0, 1);
  kiln_histogram_options o = {0};
  kiln_operand edges = kiln_operand_host(e64, KILN_FLOAT64, 1, &(int64_t){9}, NULL);
  o.edges = &edges;
  compare_histogram(ctx, KILN_FLOAT64, n, a, &o, e64, KILN_FLOAT64, 9, w, KILN_FLOAT64,
                    "weighted edges");
  kiln_operand one = kiln_operand_host(e64, KILN_FLOAT64, 1, &(int64_t){1}, NULL);
  o.edges = &one;
  compare_histogram(ctx, KILN_FLOAT64, n, a, &o, e64, KILN_FLOAT64, 1, NULL, KILN_DTYPE_COUNT,
                    "one edge");
  free(a);
  free(w);
}

/* Views, given outputs and a stream, against a plain C count. */
static void test_histogram_views(kiln_context *ctx) {
  int64_t shape[2] = {37, 29}, n = 37 * 29, bins = 16, seventeen = 17;
  float *h = malloc((size_t)n * sizeof *h);
  for (int64_t i = 0; i < n; i++) h[i] = (float)(int)harness_rand_uniform(0, 16) + 0.25f;
  int64_t want[16] = {0};
  for (int64_t i = 0; i < n; i++) want[(int)h[i]]++;
  kiln_array *base = NULL, *t = NULL, *out = NULL, *out_view = NULL, *edges = NULL;
  REQUIRE_OK(kiln_array_from_host(ctx, KILN_FLOAT32, 2, shape, NULL, h, &base));
  REQUIRE_OK(kiln_array_transpose(base, NULL, &t));
  int64_t wide = 2 * bins;
  REQUIRE_OK(kiln_array_zeros(ctx, KILN_INT32, 1, &wide, &out));
  /* the fill is on the default stream; the call below is on another */
  CHECK_OK(kiln_context_synchronize(ctx));
  kiln_slice every_other = {KILN_NONE, KILN_NONE, -2};
  REQUIRE_OK(kiln_array_slice(out, 1, &every_other, &out_view));
  kiln_stream *stream = NULL;
  REQUIRE_OK(kiln_stream_create(ctx, &stream));
  kiln_histogram_options o = {0};
  o.bins = bins;
  o.has_range = 1;
  o.range_max = 16;
  double got_edges[17];
  kiln_operand edges_out = kiln_operand_host_output(got_edges, KILN_FLOAT64, 1, &seventeen, NULL);
  CHECK_OK(kiln_histogram(ctx, kiln_operand_array(t), &o, kiln_operand_array(out_view), &edges_out,
                          stream));
  CHECK_OK(kiln_stream_synchronize(ctx, stream));
  int32_t got[32];
  CHECK_OK(kiln_array_to_host(out, got, NULL));
  for (int b = 0; b < 16; b++) {
    CHECK_MSG(got[31 - 2 * b] == want[b], "bin %d: %d, expected %lld", b, got[31 - 2 * b],
              (long long)want[b]);
    CHECK(got[30 - 2 * b] == 0);
  }
  for (int k = 0; k <= 16; k++) CHECK(got_edges[k] == k);
  (void)edges;
  kiln_array_release(out_view);
  kiln_array_release(out);
  kiln_array_release(t);
  kiln_array_release(base);
  kiln_stream_release(stream);
  free(h);
}

static void test_histogram_bad_input(kiln_context *ctx) {
  int64_t n = 4, n3 = 3, got[8];
  double a[4] = {0, 1, 2, 3}, nan_a[4] = {0, NAN, 2, 3}, unsorted[3] = {0, 2, 1};
  double complex_a[8] = {0};
  kiln_operand in = kiln_operand_host(a, KILN_FLOAT64, 1, &n, NULL);
  kiln_operand out = kiln_operand_host_output(got, KILN_INT64, 1, &n, NULL);
  kiln_histogram_options o = {0};
  CHECK_STATUS(kiln_histogram(ctx, in, &o, out, NULL, NULL), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("bins must be positive");
  o.bins = -3;
  CHECK_STATUS(kiln_histogram(ctx, in, &o, out, NULL, NULL), KILN_ERROR_INVALID_ARGUMENT);
  o.bins = 4;
  CHECK_STATUS(kiln_histogram(ctx, kiln_operand_host(nan_a, KILN_FLOAT64, 1, &n, NULL), &o, out,
                              NULL, NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("not finite");
  o.has_range = 1;
  o.range_min = 2;
  o.range_max = 1;
  CHECK_STATUS(kiln_histogram(ctx, in, &o, out, NULL, NULL), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("max must be larger than min");
  o.range_max = INFINITY;
  CHECK_STATUS(kiln_histogram(ctx, in, &o, out, NULL, NULL), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("not finite");
  o.has_range = 0;
  kiln_operand edges = kiln_operand_host(unsorted, KILN_FLOAT64, 1, &n3, NULL);
  o.edges = &edges;
  CHECK_STATUS(kiln_histogram(ctx, in, &o, out, NULL, NULL), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("increase monotonically");
  o.edges = NULL;
  CHECK_STATUS(kiln_histogram(ctx, kiln_operand_host(complex_a, KILN_COMPLEX128, 1, &n, NULL), &o,
                              out, NULL, NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  kiln_operand w = kiln_operand_host(a, KILN_FLOAT64, 1, &n3, NULL);
  o.weights = &w;
  CHECK_STATUS(kiln_histogram(ctx, in, &o, out, NULL, NULL), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("same shape");
  o.weights = NULL;
  kiln_operand short_out = kiln_operand_host_output(got, KILN_INT64, 1, &n3, NULL);
  CHECK_STATUS(kiln_histogram(ctx, in, &o, short_out, NULL, NULL), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_histogram(ctx, in, NULL, out, NULL, NULL), KILN_ERROR_INVALID_ARGUMENT);
  o.bins = 1 << 20; /* more bins than float16 has values between 0 and 3 */
  uint16_t half[2] = {0x0000, 0x4200};
  int64_t two = 2;
  kiln_array *big = NULL;
  CHECK_STATUS(kiln_histogram(ctx, kiln_operand_host(half, KILN_FLOAT16, 1, &two, NULL), &o,
                              kiln_operand_new(&big), NULL, NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("too many bins");
  CHECK(big == NULL);
}

static const harness_test tests[] = {
    {"searchsorted_dtypes", test_searchsorted_dtypes},
    {"searchsorted_sorter", test_searchsorted_sorter},
    {"searchsorted_promotion", test_searchsorted_promotion},
    {"searchsorted_bad_input", test_searchsorted_bad_input},
    {"bincount_dtypes", test_bincount_dtypes},
    {"bincount_weights", test_bincount_weights},
    {"bincount_bad_input", test_bincount_bad_input},
    {"histogram_uniform", test_histogram_uniform},
    {"histogram_edges", test_histogram_edges},
    {"histogram_views", test_histogram_views},
    {"histogram_bad_input", test_histogram_bad_input},
    {0}};

int main(int argc, char **argv) { return harness_main(argc, argv, tests); }
