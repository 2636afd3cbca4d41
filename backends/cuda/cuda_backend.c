/* backends/cuda/cuda_backend.c: the CUDA backend's ops table. Device work
 * is the shared GPU layer (backends/gpu) over kiln_cuda_gpu; only the
 * slots without a device need a CUDA-specific entry. */
#include "backends/cuda/cuda_backend.h"

#include "backends/gpu/gpu_backend.h"

/* embedded from backends/cuda/prelude.cuh at build time */
extern const char kiln_prelude_cuda[];

static kiln_status cuda_probe(const kiln_backend_config *config, int *device_count) {
  return gpu_probe(&kiln_cuda_gpu, config, device_count);
}

static kiln_status cuda_device_info(const kiln_backend_config *config, int index,
                                    kiln_device_info *info) {
  return gpu_device_info(&kiln_cuda_gpu, config, index, info);
}

static kiln_status cuda_device_open(const kiln_backend_config *config, int index,
                                    kiln_backend_device **device) {
  return gpu_device_open(&kiln_cuda_gpu, config, index, device);
}

static kiln_status cuda_compile_for_target(const char *source, const char *options,
                                           const char *target, size_t *binary_size,
                                           char **log) {
  return gpu_compile_for_target(&kiln_cuda_compiler, source, options, target, binary_size, log);
}

const kiln_backend_ops kiln_backend_cuda = {
    .name = "cuda",
    .prelude = kiln_prelude_cuda,
    .dlpack_device_type = 2, /* kDLCUDA */
    .probe = cuda_probe,
    .device_info = cuda_device_info,
    .device_open = cuda_device_open,
    GPU_BACKEND_SHARED_OPS,
    .compile_for_target = cuda_compile_for_target,
};
