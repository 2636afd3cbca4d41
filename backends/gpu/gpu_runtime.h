/* backends/gpu/gpu_runtime.h: the vendor-neutral driver table behind the CUDA
 * and HIP backends (internal to backends/gpu, cuda and hip).
 *
 * How much is shared. The CUDA Driver API and the HIP runtime mirror each
 * other call for call, so everything that is logic lives once, here in
 * backends/gpu/:
 *   - gpu_device.c   probe (runtime, device count, then compiler),
 *                    device_info, device_open/close (limits cached)
 *   - gpu_memory.c   buffers, pinned host memory, h2d/d2h/d2d copies
 *                    (bounds checks, stream choice, blocking = async + sync)
 *   - gpu_stream.c   streams and timed events
 *   - gpu_module.c   build/load/unload, binaries for the disk cache in a
 *                    checksummed envelope, kernels and their limits
 *   - gpu_launch.c   grid computation, argument packing (BUFFER as a device
 *                    address, SCALAR by value, LOCAL as 16-byte aligned
 *                    4-byte offsets into dynamic shared memory), opting in
 *                    to more than the default shared memory
 *   - gpu_compiler.c the run-time compile flow over NVRTC / hiprtc
 *                    (gpu_compiler.h: options into words, the argument
 *                    vector, program create/compile/destroy, log, image,
 *                    failures with the compiler's log)
 *   - gpu_binary.c   sanity checks of ELF / PTX images before a driver
 *                    parses them; gpu_options.c splits user options;
 *                    gpu_library.c opens vendor libraries with a record of
 *                    each path tried.
 * Each of the two backends keeps only what differs between the vendors:
 * its own type declarations and X-macro symbol tables, loading its
 * libraries, naming its errors (one macro turning a vendor code into a
 * kiln_status), the compiler's choice of target (NVRTC: CUBIN or PTX for
 * sm_XY; hiprtc: an allow-list and --offload-arch, under a lock), one small
 * wrapper per driver call that fills the table below and one per compiler
 * call that fills gpu_compiler's, and its ops table
 * (backends/<name>/<name>_backend.c), most of whose slots point straight at
 * the shared functions of gpu_backend.h. In lines: about 1,900 shared
 * (backends/gpu), a little under 1,000 per backend, two thirds of which
 * are declarations, symbol tables and one-line wrappers.
 *
 * Every function returns KILN_OK or a failure status whose detail
 * (kiln_error_set) names the vendor call and the vendor's error name and
 * string; the shared layer then prefixes what it was doing. Calls that act
 * on a device run between context_enter and context_leave on the calling
 * thread. Handles are opaque pointers; device memory is a 64-bit address.
 */
#ifndef KILN_BACKENDS_GPU_RUNTIME_H
#define KILN_BACKENDS_GPU_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#include "backends/backend.h"
#include "kiln/kiln.h"

typedef uint64_t gpu_address; /* CUdeviceptr / hipDeviceptr_t bits */
typedef void *gpu_context;    /* CUcontext; unused by HIP (NULL) */
typedef void *gpu_stream;
typedef void *gpu_event;
typedef void *gpu_module;
typedef void *gpu_function;

typedef enum gpu_device_attribute {
  GPU_DEVICE_COMPUTE_UNITS = 1,         /* multiprocessors / CUs */
  GPU_DEVICE_MAX_THREADS_PER_BLOCK,
  GPU_DEVICE_MAX_SHARED_PER_BLOCK,       /* usable without opting in */
  GPU_DEVICE_MAX_SHARED_PER_BLOCK_OPTIN, /* usable after opting in */
  GPU_DEVICE_WARP_SIZE,
  GPU_DEVICE_L2_CACHE_BYTES              /* the last-level cache */
} gpu_device_attribute;

typedef enum gpu_function_attribute {
  GPU_FUNCTION_MAX_THREADS_PER_BLOCK = 1,
  GPU_FUNCTION_STATIC_SHARED_BYTES
} gpu_function_attribute;

/* The products of a GPU vendor BLAS, with the C signature cuBLAS and
 * rocBLAS share (xGEMM and xGEMM_STRIDED_BATCHED: column-major; transposes
 * as the vendor's enum values; alpha and beta host pointers; 32-bit sizes,
 * 64-bit batch strides). Each returns the vendor's status, 0 on success.
 * The backends declare the vendor functions with these parameter types
 * (same ABI as the vendor's typedefs), so the shared layer calls them
 * directly. */
typedef int (*gpu_blas_gemm_f32)(void *handle, int transa, int transb, int m, int n, int k,
                                 const float *alpha, const float *a, int lda, const float *b,
                                 int ldb, const float *beta, float *c, int ldc);
typedef int (*gpu_blas_gemm_f64)(void *handle, int transa, int transb, int m, int n, int k,
                                 const double *alpha, const double *a, int lda,
                                 const double *b, int ldb, const double *beta, double *c,
                                 int ldc);
typedef int (*gpu_blas_gemm_batched_f32)(void *handle, int transa, int transb, int m, int n,
                                         int k, const float *alpha, const float *a, int lda,
                                         long long stride_a, const float *b, int ldb,
                                         long long stride_b, const float *beta, float *c,
                                         int ldc, long long stride_c, int batch);
typedef int (*gpu_blas_gemm_batched_f64)(void *handle, int transa, int transb, int m, int n,
                                         int k, const double *alpha, const double *a,
                                         int lda, long long stride_a, const double *b,
                                         int ldb, long long stride_b, const double *beta,
                                         double *c, int ldc, long long stride_c, int batch);

/* What a vendor BLAS gives once loaded. */
typedef struct gpu_blas_calls {
  int op_n, op_t; /* the vendor's "no transpose" and "transpose" values */
  gpu_blas_gemm_f32 gemm_f32;
  gpu_blas_gemm_f64 gemm_f64;
  gpu_blas_gemm_batched_f32 gemm_batched_f32;
  gpu_blas_gemm_batched_f64 gemm_batched_f64;
  /* the vendor's names of the four, for messages */
  const char *names[4];
} gpu_blas_calls;

/* One column-major product for the vendor's mixed-precision entry points
 * (cublasGemmEx, rocblas_gemm_ex and their strided-batched forms): the
 * arguments gemm_f32 & co take, with the stored element type; alpha 1 and
 * beta 0 are the adapter's to supply in the compute type. */
typedef struct gpu_blas_product {
  kiln_dtype dtype;
  int transa, transb, m, n, k, batch;
  const void *a, *b;
  void *c;
  int lda, ldb, ldc;
  long long stride_a, stride_b, stride_c;
} gpu_blas_product;

/* The vendor BLAS of a GPU runtime (cuBLAS, rocBLAS), loaded at run time. */
typedef struct gpu_blas {
  /* Loads the library on the first call (once, thread-safe; every later
   * call reports the same). KILN_OK and a one-line description
   * ("cuBLAS 13.0.2 (libcublas.so.13)") in text, or UNAVAILABLE with each
   * path tried, also in text. text may be NULL (size 0): just the status,
   * cheaply, for every product. On success *calls (may be NULL) receives
   * the library's products, valid for the process. */
  kiln_status (*load)(char *text, size_t size, const gpu_blas_calls **calls);
  /* A handle for the current context / device (the caller entered it). */
  kiln_status (*create)(void **handle);
  void (*destroy)(void *handle);
  /* Makes the handle queue its work on stream. */
  kiln_status (*set_stream)(void *handle, gpu_stream stream);
  /* The vendor's status as a kiln status naming `call`; KILN_OK for 0. */
  kiln_status (*check)(int status, const char *call);
  /* A product of a dtype gemm_f32/f64 do not cover: float16 stored,
   * computed in float32 and rounded once (as CuPy's float16 matmul);
   * complex64 and complex128. UNIMPLEMENTED for another dtype or when the
   * library lacks the entry points; the caller then takes the portable
   * kernel. */
  kiln_status (*gemm_ex)(void *handle, const gpu_blas_product *product);
} gpu_blas;

/* The vendor FFT library of a GPU runtime (cuFFT, hipFFT: one API), loaded
 * at run time. Plans are the library's integer handles. */
typedef struct gpu_fft {
  /* As gpu_blas.load: KILN_OK and "cuFFT 12.0.0 (libcufft.so.12)" in text,
   * or UNAVAILABLE with each path tried. text may be NULL (size 0). */
  kiln_status (*load)(char *text, size_t size);
  /* A plan of fft (context entered; *plan opaque), its work area left to
   * the caller: *work_bytes the size it needs. */
  kiln_status (*plan_create)(const kiln_backend_fft *fft, void **plan, size_t *work_bytes);
  void (*plan_destroy)(void *plan);
  /* Queues the plan on stream over work (0 when it needs none); the
   * caller serialises executions of one plan. */
  kiln_status (*execute)(void *plan, const kiln_backend_fft *fft, gpu_stream stream,
                         gpu_address work, gpu_address in, gpu_address out, int sign);
} gpu_fft;

typedef struct gpu_runtime {
  const char *name;     /* backend name: "cuda", "hip" */
  const char *vendor;   /* kiln_device_info.vendor */
  const char *platform; /* kiln_device_info.platform */

  /* Load the runtime / the compiler library (once, thread-safe; every
   * later call reports the same outcome). UNAVAILABLE with each path tried
   * and the loader's reason. Probing loads the compiler after counting
   * devices, so that "no device" is what a machine without one reports. */
  kiln_status (*load)(void);
  kiln_status (*load_compiler)(void);
  /* Number of devices; a runtime that reports none (or an error such as
   * "no device") is UNAVAILABLE naming the vendor's error. */
  kiln_status (*device_count)(int *count);
  kiln_status (*device_name)(int ordinal, char *name, size_t size);
  kiln_status (*device_total_memory)(int ordinal, uint64_t *bytes);
  kiln_status (*device_attribute)(int ordinal, gpu_device_attribute attribute,
                                  int *value);
  /* The compile target of the device ("sm_90", "gfx90a:sramecc+:xnack-"). */
  kiln_status (*device_architecture)(int ordinal, char *architecture,
                                     size_t size);
  /* Driver / runtime / compiler versions in one line. */
  kiln_status (*versions)(char *text, size_t size);

  /* Per-device context (CUDA: the retained primary context). enter makes it
   * current on the calling thread; leave restores the previous state. */
  kiln_status (*context_open)(int ordinal, gpu_context *context);
  void (*context_close)(int ordinal, gpu_context context);
  kiln_status (*context_enter)(int ordinal, gpu_context context);
  void (*context_leave)(gpu_context context);
  /* Waits for all work of the current context / device. */
  kiln_status (*context_synchronize)(void);

  kiln_status (*memory_alloc)(size_t bytes, gpu_address *address);
  kiln_status (*memory_free)(gpu_address address);
  kiln_status (*host_alloc)(size_t bytes, void **host);
  kiln_status (*host_free)(void *host);
  /* OPTIONAL (NULL when the driver lacks them): page-lock existing memory. */
  kiln_status (*host_register)(void *host, size_t bytes);
  kiln_status (*host_unregister)(void *host);
  /* Copies queued on stream (never NULL here). */
  kiln_status (*copy_h2d)(gpu_address dst, const void *src, size_t bytes,
                          gpu_stream stream);
  kiln_status (*copy_d2h)(void *dst, gpu_address src, size_t bytes,
                          gpu_stream stream);
  kiln_status (*copy_d2d)(gpu_address dst, gpu_address src, size_t bytes,
                          gpu_stream stream);
  /* OPTIONAL: copies between memory of two devices, queued on stream (of
   * the destination device); UNIMPLEMENTED when the driver lacks the call. */
  kiln_status (*copy_peer)(gpu_address dst, int dst_ordinal, gpu_context dst_context,
                           gpu_address src, int src_ordinal, gpu_context src_context,
                           size_t bytes, gpu_stream stream);

  /* Streams never synchronise with the legacy default stream. */
  kiln_status (*stream_create)(gpu_stream *stream);
  kiln_status (*stream_destroy)(gpu_stream stream);
  kiln_status (*stream_synchronize)(gpu_stream stream);
  kiln_status (*stream_wait_event)(gpu_stream stream, gpu_event event);
  /* Events record timing. */
  kiln_status (*event_create)(gpu_event *event);
  kiln_status (*event_destroy)(gpu_event event);
  kiln_status (*event_record)(gpu_event event, gpu_stream stream);
  kiln_status (*event_synchronize)(gpu_event event);
  kiln_status (*event_elapsed_ms)(gpu_event start, gpu_event end, float *ms);

  /* Compiles full source for `architecture` (from device_architecture).
   * *binary (malloc'd, caller frees) is what module_load takes; *log as in
   * backend.h's module_build. Needs no context. (The backends fill it with
   * gpu_compile over their gpu_compiler.) */
  kiln_status (*compile)(const char *architecture, const char *source,
                         const char *options, void **binary, size_t *size,
                         char **log);
  /* INVALID_ARGUMENT unless binary looks like something module_load can
   * parse without reading past size (it takes no size). */
  kiln_status (*binary_check)(const void *binary, size_t size);
  kiln_status (*module_load)(const void *binary, gpu_module *module);
  kiln_status (*module_unload)(gpu_module module);
  /* NOT_FOUND when the module has no kernel of that name. */
  kiln_status (*module_function)(gpu_module module, const char *name,
                                 gpu_function *function);
  kiln_status (*function_attribute)(gpu_function function,
                                    gpu_function_attribute attribute,
                                    int *value);
  /* OPTIONAL (NULL when the vendor needs no opt-in): allows `bytes` of
   * dynamic shared memory beyond GPU_DEVICE_MAX_SHARED_PER_BLOCK. */
  kiln_status (*function_set_max_dynamic_shared)(gpu_function function,
                                                 int bytes);
  /* params: one pointer per kernel parameter to its value. */
  kiln_status (*launch)(gpu_function function, const unsigned int grid[3],
                        const unsigned int block[3],
                        unsigned int shared_bytes, gpu_stream stream,
                        void **params);
  /* OPTIONAL: the vendor BLAS (NULL: none; core uses its own kernel). */
  const gpu_blas *blas;
  /* OPTIONAL: the vendor FFT library (NULL: none; core uses its kernels). */
  const gpu_fft *fft;
} gpu_runtime;

#endif
