/* Puts whose positions go in several claim chunks (core/sort/take.c
 * claims repeated targets chunk by chunk, 2^30 positions each, and a later
 * chunk overwrites an earlier one, as NumPy's loop does): the chunk made
 * small by the tests' switch kiln_ix_force_put_chunk, so chunks that only
 * GPU-sized puts reach run at small sizes on every device, against a C
 * loop. */
#include "core/sort/indexing_internal.h"
#include "harness.h"

/* target of index j in an array of n under mode */
static int64_t resolve(int64_t j, int64_t n, kiln_index_mode mode) {
  if (mode == KILN_INDEX_WRAP) return ((j % n) + n) % n;
  if (mode == KILN_INDEX_CLIP) return j < 0 ? 0 : j >= n ? n - 1 : j;
  return j < 0 ? j + n : j;
}

/* NumPy's put of v (ni elements of size es) at idx into a copy of a */
static uint8_t *reference_put(const uint8_t *a, int64_t n, const int64_t *idx, const uint8_t *v,
                              int64_t ni, size_t es, kiln_index_mode mode) {
  uint8_t *want = malloc((size_t)n * es);
  memcpy(want, a, (size_t)n * es);
  for (int64_t k = 0; k < ni; k++) memcpy(want + resolve(idx[k], n, mode) * es, v + k * es, es);
  return want;
}

static int64_t *permutation(int64_t n) {
  int64_t *perm = malloc((size_t)n * sizeof *perm);
  harness_permutation(perm, n);
  return perm;
}

/* Puts of many claim chunks (kiln_ix_force_put_chunk: 7 and 64
 * positions), every form: NumPy's last value where the repeats of a
 * target fall in different chunks (a later chunk overwrites an earlier
 * one), within one chunk, or nowhere (a permutation); flat puts of
 * float32 and complex128 and put_along_axis, on a stream and without. */
static void test_chunks(kiln_context *ctx) {
  static const char *const forms[] = {"auto", "packed", "winners", "checked"};
  static const int64_t chunks[] = {7, 64};
  const int64_t n = 509;
  int64_t *perm = permutation(n), *idx = malloc((size_t)n * sizeof *idx);
  kiln_stream *stream = NULL;
  REQUIRE_OK(kiln_stream_create(ctx, &stream));
  for (int c = 0; c < 2; c++)
    for (int f = 0; f < 4; f++)
      for (int shape = 0; shape < 3; shape++) {
        kiln_ix_force_put_chunk(chunks[c]);
        setenv("KILN_PUT_FORM", forms[f], 1);
        kiln_dtype dtype = (f + shape) % 2 ? KILN_COMPLEX128 : KILN_FLOAT32;
        size_t es = kiln_dtype_size(dtype);
        memcpy(idx, perm, (size_t)n * sizeof *idx);
        if (shape == 1) /* repeats across chunks: position k aims where k - 100 did */
          for (int64_t k = 100; k < n; k += 3) idx[k] = idx[k - 100];
        if (shape == 2) /* repeats inside chunks: neighbours share a target */
          for (int64_t k = 1; k < n; k += 2) idx[k] = idx[k - 1] - n;
        uint8_t *a = malloc((size_t)n * es), *v = malloc((size_t)n * es);
        harness_fill_random(a, dtype, n, -100, 100);
        harness_fill_random(v, dtype, n, -100, 100);
        uint8_t *want = reference_put(a, n, idx, v, n, es, KILN_INDEX_RAISE);
        kiln_stream *s = (c + shape) % 2 ? stream : NULL;
        CHECK_OK(kiln_put(ctx, kiln_operand_host_output(a, dtype, 1, &n, NULL),
                          kiln_operand_host(idx, KILN_INT64, 1, &n, NULL),
                          kiln_operand_host(v, dtype, 1, &n, NULL), KILN_INDEX_RAISE, s));
        CHECK_MSG(memcmp(a, want, (size_t)n * es) == 0,
                  "put, %s, chunks of %lld, %s, shape %d: not NumPy's last value", forms[f],
                  (long long)chunks[c], kiln_dtype_name(dtype), shape);
        free(a);
        free(v);
        free(want);
      }
  /* put_along_axis, axis 0 of (509, 2) float32: every row's target twice */
  int64_t shape[2] = {n, 2};
  float *a = malloc(2 * (size_t)n * sizeof *a), *v = malloc(2 * (size_t)n * sizeof *v);
  float *want = malloc(2 * (size_t)n * sizeof *want);
  int64_t *along = malloc(2 * (size_t)n * sizeof *along);
  harness_fill_random(a, KILN_FLOAT32, 2 * n, -100, 100);
  harness_fill_random(v, KILN_FLOAT32, 2 * n, -100, 100);
  memcpy(want, a, 2 * (size_t)n * sizeof *want);
  for (int64_t e = 0; e < 2 * n; e++) {
    along[e] = perm[(e / 2) % (n / 2)]; /* rows e/2 and e/2 + n/2 aim alike */
    want[along[e] * 2 + e % 2] = v[e];
  }
  kiln_ix_force_put_chunk(7);
  for (int f = 0; f < 2; f++) {
    setenv("KILN_PUT_FORM", forms[f], 1);
    float *got = malloc(2 * (size_t)n * sizeof *got);
    memcpy(got, a, 2 * (size_t)n * sizeof *got);
    CHECK_OK(kiln_put_along_axis(ctx, kiln_operand_host_output(got, KILN_FLOAT32, 2, shape, NULL),
                                 kiln_operand_host(along, KILN_INT64, 2, shape, NULL),
                                 kiln_operand_host(v, KILN_FLOAT32, 2, shape, NULL), 0, stream));
    CHECK_MSG(memcmp(got, want, 2 * (size_t)n * sizeof *got) == 0,
              "put_along_axis, %s, chunks of 7: not NumPy's last value", forms[f]);
    free(got);
  }
  kiln_ix_force_put_chunk(0);
  unsetenv("KILN_PUT_FORM");
  kiln_stream_release(stream);
  free(a);
  free(v);
  free(want);
  free(along);
  free(idx);
  free(perm);
}

static const harness_test tests[] = {
    {"chunks", test_chunks},
    {NULL, NULL},
};

int main(int argc, char **argv) { return harness_main(argc, argv, tests); }
