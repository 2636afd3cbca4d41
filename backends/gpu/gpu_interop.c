/* backends/gpu/gpu_interop.c: the native objects behind a CUDA/HIP device,
 * stream and buffer, and buffers over device memory another library owns
 * (kiln/interop.h), shared by the CUDA and HIP backends. */
#include <stdlib.h>

#include "backends/gpu/gpu_internal.h"

kiln_status gpu_native_handles(kiln_backend_device *device,
                               kiln_backend_stream *stream,
                               kiln_backend_native *native) {
  KILN_CHECK_ARG(device);
  KILN_CHECK_ARG(native);
  native->context = device->context; /* NULL for HIP: it has no context object */
  native->device = NULL;
  native->ordinal = device->ordinal;
  native->queue = gpu_stream_or_default(device, stream);
  native->memory_objects = 0;
  return KILN_OK;
}

kiln_status gpu_buffer_native(kiln_backend_device *device,
                              kiln_backend_buffer *buffer,
                              kiln_backend_memory *memory) {
  KILN_CHECK_ARG(device);
  KILN_CHECK_ARG(buffer);
  KILN_CHECK_ARG(memory);
  memory->object = NULL;
  memory->address = buffer->address;
  return KILN_OK;
}

kiln_status gpu_buffer_wrap(kiln_backend_device *device,
                            const kiln_backend_memory *memory, size_t bytes,
                            kiln_backend_buffer **out) {
  KILN_CHECK_ARG(device);
  KILN_CHECK_ARG(memory);
  KILN_CHECK_ARG(out);
  *out = NULL;
  if (memory->object || memory->address == 0)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "%s device %d: wrapping memory needs a nonzero device address "
                          "and no memory object (%s has no memory objects)",
                          device->runtime->name, device->ordinal, device->runtime->name);
  if (bytes == 0 || memory->address > UINT64_MAX - bytes)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "%s device %d: wrapping %zu bytes at address 0x%llx",
                          device->runtime->name, device->ordinal, bytes,
                          (unsigned long long)memory->address);
  kiln_backend_buffer *buffer = malloc(sizeof *buffer);
  if (!buffer)
    return kiln_error_set(KILN_ERROR_OUT_OF_MEMORY,
                          "%s device %d: out of host memory for a buffer",
                          device->runtime->name, device->ordinal);
  buffer->address = memory->address;
  buffer->bytes = bytes;
  buffer->owned = 0;
  *out = buffer;
  return KILN_OK;
}

kiln_status gpu_copy_peer(kiln_backend_device *dst_device,
                          kiln_backend_buffer *dst, uint64_t dst_offset,
                          kiln_backend_device *src_device,
                          kiln_backend_buffer *src, uint64_t src_offset,
                          size_t bytes) {
  KILN_CHECK_ARG(dst_device);
  KILN_CHECK_ARG(src_device);
  KILN_CHECK_ARG(dst);
  KILN_CHECK_ARG(src);
  const gpu_runtime *runtime = dst_device->runtime;
  int same_device = dst_device->ordinal == src_device->ordinal;
  if (runtime != src_device->runtime || (!same_device && !runtime->copy_peer))
    return KILN_ERROR_UNIMPLEMENTED; /* core takes the host path; no message */
  if (src_offset > src->bytes || bytes > src->bytes - src_offset ||
      dst_offset > dst->bytes || bytes > dst->bytes - dst_offset)
    return kiln_error_set(KILN_ERROR_OUT_OF_RANGE,
                          "%s device %d: peer copy of %zu bytes outside a buffer",
                          runtime->name, dst_device->ordinal, bytes);
  gpu_stream queue = dst_device->default_stream;
  kiln_status status = gpu_enter(dst_device);
  if (status == KILN_OK) {
    /* one device: both kiln devices hold its primary context, so the
     * addresses are valid in either; two devices: the driver's peer copy */
    if (same_device)
      status = runtime->copy_d2d(dst->address + dst_offset, src->address + src_offset, bytes,
                                 queue);
    else
      status = runtime->copy_peer(dst->address + dst_offset, dst_device->ordinal,
                                  dst_device->context, src->address + src_offset,
                                  src_device->ordinal, src_device->context, bytes, queue);
    if (status == KILN_OK) status = runtime->stream_synchronize(queue);
    gpu_leave(dst_device);
  }
  if (status == KILN_ERROR_UNIMPLEMENTED) return status; /* the driver lacks the call */
  if (status != KILN_OK)
    return gpu_error_context(dst_device, status,
                             "copying %zu bytes from device %d to device %d", bytes,
                             src_device->ordinal, dst_device->ordinal);
  return KILN_OK;
}
