/* core/array/array.c: array creation, lifetime and properties. */
#include <stdlib.h>
#include <string.h>

#include "core/array/array_internal.h"
#include "core/runtime/error.h"
#include "core/runtime/log.h"

kiln_status kiln_shape_validate(kiln_dtype dtype, int ndim, const int64_t *shape,
                                int64_t *size) {
  if (kiln_dtype_size(dtype) == 0)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "invalid dtype value %d", (int)dtype);
  if (ndim < 0 || ndim > KILN_MAX_DIMS)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "ndim %d out of range (0..%d)", ndim, KILN_MAX_DIMS);
  if (ndim > 0 && !shape)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "shape is NULL with ndim %d", ndim);
  int64_t n = 1;
  int overflow = 0;
  for (int d = 0; d < ndim; d++) {
    if (shape[d] < 0)
      return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                            "shape[%d] = %lld is negative", d, (long long)shape[d]);
    if (shape[d] != 0 && n > INT64_MAX / shape[d]) overflow = 1;
    else n *= shape[d];
  }
  for (int d = 0; d < ndim; d++)
    if (shape[d] == 0) overflow = 0, n = 0; /* an empty array never overflows */
  int64_t itemsize = (int64_t)kiln_dtype_size(dtype);
  if (overflow || n > INT64_MAX / itemsize)
    return kiln_error_set(KILN_ERROR_OUT_OF_RANGE,
                          "array of %d dims is too large: element count or byte size "
                          "overflows 64 bits",
                          ndim);
  *size = n;
  return KILN_OK;
}

void kiln_shape_c_strides(int ndim, const int64_t *shape, int64_t itemsize,
                          int64_t *strides) {
  int64_t stride = itemsize;
  for (int d = ndim - 1; d >= 0; d--) {
    strides[d] = stride;
    stride *= shape[d] > 0 ? shape[d] : 1;
  }
}

/* The lowest and highest byte offsets, relative to element 0,..,0, of the
 * first byte of any element (size > 0); OUT_OF_RANGE on overflow. */
kiln_status kiln_view_extent(int ndim, const int64_t *shape, const int64_t *strides,
                               int64_t *low, int64_t *high) {
  *low = *high = 0;
  for (int d = 0; d < ndim; d++) {
    int64_t reach;
    if (__builtin_mul_overflow(shape[d] - 1, strides[d], &reach) ||
        __builtin_add_overflow(reach < 0 ? *low : *high, reach, reach < 0 ? low : high))
      return kiln_error_set(KILN_ERROR_OUT_OF_RANGE,
                            "axis %d: %lld elements of stride %lld bytes overflow 64 bits", d,
                            (long long)shape[d], (long long)strides[d]);
  }
  return KILN_OK;
}

static void buffer_release(kiln_buffer *buffer) {
  if (!buffer || atomic_fetch_sub(&buffer->refcount, 1) != 1) return;
  kiln_context *ctx = buffer->ctx;
  if (buffer->wrapped) {
    /* wrapped memory (kiln/interop.h) never enters the pool; its owner may
     * free it at once, so nothing queued may still use it */
    if (ctx->ops->stream_synchronize(ctx->device, NULL) != KILN_OK)
      kiln_log(KILN_LOG_WARN, "releasing wrapped memory: %s", kiln_last_error());
    if (buffer->handle) ctx->ops->buffer_free(ctx->device, buffer->handle);
    if (buffer->release) buffer->release(buffer->release_data);
  } else {
    kiln_pool_release(buffer);
  }
  kiln_context_release(ctx);
  free(buffer);
}

kiln_status kiln_array_alloc(kiln_context *ctx, kiln_dtype dtype, int ndim,
                             const int64_t *shape, kiln_array **out) {
  KILN_CHECK_ARG(ctx);
  KILN_CHECK_ARG(out);
  *out = NULL;
  int64_t size;
  KILN_RETURN_IF_ERROR(kiln_shape_validate(dtype, ndim, shape, &size));
  size_t bytes = (size_t)size * kiln_dtype_size(dtype);
  uint64_t limit = ctx->info.max_buffer_size ? ctx->info.max_buffer_size : ctx->info.global_memory;
  if ((uint64_t)bytes > limit && limit > 0)
    return kiln_error_set(KILN_ERROR_OUT_OF_MEMORY,
                          "array of %llu bytes is larger than the %llu bytes one buffer may "
                          "hold on %s",
                          (unsigned long long)bytes, (unsigned long long)limit, ctx->info.name);
  int64_t strides[KILN_MAX_DIMS];
  kiln_shape_c_strides(ndim, shape, (int64_t)kiln_dtype_size(dtype), strides);
  KILN_RETURN_IF_ERROR(
      kiln_array_adopt(ctx, NULL, 0, NULL, NULL, dtype, ndim, shape, strides, 0, out));
  if (bytes == 0) return KILN_OK;
  /* device memory from the context's pool (core/array/memory_pool.c);
   * bytes first: a reused block whose wait fails is handed over all the
   * same, and the release below files it by its size */
  (*out)->buffer->bytes = bytes;
  kiln_status status = kiln_pool_acquire(ctx, (*out)->buffer, bytes);
  if (status != KILN_OK) {
    kiln_array_release(*out);
    *out = NULL;
    return status;
  }
  return KILN_OK;
}

kiln_status kiln_array_adopt(kiln_context *ctx, kiln_backend_buffer *handle, size_t bytes,
                             void (*release)(void *), void *release_data, kiln_dtype dtype,
                             int ndim, const int64_t *shape, const int64_t *strides,
                             int64_t offset, kiln_array **out) {
  KILN_CHECK_ARG(ctx);
  KILN_CHECK_ARG(out);
  *out = NULL;
  int64_t size;
  KILN_RETURN_IF_ERROR(kiln_shape_validate(dtype, ndim, shape, &size));
  kiln_array *a = calloc(1, sizeof *a);
  kiln_buffer *b = calloc(1, sizeof *b);
  if (!a || !b) {
    free(a);
    free(b);
    return kiln_error_set(KILN_ERROR_OUT_OF_MEMORY, "out of host memory");
  }
  atomic_init(&b->refcount, 1);
  b->ctx = kiln_context_retain(ctx);
  b->handle = handle;
  b->bytes = bytes;
  b->release = release;
  b->release_data = release_data;
  b->wrapped = handle != NULL || release != NULL; /* kiln_array_alloc adopts neither */
  atomic_init(&a->refcount, 1);
  a->buffer = b;
  a->dtype = dtype;
  a->ndim = ndim;
  for (int d = 0; d < ndim; d++) {
    a->shape[d] = shape[d];
    a->strides[d] = strides[d];
  }
  a->offset = offset;
  a->size = size;
  *out = a;
  return KILN_OK;
}

kiln_status kiln_array_view_new(const kiln_array *base, kiln_dtype dtype, int ndim,
                                const int64_t *shape, const int64_t *strides,
                                int64_t offset, kiln_array **out) {
  kiln_array *a = calloc(1, sizeof *a);
  if (!a) return kiln_error_set(KILN_ERROR_OUT_OF_MEMORY, "out of host memory");
  atomic_init(&a->refcount, 1);
  a->buffer = base->buffer;
  atomic_fetch_add(&a->buffer->refcount, 1);
  a->dtype = dtype;
  a->ndim = ndim;
  a->size = 1;
  for (int d = 0; d < ndim; d++) {
    a->shape[d] = shape[d];
    a->strides[d] = strides[d];
    a->size *= shape[d];
  }
  a->offset = offset;
  *out = a;
  return KILN_OK;
}

kiln_status kiln_array_empty(kiln_context *ctx, kiln_dtype dtype, int ndim,
                             const int64_t *shape, kiln_array **out) {
  return kiln_array_alloc(ctx, dtype, ndim, shape, out);
}

kiln_array *kiln_array_retain(kiln_array *array) {
  if (array) atomic_fetch_add(&array->refcount, 1);
  return array;
}

void kiln_array_release(kiln_array *array) {
  if (!array || atomic_fetch_sub(&array->refcount, 1) != 1) return;
  buffer_release(array->buffer);
  free(array);
}

kiln_context *kiln_array_context(const kiln_array *a) { return a ? a->buffer->ctx : NULL; }
kiln_dtype kiln_array_dtype(const kiln_array *a) { return a ? a->dtype : KILN_DTYPE_COUNT; }
int kiln_array_ndim(const kiln_array *a) { return a ? a->ndim : 0; }
const int64_t *kiln_array_shape(const kiln_array *a) { return a ? a->shape : NULL; }
const int64_t *kiln_array_strides(const kiln_array *a) { return a ? a->strides : NULL; }
int64_t kiln_array_offset(const kiln_array *a) { return a ? a->offset : 0; }
int64_t kiln_array_size(const kiln_array *a) { return a ? a->size : 0; }

int64_t kiln_array_nbytes(const kiln_array *a) {
  return a ? a->size * (int64_t)kiln_dtype_size(a->dtype) : 0;
}

int kiln_array_is_contiguous(const kiln_array *a) {
  if (!a) return 0;
  if (a->size <= 1) return 1;
  int64_t expected = (int64_t)kiln_dtype_size(a->dtype);
  for (int d = a->ndim - 1; d >= 0; d--) {
    if (a->shape[d] != 1 && a->strides[d] != expected) return 0;
    expected *= a->shape[d];
  }
  return 1;
}
