/* backends/opencl/opencl_fft.h: the OpenCL backend's two FFT libraries
 * (internal): clFFT (opencl_fft.c, dlopen'ed) and VkFFT (opencl_vkfft.c,
 * header-only, built in), each with the shape of backend.h's fft_* slots;
 * opencl_fft_select.c implements the slots by choosing one per device
 * ($KILN_OPENCL_FFT, read when the device is opened; docs/fft.md). */
#ifndef KILN_BACKENDS_OPENCL_FFT_H
#define KILN_BACKENDS_OPENCL_FFT_H

#include "backends/opencl/opencl_backend.h"

typedef enum kiln_opencl_fft_library {
  KILN_OPENCL_FFT_AUTO = 0, /* VkFFT where built in, else clFFT */
  KILN_OPENCL_FFT_VKFFT,
  KILN_OPENCL_FFT_CLFFT,
  KILN_OPENCL_FFT_BAD /* an unknown $KILN_OPENCL_FFT: every FFT call fails naming it */
} kiln_opencl_fft_library;

/* $KILN_OPENCL_FFT as a library ("", "auto", "vkfft", "clfft"). */
kiln_opencl_fft_library kiln_opencl_fft_library_from_env(void);

typedef struct kiln_opencl_clfft_plan kiln_opencl_clfft_plan;
kiln_status kiln_opencl_clfft_describe(kiln_backend_device *device, char *text, size_t size);
kiln_status kiln_opencl_clfft_plan_create(kiln_backend_device *device, const kiln_backend_fft *fft,
                                          kiln_opencl_clfft_plan **plan, size_t *work_bytes);
kiln_status kiln_opencl_clfft_execute(kiln_backend_device *device, kiln_backend_stream *stream,
                                      kiln_opencl_clfft_plan *plan, kiln_backend_buffer *in,
                                      uint64_t in_offset, kiln_backend_buffer *out,
                                      uint64_t out_offset, kiln_backend_buffer *work, int sign);
void kiln_opencl_clfft_plan_destroy(kiln_opencl_clfft_plan *plan);

/* VkFFT: *work_bytes of scratch from the pool for a plan that takes
 * several uploads along an axis (four-step, large Bluestein), else 0; its
 * programs through fft->programs (opencl_vkfft_programs.h). Without
 * vkFFT.h at build time each call is UNAVAILABLE saying so. */
typedef struct kiln_opencl_vkfft_plan kiln_opencl_vkfft_plan;
kiln_status kiln_opencl_vkfft_describe(kiln_backend_device *device, char *text, size_t size);
kiln_status kiln_opencl_vkfft_plan_create(kiln_backend_device *device, const kiln_backend_fft *fft,
                                          kiln_opencl_vkfft_plan **plan, size_t *work_bytes);
kiln_status kiln_opencl_vkfft_execute(kiln_backend_device *device, kiln_backend_stream *stream,
                                      kiln_opencl_vkfft_plan *plan, kiln_backend_buffer *in,
                                      uint64_t in_offset, kiln_backend_buffer *out,
                                      uint64_t out_offset, kiln_backend_buffer *work, int sign);
void kiln_opencl_vkfft_plan_destroy(kiln_opencl_vkfft_plan *plan);
/* Nonzero when vkFFT.h was found at build time. */
int kiln_opencl_vkfft_built_in(void);

#endif
