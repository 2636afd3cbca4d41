/* pinned_bench: host <-> device transfers from pinned memory, in one
 * process on one GPU.
 *   1. H2D: kiln_array_from_host of `bytes` (default 256 MiB) from memory of
 *      kiln_host_alloc, against the bare CUDA Driver API (dlopen'ed
 *      libcuda.so.1) copying from its own cuMemHostAlloc memory with
 *      cuMemcpyHtoD into one cuMemAlloc buffer: GB/s, best of 5, ratio
 *      (goal: kiln >= 90% of the driver). D2H the same way with
 *      kiln_array_to_host. Part 1 needs KILN_BACKEND=cuda.
 *   2. The hidden layer from host arrays (examples/hidden_layer.c: n
 *      float32 greyscales and weights in, normalize, weigh, activate, the
 *      activations back; default n = 1e8): from_host x2, two ufuncs on the
 *      device, the third writing the host output, wall time, best of 3,
 *      with the host buffers (a) from kiln_host_alloc, (b) malloc'd and
 *      pinned with kiln_host_register (the pinning time reported apart),
 *      (c) plain malloc; and (d) plain malloc through the ufunc host path
 *      alone (host operands given straight to the ufuncs). Goals on an
 *      H100: <= 40 ms pinned, <= 80 ms malloc. Part 2 runs on any backend.
 * Results are checked against plain C on every 997th element.
 * Usage: pinned_bench [n [bytes]] */
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "bench.h"

typedef int CUresult;
typedef void *CUcontext;
typedef uint64_t CUdeviceptr;
typedef int CUdevice;

static struct {
  CUresult (*Init)(unsigned);
  CUresult (*DeviceGet)(CUdevice *, int);
  CUresult (*DevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*DevicePrimaryCtxRelease)(CUdevice);
  CUresult (*CtxSetCurrent)(CUcontext);
  CUresult (*MemAlloc)(CUdeviceptr *, size_t);
  CUresult (*MemFree)(CUdeviceptr);
  CUresult (*MemHostAlloc)(void **, size_t, unsigned);
  CUresult (*MemFreeHost)(void *);
  CUresult (*MemcpyHtoD)(CUdeviceptr, const void *, size_t);
  CUresult (*MemcpyDtoH)(void *, CUdeviceptr, size_t);
} cu;

static int load_driver(void) {
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) return 0;
  const struct {
    void **slot;
    const char *name;
  } symbols[] = {{(void **)&cu.Init, "cuInit"},
                 {(void **)&cu.DeviceGet, "cuDeviceGet"},
                 {(void **)&cu.DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain"},
                 {(void **)&cu.DevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2"},
                 {(void **)&cu.CtxSetCurrent, "cuCtxSetCurrent"},
                 {(void **)&cu.MemAlloc, "cuMemAlloc_v2"},
                 {(void **)&cu.MemFree, "cuMemFree_v2"},
                 {(void **)&cu.MemHostAlloc, "cuMemHostAlloc"},
                 {(void **)&cu.MemFreeHost, "cuMemFreeHost"},
                 {(void **)&cu.MemcpyHtoD, "cuMemcpyHtoD_v2"},
                 {(void **)&cu.MemcpyDtoH, "cuMemcpyDtoH_v2"}};
  for (size_t i = 0; i < sizeof symbols / sizeof symbols[0]; i++)
    if (!(*symbols[i].slot = dlsym(lib, symbols[i].name))) {
      fprintf(stderr, "pinned_bench: libcuda.so.1 lacks %s\n", symbols[i].name);
      return 0;
    }
  return 1;
}

#define CU_CHECK(call)                                                        \
  do {                                                                        \
    CUresult r_ = (call);                                                     \
    if (r_ != 0) {                                                            \
      fprintf(stderr, "%s failed: CUresult %d\n", #call, r_);                 \
      exit(1);                                                                \
    }                                                                         \
  } while (0)

static double gbps(size_t bytes, double ms) { return (double)bytes / (ms * 1e6); }

static void bench_transfers(kiln_context *ctx, size_t bytes) {
  if (!load_driver()) {
    printf("transfers: skipped (libcuda.so.1 not loadable)\n");
    return;
  }
  int64_t n = (int64_t)bytes;
  unsigned char *pinned = NULL;
  BENCH_CHECK(kiln_host_alloc(ctx, bytes, (void **)&pinned));
  for (size_t i = 0; i < bytes; i++) pinned[i] = (unsigned char)(i * 7 + 3);
  double kiln_h2d = 1e30, kiln_d2h = 1e30;
  kiln_array *a = NULL;
  for (int r = 0; r < 6; r++) {
    kiln_array_release(a);
    a = NULL;
    double t0 = bench_now_ms();
    BENCH_CHECK(kiln_array_from_host(ctx, KILN_UINT8, 1, &n, NULL, pinned, &a));
    double t = bench_now_ms() - t0;
    if (r > 0 && t < kiln_h2d) kiln_h2d = t; /* the first pays the allocation */
  }
  for (int r = 0; r < 5; r++) {
    double t0 = bench_now_ms();
    BENCH_CHECK(kiln_array_to_host(a, pinned, NULL));
    double t = bench_now_ms() - t0;
    if (t < kiln_d2h) kiln_d2h = t;
  }
  int ok = 1;
  for (size_t i = 0; i < bytes; i += 4093) ok &= pinned[i] == (unsigned char)(i * 7 + 3);
  kiln_array_release(a);

  CUdevice device;
  CUcontext context;
  CU_CHECK(cu.Init(0));
  CU_CHECK(cu.DeviceGet(&device, 0));
  CU_CHECK(cu.DevicePrimaryCtxRetain(&context, device));
  CU_CHECK(cu.CtxSetCurrent(context));
  void *host = NULL;
  CUdeviceptr dev = 0;
  CU_CHECK(cu.MemHostAlloc(&host, bytes, 0));
  CU_CHECK(cu.MemAlloc(&dev, bytes));
  memset(host, 1, bytes);
  double raw_h2d = 1e30, raw_d2h = 1e30;
  for (int r = 0; r < 5; r++) {
    double t0 = bench_now_ms();
    CU_CHECK(cu.MemcpyHtoD(dev, host, bytes));
    double t = bench_now_ms() - t0;
    if (t < raw_h2d) raw_h2d = t;
    t0 = bench_now_ms();
    CU_CHECK(cu.MemcpyDtoH(host, dev, bytes));
    t = bench_now_ms() - t0;
    if (t < raw_d2h) raw_d2h = t;
  }
  CU_CHECK(cu.MemFree(dev));
  CU_CHECK(cu.MemFreeHost(host));
  CU_CHECK(cu.DevicePrimaryCtxRelease(device));
  CU_CHECK(cu.CtxSetCurrent(NULL));
  BENCH_CHECK(kiln_host_free(ctx, pinned));
  printf("H2D %zu bytes from pinned memory: kiln %.1f GB/s, driver %.1f GB/s; kiln/driver "
         "%.1f%% (goal >= 90%%)%s\n",
         bytes, gbps(bytes, kiln_h2d), gbps(bytes, raw_h2d), 100 * raw_h2d / kiln_h2d,
         ok ? "" : "  WRONG DATA");
  printf("D2H %zu bytes to pinned memory: kiln %.1f GB/s, driver %.1f GB/s; kiln/driver %.1f%%\n",
         bytes, gbps(bytes, kiln_d2h), gbps(bytes, raw_d2h), 100 * raw_d2h / kiln_d2h);
}

typedef struct layer {
  kiln_context *ctx;
  kiln_ufunc *normalize, *weigh, *activate;
  int64_t n;
} layer;

/* normalize and weigh (device results), activate into the host output. */
static void hidden_layer_steps(layer *l, kiln_operand greyscales, kiln_operand weights,
                               float *activated) {
  kiln_array *normalized = NULL, *weighted = NULL;
  kiln_operand out1[1] = {kiln_operand_new(&normalized)};
  BENCH_CHECK(kiln_ufunc_call(l->normalize, 1, &greyscales, 1, out1, NULL));
  kiln_operand in2[2] = {kiln_operand_array(normalized), weights};
  kiln_operand out2[1] = {kiln_operand_new(&weighted)};
  BENCH_CHECK(kiln_ufunc_call(l->weigh, 2, in2, 1, out2, NULL));
  kiln_operand in3[1] = {kiln_operand_array(weighted)};
  kiln_operand out3[1] = {kiln_operand_host_output(activated, KILN_FLOAT32, 1, &l->n, NULL)};
  BENCH_CHECK(kiln_ufunc_call(l->activate, 1, in3, 1, out3, NULL));
  kiln_array_release(normalized);
  kiln_array_release(weighted);
}

/* from_host x2, then the three steps. */
static void hidden_layer_arrays(layer *l, const float *greyscales, const float *weights,
                                float *activated) {
  kiln_array *g = NULL, *w = NULL;
  BENCH_CHECK(kiln_array_from_host(l->ctx, KILN_FLOAT32, 1, &l->n, NULL, greyscales, &g));
  BENCH_CHECK(kiln_array_from_host(l->ctx, KILN_FLOAT32, 1, &l->n, NULL, weights, &w));
  hidden_layer_steps(l, kiln_operand_array(g), kiln_operand_array(w), activated);
  kiln_array_release(g);
  kiln_array_release(w);
}

/* The host arrays given straight to the ufuncs (staged host path). */
static void hidden_layer_host_path(layer *l, const float *greyscales, const float *weights,
                                   float *activated) {
  hidden_layer_steps(l, kiln_operand_host(greyscales, KILN_FLOAT32, 1, &l->n, NULL),
                     kiln_operand_host(weights, KILN_FLOAT32, 1, &l->n, NULL), activated);
}

typedef void (*layer_fn)(layer *, const float *, const float *, float *);

/* Best of 3 after one warm-up, in ms; *ok cleared on a wrong result. */
static double time_layer(layer *l, layer_fn fn, const float *g, const float *w, float *out,
                         int *ok) {
  double best = 1e30;
  for (int r = 0; r < 4; r++) {
    for (int64_t i = 0; i < l->n; i += 997) out[i] = -2;
    double t0 = bench_now_ms();
    fn(l, g, w, out);
    double t = bench_now_ms() - t0;
    if (r > 0 && t < best) best = t;
  }
  for (int64_t i = 0; i < l->n; i += 997) {
    double v = (double)(g[i] / 255.0f) * w[i];
    if (!(fabs(out[i] - tanh(v)) <= 1e-5)) *ok = 0;
  }
  return best;
}

static void fill_inputs(float *g, float *w, int64_t n) {
  uint64_t state = 4;
  for (int64_t i = 0; i < n; i++) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    g[i] = (float)((state >> 40) % 256);
    w[i] = 0.5f + (float)((state >> 20) % 1000) * 1e-4f;
  }
}

static void bench_hidden_layer(kiln_context *ctx, int64_t n) {
  layer l = {ctx, NULL, NULL, NULL, n};
  const char *s1 = "float32(float32 greyscale)", *s2 = "float32(float32 value, float32 weight)",
             *s3 = "float32(float32 value)";
  BENCH_CHECK(kiln_ufunc_create(ctx, "normalize", 1, &s1, "return greyscale / 255;", NULL,
                                &l.normalize));
  BENCH_CHECK(kiln_ufunc_create(ctx, "weigh", 1, &s2, "return value * weight;", NULL, &l.weigh));
  BENCH_CHECK(kiln_ufunc_create(
      ctx, "activate", 1, &s3,
      "return (exp(value) - exp(-value)) / (exp(value) + exp(-value));", NULL, &l.activate));
  size_t bytes = (size_t)n * 4;
  int ok = 1;

  float *pg = NULL, *pw = NULL, *pa = NULL;
  BENCH_CHECK(kiln_host_alloc(ctx, bytes, (void **)&pg));
  BENCH_CHECK(kiln_host_alloc(ctx, bytes, (void **)&pw));
  BENCH_CHECK(kiln_host_alloc(ctx, bytes, (void **)&pa));
  fill_inputs(pg, pw, n);
  double pinned = time_layer(&l, hidden_layer_arrays, pg, pw, pa, &ok);
  BENCH_CHECK(kiln_host_free(ctx, pg));
  BENCH_CHECK(kiln_host_free(ctx, pw));
  BENCH_CHECK(kiln_host_free(ctx, pa));

  float *g = malloc(bytes), *w = malloc(bytes), *a = malloc(bytes);
  if (!g || !w || !a) {
    fprintf(stderr, "out of host memory\n");
    exit(1);
  }
  fill_inputs(g, w, n);
  memset(a, 0, bytes);
  double plain = time_layer(&l, hidden_layer_arrays, g, w, a, &ok);
  double host_path = time_layer(&l, hidden_layer_host_path, g, w, a, &ok);
  double t0 = bench_now_ms();
  kiln_status registered = kiln_host_register(ctx, g, bytes);
  if (registered == KILN_OK) BENCH_CHECK(kiln_host_register(ctx, w, bytes));
  if (registered == KILN_OK) BENCH_CHECK(kiln_host_register(ctx, a, bytes));
  double pinning = bench_now_ms() - t0;
  double reg = registered == KILN_OK ? time_layer(&l, hidden_layer_arrays, g, w, a, &ok) : 0;
  if (registered == KILN_OK) {
    BENCH_CHECK(kiln_host_unregister(ctx, g));
    BENCH_CHECK(kiln_host_unregister(ctx, w));
    BENCH_CHECK(kiln_host_unregister(ctx, a));
  }
  free(g);
  free(w);
  free(a);
  printf("hidden layer, %lld float32 from host arrays (2 in, 3 ufuncs, 1 out), best of 3:\n",
         (long long)n);
  printf("  pinned (kiln_host_alloc)         %8.2f ms  (goal <= 40 ms on an H100)\n", pinned);
  if (registered == KILN_OK)
    printf("  registered (kiln_host_register)  %8.2f ms  (+ %.2f ms to pin the three buffers once)\n",
           reg, pinning);
  else
    printf("  registered: %s\n", kiln_last_error());
  printf("  malloc, from_host/to_host        %8.2f ms  (goal <= 80 ms on an H100)\n", plain);
  printf("  malloc, ufunc host path          %8.2f ms\n", host_path);
  printf("  results %s\n", ok ? "checked against plain C" : "WRONG");
  kiln_ufunc_release(l.normalize);
  kiln_ufunc_release(l.weigh);
  kiln_ufunc_release(l.activate);
}

int main(int argc, char **argv) {
  int64_t n = argc > 1 ? (int64_t)strtod(argv[1], NULL) : 100000000;
  long long bytes = argc > 2 ? strtoll(argv[2], NULL, 10) : 256ll << 20;
  if (n < 1 || bytes < 1) {
    fprintf(stderr, "usage: pinned_bench [n [bytes]]\n");
    return 2;
  }
  kiln_context *ctx = NULL;
  kiln_status s = kiln_context_create(NULL, &ctx);
  if (s != KILN_OK) {
    printf("pinned_bench: no device (%s): %s\n", kiln_status_string(s), kiln_last_error());
    return 0;
  }
  kiln_device_info info;
  BENCH_CHECK(kiln_context_device_info(ctx, &info));
  printf("pinned_bench on %s (%s)\n", info.name, info.backend);
  if (strcmp(info.backend, "cuda") == 0) bench_transfers(ctx, (size_t)bytes);
  else printf("transfers against the raw driver: CUDA only, skipped\n");
  bench_hidden_layer(ctx, n);
  kiln_context_release(ctx);
  return 0;
}
