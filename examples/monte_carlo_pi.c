/* monte_carlo_pi: estimate pi from random points in the unit square, each
 * work-item drawing its own stream of kiln's generator (stream = the
 * work-item) with the kernel language's kiln_uniform_f32 (one Philox block:
 * four uniforms, two points), counting the points inside the quarter
 * circle, then a two-stage sum: work-group sums in local memory on the
 * device, the group sums added on the host.
 *
 * kiln's uniforms have the same bits on the device and on the host, so
 * plain C drawing the same streams through the host generator (a
 * kiln_random_generator at (seed, stream = item), kiln_random_uniform with
 * no context) must count exactly the same points: the check is equality,
 * not a tolerance. Usage: monte_carlo_pi [work_items [samples]] */
#include <math.h>
#include <stdlib.h>

#include "example.h"

#define GROUP 256
#define PI 3.14159265358979323846

static const char *source =
    "KILN_DEVICE uint32_t inside(float x, float y) {\n"
    "  float x2 = kiln_mul_rn(x, x);\n" /* no contraction into an fma */
    "  float y2 = kiln_mul_rn(y, y);\n"
    "  return x2 + y2 < 1.0f ? 1u : 0u;\n"
    "}\n"
    "KILN_KERNEL void count_inside(uint64_t seed, int64_t items, int64_t samples,\n"
    "                              KILN_GLOBAL uint32_t *group_counts) {\n"
    "  KILN_LOCAL_ARRAY(uint32_t, counts, 256);\n"
    "  int64_t item = kiln_global_id(0);\n"
    "  uint32_t count = 0;\n"
    "  if (item < items) {\n"
    "    kiln_philox4x32_key key = kiln_random_key(seed);\n"
    "    for (int64_t b = 0; 2 * b < samples; b++) {\n"
    "      kiln_random_f32x4 u = kiln_uniform_f32(key, kiln_random_counter((uint64_t)item, (uint64_t)b));\n"
    "      count += inside(u.v[0], u.v[1]);\n"
    "      if (2 * b + 1 < samples) count += inside(u.v[2], u.v[3]);\n"
    "    }\n"
    "  }\n"
    "  int64_t lid = kiln_local_id(0);\n"
    "  counts[lid] = count;\n"
    "  kiln_barrier();\n"
    "  for (int64_t step = kiln_local_size(0) / 2; step > 0; step /= 2) {\n"
    "    if (lid < step) counts[lid] += counts[lid + step];\n"
    "    kiln_barrier();\n"
    "  }\n"
    "  if (lid == 0) group_counts[kiln_group_id(0)] = counts[0];\n"
    "}\n";

/* The same points in plain C: item's stream drawn by the host generator,
 * point s being uniforms 2s and 2s + 1. */
static uint64_t count_on_host(uint64_t seed, int64_t items, int64_t samples) {
  uint64_t total = 0;
  int64_t n = 2 * samples;
  float *u = malloc((size_t)n * sizeof *u);
  for (int64_t item = 0; item < items && u; item++) {
    kiln_random_state state = {seed, (uint64_t)item, 0};
    kiln_random_generator *gen;
    if (kiln_random_generator_create_state(&state, &gen) != KILN_OK) break;
    if (kiln_random_uniform(gen, NULL, 0.0, 1.0,
                            kiln_operand_host_output(u, KILN_FLOAT32, 1, &n, NULL),
                            NULL) == KILN_OK)
      for (int64_t s = 0; s < samples; s++) {
        float x2 = u[2 * s] * u[2 * s], y2 = u[2 * s + 1] * u[2 * s + 1];
        total += x2 + y2 < 1.0f;
      }
    kiln_random_generator_release(gen);
  }
  free(u);
  return total;
}

int main(int argc, char **argv) {
  int64_t items = argc > 1 ? strtoll(argv[1], NULL, 10) : 65536;
  int64_t samples = argc > 2 ? strtoll(argv[2], NULL, 10) : 64;
  if (items < 1 || samples < 1 || samples > 1 << 20) {
    fprintf(stderr, "usage: monte_carlo_pi [work_items >= 1 [samples 1..2^20]]\n");
    return 2;
  }
  const uint64_t seed = 20261122;
  kiln_context *ctx;
  TRY(example_open("monte_carlo_pi", &ctx));
  kiln_kernel *kernel;
  TRY(kiln_kernel_create(ctx, source, "count_inside", NULL, &kernel));
  int64_t groups = (items + GROUP - 1) / GROUP, global = groups * GROUP, local = GROUP;
  kiln_array *group_counts;
  TRY(kiln_array_empty(ctx, KILN_UINT32, 1, &groups, &group_counts));
  kiln_arg args[] = {kiln_arg_uint64(seed), kiln_arg_int64(items), kiln_arg_int64(samples),
                     kiln_arg_array(group_counts)};
  TRY(kiln_kernel_launch(kernel, 1, &global, &local, 4, args, NULL));
  uint32_t *counts = malloc((size_t)groups * sizeof *counts);
  TRY(kiln_array_to_host(group_counts, counts, NULL));
  uint64_t inside = 0;
  for (int64_t g = 0; g < groups; g++) inside += counts[g];

  uint64_t expected = count_on_host(seed, items, samples);
  double total = (double)items * (double)samples, pi = 4.0 * (double)inside / total;
  printf("%lld points: pi ~ %.6f (|error| %.2e); device count %llu, plain C count %llu\n",
         (long long)(items * samples), pi, fabs(pi - PI), (unsigned long long)inside,
         (unsigned long long)expected);
  free(counts);
  kiln_array_release(group_counts);
  kiln_kernel_release(kernel);
  kiln_context_release(ctx);
  /* Equal counts are the check; pi itself only has to be plausible (more
   * than 5 standard deviations off would mean a broken generator). */
  double sigma = 4.0 * sqrt(PI / 4 * (1 - PI / 4) / total);
  if (inside != expected || fabs(pi - PI) > 5 * sigma) {
    printf("FAILED\n");
    return 1;
  }
  printf("ok\n");
  return 0;
}
