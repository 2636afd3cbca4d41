/* core/array/array_transfer.c: moving array data between host and device. */
#include <stdlib.h>
#include <string.h>

#include "core/array/array_internal.h"
#include "core/runtime/error.h"
#include "core/runtime/stream_internal.h"
#include "kiln/memory.h"

void kiln_host_strided_copy(int to_c_order, void *dense, void *strided,
                            const int64_t *strided_strides, int ndim,
                            const int64_t *shape, size_t itemsize) {
  int64_t index[KILN_MAX_DIMS] = {0};
  int64_t total = 1;
  for (int d = 0; d < ndim; d++) total *= shape[d];
  char *packed = dense;
  char *spread = strided;
  for (int64_t i = 0; i < total; i++) {
    if (to_c_order) memcpy(packed, spread, itemsize);
    else memcpy(spread, packed, itemsize);
    packed += itemsize;
    /* odometer step: the last axis moves fastest */
    for (int d = ndim - 1; d >= 0; d--) {
      spread += strided_strides[d];
      if (++index[d] < shape[d]) break;
      spread -= strided_strides[d] * shape[d];
      index[d] = 0;
    }
  }
}

static int is_c_order(int ndim, const int64_t *shape, const int64_t *strides,
                      size_t itemsize) {
  if (!strides) return 1;
  int64_t expected = (int64_t)itemsize;
  for (int d = ndim - 1; d >= 0; d--) {
    if (shape[d] != 1 && strides[d] != expected) return 0;
    expected *= shape[d];
  }
  return 1;
}

kiln_status kiln_array_from_host(kiln_context *ctx, kiln_dtype dtype, int ndim,
                                 const int64_t *shape, const int64_t *host_strides,
                                 const void *host_data, kiln_array **out) {
  KILN_CHECK_ARG(out);
  *out = NULL;
  KILN_RETURN_IF_ERROR(kiln_array_alloc(ctx, dtype, ndim, shape, out));
  kiln_array *a = *out;
  size_t bytes = (size_t)kiln_array_nbytes(a);
  if (bytes == 0) return KILN_OK;
  kiln_status status = KILN_OK;
  void *staging = NULL;
  if (!host_data) {
    status = kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "host_data is NULL");
    goto cleanup;
  }
  const void *source = host_data;
  if (!is_c_order(ndim, shape, host_strides, kiln_dtype_size(dtype))) {
    staging = malloc(bytes);
    if (!staging) {
      status = kiln_error_set(KILN_ERROR_OUT_OF_MEMORY, "out of host memory (%zu bytes)", bytes);
      goto cleanup;
    }
    kiln_host_strided_copy(1, staging, (void *)host_data, host_strides, ndim, shape,
                           kiln_dtype_size(dtype));
    source = staging;
  }
  int staged = 0;
  /* pinned memory goes straight to the DMA engine; pageable memory of the
   * caller's through the pinned staging */
  if (source == host_data && !kiln_host_is_pinned(ctx, source, bytes))
    status = kiln_host_staged_copy(ctx, 1, a->buffer->handle, 0, (void *)source, bytes, &staged);
  if (!staged)
    status = ctx->ops->copy_h2d(ctx->device, NULL, a->buffer->handle, 0, source, bytes, 1);
cleanup:
  free(staging);
  if (status != KILN_OK) {
    kiln_array_release(*out);
    *out = NULL;
  }
  return status;
}

kiln_status kiln_array_to_host(const kiln_array *array, void *host_data,
                               const int64_t *host_strides) {
  KILN_CHECK_ARG(array);
  size_t bytes = (size_t)kiln_array_nbytes(array);
  if (bytes == 0) return KILN_OK;
  KILN_CHECK_ARG(host_data);
  kiln_context *ctx = array->buffer->ctx;
  /* recorded work (core/fusion/) may still have to write the array */
  KILN_RETURN_IF_ERROR(kiln_stream_barrier(ctx, NULL));
  size_t itemsize = kiln_dtype_size(array->dtype);
  kiln_array *dense = NULL;
  void *staging = NULL;
  kiln_status status = KILN_OK;
  const kiln_array *source = array;
  if (!kiln_array_is_contiguous(array)) {
    status = kiln_array_copy(array, &dense);
    if (status != KILN_OK) goto cleanup;
    source = dense;
  }
  void *target = host_data;
  int scatter = !is_c_order(array->ndim, array->shape, host_strides, itemsize);
  if (scatter) {
    staging = malloc(bytes);
    if (!staging) {
      status = kiln_error_set(KILN_ERROR_OUT_OF_MEMORY, "out of host memory (%zu bytes)", bytes);
      goto cleanup;
    }
    target = staging;
  }
  int staged = 0;
  if (!scatter && !kiln_host_is_pinned(ctx, target, bytes))
    status = kiln_host_staged_copy(ctx, 0, source->buffer->handle, (uint64_t)source->offset,
                                   target, bytes, &staged);
  if (!staged)
    status = ctx->ops->copy_d2h(ctx->device, NULL, target, source->buffer->handle,
                                (uint64_t)source->offset, bytes, 1);
  if (status == KILN_OK && scatter)
    kiln_host_strided_copy(0, staging, host_data, host_strides, array->ndim, array->shape,
                           itemsize);
cleanup:
  free(staging);
  kiln_array_release(dense);
  return status;
}
