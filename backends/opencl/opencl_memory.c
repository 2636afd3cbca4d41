/* backends/opencl/opencl_memory.c: device buffers, pinned host memory and
 * copies. Pinned host memory is a CL_MEM_ALLOC_HOST_PTR buffer mapped once
 * for its whole life (the portable way to get page-locked memory in OpenCL
 * 1.2); the device keeps a table from the mapped pointer back to its cl_mem. */
#include <stdlib.h>
#include <string.h>

#include "backends/opencl/opencl_backend.h"
#include "backends/opencl/opencl_status.h"
#include "core/runtime/error.h"
#include "core/runtime/log.h"

/* OUT_OF_RANGE unless [offset, offset + bytes) lies inside the buffer. */
static kiln_status check_range(const kiln_backend_buffer *buffer, uint64_t offset,
                               size_t bytes, const char *what) {
  if (offset > buffer->bytes || bytes > buffer->bytes - offset)
    return kiln_error_set(KILN_ERROR_OUT_OF_RANGE,
                          "opencl: %s: bytes [%llu, %llu + %zu) are outside the buffer of "
                          "%zu bytes",
                          what, (unsigned long long)offset, (unsigned long long)offset,
                          bytes, buffer->bytes);
  return KILN_OK;
}

kiln_status kiln_opencl_buffer_alloc(kiln_backend_device *device, size_t bytes,
                                     kiln_backend_buffer **out) {
  kiln_status status = KILN_OK;
  kiln_backend_buffer *buffer = NULL;
  cl_int code = CL_SUCCESS;
  KILN_CHECK_ARG(device);
  KILN_CHECK_ARG(out);
  *out = NULL;
  if (bytes == 0)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "opencl: cannot allocate a buffer of 0 bytes");
  /* drivers allocate lazily, so report the hard limit here rather than as a
   * CL_INVALID_BUFFER_SIZE from somewhere later */
  if ((cl_ulong)bytes > device->max_alloc_size)
    return kiln_error_set(KILN_ERROR_OUT_OF_MEMORY,
                          "opencl: cannot allocate %zu bytes on \"%s\": one buffer may hold at "
                          "most %llu bytes (CL_DEVICE_MAX_MEM_ALLOC_SIZE)",
                          bytes, device->name, (unsigned long long)device->max_alloc_size);
  buffer = calloc(1, sizeof *buffer);
  if (!buffer) {
    status = kiln_error_set(KILN_ERROR_OUT_OF_MEMORY, "opencl: out of host memory allocating a buffer");
    goto cleanup;
  }
  buffer->bytes = bytes;
  buffer->mem = device->cl->clCreateBuffer(device->context, CL_MEM_READ_WRITE, bytes, NULL, &code);
  status = KILN_CL_STATUS(code, clCreateBuffer, "allocating %zu bytes on \"%s\"", bytes,
                          device->name);
  if (status != KILN_OK) goto cleanup;
  *out = buffer;
  buffer = NULL;
cleanup:
  free(buffer);
  return status;
}

void kiln_opencl_buffer_free(kiln_backend_device *device, kiln_backend_buffer *buffer) {
  if (!device || !buffer) return;
  /* the runtime keeps the memory alive until queued commands using it end */
  device->cl->clReleaseMemObject(buffer->mem);
  free(buffer);
}

/* Adds (host, mem) to the device's table. */
static kiln_status table_add(kiln_backend_device *device, void *host, cl_mem mem, int registered) {
  kiln_status status = KILN_OK;
  pthread_mutex_lock(&device->host_lock);
  if (device->host_count == device->host_capacity) {
    size_t capacity = device->host_capacity ? 2 * device->host_capacity : 16;
    kiln_opencl_host_allocation *grown =
        realloc(device->host_allocations, capacity * sizeof *grown);
    if (!grown) {
      status = kiln_error_set(KILN_ERROR_OUT_OF_MEMORY,
                              "opencl: out of host memory recording pinned host memory");
    } else {
      device->host_allocations = grown;
      device->host_capacity = capacity;
    }
  }
  if (status == KILN_OK)
    device->host_allocations[device->host_count++] =
        (kiln_opencl_host_allocation){.host = host, .mem = mem, .registered = registered};
  pthread_mutex_unlock(&device->host_lock);
  return status;
}

/* Takes host's entry (of the given kind) off the table: its cl_mem, or
 * NULL when there is none. */
static cl_mem table_remove(kiln_backend_device *device, void *host, int registered) {
  cl_mem mem = NULL;
  pthread_mutex_lock(&device->host_lock);
  for (size_t i = 0; i < device->host_count; i++) {
    kiln_opencl_host_allocation *a = &device->host_allocations[i];
    if (a->host == host && a->registered == registered) {
      mem = a->mem;
      *a = device->host_allocations[--device->host_count];
      break;
    }
  }
  pthread_mutex_unlock(&device->host_lock);
  return mem;
}

kiln_status kiln_opencl_host_alloc(kiln_backend_device *device, size_t bytes, void **out) {
  kiln_status status = KILN_OK;
  const kiln_opencl_symbols *cl = NULL;
  cl_mem mem = NULL;
  void *host = NULL;
  cl_int code = CL_SUCCESS;
  KILN_CHECK_ARG(device);
  KILN_CHECK_ARG(out);
  *out = NULL;
  cl = device->cl;
  if (bytes == 0)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "opencl: cannot allocate 0 bytes of host memory");
  mem = cl->clCreateBuffer(device->context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes, NULL,
                           &code);
  status = KILN_CL_STATUS(code, clCreateBuffer,
                          "allocating %zu bytes of pinned host memory (CL_MEM_ALLOC_HOST_PTR)",
                          bytes);
  if (status != KILN_OK) goto cleanup;
  host = cl->clEnqueueMapBuffer(device->host_queue, mem, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0,
                                bytes, 0, NULL, NULL, &code);
  status = KILN_CL_STATUS(code, clEnqueueMapBuffer, "mapping %zu bytes of pinned host memory",
                          bytes);
  if (status != KILN_OK) goto cleanup;
  status = table_add(device, host, mem, 0);
  if (status != KILN_OK) goto cleanup;
  *out = host;
  host = NULL;
  mem = NULL;
cleanup:
  if (host) cl->clEnqueueUnmapMemObject(device->host_queue, mem, host, 0, NULL, NULL);
  if (mem) cl->clReleaseMemObject(mem);
  return status;
}

void kiln_opencl_host_free(kiln_backend_device *device, void *host) {
  if (!device || !host) return;
  cl_mem mem = table_remove(device, host, 0);
  if (!mem) {
    kiln_log(KILN_LOG_WARN, "opencl: host_free of %p, which host_alloc did not return", host);
    return;
  }
  device->cl->clEnqueueUnmapMemObject(device->host_queue, mem, host, 0, NULL, NULL);
  device->cl->clFlush(device->host_queue);
  device->cl->clReleaseMemObject(mem);
}

/* OpenCL 1.2 has no call that pins memory as such: a CL_MEM_USE_HOST_PTR
 * buffer over it lets the driver pin it (PoCL uses the memory in place; a
 * GPU driver may pin it or copy through its own staging). Copies keep
 * reading and writing the caller's pointer. */
kiln_status kiln_opencl_host_register(kiln_backend_device *device, void *host, size_t bytes) {
  KILN_CHECK_ARG(device);
  KILN_CHECK_ARG(host);
  if (bytes == 0)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "opencl: cannot pin 0 bytes of host memory");
  cl_int code = CL_SUCCESS;
  cl_mem mem = device->cl->clCreateBuffer(device->context, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR,
                                          bytes, host, &code);
  KILN_RETURN_IF_ERROR(KILN_CL_STATUS(code, clCreateBuffer,
                                      "pinning %zu bytes of host memory (CL_MEM_USE_HOST_PTR)",
                                      bytes));
  kiln_status status = table_add(device, host, mem, 1);
  if (status != KILN_OK) device->cl->clReleaseMemObject(mem);
  return status;
}

kiln_status kiln_opencl_host_unregister(kiln_backend_device *device, void *host) {
  KILN_CHECK_ARG(device);
  KILN_CHECK_ARG(host);
  cl_mem mem = table_remove(device, host, 1);
  if (!mem)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "opencl: %p is not host memory pinned by host_register", host);
  device->cl->clReleaseMemObject(mem);
  return KILN_OK;
}

void kiln_opencl_host_free_all(kiln_backend_device *device) {
  pthread_mutex_lock(&device->host_lock);
  for (size_t i = 0; i < device->host_count; i++) {
    kiln_opencl_host_allocation *a = &device->host_allocations[i];
    if (!a->registered)
      device->cl->clEnqueueUnmapMemObject(device->host_queue, a->mem, a->host, 0, NULL, NULL);
    device->cl->clReleaseMemObject(a->mem);
  }
  device->host_count = 0;
  pthread_mutex_unlock(&device->host_lock);
}

kiln_status kiln_opencl_copy_h2d(kiln_backend_device *device, kiln_backend_stream *stream,
                                 kiln_backend_buffer *dst, uint64_t dst_offset,
                                 const void *src, size_t bytes, int blocking) {
  KILN_CHECK_ARG(device);
  KILN_CHECK_ARG(dst);
  KILN_CHECK_ARG(src);
  KILN_RETURN_IF_ERROR(check_range(dst, dst_offset, bytes, "copy to the device"));
  cl_command_queue queue = kiln_opencl_stream_or_default(device, stream)->queue;
  KILN_RETURN_IF_ERROR(KILN_CL_CALL(
      device->cl, clEnqueueWriteBuffer,
      (queue, dst->mem, blocking ? CL_TRUE : CL_FALSE, (size_t)dst_offset, bytes, src, 0, NULL,
       NULL),
      "copying %zu bytes from the host to offset %llu of a buffer", bytes,
      (unsigned long long)dst_offset));
  if (blocking) return KILN_OK;
  return KILN_CL_CALL(device->cl, clFlush, (queue), "submitting a copy to the device");
}

kiln_status kiln_opencl_copy_d2h(kiln_backend_device *device, kiln_backend_stream *stream,
                                 void *dst, kiln_backend_buffer *src, uint64_t src_offset,
                                 size_t bytes, int blocking) {
  KILN_CHECK_ARG(device);
  KILN_CHECK_ARG(dst);
  KILN_CHECK_ARG(src);
  KILN_RETURN_IF_ERROR(check_range(src, src_offset, bytes, "copy from the device"));
  cl_command_queue queue = kiln_opencl_stream_or_default(device, stream)->queue;
  KILN_RETURN_IF_ERROR(KILN_CL_CALL(
      device->cl, clEnqueueReadBuffer,
      (queue, src->mem, blocking ? CL_TRUE : CL_FALSE, (size_t)src_offset, bytes, dst, 0, NULL,
       NULL),
      "copying %zu bytes from offset %llu of a buffer to the host", bytes,
      (unsigned long long)src_offset));
  if (blocking) return KILN_OK;
  return KILN_CL_CALL(device->cl, clFlush, (queue), "submitting a copy from the device");
}

kiln_status kiln_opencl_copy_d2d(kiln_backend_device *device, kiln_backend_stream *stream,
                                 kiln_backend_buffer *dst, uint64_t dst_offset,
                                 kiln_backend_buffer *src, uint64_t src_offset,
                                 size_t bytes) {
  KILN_CHECK_ARG(device);
  KILN_CHECK_ARG(dst);
  KILN_CHECK_ARG(src);
  KILN_RETURN_IF_ERROR(check_range(dst, dst_offset, bytes, "device-to-device copy destination"));
  KILN_RETURN_IF_ERROR(check_range(src, src_offset, bytes, "device-to-device copy source"));
  if (dst == src && dst_offset < src_offset + bytes && src_offset < dst_offset + bytes)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "opencl: device-to-device copy of %zu bytes from offset %llu to offset "
                          "%llu of the same buffer: the ranges overlap",
                          bytes, (unsigned long long)src_offset, (unsigned long long)dst_offset);
  cl_command_queue queue = kiln_opencl_stream_or_default(device, stream)->queue;
  KILN_RETURN_IF_ERROR(KILN_CL_CALL(
      device->cl, clEnqueueCopyBuffer,
      (queue, src->mem, dst->mem, (size_t)src_offset, (size_t)dst_offset, bytes, 0, NULL, NULL),
      "copying %zu bytes between buffers (offset %llu to offset %llu)", bytes,
      (unsigned long long)src_offset, (unsigned long long)dst_offset));
  return KILN_CL_CALL(device->cl, clFlush, (queue), "submitting a device-to-device copy");
}
