/* backends/opencl/opencl_backend.c: the OpenCL backend's ops table. */
#include "backends/opencl/opencl_backend.h"

/* The OpenCL dialect prelude, embedded from backends/opencl/prelude.cl. */
extern const char kiln_prelude_opencl[];

const kiln_backend_ops kiln_backend_opencl = {
    .name = "opencl",
    .prelude = kiln_prelude_opencl,
    .dlpack_device_type = 4, /* kDLOpenCL */
    .probe = kiln_opencl_probe,
    .device_info = kiln_opencl_device_info,
    .device_open = kiln_opencl_device_open,
    .device_close = kiln_opencl_device_close,
    .buffer_alloc = kiln_opencl_buffer_alloc,
    .buffer_free = kiln_opencl_buffer_free,
    .host_alloc = kiln_opencl_host_alloc,
    .host_free = kiln_opencl_host_free,
    .host_register = kiln_opencl_host_register,
    .host_unregister = kiln_opencl_host_unregister,
    .copy_h2d = kiln_opencl_copy_h2d,
    .copy_d2h = kiln_opencl_copy_d2h,
    .copy_d2d = kiln_opencl_copy_d2d,
    .stream_create = kiln_opencl_stream_create,
    .stream_destroy = kiln_opencl_stream_destroy,
    .stream_synchronize = kiln_opencl_stream_synchronize,
    .stream_wait_event = kiln_opencl_stream_wait_event,
    .event_create = kiln_opencl_event_create,
    .event_destroy = kiln_opencl_event_destroy,
    .event_record = kiln_opencl_event_record,
    .event_synchronize = kiln_opencl_event_synchronize,
    .event_elapsed_ms = kiln_opencl_event_elapsed_ms,
    .module_build = kiln_opencl_module_build,
    .module_binary = kiln_opencl_module_binary,
    .binary_after_launch = 1, /* PoCL: docs/performance.md, "Disk cache" */
    .module_load_binary = kiln_opencl_module_load_binary,
    .device_fingerprint = kiln_opencl_device_fingerprint,
    .module_unload = kiln_opencl_module_unload,
    .function_get = kiln_opencl_function_get,
    .function_release = kiln_opencl_function_release,
    .function_limits = kiln_opencl_function_limits,
    .device_scope_order = kiln_opencl_device_scope_order,
    .launch = kiln_opencl_launch,
    .compile_for_target = NULL, /* OpenCL compiles only for an opened device */
    .native_handles = kiln_opencl_native_handles,
    .buffer_native = kiln_opencl_buffer_native,
    .buffer_wrap = kiln_opencl_buffer_wrap,
    .blas_describe = kiln_opencl_blas_describe,
    .gemm = kiln_opencl_gemm,
    .fft_describe = kiln_opencl_fft_describe,
    .fft_plan_create = kiln_opencl_fft_plan_create,
    .fft_execute = kiln_opencl_fft_execute,
    .fft_plan_destroy = kiln_opencl_fft_plan_destroy,
};
