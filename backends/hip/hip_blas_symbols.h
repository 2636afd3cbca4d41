/* backends/hip/hip_blas_symbols.h: the rocBLAS entry points the HIP backend
 * calls, one line each: X(return type, name, (parameters)), with the few
 * rocBLAS types re-declared (values from rocblas-types.h, which are ABI),
 * so building needs no ROCm headers. */
#ifndef KILN_BACKENDS_HIP_BLAS_SYMBOLS_H
#define KILN_BACKENDS_HIP_BLAS_SYMBOLS_H

#include <stdint.h>

#include "backends/hip/hip_types.h"

typedef struct _rocblas_handle *rocblas_handle;
typedef int rocblas_status;    /* enum: 0 success */
typedef int rocblas_operation; /* enum */
typedef int32_t rocblas_int;
typedef int64_t rocblas_stride;
#define KILN_ROCBLAS_OPERATION_NONE 111
#define KILN_ROCBLAS_OPERATION_TRANSPOSE 112
#define KILN_ROCBLAS_DATATYPE_F16_R 150 /* rocblas_datatype */
#define KILN_ROCBLAS_DATATYPE_F32_R 151
#define KILN_ROCBLAS_DATATYPE_F32_C 154
#define KILN_ROCBLAS_DATATYPE_F64_C 155
#define KILN_ROCBLAS_GEMM_ALGO_STANDARD 0

/* The products, declared with the parameter types of backends/gpu's
 * gpu_blas_gemm_* (the same ABI: the handle a pointer, the enums and
 * rocblas_int int, rocblas_stride 64-bit), so the shared layer calls them
 * directly. */
#define KILN_ROCBLAS_GEMM_PARAMS(T)                                                    \
  (void *handle, int transA, int transB, int m, int n, int k, const T *alpha,          \
   const T *A, int lda, const T *B, int ldb, const T *beta, T *C, int ldc)
#define KILN_ROCBLAS_GEMM_BATCHED_PARAMS(T)                                            \
  (void *handle, int transA, int transB, int m, int n, int k, const T *alpha,          \
   const T *A, int lda, long long stride_a, const T *B, int ldb, long long stride_b,   \
   const T *beta, T *C, int ldc, long long stride_c, int batch_count)

#define KILN_ROCBLAS_REQUIRED(X)                                                      \
  X(rocblas_status, rocblas_create_handle, (rocblas_handle * handle))                 \
  X(rocblas_status, rocblas_destroy_handle, (rocblas_handle handle))                  \
  X(rocblas_status, rocblas_set_stream, (rocblas_handle handle, hipStream_t stream))  \
  X(int, rocblas_sgemm, KILN_ROCBLAS_GEMM_PARAMS(float))                   \
  X(int, rocblas_dgemm, KILN_ROCBLAS_GEMM_PARAMS(double))                  \
  X(int, rocblas_sgemm_strided_batched, KILN_ROCBLAS_GEMM_BATCHED_PARAMS(float)) \
  X(int, rocblas_dgemm_strided_batched, KILN_ROCBLAS_GEMM_BATCHED_PARAMS(double))

/* The typed products (float16 stored and float32 computed, complex): D =
 * alpha op(A) op(B) + beta C, with D given as C for an in-place result. */
#define KILN_ROCBLAS_GEMM_EX_PARAMS                                                    \
  (void *handle, int transA, int transB, int m, int n, int k, const void *alpha,       \
   const void *a, int a_type, int lda, const void *b, int b_type, int ldb,             \
   const void *beta, const void *c, int c_type, int ldc, void *d, int d_type, int ldd, \
   int compute_type, int algo, int32_t solution_index, uint32_t flags)
#define KILN_ROCBLAS_GEMM_BATCHED_EX_PARAMS                                            \
  (void *handle, int transA, int transB, int m, int n, int k, const void *alpha,       \
   const void *a, int a_type, int lda, long long stride_a, const void *b, int b_type,  \
   int ldb, long long stride_b, const void *beta, const void *c, int c_type, int ldc,  \
   long long stride_c, void *d, int d_type, int ldd, long long stride_d,               \
   int batch_count, int compute_type, int algo, int32_t solution_index, uint32_t flags)

#define KILN_ROCBLAS_OPTIONAL(X)                                                      \
  X(rocblas_status, rocblas_get_version_string, (char *buf, size_t len))              \
  X(const char *, rocblas_status_to_string, (rocblas_status status))                  \
  X(int, rocblas_gemm_ex, KILN_ROCBLAS_GEMM_EX_PARAMS)                                \
  X(int, rocblas_gemm_strided_batched_ex, KILN_ROCBLAS_GEMM_BATCHED_EX_PARAMS)

#endif
