/* backends/opencl/opencl_launch.c: kernel launches.
 *
 * A BUFFER argument with a byte offset becomes a sub-buffer (OpenCL 1.2 has
 * no pointer arithmetic on cl_mem). Sub-buffers are made before the
 * function's lock is taken and released right after the enqueue: the queued
 * command holds its own reference until it has run. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backends/opencl/opencl_backend.h"
#include "backends/opencl/opencl_status.h"
#include "core/runtime/error.h"

/* The cl_mem to pass for a BUFFER argument: the buffer itself, NULL for an
 * empty array or view, or a new sub-buffer (set in *view, which the caller
 * releases) for a nonzero offset. */
static kiln_status buffer_argument(kiln_backend_device *device,
                                   const kiln_backend_function *function, int index,
                                   const kiln_backend_arg *arg, cl_mem *mem, cl_mem *view) {
  const kiln_backend_buffer *buffer = arg->buffer;
  *mem = NULL;
  *view = NULL;
  if (!buffer) {
    if (arg->offset != 0)
      return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                            "opencl: argument %d of kernel \"%s\": byte offset %llu into a NULL "
                            "buffer",
                            index, function->name, (unsigned long long)arg->offset);
    return KILN_OK;
  }
  if (arg->offset == 0) {
    *mem = buffer->mem;
    return KILN_OK;
  }
  if (arg->offset > buffer->bytes)
    return kiln_error_set(KILN_ERROR_OUT_OF_RANGE,
                          "opencl: argument %d of kernel \"%s\": byte offset %llu is past the end "
                          "of its buffer of %zu bytes",
                          index, function->name, (unsigned long long)arg->offset, buffer->bytes);
  if (arg->offset == buffer->bytes) return KILN_OK; /* an empty view at the end */
  if (arg->offset % device->base_address_align != 0)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "opencl: argument %d of kernel \"%s\": the view's byte offset %llu is "
                          "not aligned for an OpenCL pointer argument: OpenCL passes a view as a "
                          "sub-buffer, whose offset must be a multiple of %u bytes "
                          "(CL_DEVICE_MEM_BASE_ADDR_ALIGN) on \"%s\"",
                          index, function->name, (unsigned long long)arg->offset,
                          (unsigned)device->base_address_align, device->name);
  cl_buffer_region region = {(size_t)arg->offset, buffer->bytes - (size_t)arg->offset};
  cl_int code = CL_SUCCESS;
  *view = device->cl->clCreateSubBuffer(buffer->mem, CL_MEM_READ_WRITE,
                                        CL_BUFFER_CREATE_TYPE_REGION, &region, &code);
  KILN_RETURN_IF_ERROR(KILN_CL_STATUS(code, clCreateSubBuffer,
                                      "making a view at byte offset %llu for argument %d of "
                                      "kernel \"%s\"",
                                      (unsigned long long)arg->offset, index, function->name));
  *mem = *view;
  return KILN_OK;
}

static kiln_status check_geometry(const kiln_backend_function *function,
                                  const kiln_backend_launch *launch, size_t global[3],
                                  size_t local[3]) {
  if (launch->work_dim < 1 || launch->work_dim > 3)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "opencl: launch of kernel \"%s\" with %d dimensions (1 to 3 allowed)",
                          function->name, launch->work_dim);
  for (int d = 0; d < 3; d++) {
    if (launch->global[d] > SIZE_MAX || launch->local[d] > SIZE_MAX)
      return kiln_error_set(KILN_ERROR_OUT_OF_RANGE,
                            "opencl: launch of kernel \"%s\": size of dimension %d does not fit "
                            "in size_t",
                            function->name, d);
    global[d] = (size_t)launch->global[d];
    local[d] = (size_t)launch->local[d];
    if (d < launch->work_dim && (local[d] == 0 || global[d] == 0 || global[d] % local[d] != 0))
      return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                            "opencl: launch of kernel \"%s\": dimension %d has global size %zu "
                            "and local size %zu (the global size must be a nonzero multiple of "
                            "the local size)",
                            function->name, d, global[d], local[d]);
  }
  return KILN_OK;
}

kiln_status kiln_opencl_launch(kiln_backend_device *device, kiln_backend_stream *stream,
                               kiln_backend_function *function,
                               const kiln_backend_launch *launch, int nargs,
                               const kiln_backend_arg *args) {
  kiln_status status = KILN_OK;
  /* the arguments' cl_mem and sub-buffers: on the stack for usual counts,
   * so a launch allocates nothing */
  enum { ARGS_ON_STACK = 32 };
  cl_mem mems_on_stack[ARGS_ON_STACK], views_on_stack[ARGS_ON_STACK];
  cl_mem *mems = mems_on_stack, *views = views_on_stack;
  size_t global[3], local[3];
  int locked = 0;
  KILN_CHECK_ARG(device);
  KILN_CHECK_ARG(function);
  KILN_CHECK_ARG(launch);
  if (nargs > 0) KILN_CHECK_ARG(args);
  const kiln_opencl_symbols *cl = device->cl;
  if (nargs < 0 || (cl_uint)nargs != function->num_args)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "opencl: kernel \"%s\" takes %u argument%s, the launch passes %d",
                          function->name, (unsigned)function->num_args,
                          function->num_args == 1 ? "" : "s", nargs);
  KILN_RETURN_IF_ERROR(check_geometry(function, launch, global, local));
  cl_command_queue queue = kiln_opencl_stream_or_default(device, stream)->queue;

  if (nargs > ARGS_ON_STACK) {
    mems = calloc((size_t)nargs, sizeof *mems);
    views = calloc((size_t)nargs, sizeof *views);
    if (!mems || !views) {
      status = kiln_error_set(KILN_ERROR_OUT_OF_MEMORY,
                              "opencl: out of host memory launching kernel \"%s\"", function->name);
      goto cleanup;
    }
  } else if (nargs > 0) {
    memset(views, 0, (size_t)nargs * sizeof *views);
  }
  for (int i = 0; i < nargs; i++) {
    const kiln_backend_arg *arg = &args[i];
    switch (arg->kind) {
      case KILN_BACKEND_ARG_BUFFER:
        status = buffer_argument(device, function, i, arg, &mems[i], &views[i]);
        break;
      case KILN_BACKEND_ARG_SCALAR:
        if (!arg->value || arg->size == 0)
          status = kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                                  "opencl: argument %d of kernel \"%s\": a scalar needs a value "
                                  "and a nonzero size",
                                  i, function->name);
        break;
      case KILN_BACKEND_ARG_LOCAL:
        if (arg->local_bytes == 0)
          status = kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                                  "opencl: argument %d of kernel \"%s\": local memory of 0 bytes",
                                  i, function->name);
        break;
      default:
        status = kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                                "opencl: argument %d of kernel \"%s\" has unknown kind %d", i,
                                function->name, (int)arg->kind);
        break;
    }
    if (status != KILN_OK) goto cleanup;
  }

  pthread_mutex_lock(&function->lock);
  locked = 1;
  /* the message is formatted only on failure: every launch sets each
   * argument */
  for (int i = 0; i < nargs; i++) {
    const kiln_backend_arg *arg = &args[i];
    cl_uint index = (cl_uint)i;
    cl_int code;
    if (arg->kind == KILN_BACKEND_ARG_BUFFER)
      code = cl->clSetKernelArg(function->kernel, index, sizeof(cl_mem), &mems[i]);
    else if (arg->kind == KILN_BACKEND_ARG_SCALAR)
      code = cl->clSetKernelArg(function->kernel, index, arg->size, arg->value);
    else
      code = cl->clSetKernelArg(function->kernel, index, arg->local_bytes, NULL);
    if (code == CL_SUCCESS) continue;
    if (arg->kind == KILN_BACKEND_ARG_BUFFER)
      status = KILN_CL_STATUS(code, clSetKernelArg,
                              "setting argument %d (a buffer) of kernel \"%s\"", i, function->name);
    else if (arg->kind == KILN_BACKEND_ARG_SCALAR)
      status = KILN_CL_STATUS(code, clSetKernelArg,
                              "setting argument %d (a scalar of %zu bytes) of kernel \"%s\"", i,
                              arg->size, function->name);
    else
      status = KILN_CL_STATUS(code, clSetKernelArg,
                              "setting argument %d (%zu bytes of local memory) of kernel \"%s\"",
                              i, arg->local_bytes, function->name);
    goto cleanup;
  }
  cl_int code = cl->clEnqueueNDRangeKernel(queue, function->kernel, (cl_uint)launch->work_dim,
                                           NULL, global, local, 0, NULL, NULL);
  if (code != CL_SUCCESS)
    status = KILN_CL_STATUS(code, clEnqueueNDRangeKernel,
                            "launching kernel \"%s\" with global size %zu x %zu x %zu and local "
                            "size %zu x %zu x %zu",
                            function->name, global[0], global[1], global[2], local[0], local[1],
                            local[2]);
  pthread_mutex_unlock(&function->lock);
  locked = 0;
  if (status == KILN_OK && (code = cl->clFlush(queue)) != CL_SUCCESS)
    status = KILN_CL_STATUS(code, clFlush, "submitting kernel \"%s\"", function->name);

cleanup:
  if (locked) pthread_mutex_unlock(&function->lock);
  if (views)
    for (int i = 0; i < nargs; i++)
      if (views[i]) cl->clReleaseMemObject(views[i]);
  if (views != views_on_stack) free(views);
  if (mems != mems_on_stack) free(mems);
  return status;
}
