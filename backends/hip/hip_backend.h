/* backends/hip/hip_backend.h: the HIP backend's pieces that other files of
 * backends/hip reach (internal). Outside backends/hip only the ops table
 * kiln_backend_hip (backend.h) exists. */
#ifndef KILN_BACKENDS_HIP_BACKEND_H
#define KILN_BACKENDS_HIP_BACKEND_H

#include "backends/gpu/gpu_compiler.h"
#include "backends/gpu/gpu_runtime.h"

/* The HIP runtime + hiprtc behind the shared GPU layer (hip_runtime.c). */
extern const gpu_runtime kiln_hip_gpu;

/* rocBLAS (hip_blas.c), the runtime's optional vendor BLAS. */
extern const gpu_blas kiln_hip_blas;
/* hipFFT (hip_fft.c), the runtime's optional vendor FFT. */
extern const gpu_fft kiln_hip_fft;

/* hiprtc and HIP's choice of target behind the shared compile flow
 * (hip_compile.c). */
extern const gpu_compiler kiln_hip_compiler;

#endif
