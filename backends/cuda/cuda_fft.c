/* backends/cuda/cuda_fft.c: cuFFT as the CUDA backend's gpu_fft, loaded at
 * run time: $KILN_CUFFT_PATH when set, then libcufft.so.12 (CUDA 12 and
 * the CUDA 13 toolkit ship cuFFT 12) and .11 from the library path, then
 * the same names in /usr/local/cuda/lib64. cuFFT works in the current
 * context: the backend's primary context, entered around each call. */
#include "backends/cuda/cuda_backend.h"

#define CUDA_TOOLKIT_LIBRARY_DIR "/usr/local/cuda/lib64/"
#define GPU_FFT_HANDLE int
#define GPU_FFT_PREFIX "cufft"
#define GPU_FFT_LIBRARY "cuFFT"
#define GPU_FFT_BACKEND "cuda"
#define GPU_FFT_NAMES                                                                  \
  {getenv("KILN_CUFFT_PATH"), "libcufft.so.12", "libcufft.so.11",                      \
   CUDA_TOOLKIT_LIBRARY_DIR "libcufft.so.12", CUDA_TOOLKIT_LIBRARY_DIR "libcufft.so.11"}
#define GPU_FFT_TABLE kiln_cuda_fft
#include "backends/gpu/gpu_fft_vendor.inc"
