/* mpi_monte_carlo_pi: pi from random points in the unit square, over MPI
 * ranks (docs/interop.md). Sample i of the N global samples takes its two
 * random words from Philox stream i (kiln_rng_init(seed, i)), whichever rank
 * draws it, so the count is exactly the same for any number of ranks. Each
 * rank opens the device of its node-local rank, counts its share of the
 * indices on the device (per-work-item counts, then the partial sum of
 * mpi_common.h), and MPI_Allreduce adds the counts: with device pointers
 * when MPI is device-aware, through the host otherwise (printed).
 *
 * Rank 0 checks the total against the same count done in plain C on the
 * host with kiln/random.h's Philox (equality, not a tolerance).
 * Run: mpirun -np 3 ./mpi_monte_carlo_pi [samples]   (default 2,000,003) */
#include <math.h>

#include "mpi_common.h"

#define PI 3.14159265358979323846
#define ITEMS 16384 /* work-items per rank */

static const char *source =
    "KILN_KERNEL void count_inside(uint64_t seed, int64_t first, int64_t count,\n"
    "                              KILN_GLOBAL int64_t *counts) {\n"
    "  int64_t item = kiln_global_id(0);\n"
    "  int64_t inside = 0;\n"
    "  for (int64_t s = item; s < count; s += kiln_global_size(0)) {\n"
    "    kiln_rng rng = kiln_rng_init(seed, (uint64_t)(first + s));\n"
    "    uint32_t a = kiln_rng_next_u32(&rng), b = kiln_rng_next_u32(&rng);\n"
    "    uint64_t x = 2 * (uint64_t)(a >> 8) + 1, y = 2 * (uint64_t)(b >> 8) + 1;\n"
    "    inside += x * x + y * y <= ((uint64_t)1 << 50) ? 1 : 0;\n"
    "  }\n"
    "  counts[item] = inside;\n"
    "}\n";

/* Sample i in plain C: the first two words of Philox block 0 of stream i. */
static int64_t count_on_host(uint64_t seed, int64_t samples) {
  int64_t inside = 0;
  for (int64_t i = 0; i < samples; i++) {
    uint32_t w[4];
    mpi_philox_words(seed, i, w);
    uint64_t x = 2 * (uint64_t)(w[0] >> 8) + 1, y = 2 * (uint64_t)(w[1] >> 8) + 1;
    inside += x * x + y * y <= ((uint64_t)1 << 50);
  }
  return inside;
}

int main(int argc, char **argv) {
  int rank, ranks;
  int64_t samples, first, count;
  kiln_context *ctx;
  int bad = mpi_example_begin(&argc, &argv, "mpi_monte_carlo_pi", 2000003, 1, &rank, &ranks,
                              &samples, &ctx, &first, &count);
  if (bad) return bad;
  const uint64_t seed = 20261122;

  kiln_kernel *kernel;
  MPI_TRY(kiln_kernel_create(ctx, source, "count_inside", NULL, &kernel));
  int64_t items = ITEMS, local = 256;
  kiln_array *counts, *partial;
  MPI_TRY(kiln_array_empty(ctx, KILN_INT64, 1, &items, &counts));
  kiln_arg args[] = {kiln_arg_uint64(seed), kiln_arg_int64(first), kiln_arg_int64(count),
                     kiln_arg_array(counts)};
  MPI_TRY(kiln_kernel_launch(kernel, 1, &items, &local, 4, args, NULL));
  MPI_TRY(mpi_partial_sum(ctx, counts, &partial));
  int64_t inside = 0;
  const char *route = NULL;
  MPI_TRY(mpi_allreduce_sum(ctx, partial, &inside, &route));

  int failed = 0;
  if (rank == 0) {
    int64_t expected = count_on_host(seed, samples);
    double pi = 4.0 * (double)inside / (double)samples;
    double sigma = 4.0 * sqrt(PI / 4 * (1 - PI / 4) / (double)samples);
    printf("allreduce: %s\n", route);
    printf("%lld samples on %d rank(s): pi ~ %.6f (|error| %.2e); count %lld, "
           "single-process host count %lld\n",
           (long long)samples, ranks, pi, fabs(pi - PI), (long long)inside, (long long)expected);
    failed = inside != expected || fabs(pi - PI) > 5 * sigma;
    printf(failed ? "FAILED\n" : "ok\n");
  }
  MPI_Bcast(&failed, 1, MPI_INT, 0, MPI_COMM_WORLD);
  kiln_array_release(partial);
  kiln_array_release(counts);
  kiln_kernel_release(kernel);
  kiln_context_release(ctx);
  MPI_Finalize();
  return failed;
}
