/* backends/hip/hip_types.h: the few HIP runtime and hiprtc types and
 * constants the backend uses, declared here so that no ROCm header is
 * needed to build (internal to backends/hip). Values are those of ROCm's
 * hip_runtime_api.h and hiprtc.h; the attribute numbers used below are the
 * same in ROCm 5, 6 and 7 (later releases renamed only unused entries). */
#ifndef KILN_BACKENDS_HIP_TYPES_H
#define KILN_BACKENDS_HIP_TYPES_H

#include <stddef.h>

typedef int hipError_t; /* an enum in hip_runtime_api.h: int-sized */
typedef int hipDevice_t;
typedef void *hipDeviceptr_t;
typedef struct ihipStream_t *hipStream_t;
typedef struct ihipEvent_t *hipEvent_t;
typedef struct ihipModule_t *hipModule_t;
typedef struct ihipModuleSymbol_t *hipFunction_t;
typedef int hipDeviceAttribute_t;
typedef int hipFunction_attribute;

enum {
  hipSuccess = 0,
  hipErrorInvalidValue = 1,
  hipErrorOutOfMemory = 2,
  hipErrorNotInitialized = 3,
  hipErrorDeinitialized = 4,
  hipErrorInsufficientDriver = 35,
  hipErrorNoDevice = 100,
  hipErrorInvalidDevice = 101,
  hipErrorInvalidImage = 200,
  hipErrorNoBinaryForGpu = 209,
  hipErrorInvalidKernelFile = 218,
  hipErrorInvalidHandle = 400,
  hipErrorNotFound = 500,
  hipErrorLaunchOutOfResources = 701,
  hipErrorNotSupported = 801
};

enum {
  hipDeviceAttributeL2CacheSize = 19,
  hipDeviceAttributeMaxThreadsPerBlock = 56,
  hipDeviceAttributeMultiprocessorCount = 63,
  hipDeviceAttributeMaxSharedMemoryPerBlock = 74,
  hipDeviceAttributeWarpSize = 87
};

enum {
  HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0,
  HIP_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1
};

#define hipStreamNonBlocking 0x1u
#define hipEventDefault 0x0u
#define hipHostRegisterDefault 0x0u
#define hipHostMallocDefault 0x0u /* mapped and portable */

/* hipDeviceProp_t is read as bytes, only for gcnArchName (char[256]), the
 * one property no attribute gives: ROCm 6+ export the R0600 layout as
 * hipGetDevicePropertiesR0600 (gcnArchName at byte 1160 of 1472), ROCm 5
 * the older layout as hipGetDeviceProperties (at byte 396 of 792). Both
 * offsets are those of x86-64 builds of ROCm's own headers. */
#define KILN_HIP_PROPERTIES_BUFFER 4096u
#define KILN_HIP_R0600_GCN_ARCH_NAME_OFFSET 1160u
#define KILN_HIP_R0000_GCN_ARCH_NAME_OFFSET 396u
#define KILN_HIP_GCN_ARCH_NAME_SIZE 256u

typedef struct _hiprtcProgram *hiprtcProgram;
typedef int hiprtcResult; /* an enum in hiprtc.h: int-sized */

enum {
  HIPRTC_SUCCESS = 0,
  HIPRTC_ERROR_OUT_OF_MEMORY = 1,
  HIPRTC_ERROR_PROGRAM_CREATION_FAILURE = 2,
  HIPRTC_ERROR_INVALID_INPUT = 3,
  HIPRTC_ERROR_INVALID_PROGRAM = 4,
  HIPRTC_ERROR_INVALID_OPTION = 5,
  HIPRTC_ERROR_COMPILATION = 6,
  HIPRTC_ERROR_BUILTIN_OPERATION_FAILURE = 7
};

#endif
