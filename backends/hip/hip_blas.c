/* backends/hip/hip_blas.c: rocBLAS as the HIP backend's gpu_blas, loaded
 * at run time once per process: $KILN_ROCBLAS_PATH when set, then
 * librocblas.so.5, .4 (ROCm 6), .3 (ROCm 5) from the library path, then the
 * same names in /opt/rocm/lib. A handle belongs to the device current when
 * it is made. Pointer mode stays host (alpha and beta are host values). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/hip/hip_backend.h"
#include "backends/hip/hip_blas_symbols.h"
#include "backends/gpu/gpu_library.h"
#include "core/runtime/dynlib.h"
#include "core/runtime/error.h"
#include "core/runtime/log.h"

#define ROCM_LIBRARY_DIR "/opt/rocm/lib/"

typedef struct rocblas_symbols {
#define KILN_ROCBLAS_MEMBER(ret, name, params) ret(*name) params;
  KILN_ROCBLAS_REQUIRED(KILN_ROCBLAS_MEMBER)
  KILN_ROCBLAS_OPTIONAL(KILN_ROCBLAS_MEMBER)
#undef KILN_ROCBLAS_MEMBER
} rocblas_symbols;

static pthread_once_t rocblas_once = PTHREAD_ONCE_INIT;
static rocblas_symbols rocblas;
static gpu_library_outcome rocblas_outcome;
static char rocblas_text[640];

static void rocblas_load_once(void) {
  const char *names[] = {
      getenv("KILN_ROCBLAS_PATH"),
      "librocblas.so.5",
      "librocblas.so.4",
      "librocblas.so.3",
      ROCM_LIBRARY_DIR "librocblas.so.5",
      ROCM_LIBRARY_DIR "librocblas.so.4",
      ROCM_LIBRARY_DIR "librocblas.so.3",
  };
  gpu_library_outcome *outcome = &rocblas_outcome;
  void *library = gpu_library_open(names, sizeof names / sizeof names[0], "hip",
                                   "rocBLAS (set KILN_ROCBLAS_PATH to its path)", outcome);
  if (!library) return;
#define KILN_ROCBLAS_RESOLVE_REQUIRED(ret, name, params)                               \
  rocblas.name = (ret(*) params)kiln_dynlib_symbol(library, #name);                    \
  if (!rocblas.name) {                                                                 \
    gpu_library_fail(outcome, KILN_ERROR_UNAVAILABLE,                                 \
                     "hip: %s lacks the entry point %s (rocBLAS 3 or later needed)", \
                     outcome->opened, #name);                                         \
    memset(&rocblas, 0, sizeof rocblas);                                                \
    kiln_dynlib_close(library);                                                       \
    return;                                                                           \
  }
#define KILN_ROCBLAS_RESOLVE_OPTIONAL(ret, name, params) \
  rocblas.name = (ret(*) params)kiln_dynlib_symbol(library, #name);
  KILN_ROCBLAS_REQUIRED(KILN_ROCBLAS_RESOLVE_REQUIRED)
  KILN_ROCBLAS_OPTIONAL(KILN_ROCBLAS_RESOLVE_OPTIONAL)
#undef KILN_ROCBLAS_RESOLVE_REQUIRED
#undef KILN_ROCBLAS_RESOLVE_OPTIONAL
  char version[128] = "";
  if (rocblas.rocblas_get_version_string &&
      rocblas.rocblas_get_version_string(version, sizeof version) != 0)
    version[0] = '\0';
  snprintf(rocblas_text, sizeof rocblas_text, "rocBLAS%s%s (%s)", version[0] ? " " : "", version,
           outcome->opened);
  kiln_log(KILN_LOG_INFO, "hip: loaded %s", rocblas_text);
}

static kiln_status hip_blas_load(char *text, size_t size) {
  pthread_once(&rocblas_once, rocblas_load_once);
  kiln_status status = gpu_library_report(&rocblas_outcome);
  if (text && size) snprintf(text, size, "%s", status == KILN_OK ? rocblas_text : kiln_last_error());
  return status;
}

/* The rocBLAS status as a kiln status, naming the call. */
static kiln_status rocblas_check(rocblas_status s, const char *call) {
  if (s == 0) return KILN_OK;
  const char *name = rocblas.rocblas_status_to_string ? rocblas.rocblas_status_to_string(s) : NULL;
  kiln_status status = s == 5   ? KILN_ERROR_OUT_OF_MEMORY /* memory_error */
                       : s == 2 ? KILN_ERROR_UNIMPLEMENTED /* not_implemented */
                                : KILN_ERROR_DEVICE;
  return kiln_error_set(status, "hip: %s failed: rocBLAS status %d (%s)", call, (int)s,
                        name ? name : "see rocblas-types.h");
}

static kiln_status hip_blas_create(void **handle) {
  rocblas_handle h = NULL;
  KILN_RETURN_IF_ERROR(rocblas_check(rocblas.rocblas_create_handle(&h), "rocblas_create_handle"));
  *handle = h;
  return KILN_OK;
}

static void hip_blas_destroy(void *handle) {
  kiln_status s = rocblas_check(rocblas.rocblas_destroy_handle(handle), "rocblas_destroy_handle");
  if (s != KILN_OK) kiln_log(KILN_LOG_WARN, "%s", kiln_last_error());
}

static kiln_status hip_blas_gemm(void *handle, gpu_stream stream, const gpu_blas_gemm *g) {
  rocblas_handle h = handle;
  KILN_RETURN_IF_ERROR(
      rocblas_check(rocblas.rocblas_set_stream(h, (hipStream_t)stream), "rocblas_set_stream"));
  const rocblas_operation ta =
      g->transpose_a ? KILN_ROCBLAS_OPERATION_TRANSPOSE : KILN_ROCBLAS_OPERATION_NONE;
  const rocblas_operation tb =
      g->transpose_b ? KILN_ROCBLAS_OPERATION_TRANSPOSE : KILN_ROCBLAS_OPERATION_NONE;
  const int single = g->batch == 1;
  if (g->dtype == KILN_FLOAT32) {
    const float one = 1.0f, zero = 0.0f;
    const float *a = (const float *)(uintptr_t)g->a, *b = (const float *)(uintptr_t)g->b;
    float *c = (float *)(uintptr_t)g->c;
    if (single)
      return rocblas_check(rocblas.rocblas_sgemm(h, ta, tb, g->m, g->n, g->k, &one, a, g->lda, b,
                                                g->ldb, &zero, c, g->ldc),
                          "rocblas_sgemm");
    return rocblas_check(rocblas.rocblas_sgemm_strided_batched(
                            h, ta, tb, g->m, g->n, g->k, &one, a, g->lda, g->stride_a, b,
                            g->ldb, g->stride_b, &zero, c, g->ldc, g->stride_c, g->batch),
                        "rocblas_sgemm_strided_batched");
  }
  if (g->dtype == KILN_FLOAT64) {
    const double one = 1.0, zero = 0.0;
    const double *a = (const double *)(uintptr_t)g->a, *b = (const double *)(uintptr_t)g->b;
    double *c = (double *)(uintptr_t)g->c;
    if (single)
      return rocblas_check(rocblas.rocblas_dgemm(h, ta, tb, g->m, g->n, g->k, &one, a, g->lda, b,
                                                g->ldb, &zero, c, g->ldc),
                          "rocblas_dgemm");
    return rocblas_check(rocblas.rocblas_dgemm_strided_batched(
                            h, ta, tb, g->m, g->n, g->k, &one, a, g->lda, g->stride_a, b,
                            g->ldb, g->stride_b, &zero, c, g->ldc, g->stride_c, g->batch),
                        "rocblas_dgemm_strided_batched");
  }
  return kiln_error_set(KILN_ERROR_UNIMPLEMENTED, "hip: rocBLAS gemm for %s",
                        kiln_dtype_name(g->dtype));
}

const gpu_blas kiln_hip_blas = {
    .load = hip_blas_load,
    .create = hip_blas_create,
    .destroy = hip_blas_destroy,
    .gemm = hip_blas_gemm,
};
