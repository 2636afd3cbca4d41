/* ufunc_bench: what a ufunc call costs over a raw kernel doing the same
 * work, in the same process, on the same device (docs/ufuncs.md):
 *   1. out = x + y over n float32 device arrays (default 1e8): the built-in
 *      ufunc `add` against a raw kernel (one work-item per element), device
 *      time of one call between two kiln events, median of `repeats` after
 *      warm-up; ratio ufunc / raw (1.00 means no cost).
 *   2. tiny calls (1 and 1024 elements, device arrays, `out` given): a
 *      burst of `burst` back-to-back calls between two events, so the time
 *      per call is the host's enqueue cost whenever it exceeds the device's
 *      (the ratio that matters for small work); median over repeats, ratio
 *      ufunc / raw.
 *   3. the host path: x + y with host arrays in and out, kiln staging
 *      through pinned chunks, against the plain sequence from_host, from_host,
 *      raw kernel, to_host (wall time, best of 3; skipped with --no-host).
 * Runs on any backend (KILN_BACKEND); the numbers to report come from a
 * GPU. Usage: ufunc_bench [n [repeats [burst]]] [--no-host | --host-only]
 *                          [--chunk=BYTES]   (host-path chunk per operand) */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"

static const char *raw_source =
    "KILN_KERNEL void raw_add(int64_t n, KILN_GLOBAL const float *x,\n"
    "                         KILN_GLOBAL const float *y, KILN_GLOBAL float *out) {\n"
    "  int64_t i = kiln_global_id(0);\n"
    "  if (i < n) out[i] = x[i] + y[i];\n"
    "}\n";

typedef struct bench {
  kiln_context *ctx;
  kiln_kernel *raw;
  kiln_ufunc *add;
  kiln_event *start, *stop;
} bench;

static void raw_call(bench *b, int64_t n, kiln_array *x, kiln_array *y, kiln_array *out) {
  kiln_arg args[4] = {kiln_arg_int64(n), kiln_arg_array(x), kiln_arg_array(y),
                      kiln_arg_array(out)};
  BENCH_CHECK(kiln_kernel_launch(b->raw, 1, &n, NULL, 4, args, NULL));
}

static void ufunc_call(bench *b, kiln_array *x, kiln_array *y, kiln_array *out) {
  kiln_operand in[2] = {kiln_operand_array(x), kiln_operand_array(y)};
  kiln_operand o[1] = {kiln_operand_array(out)};
  BENCH_CHECK(kiln_ufunc_call(b->add, 2, in, 1, o, NULL));
}

/* Median milliseconds per call of `burst` calls between two events. */
static double time_calls(bench *b, int use_ufunc, int64_t n, kiln_array *x, kiln_array *y,
                         kiln_array *out, int repeats, int burst) {
  for (int w = 0; w < 3; w++) { /* warm-up: compile, caches, clocks */
    if (use_ufunc) ufunc_call(b, x, y, out);
    else raw_call(b, n, x, y, out);
  }
  BENCH_CHECK(kiln_context_synchronize(b->ctx));
  double *ms = malloc((size_t)repeats * sizeof *ms);
  for (int r = 0; r < repeats; r++) {
    BENCH_CHECK(kiln_event_record(b->start, NULL));
    for (int k = 0; k < burst; k++) {
      if (use_ufunc) ufunc_call(b, x, y, out);
      else raw_call(b, n, x, y, out);
    }
    BENCH_CHECK(kiln_event_record(b->stop, NULL));
    BENCH_CHECK(kiln_event_synchronize(b->stop));
    BENCH_CHECK(kiln_event_elapsed_ms(b->start, b->stop, &ms[r]));
    ms[r] /= burst;
  }
  double m = bench_median(ms, repeats);
  free(ms);
  return m;
}

/* Arrays of n float32: x = i % 1000, y = 0.5, out; checks out = x + y. */
static void make_arrays(bench *b, int64_t n, kiln_array **x, kiln_array **y, kiln_array **out) {
  float *h = malloc((size_t)n * sizeof *h + 1);
  for (int64_t i = 0; i < n; i++) h[i] = (float)(i % 1000);
  BENCH_CHECK(kiln_array_from_host(b->ctx, KILN_FLOAT32, 1, &n, NULL, h, x));
  float half = 0.5f;
  BENCH_CHECK(kiln_array_full(b->ctx, KILN_FLOAT32, 1, &n, &half, y));
  BENCH_CHECK(kiln_array_empty(b->ctx, KILN_FLOAT32, 1, &n, out));
  free(h);
}

static int check_sum(kiln_array *out, int64_t n) {
  float *h = malloc((size_t)n * sizeof *h + 1);
  BENCH_CHECK(kiln_array_to_host(out, h, NULL));
  int64_t bad = 0;
  for (int64_t i = 0; i < n; i++) bad += h[i] != (float)(i % 1000) + 0.5f;
  free(h);
  if (bad) printf("  WRONG RESULT: %lld elements differ\n", (long long)bad);
  return bad == 0;
}

static int bench_big(bench *b, int64_t n, int repeats) {
  kiln_array *x, *y, *out;
  make_arrays(b, n, &x, &y, &out);
  double raw = time_calls(b, 0, n, x, y, out, repeats, 1);
  int ok = check_sum(out, n);
  double uf = time_calls(b, 1, n, x, y, out, repeats, 1);
  ok &= check_sum(out, n);
  double gbs = 3.0 * 4.0 * (double)n / (raw * 1e-3) / 1e9;
  printf("add, %lld float32 on the device: raw kernel %.4f ms (%.0f GB/s), ufunc %.4f ms; "
         "ratio ufunc/raw = %.3f\n",
         (long long)n, raw, gbs, uf, uf / raw);
  kiln_array_release(x);
  kiln_array_release(y);
  kiln_array_release(out);
  return ok;
}

static int bench_tiny(bench *b, int64_t n, int repeats, int burst) {
  kiln_array *x, *y, *out;
  make_arrays(b, n, &x, &y, &out);
  double raw = time_calls(b, 0, n, x, y, out, repeats, burst);
  double uf = time_calls(b, 1, n, x, y, out, repeats, burst);
  int ok = check_sum(out, n);
  printf("tiny add, %lld element%s, bursts of %d: raw kernel %.2f us/launch, ufunc %.2f "
         "us/call; ratio ufunc/raw = %.3f\n",
         (long long)n, n == 1 ? "" : "s", burst, raw * 1e3, uf * 1e3, uf / raw);
  kiln_array_release(x);
  kiln_array_release(y);
  kiln_array_release(out);
  return ok;
}

static int bench_host(bench *b, int64_t n, long long chunk) {
  float *x = malloc((size_t)n * 4 + 1), *y = malloc((size_t)n * 4 + 1);
  float *out = malloc((size_t)n * 4 + 1);
  for (int64_t i = 0; i < n; i++) x[i] = (float)(i % 1000), y[i] = 0.5f;
  double staged = INFINITY, plain = INFINITY;
  int ok = 1;
  for (int r = 0; r < 3; r++) {
    memset(out, 0, (size_t)n * 4);
    double t0 = bench_now_ms();
    kiln_operand in[2] = {kiln_operand_host(x, KILN_FLOAT32, 1, &n, NULL),
                          kiln_operand_host(y, KILN_FLOAT32, 1, &n, NULL)};
    kiln_operand o[1] = {kiln_operand_host_output(out, KILN_FLOAT32, 1, &n, NULL)};
    BENCH_CHECK(kiln_ufunc_call(b->add, 2, in, 1, o, NULL));
    staged = fmin(staged, bench_now_ms() - t0);
    for (int64_t i = 0; i < n; i++) ok &= out[i] == x[i] + y[i];

    t0 = bench_now_ms();
    kiln_array *dx, *dy, *dout;
    BENCH_CHECK(kiln_array_from_host(b->ctx, KILN_FLOAT32, 1, &n, NULL, x, &dx));
    BENCH_CHECK(kiln_array_from_host(b->ctx, KILN_FLOAT32, 1, &n, NULL, y, &dy));
    BENCH_CHECK(kiln_array_empty(b->ctx, KILN_FLOAT32, 1, &n, &dout));
    raw_call(b, n, dx, dy, dout);
    BENCH_CHECK(kiln_array_to_host(dout, out, NULL));
    plain = fmin(plain, bench_now_ms() - t0);
    kiln_array_release(dx);
    kiln_array_release(dy);
    kiln_array_release(dout);
  }
  if (!ok) printf("  WRONG RESULT on the host path\n");
  double gb = 3.0 * 4.0 * (double)n / 1e9;
  char chunks[48] = "default";
  if (chunk > 0) snprintf(chunks, sizeof chunks, "%lld-byte", chunk);
  printf("add, %lld float32 host arrays in and out: ufunc host path (%s chunks) %.2f ms "
         "(%.1f GB/s), from_host + raw kernel + to_host %.2f ms (%.1f GB/s); ratio %.3f\n",
         (long long)n, chunks, staged, gb / (staged * 1e-3), plain, gb / (plain * 1e-3),
         staged / plain);
  free(x);
  free(y);
  free(out);
  return ok;
}

int main(int argc, char **argv) {
  int64_t n = 100000000;
  int repeats = 50, burst = 1000, host = 1, device = 1, position = 0;
  long long chunk = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--no-host") == 0) host = 0;
    else if (strcmp(argv[i], "--host-only") == 0) device = 0;
    else if (strncmp(argv[i], "--chunk=", 8) == 0) chunk = strtoll(argv[i] + 8, NULL, 10);
    else if (position == 0 && ++position) n = strtoll(argv[i], NULL, 10);
    else if (position == 1 && ++position) repeats = atoi(argv[i]);
    else if (position == 2 && ++position) burst = atoi(argv[i]);
  }
  if (n < 1 || repeats < 1 || burst < 1) {
    fprintf(stderr, "usage: ufunc_bench [n [repeats [burst]]] [--no-host | --host-only] "
                    "[--chunk=BYTES]\n");
    return 2;
  }
  bench b = {0};
  BENCH_CHECK(kiln_context_create(NULL, &b.ctx));
  kiln_device_info info;
  BENCH_CHECK(kiln_context_device_info(b.ctx, &info));
  printf("ufunc_bench on %s device %d: %s (%s), median of %d repeats\n", info.backend,
         info.index, info.name, info.driver_version, repeats);
  BENCH_CHECK(kiln_kernel_create(b.ctx, raw_source, "raw_add", NULL, &b.raw));
  BENCH_CHECK(kiln_ufunc_builtin(b.ctx, "add", &b.add));
  BENCH_CHECK(kiln_event_create(b.ctx, &b.start));
  BENCH_CHECK(kiln_event_create(b.ctx, &b.stop));

  if (chunk > 0) BENCH_CHECK(kiln_ufunc_set_host_chunk_bytes(b.add, (size_t)chunk));
  int ok = 1;
  if (device) {
    ok &= bench_big(&b, n, repeats);
    ok &= bench_tiny(&b, 1, repeats, burst);
    ok &= bench_tiny(&b, 1024, repeats, burst);
  }
  if (host) ok &= bench_host(&b, n, chunk);

  kiln_event_release(b.start);
  kiln_event_release(b.stop);
  kiln_ufunc_release(b.add);
  kiln_kernel_release(b.raw);
  kiln_context_release(b.ctx);
  return ok ? 0 : 1;
}
