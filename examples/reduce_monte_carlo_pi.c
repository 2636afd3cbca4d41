/* reduce_monte_carlo_pi: Monte Carlo pi as ONE custom reduction: the map
 * draws sample kiln_i's point with the kernel language's kiln_uniform_f32
 * (one Philox4x32-10 block of generator (seed, stream 0): block kiln_i,
 * its first two uniforms) and gives 1 when it falls in the quarter circle,
 * the reduce adds, so no kernel, no buffer of samples (the seed is a
 * broadcast view of one element) and no host-side sum.
 *
 * kiln's uniforms have the same bits on every backend and on the host, so
 * plain C drawing the same numbers through the host generator
 * (kiln_random_uniform with no context) must count exactly the same
 * points: the check is equality. Usage: reduce_monte_carlo_pi [samples] */
#include <math.h>
#include <stdlib.h>

#include "example.h"

#define PI 3.14159265358979323846

static const char *preamble =
    "KILN_DEVICE int64_t inside(uint64_t seed, int64_t i) {\n"
    "  kiln_random_f32x4 u = kiln_uniform_f32(kiln_random_key(seed),\n"
    "                                         kiln_random_counter(0, (uint64_t)i));\n"
    "  float x2 = kiln_mul_rn(u.v[0], u.v[0]);\n" /* no contraction into an fma */
    "  float y2 = kiln_mul_rn(u.v[1], u.v[1]);\n"
    "  return x2 + y2 < 1.0f ? 1 : 0;\n"
    "}\n";

/* The same points in plain C: sample i is elements 4i, 4i + 1 of a uniform
 * draw from (seed, stream 0, position 0), in chunks (each call continues
 * where the last one stopped). */
static int64_t count_on_host(uint64_t seed, int64_t samples) {
  enum { CHUNK = 65536 };
  static float u[4 * CHUNK];
  kiln_random_generator *gen;
  if (kiln_random_generator_create(seed, &gen) != KILN_OK) return -1;
  int64_t count = 0;
  for (int64_t first = 0; first < samples; first += CHUNK) {
    int64_t n = 4 * (samples - first < CHUNK ? samples - first : CHUNK);
    if (kiln_random_uniform(gen, NULL, 0.0, 1.0,
                            kiln_operand_host_output(u, KILN_FLOAT32, 1, &n, NULL),
                            NULL) != KILN_OK)
      count = -1;
    for (int64_t i = 0; i < n / 4 && count >= 0; i++) {
      float x2 = u[4 * i] * u[4 * i], y2 = u[4 * i + 1] * u[4 * i + 1];
      count += x2 + y2 < 1.0f;
    }
  }
  kiln_random_generator_release(gen);
  return count;
}

int main(int argc, char **argv) {
  int64_t samples = argc > 1 ? strtoll(argv[1], NULL, 10) : 10000000;
  if (samples < 1) {
    fprintf(stderr, "usage: reduce_monte_carlo_pi [samples >= 1]\n");
    return 2;
  }
  const uint64_t seed = 20261122;
  kiln_context *ctx;
  TRY(example_open("reduce_monte_carlo_pi", &ctx));
  kiln_reduction_desc desc = {.name = "count_inside",
                              .signature = "int64(uint64 seed)",
                              .accumulator = KILN_INT64,
                              .map_expr = "inside(seed, kiln_i)",
                              .reduce_expr = "a + b",
                              .identity = "0",
                              .preamble = preamble};
  kiln_reduction *count_inside;
  TRY(kiln_reduction_create(ctx, &desc, &count_inside));
  /* one seed, broadcast to `samples` elements (stride 0: no memory) */
  kiln_array *one, *seeds;
  TRY(kiln_array_full(ctx, KILN_UINT64, 0, NULL, &seed, &one));
  TRY(kiln_array_broadcast_to(one, 1, &samples, &seeds));
  kiln_operand in[1] = {kiln_operand_array(seeds)};
  int64_t inside = 0;
  TRY(kiln_reduction_call(count_inside, 1, in,
                          kiln_operand_host_output(&inside, KILN_INT64, 0, NULL, NULL), NULL,
                          NULL));

  int64_t expected = count_on_host(seed, samples);
  double pi = 4.0 * (double)inside / (double)samples;
  printf("%lld points: pi ~ %.6f (|error| %.2e); device count %lld, plain C count %lld\n",
         (long long)samples, pi, fabs(pi - PI), (long long)inside, (long long)expected);
  kiln_array_release(seeds);
  kiln_array_release(one);
  kiln_reduction_release(count_inside);
  kiln_context_release(ctx);
  double sigma = 4.0 * sqrt(PI / 4 * (1 - PI / 4) / (double)samples);
  if (inside != expected || fabs(pi - PI) > 5 * sigma) {
    printf("FAILED\n");
    return 1;
  }
  printf("ok\n");
  return 0;
}
