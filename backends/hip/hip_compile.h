/* backends/hip/hip_compile.h: compiling kernel source with hiprtc
 * (internal to backends/hip). */
#ifndef KILN_BACKENDS_HIP_COMPILE_H
#define KILN_BACKENDS_HIP_COMPILE_H

#include <stddef.h>

#include "kiln/status.h"

/* gpu_runtime.compile for a device whose runtime reported `architecture`
 * (gcnArchName, e.g. "gfx90a:sramecc+:xnack-"): a code object from hiprtc
 * with --offload-arch=<architecture>, -std=c++17, then the user's options.
 * A source that does not compile is COMPILE, with hiprtc's log in the
 * message and in *log. */
kiln_status hip_compile(const char *architecture, const char *source,
                        const char *options, void **binary, size_t *size,
                        char **log);

/* backend.h's compile_for_target, for the targets known to compile with
 * every hiprtc kiln loads: gfx900, gfx906, gfx908, gfx90a, gfx1030. Any
 * other name is INVALID_ARGUMENT without reaching hiprtc: some hiprtc
 * builds (Debian's ROCm 5.2) abort the whole process on a target they do
 * not know. Needs only hiprtc. */
kiln_status hip_compile_for_target(const char *source, const char *options,
                                   const char *target, size_t *binary_size,
                                   char **log);

#endif
