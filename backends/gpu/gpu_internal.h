/* backends/gpu/gpu_internal.h: the objects behind the backend.h handles of
 * the CUDA and HIP backends (internal to backends/gpu). */
#ifndef KILN_BACKENDS_GPU_INTERNAL_H
#define KILN_BACKENDS_GPU_INTERNAL_H

#include <pthread.h>

#include "backends/gpu/gpu_backend.h"
#include "core/runtime/error.h"

struct kiln_backend_device {
  const gpu_runtime *runtime;
  int ordinal;
  gpu_context context;
  gpu_stream default_stream; /* what a NULL kiln_backend_stream means */
  char architecture[64];     /* compile target */
  uint64_t warp_size;
  size_t shared_default; /* shared bytes per block without opting in */
  size_t shared_optin;   /* ... after opting in (>= shared_default) */
  pthread_mutex_t lock;  /* guards kiln_backend_function.dynamic_shared_limit,
                            blas_handle and its use (stream + call) */
  void *blas_handle;     /* runtime->blas handle, made on first use */
};

struct kiln_backend_buffer {
  gpu_address address;
  size_t bytes;
  int owned; /* zero for buffer_wrap: another library frees the memory */
};

struct kiln_backend_stream {
  gpu_stream handle;
};

struct kiln_backend_event {
  gpu_event handle;
};

struct kiln_backend_module {
  gpu_module handle;
  void *binary; /* what was loaded, for module_binary */
  size_t binary_size;
};

struct kiln_backend_function {
  gpu_function handle;
  uint64_t max_threads;
  size_t static_shared;
  size_t dynamic_shared_limit; /* dynamic shared bytes the driver allows now */
};

/* gpu_context.c: makes the device's context current on this thread (CUDA
 * push, HIP set-device); the detail names the device on failure. */
kiln_status gpu_enter(kiln_backend_device *device);
/* Undoes gpu_enter. */
void gpu_leave(kiln_backend_device *device);

/* Puts "<backend> device <n>: <what>" in front of the current error detail
 * and returns status. */
kiln_status gpu_error_context(const kiln_backend_device *device,
                              kiln_status status, const char *format, ...)
    KILN_PRINTF(3, 4);

/* The stream a NULL kiln_backend_stream stands for. */
static inline gpu_stream gpu_stream_or_default(const kiln_backend_device *device,
                                               const kiln_backend_stream *stream) {
  return stream ? stream->handle : device->default_stream;
}

#endif
