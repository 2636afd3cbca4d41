/* backends/cuda/cuda_blas_symbols.h: the cuBLAS entry points the CUDA
 * backend calls, one line each: X(return type, name, (parameters)), with
 * the few cuBLAS types re-declared (values from cublas_api.h, which are
 * ABI), so building needs no CUDA toolkit. The _v2 names are what
 * cublas_v2.h maps the plain names to. */
#ifndef KILN_BACKENDS_CUDA_BLAS_SYMBOLS_H
#define KILN_BACKENDS_CUDA_BLAS_SYMBOLS_H

#include "backends/cuda/cuda_types.h"

typedef struct cublasContext *cublasHandle_t;
typedef int cublasStatus_t;    /* enum: 0 success */
typedef int cublasOperation_t; /* enum */
typedef int libraryPropertyType;
#define KILN_CUBLAS_OP_N 0
#define KILN_CUBLAS_OP_T 1
#define KILN_CUBLAS_MAJOR_VERSION 0
#define KILN_CUBLAS_MINOR_VERSION 1
#define KILN_CUBLAS_PATCH_LEVEL 2
#define KILN_CUDA_R_16F 2 /* cudaDataType, library_types.h */
#define KILN_CUDA_C_32F 4
#define KILN_CUDA_C_64F 5
#define KILN_CUBLAS_COMPUTE_32F 68 /* cublasComputeType_t */
#define KILN_CUBLAS_COMPUTE_64F 70
#define KILN_CUBLAS_GEMM_DEFAULT (-1)

/* The products, declared with the parameter types of backends/gpu's
 * gpu_blas_gemm_* (the same ABI: the handle a pointer, the enums int), so
 * the shared layer calls them directly. */
#define KILN_CUBLAS_GEMM_PARAMS(T)                                                     \
  (void *handle, int transa, int transb, int m, int n, int k, const T *alpha,          \
   const T *A, int lda, const T *B, int ldb, const T *beta, T *C, int ldc)
#define KILN_CUBLAS_GEMM_BATCHED_PARAMS(T)                                             \
  (void *handle, int transa, int transb, int m, int n, int k, const T *alpha,          \
   const T *A, int lda, long long strideA, const T *B, int ldb, long long strideB,     \
   const T *beta, T *C, int ldc, long long strideC, int batchCount)

#define KILN_CUBLAS_REQUIRED(X)                                                   \
  X(cublasStatus_t, cublasCreate_v2, (cublasHandle_t * handle))                   \
  X(cublasStatus_t, cublasDestroy_v2, (cublasHandle_t handle))                    \
  X(cublasStatus_t, cublasSetStream_v2, (cublasHandle_t handle, CUstream stream)) \
  X(int, cublasSgemm_v2, KILN_CUBLAS_GEMM_PARAMS(float))               \
  X(int, cublasDgemm_v2, KILN_CUBLAS_GEMM_PARAMS(double))              \
  X(int, cublasSgemmStridedBatched, KILN_CUBLAS_GEMM_BATCHED_PARAMS(float)) \
  X(int, cublasDgemmStridedBatched, KILN_CUBLAS_GEMM_BATCHED_PARAMS(double))

/* The typed products (float16 stored and float32 computed, complex): the
 * data and compute types are enums, the algorithm an enum. */
#define KILN_CUBLAS_GEMM_EX_PARAMS                                                     \
  (void *handle, int transa, int transb, int m, int n, int k, const void *alpha,       \
   const void *A, int Atype, int lda, const void *B, int Btype, int ldb,               \
   const void *beta, void *C, int Ctype, int ldc, int computeType, int algo)
#define KILN_CUBLAS_GEMM_BATCHED_EX_PARAMS                                             \
  (void *handle, int transa, int transb, int m, int n, int k, const void *alpha,       \
   const void *A, int Atype, int lda, long long strideA, const void *B, int Btype,     \
   int ldb, long long strideB, const void *beta, void *C, int Ctype, int ldc,          \
   long long strideC, int batchCount, int computeType, int algo)

#define KILN_CUBLAS_OPTIONAL(X)                                                   \
  X(cublasStatus_t, cublasGetProperty, (libraryPropertyType type, int *value))    \
  X(const char *, cublasGetStatusName, (cublasStatus_t status))                   \
  X(int, cublasGemmEx, KILN_CUBLAS_GEMM_EX_PARAMS)                                \
  X(int, cublasGemmStridedBatchedEx, KILN_CUBLAS_GEMM_BATCHED_EX_PARAMS)

#endif
