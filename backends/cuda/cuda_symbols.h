/* backends/cuda/cuda_symbols.h: every CUDA Driver API and NVRTC entry point
 * the backend calls, one line each: X(return type, name, (parameters)).
 *
 * Expanded into the members of cuda_driver_symbols / cuda_nvrtc_symbols
 * (cuda_library.h) and into the resolver. Driver functions are named by
 * their versioned entry points (what cuda.h's macros such as
 * `#define cuMemAlloc cuMemAlloc_v2` resolve to), since dlsym sees no
 * macros; all the required ones exist since CUDA 11.0. A missing REQUIRED
 * symbol makes the library unusable; a missing OPTIONAL one leaves its
 * pointer NULL and the caller takes the older path. */
#ifndef KILN_BACKENDS_CUDA_SYMBOLS_H
#define KILN_BACKENDS_CUDA_SYMBOLS_H

#include "backends/cuda/cuda_types.h"

#define KILN_CUDA_DRIVER_REQUIRED(X)                                          \
  X(CUresult, cuGetErrorName, (CUresult error, const char **name))            \
  X(CUresult, cuGetErrorString, (CUresult error, const char **text))          \
  X(CUresult, cuInit, (unsigned int flags))                                   \
  X(CUresult, cuDriverGetVersion, (int *version))                             \
  X(CUresult, cuDeviceGetCount, (int *count))                                 \
  X(CUresult, cuDeviceGet, (CUdevice * device, int ordinal))                  \
  X(CUresult, cuDeviceGetName, (char *name, int length, CUdevice device))     \
  X(CUresult, cuDeviceTotalMem_v2, (size_t * bytes, CUdevice device))         \
  X(CUresult, cuDeviceGetAttribute,                                           \
    (int *value, CUdevice_attribute attribute, CUdevice device))              \
  X(CUresult, cuDevicePrimaryCtxRetain, (CUcontext * context, CUdevice device)) \
  X(CUresult, cuDevicePrimaryCtxRelease_v2, (CUdevice device))                \
  X(CUresult, cuCtxPushCurrent_v2, (CUcontext context))                       \
  X(CUresult, cuCtxPopCurrent_v2, (CUcontext * context))                      \
  X(CUresult, cuCtxSynchronize, (void))                                       \
  X(CUresult, cuMemAlloc_v2, (CUdeviceptr * address, size_t bytes))           \
  X(CUresult, cuMemFree_v2, (CUdeviceptr address))                            \
  X(CUresult, cuMemHostAlloc, (void **host, size_t bytes, unsigned int flags)) \
  X(CUresult, cuMemFreeHost, (void *host))                                    \
  X(CUresult, cuMemcpyHtoDAsync_v2,                                           \
    (CUdeviceptr dst, const void *src, size_t bytes, CUstream stream))        \
  X(CUresult, cuMemcpyDtoHAsync_v2,                                           \
    (void *dst, CUdeviceptr src, size_t bytes, CUstream stream))              \
  X(CUresult, cuMemcpyDtoDAsync_v2,                                           \
    (CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream stream))        \
  X(CUresult, cuStreamCreate, (CUstream * stream, unsigned int flags))        \
  X(CUresult, cuStreamDestroy_v2, (CUstream stream))                          \
  X(CUresult, cuStreamSynchronize, (CUstream stream))                         \
  X(CUresult, cuStreamWaitEvent,                                              \
    (CUstream stream, CUevent event, unsigned int flags))                     \
  X(CUresult, cuEventCreate, (CUevent * event, unsigned int flags))           \
  X(CUresult, cuEventDestroy_v2, (CUevent event))                             \
  X(CUresult, cuEventRecord, (CUevent event, CUstream stream))                \
  X(CUresult, cuEventSynchronize, (CUevent event))                            \
  X(CUresult, cuEventElapsedTime, (float *ms, CUevent start, CUevent end))    \
  X(CUresult, cuModuleLoadData, (CUmodule * module, const void *image))       \
  X(CUresult, cuModuleUnload, (CUmodule module))                              \
  X(CUresult, cuModuleGetFunction,                                            \
    (CUfunction * function, CUmodule module, const char *name))               \
  X(CUresult, cuFuncGetAttribute,                                             \
    (int *value, CUfunction_attribute attribute, CUfunction function))        \
  X(CUresult, cuLaunchKernel,                                                 \
    (CUfunction function, unsigned int grid_x, unsigned int grid_y,           \
     unsigned int grid_z, unsigned int block_x, unsigned int block_y,         \
     unsigned int block_z, unsigned int shared_bytes, CUstream stream,        \
     void **params, void **extra))

#define KILN_CUDA_DRIVER_OPTIONAL(X)                                          \
  /* CUDA 4.0+ (v2: 6.5+): kiln_host_register */                             \
  X(CUresult, cuMemHostRegister_v2, (void *host, size_t bytes, unsigned int flags)) \
  X(CUresult, cuMemHostUnregister, (void *host))                              \
  /* copies between devices (kiln_array_copy_to_context); else via host */   \
  X(CUresult, cuMemcpyPeerAsync,                                              \
    (CUdeviceptr dst, CUcontext dst_context, CUdeviceptr src,                 \
     CUcontext src_context, size_t bytes, CUstream stream))                   \
  /* CUDA 9.0+: without it kernels stay at the default 48 KiB of shared */    \
  X(CUresult, cuFuncSetAttribute,                                             \
    (CUfunction function, CUfunction_attribute attribute, int value))

#define KILN_NVRTC_REQUIRED(X)                                                \
  X(const char *, nvrtcGetErrorString, (nvrtcResult result))                  \
  X(nvrtcResult, nvrtcVersion, (int *major, int *minor))                      \
  X(nvrtcResult, nvrtcCreateProgram,                                          \
    (nvrtcProgram * program, const char *source, const char *name,            \
     int header_count, const char *const *headers,                            \
     const char *const *include_names))                                       \
  X(nvrtcResult, nvrtcDestroyProgram, (nvrtcProgram * program))               \
  X(nvrtcResult, nvrtcCompileProgram,                                         \
    (nvrtcProgram program, int option_count, const char *const *options))     \
  X(nvrtcResult, nvrtcGetProgramLogSize, (nvrtcProgram program, size_t * size)) \
  X(nvrtcResult, nvrtcGetProgramLog, (nvrtcProgram program, char *log))       \
  X(nvrtcResult, nvrtcGetPTXSize, (nvrtcProgram program, size_t * size))      \
  X(nvrtcResult, nvrtcGetPTX, (nvrtcProgram program, char *ptx))

#define KILN_NVRTC_OPTIONAL(X)                                                \
  /* NVRTC 11.1+: without them kiln hands PTX to the driver */                \
  X(nvrtcResult, nvrtcGetCUBINSize, (nvrtcProgram program, size_t * size))    \
  X(nvrtcResult, nvrtcGetCUBIN, (nvrtcProgram program, char *cubin))          \
  /* NVRTC 11.2+: without them kiln asks for the device's own sm_XY */       \
  X(nvrtcResult, nvrtcGetNumSupportedArchs, (int *count))                     \
  X(nvrtcResult, nvrtcGetSupportedArchs, (int *architectures))

#endif
