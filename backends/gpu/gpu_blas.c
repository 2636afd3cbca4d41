/* backends/gpu/gpu_blas.c: the blas_describe and gemm slots of the CUDA and
 * HIP backends over their runtime's gpu_blas (cuBLAS, rocBLAS): one handle
 * per device, made on first use; row-major products handed to the
 * column-major library as C^T = op(B)^T op(A)^T. */
#include <limits.h>
#include <stdio.h>

#include "backends/gpu/gpu_internal.h"
#include "core/runtime/log.h"

kiln_status gpu_blas_describe(kiln_backend_device *device, char *text, size_t size) {
  const gpu_blas *blas = device->runtime->blas;
  if (!blas) {
    snprintf(text, size, "%s: no vendor BLAS table", device->runtime->name);
    return kiln_error_set(KILN_ERROR_UNAVAILABLE, "%s", text);
  }
  return blas->load(text, size);
}

static int fits(int64_t v) { return v >= 0 && v <= INT_MAX; }

kiln_status gpu_gemm(kiln_backend_device *device, kiln_backend_stream *stream,
                     const kiln_backend_gemm *g) {
  const gpu_runtime *runtime = device->runtime;
  const gpu_blas *blas = runtime->blas;
  if (!blas) {
    char text[256];
    return gpu_blas_describe(device, text, sizeof text);
  }
  KILN_RETURN_IF_ERROR(blas->load(NULL, 0)); /* no text: this is every call's path */
  if (!fits(g->m) || !fits(g->n) || !fits(g->k) || !fits(g->batch) || !fits(g->ld_a) ||
      !fits(g->ld_b) || !fits(g->ld_c))
    return kiln_error_set(KILN_ERROR_UNIMPLEMENTED,
                          "%s: a product with sizes beyond 32 bits (m %lld, n %lld, k %lld)",
                          runtime->name, (long long)g->m, (long long)g->n, (long long)g->k);
  const int64_t item = (int64_t)kiln_dtype_size(g->dtype);
  /* column-major: B plays A's part, A plays B's */
  const gpu_blas_gemm c = {
      .dtype = g->dtype,
      .transpose_a = g->transpose_b,
      .transpose_b = g->transpose_a,
      .m = (int)g->n,
      .n = (int)g->m,
      .k = (int)g->k,
      .batch = (int)g->batch,
      .a = g->b->address + (gpu_address)(g->b_offset * (uint64_t)item),
      .b = g->a->address + (gpu_address)(g->a_offset * (uint64_t)item),
      .c = g->c->address + (gpu_address)(g->c_offset * (uint64_t)item),
      .lda = (int)g->ld_b,
      .ldb = (int)g->ld_a,
      .ldc = (int)g->ld_c,
      .stride_a = g->stride_b,
      .stride_b = g->stride_a,
      .stride_c = g->stride_c,
  };
  KILN_RETURN_IF_ERROR(gpu_enter(device));
  pthread_mutex_lock(&device->lock);
  kiln_status status = KILN_OK;
  if (!device->blas_handle) status = blas->create(&device->blas_handle);
  if (status == KILN_OK)
    status = blas->gemm(device->blas_handle, gpu_stream_or_default(device, stream), &c);
  pthread_mutex_unlock(&device->lock);
  gpu_leave(device);
  if (status != KILN_OK)
    return gpu_error_context(device, status, "gemm (m %lld, n %lld, k %lld, batch %lld)",
                             (long long)g->m, (long long)g->n, (long long)g->k,
                             (long long)g->batch);
  return KILN_OK;
}

void gpu_blas_close(kiln_backend_device *device) {
  if (device->blas_handle && device->runtime->blas) {
    device->runtime->blas->destroy(device->blas_handle);
    device->blas_handle = NULL;
  }
}
