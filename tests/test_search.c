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
    for (int64_t i = 0; i < n; i++) perm[i] = i;
    for (int64_t i = n - 1; i > 0; i--) {
      int64_t j = (int64_t)(harness_rand_u64() % (uint64_t)(i + 1)), x = perm[i];
      perm[i] = perm[j];
      perm[j] = x;
    }
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

static const harness_test tests[] = {
    {"searchsorted_dtypes", test_searchsorted_dtypes},
    {"searchsorted_sorter", test_searchsorted_sorter},
    {"searchsorted_promotion", test_searchsorted_promotion},
    {"searchsorted_bad_input", test_searchsorted_bad_input},
    {0}};

int main(int argc, char **argv) { return harness_main(argc, argv, tests); }
