/* backends/hip/hip_runtime.c: the HIP runtime behind the shared gpu_runtime
 * table, one small wrapper per call.
 *
 * HIP has no context to push: every call first makes the device current on
 * the calling thread (hipSetDevice), so any thread may call. Device
 * addresses are pointers in HIP and 64-bit integers in the shared layer. */
#include "backends/hip/hip_backend.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/gpu/gpu_binary.h"
#include "backends/hip/hip_status.h"

static hipDeviceptr_t device_pointer(gpu_address address) {
  return (hipDeviceptr_t)(uintptr_t)address;
}

static kiln_status hip_load(void) {
  const hip_runtime_symbols *runtime = NULL;
  return hip_runtime_load(&runtime);
}

static kiln_status hip_load_compiler(void) {
  const hip_rtc_symbols *rtc = NULL;
  return hip_rtc_load(&rtc);
}

static kiln_status hip_device_count(int *count) {
  /* on a machine without an AMD GPU this is hipErrorNoDevice, quietly */
  return HIP_CALL(hipGetDeviceCount, (count));
}

static kiln_status hip_device(int ordinal, hipDevice_t *device) {
  return HIP_CALL(hipDeviceGet, (device, ordinal));
}

static kiln_status hip_device_name(int ordinal, char *name, size_t size) {
  hipDevice_t device;
  KILN_RETURN_IF_ERROR(hip_device(ordinal, &device));
  return HIP_CALL(hipDeviceGetName, (name, (int)size, device));
}

static kiln_status hip_device_total_memory(int ordinal, uint64_t *bytes) {
  hipDevice_t device;
  size_t total = 0;
  KILN_RETURN_IF_ERROR(hip_device(ordinal, &device));
  KILN_RETURN_IF_ERROR(HIP_CALL(hipDeviceTotalMem, (&total, device)));
  *bytes = total;
  return KILN_OK;
}

static kiln_status hip_device_attribute(int ordinal, gpu_device_attribute attribute,
                                        int *value) {
  hipDeviceAttribute_t which;
  switch (attribute) {
    case GPU_DEVICE_COMPUTE_UNITS: which = hipDeviceAttributeMultiprocessorCount; break;
    case GPU_DEVICE_MAX_THREADS_PER_BLOCK: which = hipDeviceAttributeMaxThreadsPerBlock; break;
    case GPU_DEVICE_MAX_SHARED_PER_BLOCK:
    case GPU_DEVICE_MAX_SHARED_PER_BLOCK_OPTIN: /* AMD has no opt-in */
      which = hipDeviceAttributeMaxSharedMemoryPerBlock;
      break;
    case GPU_DEVICE_WARP_SIZE: which = hipDeviceAttributeWarpSize; break;
    case GPU_DEVICE_L2_CACHE_BYTES: which = hipDeviceAttributeL2CacheSize; break;
    default:
      return kiln_error_set(KILN_ERROR_INTERNAL, "hip: unknown device attribute %d",
                            (int)attribute);
  }
  return HIP_CALL(hipDeviceGetAttribute, (value, which, ordinal));
}

/* gcnArchName, the one property no attribute gives (hip_types.h). */
static kiln_status hip_device_architecture(int ordinal, char *architecture, size_t size) {
  const hip_runtime_symbols *runtime = hip_runtime();
  unsigned char *properties = calloc(1, KILN_HIP_PROPERTIES_BUFFER);
  if (!properties)
    return kiln_error_set(KILN_ERROR_OUT_OF_MEMORY, "out of host memory for properties");
  size_t offset;
  kiln_status status;
  if (runtime->hipGetDevicePropertiesR0600) {
    offset = KILN_HIP_R0600_GCN_ARCH_NAME_OFFSET;
    status = HIP_CALL(hipGetDevicePropertiesR0600, (properties, ordinal));
  } else {
    offset = KILN_HIP_R0000_GCN_ARCH_NAME_OFFSET;
    status = HIP_CALL(hipGetDeviceProperties, (properties, ordinal));
  }
  if (status == KILN_OK) {
    const char *name = (const char *)properties + offset;
    size_t length = strnlen(name, KILN_HIP_GCN_ARCH_NAME_SIZE);
    /* a layout kiln does not know shows up here, not as a wrong target */
    if (length == KILN_HIP_GCN_ARCH_NAME_SIZE || strncmp(name, "gfx", 3) != 0 ||
        length >= size)
      status = kiln_error_set(KILN_ERROR_UNAVAILABLE,
                              "hip: cannot read device %d's architecture: the "
                              "properties of this HIP runtime have an unknown layout",
                              ordinal);
    else
      memcpy(architecture, name, length + 1);
  }
  free(properties);
  return status;
}

/* Formats a HIP version number (major * 10^7 + minor * 10^5 + patch). */
static void format_version(char *text, size_t size, int version) {
  snprintf(text, size, "%d.%d.%d", version / 10000000, version / 100000 % 100,
           version % 100000);
}

static kiln_status hip_versions(char *text, size_t size) {
  int runtime = 0, driver = 0, rtc_major = 0, rtc_minor = 0;
  char runtime_text[32], driver_text[32];
  KILN_RETURN_IF_ERROR(HIP_CALL(hipRuntimeGetVersion, (&runtime)));
  KILN_RETURN_IF_ERROR(HIP_CALL(hipDriverGetVersion, (&driver)));
  /* the compiler's version keys the disk cache too (device_fingerprint);
   * hiprtcVersion is optional, and absent reads as 0.0 */
  if (hip_rtc()->hiprtcVersion)
    KILN_RETURN_IF_ERROR(HIPRTC_CALL(hiprtcVersion, (&rtc_major, &rtc_minor)));
  format_version(runtime_text, sizeof runtime_text, runtime);
  format_version(driver_text, sizeof driver_text, driver);
  snprintf(text, size, "HIP %s runtime, %s driver, hiprtc %d.%d", runtime_text, driver_text,
           rtc_major, rtc_minor);
  return KILN_OK;
}

static kiln_status hip_context_open(int ordinal, gpu_context *context) {
  (void)ordinal;
  *context = NULL;
  return KILN_OK;
}

static void hip_context_close(int ordinal, gpu_context context) {
  (void)ordinal;
  (void)context;
}

static kiln_status hip_context_enter(int ordinal, gpu_context context) {
  (void)context;
  return HIP_CALL(hipSetDevice, (ordinal));
}

static void hip_context_leave(gpu_context context) { (void)context; }

static kiln_status hip_context_synchronize(void) {
  return HIP_CALL(hipDeviceSynchronize, ());
}

static kiln_status hip_memory_alloc(size_t bytes, gpu_address *address) {
  void *pointer = NULL;
  KILN_RETURN_IF_ERROR(HIP_CALL(hipMalloc, (&pointer, bytes)));
  *address = (gpu_address)(uintptr_t)pointer;
  return KILN_OK;
}

static kiln_status hip_memory_free(gpu_address address) {
  return HIP_CALL(hipFree, (device_pointer(address)));
}

static kiln_status hip_host_alloc(size_t bytes, void **host) {
  return HIP_CALL(hipHostMalloc, (host, bytes, hipHostMallocDefault));
}

static kiln_status hip_host_free(void *host) {
  return HIP_CALL(hipHostFree, (host));
}

static kiln_status hip_host_register(void *host, size_t bytes) {
  if (!hip_runtime()->hipHostRegister || !hip_runtime()->hipHostUnregister)
    return kiln_error_set(KILN_ERROR_UNIMPLEMENTED,
                          "the runtime lacks hipHostRegister / hipHostUnregister");
  return HIP_CALL(hipHostRegister, (host, bytes, hipHostRegisterDefault));
}

static kiln_status hip_host_unregister(void *host) {
  if (!hip_runtime()->hipHostUnregister)
    return kiln_error_set(KILN_ERROR_UNIMPLEMENTED, "the runtime lacks hipHostUnregister");
  return HIP_CALL(hipHostUnregister, (host));
}

static kiln_status hip_copy_h2d(gpu_address dst, const void *src, size_t bytes,
                                gpu_stream stream) {
  /* ROCm 5 declares src non-const; it only reads it */
  return HIP_CALL(hipMemcpyHtoDAsync, (device_pointer(dst), (void *)(uintptr_t)src,
                                       bytes, (hipStream_t)stream));
}

static kiln_status hip_copy_d2h(void *dst, gpu_address src, size_t bytes,
                                gpu_stream stream) {
  return HIP_CALL(hipMemcpyDtoHAsync, (dst, device_pointer(src), bytes, (hipStream_t)stream));
}

static kiln_status hip_copy_d2d(gpu_address dst, gpu_address src, size_t bytes,
                                gpu_stream stream) {
  return HIP_CALL(hipMemcpyDtoDAsync, (device_pointer(dst), device_pointer(src), bytes,
                                       (hipStream_t)stream));
}

static kiln_status hip_copy_peer(gpu_address dst, int dst_ordinal, gpu_context dst_context,
                                 gpu_address src, int src_ordinal, gpu_context src_context,
                                 size_t bytes, gpu_stream stream) {
  (void)dst_context, (void)src_context;
  if (!hip_runtime()->hipMemcpyPeerAsync)
    return kiln_error_set(KILN_ERROR_UNIMPLEMENTED, "hip: the runtime lacks hipMemcpyPeerAsync");
  return HIP_CALL(hipMemcpyPeerAsync, ((void *)(uintptr_t)dst, dst_ordinal,
                                       (const void *)(uintptr_t)src, src_ordinal, bytes,
                                       (hipStream_t)stream));
}

static kiln_status hip_stream_create(gpu_stream *stream) {
  hipStream_t created = NULL;
  KILN_RETURN_IF_ERROR(HIP_CALL(hipStreamCreateWithFlags, (&created, hipStreamNonBlocking)));
  *stream = created;
  return KILN_OK;
}

static kiln_status hip_stream_destroy(gpu_stream stream) {
  return HIP_CALL(hipStreamDestroy, ((hipStream_t)stream));
}

static kiln_status hip_stream_synchronize(gpu_stream stream) {
  return HIP_CALL(hipStreamSynchronize, ((hipStream_t)stream));
}

static kiln_status hip_stream_wait_event(gpu_stream stream, gpu_event event) {
  return HIP_CALL(hipStreamWaitEvent, ((hipStream_t)stream, (hipEvent_t)event, 0));
}

static kiln_status hip_event_create(gpu_event *event) {
  hipEvent_t created = NULL;
  KILN_RETURN_IF_ERROR(HIP_CALL(hipEventCreateWithFlags, (&created, hipEventDefault)));
  *event = created;
  return KILN_OK;
}

static kiln_status hip_event_destroy(gpu_event event) {
  return HIP_CALL(hipEventDestroy, ((hipEvent_t)event));
}

static kiln_status hip_event_record(gpu_event event, gpu_stream stream) {
  return HIP_CALL(hipEventRecord, ((hipEvent_t)event, (hipStream_t)stream));
}

static kiln_status hip_event_synchronize(gpu_event event) {
  return HIP_CALL(hipEventSynchronize, ((hipEvent_t)event));
}

static kiln_status hip_event_elapsed_ms(gpu_event start, gpu_event end, float *ms) {
  return HIP_CALL(hipEventElapsedTime, (ms, (hipEvent_t)start, (hipEvent_t)end));
}

static kiln_status hip_compile(const char *architecture, const char *source,
                               const char *options, void **binary, size_t *size, char **log) {
  return gpu_compile(&kiln_hip_compiler, architecture, source, options, binary, size, log);
}

static kiln_status hip_binary_check(const void *binary, size_t size) {
  /* hiprtc returns an ELF code object; some releases wrap it in a bundle */
  if (gpu_binary_is_offload_bundle(binary, size))
    return gpu_binary_check_offload_bundle(binary, size);
  return gpu_binary_check_elf(binary, size);
}

static kiln_status hip_module_load(const void *binary, gpu_module *module) {
  hipModule_t loaded = NULL;
  KILN_RETURN_IF_ERROR(HIP_CALL(hipModuleLoadData, (&loaded, binary)));
  *module = loaded;
  return KILN_OK;
}

static kiln_status hip_module_unload(gpu_module module) {
  return HIP_CALL(hipModuleUnload, ((hipModule_t)module));
}

static kiln_status hip_module_function(gpu_module module, const char *name,
                                       gpu_function *function) {
  hipFunction_t found = NULL;
  KILN_RETURN_IF_ERROR(HIP_CALL(hipModuleGetFunction, (&found, (hipModule_t)module, name)));
  *function = found;
  return KILN_OK;
}

static kiln_status hip_function_attribute(gpu_function function,
                                          gpu_function_attribute attribute, int *value) {
  hipFunction_attribute which;
  switch (attribute) {
    case GPU_FUNCTION_MAX_THREADS_PER_BLOCK: which = HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK; break;
    case GPU_FUNCTION_STATIC_SHARED_BYTES: which = HIP_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES; break;
    default:
      return kiln_error_set(KILN_ERROR_INTERNAL, "hip: unknown function attribute %d",
                            (int)attribute);
  }
  return HIP_CALL(hipFuncGetAttribute, (value, which, (hipFunction_t)function));
}

static kiln_status hip_launch(gpu_function function, const unsigned int grid[3],
                              const unsigned int block[3], unsigned int shared_bytes,
                              gpu_stream stream, void **params) {
  return HIP_CALL(hipModuleLaunchKernel,
                  ((hipFunction_t)function, grid[0], grid[1], grid[2], block[0], block[1],
                   block[2], shared_bytes, (hipStream_t)stream, params, NULL));
}

const gpu_runtime kiln_hip_gpu = {
    .name = "hip",
    .vendor = "Advanced Micro Devices, Inc.",
    .platform = "HIP",
    .load = hip_load,
    .load_compiler = hip_load_compiler,
    .device_count = hip_device_count,
    .device_name = hip_device_name,
    .device_total_memory = hip_device_total_memory,
    .device_attribute = hip_device_attribute,
    .device_architecture = hip_device_architecture,
    .versions = hip_versions,
    .context_open = hip_context_open,
    .context_close = hip_context_close,
    .context_enter = hip_context_enter,
    .context_leave = hip_context_leave,
    .context_synchronize = hip_context_synchronize,
    .memory_alloc = hip_memory_alloc,
    .memory_free = hip_memory_free,
    .host_alloc = hip_host_alloc,
    .host_free = hip_host_free,
    .host_register = hip_host_register,
    .host_unregister = hip_host_unregister,
    .copy_h2d = hip_copy_h2d,
    .copy_d2h = hip_copy_d2h,
    .copy_d2d = hip_copy_d2d,
    .copy_peer = hip_copy_peer,
    .stream_create = hip_stream_create,
    .stream_destroy = hip_stream_destroy,
    .stream_synchronize = hip_stream_synchronize,
    .stream_wait_event = hip_stream_wait_event,
    .event_create = hip_event_create,
    .event_destroy = hip_event_destroy,
    .event_record = hip_event_record,
    .event_synchronize = hip_event_synchronize,
    .event_elapsed_ms = hip_event_elapsed_ms,
    .compile = hip_compile,
    .binary_check = hip_binary_check,
    .module_load = hip_module_load,
    .module_unload = hip_module_unload,
    .module_function = hip_module_function,
    .function_attribute = hip_function_attribute,
    .function_set_max_dynamic_shared = NULL, /* AMD has no opt-in */
    .launch = hip_launch,
    .blas = &kiln_hip_blas,
    .fft = &kiln_hip_fft,
};
