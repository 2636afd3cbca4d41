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

#define KILN_CLBLAST_REQUIRED_SYMBOLS(X)                                              \
  X(CLBlastStatusCode, CLBlastSgemm,                                                  \
    (CLBlastLayout layout, CLBlastTranspose a_transpose, CLBlastTranspose b_transpose, \
     size_t m, size_t n, size_t k, float alpha, cl_mem a_buffer, size_t a_offset,     \
     size_t a_ld, cl_mem b_buffer, size_t b_offset, size_t b_ld, float beta,          \
     cl_mem c_buffer, size_t c_offset, size_t c_ld, cl_command_queue *queue,          \
     cl_event *event))                                                                \
  X(CLBlastStatusCode, CLBlastDgemm,                                                  \
    (CLBlastLayout layout, CLBlastTranspose a_transpose, CLBlastTranspose b_transpose, \
     size_t m, size_t n, size_t k, double alpha, cl_mem a_buffer, size_t a_offset,    \
     size_t a_ld, cl_mem b_buffer, size_t b_offset, size_t b_ld, double beta,         \
     cl_mem c_buffer, size_t c_offset, size_t c_ld, cl_command_queue *queue,          \
     cl_event *event))                                                                \
  X(CLBlastStatusCode, CLBlastSgemmStridedBatched,                                    \
    (CLBlastLayout layout, CLBlastTranspose a_transpose, CLBlastTranspose b_transpose, \
     size_t m, size_t n, size_t k, float alpha, cl_mem a_buffer, size_t a_offset,     \
     size_t a_ld, size_t a_stride, cl_mem b_buffer, size_t b_offset, size_t b_ld,     \
     size_t b_stride, float beta, cl_mem c_buffer, size_t c_offset, size_t c_ld,      \
     size_t c_stride, size_t batch_count, cl_command_queue *queue, cl_event *event))  \
  X(CLBlastStatusCode, CLBlastDgemmStridedBatched,                                    \
    (CLBlastLayout layout, CLBlastTranspose a_transpose, CLBlastTranspose b_transpose, \
     size_t m, size_t n, size_t k, double alpha, cl_mem a_buffer, size_t a_offset,    \
     size_t a_ld, size_t a_stride, cl_mem b_buffer, size_t b_offset, size_t b_ld,     \
     size_t b_stride, double beta, cl_mem c_buffer, size_t c_offset, size_t c_ld,     \
     size_t c_stride, size_t batch_count, cl_command_queue *queue, cl_event *event))

#endif
