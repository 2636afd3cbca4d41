/* backends/cuda/cuda_compile.c: NVRTC behind the shared compile flow of
 * backends/gpu/gpu_compiler.h: the choice of target, and one wrapper per
 * NVRTC call.
 *
 * For a device of architecture sm_XY: a CUBIN for exactly sm_XY when this
 * NVRTC supports it, otherwise PTX for the newest compute_XY it supports
 * that is not newer than the device (the driver compiles that PTX at load
 * time); UNAVAILABLE when NVRTC only supports newer devices. For
 * compile_for_target: "sm_XY" (optionally with NVRTC's "a"/"f" suffix; a
 * CUBIN) or "compute_XY" (PTX); INVALID_ARGUMENT for any other name or one
 * this NVRTC does not support.
 *
 * The kernel language is compiled as C++17 (NVRTC's default since CUDA 12,
 * asked for explicitly so NVRTC 11 agrees): the prelude uses a small
 * template for LOCAL parameters and marks every function itself, so no
 * -default-device is needed. NVRTC is thread-safe; no lock is taken. */
#include <stdio.h>
#include <string.h>

#include "backends/cuda/cuda_backend.h"
#include "backends/cuda/cuda_status.h"

#define MAX_SUPPORTED_ARCHS 256

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

static kiln_status load(void) {
  const cuda_nvrtc_symbols *nvrtc = NULL;
  return cuda_nvrtc_load(&nvrtc);
}

static kiln_status target_for_device(const char *architecture, gpu_compile_target *target) {
  KILN_RETURN_IF_ERROR(load());
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
  int cubin = have_cubin && chosen == device;
  target->image = cubin ? GPU_IMAGE_NATIVE : GPU_IMAGE_PTX;
  snprintf(target->option, sizeof target->option, "--gpu-architecture=%s_%d",
           cubin ? "sm" : "compute", chosen);
  return KILN_OK;
}

static kiln_status target_for_name(const char *name, gpu_compile_target *target) {
  KILN_RETURN_IF_ERROR(load());
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
  cubin = cubin && cuda_nvrtc()->nvrtcGetCUBIN && cuda_nvrtc()->nvrtcGetCUBINSize;
  target->image = cubin ? GPU_IMAGE_NATIVE : GPU_IMAGE_PTX;
  if (suffix)
    snprintf(target->option, sizeof target->option, "--gpu-architecture=%s_%d%c",
             cubin ? "sm" : "compute", number, suffix);
  else
    snprintf(target->option, sizeof target->option, "--gpu-architecture=%s_%d",
             cubin ? "sm" : "compute", number);
  return KILN_OK;
}

static kiln_status nvrtc_program_create(gpu_program *program, const char *source) {
  nvrtcProgram created = NULL;
  KILN_RETURN_IF_ERROR(
      NVRTC_CALL(nvrtcCreateProgram, (&created, source, "kernel.cu", 0, NULL, NULL)));
  *program = created;
  return KILN_OK;
}

static kiln_status nvrtc_program_compile(gpu_program program, int count,
                                         const char *const *options, const char **error_name) {
  nvrtcResult result = cuda_nvrtc()->nvrtcCompileProgram(program, count, options);
  if (result == NVRTC_SUCCESS) return KILN_OK;
  *error_name = cuda_nvrtc()->nvrtcGetErrorString(result);
  return cuda_nvrtc_status(result, "nvrtcCompileProgram");
}

static kiln_status nvrtc_log_size(gpu_program program, size_t *size) {
  return NVRTC_CALL(nvrtcGetProgramLogSize, (program, size));
}

static kiln_status nvrtc_log(gpu_program program, char *log) {
  return NVRTC_CALL(nvrtcGetProgramLog, (program, log));
}

static kiln_status nvrtc_image_size(gpu_program program, gpu_image image, size_t *size) {
  if (image == GPU_IMAGE_PTX) return NVRTC_CALL(nvrtcGetPTXSize, (program, size));
  return NVRTC_CALL(nvrtcGetCUBINSize, (program, size));
}

static kiln_status nvrtc_image(gpu_program program, gpu_image image, char *bytes) {
  if (image == GPU_IMAGE_PTX) return NVRTC_CALL(nvrtcGetPTX, (program, bytes));
  return NVRTC_CALL(nvrtcGetCUBIN, (program, bytes));
}

static void nvrtc_program_destroy(gpu_program program) {
  nvrtcProgram doomed = program;
  cuda_nvrtc()->nvrtcDestroyProgram(&doomed);
}

const gpu_compiler kiln_cuda_compiler = {
    .backend = "cuda",
    .name = "NVRTC",
    .standard = "--std=c++17",
    .compile_call = "nvrtcCompileProgram",
    .native_image = "CUBIN",
    .strict_fp = "--fmad=false",
    .target_for_device = target_for_device,
    .target_for_name = target_for_name,
    .program_create = nvrtc_program_create,
    .program_compile = nvrtc_program_compile,
    .log_size = nvrtc_log_size,
    .log = nvrtc_log,
    .image_size = nvrtc_image_size,
    .image = nvrtc_image,
    .program_destroy = nvrtc_program_destroy,
};
