/* backends/hip/hip_backend.c: the HIP backend's ops table. Device work is
 * the shared GPU layer (backends/gpu) over kiln_hip_gpu; only the slots
 * without a device need a HIP-specific entry. */
#include "backends/hip/hip_backend.h"

#include "backends/gpu/gpu_backend.h"

/* embedded from backends/hip/prelude.hip at build time */
extern const char kiln_prelude_hip[];

static kiln_status hip_probe(const kiln_backend_config *config, int *device_count) {
  return gpu_probe(&kiln_hip_gpu, config, device_count);
}

static kiln_status hip_device_info(const kiln_backend_config *config, int index,
                                   kiln_device_info *info) {
  return gpu_device_info(&kiln_hip_gpu, config, index, info);
}

static kiln_status hip_device_open(const kiln_backend_config *config, int index,
                                   kiln_backend_device **device) {
  return gpu_device_open(&kiln_hip_gpu, config, index, device);
}

static kiln_status hip_compile_for_target(const char *source, const char *options,
                                          const char *target, size_t *binary_size,
                                          char **log) {
  return gpu_compile_for_target(&kiln_hip_compiler, source, options, target, binary_size, log);
}

const kiln_backend_ops kiln_backend_hip = {
    .name = "hip",
    .prelude = kiln_prelude_hip,
    .dlpack_device_type = 10, /* kDLROCM */
    .probe = hip_probe,
    .device_info = hip_device_info,
    .device_open = hip_device_open,
    GPU_BACKEND_SHARED_OPS,
    .compile_for_target = hip_compile_for_target,
};
