/* backends/opencl/opencl_program.c: building programs from source, saving
 * and loading their binaries, and finding kernels in them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/opencl/opencl_backend.h"
#include "backends/opencl/opencl_binary.h"
#include "backends/opencl/opencl_status.h"
#include "core/runtime/error.h"
#include "core/runtime/log.h"
#include "core/runtime/stderr_quiet.h"
#include "core/runtime/strbuf.h"

/* kiln's kernel language is OpenCL C 1.2 whatever the device supports. */
#define OPENCL_STANDARD_OPTION "-cl-std=CL1.2"
/* OpenCL lets float division and sqrt be off by 2.5 and 3 ulp unless this
 * is asked for; CUDA's and C's are correctly rounded. Asking for it where
 * the device offers it gives NumPy's results (1/x, x/y, sqrt) and the same
 * bits as the other backends, at a cost that is small beside memory
 * traffic in element-wise kernels. */
#define OPENCL_DIVIDE_SQRT_OPTION "-cl-fp32-correctly-rounded-divide-sqrt"

/* The warp shuffle of the kernel language (KILN_LANE_SHUFFLE) on NVIDIA's
 * OpenCL, whose compiler takes inline PTX (prelude.cl): the reductions'
 * lane tree on registers instead of local memory and work-group barriers,
 * the same order of combination, the same bits. Only on the platform
 * NVIDIA names "NVIDIA CUDA"; KILN_OPENCL_LANE_SHUFFLE=0 turns it off
 * (docs/environment.md). Other vendors' sub-groups are not used: the tree
 * needs 32 consecutive work-items in one sub-group, a size that
 * cl_khr_subgroups and cl_intel_subgroups do not promise. */
#define OPENCL_LANE_SHUFFLE_OPTION "-DKILN_OPENCL_PTX_SHUFFLE=1"

kiln_status kiln_opencl_base_options_init(kiln_backend_device *device, const char *platform_name) {
  cl_device_fp_config single_config = 0;
  if (device->cl->clGetDeviceInfo(device->device, CL_DEVICE_SINGLE_FP_CONFIG,
                                  sizeof single_config, &single_config, NULL) != CL_SUCCESS)
    single_config = 0;
  snprintf(device->base_options, sizeof device->base_options, "%s%s", OPENCL_STANDARD_OPTION,
           (single_config & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT)
               ? " " OPENCL_DIVIDE_SQRT_OPTION
               : "");
  const char *allow = getenv("KILN_OPENCL_LANE_SHUFFLE");
  if (allow && strcmp(allow, "0") != 0 && strcmp(allow, "1") != 0)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "KILN_OPENCL_LANE_SHUFFLE=\"%s\": 0 or 1", allow);
  atomic_init(&device->lane_shuffle, strcmp(platform_name, "NVIDIA CUDA") == 0 &&
                                         !(allow && strcmp(allow, "0") == 0));
  return KILN_OK;
}

/* The program's build log for the device (malloc'd, NUL-terminated, "" when
 * the driver has none), or NULL if it cannot be read. */
static char *read_build_log(kiln_backend_device *device, cl_program program) {
  size_t size = 0;
  if (device->cl->clGetProgramBuildInfo(program, device->device, CL_PROGRAM_BUILD_LOG, 0, NULL,
                                        &size) != CL_SUCCESS)
    return NULL;
  char *log = calloc(size + 1, 1);
  if (!log) return NULL;
  if (size > 0 && device->cl->clGetProgramBuildInfo(program, device->device, CL_PROGRAM_BUILD_LOG,
                                                    size, log, NULL) != CL_SUCCESS) {
    free(log);
    return NULL;
  }
  /* drivers end the log with blank lines (and the NUL counted in size) */
  size_t length = strlen(log);
  while (length > 0 && (log[length - 1] == '\n' || log[length - 1] == ' ')) log[--length] = '\0';
  return log;
}

/* Appends the compiler's log to the current error detail. */
static kiln_status add_log_to_error(kiln_status status, const char *log) {
  if (!log || !log[0]) return status;
  char *detail = strdup(kiln_last_error());
  if (!detail) return status;
  kiln_error_set(status, "%s; the compiler's log:\n%s", detail, log);
  free(detail);
  return status;
}

static kiln_status module_wrap(cl_program program, kiln_backend_module **out) {
  kiln_backend_module *module = calloc(1, sizeof *module);
  if (!module)
    return kiln_error_set(KILN_ERROR_OUT_OF_MEMORY, "opencl: out of host memory creating a module");
  module->program = program;
  *out = module;
  return KILN_OK;
}

kiln_status kiln_opencl_module_build(kiln_backend_device *device, const char *source,
                                     const char *options, kiln_backend_module **out,
                                     char **log_out) {
  kiln_status status = KILN_OK;
  kiln_strbuf all_options = {0};
  cl_program program = NULL;
  char *log = NULL;
  cl_int code = CL_SUCCESS;
  if (log_out) *log_out = NULL;
  KILN_CHECK_ARG(device);
  KILN_CHECK_ARG(source);
  KILN_CHECK_ARG(out);
  *out = NULL;
  const kiln_opencl_symbols *cl = device->cl;

  int shuffle = atomic_load(&device->lane_shuffle);
  kiln_strbuf_append(&all_options, device->base_options);
  if (shuffle) kiln_strbuf_append(&all_options, " " OPENCL_LANE_SHUFFLE_OPTION);
  if (options && options[0]) kiln_strbuf_appendf(&all_options, " %s", options);
  if ((status = kiln_strbuf_status(&all_options)) != KILN_OK) goto cleanup;

  program = cl->clCreateProgramWithSource(device->context, 1, &source, NULL, &code);
  status = KILN_CL_STATUS(code, clCreateProgramWithSource, "creating a program for \"%s\"",
                          device->name);
  if (status != KILN_OK) goto cleanup;
  kiln_log(KILN_LOG_DEBUG, "opencl: clBuildProgram options \"%s\"", kiln_strbuf_text(&all_options));
  /* PoCL's in-process clang prints "N errors generated." on fd 2; the log
   * below has the diagnostics, so that line is kept off stderr. */
  kiln_stderr_quiet_begin();
  code = cl->clBuildProgram(program, 1, &device->device, kiln_strbuf_text(&all_options), NULL,
                            NULL);
  kiln_stderr_quiet_end();
  log = read_build_log(device, program);
  status = KILN_CL_STATUS(code, clBuildProgram, "compiling a kernel for \"%s\" with options \"%s\"",
                          device->name, kiln_strbuf_text(&all_options));
  if (status != KILN_OK && shuffle) {
    /* a driver whose compiler refuses the PTX (too old a PTX version, no
     * inline assembly): the same build without it; if that one builds,
     * the shuffle was the cause, and no later build gets it */
    kiln_backend_module *plain = NULL;
    char *plain_log = NULL;
    atomic_store(&device->lane_shuffle, 0);
    kiln_status retried = kiln_opencl_module_build(device, source, options, &plain, &plain_log);
    if (retried == KILN_OK) {
      kiln_log(KILN_LOG_WARN,
               "opencl: \"%s\" refused the warp shuffle through inline PTX; the lane trees "
               "use local memory from now on. Its log:\n%s",
               device->name, log ? log : "");
      free(log);
      log = plain_log;
      *out = plain;
      status = KILN_OK;
      goto cleanup;
    }
    /* the source's own error, reported as the plain build gave it */
    atomic_store(&device->lane_shuffle, 1);
    free(log);
    log = plain_log;
    status = retried;
    goto cleanup;
  }
  if (status != KILN_OK) {
    add_log_to_error(status, log);
    goto cleanup;
  }
  status = module_wrap(program, out);
  if (status == KILN_OK) program = NULL;

cleanup:
  if (log_out) {
    *log_out = log;
    log = NULL;
  }
  free(log);
  if (program) cl->clReleaseProgram(program);
  kiln_strbuf_free(&all_options);
  return status;
}

kiln_status kiln_opencl_module_binary(kiln_backend_device *device, kiln_backend_module *module,
                                      void **binary, size_t *size) {
  kiln_status status = KILN_OK;
  unsigned char *payload = NULL;
  size_t payload_size = 0;
  KILN_CHECK_ARG(device);
  KILN_CHECK_ARG(module);
  KILN_CHECK_ARG(binary);
  KILN_CHECK_ARG(size);
  *binary = NULL;
  *size = 0;
  const kiln_opencl_symbols *cl = device->cl;
  /* the program has exactly one device, so each array has one element */
  status = KILN_CL_CALL(cl, clGetProgramInfo,
                        (module->program, CL_PROGRAM_BINARY_SIZES, sizeof payload_size,
                         &payload_size, NULL),
                        "reading the size of a program binary (CL_PROGRAM_BINARY_SIZES)");
  if (status != KILN_OK) goto cleanup;
  if (payload_size == 0) {
    status = kiln_error_set(KILN_ERROR_UNIMPLEMENTED,
                            "opencl: the driver of \"%s\" returns no program binary "
                            "(CL_PROGRAM_BINARY_SIZES is 0)",
                            device->name);
    goto cleanup;
  }
  payload = malloc(payload_size);
  if (!payload) {
    status = kiln_error_set(KILN_ERROR_OUT_OF_MEMORY,
                            "opencl: out of host memory reading a program binary of %zu bytes",
                            payload_size);
    goto cleanup;
  }
  unsigned char *binaries[1] = {payload};
  status = KILN_CL_CALL(cl, clGetProgramInfo,
                        (module->program, CL_PROGRAM_BINARIES, sizeof binaries, binaries, NULL),
                        "reading a program binary of %zu bytes (CL_PROGRAM_BINARIES)",
                        payload_size);
  if (status != KILN_OK) goto cleanup;
  status = kiln_opencl_binary_wrap(device->identity, payload, payload_size, binary, size);
cleanup:
  free(payload);
  return status;
}

kiln_status kiln_opencl_module_load_binary(kiln_backend_device *device, const void *binary,
                                           size_t size, kiln_backend_module **out) {
  kiln_status status = KILN_OK;
  cl_program program = NULL;
  const void *payload = NULL;
  size_t payload_size = 0;
  cl_int code = CL_SUCCESS, binary_status = CL_SUCCESS;
  char *log = NULL;
  KILN_CHECK_ARG(device);
  KILN_CHECK_ARG(binary);
  KILN_CHECK_ARG(out);
  *out = NULL;
  const kiln_opencl_symbols *cl = device->cl;
  status = kiln_opencl_binary_unwrap(device->identity, binary, size, &payload, &payload_size);
  if (status != KILN_OK) goto cleanup;

  const unsigned char *binaries[1] = {payload};
  program = cl->clCreateProgramWithBinary(device->context, 1, &device->device, &payload_size,
                                          binaries, &binary_status, &code);
  if (code == CL_SUCCESS) code = binary_status;
  status = KILN_CL_STATUS(code, clCreateProgramWithBinary,
                          "loading a program binary of %zu bytes on \"%s\"", payload_size,
                          device->name);
  if (status != KILN_OK) goto cleanup;
  code = cl->clBuildProgram(program, 1, &device->device, NULL, NULL, NULL);
  if (code != CL_SUCCESS) {
    log = read_build_log(device, program);
    KILN_CL_STATUS(code, clBuildProgram, "preparing a program binary of %zu bytes on \"%s\"",
                   payload_size, device->name);
    /* a binary the driver refuses is bad input, whatever code it picks */
    status = add_log_to_error(KILN_ERROR_INVALID_ARGUMENT, log);
    goto cleanup;
  }
  status = module_wrap(program, out);
  if (status == KILN_OK) program = NULL;
cleanup:
  free(log);
  if (program) cl->clReleaseProgram(program);
  return status;
}

kiln_status kiln_opencl_device_fingerprint(kiln_backend_device *device, char *text,
                                           size_t size) {
  KILN_CHECK_ARG(device);
  KILN_CHECK_ARG(text);
  /* platform name and version, device name and version, driver version,
   * and the options every build gets */
  if (size > 0)
    snprintf(text, size, "%s|%s%s", device->identity, device->base_options,
             atomic_load(&device->lane_shuffle) ? " " OPENCL_LANE_SHUFFLE_OPTION : "");
  return KILN_OK;
}

void kiln_opencl_module_unload(kiln_backend_device *device, kiln_backend_module *module) {
  if (!device || !module) return;
  /* kernels made from the program keep it alive until they are released */
  device->cl->clReleaseProgram(module->program);
  free(module);
}

kiln_status kiln_opencl_function_get(kiln_backend_device *device, kiln_backend_module *module,
                                     const char *name, kiln_backend_function **out) {
  kiln_status status = KILN_OK;
  kiln_backend_function *function = NULL;
  int lock_made = 0;
  cl_int code = CL_SUCCESS;
  KILN_CHECK_ARG(device);
  KILN_CHECK_ARG(module);
  KILN_CHECK_ARG(name);
  KILN_CHECK_ARG(out);
  *out = NULL;
  const kiln_opencl_symbols *cl = device->cl;
  function = calloc(1, sizeof *function);
  if (!function) {
    status = kiln_error_set(KILN_ERROR_OUT_OF_MEMORY, "opencl: out of host memory finding a kernel");
    goto cleanup;
  }
  if (pthread_mutex_init(&function->lock, NULL) != 0) {
    status = kiln_error_set(KILN_ERROR_INTERNAL, "opencl: pthread_mutex_init failed");
    goto cleanup;
  }
  lock_made = 1;
  snprintf(function->name, sizeof function->name, "%s", name);
  function->kernel = cl->clCreateKernel(module->program, name, &code);
  status = KILN_CL_STATUS(code, clCreateKernel, "looking up kernel \"%s\"", name);
  if (status != KILN_OK) goto cleanup;
  status = KILN_CL_CALL(cl, clGetKernelInfo,
                        (function->kernel, CL_KERNEL_NUM_ARGS, sizeof function->num_args,
                         &function->num_args, NULL),
                        "counting the arguments of kernel \"%s\"", name);
  if (status != KILN_OK) goto cleanup;
  *out = function;
  function = NULL;
cleanup:
  if (function) {
    if (function->kernel) cl->clReleaseKernel(function->kernel);
    if (lock_made) pthread_mutex_destroy(&function->lock);
    free(function);
  }
  return status;
}

void kiln_opencl_function_release(kiln_backend_device *device, kiln_backend_function *function) {
  if (!device || !function) return;
  device->cl->clReleaseKernel(function->kernel);
  pthread_mutex_destroy(&function->lock);
  free(function);
}

int kiln_opencl_device_scope_order(kiln_backend_device *device) {
  /* the same PTX as the warp shuffle: NVIDIA's GPUs, whose resident
   * work-groups keep running while one spins, as CUDA's blocks do */
  return atomic_load(&device->lane_shuffle);
}

kiln_status kiln_opencl_function_limits(kiln_backend_device *device,
                                        kiln_backend_function *function,
                                        uint64_t *max_work_group_size,
                                        uint64_t *preferred_multiple) {
  size_t max_size = 0, multiple = 0;
  KILN_CHECK_ARG(device);
  KILN_CHECK_ARG(function);
  KILN_CHECK_ARG(max_work_group_size);
  KILN_CHECK_ARG(preferred_multiple);
  const kiln_opencl_symbols *cl = device->cl;
  KILN_RETURN_IF_ERROR(KILN_CL_CALL(
      cl, clGetKernelWorkGroupInfo,
      (function->kernel, device->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof max_size, &max_size,
       NULL),
      "reading CL_KERNEL_WORK_GROUP_SIZE of kernel \"%s\"", function->name));
  KILN_RETURN_IF_ERROR(KILN_CL_CALL(
      cl, clGetKernelWorkGroupInfo,
      (function->kernel, device->device, CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE,
       sizeof multiple, &multiple, NULL),
      "reading CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE of kernel \"%s\"", function->name));
  *max_work_group_size = max_size;
  *preferred_multiple = multiple ? multiple : 1;
  return KILN_OK;
}
