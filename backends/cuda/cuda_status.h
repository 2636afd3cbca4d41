/* backends/cuda/cuda_status.h: CUDA and NVRTC error codes as kiln statuses
 * (internal to backends/cuda). */
#ifndef KILN_BACKENDS_CUDA_STATUS_H
#define KILN_BACKENDS_CUDA_STATUS_H

#include "backends/cuda/cuda_library.h"
#include "core/runtime/error.h"

/* KILN_OK for CUDA_SUCCESS; otherwise the matching status (OUT_OF_MEMORY,
 * UNAVAILABLE for no device / no usable driver, NOT_FOUND, ...) with the
 * detail "<call>: <CUDA_ERROR_NAME> (<the driver's description>)". */
kiln_status cuda_result_status(CUresult result, const char *call);

/* Likewise for NVRTC: "<call>: <NVRTC_ERROR_NAME>". */
kiln_status cuda_nvrtc_status(nvrtcResult result, const char *call);

/* Calls the driver entry point `name` with the parenthesised args and turns
 * its CUresult into a kiln_status naming the call (the driver must have been
 * loaded). The one way backends/cuda calls the driver. */
#define CUDA_CALL(name, args) cuda_result_status(cuda_driver()->name args, #name)

/* The same for NVRTC. */
#define NVRTC_CALL(name, args) cuda_nvrtc_status(cuda_nvrtc()->name args, #name)

#endif
