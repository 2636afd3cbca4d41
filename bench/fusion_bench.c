/* fusion_bench: chains of ufunc calls run unfused and fused (kiln/fusion.h,
 * docs/fusion.md), measured in the same process on the default backend.
 * One line per chain:
 *   <name> unfused <ms> fused <ms> ratio <fused/unfused>
 *   hidden_layer   g / 255, * w, tanh as (exp(x)-exp(-x))/(exp(x)+exp(-x)):
 *                  the tutorial's three user ufuncs on n float32
 *   polynomial6    ((x*0.25 + 0.5)*x + 1.25)*x - 0.75: 6 built-in calls
 *   broadcast      |(M - row) * column|, M (n/100, 100), row (100,), column
 *                  a strided (n/100, 1) view of a (n/100, 2) array
 *   l2_norm        sqrt(sum(x*x)): the chain folded into the sum
 *   mean_variance  y = x * 0.5 + 0.25, then its mean and variance from one
 *                  custom reduction (kiln_reduction_call) whose complex128
 *                  accumulator carries (sum y, sum y*y): fused, the chain
 *                  folds into its map, one pass over x
 *   user_chain     the examples' gaussian_pdf, then zero_suppress
 * then `add_reference <ms>` (one add of n float32, the bytes the hidden
 * layer must move: two reads, one write) and the hidden layer's fused time
 * over it (the goal: <= 1.05 on the H100), `add_fused_loop` (that add run
 * as a fused group of one: the batched loop of fused kernels on a
 * memory-bound body, over the plain ufunc loop), and the host time of
 * recording one call. Each: device time
 * between two events around the whole chain (begin to end), median of
 * `repeats` after warm-up. bench/fusion_peers.py times CuPy (@cupy.fuse) on
 * the same workloads. Usage: fusion_bench [n [repeats]] (defaults 1e8 on a
 * GPU, 1e7 on a CPU device; 20). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

typedef struct bench {
  kiln_context *ctx;
  int64_t n, rows;
  kiln_ufunc *normalize, *weigh, *activate, *add, *multiply, *subtract, *absolute, *sqrt_u,
      *gaussian, *suppress;
  kiln_array *g, *w, *x, *y, *m, *row, *pairs, *column, *mout, *scalar, *moments_out;
  kiln_reduction *moments;
  kiln_event *start, *stop;
} bench;

typedef enum { HIDDEN, POLY, BROADCAST, NORM, MEANVAR, USER, ADD } chain;

static void call(kiln_ufunc *u, int nin, const kiln_operand *in, kiln_operand out) {
  BENCH_CHECK(kiln_ufunc_call(u, nin, in, 1, &out, NULL));
}

/* t = u(a, b) into a new array; releases a when `drop` (an intermediate) */
static kiln_array *step2(kiln_ufunc *u, kiln_array *a, kiln_operand b, int drop) {
  kiln_array *t = NULL;
  kiln_operand in[2] = {kiln_operand_array(a), b};
  call(u, 2, in, kiln_operand_new(&t));
  if (drop) kiln_array_release(a);
  return t;
}

static void run(bench *b, chain c, int fused) {
  if (fused) BENCH_CHECK(kiln_fusion_begin(b->ctx, NULL));
  kiln_reduce_options all = kiln_reduce_all();
  switch (c) {
    case HIDDEN: {
      kiln_array *t1 = NULL;
      kiln_operand in1[1] = {kiln_operand_array(b->g)};
      call(b->normalize, 1, in1, kiln_operand_new(&t1));
      kiln_array *t2 = step2(b->weigh, t1, kiln_operand_array(b->w), 1);
      kiln_operand in3[1] = {kiln_operand_array(t2)};
      call(b->activate, 1, in3, kiln_operand_array(b->y));
      kiln_array_release(t2);
      break;
    }
    case POLY: {
      /* ((x*0.25 + 0.5)*x + 1.25)*x - 0.75: six calls */
      kiln_array *t = step2(b->multiply, b->x, kiln_operand_float(0.25), 0);
      t = step2(b->add, t, kiln_operand_float(0.5), 1);
      t = step2(b->multiply, t, kiln_operand_array(b->x), 1);
      t = step2(b->add, t, kiln_operand_float(1.25), 1);
      t = step2(b->multiply, t, kiln_operand_array(b->x), 1);
      kiln_operand in[2] = {kiln_operand_array(t), kiln_operand_float(-0.75)};
      call(b->add, 2, in, kiln_operand_array(b->y));
      kiln_array_release(t);
      break;
    }
    case BROADCAST: {
      kiln_array *d = step2(b->subtract, b->m, kiln_operand_array(b->row), 0);
      d = step2(b->multiply, d, kiln_operand_array(b->column), 1);
      kiln_operand in[1] = {kiln_operand_array(d)};
      call(b->absolute, 1, in, kiln_operand_array(b->mout));
      kiln_array_release(d);
      break;
    }
    case NORM: {
      kiln_array *t = step2(b->multiply, b->x, kiln_operand_array(b->x), 0), *s = NULL;
      BENCH_CHECK(kiln_ufunc_reduce(b->add, kiln_operand_array(t), kiln_operand_new(&s), &all,
                                    NULL));
      kiln_array_release(t);
      kiln_operand in[1] = {kiln_operand_array(s)};
      call(b->sqrt_u, 1, in, kiln_operand_array(b->scalar));
      kiln_array_release(s);
      break;
    }
    case MEANVAR: {
      /* y = x * 0.5 + 0.25, then (mean, variance) of y from ONE reduction
       * whose complex128 accumulator carries (sum y, sum y*y); fused, the
       * two calls fold into its map and x is read once */
      kiln_array *t = step2(b->multiply, b->x, kiln_operand_float(0.5), 0);
      t = step2(b->add, t, kiln_operand_float(0.25), 1);
      kiln_operand in[1] = {kiln_operand_array(t)};
      BENCH_CHECK(kiln_reduction_call(b->moments, 1, in, kiln_operand_array(b->moments_out), &all,
                                      NULL));
      kiln_array_release(t);
      break;
    }
    case USER: {
      kiln_array *p = NULL;
      kiln_operand in[3] = {kiln_operand_array(b->x), kiln_operand_float(0.5),
                            kiln_operand_float(1.5)};
      call(b->gaussian, 3, in, kiln_operand_new(&p));
      kiln_operand in2[2] = {kiln_operand_array(p), kiln_operand_float(0.2)};
      call(b->suppress, 2, in2, kiln_operand_array(b->y));
      kiln_array_release(p);
      break;
    }
    case ADD: {
      kiln_operand in[2] = {kiln_operand_array(b->g), kiln_operand_array(b->w)};
      call(b->add, 2, in, kiln_operand_array(b->y));
      break;
    }
  }
  if (fused) BENCH_CHECK(kiln_fusion_end(b->ctx, NULL));
}

typedef struct timed_chain {
  bench *b;
  chain c;
  int fused;
} timed_chain;

static void run_timed(void *data) {
  timed_chain *t = data;
  run(t->b, t->c, t->fused);
}

static double time_chain(bench *b, chain c, int fused, int repeats) {
  timed_chain t = {b, c, fused};
  return bench_device_median_ms(b->start, b->stop, repeats, run_timed, &t);
}

/* The result of chain c (y, mout or the scalars) as bytes, to compare. */
static void result_bytes(bench *b, chain c, unsigned char **out, size_t *bytes) {
  const kiln_array *a = c == BROADCAST ? b->mout : c == MEANVAR ? b->moments_out : b->y;
  if (c == NORM) a = b->scalar;
  *bytes = (size_t)kiln_array_nbytes(a);
  *out = malloc(*bytes);
  BENCH_CHECK(kiln_array_to_host(a, *out, NULL));
}

static void make(bench *b, const char *name, const char *sig, const char *body,
                 kiln_ufunc **out) {
  BENCH_CHECK(kiln_ufunc_create(b->ctx, name, 1, &sig, body, NULL, out));
}

static kiln_array *random_array(bench *b, int ndim, const int64_t *shape, float lo, float hi) {
  int64_t n = 1;
  for (int d = 0; d < ndim; d++) n *= shape[d];
  float *h = malloc((size_t)n * 4);
  uint64_t s = 88172645463325252ull;
  for (int64_t i = 0; i < n; i++) {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    h[i] = lo + (hi - lo) * (float)((s >> 40) * (1.0 / 16777216.0));
  }
  kiln_array *a = NULL;
  BENCH_CHECK(kiln_array_from_host(b->ctx, KILN_FLOAT32, ndim, shape, NULL, h, &a));
  free(h);
  return a;
}

int main(int argc, char **argv) {
  bench b = {0};
  BENCH_CHECK(kiln_context_create(NULL, &b.ctx));
  kiln_device_info info;
  BENCH_CHECK(kiln_context_device_info(b.ctx, &info));
  int64_t n = argc > 1 ? (int64_t)strtod(argv[1], NULL) /* 1e8 as well as 100000000 */
                       : info.type == KILN_DEVICE_CPU ? 10000000 : 100000000;
  int repeats = argc > 2 ? atoi(argv[2]) : 20;
  if (n < 200 || repeats < 1) {
    fprintf(stderr, "usage: fusion_bench [n (>= 200) [repeats]]\n");
    return 2;
  }
  b.n = n;
  b.rows = n / 100;
  printf("fusion_bench on %s: %s; n %lld float32, median of %d\n", info.backend, info.name,
         (long long)n, repeats);
  make(&b, "normalize", "float32(float32 greyscale)", "return greyscale / 255;", &b.normalize);
  BENCH_CHECK(kiln_ufunc_create(b.ctx, "weigh", 1,
                                (const char *const[]){"float32(float32 value, float32 weight)"},
                                "return value * weight;", NULL, &b.weigh));
  make(&b, "activate", "float32(float32 value)",
       "return (exp(value) - exp(-value)) / (exp(value) + exp(-value));", &b.activate);
  BENCH_CHECK(kiln_ufunc_create(
      b.ctx, "gaussian_pdf", 1,
      (const char *const[]){"float32(float32 x, float32 mean, float32 sigma)"},
      "return exp(-0.5f * ((x - mean) / sigma) * ((x - mean) / sigma)) / (sigma * 2.5066283f);",
      NULL, &b.gaussian));
  BENCH_CHECK(kiln_ufunc_create(b.ctx, "zero_suppress", 1,
                                (const char *const[]){"float32(float32 v, float32 threshold)"},
                                "return v < threshold ? 0.0f : v;", NULL, &b.suppress));
  BENCH_CHECK(kiln_ufunc_builtin(b.ctx, "add", &b.add));
  BENCH_CHECK(kiln_ufunc_builtin(b.ctx, "multiply", &b.multiply));
  BENCH_CHECK(kiln_ufunc_builtin(b.ctx, "subtract", &b.subtract));
  BENCH_CHECK(kiln_ufunc_builtin(b.ctx, "absolute", &b.absolute));
  BENCH_CHECK(kiln_ufunc_builtin(b.ctx, "sqrt", &b.sqrt_u));
  int64_t mshape[2] = {b.rows, 100}, rshape[1] = {100}, pshape[2] = {b.rows, 2};
  b.g = random_array(&b, 1, &n, 0, 255);
  b.w = random_array(&b, 1, &n, 0.3f, 0.7f);
  b.x = random_array(&b, 1, &n, -2, 2);
  b.m = random_array(&b, 2, mshape, -1, 1);
  b.row = random_array(&b, 1, rshape, -1, 1);
  b.pairs = random_array(&b, 2, pshape, 0.5f, 2);
  kiln_slice first[2] = {{KILN_NONE, KILN_NONE, 1}, {0, 1, 1}};
  BENCH_CHECK(kiln_array_slice(b.pairs, 2, first, &b.column));
  BENCH_CHECK(kiln_array_empty(b.ctx, KILN_FLOAT32, 1, &n, &b.y));
  BENCH_CHECK(kiln_array_empty(b.ctx, KILN_FLOAT32, 2, mshape, &b.mout));
  BENCH_CHECK(kiln_array_empty(b.ctx, KILN_FLOAT32, 0, NULL, &b.scalar));
  BENCH_CHECK(kiln_array_empty(b.ctx, KILN_COMPLEX128, 0, NULL, &b.moments_out));
  /* mean and variance in one pass: the accumulator carries two sums (a
   * complex128 is a pair of float64), the post step divides by n */
  char post[256];
  snprintf(post, sizeof post,
           "kiln_complex128_make(a.real / %lld.0, a.imag / %lld.0 - (a.real / %lld.0) * "
           "(a.real / %lld.0))", (long long)n, (long long)n, (long long)n, (long long)n);
  kiln_reduction_desc moments = {
      .name = "moments", .signature = "complex128(float32 y)", .accumulator = KILN_COMPLEX128,
      .map_expr = "kiln_complex128_make((double)y, (double)y * (double)y)",
      .reduce_expr = "kiln_complex128_add(a, b)", .post_expr = post,
      .identity = "kiln_complex128_make(0, 0)"};
  BENCH_CHECK(kiln_reduction_create(b.ctx, &moments, &b.moments));
  BENCH_CHECK(kiln_event_create(b.ctx, &b.start));
  BENCH_CHECK(kiln_event_create(b.ctx, &b.stop));

  static const struct {
    chain c;
    const char *name;
  } chains[] = {{HIDDEN, "hidden_layer"}, {POLY, "polynomial6"},     {BROADCAST, "broadcast"},
                {NORM, "l2_norm"},        {MEANVAR, "mean_variance"}, {USER, "user_chain"}};
  int failures = 0;
  double hidden_fused = 0;
  for (size_t i = 0; i < sizeof chains / sizeof chains[0]; i++) {
    double plain = time_chain(&b, chains[i].c, 0, repeats);
    unsigned char *want, *got;
    size_t want_bytes, got_bytes;
    result_bytes(&b, chains[i].c, &want, &want_bytes);
    double fused = time_chain(&b, chains[i].c, 1, repeats);
    result_bytes(&b, chains[i].c, &got, &got_bytes);
    int same = want_bytes == got_bytes && memcmp(want, got, want_bytes) == 0;
    failures += !same;
    if (chains[i].c == HIDDEN) hidden_fused = fused;
    printf("%s unfused %.3f fused %.3f ratio %.3f%s\n", chains[i].name, plain, fused,
           fused / plain, same ? "" : "  (RESULT BITS DIFFER)");
    free(want);
    free(got);
  }
  double add = time_chain(&b, ADD, 0, repeats);
  printf("add_reference %.3f (one add of n float32); hidden_layer fused / add %.3f\n", add,
         hidden_fused / add);
  /* the goal's ratio again with the two taking turns (hidden layer, add,
   * hidden layer, ...), so that a drift of the clocks between the chain's
   * measurement above and the add's cannot move it */
  timed_chain hidden_t = {&b, HIDDEN, 1}, add_t = {&b, ADD, 0};
  void (*const turns[])(void *) = {run_timed, run_timed};
  void *const turn_data[] = {&hidden_t, &add_t};
  double medians[2];
  bench_events_medians_ms(NULL, b.start, b.stop, 2, repeats, 2, turns, turn_data, medians);
  printf("hidden_layer_vs_add fused %.3f add %.3f ratio %.3f (taking turns; goal <= 1.05)\n",
         medians[0], medians[1], medians[0] / medians[1]);
  /* the same add as a fused group of one: the fused kernels' loop (4
   * elements per trip on GPUs) on a memory-bound body, against the plain
   * ufunc loop */
  double add_fused = time_chain(&b, ADD, 1, repeats);
  printf("add_fused_loop %.3f (the add as a group of one: fused kernels' loop); / add %.3f\n",
         add_fused, add_fused / add);

  /* host cost of recording: the calls of a scope (20 in-place adds on a
   * 1-element array, one group), without its end (the kernel's launch) */
  enum { CALLS = 20, SCOPES = 200 };
  int64_t one = 1;
  kiln_array *tiny = NULL;
  BENCH_CHECK(kiln_array_empty(b.ctx, KILN_FLOAT32, 1, &one, &tiny));
  double record_us[SCOPES];
  for (int r = 0; r < SCOPES; r++) {
    BENCH_CHECK(kiln_fusion_begin(b.ctx, NULL));
    double t0 = bench_now_ms();
    for (int k = 0; k < CALLS; k++) {
      kiln_operand in[2] = {kiln_operand_array(tiny), kiln_operand_float(1.0)};
      BENCH_CHECK(kiln_ufunc_call(b.add, 2, in, 1, (kiln_operand[]){kiln_operand_array(tiny)},
                                  NULL));
    }
    record_us[r] = (bench_now_ms() - t0) * 1e3 / CALLS;
    BENCH_CHECK(kiln_fusion_end(b.ctx, NULL));
  }
  printf("recording %.3f us per call (host, median of %d scopes of %d in-place adds)\n",
         bench_median(record_us, SCOPES), SCOPES, CALLS);
  kiln_array_release(tiny);

  kiln_event_release(b.start);
  kiln_event_release(b.stop);
  kiln_array *arrays[] = {b.g, b.w, b.x, b.m, b.row, b.pairs, b.column, b.y, b.mout, b.scalar,
                          b.moments_out};
  kiln_reduction_release(b.moments);
  for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++) kiln_array_release(arrays[i]);
  kiln_ufunc *ufuncs[] = {b.normalize, b.weigh,  b.activate, b.add,    b.multiply, b.subtract,
                          b.absolute,  b.sqrt_u, b.gaussian, b.suppress};
  for (size_t i = 0; i < sizeof ufuncs / sizeof ufuncs[0]; i++) kiln_ufunc_release(ufuncs[i]);
  kiln_context_release(b.ctx);
  return failures ? 1 : 0;
}
