/* backends/gpu/gpu_backend.h: the backend.h slots shared by the CUDA and HIP
 * backends (internal).
 *
 * The slots that take no device (probe, device_info, device_open) need to
 * know which runtime to use, so each backend wraps the gpu_* function of the
 * same name with its own gpu_runtime. Every other slot reaches the runtime
 * through the device, so the ops tables point at these functions directly:
 * GPU_BACKEND_SHARED_OPS fills those slots in a designated initializer. The
 * contracts are those of backend.h. */
#ifndef KILN_BACKENDS_GPU_BACKEND_H
#define KILN_BACKENDS_GPU_BACKEND_H

#include "backends/backend.h"
#include "backends/gpu/gpu_runtime.h"

/* probe: loads runtime's libraries and counts its devices (config is not
 * used: CUDA and HIP have no platforms to filter). */
kiln_status gpu_probe(const gpu_runtime *runtime,
                      const kiln_backend_config *config, int *device_count);
/* device_info of device `index`; NOT_FOUND past the device count. */
kiln_status gpu_device_info(const gpu_runtime *runtime,
                            const kiln_backend_config *config, int index,
                            kiln_device_info *info);
/* device_open: context made current per call, a non-blocking default
 * stream, and the limits launch needs. */
kiln_status gpu_device_open(const gpu_runtime *runtime,
                            const kiln_backend_config *config, int index,
                            kiln_backend_device **device);
void gpu_device_close(kiln_backend_device *device);

kiln_status gpu_buffer_alloc(kiln_backend_device *device, size_t bytes,
                             kiln_backend_buffer **buffer);
void gpu_buffer_free(kiln_backend_device *device, kiln_backend_buffer *buffer);
kiln_status gpu_host_alloc(kiln_backend_device *device, size_t bytes,
                           void **host);
void gpu_host_free(kiln_backend_device *device, void *host);
kiln_status gpu_host_register(kiln_backend_device *device, void *host, size_t bytes);
kiln_status gpu_host_unregister(kiln_backend_device *device, void *host);
kiln_status gpu_copy_h2d(kiln_backend_device *device,
                         kiln_backend_stream *stream, kiln_backend_buffer *dst,
                         uint64_t dst_offset, const void *src, size_t bytes,
                         int blocking);
kiln_status gpu_copy_d2h(kiln_backend_device *device,
                         kiln_backend_stream *stream, void *dst,
                         kiln_backend_buffer *src, uint64_t src_offset,
                         size_t bytes, int blocking);
kiln_status gpu_copy_d2d(kiln_backend_device *device,
                         kiln_backend_stream *stream, kiln_backend_buffer *dst,
                         uint64_t dst_offset, kiln_backend_buffer *src,
                         uint64_t src_offset, size_t bytes);

kiln_status gpu_stream_create(kiln_backend_device *device,
                              kiln_backend_stream **stream);
void gpu_stream_destroy(kiln_backend_device *device,
                        kiln_backend_stream *stream);
kiln_status gpu_stream_synchronize(kiln_backend_device *device,
                                   kiln_backend_stream *stream);
kiln_status gpu_stream_wait_event(kiln_backend_device *device,
                                  kiln_backend_stream *stream,
                                  kiln_backend_event *event);
kiln_status gpu_event_create(kiln_backend_device *device,
                             kiln_backend_event **event);
void gpu_event_destroy(kiln_backend_device *device, kiln_backend_event *event);
kiln_status gpu_event_record(kiln_backend_device *device,
                             kiln_backend_event *event,
                             kiln_backend_stream *stream);
kiln_status gpu_event_synchronize(kiln_backend_device *device,
                                  kiln_backend_event *event);
kiln_status gpu_event_elapsed_ms(kiln_backend_device *device,
                                 kiln_backend_event *start,
                                 kiln_backend_event *end, double *ms);

kiln_status gpu_module_build(kiln_backend_device *device, const char *source,
                             const char *options, kiln_backend_module **module,
                             char **log);
kiln_status gpu_module_binary(kiln_backend_device *device,
                              kiln_backend_module *module, void **binary,
                              size_t *size);
kiln_status gpu_module_load_binary(kiln_backend_device *device,
                                   const void *binary, size_t size,
                                   kiln_backend_module **module);
void gpu_module_unload(kiln_backend_device *device,
                       kiln_backend_module *module);
kiln_status gpu_device_fingerprint(kiln_backend_device *device, char *text,
                                   size_t size);
kiln_status gpu_function_get(kiln_backend_device *device,
                             kiln_backend_module *module, const char *name,
                             kiln_backend_function **function);
void gpu_function_release(kiln_backend_device *device,
                          kiln_backend_function *function);
/* device_scope_order: always (CUDA's and HIP's blocks keep running while
 * another spins; volatile flag words and __threadfence are device-scope). */
int gpu_device_scope_order(kiln_backend_device *device);
kiln_status gpu_function_limits(kiln_backend_device *device,
                                kiln_backend_function *function,
                                uint64_t *max_work_group_size,
                                uint64_t *preferred_multiple);
kiln_status gpu_launch(kiln_backend_device *device,
                       kiln_backend_stream *stream,
                       kiln_backend_function *function,
                       const kiln_backend_launch *launch, int nargs,
                       const kiln_backend_arg *args);

/* Interop (gpu_interop.c): the context, ordinal and stream; a buffer's
 * device address; a buffer over a device address another library owns. */
kiln_status gpu_native_handles(kiln_backend_device *device,
                               kiln_backend_stream *stream,
                               kiln_backend_native *native);
kiln_status gpu_buffer_native(kiln_backend_device *device,
                              kiln_backend_buffer *buffer,
                              kiln_backend_memory *memory);
kiln_status gpu_buffer_wrap(kiln_backend_device *device,
                            const kiln_backend_memory *memory, size_t bytes,
                            kiln_backend_buffer **buffer);
/* copy_peer: on one ordinal a device copy (both kiln devices share the
 * primary context); between two ordinals the driver's peer copy; another
 * runtime, or a driver without the call, is UNIMPLEMENTED (core copies
 * through the host). */
kiln_status gpu_copy_peer(kiln_backend_device *dst_device,
                          kiln_backend_buffer *dst, uint64_t dst_offset,
                          kiln_backend_device *src_device,
                          kiln_backend_buffer *src, uint64_t src_offset,
                          size_t bytes);
/* blas_describe and gemm over runtime->blas (gpu_blas.c): a handle per
 * device, made on first use and destroyed by device_close. */
kiln_status gpu_blas_describe(kiln_backend_device *device, char *text, size_t size);
kiln_status gpu_gemm(kiln_backend_device *device, kiln_backend_stream *stream,
                     const kiln_backend_gemm *gemm);
/* Destroys the device's handle, if any (device_close, context entered). */
void gpu_blas_close(kiln_backend_device *device);

/* The fft_* slots over runtime->fft (gpu_fft.c). */
kiln_status gpu_fft_describe(kiln_backend_device *device, char *text, size_t size);
kiln_status gpu_fft_plan_create(kiln_backend_device *device, const kiln_backend_fft *fft,
                                kiln_backend_fft_plan **plan, size_t *work_bytes);
kiln_status gpu_fft_execute(kiln_backend_device *device, kiln_backend_stream *stream,
                            kiln_backend_fft_plan *plan, kiln_backend_buffer *in,
                            uint64_t in_offset, kiln_backend_buffer *out, uint64_t out_offset,
                            kiln_backend_buffer *work, int sign);
void gpu_fft_plan_destroy(kiln_backend_device *device, kiln_backend_fft_plan *plan);

#define GPU_BACKEND_SHARED_OPS                         \
  .device_close = gpu_device_close,                    \
  .buffer_alloc = gpu_buffer_alloc,                    \
  .buffer_free = gpu_buffer_free,                      \
  .host_alloc = gpu_host_alloc,                        \
  .host_free = gpu_host_free,                          \
  .host_register = gpu_host_register,                  \
  .host_unregister = gpu_host_unregister,              \
  .copy_h2d = gpu_copy_h2d,                            \
  .copy_d2h = gpu_copy_d2h,                            \
  .copy_d2d = gpu_copy_d2d,                            \
  .stream_create = gpu_stream_create,                  \
  .stream_destroy = gpu_stream_destroy,                \
  .stream_synchronize = gpu_stream_synchronize,        \
  .stream_wait_event = gpu_stream_wait_event,          \
  .event_create = gpu_event_create,                    \
  .event_destroy = gpu_event_destroy,                  \
  .event_record = gpu_event_record,                    \
  .event_synchronize = gpu_event_synchronize,          \
  .event_elapsed_ms = gpu_event_elapsed_ms,            \
  .module_build = gpu_module_build,                    \
  .module_binary = gpu_module_binary,                  \
  .module_load_binary = gpu_module_load_binary,        \
  .device_fingerprint = gpu_device_fingerprint,        \
  .module_unload = gpu_module_unload,                  \
  .function_get = gpu_function_get,                    \
  .function_release = gpu_function_release,           \
  .function_limits = gpu_function_limits,              \
  .device_scope_order = gpu_device_scope_order,        \
  .launch = gpu_launch,                                \
  .native_handles = gpu_native_handles,                \
  .buffer_native = gpu_buffer_native,                  \
  .buffer_wrap = gpu_buffer_wrap,                      \
  .copy_peer = gpu_copy_peer,                          \
  .blas_describe = gpu_blas_describe,                  \
  .gemm = gpu_gemm,                                    \
  .fft_describe = gpu_fft_describe,                    \
  .fft_plan_create = gpu_fft_plan_create,              \
  .fft_execute = gpu_fft_execute,                      \
  .fft_plan_destroy = gpu_fft_plan_destroy

#endif
