/* core/interop/native.c: native handles of contexts, streams and arrays,
 * and arrays over memory another library owns (kiln/interop.h). */
#include <stdio.h>
#include <string.h>

#include "core/array/array_internal.h"
#include "core/runtime/error.h"
#include "core/runtime/stream_internal.h"
#include "kiln/interop.h"

static kiln_status unimplemented(const kiln_context *ctx, const char *what) {
  return kiln_error_set(KILN_ERROR_UNIMPLEMENTED, "the %s backend has no %s", ctx->ops->name,
                        what);
}

kiln_status kiln_context_native(kiln_context *ctx, kiln_stream *stream,
                                kiln_native_handles *out) {
  KILN_CHECK_ARG(ctx);
  KILN_CHECK_ARG(out);
  memset(out, 0, sizeof *out);
  if (!ctx->ops->native_handles) return unimplemented(ctx, "native handles");
  kiln_backend_stream *backend_stream;
  KILN_RETURN_IF_ERROR(kiln_stream_backend(ctx, stream, &backend_stream));
  kiln_backend_native native;
  KILN_RETURN_IF_ERROR(ctx->ops->native_handles(ctx->device, backend_stream, &native));
  snprintf(out->backend, sizeof out->backend, "%s", ctx->ops->name);
  out->context = native.context;
  out->device = native.device;
  out->device_ordinal = native.ordinal;
  out->queue = native.queue;
  return KILN_OK;
}

kiln_status kiln_array_native(const kiln_array *array, kiln_native_memory *out) {
  KILN_CHECK_ARG(array);
  KILN_CHECK_ARG(out);
  memset(out, 0, sizeof *out);
  const kiln_buffer *buffer = array->buffer;
  kiln_context *ctx = buffer->ctx;
  if (!ctx->ops->buffer_native) return unimplemented(ctx, "native memory handles");
  out->offset = array->offset;
  if (!buffer->handle) return KILN_OK; /* empty: no memory at all */
  kiln_backend_memory memory;
  KILN_RETURN_IF_ERROR(ctx->ops->buffer_native(ctx->device, buffer->handle, &memory));
  out->object = memory.object;
  out->address = memory.address;
  out->bytes = buffer->bytes;
  return KILN_OK;
}

kiln_status kiln_array_wrap_native(kiln_context *ctx, const kiln_native_memory *memory,
                                   kiln_dtype dtype, int ndim, const int64_t *shape,
                                   const int64_t *strides, kiln_release_callback release,
                                   void *user_data, kiln_array **out) {
  KILN_CHECK_ARG(out);
  *out = NULL;
  KILN_CHECK_ARG(ctx);
  KILN_CHECK_ARG(memory);
  if (!ctx->ops->buffer_wrap) return unimplemented(ctx, "wrapping of native memory");
  int64_t size;
  KILN_RETURN_IF_ERROR(kiln_shape_validate(dtype, ndim, shape, &size));
  int64_t itemsize = (int64_t)kiln_dtype_size(dtype);
  int64_t byte_strides[KILN_MAX_DIMS];
  if (strides) {
    for (int d = 0; d < ndim; d++) {
      if (strides[d] % itemsize != 0)
        return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                              "stride %lld bytes of axis %d is not a whole number of %s "
                              "elements (%lld bytes)",
                              (long long)strides[d], d, kiln_dtype_name(dtype),
                              (long long)itemsize);
      byte_strides[d] = strides[d];
    }
  } else {
    kiln_shape_c_strides(ndim, shape, itemsize, byte_strides);
  }
  if (size == 0) /* nothing to reach: no backend buffer, as kiln's own */
    return kiln_array_adopt(ctx, NULL, 0, release, user_data, dtype, ndim, shape, byte_strides,
                            0, out);
  if ((memory->object != NULL) == (memory->address != 0))
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "native memory to wrap needs exactly one of a memory object and "
                          "an address (got %s)",
                          memory->object ? "both" : "neither");
  if (memory->offset < 0 || memory->offset % itemsize != 0)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "offset %lld bytes is negative or not a whole number of %s elements",
                          (long long)memory->offset, kiln_dtype_name(dtype));
  int64_t low, high;
  KILN_RETURN_IF_ERROR(kiln_view_extent(ndim, shape, byte_strides, &low, &high));
  if (memory->offset + low < 0 || high > INT64_MAX - memory->offset - itemsize ||
      (uint64_t)(memory->offset + high + itemsize) > (uint64_t)memory->bytes)
    return kiln_error_set(KILN_ERROR_OUT_OF_RANGE,
                          "the elements reach bytes [%lld, %lld) of native memory holding "
                          "%zu bytes",
                          (long long)(memory->offset + low),
                          (long long)memory->offset + high + itemsize, memory->bytes);
  kiln_backend_memory native = {.object = memory->object, .address = memory->address};
  kiln_backend_buffer *handle;
  KILN_RETURN_IF_ERROR(ctx->ops->buffer_wrap(ctx->device, &native, memory->bytes, &handle));
  kiln_status status = kiln_array_adopt(ctx, handle, memory->bytes, release, user_data, dtype,
                                        ndim, shape, byte_strides, memory->offset, out);
  if (status != KILN_OK) ctx->ops->buffer_free(ctx->device, handle);
  return status;
}
