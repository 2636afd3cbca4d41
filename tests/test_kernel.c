/* Conformance: raw kernels: compile, checked launches, local memory,
 * 2-D grids, scalar conversion, views as arguments, streams, events,
 * threads, and every error path. Kernels live in tests/kernels/. */
#include <pthread.h>

#include "harness.h"

static void saxpy_case(kiln_context *ctx, kiln_kernel *k, int64_t n, const int64_t *local) {
  float *x = malloc((size_t)(n + 1) * 4), *y = malloc((size_t)(n + 1) * 4), *out = malloc((size_t)(n + 1) * 4);
  harness_fill_random(x, KILN_FLOAT32, n, -10, 10);
  harness_fill_random(y, KILN_FLOAT32, n, -10, 10);
  float alpha = (float)harness_rand_uniform(0.5, 2);
  kiln_array *dx = NULL, *dy = NULL;
  CHECK_OK(kiln_array_from_host(ctx, KILN_FLOAT32, 1, &n, NULL, x, &dx));
  CHECK_OK(kiln_array_from_host(ctx, KILN_FLOAT32, 1, &n, NULL, y, &dy));
  kiln_arg args[4] = {kiln_arg_int64(n), kiln_arg_float32(alpha), kiln_arg_array(dx),
                      kiln_arg_array(dy)};
  int64_t global = n < 100000 ? n : 100000; /* grid-stride: fewer items than n */
  CHECK_OK(kiln_kernel_launch(k, 1, &global, local, 4, args, NULL));
  CHECK_OK(kiln_array_to_host(dy, out, NULL));
  for (int64_t i = 0; i < n; i++) {
    float expect = alpha * x[i] + y[i];
    CHECK_CLOSE(out[i], expect, 1e-6, 1e-6);
    if (harness_failures > 20) break;
  }
  kiln_array_release(dx);
  kiln_array_release(dy);
  free(x);
  free(y);
  free(out);
}

static void test_saxpy_sizes(kiln_context *ctx) {
  kiln_kernel *k = harness_kernel(ctx, "saxpy.kl", "saxpy");
  if (!k) return;
  CHECK(kiln_kernel_arg_count(k) == 4);
  static const int64_t sizes[] = {0, 1, 2, 31, 7919, 1 << 20, 1000003};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) saxpy_case(ctx, k, sizes[i], NULL);
  int64_t local = 64; /* explicit, global not a multiple of it */
  saxpy_case(ctx, k, 1001, &local);
  local = 1;
  saxpy_case(ctx, k, 17, &local);
  kiln_kernel_release(k);
}

static void test_grid_2d(kiln_context *ctx) {
  kiln_kernel *k = harness_kernel(ctx, "index_2d.kl", "index_2d");
  if (!k) return;
  const int64_t rows = 37, cols = 53;
  int32_t base = (int32_t)(harness_rand_u64() % 1000) + 1;
  kiln_array *out = NULL;
  int32_t minus = -1;
  REQUIRE_OK(kiln_array_full(ctx, KILN_INT32, 2, (int64_t[]){rows, cols}, &minus, &out));
  kiln_arg args[4] = {kiln_arg_int64(rows), kiln_arg_int64(cols), kiln_arg_int32(base),
                      kiln_arg_array(out)};
  int64_t global[2] = {cols, rows}, local[2] = {8, 4};
  for (int pass = 0; pass < 2; pass++) {
    CHECK_OK(kiln_kernel_launch(k, 2, global, pass ? local : NULL, 4, args, NULL));
    int32_t *h = malloc((size_t)(rows * cols) * 4);
    CHECK_OK(kiln_array_to_host(out, h, NULL));
    for (int64_t r = 0; r < rows; r++)
      for (int64_t c = 0; c < cols; c++) CHECK(h[r * cols + c] == (int32_t)(r * 1000 + c) + base);
    free(h);
    base += 7;
    args[2] = kiln_arg_int32(base);
  }
  kiln_array_release(out);
  kiln_kernel_release(k);
}

static void test_local_memory(kiln_context *ctx) {
  kiln_kernel *k = harness_kernel(ctx, "group_sum_local.kl", "group_sum_local");
  if (!k) return;
  const int64_t n = 4099, group = 64, groups = (n + group - 1) / group;
  float *x = malloc((size_t)n * 4);
  harness_fill_random(x, KILN_FLOAT32, n, -1, 1);
  kiln_array *dx = NULL, *sums = NULL;
  REQUIRE_OK(kiln_array_from_host(ctx, KILN_FLOAT32, 1, &n, NULL, x, &dx));
  REQUIRE_OK(kiln_array_empty(ctx, KILN_FLOAT32, 1, &groups, &sums));
  kiln_arg args[4] = {kiln_arg_int64(n), kiln_arg_array(dx), kiln_arg_array(sums),
                      kiln_arg_local((size_t)group * sizeof(float))};
  int64_t global = groups * group;
  CHECK_OK(kiln_kernel_launch(k, 1, &global, &group, 4, args, NULL));
  float *h = malloc((size_t)groups * 4);
  CHECK_OK(kiln_array_to_host(sums, h, NULL));
  for (int64_t g = 0; g < groups; g++) {
    double expect = 0;
    for (int64_t i = g * group; i < (g + 1) * group && i < n; i++) expect += x[i];
    CHECK_CLOSE(h[g], expect, 1e-5, 1e-5);
  }
  /* a local argument where an array is expected, and zero bytes */
  args[3] = kiln_arg_array(dx);
  CHECK_STATUS(kiln_kernel_launch(k, 1, &global, &group, 4, args, NULL), KILN_ERROR_INVALID_ARGUMENT);
  args[3] = kiln_arg_local(0);
  CHECK_STATUS(kiln_kernel_launch(k, 1, &global, &group, 4, args, NULL), KILN_ERROR_INVALID_ARGUMENT);
  free(x);
  free(h);
  kiln_array_release(dx);
  kiln_array_release(sums);
  kiln_kernel_release(k);
}

/* Scalars are converted to the parameter type (same-kind) and range-checked. */
static void test_scalar_conversion(kiln_context *ctx) {
  kiln_device_info info;
  kiln_context_device_info(ctx, &info);
  if (!info.has_double) {
    harness_skip("device has no float64");
    return;
  }
  kiln_kernel *k = harness_kernel(ctx, "scalar_types.kl", "scalar_types");
  if (!k) return;
  kiln_array *out = NULL;
  REQUIRE_OK(kiln_array_zeros(ctx, KILN_FLOAT64, 1, (int64_t[]){8}, &out));
  kiln_arg args[9] = {kiln_arg_int32(-100), kiln_arg_uint32(65000), kiln_arg_int64(-2000000000),
                      kiln_arg_uint64(4000000000u), kiln_arg_int32(-5),
                      kiln_arg_uint32(123456789u), kiln_arg_float64(0.375),
                      kiln_arg_float32(-2.5f), kiln_arg_array(out)};
  int64_t one = 1;
  CHECK_OK(kiln_kernel_launch(k, 1, &one, NULL, 9, args, NULL));
  double h[8];
  CHECK_OK(kiln_array_to_host(out, h, NULL));
  const double expect[8] = {-100, 65000, -2000000000.0, 4000000000.0, -5, 123456789, 0.375, -2.5};
  for (int i = 0; i < 8; i++) CHECK_MSG(h[i] == expect[i], "scalar %d: %g vs %g", i, h[i], expect[i]);
  /* out of range for int8, negative for uint16, float for an int: refused */
  args[0] = kiln_arg_int32(300);
  CHECK_STATUS(kiln_kernel_launch(k, 1, &one, NULL, 9, args, NULL), KILN_ERROR_OUT_OF_RANGE);
  args[0] = kiln_arg_int32(1);
  args[1] = kiln_arg_int64(-1);
  CHECK_STATUS(kiln_kernel_launch(k, 1, &one, NULL, 9, args, NULL), KILN_ERROR_OUT_OF_RANGE);
  args[1] = kiln_arg_uint32(1);
  args[2] = kiln_arg_float64(1.0);
  CHECK_STATUS(kiln_kernel_launch(k, 1, &one, NULL, 9, args, NULL), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("same-kind");
  args[2] = kiln_arg_int32(1);
  args[8] = kiln_arg_int32(1); /* scalar where the array goes */
  CHECK_STATUS(kiln_kernel_launch(k, 1, &one, NULL, 9, args, NULL), KILN_ERROR_INVALID_ARGUMENT);
  kiln_array_release(out);
  kiln_kernel_release(k);
}

/* A view with an offset as an argument: the kernel sees the view's start. */
static void test_view_argument(kiln_context *ctx) {
  kiln_kernel *k = harness_kernel(ctx, "saxpy.kl", "saxpy");
  if (!k) return;
  const int64_t n = 4096;
  float *x = malloc(n * 4), *y = malloc(n * 4), *out = malloc(n * 4);
  harness_fill_random(x, KILN_FLOAT32, n, -1, 1);
  harness_fill_random(y, KILN_FLOAT32, n, -1, 1);
  kiln_array *dx = NULL, *dy = NULL, *vx = NULL, *vy = NULL;
  REQUIRE_OK(kiln_array_from_host(ctx, KILN_FLOAT32, 1, &n, NULL, x, &dx));
  REQUIRE_OK(kiln_array_from_host(ctx, KILN_FLOAT32, 1, &n, NULL, y, &dy));
  /* offsets of 1024 floats (4 KiB): aligned for every backend */
  REQUIRE_OK(kiln_array_slice(dx, 1, (kiln_slice[]){{1024, KILN_NONE, 1}}, &vx));
  REQUIRE_OK(kiln_array_slice(dy, 1, (kiln_slice[]){{2048, KILN_NONE, 1}}, &vy));
  int64_t m = 2048;
  kiln_arg args[4] = {kiln_arg_int64(m), kiln_arg_float32(3), kiln_arg_array(vx), kiln_arg_array(vy)};
  CHECK_OK(kiln_kernel_launch(k, 1, &m, NULL, 4, args, NULL));
  CHECK_OK(kiln_array_to_host(dy, out, NULL));
  for (int64_t i = 0; i < n; i++) {
    float expect = i < 2048 ? y[i] : 3 * x[i - 1024] + y[i];
    CHECK_CLOSE(out[i], expect, 1e-6, 1e-6);
    if (harness_failures > 20) break;
  }
  free(x);
  free(y);
  free(out);
  kiln_array_release(vx);
  kiln_array_release(vy);
  kiln_array_release(dx);
  kiln_array_release(dy);
  kiln_kernel_release(k);
}

static void test_compile_error(kiln_context *ctx) {
  char *source = harness_load_kernel("invalid/missing_operand.kl");
  if (!source) return;
  kiln_kernel *k = NULL;
  CHECK_STATUS(kiln_kernel_create(ctx, source, "missing_operand", NULL, &k), KILN_ERROR_COMPILE);
  CHECK(k == NULL);
  CHECK_ERROR_CONTAINS("failed to compile");
  /* numbered source */
  CHECK_ERROR_CONTAINS("   3 | KILN_KERNEL void missing_operand(KILN_GLOBAL float *x) { x[0] = 1.0f +; }");
  /* the log names the user's own line: clang "kernel:3:", NVRTC "kernel(3)",
   * compilers that ignore #line annotated by kiln "(kernel:3)" */
  CHECK_MSG(strstr(kiln_last_error(), "kernel:3:") || strstr(kiln_last_error(), "kernel(3)") ||
                strstr(kiln_last_error(), "(kernel:3)"),
            "log does not point at kernel line 3: %s", kiln_last_error());
  free(source);
}

static void test_bad_kernels_and_launches(kiln_context *ctx) {
  kiln_kernel *k = NULL;
  char *source = harness_load_kernel("bad_param_type.kl");
  if (source) {
    CHECK_STATUS(kiln_kernel_create(ctx, source, "bad_param_type", NULL, &k), KILN_ERROR_INVALID_ARGUMENT);
    CHECK_ERROR_CONTAINS("size_t");
    free(source);
  }
  source = harness_load_kernel("saxpy.kl");
  if (!source) return;
  CHECK_STATUS(kiln_kernel_create(ctx, source, "no_such_kernel", NULL, &k), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("no_such_kernel");
  /* regression (found by fuzz_kernel_params): names that are not
   * identifiers are refused before any search of the source */
  CHECK_STATUS(kiln_kernel_create(ctx, source, "saxpy y", NULL, &k), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("not an identifier");
  CHECK_STATUS(kiln_kernel_create(ctx, source, "1saxpy", NULL, &k), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("not an identifier");
  CHECK(k == NULL);
  CHECK_STATUS(kiln_kernel_create(NULL, source, "saxpy", NULL, &k), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_kernel_create(ctx, NULL, "saxpy", NULL, &k), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_kernel_create(ctx, source, NULL, NULL, &k), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_kernel_create(ctx, source, "saxpy", NULL, NULL), KILN_ERROR_INVALID_ARGUMENT);
  REQUIRE_OK(kiln_kernel_create(ctx, source, "saxpy", "-DUNUSED_OPTION=1", &k));
  free(source);
  kiln_array *f = NULL, *i32 = NULL;
  REQUIRE_OK(kiln_array_zeros(ctx, KILN_FLOAT32, 1, (int64_t[]){8}, &f));
  REQUIRE_OK(kiln_array_zeros(ctx, KILN_INT32, 1, (int64_t[]){8}, &i32));
  int64_t global = 8, local = 1 << 30, negative = -1;
  kiln_arg args[4] = {kiln_arg_int64(8), kiln_arg_float32(1), kiln_arg_array(f), kiln_arg_array(f)};
  CHECK_STATUS(kiln_kernel_launch(k, 1, &global, NULL, 3, args, NULL), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("takes 4 arguments, 3 given");
  CHECK_STATUS(kiln_kernel_launch(k, 1, &global, NULL, 5, args, NULL), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_kernel_launch(k, 4, &global, NULL, 4, args, NULL), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_kernel_launch(k, 1, &negative, NULL, 4, args, NULL), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_kernel_launch(k, 1, &global, &local, 4, args, NULL), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_kernel_launch(k, 1, &global, &negative, 4, args, NULL), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_kernel_launch(k, 1, NULL, NULL, 4, args, NULL), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_kernel_launch(NULL, 1, &global, NULL, 4, args, NULL), KILN_ERROR_INVALID_ARGUMENT);
  args[3] = kiln_arg_array(i32); /* int32 array for a float pointer */
  CHECK_STATUS(kiln_kernel_launch(k, 1, &global, NULL, 4, args, NULL), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("int32");
  args[3] = kiln_arg_array(NULL);
  CHECK_STATUS(kiln_kernel_launch(k, 1, &global, NULL, 4, args, NULL), KILN_ERROR_INVALID_ARGUMENT);
  args[3] = kiln_arg_float32(2); /* scalar for a pointer */
  CHECK_STATUS(kiln_kernel_launch(k, 1, &global, NULL, 4, args, NULL), KILN_ERROR_INVALID_ARGUMENT);
  /* zero work-items: nothing runs, not an error */
  int64_t zero = 0;
  args[3] = kiln_arg_array(f);
  CHECK_OK(kiln_kernel_launch(k, 1, &zero, NULL, 4, args, NULL));
  kiln_array_release(f);
  kiln_array_release(i32);
  kiln_kernel_release(k);
  kiln_kernel_release(NULL);
}

/* An array of another context is refused. */
static void test_other_context_array(kiln_context *ctx) {
  kiln_context *other = NULL;
  REQUIRE_OK(kiln_context_create(NULL, &other));
  kiln_kernel *k = harness_kernel(ctx, "saxpy.kl", "saxpy");
  kiln_array *a = NULL, *b = NULL;
  if (k) {
    REQUIRE_OK(kiln_array_zeros(other, KILN_FLOAT32, 1, (int64_t[]){4}, &a));
    REQUIRE_OK(kiln_array_zeros(ctx, KILN_FLOAT32, 1, (int64_t[]){4}, &b));
    int64_t global = 4;
    kiln_arg args[4] = {kiln_arg_int64(4), kiln_arg_float32(1), kiln_arg_array(a), kiln_arg_array(b)};
    CHECK_STATUS(kiln_kernel_launch(k, 1, &global, NULL, 4, args, NULL), KILN_ERROR_INVALID_ARGUMENT);
    CHECK_ERROR_CONTAINS("another context");
    CHECK_STATUS(kiln_array_copy_into(b, a), KILN_ERROR_INVALID_ARGUMENT);
  }
  kiln_array_release(a);
  kiln_array_release(b);
  kiln_kernel_release(k);
  kiln_context_release(other);
}

static void test_streams_and_events(kiln_context *ctx) {
  kiln_kernel *k = harness_kernel(ctx, "saxpy.kl", "saxpy");
  if (!k) return;
  kiln_stream *s = NULL;
  kiln_event *start = NULL, *stop = NULL;
  REQUIRE_OK(kiln_stream_create(ctx, &s));
  REQUIRE_OK(kiln_event_create(ctx, &start));
  REQUIRE_OK(kiln_event_create(ctx, &stop));
  double ms = -1;
  CHECK_STATUS(kiln_event_elapsed_ms(start, stop, &ms), KILN_ERROR_INVALID_ARGUMENT);
  const int64_t n = 1 << 18;
  float *x = malloc(n * 4), *out = malloc(n * 4);
  harness_fill_random(x, KILN_FLOAT32, n, -1, 1);
  kiln_array *dx = NULL, *dy = NULL;
  REQUIRE_OK(kiln_array_from_host(ctx, KILN_FLOAT32, 1, &n, NULL, x, &dx));
  REQUIRE_OK(kiln_array_zeros(ctx, KILN_FLOAT32, 1, &n, &dy));
  kiln_arg args[4] = {kiln_arg_int64(n), kiln_arg_float32(2), kiln_arg_array(dx), kiln_arg_array(dy)};
  CHECK_OK(kiln_context_synchronize(ctx)); /* the zeros fill is on the default stream */
  CHECK_OK(kiln_event_record(start, s));
  for (int r = 0; r < 3; r++) CHECK_OK(kiln_kernel_launch(k, 1, &n, NULL, 4, args, s));
  CHECK_OK(kiln_event_record(stop, s));
  CHECK_OK(kiln_event_synchronize(stop));
  CHECK_OK(kiln_event_elapsed_ms(start, stop, &ms));
  CHECK(ms >= 0);
  CHECK_OK(kiln_stream_synchronize(ctx, s));
  CHECK_OK(kiln_array_to_host(dy, out, NULL));
  for (int64_t i = 0; i < n; i += 97) CHECK_CLOSE(out[i], 6 * x[i], 1e-6, 1e-6);
  /* ordered across streams by an event: 40 launches on s add 2x to y each,
   * then s2 (after its wait) adds y to z and the default stream (after
   * its own) reads y; the host waits for neither s nor, before z, s2 */
  kiln_stream *s2 = NULL;
  kiln_event *done = NULL;
  kiln_array *dz = NULL;
  REQUIRE_OK(kiln_stream_create(ctx, &s2));
  REQUIRE_OK(kiln_event_create(ctx, &done));
  CHECK_STATUS(kiln_stream_wait_event(s2, done), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("never recorded");
  CHECK_STATUS(kiln_stream_wait_event(s2, NULL), KILN_ERROR_INVALID_ARGUMENT);
  REQUIRE_OK(kiln_array_zeros(ctx, KILN_FLOAT32, 1, &n, &dz));
  REQUIRE_OK(kiln_array_copy_into(dy, dz));
  CHECK_OK(kiln_context_synchronize(ctx)); /* the fill and the copy are on the default stream */
  for (int r = 0; r < 40; r++) CHECK_OK(kiln_kernel_launch(k, 1, &n, NULL, 4, args, s));
  CHECK_OK(kiln_event_record(done, s));
  CHECK_OK(kiln_stream_wait_event(s2, done));
  kiln_arg add[4] = {kiln_arg_int64(n), kiln_arg_float32(1), kiln_arg_array(dy),
                     kiln_arg_array(dz)};
  CHECK_OK(kiln_kernel_launch(k, 1, &n, NULL, 4, add, s2));
  CHECK_OK(kiln_stream_wait_event(NULL, done));
  CHECK_OK(kiln_array_to_host(dy, out, NULL));
  int64_t bad = 0;
  for (int64_t i = 0; i < n; i++) bad += fabsf(out[i] - 80 * x[i]) > 1e-4f * (1 + fabsf(x[i]));
  CHECK_MSG(bad == 0, "y after the default stream's wait: %lld of %lld wrong", (long long)bad,
            (long long)n);
  CHECK_OK(kiln_stream_synchronize(ctx, s2));
  CHECK_OK(kiln_array_to_host(dz, out, NULL));
  bad = 0;
  for (int64_t i = 0; i < n; i++) bad += fabsf(out[i] - 80 * x[i]) > 1e-4f * (1 + fabsf(x[i]));
  CHECK_MSG(bad == 0, "z after s2's wait: %lld of %lld wrong", (long long)bad, (long long)n);
  kiln_context *other = NULL;
  if (kiln_context_create(NULL, &other) == KILN_OK) {
    kiln_stream *foreign = NULL;
    REQUIRE_OK(kiln_stream_create(other, &foreign));
    CHECK_STATUS(kiln_stream_wait_event(foreign, done), KILN_ERROR_INVALID_ARGUMENT);
    CHECK_ERROR_CONTAINS("another context");
    kiln_stream_release(foreign);
    kiln_context_release(other);
  }
  kiln_array_release(dz);
  kiln_event_release(done);
  kiln_stream_release(s2);
  kiln_array_release(dx);
  kiln_array_release(dy);
  free(x);
  free(out);
  kiln_event_release(start);
  kiln_event_release(stop);
  kiln_stream_release(s);
  kiln_kernel_release(k);
}

/* Several threads create and launch the same kernel at once. */
typedef struct thread_job {
  kiln_context *ctx;
  int ok;
} thread_job;

static void *thread_run(void *p) {
  thread_job *job = p;
  char *source = harness_load_kernel("saxpy.kl");
  kiln_kernel *k = NULL;
  job->ok = source && kiln_kernel_create(job->ctx, source, "saxpy", NULL, &k) == KILN_OK;
  free(source);
  const int64_t n = 3001;
  float x[3001], out[3001];
  for (int i = 0; i < n; i++) x[i] = (float)(i % 17) + 1;
  for (int round = 0; round < 20 && job->ok; round++) {
    kiln_array *dx = NULL, *dy = NULL;
    job->ok = kiln_array_from_host(job->ctx, KILN_FLOAT32, 1, &n, NULL, x, &dx) == KILN_OK &&
              kiln_array_zeros(job->ctx, KILN_FLOAT32, 1, &n, &dy) == KILN_OK;
    kiln_arg args[4] = {kiln_arg_int64(n), kiln_arg_float32((float)round), kiln_arg_array(dx),
                        kiln_arg_array(dy)};
    job->ok = job->ok && kiln_kernel_launch(k, 1, &n, NULL, 4, args, NULL) == KILN_OK &&
              kiln_array_to_host(dy, out, NULL) == KILN_OK;
    for (int i = 0; i < n && job->ok; i++) job->ok = out[i] == (float)round * x[i];
    kiln_array_release(dx);
    kiln_array_release(dy);
  }
  kiln_kernel_release(k);
  return NULL;
}

static void test_threads(kiln_context *ctx) {
  enum { T = 4 };
  pthread_t threads[T];
  thread_job jobs[T];
  for (int t = 0; t < T; t++) {
    jobs[t] = (thread_job){ctx, 0};
    pthread_create(&threads[t], NULL, thread_run, &jobs[t]);
  }
  for (int t = 0; t < T; t++) {
    pthread_join(threads[t], NULL);
    CHECK_MSG(jobs[t].ok, "thread %d got a wrong result or an error", t);
  }
}

/* More than 2^31 work-items in a grid-stride loop: 64-bit indices. */
static void test_index_beyond_2_31(kiln_context *ctx) {
  kiln_kernel *k = harness_kernel(ctx, "count_beyond_2_31.kl", "count_beyond_2_31");
  if (!k) return;
  const int64_t extra = 1 + (int64_t)(harness_rand_u64() % 40);
  const int64_t n = ((int64_t)1 << 31) + extra;
  kiln_array *result = NULL;
  REQUIRE_OK(kiln_array_zeros(ctx, KILN_UINT32, 1, (int64_t[]){2}, &result));
  kiln_arg args[2] = {kiln_arg_int64(n), kiln_arg_array(result)};
  kiln_device_info info;
  kiln_context_device_info(ctx, &info);
  /* the loop covers n whatever the grid: a few work-items per unit */
  int64_t global = (int64_t)info.compute_units * 1024;
  CHECK_OK(kiln_kernel_launch(k, 1, &global, NULL, 2, args, NULL));
  uint32_t h[2];
  CHECK_OK(kiln_array_to_host(result, h, NULL));
  CHECK_MSG(h[0] == (uint32_t)extra, "count %u, expected %lld", h[0], (long long)extra);
  CHECK_MSG(h[1] == (uint32_t)(extra * (extra - 1) / 2), "sum %u", h[1]);
  kiln_array_release(result);
  kiln_kernel_release(k);
}

static const harness_test tests[] = {
    {"index_beyond_2_31", test_index_beyond_2_31},
    {"saxpy_sizes", test_saxpy_sizes},
    {"grid_2d", test_grid_2d},
    {"local_memory", test_local_memory},
    {"scalar_conversion", test_scalar_conversion},
    {"view_argument", test_view_argument},
    {"compile_error", test_compile_error},
    {"bad_kernels_and_launches", test_bad_kernels_and_launches},
    {"other_context_array", test_other_context_array},
    {"streams_and_events", test_streams_and_events},
    {"threads", test_threads},
    {0},
};

int main(int argc, char **argv) { return harness_main(argc, argv, tests); }
