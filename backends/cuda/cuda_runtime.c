/* backends/cuda/cuda_runtime.c: the CUDA Driver API behind the shared
 * gpu_runtime table, one small wrapper per call.
 *
 * Each device uses its primary context (the one the CUDA runtime API uses
 * too), pushed for the duration of every call so that any thread may call
 * and the caller's own current context is left as it was. */
#include "backends/cuda/cuda_backend.h"

#include <stdio.h>

#include "backends/cuda/cuda_status.h"
#include "backends/gpu/gpu_binary.h"
#include "core/runtime/log.h"

static kiln_status cuda_load(void) {
  const cuda_driver_symbols *driver = NULL;
  return cuda_driver_load(&driver);
}

static kiln_status cuda_load_compiler(void) {
  const cuda_nvrtc_symbols *nvrtc = NULL;
  return cuda_nvrtc_load(&nvrtc);
}

static kiln_status cuda_device_count(int *count) {
  KILN_RETURN_IF_ERROR(CUDA_CALL(cuInit, (0)));
  return CUDA_CALL(cuDeviceGetCount, (count));
}

static kiln_status cuda_device(int ordinal, CUdevice *device) {
  return CUDA_CALL(cuDeviceGet, (device, ordinal));
}

static kiln_status cuda_device_name(int ordinal, char *name, size_t size) {
  CUdevice device;
  KILN_RETURN_IF_ERROR(cuda_device(ordinal, &device));
  return CUDA_CALL(cuDeviceGetName, (name, (int)size, device));
}

static kiln_status cuda_device_total_memory(int ordinal, uint64_t *bytes) {
  CUdevice device;
  size_t total = 0;
  KILN_RETURN_IF_ERROR(cuda_device(ordinal, &device));
  KILN_RETURN_IF_ERROR(CUDA_CALL(cuDeviceTotalMem_v2, (&total, device)));
  *bytes = total;
  return KILN_OK;
}

static kiln_status cuda_device_attribute(int ordinal, gpu_device_attribute attribute,
                                         int *value) {
  CUdevice_attribute which;
  switch (attribute) {
    case GPU_DEVICE_COMPUTE_UNITS: which = CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT; break;
    case GPU_DEVICE_MAX_THREADS_PER_BLOCK: which = CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK; break;
    case GPU_DEVICE_MAX_SHARED_PER_BLOCK: which = CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK; break;
    case GPU_DEVICE_MAX_SHARED_PER_BLOCK_OPTIN:
      which = CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN;
      break;
    case GPU_DEVICE_WARP_SIZE: which = CU_DEVICE_ATTRIBUTE_WARP_SIZE; break;
    case GPU_DEVICE_L2_CACHE_BYTES: which = CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE; break;
    default:
      return kiln_error_set(KILN_ERROR_INTERNAL, "cuda: unknown device attribute %d",
                            (int)attribute);
  }
  CUdevice device;
  KILN_RETURN_IF_ERROR(cuda_device(ordinal, &device));
  return CUDA_CALL(cuDeviceGetAttribute, (value, which, device));
}

static kiln_status cuda_device_architecture(int ordinal, char *architecture,
                                            size_t size) {
  CUdevice device;
  int major = 0, minor = 0;
  KILN_RETURN_IF_ERROR(cuda_device(ordinal, &device));
  KILN_RETURN_IF_ERROR(CUDA_CALL(cuDeviceGetAttribute,
                                 (&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device)));
  KILN_RETURN_IF_ERROR(CUDA_CALL(cuDeviceGetAttribute,
                                 (&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device)));
  snprintf(architecture, size, "sm_%d%d", major, minor);
  return KILN_OK;
}

static kiln_status cuda_versions(char *text, size_t size) {
  int driver = 0, nvrtc_major = 0, nvrtc_minor = 0;
  KILN_RETURN_IF_ERROR(CUDA_CALL(cuDriverGetVersion, (&driver)));
  KILN_RETURN_IF_ERROR(NVRTC_CALL(nvrtcVersion, (&nvrtc_major, &nvrtc_minor)));
  snprintf(text, size, "CUDA %d.%d driver, NVRTC %d.%d", driver / 1000,
           driver % 1000 / 10, nvrtc_major, nvrtc_minor);
  return KILN_OK;
}

static kiln_status cuda_context_open(int ordinal, gpu_context *context) {
  CUdevice device;
  CUcontext primary = NULL;
  KILN_RETURN_IF_ERROR(cuda_device(ordinal, &device));
  KILN_RETURN_IF_ERROR(CUDA_CALL(cuDevicePrimaryCtxRetain, (&primary, device)));
  *context = primary;
  return KILN_OK;
}

static void cuda_context_close(int ordinal, gpu_context context) {
  (void)context;
  CUdevice device;
  if (cuda_device(ordinal, &device) != KILN_OK ||
      CUDA_CALL(cuDevicePrimaryCtxRelease_v2, (device)) != KILN_OK)
    kiln_log(KILN_LOG_WARN, "cuda device %d: releasing the primary context: %s",
             ordinal, kiln_last_error());
}

static kiln_status cuda_context_enter(int ordinal, gpu_context context) {
  (void)ordinal;
  return CUDA_CALL(cuCtxPushCurrent_v2, ((CUcontext)context));
}

static void cuda_context_leave(gpu_context context) {
  CUcontext popped = NULL;
  if (CUDA_CALL(cuCtxPopCurrent_v2, (&popped)) != KILN_OK || popped != context)
    kiln_log(KILN_LOG_WARN, "cuda: restoring the caller's context: %s",
             popped != context ? "another context was current" : kiln_last_error());
}

static kiln_status cuda_context_synchronize(void) {
  return CUDA_CALL(cuCtxSynchronize, ());
}

static kiln_status cuda_memory_alloc(size_t bytes, gpu_address *address) {
  CUdeviceptr pointer = 0;
  KILN_RETURN_IF_ERROR(CUDA_CALL(cuMemAlloc_v2, (&pointer, bytes)));
  *address = pointer;
  return KILN_OK;
}

static kiln_status cuda_memory_free(gpu_address address) {
  return CUDA_CALL(cuMemFree_v2, ((CUdeviceptr)address));
}

static kiln_status cuda_host_alloc(size_t bytes, void **host) {
  return CUDA_CALL(cuMemHostAlloc, (host, bytes, CU_MEMHOSTALLOC_PORTABLE));
}

static kiln_status cuda_host_free(void *host) {
  return CUDA_CALL(cuMemFreeHost, (host));
}

static kiln_status cuda_host_register(void *host, size_t bytes) {
  if (!cuda_driver()->cuMemHostRegister_v2 || !cuda_driver()->cuMemHostUnregister)
    return kiln_error_set(KILN_ERROR_UNIMPLEMENTED,
                          "the driver lacks cuMemHostRegister_v2 / cuMemHostUnregister");
  return CUDA_CALL(cuMemHostRegister_v2, (host, bytes, CU_MEMHOSTREGISTER_PORTABLE));
}

static kiln_status cuda_host_unregister(void *host) {
  if (!cuda_driver()->cuMemHostUnregister)
    return kiln_error_set(KILN_ERROR_UNIMPLEMENTED, "the driver lacks cuMemHostUnregister");
  return CUDA_CALL(cuMemHostUnregister, (host));
}

static kiln_status cuda_copy_h2d(gpu_address dst, const void *src, size_t bytes,
                                 gpu_stream stream) {
  return CUDA_CALL(cuMemcpyHtoDAsync_v2, ((CUdeviceptr)dst, src, bytes, (CUstream)stream));
}

static kiln_status cuda_copy_d2h(void *dst, gpu_address src, size_t bytes,
                                 gpu_stream stream) {
  return CUDA_CALL(cuMemcpyDtoHAsync_v2, (dst, (CUdeviceptr)src, bytes, (CUstream)stream));
}

static kiln_status cuda_copy_d2d(gpu_address dst, gpu_address src, size_t bytes,
                                 gpu_stream stream) {
  return CUDA_CALL(cuMemcpyDtoDAsync_v2,
                   ((CUdeviceptr)dst, (CUdeviceptr)src, bytes, (CUstream)stream));
}

static kiln_status cuda_copy_peer(gpu_address dst, int dst_ordinal, gpu_context dst_context,
                                  gpu_address src, int src_ordinal, gpu_context src_context,
                                  size_t bytes, gpu_stream stream) {
  (void)dst_ordinal, (void)src_ordinal;
  if (!cuda_driver()->cuMemcpyPeerAsync)
    return kiln_error_set(KILN_ERROR_UNIMPLEMENTED, "cuda: the driver lacks cuMemcpyPeerAsync");
  return CUDA_CALL(cuMemcpyPeerAsync, ((CUdeviceptr)dst, (CUcontext)dst_context, (CUdeviceptr)src,
                                       (CUcontext)src_context, bytes, (CUstream)stream));
}

static kiln_status cuda_stream_create(gpu_stream *stream) {
  CUstream created = NULL;
  KILN_RETURN_IF_ERROR(CUDA_CALL(cuStreamCreate, (&created, CU_STREAM_NON_BLOCKING)));
  *stream = created;
  return KILN_OK;
}

static kiln_status cuda_stream_destroy(gpu_stream stream) {
  return CUDA_CALL(cuStreamDestroy_v2, ((CUstream)stream));
}

static kiln_status cuda_stream_synchronize(gpu_stream stream) {
  return CUDA_CALL(cuStreamSynchronize, ((CUstream)stream));
}

static kiln_status cuda_stream_wait_event(gpu_stream stream, gpu_event event) {
  return CUDA_CALL(cuStreamWaitEvent, ((CUstream)stream, (CUevent)event, 0));
}

static kiln_status cuda_event_create(gpu_event *event) {
  CUevent created = NULL;
  KILN_RETURN_IF_ERROR(CUDA_CALL(cuEventCreate, (&created, CU_EVENT_DEFAULT)));
  *event = created;
  return KILN_OK;
}

static kiln_status cuda_event_destroy(gpu_event event) {
  return CUDA_CALL(cuEventDestroy_v2, ((CUevent)event));
}

static kiln_status cuda_event_record(gpu_event event, gpu_stream stream) {
  return CUDA_CALL(cuEventRecord, ((CUevent)event, (CUstream)stream));
}

static kiln_status cuda_event_synchronize(gpu_event event) {
  return CUDA_CALL(cuEventSynchronize, ((CUevent)event));
}

static kiln_status cuda_event_elapsed_ms(gpu_event start, gpu_event end, float *ms) {
  return CUDA_CALL(cuEventElapsedTime, (ms, (CUevent)start, (CUevent)end));
}

static kiln_status cuda_compile(const char *architecture, const char *source,
                                const char *options, void **binary, size_t *size, char **log) {
  return gpu_compile(&kiln_cuda_compiler, architecture, source, options, binary, size, log);
}

static kiln_status cuda_binary_check(const void *binary, size_t size) {
  /* what cuda_compile makes: a CUBIN (ELF) or PTX text */
  if (gpu_binary_is_elf(binary, size)) return gpu_binary_check_elf(binary, size);
  return gpu_binary_check_text(binary, size);
}

static kiln_status cuda_module_load(const void *binary, gpu_module *module) {
  CUmodule loaded = NULL;
  KILN_RETURN_IF_ERROR(CUDA_CALL(cuModuleLoadData, (&loaded, binary)));
  *module = loaded;
  return KILN_OK;
}

static kiln_status cuda_module_unload(gpu_module module) {
  return CUDA_CALL(cuModuleUnload, ((CUmodule)module));
}

static kiln_status cuda_module_function(gpu_module module, const char *name,
                                        gpu_function *function) {
  CUfunction found = NULL;
  KILN_RETURN_IF_ERROR(CUDA_CALL(cuModuleGetFunction, (&found, (CUmodule)module, name)));
  *function = found;
  return KILN_OK;
}

static kiln_status cuda_function_attribute(gpu_function function,
                                           gpu_function_attribute attribute,
                                           int *value) {
  CUfunction_attribute which;
  switch (attribute) {
    case GPU_FUNCTION_MAX_THREADS_PER_BLOCK: which = CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK; break;
    case GPU_FUNCTION_STATIC_SHARED_BYTES: which = CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES; break;
    default:
      return kiln_error_set(KILN_ERROR_INTERNAL, "cuda: unknown function attribute %d",
                            (int)attribute);
  }
  return CUDA_CALL(cuFuncGetAttribute, (value, which, (CUfunction)function));
}

static kiln_status cuda_function_set_max_dynamic_shared(gpu_function function, int bytes) {
  if (!cuda_driver()->cuFuncSetAttribute)
    return kiln_error_set(KILN_ERROR_UNIMPLEMENTED,
                          "the driver lacks cuFuncSetAttribute, needed for more "
                          "than the default shared memory");
  return CUDA_CALL(cuFuncSetAttribute, ((CUfunction)function,
                                        CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                        bytes));
}

static kiln_status cuda_launch(gpu_function function, const unsigned int grid[3],
                               const unsigned int block[3], unsigned int shared_bytes,
                               gpu_stream stream, void **params) {
  return CUDA_CALL(cuLaunchKernel,
                   ((CUfunction)function, grid[0], grid[1], grid[2], block[0], block[1],
                    block[2], shared_bytes, (CUstream)stream, params, NULL));
}

const gpu_runtime kiln_cuda_gpu = {
    .name = "cuda",
    .vendor = "NVIDIA Corporation",
    .platform = "CUDA",
    .load = cuda_load,
    .load_compiler = cuda_load_compiler,
    .device_count = cuda_device_count,
    .device_name = cuda_device_name,
    .device_total_memory = cuda_device_total_memory,
    .device_attribute = cuda_device_attribute,
    .device_architecture = cuda_device_architecture,
    .versions = cuda_versions,
    .context_open = cuda_context_open,
    .context_close = cuda_context_close,
    .context_enter = cuda_context_enter,
    .context_leave = cuda_context_leave,
    .context_synchronize = cuda_context_synchronize,
    .memory_alloc = cuda_memory_alloc,
    .memory_free = cuda_memory_free,
    .host_alloc = cuda_host_alloc,
    .host_free = cuda_host_free,
    .host_register = cuda_host_register,
    .host_unregister = cuda_host_unregister,
    .copy_h2d = cuda_copy_h2d,
    .copy_d2h = cuda_copy_d2h,
    .copy_d2d = cuda_copy_d2d,
    .copy_peer = cuda_copy_peer,
    .stream_create = cuda_stream_create,
    .stream_destroy = cuda_stream_destroy,
    .stream_synchronize = cuda_stream_synchronize,
    .stream_wait_event = cuda_stream_wait_event,
    .event_create = cuda_event_create,
    .event_destroy = cuda_event_destroy,
    .event_record = cuda_event_record,
    .event_synchronize = cuda_event_synchronize,
    .event_elapsed_ms = cuda_event_elapsed_ms,
    .compile = cuda_compile,
    .binary_check = cuda_binary_check,
    .module_load = cuda_module_load,
    .module_unload = cuda_module_unload,
    .module_function = cuda_module_function,
    .function_attribute = cuda_function_attribute,
    .function_set_max_dynamic_shared = cuda_function_set_max_dynamic_shared,
    .launch = cuda_launch,
    .blas = &kiln_cuda_blas,
    .fft = &kiln_cuda_fft,
};
