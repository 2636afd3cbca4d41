/* raw_driver_bench: kiln's raw-kernel path against the bare CUDA Driver API
 * doing the same work in the same process, on the same GPU:
 *   1. c[i] = a[i] + b[i] over n float32 (default 1e8): device time of one
 *      launch (events), median of many, kiln / driver;
 *   2. a tiny launch (one work-group of 32): host time per launch over a
 *      burst of launches, and per launch + synchronize, kiln minus driver.
 * The driver side dlopens libcuda.so.1 and NVRTC itself and compiles the
 * same kernel as plain CUDA C++. Needs KILN_BACKEND=cuda and a GPU; prints
 * the reason and exits 0 otherwise (it is a benchmark, not a test).
 * Usage: raw_driver_bench [n [repeats]] */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"

typedef int CUresult;
typedef void *CUcontext, *CUmodule, *CUfunction, *CUstream, *CUevent;
typedef uint64_t CUdeviceptr;
typedef int CUdevice;
typedef int nvrtcResult;
typedef void *nvrtcProgram;

static struct {
  CUresult (*Init)(unsigned);
  CUresult (*DeviceGet)(CUdevice *, int);
  CUresult (*DeviceGetAttribute)(int *, int, CUdevice);
  CUresult (*DevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*CtxSetCurrent)(CUcontext);
  CUresult (*ModuleLoadData)(CUmodule *, const void *);
  CUresult (*ModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*MemAlloc)(CUdeviceptr *, size_t);
  CUresult (*MemFree)(CUdeviceptr);
  CUresult (*MemcpyHtoD)(CUdeviceptr, const void *, size_t);
  CUresult (*StreamCreate)(CUstream *, unsigned);
  CUresult (*StreamSynchronize)(CUstream);
  CUresult (*LaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                           unsigned, unsigned, CUstream, void **, void **);
  CUresult (*EventCreate)(CUevent *, unsigned);
  CUresult (*EventRecord)(CUevent, CUstream);
  CUresult (*EventSynchronize)(CUevent);
  CUresult (*EventElapsedTime)(float *, CUevent, CUevent);
  nvrtcResult (*CreateProgram)(nvrtcProgram *, const char *, const char *, int,
                               const char *const *, const char *const *);
  nvrtcResult (*CompileProgram)(nvrtcProgram, int, const char *const *);
  nvrtcResult (*GetCUBINSize)(nvrtcProgram, size_t *);
  nvrtcResult (*GetCUBIN)(nvrtcProgram, char *);
  nvrtcResult (*GetProgramLogSize)(nvrtcProgram, size_t *);
  nvrtcResult (*GetProgramLog)(nvrtcProgram, char *);
} cu;

#define LOAD(lib, field, name) \
  if (!(*(void **)&cu.field = dlsym(lib, name))) return fprintf(stderr, "missing %s\n", name), 0

static int load_driver(void) {
  void *cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  const char *nvrtc_names[] = {getenv("KILN_NVRTC_PATH"), "libnvrtc.so.13", "libnvrtc.so.12",
                               "/usr/local/cuda/lib64/libnvrtc.so"};
  void *nvrtc = NULL;
  for (int i = 0; i < 4 && !nvrtc; i++)
    if (nvrtc_names[i]) nvrtc = dlopen(nvrtc_names[i], RTLD_NOW | RTLD_LOCAL);
  if (!cuda || !nvrtc) return 0;
  LOAD(cuda, Init, "cuInit");
  LOAD(cuda, DeviceGet, "cuDeviceGet");
  LOAD(cuda, DeviceGetAttribute, "cuDeviceGetAttribute");
  LOAD(cuda, DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
  LOAD(cuda, CtxSetCurrent, "cuCtxSetCurrent");
  LOAD(cuda, ModuleLoadData, "cuModuleLoadData");
  LOAD(cuda, ModuleGetFunction, "cuModuleGetFunction");
  LOAD(cuda, MemAlloc, "cuMemAlloc_v2");
  LOAD(cuda, MemFree, "cuMemFree_v2");
  LOAD(cuda, MemcpyHtoD, "cuMemcpyHtoD_v2");
  LOAD(cuda, StreamCreate, "cuStreamCreate");
  LOAD(cuda, StreamSynchronize, "cuStreamSynchronize");
  LOAD(cuda, LaunchKernel, "cuLaunchKernel");
  LOAD(cuda, EventCreate, "cuEventCreate");
  LOAD(cuda, EventRecord, "cuEventRecord");
  LOAD(cuda, EventSynchronize, "cuEventSynchronize");
  if (!(*(void **)&cu.EventElapsedTime = dlsym(cuda, "cuEventElapsedTime_v2")))
    LOAD(cuda, EventElapsedTime, "cuEventElapsedTime");
  LOAD(nvrtc, CreateProgram, "nvrtcCreateProgram");
  LOAD(nvrtc, CompileProgram, "nvrtcCompileProgram");
  LOAD(nvrtc, GetCUBINSize, "nvrtcGetCUBINSize");
  LOAD(nvrtc, GetCUBIN, "nvrtcGetCUBIN");
  LOAD(nvrtc, GetProgramLogSize, "nvrtcGetProgramLogSize");
  LOAD(nvrtc, GetProgramLog, "nvrtcGetProgramLog");
  return 1;
}

#define CU(call)                                                        \
  do {                                                                  \
    CUresult r_ = (call);                                               \
    if (r_ != 0) return fprintf(stderr, "%s = %d\n", #call, r_), 1;     \
  } while (0)

/* The same two kernels, as plain CUDA C++ and in kiln's kernel language. */
static const char *cuda_source =
    "extern \"C\" __global__ void add(long long n, const float *a, const float *b, float *c) {\n"
    "  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;\n"
    "  if (i < n) c[i] = a[i] + b[i];\n"
    "}\n"
    "extern \"C\" __global__ void tiny(float *x) { if (threadIdx.x == 0) x[0] += 1.0f; }\n";
static const char *kiln_source =
    "KILN_KERNEL void add(int64_t n, KILN_GLOBAL const float *a, KILN_GLOBAL const float *b,\n"
    "                     KILN_GLOBAL float *c) {\n"
    "  int64_t i = kiln_global_id(0);\n"
    "  if (i < n) c[i] = a[i] + b[i];\n"
    "}\n"
    "KILN_KERNEL void tiny(KILN_GLOBAL float *x) { if (kiln_local_id(0) == 0) x[0] += 1.0f; }\n";

int main(int argc, char **argv) {
  int64_t n = argc > 1 ? (int64_t)strtod(argv[1], NULL) : 100000000;
  int repeats = argc > 2 ? atoi(argv[2]) : 50;
  if (n < 1 || repeats < 3) return fprintf(stderr, "usage: raw_driver_bench [n [repeats >= 3]]\n"), 2;
  kiln_context_options options;
  kiln_context_options_init(&options);
  options.backends = "cuda";
  kiln_context *ctx = NULL;
  if (kiln_context_create(&options, &ctx) != KILN_OK || !load_driver()) {
    printf("raw_driver_bench: skipped, no CUDA GPU here: %s\n", kiln_last_error());
    return 0;
  }
  kiln_device_info info;
  kiln_context_device_info(ctx, &info);

  /* driver side: same device, its primary context (as kiln uses) */
  CUdevice dev;
  CUcontext pctx;
  CU(cu.Init(0));
  CU(cu.DeviceGet(&dev, info.index));
  CU(cu.DevicePrimaryCtxRetain(&pctx, dev));
  CU(cu.CtxSetCurrent(pctx));
  int major = 0, minor = 0;
  CU(cu.DeviceGetAttribute(&major, 75, dev)); /* COMPUTE_CAPABILITY_MAJOR */
  CU(cu.DeviceGetAttribute(&minor, 76, dev));
  char arch[64];
  snprintf(arch, sizeof arch, "--gpu-architecture=sm_%d%d", major, minor);
  const char *opts[] = {arch};
  nvrtcProgram prog;
  if (cu.CreateProgram(&prog, cuda_source, "raw.cu", 0, NULL, NULL) != 0 ||
      cu.CompileProgram(prog, 1, opts) != 0)
    return fprintf(stderr, "NVRTC failed on the raw kernels\n"), 1;
  size_t cubin_size;
  cu.GetCUBINSize(prog, &cubin_size);
  char *cubin = malloc(cubin_size);
  cu.GetCUBIN(prog, cubin);
  CUmodule module;
  CUfunction raw_add, raw_tiny;
  CU(cu.ModuleLoadData(&module, cubin));
  CU(cu.ModuleGetFunction(&raw_add, module, "add"));
  CU(cu.ModuleGetFunction(&raw_tiny, module, "tiny"));
  CUstream stream;
  CU(cu.StreamCreate(&stream, 1 /* non-blocking */));

  size_t bytes = (size_t)n * sizeof(float);
  float *host = malloc(bytes);
  for (int64_t i = 0; i < n; i++) host[i] = (float)(i % 1013) * 0.25f + 1.0f;
  CUdeviceptr a, b, c;
  CU(cu.MemAlloc(&a, bytes));
  CU(cu.MemAlloc(&b, bytes));
  CU(cu.MemAlloc(&c, bytes));
  CU(cu.MemcpyHtoD(a, host, bytes));
  CU(cu.MemcpyHtoD(b, host, bytes));

  /* kiln side */
  kiln_array *ka, *kb, *kc, *kx;
  BENCH_CHECK(kiln_array_from_host(ctx, KILN_FLOAT32, 1, &n, NULL, host, &ka));
  BENCH_CHECK(kiln_array_from_host(ctx, KILN_FLOAT32, 1, &n, NULL, host, &kb));
  BENCH_CHECK(kiln_array_empty(ctx, KILN_FLOAT32, 1, &n, &kc));
  BENCH_CHECK(kiln_array_zeros(ctx, KILN_FLOAT32, 1, (int64_t[]){1}, &kx));
  kiln_kernel *kadd, *ktiny;
  BENCH_CHECK(kiln_kernel_create(ctx, kiln_source, "add", NULL, &kadd));
  BENCH_CHECK(kiln_kernel_create(ctx, kiln_source, "tiny", NULL, &ktiny));
  kiln_event *k0, *k1;
  BENCH_CHECK(kiln_event_create(ctx, &k0));
  BENCH_CHECK(kiln_event_create(ctx, &k1));
  CUevent e0, e1;
  CU(cu.EventCreate(&e0, 0));
  CU(cu.EventCreate(&e1, 0));

  /* 1. bandwidth: one work-item per element, 256 per group, both sides */
  unsigned blocks = (unsigned)((n + 255) / 256);
  int64_t global = (int64_t)blocks * 256, local = 256;
  void *raw_args[] = {&n, &a, &b, &c};
  kiln_arg kargs[] = {kiln_arg_int64(n), kiln_arg_array(ka), kiln_arg_array(kb), kiln_arg_array(kc)};
  double *raw_ms = malloc((size_t)repeats * sizeof *raw_ms), *kiln_ms = malloc((size_t)repeats * sizeof *kiln_ms);
  for (int r = -3; r < repeats; r++) { /* 3 warm-ups, interleaved sides */
    float ms;
    CU(cu.EventRecord(e0, stream));
    CU(cu.LaunchKernel(raw_add, blocks, 1, 1, 256, 1, 1, 0, stream, raw_args, NULL));
    CU(cu.EventRecord(e1, stream));
    CU(cu.EventSynchronize(e1));
    CU(cu.EventElapsedTime(&ms, e0, e1));
    double kms;
    BENCH_CHECK(kiln_event_record(k0, NULL));
    BENCH_CHECK(kiln_kernel_launch(kadd, 1, &global, &local, 4, kargs, NULL));
    BENCH_CHECK(kiln_event_record(k1, NULL));
    BENCH_CHECK(kiln_event_synchronize(k1));
    BENCH_CHECK(kiln_event_elapsed_ms(k0, k1, &kms));
    if (r >= 0) raw_ms[r] = ms, kiln_ms[r] = kms;
  }
  double rm = bench_median(raw_ms, repeats), km = bench_median(kiln_ms, repeats);
  double moved = 3.0 * (double)bytes;
  printf("device: %s (%s), n = %lld float32, %d repeats, medians\n", info.name, info.architecture,
         (long long)n, repeats);
  printf("add  driver %.4f ms (%.0f GB/s)   kiln %.4f ms (%.0f GB/s)   kiln/driver time %.3f\n", rm,
         moved / rm / 1e6, km, moved / km / 1e6, km / rm);

  /* 2. tiny launches: a burst (throughput) and launch+sync (latency) */
  const int burst = 20000, rounds = 7;
  double raw_burst[7], kiln_burst[7], raw_sync[7], kiln_sync[7];
  void *tiny_args[] = {&c};
  kiln_arg tiny_kargs[] = {kiln_arg_array(kx)};
  int64_t one_group = 32;
  for (int r = -1; r < rounds; r++) {
    double t = (1e3 * bench_now_ms());
    for (int i = 0; i < burst; i++) CU(cu.LaunchKernel(raw_tiny, 1, 1, 1, 32, 1, 1, 0, stream, tiny_args, NULL));
    CU(cu.StreamSynchronize(stream));
    double raw_b = ((1e3 * bench_now_ms()) - t) / burst;
    t = (1e3 * bench_now_ms());
    for (int i = 0; i < burst; i++) BENCH_CHECK(kiln_kernel_launch(ktiny, 1, &one_group, &one_group, 1, tiny_kargs, NULL));
    BENCH_CHECK(kiln_context_synchronize(ctx));
    double kiln_b = ((1e3 * bench_now_ms()) - t) / burst;
    t = (1e3 * bench_now_ms());
    for (int i = 0; i < 1000; i++) {
      CU(cu.LaunchKernel(raw_tiny, 1, 1, 1, 32, 1, 1, 0, stream, tiny_args, NULL));
      CU(cu.StreamSynchronize(stream));
    }
    double raw_s = ((1e3 * bench_now_ms()) - t) / 1000;
    t = (1e3 * bench_now_ms());
    for (int i = 0; i < 1000; i++) {
      BENCH_CHECK(kiln_kernel_launch(ktiny, 1, &one_group, &one_group, 1, tiny_kargs, NULL));
      BENCH_CHECK(kiln_context_synchronize(ctx));
    }
    double kiln_s = ((1e3 * bench_now_ms()) - t) / 1000;
    if (r >= 0) raw_burst[r] = raw_b, kiln_burst[r] = kiln_b, raw_sync[r] = raw_s, kiln_sync[r] = kiln_s;
  }
  double rb = bench_median(raw_burst, rounds), kb_ = bench_median(kiln_burst, rounds);
  double rs = bench_median(raw_sync, rounds), ks = bench_median(kiln_sync, rounds);
  printf("tiny launch, burst of %d:  driver %.2f us   kiln %.2f us   kiln - driver %+.2f us\n", burst,
         rb, kb_, kb_ - rb);
  printf("tiny launch + synchronize: driver %.2f us   kiln %.2f us   kiln - driver %+.2f us\n", rs, ks,
         ks - rs);

  kiln_event_release(k0);
  kiln_event_release(k1);
  kiln_kernel_release(kadd);
  kiln_kernel_release(ktiny);
  kiln_array_release(ka);
  kiln_array_release(kb);
  kiln_array_release(kc);
  kiln_array_release(kx);
  kiln_context_release(ctx);
  cu.MemFree(a);
  cu.MemFree(b);
  cu.MemFree(c);
  free(host);
  free(cubin);
  free(raw_ms);
  free(kiln_ms);
  return 0;
}
