/* monte_carlo_pi: estimate pi from random points in the unit square, each
 * work-item drawing its own Philox stream (kiln_rng), counting the points
 * inside the quarter circle, then a two-stage sum: work-group sums in local
 * memory on the device, the group sums added on the host.
 *
 * The inside test uses integers only ((2X+1)^2 + (2Y+1)^2 <= 2^50 for the
 * top 24 bits X, Y of two words), so plain C drawing the same streams
 * through kiln/random.h must count exactly the same points: the check is
 * equality, not a tolerance. Usage: monte_carlo_pi [work_items [samples]] */
#include <math.h>
#include <stdlib.h>

#include "example.h"

#define GROUP 256
#define PI 3.14159265358979323846

static const char *source =
    "KILN_DEVICE uint32_t inside(uint32_t a, uint32_t b) {\n"
    "  uint64_t x = 2 * (uint64_t)(a >> 8) + 1, y = 2 * (uint64_t)(b >> 8) + 1;\n"
    "  return x * x + y * y <= ((uint64_t)1 << 50) ? 1u : 0u;\n"
    "}\n"
    "KILN_KERNEL void count_inside(uint64_t seed, int64_t items, int64_t samples,\n"
    "                              KILN_GLOBAL uint32_t *group_counts) {\n"
    "  KILN_LOCAL_ARRAY(uint32_t, counts, 256);\n"
    "  int64_t item = kiln_global_id(0);\n"
    "  uint32_t count = 0;\n"
    "  if (item < items) {\n"
    "    kiln_rng rng = kiln_rng_init(seed, (uint64_t)item);\n"
    "    for (int64_t s = 0; s < samples; s++) {\n"
    "      uint32_t a = kiln_rng_next_u32(&rng);\n"
    "      count += inside(a, kiln_rng_next_u32(&rng));\n"
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

/* The same points in plain C, through the host side of kiln's generator. */
static uint64_t count_on_host(uint64_t seed, int64_t items, int64_t samples) {
  uint64_t total = 0;
  const uint32_t key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
  for (int64_t item = 0; item < items; item++) {
    uint32_t words[4];
    for (int64_t w = 0; w < 2 * samples; w++) {
      if (w % 4 == 0) {
        uint64_t block = (uint64_t)w / 4;
        const uint32_t ctr[4] = {(uint32_t)block, (uint32_t)(block >> 32), (uint32_t)item,
                                 (uint32_t)((uint64_t)item >> 32)};
        kiln_random_philox4x32_10(ctr, key, words);
      }
      if (w % 2 == 1) {
        uint64_t x = 2 * (uint64_t)(words[(w - 1) % 4] >> 8) + 1;
        uint64_t y = 2 * (uint64_t)(words[w % 4] >> 8) + 1;
        total += x * x + y * y <= ((uint64_t)1 << 50);
      }
    }
  }
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
