/* backends/hip/hip_status.h: HIP and hiprtc error codes as kiln statuses
 * (internal to backends/hip). */
#ifndef KILN_BACKENDS_HIP_STATUS_H
#define KILN_BACKENDS_HIP_STATUS_H

#include "backends/hip/hip_library.h"
#include "core/runtime/error.h"

/* KILN_OK for hipSuccess; otherwise the matching status (OUT_OF_MEMORY,
 * UNAVAILABLE for no device / no driver, NOT_FOUND, ...) with the detail
 * "<call>: <hipErrorName> (<the runtime's description>)". */
kiln_status hip_error_status(hipError_t error, const char *call);

/* Likewise for hiprtc: "<call>: <HIPRTC_ERROR_NAME>". */
kiln_status hip_rtc_status(hiprtcResult result, const char *call);

/* Calls the runtime entry point `name` with the parenthesised args and turns
 * its hipError_t into a kiln_status naming the call (the runtime must have
 * been loaded). The one way backends/hip calls the runtime. */
#define HIP_CALL(name, args) hip_error_status(hip_runtime()->name args, #name)

/* The same for hiprtc. */
#define HIPRTC_CALL(name, args) hip_rtc_status(hip_rtc()->name args, #name)

#endif
