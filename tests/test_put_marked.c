/* The repeat detection of put's marked scatter (core/sort/take.c,
 * kernels/builtin/move.kl), through its internal entry point: on a device
 * that runs work-items in index order (PoCL), an undetected repeat still
 * leaves NumPy's last value, so test_indexing cannot see a detection that
 * fails; here the pass itself must say "repeat" for every placement of a
 * repeated target (first two positions, first and last, across a
 * work-group boundary, last two, and within a wrapped or clipped mode)
 * and "none" for permutations, and a permutation's result must be the
 * put. Sizes 2, a prime, several work-groups; the grid-stride form runs
 * too where the device takes KILN_ELEMENTS_GRID (tests/search.cmake). */
#include "core/sort/indexing_internal.h"
#include "harness.h"

/* Runs the marked pass of idx (ni positions) over n random float32 and
 * checks *done against want_done, and the put itself when done. */
static void check_marked(kiln_context *ctx, kiln_stream *stream, int64_t n, const int64_t *idx,
                         int64_t ni, kiln_index_mode mode, int want_done, const char *what) {
  float *a = malloc((size_t)n * sizeof *a), *v = malloc((size_t)ni * sizeof *v);
  harness_fill_random(a, KILN_FLOAT32, n, -100, 100);
  harness_fill_random(v, KILN_FLOAT32, ni, -100, 100);
  kiln_array *da = NULL, *di = NULL, *dv = NULL;
  REQUIRE_OK(kiln_array_from_host(ctx, KILN_FLOAT32, 1, &n, NULL, a, &da));
  REQUIRE_OK(kiln_array_from_host(ctx, KILN_INT64, 1, &ni, NULL, idx, &di));
  REQUIRE_OK(kiln_array_from_host(ctx, KILN_FLOAT32, 1, &ni, NULL, v, &dv));
  int done = -1;
  CHECK_OK(kiln_ix_put_flat_marked(ctx, stream, da, di, dv, mode, &done));
  CHECK_MSG(done == want_done, "%s, n %lld: the marked pass says %d, want %d", what,
            (long long)n, done, want_done);
  if (done == 1) {
    float *got = malloc((size_t)n * sizeof *got);
    CHECK_OK(kiln_array_to_host(da, got, NULL));
    for (int64_t k = 0; k < ni; k++) {
      int64_t j = idx[k], t = mode == KILN_INDEX_WRAP ? ((j % n) + n) % n
                              : mode == KILN_INDEX_CLIP ? (j < 0 ? 0 : j >= n ? n - 1 : j)
                                                        : (j < 0 ? j + n : j);
      a[t] = v[k];
    }
    CHECK_MSG(memcmp(got, a, (size_t)n * sizeof *got) == 0, "%s, n %lld: not the put", what,
              (long long)n);
    free(got);
  }
  kiln_array_release(da);
  kiln_array_release(di);
  kiln_array_release(dv);
  free(a);
  free(v);
}

static void test_detects_repeats(kiln_context *ctx) {
  const int64_t sizes[] = {2, 1031, 65537};
  kiln_stream *stream = NULL;
  REQUIRE_OK(kiln_stream_create(ctx, &stream));
  for (int s = 0; s < 3; s++) {
    int64_t n = sizes[s];
    int64_t *idx = malloc((size_t)n * sizeof *idx), *perm = malloc((size_t)n * sizeof *perm);
    for (int64_t i = 0; i < n; i++) perm[i] = i;
    for (int64_t i = n - 1; i > 0; i--) {
      int64_t j = (int64_t)(harness_rand_u64() % (uint64_t)(i + 1)), x = perm[i];
      perm[i] = perm[j];
      perm[j] = x;
    }
    /* a permutation, negative indices in raise and wrapped ones in wrap */
    for (int m = 0; m < 2; m++) {
      kiln_index_mode mode = m ? KILN_INDEX_WRAP : KILN_INDEX_RAISE;
      for (int64_t k = 0; k < n; k++)
        idx[k] = perm[k] - (k % 2 ? n : 0) + (m && k % 3 == 0 ? 5 * n : 0);
      check_marked(ctx, m ? stream : NULL, n, idx, n, mode, 1, "a permutation");
    }
    /* one repeated target, placed (p, q) */
    const int64_t pairs[][2] = {{0, 1}, {0, n - 1}, {n - 1 > 64 ? 63 : 0, n - 1 > 64 ? 64 : 1},
                                {n - 2, n - 1}, {n / 2, n / 3}};
    for (int r = 0; r < 5; r++) {
      int64_t p = pairs[r][0], q = pairs[r][1];
      if (p == q) continue;
      for (int64_t k = 0; k < n; k++) idx[k] = perm[k];
      idx[q] = idx[p] - (r % 2 ? n : 0); /* the same target spelled negatively */
      char what[64];
      snprintf(what, sizeof what, "repeat at %lld and %lld", (long long)p, (long long)q);
      check_marked(ctx, r % 2 ? stream : NULL, n, idx, n, KILN_INDEX_RAISE, 0, what);
    }
    /* wrap: n + t and t; clip: 3n and 4n both onto n - 1 */
    for (int64_t k = 0; k < n; k++) idx[k] = perm[k];
    idx[n / 2] = idx[0] + n;
    check_marked(ctx, NULL, n, idx, n, KILN_INDEX_WRAP, 0, "wrapped onto one target");
    for (int64_t k = 0; k < n; k++) idx[k] = perm[k] == n - 1 ? 3 * n : perm[k];
    idx[perm[0] == n - 1 ? 1 : 0] = 4 * n;
    check_marked(ctx, stream, n, idx, n, KILN_INDEX_CLIP, 0, "clipped onto one target");
    free(idx);
    free(perm);
  }
  kiln_stream_release(stream);
}

static const harness_test tests[] = {
    {"detects_repeats", test_detects_repeats},
    {NULL, NULL},
};

int main(int argc, char **argv) { return harness_main(argc, argv, tests); }
