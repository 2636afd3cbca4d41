/* examples/mpi_common.h: what the MPI examples share (docs/interop.md):
 * - each rank opens the device of its node-local rank,
 * - each rank takes a contiguous share of the global indices,
 * - a per-rank partial sum on the device (kiln's add.reduce),
 * - an MPI_Allreduce that passes device pointers when the MPI library is
 *   device-aware (Open MPI's MPIX_Query_cuda_support / _rocm_support),
 *   and goes through host memory otherwise, saying which it did.
 * kiln itself never links MPI: only these examples do. */
#ifndef KILN_EXAMPLES_MPI_COMMON_H
#define KILN_EXAMPLES_MPI_COMMON_H

#include <mpi.h>
#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h> /* MPIX_CUDA_AWARE_SUPPORT, MPIX_Query_cuda_support */
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "example.h"

/* Stops every rank when a kiln call fails (after printing kiln's message). */
#define MPI_TRY(call)                                                            \
  do {                                                                           \
    kiln_status s_ = (call);                                                     \
    if (s_ != KILN_OK) {                                                         \
      fprintf(stderr, "%s failed: %s\n%s\n", #call, kiln_status_string(s_),      \
              kiln_last_error());                                                \
      MPI_Abort(MPI_COMM_WORLD, 1);                                              \
    }                                                                            \
  } while (0)

/* Opens, on rank `rank`, the device numbered by the rank's place on its
 * node (MPI_Comm_split_type SHARED: the same as OMPI_COMM_WORLD_LOCAL_RANK
 * under Open MPI) modulo the backend's device count. The backend is the
 * one the environment selects (KILN_BACKEND), as for every example. */
static inline kiln_status mpi_open_local_device(kiln_context **ctx, int *local_rank) {
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, local_rank);
  MPI_Comm_free(&node);
  kiln_context *probe;
  kiln_status s = kiln_context_create(NULL, &probe);
  if (s != KILN_OK) return s;
  kiln_device_info info;
  kiln_context_device_info(probe, &info);
  int count = 1;
  s = kiln_backend_device_count(info.backend, NULL, &count);
  if (s != KILN_OK || count < 1) count = 1;
  int device = *local_rank % count;
  if (device == info.index) {
    *ctx = probe;
    return KILN_OK;
  }
  kiln_context_release(probe);
  kiln_context_options options;
  kiln_context_options_init(&options);
  options.backends = info.backend;
  options.device = device;
  return kiln_context_create(&options, ctx);
}

/* This rank's share [*first, *first + *count) of n global indices. */
static inline void mpi_share(int64_t n, int rank, int ranks, int64_t *first, int64_t *count) {
  int64_t base = n / ranks, extra = n % ranks; /* the first `extra` ranks get one more */
  *first = base * rank + (rank < extra ? rank : extra);
  *count = base + (rank < extra ? 1 : 0);
}

/* What every MPI example does first: MPI_Init, the problem size from
 * argv[1] (default_n; at least min_n), the rank's device and its share
 * [*first, *first + *count) of the n global indices, printed per rank.
 * Returns 0, or the exit status after MPI_Finalize for a bad size. */
static inline int mpi_example_begin(int *argc, char ***argv, const char *name,
                                    int64_t default_n, int64_t min_n, int *rank, int *ranks,
                                    int64_t *n, kiln_context **ctx, int64_t *first,
                                    int64_t *count) {
  MPI_Init(argc, argv);
  MPI_Comm_rank(MPI_COMM_WORLD, rank);
  MPI_Comm_size(MPI_COMM_WORLD, ranks);
  *n = *argc > 1 ? strtoll((*argv)[1], NULL, 10) : default_n;
  if (*n < min_n) {
    if (*rank == 0) fprintf(stderr, "usage: %s [size >= %lld]\n", name, (long long)min_n);
    MPI_Finalize();
    return 2;
  }
  int local_rank;
  MPI_TRY(mpi_open_local_device(ctx, &local_rank));
  kiln_device_info info;
  kiln_context_device_info(*ctx, &info);
  mpi_share(*n, *rank, *ranks, first, count);
  printf("%s: rank %d/%d (local %d) on %s device %d (%s): indices [%lld, %lld)\n", name,
         *rank, *ranks, local_rank, info.backend, info.index, info.name, (long long)*first,
         (long long)(*first + *count));
  fflush(stdout);
  return 0;
}

/* The first four words of Philox stream `index` on the host (kiln/random.h):
 * what kiln_rng_init(seed, index) then kiln_rng_next_u32 gives a kernel. */
static inline void mpi_philox_words(uint64_t seed, int64_t index, uint32_t words[4]) {
  const uint32_t key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
  const uint32_t ctr[4] = {0, 0, (uint32_t)index, (uint32_t)((uint64_t)index >> 32)};
  kiln_random_philox4x32_10(ctr, key, words);
}

/* Nonzero when the MPI library takes device pointers of ctx's backend. */
static inline int mpi_device_aware(kiln_context *ctx) {
  kiln_device_info info;
  kiln_context_device_info(ctx, &info);
#if defined(MPIX_CUDA_AWARE_SUPPORT)
  if (strcmp(info.backend, "cuda") == 0) return MPIX_Query_cuda_support();
#endif
#if defined(MPIX_ROCM_AWARE_SUPPORT)
  if (strcmp(info.backend, "hip") == 0) return MPIX_Query_rocm_support();
#endif
  (void)info;
  return 0;
}

/* ---- the per-rank partial sum ------------------------------------------- */

/* *out: a new 0-d int64 device array holding the sum of the elements of
 * the int64 array x: kiln's add.reduce over every axis (kiln/reduce.h), in
 * the fixed order that gives the same bits on every device. */
static inline kiln_status mpi_partial_sum(kiln_context *ctx, const kiln_array *x,
                                          kiln_array **out) {
  kiln_ufunc *add;
  kiln_status s = kiln_ufunc_builtin(ctx, "add", &add);
  if (s != KILN_OK) return s;
  *out = NULL;
  s = kiln_ufunc_reduce(add, kiln_operand_array(x), kiln_operand_new(out), NULL, NULL);
  kiln_ufunc_release(add);
  return s;
}

/* Adds the one-element (0-d) int64 arrays `partial` of every rank into *total:
 * with device pointers where the MPI library is device-aware, through host
 * memory otherwise. *route says which. */
static inline kiln_status mpi_allreduce_sum(kiln_context *ctx, const kiln_array *partial,
                                            int64_t *total, const char **route) {
  kiln_status s = kiln_context_synchronize(ctx); /* the partial is written */
  if (s != KILN_OK) return s;
  kiln_native_memory send;
  if (mpi_device_aware(ctx) && kiln_array_native(partial, &send) == KILN_OK && send.address) {
    int64_t one = 1;
    kiln_array *sum;
    kiln_native_memory recv;
    s = kiln_array_empty(ctx, KILN_INT64, 1, &one, &sum);
    if (s == KILN_OK) s = kiln_array_native(sum, &recv);
    if (s == KILN_OK) {
      MPI_Allreduce((void *)(uintptr_t)(send.address + (uint64_t)send.offset),
                    (void *)(uintptr_t)(recv.address + (uint64_t)recv.offset), 1, MPI_INT64_T,
                    MPI_SUM, MPI_COMM_WORLD);
      s = kiln_array_to_host(sum, total, NULL);
    }
    kiln_array_release(sum);
    *route = "device pointers passed to MPI (device-aware MPI)";
    return s;
  }
  int64_t mine;
  s = kiln_array_to_host(partial, &mine, NULL);
  if (s != KILN_OK) return s;
  MPI_Allreduce(&mine, total, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  *route = "staged through host memory (MPI is not device-aware for this backend)";
  return KILN_OK;
}

#endif
