/* reduce_bench: reductions and scans against the device's copy bandwidth,
 * measured in the same process (docs/performance.md, docs/reductions.md):
 *   reference  kiln_array_copy_into of n float32 (reads and writes 8n bytes)
 *   sum        add.reduce of n float32 (reads 4n bytes)
 *   row sum    add.reduce over axis 1 of a (rows, cols) float32 matrix
 *   col sum    add.reduce over axis 0 of the same matrix
 *   max, min   maximum.reduce / minimum.reduce of n float32 (reads 4n bytes)
 *   argmax     of n float32
 *   cumsum     add.scan of n float32 (reads 4n, writes 4n bytes at least)
 * Each: device time between two events around one call, median of
 * `repeats` after warm-up; printed as ms, GB/s of the bytes it must move,
 * and that bandwidth as a fraction of the copy's. bench/reduce_peers.py
 * times CuPy on the same sizes. Usage: reduce_bench [n [rows [cols
 * [repeats]]]] (defaults 1e8, 1e6, 100, 20). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench.h"

typedef enum { COPY, SUM, ROWS, COLS, MAX, MIN, ARGMAX, CUMSUM } op_kind;

typedef struct bench {
  kiln_context *ctx;
  kiln_ufunc *add, *maximum, *minimum;
  kiln_array *x, *x2, *m, *scalar, *index, *row_out, *col_out;
  kiln_event *start, *stop;
} bench;

static void run(bench *b, op_kind op) {
  kiln_reduce_options rows = kiln_reduce_axis(1), cols = kiln_reduce_axis(0);
  kiln_scan_options flat = {.flatten = 1};
  switch (op) {
    case COPY: BENCH_CHECK(kiln_array_copy_into(b->x2, b->x)); break;
    case SUM:
      BENCH_CHECK(kiln_ufunc_reduce(b->add, kiln_operand_array(b->x), kiln_operand_array(b->scalar),
                                    NULL, NULL));
      break;
    case ROWS:
      BENCH_CHECK(kiln_ufunc_reduce(b->add, kiln_operand_array(b->m),
                                    kiln_operand_array(b->row_out), &rows, NULL));
      break;
    case COLS:
      BENCH_CHECK(kiln_ufunc_reduce(b->add, kiln_operand_array(b->m),
                                    kiln_operand_array(b->col_out), &cols, NULL));
      break;
    case MAX:
    case MIN:
      BENCH_CHECK(kiln_ufunc_reduce(op == MAX ? b->maximum : b->minimum, kiln_operand_array(b->x),
                                    kiln_operand_array(b->scalar), NULL, NULL));
      break;
    case ARGMAX:
      BENCH_CHECK(
          kiln_argmax(b->ctx, kiln_operand_array(b->x), kiln_operand_array(b->index), NULL, NULL));
      break;
    case CUMSUM:
      BENCH_CHECK(kiln_ufunc_scan(b->add, kiln_operand_array(b->x), kiln_operand_array(b->x2),
                                  &flat, NULL));
      break;
  }
}

static void run_op(void *state, int op) { run(state, (op_kind)op); }

static double time_op(bench *b, op_kind op, int repeats) {
  return bench_time_events(b->ctx, b->start, b->stop, repeats, run_op, b, (int)op);
}

int main(int argc, char **argv) {
  int64_t n, rows, cols;
  int repeats;
  bench_parse_sizes(argc, argv, "reduce_bench", &n, &rows, &cols, &repeats);
  bench b = {0};
  BENCH_CHECK(kiln_context_create(NULL, &b.ctx));
  kiln_device_info info;
  BENCH_CHECK(kiln_context_device_info(b.ctx, &info));
  printf("reduce_bench on %s: %s; n %lld, matrix (%lld, %lld) float32, median of %d\n",
         info.backend, info.name, (long long)n, (long long)rows, (long long)cols, repeats);
  BENCH_CHECK(kiln_ufunc_builtin(b.ctx, "add", &b.add));
  BENCH_CHECK(kiln_ufunc_builtin(b.ctx, "maximum", &b.maximum));
  BENCH_CHECK(kiln_ufunc_builtin(b.ctx, "minimum", &b.minimum));
  float one = 0.5f;
  int64_t mshape[2] = {rows, cols};
  BENCH_CHECK(kiln_array_full(b.ctx, KILN_FLOAT32, 1, &n, &one, &b.x));
  BENCH_CHECK(kiln_array_empty(b.ctx, KILN_FLOAT32, 1, &n, &b.x2));
  BENCH_CHECK(kiln_array_full(b.ctx, KILN_FLOAT32, 2, mshape, &one, &b.m));
  BENCH_CHECK(kiln_array_empty(b.ctx, KILN_FLOAT32, 0, NULL, &b.scalar));
  BENCH_CHECK(kiln_array_empty(b.ctx, KILN_INT64, 0, NULL, &b.index));
  BENCH_CHECK(kiln_array_empty(b.ctx, KILN_FLOAT32, 1, &rows, &b.row_out));
  BENCH_CHECK(kiln_array_empty(b.ctx, KILN_FLOAT32, 1, &cols, &b.col_out));
  BENCH_CHECK(kiln_event_create(b.ctx, &b.start));
  BENCH_CHECK(kiln_event_create(b.ctx, &b.stop));

  static const struct {
    op_kind op;
    const char *name;
    int matrix;      /* sizes from the matrix, else n */
    double per_elem; /* bytes each element must move */
  } ops[] = {{COPY, "copy (reference)", 0, 8}, {SUM, "sum", 0, 4},
             {ROWS, "row sum (axis 1)", 1, 4}, {COLS, "column sum (axis 0)", 1, 4},
             {MAX, "max", 0, 4},               {MIN, "min", 0, 4},
             {ARGMAX, "argmax", 0, 4},         {CUMSUM, "cumsum", 0, 8}};
  double copy_gbs = 0;
  printf("%-22s %10s %10s %12s\n", "operation", "ms", "GB/s", "of copy BW");
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
    double ms = time_op(&b, ops[i].op, repeats);
    double elems = ops[i].matrix ? (double)rows * (double)cols : (double)n;
    double gbs = elems * ops[i].per_elem / (ms * 1e6);
    if (ops[i].op == COPY) copy_gbs = gbs;
    printf("%-22s %10.3f %10.1f %11.1f%%\n", ops[i].name, ms, gbs, 100 * gbs / copy_gbs);
  }
  /* a check that the sums are sums: n * 0.5 in float32 with kiln's tree */
  float sum = 0;
  run(&b, SUM);
  BENCH_CHECK(kiln_array_to_host(b.scalar, &sum, NULL));
  printf("sum = %.9g (exact: %.9g)\n", sum, 0.5 * (double)n);
  kiln_event_release(b.start);
  kiln_event_release(b.stop);
  kiln_array_release(b.x);
  kiln_array_release(b.x2);
  kiln_array_release(b.m);
  kiln_array_release(b.scalar);
  kiln_array_release(b.index);
  kiln_array_release(b.row_out);
  kiln_array_release(b.col_out);
  kiln_ufunc_release(b.add);
  kiln_ufunc_release(b.maximum);
  kiln_ufunc_release(b.minimum);
  kiln_context_release(b.ctx);
  return 0;
}
