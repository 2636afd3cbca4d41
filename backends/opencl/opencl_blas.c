/* backends/opencl/opencl_blas.c: CLBlast, the OpenCL backend's vendor BLAS
 * (backend.h's blas_describe and gemm slots). Loaded at run time, once per
 * process: $KILN_CLBLAST_PATH when set, then "libclblast.so.1" (Debian's
 * libclblast1). CLBlast takes cl_mem + element offsets and row-major
 * layouts directly, so a kiln_backend_gemm maps onto one strided-batched
 * call. It compiles its own kernels for the queue's device on first use
 * (cached by CLBlast for the process). */
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/opencl/opencl_backend.h"
#include "backends/opencl/opencl_blas_symbols.h"
#include "core/runtime/dynlib.h"
#include "core/runtime/error.h"
#include "core/runtime/log.h"
#include "core/runtime/strbuf.h"

typedef struct clblast_symbols {
#define KILN_CLBLAST_MEMBER(ret, name, params) ret(*name) params;
  KILN_CLBLAST_REQUIRED_SYMBOLS(KILN_CLBLAST_MEMBER)
#undef KILN_CLBLAST_MEMBER
} clblast_symbols;

static pthread_once_t clblast_once = PTHREAD_ONCE_INIT;
static clblast_symbols clblast;
static kiln_status clblast_status = KILN_ERROR_INTERNAL;
static char clblast_text[1024]; /* the description, or why it is unusable */

/* "1.5.3" from the file the soname points at (libclblast.so.1.5.3), or "". */
static void clblast_version(void *symbol, char *out, size_t size) {
  Dl_info info;
  out[0] = '\0';
  if (!dladdr(symbol, &info) || !info.dli_fname) return;
  char *real = realpath(info.dli_fname, NULL);
  if (!real) return;
  const char *so = strstr(real, ".so.");
  if (so) snprintf(out, size, "%s", so + 4);
  free(real);
}

static void clblast_load_once(void) {
  kiln_strbuf tried = {0};
  const char *names[2] = {getenv("KILN_CLBLAST_PATH"), "libclblast.so.1"};
  const char *opened = NULL;
  void *library = kiln_dynlib_open(names, 2, &tried, &opened);
  if (!library) {
    const char *t = kiln_strbuf_text(&tried);
    size_t n = strlen(t);
    while (n > 0 && t[n - 1] == '\n') n--;
    snprintf(clblast_text, sizeof clblast_text, "no CLBlast; tried:\n%.*s", (int)n, t);
    kiln_strbuf_free(&tried);
    clblast_status = KILN_ERROR_UNAVAILABLE;
    return;
  }
  kiln_strbuf_free(&tried);
#define KILN_CLBLAST_RESOLVE(ret, name, params)                                          \
  clblast.name = (ret(*) params)kiln_dynlib_symbol(library, #name);                      \
  if (!clblast.name) {                                                                   \
    snprintf(clblast_text, sizeof clblast_text, "%s lacks %s (CLBlast 1.5 or later needed)", \
             opened, #name);                                                             \
    kiln_dynlib_close(library);                                                          \
    memset(&clblast, 0, sizeof clblast);                                                 \
    clblast_status = KILN_ERROR_UNAVAILABLE;                                             \
    return;                                                                              \
  }
  KILN_CLBLAST_REQUIRED_SYMBOLS(KILN_CLBLAST_RESOLVE)
#undef KILN_CLBLAST_RESOLVE
  char version[64];
  clblast_version((void *)clblast.CLBlastSgemmStridedBatched, version, sizeof version);
  snprintf(clblast_text, sizeof clblast_text, "CLBlast%s%s (%s)", version[0] ? " " : "",
           version, opened);
  clblast_status = KILN_OK;
  kiln_log(KILN_LOG_INFO, "opencl: loaded %s", clblast_text);
}

static kiln_status clblast_load(void) {
  pthread_once(&clblast_once, clblast_load_once);
  if (clblast_status != KILN_OK)
    return kiln_error_set(clblast_status, "opencl: %s", clblast_text);
  return KILN_OK;
}

kiln_status kiln_opencl_blas_describe(kiln_backend_device *device, char *text, size_t size) {
  (void)device;
  kiln_status status = clblast_load();
  if (status == KILN_OK)
    snprintf(text, size, "%s; float16 through kiln's kernel (CLBlast sums float16 in float16)",
             clblast_text);
  else
    snprintf(text, size, "%s", kiln_last_error());
  return status;
}

kiln_status kiln_opencl_gemm(kiln_backend_device *device, kiln_backend_stream *stream,
                             const kiln_backend_gemm *g) {
  KILN_RETURN_IF_ERROR(clblast_load());
  cl_command_queue queue = kiln_opencl_stream_or_default(device, stream)->queue;
  CLBlastTranspose ta = g->transpose_a ? KILN_CLBLAST_TRANSPOSE_YES : KILN_CLBLAST_TRANSPOSE_NO;
  CLBlastTranspose tb = g->transpose_b ? KILN_CLBLAST_TRANSPOSE_YES : KILN_CLBLAST_TRANSPOSE_NO;
  CLBlastStatusCode s;
  const char *call;
  /* one product: the plain routine (CLBlast 1.5 rejects a C stride of 0
   * in the batched one, and there is nothing to batch) */
  const int single = g->batch == 1;
  const size_t m = (size_t)g->m, n = (size_t)g->n, k = (size_t)g->k;
  const size_t ao = (size_t)g->a_offset, bo = (size_t)g->b_offset, co = (size_t)g->c_offset;
  const size_t lda = (size_t)g->ld_a, ldb = (size_t)g->ld_b, ldc = (size_t)g->ld_c;
  const size_t sa = (size_t)g->stride_a, sb = (size_t)g->stride_b, sc = (size_t)g->stride_c;
  const size_t batch = (size_t)g->batch;
  const CLBlastLayout row = KILN_CLBLAST_ROW_MAJOR;
  cl_mem a = g->a->mem, b = g->b->mem, c = g->c->mem;
  switch (g->dtype) {
  case KILN_FLOAT32:
    call = single ? "CLBlastSgemm" : "CLBlastSgemmStridedBatched";
    s = single ? clblast.CLBlastSgemm(row, ta, tb, m, n, k, 1.0f, a, ao, lda, b, bo, ldb, 0.0f,
                                      c, co, ldc, &queue, NULL)
               : clblast.CLBlastSgemmStridedBatched(row, ta, tb, m, n, k, 1.0f, a, ao, lda, sa,
                                                    b, bo, ldb, sb, 0.0f, c, co, ldc, sc,
                                                    batch, &queue, NULL);
    break;
  case KILN_FLOAT64:
    call = single ? "CLBlastDgemm" : "CLBlastDgemmStridedBatched";
    s = single ? clblast.CLBlastDgemm(row, ta, tb, m, n, k, 1.0, a, ao, lda, b, bo, ldb, 0.0, c,
                                      co, ldc, &queue, NULL)
               : clblast.CLBlastDgemmStridedBatched(row, ta, tb, m, n, k, 1.0, a, ao, lda, sa,
                                                    b, bo, ldb, sb, 0.0, c, co, ldc, sc, batch,
                                                    &queue, NULL);
    break;
  case KILN_COMPLEX64: {
    const kiln_cl_float2 one = {{1.0f, 0.0f}}, zero = {{0.0f, 0.0f}};
    call = single ? "CLBlastCgemm" : "CLBlastCgemmStridedBatched";
    s = single ? clblast.CLBlastCgemm(row, ta, tb, m, n, k, one, a, ao, lda, b, bo, ldb, zero, c,
                                      co, ldc, &queue, NULL)
               : clblast.CLBlastCgemmStridedBatched(row, ta, tb, m, n, k, one, a, ao, lda, sa,
                                                    b, bo, ldb, sb, zero, c, co, ldc, sc, batch,
                                                    &queue, NULL);
    break;
  }
  case KILN_COMPLEX128: {
    const kiln_cl_double2 one = {{1.0, 0.0}}, zero = {{0.0, 0.0}};
    call = single ? "CLBlastZgemm" : "CLBlastZgemmStridedBatched";
    s = single ? clblast.CLBlastZgemm(row, ta, tb, m, n, k, one, a, ao, lda, b, bo, ldb, zero, c,
                                      co, ldc, &queue, NULL)
               : clblast.CLBlastZgemmStridedBatched(row, ta, tb, m, n, k, one, a, ao, lda, sa,
                                                    b, bo, ldb, sb, zero, c, co, ldc, sc, batch,
                                                    &queue, NULL);
    break;
  }
  case KILN_FLOAT16:
    /* CLBlastHgemm computes in float16 (and needs cl_khr_fp16): its sums
     * would lose what cuBLAS's float32 compute keeps. core then takes the
     * portable kernel, which computes in float32 as cuBLAS does. */
    return kiln_error_set(KILN_ERROR_UNIMPLEMENTED,
                          "opencl: CLBlast's float16 GEMM accumulates in float16; float16 "
                          "products take kiln's kernel (float32 compute)");
  default:
    return kiln_error_set(KILN_ERROR_UNIMPLEMENTED, "opencl: CLBlast gemm for %s",
                          kiln_dtype_name(g->dtype));
  }
  if (s != KILN_CLBLAST_SUCCESS)
    return kiln_error_set(s == -1024 ? KILN_ERROR_UNIMPLEMENTED : KILN_ERROR_DEVICE,
                          "opencl: %s (m %lld, n %lld, k %lld, batch %lld) on %s failed with "
                          "CLBlast status %d (%s, clblast_c.h)",
                          call, (long long)g->m, (long long)g->n, (long long)g->k,
                          (long long)g->batch, device->name, s,
                          s > -1000 ? "an OpenCL error code" : "CLBlast's own code");
  return KILN_OK;
}
