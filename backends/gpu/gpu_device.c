/* backends/gpu/gpu_device.c: probing, device properties, opening and
 * closing a device, shared by the CUDA and HIP backends. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/gpu/gpu_internal.h"
#include "core/runtime/log.h"

kiln_status gpu_probe(const gpu_runtime *runtime,
                      const kiln_backend_config *config, int *device_count) {
  (void)config; /* no platforms to filter in CUDA or HIP */
  KILN_CHECK_ARG(runtime);
  KILN_CHECK_ARG(device_count);
  *device_count = 0;
  KILN_RETURN_IF_ERROR(runtime->load());
  int count = 0;
  kiln_status status = runtime->device_count(&count);
  /* The usual failure on a machine without the vendor's GPU: say so first,
   * the vendor's own error name follows. */
  if (status == KILN_ERROR_UNAVAILABLE)
    return kiln_error_prefix(status, "%s: no %s device found (the runtime loaded)",
                             runtime->name, runtime->platform);
  if (status != KILN_OK)
    return kiln_error_prefix(status, "%s: counting devices", runtime->name);
  if (count <= 0)
    return kiln_error_set(KILN_ERROR_UNAVAILABLE,
                          "%s: the driver loaded but reports no device",
                          runtime->name);
  /* a device kiln cannot compile for is of no use: let selection move on */
  KILN_RETURN_IF_ERROR(runtime->load_compiler());
  *device_count = count;
  return KILN_OK;
}

/* Probes and checks that device `index` exists. */
static kiln_status check_index(const gpu_runtime *runtime,
                               const kiln_backend_config *config, int index) {
  int count = 0;
  KILN_RETURN_IF_ERROR(gpu_probe(runtime, config, &count));
  if (index < 0 || index >= count)
    return kiln_error_set(KILN_ERROR_NOT_FOUND,
                          "%s: no device %d (the driver reports %d device%s)",
                          runtime->name, index, count, count == 1 ? "" : "s");
  return KILN_OK;
}

/* Shared memory per block with and without opting in; optin >= default. */
static kiln_status shared_limits(const gpu_runtime *runtime, int ordinal,
                                 size_t *shared_default, size_t *shared_optin) {
  int by_default = 0, optin = 0;
  KILN_RETURN_IF_ERROR(runtime->device_attribute(
      ordinal, GPU_DEVICE_MAX_SHARED_PER_BLOCK, &by_default));
  KILN_RETURN_IF_ERROR(runtime->device_attribute(
      ordinal, GPU_DEVICE_MAX_SHARED_PER_BLOCK_OPTIN, &optin));
  if (by_default < 0) by_default = 0;
  if (optin < by_default) optin = by_default;
  *shared_default = (size_t)by_default;
  *shared_optin = (size_t)optin;
  return KILN_OK;
}

static kiln_status fill_info(const gpu_runtime *runtime, int index,
                             kiln_device_info *info) {
  memset(info, 0, sizeof *info);
  info->index = index;
  snprintf(info->backend, sizeof info->backend, "%s", runtime->name);
  snprintf(info->vendor, sizeof info->vendor, "%s", runtime->vendor);
  snprintf(info->platform, sizeof info->platform, "%s", runtime->platform);
  KILN_RETURN_IF_ERROR(runtime->device_name(index, info->name, sizeof info->name));
  KILN_RETURN_IF_ERROR(
      runtime->versions(info->driver_version, sizeof info->driver_version));
  KILN_RETURN_IF_ERROR(runtime->device_architecture(
      index, info->architecture, sizeof info->architecture));
  KILN_RETURN_IF_ERROR(runtime->device_total_memory(index, &info->global_memory));
  /* one allocation may take the whole device memory */
  info->max_buffer_size = info->global_memory;
  info->type = KILN_DEVICE_GPU;
  int compute_units = 0, max_threads = 0, l2_bytes = 0;
  KILN_RETURN_IF_ERROR(runtime->device_attribute(index, GPU_DEVICE_COMPUTE_UNITS,
                                                 &compute_units));
  KILN_RETURN_IF_ERROR(runtime->device_attribute(
      index, GPU_DEVICE_MAX_THREADS_PER_BLOCK, &max_threads));
  KILN_RETURN_IF_ERROR(runtime->device_attribute(index, GPU_DEVICE_L2_CACHE_BYTES, &l2_bytes));
  size_t shared_default = 0, shared_optin = 0;
  KILN_RETURN_IF_ERROR(shared_limits(runtime, index, &shared_default, &shared_optin));
  info->compute_units = compute_units > 0 ? (uint32_t)compute_units : 0;
  info->max_work_group_size = max_threads > 0 ? (uint64_t)max_threads : 0;
  info->cache_size = l2_bytes > 0 ? (uint64_t)l2_bytes : 0;
  /* what a launch can use: kiln opts in above the default (gpu_launch.c) */
  info->local_memory = shared_optin;
  info->has_double = 1; /* every CUDA and HIP device has float64 */
  return KILN_OK;
}

kiln_status gpu_device_info(const gpu_runtime *runtime,
                            const kiln_backend_config *config, int index,
                            kiln_device_info *info) {
  KILN_CHECK_ARG(runtime);
  KILN_CHECK_ARG(info);
  KILN_RETURN_IF_ERROR(check_index(runtime, config, index));
  kiln_status status = fill_info(runtime, index, info);
  if (status != KILN_OK)
    return kiln_error_prefix(status, "%s device %d: reading its properties",
                             runtime->name, index);
  return KILN_OK;
}

/* Everything device_open needs that is not the context and stream. */
static kiln_status read_limits(kiln_backend_device *device) {
  const gpu_runtime *runtime = device->runtime;
  KILN_RETURN_IF_ERROR(runtime->device_architecture(
      device->ordinal, device->architecture, sizeof device->architecture));
  int warp_size = 0;
  KILN_RETURN_IF_ERROR(
      runtime->device_attribute(device->ordinal, GPU_DEVICE_WARP_SIZE, &warp_size));
  device->warp_size = warp_size > 0 ? (uint64_t)warp_size : 1;
  return shared_limits(runtime, device->ordinal, &device->shared_default,
                       &device->shared_optin);
}

kiln_status gpu_device_open(const gpu_runtime *runtime,
                            const kiln_backend_config *config, int index,
                            kiln_backend_device **out) {
  KILN_CHECK_ARG(runtime);
  KILN_CHECK_ARG(out);
  *out = NULL;
  KILN_RETURN_IF_ERROR(check_index(runtime, config, index));

  kiln_backend_device *device = calloc(1, sizeof *device);
  if (!device)
    return kiln_error_set(KILN_ERROR_OUT_OF_MEMORY,
                          "%s device %d: out of host memory opening it",
                          runtime->name, index);
  device->runtime = runtime;
  device->ordinal = index;
  int have_lock = 0, have_context = 0, entered = 0;
  kiln_status status = KILN_OK;
  if (pthread_mutex_init(&device->lock, NULL) != 0) {
    status = kiln_error_set(KILN_ERROR_INTERNAL, "pthread_mutex_init failed");
    goto cleanup;
  }
  have_lock = 1;
  status = runtime->context_open(index, &device->context);
  if (status != KILN_OK) goto cleanup;
  have_context = 1;
  status = read_limits(device);
  if (status != KILN_OK) goto cleanup;
  status = gpu_enter(device);
  if (status != KILN_OK) goto cleanup;
  entered = 1;
  status = runtime->stream_create(&device->default_stream);

cleanup:
  if (entered) gpu_leave(device);
  if (status != KILN_OK) {
    if (have_context) runtime->context_close(index, device->context);
    if (have_lock) pthread_mutex_destroy(&device->lock);
    free(device);
    return kiln_error_prefix(status, "%s device %d: opening it", runtime->name,
                             index);
  }
  kiln_log(KILN_LOG_INFO, "%s device %d: opened (%s)", runtime->name, index,
           device->architecture);
  *out = device;
  return KILN_OK;
}

void gpu_device_close(kiln_backend_device *device) {
  if (!device) return;
  const gpu_runtime *runtime = device->runtime;
  if (gpu_enter(device) == KILN_OK) {
    if (runtime->context_synchronize() != KILN_OK)
      kiln_log(KILN_LOG_WARN, "%s device %d: waiting for work at close: %s",
               runtime->name, device->ordinal, kiln_last_error());
    gpu_blas_close(device);
    if (runtime->stream_destroy(device->default_stream) != KILN_OK)
      kiln_log(KILN_LOG_WARN, "%s device %d: destroying the default stream: %s",
               runtime->name, device->ordinal, kiln_last_error());
    gpu_leave(device);
  } else {
    kiln_log(KILN_LOG_WARN, "%s device %d: cannot make it current to close it: %s",
             runtime->name, device->ordinal, kiln_last_error());
  }
  runtime->context_close(device->ordinal, device->context);
  pthread_mutex_destroy(&device->lock);
  free(device);
}
