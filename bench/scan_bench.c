/* scan_bench: the single-pass scan (docs/scan.md) against the device's copy
 * bandwidth, measured in the same process:
 *   reference   kiln_array_copy_into of n float32 (reads and writes 8n bytes)
 *   cumsum      add.scan of n float32, kiln's path for the device, then each
 *               path forced (KILN_SCAN=lookback / reduce-then-scan)
 *   compact     x[x > 0] of n float32 (a third kept): the comparison,
 *               the count and the compaction, as CuPy's boolean indexing
 *   compact (mask given), nonzero of the same x
 * Each: device time between two events around one call (a compaction
 * waits for its count inside), median of `repeats` after warm-up; printed
 * as ms, the ratio to the copy's time, and GB/s of the bytes it must move.
 * The goal on an H100: cumsum <= 1.25x the copy. bench/scan_peers.py times
 * CuPy's cp.cumsum and x[x > 0] on the same sizes. Usage: scan_bench [n
 * [repeats]] (defaults 1e8, 20). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench.h"

typedef enum { COPY, CUMSUM, CUMSUM_LOOKBACK, CUMSUM_RTS, COMPACT, COMPACT_MASK, NONZERO } op_kind;

typedef struct bench {
  kiln_context *ctx;
  kiln_ufunc *add, *greater;
  kiln_array *x, *y, *mask, *kept;
  kiln_event *start, *stop;
  int64_t count;
} bench;

static void run(bench *b, op_kind op) {
  kiln_scan_options flat = {.flatten = 1};
  switch (op) {
    case COPY: BENCH_CHECK(kiln_array_copy_into(b->y, b->x)); break;
    case CUMSUM:
    case CUMSUM_LOOKBACK:
    case CUMSUM_RTS:
      BENCH_CHECK(kiln_ufunc_scan(b->add, kiln_operand_array(b->x), kiln_operand_array(b->y),
                                  &flat, NULL));
      break;
    case COMPACT:
    case COMPACT_MASK:
      if (op == COMPACT) { /* the comparison too, as x[x > 0] */
        kiln_operand in[2] = {kiln_operand_array(b->x), kiln_operand_float(0.0)};
        kiln_operand out[1] = {kiln_operand_array(b->mask)};
        BENCH_CHECK(kiln_ufunc_call(b->greater, 2, in, 1, out, NULL));
      }
      kiln_array_release(b->kept);
      b->kept = NULL;
      BENCH_CHECK(kiln_compact(b->ctx, kiln_operand_array(b->x), kiln_operand_array(b->mask),
                               kiln_operand_new(&b->kept), &b->count, NULL));
      break;
    case NONZERO: {
      kiln_array *idx[1] = {NULL};
      BENCH_CHECK(kiln_nonzero(b->ctx, kiln_operand_array(b->x), idx, &b->count, NULL));
      kiln_array_release(idx[0]);
      break;
    }
  }
}

static void run_op(void *state, int op) { run(state, (op_kind)op); }

static double time_op(bench *b, op_kind op, int repeats) {
  const char *path = op == CUMSUM_LOOKBACK ? "lookback" : op == CUMSUM_RTS ? "reduce-then-scan" : NULL;
  if (path) setenv("KILN_SCAN", path, 1);
  double median = bench_time_events(b->ctx, b->start, b->stop, repeats, run_op, b, (int)op);
  if (path) unsetenv("KILN_SCAN");
  return median;
}

int main(int argc, char **argv) {
  int64_t n;
  int repeats;
  bench_parse_n_repeats(argc, argv, 1, 20, "scan_bench [n [repeats]]", &n, &repeats);
  bench b = {0};
  BENCH_CHECK(kiln_context_create(NULL, &b.ctx));
  kiln_device_info info;
  BENCH_CHECK(kiln_context_device_info(b.ctx, &info));
  printf("scan_bench on %s: %s; n %lld float32, median of %d\n", info.backend, info.name,
         (long long)n, repeats);
  BENCH_CHECK(kiln_ufunc_builtin(b.ctx, "add", &b.add));
  BENCH_CHECK(kiln_ufunc_builtin(b.ctx, "greater", &b.greater));
  /* x: -0.5, 0 or 0.5 (a third kept); the float32 cumsum of such halves
   * stays exact (|sum| << 2^23), so the check below can ask for the bits */
  float *h = malloc((size_t)n * sizeof *h);
  uint64_t state = 12345;
  for (int64_t i = 0; i < n; i++) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    h[i] = (float)((int)(state >> 40) % 3 - 1) * 0.5f; /* -0.5, 0, 0.5 */
  }
  BENCH_CHECK(kiln_array_from_host(b.ctx, KILN_FLOAT32, 1, &n, NULL, h, &b.x));
  BENCH_CHECK(kiln_array_empty(b.ctx, KILN_FLOAT32, 1, &n, &b.y));
  BENCH_CHECK(kiln_array_empty(b.ctx, KILN_BOOL, 1, &n, &b.mask));
  BENCH_CHECK(kiln_event_create(b.ctx, &b.start));
  BENCH_CHECK(kiln_event_create(b.ctx, &b.stop));
  static const struct {
    op_kind op;
    const char *name;
    double per_elem; /* bytes each element must move at least */
  } ops[] = {{COPY, "copy (reference)", 8},
             {CUMSUM, "cumsum", 8},
             {CUMSUM_LOOKBACK, "cumsum lookback", 8},
             {CUMSUM_RTS, "cumsum reduce-then-scan", 8},
             {COMPACT, "x[x > 0]", 4},
             {COMPACT_MASK, "compact (mask given)", 5},
             {NONZERO, "nonzero", 4}};
  double copy_ms = 0;
  printf("%-24s %10s %9s %10s\n", "operation", "ms", "x copy", "GB/s");
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
    double ms = time_op(&b, ops[i].op, repeats);
    if (ops[i].op == COPY) copy_ms = ms;
    printf("%-24s %10.3f %9.2f %10.1f\n", ops[i].name, ms, ms / copy_ms,
           (double)n * ops[i].per_elem / (ms * 1e6));
  }
  /* checks: the cumsum's last element, the count of x > 0 */
  run(&b, CUMSUM);
  float last = 0;
  int64_t one = n - 1, want_count = 0;
  double want_sum = 0;
  for (int64_t i = 0; i < n; i++) {
    want_sum += h[i];
    want_count += h[i] > 0;
  }
  kiln_array *tail = NULL;
  kiln_slice s = {one, KILN_NONE, KILN_NONE};
  BENCH_CHECK(kiln_array_slice(b.y, 1, &s, &tail));
  BENCH_CHECK(kiln_array_to_host(tail, &last, NULL));
  run(&b, COMPACT);
  printf("cumsum[-1] = %.9g (exact: %.9g); x > 0: %lld kept (expected %lld)\n", last, want_sum,
         (long long)b.count, (long long)want_count);
  kiln_array_release(tail);
  kiln_event_release(b.start);
  kiln_event_release(b.stop);
  kiln_array_release(b.x);
  kiln_array_release(b.y);
  kiln_array_release(b.mask);
  kiln_array_release(b.kept);
  kiln_ufunc_release(b.add);
  kiln_ufunc_release(b.greater);
  kiln_context_release(b.ctx);
  free(h);
  return b.count == want_count ? 0 : 1;
}
