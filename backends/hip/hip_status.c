/* backends/hip/hip_status.c: hipError_t and hiprtcResult to kiln_status. */
#include "backends/hip/hip_status.h"

#include <string.h>

static kiln_status status_of_error(hipError_t error) {
  switch (error) {
    case hipSuccess:
      return KILN_OK;
    case hipErrorOutOfMemory:
      return KILN_ERROR_OUT_OF_MEMORY;
    case hipErrorNotInitialized:
    case hipErrorDeinitialized:
    case hipErrorInsufficientDriver:
    case hipErrorNoDevice:
      return KILN_ERROR_UNAVAILABLE;
    case hipErrorInvalidValue:
    case hipErrorInvalidDevice:
    case hipErrorInvalidHandle:
    case hipErrorInvalidImage:
    case hipErrorNoBinaryForGpu:
    case hipErrorInvalidKernelFile:
      return KILN_ERROR_INVALID_ARGUMENT;
    case hipErrorNotFound:
      return KILN_ERROR_NOT_FOUND;
    case hipErrorLaunchOutOfResources:
      return KILN_ERROR_OUT_OF_RANGE;
    case hipErrorNotSupported:
      return KILN_ERROR_UNIMPLEMENTED;
    default:
      return KILN_ERROR_DEVICE;
  }
}

kiln_status hip_error_status(hipError_t error, const char *call) {
  kiln_status status = status_of_error(error);
  if (status == KILN_OK) return KILN_OK;
  const hip_runtime_symbols *runtime = hip_runtime();
  const char *name = runtime->hipGetErrorName ? runtime->hipGetErrorName(error) : NULL;
  const char *text = runtime->hipGetErrorString ? runtime->hipGetErrorString(error) : NULL;
  if (!name) return kiln_error_set(status, "%s: hipError_t %d", call, (int)error);
  /* some ROCm releases describe an error by its name alone */
  if (!text || strcmp(text, name) == 0) return kiln_error_set(status, "%s: %s", call, name);
  return kiln_error_set(status, "%s: %s (%s)", call, name, text);
}

static kiln_status status_of_rtc(hiprtcResult result) {
  switch (result) {
    case HIPRTC_SUCCESS:
      return KILN_OK;
    case HIPRTC_ERROR_OUT_OF_MEMORY:
      return KILN_ERROR_OUT_OF_MEMORY;
    case HIPRTC_ERROR_COMPILATION:
      return KILN_ERROR_COMPILE;
    case HIPRTC_ERROR_INVALID_OPTION:
    case HIPRTC_ERROR_INVALID_INPUT:
      return KILN_ERROR_INVALID_ARGUMENT;
    case HIPRTC_ERROR_BUILTIN_OPERATION_FAILURE:
      return KILN_ERROR_UNAVAILABLE;
    default:
      return KILN_ERROR_INTERNAL;
  }
}

kiln_status hip_rtc_status(hiprtcResult result, const char *call) {
  kiln_status status = status_of_rtc(result);
  if (status == KILN_OK) return KILN_OK;
  const hip_rtc_symbols *rtc = hip_rtc();
  const char *name = rtc->hiprtcGetErrorString ? rtc->hiprtcGetErrorString(result) : NULL;
  if (name) return kiln_error_set(status, "%s: %s", call, name);
  return kiln_error_set(status, "%s: hiprtcResult %d", call, (int)result);
}
