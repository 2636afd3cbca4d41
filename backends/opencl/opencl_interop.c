/* backends/opencl/opencl_interop.c: the OpenCL objects behind a device,
 * stream and buffer, and buffers over a cl_mem another library owns
 * (kiln/interop.h). A wrapped cl_mem is retained for the buffer's life, so
 * buffer_free's clReleaseMemObject drops exactly the reference taken here. */
#include <stdlib.h>

#include "backends/opencl/opencl_backend.h"
#include "backends/opencl/opencl_status.h"
#include "core/runtime/error.h"

kiln_status kiln_opencl_native_handles(kiln_backend_device *device, kiln_backend_stream *stream,
                                       kiln_backend_native *native) {
  KILN_CHECK_ARG(device);
  KILN_CHECK_ARG(native);
  native->context = device->context;
  native->device = device->device;
  native->ordinal = -1;
  native->queue = kiln_opencl_stream_or_default(device, stream)->queue;
  native->memory_objects = 1;
  return KILN_OK;
}

kiln_status kiln_opencl_buffer_native(kiln_backend_device *device, kiln_backend_buffer *buffer,
                                      kiln_backend_memory *memory) {
  KILN_CHECK_ARG(device);
  KILN_CHECK_ARG(buffer);
  KILN_CHECK_ARG(memory);
  memory->object = buffer->mem;
  memory->address = 0;
  return KILN_OK;
}

kiln_status kiln_opencl_buffer_wrap(kiln_backend_device *device, const kiln_backend_memory *memory,
                                    size_t bytes, kiln_backend_buffer **out) {
  KILN_CHECK_ARG(device);
  KILN_CHECK_ARG(memory);
  KILN_CHECK_ARG(out);
  *out = NULL;
  const kiln_opencl_symbols *cl = device->cl;
  cl_mem mem = (cl_mem)memory->object;
  if (!mem || memory->address != 0)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "opencl: wrapping memory needs a cl_mem and no device address "
                          "(OpenCL buffers have no addresses)");
  cl_context owner = NULL;
  size_t size = 0;
  KILN_RETURN_IF_ERROR(KILN_CL_CALL(cl, clGetMemObjectInfo,
                                    (mem, CL_MEM_CONTEXT, sizeof owner, &owner, NULL),
                                    "asking a cl_mem to be wrapped for its context"));
  KILN_RETURN_IF_ERROR(KILN_CL_CALL(cl, clGetMemObjectInfo,
                                    (mem, CL_MEM_SIZE, sizeof size, &size, NULL),
                                    "asking a cl_mem to be wrapped for its size"));
  if (owner != device->context)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "opencl: the cl_mem to wrap belongs to another cl_context than the "
                          "one kiln opened on \"%s\" (create it in the context that "
                          "kiln_context_native gives)",
                          device->name);
  if (bytes == 0 || bytes > size)
    return kiln_error_set(KILN_ERROR_OUT_OF_RANGE,
                          "opencl: wrapping %zu bytes of a cl_mem that holds %zu", bytes, size);
  kiln_backend_buffer *buffer = calloc(1, sizeof *buffer);
  if (!buffer)
    return kiln_error_set(KILN_ERROR_OUT_OF_MEMORY, "opencl: out of host memory wrapping a cl_mem");
  kiln_status status = KILN_CL_CALL(cl, clRetainMemObject, (mem), "retaining a wrapped cl_mem");
  if (status != KILN_OK) {
    free(buffer);
    return status;
  }
  buffer->mem = mem;
  buffer->bytes = bytes;
  *out = buffer;
  return KILN_OK;
}
