/* backends/opencl/opencl_device.c: platforms and devices: probe, properties,
 * open and close.
 *
 * Devices are numbered across the platforms that pass the filter, in the
 * order the ICD loader lists them, counting only devices kiln can use
 * (available, with a compiler, OpenCL 1.2 or later). Every call enumerates
 * afresh: the order is stable and there is nothing to keep in sync.
 *
 * The platform filter is a case-insensitive substring of the platform's name
 * or of its vendor: PoCL's name is "Portable Computing Language" and only its
 * vendor ("The pocl project") says "pocl", the spelling users type. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/opencl/opencl_backend.h"
#include "backends/opencl/opencl_fft.h"
#include "backends/opencl/opencl_status.h"
#include "core/runtime/error.h"
#include "core/runtime/log.h"
#include "core/runtime/strbuf.h"

typedef struct opencl_device_ref {
  cl_platform_id platform;
  cl_device_id device;
} opencl_device_ref;

/* Reads a string property of a platform (device NULL) or a device into
 * out[out_size], truncated and with surrounding blanks trimmed (drivers pad
 * names). */
static kiln_status info_string(const kiln_opencl_symbols *cl, cl_platform_id platform,
                               cl_device_id device, cl_uint param, const char *param_name,
                               char *out, size_t out_size) {
  kiln_status status = KILN_OK;
  char *text = NULL;
  size_t size = 0;
  out[0] = '\0';
  if (device)
    status = KILN_CL_CALL(cl, clGetDeviceInfo, (device, param, 0, NULL, &size),
                          "reading the size of %s", param_name);
  else
    status = KILN_CL_CALL(cl, clGetPlatformInfo, (platform, param, 0, NULL, &size),
                          "reading the size of %s", param_name);
  if (status != KILN_OK || size == 0) goto cleanup;
  text = malloc(size + 1);
  if (!text) {
    status = kiln_error_set(KILN_ERROR_OUT_OF_MEMORY, "opencl: out of host memory reading %s",
                            param_name);
    goto cleanup;
  }
  if (device)
    status = KILN_CL_CALL(cl, clGetDeviceInfo, (device, param, size, text, NULL), "reading %s",
                          param_name);
  else
    status = KILN_CL_CALL(cl, clGetPlatformInfo, (platform, param, size, text, NULL),
                          "reading %s", param_name);
  if (status != KILN_OK) goto cleanup;
  text[size] = '\0';
  const char *begin = text;
  while (*begin && isspace((unsigned char)*begin)) begin++;
  size_t length = strlen(begin);
  while (length > 0 && isspace((unsigned char)begin[length - 1])) length--;
  if (length >= out_size) length = out_size - 1;
  memcpy(out, begin, length);
  out[length] = '\0';
cleanup:
  free(text);
  return status;
}

#define PLATFORM_STRING(cl, platform, param, out) \
  info_string(cl, platform, NULL, param, #param, out, sizeof(out))
#define DEVICE_STRING(cl, device, param, out) \
  info_string(cl, NULL, device, param, #param, out, sizeof(out))

/* Reads a fixed-size device property (the OpenCL type of `param` must be
 * the type of *value). */
#define DEVICE_VALUE(cl, device, param, value)                                   \
  KILN_CL_CALL(cl, clGetDeviceInfo, (device, param, sizeof *(value), value, NULL), \
               "reading %s", #param)

static int contains_ignoring_case(const char *haystack, const char *needle) {
  size_t n = strlen(needle);
  for (const char *h = haystack; *h; h++) {
    size_t i = 0;
    while (i < n && h[i] &&
           tolower((unsigned char)h[i]) == tolower((unsigned char)needle[i]))
      i++;
    if (i == n) return 1;
  }
  return n == 0;
}

/* "OpenCL <major>.<minor> ..." -> major, minor (0, 0 when unparsable). */
static void parse_version(const char *text, int *major, int *minor) {
  *major = *minor = 0;
  if (sscanf(text, "OpenCL %d.%d", major, minor) != 2) *major = *minor = 0;
}

/* Appends why there is no vendor driver, for CL_PLATFORM_NOT_FOUND_KHR or
 * an empty platform list. */
static void explain_no_platform(kiln_strbuf *message) {
  const char *vendors = getenv("OCL_ICD_VENDORS");
  const char *filenames = getenv("OCL_ICD_FILENAMES");
  kiln_strbuf_appendf(message,
                      ": the ICD loader (%s) found no vendor driver; it reads the "
                      "*.icd files of /etc/OpenCL/vendors, or of the directory that "
                      "OCL_ICD_VENDORS names",
                      kiln_opencl_library_path());
  if (vendors) kiln_strbuf_appendf(message, " (OCL_ICD_VENDORS=%s here)", vendors);
  if (filenames && filenames[0]) kiln_strbuf_appendf(message, "; OCL_ICD_FILENAMES=%s", filenames);
  kiln_strbuf_append(message, "; install an OpenCL driver (e.g. pocl-opencl-icd for the CPU)");
}

/* Nonzero when kiln can use the device; otherwise appends the reason. */
static int device_usable(const kiln_opencl_symbols *cl, cl_device_id device,
                         kiln_strbuf *skipped) {
  char name[256], version[128];
  cl_bool available = CL_FALSE, compiler = CL_FALSE;
  int major = 0, minor = 0;
  if (DEVICE_STRING(cl, device, CL_DEVICE_NAME, name) != KILN_OK ||
      DEVICE_STRING(cl, device, CL_DEVICE_VERSION, version) != KILN_OK ||
      DEVICE_VALUE(cl, device, CL_DEVICE_AVAILABLE, &available) != KILN_OK ||
      DEVICE_VALUE(cl, device, CL_DEVICE_COMPILER_AVAILABLE, &compiler) != KILN_OK) {
    kiln_strbuf_appendf(skipped, "\n  a device whose properties cannot be read: %s",
                        kiln_last_error());
    return 0;
  }
  parse_version(version, &major, &minor);
  const char *why = NULL;
  if (!available)
    why = "not available (CL_DEVICE_AVAILABLE is false)";
  else if (!compiler)
    why = "has no OpenCL C compiler (CL_DEVICE_COMPILER_AVAILABLE is false)";
  else if (major < 1 || (major == 1 && minor < 2))
    why = "is older than OpenCL 1.2";
  if (!why) return 1;
  kiln_strbuf_appendf(skipped, "\n  device \"%s\" (%s) %s", name, version, why);
  return 0;
}

/* Enumerates the usable devices of the platforms that pass config's filter.
 * Sets *count, and *found to device `wanted` when wanted < *count. A failure
 * (no library, no platform, none matching, no usable device) is UNAVAILABLE
 * with the reason. */
static kiln_status enumerate(const kiln_opencl_symbols *cl, const kiln_backend_config *config,
                             int wanted, opencl_device_ref *found, int *count) {
  kiln_status status = KILN_OK;
  kiln_strbuf platforms_seen = {0};
  kiln_strbuf skipped = {0};
  kiln_strbuf message = {0};
  cl_platform_id *platforms = NULL;
  cl_device_id *devices = NULL;
  cl_uint num_platforms = 0;
  int matching_platforms = 0;
  const char *filter = config && config->platform_filter && config->platform_filter[0]
                           ? config->platform_filter
                           : NULL;
  *count = 0;

  cl_int code = cl->clGetPlatformIDs(0, NULL, &num_platforms);
  if (code == CL_PLATFORM_NOT_FOUND_KHR || (code == CL_SUCCESS && num_platforms == 0)) {
    kiln_strbuf_appendf(&message, "opencl: clGetPlatformIDs found no platform: %s (%d)",
                        kiln_opencl_error_name(code == CL_SUCCESS ? CL_PLATFORM_NOT_FOUND_KHR
                                                                  : code),
                        (int)(code == CL_SUCCESS ? CL_PLATFORM_NOT_FOUND_KHR : code));
    if (code == CL_SUCCESS) kiln_strbuf_append(&message, " (it returned zero platforms)");
    explain_no_platform(&message);
    status = KILN_ERROR_UNAVAILABLE;
    goto cleanup;
  }
  if (KILN_CL_STATUS(code, clGetPlatformIDs, "counting the OpenCL platforms") != KILN_OK) {
    status = KILN_ERROR_UNAVAILABLE;
    goto cleanup;
  }
  platforms = calloc(num_platforms, sizeof *platforms);
  if (!platforms) {
    status = kiln_error_set(KILN_ERROR_OUT_OF_MEMORY, "opencl: out of host memory listing platforms");
    goto cleanup;
  }
  if (KILN_CL_CALL(cl, clGetPlatformIDs, (num_platforms, platforms, NULL),
                   "listing the OpenCL platforms") != KILN_OK) {
    status = KILN_ERROR_UNAVAILABLE;
    goto cleanup;
  }

  for (cl_uint p = 0; p < num_platforms; p++) {
    char name[128], vendor[128];
    if (PLATFORM_STRING(cl, platforms[p], CL_PLATFORM_NAME, name) != KILN_OK ||
        PLATFORM_STRING(cl, platforms[p], CL_PLATFORM_VENDOR, vendor) != KILN_OK) {
      kiln_strbuf_appendf(&skipped, "\n  a platform whose name cannot be read: %s",
                          kiln_last_error());
      continue;
    }
    kiln_strbuf_appendf(&platforms_seen, "%s\"%s\" (vendor \"%s\")",
                        platforms_seen.length ? ", " : "", name, vendor);
    if (filter && !contains_ignoring_case(name, filter) && !contains_ignoring_case(vendor, filter))
      continue;
    matching_platforms++;

    cl_uint num_devices = 0;
    code = cl->clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 0, NULL, &num_devices);
    if (code == CL_DEVICE_NOT_FOUND || (code == CL_SUCCESS && num_devices == 0)) {
      kiln_strbuf_appendf(&skipped, "\n  platform \"%s\": clGetDeviceIDs found no device (%s)",
                          name, kiln_opencl_error_name(CL_DEVICE_NOT_FOUND));
      continue;
    }
    if (KILN_CL_STATUS(code, clGetDeviceIDs, "counting the devices of platform \"%s\"", name) !=
        KILN_OK) {
      kiln_strbuf_appendf(&skipped, "\n  platform \"%s\": %s", name, kiln_last_error());
      continue;
    }
    free(devices);
    devices = calloc(num_devices, sizeof *devices);
    if (!devices) {
      status = kiln_error_set(KILN_ERROR_OUT_OF_MEMORY, "opencl: out of host memory listing devices");
      goto cleanup;
    }
    if (KILN_CL_CALL(cl, clGetDeviceIDs,
                     (platforms[p], CL_DEVICE_TYPE_ALL, num_devices, devices, NULL),
                     "listing the devices of platform \"%s\"", name) != KILN_OK) {
      kiln_strbuf_appendf(&skipped, "\n  platform \"%s\": %s", name, kiln_last_error());
      continue;
    }
    for (cl_uint d = 0; d < num_devices; d++) {
      if (!device_usable(cl, devices[d], &skipped)) continue;
      if (*count == wanted && found) {
        found->platform = platforms[p];
        found->device = devices[d];
      }
      (*count)++;
    }
  }

  if (matching_platforms == 0 && filter) {
    kiln_strbuf_appendf(&message,
                        "opencl: no OpenCL platform matches the platform filter \"%s\" "
                        "(KILN_OPENCL_PLATFORM or the context option platform_filter, a "
                        "case-insensitive substring of the platform's name or vendor); "
                        "the platforms here are: %s",
                        filter, kiln_strbuf_text(&platforms_seen));
    if (skipped.length) kiln_strbuf_appendf(&message, "%s", kiln_strbuf_text(&skipped));
    status = KILN_ERROR_UNAVAILABLE;
  } else if (*count == 0) {
    kiln_strbuf_appendf(&message, "opencl: no usable OpenCL device on the platforms %s%s%s%s",
                        kiln_strbuf_text(&platforms_seen), filter ? " (filter \"" : "",
                        filter ? filter : "", filter ? "\")" : "");
    kiln_strbuf_append(&message, skipped.length ? ":" : "");
    kiln_strbuf_append(&message, kiln_strbuf_text(&skipped));
    status = KILN_ERROR_UNAVAILABLE;
  }

cleanup:
  if (message.length) {
    if (kiln_strbuf_status(&message) == KILN_OK)
      kiln_error_set(status, "%s", kiln_strbuf_text(&message));
  } else if (platforms_seen.failed || skipped.failed) {
    status = kiln_error_set(KILN_ERROR_OUT_OF_MEMORY, "opencl: out of host memory listing devices");
  }
  free(platforms);
  free(devices);
  kiln_strbuf_free(&platforms_seen);
  kiln_strbuf_free(&skipped);
  kiln_strbuf_free(&message);
  return status;
}

/* Loads the library and finds usable device `index`. */
static kiln_status find_device(const kiln_backend_config *config, int index,
                               const kiln_opencl_symbols **cl, opencl_device_ref *found) {
  int count = 0;
  KILN_RETURN_IF_ERROR(kiln_opencl_library_load(cl));
  KILN_RETURN_IF_ERROR(enumerate(*cl, config, index, found, &count));
  if (index < 0 || index >= count)
    return kiln_error_set(KILN_ERROR_NOT_FOUND,
                          "opencl: no device %d: there %s %d usable OpenCL device%s (0..%d)",
                          index, count == 1 ? "is" : "are", count, count == 1 ? "" : "s",
                          count - 1);
  return KILN_OK;
}

kiln_status kiln_opencl_probe(const kiln_backend_config *config, int *device_count) {
  const kiln_opencl_symbols *cl = NULL;
  KILN_CHECK_ARG(device_count);
  *device_count = 0;
  KILN_RETURN_IF_ERROR(kiln_opencl_library_load(&cl));
  int count = 0;
  kiln_status status = enumerate(cl, config, -1, NULL, &count);
  if (status != KILN_OK) return status;
  *device_count = count;
  return KILN_OK;
}

kiln_status kiln_opencl_device_info(const kiln_backend_config *config, int index,
                                    kiln_device_info *info) {
  const kiln_opencl_symbols *cl = NULL;
  opencl_device_ref ref = {0};
  size_t max_work_group_size = 0;
  cl_uint compute_units = 0;
  cl_ulong global_memory = 0, local_memory = 0, max_allocation = 0, device_type = 0, cache = 0;
  cl_device_fp_config double_config = 0;
  KILN_CHECK_ARG(info);
  memset(info, 0, sizeof *info);
  KILN_RETURN_IF_ERROR(find_device(config, index, &cl, &ref));

  info->index = index;
  snprintf(info->backend, sizeof info->backend, "opencl");
  KILN_RETURN_IF_ERROR(DEVICE_STRING(cl, ref.device, CL_DEVICE_NAME, info->name));
  KILN_RETURN_IF_ERROR(DEVICE_STRING(cl, ref.device, CL_DEVICE_VENDOR, info->vendor));
  KILN_RETURN_IF_ERROR(PLATFORM_STRING(cl, ref.platform, CL_PLATFORM_NAME, info->platform));
  KILN_RETURN_IF_ERROR(DEVICE_STRING(cl, ref.device, CL_DRIVER_VERSION, info->driver_version));
  /* OpenCL compiles for the device it is given; the closest thing to a
   * target name is the OpenCL C version the compiler accepts. */
  KILN_RETURN_IF_ERROR(
      DEVICE_STRING(cl, ref.device, CL_DEVICE_OPENCL_C_VERSION, info->architecture));
  KILN_RETURN_IF_ERROR(DEVICE_VALUE(cl, ref.device, CL_DEVICE_GLOBAL_MEM_SIZE, &global_memory));
  KILN_RETURN_IF_ERROR(DEVICE_VALUE(cl, ref.device, CL_DEVICE_LOCAL_MEM_SIZE, &local_memory));
  KILN_RETURN_IF_ERROR(
      DEVICE_VALUE(cl, ref.device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, &max_allocation));
  KILN_RETURN_IF_ERROR(DEVICE_VALUE(cl, ref.device, CL_DEVICE_TYPE, &device_type));
  KILN_RETURN_IF_ERROR(DEVICE_VALUE(cl, ref.device, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, &cache));
  KILN_RETURN_IF_ERROR(
      DEVICE_VALUE(cl, ref.device, CL_DEVICE_MAX_COMPUTE_UNITS, &compute_units));
  KILN_RETURN_IF_ERROR(
      DEVICE_VALUE(cl, ref.device, CL_DEVICE_MAX_WORK_GROUP_SIZE, &max_work_group_size));
  /* OpenCL 1.2 devices without cl_khr_fp64 may answer CL_INVALID_VALUE:
   * that means no double precision, not a failure. */
  if (cl->clGetDeviceInfo(ref.device, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof double_config,
                          &double_config, NULL) != CL_SUCCESS)
    double_config = 0;
  info->global_memory = global_memory;
  info->max_buffer_size = max_allocation;
  info->type = (device_type & CL_DEVICE_TYPE_GPU)   ? KILN_DEVICE_GPU
               : (device_type & CL_DEVICE_TYPE_CPU) ? KILN_DEVICE_CPU
                                                    : KILN_DEVICE_OTHER;
  info->local_memory = local_memory;
  info->cache_size = cache;
  info->compute_units = compute_units;
  info->max_work_group_size = max_work_group_size;
  info->has_double = double_config != 0;
  return KILN_OK;
}

kiln_status kiln_opencl_device_open(const kiln_backend_config *config, int index,
                                    kiln_backend_device **out) {
  kiln_status status = KILN_OK;
  const kiln_opencl_symbols *cl = NULL;
  opencl_device_ref ref = {0};
  kiln_backend_device *device = NULL;
  int lock_made = 0;
  char platform_name[128], platform_version[128], device_version[128], driver[128];
  cl_int code = CL_SUCCESS;
  KILN_CHECK_ARG(out);
  *out = NULL;
  status = find_device(config, index, &cl, &ref);
  if (status != KILN_OK) goto cleanup;

  device = calloc(1, sizeof *device);
  if (!device) {
    status = kiln_error_set(KILN_ERROR_OUT_OF_MEMORY, "opencl: out of host memory opening a device");
    goto cleanup;
  }
  device->cl = cl;
  device->fft_library = (int)kiln_opencl_fft_library_from_env();
  device->platform = ref.platform;
  device->device = ref.device;
  if (pthread_mutex_init(&device->host_lock, NULL) != 0) {
    status = kiln_error_set(KILN_ERROR_INTERNAL, "opencl: pthread_mutex_init failed");
    goto cleanup;
  }
  lock_made = 1;

  cl_uint align_bits = 0;
  if ((status = DEVICE_STRING(cl, ref.device, CL_DEVICE_NAME, device->name)) != KILN_OK ||
      (status = DEVICE_STRING(cl, ref.device, CL_DEVICE_VERSION, device_version)) != KILN_OK ||
      (status = DEVICE_STRING(cl, ref.device, CL_DRIVER_VERSION, driver)) != KILN_OK ||
      (status = PLATFORM_STRING(cl, ref.platform, CL_PLATFORM_NAME, platform_name)) != KILN_OK ||
      (status = PLATFORM_STRING(cl, ref.platform, CL_PLATFORM_VERSION, platform_version)) !=
          KILN_OK ||
      (status = DEVICE_VALUE(cl, ref.device, CL_DEVICE_MEM_BASE_ADDR_ALIGN, &align_bits)) !=
          KILN_OK ||
      (status = DEVICE_VALUE(cl, ref.device, CL_DEVICE_MAX_MEM_ALLOC_SIZE,
                             &device->max_alloc_size)) != KILN_OK)
    goto cleanup;
  parse_version(device_version, &device->version_major, &device->version_minor);
  if ((status = kiln_opencl_base_options_init(device, platform_name)) != KILN_OK) goto cleanup;
  device->base_address_align = align_bits >= 8 ? align_bits / 8 : 1;
  snprintf(device->identity, sizeof device->identity, "%s|%s|%s|%s|%s", platform_name,
           platform_version, device->name, device_version, driver);

  cl_context_properties properties[3] = {CL_CONTEXT_PLATFORM,
                                         (cl_context_properties)ref.platform, 0};
  device->context = cl->clCreateContext(properties, 1, &ref.device, NULL, NULL, &code);
  status = KILN_CL_STATUS(code, clCreateContext, "opening device \"%s\"", device->name);
  if (status != KILN_OK) goto cleanup;
  status = kiln_opencl_queue_create(device, &device->default_stream.queue);
  if (status != KILN_OK) goto cleanup;
  device->host_queue = cl->clCreateCommandQueue(device->context, ref.device, 0, &code);
  status = KILN_CL_STATUS(code, clCreateCommandQueue,
                          "creating the queue for pinned host memory of \"%s\"", device->name);
  if (status != KILN_OK) goto cleanup;

  kiln_log(KILN_LOG_INFO, "opencl: opened device %d \"%s\" on \"%s\"", index, device->name,
           platform_name);
  *out = device;
  device = NULL;

cleanup:
  if (device) {
    if (device->host_queue) cl->clReleaseCommandQueue(device->host_queue);
    if (device->default_stream.queue) cl->clReleaseCommandQueue(device->default_stream.queue);
    if (device->context) cl->clReleaseContext(device->context);
    if (lock_made) pthread_mutex_destroy(&device->host_lock);
    free(device);
  }
  return status;
}

void kiln_opencl_device_close(kiln_backend_device *device) {
  if (!device) return;
  const kiln_opencl_symbols *cl = device->cl;
  cl->clFinish(device->default_stream.queue);
  kiln_opencl_host_free_all(device);
  cl->clFinish(device->host_queue);
  cl->clReleaseCommandQueue(device->host_queue);
  cl->clReleaseCommandQueue(device->default_stream.queue);
  cl->clReleaseContext(device->context);
  pthread_mutex_destroy(&device->host_lock);
  free(device->host_allocations);
  free(device);
}
