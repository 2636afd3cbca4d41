/* Conformance: pinned host memory (kiln/memory.h). Allocation and
 * registration, the range table (kiln_host_is_pinned), array transfers
 * from and to pinned and registered memory with random data (C order,
 * strided views, edge sizes), ufunc calls whose host operands lie in pinned
 * memory (alone and mixed with pageable and device operands, contiguous and
 * strided, chunked), and bad input: NULL, zero sizes, foreign pointers,
 * overlaps, double free and double unregister. */
#include <pthread.h>
#include <stdint.h>

#include "harness.h"

static const int64_t sizes[] = {1, 2, 7, 1009, 65537, 1000003};

static void test_alloc_and_transfer(kiln_context *ctx) {
  for (size_t t = 0; t < sizeof sizes / sizeof sizes[0]; t++) {
    int64_t n = sizes[t];
    float *in = NULL, *out = NULL;
    REQUIRE_OK(kiln_host_alloc(ctx, (size_t)n * 4, (void **)&in));
    REQUIRE_OK(kiln_host_alloc(ctx, (size_t)n * 4, (void **)&out));
    CHECK(kiln_host_is_pinned(ctx, in, (size_t)n * 4));
    CHECK(kiln_host_is_pinned(ctx, in + n / 2, (size_t)(n - n / 2) * 4));
    CHECK(!kiln_host_is_pinned(ctx, in, (size_t)n * 4 + 1));
    harness_fill_random(in, KILN_FLOAT32, n, -1e3, 1e3);
    memset(out, 0, (size_t)n * 4);
    kiln_array *a = NULL;
    CHECK_OK(kiln_array_from_host(ctx, KILN_FLOAT32, 1, &n, NULL, in, &a));
    CHECK_OK(kiln_array_to_host(a, out, NULL));
    CHECK_MSG(memcmp(in, out, (size_t)n * 4) == 0, "n = %lld: round trip differs", (long long)n);
    /* a strided host layout inside pinned memory: every other element */
    if (n >= 2) {
      int64_t half = n / 2, stride = 8;
      kiln_array *b = NULL;
      CHECK_OK(kiln_array_from_host(ctx, KILN_FLOAT32, 1, &half, &stride, in, &b));
      float *dense = malloc((size_t)half * 4);
      CHECK_OK(kiln_array_to_host(b, dense, NULL));
      for (int64_t i = 0; i < half; i++) CHECK(dense[i] == in[2 * i]);
      memset(out, 0, (size_t)n * 4);
      CHECK_OK(kiln_array_to_host(b, out, &stride));
      for (int64_t i = 0; i < half; i++) CHECK(out[2 * i] == in[2 * i] && out[2 * i + 1] == 0);
      free(dense);
      kiln_array_release(b);
    }
    kiln_array_release(a);
    CHECK_OK(kiln_host_free(ctx, in));
    CHECK_OK(kiln_host_free(ctx, out));
    CHECK(!kiln_host_is_pinned(ctx, in, 4));
  }
}

static void test_register_and_transfer(kiln_context *ctx) {
  for (size_t t = 0; t < sizeof sizes / sizeof sizes[0]; t++) {
    int64_t n = sizes[t];
    size_t bytes = ((size_t)n * 8 + 4095) / 4096 * 4096;
    double *in = aligned_alloc(4096, bytes), *out = aligned_alloc(4096, bytes);
    harness_fill_random(in, KILN_FLOAT64, n, -1e6, 1e6);
    memset(out, 0, bytes);
    kiln_status s = kiln_host_register(ctx, in, bytes);
    if (s == KILN_ERROR_UNIMPLEMENTED) {
      harness_skip("backend cannot pin existing memory: %s", kiln_last_error());
      free(in);
      free(out);
      return;
    }
    CHECK_OK(s);
    CHECK_OK(kiln_host_register(ctx, out, (size_t)n * 8)); /* any length */
    CHECK(kiln_host_is_pinned(ctx, in, (size_t)n * 8));
    CHECK(kiln_host_is_pinned(ctx, out, (size_t)n * 8));
    kiln_array *a = NULL;
    CHECK_OK(kiln_array_from_host(ctx, KILN_FLOAT64, 1, &n, NULL, in, &a));
    CHECK_OK(kiln_array_to_host(a, out, NULL));
    CHECK_MSG(memcmp(in, out, (size_t)n * 8) == 0, "n = %lld: round trip differs", (long long)n);
    kiln_array_release(a);
    CHECK_OK(kiln_host_unregister(ctx, in));
    CHECK_OK(kiln_host_unregister(ctx, out));
    CHECK(!kiln_host_is_pinned(ctx, in, 8));
    /* still the caller's memory and still usable */
    CHECK_OK(kiln_array_from_host(ctx, KILN_FLOAT64, 1, &n, NULL, in, &a));
    memset(out, 0, bytes);
    CHECK_OK(kiln_array_to_host(a, out, NULL));
    CHECK(memcmp(in, out, (size_t)n * 8) == 0);
    kiln_array_release(a);
    free(in);
    free(out);
  }
}

static kiln_ufunc *twice_minus(kiln_context *ctx) {
  const char *sig = "float32(float32 x, float32 y)";
  kiln_ufunc *u = NULL;
  CHECK_OK(kiln_ufunc_create(ctx, "pinned_twice_minus", 1, &sig, "return x * 2 - y;", NULL, &u));
  return u;
}

/* x * 2 - y in float32 on host operands: pinned, registered, pageable. */
static void test_ufunc_host_operands(kiln_context *ctx) {
  kiln_ufunc *u = twice_minus(ctx);
  if (!u) return;
  static const size_t chunks[] = {4096, 1 << 20, 64 << 20};
  for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {
    CHECK_OK(kiln_ufunc_set_host_chunk_bytes(u, chunks[c]));
    for (size_t t = 0; t < sizeof sizes / sizeof sizes[0]; t++) {
      int64_t n = sizes[t];
      if (chunks[c] < 65536 && n > 100000) continue;
      size_t bytes = (size_t)n * 4;
      float *x = NULL, *r = NULL;
      REQUIRE_OK(kiln_host_alloc(ctx, bytes, (void **)&x));
      REQUIRE_OK(kiln_host_alloc(ctx, bytes, (void **)&r));
      float *y = malloc(bytes); /* pageable, staged */
      float *r2 = aligned_alloc(4096, (bytes + 4095) / 4096 * 4096);
      harness_fill_random(x, KILN_FLOAT32, n, -100, 100);
      harness_fill_random(y, KILN_FLOAT32, n, -100, 100);
      for (int64_t i = 0; i < n; i++) r[i] = r2[i] = -12345;
      int registered = kiln_host_register(ctx, r2, bytes) == KILN_OK;
      kiln_operand in[2] = {kiln_operand_host(x, KILN_FLOAT32, 1, &n, NULL),
                            kiln_operand_host(y, KILN_FLOAT32, 1, &n, NULL)};
      kiln_operand out[1] = {kiln_operand_host_output(r, KILN_FLOAT32, 1, &n, NULL)};
      CHECK_OK(kiln_ufunc_call(u, 2, in, 1, out, NULL));
      /* pinned output, both inputs swapped so the pinned one is y */
      kiln_operand in2[2] = {kiln_operand_host(y, KILN_FLOAT32, 1, &n, NULL),
                             kiln_operand_host(x, KILN_FLOAT32, 1, &n, NULL)};
      kiln_operand out2[1] = {kiln_operand_host_output(r2, KILN_FLOAT32, 1, &n, NULL)};
      CHECK_OK(kiln_ufunc_call(u, 2, in2, 1, out2, NULL));
      int64_t bad = 0;
      for (int64_t i = 0; i < n; i++) {
        float e1 = x[i] * 2 - y[i], e2 = y[i] * 2 - x[i];
        if (fabsf(r[i] - e1) > 1e-5f * fabsf(e1) + 1e-6f || fabsf(r2[i] - e2) > 1e-5f * fabsf(e2) + 1e-6f)
          if (bad++ == 0)
            harness_fail(__FILE__, __LINE__, "chunk %zu n %lld element %lld: %g %g, expected %g %g",
                         chunks[c], (long long)n, (long long)i, (double)r[i], (double)r2[i],
                         (double)e1, (double)e2);
      }
      if (registered) CHECK_OK(kiln_host_unregister(ctx, r2));
      CHECK_OK(kiln_host_free(ctx, x));
      CHECK_OK(kiln_host_free(ctx, r));
      free(y);
      free(r2);
    }
  }
  kiln_ufunc_release(u);
}

/* Strided and broadcast host operands inside pinned memory take the staged
 * path; a device operand mixes in. */
static void test_ufunc_strided_pinned(kiln_context *ctx) {
  kiln_ufunc *u = twice_minus(ctx);
  if (!u) return;
  CHECK_OK(kiln_ufunc_set_host_chunk_bytes(u, 8192));
  int64_t shape[2] = {67, 131};
  int64_t n = shape[0] * shape[1];
  float *x = NULL, *r = NULL;
  REQUIRE_OK(kiln_host_alloc(ctx, (size_t)n * 8, (void **)&x)); /* room for stride 2 */
  REQUIRE_OK(kiln_host_alloc(ctx, (size_t)n * 4, (void **)&r));
  harness_fill_random(x, KILN_FLOAT32, 2 * n, -100, 100);
  float *row = malloc((size_t)shape[1] * 4);
  harness_fill_random(row, KILN_FLOAT32, shape[1], -100, 100);
  kiln_array *drow = NULL;
  CHECK_OK(kiln_array_from_host(ctx, KILN_FLOAT32, 1, &shape[1], NULL, row, &drow));
  kiln_array *bcast = NULL;
  CHECK_OK(kiln_array_broadcast_to(drow, 2, shape, &bcast));
  int64_t xs[2] = {shape[1] * 8, 8}; /* every other float */
  kiln_operand in[2] = {kiln_operand_host(x, KILN_FLOAT32, 2, shape, xs), kiln_operand_array(bcast)};
  kiln_operand out[1] = {kiln_operand_host_output(r, KILN_FLOAT32, 2, shape, NULL)};
  CHECK_OK(kiln_ufunc_call(u, 2, in, 1, out, NULL));
  int64_t bad = 0;
  for (int64_t i = 0; i < shape[0]; i++)
    for (int64_t j = 0; j < shape[1]; j++) {
      float e = x[2 * (i * shape[1] + j)] * 2 - row[j];
      if (fabsf(r[i * shape[1] + j] - e) > 1e-5f * fabsf(e) + 1e-6f && bad++ == 0)
        harness_fail(__FILE__, __LINE__, "[%lld,%lld]: %g, expected %g", (long long)i,
                     (long long)j, (double)r[i * shape[1] + j], (double)e);
    }
  kiln_array_release(bcast);
  kiln_array_release(drow);
  CHECK_OK(kiln_host_free(ctx, x));
  CHECK_OK(kiln_host_free(ctx, r));
  free(row);
  kiln_ufunc_release(u);
}

/* Large pageable transfers go through the pinned staging lanes: sizes
 * around the lanes' and chunks' edges, a view with an offset, and two
 * threads at once (one of them copies directly). */
static void staged_round_trip(kiln_context *ctx, int64_t n, int *failures) {
  uint32_t *in = malloc((size_t)n * 4), *out = malloc((size_t)n * 4);
  for (int64_t i = 0; i < n; i++) in[i] = (uint32_t)harness_rand_u64() | 1u;
  memset(out, 0, (size_t)n * 4);
  kiln_array *a = NULL;
  if (kiln_array_from_host(ctx, KILN_UINT32, 1, &n, NULL, in, &a) != KILN_OK ||
      kiln_array_to_host(a, out, NULL) != KILN_OK || memcmp(in, out, (size_t)n * 4) != 0)
    (*failures)++;
  /* a view starting 3 elements in */
  kiln_slice tail = {3, KILN_NONE, KILN_NONE};
  kiln_array *v = NULL;
  if (a && kiln_array_slice(a, 1, &tail, &v) == KILN_OK) {
    memset(out, 0, (size_t)n * 4);
    if (kiln_array_to_host(v, out, NULL) != KILN_OK || memcmp(in + 3, out, (size_t)(n - 3) * 4))
      (*failures)++;
  } else {
    (*failures)++;
  }
  kiln_array_release(v);
  kiln_array_release(a);
  free(in);
  free(out);
}

typedef struct staged_job {
  kiln_context *ctx;
  int64_t n;
  int failures;
} staged_job;

static void *staged_thread(void *arg) {
  staged_job *job = arg;
  for (int r = 0; r < 2; r++) staged_round_trip(job->ctx, job->n, &job->failures);
  return NULL;
}

static void test_staged_pageable_transfer(kiln_context *ctx) {
  static const int64_t counts[] = {(16 << 20) / 4, (16 << 20) / 4 + 1, 10485763 /* prime */};
  int failures = 0;
  for (size_t t = 0; t < sizeof counts / sizeof counts[0]; t++)
    staged_round_trip(ctx, counts[t], &failures);
  CHECK_MSG(failures == 0, "%d staged round trips differ", failures);
  pthread_t threads[2];
  staged_job jobs[2] = {{ctx, 4194319, 0}, {ctx, 5000011, 0}};
  for (int t = 0; t < 2; t++) CHECK(pthread_create(&threads[t], NULL, staged_thread, &jobs[t]) == 0);
  for (int t = 0; t < 2; t++) {
    pthread_join(threads[t], NULL);
    CHECK_MSG(jobs[t].failures == 0, "thread %d: %d round trips differ", t, jobs[t].failures);
  }
}

static void test_bad_input(kiln_context *ctx) {
  void *p = NULL;
  CHECK_STATUS(kiln_host_alloc(NULL, 16, &p), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_host_alloc(ctx, 16, NULL), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_host_alloc(ctx, 0, &p), KILN_ERROR_INVALID_ARGUMENT);
  CHECK(p == NULL);
  CHECK_OK(kiln_host_free(ctx, NULL));
  CHECK_STATUS(kiln_host_free(NULL, p), KILN_ERROR_INVALID_ARGUMENT);
  char local[64];
  CHECK_STATUS(kiln_host_free(ctx, local), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("kiln_host_alloc");
  REQUIRE_OK(kiln_host_alloc(ctx, 100, &p));
  CHECK_STATUS(kiln_host_free(ctx, (char *)p + 4), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_host_unregister(ctx, p), KILN_ERROR_INVALID_ARGUMENT); /* not registered */
  CHECK_OK(kiln_host_free(ctx, p));
  CHECK_STATUS(kiln_host_free(ctx, p), KILN_ERROR_INVALID_ARGUMENT); /* double free */

  CHECK_STATUS(kiln_host_register(NULL, local, 64), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_host_register(ctx, NULL, 64), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_host_register(ctx, local, 0), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_host_unregister(ctx, NULL), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_host_unregister(NULL, local), KILN_ERROR_INVALID_ARGUMENT);
  size_t bytes = 3 * 4096;
  char *mine = aligned_alloc(4096, bytes);
  kiln_status s = kiln_host_register(ctx, mine, bytes);
  if (s == KILN_OK) {
    CHECK_STATUS(kiln_host_register(ctx, mine + 4096, 4096), KILN_ERROR_INVALID_ARGUMENT);
    CHECK_ERROR_CONTAINS("overlaps");
    CHECK_STATUS(kiln_host_unregister(ctx, mine + 4096), KILN_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(kiln_host_free(ctx, mine), KILN_ERROR_INVALID_ARGUMENT); /* registered, not ours */
    CHECK_OK(kiln_host_unregister(ctx, mine));
    CHECK_STATUS(kiln_host_unregister(ctx, mine), KILN_ERROR_INVALID_ARGUMENT); /* double */
    CHECK_ERROR_CONTAINS("kiln_host_register");
  } else {
    CHECK(s == KILN_ERROR_UNIMPLEMENTED);
  }
  CHECK(!kiln_host_is_pinned(NULL, mine, 1));
  CHECK(!kiln_host_is_pinned(ctx, NULL, 1));
  free(mine);
}

/* What is left pinned when the context goes is released with it. */
static void test_left_at_context_release(kiln_context *ctx) {
  kiln_device_info info;
  CHECK_OK(kiln_context_device_info(ctx, &info));
  kiln_context_options o;
  kiln_context_options_init(&o);
  o.backends = info.backend;
  kiln_context *other = NULL;
  REQUIRE_OK(kiln_context_create(&o, &other));
  void *p = NULL;
  CHECK_OK(kiln_host_alloc(other, 1 << 16, &p));
  char *mine = aligned_alloc(4096, 8192);
  kiln_status s = kiln_host_register(other, mine, 8192);
  CHECK(s == KILN_OK || s == KILN_ERROR_UNIMPLEMENTED);
  CHECK(!kiln_host_is_pinned(ctx, p, 1)); /* per context */
  kiln_context_release(other);
  free(mine);
}

static const harness_test tests[] = {
    {"alloc_and_transfer", test_alloc_and_transfer},
    {"register_and_transfer", test_register_and_transfer},
    {"ufunc_host_operands", test_ufunc_host_operands},
    {"ufunc_strided_pinned", test_ufunc_strided_pinned},
    {"staged_pageable_transfer", test_staged_pageable_transfer},
    {"bad_input", test_bad_input},
    {"left_at_context_release", test_left_at_context_release},
    {0}};

int main(int argc, char **argv) { return harness_main(argc, argv, tests); }
