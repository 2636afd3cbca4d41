/* gufunc_bench: l2_norm over an (n, 4) float32 array (default n = 1e7),
 * layout (n)->(), through a kiln gufunc against raw kiln kernels in the
 * same process, on the same device and data (docs/gufuncs.md):
 *   raw l2   one work-item per row reading its 4 floats, the same work;
 *   raw copy a float copy of the (n, 4) input, for the device's copy
 *            bandwidth counted as bytes read + written.
 * Device time of one call between two kiln events, median of `repeats`
 * after warm-up. Prints ms and GB/s (l2_norm moves 16n bytes in and 4n
 * out), the ratio gufunc / raw l2, and the gufunc's share of the copy
 * bandwidth (goal >= 0.70; docs/performance.md). bench/gufunc_peers.py
 * times CuPy and Numba on the same sizes. Runs on any backend
 * (KILN_BACKEND); the numbers to report come from a GPU.
 * Then a long core dim (issue 29): the gufunc average, layout (n)->(),
 * over an (n / 10, 100) float32 array, beside a raw copy of that array;
 * gufunc_peers.py times cp.mean(axis=1) on the same shape.
 * Then the same average over rows of other lengths w (the same 40n bytes
 * as (n / 10, w) rows: where staging rows in local memory starts to pay,
 * docs/gufuncs.md "Long core dims"); run once more with
 * KILN_GUFUNC_STAGE=never for the one-row-per-work-item kernel.
 * Usage: gufunc_bench [n [repeats]] */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench.h"

static const char *raw_source =
    "KILN_KERNEL void raw_l2(int64_t n, KILN_GLOBAL const float *x, KILN_GLOBAL float *out) {\n"
    "  int64_t i = kiln_global_id(0);\n"
    "  if (i < n) {\n"
    "    const KILN_GLOBAL float *r = x + 4 * i;\n"
    "    out[i] = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + r[3] * r[3]);\n"
    "  }\n"
    "}\n"
    "KILN_KERNEL void raw_copy(int64_t n, KILN_GLOBAL const float *x, KILN_GLOBAL float *y) {\n"
    "  int64_t i = kiln_global_id(0);\n"
    "  if (i < n) y[i] = x[i];\n"
    "}\n";

static const char *const signatures[] = {"float32(float32 x)"};
static const char *const average_body =
    "float s = 0;\n"
    "for (int64_t i = 0; i < n; i++) s += x(i);\n"
    "return s / (float)n;";
static const char *const body =
    "float s = 0;\n"
    "for (int64_t i = 0; i < n; i++) s += x(i) * x(i);\n"
    "return sqrt(s);";

typedef struct bench {
  kiln_context *ctx;
  kiln_kernel *raw_l2, *raw_copy;
  kiln_gufunc *l2_norm, *average;
  kiln_event *start, *stop;
  int64_t rows, long_rows;
  kiln_array *x, *out, *copy, *wide, *wide_out, *wide_copy;
} bench;

enum { GUFUNC, RAW_L2, RAW_COPY, AVERAGE, WIDE_COPY };

enum { LONG_CORE = 100 }; /* the long core dim of the average */

static void run_once(bench *b, int what) {
  if (what == GUFUNC) {
    kiln_operand in[1] = {kiln_operand_array(b->x)};
    kiln_operand o[1] = {kiln_operand_array(b->out)};
    BENCH_CHECK(kiln_gufunc_call(b->l2_norm, 1, in, 1, o, NULL));
  } else if (what == RAW_L2) {
    kiln_arg args[3] = {kiln_arg_int64(b->rows), kiln_arg_array(b->x), kiln_arg_array(b->out)};
    BENCH_CHECK(kiln_kernel_launch(b->raw_l2, 1, &b->rows, NULL, 3, args, NULL));
  } else if (what == AVERAGE) {
    kiln_operand in[1] = {kiln_operand_array(b->wide)};
    kiln_operand o[1] = {kiln_operand_array(b->wide_out)};
    BENCH_CHECK(kiln_gufunc_call(b->average, 1, in, 1, o, NULL));
  } else {
    int wide = what == WIDE_COPY;
    int64_t n = wide ? LONG_CORE * b->long_rows : 4 * b->rows;
    kiln_arg args[3] = {kiln_arg_int64(n), kiln_arg_array(wide ? b->wide : b->x),
                        kiln_arg_array(wide ? b->wide_copy : b->copy)};
    BENCH_CHECK(kiln_kernel_launch(b->raw_copy, 1, &n, NULL, 3, args, NULL));
  }
}

static double time_ms(bench *b, int what, int repeats) {
  for (int w = 0; w < 5; w++) run_once(b, what);
  BENCH_CHECK(kiln_context_synchronize(b->ctx));
  double *ms = malloc((size_t)repeats * sizeof *ms);
  for (int r = 0; r < repeats; r++) {
    BENCH_CHECK(kiln_event_record(b->start, NULL));
    run_once(b, what);
    BENCH_CHECK(kiln_event_record(b->stop, NULL));
    BENCH_CHECK(kiln_event_synchronize(b->stop));
    BENCH_CHECK(kiln_event_elapsed_ms(b->start, b->stop, &ms[r]));
  }
  double m = bench_median(ms, repeats);
  free(ms);
  return m;
}

/* Largest relative error of out against plain C. */
static double check(bench *b, const float *x) {
  float *out = malloc((size_t)b->rows * sizeof *out + 1);
  BENCH_CHECK(kiln_array_to_host(b->out, out, NULL));
  double worst = 0;
  for (int64_t r = 0; r < b->rows; r++) {
    const float *v = x + 4 * r;
    double want = sqrt((double)v[0] * v[0] + (double)v[1] * v[1] + (double)v[2] * v[2] +
                       (double)v[3] * v[3]);
    worst = fmax(worst, fabs(out[r] - want) / fmax(want, 1e-30));
  }
  free(out);
  return worst;
}

/* The average over (rows, w) float32 for several w, the floats h of the
 * (n / 10, 100) case reshaped; checked against plain C. */
static int row_lengths(bench *b, const float *h, int repeats) {
  static const int64_t widths[] = {8, 16, 24, 32, 48, 64, 256, 1024, 4096};
  const char *mode = getenv("KILN_GUFUNC_STAGE");
  printf("average over (rows, w) float32, %lld floats each (KILN_GUFUNC_STAGE=%s)\n",
         (long long)(b->long_rows * LONG_CORE), mode ? mode : "auto");
  int ok = 1;
  for (size_t k = 0; k < sizeof widths / sizeof *widths; k++) {
    int64_t width = widths[k], rows = b->long_rows * LONG_CORE / width;
    if (rows < 1) continue;
    int64_t shape[2] = {rows, width};
    kiln_array *x = NULL, *out = NULL;
    BENCH_CHECK(kiln_array_from_host(b->ctx, KILN_FLOAT32, 2, shape, NULL, h, &x));
    BENCH_CHECK(kiln_array_empty(b->ctx, KILN_FLOAT32, 1, &rows, &out));
    kiln_operand in[1] = {kiln_operand_array(x)};
    kiln_operand o[1] = {kiln_operand_array(out)};
    for (int r = 0; r < 5; r++) BENCH_CHECK(kiln_gufunc_call(b->average, 1, in, 1, o, NULL));
    double *ms = malloc((size_t)repeats * sizeof *ms);
    for (int r = 0; r < repeats; r++) {
      BENCH_CHECK(kiln_event_record(b->start, NULL));
      BENCH_CHECK(kiln_gufunc_call(b->average, 1, in, 1, o, NULL));
      BENCH_CHECK(kiln_event_record(b->stop, NULL));
      BENCH_CHECK(kiln_event_synchronize(b->stop));
      BENCH_CHECK(kiln_event_elapsed_ms(b->start, b->stop, &ms[r]));
    }
    double t = bench_median(ms, repeats);
    float *means = malloc((size_t)rows * sizeof *means);
    BENCH_CHECK(kiln_array_to_host(out, means, NULL));
    double error = 0;
    for (int64_t r = 0; r < rows; r++) {
      double sum = 0;
      for (int64_t c = 0; c < width; c++) sum += h[r * width + c];
      error = fmax(error, fabs(means[r] - sum / (double)width));
    }
    ok = ok && error < 1e-4;
    printf("  w %5lld  rows %9lld  %.4f ms  %7.1f GB/s read  max abs. error %.2g\n",
           (long long)width, (long long)rows, t, 4.0 * (double)(rows * width) / (t * 1e-3) / 1e9,
           error);
    free(ms);
    free(means);
    kiln_array_release(x);
    kiln_array_release(out);
  }
  return ok;
}

int main(int argc, char **argv) {
  bench b = {0};
  b.rows = argc > 1 ? (int64_t)strtod(argv[1], NULL) : 10000000;
  int repeats = argc > 2 ? atoi(argv[2]) : 50;
  if (b.rows < 1 || repeats < 1) {
    fprintf(stderr, "usage: gufunc_bench [n [repeats]]\n");
    return 2;
  }
  BENCH_CHECK(kiln_context_create(NULL, &b.ctx));
  kiln_device_info info;
  BENCH_CHECK(kiln_context_device_info(b.ctx, &info));
  printf("gufunc_bench on %s device %d: %s (%s), l2_norm over (%lld, 4) float32, median of "
         "%d repeats\n",
         info.backend, info.index, info.name, info.driver_version, (long long)b.rows, repeats);
  BENCH_CHECK(kiln_kernel_create(b.ctx, raw_source, "raw_l2", NULL, &b.raw_l2));
  BENCH_CHECK(kiln_kernel_create(b.ctx, raw_source, "raw_copy", NULL, &b.raw_copy));
  BENCH_CHECK(kiln_gufunc_create(b.ctx, "l2_norm", "(n)->()", 1, signatures, body, NULL,
                                 &b.l2_norm));
  BENCH_CHECK(kiln_event_create(b.ctx, &b.start));
  BENCH_CHECK(kiln_event_create(b.ctx, &b.stop));
  int64_t shape[2] = {b.rows, 4};
  float *x = malloc((size_t)b.rows * 16);
  srand(1);
  for (int64_t i = 0; i < 4 * b.rows; i++) x[i] = -1.0f + 2.0f * (float)rand() / (float)RAND_MAX;
  BENCH_CHECK(kiln_array_from_host(b.ctx, KILN_FLOAT32, 2, shape, NULL, x, &b.x));
  BENCH_CHECK(kiln_array_empty(b.ctx, KILN_FLOAT32, 1, &b.rows, &b.out));
  BENCH_CHECK(kiln_array_empty(b.ctx, KILN_FLOAT32, 2, shape, &b.copy));

  double copy = time_ms(&b, RAW_COPY, repeats);
  double raw = time_ms(&b, RAW_L2, repeats);
  double raw_error = check(&b, x);
  double gu = time_ms(&b, GUFUNC, repeats);
  double gu_error = check(&b, x);
  double l2_bytes = 20.0 * (double)b.rows, copy_bytes = 32.0 * (double)b.rows;
  double copy_gbs = copy_bytes / (copy * 1e-3) / 1e9;
  printf("raw copy   %.4f ms  %7.1f GB/s (read + written: the copy bandwidth)\n", copy, copy_gbs);
  printf("raw l2     %.4f ms  %7.1f GB/s  max rel. error %.2g\n", raw,
         l2_bytes / (raw * 1e-3) / 1e9, raw_error);
  printf("gufunc l2  %.4f ms  %7.1f GB/s  max rel. error %.2g\n", gu,
         l2_bytes / (gu * 1e-3) / 1e9, gu_error);
  double share = (l2_bytes / (gu * 1e-3) / 1e9) / copy_gbs;
  printf("ratio gufunc / raw l2 = %.3f; gufunc at %.2f of copy bandwidth (goal >= 0.70)\n",
         gu / raw, share);
  printf("peers on an H100 (issue 8): CuPy 0.250 ms, Numba 0.217 ms; goal <= 0.6x the faster "
         "= %.3f ms there (run bench/gufunc_peers.py for this device)\n", 0.6 * 0.217);
  int ok = gu_error < 1e-6 && raw_error < 1e-6;

  /* the long core dim: average over (n / 10, 100) */
  b.long_rows = b.rows / 10 > 0 ? b.rows / 10 : 1;
  int64_t wide_shape[2] = {b.long_rows, LONG_CORE};
  float *w = malloc((size_t)b.long_rows * LONG_CORE * sizeof *w);
  for (int64_t i = 0; i < LONG_CORE * b.long_rows; i++)
    w[i] = -1.0f + 2.0f * (float)rand() / (float)RAND_MAX;
  BENCH_CHECK(kiln_gufunc_create(b.ctx, "average", "(n)->()", 1, signatures, average_body, NULL,
                                 &b.average));
  BENCH_CHECK(kiln_array_from_host(b.ctx, KILN_FLOAT32, 2, wide_shape, NULL, w, &b.wide));
  BENCH_CHECK(kiln_array_empty(b.ctx, KILN_FLOAT32, 1, &b.long_rows, &b.wide_out));
  BENCH_CHECK(kiln_array_empty(b.ctx, KILN_FLOAT32, 2, wide_shape, &b.wide_copy));
  double wide_copy = time_ms(&b, WIDE_COPY, repeats);
  double average = time_ms(&b, AVERAGE, repeats);
  float *means = malloc((size_t)b.long_rows * sizeof *means);
  BENCH_CHECK(kiln_array_to_host(b.wide_out, means, NULL));
  double average_error = 0;
  for (int64_t r = 0; r < b.long_rows; r++) {
    double sum = 0;
    for (int c = 0; c < LONG_CORE; c++) sum += w[r * LONG_CORE + c];
    average_error = fmax(average_error, fabs(means[r] - sum / LONG_CORE));
  }
  double read = 4.0 * LONG_CORE * (double)b.long_rows;
  printf("long core dim: average over (%lld, %d) float32\n", (long long)b.long_rows, LONG_CORE);
  printf("raw copy   %.4f ms  %7.1f GB/s (read + written)\n", wide_copy,
         2 * read / (wide_copy * 1e-3) / 1e9);
  printf("gufunc average %.4f ms  %7.1f GB/s read  max abs. error %.2g; / raw copy %.3f "
         "(compare gufunc_peers.py's 'cupy mean' line: goal <= 1.0x)\n",
         average, read / (average * 1e-3) / 1e9, average_error, average / wide_copy);
  ok = ok && average_error < 1e-5;
  free(means);
  kiln_array_release(b.wide);
  kiln_array_release(b.wide_out);
  kiln_array_release(b.wide_copy);
  ok = row_lengths(&b, w, repeats) && ok;
  free(w);
  kiln_gufunc_release(b.average);
  if (!ok) printf("WRONG RESULT\n");
  kiln_array_release(b.x);
  kiln_array_release(b.out);
  kiln_array_release(b.copy);
  kiln_event_release(b.start);
  kiln_event_release(b.stop);
  kiln_gufunc_release(b.l2_norm);
  kiln_kernel_release(b.raw_l2);
  kiln_kernel_release(b.raw_copy);
  kiln_context_release(b.ctx);
  free(x);
  return ok ? 0 : 1;
}
