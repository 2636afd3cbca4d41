/* backends/gpu/gpu_fft_symbols.h: the cuFFT / hipFFT entry points the CUDA
 * and HIP backends call, one line each: X(return type, name after the
 * library's prefix, (parameters)), H being the plan handle's type (int for
 * cuFFT, a pointer for hipFFT). hipFFT mirrors cuFFT: the same names after
 * "hipfft" / "cufft", the same enum values (cufft.h, hipfft.h: ABI), so one
 * table serves both and building needs neither SDK. */
#ifndef KILN_BACKENDS_GPU_FFT_SYMBOLS_H
#define KILN_BACKENDS_GPU_FFT_SYMBOLS_H

#include <stddef.h>

/* cufftType / hipfftType */
#define KILN_GPU_FFT_R2C 0x2a
#define KILN_GPU_FFT_C2R 0x2c
#define KILN_GPU_FFT_C2C 0x29
#define KILN_GPU_FFT_D2Z 0x6a
#define KILN_GPU_FFT_Z2D 0x6c
#define KILN_GPU_FFT_Z2Z 0x69

#define KILN_GPU_FFT_REQUIRED(X, H)                                                    \
  X(int, Create, (H * plan))                                                           \
  X(int, Destroy, (H plan))                                                            \
  X(int, SetAutoAllocation, (H plan, int automatic))                                   \
  X(int, MakePlanMany64,                                                               \
    (H plan, int rank, long long *n, long long *inembed, long long istride,            \
     long long idist, long long *onembed, long long ostride, long long odist, int type, \
     long long batch, size_t *work_size))                                              \
  X(int, SetWorkArea, (H plan, void *work))                                            \
  X(int, SetStream, (H plan, void *stream))                                            \
  X(int, ExecC2C, (H plan, void *in, void *out, int direction))                        \
  X(int, ExecZ2Z, (H plan, void *in, void *out, int direction))                        \
  X(int, ExecR2C, (H plan, void *in, void *out))                                       \
  X(int, ExecD2Z, (H plan, void *in, void *out))                                       \
  X(int, ExecC2R, (H plan, void *in, void *out))                                       \
  X(int, ExecZ2D, (H plan, void *in, void *out))

#define KILN_GPU_FFT_OPTIONAL(X, H) X(int, GetVersion, (int *version))

#endif
