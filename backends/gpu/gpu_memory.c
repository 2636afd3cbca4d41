/* backends/gpu/gpu_memory.c: device buffers, pinned host memory and copies,
 * shared by the CUDA and HIP backends.
 *
 * Every copy is queued on a stream, also a blocking one, which then waits
 * for that stream: the vendors' synchronous copies run on the legacy default
 * stream, which kiln's non-blocking streams do not order against. */
#include <stdlib.h>

#include "backends/gpu/gpu_internal.h"
#include "core/runtime/log.h"

/* OUT_OF_RANGE unless [offset, offset + bytes) lies inside buffer. */
static kiln_status check_range(const kiln_backend_device *device,
                               const kiln_backend_buffer *buffer,
                               uint64_t offset, size_t bytes, const char *what) {
  if (offset > buffer->bytes || bytes > buffer->bytes - offset) {
    kiln_error_set(KILN_ERROR_OUT_OF_RANGE,
                   "%zu bytes at offset %llu do not fit in a buffer of %zu bytes",
                   bytes, (unsigned long long)offset, buffer->bytes);
    return gpu_error_context(device, KILN_ERROR_OUT_OF_RANGE, "%s", what);
  }
  return KILN_OK;
}

kiln_status gpu_buffer_alloc(kiln_backend_device *device, size_t bytes,
                             kiln_backend_buffer **out) {
  KILN_CHECK_ARG(device);
  KILN_CHECK_ARG(out);
  *out = NULL;
  if (bytes == 0)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "%s device %d: allocating 0 bytes of device memory",
                          device->runtime->name, device->ordinal);
  kiln_backend_buffer *buffer = malloc(sizeof *buffer);
  if (!buffer)
    return kiln_error_set(KILN_ERROR_OUT_OF_MEMORY,
                          "%s device %d: out of host memory for a buffer",
                          device->runtime->name, device->ordinal);
  kiln_status status = gpu_enter(device);
  if (status == KILN_OK) {
    status = device->runtime->memory_alloc(bytes, &buffer->address);
    gpu_leave(device);
  }
  if (status != KILN_OK) {
    free(buffer);
    return gpu_error_context(device, status, "allocating %zu bytes of device memory",
                             bytes);
  }
  buffer->bytes = bytes;
  buffer->owned = 1;
  *out = buffer;
  return KILN_OK;
}

void gpu_buffer_free(kiln_backend_device *device, kiln_backend_buffer *buffer) {
  if (!device || !buffer) return;
  if (!buffer->owned) { /* wrapped memory: its owner frees it */
    free(buffer);
    return;
  }
  kiln_status status = gpu_enter(device);
  if (status == KILN_OK) {
    status = device->runtime->memory_free(buffer->address);
    gpu_leave(device);
  }
  if (status != KILN_OK)
    kiln_log(KILN_LOG_WARN, "%s device %d: freeing %zu bytes: %s",
             device->runtime->name, device->ordinal, buffer->bytes,
             kiln_last_error());
  free(buffer);
}

kiln_status gpu_host_alloc(kiln_backend_device *device, size_t bytes,
                           void **host) {
  KILN_CHECK_ARG(device);
  KILN_CHECK_ARG(host);
  *host = NULL;
  if (bytes == 0)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "%s device %d: allocating 0 bytes of pinned host memory",
                          device->runtime->name, device->ordinal);
  kiln_status status = gpu_enter(device);
  if (status == KILN_OK) {
    status = device->runtime->host_alloc(bytes, host);
    gpu_leave(device);
  }
  if (status != KILN_OK) {
    *host = NULL;
    return gpu_error_context(device, status,
                             "allocating %zu bytes of pinned host memory", bytes);
  }
  return KILN_OK;
}

void gpu_host_free(kiln_backend_device *device, void *host) {
  if (!device || !host) return;
  kiln_status status = gpu_enter(device);
  if (status == KILN_OK) {
    status = device->runtime->host_free(host);
    gpu_leave(device);
  }
  if (status != KILN_OK)
    kiln_log(KILN_LOG_WARN, "%s device %d: freeing pinned host memory: %s",
             device->runtime->name, device->ordinal, kiln_last_error());
}

kiln_status gpu_host_register(kiln_backend_device *device, void *host, size_t bytes) {
  KILN_CHECK_ARG(device);
  KILN_CHECK_ARG(host);
  const gpu_runtime *runtime = device->runtime;
  if (!runtime->host_register || !runtime->host_unregister)
    return kiln_error_set(KILN_ERROR_UNIMPLEMENTED,
                          "%s device %d: the driver cannot pin existing host memory",
                          runtime->name, device->ordinal);
  kiln_status status = gpu_enter(device);
  if (status == KILN_OK) {
    status = runtime->host_register(host, bytes);
    gpu_leave(device);
  }
  if (status != KILN_OK)
    return gpu_error_context(device, status, "pinning %zu bytes of host memory", bytes);
  return KILN_OK;
}

kiln_status gpu_host_unregister(kiln_backend_device *device, void *host) {
  KILN_CHECK_ARG(device);
  KILN_CHECK_ARG(host);
  const gpu_runtime *runtime = device->runtime;
  if (!runtime->host_unregister)
    return kiln_error_set(KILN_ERROR_UNIMPLEMENTED,
                          "%s device %d: the driver cannot unpin host memory", runtime->name,
                          device->ordinal);
  kiln_status status = gpu_enter(device);
  if (status == KILN_OK) {
    status = runtime->host_unregister(host);
    gpu_leave(device);
  }
  if (status != KILN_OK)
    return gpu_error_context(device, status, "unpinning host memory");
  return KILN_OK;
}

kiln_status gpu_copy_h2d(kiln_backend_device *device,
                         kiln_backend_stream *stream, kiln_backend_buffer *dst,
                         uint64_t dst_offset, const void *src, size_t bytes,
                         int blocking) {
  KILN_CHECK_ARG(device);
  KILN_CHECK_ARG(dst);
  KILN_CHECK_ARG(src);
  KILN_RETURN_IF_ERROR(
      check_range(device, dst, dst_offset, bytes, "copying host to device"));
  const gpu_runtime *runtime = device->runtime;
  gpu_stream queue = gpu_stream_or_default(device, stream);
  kiln_status status = gpu_enter(device);
  if (status == KILN_OK) {
    status = runtime->copy_h2d(dst->address + dst_offset, src, bytes, queue);
    if (status == KILN_OK && blocking) status = runtime->stream_synchronize(queue);
    gpu_leave(device);
  }
  if (status != KILN_OK)
    return gpu_error_context(device, status,
                             "copying %zu bytes host to device (offset %llu)",
                             bytes, (unsigned long long)dst_offset);
  return KILN_OK;
}

kiln_status gpu_copy_d2h(kiln_backend_device *device,
                         kiln_backend_stream *stream, void *dst,
                         kiln_backend_buffer *src, uint64_t src_offset,
                         size_t bytes, int blocking) {
  KILN_CHECK_ARG(device);
  KILN_CHECK_ARG(dst);
  KILN_CHECK_ARG(src);
  KILN_RETURN_IF_ERROR(
      check_range(device, src, src_offset, bytes, "copying device to host"));
  const gpu_runtime *runtime = device->runtime;
  gpu_stream queue = gpu_stream_or_default(device, stream);
  kiln_status status = gpu_enter(device);
  if (status == KILN_OK) {
    status = runtime->copy_d2h(dst, src->address + src_offset, bytes, queue);
    if (status == KILN_OK && blocking) status = runtime->stream_synchronize(queue);
    gpu_leave(device);
  }
  if (status != KILN_OK)
    return gpu_error_context(device, status,
                             "copying %zu bytes device to host (offset %llu)",
                             bytes, (unsigned long long)src_offset);
  return KILN_OK;
}

kiln_status gpu_copy_d2d(kiln_backend_device *device,
                         kiln_backend_stream *stream, kiln_backend_buffer *dst,
                         uint64_t dst_offset, kiln_backend_buffer *src,
                         uint64_t src_offset, size_t bytes) {
  KILN_CHECK_ARG(device);
  KILN_CHECK_ARG(dst);
  KILN_CHECK_ARG(src);
  KILN_RETURN_IF_ERROR(check_range(device, src, src_offset, bytes,
                                   "copying device to device (source)"));
  KILN_RETURN_IF_ERROR(check_range(device, dst, dst_offset, bytes,
                                   "copying device to device (destination)"));
  /* the vendors leave overlapping copies undefined (OpenCL rejects them) */
  if (dst == src && dst_offset < src_offset + bytes && src_offset < dst_offset + bytes)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "%s device %d: copying %zu bytes within one buffer from "
                          "offset %llu to the overlapping offset %llu",
                          device->runtime->name, device->ordinal, bytes,
                          (unsigned long long)src_offset,
                          (unsigned long long)dst_offset);
  gpu_stream queue = gpu_stream_or_default(device, stream);
  kiln_status status = gpu_enter(device);
  if (status == KILN_OK) {
    status = device->runtime->copy_d2d(dst->address + dst_offset,
                                       src->address + src_offset, bytes, queue);
    gpu_leave(device);
  }
  if (status != KILN_OK)
    return gpu_error_context(device, status,
                             "copying %zu bytes device to device", bytes);
  return KILN_OK;
}
