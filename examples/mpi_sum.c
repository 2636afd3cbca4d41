/* mpi_sum: the sum of a large int64 array split across MPI ranks
 * (docs/interop.md). Element i of the N global elements is
 * (Philox word of stream i >> 12) - 2^19, generated on the device of the
 * rank that owns i; each rank sums its share on its device
 * (mpi_partial_sum in mpi_common.h: kiln's add.reduce) and MPI_Allreduce adds the partial sums: with device pointers
 * when MPI is device-aware, through the host otherwise (printed).
 *
 * Integers make the check exact: rank 0 compares with the sum of the same
 * N elements done in one process on the host (kiln/random.h's Philox).
 * Run: mpirun -np 3 ./mpi_sum [elements]   (default 10,000,019) */
#include "mpi_common.h"

static const char *source =
    "KILN_KERNEL void fill(uint64_t seed, int64_t first, int64_t count,\n"
    "                      KILN_GLOBAL int64_t *x) {\n"
    "  int64_t i = kiln_global_id(0);\n"
    "  if (i >= count) return;\n"
    "  kiln_rng rng = kiln_rng_init(seed, (uint64_t)(first + i));\n"
    "  x[i] = (int64_t)(kiln_rng_next_u32(&rng) >> 12) - (1 << 19);\n"
    "}\n";

static int64_t element_on_host(uint64_t seed, int64_t i) {
  uint32_t w[4];
  mpi_philox_words(seed, i, w);
  return (int64_t)(w[0] >> 12) - (1 << 19);
}

int main(int argc, char **argv) {
  int rank, ranks;
  int64_t n, first, count;
  kiln_context *ctx;
  int bad = mpi_example_begin(&argc, &argv, "mpi_sum", 10000019, 0, &rank, &ranks, &n, &ctx,
                              &first, &count);
  if (bad) return bad;
  const uint64_t seed = 7;

  kiln_array *x, *partial;
  MPI_TRY(kiln_array_empty(ctx, KILN_INT64, 1, &count, &x));
  if (count > 0) {
    kiln_kernel *kernel;
    MPI_TRY(kiln_kernel_create(ctx, source, "fill", NULL, &kernel));
    kiln_arg args[] = {kiln_arg_uint64(seed), kiln_arg_int64(first), kiln_arg_int64(count),
                       kiln_arg_array(x)};
    MPI_TRY(kiln_kernel_launch(kernel, 1, &count, NULL, 4, args, NULL));
    kiln_kernel_release(kernel);
  }
  MPI_TRY(mpi_partial_sum(ctx, x, &partial));
  int64_t total = 0;
  const char *route = NULL;
  MPI_TRY(mpi_allreduce_sum(ctx, partial, &total, &route));

  int failed = 0;
  if (rank == 0) {
    int64_t expected = 0;
    for (int64_t i = 0; i < n; i++) expected += element_on_host(seed, i);
    printf("allreduce: %s\n", route);
    printf("sum of %lld elements on %d rank(s): %lld; single-process host sum %lld\n",
           (long long)n, ranks, (long long)total, (long long)expected);
    failed = total != expected;
    printf(failed ? "FAILED\n" : "ok\n");
  }
  MPI_Bcast(&failed, 1, MPI_INT, 0, MPI_COMM_WORLD);
  kiln_array_release(partial);
  kiln_array_release(x);
  kiln_context_release(ctx);
  MPI_Finalize();
  return failed;
}
