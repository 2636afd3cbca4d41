/* backends/cuda/cuda_status.c: CUresult and nvrtcResult to kiln_status. */
#include "backends/cuda/cuda_status.h"

static kiln_status status_of_result(CUresult result) {
  switch (result) {
    case CUDA_SUCCESS:
      return KILN_OK;
    case CUDA_ERROR_OUT_OF_MEMORY:
      return KILN_ERROR_OUT_OF_MEMORY;
    case CUDA_ERROR_NOT_INITIALIZED:
    case CUDA_ERROR_DEINITIALIZED:
    case CUDA_ERROR_STUB_LIBRARY:
    case CUDA_ERROR_INSUFFICIENT_DRIVER:
    case CUDA_ERROR_DEVICE_UNAVAILABLE:
    case CUDA_ERROR_NO_DEVICE:
    case CUDA_ERROR_SYSTEM_NOT_READY:
    case CUDA_ERROR_SYSTEM_DRIVER_MISMATCH:
    case CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE:
      return KILN_ERROR_UNAVAILABLE;
    case CUDA_ERROR_INVALID_VALUE:
    case CUDA_ERROR_INVALID_DEVICE:
    case CUDA_ERROR_INVALID_HANDLE:
    case CUDA_ERROR_INVALID_IMAGE:
    case CUDA_ERROR_NO_BINARY_FOR_GPU:
      return KILN_ERROR_INVALID_ARGUMENT;
    case CUDA_ERROR_INVALID_PTX:
    case CUDA_ERROR_UNSUPPORTED_PTX_VERSION:
    case CUDA_ERROR_JIT_COMPILER_NOT_FOUND:
    case CUDA_ERROR_JIT_COMPILATION_DISABLED:
      return KILN_ERROR_COMPILE;
    case CUDA_ERROR_NOT_FOUND:
      return KILN_ERROR_NOT_FOUND;
    case CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES:
      return KILN_ERROR_OUT_OF_RANGE;
    case CUDA_ERROR_NOT_SUPPORTED:
      return KILN_ERROR_UNIMPLEMENTED;
    default:
      return KILN_ERROR_DEVICE;
  }
}

kiln_status cuda_result_status(CUresult result, const char *call) {
  kiln_status status = status_of_result(result);
  if (status == KILN_OK) return KILN_OK;
  const char *name = NULL, *text = NULL;
  const cuda_driver_symbols *driver = cuda_driver();
  if (driver->cuGetErrorName && driver->cuGetErrorName(result, &name) != CUDA_SUCCESS)
    name = NULL;
  if (driver->cuGetErrorString && driver->cuGetErrorString(result, &text) != CUDA_SUCCESS)
    text = NULL;
  if (name)
    return kiln_error_set(status, "%s: %s (%s)", call, name,
                          text ? text : "no description");
  return kiln_error_set(status, "%s: CUresult %d (unknown to this driver)", call,
                        (int)result);
}

static kiln_status status_of_nvrtc(nvrtcResult result) {
  switch (result) {
    case NVRTC_SUCCESS:
      return KILN_OK;
    case NVRTC_ERROR_OUT_OF_MEMORY:
      return KILN_ERROR_OUT_OF_MEMORY;
    case NVRTC_ERROR_COMPILATION:
      return KILN_ERROR_COMPILE;
    case NVRTC_ERROR_INVALID_OPTION:
    case NVRTC_ERROR_INVALID_INPUT:
      return KILN_ERROR_INVALID_ARGUMENT;
    case NVRTC_ERROR_BUILTIN_OPERATION_FAILURE:
      return KILN_ERROR_UNAVAILABLE; /* its builtins library is missing */
    default:
      return KILN_ERROR_INTERNAL;
  }
}

kiln_status cuda_nvrtc_status(nvrtcResult result, const char *call) {
  kiln_status status = status_of_nvrtc(result);
  if (status == KILN_OK) return KILN_OK;
  const cuda_nvrtc_symbols *nvrtc = cuda_nvrtc();
  const char *name = nvrtc->nvrtcGetErrorString ? nvrtc->nvrtcGetErrorString(result) : NULL;
  if (name) return kiln_error_set(status, "%s: %s", call, name);
  return kiln_error_set(status, "%s: nvrtcResult %d", call, (int)result);
}
