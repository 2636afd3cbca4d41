/* backends/opencl/opencl_vkfft.c: VkFFT (header-only, Debian's
 * libvkfft-dev, MIT) as the OpenCL backend's FFT library, one of the two
 * opencl_fft_select.c chooses between (docs/fft.md, "OpenCL: clFFT or
 * VkFFT").
 *
 * VkFFT's OpenCL backend (VKFFT_BACKEND 3) calls cl* functions by name from
 * its header. This file is the only one that includes vkFFT.h, and its
 * `#include <CL/cl.h>` finds vkfft_shim/CL/cl.h, which maps each of those
 * names to kiln's loaded symbol table: no libOpenCL link, the same ICD
 * loader and fault behaviour as the rest of the backend. Built when CMake
 * finds vkFFT.h (KILN_HAVE_VKFFT); otherwise every entry reports
 * UNAVAILABLE saying so.
 *
 * A plan is one VkFFTApplication: a batched 1-D (numberBatches) or 2-D /
 * 3-D transform, out of place from the input buffer to the output buffer
 * (isInputFormatted: VkFFT reads inputBuffer and writes buffer, in both
 * directions; C2R: isOutputFormatted, reading buffer, which it may
 * overwrite as the backend contract allows, writing outputBuffer), offsets
 * given at each launch. VkFFT generates its kernels when the plan is made
 * and builds them, or loads them from core's disk cache
 * (opencl_vkfft_programs.h). Its scratch (the four-step reorder and
 * Bluestein's work space) is a user temp buffer: core passes one from its
 * memory pool to each execution (work_bytes, below); the chirp tables and
 * lookup tables VkFFT fills at plan time stay its own, held by the plan.
 * Unnormalised, as core wants. VkFFTAppend sets arguments of the plan's
 * cl_kernels before each enqueue, so executions of one plan are serialised
 * by its lock. */
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/opencl/opencl_backend.h"
#include "backends/opencl/opencl_fft.h"
#include "backends/opencl/opencl_vkfft_programs.h"
#include "core/runtime/error.h"
#include "core/runtime/log.h"

#ifdef KILN_HAVE_VKFFT

const kiln_opencl_symbols *kiln_vkfft_cl; /* vkfft_shim/CL/cl.h */

/* VkFFT prints a failed build's log and source with printf: to kiln's
 * debug log instead (a library never writes to stdout). */
static void vkfft_print(const char *format, ...) KILN_PRINTF(1, 2);
static void vkfft_print(const char *format, ...) {
  char text[2048];
  va_list args;
  va_start(args, format);
  vsnprintf(text, sizeof text, format, args);
  va_end(args);
  kiln_log(KILN_LOG_DEBUG, "opencl: VkFFT: %s", text);
}

/* VkFFT's host allocations, tracked per plan. initializeVkFFT leaks on
 * some failure paths (VkFFTPlanAxis: the 4 MB code buffer when generating
 * the kernel fails, e.g. for want of memory), so every block it takes while
 * a plan is made is linked into that plan's list (a header before the
 * block; no allocation of its own), its free() unlinks it, and whatever is
 * left after a failed initializeVkFFT, or after deleteVkFFT, is freed here.
 * vkfft_tracking is the list of the plan being made or destroyed on this
 * thread (NULL otherwise: blocks then stay linked to no list). */
typedef struct vkfft_block {
  struct vkfft_block *prev, *next;
} vkfft_block;
/* the header's size, rounded up so that the caller's block stays aligned */
#define VKFFT_HEADER \
  ((sizeof(vkfft_block) + _Alignof(max_align_t) - 1) / _Alignof(max_align_t) * \
   _Alignof(max_align_t))

static _Thread_local vkfft_block *vkfft_tracking;

static void *vkfft_malloc(size_t size) {
  if (size > SIZE_MAX - VKFFT_HEADER) return NULL;
  vkfft_block *b = malloc(VKFFT_HEADER + size);
  if (!b) return NULL;
  vkfft_block *list = vkfft_tracking;
  b->prev = b->next = b;
  if (list) {
    b->next = list->next;
    b->prev = list;
    list->next->prev = b;
    list->next = b;
  }
  return (char *)b + VKFFT_HEADER;
}

static void *vkfft_calloc(size_t count, size_t size) {
  if (size && count > SIZE_MAX / size) return NULL;
  void *p = vkfft_malloc(count * size);
  if (p) memset(p, 0, count * size);
  return p;
}

static void vkfft_free(void *p) {
  if (!p) return;
  vkfft_block *b = (vkfft_block *)(void *)((char *)p - VKFFT_HEADER);
  b->prev->next = b->next;
  b->next->prev = b->prev;
  free(b);
}

/* Frees every block still on list (the sentinel stays). */
static void vkfft_free_all(vkfft_block *list) {
  while (list->next != list) vkfft_free((char *)list->next + VKFFT_HEADER);
}

#define VKFFT_BACKEND 3
#define printf vkfft_print
#define malloc vkfft_malloc
#define calloc vkfft_calloc
#define free vkfft_free
/* VkFFT's OpenCL path takes UINT64_MAX as the work-group count limit and
 * then converts pow(2, log2(it)) = 2^64 back to uint64_t (dispatchEnhanced):
 * a float conversion out of range, undefined (UBSan stops there). Its only
 * use in vkFFT.h 1.2.26; 2^62 is as unlimited for any launch and exact. */
#pragma push_macro("UINT64_MAX")
#undef UINT64_MAX
#define UINT64_MAX (UINT64_C(1) << 62)
#include <vkFFT.h> /* a system header (-isystem): its own warnings are not ours */
#undef printf
#undef malloc
#undef calloc
#undef free
#pragma pop_macro("UINT64_MAX")
/* back to the table's member names for kiln's own calls below */
#undef clBuildProgram
#undef clCreateBuffer
#undef clCreateCommandQueue
#undef clCreateKernel
#undef clCreateProgramWithBinary
#undef clCreateProgramWithSource
#undef clEnqueueNDRangeKernel
#undef clEnqueueWriteBuffer
#undef clFinish
#undef clGetDeviceInfo
#undef clGetProgramBuildInfo
#undef clGetProgramInfo
#undef clReleaseCommandQueue
#undef clReleaseKernel
#undef clReleaseMemObject
#undef clReleaseProgram
#undef clSetKernelArg

/* Sets kiln_vkfft_cl once (before any VkFFT call; a device is open, so the
 * loader is loaded and this cannot fail). */
static pthread_once_t vkfft_table_once = PTHREAD_ONCE_INIT;
static void vkfft_table_set(void) { (void)kiln_opencl_library_load(&kiln_vkfft_cl); }

struct kiln_opencl_vkfft_plan {
  pthread_mutex_t lock; /* VkFFTAppend sets kernel arguments, then enqueues */
  vkfft_block blocks;   /* the sentinel of VkFFT's host blocks for this plan */
  VkFFTApplication app;
  kiln_backend_fft fft;
  cl_device_id device;
  cl_context context;
  uint64_t buffer_bytes, in_bytes, out_bytes; /* VkFFT's bufferSize & co. */
  uint64_t temp_bytes; /* VkFFT's tempBufferSize: what it may use of the scratch */
  int uses_temp;       /* some axis takes several uploads: the scratch is read */
};

/* VkFFT's result codes (VkFFTResult, vkFFT.h) as kiln's statuses: lengths
 * and layouts it cannot do are UNIMPLEMENTED (core then runs its own
 * kernels), host or device memory OUT_OF_MEMORY, the rest DEVICE. */
static kiln_status vkfft_check(VkFFTResult result, const char *call, const kiln_backend_fft *fft) {
  if (result == VKFFT_SUCCESS) return KILN_OK;
  kiln_status status = KILN_ERROR_DEVICE;
  const char *what = "see VkFFTResult in vkFFT.h";
  if (result == VKFFT_ERROR_MALLOC_FAILED) {
    status = KILN_ERROR_OUT_OF_MEMORY;
    what = "out of host memory";
  } else if (result == VKFFT_ERROR_FAILED_TO_ALLOCATE) {
    status = KILN_ERROR_OUT_OF_MEMORY;
    what = "out of device memory";
  } else if (result >= VKFFT_ERROR_UNSUPPORTED_RADIX &&
             result <= VKFFT_ERROR_UNSUPPORTED_FFT_OMIT) {
    status = KILN_ERROR_UNIMPLEMENTED;
    what = "a case VkFFT cannot do";
  } else if (result == VKFFT_ERROR_FAILED_TO_CREATE_PROGRAM ||
             result == VKFFT_ERROR_FAILED_TO_COMPILE_PROGRAM) {
    what = "a kernel VkFFT generated did not build; KILN_LOG=debug shows its log";
  }
  return kiln_error_set(status,
                        "opencl: VkFFT %s (n %lld, batch %lld, rank %d) failed with VkFFTResult %d "
                        "(%s)",
                        call, (long long)fft->n, (long long)fft->batch, fft->rank > 1 ? fft->rank : 1,
                        (int)result, what);
}

kiln_status kiln_opencl_vkfft_describe(kiln_backend_device *device, char *text, size_t size) {
  (void)device;
  int v = VkFFTGetVersion();
  snprintf(text, size, "VkFFT %d.%d.%d (header-only, built in; OpenCL through %s)", v / 10000,
           v / 100 % 100, v % 100, kiln_opencl_library_path());
  return KILN_OK;
}

/* Whether VkFFT's kernels of plan read or write the temp buffer: only a
 * transform of several uploads along an axis does (VkFFT allocates its own
 * when some axis has numAxisUploads > 1 and reorders or runs Bluestein;
 * this asks the wider question, so a plan that needs it always gets it). */
static int vkfft_uses_temp(const VkFFTApplication *app) {
  const VkFFTPlan *plans[2] = {app->localFFTPlan, app->localFFTPlan_inverse};
  for (int k = 0; k < 2; k++)
    for (uint64_t i = 0; plans[k] && i < app->configuration.FFTdim; i++)
      if (plans[k]->numAxisUploads[i] > 1) return 1;
  return 0;
}

/* The scratch VkFFT's own allocation would have had (its formula in
 * VkFFTScheduler, 1.2.26: the axis's sizes, Bluestein's padded one
 * included, times the batches), over the axes that use it. The starting
 * value given (the complex buffer's size), raised by VkFFT itself for a
 * Bluestein axis, is never short of it; checked all the same, as a later
 * VkFFT may size it otherwise. */
static uint64_t vkfft_temp_needed(const VkFFTApplication *app, uint64_t complex_bytes) {
  uint64_t need = 0;
  const VkFFTPlan *plans[2] = {app->localFFTPlan, app->localFFTPlan_inverse};
  uint64_t batches = app->configuration.numberBatches > app->actualNumBatches
                         ? app->configuration.numberBatches
                         : app->actualNumBatches;
  for (int k = 0; k < 2; k++)
    for (uint64_t i = 0; plans[k] && i < app->configuration.FFTdim; i++) {
      if (plans[k]->numAxisUploads[i] <= 1) continue;
      const uint64_t *size = plans[k]->actualFFTSizePerAxis[i];
      int r2c_split = app->configuration.performR2C && i == 0 && plans[k]->multiUploadR2C;
      uint64_t bytes = (size[0] + (r2c_split ? 1 : 0)) * size[1] * size[2] * batches * complex_bytes;
      if (bytes > need) need = bytes;
    }
  return need;
}

kiln_status kiln_opencl_vkfft_plan_create(kiln_backend_device *device, const kiln_backend_fft *fft,
                                          kiln_opencl_vkfft_plan **plan, size_t *work_bytes) {
  *plan = NULL;
  *work_bytes = 0;
  /* VkFFT 1.2.26 refuses a length of 1 (VKFFT_ERROR_UNSUPPORTED_RADIX)
   * after generating code: said at once (core's kernels then take it) */
  if (fft->n == 1)
    return kiln_error_set(KILN_ERROR_UNIMPLEMENTED,
                          "opencl: VkFFT does not plan a transform of length 1 (rank %d; "
                          "VkFFTResult 3001)", fft->rank > 1 ? fft->rank : 1);
  pthread_once(&vkfft_table_once, vkfft_table_set);
  kiln_opencl_vkfft_plan *p = calloc(1, sizeof *p);
  if (!p) return kiln_error_set(KILN_ERROR_OUT_OF_MEMORY, "opencl: no memory for a VkFFT plan");
  if (pthread_mutex_init(&p->lock, NULL) != 0) {
    free(p);
    return kiln_error_set(KILN_ERROR_INTERNAL, "opencl: pthread_mutex_init failed");
  }
  p->fft = *fft;
  p->fft.programs = NULL; /* lent for this call only */
  p->device = device->device;
  p->context = device->context;
  const uint64_t n = (uint64_t)fft->n, half = n / 2 + 1;
  const uint64_t complex_bytes = fft->double_precision ? 16 : 8, real_bytes = complex_bytes / 2;
  const int rank = fft->rank > 1 ? fft->rank : 1;
  VkFFTConfiguration c = {0};
  c.FFTdim = (uint64_t)rank;
  c.size[0] = n;
  c.size[1] = rank >= 2 ? (uint64_t)fft->outer[rank - 2] : 1;
  c.size[2] = rank == 3 ? (uint64_t)fft->outer[0] : 1;
  c.numberBatches = (uint64_t)fft->batch;
  c.device = &p->device;
  c.context = &p->context;
  c.doublePrecision = (uint64_t)fft->double_precision;
  c.specifyOffsetsAtLaunch = 1;
  /* strides in elements: the next row, the next plane, the next item */
  const uint64_t items = c.size[1] * c.size[2];
  const uint64_t row = fft->type == KILN_BACKEND_FFT_C2C ? n : half; /* the complex side */
  c.bufferStride[0] = row;
  c.bufferStride[1] = row * c.size[1];
  c.bufferStride[2] = row * items;
  p->buffer_bytes = row * items * c.numberBatches * complex_bytes;
  c.bufferSize = &p->buffer_bytes;
  /* the scratch is core's (a pool block per execution). VkFFT wants its
   * size before planning and has no call that computes it: the complex
   * buffer's size is what its default takes for every axis but a
   * Bluestein one, whose larger need VkFFT writes into temp_bytes itself
   * while planning (1.2.26); checked below. */
  p->temp_bytes = p->buffer_bytes;
  c.userTempBuffer = 1;
  c.tempBufferSize = &p->temp_bytes;
  if (fft->type == KILN_BACKEND_FFT_C2R) {
    c.performR2C = 1;
    c.makeInversePlanOnly = 1;
    c.isOutputFormatted = 1;
    c.outputBufferStride[0] = n;
    c.outputBufferStride[1] = n * c.size[1];
    c.outputBufferStride[2] = n * items;
    p->out_bytes = n * items * c.numberBatches * real_bytes;
    c.outputBufferSize = &p->out_bytes;
  } else {
    const uint64_t in_row = fft->type == KILN_BACKEND_FFT_R2C ? n : row;
    c.isInputFormatted = 1;
    c.inputBufferStride[0] = in_row;
    c.inputBufferStride[1] = in_row * c.size[1];
    c.inputBufferStride[2] = in_row * items;
    p->in_bytes = in_row * items * c.numberBatches *
                  (fft->type == KILN_BACKEND_FFT_R2C ? real_bytes : complex_bytes);
    c.inputBufferSize = &p->in_bytes;
    if (fft->type == KILN_BACKEND_FFT_R2C) {
      c.performR2C = 1;
      c.makeForwardPlanOnly = 1;
    }
  }
  p->blocks.prev = p->blocks.next = &p->blocks;
  char library[64];
  int v = VkFFTGetVersion();
  snprintf(library, sizeof library, "VkFFT %d.%d.%d", v / 10000, v / 100 % 100, v % 100);
  kiln_vkfft_programs programs;
  kiln_vkfft_programs_begin(&programs, device, fft->programs, library);
  vkfft_tracking = &p->blocks;
  VkFFTResult result = initializeVkFFT(&p->app, c); /* deletes its own state on failure */
  vkfft_tracking = NULL;
  kiln_vkfft_programs_end(&programs);
  kiln_status status = vkfft_check(result, "initializeVkFFT", fft);
  if (status != KILN_OK) {
    vkfft_free_all(&p->blocks); /* what VkFFT's failure path left */
    pthread_mutex_destroy(&p->lock);
    free(p);
    return status;
  }
  p->uses_temp = vkfft_uses_temp(&p->app);
  uint64_t needed = vkfft_temp_needed(&p->app, complex_bytes);
  if (p->uses_temp && needed > p->temp_bytes) {
    /* a VkFFT whose planner sizes its scratch otherwise: refused, never
     * run with too little (core's kernels take the case) */
    status = kiln_error_set(KILN_ERROR_UNIMPLEMENTED,
                            "opencl: VkFFT wants %llu bytes of scratch for n %lld, more than the "
                            "%llu it was given",
                            (unsigned long long)needed, (long long)fft->n,
                            (unsigned long long)p->temp_bytes);
    kiln_opencl_vkfft_plan_destroy(p);
    return status;
  }
  if (p->uses_temp) *work_bytes = (size_t)p->temp_bytes;
  kiln_log(KILN_LOG_DEBUG,
           "opencl: VkFFT plan made (type %d, rank %d, n %lld, batch %lld, %s; scratch %llu "
           "bytes from the pool; programs: %u from the disk cache, %u compiled%s)",
           (int)fft->type, rank, (long long)fft->n, (long long)fft->batch,
           fft->double_precision ? "double" : "single", (unsigned long long)*work_bytes,
           programs.from_cache, programs.compiled, fft->programs ? "" : ", no disk cache");
  *plan = p;
  return KILN_OK;
}

kiln_status kiln_opencl_vkfft_execute(kiln_backend_device *device, kiln_backend_stream *stream,
                                      kiln_opencl_vkfft_plan *plan, kiln_backend_buffer *in,
                                      uint64_t in_offset, kiln_backend_buffer *out,
                                      uint64_t out_offset, kiln_backend_buffer *work, int sign) {
  if (plan->uses_temp && (!work || work->bytes < plan->temp_bytes))
    return kiln_error_set(KILN_ERROR_INTERNAL,
                          "opencl: VkFFT (n %lld) needs %llu bytes of scratch, given %llu",
                          (long long)plan->fft.n, (unsigned long long)plan->temp_bytes,
                          work ? (unsigned long long)work->bytes : 0ull);
  cl_command_queue queue = kiln_opencl_stream_or_default(device, stream)->queue;
  cl_mem in_mem = in->mem, out_mem = out->mem;
  /* a plan that never touches its temp buffer still has to name one
   * (VKFFT_ERROR_EMPTY_tempBuffer): the output stands in, unread */
  cl_mem temp_mem = plan->uses_temp ? work->mem : out->mem;
  VkFFTLaunchParams launch = {0};
  launch.commandQueue = &queue;
  launch.tempBuffer = &temp_mem;
  int inverse = plan->fft.type == KILN_BACKEND_FFT_C2R ? 1
                : plan->fft.type == KILN_BACKEND_FFT_R2C ? -1
                                                         : sign;
  if (plan->fft.type == KILN_BACKEND_FFT_C2R) {
    launch.buffer = &in_mem;
    launch.bufferOffset = in_offset;
    launch.outputBuffer = &out_mem;
    launch.outputBufferOffset = out_offset;
  } else {
    launch.inputBuffer = &in_mem;
    launch.inputBufferOffset = in_offset;
    launch.buffer = &out_mem;
    launch.bufferOffset = out_offset;
  }
  pthread_mutex_lock(&plan->lock);
  VkFFTResult result = VkFFTAppend(&plan->app, inverse, &launch);
  pthread_mutex_unlock(&plan->lock);
  return vkfft_check(result, "VkFFTAppend", &plan->fft);
}

int kiln_opencl_vkfft_built_in(void) { return 1; }

void kiln_opencl_vkfft_plan_destroy(kiln_opencl_vkfft_plan *plan) {
  if (!plan) return;
  deleteVkFFT(&plan->app);
  vkfft_free_all(&plan->blocks);
  pthread_mutex_destroy(&plan->lock);
  free(plan);
}

#else /* no vkFFT.h at build time */

static kiln_status vkfft_missing(void) {
  return kiln_error_set(KILN_ERROR_UNAVAILABLE,
                        "opencl: VkFFT is not built in (vkFFT.h was not found when kiln was "
                        "configured: install libvkfft-dev and configure again)");
}

kiln_status kiln_opencl_vkfft_describe(kiln_backend_device *device, char *text, size_t size) {
  (void)device;
  kiln_status status = vkfft_missing();
  snprintf(text, size, "%s", kiln_last_error());
  return status;
}

kiln_status kiln_opencl_vkfft_plan_create(kiln_backend_device *device, const kiln_backend_fft *fft,
                                          kiln_opencl_vkfft_plan **plan, size_t *work_bytes) {
  (void)device;
  (void)fft;
  *plan = NULL;
  *work_bytes = 0;
  return vkfft_missing();
}

kiln_status kiln_opencl_vkfft_execute(kiln_backend_device *device, kiln_backend_stream *stream,
                                      kiln_opencl_vkfft_plan *plan, kiln_backend_buffer *in,
                                      uint64_t in_offset, kiln_backend_buffer *out,
                                      uint64_t out_offset, kiln_backend_buffer *work, int sign) {
  (void)device, (void)stream, (void)plan, (void)in, (void)in_offset, (void)out, (void)out_offset,
      (void)work, (void)sign;
  return vkfft_missing();
}

int kiln_opencl_vkfft_built_in(void) { return 0; }

void kiln_opencl_vkfft_plan_destroy(kiln_opencl_vkfft_plan *plan) { (void)plan; }

#endif
