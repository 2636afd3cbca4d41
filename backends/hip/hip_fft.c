/* backends/hip/hip_fft.c: hipFFT as the HIP backend's gpu_fft, loaded at
 * run time: $KILN_HIPFFT_PATH when set, then libhipfft.so.0 from the
 * library path, then /opt/rocm/lib (hipFFT runs rocFFT underneath on AMD
 * GPUs). Compile and load checks only: no AMD GPU is lent. */
#include "backends/hip/hip_backend.h"

#define ROCM_LIBRARY_DIR "/opt/rocm/lib/"
#define GPU_FFT_HANDLE void *
#define GPU_FFT_PREFIX "hipfft"
#define GPU_FFT_LIBRARY "hipFFT"
#define GPU_FFT_BACKEND "hip"
#define GPU_FFT_NAMES \
  {getenv("KILN_HIPFFT_PATH"), "libhipfft.so.0", ROCM_LIBRARY_DIR "libhipfft.so.0"}
#define GPU_FFT_TABLE kiln_hip_fft
#include "backends/gpu/gpu_fft_vendor.inc"
