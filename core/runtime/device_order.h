/* core/runtime/device_order.h: whether a context's device lets one
 * work-group wait for another (internal). */
#ifndef KILN_CORE_RUNTIME_DEVICE_ORDER_H
#define KILN_CORE_RUNTIME_DEVICE_ORDER_H

#include "core/runtime/context_internal.h"

/* Nonzero when a decoupled look-back is safe on ctx's device: a GPU whose
 * backend says kernels get device-scope ordering (kiln_backend_ops'
 * device_scope_order: KILN_DEVICE_SCOPE_ORDER in the prelude, so
 * kiln_flag_load sees what kiln_flag_store published in another
 * work-group, and a resident work-group keeps running while another
 * spins). CUDA and HIP GPUs; NVIDIA's OpenCL through PTX; no other OpenCL
 * device (OpenCL 1.2 has no device-scope acquire/release; PoCL runs
 * work-groups on a few threads). The scan's and the sort's path choice
 * (docs/scan.md, docs/sorting.md). */
int kiln_device_lookback_safe(const kiln_context *ctx);

#endif
