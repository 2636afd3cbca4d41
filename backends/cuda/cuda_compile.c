/* backends/cuda/cuda_compile.c: NVRTC compilation and the choice of target.
 *
 * The kernel language is compiled as C++17 (NVRTC's default since CUDA 12,
 * asked for explicitly so NVRTC 11 agrees): the prelude uses a small
 * template for LOCAL parameters and marks every function itself, so no
 * -default-device is needed. NVRTC is thread-safe; no lock is taken. */
#include "backends/cuda/cuda_compile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cuda/cuda_status.h"
#include "backends/gpu/gpu_options.h"

#define MAX_SUPPORTED_ARCHS 256

typedef struct nvrtc_target {
  char option[64]; /* --gpu-architecture=... */
  int cubin;       /* 1: CUBIN for sm_XY; 0: PTX for compute_XY */
} nvrtc_target;

/* Parses "<prefix><digits>[a|f]" into the number; -1 when malformed. */
static int parse_architecture(const char *text, const char *prefix, char *suffix) {
  size_t n = strlen(prefix);
  if (strncmp(text, prefix, n) != 0) return -1;
  const char *p = text + n;
  int number = 0, digits = 0;
  while (*p >= '0' && *p <= '9' && digits < 4) number = number * 10 + (*p++ - '0'), digits++;
  if (digits < 2) return -1;
  *suffix = 0;
  if (*p == 'a' || *p == 'f') *suffix = *p++;
  return *p ? -1 : number;
}

/* The architectures this NVRTC supports, ascending; *count 0 when it cannot
 * say (before 11.2). */
static kiln_status supported_architectures(int *list, int *count) {
  const cuda_nvrtc_symbols *nvrtc = cuda_nvrtc();
  *count = 0;
  if (!nvrtc->nvrtcGetNumSupportedArchs || !nvrtc->nvrtcGetSupportedArchs) return KILN_OK;
  int n = 0;
  KILN_RETURN_IF_ERROR(NVRTC_CALL(nvrtcGetNumSupportedArchs, (&n)));
  if (n <= 0 || n > MAX_SUPPORTED_ARCHS) return KILN_OK;
  KILN_RETURN_IF_ERROR(NVRTC_CALL(nvrtcGetSupportedArchs, (list)));
  *count = n;
  return KILN_OK;
}

static void nvrtc_version(int *major, int *minor) {
  *major = *minor = 0;
  if (NVRTC_CALL(nvrtcVersion, (major, minor)) != KILN_OK) *major = *minor = 0;
}

static kiln_status target_for_device(const char *architecture, nvrtc_target *target) {
  char suffix = 0;
  int device = parse_architecture(architecture, "sm_", &suffix);
  if (device < 0)
    return kiln_error_set(KILN_ERROR_INTERNAL, "cuda: odd device architecture \"%s\"",
                          architecture);
  int list[MAX_SUPPORTED_ARCHS], count = 0;
  KILN_RETURN_IF_ERROR(supported_architectures(list, &count));
  int have_cubin = cuda_nvrtc()->nvrtcGetCUBIN && cuda_nvrtc()->nvrtcGetCUBINSize;
  int chosen = device;
  if (count > 0) {
    chosen = -1;
    for (int i = 0; i < count; i++)
      if (list[i] <= device && list[i] > chosen) chosen = list[i];
    if (chosen < 0) {
      int major, minor;
      nvrtc_version(&major, &minor);
      return kiln_error_set(KILN_ERROR_UNAVAILABLE,
                            "cuda: NVRTC %d.%d compiles for sm_%d and newer only; the "
                            "device is %s (set KILN_NVRTC_PATH to an older NVRTC)",
                            major, minor, list[0], architecture);
    }
  }
  target->cubin = have_cubin && chosen == device;
  snprintf(target->option, sizeof target->option, "--gpu-architecture=%s_%d",
           target->cubin ? "sm" : "compute", chosen);
  return KILN_OK;
}

static kiln_status target_for_name(const char *name, nvrtc_target *target) {
  char suffix = 0;
  int cubin = 1;
  int number = parse_architecture(name, "sm_", &suffix);
  if (number < 0) {
    cubin = 0;
    number = parse_architecture(name, "compute_", &suffix);
  }
  if (number < 0)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "cuda: \"%s\" is not a CUDA target (sm_XY or compute_XY)", name);
  int list[MAX_SUPPORTED_ARCHS], count = 0;
  KILN_RETURN_IF_ERROR(supported_architectures(list, &count));
  int supported = count == 0;
  for (int i = 0; i < count; i++) supported |= list[i] == number;
  if (!supported) {
    int major, minor;
    nvrtc_version(&major, &minor);
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "cuda: NVRTC %d.%d cannot compile for %s (it supports sm_%d to sm_%d)",
                          major, minor, name, list[0], list[count - 1]);
  }
  /* without the CUBIN API the size reported is that of the PTX */
  target->cubin = cubin && cuda_nvrtc()->nvrtcGetCUBIN && cuda_nvrtc()->nvrtcGetCUBINSize;
  if (suffix)
    snprintf(target->option, sizeof target->option, "--gpu-architecture=%s_%d%c",
             target->cubin ? "sm" : "compute", number, suffix);
  else
    snprintf(target->option, sizeof target->option, "--gpu-architecture=%s_%d",
             target->cubin ? "sm" : "compute", number);
  return KILN_OK;
}

/* NVRTC's log as a malloc'd string (never NULL unless out of memory). */
static char *program_log(nvrtcProgram program) {
  size_t size = 0;
  if (NVRTC_CALL(nvrtcGetProgramLogSize, (program, &size)) != KILN_OK) size = 0;
  char *log = malloc(size + 1);
  if (!log) return NULL;
  log[0] = '\0';
  if (size > 0 && NVRTC_CALL(nvrtcGetProgramLog, (program, log)) != KILN_OK) log[0] = '\0';
  log[size] = '\0';
  /* trailing newlines and NUL padding make messages ragged */
  size_t length = strlen(log);
  while (length > 0 && (log[length - 1] == '\n' || log[length - 1] == '\r')) log[--length] = '\0';
  return log;
}

/* The compiled image: CUBIN or PTX (with its NUL). */
static kiln_status program_image(nvrtcProgram program, int cubin, void **binary,
                                 size_t *size) {
  size_t bytes = 0;
  if (cubin)
    KILN_RETURN_IF_ERROR(NVRTC_CALL(nvrtcGetCUBINSize, (program, &bytes)));
  else
    KILN_RETURN_IF_ERROR(NVRTC_CALL(nvrtcGetPTXSize, (program, &bytes)));
  if (bytes == 0)
    return kiln_error_set(KILN_ERROR_INTERNAL, "NVRTC returned an empty %s",
                          cubin ? "CUBIN" : "PTX");
  char *image = malloc(bytes);
  if (!image)
    return kiln_error_set(KILN_ERROR_OUT_OF_MEMORY, "out of host memory for %zu bytes of %s",
                          bytes, cubin ? "CUBIN" : "PTX");
  kiln_status status = cubin ? NVRTC_CALL(nvrtcGetCUBIN, (program, image))
                             : NVRTC_CALL(nvrtcGetPTX, (program, image));
  if (status != KILN_OK) {
    free(image);
    return status;
  }
  *binary = image;
  *size = bytes;
  return KILN_OK;
}

/* Compiles source for target; *log (if log) receives NVRTC's log. */
static kiln_status nvrtc_build(const char *source, const char *options,
                               const nvrtc_target *target, void **binary,
                               size_t *size, char **log) {
  char **words = NULL, *text = NULL;
  const char **argv = NULL;
  int count = 0, have_program = 0;
  nvrtcProgram program = NULL;
  kiln_status status = gpu_options_split(options, &words, &count);
  if (status != KILN_OK) goto cleanup;
  argv = malloc(((size_t)count + 2) * sizeof *argv);
  if (!argv) {
    status = kiln_error_set(KILN_ERROR_OUT_OF_MEMORY, "out of host memory for options");
    goto cleanup;
  }
  argv[0] = target->option;
  argv[1] = "--std=c++17";
  for (int i = 0; i < count; i++) argv[2 + i] = words[i];

  status = NVRTC_CALL(nvrtcCreateProgram, (&program, source, "kernel.cu", 0, NULL, NULL));
  if (status != KILN_OK) goto cleanup;
  have_program = 1;
  nvrtcResult compiled = cuda_nvrtc()->nvrtcCompileProgram(program, count + 2, argv);
  text = program_log(program);
  if (compiled != NVRTC_SUCCESS) {
    status = cuda_nvrtc_status(compiled, "nvrtcCompileProgram");
    const char *name = cuda_nvrtc()->nvrtcGetErrorString(compiled);
    status = kiln_error_set(status, "nvrtcCompileProgram with %s: %s%s%s", target->option,
                            name ? name : "failed", text && text[0] ? "\n" : "",
                            text ? text : "");
    goto cleanup;
  }
  status = program_image(program, target->cubin, binary, size);

cleanup:
  if (have_program) {
    nvrtcProgram doomed = program;
    cuda_nvrtc()->nvrtcDestroyProgram(&doomed);
  }
  if (log) {
    *log = text;
    text = NULL;
  }
  free(text);
  free(argv);
  free(words);
  return status;
}

kiln_status cuda_compile(const char *architecture, const char *source,
                         const char *options, void **binary, size_t *size,
                         char **log) {
  nvrtc_target target;
  *binary = NULL;
  *size = 0;
  if (log) *log = NULL;
  const cuda_nvrtc_symbols *nvrtc = NULL;
  KILN_RETURN_IF_ERROR(cuda_nvrtc_load(&nvrtc));
  KILN_RETURN_IF_ERROR(target_for_device(architecture, &target));
  return nvrtc_build(source, options, &target, binary, size, log);
}

kiln_status cuda_compile_for_target(const char *source, const char *options,
                                    const char *target, size_t *binary_size,
                                    char **log) {
  if (binary_size) *binary_size = 0;
  if (log) *log = NULL;
  KILN_CHECK_ARG(source);
  KILN_CHECK_ARG(target);
  const cuda_nvrtc_symbols *nvrtc = NULL;
  KILN_RETURN_IF_ERROR(cuda_nvrtc_load(&nvrtc));
  nvrtc_target chosen;
  KILN_RETURN_IF_ERROR(target_for_name(target, &chosen));
  void *binary = NULL;
  size_t size = 0;
  kiln_status status = nvrtc_build(source, options, &chosen, &binary, &size, log);
  free(binary);
  if (status != KILN_OK) return kiln_error_prefix(status, "cuda: compiling for %s", target);
  if (binary_size) *binary_size = size;
  return KILN_OK;
}
