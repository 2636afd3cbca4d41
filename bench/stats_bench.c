/* stats_bench: kiln_mean, kiln_var, kiln_std and kiln_norm of n float32
 * against the same-process sum (kiln_ufunc_reduce's add, the floor of any
 * of them: each must read the n elements once; var and std twice) and
 * against a row-wise mean of a (rows, cols) matrix (docs/statistics.md).
 * Each: device time between two events around one call (into device
 * outputs), median of `repeats` after warm-up; printed as ms, the ratio to
 * the sum's time and GB/s of the 4n bytes read once. bench/stats_peers.py
 * times CuPy's mean/var/std/linalg.norm on the same sizes.
 * Usage: stats_bench [n [rows [cols [repeats]]]] (defaults 1e8, 1e6, 100,
 * 20). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench.h"

typedef enum { SUM, MEAN, VAR, STD, NORM, ROW_MEAN, NOPS } op_kind;
static const char *const names[NOPS] = {"sum (reference)", "mean", "var", "std", "norm",
                                        "row mean"};

typedef struct bench {
  kiln_context *ctx;
  kiln_ufunc *add;
  kiln_array *x, *m, *scalar, *rows_out;
  kiln_event *start, *stop;
} bench;

static void run(bench *b, op_kind op) {
  kiln_operand x = kiln_operand_array(b->x), s = kiln_operand_array(b->scalar);
  kiln_reduce_options rows = kiln_reduce_axis(1);
  switch (op) {
    case SUM: BENCH_CHECK(kiln_ufunc_reduce(b->add, x, s, NULL, NULL)); break;
    case MEAN: BENCH_CHECK(kiln_mean(b->ctx, x, s, NULL, NULL)); break;
    case VAR: BENCH_CHECK(kiln_var(b->ctx, x, s, 0, NULL, NULL)); break;
    case STD: BENCH_CHECK(kiln_std(b->ctx, x, s, 0, NULL, NULL)); break;
    case NORM: BENCH_CHECK(kiln_norm(b->ctx, x, s, NULL, NULL)); break;
    case ROW_MEAN:
      BENCH_CHECK(kiln_mean(b->ctx, kiln_operand_array(b->m), kiln_operand_array(b->rows_out),
                            &rows, NULL));
      break;
    default: break;
  }
}

static void run_op(void *state, int op) { run(state, (op_kind)op); }

static double time_op(bench *b, op_kind op, int repeats) {
  return bench_time_events(b->ctx, b->start, b->stop, repeats, run_op, b, (int)op);
}

int main(int argc, char **argv) {
  int64_t n, rows, cols;
  int repeats;
  bench_parse_sizes(argc, argv, "stats_bench", &n, &rows, &cols, &repeats);
  bench b = {0};
  BENCH_CHECK(kiln_context_create(NULL, &b.ctx));
  kiln_device_info info;
  BENCH_CHECK(kiln_context_device_info(b.ctx, &info));
  BENCH_CHECK(kiln_ufunc_builtin(b.ctx, "add", &b.add));
  float half = 0.5f;
  int64_t shape[2] = {rows, cols};
  BENCH_CHECK(kiln_array_full(b.ctx, KILN_FLOAT32, 1, &n, &half, &b.x));
  BENCH_CHECK(kiln_array_full(b.ctx, KILN_FLOAT32, 2, shape, &half, &b.m));
  BENCH_CHECK(kiln_array_empty(b.ctx, KILN_FLOAT32, 0, NULL, &b.scalar));
  BENCH_CHECK(kiln_array_empty(b.ctx, KILN_FLOAT32, 1, &rows, &b.rows_out));
  BENCH_CHECK(kiln_event_create(b.ctx, &b.start));
  BENCH_CHECK(kiln_event_create(b.ctx, &b.stop));
  printf("stats_bench on %s: n = %lld float32, matrix (%lld, %lld), median of %d\n", info.name,
         (long long)n, (long long)rows, (long long)cols, repeats);
  double reference = 0;
  for (int op = 0; op < NOPS; op++) {
    double ms = time_op(&b, (op_kind)op, repeats);
    if (op == SUM) reference = ms;
    double bytes = op == ROW_MEAN ? 4.0 * (double)rows * (double)cols : 4.0 * (double)n;
    printf("  %-16s %9.3f ms  %5.2fx sum  %8.1f GB/s (one read)\n", names[op], ms,
           reference > 0 ? ms / reference : 0, bytes / (ms * 1e6));
  }
  kiln_event_release(b.start);
  kiln_event_release(b.stop);
  kiln_array_release(b.rows_out);
  kiln_array_release(b.scalar);
  kiln_array_release(b.m);
  kiln_array_release(b.x);
  kiln_ufunc_release(b.add);
  kiln_context_release(b.ctx);
  return 0;
}
