/* backends/opencl/opencl_blas_symbols.h: the CLBlast entry points the
 * OpenCL backend calls, one line each: X(return type, name, (parameters)),
 * with the few CLBlast types re-declared (CLBlast's C API, clblast_c.h), so
 * building needs no CLBlast headers. All of them are required: a library
 * lacking one is reported and not used. */
#ifndef KILN_BACKENDS_OPENCL_BLAS_SYMBOLS_H
#define KILN_BACKENDS_OPENCL_BLAS_SYMBOLS_H

#include "backends/opencl/opencl_types.h"

typedef int CLBlastStatusCode; /* 0 success; OpenCL codes; CLBlast's own <= -1024 */
typedef int CLBlastLayout;     /* enum CLBlastLayout_ */
typedef int CLBlastTranspose;  /* enum CLBlastTranspose_ */
#define KILN_CLBLAST_SUCCESS 0
#define KILN_CLBLAST_ROW_MAJOR 101
#define KILN_CLBLAST_TRANSPOSE_NO 111
#define KILN_CLBLAST_TRANSPOSE_YES 112

/* The complex scalars CLBlast takes by value, declared as Khronos's
 * cl_float2 / cl_double2 (CL/cl_platform.h) so that they pass the same way
 * (with GCC on x86-64, a union with an 8- or 16-byte vector member). */
typedef union kiln_cl_float2 {
  float s[2] __attribute__((aligned(8)));
#if defined(__MMX__)
  float v2 __attribute__((vector_size(8)));
#endif
} kiln_cl_float2;
typedef union kiln_cl_double2 {
  double s[2] __attribute__((aligned(16)));
#if defined(__SSE2__)
  double v2 __attribute__((vector_size(16)));
#endif
} kiln_cl_double2;

/* xGEMM and xGEMM_STRIDED_BATCHED for scalar type T */
#define KILN_CLBLAST_GEMM_PARAMS(T)                                                   \
  (CLBlastLayout layout, CLBlastTranspose a_transpose, CLBlastTranspose b_transpose, \
   size_t m, size_t n, size_t k, T alpha, cl_mem a_buffer, size_t a_offset,          \
   size_t a_ld, cl_mem b_buffer, size_t b_offset, size_t b_ld, T beta,               \
   cl_mem c_buffer, size_t c_offset, size_t c_ld, cl_command_queue *queue,           \
   cl_event *event)
#define KILN_CLBLAST_GEMM_BATCHED_PARAMS(T)                                           \
  (CLBlastLayout layout, CLBlastTranspose a_transpose, CLBlastTranspose b_transpose, \
   size_t m, size_t n, size_t k, T alpha, cl_mem a_buffer, size_t a_offset,          \
   size_t a_ld, size_t a_stride, cl_mem b_buffer, size_t b_offset, size_t b_ld,      \
   size_t b_stride, T beta, cl_mem c_buffer, size_t c_offset, size_t c_ld,           \
   size_t c_stride, size_t batch_count, cl_command_queue *queue, cl_event *event)

#define KILN_CLBLAST_REQUIRED_SYMBOLS(X)                                                  \
  X(CLBlastStatusCode, CLBlastSgemm, KILN_CLBLAST_GEMM_PARAMS(float))                     \
  X(CLBlastStatusCode, CLBlastDgemm, KILN_CLBLAST_GEMM_PARAMS(double))                    \
  X(CLBlastStatusCode, CLBlastCgemm, KILN_CLBLAST_GEMM_PARAMS(kiln_cl_float2))            \
  X(CLBlastStatusCode, CLBlastZgemm, KILN_CLBLAST_GEMM_PARAMS(kiln_cl_double2))           \
  X(CLBlastStatusCode, CLBlastSgemmStridedBatched, KILN_CLBLAST_GEMM_BATCHED_PARAMS(float)) \
  X(CLBlastStatusCode, CLBlastDgemmStridedBatched, KILN_CLBLAST_GEMM_BATCHED_PARAMS(double)) \
  X(CLBlastStatusCode, CLBlastCgemmStridedBatched,                                        \
    KILN_CLBLAST_GEMM_BATCHED_PARAMS(kiln_cl_float2))                                     \
  X(CLBlastStatusCode, CLBlastZgemmStridedBatched,                                        \
    KILN_CLBLAST_GEMM_BATCHED_PARAMS(kiln_cl_double2))

#endif
