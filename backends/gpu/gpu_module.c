/* backends/gpu/gpu_module.c: building and loading modules, finding kernels,
 * shared by the CUDA and HIP backends. A module keeps the image it was
 * loaded from, so module_binary can hand it to the disk cache, wrapped in a
 * checksummed envelope naming the backend and architecture (gpu_binary.h)
 * that module_load_binary checks before any driver parses the image. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/gpu/gpu_binary.h"
#include "backends/gpu/gpu_internal.h"
#include "core/runtime/log.h"

/* Loads `binary` (malloc'd; owned by the module on success, freed on
 * failure) into a new module. */
static kiln_status load_owned(kiln_backend_device *device, void *binary,
                              size_t size, kiln_backend_module **out) {
  kiln_backend_module *module = malloc(sizeof *module);
  if (!module) {
    free(binary);
    return kiln_error_set(KILN_ERROR_OUT_OF_MEMORY,
                          "out of host memory for a module");
  }
  kiln_status status = gpu_enter(device);
  if (status == KILN_OK) {
    status = device->runtime->module_load(binary, &module->handle);
    gpu_leave(device);
  }
  if (status != KILN_OK) {
    free(binary);
    free(module);
    return status;
  }
  module->binary = binary;
  module->binary_size = size;
  *out = module;
  return KILN_OK;
}

kiln_status gpu_module_build(kiln_backend_device *device, const char *source,
                             const char *options, kiln_backend_module **out,
                             char **log) {
  if (log) *log = NULL;
  KILN_CHECK_ARG(device);
  KILN_CHECK_ARG(source);
  KILN_CHECK_ARG(out);
  *out = NULL;
  void *binary = NULL;
  size_t size = 0;
  kiln_status status = device->runtime->compile(device->architecture, source,
                                                options, &binary, &size, log);
  if (status != KILN_OK)
    return gpu_error_context(device, status, "building a module for %s",
                             device->architecture);
  status = load_owned(device, binary, size, out);
  if (status != KILN_OK)
    return gpu_error_context(device, status,
                             "loading the module just built for %s",
                             device->architecture);
  return KILN_OK;
}

kiln_status gpu_module_binary(kiln_backend_device *device,
                              kiln_backend_module *module, void **binary,
                              size_t *size) {
  KILN_CHECK_ARG(binary);
  KILN_CHECK_ARG(size);
  *binary = NULL;
  *size = 0;
  KILN_CHECK_ARG(device);
  KILN_CHECK_ARG(module);
  kiln_status status =
      gpu_envelope_wrap(device->runtime->name, device->architecture, module->binary,
                        module->binary_size, binary, size);
  if (status != KILN_OK)
    return gpu_error_context(device, status, "copying a module binary of %zu bytes",
                             module->binary_size);
  return KILN_OK;
}

kiln_status gpu_module_load_binary(kiln_backend_device *device,
                                   const void *binary, size_t size,
                                   kiln_backend_module **out) {
  KILN_CHECK_ARG(out);
  *out = NULL;
  KILN_CHECK_ARG(device);
  KILN_CHECK_ARG(binary);
  const void *payload = NULL;
  size_t payload_size = 0;
  kiln_status status = gpu_envelope_open(device->runtime->name, device->architecture,
                                         binary, size, &payload, &payload_size);
  if (status == KILN_OK) status = device->runtime->binary_check(payload, payload_size);
  if (status != KILN_OK)
    return gpu_error_context(device, status, "loading a binary of %zu bytes", size);
  void *copy = malloc(payload_size);
  if (!copy)
    return gpu_error_context(
        device, kiln_error_set(KILN_ERROR_OUT_OF_MEMORY, "out of host memory"),
        "loading a binary of %zu bytes", size);
  memcpy(copy, payload, payload_size);
  status = load_owned(device, copy, payload_size, out);
  if (status != KILN_OK)
    return gpu_error_context(device, status, "loading a binary of %zu bytes", size);
  return KILN_OK;
}

kiln_status gpu_device_fingerprint(kiln_backend_device *device, char *text,
                                   size_t size) {
  KILN_CHECK_ARG(device);
  KILN_CHECK_ARG(text);
  /* versions: driver and compiler (NVRTC / hiprtc), which together with the
   * architecture decide between CUBIN, PTX and code object */
  char name[256] = "", versions[128] = "";
  kiln_status status = device->runtime->device_name(device->ordinal, name, sizeof name);
  if (status == KILN_OK) status = device->runtime->versions(versions, sizeof versions);
  if (status != KILN_OK)
    return gpu_error_context(device, status, "reading its driver and compiler versions");
  if (size > 0)
    snprintf(text, size, "%s|%s|%s|%s", device->runtime->name, name, device->architecture,
             versions);
  return KILN_OK;
}

void gpu_module_unload(kiln_backend_device *device, kiln_backend_module *module) {
  if (!device || !module) return;
  kiln_status status = gpu_enter(device);
  if (status == KILN_OK) {
    status = device->runtime->module_unload(module->handle);
    gpu_leave(device);
  }
  if (status != KILN_OK)
    kiln_log(KILN_LOG_WARN, "%s device %d: unloading a module: %s",
             device->runtime->name, device->ordinal, kiln_last_error());
  free(module->binary);
  free(module);
}

/* Looks up `name` and the attributes launch needs; runs in the context. */
static kiln_status find_function(kiln_backend_device *device,
                                 kiln_backend_module *module, const char *name,
                                 kiln_backend_function *function) {
  const gpu_runtime *runtime = device->runtime;
  KILN_RETURN_IF_ERROR(runtime->module_function(module->handle, name,
                                                &function->handle));
  int max_threads = 0, static_shared = 0;
  KILN_RETURN_IF_ERROR(runtime->function_attribute(
      function->handle, GPU_FUNCTION_MAX_THREADS_PER_BLOCK, &max_threads));
  KILN_RETURN_IF_ERROR(runtime->function_attribute(
      function->handle, GPU_FUNCTION_STATIC_SHARED_BYTES, &static_shared));
  function->max_threads = max_threads > 0 ? (uint64_t)max_threads : 1;
  function->static_shared = static_shared > 0 ? (size_t)static_shared : 0;
  function->dynamic_shared_limit =
      device->shared_default > function->static_shared
          ? device->shared_default - function->static_shared
          : 0;
  return KILN_OK;
}

kiln_status gpu_function_get(kiln_backend_device *device,
                             kiln_backend_module *module, const char *name,
                             kiln_backend_function **out) {
  KILN_CHECK_ARG(device);
  KILN_CHECK_ARG(module);
  KILN_CHECK_ARG(name);
  KILN_CHECK_ARG(out);
  *out = NULL;
  kiln_backend_function *function = calloc(1, sizeof *function);
  if (!function)
    return kiln_error_set(KILN_ERROR_OUT_OF_MEMORY,
                          "%s device %d: out of host memory for a kernel",
                          device->runtime->name, device->ordinal);
  kiln_status status = gpu_enter(device);
  if (status == KILN_OK) {
    status = find_function(device, module, name, function);
    gpu_leave(device);
  }
  if (status != KILN_OK) {
    free(function);
    return gpu_error_context(device, status, "finding kernel \"%s\"", name);
  }
  *out = function;
  return KILN_OK;
}

void gpu_function_release(kiln_backend_device *device,
                          kiln_backend_function *function) {
  (void)device; /* a kernel handle belongs to its module: nothing to free */
  free(function);
}

kiln_status gpu_function_limits(kiln_backend_device *device,
                                kiln_backend_function *function,
                                uint64_t *max_work_group_size,
                                uint64_t *preferred_multiple) {
  KILN_CHECK_ARG(device);
  KILN_CHECK_ARG(function);
  KILN_CHECK_ARG(max_work_group_size);
  KILN_CHECK_ARG(preferred_multiple);
  *max_work_group_size = function->max_threads;
  *preferred_multiple = device->warp_size;
  return KILN_OK;
}

int gpu_device_scope_order(kiln_backend_device *device) {
  (void)device;
  return 1;
}
