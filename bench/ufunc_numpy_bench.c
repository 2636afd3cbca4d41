/* ufunc_numpy_bench: what NumPy's integer semantics cost (docs/ufuncs.md):
 * the built-in floor_divide and remainder over n int32 device arrays
 * (default 1e8; divisors random, never 0, so both sides do the same work),
 * whose bodies guard the divisor (0 and -1) and round toward minus
 * infinity, against a raw kernel doing C's truncating a / b and a % b, in
 * the same process on the same device. Device time of one call between two
 * events, median of `repeats` after warm-up; prints each ratio built-in /
 * raw. Usage: ufunc_numpy_bench [n [repeats]] */
#include <stdint.h>
#include <string.h>

#include "bench.h"

static const char *raw_source =
    "KILN_KERNEL void raw_div(int64_t n, KILN_GLOBAL const int32_t *x,\n"
    "                         KILN_GLOBAL const int32_t *y, KILN_GLOBAL int32_t *out,\n"
    "                         int32_t rem) {\n"
    "  int64_t i = kiln_global_id(0);\n"
    "  if (i < n) out[i] = rem ? x[i] % y[i] : x[i] / y[i];\n"
    "}\n";

int main(int argc, char **argv) {
  int64_t n = argc > 1 ? (int64_t)strtod(argv[1], NULL) : 100000000;
  int repeats = argc > 2 ? atoi(argv[2]) : 30;
  if (n < 1 || repeats < 1) {
    fprintf(stderr, "usage: ufunc_numpy_bench [n [repeats]]\n");
    return 2;
  }
  kiln_context *ctx = NULL;
  BENCH_CHECK(kiln_context_create(NULL, &ctx));
  kiln_device_info info;
  BENCH_CHECK(kiln_context_device_info(ctx, &info));
  printf("ufunc_numpy_bench on %s: %s, n = %lld int32, median of %d\n", info.backend,
         info.name, (long long)n, repeats);
  int32_t *hx = malloc((size_t)n * 4), *hy = malloc((size_t)n * 4);
  if (!hx || !hy) return 1;
  uint64_t state = 88172645463325252ull;
  for (int64_t i = 0; i < n; i++) {
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    hx[i] = (int32_t)state;
    int32_t d = (int32_t)(state >> 40) % 1000;
    hy[i] = d == 0 ? 7 : d;
  }
  kiln_array *x, *y, *out;
  BENCH_CHECK(kiln_array_from_host(ctx, KILN_INT32, 1, &n, NULL, hx, &x));
  BENCH_CHECK(kiln_array_from_host(ctx, KILN_INT32, 1, &n, NULL, hy, &y));
  BENCH_CHECK(kiln_array_empty(ctx, KILN_INT32, 1, &n, &out));
  kiln_kernel *raw;
  BENCH_CHECK(kiln_kernel_create(ctx, raw_source, "raw_div", NULL, &raw));
  kiln_event *start, *stop;
  BENCH_CHECK(kiln_event_create(ctx, &start));
  BENCH_CHECK(kiln_event_create(ctx, &stop));
  double *ms = malloc((size_t)repeats * sizeof *ms);
  static const char *names[2] = {"floor_divide", "remainder"};
  for (int f = 0; f < 2; f++) {
    kiln_ufunc *u;
    BENCH_CHECK(kiln_ufunc_builtin(ctx, names[f], &u));
    double median[2];
    for (int side = 0; side < 2; side++) {
      for (int r = -3; r < repeats; r++) { /* 3 warm-up calls */
        BENCH_CHECK(kiln_event_record(start, NULL));
        if (side == 0) {
          kiln_operand in[2] = {kiln_operand_array(x), kiln_operand_array(y)};
          kiln_operand o[1] = {kiln_operand_array(out)};
          BENCH_CHECK(kiln_ufunc_call(u, 2, in, 1, o, NULL));
        } else {
          kiln_arg args[5] = {kiln_arg_int64(n), kiln_arg_array(x), kiln_arg_array(y),
                              kiln_arg_array(out), kiln_arg_int32(f)};
          BENCH_CHECK(kiln_kernel_launch(raw, 1, &n, NULL, 5, args, NULL));
        }
        BENCH_CHECK(kiln_event_record(stop, NULL));
        BENCH_CHECK(kiln_event_synchronize(stop));
        if (r >= 0) BENCH_CHECK(kiln_event_elapsed_ms(start, stop, &ms[r]));
      }
      median[side] = bench_median(ms, repeats);
    }
    printf("%-13s built-in %.4f ms, raw C %s %.4f ms, ratio %.3f\n", names[f], median[0],
           f ? "%" : "/", median[1], median[0] / median[1]);
    kiln_ufunc_release(u);
  }
  free(ms);
  kiln_event_release(start);
  kiln_event_release(stop);
  kiln_kernel_release(raw);
  kiln_array_release(x);
  kiln_array_release(y);
  kiln_array_release(out);
  kiln_context_release(ctx);
  free(hx);
  free(hy);
  return 0;
}
