/* pool_bench: allocate + free of a device array through kiln's memory pool
 * against the same with the pool off (kiln_context_options.memory_pool = 0:
 * every allocation goes to the backend, cuMemAlloc + cuMemFree on CUDA), two
 * contexts on the same device in the same process:
 *   1. kiln_array_empty + kiln_array_release of `bytes` (default 4 MiB),
 *      host time per pair, median of batches;
 *   2. the same with a small ufunc writing the array between (the pattern
 *      of temporaries: allocate, compute, free), per iteration.
 * Any backend (KILN_BACKEND); the goal (docs/performance.md) is for CUDA:
 * pool <= 2 us per pair. Usage: pool_bench [bytes [iterations]] */
#include <string.h>

#include "bench.h"

static kiln_context *open_context(int pool) {
  kiln_context_options o;
  kiln_context_options_init(&o);
  o.memory_pool = pool;
  kiln_context *ctx = NULL;
  kiln_status s = kiln_context_create(&o, &ctx);
  if (s != KILN_OK) {
    printf("pool_bench: no device (%s): %s\n", kiln_status_string(s), kiln_last_error());
    exit(0);
  }
  return ctx;
}

/* Microseconds per allocate + free pair, median of 9 batches. */
static double alloc_free_us(kiln_context *ctx, int64_t bytes, int iterations) {
  double batches[9];
  for (int b = 0; b < 9; b++) {
    double t0 = bench_now_ms();
    for (int i = 0; i < iterations; i++) {
      kiln_array *a = NULL;
      BENCH_CHECK(kiln_array_empty(ctx, KILN_UINT8, 1, &bytes, &a));
      kiln_array_release(a);
    }
    batches[b] = (bench_now_ms() - t0) * 1e3 / iterations;
  }
  return bench_median(batches, 9);
}

/* Microseconds per allocate + ufunc + free, the device work included. */
static double with_work_us(kiln_context *ctx, kiln_ufunc *u, const kiln_array *x, int iterations) {
  double batches[5];
  for (int b = 0; b < 5; b++) {
    BENCH_CHECK(kiln_context_synchronize(ctx));
    double t0 = bench_now_ms();
    for (int i = 0; i < iterations; i++) {
      kiln_array *out = NULL;
      kiln_operand in[1] = {kiln_operand_array(x)};
      kiln_operand o[1] = {kiln_operand_new(&out)};
      BENCH_CHECK(kiln_ufunc_call(u, 1, in, 1, o, NULL));
      kiln_array_release(out);
    }
    BENCH_CHECK(kiln_context_synchronize(ctx));
    batches[b] = (bench_now_ms() - t0) * 1e3 / iterations;
  }
  return bench_median(batches, 5);
}

int main(int argc, char **argv) {
  int64_t bytes = argc > 1 ? strtoll(argv[1], NULL, 10) : 4 << 20;
  int iterations = argc > 2 ? atoi(argv[2]) : 2000;
  if (bytes < 1 || iterations < 1) {
    fprintf(stderr, "usage: pool_bench [bytes [iterations]]\n");
    return 2;
  }
  kiln_context *pooled = open_context(1), *raw = open_context(0);
  kiln_device_info info;
  BENCH_CHECK(kiln_context_device_info(pooled, &info));
  printf("pool_bench on %s (%s), %lld bytes, %d iterations per batch\n", info.name,
         info.backend, (long long)bytes, iterations);

  /* warm both (first allocations create the pool, the driver's heap) */
  alloc_free_us(pooled, bytes, 10);
  alloc_free_us(raw, bytes, 10);
  double pool_us = alloc_free_us(pooled, bytes, iterations);
  int raw_iterations = iterations / 10 > 10 ? iterations / 10 : 10;
  double raw_us = alloc_free_us(raw, bytes, raw_iterations);
  printf("allocate + free: pool %.3f us, pool off (backend alloc/free) %.3f us; ratio %.1fx "
         "(goal on CUDA: pool <= 2 us)\n",
         pool_us, raw_us, raw_us / pool_us);

  kiln_memory_pool_stats s;
  BENCH_CHECK(kiln_memory_pool_stats_get(pooled, &s));
  printf("pool stats: hits %llu, misses %llu, %llu bytes cached, %llu in use\n",
         (unsigned long long)s.hits, (unsigned long long)s.misses,
         (unsigned long long)s.bytes_cached, (unsigned long long)s.bytes_in_use);

  /* temporaries: allocate, one ufunc writing the array, free */
  const char *sig = "float32(float32 x)";
  int64_t n = bytes / 4 > 0 ? bytes / 4 : 1;
  double us[2];
  kiln_context *contexts[2] = {pooled, raw};
  for (int c = 0; c < 2; c++) {
    kiln_ufunc *u = NULL;
    BENCH_CHECK(kiln_ufunc_create(contexts[c], "scale", 1, &sig, "return x * 2.0f;", NULL, &u));
    kiln_array *x = NULL;
    float one = 1.0f;
    BENCH_CHECK(kiln_array_full(contexts[c], KILN_FLOAT32, 1, &n, &one, &x));
    with_work_us(contexts[c], u, x, 10);
    us[c] = with_work_us(contexts[c], u, x, c == 0 ? iterations / 4 + 1 : raw_iterations);
    kiln_array_release(x);
    kiln_ufunc_release(u);
  }
  printf("allocate + ufunc (%lld float32) + free: pool %.2f us, pool off %.2f us; ratio %.2fx\n",
         (long long)n, us[0], us[1], us[1] / us[0]);
  kiln_context_release(pooled);
  kiln_context_release(raw);
  return 0;
}
