/* backends/cuda/cuda_backend.h: the CUDA backend's pieces that other files
 * of backends/cuda reach (internal). Outside backends/cuda only the ops
 * table kiln_backend_cuda (backend.h) exists. */
#ifndef KILN_BACKENDS_CUDA_BACKEND_H
#define KILN_BACKENDS_CUDA_BACKEND_H

#include "backends/gpu/gpu_compiler.h"
#include "backends/gpu/gpu_runtime.h"

/* The CUDA Driver API + NVRTC behind the shared GPU layer
 * (cuda_runtime.c). */
extern const gpu_runtime kiln_cuda_gpu;

/* cuBLAS (cuda_blas.c), the runtime's optional vendor BLAS. */
extern const gpu_blas kiln_cuda_blas;
/* cuFFT (cuda_fft.c), the runtime's optional vendor FFT. */
extern const gpu_fft kiln_cuda_fft;

/* NVRTC and CUDA's choice of target behind the shared compile flow
 * (cuda_compile.c). */
extern const gpu_compiler kiln_cuda_compiler;

#endif
