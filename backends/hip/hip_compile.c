/* backends/hip/hip_compile.c: hiprtc behind the shared compile flow of
 * backends/gpu/gpu_compiler.h: the choice of target, the lock, and one
 * wrapper per hiprtc call.
 *
 * For a device, hiprtc gets --offload-arch=<the runtime's gcnArchName>
 * (e.g. "gfx90a:sramecc+:xnack-"). For compile_for_target, only the fixed
 * list below, each verified to compile with Debian's ROCm 5.2 hiprtc,
 * which aborts the whole process on targets it does not know (e.g. gfx1100
 * or gfx942): any other name is INVALID_ARGUMENT without reaching hiprtc.
 * Compilation is serialised: not every hiprtc release is safe to call from
 * several threads at once. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "backends/hip/hip_backend.h"
#include "backends/hip/hip_status.h"

static const char *const known_targets[] = {"gfx900", "gfx906", "gfx908", "gfx90a",
                                            "gfx1030"};

static pthread_mutex_t compile_lock = PTHREAD_MUTEX_INITIALIZER;

static kiln_status load(void) {
  const hip_rtc_symbols *rtc = NULL;
  return hip_rtc_load(&rtc);
}

static void offload_arch(const char *architecture, gpu_compile_target *target) {
  snprintf(target->option, sizeof target->option, "--offload-arch=%s", architecture);
  target->image = GPU_IMAGE_NATIVE;
}

static kiln_status target_for_device(const char *architecture, gpu_compile_target *target) {
  if (strncmp(architecture, "gfx", 3) != 0)
    return kiln_error_set(KILN_ERROR_INTERNAL, "hip: odd device architecture \"%s\"",
                          architecture);
  KILN_RETURN_IF_ERROR(load());
  offload_arch(architecture, target);
  return KILN_OK;
}

static kiln_status target_for_name(const char *name, gpu_compile_target *target) {
  int known = 0;
  for (size_t i = 0; i < sizeof known_targets / sizeof known_targets[0]; i++)
    known |= strcmp(name, known_targets[i]) == 0;
  if (!known)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "hip: \"%s\" is not a target kiln compiles for without its "
                          "device (gfx900, gfx906, gfx908, gfx90a, gfx1030): some "
                          "hiprtc releases abort on targets they do not know",
                          name);
  KILN_RETURN_IF_ERROR(load());
  offload_arch(name, target);
  return KILN_OK;
}

static kiln_status rtc_program_create(gpu_program *program, const char *source) {
  hiprtcProgram created = NULL;
  KILN_RETURN_IF_ERROR(
      HIPRTC_CALL(hiprtcCreateProgram, (&created, source, "kernel.hip", 0, NULL, NULL)));
  *program = created;
  return KILN_OK;
}

static kiln_status rtc_program_compile(gpu_program program, int count,
                                       const char *const *options, const char **error_name) {
  hiprtcResult result = hip_rtc()->hiprtcCompileProgram(program, count, options);
  if (result == HIPRTC_SUCCESS) return KILN_OK;
  *error_name = hip_rtc()->hiprtcGetErrorString(result);
  return hip_rtc_status(result, "hiprtcCompileProgram");
}

static kiln_status rtc_log_size(gpu_program program, size_t *size) {
  return HIPRTC_CALL(hiprtcGetProgramLogSize, (program, size));
}

static kiln_status rtc_log(gpu_program program, char *log) {
  return HIPRTC_CALL(hiprtcGetProgramLog, (program, log));
}

/* hiprtc makes only code objects (GPU_IMAGE_NATIVE) */
static kiln_status rtc_image_size(gpu_program program, gpu_image image, size_t *size) {
  (void)image;
  return HIPRTC_CALL(hiprtcGetCodeSize, (program, size));
}

static kiln_status rtc_image(gpu_program program, gpu_image image, char *bytes) {
  (void)image;
  return HIPRTC_CALL(hiprtcGetCode, (program, bytes));
}

static void rtc_program_destroy(gpu_program program) {
  hiprtcProgram doomed = program;
  hip_rtc()->hiprtcDestroyProgram(&doomed);
}

const gpu_compiler kiln_hip_compiler = {
    .backend = "hip",
    .name = "hiprtc",
    .standard = "-std=c++17",
    .compile_call = "hiprtcCompileProgram",
    .native_image = "code object",
    .strict_fp = "-ffp-contract=off",
    .lock = &compile_lock,
    .target_for_device = target_for_device,
    .target_for_name = target_for_name,
    .program_create = rtc_program_create,
    .program_compile = rtc_program_compile,
    .log_size = rtc_log_size,
    .log = rtc_log,
    .image_size = rtc_image_size,
    .image = rtc_image,
    .program_destroy = rtc_program_destroy,
};
