/* backends/opencl/opencl_backend.h: the OpenCL backend's objects and the
 * implementations of its kiln_backend_ops slots, one group per source file
 * (internal to the OpenCL backend; contracts in backends/backend.h). */
#ifndef KILN_BACKENDS_OPENCL_BACKEND_H
#define KILN_BACKENDS_OPENCL_BACKEND_H

#include <pthread.h>
#include <stdatomic.h>

#include "backends/backend.h"
#include "backends/opencl/opencl_library.h"

/* A stream is one in-order command queue with profiling enabled. */
struct kiln_backend_stream {
  cl_command_queue queue;
};

/* One page-locked host allocation: a CL_MEM_ALLOC_HOST_PTR buffer kept
 * mapped for its whole life; or (registered) a CL_MEM_USE_HOST_PTR buffer
 * over the caller's memory, never mapped. */
typedef struct kiln_opencl_host_allocation {
  void *host;
  cl_mem mem;
  int registered;
} kiln_opencl_host_allocation;

struct kiln_backend_device {
  const kiln_opencl_symbols *cl;
  cl_platform_id platform;
  cl_device_id device;
  cl_context context;
  kiln_backend_stream default_stream;
  cl_command_queue host_queue; /* maps/unmaps pinned host memory only */
  int version_major;           /* of CL_DEVICE_VERSION */
  int version_minor;
  cl_uint base_address_align;  /* bytes a sub-buffer origin must align to */
  cl_ulong max_alloc_size;     /* CL_DEVICE_MAX_MEM_ALLOC_SIZE */
  char name[256];              /* CL_DEVICE_NAME, for messages */
  char identity[1024];         /* platform, device and driver: keys binaries */
  char base_options[128];      /* every build gets these (opencl_program.c) */
  /* 1 while builds also get the warp shuffle through inline PTX (NVIDIA's
   * platform, opencl_program.c); 0 from the first build it broke */
  atomic_int lane_shuffle;
  int fft_library; /* kiln_opencl_fft_library ($KILN_OPENCL_FFT at open; opencl_fft.h) */

  pthread_mutex_t host_lock; /* guards host_allocations */
  kiln_opencl_host_allocation *host_allocations;
  size_t host_count;
  size_t host_capacity;
};

struct kiln_backend_buffer {
  cl_mem mem;
  size_t bytes;
};

/* cl_event is NULL until the first record; each record replaces it. */
struct kiln_backend_event {
  pthread_mutex_t lock;
  cl_event event;
};

struct kiln_backend_module {
  cl_program program;
};

/* A cl_kernel holds its arguments between clSetKernelArg and the enqueue,
 * so launches of one function are serialised by `lock`. */
struct kiln_backend_function {
  pthread_mutex_t lock;
  cl_kernel kernel;
  cl_uint num_args;
  char name[128];
};

/* The stream itself, or the device's default stream for NULL. */
kiln_backend_stream *kiln_opencl_stream_or_default(kiln_backend_device *device,
                                                   kiln_backend_stream *stream);

/* opencl_device.c */
kiln_status kiln_opencl_probe(const kiln_backend_config *config, int *device_count);
kiln_status kiln_opencl_device_info(const kiln_backend_config *config, int index,
                                    kiln_device_info *info);
kiln_status kiln_opencl_device_open(const kiln_backend_config *config, int index,
                                    kiln_backend_device **device);
void kiln_opencl_device_close(kiln_backend_device *device);

/* opencl_memory.c */
kiln_status kiln_opencl_buffer_alloc(kiln_backend_device *device, size_t bytes,
                                     kiln_backend_buffer **buffer);
void kiln_opencl_buffer_free(kiln_backend_device *device, kiln_backend_buffer *buffer);
/* Interop (opencl_interop.c): context, device and queue; a buffer's cl_mem;
 * a buffer over a retained cl_mem of the device's context. */
kiln_status kiln_opencl_native_handles(kiln_backend_device *device, kiln_backend_stream *stream,
                                       kiln_backend_native *native);
kiln_status kiln_opencl_buffer_native(kiln_backend_device *device, kiln_backend_buffer *buffer,
                                      kiln_backend_memory *memory);
kiln_status kiln_opencl_buffer_wrap(kiln_backend_device *device, const kiln_backend_memory *memory,
                                    size_t bytes, kiln_backend_buffer **buffer);
kiln_status kiln_opencl_host_alloc(kiln_backend_device *device, size_t bytes, void **host);
void kiln_opencl_host_free(kiln_backend_device *device, void *host);
kiln_status kiln_opencl_host_register(kiln_backend_device *device, void *host, size_t bytes);
kiln_status kiln_opencl_host_unregister(kiln_backend_device *device, void *host);
/* Unmaps and releases every host allocation still open (device_close). */
void kiln_opencl_host_free_all(kiln_backend_device *device);
kiln_status kiln_opencl_copy_h2d(kiln_backend_device *device, kiln_backend_stream *stream,
                                 kiln_backend_buffer *dst, uint64_t dst_offset,
                                 const void *src, size_t bytes, int blocking);
kiln_status kiln_opencl_copy_d2h(kiln_backend_device *device, kiln_backend_stream *stream,
                                 void *dst, kiln_backend_buffer *src, uint64_t src_offset,
                                 size_t bytes, int blocking);
kiln_status kiln_opencl_copy_d2d(kiln_backend_device *device, kiln_backend_stream *stream,
                                 kiln_backend_buffer *dst, uint64_t dst_offset,
                                 kiln_backend_buffer *src, uint64_t src_offset,
                                 size_t bytes);

/* opencl_queue.c */
/* Creates an in-order queue with profiling on `device` (stream_create and
 * device_open's default stream). */
kiln_status kiln_opencl_queue_create(kiln_backend_device *device, cl_command_queue *queue);
kiln_status kiln_opencl_stream_create(kiln_backend_device *device,
                                      kiln_backend_stream **stream);
void kiln_opencl_stream_destroy(kiln_backend_device *device, kiln_backend_stream *stream);
kiln_status kiln_opencl_stream_synchronize(kiln_backend_device *device,
                                           kiln_backend_stream *stream);
kiln_status kiln_opencl_stream_wait_event(kiln_backend_device *device,
                                          kiln_backend_stream *stream,
                                          kiln_backend_event *event);
kiln_status kiln_opencl_event_create(kiln_backend_device *device, kiln_backend_event **event);
void kiln_opencl_event_destroy(kiln_backend_device *device, kiln_backend_event *event);
kiln_status kiln_opencl_event_record(kiln_backend_device *device, kiln_backend_event *event,
                                     kiln_backend_stream *stream);
kiln_status kiln_opencl_event_synchronize(kiln_backend_device *device,
                                          kiln_backend_event *event);
kiln_status kiln_opencl_event_elapsed_ms(kiln_backend_device *device,
                                         kiln_backend_event *start,
                                         kiln_backend_event *end, double *ms);

/* opencl_program.c */
kiln_status kiln_opencl_module_build(kiln_backend_device *device, const char *source,
                                     const char *options, kiln_backend_module **module,
                                     char **log);
kiln_status kiln_opencl_module_binary(kiln_backend_device *device,
                                      kiln_backend_module *module, void **binary,
                                      size_t *size);
kiln_status kiln_opencl_module_load_binary(kiln_backend_device *device, const void *binary,
                                           size_t size, kiln_backend_module **module);
/* Sets device->base_options, the options every program build on the
 * device gets (the language version, correctly rounded float division and
 * sqrt where offered), and device->lane_shuffle (platform_name: the
 * device's CL_PLATFORM_NAME); INVALID_ARGUMENT for a bad
 * KILN_OPENCL_LANE_SHUFFLE. */
kiln_status kiln_opencl_base_options_init(kiln_backend_device *device, const char *platform_name);
kiln_status kiln_opencl_device_fingerprint(kiln_backend_device *device, char *text, size_t size);
void kiln_opencl_module_unload(kiln_backend_device *device, kiln_backend_module *module);
kiln_status kiln_opencl_function_get(kiln_backend_device *device,
                                     kiln_backend_module *module, const char *name,
                                     kiln_backend_function **function);
void kiln_opencl_function_release(kiln_backend_device *device,
                                  kiln_backend_function *function);
/* device_scope_order: while builds get the PTX (device->lane_shuffle:
 * NVIDIA's platform, prelude.cl's KILN_DEVICE_SCOPE_ORDER). */
int kiln_opencl_device_scope_order(kiln_backend_device *device);
kiln_status kiln_opencl_function_limits(kiln_backend_device *device,
                                        kiln_backend_function *function,
                                        uint64_t *max_work_group_size,
                                        uint64_t *preferred_multiple);

/* opencl_launch.c */
kiln_status kiln_opencl_launch(kiln_backend_device *device, kiln_backend_stream *stream,
                               kiln_backend_function *function,
                               const kiln_backend_launch *launch, int nargs,
                               const kiln_backend_arg *args);

/* opencl_blas.c: CLBlast (optional; blas_describe and gemm) */
kiln_status kiln_opencl_blas_describe(kiln_backend_device *device, char *text, size_t size);
kiln_status kiln_opencl_gemm(kiln_backend_device *device, kiln_backend_stream *stream,
                             const kiln_backend_gemm *gemm);

/* opencl_fft_select.c: clFFT or VkFFT (optional; the fft_* slots) */
kiln_status kiln_opencl_fft_describe(kiln_backend_device *device, char *text, size_t size);
kiln_status kiln_opencl_fft_plan_create(kiln_backend_device *device, const kiln_backend_fft *fft,
                                        kiln_backend_fft_plan **plan, size_t *work_bytes);
kiln_status kiln_opencl_fft_execute(kiln_backend_device *device, kiln_backend_stream *stream,
                                    kiln_backend_fft_plan *plan, kiln_backend_buffer *in,
                                    uint64_t in_offset, kiln_backend_buffer *out,
                                    uint64_t out_offset, kiln_backend_buffer *work, int sign);
void kiln_opencl_fft_plan_destroy(kiln_backend_device *device, kiln_backend_fft_plan *plan);

#endif
