/* reduce_monte_carlo_pi: Monte Carlo pi as ONE custom reduction: the map
 * draws sample kiln_i's point from Philox4x32-10 (kiln's kernel language,
 * key = the seed, counter = the sample index) and gives 1 when it falls in
 * the quarter circle, the reduce adds, so no kernel, no buffer of samples
 * (the seed is a broadcast view of one element) and no host-side sum.
 *
 * The inside test uses integers only, so plain C drawing the same numbers
 * through kiln/random.h must count exactly the same points: the check is
 * equality. Usage: reduce_monte_carlo_pi [samples] */
#include <math.h>
#include <stdlib.h>

#include "example.h"

#define PI 3.14159265358979323846

static const char *preamble =
    "KILN_DEVICE int64_t inside(uint64_t seed, int64_t i) {\n"
    "  kiln_philox4x32_ctr c;\n"
    "  c.v[0] = (uint32_t)i; c.v[1] = (uint32_t)((uint64_t)i >> 32); c.v[2] = 0; c.v[3] = 0;\n"
    "  kiln_philox4x32_key k;\n"
    "  k.v[0] = (uint32_t)seed; k.v[1] = (uint32_t)(seed >> 32);\n"
    "  kiln_philox4x32_ctr r = kiln_philox4x32_10(c, k);\n"
    "  uint64_t x = 2 * (uint64_t)(r.v[0] >> 8) + 1, y = 2 * (uint64_t)(r.v[1] >> 8) + 1;\n"
    "  return x * x + y * y <= ((uint64_t)1 << 50) ? 1 : 0;\n"
    "}\n";

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

  /* plain C: the same points through the host side of kiln's generator */
  int64_t expected = 0;
  const uint32_t key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
  for (int64_t i = 0; i < samples; i++) {
    const uint32_t ctr[4] = {(uint32_t)i, (uint32_t)((uint64_t)i >> 32), 0, 0};
    uint32_t words[4];
    kiln_random_philox4x32_10(ctr, key, words);
    uint64_t x = 2 * (uint64_t)(words[0] >> 8) + 1, y = 2 * (uint64_t)(words[1] >> 8) + 1;
    expected += x * x + y * y <= ((uint64_t)1 << 50);
  }
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
