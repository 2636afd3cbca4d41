/* tests/test_multi_device.c: several contexts in one process. Two contexts
 * (on two devices where the backend has two, else twice the same device, as
 * on PoCL) are used from two threads at once, and arrays are copied between
 * them with kiln_array_copy_to_context; values are checked against host
 * references on random data, views and edge sizes. */
#include <pthread.h>

#include "harness.h"

/* A second context on the backend under test: device 1 when there is one. */
static kiln_context *second_context(kiln_context *ctx) {
  kiln_device_info info;
  if (kiln_context_device_info(ctx, &info) != KILN_OK) return NULL;
  int count = 0;
  CHECK_OK(kiln_backend_device_count(info.backend, NULL, &count));
  kiln_context_options options;
  kiln_context_options_init(&options);
  options.backends = info.backend;
  options.device = count > 1 ? (info.index + 1) % count : info.index;
  kiln_context *other = NULL;
  CHECK_OK(kiln_context_create(&options, &other));
  if (other) {
    kiln_device_info oinfo;
    CHECK_OK(kiln_context_device_info(other, &oinfo));
    printf("    contexts on %s device %d and %d (%d device(s))\n", info.backend, info.index,
           oinfo.index, count);
  }
  return other;
}

typedef struct worker {
  kiln_context *ctx;
  const double *input;
  double *output;
  int64_t n;
  double factor;
  kiln_status status;
  char error[512];
} worker;

/* On its own context and stream, repeatedly: upload, y = x * factor + 1,
 * download. */
static void *worker_run(void *arg) {
  worker *w = arg;
  kiln_ufunc *multiply = NULL, *add = NULL;
  kiln_stream *stream = NULL;
  kiln_array *x = NULL, *y = NULL;
  kiln_status s = kiln_ufunc_builtin(w->ctx, "multiply", &multiply);
  if (s == KILN_OK) s = kiln_ufunc_builtin(w->ctx, "add", &add);
  if (s == KILN_OK) s = kiln_stream_create(w->ctx, &stream);
  for (int round = 0; round < 4 && s == KILN_OK; round++) {
    kiln_array_release(x);
    kiln_array_release(y);
    x = y = NULL;
    s = kiln_array_from_host(w->ctx, KILN_FLOAT64, 1, &w->n, NULL, w->input, &x);
    kiln_operand in[2] = {kiln_operand_array(x), kiln_operand_float(w->factor)};
    kiln_operand out[1] = {kiln_operand_new(&y)};
    if (s == KILN_OK) s = kiln_ufunc_call(multiply, 2, in, 1, out, stream);
    kiln_operand in2[2] = {kiln_operand_array(y), kiln_operand_float(1.0)};
    kiln_operand out2[1] = {kiln_operand_array(y)};
    if (s == KILN_OK) s = kiln_ufunc_call(add, 2, in2, 1, out2, stream);
    if (s == KILN_OK) s = kiln_stream_synchronize(w->ctx, stream);
    if (s == KILN_OK) s = kiln_array_to_host(y, w->output, NULL);
  }
  if (s != KILN_OK) snprintf(w->error, sizeof w->error, "%s", kiln_last_error());
  w->status = s;
  kiln_array_release(x);
  kiln_array_release(y);
  kiln_stream_release(stream);
  kiln_ufunc_release(multiply);
  kiln_ufunc_release(add);
  return NULL;
}

static void test_two_contexts_two_threads(kiln_context *ctx) {
  kiln_context *other = second_context(ctx);
  if (!other) return;
  const int64_t n = 100003; /* prime */
  worker w[2] = {{.ctx = ctx, .n = n, .factor = 3.0}, {.ctx = other, .n = n, .factor = -0.25}};
  double *inputs[2], *outputs[2];
  for (int t = 0; t < 2; t++) {
    inputs[t] = malloc((size_t)n * sizeof(double));
    outputs[t] = malloc((size_t)n * sizeof(double));
    harness_fill_random(inputs[t], KILN_FLOAT64, n, -1e3, 1e3);
    w[t].input = inputs[t];
    w[t].output = outputs[t];
  }
  pthread_t threads[2];
  for (int t = 0; t < 2; t++) CHECK(pthread_create(&threads[t], NULL, worker_run, &w[t]) == 0);
  for (int t = 0; t < 2; t++) pthread_join(threads[t], NULL);
  for (int t = 0; t < 2; t++) {
    CHECK_MSG(w[t].status == KILN_OK, "thread %d: %s: %s", t, kiln_status_string(w[t].status),
              w[t].error);
    if (w[t].status != KILN_OK) continue;
    int64_t bad = 0;
    for (int64_t i = 0; i < n; i++) bad += outputs[t][i] != inputs[t][i] * w[t].factor + 1.0;
    CHECK_MSG(bad == 0, "thread %d: %lld wrong values", t, (long long)bad);
  }
  for (int t = 0; t < 2; t++) free(inputs[t]), free(outputs[t]);
  kiln_context_release(other);
}

/* Copies a strided, reversed view of each dtype and size into the other
 * context and back. */
static void test_copy_between_contexts(kiln_context *ctx) {
  kiln_context *other = second_context(ctx);
  if (!other) return;
  const int64_t sizes[] = {0, 1, 2, 7, 1009};
  const kiln_dtype dtypes[] = {KILN_BOOL, KILN_INT16, KILN_UINT32, KILN_FLOAT32, KILN_FLOAT64};
  for (size_t di = 0; di < sizeof dtypes / sizeof *dtypes; di++) {
    kiln_dtype dtype = dtypes[di];
    size_t item = kiln_dtype_size(dtype);
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
      int64_t rows = sizes[k], shape[2] = {rows, 3};
      unsigned char *data = malloc((size_t)(rows * 3) * item + 1);
      unsigned char *got = malloc((size_t)(rows * 3) * item + 1);
      harness_fill_random(data, dtype, rows * 3, -50, 50);
      kiln_array *a, *view, *copy, *back;
      REQUIRE_OK(kiln_array_from_host(ctx, dtype, 2, shape, NULL, data, &a));
      kiln_slice s[2] = {{KILN_NONE, KILN_NONE, -1}, {0, 3, 2}}; /* a[::-1, ::2] */
      REQUIRE_OK(kiln_array_slice(a, 2, s, &view));
      const char *path = NULL;
      REQUIRE_OK(kiln_array_copy_to_context(view, other, &copy, &path));
      CHECK(path && (strcmp(path, "host") == 0 || strcmp(path, "device") == 0));
      CHECK(kiln_array_context(copy) == other && kiln_array_is_contiguous(copy));
      CHECK(kiln_array_shape(copy)[0] == rows && kiln_array_shape(copy)[1] == 2);
      REQUIRE_OK(kiln_array_copy_to_context(copy, ctx, &back, NULL));
      REQUIRE_OK(kiln_array_to_host(back, got, NULL));
      for (int64_t r = 0; r < rows; r++)
        for (int64_t c = 0; c < 2; c++)
          CHECK(memcmp(got + (size_t)(r * 2 + c) * item,
                       data + (size_t)((rows - 1 - r) * 3 + 2 * c) * item, item) == 0);
      kiln_array_release(back);
      kiln_array_release(copy);
      kiln_array_release(view);
      kiln_array_release(a);
      free(data);
      free(got);
    }
  }
  /* the same context: a device copy */
  int64_t n = 5;
  int32_t v[5] = {4, -9, 17, 3, 8};
  kiln_array *a, *b;
  REQUIRE_OK(kiln_array_from_host(ctx, KILN_INT32, 1, &n, NULL, v, &a));
  const char *path = NULL;
  REQUIRE_OK(kiln_array_copy_to_context(a, ctx, &b, &path));
  CHECK(path && strcmp(path, "device") == 0);
  int32_t got[5];
  REQUIRE_OK(kiln_array_to_host(b, got, NULL));
  CHECK(memcmp(got, v, sizeof v) == 0);
  kiln_array_release(b);
  b = (kiln_array *)1;
  CHECK_STATUS(kiln_array_copy_to_context(NULL, ctx, &b, &path), KILN_ERROR_INVALID_ARGUMENT);
  CHECK(b == NULL && path == NULL);
  CHECK_STATUS(kiln_array_copy_to_context(a, NULL, &b, NULL), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_array_copy_to_context(a, ctx, NULL, NULL), KILN_ERROR_INVALID_ARGUMENT);
  kiln_array_release(a);
  kiln_context_release(other);
}

typedef struct copier {
  kiln_array *src;
  kiln_context *dst;
  kiln_array *result;
  kiln_status status;
} copier;

static void *copier_run(void *arg) {
  copier *c = arg;
  for (int i = 0; i < 3; i++) {
    kiln_array_release(c->result);
    c->result = NULL;
    c->status = kiln_array_copy_to_context(c->src, c->dst, &c->result, NULL);
    if (c->status != KILN_OK) break;
  }
  return NULL;
}

/* Copies in both directions at once, from two threads; 16 MiB + a prime
 * number of elements, so the host route takes more than one staging step. */
static void test_concurrent_copies(kiln_context *ctx) {
  kiln_context *other = second_context(ctx);
  if (!other) return;
  const int64_t n = (16 << 20) / 4 + 12347;
  float *x = malloc((size_t)n * sizeof *x), *y = malloc((size_t)n * sizeof *y);
  float *got = malloc((size_t)n * sizeof *got);
  harness_fill_random(x, KILN_FLOAT32, n, -1, 1);
  harness_fill_random(y, KILN_FLOAT32, n, -1, 1);
  kiln_array *a, *b;
  REQUIRE_OK(kiln_array_from_host(ctx, KILN_FLOAT32, 1, &n, NULL, x, &a));
  REQUIRE_OK(kiln_array_from_host(other, KILN_FLOAT32, 1, &n, NULL, y, &b));
  copier c[2] = {{.src = a, .dst = other}, {.src = b, .dst = ctx}};
  pthread_t threads[2];
  for (int t = 0; t < 2; t++) CHECK(pthread_create(&threads[t], NULL, copier_run, &c[t]) == 0);
  for (int t = 0; t < 2; t++) pthread_join(threads[t], NULL);
  for (int t = 0; t < 2; t++) {
    CHECK_MSG(c[t].status == KILN_OK, "copier %d: %s", t, kiln_status_string(c[t].status));
    if (c[t].status != KILN_OK) continue;
    CHECK(kiln_array_context(c[t].result) == c[t].dst);
    CHECK_OK(kiln_array_to_host(c[t].result, got, NULL));
    CHECK(memcmp(got, t == 0 ? x : y, (size_t)n * sizeof *got) == 0);
    kiln_array_release(c[t].result);
  }
  kiln_array_release(a);
  kiln_array_release(b);
  free(x), free(y), free(got);
  kiln_context_release(other);
}

static const harness_test tests[] = {
    {"two_contexts_two_threads", test_two_contexts_two_threads},
    {"copy_between_contexts", test_copy_between_contexts},
    {"concurrent_copies", test_concurrent_copies},
    {0},
};

int main(int argc, char **argv) { return harness_main(argc, argv, tests); }
