/* backends/opencl/opencl_fft.c: clFFT, one of the OpenCL backend's two FFT
 * libraries (opencl_fft_select.c chooses; docs/fft.md compares them).
 * Loaded at run time, once per process: $KILN_CLFFT_PATH when set, then
 * "libclFFT.so.2" (Debian's libclfft2); clfftSetup runs with the first
 * plan and clfftTeardown with the last (never from atexit). Plans are baked for the device's
 * default queue and run on any queue of its context. clFFT takes lengths
 * whose factors are 2, 3, 5, 7, 11 and 13; others are UNIMPLEMENTED (core
 * then runs its own kernels, which have Bluestein). clFFT scales inverse
 * transforms by 1/n by default: set to 1, core scales. Enqueues are
 * serialised (one lock): clFFT's plans keep per-enqueue state. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/opencl/opencl_backend.h"
#include "backends/opencl/opencl_fft.h"
#include "backends/opencl/opencl_fft_symbols.h"
#include "backends/opencl/opencl_status.h"
#include "backends/gpu/gpu_library.h" /* the load-once outcome (vendor-neutral) */
#include "core/runtime/dynlib.h"
#include "core/runtime/error.h"
#include "core/runtime/log.h"

typedef struct clfft_symbols {
#define KILN_CLFFT_MEMBER(ret, name, params) ret(*name) params;
  KILN_CLFFT_REQUIRED_SYMBOLS(KILN_CLFFT_MEMBER)
#undef KILN_CLFFT_MEMBER
} clfft_symbols;

static pthread_once_t clfft_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t clfft_lock = PTHREAD_MUTEX_INITIALIZER;
static clfft_symbols clfft;
static gpu_library_outcome clfft_outcome;
static char clfft_text[600]; /* the description once loaded */
/* clFFT's global state lives while plans do (under clfft_lock): set up for
 * the first plan, torn down with the last, so that clFFT never finds it
 * still there at exit (it prints a warning then). */
static kiln_clfft_setup_data clfft_setup;
static int clfft_live_plans;

struct kiln_opencl_clfft_plan {
  clfftPlanHandle handle;
  kiln_backend_fft fft;
};

static void clfft_load_once(void) {
  const char *names[2] = {getenv("KILN_CLFFT_PATH"), "libclFFT.so.2"};
  void *library = gpu_library_open(names, 2, "opencl", "clFFT (set KILN_CLFFT_PATH to its path)",
                                   &clfft_outcome);
  if (!library) return;
#define KILN_CLFFT_RESOLVE(ret, name, params)                                            \
  clfft.name = (ret(*) params)kiln_dynlib_symbol(library, #name);                        \
  if (!clfft.name) {                                                                     \
    gpu_library_fail(&clfft_outcome, KILN_ERROR_UNAVAILABLE,                             \
                     "opencl: %s lacks %s (clFFT 2.12 or later needed)",                 \
                     clfft_outcome.opened, #name);                                       \
    kiln_dynlib_close(library);                                                          \
    memset(&clfft, 0, sizeof clfft);                                                     \
    return;                                                                              \
  }
  KILN_CLFFT_REQUIRED_SYMBOLS(KILN_CLFFT_RESOLVE)
#undef KILN_CLFFT_RESOLVE
  clfft.clfftGetVersion(&clfft_setup.major, &clfft_setup.minor, &clfft_setup.patch);
  snprintf(clfft_text, sizeof clfft_text, "clFFT %u.%u.%u (%s)", clfft_setup.major,
           clfft_setup.minor, clfft_setup.patch, clfft_outcome.opened);
  kiln_log(KILN_LOG_INFO, "opencl: loaded %s", clfft_text);
}

static kiln_status clfft_load(void) {
  pthread_once(&clfft_once, clfft_load_once);
  return gpu_library_report(&clfft_outcome);
}

static kiln_status clfft_check(clfftStatus s, const char *call, const kiln_backend_fft *fft) {
  if (s == 0) return KILN_OK;
  kiln_status status = s == KILN_CLFFT_NOTIMPLEMENTED || s == KILN_CLFFT_DEVICE_NO_DOUBLE
                           ? KILN_ERROR_UNIMPLEMENTED
                       : s == -4 || s == -6 ? KILN_ERROR_OUT_OF_MEMORY /* CL_MEM_OBJECT_ALLOCATION_FAILURE, CL_OUT_OF_HOST_MEMORY */
                                            : KILN_ERROR_DEVICE;
  return kiln_error_set(status, "opencl: %s (n %lld, batch %lld) failed with clFFT status %d (%s)",
                        call, (long long)fft->n, (long long)fft->batch, s,
                        s < 0 ? "an OpenCL error code" : "clFFT's own code, clFFT.h");
}

kiln_status kiln_opencl_clfft_describe(kiln_backend_device *device, char *text, size_t size) {
  (void)device;
  kiln_status status = clfft_load();
  snprintf(text, size, "%s", status == KILN_OK ? clfft_text : kiln_last_error());
  return status;
}

kiln_status kiln_opencl_clfft_plan_create(kiln_backend_device *device, const kiln_backend_fft *fft,
                                        kiln_opencl_clfft_plan **plan, size_t *work_bytes) {
  *plan = NULL;
  *work_bytes = 0;
  KILN_RETURN_IF_ERROR(clfft_load());
  kiln_opencl_clfft_plan *p = calloc(1, sizeof *p);
  if (!p) return kiln_error_set(KILN_ERROR_OUT_OF_MEMORY, "opencl: no memory for an FFT plan");
  p->fft = *fft;
  p->fft.programs = NULL; /* lent for the plan_create call only */
  const size_t n = (size_t)fft->n, half = n / 2 + 1;
  int in = KILN_CLFFT_COMPLEX_INTERLEAVED, out = KILN_CLFFT_COMPLEX_INTERLEAVED;
  size_t in_row = n, out_row = n; /* the fastest dim's extent in memory */
  if (fft->type == KILN_BACKEND_FFT_R2C)
    in = KILN_CLFFT_REAL, out = KILN_CLFFT_HERMITIAN_INTERLEAVED, out_row = half;
  if (fft->type == KILN_BACKEND_FFT_C2R)
    in = KILN_CLFFT_HERMITIAN_INTERLEAVED, out = KILN_CLFFT_REAL, in_row = half;
  /* clFFT's lengths and strides go fastest first; a 2-D / 3-D plan's items
   * are C-order arrays back to back, given explicitly (clFFT's defaults
   * for real layouts are not the packed ones) */
  const int rank = fft->rank > 1 ? fft->rank : 1;
  size_t lengths[3] = {n, 1, 1}, in_strides[3] = {1, in_row, in_row},
         out_strides[3] = {1, out_row, out_row};
  size_t in_distance = in_row, out_distance = out_row;
  for (int d = 1; d < rank; d++) {
    lengths[d] = (size_t)fft->outer[rank - 1 - d];
    in_strides[d] = in_distance;
    out_strides[d] = out_distance;
    in_distance *= lengths[d];
    out_distance *= lengths[d];
  }
  cl_command_queue queue = device->default_stream.queue;
  pthread_mutex_lock(&clfft_lock);
  kiln_status status = KILN_OK;
  if (clfft_live_plans == 0) status = clfft_check(clfft.clfftSetup(&clfft_setup), "clfftSetup", fft);
  if (status == KILN_OK)
    status = clfft_check(clfft.clfftCreateDefaultPlan(&p->handle, device->context, rank,
                                                      lengths),
                         "clfftCreateDefaultPlan", fft);
  int made = status == KILN_OK;
#define STEP(call, ...) \
  if (status == KILN_OK) status = clfft_check(clfft.call(__VA_ARGS__), #call, fft)
  STEP(clfftSetPlanPrecision, p->handle,
       fft->double_precision ? KILN_CLFFT_DOUBLE : KILN_CLFFT_SINGLE);
  STEP(clfftSetLayout, p->handle, in, out);
  STEP(clfftSetResultLocation, p->handle, KILN_CLFFT_OUTOFPLACE);
  STEP(clfftSetPlanBatchSize, p->handle, (size_t)fft->batch);
  STEP(clfftSetPlanInStride, p->handle, rank, in_strides);
  STEP(clfftSetPlanOutStride, p->handle, rank, out_strides);
  STEP(clfftSetPlanDistance, p->handle, in_distance, out_distance);
  STEP(clfftSetPlanScale, p->handle, KILN_CLFFT_BACKWARD, 1.0f);
  STEP(clfftBakePlan, p->handle, 1, &queue, NULL, NULL);
  STEP(clfftGetTmpBufSize, p->handle, work_bytes);
#undef STEP
  if (status != KILN_OK && made) clfft.clfftDestroyPlan(&p->handle);
  if (status == KILN_OK) clfft_live_plans++;
  else if (clfft_live_plans == 0) clfft.clfftTeardown();
  pthread_mutex_unlock(&clfft_lock);
  if (status != KILN_OK) {
    free(p);
    return status;
  }
  *plan = p;
  return KILN_OK;
}

/* buffer at offset as a cl_mem: itself, or a sub-buffer (*view, to release) */
static kiln_status region(kiln_backend_device *device, kiln_backend_buffer *buffer,
                          uint64_t offset, cl_mem *mem, cl_mem *view) {
  *view = NULL;
  *mem = buffer->mem;
  if (offset == 0) return KILN_OK;
  cl_buffer_region r = {(size_t)offset, buffer->bytes - (size_t)offset};
  cl_int code = CL_SUCCESS;
  *view = device->cl->clCreateSubBuffer(buffer->mem, CL_MEM_READ_WRITE,
                                        CL_BUFFER_CREATE_TYPE_REGION, &r, &code);
  KILN_RETURN_IF_ERROR(KILN_CL_STATUS(code, clCreateSubBuffer,
                                      "a view at byte offset %llu for clFFT",
                                      (unsigned long long)offset));
  *mem = *view;
  return KILN_OK;
}

kiln_status kiln_opencl_clfft_execute(kiln_backend_device *device, kiln_backend_stream *stream,
                                    kiln_opencl_clfft_plan *plan, kiln_backend_buffer *in,
                                    uint64_t in_offset, kiln_backend_buffer *out,
                                    uint64_t out_offset, kiln_backend_buffer *work, int sign) {
  cl_command_queue queue = kiln_opencl_stream_or_default(device, stream)->queue;
  cl_mem in_mem, out_mem, in_view = NULL, out_view = NULL;
  kiln_status status = region(device, in, in_offset, &in_mem, &in_view);
  if (status == KILN_OK) status = region(device, out, out_offset, &out_mem, &out_view);
  if (status == KILN_OK) {
    int direction = plan->fft.type == KILN_BACKEND_FFT_R2C   ? KILN_CLFFT_FORWARD
                    : plan->fft.type == KILN_BACKEND_FFT_C2R ? KILN_CLFFT_BACKWARD
                    : sign < 0                               ? KILN_CLFFT_FORWARD
                                                             : KILN_CLFFT_BACKWARD;
    pthread_mutex_lock(&clfft_lock);
    status = clfft_check(clfft.clfftEnqueueTransform(plan->handle, direction, 1, &queue, 0, NULL,
                                                     NULL, &in_mem, &out_mem,
                                                     work ? work->mem : NULL),
                         "clfftEnqueueTransform", &plan->fft);
    pthread_mutex_unlock(&clfft_lock);
  }
  if (in_view) device->cl->clReleaseMemObject(in_view);
  if (out_view) device->cl->clReleaseMemObject(out_view);
  return status;
}

void kiln_opencl_clfft_plan_destroy(kiln_opencl_clfft_plan *plan) {
  if (!plan) return;
  pthread_mutex_lock(&clfft_lock);
  clfft.clfftDestroyPlan(&plan->handle);
  if (--clfft_live_plans == 0) clfft.clfftTeardown();
  pthread_mutex_unlock(&clfft_lock);
  free(plan);
}
