/* backends/hip/hip_symbols.h: every HIP runtime and hiprtc entry point the
 * backend calls, one line each: X(return type, name, (parameters)).
 *
 * Expanded into the members of hip_runtime_symbols / hip_rtc_symbols
 * (hip_library.h) and into the resolver. All the required ones exist in
 * ROCm 5.0 and later. A missing REQUIRED symbol makes the library unusable;
 * a missing OPTIONAL one leaves its pointer NULL. */
#ifndef KILN_BACKENDS_HIP_SYMBOLS_H
#define KILN_BACKENDS_HIP_SYMBOLS_H

#include "backends/hip/hip_types.h"

#define KILN_HIP_RUNTIME_REQUIRED(X)                                          \
  X(const char *, hipGetErrorName, (hipError_t error))                        \
  X(const char *, hipGetErrorString, (hipError_t error))                      \
  X(hipError_t, hipRuntimeGetVersion, (int *version))                         \
  X(hipError_t, hipDriverGetVersion, (int *version))                          \
  X(hipError_t, hipGetDeviceCount, (int *count))                              \
  X(hipError_t, hipDeviceGet, (hipDevice_t * device, int ordinal))            \
  X(hipError_t, hipDeviceGetName, (char *name, int length, hipDevice_t device)) \
  X(hipError_t, hipDeviceTotalMem, (size_t * bytes, hipDevice_t device))      \
  X(hipError_t, hipDeviceGetAttribute,                                        \
    (int *value, hipDeviceAttribute_t attribute, int ordinal))                \
  X(hipError_t, hipSetDevice, (int ordinal))                                  \
  X(hipError_t, hipDeviceSynchronize, (void))                                 \
  X(hipError_t, hipMalloc, (void **pointer, size_t bytes))                    \
  X(hipError_t, hipFree, (void *pointer))                                     \
  X(hipError_t, hipHostMalloc, (void **pointer, size_t bytes, unsigned int flags)) \
  X(hipError_t, hipHostFree, (void *pointer))                                 \
  X(hipError_t, hipMemcpyHtoDAsync,                                           \
    (hipDeviceptr_t dst, void *src, size_t bytes, hipStream_t stream))        \
  X(hipError_t, hipMemcpyDtoHAsync,                                           \
    (void *dst, hipDeviceptr_t src, size_t bytes, hipStream_t stream))        \
  X(hipError_t, hipMemcpyDtoDAsync,                                           \
    (hipDeviceptr_t dst, hipDeviceptr_t src, size_t bytes, hipStream_t stream)) \
  X(hipError_t, hipStreamCreateWithFlags, (hipStream_t * stream, unsigned int flags)) \
  X(hipError_t, hipStreamDestroy, (hipStream_t stream))                       \
  X(hipError_t, hipStreamSynchronize, (hipStream_t stream))                   \
  X(hipError_t, hipStreamWaitEvent,                                           \
    (hipStream_t stream, hipEvent_t event, unsigned int flags))               \
  X(hipError_t, hipEventCreateWithFlags, (hipEvent_t * event, unsigned int flags)) \
  X(hipError_t, hipEventDestroy, (hipEvent_t event))                          \
  X(hipError_t, hipEventRecord, (hipEvent_t event, hipStream_t stream))       \
  X(hipError_t, hipEventSynchronize, (hipEvent_t event))                      \
  X(hipError_t, hipEventElapsedTime, (float *ms, hipEvent_t start, hipEvent_t end)) \
  X(hipError_t, hipModuleLoadData, (hipModule_t * module, const void *image)) \
  X(hipError_t, hipModuleUnload, (hipModule_t module))                        \
  X(hipError_t, hipModuleGetFunction,                                         \
    (hipFunction_t * function, hipModule_t module, const char *name))         \
  X(hipError_t, hipFuncGetAttribute,                                          \
    (int *value, hipFunction_attribute attribute, hipFunction_t function))    \
  X(hipError_t, hipModuleLaunchKernel,                                        \
    (hipFunction_t function, unsigned int grid_x, unsigned int grid_y,        \
     unsigned int grid_z, unsigned int block_x, unsigned int block_y,         \
     unsigned int block_z, unsigned int shared_bytes, hipStream_t stream,     \
     void **params, void **extra))

/* The device properties, read only for gcnArchName (hip_types.h): one of
 * the two layouts must be there. */
#define KILN_HIP_RUNTIME_OPTIONAL(X)                                          \
  X(hipError_t, hipHostRegister, (void *host, size_t bytes, unsigned int flags)) \
  X(hipError_t, hipHostUnregister, (void *host))                              \
  X(hipError_t, hipMemcpyPeerAsync,                                           \
    (void *dst, int dst_device, const void *src, int src_device, size_t bytes, \
     hipStream_t stream))                                                     \
  X(hipError_t, hipGetDevicePropertiesR0600, (void *properties, int ordinal)) \
  X(hipError_t, hipGetDeviceProperties, (void *properties, int ordinal))

#define KILN_HIPRTC_REQUIRED(X)                                               \
  X(const char *, hiprtcGetErrorString, (hiprtcResult result))                \
  X(hiprtcResult, hiprtcCreateProgram,                                        \
    (hiprtcProgram * program, const char *source, const char *name,           \
     int header_count, const char *const *headers,                            \
     const char *const *include_names))                                       \
  X(hiprtcResult, hiprtcDestroyProgram, (hiprtcProgram * program))            \
  X(hiprtcResult, hiprtcCompileProgram,                                       \
    (hiprtcProgram program, int option_count, const char *const *options))    \
  X(hiprtcResult, hiprtcGetProgramLogSize, (hiprtcProgram program, size_t * size)) \
  X(hiprtcResult, hiprtcGetProgramLog, (hiprtcProgram program, char *log))    \
  X(hiprtcResult, hiprtcGetCodeSize, (hiprtcProgram program, size_t * size))  \
  X(hiprtcResult, hiprtcGetCode, (hiprtcProgram program, char *code))

#define KILN_HIPRTC_OPTIONAL(X)                                               \
  X(hiprtcResult, hiprtcVersion, (int *major, int *minor))

#endif
