/* matmul_bench: kiln_matmul on the backend KILN_BACKEND selects, on the
 * tutorials' sizes and large squares:
 *   1024x2048 @ 2048x512 float32 and float64, a 1000x1000 dot (cp.dot),
 *   4096^3 and 8192^3 float32 and float64 (GPUs only; a CPU device stops
 *   after the first three), float16 (computed in float32, as CuPy's
 *   float16 matmul) at the tutorial size and 8192^3, complex64 and
 *   complex128 at the tutorial size.
 * For each: kiln's default path (the vendor BLAS where the backend loads
 * one), kiln's portable kernel (KILN_BLAS=portable, measured in a child
 * process forked before anything is loaded, since the setting is read
 * once per process), and on CUDA cuBLAS called directly in this process
 * (dlopen libcuda.so.1 + libcublas.so.13/.12, its own buffers and stream,
 * cublasSgemm/Dgemm as CuPy calls them). Device time per product from
 * events around one call into an existing out array, median of the
 * repeats; the ratios: kiln / direct cuBLAS (goal <= 1.05), and the
 * portable kernel's throughput as a share of the vendor path's (goal >=
 * 40% for float32 at 4096^3 and up). bench/matmul_peers.py times CuPy (and
 * NumPy on the CPU) on the same sizes. Usage: matmul_bench [repeats] */
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

typedef struct bench_case {
  const char *name;
  kiln_dtype dtype;
  int64_t m, k, n;
  int gpu_only;
} bench_case;

static const bench_case cases[] = {
    {"1024x2048 @ 2048x512", KILN_FLOAT32, 1024, 2048, 512, 0},
    {"1024x2048 @ 2048x512", KILN_FLOAT64, 1024, 2048, 512, 0},
    {"dot 1000x1000 @ 1000x1000", KILN_FLOAT32, 1000, 1000, 1000, 0},
    {"4096^3", KILN_FLOAT32, 4096, 4096, 4096, 1},
    {"4096^3", KILN_FLOAT64, 4096, 4096, 4096, 1},
    {"8192^3", KILN_FLOAT32, 8192, 8192, 8192, 1},
    {"8192^3", KILN_FLOAT64, 8192, 8192, 8192, 1},
    {"1024x2048 @ 2048x512", KILN_FLOAT16, 1024, 2048, 512, 0},
    {"8192^3", KILN_FLOAT16, 8192, 8192, 8192, 1},
    {"1024x2048 @ 2048x512", KILN_COMPLEX64, 1024, 2048, 512, 0},
    {"1024x2048 @ 2048x512", KILN_COMPLEX128, 1024, 2048, 512, 0},
};
#define NCASES ((int)(sizeof cases / sizeof cases[0]))

static int repeats_for(const bench_case *c, int repeats) {
  return c->m >= 8192 ? (repeats + 3) / 4 : repeats;
}

/* Element i of host data of dtype d = v (a complex one: v - v/2 i). */
static void store_value(void *host, kiln_dtype d, int64_t i, double v) {
  if (d == KILN_FLOAT32) ((float *)host)[i] = (float)v;
  else if (d == KILN_FLOAT16) ((uint16_t *)host)[i] = kiln_float16_from_double(v);
  else if (d == KILN_COMPLEX64) ((float *)host)[2 * i] = (float)v, ((float *)host)[2 * i + 1] = (float)(-v / 2);
  else if (d == KILN_COMPLEX128) ((double *)host)[2 * i] = v, ((double *)host)[2 * i + 1] = -v / 2;
  else ((double *)host)[i] = v;
}

/* ---- kiln ------------------------------------------------------------------ */

/* Median device ms of kiln_matmul(a, b, out) on the default stream; NAN
 * for a case the device does not run. */
static double time_kiln(kiln_context *ctx, const bench_case *c, int repeats) {
  kiln_device_info info;
  kiln_context_device_info(ctx, &info);
  if (c->gpu_only && info.type != KILN_DEVICE_GPU) return NAN;
  if ((c->dtype == KILN_FLOAT64 || c->dtype == KILN_COMPLEX128) && !info.has_double) return NAN;
  size_t item = kiln_dtype_size(c->dtype);
  int64_t as[2] = {c->m, c->k}, bs[2] = {c->k, c->n}, cs[2] = {c->m, c->n};
  void *host = malloc((size_t)(c->k * (c->m > c->n ? c->m : c->n)) * item);
  srand(1);
  for (int64_t i = 0; i < c->k * (c->m > c->n ? c->m : c->n); i++) {
    double v = (double)rand() / RAND_MAX - 0.5;
    store_value(host, c->dtype, i, v);
  }
  kiln_array *a, *b, *out;
  BENCH_CHECK(kiln_array_from_host(ctx, c->dtype, 2, as, NULL, host, &a));
  BENCH_CHECK(kiln_array_from_host(ctx, c->dtype, 2, bs, NULL, host, &b));
  BENCH_CHECK(kiln_array_empty(ctx, c->dtype, 2, cs, &out));
  free(host);
  kiln_event *start, *stop;
  BENCH_CHECK(kiln_event_create(ctx, &start));
  BENCH_CHECK(kiln_event_create(ctx, &stop));
  BENCH_CHECK(kiln_matmul(a, b, out, NULL, NULL)); /* warm-up: load, compile */
  BENCH_CHECK(kiln_matmul(a, b, out, NULL, NULL));
  int n = repeats_for(c, repeats);
  double *ms = malloc((size_t)n * sizeof *ms);
  for (int r = 0; r < n; r++) {
    BENCH_CHECK(kiln_event_record(start, NULL));
    BENCH_CHECK(kiln_matmul(a, b, out, NULL, NULL));
    BENCH_CHECK(kiln_event_record(stop, NULL));
    BENCH_CHECK(kiln_event_synchronize(stop));
    BENCH_CHECK(kiln_event_elapsed_ms(start, stop, &ms[r]));
  }
  double median = bench_median(ms, n);
  free(ms);
  kiln_event_release(start);
  kiln_event_release(stop);
  kiln_array_release(a);
  kiln_array_release(b);
  kiln_array_release(out);
  return median;
}

/* ---- cuBLAS called directly ------------------------------------------------- */

typedef int CUresult;
typedef void *CUcontext, *CUstream, *CUevent;
typedef uint64_t CUdeviceptr;
static struct {
  CUresult (*Init)(unsigned);
  CUresult (*DeviceGet)(int *, int);
  CUresult (*DevicePrimaryCtxRetain)(CUcontext *, int);
  CUresult (*CtxSetCurrent)(CUcontext);
  CUresult (*MemAlloc)(CUdeviceptr *, size_t);
  CUresult (*MemFree)(CUdeviceptr);
  CUresult (*MemcpyHtoD)(CUdeviceptr, const void *, size_t);
  CUresult (*StreamCreate)(CUstream *, unsigned);
  CUresult (*EventCreate)(CUevent *, unsigned);
  CUresult (*EventRecord)(CUevent, CUstream);
  CUresult (*EventSynchronize)(CUevent);
  CUresult (*EventElapsedTime)(float *, CUevent, CUevent);
  int (*Create)(void **);
  int (*SetStream)(void *, CUstream);
  int (*Sgemm)(void *, int, int, int, int, int, const float *, const float *, int,
               const float *, int, const float *, float *, int);
  int (*Dgemm)(void *, int, int, int, int, int, const double *, const double *, int,
               const double *, int, const double *, double *, int);
  int (*GemmEx)(void *, int, int, int, int, int, const void *, const void *, int, int,
                const void *, int, int, const void *, void *, int, int, int, int);
  void *handle;
  CUstream stream;
  int ready;
} cu;

#define LOAD(lib, field, name) \
  if (!(*(void **)&cu.field = dlsym(lib, name))) return fprintf(stderr, "missing %s\n", name), 0

static int load_cublas(void) {
  void *cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  const char *names[] = {getenv("KILN_CUBLAS_PATH"), "libcublas.so.13", "libcublas.so.12",
                         "/usr/local/cuda/lib64/libcublas.so.13",
                         "/usr/local/cuda/lib64/libcublas.so.12"};
  void *cublas = NULL;
  for (int i = 0; i < 5 && !cublas; i++)
    if (names[i]) cublas = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
  if (!cuda || !cublas) return 0;
  LOAD(cuda, Init, "cuInit");
  LOAD(cuda, DeviceGet, "cuDeviceGet");
  LOAD(cuda, DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
  LOAD(cuda, CtxSetCurrent, "cuCtxSetCurrent");
  LOAD(cuda, MemAlloc, "cuMemAlloc_v2");
  LOAD(cuda, MemFree, "cuMemFree_v2");
  LOAD(cuda, MemcpyHtoD, "cuMemcpyHtoD_v2");
  LOAD(cuda, StreamCreate, "cuStreamCreate");
  LOAD(cuda, EventCreate, "cuEventCreate");
  LOAD(cuda, EventRecord, "cuEventRecord");
  LOAD(cuda, EventSynchronize, "cuEventSynchronize");
  LOAD(cuda, EventElapsedTime, "cuEventElapsedTime");
  LOAD(cublas, Create, "cublasCreate_v2");
  LOAD(cublas, SetStream, "cublasSetStream_v2");
  LOAD(cublas, Sgemm, "cublasSgemm_v2");
  LOAD(cublas, Dgemm, "cublasDgemm_v2");
  LOAD(cublas, GemmEx, "cublasGemmEx");
  int device;
  CUcontext context;
  if (cu.Init(0) || cu.DeviceGet(&device, 0) || cu.DevicePrimaryCtxRetain(&context, device) ||
      cu.CtxSetCurrent(context) || cu.StreamCreate(&cu.stream, 1) || cu.Create(&cu.handle) ||
      cu.SetStream(cu.handle, cu.stream))
    return fprintf(stderr, "direct cuBLAS setup failed\n"), 0;
  return 1;
}

/* Median device ms of one row-major product through cuBLAS, as kiln and
 * CuPy call it (C^T = B^T A^T, column-major). */
static double time_cublas(const bench_case *c, int repeats) {
  size_t item = kiln_dtype_size(c->dtype);
  CUdeviceptr a, b, d;
  size_t big = (size_t)(c->k * (c->m > c->n ? c->m : c->n)) * item;
  void *host = malloc(big);
  for (size_t i = 0; i < big / item; i++) {
    double v = (double)rand() / RAND_MAX - 0.5;
    store_value(host, c->dtype, i, v);
  }
  if (cu.MemAlloc(&a, (size_t)(c->m * c->k) * item) || cu.MemAlloc(&b, (size_t)(c->k * c->n) * item) ||
      cu.MemAlloc(&d, (size_t)(c->m * c->n) * item))
    return NAN;
  cu.MemcpyHtoD(a, host, (size_t)(c->m * c->k) * item);
  cu.MemcpyHtoD(b, host, (size_t)(c->k * c->n) * item);
  free(host);
  CUevent start, stop;
  cu.EventCreate(&start, 0);
  cu.EventCreate(&stop, 0);
  int m = (int)c->m, n = (int)c->n, k = (int)c->k, n_rep = repeats_for(c, repeats);
  double *ms = malloc((size_t)n_rep * sizeof *ms);
  for (int r = -2; r < n_rep; r++) {
    cu.EventRecord(start, cu.stream);
    int s;
    if (c->dtype == KILN_FLOAT32) {
      const float one = 1, zero = 0;
      s = cu.Sgemm(cu.handle, 0, 0, n, m, k, &one, (const float *)(uintptr_t)b, n,
                   (const float *)(uintptr_t)a, k, &zero, (float *)(uintptr_t)d, n);
    } else if (c->dtype == KILN_FLOAT16 || c->dtype == KILN_COMPLEX64 ||
               c->dtype == KILN_COMPLEX128) {
      /* as CuPy: CUDA_R_16F (2) computed in CUBLAS_COMPUTE_32F (68);
       * CUDA_C_32F (4) in 32F; CUDA_C_64F (5) in 64F (70); default algorithm */
      const float one[2] = {1, 0}, zero[2] = {0, 0};
      const double one_d[2] = {1, 0}, zero_d[2] = {0, 0};
      int t = c->dtype == KILN_FLOAT16 ? 2 : c->dtype == KILN_COMPLEX64 ? 4 : 5;
      int wide = c->dtype == KILN_COMPLEX128;
      s = cu.GemmEx(cu.handle, 0, 0, n, m, k, wide ? (const void *)one_d : one,
                    (const void *)(uintptr_t)b, t, n, (const void *)(uintptr_t)a, t, k,
                    wide ? (const void *)zero_d : zero, (void *)(uintptr_t)d, t, n,
                    wide ? 70 : 68, -1);
    } else {
      const double one = 1, zero = 0;
      s = cu.Dgemm(cu.handle, 0, 0, n, m, k, &one, (const double *)(uintptr_t)b, n,
                   (const double *)(uintptr_t)a, k, &zero, (double *)(uintptr_t)d, n);
    }
    cu.EventRecord(stop, cu.stream);
    cu.EventSynchronize(stop);
    float t = 0;
    cu.EventElapsedTime(&t, start, stop);
    if (s) fprintf(stderr, "cublas gemm failed: %d\n", s);
    if (r >= 0) ms[r] = t;
  }
  double median = bench_median(ms, n_rep);
  free(ms);
  cu.MemFree(a);
  cu.MemFree(b);
  cu.MemFree(d);
  return median;
}

/* ---- driver ----------------------------------------------------------------- */

int main(int argc, char **argv) {
  int repeats = argc > 1 ? atoi(argv[1]) : 20;
  if (repeats < 1) repeats = 1;
  /* the portable kernel in a child, before this process loads anything */
  double portable[NCASES];
  int fds[2];
  if (pipe(fds) != 0) return perror("pipe"), 1;
  fflush(stdout);
  pid_t child = fork();
  if (child == 0) {
    close(fds[0]);
    setenv("KILN_BLAS", "portable", 1);
    kiln_context *ctx;
    BENCH_CHECK(kiln_context_create(NULL, &ctx));
    for (int i = 0; i < NCASES; i++) {
      double t = time_kiln(ctx, &cases[i], repeats);
      if (write(fds[1], &t, sizeof t) != (ssize_t)sizeof t) _exit(1);
    }
    kiln_context_release(ctx);
    _exit(0);
  }
  close(fds[1]);
  for (int i = 0; i < NCASES; i++)
    if (read(fds[0], &portable[i], sizeof portable[i]) != (ssize_t)sizeof portable[i])
      portable[i] = NAN;
  close(fds[0]);
  int child_status = 0;
  waitpid(child, &child_status, 0);

  kiln_context *ctx;
  BENCH_CHECK(kiln_context_create(NULL, &ctx));
  kiln_device_info info;
  kiln_context_device_info(ctx, &info);
  char path[512];
  BENCH_CHECK(kiln_linalg_describe(ctx, path, sizeof path));
  printf("matmul_bench on %s device %d: %s\nkiln path: %s\n", info.backend, info.index,
         info.name, path);
  int direct = strcmp(info.backend, "cuda") == 0 && load_cublas();
  printf("%-28s %-7s %10s %10s %9s %10s %9s %9s\n", "case", "dtype", "kiln ms", "cuBLAS ms",
         "kiln/cuB", "portable", "port/kiln", "GFLOP/s");
  for (int i = 0; i < NCASES; i++) {
    const bench_case *c = &cases[i];
    double t = time_kiln(ctx, c, repeats);
    if (isnan(t)) continue;
    double ref = direct ? time_cublas(c, repeats) : NAN;
    double flops = 2.0 * (double)c->m * (double)c->n * (double)c->k;
    printf("%-28s %-7s %10.4f %10.4f %9.3f %10.4f %8.1f%% %9.1f\n", c->name,
           kiln_dtype_name(c->dtype), t, ref, t / ref, portable[i], 100.0 * t / portable[i],
           flops / (t * 1e6));
  }
  printf("kiln/cuB: kiln's default path over cuBLAS called directly (goal <= 1.05); "
         "port/kiln: the portable kernel's throughput as a share of the default path's "
         "(goal >= 40%% for float32 at 4096^3 and up); GFLOP/s of the default path\n");
  kiln_context_release(ctx);
  return 0;
}
