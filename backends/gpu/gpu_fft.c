/* backends/gpu/gpu_fft.c: the fft_* slots of the CUDA and HIP backends over
 * their runtime's gpu_fft (cuFFT, hipFFT). A plan keeps its description;
 * executions take the device lock, since setting a plan's stream and work
 * area and queuing it must not interleave with another thread's. */
#include <stdio.h>
#include <stdlib.h>

#include "backends/gpu/gpu_internal.h"

struct kiln_backend_fft_plan {
  void *vendor;
  kiln_backend_fft fft;
};

kiln_status gpu_fft_describe(kiln_backend_device *device, char *text, size_t size) {
  const gpu_fft *fft = device->runtime->fft;
  if (!fft) {
    snprintf(text, size, "%s: no vendor FFT table", device->runtime->name);
    return kiln_error_set(KILN_ERROR_UNAVAILABLE, "%s", text);
  }
  return fft->load(text, size);
}

kiln_status gpu_fft_plan_create(kiln_backend_device *device, const kiln_backend_fft *fft,
                                kiln_backend_fft_plan **plan, size_t *work_bytes) {
  *plan = NULL;
  *work_bytes = 0;
  const gpu_fft *library = device->runtime->fft;
  if (!library) {
    char text[128];
    return gpu_fft_describe(device, text, sizeof text);
  }
  KILN_RETURN_IF_ERROR(library->load(NULL, 0));
  kiln_backend_fft_plan *p = calloc(1, sizeof *p);
  if (!p) return kiln_error_set(KILN_ERROR_OUT_OF_MEMORY, "%s: no memory for an FFT plan",
                                device->runtime->name);
  p->fft = *fft;
  p->fft.programs = NULL; /* lent for the plan_create call only */
  kiln_status status = gpu_enter(device);
  if (status == KILN_OK) {
    status = library->plan_create(fft, &p->vendor, work_bytes);
    gpu_leave(device);
  }
  if (status != KILN_OK) {
    free(p);
    return gpu_error_context(device, status, "FFT plan (rank %d, n %lld, batch %lld)",
                             fft->rank > 1 ? fft->rank : 1, (long long)fft->n,
                             (long long)fft->batch);
  }
  *plan = p;
  return KILN_OK;
}

kiln_status gpu_fft_execute(kiln_backend_device *device, kiln_backend_stream *stream,
                            kiln_backend_fft_plan *plan, kiln_backend_buffer *in,
                            uint64_t in_offset, kiln_backend_buffer *out, uint64_t out_offset,
                            kiln_backend_buffer *work, int sign) {
  const gpu_fft *library = device->runtime->fft;
  KILN_RETURN_IF_ERROR(gpu_enter(device));
  pthread_mutex_lock(&device->lock);
  kiln_status status = library->execute(plan->vendor, &plan->fft,
                                        gpu_stream_or_default(device, stream),
                                        work ? work->address : 0, in->address + in_offset,
                                        out->address + out_offset, sign);
  pthread_mutex_unlock(&device->lock);
  gpu_leave(device);
  if (status != KILN_OK)
    return gpu_error_context(device, status, "FFT (n %lld, batch %lld)",
                             (long long)plan->fft.n, (long long)plan->fft.batch);
  return KILN_OK;
}

void gpu_fft_plan_destroy(kiln_backend_device *device, kiln_backend_fft_plan *plan) {
  if (!plan) return;
  if (gpu_enter(device) == KILN_OK) {
    device->runtime->fft->plan_destroy(plan->vendor);
    gpu_leave(device);
  }
  free(plan);
}
