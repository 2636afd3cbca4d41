/* sort_bench: kiln's sorts beside CuPy 14.2's figures on the lent H100
 * (issue 24; bench/sort_peers.py measures CuPy and NumPy in the same
 * session) and the device's copy bandwidth, measured in the same process
 * (docs/sorting.md):
 *   reference        kiln_array_copy_into of n uint32 (reads and writes 8n bytes)
 *   sort <dtype>     kiln_sort of n random keys (uint32, float32, int64, float64)
 *   sort specials    kiln_sort of n float32 of which 1 in 64 is a NaN or -0.0
 *                    (their own last step: docs/sorting.md)
 *   argsort float32  kiln_argsort of n float32
 *   argsort float64  kiln_argsort of n float64 (8-byte keys, 4-byte indices:
 *                    the passes' 12-byte width)
 *   sort small       kiln_sort of n / 100 uint32 (1e6 by default)
 *   rows             kiln_sort along axis 1 of (n / 1e4, 1000) float32 (1e4 x 1e3)
 *   unique int32     kiln_unique of n int32 with n / 100 distinct values
 *   pairs            the radix passes (kiln_sort_pairs_device, internal) on
 *                    n uint64 keys with uint64 values, after copying both
 *                    from the input (the copy's time included): the
 *                    passes' 16-byte width
 * Each: device time between two events around one call, median of
 * `repeats` after warm-up (unique waits for its count: wall time), and
 * "host ms": the host's time from the call to its return on an idle
 * device (median of as many; where it nears the device time, the device
 * waits for the host's launches). The
 * 1-D sorts' results are then checked on the host (ordered as NumPy
 * orders them, NaNs last, and the same elements as the input: sums and
 * XORs of the bits): "ok" or "WRONG" after the figures. Usage:
 * sort_bench [n [repeats [only]]] (defaults 1e8, 10; only: time just the
 * rows whose name contains one of these comma-separated texts, e.g.
 * "unique"). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "core/sort/sort_internal.h"

typedef enum { COPY, SORT, ARGSORT, ROWS, UNIQUE, PAIRS } op_kind;

typedef struct job {
  kiln_context *ctx;
  op_kind op;
  kiln_array *in, *out;
  kiln_array *values_in, *values_out; /* PAIRS */
} job;

static void run(void *data) {
  const job *j = data;
  kiln_sort_options rows = kiln_sort_along(1);
  int64_t count = 0;
  switch (j->op) {
    case COPY: BENCH_CHECK(kiln_array_copy_into(j->out, j->in)); break;
    case SORT:
      BENCH_CHECK(kiln_sort(j->ctx, kiln_operand_array(j->in), kiln_operand_array(j->out), NULL,
                            NULL));
      break;
    case ARGSORT:
      BENCH_CHECK(kiln_argsort(j->ctx, kiln_operand_array(j->in), kiln_operand_array(j->out),
                               NULL, NULL));
      break;
    case ROWS:
      BENCH_CHECK(kiln_sort(j->ctx, kiln_operand_array(j->in), kiln_operand_array(j->out), &rows,
                            NULL));
      break;
    case PAIRS: /* the radix passes on keys and values (internal): from fresh copies */
      BENCH_CHECK(kiln_array_copy_into(j->out, j->in));
      BENCH_CHECK(kiln_array_copy_into(j->values_out, j->values_in));
      BENCH_CHECK(kiln_sort_pairs_device(j->ctx, NULL, j->out, j->values_out, 0, 0, 64));
      break;
    case UNIQUE:
      BENCH_CHECK(kiln_unique(j->ctx, kiln_operand_array(j->in), kiln_operand_array(j->out),
                              &count, NULL, NULL));
      break;
  }
}

static uint64_t state = 0x9e3779b97f4a7c15u;
static uint64_t next_random(void) { /* splitmix64 */
  uint64_t z = (state += 0x9e3779b97f4a7c15u);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}

/* n random elements of dtype (distinct > 0: integers in [0, distinct);
 * specials: 1 float32 in 64 a NaN (payloads and signs vary) or -0.0) */
static kiln_array *random_array(kiln_context *ctx, kiln_dtype dtype, int ndim,
                                const int64_t *shape, int64_t distinct, int specials,
                                unsigned char **keep) {
  int64_t n = 1;
  for (int d = 0; d < ndim; d++) n *= shape[d];
  size_t es = kiln_dtype_size(dtype);
  unsigned char *host = malloc(es * (size_t)n);
  for (int64_t i = 0; i < n; i++) {
    uint64_t r = next_random();
    if (dtype == KILN_FLOAT32) {
      float f = (float)((double)(r >> 11) * 0x1p-53 * 2000.0 - 1000.0);
      memcpy(host + (size_t)i * 4, &f, 4);
      if (specials && r % 64 == 0) {
        uint32_t bits = r % 3 == 0 ? 0x80000000u : (0x7fc00000u | (uint32_t)(r >> 40)) ^
                                                       (r & 128 ? 0x80000000u : 0);
        memcpy(host + (size_t)i * 4, &bits, 4);
      }
    } else if (dtype == KILN_FLOAT64) {
      double f = (double)(r >> 11) * 0x1p-53 * 2000.0 - 1000.0;
      memcpy(host + (size_t)i * 8, &f, 8);
    } else {
      if (distinct > 0) r %= (uint64_t)distinct;
      memcpy(host + (size_t)i * es, &r, es);
    }
  }
  kiln_array *a = NULL;
  BENCH_CHECK(kiln_array_from_host(ctx, dtype, ndim, shape, NULL, host, &a));
  *keep = host;
  return a;
}

/* The median host time (ms) of `repeats` calls of call(data), each from
 * the call to its return on an idle device (what the calls cost the
 * host: argument checks, allocations, enqueues), the device drained after
 * each. */
static double host_call_median_ms(kiln_context *ctx, int repeats, void (*call)(void *data),
                                  void *data) {
  double *ms = malloc(sizeof *ms * (size_t)repeats);
  if (!ms) exit(1);
  for (int r = 0; r < repeats; r++) {
    BENCH_CHECK(kiln_context_synchronize(ctx));
    double t0 = bench_now_ms();
    call(data);
    ms[r] = bench_now_ms() - t0;
  }
  BENCH_CHECK(kiln_context_synchronize(ctx));
  double median = bench_median(ms, repeats);
  free(ms);
  return median;
}

/* element i of a sort's input or output as a number in NumPy's order */
static int less_at(kiln_dtype dtype, const unsigned char *p, int64_t i, int64_t j) {
  switch (dtype) {
    case KILN_FLOAT32: {
      float a, b;
      memcpy(&a, p + 4 * i, 4);
      memcpy(&b, p + 4 * j, 4);
      return a != a ? 0 : b != b ? 1 : a < b;
    }
    case KILN_FLOAT64: {
      double a, b;
      memcpy(&a, p + 8 * i, 8);
      memcpy(&b, p + 8 * j, 8);
      return a != a ? 0 : b != b ? 1 : a < b;
    }
    case KILN_INT64: {
      int64_t a, b;
      memcpy(&a, p + 8 * i, 8);
      memcpy(&b, p + 8 * j, 8);
      return a < b;
    }
    default: {
      uint32_t a, b;
      memcpy(&a, p + 4 * i, 4);
      memcpy(&b, p + 4 * j, 4);
      return a < b;
    }
  }
}

/* A 1-D sort's output against its input: ordered, and the same elements
 * (the sums and XORs of their bits as 4- or 8-byte words agree). */
static const char *check_sorted(kiln_dtype dtype, const unsigned char *in, const kiln_array *out,
                                int64_t n) {
  size_t es = kiln_dtype_size(dtype);
  unsigned char *got = malloc(es * (size_t)n);
  BENCH_CHECK(kiln_array_to_host(out, got, NULL));
  int ok = 1;
  for (int64_t i = 1; i < n && ok; i++) ok = !less_at(dtype, got, i, i - 1);
  uint64_t sum[2] = {0, 0}, xor[2] = {0, 0};
  for (int64_t i = 0; i < n; i++) {
    uint64_t a = 0, b = 0;
    memcpy(&a, in + es * (size_t)i, es);
    memcpy(&b, got + es * (size_t)i, es);
    sum[0] += a, xor[0] ^= a, sum[1] += b, xor[1] ^= b;
  }
  free(got);
  return ok && sum[0] == sum[1] && xor[0] == xor[1] ? "ok" : "WRONG";
}

int main(int argc, char **argv) {
  int64_t n;
  int repeats;
  bench_parse_n_repeats(argc, argv, 10000, 10, "sort_bench [n (>= 1e4) [repeats [only]]]", &n, &repeats);
  kiln_context *ctx = NULL;
  kiln_event *start = NULL, *stop = NULL;
  BENCH_CHECK(kiln_context_create(NULL, &ctx));
  kiln_device_info info;
  BENCH_CHECK(kiln_context_device_info(ctx, &info));
  printf("sort_bench on %s: %s; n %lld, median of %d\n", info.backend, info.name, (long long)n,
         repeats);
  /* the radix passes' path (Onesweep look-back or reduce-then-scan; the
   * scan's, or the look-back where the backend gives device-scope
   * ordering; $KILN_SCAN forces either): docs/sorting.md */
  char path[256];
  if (kiln_scan_describe(ctx, path, sizeof path) == KILN_OK)
    printf("radix passes: %s (scan: %s)\n", kiln_sort_path(ctx), path);
  BENCH_CHECK(kiln_event_create(ctx, &start));
  BENCH_CHECK(kiln_event_create(ctx, &stop));
  int64_t small = n / 100, rows_shape[2] = {n / 10000, 1000}, rows_n = n / 10;
  static const struct {
    op_kind op;
    const char *name;
    kiln_dtype dtype;
    int size;            /* 0: n, 1: n / 100, 2: the rows, 3: n with NaNs and -0.0 */
    double cupy_ms;      /* CuPy 14.2 on the H100 at n = 1e8 (issue 24), 0: none */
  } ops[] = {{COPY, "copy uint32 (reference)", KILN_UINT32, 0, 0},
             {SORT, "sort uint32", KILN_UINT32, 0, 2.66},
             {SORT, "sort float32", KILN_FLOAT32, 0, 2.72},
             {SORT, "sort float32 (NaN, -0.0)", KILN_FLOAT32, 3, 0},
             {SORT, "sort int64", KILN_INT64, 0, 6.93},
             {SORT, "sort float64", KILN_FLOAT64, 0, 7.09},
             {ARGSORT, "argsort float32", KILN_FLOAT32, 0, 5.29},
             {ARGSORT, "argsort float64", KILN_FLOAT64, 0, 0},
             {SORT, "sort uint32 (n/100)", KILN_UINT32, 1, 0.126},
             {ROWS, "sort rows float32 axis=1", KILN_FLOAT32, 2, 3.62},
             {UNIQUE, "unique int32 (n/100 distinct)", KILN_INT32, 0, 4.93},
             {PAIRS, "pairs uint64 + uint64 (+copy)", KILN_UINT64, 0, 0}};
  int at_issue_size = n == 100000000;
  const char *only = argc > 3 ? argv[3] : NULL;
  printf("%-30s %10s %12s %10s %14s\n", "operation", "kiln ms", "Mkeys/s", "host ms",
         at_issue_size ? "CuPy H100 ms" : "");
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
    if (i > 0 && only && !bench_name_matches(ops[i].name, only)) continue;
    job j = {ctx, ops[i].op, NULL, NULL, NULL, NULL};
    int64_t count = ops[i].size == 1 ? small : ops[i].size == 2 ? rows_n : n;
    int ndim = ops[i].size == 2 ? 2 : 1;
    const int64_t *shape = ops[i].size == 2 ? rows_shape : &count;
    unsigned char *host = NULL;
    j.in = random_array(ctx, ops[i].dtype, ndim, shape, ops[i].op == UNIQUE ? n / 100 : 0,
                        ops[i].size == 3, &host);
    BENCH_CHECK(kiln_array_empty(ctx, ops[i].op == ARGSORT ? KILN_INT64 : ops[i].dtype, ndim,
                                 shape, &j.out));
    unsigned char *values_host = NULL;
    if (ops[i].op == PAIRS) {
      j.values_in = random_array(ctx, KILN_UINT64, 1, &count, 0, 0, &values_host);
      BENCH_CHECK(kiln_array_empty(ctx, KILN_UINT64, 1, &count, &j.values_out));
    }
    double ms = bench_device_median_ms(start, stop, repeats, run, &j);
    double host_ms = host_call_median_ms(ctx, repeats, run, &j);
    printf("%-30s %10.3f %12.1f %10.3f", ops[i].name, ms, (double)count / (ms * 1e3), host_ms);
    if (at_issue_size && ops[i].cupy_ms > 0)
      printf(" %14.3f  (kiln/CuPy %.2f)", ops[i].cupy_ms, ms / ops[i].cupy_ms);
    if (ops[i].op == SORT) printf("  %s", check_sorted(ops[i].dtype, host, j.out, count));
    printf("\n");
    free(host);
    free(values_host);
    kiln_array_release(j.in);
    kiln_array_release(j.out);
    kiln_array_release(j.values_in);
    kiln_array_release(j.values_out);
  }
  kiln_event_release(start);
  kiln_event_release(stop);
  kiln_context_release(ctx);
  return 0;
}
