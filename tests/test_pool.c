/* Conformance: the device memory pool (kiln/memory.h). Run twice per
 * backend, with the pool on (pool.<backend>) and off (pool_off.<backend>,
 * KILN_POOL=0): values must be the same, the counters differ as stated.
 * Covered: reuse of a block of the same size class and the counters, size
 * classes at edge sizes, stream-ordered reuse across two streams (a ufunc
 * writes on stream A into a block that is released at once and handed to
 * an array written on stream B; also the other way round from the default
 * stream), recovery when an allocation passes the pool's limit while
 * blocks are cached and (CUDA, HIP) when the driver itself runs out of
 * memory, a too-large allocation, many threads allocating and
 * checking their data, trim, and bad input. */
#include <pthread.h>

#include "harness.h"

static int pool_on(kiln_context *ctx) {
  kiln_memory_pool_stats s;
  if (kiln_memory_pool_stats_get(ctx, &s) != KILN_OK) return 0;
  return s.enabled;
}

static kiln_memory_pool_stats stats(kiln_context *ctx) {
  kiln_memory_pool_stats s;
  memset(&s, 0, sizeof s);
  CHECK_OK(kiln_memory_pool_stats_get(ctx, &s));
  return s;
}

/* A device array with random float32 values; *host gets them (malloc'd). */
static kiln_array *random_array(kiln_context *ctx, int64_t n, float **host) {
  float *h = malloc((size_t)n * 4 + 4);
  harness_fill_random(h, KILN_FLOAT32, n, -100, 100);
  kiln_array *a = NULL;
  CHECK_OK(kiln_array_from_host(ctx, KILN_FLOAT32, 1, &n, NULL, h, &a));
  *host = h;
  return a;
}

static int check_values(const kiln_array *a, const float *expected, int64_t n) {
  float *h = malloc((size_t)n * 4 + 4);
  int ok = kiln_array_to_host(a, h, NULL) == KILN_OK;
  int64_t bad = 0;
  for (int64_t i = 0; ok && i < n; i++)
    if (h[i] != expected[i]) {
      if (bad++ == 0)
        harness_fail(__FILE__, __LINE__, "element %lld: %g, expected %g", (long long)i,
                     (double)h[i], (double)expected[i]);
    }
  free(h);
  return ok && bad == 0;
}

static void test_reuse_and_counters(kiln_context *ctx) {
  CHECK_OK(kiln_memory_pool_trim(ctx));
  int on = pool_on(ctx);
  kiln_memory_pool_stats s0 = stats(ctx);
  int64_t n = 1 << 20; /* 4 MiB of float32 */
  float *h1 = NULL, *h2 = NULL;
  kiln_array *a = random_array(ctx, n, &h1);
  if (!a) return;
  kiln_memory_pool_stats s1 = stats(ctx);
  CHECK(s1.bytes_in_use == s0.bytes_in_use + (uint64_t)n * 4);
  CHECK(s1.misses == s0.misses + 1);
  CHECK(check_values(a, h1, n));
  kiln_array_release(a);
  kiln_memory_pool_stats s2 = stats(ctx);
  CHECK(s2.bytes_in_use == s0.bytes_in_use);
  CHECK(s2.bytes_cached == s0.bytes_cached + (on ? (uint64_t)n * 4 : 0));
  kiln_array *b = random_array(ctx, n, &h2); /* same class: the cached block */
  kiln_memory_pool_stats s3 = stats(ctx);
  CHECK(s3.hits == s0.hits + (on ? 1 : 0));
  CHECK(s3.misses == s0.misses + (on ? 1 : 2));
  CHECK(s3.bytes_cached == s0.bytes_cached);
  CHECK(check_values(b, h2, n));
  kiln_array_release(b);
  CHECK_OK(kiln_memory_pool_trim(ctx));
  kiln_memory_pool_stats s4 = stats(ctx);
  CHECK(s4.bytes_cached == 0 && s4.blocks_cached == 0);
  CHECK(s4.bytes_in_use == s0.bytes_in_use);
  free(h1);
  free(h2);
}

static void test_size_classes(kiln_context *ctx) {
  CHECK_OK(kiln_memory_pool_trim(ctx));
  int on = pool_on(ctx);
  /* bytes asked -> bytes the pool takes from the driver when on */
  static const struct {
    int64_t bytes, rounded;
  } cases[] = {{1, 512},           {511, 512},         {512, 512},
               {513, 1024},        {1000003, 1000448}, {1 << 20, 1 << 20},
               {(1 << 20) + 1, 5 << 18}, {4194304, 4194304}, {4194305, 5 << 20},
               {7340033, 8 << 20}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    kiln_memory_pool_stats before = stats(ctx);
    kiln_array *a = NULL;
    int64_t n = cases[i].bytes;
    CHECK_OK(kiln_array_empty(ctx, KILN_UINT8, 1, &n, &a));
    kiln_memory_pool_stats after = stats(ctx);
    uint64_t expected = (uint64_t)(on ? cases[i].rounded : cases[i].bytes);
    CHECK_MSG(after.bytes_in_use - before.bytes_in_use == expected,
              "%lld bytes took %llu, expected %llu", (long long)n,
              (unsigned long long)(after.bytes_in_use - before.bytes_in_use),
              (unsigned long long)expected);
    kiln_array_release(a);
  }
  /* a different size of the same class reuses the block */
  int64_t first = 3000, second = 2600; /* both 3072 */
  kiln_array *a = NULL, *b = NULL;
  CHECK_OK(kiln_array_empty(ctx, KILN_UINT8, 1, &first, &a));
  kiln_array_release(a);
  kiln_memory_pool_stats before = stats(ctx);
  CHECK_OK(kiln_array_empty(ctx, KILN_UINT8, 1, &second, &b));
  CHECK(stats(ctx).hits == before.hits + (on ? 1 : 0));
  kiln_array_release(b);
  /* empty arrays take nothing */
  int64_t zero = 0;
  before = stats(ctx);
  CHECK_OK(kiln_array_empty(ctx, KILN_FLOAT32, 1, &zero, &a));
  CHECK(stats(ctx).bytes_in_use == before.bytes_in_use);
  kiln_array_release(a);
  CHECK_OK(kiln_memory_pool_trim(ctx));
}

static kiln_ufunc *make_ufunc(kiln_context *ctx, const char *name, const char *signature,
                              const char *body) {
  kiln_ufunc *u = NULL;
  kiln_status s = kiln_ufunc_create(ctx, name, 1, &signature, body, NULL, &u);
  if (s != KILN_OK) harness_fail(__FILE__, __LINE__, "ufunc: %s", kiln_last_error());
  return u;
}

static kiln_ufunc *make_triple(kiln_context *ctx) {
  return make_ufunc(ctx, "pool_triple", "float32(float32 x)", "return x * 3.0f;");
}

/* x on stream `first` -> released at once -> its block written on stream
 * `second`: the second result must be intact. */
static void stream_handoff(kiln_context *ctx, kiln_stream *first, kiln_stream *second) {
  int on = pool_on(ctx);
  /* long on a GPU, so that without the rule its writes would land after
   * the second stream's (PoCL runs one command at a time: short there) */
  kiln_ufunc *slow = make_ufunc(ctx, "pool_slow", "float32(float32 x, int32 rounds)",
                                "float r = x; for (int k = 0; k < rounds; k++) r = r * 0.5f + "
                                "1.0f; return r;");
  kiln_ufunc *triple = make_triple(ctx);
  kiln_device_info info;
  CHECK_OK(kiln_context_device_info(ctx, &info));
  int64_t rounds = info.type == KILN_DEVICE_CPU ? 4 : 20000;
  if (!slow || !triple) goto cleanup;
  for (int round = 0; round < 4; round++) {
    int64_t n = round % 2 ? 1000003 : 262147;
    float *h = NULL;
    kiln_array *a = random_array(ctx, n, &h);
    kiln_array *x = NULL, *y = NULL;
    CHECK_OK(kiln_array_empty(ctx, KILN_FLOAT32, 1, &n, &x));
    kiln_operand in[2] = {kiln_operand_array(a), kiln_operand_int(rounds)};
    kiln_operand out_x[1] = {kiln_operand_array(x)};
    CHECK_OK(kiln_ufunc_call(slow, 2, in, 1, out_x, first));
    kiln_array_release(x); /* work on `first` may still write it */
    kiln_memory_pool_stats before = stats(ctx);
    CHECK_OK(kiln_array_empty(ctx, KILN_FLOAT32, 1, &n, &y));
    CHECK(stats(ctx).hits == before.hits + (on ? 1 : 0));
    kiln_operand out_y[1] = {kiln_operand_array(y)};
    CHECK_OK(kiln_ufunc_call(triple, 1, in, 1, out_y, second));
    kiln_event *done = NULL;
    CHECK_OK(kiln_event_create(ctx, &done));
    CHECK_OK(kiln_event_record(done, second));
    CHECK_OK(kiln_event_synchronize(done));
    kiln_event_release(done);
    CHECK_OK(kiln_stream_synchronize(ctx, first));
    float *expected = malloc((size_t)n * 4);
    for (int64_t i = 0; i < n; i++) expected[i] = h[i] * 3.0f;
    CHECK(check_values(y, expected, n));
    free(expected);
    free(h);
    kiln_array_release(a);
    kiln_array_release(y);
  }
cleanup:
  kiln_ufunc_release(slow);
  kiln_ufunc_release(triple);
}

static void test_stream_ordered_reuse(kiln_context *ctx) {
  kiln_stream *a = NULL, *b = NULL;
  REQUIRE_OK(kiln_stream_create(ctx, &a));
  REQUIRE_OK(kiln_stream_create(ctx, &b));
  stream_handoff(ctx, a, b);    /* side stream -> side stream */
  stream_handoff(ctx, NULL, b); /* default stream -> side stream */
  stream_handoff(ctx, a, NULL); /* side stream -> default stream */
  kiln_stream_release(a);
  kiln_stream_release(b);
}

/* A stream released after its work: the block it used is reusable at once
 * and no event is left behind (ASan / leak check). */
static void test_stream_released_first(kiln_context *ctx) {
  kiln_ufunc *triple = make_triple(ctx);
  if (!triple) return;
  kiln_stream *s = NULL;
  CHECK_OK(kiln_stream_create(ctx, &s));
  int64_t n = 4099;
  float *h = NULL;
  kiln_array *a = random_array(ctx, n, &h);
  kiln_array *x = NULL;
  CHECK_OK(kiln_array_empty(ctx, KILN_FLOAT32, 1, &n, &x));
  kiln_operand in[1] = {kiln_operand_array(a)};
  kiln_operand out[1] = {kiln_operand_array(x)};
  CHECK_OK(kiln_ufunc_call(triple, 1, in, 1, out, s));
  kiln_stream_release(s);
  float *expected = malloc((size_t)n * 4);
  for (int64_t i = 0; i < n; i++) expected[i] = h[i] * 3.0f;
  CHECK(check_values(x, expected, n));
  kiln_array_release(x);
  free(expected);
  kiln_array *y = random_array(ctx, n, &expected);
  CHECK(y != NULL);
  kiln_array_release(y);
  kiln_array_release(a);
  kiln_ufunc_release(triple);
  free(expected);
  free(h);
}

static void test_out_of_memory_recovery(kiln_context *ctx) {
  CHECK_OK(kiln_memory_pool_trim(ctx));
  int on = pool_on(ctx);
  kiln_memory_pool_stats s0 = stats(ctx);
  uint64_t limit = s0.bytes_in_use + (8u << 20);
  REQUIRE_OK(kiln_memory_pool_set_limit(ctx, limit));
  CHECK(stats(ctx).limit == limit);
  /* fill the limit with 2 MiB blocks until an allocation fails */
  kiln_array *held[8] = {0};
  int count = 0;
  int64_t two = 2 << 20;
  kiln_status status = KILN_OK;
  while (count < 8 && (status = kiln_array_empty(ctx, KILN_UINT8, 1, &two, &held[count])) == KILN_OK)
    count++;
  CHECK(count == 4);
  CHECK(status == KILN_ERROR_OUT_OF_MEMORY);
  CHECK_ERROR_CONTAINS("limit");
  for (int i = 0; i < count; i++) kiln_array_release(held[i]);
  CHECK(stats(ctx).bytes_cached == (on ? 8u << 20 : 0));
  /* 6 MiB of another class: only fits after the cache is released */
  int64_t six = 6 << 20;
  float *h = NULL;
  kiln_array *big = NULL;
  CHECK_OK(kiln_array_empty(ctx, KILN_UINT8, 1, &six, &big));
  kiln_memory_pool_stats s1 = stats(ctx);
  CHECK(s1.releases == s0.releases + (on ? 1 : 0));
  CHECK(s1.bytes_cached == 0);
  kiln_array_release(big);
  /* one that never fits is an error with a message, also with the cache */
  int64_t sixteen = 16 << 20;
  CHECK_STATUS(kiln_array_empty(ctx, KILN_UINT8, 1, &sixteen, &big), KILN_ERROR_OUT_OF_MEMORY);
  CHECK(big == NULL);
  CHECK_ERROR_CONTAINS("limit");
  /* the data path still works at the limit */
  int64_t n = (1 << 20) - 3;
  kiln_array *a = random_array(ctx, n, &h);
  if (a) CHECK(check_values(a, h, n));
  kiln_array_release(a);
  free(h);
  CHECK_OK(kiln_memory_pool_set_limit(ctx, 0));
  CHECK_OK(kiln_memory_pool_trim(ctx));
  /* larger than one buffer may be on this device: OUT_OF_MEMORY, no crash */
  kiln_device_info info;
  CHECK_OK(kiln_context_device_info(ctx, &info));
  uint64_t max = info.max_buffer_size ? info.max_buffer_size : info.global_memory;
  int64_t huge = (int64_t)(max + 1);
  CHECK_STATUS(kiln_array_empty(ctx, KILN_UINT8, 1, &huge, &big), KILN_ERROR_OUT_OF_MEMORY);
  CHECK_ERROR_CONTAINS("bytes");
  CHECK(stats(ctx).bytes_in_use == s0.bytes_in_use);
}

/* The driver's own out of memory, on GPUs (on a CPU device this would eat
 * the host's memory): fill the device with blocks until the driver refuses
 * one, release them all into the cache, then ask for a block of another
 * class. The pool must free the cache and retry. CUDA and HIP only; a
 * driver that never refuses makes the test skip. */
static void test_driver_out_of_memory_recovery(kiln_context *ctx) {
  kiln_device_info info;
  CHECK_OK(kiln_context_device_info(ctx, &info));
  if (info.type != KILN_DEVICE_GPU || harness_backend_is(ctx, "opencl")) {
    harness_skip("needs CUDA or HIP (filling a CPU device's memory would fill the host's; "
                 "OpenCL drivers allocate lazily, on first use)");
    return;
  }
  CHECK_OK(kiln_memory_pool_trim(ctx));
  int on = pool_on(ctx);
  int64_t block = (int64_t)(info.global_memory / 16);
  if (info.max_buffer_size && (uint64_t)block * 2 > info.max_buffer_size)
    block = (int64_t)(info.max_buffer_size / 2);
  enum { MAX_BLOCKS = 40 };
  kiln_array *held[MAX_BLOCKS] = {0};
  int count = 0;
  kiln_status status = KILN_OK;
  while (count < MAX_BLOCKS &&
         (status = kiln_array_empty(ctx, KILN_UINT8, 1, &block, &held[count])) == KILN_OK)
    count++;
  if (count == MAX_BLOCKS) {
    for (int i = 0; i < count; i++) kiln_array_release(held[i]);
    harness_skip("the driver never refused an allocation (it allocates lazily)");
    return;
  }
  CHECK(status == KILN_ERROR_OUT_OF_MEMORY);
  CHECK(count >= 2);
  for (int i = 0; i < count; i++) kiln_array_release(held[i]);
  kiln_memory_pool_stats s0 = stats(ctx);
  CHECK(s0.bytes_cached >= (on ? (uint64_t)block * (uint64_t)count : 0));
  int64_t other = block + block / 2; /* another size class */
  kiln_array *big = NULL;
  CHECK_OK(kiln_array_empty(ctx, KILN_UINT8, 1, &other, &big));
  kiln_memory_pool_stats s1 = stats(ctx);
  CHECK(s1.releases == s0.releases + (on ? 1 : 0));
  CHECK(s1.bytes_cached == 0);
  /* the memory works */
  int64_t n = 1000;
  float *h = NULL;
  kiln_array *a = random_array(ctx, n, &h);
  if (a) CHECK(check_values(a, h, n));
  kiln_array_release(a);
  kiln_array_release(big);
  free(h);
  CHECK_OK(kiln_memory_pool_trim(ctx));
}

typedef struct worker {
  kiln_context *ctx;
  int id;
  int failures;
} worker;

static void *worker_run(void *arg) {
  worker *w = arg;
  uint64_t state = 0x9e3779b97f4a7c15ull * (uint64_t)(w->id + 1);
  for (int iteration = 0; iteration < 40; iteration++) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    static const int64_t sizes[] = {1, 127, 1031, 65537, 262147};
    int64_t n = sizes[(state >> 33) % 5];
    int32_t *h = malloc((size_t)n * 4), *back = malloc((size_t)n * 4);
    for (int64_t i = 0; i < n; i++) h[i] = (int32_t)(i * 31 + w->id * 1000003 + iteration);
    kiln_array *a = NULL;
    if (kiln_array_from_host(w->ctx, KILN_INT32, 1, &n, NULL, h, &a) != KILN_OK ||
        kiln_array_to_host(a, back, NULL) != KILN_OK || memcmp(h, back, (size_t)n * 4) != 0)
      w->failures++;
    kiln_array_release(a);
    free(h);
    free(back);
  }
  return NULL;
}

static void test_many_threads(kiln_context *ctx) {
  kiln_memory_pool_stats s0 = stats(ctx);
  enum { THREADS = 8 };
  pthread_t threads[THREADS];
  worker workers[THREADS];
  for (int t = 0; t < THREADS; t++) {
    workers[t] = (worker){ctx, t, 0};
    CHECK(pthread_create(&threads[t], NULL, worker_run, &workers[t]) == 0);
  }
  for (int t = 0; t < THREADS; t++) {
    pthread_join(threads[t], NULL);
    CHECK_MSG(workers[t].failures == 0, "thread %d: %d wrong round trips", t,
              workers[t].failures);
  }
  kiln_memory_pool_stats s1 = stats(ctx);
  CHECK(s1.bytes_in_use == s0.bytes_in_use);
  CHECK(s1.blocks_in_use == s0.blocks_in_use);
  CHECK(s1.hits + s1.misses == s0.hits + s0.misses + THREADS * 40);
  if (pool_on(ctx)) CHECK(s1.hits > s0.hits);
  CHECK_OK(kiln_memory_pool_trim(ctx));
}

static void test_option_and_environment(kiln_context *ctx) {
  kiln_device_info info;
  CHECK_OK(kiln_context_device_info(ctx, &info));
  kiln_context_options o;
  kiln_context_options_init(&o);
  CHECK(o.memory_pool == -1);
  o.backends = info.backend;
  o.memory_pool = 0;
  kiln_context *off = NULL;
  REQUIRE_OK(kiln_context_create(&o, &off));
  CHECK(!pool_on(off));
  int64_t n = 1000;
  kiln_array *a = NULL;
  CHECK_OK(kiln_array_empty(off, KILN_FLOAT32, 1, &n, &a));
  kiln_array_release(a);
  CHECK(stats(off).bytes_cached == 0);
  kiln_context_release(off);
  o.memory_pool = 2;
  CHECK_STATUS(kiln_context_create(&o, &off), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("memory_pool");
  /* KILN_POOL is read when the option is -1 */
  const char *saved = getenv("KILN_POOL");
  char *copy = saved ? strdup(saved) : NULL;
  setenv("KILN_POOL", "maybe", 1);
  o.memory_pool = -1;
  CHECK_STATUS(kiln_context_create(&o, &off), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("KILN_POOL");
  setenv("KILN_POOL", "1", 1);
  CHECK_OK(kiln_context_create(&o, &off));
  CHECK(off && pool_on(off));
  kiln_context_release(off);
  if (copy) setenv("KILN_POOL", copy, 1);
  else unsetenv("KILN_POOL");
  free(copy);
}

static void test_bad_input(kiln_context *ctx) {
  kiln_memory_pool_stats s;
  CHECK_STATUS(kiln_memory_pool_stats_get(NULL, &s), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_memory_pool_stats_get(ctx, NULL), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_memory_pool_trim(NULL), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_memory_pool_set_limit(NULL, 0), KILN_ERROR_INVALID_ARGUMENT);
}

static const harness_test tests[] = {
    {"reuse_and_counters", test_reuse_and_counters},
    {"size_classes", test_size_classes},
    {"stream_ordered_reuse", test_stream_ordered_reuse},
    {"stream_released_first", test_stream_released_first},
    {"out_of_memory_recovery", test_out_of_memory_recovery},
    {"driver_out_of_memory_recovery", test_driver_out_of_memory_recovery},
    {"many_threads", test_many_threads},
    {"option_and_environment", test_option_and_environment},
    {"bad_input", test_bad_input},
    {0}};

int main(int argc, char **argv) { return harness_main(argc, argv, tests); }
