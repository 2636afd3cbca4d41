/* random_bench: random arrays (kiln/random.h) against the device's write
 * bandwidth measured in the same process (docs/random.md):
 *   reference  kiln_array_copy_into from a broadcast scalar: writes 4n
 *              (float32) or 8n bytes and reads next to nothing
 *   uniform    float32 [0, 1), float64
 *   normal     standard normal float32, float64 (Box-Muller, both outputs)
 *   lognormal  float32
 *   integers   int32 in [0, 1000), int64 over the whole int64 range
 *   bernoulli  bool, p = 0.3
 *   permutation int32, int64 (n uint64 keys drawn and radix sorted with
 *              the indices: far from the write bandwidth by nature)
 * Each: device time between two events around one call, median of
 * `repeats` after warm-up; printed as ms, GB/s written and that as a
 * fraction of the same-width write reference. A check at the end: the
 * first elements of a normal draw equal the host generator's. Then the
 * host generator's own speed (one CPU thread) on n / 10 float32 normals.
 * bench/random_peers.py prints CuPy's and NumPy's times beside these.
 * Usage: random_bench [n [repeats]] (defaults 1e8, 20). */
#include <stdint.h>
#include <string.h>

#include "bench.h"

typedef enum { WRITE32, WRITE64, UNIFORM32, UNIFORM64, NORMAL32, NORMAL64, LOGNORMAL32,
               INTEGERS32, INTEGERS64, BERNOULLI, PERMUTATION32, PERMUTATION64 } op_kind;

typedef struct bench {
  kiln_context *ctx;
  kiln_random_generator *gen;
  kiln_array *f32, *f64, *i32, *i64, *b8, *zero32, *zero64;
  kiln_event *start, *stop;
} bench;

static void run(bench *b, op_kind op) {
  switch (op) {
  case WRITE32: BENCH_CHECK(kiln_array_copy_into(b->f32, b->zero32)); break;
  case WRITE64: BENCH_CHECK(kiln_array_copy_into(b->f64, b->zero64)); break;
  case UNIFORM32:
    BENCH_CHECK(kiln_random_uniform(b->gen, NULL, 0, 1, kiln_operand_array(b->f32), NULL));
    break;
  case UNIFORM64:
    BENCH_CHECK(kiln_random_uniform(b->gen, NULL, 0, 1, kiln_operand_array(b->f64), NULL));
    break;
  case NORMAL32:
    BENCH_CHECK(kiln_random_standard_normal(b->gen, NULL, kiln_operand_array(b->f32), NULL));
    break;
  case NORMAL64:
    BENCH_CHECK(kiln_random_standard_normal(b->gen, NULL, kiln_operand_array(b->f64), NULL));
    break;
  case LOGNORMAL32:
    BENCH_CHECK(kiln_random_lognormal(b->gen, NULL, 0, 1, kiln_operand_array(b->f32), NULL));
    break;
  case INTEGERS32:
    BENCH_CHECK(kiln_random_integers(b->gen, NULL, 0, 1000, 0, kiln_operand_array(b->i32), NULL));
    break;
  case INTEGERS64:
    BENCH_CHECK(kiln_random_integers(b->gen, NULL, INT64_MIN, INT64_MAX, 1,
                                     kiln_operand_array(b->i64), NULL));
    break;
  case BERNOULLI:
    BENCH_CHECK(kiln_random_bernoulli(b->gen, NULL, 0.3, kiln_operand_array(b->b8), NULL));
    break;
  case PERMUTATION32:
    BENCH_CHECK(kiln_random_permutation(b->gen, NULL, kiln_operand_array(b->i32), NULL));
    break;
  case PERMUTATION64:
    BENCH_CHECK(kiln_random_permutation(b->gen, NULL, kiln_operand_array(b->i64), NULL));
    break;
  }
}

typedef struct timed_op {
  bench *b;
  op_kind op;
} timed_op;

static void run_timed(void *data) {
  timed_op *t = data;
  run(t->b, t->op);
}

static double time_op(bench *b, op_kind op, int repeats) {
  timed_op t = {b, op};
  return bench_device_median_ms(b->start, b->stop, repeats, run_timed, &t);
}

int main(int argc, char **argv) {
  int64_t n;
  int repeats;
  bench_parse_n_repeats(argc, argv, 16, 20, "random_bench [n >= 16 [repeats]]", &n, &repeats);
  bench b = {0};
  BENCH_CHECK(kiln_context_create(NULL, &b.ctx));
  kiln_device_info info;
  BENCH_CHECK(kiln_context_device_info(b.ctx, &info));
  printf("random_bench on %s: %s; n %lld, median of %d\n", info.backend, info.name,
         (long long)n, repeats);
  BENCH_CHECK(kiln_random_generator_create(20261127, &b.gen));
  BENCH_CHECK(kiln_array_empty(b.ctx, KILN_FLOAT32, 1, &n, &b.f32));
  BENCH_CHECK(kiln_array_empty(b.ctx, KILN_FLOAT64, 1, &n, &b.f64));
  BENCH_CHECK(kiln_array_empty(b.ctx, KILN_INT32, 1, &n, &b.i32));
  BENCH_CHECK(kiln_array_empty(b.ctx, KILN_INT64, 1, &n, &b.i64));
  BENCH_CHECK(kiln_array_empty(b.ctx, KILN_BOOL, 1, &n, &b.b8));
  BENCH_CHECK(kiln_array_zeros(b.ctx, KILN_FLOAT32, 0, NULL, &b.zero32));
  BENCH_CHECK(kiln_array_zeros(b.ctx, KILN_FLOAT64, 0, NULL, &b.zero64));
  BENCH_CHECK(kiln_event_create(b.ctx, &b.start));
  BENCH_CHECK(kiln_event_create(b.ctx, &b.stop));

  static const struct {
    op_kind op;
    const char *name;
    int bytes;      /* per element written */
    op_kind write;  /* the write reference of the same width */
  } ops[] = {{WRITE32, "write float32 (reference)", 4, WRITE32},
             {WRITE64, "write float64 (reference)", 8, WRITE64},
             {UNIFORM32, "uniform float32", 4, WRITE32},
             {NORMAL32, "standard_normal float32", 4, WRITE32},
             {LOGNORMAL32, "lognormal float32", 4, WRITE32},
             {UNIFORM64, "uniform float64", 8, WRITE64},
             {NORMAL64, "standard_normal float64", 8, WRITE64},
             {INTEGERS32, "integers int32 [0,1000)", 4, WRITE32},
             {INTEGERS64, "integers int64 full", 8, WRITE64},
             {BERNOULLI, "bernoulli bool", 1, WRITE32},
             /* a draw of n uint64 keys and kiln's radix sort of them */
             {PERMUTATION32, "permutation int32", 4, WRITE32},
             {PERMUTATION64, "permutation int64", 8, WRITE64}};
  double write_gbs[2] = {0, 0}, share[2] = {0, 0};
  printf("%-28s %10s %10s %14s\n", "operation", "ms", "GB/s", "of write BW");
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
    double ms = time_op(&b, ops[i].op, repeats);
    double gbs = (double)n * ops[i].bytes / (ms * 1e6);
    if (ops[i].op == WRITE32) write_gbs[0] = gbs;
    if (ops[i].op == WRITE64) write_gbs[1] = gbs;
    double reference = write_gbs[ops[i].write == WRITE64];
    printf("%-28s %10.3f %10.1f %13.1f%%\n", ops[i].name, ms, gbs, 100 * gbs / reference);
    if (ops[i].op == UNIFORM32) share[0] = 100 * gbs / reference;
    if (ops[i].op == NORMAL32) share[1] = 100 * gbs / reference;
  }
  /* the goal: both at >= 70% of the write bandwidth of this run */
  printf("goal >= 70%% of write BW: uniform float32 %.1f%% (%s), standard_normal float32 "
         "%.1f%% (%s)\n", share[0], share[0] >= 70 ? "met" : "NOT met", share[1],
         share[1] >= 70 ? "met" : "NOT met");

  /* the device's first values are the host generator's */
  kiln_random_state state = kiln_random_generator_state(b.gen);
  kiln_random_generator *host = NULL;
  BENCH_CHECK(kiln_random_generator_create_state(&state, &host));
  run(&b, NORMAL32);
  float device[16], expected[16];
  int64_t sixteen = 16;
  kiln_array *head = NULL;
  kiln_slice first = {0, 16, 1};
  BENCH_CHECK(kiln_array_slice(b.f32, 1, &first, &head));
  BENCH_CHECK(kiln_array_to_host(head, device, NULL));
  kiln_array_release(head);
  BENCH_CHECK(kiln_random_standard_normal(
      host, NULL, kiln_operand_host_output(expected, KILN_FLOAT32, 1, &sixteen, NULL), NULL));
  printf("device == host generator (first 16 normals): %s\n",
         memcmp(device, expected, sizeof device) == 0 ? "yes" : "NO");

  /* the host generator, one thread */
  int64_t m = n / 10;
  float *values = malloc((size_t)m * sizeof *values);
  double t0 = bench_now_ms();
  BENCH_CHECK(kiln_random_standard_normal(
      host, NULL, kiln_operand_host_output(values, KILN_FLOAT32, 1, &m, NULL), NULL));
  double host_ms = bench_now_ms() - t0;
  printf("host generator: %lld float32 normals in %.1f ms (%.1f M/s, one thread)\n",
         (long long)m, host_ms, (double)m / host_ms / 1e3);
  free(values);
  kiln_random_generator_release(host);
  kiln_event_release(b.start);
  kiln_event_release(b.stop);
  kiln_array_release(b.f32);
  kiln_array_release(b.f64);
  kiln_array_release(b.i32);
  kiln_array_release(b.i64);
  kiln_array_release(b.b8);
  kiln_array_release(b.zero32);
  kiln_array_release(b.zero64);
  kiln_random_generator_release(b.gen);
  kiln_context_release(b.ctx);
  return 0;
}
