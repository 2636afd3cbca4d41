/* backends/cuda/cuda_compile.h: compiling kernel source with NVRTC
 * (internal to backends/cuda). */
#ifndef KILN_BACKENDS_CUDA_COMPILE_H
#define KILN_BACKENDS_CUDA_COMPILE_H

#include <stddef.h>

#include "kiln/status.h"

/* gpu_runtime.compile for a device of `architecture` ("sm_XY"): a CUBIN for
 * exactly sm_XY when this NVRTC supports it, otherwise PTX for the newest
 * compute_XY it supports that is not newer than the device (the driver
 * compiles that PTX at load time). UNAVAILABLE when NVRTC only supports
 * newer devices. Options given to NVRTC: --gpu-architecture=<target>,
 * --std=c++17, then the user's options. A source that does not compile is
 * COMPILE, with NVRTC's log in the message and in *log. */
kiln_status cuda_compile(const char *architecture, const char *source,
                         const char *options, void **binary, size_t *size,
                         char **log);

/* backend.h's compile_for_target: target "sm_XY" (optionally with NVRTC's
 * "a"/"f" suffix; a CUBIN) or "compute_XY" (PTX); needs only NVRTC.
 * INVALID_ARGUMENT for any other name or one this NVRTC does not support. */
kiln_status cuda_compile_for_target(const char *source, const char *options,
                                    const char *target, size_t *binary_size,
                                    char **log);

#endif
