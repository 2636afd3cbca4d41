/* backends/opencl/opencl_status.h: OpenCL result codes as kiln statuses
 * (internal to the OpenCL backend). */
#ifndef KILN_BACKENDS_OPENCL_STATUS_H
#define KILN_BACKENDS_OPENCL_STATUS_H

#include "backends/opencl/opencl_types.h"
#include "core/runtime/error.h"

/* The Khronos name of an OpenCL result code ("CL_OUT_OF_RESOURCES"), or
 * "CL_UNKNOWN_ERROR" for a code it does not know. Never NULL. */
const char *kiln_opencl_error_name(cl_int code);

/* The kiln status a failed OpenCL call maps to (KILN_OK for CL_SUCCESS). */
kiln_status kiln_opencl_status_of(cl_int code);

/* KILN_OK when code is CL_SUCCESS. Otherwise sets the error detail to
 * "opencl: <call> failed with <CL_NAME> (<code>) while <what>" and returns
 * kiln_opencl_status_of(code). */
kiln_status kiln_opencl_check(cl_int code, const char *call, const char *what_format,
                              ...) KILN_PRINTF(3, 4);

/* The backend's one way of turning an OpenCL result code into a status:
 *   status = KILN_CL_STATUS(err, clCreateBuffer, "allocating %zu bytes", n);
 * `call` is the bare name of the OpenCL function that produced `code`. */
#define KILN_CL_STATUS(code, call, ...) kiln_opencl_check((code), #call, __VA_ARGS__)

/* Calls `symbols->call args` and converts its result with KILN_CL_STATUS:
 *   status = KILN_CL_CALL(cl, clFinish, (queue), "waiting for a stream");  */
#define KILN_CL_CALL(symbols, call, args, ...) \
  KILN_CL_STATUS((symbols)->call args, call, __VA_ARGS__)

#endif
