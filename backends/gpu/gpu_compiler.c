/* backends/gpu/gpu_compiler.c: compiling kernel source with NVRTC or hiprtc
 * through the table of gpu_compiler.h, shared by the CUDA and HIP
 * backends. */
#include "backends/gpu/gpu_compiler.h"

#include <stdlib.h>
#include <string.h>

#include "backends/gpu/gpu_options.h"
#include "core/runtime/error.h"

/* The compiler's log as a malloc'd string (NULL only when out of memory). */
static char *program_log(const gpu_compiler *compiler, gpu_program program) {
  size_t size = 0;
  if (compiler->log_size(program, &size) != KILN_OK) size = 0;
  char *log = malloc(size + 1);
  if (!log) return NULL;
  log[0] = '\0';
  if (size > 0 && compiler->log(program, log) != KILN_OK) log[0] = '\0';
  log[size] = '\0';
  /* trailing newlines and NUL padding make messages ragged */
  size_t length = strlen(log);
  while (length > 0 && (log[length - 1] == '\n' || log[length - 1] == '\r')) log[--length] = '\0';
  return log;
}

/* The compiled image (PTX with its NUL). */
static kiln_status program_image(const gpu_compiler *compiler, gpu_program program,
                                 gpu_image image, void **binary, size_t *size) {
  const char *what = image == GPU_IMAGE_PTX ? "PTX" : compiler->native_image;
  size_t bytes = 0;
  KILN_RETURN_IF_ERROR(compiler->image_size(program, image, &bytes));
  if (bytes == 0)
    return kiln_error_set(KILN_ERROR_INTERNAL, "%s returned an empty %s", compiler->name, what);
  char *data = malloc(bytes);
  if (!data)
    return kiln_error_set(KILN_ERROR_OUT_OF_MEMORY, "out of host memory for %zu bytes of %s",
                          bytes, what);
  kiln_status status = compiler->image(program, image, data);
  if (status != KILN_OK) {
    free(data);
    return status;
  }
  *binary = data;
  *size = bytes;
  return KILN_OK;
}

/* Compiles source for target; *log (if log) receives the compiler's log. */
static kiln_status build(const gpu_compiler *compiler, const gpu_compile_target *target,
                         const char *source, const char *options, void **binary,
                         size_t *size, char **log) {
  char **words = NULL, *text = NULL;
  const char **argv = NULL;
  int count = 0, have_program = 0;
  gpu_program program = NULL;
  kiln_status status = gpu_options_split(options, &words, &count);
  if (status != KILN_OK) goto cleanup;
  argv = malloc(((size_t)count + 3) * sizeof *argv);
  if (!argv) {
    status = kiln_error_set(KILN_ERROR_OUT_OF_MEMORY, "out of host memory for options");
    goto cleanup;
  }
  argv[0] = target->option;
  argv[1] = compiler->standard;
  int strict = 0;
  for (int i = 0; i < count; i++) {
    argv[2 + i] = words[i];
    strict |= strncmp(words[i], "-DKILN_STRICT_FP", 16) == 0;
  }
  if (strict && compiler->strict_fp) argv[2 + count++] = compiler->strict_fp;

  status = compiler->program_create(&program, source);
  if (status != KILN_OK) goto cleanup;
  have_program = 1;
  const char *error_name = NULL;
  kiln_status compiled = compiler->program_compile(program, count + 2, argv, &error_name);
  text = program_log(compiler, program);
  if (compiled != KILN_OK) {
    status = kiln_error_set(compiled, "%s with %s: %s%s%s", compiler->compile_call,
                            target->option, error_name ? error_name : "failed",
                            text && text[0] ? "\n" : "", text ? text : "");
    goto cleanup;
  }
  status = program_image(compiler, program, target->image, binary, size);

cleanup:
  if (have_program) compiler->program_destroy(program);
  if (log) {
    *log = text;
    text = NULL;
  }
  free(text);
  free(argv);
  free(words);
  return status;
}

static kiln_status locked_build(const gpu_compiler *compiler, const gpu_compile_target *target,
                                const char *source, const char *options, void **binary,
                                size_t *size, char **log) {
  if (!compiler->lock) return build(compiler, target, source, options, binary, size, log);
  pthread_mutex_lock(compiler->lock);
  kiln_status status = build(compiler, target, source, options, binary, size, log);
  pthread_mutex_unlock(compiler->lock);
  return status;
}

kiln_status gpu_compile(const gpu_compiler *compiler, const char *architecture,
                        const char *source, const char *options, void **binary,
                        size_t *size, char **log) {
  *binary = NULL;
  *size = 0;
  if (log) *log = NULL;
  gpu_compile_target target;
  KILN_RETURN_IF_ERROR(compiler->target_for_device(architecture, &target));
  return locked_build(compiler, &target, source, options, binary, size, log);
}

kiln_status gpu_compile_for_target(const gpu_compiler *compiler, const char *source,
                                   const char *options, const char *target,
                                   size_t *binary_size, char **log) {
  if (binary_size) *binary_size = 0;
  if (log) *log = NULL;
  /* as KILN_CHECK_ARG words it in the backend's <backend>_compile_for_target */
  if (!source || !target)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "%s_compile_for_target: %s is NULL",
                          compiler->backend, source ? "target" : "source");
  gpu_compile_target chosen;
  KILN_RETURN_IF_ERROR(compiler->target_for_name(target, &chosen));
  void *binary = NULL;
  size_t size = 0;
  kiln_status status = locked_build(compiler, &chosen, source, options, &binary, &size, log);
  free(binary);
  if (status != KILN_OK)
    return kiln_error_prefix(status, "%s: compiling for %s", compiler->backend, target);
  if (binary_size) *binary_size = size;
  return KILN_OK;
}
