/* backends/opencl/opencl_fft_symbols.h: the clFFT entry points the OpenCL
 * backend calls, one line each: X(return type, name, (parameters)), with
 * clFFT's few types and enum values re-declared (clFFT.h 2.12, ABI), so
 * building needs no clFFT headers. All are required. */
#ifndef KILN_BACKENDS_OPENCL_FFT_SYMBOLS_H
#define KILN_BACKENDS_OPENCL_FFT_SYMBOLS_H

#include "backends/opencl/opencl_types.h"

typedef float cl_float; /* not in opencl_types.h */
typedef int clfftStatus;      /* 0 success; OpenCL codes; clFFT's own from 4096 */
typedef size_t clfftPlanHandle;
typedef struct kiln_clfft_setup_data {
  cl_uint major, minor, patch;
  cl_ulong debug_flags;
} kiln_clfft_setup_data;
#define KILN_CLFFT_NOTIMPLEMENTED 4097
#define KILN_CLFFT_DEVICE_NO_DOUBLE 4103
#define KILN_CLFFT_1D 1
#define KILN_CLFFT_SINGLE 1
#define KILN_CLFFT_DOUBLE 2
#define KILN_CLFFT_FORWARD (-1)
#define KILN_CLFFT_BACKWARD 1
#define KILN_CLFFT_COMPLEX_INTERLEAVED 1
#define KILN_CLFFT_HERMITIAN_INTERLEAVED 3
#define KILN_CLFFT_REAL 5
#define KILN_CLFFT_OUTOFPLACE 2

#define KILN_CLFFT_REQUIRED_SYMBOLS(X)                                                   \
  X(clfftStatus, clfftGetVersion, (cl_uint * major, cl_uint * minor, cl_uint * patch))   \
  X(clfftStatus, clfftSetup, (const kiln_clfft_setup_data *setup))                      \
  X(clfftStatus, clfftTeardown, (void))                                                  \
  X(clfftStatus, clfftCreateDefaultPlan,                                                 \
    (clfftPlanHandle * plan, cl_context context, int dim, const size_t *lengths))        \
  X(clfftStatus, clfftSetPlanPrecision, (clfftPlanHandle plan, int precision))           \
  X(clfftStatus, clfftSetLayout, (clfftPlanHandle plan, int in_layout, int out_layout))  \
  X(clfftStatus, clfftSetResultLocation, (clfftPlanHandle plan, int location))           \
  X(clfftStatus, clfftSetPlanBatchSize, (clfftPlanHandle plan, size_t batch))            \
  X(clfftStatus, clfftSetPlanDistance, (clfftPlanHandle plan, size_t in, size_t out))    \
  X(clfftStatus, clfftSetPlanInStride, (clfftPlanHandle plan, int dim, size_t *strides))  \
  X(clfftStatus, clfftSetPlanOutStride, (clfftPlanHandle plan, int dim, size_t *strides)) \
  X(clfftStatus, clfftSetPlanScale, (clfftPlanHandle plan, int direction, cl_float scale)) \
  X(clfftStatus, clfftBakePlan,                                                          \
    (clfftPlanHandle plan, cl_uint nqueues, cl_command_queue * queues,                   \
     void (*notify)(clfftPlanHandle, void *), void *user_data))                          \
  X(clfftStatus, clfftGetTmpBufSize, (clfftPlanHandle plan, size_t * bytes))            \
  X(clfftStatus, clfftEnqueueTransform,                                                  \
    (clfftPlanHandle plan, int direction, cl_uint nqueues, cl_command_queue * queues,    \
     cl_uint nwait, const cl_event *wait, cl_event *events, cl_mem *in, cl_mem *out,     \
     cl_mem tmp))                                                                        \
  X(clfftStatus, clfftDestroyPlan, (clfftPlanHandle * plan))

#endif
