/* backends/opencl/opencl_fft_select.c: the OpenCL backend's fft_* slots,
 * handing each call to the library the device uses: $KILN_OPENCL_FFT, read
 * when the device is opened (so one process can compare both, as
 * bench/fft_bench does): "auto" (or unset) VkFFT where it is built in, else
 * clFFT; "vkfft"; "clfft". docs/fft.md gives the figures behind the
 * default. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/opencl/opencl_fft.h"
#include "core/runtime/error.h"

struct kiln_backend_fft_plan {
  kiln_opencl_clfft_plan *clfft; /* exactly one of the two */
  kiln_opencl_vkfft_plan *vkfft;
};

kiln_opencl_fft_library kiln_opencl_fft_library_from_env(void) {
  const char *v = getenv("KILN_OPENCL_FFT");
  if (!v || !*v || strcmp(v, "auto") == 0) return KILN_OPENCL_FFT_AUTO;
  if (strcmp(v, "vkfft") == 0) return KILN_OPENCL_FFT_VKFFT;
  if (strcmp(v, "clfft") == 0) return KILN_OPENCL_FFT_CLFFT;
  return KILN_OPENCL_FFT_BAD;
}

/* The device's library; INVALID_ARGUMENT for a bad setting. */
static kiln_status library_of(kiln_backend_device *device, kiln_opencl_fft_library *library) {
  *library = (kiln_opencl_fft_library)device->fft_library;
  if (*library == KILN_OPENCL_FFT_AUTO)
    *library = kiln_opencl_vkfft_built_in() ? KILN_OPENCL_FFT_VKFFT : KILN_OPENCL_FFT_CLFFT;
  if (*library != KILN_OPENCL_FFT_BAD) return KILN_OK;
  const char *v = getenv("KILN_OPENCL_FFT");
  return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                        "opencl: KILN_OPENCL_FFT=%s: expected auto, vkfft or clfft", v ? v : "");
}

kiln_status kiln_opencl_fft_describe(kiln_backend_device *device, char *text, size_t size) {
  kiln_opencl_fft_library library;
  kiln_status status = library_of(device, &library);
  if (status != KILN_OK) {
    snprintf(text, size, "%s", kiln_last_error());
    return status;
  }
  return library == KILN_OPENCL_FFT_VKFFT ? kiln_opencl_vkfft_describe(device, text, size)
                                          : kiln_opencl_clfft_describe(device, text, size);
}

kiln_status kiln_opencl_fft_plan_create(kiln_backend_device *device, const kiln_backend_fft *fft,
                                        kiln_backend_fft_plan **plan, size_t *work_bytes) {
  *plan = NULL;
  *work_bytes = 0;
  kiln_opencl_fft_library library;
  KILN_RETURN_IF_ERROR(library_of(device, &library));
  kiln_backend_fft_plan *p = calloc(1, sizeof *p);
  if (!p) return kiln_error_set(KILN_ERROR_OUT_OF_MEMORY, "opencl: no memory for an FFT plan");
  kiln_status status = library == KILN_OPENCL_FFT_VKFFT
                           ? kiln_opencl_vkfft_plan_create(device, fft, &p->vkfft, work_bytes)
                           : kiln_opencl_clfft_plan_create(device, fft, &p->clfft, work_bytes);
  if (status != KILN_OK) {
    free(p);
    return status;
  }
  *plan = p;
  return KILN_OK;
}

kiln_status kiln_opencl_fft_execute(kiln_backend_device *device, kiln_backend_stream *stream,
                                    kiln_backend_fft_plan *plan, kiln_backend_buffer *in,
                                    uint64_t in_offset, kiln_backend_buffer *out,
                                    uint64_t out_offset, kiln_backend_buffer *work, int sign) {
  if (plan->vkfft)
    return kiln_opencl_vkfft_execute(device, stream, plan->vkfft, in, in_offset, out, out_offset,
                                     work, sign);
  return kiln_opencl_clfft_execute(device, stream, plan->clfft, in, in_offset, out, out_offset,
                                   work, sign);
}

void kiln_opencl_fft_plan_destroy(kiln_backend_device *device, kiln_backend_fft_plan *plan) {
  (void)device;
  if (!plan) return;
  kiln_opencl_vkfft_plan_destroy(plan->vkfft);
  kiln_opencl_clfft_plan_destroy(plan->clfft);
  free(plan);
}
