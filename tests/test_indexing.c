/* Conformance: kiln_take, kiln_put, kiln_take_along_axis,
 * kiln_put_along_axis, kiln_mask_select and kiln_mask_assign
 * (kiln/indexing.h) against plain C references on random data: every
 * dtype, modes raise/wrap/clip with negative and out-of-range indices,
 * sizes 0, 1, primes, views with negative strides, host and device
 * operands, given outputs, a stream, and bad input (an index out of
 * bounds names itself and leaves the output alone). */
#include "search_testing.h"

static int64_t resolve(int64_t j, int64_t n, kiln_index_mode mode) {
  if (mode == KILN_INDEX_WRAP) return ((j % n) + n) % n;
  if (mode == KILN_INDEX_CLIP) return j < 0 ? 0 : j >= n ? n - 1 : j;
  return j < 0 ? j + n : j;
}

static void *random_data(kiln_dtype d, int64_t n) {
  void *h = malloc((size_t)n * kiln_dtype_size(d) + 16);
  harness_fill_random(h, d, n, -100, 100);
  return h;
}

static int64_t *random_indices(int64_t count, int64_t n, kiln_index_mode mode) {
  int64_t *idx = malloc((size_t)count * sizeof *idx + 8);
  int64_t span = mode == KILN_INDEX_RAISE ? n : 3 * n;
  for (int64_t k = 0; k < count; k++)
    idx[k] = n == 0 ? 0 : (int64_t)(harness_rand_u64() % (uint64_t)(2 * span)) - span;
  return idx;
}

/* ---- take ------------------------------------------------------------------------ */

static void test_take_flat(kiln_context *ctx) {
  const int64_t sizes[] = {1, 7, 1031};
  const int64_t counts[] = {0, 1, 257};
  for (int t = 0; t < NDTYPES; t++) {
    kiln_dtype d = all_dtypes[t];
    size_t item = kiln_dtype_size(d);
    for (int s = 0; s < 3; s++) {
      int64_t n = sizes[s], ni = counts[(s + t) % 3];
      kiln_index_mode mode = (kiln_index_mode)((s + t) % 3);
      char *a = random_data(d, n);
      int64_t *idx = random_indices(ni, n, mode);
      int32_t *idx32 = malloc((size_t)ni * sizeof *idx32 + 4);
      for (int64_t k = 0; k < ni; k++) idx32[k] = (int32_t)idx[k];
      kiln_array *av = st_view_1d(ctx, a, d, n, s % 3), *iv = st_view_1d(ctx, idx32, KILN_INT32, ni, 1);
      char *got = malloc((size_t)ni * item + 16);
      kiln_array *out = NULL;
      CHECK_OK(kiln_take(ctx, kiln_operand_array(av), kiln_operand_array(iv), KILN_AXIS_FLAT, mode,
                         kiln_operand_new(&out), NULL));
      if (out) {
        CHECK(kiln_array_dtype(out) == d && kiln_array_size(out) == ni);
        CHECK_OK(kiln_array_to_host(out, got, NULL));
        for (int64_t k = 0; k < ni; k++) {
          int64_t j = resolve(idx[k], n, mode);
          if (memcmp(got + k * (int64_t)item, a + j * (int64_t)item, item) != 0) {
            harness_fail(__FILE__, __LINE__, "%s n=%lld mode %d: element %lld (index %lld)",
                         kiln_dtype_name(d), (long long)n, (int)mode, (long long)k,
                         (long long)idx[k]);
            break;
          }
        }
      }
      kiln_array_release(out);
      kiln_array_release(av);
      kiln_array_release(iv);
      free(got);
      free(idx32);
      free(idx);
      free(a);
    }
  }
}

/* A take several times longer than a GPU's grid (each work-item of
 * kiln_take_flat's grid-stride loop takes many elements), for 1-, 4- and
 * 16-byte elements and each mode; GPUs only (CPU devices run one element
 * per work-item, and 2^23 elements are slow on PoCL). */
static void test_take_large(kiln_context *ctx) {
  kiln_device_info info;
  REQUIRE_OK(kiln_context_device_info(ctx, &info));
  if (info.type == KILN_DEVICE_CPU) {
    harness_skip("a GPU-sized take (%s is a CPU device)", info.name);
    return;
  }
  const kiln_dtype dtypes[] = {KILN_FLOAT32, KILN_COMPLEX128, KILN_INT8};
  for (int t = 0; t < 3; t++) {
    kiln_dtype d = dtypes[t];
    size_t item = kiln_dtype_size(d);
    int64_t n = 1000003, ni = ((int64_t)1 << 23) + 13;
    kiln_index_mode mode = (kiln_index_mode)t;
    char *a = random_data(d, n), *got = malloc((size_t)ni * item);
    int64_t *idx = random_indices(ni, n, mode);
    kiln_array *out = NULL;
    CHECK_OK(kiln_take(ctx, kiln_operand_host(a, d, 1, &n, NULL),
                       kiln_operand_host(idx, KILN_INT64, 1, &ni, NULL), KILN_AXIS_FLAT, mode,
                       kiln_operand_new(&out), NULL));
    if (out) CHECK_OK(kiln_array_to_host(out, got, NULL));
    int64_t bad = -1;
    for (int64_t k = 0; out && k < ni && bad < 0; k++)
      if (memcmp(got + k * (int64_t)item, a + resolve(idx[k], n, mode) * (int64_t)item, item))
        bad = k;
    CHECK_MSG(bad < 0, "take of %lld %s, mode %d: element %lld differs", (long long)ni,
              kiln_dtype_name(d), (int)mode, (long long)bad);
    kiln_array_release(out);
    free(idx);
    free(got);
    free(a);
  }
}

/* Along each axis of a 3-D array, 2-D indices, into a host output. */
static void test_take_axis(kiln_context *ctx) {
  const kiln_dtype dtypes[] = {KILN_COMPLEX128, KILN_INT16, KILN_FLOAT32};
  int64_t shape[3] = {4, 5, 6}, n = 120, ishape[2] = {3, 2};
  for (int t = 0; t < 3; t++) {
    kiln_dtype d = dtypes[t];
    size_t item = kiln_dtype_size(d);
    char *a = random_data(d, n);
    for (int axis = -1; axis < 3; axis++) {
      int ax = axis < 0 ? 2 : axis;
      kiln_index_mode mode = (kiln_index_mode)((axis + 1 + t) % 3);
      int64_t *idx = random_indices(6, shape[ax], mode);
      int64_t oshape[4], k = 0;
      for (int dd = 0; dd < ax; dd++) oshape[k++] = shape[dd];
      oshape[k++] = 3;
      oshape[k++] = 2;
      for (int dd = ax + 1; dd < 3; dd++) oshape[k++] = shape[dd];
      int64_t outer = 1, inner = 1;
      for (int dd = 0; dd < ax; dd++) outer *= shape[dd];
      for (int dd = ax + 1; dd < 3; dd++) inner *= shape[dd];
      int64_t total = outer * 6 * inner;
      char *got = malloc((size_t)total * item);
      CHECK_OK(kiln_take(ctx, kiln_operand_host(a, d, 3, shape, NULL),
                         kiln_operand_host(idx, KILN_INT64, 2, ishape, NULL), axis, mode,
                         kiln_operand_host_output(got, d, 4, oshape, NULL), NULL));
      for (int64_t o = 0; o < outer; o++)
        for (int64_t q = 0; q < 6; q++)
          for (int64_t r = 0; r < inner; r++) {
            int64_t j = resolve(idx[q], shape[ax], mode);
            const char *want = a + ((o * shape[ax] + j) * inner + r) * (int64_t)item;
            CHECK(memcmp(got + ((o * 6 + q) * inner + r) * (int64_t)item, want, item) == 0);
          }
      free(got);
      free(idx);
    }
    free(a);
  }
}

static void test_take_bad_input(kiln_context *ctx) {
  int64_t n = 5, n3 = 3, got[3] = {-1, -1, -1}, zero = 0;
  int64_t a[5] = {10, 11, 12, 13, 14}, idx[3] = {1, 9, -7};
  float fidx[3] = {0, 1, 2};
  uint64_t uidx[3] = {0, 1, 2};
  kiln_operand out = kiln_operand_host_output(got, KILN_INT64, 1, &n3, NULL);
  kiln_operand in = kiln_operand_host(a, KILN_INT64, 1, &n, NULL);
  CHECK_STATUS(kiln_take(ctx, in, kiln_operand_host(idx, KILN_INT64, 1, &n3, NULL),
                         KILN_AXIS_FLAT, KILN_INDEX_RAISE, out, NULL),
               KILN_ERROR_OUT_OF_RANGE);
  CHECK_ERROR_CONTAINS("index 9 is out of bounds for axis 0 with size 5");
  CHECK(got[0] == -1 && got[1] == -1); /* nothing written */
  CHECK_STATUS(kiln_take(ctx, in, kiln_operand_host(idx, KILN_INT64, 1, &n3, NULL), 1,
                         KILN_INDEX_WRAP, out, NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("axis 1 is out of bounds");
  CHECK_STATUS(kiln_take(ctx, in, kiln_operand_host(fidx, KILN_FLOAT32, 1, &n3, NULL),
                         KILN_AXIS_FLAT, KILN_INDEX_WRAP, out, NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("float32");
  CHECK_STATUS(kiln_take(ctx, in, kiln_operand_host(uidx, KILN_UINT64, 1, &n3, NULL),
                         KILN_AXIS_FLAT, KILN_INDEX_WRAP, out, NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_take(ctx, kiln_operand_host(a, KILN_INT64, 1, &zero, NULL),
                         kiln_operand_host(uidx, KILN_INT32, 1, &n3, NULL), KILN_AXIS_FLAT,
                         KILN_INDEX_CLIP, out, NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("empty");
  CHECK_STATUS(kiln_take(ctx, in, kiln_operand_host(idx, KILN_INT64, 1, &n3, NULL),
                         KILN_AXIS_FLAT, (kiln_index_mode)5, out, NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  kiln_operand short_out = kiln_operand_host_output(got, KILN_INT64, 1, &(int64_t){2}, NULL);
  CHECK_STATUS(kiln_take(ctx, in, kiln_operand_host(idx, KILN_INT64, 1, &n3, NULL),
                         KILN_AXIS_FLAT, KILN_INDEX_CLIP, short_out, NULL),
               KILN_ERROR_INVALID_ARGUMENT);
}

/* Mode RAISE's check in each form of $KILN_TAKE_CHECK (take.c: fused into
 * the gather unless the output is a given device array written in place):
 * flat and along an axis, take_along_axis; new results, host memory and a
 * given device array, on a stream and without; good indices equal the
 * host reference, one bad index (first or last, above or below) is
 * OUT_OF_RANGE naming it with every output left alone (no new result). */
static void test_take_checks(kiln_context *ctx) {
  static const char *const forms[] = {"auto", "fused", "separate"};
  enum { N = 4099, M = 3001, ROWS = 3 };
  int64_t n = N, m = M, shape2[2] = {ROWS, N}, ishape2[2] = {ROWS, M};
  float *a = random_data(KILN_FLOAT32, ROWS * N), *got = malloc(ROWS * M * sizeof *got);
  float *want = malloc(ROWS * M * sizeof *want), *want2 = malloc(ROWS * M * sizeof *want2);
  int64_t *idx = random_indices(ROWS * M, N, KILN_INDEX_RAISE);
  for (int64_t k = 0; k < M; k++) want[k] = a[resolve(idx[k], N, KILN_INDEX_RAISE)];
  for (int64_t r = 0; r < ROWS; r++)
    for (int64_t k = 0; k < M; k++)
      want2[r * M + k] = a[r * N + resolve(idx[r * M + k], N, KILN_INDEX_RAISE)];
  kiln_stream *stream = NULL;
  REQUIRE_OK(kiln_stream_create(ctx, &stream));
  kiln_array *dev_a = NULL, *dev_out = NULL;
  REQUIRE_OK(kiln_array_from_host(ctx, KILN_FLOAT32, 2, shape2, NULL, a, &dev_a));
  for (int f = 0; f < 3; f++) {
    setenv("KILN_TAKE_CHECK", forms[f], 1);
    for (int bad = 0; bad < 3; bad++) { /* none, the first, the last */
      int64_t at = bad == 1 ? 0 : M - 1, keep = idx[at], wrong = bad == 1 ? N + 5 : -N - 1;
      if (bad) idx[at] = wrong;
      char text[64];
      snprintf(text, sizeof text, "index %lld is out of bounds", (long long)wrong);
      kiln_stream *s = (f + bad) % 2 ? stream : NULL;
      kiln_operand ids = kiln_operand_host(idx, KILN_INT64, 1, &m, NULL);
      for (int o = 0; o < 3; o++) { /* new, host memory, a given device array */
        kiln_array *made = NULL;
        for (int64_t k = 0; k < M; k++) got[k] = -1000;
        if (o == 2) { /* sentinels in the given array */
          kiln_array_release(dev_out);
          dev_out = NULL;
          REQUIRE_OK(kiln_array_from_host(ctx, KILN_FLOAT32, 1, &m, NULL, got, &dev_out));
        }
        kiln_operand out = o == 0   ? kiln_operand_new(&made)
                           : o == 1 ? kiln_operand_host_output(got, KILN_FLOAT32, 1, &m, NULL)
                                    : kiln_operand_array(dev_out);
        kiln_status st = kiln_take(ctx, kiln_operand_host(a, KILN_FLOAT32, 1, &n, NULL), ids,
                                   KILN_AXIS_FLAT, KILN_INDEX_RAISE, out, s);
        if (s) CHECK_OK(kiln_stream_synchronize(ctx, s));
        if (made) CHECK_OK(kiln_array_to_host(made, got, NULL));
        if (o == 2) CHECK_OK(kiln_array_to_host(dev_out, got, NULL));
        if (bad) {
          CHECK_STATUS(st, KILN_ERROR_OUT_OF_RANGE);
          CHECK_ERROR_CONTAINS(text);
          CHECK(made == NULL);
          CHECK_MSG(got[0] == -1000 && got[M - 1] == -1000, "take %s out %d: output written",
                    forms[f], o);
        } else {
          CHECK_OK(st);
          CHECK_MSG(memcmp(got, want, M * sizeof *got) == 0, "take %s out %d differs", forms[f],
                    o);
        }
        kiln_array_release(made);
      }
      /* along axis 1 of (3, N): take (the axis kernel) and take_along_axis */
      for (int along = 0; along < 2; along++) {
        kiln_array *made = NULL;
        kiln_status st =
            along ? kiln_take_along_axis(ctx, kiln_operand_array(dev_a),
                                         kiln_operand_host(idx, KILN_INT64, 2, ishape2, NULL), 1,
                                         kiln_operand_new(&made), s)
                  : kiln_take(ctx, kiln_operand_array(dev_a), ids, 1, KILN_INDEX_RAISE,
                              kiln_operand_new(&made), s);
        if (s) CHECK_OK(kiln_stream_synchronize(ctx, s));
        if (bad) {
          CHECK_STATUS(st, KILN_ERROR_OUT_OF_RANGE);
          CHECK_ERROR_CONTAINS(text);
          CHECK(made == NULL);
        } else {
          CHECK_OK(st);
          if (!made) continue;
          CHECK_OK(kiln_array_to_host(made, got, NULL));
          int same = 1;
          for (int64_t r = 0; r < ROWS; r++)
            for (int64_t k = 0; k < M; k++)
              same &= got[r * M + k] == (along ? want2[r * M + k] : a[r * N + resolve(idx[k], N,
                                                                                       KILN_INDEX_RAISE)]);
          CHECK_MSG(same, "take %s along %d differs", forms[f], along);
        }
        kiln_array_release(made);
      }
      idx[at] = keep;
    }
  }
  /* a value it does not take */
  setenv("KILN_TAKE_CHECK", "sometimes", 1);
  CHECK_STATUS(kiln_take(ctx, kiln_operand_host(a, KILN_FLOAT32, 1, &n, NULL),
                         kiln_operand_host(idx, KILN_INT64, 1, &m, NULL), KILN_AXIS_FLAT,
                         KILN_INDEX_RAISE, kiln_operand_host_output(got, KILN_FLOAT32, 1, &m, NULL),
                         NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("KILN_TAKE_CHECK=sometimes");
  unsetenv("KILN_TAKE_CHECK");
  kiln_array_release(dev_out);
  kiln_array_release(dev_a);
  kiln_stream_release(stream);
  free(idx);
  free(a);
  free(got);
  free(want);
  free(want2);
}

/* ---- put ------------------------------------------------------------------------- */

static void test_put(kiln_context *ctx) {
  for (int t = 0; t < NDTYPES; t++) {
    kiln_dtype d = all_dtypes[t];
    size_t item = kiln_dtype_size(d);
    int64_t n = t % 2 ? 1031 : 13, ni = n / 2 + 1, nv = t % 3 ? ni : 3;
    kiln_index_mode mode = (kiln_index_mode)(t % 3);
    char *a = random_data(d, n), *v = random_data(d, nv), *want = malloc((size_t)n * item);
    memcpy(want, a, (size_t)n * item);
    /* mostly distinct targets (test_put_last_wins has many repeats) */
    int64_t *perm = malloc((size_t)n * sizeof *perm), *idx = malloc((size_t)ni * sizeof *idx);
    for (int64_t i = 0; i < n; i++) perm[i] = i;
    for (int64_t i = n - 1; i > 0; i--) {
      int64_t j = (int64_t)(harness_rand_u64() % (uint64_t)(i + 1)), x = perm[i];
      perm[i] = perm[j];
      perm[j] = x;
    }
    for (int64_t k = 0; k < ni; k++) {
      /* the same target spelled the mode's way: negative, or wrapped */
      idx[k] = perm[k] - (k % 2 ? n : 0) + (mode == KILN_INDEX_WRAP && k % 3 == 0 ? 2 * n : 0);
      memcpy(want + perm[k] * (int64_t)item, v + (k % nv) * (int64_t)item, item);
    }
    if (mode == KILN_INDEX_CLIP) { /* clipped from both ends */
      idx[0] = -5 * n;
      memcpy(want, v, item);
      idx[1] = 4 * n;
      memcpy(want + (n - 1) * (int64_t)item, v + (1 % nv) * (int64_t)item, item);
      for (int64_t k = 2; k < ni; k++) idx[k] = perm[k] < 0 ? 0 : perm[k];
      /* recompute the reference: positions 0 and n-1 may be targets too */
      memcpy(want, a, (size_t)n * item);
      for (int64_t k = 0; k < ni; k++)
        memcpy(want + resolve(idx[k], n, mode) * (int64_t)item, v + (k % nv) * (int64_t)item,
               item);
      for (int64_t k = 2; k < ni; k++)
        if (idx[k] == 0 || idx[k] == n - 1) idx[k] = idx[k] == 0 ? -5 * n : 4 * n;
    }
    if (t % 2) { /* a device array, reversed view */
      kiln_array *av = st_view_1d(ctx, a, d, n, 2);
      CHECK_OK(kiln_put(ctx, kiln_operand_array(av), kiln_operand_host(idx, KILN_INT64, 1, &ni, NULL),
                        kiln_operand_host(v, d, 1, &nv, NULL), mode, NULL));
      if (av) CHECK_OK(kiln_array_to_host(av, a, NULL));
      kiln_array_release(av);
    } else { /* writable host memory */
      CHECK_OK(kiln_put(ctx, kiln_operand_host_output(a, d, 1, &n, NULL),
                        kiln_operand_host(idx, KILN_INT64, 1, &ni, NULL),
                        kiln_operand_host(v, d, 1, &nv, NULL), mode, NULL));
    }
    CHECK_MSG(memcmp(a, want, (size_t)n * item) == 0, "put %s mode %d differs",
              kiln_dtype_name(d), (int)mode);
    free(perm);
    free(idx);
    free(a);
    free(v);
    free(want);
  }
  /* bad input */
  int64_t a[4] = {0, 1, 2, 3}, n4 = 4, one = 1, bad = 4;
  CHECK_STATUS(kiln_put(ctx, kiln_operand_host_output(a, KILN_INT64, 1, &n4, NULL),
                        kiln_operand_host(&bad, KILN_INT64, 1, &one, NULL), kiln_operand_int(7),
                        KILN_INDEX_RAISE, NULL),
               KILN_ERROR_OUT_OF_RANGE);
  CHECK_ERROR_CONTAINS("index 4 is out of bounds");
  CHECK(a[3] == 3);
  CHECK_STATUS(kiln_put(ctx, kiln_operand_host(a, KILN_INT64, 1, &n4, NULL),
                        kiln_operand_host(&one, KILN_INT64, 1, &one, NULL), kiln_operand_int(7),
                        KILN_INDEX_RAISE, NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("read-only");
}

/* kiln_put into the n elements a of d: through a device array on
 * `stream`, or host memory when stream is NULL (a holds the result). */
static void put_into(kiln_context *ctx, kiln_dtype d, int64_t n, void *a, kiln_operand targets,
                     kiln_operand values, kiln_index_mode mode, kiln_stream *stream) {
  if (stream) {
    kiln_array *av = NULL;
    REQUIRE_OK(kiln_array_from_host(ctx, d, 1, &n, NULL, a, &av));
    CHECK_OK(kiln_put(ctx, kiln_operand_array(av), targets, values, mode, stream));
    CHECK_OK(kiln_stream_synchronize(ctx, stream));
    CHECK_OK(kiln_array_to_host(av, a, NULL));
    kiln_array_release(av);
  } else {
    CHECK_OK(kiln_put(ctx, kiln_operand_host_output(a, d, 1, &n, NULL), targets, values, mode,
                      NULL));
  }
}

/* Puts ni values (nv of them, taken in turn) at idx into n random elements
 * of d (a device array on `stream`, or host memory when stream is NULL)
 * and checks that the last value in index order won wherever targets
 * repeat (the reference: the plain sequential loop). */
static void check_put_last_wins(kiln_context *ctx, kiln_dtype d, int64_t n, const int64_t *idx,
                                int64_t ni, int64_t nv, kiln_index_mode mode,
                                kiln_stream *stream) {
  size_t item = kiln_dtype_size(d);
  char *a = random_data(d, n), *v = random_data(d, nv), *want = malloc((size_t)n * item);
  memcpy(want, a, (size_t)n * item);
  for (int64_t k = 0; k < ni; k++)
    memcpy(want + resolve(idx[k], n, mode) * (int64_t)item, v + (k % nv) * (int64_t)item, item);
  put_into(ctx, d, n, a, kiln_operand_host(idx, KILN_INT64, 1, &ni, NULL),
           kiln_operand_host(v, d, 1, &nv, NULL), mode, stream);
  CHECK_MSG(memcmp(a, want, (size_t)n * item) == 0,
            "put %s mode %d, %lld indices onto %lld elements: not the last value",
            kiln_dtype_name(d), (int)mode, (long long)ni, (long long)n);
  free(a);
  free(v);
  free(want);
}

/* Many sources onto few targets (clip and wrap fold them; raise repeats
 * explicitly): NumPy keeps the last value in index order. Work-items run
 * in no order on a GPU, so without move.kl's claim pass this differs
 * there; the reference is the plain sequential loop. Sizes: one target,
 * a prime, a source of several work-groups; device and host arrays, a
 * stream, 1- to 16-byte elements. */
static void test_put_last_wins(kiln_context *ctx) {
  const kiln_dtype dtypes[] = {KILN_UINT8, KILN_UINT64, KILN_FLOAT32, KILN_COMPLEX128, KILN_INT16};
  const int64_t sizes[] = {1, 7, 13};
  const int64_t counts[] = {4099, 65537, 300};
  kiln_stream *stream = NULL;
  REQUIRE_OK(kiln_stream_create(ctx, &stream));
  for (int t = 0; t < 5; t++) {
    for (int m = 0; m < 3; m++) {
      kiln_index_mode mode = (kiln_index_mode)m;
      int64_t n = sizes[(t + m) % 3], ni = counts[(t + 2 * m) % 3], nv = t % 2 ? ni : 1021;
      int64_t *idx = random_indices(ni, n, mode); /* raise: in [-n, n), repeated */
      /* m == 1: a device array on a stream */
      check_put_last_wins(ctx, dtypes[t], n, idx, ni, nv, mode, m == 1 ? stream : NULL);
      free(idx);
    }
  }
  /* put_along_axis: (6, 5) float64, 2000 indices per row along axis 1
   * (negative ones too), and along axis 0 from a (3000, 5) block */
  int64_t shape[2] = {6, 5}, ishape[2] = {6, 2000}, jshape[2] = {3000, 5};
  for (int axis = 0; axis < 2; axis++) {
    const int64_t *is = axis ? ishape : jshape;
    int64_t count = is[0] * is[1];
    double *a = random_data(KILN_FLOAT64, 30), *v = random_data(KILN_FLOAT64, count), want[30];
    int64_t *idx = random_indices(count, shape[axis], KILN_INDEX_RAISE);
    memcpy(want, a, sizeof want);
    for (int64_t e = 0; e < count; e++) {
      int64_t r = e / is[1], c = e % is[1], j = resolve(idx[e], shape[axis], KILN_INDEX_RAISE);
      want[axis ? r * 5 + j : j * 5 + c] = v[e];
    }
    kiln_array *dev = NULL;
    REQUIRE_OK(kiln_array_from_host(ctx, KILN_FLOAT64, 2, shape, NULL, a, &dev));
    CHECK_OK(kiln_put_along_axis(ctx, kiln_operand_array(dev),
                                 kiln_operand_host(idx, KILN_INT64, 2, is, NULL),
                                 kiln_operand_host(v, KILN_FLOAT64, 2, is, NULL), axis, stream));
    CHECK_OK(kiln_stream_synchronize(ctx, stream));
    CHECK_OK(kiln_array_to_host(dev, a, NULL));
    CHECK_MSG(memcmp(a, want, sizeof want) == 0, "put_along_axis axis %d: not the last value",
              axis);
    kiln_array_release(dev);
    free(idx);
    free(a);
    free(v);
  }
  kiln_stream_release(stream);
}

/* Sparse puts with repeats (fewer positions than an eighth of the array:
 * take.c's claim then writes where each position won, where dense puts
 * take the packed claim or the winners pass, which test_put_last_wins
 * covers): the last value in index order, every element size, a device
 * array on a stream and host memory. */
static void test_put_sparse(kiln_context *ctx) {
  const kiln_dtype dtypes[] = {KILN_INT8, KILN_FLOAT16, KILN_FLOAT32, KILN_INT64, KILN_COMPLEX128};
  kiln_stream *stream = NULL;
  REQUIRE_OK(kiln_stream_create(ctx, &stream));
  for (int t = 0; t < 5; t++) {
    int64_t n = 20011, ni = 997, nv = t % 2 ? ni : 7;
    kiln_index_mode mode = (kiln_index_mode)(t % 3);
    int64_t *idx = malloc((size_t)ni * sizeof *idx);
    /* 61 targets spread over the array, each ~16 times; clip takes no
     * negative index */
    for (int64_t k = 0; k < ni; k++)
      idx[k] = (int64_t)(harness_rand_u64() % 61) * 331 -
               (k % 2 && mode != KILN_INDEX_CLIP ? n : 0);
    check_put_last_wins(ctx, dtypes[t], n, idx, ni, nv, mode, t % 2 ? stream : NULL);
    free(idx);
  }
  kiln_stream_release(stream);
}

/* A put under `variable`=`value` (not a value it takes): INVALID_ARGUMENT
 * naming both, the array left alone. Unsets the variable. */
static void bad_put_setting(kiln_context *ctx, const char *variable, const char *value) {
  float a[4] = {1, 2, 3, 4}, v[2] = {5, 6};
  int64_t n4 = 4, two = 2, idx[2] = {0, 0};
  char text[64];
  setenv(variable, value, 1);
  CHECK_STATUS(kiln_put(ctx, kiln_operand_host_output(a, KILN_FLOAT32, 1, &n4, NULL),
                        kiln_operand_host(idx, KILN_INT64, 1, &two, NULL),
                        kiln_operand_host(v, KILN_FLOAT32, 1, &two, NULL), KILN_INDEX_RAISE, NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  snprintf(text, sizeof text, "%s=%s", variable, value);
  CHECK_ERROR_CONTAINS(text);
  CHECK(a[0] == 1);
  unsetenv(variable);
}

/* Each claim form of take.c forced with $KILN_PUT_FORM on any device
 * (auto picks by size and dtype; packed falls back to winners for 8- and
 * 16-byte elements): dense puts with repeats and a permutation, every mode,
 * a device array on a stream and host memory, the last value in index
 * order. A value it does not take is INVALID_ARGUMENT naming it. */
static void test_put_forms(kiln_context *ctx) {
  static const char *const forms[] = {"checked", "winners", "packed"};
  const kiln_dtype dtypes[] = {KILN_FLOAT32, KILN_UINT8, KILN_INT16, KILN_FLOAT64,
                               KILN_COMPLEX128};
  const int64_t sizes[] = {1, 13, 4099};
  kiln_stream *stream = NULL;
  REQUIRE_OK(kiln_stream_create(ctx, &stream));
  for (int f = 0; f < 3; f++) {
    setenv("KILN_PUT_FORM", forms[f], 1);
    for (int t = 0; t < 5; t++)
      for (int s = 0; s < 3; s++) {
        kiln_index_mode mode = (kiln_index_mode)((t + s + f) % 3);
        int64_t n = sizes[s], ni = s == 2 ? n : 3 * n + 7, nv = t % 2 ? ni : 5;
        int64_t *idx = random_indices(ni, n, mode);
        if (s == 2) /* a permutation: every target once */
          for (int64_t k = 0; k < ni; k++) idx[k] = (k * 2027) % n - (k % 2 ? n : 0) * (mode != 2);
        check_put_last_wins(ctx, dtypes[t], n, idx, ni, nv, mode, (s + t) % 2 ? stream : NULL);
        free(idx);
      }
  }
  bad_put_setting(ctx, "KILN_PUT_FORM", "sorted");
  kiln_stream_release(stream);
}

/* KILN_INDEX_ANY_WINS (CuPy's contract): a permutation equals the put;
 * with repeats every target holds one of the values aimed at it and
 * every other element is left alone; every mode, float32 and complex128,
 * a device array on a stream and host memory; take rejects the flag. */
static void test_put_any_wins(kiln_context *ctx) {
  const kiln_dtype dtypes[] = {KILN_FLOAT32, KILN_COMPLEX128};
  kiln_stream *stream = NULL;
  REQUIRE_OK(kiln_stream_create(ctx, &stream));
  for (int t = 0; t < 2; t++)
    for (int m = 0; m < 3; m++)
      for (int repeats = 0; repeats < 2; repeats++) {
        kiln_dtype d = dtypes[t];
        size_t item = kiln_dtype_size(d);
        kiln_index_mode mode = (kiln_index_mode)m;
        int64_t n = 4099, ni = repeats ? 3 * n : n;
        int64_t *idx = random_indices(ni, n, mode);
        if (!repeats)
          for (int64_t k = 0; k < ni; k++) idx[k] = (k * 2027) % n - (k % 2 && m != 2 ? n : 0);
        char *a = random_data(d, n), *v = random_data(d, ni), *before = malloc((size_t)n * item);
        memcpy(before, a, (size_t)n * item);
        kiln_index_mode any = (kiln_index_mode)(m | KILN_INDEX_ANY_WINS);
        put_into(ctx, d, n, a, kiln_operand_host(idx, KILN_INT64, 1, &ni, NULL),
                 kiln_operand_host(v, d, 1, &ni, NULL), any, m == 1 ? stream : NULL);
        /* each element: untouched where no index aims, else one of its values */
        int64_t wrong = 0;
        char *hit = calloc((size_t)n, 1);
        for (int64_t k = 0; k < ni; k++) {
          int64_t j = resolve(idx[k], n, mode);
          if (memcmp(a + j * (int64_t)item, v + k * (int64_t)item, item) == 0) hit[j] = 1;
          if (!hit[j]) hit[j] = 2; /* aimed at, not yet matched */
        }
        for (int64_t j = 0; j < n; j++)
          wrong += hit[j] == 2 ||
                   (hit[j] == 0 && memcmp(a + j * (int64_t)item, before + j * (int64_t)item, item));
        CHECK_MSG(wrong == 0, "put any-wins %s mode %d repeats %d: %lld elements wrong",
                  kiln_dtype_name(d), m, repeats, (long long)wrong);
        free(hit);
        free(idx);
        free(a);
        free(v);
        free(before);
      }
  float a4[4] = {1, 2, 3, 4}, got[2];
  int64_t n4 = 4, two = 2, idx2[2] = {0, 1};
  CHECK_STATUS(kiln_take(ctx, kiln_operand_host(a4, KILN_FLOAT32, 1, &n4, NULL),
                         kiln_operand_host(idx2, KILN_INT64, 1, &two, NULL), KILN_AXIS_FLAT,
                         (kiln_index_mode)(KILN_INDEX_WRAP | KILN_INDEX_ANY_WINS),
                         kiln_operand_host_output(got, KILN_FLOAT32, 1, &two, NULL), NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  kiln_stream_release(stream);
}

/* ---- along an axis --------------------------------------------------------------- */

static void test_take_along_axis(kiln_context *ctx) {
  int64_t shape[2] = {6, 7}, ishape[2] = {6, 3}, bshape[2] = {2, 1}, n = 42;
  float *a = random_data(KILN_FLOAT32, n);
  int64_t idx[18], bidx[2] = {5, -1};
  for (int k = 0; k < 18; k++) idx[k] = (int64_t)(harness_rand_u64() % 14) - 7;
  float got[18];
  CHECK_OK(kiln_take_along_axis(ctx, kiln_operand_host(a, KILN_FLOAT32, 2, shape, NULL),
                                kiln_operand_host(idx, KILN_INT64, 2, ishape, NULL), 1,
                                kiln_operand_host_output(got, KILN_FLOAT32, 2, ishape, NULL),
                                NULL));
  for (int i = 0; i < 6; i++)
    for (int k = 0; k < 3; k++)
      CHECK(got[i * 3 + k] == a[i * 7 + resolve(idx[i * 3 + k], 7, KILN_INDEX_RAISE)]);
  /* indices (2, 1) broadcast along axis 0 against (6, 7): a (2, 7) result,
   * from a transposed device view */
  kiln_array *base = NULL, *t = NULL, *out = NULL;
  int64_t tshape[2] = {7, 6};
  float *at = malloc(42 * sizeof *at);
  for (int i = 0; i < 6; i++)
    for (int j = 0; j < 7; j++) at[j * 6 + i] = a[i * 7 + j];
  REQUIRE_OK(kiln_array_from_host(ctx, KILN_FLOAT32, 2, tshape, NULL, at, &base));
  REQUIRE_OK(kiln_array_transpose(base, NULL, &t));
  int32_t bidx32[2] = {(int32_t)bidx[0], (int32_t)bidx[1]};
  CHECK_OK(kiln_take_along_axis(ctx, kiln_operand_array(t),
                                kiln_operand_host(bidx32, KILN_INT32, 2, bshape, NULL), 0,
                                kiln_operand_new(&out), NULL));
  if (out) {
    float g[14];
    CHECK(kiln_array_shape(out)[0] == 2 && kiln_array_shape(out)[1] == 7);
    CHECK_OK(kiln_array_to_host(out, g, NULL));
    for (int r = 0; r < 2; r++)
      for (int j = 0; j < 7; j++) CHECK(g[r * 7 + j] == a[5 * 7 + j]);
    kiln_array_release(out);
    out = NULL;
  }
  /* bad input: out of bounds, dims, shapes */
  idx[4] = 7;
  CHECK_STATUS(kiln_take_along_axis(ctx, kiln_operand_host(a, KILN_FLOAT32, 2, shape, NULL),
                                    kiln_operand_host(idx, KILN_INT64, 2, ishape, NULL), 1,
                                    kiln_operand_host_output(got, KILN_FLOAT32, 2, ishape, NULL),
                                    NULL),
               KILN_ERROR_OUT_OF_RANGE);
  CHECK_ERROR_CONTAINS("index 7 is out of bounds for axis 1 with size 7");
  CHECK_STATUS(kiln_take_along_axis(ctx, kiln_operand_host(a, KILN_FLOAT32, 2, shape, NULL),
                                    kiln_operand_host(idx, KILN_INT64, 1, &(int64_t){18}, NULL), 1,
                                    kiln_operand_new(&out), NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("same number of dimensions");
  int64_t wrong[2] = {4, 3};
  CHECK_STATUS(kiln_take_along_axis(ctx, kiln_operand_host(a, KILN_FLOAT32, 2, shape, NULL),
                                    kiln_operand_host(idx, KILN_INT64, 2, wrong, NULL), 1,
                                    kiln_operand_new(&out), NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("broadcast");
  kiln_array_release(out);
  kiln_array_release(t);
  kiln_array_release(base);
  free(at);
  free(a);
}

static void test_put_along_axis(kiln_context *ctx) {
  int64_t shape[2] = {5, 4}, ishape[2] = {5, 2};
  int32_t a[20], want[20], v[10];
  int64_t idx[10];
  for (int i = 0; i < 20; i++) want[i] = a[i] = (int32_t)(harness_rand_u64() % 1000);
  for (int i = 0; i < 5; i++) {
    int64_t first = (int64_t)(harness_rand_u64() % 4), second = (first + 1 + (int64_t)(harness_rand_u64() % 3)) % 4;
    idx[2 * i] = first;
    idx[2 * i + 1] = second - 4; /* negative: from the end */
    v[2 * i] = -i - 1;
    v[2 * i + 1] = 100 + i;
    want[i * 4 + first] = v[2 * i];
    want[i * 4 + second] = v[2 * i + 1];
  }
  kiln_stream *stream = NULL;
  REQUIRE_OK(kiln_stream_create(ctx, &stream));
  kiln_array *dev = NULL;
  REQUIRE_OK(kiln_array_from_host(ctx, KILN_INT32, 2, shape, NULL, a, &dev));
  CHECK_OK(kiln_put_along_axis(ctx, kiln_operand_array(dev),
                               kiln_operand_host(idx, KILN_INT64, 2, ishape, NULL),
                               kiln_operand_host(v, KILN_INT32, 2, ishape, NULL), -1, stream));
  CHECK_OK(kiln_stream_synchronize(ctx, stream));
  int32_t got[20];
  CHECK_OK(kiln_array_to_host(dev, got, NULL));
  CHECK(memcmp(got, want, sizeof got) == 0);
  /* a scalar value into host memory along axis 0 */
  int64_t row[4] = {4, 0, 2, -1}, rshape[2] = {1, 4};
  CHECK_OK(kiln_put_along_axis(ctx, kiln_operand_host_output(a, KILN_INT32, 2, shape, NULL),
                               kiln_operand_host(row, KILN_INT64, 2, rshape, NULL),
                               kiln_operand_int(-9), 0, NULL));
  CHECK(a[4 * 4 + 0] == -9 && a[0 * 4 + 1] == -9 && a[2 * 4 + 2] == -9 && a[4 * 4 + 3] == -9);
  row[2] = 5;
  CHECK_STATUS(kiln_put_along_axis(ctx, kiln_operand_array(dev),
                                   kiln_operand_host(row, KILN_INT64, 2, rshape, NULL),
                                   kiln_operand_int(1), 0, NULL),
               KILN_ERROR_OUT_OF_RANGE);
  CHECK_ERROR_CONTAINS("index 5 is out of bounds for axis 0 with size 5");
  kiln_array_release(dev);
  kiln_stream_release(stream);
}

/* ---- boolean masks --------------------------------------------------------------- */

static void test_mask_select(kiln_context *ctx) {
  const kiln_dtype dtypes[] = {KILN_FLOAT64, KILN_INT8, KILN_COMPLEX64, KILN_UINT16};
  int64_t shape[3] = {6, 5, 3}, n = 90;
  for (int t = 0; t < 4; t++) {
    kiln_dtype d = dtypes[t];
    size_t item = kiln_dtype_size(d);
    char *a = random_data(d, n), *got = malloc((size_t)n * item);
    uint8_t mask[90];
    float fmask[30];
    for (int i = 0; i < 90; i++) mask[i] = harness_rand_u64() % 3 == 0;
    for (int i = 0; i < 30; i++) fmask[i] = harness_rand_u64() % 2 ? 0.0f : 2.5f;
    /* full mask: 1-D result */
    kiln_array *out = NULL;
    int64_t count = -1, want = 0;
    CHECK_OK(kiln_mask_select(ctx, kiln_operand_host(a, d, 3, shape, NULL),
                              kiln_operand_host(mask, KILN_BOOL, 3, shape, NULL),
                              kiln_operand_new(&out), &count, NULL));
    for (int i = 0; i < 90; i++) want += mask[i];
    CHECK(count == want);
    if (out) {
      CHECK_OK(kiln_array_to_host(out, got, NULL));
      for (int i = 0, k = 0; i < 90; i++)
        if (mask[i]) CHECK(memcmp(got + (k++) * (int64_t)item, a + i * (int64_t)item, item) == 0);
    }
    kiln_array_release(out);
    out = NULL;
    /* a float mask over the leading (6, 5): rows of 3 */
    CHECK_OK(kiln_mask_select(ctx, kiln_operand_host(a, d, 3, shape, NULL),
                              kiln_operand_host(fmask, KILN_FLOAT32, 2, shape, NULL),
                              kiln_operand_new(&out), &count, NULL));
    want = 0;
    for (int i = 0; i < 30; i++) want += fmask[i] != 0;
    CHECK(count == want);
    if (out) {
      CHECK(kiln_array_ndim(out) == 2 && kiln_array_shape(out)[0] == want &&
            kiln_array_shape(out)[1] == 3);
      CHECK_OK(kiln_array_to_host(out, got, NULL));
      for (int i = 0, k = 0; i < 30; i++)
        if (fmask[i] != 0) CHECK(memcmp(got + 3 * (k++) * (int64_t)item, a + 3 * i * (int64_t)item, 3 * item) == 0);
    }
    kiln_array_release(out);
    free(a);
    free(got);
  }
  double a[4] = {1, 2, 3, 4};
  uint8_t m[3] = {1, 0, 1};
  int64_t n4 = 4, n3 = 3, count = 0;
  kiln_array *out = NULL;
  CHECK_STATUS(kiln_mask_select(ctx, kiln_operand_host(a, KILN_FLOAT64, 1, &n4, NULL),
                                kiln_operand_host(m, KILN_BOOL, 1, &n3, NULL),
                                kiln_operand_new(&out), &count, NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("mask has shape");
}

static void test_mask_assign(kiln_context *ctx) {
  int64_t shape[2] = {9, 4}, n = 36, rows = 9;
  int32_t a[36], want[36];
  uint8_t m[36], rowmask[9];
  for (int i = 0; i < 36; i++) {
    want[i] = a[i] = (int32_t)(harness_rand_u64() % 100);
    m[i] = harness_rand_u64() % 2;
  }
  for (int i = 0; i < 9; i++) rowmask[i] = i % 3 != 1;
  /* a scalar into host memory */
  for (int i = 0; i < 36; i++)
    if (m[i]) want[i] = -1;
  CHECK_OK(kiln_mask_assign(ctx, kiln_operand_host_output(a, KILN_INT32, 2, shape, NULL),
                            kiln_operand_host(m, KILN_BOOL, 2, shape, NULL), kiln_operand_int(-1),
                            NULL));
  CHECK(memcmp(a, want, sizeof a) == 0);
  /* one value per selected element, float64 values cast, device view */
  int64_t selected = 0;
  double v[36];
  for (int i = 0; i < 36; i++)
    if (m[i]) {
      v[selected] = 1000.0 + (double)selected;
      want[i] = (int32_t)v[selected];
      selected++;
    }
  kiln_array *base = NULL, *view = NULL;
  int64_t wide[2] = {9, 8};
  int32_t big[72] = {0};
  REQUIRE_OK(kiln_array_from_host(ctx, KILN_INT32, 2, wide, NULL, big, &base));
  kiln_slice sl[2] = {KILN_SLICE_ALL, {KILN_NONE, KILN_NONE, -2}};
  REQUIRE_OK(kiln_array_slice(base, 2, sl, &view));
  int32_t tmp[36];
  kiln_array *src = NULL;
  REQUIRE_OK(kiln_array_from_host(ctx, KILN_INT32, 2, shape, NULL, a, &src));
  CHECK_OK(kiln_array_copy_into(view, src));
  CHECK_OK(kiln_mask_assign(ctx, kiln_operand_array(view),
                            kiln_operand_host(m, KILN_BOOL, 2, shape, NULL),
                            kiln_operand_host(v, KILN_FLOAT64, 1, &selected, NULL), NULL));
  CHECK_OK(kiln_array_to_host(view, tmp, NULL));
  CHECK(memcmp(tmp, want, sizeof tmp) == 0);
  /* rows selected by a mask over axis 0, one row of values broadcast */
  int32_t rowv[4] = {7, 8, 9, 10};
  int64_t four = 4;
  for (int i = 0; i < 9; i++)
    if (rowmask[i])
      for (int j = 0; j < 4; j++) want[i * 4 + j] = rowv[j];
  CHECK_OK(kiln_mask_assign(ctx, kiln_operand_array(view),
                            kiln_operand_host(rowmask, KILN_BOOL, 1, &rows, NULL),
                            kiln_operand_host(rowv, KILN_INT32, 1, &four, NULL), NULL));
  CHECK_OK(kiln_array_to_host(view, tmp, NULL));
  CHECK(memcmp(tmp, want, sizeof tmp) == 0);
  /* bad: a values count that fits nothing */
  int64_t three = 3;
  CHECK_STATUS(kiln_mask_assign(ctx, kiln_operand_array(view),
                                kiln_operand_host(rowmask, KILN_BOOL, 1, &rows, NULL),
                                kiln_operand_host(rowv, KILN_INT32, 1, &three, NULL), NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("3 values for");
  (void)n;
  kiln_array_release(src);
  kiln_array_release(view);
  kiln_array_release(base);
}

static const harness_test tests[] = {
    {"take_flat", test_take_flat},
    {"take_axis", test_take_axis},
    {"take_bad_input", test_take_bad_input},
    {"take_large", test_take_large},
    {"take_checks", test_take_checks},
    {"put", test_put},
    {"put_last_wins", test_put_last_wins},
    {"put_sparse", test_put_sparse},
    {"put_forms", test_put_forms},
    {"put_any_wins", test_put_any_wins},
    {"take_along_axis", test_take_along_axis},
    {"put_along_axis", test_put_along_axis},
    {"mask_select", test_mask_select},
    {"mask_assign", test_mask_assign},
    {0}};

int main(int argc, char **argv) { return harness_main(argc, argv, tests); }
