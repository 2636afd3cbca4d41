/* Conformance of the paths searching and counting take by size
 * (docs/searching.md): searchsorted with and without its work-group table
 * of evenly spaced elements (sorted arrays around 4x the table, values
 * around one table), and bincount / histogram with bin counts around the
 * work-group local copy's sizes (256 .. 8192 bins in local memory, more
 * straight to global memory), weights, minlength, empty input, host and
 * device operands; against plain C references (bisection in NumPy's sort
 * order, counting). */
#include "search_testing.h"

/* searchsorted's table entries for a dtype (core/sort/search.c: 8 KiB). */
static int64_t table_entries(kiln_dtype d) { return 8192 / (int64_t)kiln_dtype_size(d); }

static kiln_dtype sorted_dtype;
static int compare_elements(const void *a, const void *b) {
  double ar, ai, br, bi;
  st_get(a, sorted_dtype, 0, &ar, &ai);
  st_get(b, sorted_dtype, 0, &br, &bi);
  return st_less(ar, ai, br, bi) ? -1 : st_less(br, bi, ar, ai) ? 1 : 0;
}

/* n elements over about [-span, span) (ties where span < n), NaNs among
 * floats; sorted in NumPy's order when `sorted`. */
static void *elements(kiln_dtype d, int64_t n, double span, int sorted) {
  size_t item = kiln_dtype_size(d);
  char *h = malloc((size_t)n * item + 16);
  for (int64_t i = 0; i < n; i++) {
    double re = floor(harness_rand_uniform(-span, span)), im = floor(harness_rand_uniform(-2, 2));
    if (d == KILN_UINT8) re = fmod(fabs(re), 256);
    if (d == KILN_FLOAT16) re = fmod(re, 2000); /* exact in float16 */
    if ((kiln_dtype_is_float(d) || kiln_dtype_is_complex(d)) && harness_rand_u64() % 9 == 0)
      re = NAN;
    st_set(h, d, i, re, im);
  }
  if (sorted) {
    sorted_dtype = d;
    qsort(h, (size_t)n, item, compare_elements);
  }
  return h;
}

/* The insertion point of (vr, vi) in the sorted host a, by a plain
 * bisection in NumPy's order. */
static int64_t host_insertion(const void *a, kiln_dtype d, int64_t n, double vr, double vi,
                              int right) {
  int64_t lo = 0, hi = n;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    double mr, mi;
    st_get(a, d, mid, &mr, &mi);
    if (right ? !st_less(vr, vi, mr, mi) : st_less(mr, mi, vr, vi))
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

static void check_search(kiln_context *ctx, kiln_dtype d, int64_t n, int64_t m, int right,
                         int device_operands) {
  void *a = elements(d, n, (double)n / 3, 1), *v = elements(d, m, (double)n / 3 + 5, 0);
  int64_t *got = malloc((size_t)m * sizeof *got);
  kiln_array *av = NULL, *vv = NULL, *out = NULL;
  kiln_operand sorted = kiln_operand_host(a, d, 1, &n, NULL);
  kiln_operand values = kiln_operand_host(v, d, 1, &m, NULL);
  if (device_operands) {
    av = st_view_1d(ctx, a, d, n, 2); /* a reversed view */
    REQUIRE_OK(kiln_array_from_host(ctx, d, 1, &m, NULL, v, &vv));
    sorted = kiln_operand_array(av);
    values = kiln_operand_array(vv);
  }
  CHECK_OK(kiln_searchsorted(ctx, sorted, values, NULL, right ? KILN_SIDE_RIGHT : KILN_SIDE_LEFT,
                             device_operands ? kiln_operand_new(&out)
                                             : kiln_operand_host_output(got, KILN_INT64, 1, &m, NULL),
                             NULL));
  if (out) CHECK_OK(kiln_array_to_host(out, got, NULL));
  for (int64_t i = 0, bad = 0; i < m && bad < 3; i++) {
    double vr, vi;
    st_get(v, d, i, &vr, &vi);
    int64_t want = host_insertion(a, d, n, vr, vi, right);
    if (got[i] != want) {
      bad++;
      harness_fail(__FILE__, __LINE__, "%s n=%lld m=%lld %s: value %lld (%g) at %lld, expected %lld",
                   kiln_dtype_name(d), (long long)n, (long long)m, right ? "right" : "left",
                   (long long)i, vr, (long long)got[i], (long long)want);
    }
  }
  kiln_array_release(out);
  kiln_array_release(av);
  kiln_array_release(vv);
  free(got);
  free(a);
  free(v);
}

/* Sorted arrays just below, at and above 4 tables (where the table starts
 * to be used), values just below and above one table. */
static void test_searchsorted_table(kiln_context *ctx) {
  const kiln_dtype dtypes[] = {KILN_FLOAT32, KILN_INT64, KILN_COMPLEX128, KILN_FLOAT16,
                               KILN_UINT8};
  for (size_t t = 0; t < sizeof dtypes / sizeof dtypes[0]; t++) {
    kiln_dtype d = dtypes[t];
    int64_t table = table_entries(d);
    const int64_t lengths[] = {4 * table - 1, 4 * table, 5 * table + 3};
    for (int l = 0; l < 3; l++)
      for (int right = 0; right < 2; right++) {
        int64_t m = (l + right) % 2 ? table + 7 : table - 1;
        check_search(ctx, d, lengths[l], m, right, (l + right + (int)t) % 2);
      }
  }
}

/* A sorter with the table: a shuffled int32 array and its argsort. */
static void test_searchsorted_table_sorter(kiln_context *ctx) {
  int64_t n = 4 * table_entries(KILN_INT32) + 11, m = table_entries(KILN_INT32) + 1;
  int32_t *a = elements(KILN_INT32, n, (double)n, 1), *v = elements(KILN_INT32, m, (double)n, 0);
  int64_t *perm = malloc((size_t)n * sizeof *perm), *got = malloc((size_t)m * sizeof *got);
  int32_t *shuffled = malloc((size_t)n * sizeof *shuffled);
  harness_permutation(perm, n);
  for (int64_t k = 0; k < n; k++) shuffled[perm[k]] = a[k]; /* sorter = perm */
  kiln_operand sorter = kiln_operand_host(perm, KILN_INT64, 1, &n, NULL);
  for (int right = 0; right < 2; right++) {
    CHECK_OK(kiln_searchsorted(ctx, kiln_operand_host(shuffled, KILN_INT32, 1, &n, NULL),
                               kiln_operand_host(v, KILN_INT32, 1, &m, NULL), &sorter,
                               right ? KILN_SIDE_RIGHT : KILN_SIDE_LEFT,
                               kiln_operand_host_output(got, KILN_INT64, 1, &m, NULL), NULL));
    for (int64_t i = 0, bad = 0; i < m && bad < 3; i++) {
      int64_t want = host_insertion(a, KILN_INT32, n, v[i], 0, right);
      if (got[i] != want) {
        bad++;
        harness_fail(__FILE__, __LINE__, "sorter %s: value %d at %lld, expected %lld",
                     right ? "right" : "left", v[i], (long long)got[i], (long long)want);
      }
    }
  }
  free(a);
  free(v);
  free(perm);
  free(got);
  free(shuffled);
}

/* ---- counting ---------------------------------------------------------------- */

/* Checks counts (int64, or float64 sums within 1e-12) against want. */
static void check_bins(const char *what, int64_t nbins, const void *got, const double *want,
                       int weighted) {
  for (int64_t b = 0; b < nbins; b++) {
    double g = weighted ? ((const double *)got)[b] : (double)((const int64_t *)got)[b];
    if (weighted ? fabs(g - want[b]) > 1e-12 * fabs(want[b]) + 1e-12 : g != want[b]) {
      harness_fail(__FILE__, __LINE__, "%s: bin %lld holds %.17g, expected %.17g", what,
                   (long long)b, g, want[b]);
      return;
    }
  }
}

/* Bin counts around each local-copy size (powers of two to 8192) and past
 * it, with and without weights and minlength, host and device operands. */
static void test_bincount_bin_counts(kiln_context *ctx) {
  const int64_t counts[] = {1, 255, 257, 4097, 8192, 8193, 20011};
  int64_t n = 30011;
  int32_t *x = malloc((size_t)n * sizeof *x);
  double *w = malloc((size_t)n * sizeof *w);
  for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
    int64_t top = counts[c];
    for (int64_t i = 0; i < n; i++) {
      /* a skewed draw: a few bins take many elements (contention) */
      uint64_t r = harness_rand_u64();
      x[i] = (int32_t)((r % 4 == 0 ? r / 4 % 3 : r / 4) % (uint64_t)top);
      w[i] = harness_rand_uniform(-2, 2);
    }
    x[n / 2] = (int32_t)(top - 1);
    int64_t minlength = c % 3 == 1 ? top + 17 : 0, length = 0;
    int64_t nbins = top > minlength ? top : minlength;
    double *want = calloc((size_t)nbins, sizeof *want), *want_w = calloc((size_t)nbins, sizeof *want_w);
    for (int64_t i = 0; i < n; i++) {
      want[x[i]] += 1;
      want_w[x[i]] += w[i];
    }
    char what[96];
    snprintf(what, sizeof what, "bincount into %lld bins (minlength %lld)", (long long)nbins,
             (long long)minlength);
    int64_t *got = malloc((size_t)nbins * sizeof *got);
    double *got_w = malloc((size_t)nbins * sizeof *got_w);
    kiln_array *xd = NULL, *out = NULL;
    REQUIRE_OK(kiln_array_from_host(ctx, KILN_INT32, 1, &n, NULL, x, &xd));
    CHECK_OK(kiln_bincount(ctx, c % 2 ? kiln_operand_array(xd) : kiln_operand_host(x, KILN_INT32, 1, &n, NULL),
                           NULL, minlength, kiln_operand_new(&out), &length, NULL));
    CHECK(length == nbins);
    if (out && length == nbins) {
      CHECK_OK(kiln_array_to_host(out, got, NULL));
      check_bins(what, nbins, got, want, 0);
    }
    kiln_array_release(out);
    kiln_operand weights = kiln_operand_host(w, KILN_FLOAT64, 1, &n, NULL);
    CHECK_OK(kiln_bincount(ctx, kiln_operand_array(xd), &weights, minlength,
                           kiln_operand_host_output(got_w, KILN_FLOAT64, 1, &nbins, NULL), &length,
                           NULL));
    check_bins(what, nbins, got_w, want_w, 1);
    kiln_array_release(xd);
    free(got);
    free(got_w);
    free(want);
    free(want_w);
  }
  /* empty x: minlength zeros, or nothing */
  int64_t zero = 0, length = -1, got[300];
  for (int i = 0; i < 300; i++) got[i] = -1;
  int64_t cap = 300;
  CHECK_OK(kiln_bincount(ctx, kiln_operand_host(x, KILN_INT32, 1, &zero, NULL), NULL, 257,
                         kiln_operand_host_output(got, KILN_INT64, 1, &cap, NULL), &length, NULL));
  CHECK(length == 257 && got[0] == 0 && got[256] == 0 && got[257] == -1);
  kiln_array *none = NULL;
  CHECK_OK(kiln_bincount(ctx, kiln_operand_host(x, KILN_INT32, 1, &zero, NULL), NULL, 0,
                         kiln_operand_new(&none), &length, NULL));
  CHECK(length == 0 && none && kiln_array_size(none) == 0);
  kiln_array_release(none);
  free(x);
  free(w);
}

/* Histograms into bin counts around the local copy's sizes, equal-width
 * (range [0, bins]: integer v lands in bin v, v == bins in the last) and
 * by explicit edges 0, 1, ..., bins; values outside are dropped. */
static void test_histogram_bin_counts(kiln_context *ctx) {
  const int64_t counts[] = {256, 257, 8192, 8193};
  int64_t n = 20011;
  int32_t *a = malloc((size_t)n * sizeof *a);
  for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
    int64_t bins = counts[c];
    double *want = calloc((size_t)bins, sizeof *want);
    for (int64_t i = 0; i < n; i++) {
      a[i] = (int32_t)((int64_t)(harness_rand_u64() % (uint64_t)(bins + 40)) - 20);
      if (a[i] >= 0 && a[i] <= bins) want[a[i] == bins ? bins - 1 : a[i]] += 1;
    }
    int64_t nedges = bins + 1, *got = malloc((size_t)bins * sizeof *got);
    double *edges = malloc((size_t)nedges * sizeof *edges);
    for (int64_t k = 0; k < nedges; k++) edges[k] = (double)k;
    kiln_operand edge_operand = kiln_operand_host(edges, KILN_FLOAT64, 1, &nedges, NULL);
    for (int explicit_edges = 0; explicit_edges < 2; explicit_edges++) {
      kiln_histogram_options o = {.bins = bins, .has_range = 1, .range_min = 0,
                                  .range_max = (double)bins};
      if (explicit_edges) o.edges = &edge_operand;
      kiln_array *ad = NULL;
      REQUIRE_OK(kiln_array_from_host(ctx, KILN_INT32, 1, &n, NULL, a, &ad));
      CHECK_OK(kiln_histogram(ctx, explicit_edges ? kiln_operand_array(ad)
                                                  : kiln_operand_host(a, KILN_INT32, 1, &n, NULL),
                              &o, kiln_operand_host_output(got, KILN_INT64, 1, &bins, NULL), NULL,
                              NULL));
      char what[64];
      snprintf(what, sizeof what, "histogram of %lld bins%s", (long long)bins,
               explicit_edges ? " (edges)" : "");
      check_bins(what, bins, got, want, 0);
      kiln_array_release(ad);
    }
    free(edges);
    free(got);
    free(want);
  }
  free(a);
}

/* `auto` on big float32 arrays sorted by construction (pairs of ties), nv
 * values with NaN among them, side right, against the host's bisection. */
static void check_auto_big(kiln_context *ctx, int64_t big, int64_t nv, const char *label) {
  float *sa = malloc(sizeof(float) * (size_t)big), *sv = malloc(sizeof(float) * (size_t)nv);
  int64_t *got = malloc(sizeof(int64_t) * (size_t)nv);
  if (!sa || !sv || !got) {
    harness_fail(__FILE__, __LINE__, "auto, %s: out of host memory", label);
    free(sa);
    free(sv);
    free(got);
    return;
  }
  for (int64_t i = 0; i < big; i++) sa[i] = (float)(i / 2);
  for (int64_t i = 0; i < nv; i++)
    sv[i] = (float)floor(harness_rand_uniform(-5, (double)(big / 2) + 5)) + (i % 3 ? 0.5f : 0.0f);
  sv[7] = NAN;
  CHECK_OK(kiln_searchsorted(ctx, kiln_operand_host(sa, KILN_FLOAT32, 1, &big, NULL),
                             kiln_operand_host(sv, KILN_FLOAT32, 1, &nv, NULL), NULL,
                             KILN_SIDE_RIGHT,
                             kiln_operand_host_output(got, KILN_INT64, 1, &nv, NULL), NULL));
  for (int64_t i = 0, bad = 0; i < nv && bad < 3; i++) {
    int64_t want = host_insertion(sa, KILN_FLOAT32, big, sv[i], 0, 1);
    if (got[i] != want) {
      bad++;
      harness_fail(__FILE__, __LINE__, "auto, %s: value %lld (%g) at %lld, expected %lld", label,
                   (long long)i, sv[i], (long long)got[i], (long long)want);
    }
  }
  free(sa);
  free(sv);
  free(got);
}

/* The values visited in their sorted order (KILN_SEARCH_ORDER=sorted: a
 * coarse bisection's keys, a radix sort, the bisection through its
 * permutation): the sizes above with and without the table (the coarse
 * keys from the table alone, or from steps in global memory), the sorter,
 * and short arrays and few values; then `auto` where it takes the sorted
 * order (core/sort/search.c): 2^23 float32 on CPU devices, 4 times the
 * cache on GPUs (the input's order on the other); and a bad setting. */
static void test_searchsorted_sorted_order(kiln_context *ctx) {
  setenv("KILN_SEARCH_ORDER", "sorted", 1);
  test_searchsorted_table(ctx);
  test_searchsorted_table_sorter(ctx);
  const kiln_dtype dtypes[] = {KILN_FLOAT64, KILN_INT32, KILN_COMPLEX64};
  const int64_t lengths[] = {1, 2, 97}, counts[] = {2, 3, 263, 2053};
  for (size_t t = 0; t < sizeof dtypes / sizeof dtypes[0]; t++)
    for (int l = 0; l < 3; l++)
      for (int c = 0; c < 4; c++)
        check_search(ctx, dtypes[t], lengths[l], counts[c], (l + c) % 2, (int)(t + (size_t)c) % 2);
  unsetenv("KILN_SEARCH_ORDER");
  /* a value every 64: `auto`'s sorted order on CPU devices */
  check_auto_big(ctx, ((int64_t)1 << 23) + 3, 131101, "2^23 + 3 float32");
  kiln_device_info info;
  CHECK_OK(kiln_context_device_info(ctx, &info));
  if (info.type == KILN_DEVICE_GPU) {
    /* a value every 10 in 4 times the cache (32 MiB at least): the sorted
     * order on GPUs */
    uint64_t cache = info.cache_size > ((uint64_t)32 << 20) ? info.cache_size : (uint64_t)32 << 20;
    int64_t big = (int64_t)(cache + 3);
    printf("  auto on %s: %lld float32 (4 x %.1f MiB), %lld values\n", info.name,
           (long long)big, (double)cache / (1 << 20), (long long)(big / 10));
    check_auto_big(ctx, big, big / 10, "4 x the cache, float32");
  } else {
    printf("  auto at 4 x the cache: %s is no GPU, the CPU case above covers auto here\n",
           info.name);
  }
  setenv("KILN_SEARCH_ORDER", "backwards", 1);
  int64_t n = 3;
  float a[3] = {1, 2, 3};
  int64_t got[3];
  kiln_status st = kiln_searchsorted(ctx, kiln_operand_host(a, KILN_FLOAT32, 1, &n, NULL),
                                     kiln_operand_host(a, KILN_FLOAT32, 1, &n, NULL), NULL,
                                     KILN_SIDE_LEFT,
                                     kiln_operand_host_output(got, KILN_INT64, 1, &n, NULL), NULL);
  CHECK(st == KILN_ERROR_INVALID_ARGUMENT);
  CHECK_MSG(strstr(kiln_last_error(), "KILN_SEARCH_ORDER=backwards") != NULL, "message: %s",
            kiln_last_error());
  unsetenv("KILN_SEARCH_ORDER");
}

static const harness_test tests[] = {
    {"searchsorted_table", test_searchsorted_table},
    {"searchsorted_table_sorter", test_searchsorted_table_sorter},
    {"searchsorted_sorted_order", test_searchsorted_sorted_order},
    {"bincount_bin_counts", test_bincount_bin_counts},
    {"histogram_bin_counts", test_histogram_bin_counts},
    {0}};

int main(int argc, char **argv) { return harness_main(argc, argv, tests); }
