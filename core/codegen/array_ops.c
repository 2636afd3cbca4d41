/* core/codegen/array_ops.c: the array operations that are generated
 * kernels (fill, copy with broadcast and cast, astype). They sit above the
 * element-wise generator, which sits above arrays. */
#include <string.h>

#include "core/codegen/elementwise.h"
#include "core/runtime/error.h"
#include "core/runtime/stream_internal.h"

kiln_status kiln_array_full(kiln_context *ctx, kiln_dtype dtype, int ndim,
                            const int64_t *shape, const void *value, kiln_array **out) {
  KILN_CHECK_ARG(value);
  KILN_RETURN_IF_ERROR(kiln_array_alloc(ctx, dtype, ndim, shape, out));
  kiln_status status = kiln_ew_fill(*out, value);
  if (status != KILN_OK) {
    kiln_array_release(*out);
    *out = NULL;
  }
  return status;
}

kiln_status kiln_array_zeros(kiln_context *ctx, kiln_dtype dtype, int ndim,
                             const int64_t *shape, kiln_array **out) {
  /* all-zero bits are 0 in every dtype; as wide as the widest (complex128) */
  static const uint64_t zero[2] = {0, 0};
  return kiln_array_full(ctx, dtype, ndim, shape, zero, out);
}

kiln_status kiln_array_astype(const kiln_array *array, kiln_dtype dtype, kiln_array **out) {
  KILN_CHECK_ARG(array);
  KILN_CHECK_ARG(out);
  *out = NULL;
  KILN_RETURN_IF_ERROR(
      kiln_array_alloc(array->buffer->ctx, dtype, array->ndim, array->shape, out));
  kiln_status status = kiln_array_copy_into(*out, array);
  if (status != KILN_OK) {
    kiln_array_release(*out);
    *out = NULL;
  }
  return status;
}

kiln_status kiln_array_copy_into(kiln_array *dst, const kiln_array *src) {
  KILN_CHECK_ARG(dst);
  KILN_CHECK_ARG(src);
  if (dst->buffer->ctx != src->buffer->ctx)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "copy between arrays of different contexts");
  kiln_array *view = NULL;
  KILN_RETURN_IF_ERROR(kiln_array_broadcast_to(src, dst->ndim, dst->shape, &view));
  kiln_status status;
  kiln_context *ctx = dst->buffer->ctx;
  /* Same dtype, both dense: one device-to-device copy, after recorded
   * work (core/fusion/) that may write either. */
  status = kiln_stream_barrier(ctx, NULL);
  if (status != KILN_OK) {
    kiln_array_release(view);
    return status;
  }
  if (dst->dtype == src->dtype && kiln_array_is_contiguous(dst) &&
      kiln_array_is_contiguous(view) && view->size == src->size) {
    size_t bytes = (size_t)kiln_array_nbytes(dst);
    status = bytes == 0 ? KILN_OK
                        : ctx->ops->copy_d2d(ctx->device, NULL, dst->buffer->handle,
                                             (uint64_t)dst->offset, view->buffer->handle,
                                             (uint64_t)view->offset, bytes);
  } else {
    status = kiln_ew_copy(dst, view);
  }
  kiln_array_release(view);
  return status;
}

kiln_status kiln_array_copy(const kiln_array *array, kiln_array **out) {
  return kiln_array_astype(array, array ? array->dtype : KILN_DTYPE_COUNT, out);
}
