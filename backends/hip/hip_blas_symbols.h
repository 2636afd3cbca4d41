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

#define KILN_ROCBLAS_GEMM_PARAMS(T)                                                     \
  (rocblas_handle handle, rocblas_operation transA, rocblas_operation transB,           \
   rocblas_int m, rocblas_int n, rocblas_int k, const T *alpha, const T *A,              \
   rocblas_int lda, const T *B, rocblas_int ldb, const T *beta, T *C, rocblas_int ldc)
#define KILN_ROCBLAS_GEMM_BATCHED_PARAMS(T)                                              \
  (rocblas_handle handle, rocblas_operation transA, rocblas_operation transB,            \
   rocblas_int m, rocblas_int n, rocblas_int k, const T *alpha, const T *A,               \
   rocblas_int lda, rocblas_stride stride_a, const T *B, rocblas_int ldb,                \
   rocblas_stride stride_b, const T *beta, T *C, rocblas_int ldc, rocblas_stride stride_c, \
   rocblas_int batch_count)

#define KILN_ROCBLAS_REQUIRED(X)                                                      \
  X(rocblas_status, rocblas_create_handle, (rocblas_handle * handle))                 \
  X(rocblas_status, rocblas_destroy_handle, (rocblas_handle handle))                  \
  X(rocblas_status, rocblas_set_stream, (rocblas_handle handle, hipStream_t stream))  \
  X(rocblas_status, rocblas_sgemm, KILN_ROCBLAS_GEMM_PARAMS(float))                   \
  X(rocblas_status, rocblas_dgemm, KILN_ROCBLAS_GEMM_PARAMS(double))                  \
  X(rocblas_status, rocblas_sgemm_strided_batched, KILN_ROCBLAS_GEMM_BATCHED_PARAMS(float)) \
  X(rocblas_status, rocblas_dgemm_strided_batched, KILN_ROCBLAS_GEMM_BATCHED_PARAMS(double))

#define KILN_ROCBLAS_OPTIONAL(X)                                                      \
  X(rocblas_status, rocblas_get_version_string, (char *buf, size_t len))              \
  X(const char *, rocblas_status_to_string, (rocblas_status status))

#endif
