/* backends/backend.h: the interface every backend implements (internal).
 *
 * A backend is one const table of function pointers (kiln_backend_ops) plus
 * its own state behind opaque handles. Core calls it; nothing else does.
 *
 * Rules for every slot:
 * - Return KILN_OK or a failure status after setting the detail with
 *   kiln_error_set() (core/runtime/error.h): the vendor call, its error name and
 *   string, and what was being done. Never print (use core/runtime/log.h, which is
 *   silent unless KILN_LOG asks), never abort, never exit.
 * - Slots marked OPTIONAL may be NULL; core falls back (noted per slot).
 * - A NULL stream means the device's default stream (created by
 *   device_open). Work on one stream runs in order.
 * - Thread safety: every slot may be called from several threads at once on
 *   the same device; a backend locks whatever its vendor API requires
 *   (e.g. an OpenCL cl_kernel's set-args + enqueue).
 * - Byte sizes passed by core are > 0: core never allocates, copies or
 *   launches zero bytes / zero work-items.
 */
#ifndef KILN_BACKENDS_BACKEND_H
#define KILN_BACKENDS_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "kiln/kiln.h"

typedef struct kiln_backend_device kiln_backend_device;
typedef struct kiln_backend_buffer kiln_backend_buffer; /* device memory */
typedef struct kiln_backend_stream kiln_backend_stream;
typedef struct kiln_backend_event kiln_backend_event;
typedef struct kiln_backend_module kiln_backend_module; /* compiled program */
typedef struct kiln_backend_function kiln_backend_function; /* one kernel */

/* What selects devices inside a backend, resolved by core from the context
 * options and environment. */
typedef struct kiln_backend_config {
  const char *platform_filter; /* substring of the platform name; NULL: any */
} kiln_backend_config;

typedef enum kiln_backend_arg_kind {
  KILN_BACKEND_ARG_BUFFER = 1, /* pointer to buffer + offset bytes */
  KILN_BACKEND_ARG_SCALAR,     /* `size` bytes at `value`, passed by value */
  KILN_BACKEND_ARG_LOCAL       /* `local_bytes` of work-group local memory */
} kiln_backend_arg_kind;

typedef struct kiln_backend_arg {
  kiln_backend_arg_kind kind;
  kiln_backend_buffer *buffer; /* BUFFER; may be NULL for an empty array */
  uint64_t offset;             /* BUFFER: byte offset into the buffer */
  const void *value;           /* SCALAR */
  size_t size;                 /* SCALAR: bytes */
  size_t local_bytes;          /* LOCAL */
} kiln_backend_arg;

/* Launch geometry, already validated by core: 1 <= work_dim <= 3, and for
 * d < work_dim, global[d] is a nonzero multiple of local[d] (local[d] > 0).
 * Dimensions >= work_dim hold 1. */
typedef struct kiln_backend_launch {
  int work_dim;
  uint64_t global[3];
  uint64_t local[3];
} kiln_backend_launch;

/* The vendor's own objects behind a device and one of its streams, for
 * interop (kiln/interop.h). Borrowed: valid until the device closes (queue:
 * until the stream is destroyed); a field the vendor has no object for is
 * NULL. */
typedef struct kiln_backend_native {
  void *context; /* CUcontext, cl_context; NULL for HIP */
  void *device;  /* cl_device_id; NULL for CUDA/HIP (see ordinal) */
  int ordinal;   /* CUDA/HIP device ordinal; OpenCL: -1 */
  void *queue;   /* CUstream, hipStream_t, cl_command_queue */
  int memory_objects; /* nonzero: buffer_native fills `object` (OpenCL);
                         zero: it fills `address` (CUDA/HIP) */
} kiln_backend_native;

/* Device memory as its vendor names it: a memory object (OpenCL cl_mem) or
 * a device address (CUDA/HIP), never both. */
typedef struct kiln_backend_memory {
  void *object;     /* cl_mem; NULL on CUDA/HIP */
  uint64_t address; /* CUdeviceptr / hipDeviceptr_t; 0 on OpenCL */
} kiln_backend_memory;
/* One (batched) matrix product for a vendor BLAS, in row-major terms:
 * for each batch index q < batch,
 *   C_q[m x n] = op(A_q) [m x k] * op(B_q) [k x n]
 * where X_q starts at x_offset + q * stride_x elements into buffer x, row r
 * of the stored matrix starts ld_x elements after row r - 1, and op(A) is A
 * (stored m x k) or, with transpose_a, the transpose of A (stored k x m);
 * likewise B. Core guarantees: m, n, k, batch >= 1; every ld_x >= the stored
 * row length (>= 1); stride_x >= 0 (0: one matrix shared by every batch
 * index; C's strides never overlap); offsets and strides are in elements.
 * Column-major libraries compute C^T = op(B)^T op(A)^T with the same
 * numbers. */
typedef struct kiln_backend_gemm {
  kiln_dtype dtype; /* FLOAT16 (computed in float32), FLOAT32, FLOAT64,
                       COMPLEX64, COMPLEX128; others are UNIMPLEMENTED */
  int transpose_a;
  int transpose_b;
  int64_t m, n, k, batch;
  kiln_backend_buffer *a, *b, *c;
  uint64_t a_offset, b_offset, c_offset; /* elements */
  int64_t ld_a, ld_b, ld_c;              /* elements */
  int64_t stride_a, stride_b, stride_c;  /* elements between batch matrices */
} kiln_backend_gemm;

/* A batched 1-D transform of a vendor FFT library: `batch` rows of n
 * points, each row contiguous and the rows back to back (the library's
 * basic layout): C2C rows of n complex in and out; R2C n real in, n/2 + 1
 * complex out; C2R n/2 + 1 complex in (which the library may overwrite), n
 * real out. Unscaled, as every vendor library: core scales.
 * rank 2 or 3: a batched 2-D or 3-D transform instead, each of the batch
 * items an outer[0] (x outer[1]) x n C-order array transformed along every
 * dim, items back to back (R2C / C2R: the real one along the last dim, of
 * n/2 + 1 complex points). */
typedef enum kiln_backend_fft_type {
  KILN_BACKEND_FFT_C2C = 1,
  KILN_BACKEND_FFT_R2C,
  KILN_BACKEND_FFT_C2R
} kiln_backend_fft_type;

/* Core's disk cache of compiled programs (core/kernel/kernel_disk_cache.h:
 * its directory, trust rules and KILN_CACHE settings), lent to a library
 * that compiles kernels of its own while it plans (VkFFT), so that the
 * next process loads them instead. `key` names one program completely (its
 * source and whatever else decides the binary); core adds the backend,
 * device, driver, device_fingerprint and kiln's version. Valid only during
 * the call it is passed to. */
typedef struct kiln_backend_program_cache {
  void *owner;
  /* The module (module_load_binary) of a valid entry of key, or NULL: none,
   * the cache is off, or the entry was refused (logged; compile instead). */
  kiln_backend_module *(*load)(void *owner, const char *key);
  /* Stores module's binary (module_binary) under key; failures are logged,
   * never returned. */
  void (*store)(void *owner, const char *key, kiln_backend_module *module);
} kiln_backend_program_cache;

typedef struct kiln_backend_fft {
  kiln_backend_fft_type type;
  int double_precision; /* complex128 / float64 rather than complex64 / float32 */
  int64_t n, batch;     /* >= 1 */
  int rank;             /* 0 or 1: 1-D; 2, 3: outer holds rank - 1 lengths */
  int64_t outer[2];     /* the slower dims' lengths, slowest first */
  /* where a library that compiles while planning keeps its programs; NULL:
   * nowhere. Valid during fft_plan_create only (a plan keeps no copy). */
  const kiln_backend_program_cache *programs;
} kiln_backend_fft;

typedef struct kiln_backend_fft_plan kiln_backend_fft_plan;

typedef struct kiln_backend_ops {
  /* Backend name as used in KILN_BACKEND: "cuda", "hip", "opencl". */
  const char *name;
  /* Kernel-language prelude of this dialect (NUL-terminated source text),
   * prepended by core to every kernel source before build. */
  const char *prelude;
  /* DLPack DLDeviceType of this backend's memory (kDLCUDA = 2,
   * kDLOpenCL = 4, kDLROCM = 10); 0 when it has none. */
  int dlpack_device_type;

  /* Loads the vendor libraries on first use (once, thread-safe) and counts
   * the devices that match config. Never fails the process: a missing
   * library or driver is UNAVAILABLE with each path tried and the loader's
   * or vendor's reason; no device is UNAVAILABLE with the vendor's own
   * error name where it has one. */
  kiln_status (*probe)(const kiln_backend_config *config, int *device_count);

  /* Properties of device `index` (after a successful probe). Must fill
   * every field of kiln_device_info, `backend` with `name` above. */
  kiln_status (*device_info)(const kiln_backend_config *config, int index,
                             kiln_device_info *info);

  /* Opens device `index`: context, default stream. */
  kiln_status (*device_open)(const kiln_backend_config *config, int index,
                             kiln_backend_device **device);
  /* Waits for all work, frees everything device_open made. */
  void (*device_close)(kiln_backend_device *device);

  /* Device memory. Out of memory is OUT_OF_MEMORY. */
  kiln_status (*buffer_alloc)(kiln_backend_device *device, size_t bytes,
                              kiln_backend_buffer **buffer);
  void (*buffer_free)(kiln_backend_device *device,
                      kiln_backend_buffer *buffer);

  /* OPTIONAL: page-locked host memory for fast, async transfers. Core falls
   * back to malloc (and synchronous copies) when NULL. */
  kiln_status (*host_alloc)(kiln_backend_device *device, size_t bytes,
                            void **host);
  void (*host_free)(kiln_backend_device *device, void *host);
  /* OPTIONAL: pins `bytes` of the caller's host memory at `host` for fast
   * copies, until host_unregister(host). Core reports UNIMPLEMENTED to the
   * user when NULL. */
  kiln_status (*host_register)(kiln_backend_device *device, void *host,
                               size_t bytes);
  kiln_status (*host_unregister)(kiln_backend_device *device, void *host);

  /* Copies, queued on `stream`. With blocking nonzero the call returns when
   * the copy is done; otherwise host memory must stay valid (and, for
   * h2d, unchanged) until the stream reaches the copy. */
  kiln_status (*copy_h2d)(kiln_backend_device *device,
                          kiln_backend_stream *stream,
                          kiln_backend_buffer *dst, uint64_t dst_offset,
                          const void *src, size_t bytes, int blocking);
  kiln_status (*copy_d2h)(kiln_backend_device *device,
                          kiln_backend_stream *stream, void *dst,
                          kiln_backend_buffer *src, uint64_t src_offset,
                          size_t bytes, int blocking);
  kiln_status (*copy_d2d)(kiln_backend_device *device,
                          kiln_backend_stream *stream,
                          kiln_backend_buffer *dst, uint64_t dst_offset,
                          kiln_backend_buffer *src, uint64_t src_offset,
                          size_t bytes);

  kiln_status (*stream_create)(kiln_backend_device *device,
                               kiln_backend_stream **stream);
  void (*stream_destroy)(kiln_backend_device *device,
                         kiln_backend_stream *stream);
  kiln_status (*stream_synchronize)(kiln_backend_device *device,
                                    kiln_backend_stream *stream);
  /* OPTIONAL: makes `stream` wait for `event` without blocking the host.
   * Core falls back to event_synchronize when NULL. */
  kiln_status (*stream_wait_event)(kiln_backend_device *device,
                                   kiln_backend_stream *stream,
                                   kiln_backend_event *event);

  /* Events that can be recorded on a stream and timed. */
  kiln_status (*event_create)(kiln_backend_device *device,
                              kiln_backend_event **event);
  void (*event_destroy)(kiln_backend_device *device, kiln_backend_event *event);
  kiln_status (*event_record)(kiln_backend_device *device,
                              kiln_backend_event *event,
                              kiln_backend_stream *stream);
  kiln_status (*event_synchronize)(kiln_backend_device *device,
                                   kiln_backend_event *event);
  kiln_status (*event_elapsed_ms)(kiln_backend_device *device,
                                  kiln_backend_event *start,
                                  kiln_backend_event *end, double *ms);

  /* Compiles full source (prelude included) for this device. options are
   * extra compiler options from the user (e.g. "-DN=4"), may be NULL; the
   * backend adds its own (target architecture, language standard).
   * *log receives the compiler's log (malloc'd, NUL-terminated, may be
   * empty; caller frees) on success and on failure, or NULL. A source that
   * does not compile is KILN_ERROR_COMPILE. */
  kiln_status (*module_build)(kiln_backend_device *device, const char *source,
                              const char *options,
                              kiln_backend_module **module, char **log);
  /* OPTIONAL: the module's binary (CUBIN/PTX, code object, OpenCL program
   * binary) for the disk cache: malloc'd copy, caller frees. */
  kiln_status (*module_binary)(kiln_backend_device *device,
                               kiln_backend_module *module, void **binary,
                               size_t *size);
  /* Nonzero when a module's binary on a CPU device gains code at its first
   * launch that a new process would otherwise build again: PoCL compiles
   * the work-group function for the launch's geometry then, keeps it in
   * the program, and serialises the program's binary once, at the first
   * request. Core then stores a freshly compiled module in the disk cache
   * after its first launch has run instead of right after the compile. */
  int binary_after_launch;
  /* OPTIONAL: loads a binary from module_binary. A binary the device
   * rejects is an error, never a crash. */
  kiln_status (*module_load_binary)(kiln_backend_device *device,
                                    const void *binary, size_t size,
                                    kiln_backend_module **module);
  /* OPTIONAL: one line naming what, besides the composed source and the
   * user's options, decides the bytes module_build makes here: device,
   * target architecture, driver and compiler versions, options the backend
   * adds itself. The disk cache keys its entries on it (with
   * kiln_device_info's name, architecture and driver_version, which are
   * all it has when this slot is NULL). NUL-terminated, truncated to size. */
  kiln_status (*device_fingerprint)(kiln_backend_device *device, char *text,
                                    size_t size);
  void (*module_unload)(kiln_backend_device *device,
                        kiln_backend_module *module);

  /* Finds kernel `name` (an unmangled entry point) in a module. The function
   * is valid until function_release; it does not outlive its module. */
  kiln_status (*function_get)(kiln_backend_device *device,
                              kiln_backend_module *module, const char *name,
                              kiln_backend_function **function);
  void (*function_release)(kiln_backend_device *device,
                           kiln_backend_function *function);
  /* Largest work-group size this kernel can launch with, and the preferred
   * multiple (warp / wavefront / preferred work-group size multiple). */
  kiln_status (*function_limits)(kiln_backend_device *device,
                                 kiln_backend_function *function,
                                 uint64_t *max_work_group_size,
                                 uint64_t *preferred_multiple);

  /* OPTIONAL: nonzero when kernels built from now on may rely on
   * device-scope ordering: the prelude defines KILN_DEVICE_SCOPE_ORDER
   * (kiln_flag_load / kiln_flag_store and kiln_fence seen at device scope)
   * and a resident work-group keeps running while another spins, so a
   * look-back over work-groups taken earlier from an atomic counter ends.
   * NULL: never (core then takes reduce-then-scan). */
  int (*device_scope_order)(kiln_backend_device *device);

  /* Queues one launch. args are in parameter order; SCALAR sizes are those
   * of the kernel's parameter types. LOCAL arguments: see the prelude's
   * KILN_LOCAL_PARAM. */
  kiln_status (*launch)(kiln_backend_device *device,
                        kiln_backend_stream *stream,
                        kiln_backend_function *function,
                        const kiln_backend_launch *launch, int nargs,
                        const kiln_backend_arg *args);

  /* OPTIONAL: compiles full source for an explicit target ("sm_90",
   * "gfx90a") without opening a device, for CI checks on machines without
   * that GPU. Only needs the compiler library. *log as in module_build;
   * *binary_size receives the size of what came back (0 if nothing). */
  kiln_status (*compile_for_target)(const char *source, const char *options,
                                    const char *target, size_t *binary_size,
                                    char **log);

  /* OPTIONAL (all three, interop): core reports UNIMPLEMENTED when NULL.
   * native_handles: the vendor objects of the device and of `stream`.
   * buffer_native: what `buffer` is to its vendor (borrowed: valid until
   * buffer_free). buffer_wrap: a buffer over `bytes` of memory that the
   * caller owns (OpenCL retains the cl_mem, checks that it belongs to the
   * device's context and holds `bytes`); buffer_free of such a buffer
   * frees only what buffer_wrap made, never the memory itself. */
  kiln_status (*native_handles)(kiln_backend_device *device,
                                kiln_backend_stream *stream,
                                kiln_backend_native *native);
  kiln_status (*buffer_native)(kiln_backend_device *device,
                               kiln_backend_buffer *buffer,
                               kiln_backend_memory *memory);
  kiln_status (*buffer_wrap)(kiln_backend_device *device,
                             const kiln_backend_memory *memory, size_t bytes,
                             kiln_backend_buffer **buffer);
  /* OPTIONAL: copies between buffers of two devices of this backend
   * without the host, returning when done; core has waited for the source
   * device's default stream. UNIMPLEMENTED (without a message) for a pair
   * it cannot copy between; core then copies through the host, as it does
   * when the slot is NULL. */
  kiln_status (*copy_peer)(kiln_backend_device *dst_device,
                           kiln_backend_buffer *dst, uint64_t dst_offset,
                           kiln_backend_device *src_device,
                           kiln_backend_buffer *src, uint64_t src_offset,
                           size_t bytes);
  /* OPTIONAL, both or neither: the vendor's BLAS (core's portable GEMM
   * kernel runs when NULL or unavailable).
   * blas_describe loads the library on first use (once, thread-safe) and
   * writes one line into text: what is used ("<library> <version>
   * (<file>)") and returns KILN_OK, or returns UNAVAILABLE with the reason
   * (each path tried and the loader's reason) as the error detail and in
   * text. Cheap after the first call.
   * gemm queues one kiln_backend_gemm on stream (ordered with the stream's
   * other work). UNAVAILABLE when the library is missing (as
   * blas_describe), UNIMPLEMENTED for a case outside its reach (a dtype,
   * sizes beyond its integer type): core then uses its kernel. */
  kiln_status (*blas_describe)(kiln_backend_device *device, char *text, size_t size);
  kiln_status (*gemm)(kiln_backend_device *device, kiln_backend_stream *stream,
                      const kiln_backend_gemm *gemm);
  /* OPTIONAL, all four or none: the vendor's FFT library (core's own FFT
   * kernels run when NULL or unavailable).
   * fft_describe: as blas_describe, for the FFT library.
   * fft_plan_create: a plan for one kiln_backend_fft; *work_bytes is the
   * scratch memory an execution needs (core passes a buffer of at least
   * that from its pool). UNAVAILABLE when the library is missing,
   * UNIMPLEMENTED for a case it cannot plan, OUT_OF_MEMORY.
   * fft_execute: queues the plan on stream, in -> out (in == out allowed
   * for C2C), sign -1 forward, +1 inverse; offsets in bytes; work may be
   * NULL when work_bytes was 0. A plan may be executed from several
   * threads (the backend serialises what it must).
   * fft_plan_destroy: frees a plan (NULL ignored). */
  kiln_status (*fft_describe)(kiln_backend_device *device, char *text, size_t size);
  kiln_status (*fft_plan_create)(kiln_backend_device *device, const kiln_backend_fft *fft,
                                 kiln_backend_fft_plan **plan, size_t *work_bytes);
  kiln_status (*fft_execute)(kiln_backend_device *device, kiln_backend_stream *stream,
                             kiln_backend_fft_plan *plan, kiln_backend_buffer *in,
                             uint64_t in_offset, kiln_backend_buffer *out, uint64_t out_offset,
                             kiln_backend_buffer *work, int sign);
  void (*fft_plan_destroy)(kiln_backend_device *device, kiln_backend_fft_plan *plan);
} kiln_backend_ops;

/* Each backend exposes exactly one symbol: its ops table. */
extern const kiln_backend_ops kiln_backend_opencl;
extern const kiln_backend_ops kiln_backend_cuda;
extern const kiln_backend_ops kiln_backend_hip;

#endif
