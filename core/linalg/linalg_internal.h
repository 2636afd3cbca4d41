/* core/linalg/linalg_internal.h: matrix products planned over element
 * strides, run by a vendor BLAS or by kiln's portable kernel (internal).
 *
 * kiln_matmul turns its operands into a plan: three strided matrices
 * (A m x k, B k x n, C m x n) and the batch dims they are stacked over,
 * with dims of one dropped and neighbouring dims merged where every
 * operand allows. The last batch dim becomes one batched call (strided
 * batched GEMM, or work-group dim 2 of the kernel); the dims before it, if
 * any are left, are looped over on the host. */
#ifndef KILN_CORE_LINALG_INTERNAL_H
#define KILN_CORE_LINALG_INTERNAL_H

#include "core/array/array_internal.h"
#include "core/kernel/kernel_catalog.h"
#include "core/kernel/kernel_internal.h"

/* The element types matrix products take, one row each (a new dtype such
 * as complex64 adds a row, and a case in the backends' gemm). */
typedef struct linalg_type {
  kiln_dtype dtype;
  const char *kernel_type;  /* the kernel language's name for it (stored) */
  const char *compute_type; /* what the portable kernel multiplies and sums in */
  const char *load, *store; /* conversions between the two ("" when equal) */
  const char *zero;         /* the compute type's zero */
  const char *mac_body;     /* body of a function returning c + a * b (c, a, b) */
  const char *entry;        /* the portable kernel's entry point */
} linalg_type;

/* The row for dtype; NULL when matrix products do not take it. */
const linalg_type *kiln_linalg_type(kiln_dtype dtype);

/* One operand, in elements of the plan's type. */
typedef struct linalg_matrix {
  kiln_backend_buffer *buffer;
  int64_t offset;               /* of element [0, 0] of batch index 0 */
  int64_t row, col;             /* strides of the matrix dims */
  int64_t batch[KILN_MAX_DIMS]; /* strides of the batch dims (0: broadcast) */
} linalg_matrix;

typedef struct linalg_plan {
  const linalg_type *type;
  int64_t m, n, k;
  int nbatch;                          /* batch dims after merging (>= 1) */
  int64_t batch_shape[KILN_MAX_DIMS];  /* each > 1, except a lone dim of 1 */
  linalg_matrix a, b, c;
} linalg_plan;

/* One call of a path: `batch` products, operand X_q starting at
 * offset[X] + q * stride[X] (X = 0 A, 1 B, 2 C), the rest as the plan. */
typedef struct linalg_call {
  int64_t batch;
  int64_t offset[3];
  int64_t stride[3];
} linalg_call;

/* Queues one call with kiln's kernel (kernels/builtin/gemm.kl). Any
 * strides. UNIMPLEMENTED when the device cannot run 16 x 16 work-groups
 * of it. */
kiln_status kiln_gemm_portable(kiln_context *ctx, kiln_stream *stream, const linalg_plan *plan,
                               const linalg_call *call);

/* The portable kernel for every row of the type table, for the offline
 * compile checks (core/catalog). */
kiln_status kiln_gemm_catalog_add(kiln_catalog *catalog);

#endif
