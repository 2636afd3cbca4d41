/* interop_bench: what crossing contexts and libraries costs
 * (docs/interop.md), in the same process, on the device KILN_BACKEND picks:
 *   1. kiln_array_copy_to_context of n float32 (default 1e8) into a second
 *      context (device 1 where the backend has two, else the same device
 *      again), against kiln_array_copy inside one context (device to device)
 *      and against the host round trip to_host + from_host; wall time, median
 *      of `repeats`; prints the route taken ("device" or "host").
 *   2. DLPack: export + import + release of one array (no copy, so the time
 *      is constant in n), against creating and releasing one view
 *      (kiln_array_slice); host time per round, median over bursts of 1000.
 * Usage: interop_bench [n [repeats]] */
#include <stdint.h>
#include <string.h>

#include "bench.h"


int main(int argc, char **argv) {
  int64_t n = argc > 1 ? (int64_t)strtod(argv[1], NULL) : 100000000;
  int repeats = argc > 2 ? atoi(argv[2]) : 10;
  if (n < 1 || repeats < 1 || repeats > 1000) {
    fprintf(stderr, "usage: interop_bench [n >= 1 [repeats 1..1000]]\n");
    return 2;
  }
  kiln_context *ctx, *other;
  BENCH_CHECK(kiln_context_create(NULL, &ctx));
  kiln_device_info info;
  BENCH_CHECK(kiln_context_device_info(ctx, &info));
  int count = 1;
  BENCH_CHECK(kiln_backend_device_count(info.backend, NULL, &count));
  kiln_context_options options;
  kiln_context_options_init(&options);
  options.backends = info.backend;
  options.device = count > 1 ? (info.index + 1) % count : info.index;
  BENCH_CHECK(kiln_context_create(&options, &other));
  printf("interop_bench on %s device %d (%s) and device %d; %lld float32\n", info.backend,
         info.index, info.name, options.device, (long long)n);

  float *host = malloc((size_t)n * sizeof *host);
  for (int64_t i = 0; i < n; i++) host[i] = (float)(i % 1000) * 0.5f;
  kiln_array *a;
  BENCH_CHECK(kiln_array_from_host(ctx, KILN_FLOAT32, 1, &n, NULL, host, &a));
  double *t_cross = malloc((size_t)repeats * sizeof(double));
  double *t_local = malloc((size_t)repeats * sizeof(double));
  double *t_host = malloc((size_t)repeats * sizeof(double));
  const char *path = "";
  for (int r = -1; r < repeats; r++) { /* r = -1: warm-up */
    kiln_array *out;
    double t0 = bench_now_ms();
    BENCH_CHECK(kiln_array_copy_to_context(a, other, &out, &path));
    double t1 = bench_now_ms();
    kiln_array_release(out);
    BENCH_CHECK(kiln_context_synchronize(ctx));
    double t2 = bench_now_ms();
    BENCH_CHECK(kiln_array_copy(a, &out));
    BENCH_CHECK(kiln_context_synchronize(ctx));
    double t3 = bench_now_ms();
    kiln_array_release(out);
    double t4 = bench_now_ms();
    BENCH_CHECK(kiln_array_to_host(a, host, NULL));
    BENCH_CHECK(kiln_array_from_host(other, KILN_FLOAT32, 1, &n, NULL, host, &out));
    BENCH_CHECK(kiln_context_synchronize(other));
    double t5 = bench_now_ms();
    kiln_array_release(out);
    if (r >= 0) t_cross[r] = t1 - t0, t_local[r] = t3 - t2, t_host[r] = t5 - t4;
  }
  double cross = bench_median(t_cross, repeats), local = bench_median(t_local, repeats);
  double round_trip = bench_median(t_host, repeats), gb = (double)n * 4 / 1e9;
  printf("copy_to_context (route: %s): %.3f ms (%.1f GB/s)\n", path, cross, gb / cross * 1e3);
  printf("copy within one context:       %.3f ms (%.1f GB/s); ratio cross/local %.2f\n", local,
         gb / local * 1e3, cross / local);
  printf("to_host + from_host:           %.3f ms (%.1f GB/s); ratio cross/host-trip %.2f\n",
         round_trip, gb / round_trip * 1e3, cross / round_trip);

  enum { BURST = 1000 };
  double dl[15], view[15];
  kiln_slice all = KILN_SLICE_ALL;
  for (int r = 0; r < 15; r++) {
    double t0 = bench_now_ms();
    for (int i = 0; i < BURST; i++) {
      void *tensor;
      kiln_array *b;
      BENCH_CHECK(kiln_array_to_dlpack(a, &tensor));
      BENCH_CHECK(kiln_array_from_dlpack(ctx, tensor, &b));
      kiln_array_release(b); /* calls the export's deleter */
    }
    double t1 = bench_now_ms();
    for (int i = 0; i < BURST; i++) {
      kiln_array *v;
      BENCH_CHECK(kiln_array_slice(a, 1, &all, &v));
      kiln_array_release(v);
    }
    double t2 = bench_now_ms();
    dl[r] = (t1 - t0) * 1e3 / BURST, view[r] = (t2 - t1) * 1e3 / BURST;
  }
  double dl_us = bench_median(dl, 15), view_us = bench_median(view, 15);
  printf("DLPack export+import+release: %.3f us per round (no copy); one view: %.3f us; "
         "ratio %.1f\n",
         dl_us, view_us, dl_us / view_us);
  kiln_array_release(a);
  free(host), free(t_cross), free(t_local), free(t_host);
  kiln_context_release(other);
  kiln_context_release(ctx);
  return 0;
}
