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
  return blas->load(text, size, NULL);
}

static int fits(int64_t v) { return v >= 0 && v <= INT_MAX; }

/* One product, column-major: B plays A's part and A plays B's. */
static kiln_status blas_call(const gpu_blas *blas, const gpu_blas_calls *calls, void *handle,
                             const kiln_backend_gemm *g) {
  const uint64_t item = kiln_dtype_size(g->dtype);
  const gpu_blas_product p = {
      .dtype = g->dtype,
      .transa = g->transpose_b ? calls->op_t : calls->op_n,
      .transb = g->transpose_a ? calls->op_t : calls->op_n,
      .m = (int)g->n,
      .n = (int)g->m,
      .k = (int)g->k,
      .batch = (int)g->batch,
      .a = (const void *)(uintptr_t)(g->b->address + g->b_offset * item),
      .b = (const void *)(uintptr_t)(g->a->address + g->a_offset * item),
      .c = (void *)(uintptr_t)(g->c->address + g->c_offset * item),
      .lda = (int)g->ld_b,
      .ldb = (int)g->ld_a,
      .ldc = (int)g->ld_c,
      .stride_a = g->stride_b,
      .stride_b = g->stride_a,
      .stride_c = g->stride_c,
  };
  const int single = p.batch == 1;
  if (g->dtype == KILN_FLOAT32) {
    const float one = 1.0f, zero = 0.0f;
    return blas->check(single ? calls->gemm_f32(handle, p.transa, p.transb, p.m, p.n, p.k, &one,
                                                p.a, p.lda, p.b, p.ldb, &zero, p.c, p.ldc)
                              : calls->gemm_batched_f32(handle, p.transa, p.transb, p.m, p.n,
                                                        p.k, &one, p.a, p.lda, p.stride_a, p.b,
                                                        p.ldb, p.stride_b, &zero, p.c, p.ldc,
                                                        p.stride_c, p.batch),
                       calls->names[single ? 0 : 2]);
  }
  if (g->dtype == KILN_FLOAT64) {
    const double one = 1.0, zero = 0.0;
    return blas->check(single ? calls->gemm_f64(handle, p.transa, p.transb, p.m, p.n, p.k, &one,
                                                p.a, p.lda, p.b, p.ldb, &zero, p.c, p.ldc)
                              : calls->gemm_batched_f64(handle, p.transa, p.transb, p.m, p.n,
                                                        p.k, &one, p.a, p.lda, p.stride_a, p.b,
                                                        p.ldb, p.stride_b, &zero, p.c, p.ldc,
                                                        p.stride_c, p.batch),
                       calls->names[single ? 1 : 3]);
  }
  if (blas->gemm_ex) return blas->gemm_ex(handle, &p);
  return kiln_error_set(KILN_ERROR_UNIMPLEMENTED, "vendor BLAS gemm for %s",
                        kiln_dtype_name(g->dtype));
}

kiln_status gpu_gemm(kiln_backend_device *device, kiln_backend_stream *stream,
                     const kiln_backend_gemm *g) {
  const gpu_runtime *runtime = device->runtime;
  const gpu_blas *blas = runtime->blas;
  if (!blas) {
    char text[256];
    return gpu_blas_describe(device, text, sizeof text);
  }
  const gpu_blas_calls *calls = NULL;
  KILN_RETURN_IF_ERROR(blas->load(NULL, 0, &calls)); /* no text: every product's path */
  if (!fits(g->m) || !fits(g->n) || !fits(g->k) || !fits(g->batch) || !fits(g->ld_a) ||
      !fits(g->ld_b) || !fits(g->ld_c))
    return kiln_error_set(KILN_ERROR_UNIMPLEMENTED,
                          "%s: a product with sizes beyond 32 bits (m %lld, n %lld, k %lld)",
                          runtime->name, (long long)g->m, (long long)g->n, (long long)g->k);
  KILN_RETURN_IF_ERROR(gpu_enter(device));
  pthread_mutex_lock(&device->lock);
  kiln_status status = KILN_OK;
  if (!device->blas_handle) status = blas->create(&device->blas_handle);
  if (status == KILN_OK)
    status = blas->set_stream(device->blas_handle, gpu_stream_or_default(device, stream));
  if (status == KILN_OK) status = blas_call(blas, calls, device->blas_handle, g);
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
