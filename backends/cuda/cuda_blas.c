/* backends/cuda/cuda_blas.c: cuBLAS as the CUDA backend's gpu_blas, loaded
 * at run time once per process: $KILN_CUBLAS_PATH when set, then
 * libcublas.so.13 and .12 from the library path, then the same names in
 * /usr/local/cuda/lib64. cuBLAS works in the device's primary context,
 * which is the one the backend retains. Pointer mode stays host (alpha and
 * beta are host values); the math mode stays the default, so float32 is
 * computed in float32 (no TF32), as CuPy does by default. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cuda/cuda_backend.h"
#include "backends/cuda/cuda_blas_symbols.h"
#include "backends/gpu/gpu_library.h"
#include "core/runtime/dynlib.h"
#include "core/runtime/error.h"
#include "core/runtime/log.h"

#define CUDA_TOOLKIT_LIBRARY_DIR "/usr/local/cuda/lib64/"

typedef struct cublas_symbols {
#define KILN_CUBLAS_MEMBER(ret, name, params) ret(*name) params;
  KILN_CUBLAS_REQUIRED(KILN_CUBLAS_MEMBER)
  KILN_CUBLAS_OPTIONAL(KILN_CUBLAS_MEMBER)
#undef KILN_CUBLAS_MEMBER
} cublas_symbols;

static pthread_once_t cublas_once = PTHREAD_ONCE_INIT;
static cublas_symbols cublas;
static gpu_library_outcome cublas_outcome;
static gpu_blas_calls cublas_calls;
static char cublas_text[640];

static void cublas_load_once(void) {
  const char *names[] = {
      getenv("KILN_CUBLAS_PATH"),
      "libcublas.so.13",
      "libcublas.so.12",
      CUDA_TOOLKIT_LIBRARY_DIR "libcublas.so.13",
      CUDA_TOOLKIT_LIBRARY_DIR "libcublas.so.12",
  };
  gpu_library_outcome *outcome = &cublas_outcome;
  void *library = gpu_library_open(names, sizeof names / sizeof names[0], "cuda",
                                   "cuBLAS (set KILN_CUBLAS_PATH to its path)", outcome);
  if (!library) return;
#define KILN_CUBLAS_RESOLVE_REQUIRED(ret, name, params)                               \
  cublas.name = (ret(*) params)kiln_dynlib_symbol(library, #name);                    \
  if (!cublas.name) {                                                                 \
    gpu_library_fail(outcome, KILN_ERROR_UNAVAILABLE,                                 \
                     "cuda: %s lacks the entry point %s (cuBLAS 12 or later needed)", \
                     outcome->opened, #name);                                         \
    memset(&cublas, 0, sizeof cublas);                                                \
    kiln_dynlib_close(library);                                                       \
    return;                                                                           \
  }
#define KILN_CUBLAS_RESOLVE_OPTIONAL(ret, name, params) \
  cublas.name = (ret(*) params)kiln_dynlib_symbol(library, #name);
  KILN_CUBLAS_REQUIRED(KILN_CUBLAS_RESOLVE_REQUIRED)
  KILN_CUBLAS_OPTIONAL(KILN_CUBLAS_RESOLVE_OPTIONAL)
#undef KILN_CUBLAS_RESOLVE_REQUIRED
#undef KILN_CUBLAS_RESOLVE_OPTIONAL
  int major = 0, minor = 0, patch = 0;
  if (cublas.cublasGetProperty &&
      cublas.cublasGetProperty(KILN_CUBLAS_MAJOR_VERSION, &major) == 0 &&
      cublas.cublasGetProperty(KILN_CUBLAS_MINOR_VERSION, &minor) == 0 &&
      cublas.cublasGetProperty(KILN_CUBLAS_PATCH_LEVEL, &patch) == 0)
    snprintf(cublas_text, sizeof cublas_text, "cuBLAS %d.%d.%d (%s)", major, minor, patch,
             outcome->opened);
  else
    snprintf(cublas_text, sizeof cublas_text, "cuBLAS (%s)", outcome->opened);
  cublas_calls = (gpu_blas_calls){
      .op_n = KILN_CUBLAS_OP_N,
      .op_t = KILN_CUBLAS_OP_T,
      .gemm_f32 = cublas.cublasSgemm_v2,
      .gemm_f64 = cublas.cublasDgemm_v2,
      .gemm_batched_f32 = cublas.cublasSgemmStridedBatched,
      .gemm_batched_f64 = cublas.cublasDgemmStridedBatched,
      .names = {"cublasSgemm", "cublasDgemm", "cublasSgemmStridedBatched",
                "cublasDgemmStridedBatched"},
  };
  kiln_log(KILN_LOG_INFO, "cuda: loaded %s", cublas_text);
}

static kiln_status cuda_blas_load(char *text, size_t size, const gpu_blas_calls **calls) {
  pthread_once(&cublas_once, cublas_load_once);
  kiln_status status = gpu_library_report(&cublas_outcome);
  if (text && size) snprintf(text, size, "%s", status == KILN_OK ? cublas_text : kiln_last_error());
  if (calls) *calls = status == KILN_OK ? &cublas_calls : NULL;
  return status;
}

/* The cuBLAS status as a kiln status, naming the call. */
static kiln_status cublas_check(int s, const char *call) {
  if (s == 0) return KILN_OK;
  const char *name = cublas.cublasGetStatusName ? cublas.cublasGetStatusName(s) : NULL;
  kiln_status status = s == 3    ? KILN_ERROR_OUT_OF_MEMORY /* ALLOC_FAILED */
                       : s == 15 ? KILN_ERROR_UNIMPLEMENTED /* NOT_SUPPORTED */
                       : s == 1  ? KILN_ERROR_UNAVAILABLE   /* NOT_INITIALIZED */
                                 : KILN_ERROR_DEVICE;
  return kiln_error_set(status, "cuda: %s failed: cuBLAS status %d (%s)", call, (int)s,
                        name ? name : "see cublas_api.h");
}

static kiln_status cuda_blas_create(void **handle) {
  cublasHandle_t h = NULL;
  KILN_RETURN_IF_ERROR(cublas_check(cublas.cublasCreate_v2(&h), "cublasCreate"));
  *handle = h;
  return KILN_OK;
}

static void cuda_blas_destroy(void *handle) {
  kiln_status s = cublas_check(cublas.cublasDestroy_v2(handle), "cublasDestroy");
  if (s != KILN_OK) kiln_log(KILN_LOG_WARN, "%s", kiln_last_error());
}

static kiln_status cuda_blas_set_stream(void *handle, gpu_stream stream) {
  return cublas_check(cublas.cublasSetStream_v2(handle, (CUstream)stream), "cublasSetStream");
}

/* float16 (CUDA_R_16F, computed in float32, as CuPy's float16 matmul) and
 * complex64/128 (CUDA_C_32F/64F) through cublasGemmEx: alpha and beta in
 * the compute type, a complex one as its two parts. */
static kiln_status cuda_blas_gemm_ex(void *handle, const gpu_blas_product *p) {
  int type, compute;
  const float one_f[2] = {1.0f, 0.0f}, zero_f[2] = {0.0f, 0.0f};
  const double one_d[2] = {1.0, 0.0}, zero_d[2] = {0.0, 0.0};
  const void *one = one_f, *zero = zero_f;
  switch (p->dtype) {
  case KILN_FLOAT16: type = KILN_CUDA_R_16F, compute = KILN_CUBLAS_COMPUTE_32F; break;
  case KILN_COMPLEX64: type = KILN_CUDA_C_32F, compute = KILN_CUBLAS_COMPUTE_32F; break;
  case KILN_COMPLEX128:
    type = KILN_CUDA_C_64F, compute = KILN_CUBLAS_COMPUTE_64F;
    one = one_d, zero = zero_d;
    break;
  default:
    return kiln_error_set(KILN_ERROR_UNIMPLEMENTED, "cuda: no cuBLAS product for %s",
                          kiln_dtype_name(p->dtype));
  }
  if (!cublas.cublasGemmEx || !cublas.cublasGemmStridedBatchedEx)
    return kiln_error_set(KILN_ERROR_UNIMPLEMENTED, "cuda: %s lacks cublasGemmEx",
                          cublas_outcome.opened);
  if (p->batch == 1)
    return cublas_check(cublas.cublasGemmEx(handle, p->transa, p->transb, p->m, p->n, p->k, one,
                                            p->a, type, p->lda, p->b, type, p->ldb, zero, p->c,
                                            type, p->ldc, compute, KILN_CUBLAS_GEMM_DEFAULT),
                        "cublasGemmEx");
  return cublas_check(cublas.cublasGemmStridedBatchedEx(
                          handle, p->transa, p->transb, p->m, p->n, p->k, one, p->a, type,
                          p->lda, p->stride_a, p->b, type, p->ldb, p->stride_b, zero, p->c, type,
                          p->ldc, p->stride_c, p->batch, compute, KILN_CUBLAS_GEMM_DEFAULT),
                      "cublasGemmStridedBatchedEx");
}

const gpu_blas kiln_cuda_blas = {
    .load = cuda_blas_load,
    .create = cuda_blas_create,
    .destroy = cuda_blas_destroy,
    .set_stream = cuda_blas_set_stream,
    .check = cublas_check,
    .gemm_ex = cuda_blas_gemm_ex,
};
