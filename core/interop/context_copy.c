/* core/interop/context_copy.c: copying an array into another context,
 * which may be on another device or backend: device to device where the
 * backend can (copy_peer), else through host memory. */
#include <stdlib.h>

#include "core/array/array_internal.h"
#include "core/runtime/error.h"
#include "kiln/interop.h"

/* Bytes staged per step through host memory: large enough for full
 * transfer speed, small enough that a huge copy needs no huge host buffer. */
#define STAGING_BYTES ((size_t)16 << 20)

/* Copies the contiguous `src` into the contiguous `dst` of the same size
 * through one reused host buffer (the source device's page-locked memory
 * where it has some), chunk by chunk, each step blocking. */
static kiln_status copy_through_host(kiln_array *dst, const kiln_array *src, size_t bytes) {
  kiln_context *from = src->buffer->ctx, *to = dst->buffer->ctx;
  size_t chunk = bytes < STAGING_BYTES ? bytes : STAGING_BYTES;
  void *host = NULL;
  int pinned = from->ops->host_alloc && from->ops->host_alloc(from->device, chunk, &host) == KILN_OK;
  if (!pinned) host = malloc(chunk);
  if (!host)
    return kiln_error_set(KILN_ERROR_OUT_OF_MEMORY,
                          "out of host memory staging %zu bytes between contexts", chunk);
  kiln_status status = KILN_OK;
  for (size_t done = 0; done < bytes && status == KILN_OK; done += chunk) {
    size_t step = bytes - done < chunk ? bytes - done : chunk;
    status = from->ops->copy_d2h(from->device, NULL, host, src->buffer->handle,
                                 (uint64_t)src->offset + done, step, 1);
    if (status == KILN_OK)
      status = to->ops->copy_h2d(to->device, NULL, dst->buffer->handle,
                                 (uint64_t)dst->offset + done, host, step, 1);
  }
  if (pinned) from->ops->host_free(from->device, host);
  else free(host);
  return status;
}

kiln_status kiln_array_copy_to_context(const kiln_array *src, kiln_context *dst_ctx,
                                       kiln_array **out, const char **path) {
  KILN_CHECK_ARG(out);
  *out = NULL;
  if (path) *path = NULL;
  KILN_CHECK_ARG(src);
  KILN_CHECK_ARG(dst_ctx);
  kiln_context *src_ctx = src->buffer->ctx;
  if (src_ctx == dst_ctx) {
    if (path) *path = "device";
    return kiln_array_copy(src, out);
  }
  kiln_array *dense = NULL, *result = NULL;
  const char *route = "host";
  kiln_status status = KILN_OK;
  if (kiln_array_is_contiguous(src)) dense = kiln_array_retain((kiln_array *)src);
  else status = kiln_array_copy(src, &dense); /* gather the view on its own device first */
  if (status == KILN_OK) status = kiln_array_alloc(dst_ctx, src->dtype, src->ndim, src->shape, &result);
  size_t bytes = (size_t)kiln_array_nbytes(src);
  if (status == KILN_OK && bytes > 0) {
    status = kiln_context_synchronize(src_ctx); /* the source's queued writes */
    if (status == KILN_OK && src_ctx->ops == dst_ctx->ops && dst_ctx->ops->copy_peer) {
      status = dst_ctx->ops->copy_peer(dst_ctx->device, result->buffer->handle, 0,
                                       src_ctx->device, dense->buffer->handle,
                                       (uint64_t)dense->offset, bytes);
      if (status == KILN_OK) route = "device";
      else if (status == KILN_ERROR_UNIMPLEMENTED) status = copy_through_host(result, dense, bytes);
    } else if (status == KILN_OK) {
      status = copy_through_host(result, dense, bytes);
    }
  }
  kiln_array_release(dense);
  if (status != KILN_OK) {
    kiln_array_release(result);
    return status;
  }
  if (path) *path = route;
  *out = result;
  return KILN_OK;
}
