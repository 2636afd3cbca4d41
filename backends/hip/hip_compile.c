/* backends/hip/hip_compile.c: hiprtc compilation.
 *
 * hiprtc is only ever handed an architecture the runtime reported for a
 * real device, or one of the fixed list below, each verified to compile
 * with Debian's ROCm 5.2 hiprtc (which aborts the process on targets it
 * does not know, e.g. gfx1100 or gfx942). Compilation is serialised: not
 * every hiprtc release is safe to call from several threads at once. */
#include "backends/hip/hip_compile.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/gpu/gpu_options.h"
#include "backends/hip/hip_status.h"

static const char *const known_targets[] = {"gfx900", "gfx906", "gfx908", "gfx90a",
                                            "gfx1030"};

static pthread_mutex_t compile_lock = PTHREAD_MUTEX_INITIALIZER;

/* hiprtc's log as a malloc'd string without trailing newlines (NULL only
 * when out of memory). */
static char *program_log(hiprtcProgram program) {
  size_t size = 0;
  if (HIPRTC_CALL(hiprtcGetProgramLogSize, (program, &size)) != KILN_OK) size = 0;
  char *log = malloc(size + 1);
  if (!log) return NULL;
  log[0] = '\0';
  if (size > 0 && HIPRTC_CALL(hiprtcGetProgramLog, (program, log)) != KILN_OK) log[0] = '\0';
  log[size] = '\0';
  size_t length = strlen(log);
  while (length > 0 && (log[length - 1] == '\n' || log[length - 1] == '\r')) log[--length] = '\0';
  return log;
}

static kiln_status program_code(hiprtcProgram program, void **binary, size_t *size) {
  size_t bytes = 0;
  KILN_RETURN_IF_ERROR(HIPRTC_CALL(hiprtcGetCodeSize, (program, &bytes)));
  if (bytes == 0)
    return kiln_error_set(KILN_ERROR_INTERNAL, "hiprtc returned an empty code object");
  char *code = malloc(bytes);
  if (!code)
    return kiln_error_set(KILN_ERROR_OUT_OF_MEMORY,
                          "out of host memory for a code object of %zu bytes", bytes);
  kiln_status status = HIPRTC_CALL(hiprtcGetCode, (program, code));
  if (status != KILN_OK) {
    free(code);
    return status;
  }
  *binary = code;
  *size = bytes;
  return KILN_OK;
}

/* Compiles source for architecture (already known to be safe); *log (if
 * log) receives hiprtc's log. Runs under compile_lock. */
static kiln_status rtc_build(const char *architecture, const char *source,
                             const char *options, void **binary, size_t *size,
                             char **log) {
  char **words = NULL, *text = NULL;
  const char **argv = NULL;
  char arch_option[96];
  int count = 0, have_program = 0;
  hiprtcProgram program = NULL;
  snprintf(arch_option, sizeof arch_option, "--offload-arch=%s", architecture);
  kiln_status status = gpu_options_split(options, &words, &count);
  if (status != KILN_OK) goto cleanup;
  argv = malloc(((size_t)count + 2) * sizeof *argv);
  if (!argv) {
    status = kiln_error_set(KILN_ERROR_OUT_OF_MEMORY, "out of host memory for options");
    goto cleanup;
  }
  argv[0] = arch_option;
  argv[1] = "-std=c++17";
  for (int i = 0; i < count; i++) argv[2 + i] = words[i];

  status = HIPRTC_CALL(hiprtcCreateProgram, (&program, source, "kernel.hip", 0, NULL, NULL));
  if (status != KILN_OK) goto cleanup;
  have_program = 1;
  hiprtcResult compiled = hip_rtc()->hiprtcCompileProgram(program, count + 2, argv);
  text = program_log(program);
  if (compiled != HIPRTC_SUCCESS) {
    status = hip_rtc_status(compiled, "hiprtcCompileProgram");
    const char *name = hip_rtc()->hiprtcGetErrorString(compiled);
    status = kiln_error_set(status, "hiprtcCompileProgram with %s: %s%s%s", arch_option,
                            name ? name : "failed", text && text[0] ? "\n" : "",
                            text ? text : "");
    goto cleanup;
  }
  status = program_code(program, binary, size);

cleanup:
  if (have_program) {
    hiprtcProgram doomed = program;
    hip_rtc()->hiprtcDestroyProgram(&doomed);
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

static kiln_status locked_build(const char *architecture, const char *source,
                                const char *options, void **binary, size_t *size,
                                char **log) {
  pthread_mutex_lock(&compile_lock);
  kiln_status status = rtc_build(architecture, source, options, binary, size, log);
  pthread_mutex_unlock(&compile_lock);
  return status;
}

kiln_status hip_compile(const char *architecture, const char *source,
                        const char *options, void **binary, size_t *size,
                        char **log) {
  *binary = NULL;
  *size = 0;
  if (log) *log = NULL;
  if (strncmp(architecture, "gfx", 3) != 0)
    return kiln_error_set(KILN_ERROR_INTERNAL, "hip: odd device architecture \"%s\"",
                          architecture);
  const hip_rtc_symbols *rtc = NULL;
  KILN_RETURN_IF_ERROR(hip_rtc_load(&rtc));
  return locked_build(architecture, source, options, binary, size, log);
}

kiln_status hip_compile_for_target(const char *source, const char *options,
                                   const char *target, size_t *binary_size,
                                   char **log) {
  if (binary_size) *binary_size = 0;
  if (log) *log = NULL;
  KILN_CHECK_ARG(source);
  KILN_CHECK_ARG(target);
  int known = 0;
  for (size_t i = 0; i < sizeof known_targets / sizeof known_targets[0]; i++)
    known |= strcmp(target, known_targets[i]) == 0;
  if (!known)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "hip: \"%s\" is not a target kiln compiles for without its "
                          "device (gfx900, gfx906, gfx908, gfx90a, gfx1030): some "
                          "hiprtc releases abort on targets they do not know",
                          target);
  const hip_rtc_symbols *rtc = NULL;
  KILN_RETURN_IF_ERROR(hip_rtc_load(&rtc));
  void *binary = NULL;
  size_t size = 0;
  kiln_status status = locked_build(target, source, options, &binary, &size, log);
  free(binary);
  if (status != KILN_OK) return kiln_error_prefix(status, "hip: compiling for %s", target);
  if (binary_size) *binary_size = size;
  return KILN_OK;
}
