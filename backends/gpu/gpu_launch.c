/* backends/gpu/gpu_launch.c: one kernel launch, shared by the CUDA and HIP
 * backends.
 *
 * Arguments become what the kernel-language prelude expects:
 * - BUFFER: the device address (base + offset) as an 8-byte value;
 * - SCALAR: the caller's bytes, by value;
 * - LOCAL: a 4-byte offset into the kernel's dynamic shared memory, each
 *   LOCAL argument starting at the running total aligned up to 16 bytes; the
 *   total is the launch's dynamic shared memory. Above what a device allows
 *   by default (48 KiB on NVIDIA), kiln opts the kernel in to the most the
 *   device allows. */
#include <stdlib.h>

#include "backends/gpu/gpu_internal.h"

#define LOCAL_ALIGNMENT 16u
#define ARGS_ON_STACK 32

typedef union arg_value {
  uint64_t address;
  uint32_t local_offset;
} arg_value;

/* Fills values/params from args and sums the dynamic shared memory. */
static kiln_status pack_args(int nargs, const kiln_backend_arg *args,
                             arg_value *values, void **params,
                             uint64_t *shared_total) {
  uint64_t total = 0;
  for (int i = 0; i < nargs; i++) {
    const kiln_backend_arg *arg = &args[i];
    switch (arg->kind) {
      case KILN_BACKEND_ARG_BUFFER:
        values[i].address = 0; /* an empty array may have no buffer */
        if (arg->buffer) {
          if (arg->offset > arg->buffer->bytes)
            return kiln_error_set(KILN_ERROR_OUT_OF_RANGE,
                                  "argument %d: offset %llu past the end of a "
                                  "buffer of %zu bytes",
                                  i, (unsigned long long)arg->offset,
                                  arg->buffer->bytes);
          values[i].address = arg->buffer->address + arg->offset;
        }
        params[i] = &values[i].address;
        break;
      case KILN_BACKEND_ARG_SCALAR:
        if (!arg->value || arg->size == 0)
          return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                                "argument %d: scalar without a value", i);
        /* the driver only reads through it */
        params[i] = (void *)(uintptr_t)arg->value;
        break;
      case KILN_BACKEND_ARG_LOCAL: {
        if (arg->local_bytes == 0)
          return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                                "argument %d: 0 bytes of local memory", i);
        uint64_t offset = (total + LOCAL_ALIGNMENT - 1) / LOCAL_ALIGNMENT * LOCAL_ALIGNMENT;
        if (arg->local_bytes > UINT32_MAX || offset + arg->local_bytes > UINT32_MAX)
          return kiln_error_set(KILN_ERROR_OUT_OF_RANGE,
                                "argument %d: %zu bytes of local memory overflow "
                                "the 32-bit offsets",
                                i, arg->local_bytes);
        values[i].local_offset = (uint32_t)offset;
        params[i] = &values[i].local_offset;
        total = offset + arg->local_bytes;
        break;
      }
      default:
        return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                              "argument %d: unknown kind %d", i, (int)arg->kind);
    }
  }
  *shared_total = total;
  return KILN_OK;
}

/* Grid and block sizes from the validated geometry. */
static kiln_status launch_shape(const kiln_backend_launch *launch,
                                const kiln_backend_function *function,
                                unsigned int grid[3], unsigned int block[3]) {
  if (launch->work_dim < 1 || launch->work_dim > 3)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "work_dim %d is not 1, 2 or 3", launch->work_dim);
  uint64_t threads = 1;
  for (int d = 0; d < 3; d++) {
    uint64_t local = launch->local[d], global = launch->global[d];
    if (local == 0 || global == 0 || global % local != 0)
      return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                            "dimension %d: global size %llu is not a nonzero "
                            "multiple of local size %llu",
                            d, (unsigned long long)global, (unsigned long long)local);
    uint64_t groups = global / local;
    if (local > UINT32_MAX || groups > UINT32_MAX)
      return kiln_error_set(KILN_ERROR_OUT_OF_RANGE,
                            "dimension %d: %llu work-groups of %llu do not fit "
                            "the 32-bit grid",
                            d, (unsigned long long)groups, (unsigned long long)local);
    grid[d] = (unsigned int)groups;
    block[d] = (unsigned int)local;
    threads *= local;
  }
  if (threads > function->max_threads)
    return kiln_error_set(KILN_ERROR_OUT_OF_RANGE,
                          "a work-group of %llu work-items exceeds this "
                          "kernel's limit of %llu",
                          (unsigned long long)threads,
                          (unsigned long long)function->max_threads);
  return KILN_OK;
}

/* Checks the dynamic shared memory against the device and opts the kernel
 * in above the default; runs in the context. */
static kiln_status allow_shared(kiln_backend_device *device,
                                kiln_backend_function *function,
                                uint64_t total) {
  size_t limit = device->shared_optin > function->static_shared
                     ? device->shared_optin - function->static_shared
                     : 0;
  if (total > limit)
    return kiln_error_set(KILN_ERROR_OUT_OF_RANGE,
                          "%llu bytes of local memory (with %zu of the kernel's "
                          "own) exceed the device's %zu per work-group",
                          (unsigned long long)total, function->static_shared,
                          device->shared_optin);
  size_t by_default = device->shared_default > function->static_shared
                          ? device->shared_default - function->static_shared
                          : 0;
  if (total <= by_default || !device->runtime->function_set_max_dynamic_shared)
    return KILN_OK;
  kiln_status status = KILN_OK;
  pthread_mutex_lock(&device->lock);
  if (total > function->dynamic_shared_limit) {
    /* once, to the most the device allows, so later launches skip this */
    status = device->runtime->function_set_max_dynamic_shared(function->handle,
                                                              (int)limit);
    if (status == KILN_OK) function->dynamic_shared_limit = limit;
  }
  pthread_mutex_unlock(&device->lock);
  return status;
}

kiln_status gpu_launch(kiln_backend_device *device, kiln_backend_stream *stream,
                       kiln_backend_function *function,
                       const kiln_backend_launch *launch, int nargs,
                       const kiln_backend_arg *args) {
  KILN_CHECK_ARG(device);
  KILN_CHECK_ARG(function);
  KILN_CHECK_ARG(launch);
  if (nargs < 0 || (nargs > 0 && !args))
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "%s: %d arguments at %p", __func__, nargs, (const void *)args);
  arg_value values_on_stack[ARGS_ON_STACK];
  void *params_on_stack[ARGS_ON_STACK];
  arg_value *values = values_on_stack;
  void **params = params_on_stack;
  unsigned int grid[3], block[3];
  uint64_t shared_total = 0;
  kiln_status status = KILN_OK;
  int entered = 0;
  if (nargs > ARGS_ON_STACK) {
    values = malloc((size_t)nargs * sizeof *values);
    params = malloc((size_t)nargs * sizeof *params);
    if (!values || !params) {
      status = kiln_error_set(KILN_ERROR_OUT_OF_MEMORY,
                              "out of host memory for %d arguments", nargs);
      goto cleanup;
    }
  }
  status = launch_shape(launch, function, grid, block);
  if (status != KILN_OK) goto cleanup;
  status = pack_args(nargs, args, values, params, &shared_total);
  if (status != KILN_OK) goto cleanup;
  status = gpu_enter(device);
  if (status != KILN_OK) goto cleanup;
  entered = 1;
  status = allow_shared(device, function, shared_total);
  if (status != KILN_OK) goto cleanup;
  status = device->runtime->launch(function->handle, grid, block,
                                   (unsigned int)shared_total,
                                   gpu_stream_or_default(device, stream),
                                   nargs > 0 ? params : NULL);

cleanup:
  if (entered) gpu_leave(device);
  if (values != values_on_stack) free(values);
  if (params != params_on_stack) free(params);
  if (status != KILN_OK)
    return gpu_error_context(device, status, "launching a kernel");
  return KILN_OK;
}
