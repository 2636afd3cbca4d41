/* ufunc_bench: what a ufunc call costs over a raw kernel doing the same
 * work, in the same process, on the same device (docs/ufuncs.md):
 *   1. out = x + y over n float32 device arrays (default 1e8): the built-in
 *      ufunc `add` against a raw kernel (one work-item per element), device
 *      time of one call between two kiln events, median of `repeats` after
 *      warm-up; ratio ufunc / raw (1.00 means no cost).
 *   2. the host overhead of a tiny call (1 and 1024 elements, device
 *      arrays, `out` given, a repeat call: nothing compiles): host time per
 *      call of a burst of `burst` calls (no synchronize inside the burst),
 *      against a raw launch (kiln_kernel_launch) of the very kernel the
 *      ufunc launches (its generated source, compiled as a raw kernel: the
 *      context's program cache hands both the same compiled function). The
 *      two sides alternate burst by burst (`repeats` bursts each, the order
 *      swapped every burst, a synchronize between bursts), so clock and
 *      load drifts hit both alike; medians per side and the difference
 *      ufunc - raw in microseconds against the goal (<= 0.5 us, issue 29).
 *   3. the host path: x + y with host arrays in and out, kiln staging
 *      through pinned chunks, against the plain sequence from_host, from_host,
 *      raw kernel, to_host (wall time, best of 3; skipped with --no-host).
 * Runs on any backend (KILN_BACKEND); the numbers to report come from a
 * GPU. --tiny-only runs part 2 alone (for profilers: tools/ufunc_call_cost.sh
 * counts instructions per call with callgrind).
 * Usage: ufunc_bench [n [repeats [burst]]] [--no-host | --host-only | --tiny-only]
 *                          [--chunk=BYTES]   (host-path chunk per operand) */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
/* the ufunc's generated source, for the raw side of the tiny rows */
#include "core/ufunc/ufunc_internal.h"

static const char *raw_source =
    "KILN_KERNEL void raw_add(int64_t n, KILN_GLOBAL const float *x,\n"
    "                         KILN_GLOBAL const float *y, KILN_GLOBAL float *out) {\n"
    "  int64_t i = kiln_global_id(0);\n"
    "  if (i < n) out[i] = x[i] + y[i];\n"
    "}\n";

typedef struct bench {
  kiln_context *ctx;
  kiln_kernel *raw;
  kiln_kernel *same; /* the ufunc's own float32 kernel, as a raw kernel */
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

/* The kernel `add` launches for float32 + float32 -> float32 over
 * contiguous operands (variant ndim 0), compiled from the same source with
 * the same options, so the context's program cache returns the ufunc's own
 * compiled program. */
static void make_same_kernel(bench *b) {
  kiln_ufunc_variant_key key;
  memset(&key, 0xff, sizeof key); /* as launch_views in ufunc_call.c */
  key.signature = -1;
  for (int i = 0; i < b->add->nsig && key.signature < 0; i++) {
    const kiln_ufunc_sig *s = &b->add->sigs[i];
    if (s->dtypes[0] == KILN_FLOAT32 && s->dtypes[1] == KILN_FLOAT32 &&
        s->dtypes[2] == KILN_FLOAT32)
      key.signature = (int16_t)i;
  }
  if (key.signature < 0) {
    fprintf(stderr, "add has no float32 signature\n");
    exit(1);
  }
  key.ndim = 0;
  for (int j = 0; j < 3; j++) key.operands[j] = KILN_FLOAT32;
  kiln_strbuf source = {0};
  kiln_ufunc_source(b->add, &key, &source);
  BENCH_CHECK(kiln_strbuf_status(&source));
  char entry[96];
  kiln_ufunc_entry(b->add, entry, sizeof entry);
  BENCH_CHECK(kiln_kernel_create(b->ctx, source.data, entry, KILN_UFUNC_OPTIONS, &b->same));
  kiln_strbuf_free(&source);
}

/* A raw launch of b->same over n elements: its parameters are (n, base,
 * then pointer and element offset per operand). CPU devices compile element
 * loops without a bound test (kernels/prelude_common.kl), so there the grid
 * covers n exactly: work-groups of the largest power of two <= 256 that
 * divides n. */
static void same_launch(bench *b, int64_t n, kiln_array *x, kiln_array *y, kiln_array *out,
                        int exact) {
  kiln_arg args[8] = {kiln_arg_int64(n),    kiln_arg_int64(0), kiln_arg_array(x),
                      kiln_arg_int64(0),    kiln_arg_array(y), kiln_arg_int64(0),
                      kiln_arg_array(out), kiln_arg_int64(0)};
  int64_t local = 256;
  while (n % local) local /= 2;
  BENCH_CHECK(kiln_kernel_launch(b->same, 1, &n, exact ? &local : NULL, 8, args, NULL));
}

/* Host microseconds per call of a burst (nothing synchronizes inside it),
 * then a synchronize outside the timing so bursts never queue behind each
 * other. */
static double burst_us(bench *b, int use_ufunc, int64_t n, kiln_array *x, kiln_array *y,
                       kiln_array *out, int burst, int exact) {
  double t0 = bench_now_ms();
  for (int k = 0; k < burst; k++) {
    if (use_ufunc) ufunc_call(b, x, y, out);
    else same_launch(b, n, x, y, out, exact);
  }
  double us = (bench_now_ms() - t0) * 1e3 / burst;
  BENCH_CHECK(kiln_context_synchronize(b->ctx));
  return us;
}

static int bench_tiny(bench *b, int64_t n, int repeats, int burst) {
  kiln_array *x, *y, *out;
  make_arrays(b, n, &x, &y, &out);
  kiln_device_info info;
  BENCH_CHECK(kiln_context_device_info(b->ctx, &info));
  const char *grid = getenv("KILN_ELEMENTS_GRID");
  int exact = info.type == KILN_DEVICE_CPU && !(grid && atoll(grid) > 0);
  double *uf = malloc((size_t)repeats * sizeof *uf), *raw = malloc((size_t)repeats * sizeof *raw);
  double *diff = malloc((size_t)repeats * sizeof *diff);
  if (!uf || !raw || !diff) exit(1);
  for (int w = 0; w < 3; w++) { /* warm-up: compile, caches, clocks */
    ufunc_call(b, x, y, out);
    same_launch(b, n, x, y, out, exact);
  }
  BENCH_CHECK(kiln_context_synchronize(b->ctx));
  int ok = check_sum(out, n); /* the raw launch wrote last */
  for (int r = 0; r < repeats; r++) {
    int ufunc_first = r % 2 == 0;
    double first = burst_us(b, ufunc_first, n, x, y, out, burst, exact);
    double second = burst_us(b, !ufunc_first, n, x, y, out, burst, exact);
    uf[r] = ufunc_first ? first : second;
    raw[r] = ufunc_first ? second : first;
    diff[r] = uf[r] - raw[r];
  }
  ok &= check_sum(out, n);
  double u = bench_median(uf, repeats), l = bench_median(raw, repeats);
  double d = bench_median(diff, repeats);
  printf("tiny add, %lld element%s, host time per call (median of %d interleaved bursts of "
         "%d): ufunc %.2f us, raw launch of the same generated kernel %.2f us\n",
         (long long)n, n == 1 ? "" : "s", repeats, burst, u, l);
  printf("  host overhead of a tiny ufunc call (%lld element%s): ufunc - raw launch = %+.2f us "
         "(median of burst pairs %+.2f us); goal <= 0.5 us: %s\n",
         (long long)n, n == 1 ? "" : "s", u - l, d, u - l <= 0.5 ? "met" : "NOT met");
  free(uf);
  free(raw);
  free(diff);
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
  int repeats = 50, burst = 200, host = 1, device = 1, big = 1, position = 0;
  long long chunk = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--no-host") == 0) host = 0;
    else if (strcmp(argv[i], "--host-only") == 0) device = 0;
    else if (strcmp(argv[i], "--tiny-only") == 0) host = 0, big = 0;
    else if (strncmp(argv[i], "--chunk=", 8) == 0) chunk = strtoll(argv[i] + 8, NULL, 10);
    else if (position == 0 && ++position) n = strtoll(argv[i], NULL, 10);
    else if (position == 1 && ++position) repeats = atoi(argv[i]);
    else if (position == 2 && ++position) burst = atoi(argv[i]);
  }
  if (n < 1 || repeats < 1 || burst < 1) {
    fprintf(stderr, "usage: ufunc_bench [n [repeats [burst]]] [--no-host | --host-only | --tiny-only] "
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
  make_same_kernel(&b);

  if (chunk > 0) BENCH_CHECK(kiln_ufunc_set_host_chunk_bytes(b.add, (size_t)chunk));
  int ok = 1;
  if (device) {
    if (big) ok &= bench_big(&b, n, repeats);
    ok &= bench_tiny(&b, 1, repeats, burst);
    ok &= bench_tiny(&b, 1024, repeats, burst);
  }
  if (host) ok &= bench_host(&b, n, chunk);

  kiln_event_release(b.start);
  kiln_event_release(b.stop);
  kiln_ufunc_release(b.add);
  kiln_kernel_release(b.raw);
  kiln_kernel_release(b.same);
  kiln_context_release(b.ctx);
  return ok ? 0 : 1;
}
