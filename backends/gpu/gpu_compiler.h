/* backends/gpu/gpu_compiler.h: the vendor-neutral run-time compiler table
 * behind the CUDA and HIP backends (NVRTC, hiprtc), and the one compile flow
 * over it (internal to backends/gpu, cuda and hip).
 *
 * NVRTC and hiprtc mirror each other call for call, so everything that is
 * logic lives once, in gpu_compiler.c: splitting the user's options into
 * words, the argument vector (target option, language standard, the user's
 * words), creating, compiling and destroying the program, fetching its log
 * and its image, holding the backend's lock if it has one, and turning a
 * failure into a status whose message carries the compiler's log. Each
 * backend (backends/<name>/<name>_compile.c) keeps what differs: the choice
 * of target (with the loading of its compiler library, which that choice
 * may need), the lock if its compiler needs one, and one small wrapper per
 * compiler call that fills the table below.
 *
 * Every call returns KILN_OK or a failure status whose detail names the
 * compiler call and its error name, as the driver calls of gpu_runtime.h. */
#ifndef KILN_BACKENDS_GPU_COMPILER_H
#define KILN_BACKENDS_GPU_COMPILER_H

#include <pthread.h>
#include <stddef.h>

#include "kiln/kiln.h"

typedef void *gpu_program; /* nvrtcProgram / hiprtcProgram */

/* Which image of a compiled program to fetch. */
typedef enum gpu_image {
  GPU_IMAGE_NATIVE = 0, /* machine code for the target: CUBIN, code object */
  GPU_IMAGE_PTX         /* NVIDIA's virtual ISA, compiled by the driver at load */
} gpu_image;

/* What to compile for, as the backend chooses it. */
typedef struct gpu_compile_target {
  char option[96]; /* "--gpu-architecture=sm_90", "--offload-arch=gfx90a" */
  gpu_image image;
} gpu_compile_target;

typedef struct gpu_compiler {
  const char *backend;  /* prefix of messages: "cuda", "hip" */
  const char *name;     /* the compiler in messages: "NVRTC", "hiprtc" */
  const char *standard; /* the language-standard option: "--std=c++17" */
  const char *compile_call;  /* in messages: "nvrtcCompileProgram" */
  const char *native_image;  /* what GPU_IMAGE_NATIVE is called: "CUBIN" */
  /* added when the options define KILN_STRICT_FP (reductions: no
   * floating-point contraction into FMAs): "--fmad=false" */
  const char *strict_fp;
  pthread_mutex_t *lock;     /* NULL, or held around every compilation */

  /* Load the compiler library (if not yet) and choose the target: for a
   * device that reported `architecture` (INTERNAL for one the backend does
   * not recognise), or for a compile_for_target name (INVALID_ARGUMENT for
   * one the backend refuses: such a name never reaches the compiler). */
  kiln_status (*target_for_device)(const char *architecture,
                                   gpu_compile_target *target);
  kiln_status (*target_for_name)(const char *name, gpu_compile_target *target);

  kiln_status (*program_create)(gpu_program *program, const char *source);
  /* On failure *error_name receives the compiler's name of its error (NULL
   * if it has none); the caller writes the message, with the log. */
  kiln_status (*program_compile)(gpu_program program, int count,
                                 const char *const *options,
                                 const char **error_name);
  kiln_status (*log_size)(gpu_program program, size_t *size);
  kiln_status (*log)(gpu_program program, char *log);
  kiln_status (*image_size)(gpu_program program, gpu_image image,
                            size_t *size);
  kiln_status (*image)(gpu_program program, gpu_image image, char *bytes);
  void (*program_destroy)(gpu_program program);
} gpu_compiler;

/* gpu_runtime.compile through `compiler`: its target for the device, then
 * the flow above. A source that does not compile is the status of the
 * compiler's error (COMPILE for a compilation error) with the message
 * "<compile_call> with <target option>: <error name>" and the log on the
 * next lines. */
kiln_status gpu_compile(const gpu_compiler *compiler, const char *architecture,
                        const char *source, const char *options,
                        void **binary, size_t *size, char **log);

/* backend.h's compile_for_target through `compiler`: its target for the
 * name, then the flow above, keeping only the image's size; failures of the
 * compilation are prefixed "<backend>: compiling for <target>". */
kiln_status gpu_compile_for_target(const gpu_compiler *compiler,
                                   const char *source, const char *options,
                                   const char *target, size_t *binary_size,
                                   char **log);

#endif
