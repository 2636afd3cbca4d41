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
static gpu_blas_calls rocblas_calls;
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
  rocblas_calls = (gpu_blas_calls){
      .op_n = KILN_ROCBLAS_OPERATION_NONE,
      .op_t = KILN_ROCBLAS_OPERATION_TRANSPOSE,
      .gemm_f32 = rocblas.rocblas_sgemm,
      .gemm_f64 = rocblas.rocblas_dgemm,
      .gemm_batched_f32 = rocblas.rocblas_sgemm_strided_batched,
      .gemm_batched_f64 = rocblas.rocblas_dgemm_strided_batched,
      .names = {"rocblas_sgemm", "rocblas_dgemm", "rocblas_sgemm_strided_batched",
                "rocblas_dgemm_strided_batched"},
  };
  kiln_log(KILN_LOG_INFO, "hip: loaded %s", rocblas_text);
}

static kiln_status hip_blas_load(char *text, size_t size, const gpu_blas_calls **calls) {
  pthread_once(&rocblas_once, rocblas_load_once);
  kiln_status status = gpu_library_report(&rocblas_outcome);
  if (text && size) snprintf(text, size, "%s", status == KILN_OK ? rocblas_text : kiln_last_error());
  if (calls) *calls = status == KILN_OK ? &rocblas_calls : NULL;
  return status;
}

/* The rocBLAS status as a kiln status, naming the call. */
static kiln_status rocblas_check(int s, const char *call) {
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

static kiln_status hip_blas_set_stream(void *handle, gpu_stream stream) {
  return rocblas_check(rocblas.rocblas_set_stream(handle, (hipStream_t)stream),
                       "rocblas_set_stream");
}

/* float16 (f16_r, computed in f32_r) and complex64/128 (f32_c/f64_c)
 * through rocblas_gemm_ex: alpha and beta in the compute type, a complex
 * one as its two parts; D is C. */
static kiln_status hip_blas_gemm_ex(void *handle, const gpu_blas_product *p) {
  int type, compute;
  const float one_f[2] = {1.0f, 0.0f}, zero_f[2] = {0.0f, 0.0f};
  const double one_d[2] = {1.0, 0.0}, zero_d[2] = {0.0, 0.0};
  const void *one = one_f, *zero = zero_f;
  switch (p->dtype) {
  case KILN_FLOAT16: type = KILN_ROCBLAS_DATATYPE_F16_R, compute = KILN_ROCBLAS_DATATYPE_F32_R; break;
  case KILN_COMPLEX64: type = compute = KILN_ROCBLAS_DATATYPE_F32_C; break;
  case KILN_COMPLEX128:
    type = compute = KILN_ROCBLAS_DATATYPE_F64_C;
    one = one_d, zero = zero_d;
    break;
  default:
    return kiln_error_set(KILN_ERROR_UNIMPLEMENTED, "hip: no rocBLAS product for %s",
                          kiln_dtype_name(p->dtype));
  }
  if (!rocblas.rocblas_gemm_ex || !rocblas.rocblas_gemm_strided_batched_ex)
    return kiln_error_set(KILN_ERROR_UNIMPLEMENTED, "hip: %s lacks rocblas_gemm_ex",
                          rocblas_outcome.opened);
  const int algo = KILN_ROCBLAS_GEMM_ALGO_STANDARD;
  if (p->batch == 1)
    return rocblas_check(rocblas.rocblas_gemm_ex(handle, p->transa, p->transb, p->m, p->n, p->k,
                                                 one, p->a, type, p->lda, p->b, type, p->ldb,
                                                 zero, p->c, type, p->ldc, p->c, type, p->ldc,
                                                 compute, algo, 0, 0),
                         "rocblas_gemm_ex");
  return rocblas_check(rocblas.rocblas_gemm_strided_batched_ex(
                           handle, p->transa, p->transb, p->m, p->n, p->k, one, p->a, type,
                           p->lda, p->stride_a, p->b, type, p->ldb, p->stride_b, zero, p->c, type,
                           p->ldc, p->stride_c, p->c, type, p->ldc, p->stride_c, p->batch,
                           compute, algo, 0, 0),
                       "rocblas_gemm_strided_batched_ex");
}

const gpu_blas kiln_hip_blas = {
    .load = hip_blas_load,
    .create = hip_blas_create,
    .destroy = hip_blas_destroy,
    .set_stream = hip_blas_set_stream,
    .check = rocblas_check,
    .gemm_ex = hip_blas_gemm_ex,
};
