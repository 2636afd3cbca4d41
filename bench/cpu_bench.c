/* cpu_bench: kiln on an OpenCL CPU device (PoCL) against plain OpenCL C in
 * the same process, on the same device and data (docs/performance.md,
 * "CPU (PoCL)"). Each workload runs four ways, time per call (launch +
 * finish), median of the repeats, the ways interleaved so that load from
 * other processes hits them alike (the order rotating each repeat); each
 * ratio is the median of the per-repeat ratios (paired, so that drift in
 * the load cancels):
 *   plain    plain OpenCL C, `size_t i = get_global_id(0); y[i] = ...`, no
 *            build options, global = n, local size left to the driver;
 *   guarded  the same with `if (i < n)`, global rounded up to 256, local 256
 *            (what every portable kernel with a bound test gets);
 *   ufunc    kiln_ufunc_call on device arrays;
 *   raw      a kiln kernel `i = kiln_global_id(0); if (i < n) ...` launched
 *            with no local size.
 * The plain side dlopens libOpenCL.so.1 (the ICD loader) itself: no kiln
 * code in its path. The three results are compared element by element.
 * Needs an OpenCL CPU device (KILN_BACKEND=opencl, KILN_OPENCL_PLATFORM may
 * pick the platform); prints the reason and exits 0 otherwise.
 * Usage: cpu_bench [n [repeats]]   (default 1e7 elements, 9 repeats) */
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

/* ---- the ICD loader, the few calls used ------------------------------------ */
typedef int32_t cl_int;
typedef uint32_t cl_uint;
typedef void *cl_platform_id, *cl_device_id, *cl_context, *cl_command_queue, *cl_mem,
    *cl_program, *cl_kernel;

#define CL_DEVICE_TYPE_CPU (1u << 1)
#define CL_MEM_READ_WRITE 1u
#define CL_MEM_COPY_HOST_PTR (1u << 5)
#define CL_PLATFORM_VERSION 0x0901
#define CL_PLATFORM_NAME 0x0902
#define CL_DEVICE_NAME 0x102B
#define CL_PROGRAM_BUILD_LOG 0x1183

static struct {
  cl_int (*GetPlatformIDs)(cl_uint, cl_platform_id *, cl_uint *);
  cl_int (*GetPlatformInfo)(cl_platform_id, cl_uint, size_t, void *, size_t *);
  cl_int (*GetDeviceIDs)(cl_platform_id, uint64_t, cl_uint, cl_device_id *, cl_uint *);
  cl_int (*GetDeviceInfo)(cl_device_id, cl_uint, size_t, void *, size_t *);
  cl_context (*CreateContext)(const intptr_t *, cl_uint, const cl_device_id *, void *, void *,
                              cl_int *);
  cl_command_queue (*CreateCommandQueue)(cl_context, cl_device_id, uint64_t, cl_int *);
  cl_mem (*CreateBuffer)(cl_context, uint64_t, size_t, void *, cl_int *);
  cl_program (*CreateProgramWithSource)(cl_context, cl_uint, const char **, const size_t *,
                                        cl_int *);
  cl_int (*BuildProgram)(cl_program, cl_uint, const cl_device_id *, const char *, void *,
                         void *);
  cl_int (*GetProgramBuildInfo)(cl_program, cl_device_id, cl_uint, size_t, void *, size_t *);
  cl_kernel (*CreateKernel)(cl_program, const char *, cl_int *);
  cl_int (*SetKernelArg)(cl_kernel, cl_uint, size_t, const void *);
  cl_int (*EnqueueNDRangeKernel)(cl_command_queue, cl_kernel, cl_uint, const size_t *,
                                 const size_t *, const size_t *, cl_uint, const void *, void *);
  cl_int (*EnqueueReadBuffer)(cl_command_queue, cl_mem, cl_uint, size_t, size_t, void *, cl_uint,
                              const void *, void *);
  cl_int (*Finish)(cl_command_queue);
  cl_int (*ReleaseMemObject)(cl_mem);
  cl_int (*ReleaseKernel)(cl_kernel);
  cl_int (*ReleaseProgram)(cl_program);
  cl_int (*ReleaseCommandQueue)(cl_command_queue);
  cl_int (*ReleaseContext)(cl_context);
} cl;

#define LOAD(field, name) \
  if (!(*(void **)&cl.field = dlsym(lib, name))) return fprintf(stderr, "missing %s\n", name), 0

static int load_opencl(void) {
  void *lib = dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) return 0;
  LOAD(GetPlatformIDs, "clGetPlatformIDs");
  LOAD(GetPlatformInfo, "clGetPlatformInfo");
  LOAD(GetDeviceIDs, "clGetDeviceIDs");
  LOAD(GetDeviceInfo, "clGetDeviceInfo");
  LOAD(CreateContext, "clCreateContext");
  LOAD(CreateCommandQueue, "clCreateCommandQueue");
  LOAD(CreateBuffer, "clCreateBuffer");
  LOAD(CreateProgramWithSource, "clCreateProgramWithSource");
  LOAD(BuildProgram, "clBuildProgram");
  LOAD(GetProgramBuildInfo, "clGetProgramBuildInfo");
  LOAD(CreateKernel, "clCreateKernel");
  LOAD(SetKernelArg, "clSetKernelArg");
  LOAD(EnqueueNDRangeKernel, "clEnqueueNDRangeKernel");
  LOAD(EnqueueReadBuffer, "clEnqueueReadBuffer");
  LOAD(Finish, "clFinish");
  LOAD(ReleaseMemObject, "clReleaseMemObject");
  LOAD(ReleaseKernel, "clReleaseKernel");
  LOAD(ReleaseProgram, "clReleaseProgram");
  LOAD(ReleaseCommandQueue, "clReleaseCommandQueue");
  LOAD(ReleaseContext, "clReleaseContext");
  return 1;
}

#define CL(call)                                                         \
  do {                                                                   \
    cl_int r_ = (call);                                                  \
    if (r_ != 0) fprintf(stderr, "%s = %d\n", #call, r_), exit(1);       \
  } while (0)

/* The first CPU device of the first platform whose name contains `filter`
 * (NULL: any); the platform's version string into version, its name into
 * platform (256 bytes). */
static cl_device_id find_cpu_device(const char *filter, char *version, size_t size,
                                    char *platform) {
  cl_platform_id platforms[16];
  cl_uint count = 0;
  if (cl.GetPlatformIDs(16, platforms, &count) != 0) return NULL;
  for (cl_uint p = 0; p < count && p < 16; p++) {
    char name[256] = "";
    cl.GetPlatformInfo(platforms[p], CL_PLATFORM_NAME, sizeof name - 1, name, NULL);
    if (filter && filter[0] && !strstr(name, filter)) continue;
    cl_device_id device = NULL;
    cl_uint found = 0;
    if (cl.GetDeviceIDs(platforms[p], CL_DEVICE_TYPE_CPU, 1, &device, &found) == 0 && found) {
      cl.GetPlatformInfo(platforms[p], CL_PLATFORM_VERSION, size - 1, version, NULL);
      memcpy(platform, name, sizeof name);
      return device;
    }
  }
  return NULL;
}

/* ---- the workloads --------------------------------------------------------- */
typedef struct workload {
  const char *name;
  int f64;        /* float64, else float32 */
  int nin;        /* inputs a0.. */
  int stride;     /* elements between inputs' items */
  int constant;   /* plain and raw kernels: the stride written into the source
                     (1 is always), else passed as the argument `s` */
  const char *statements; /* C statements computing `r` from a0.. */
} workload;

static const workload workloads[] = {
    {"gaussian pdf (exp)", 0, 1, 1, 1, "r = exp(-0.5f * a0 * a0) * 0.39894228f;"},
    {"tanh activation (4 exp)", 0, 1, 1, 1,
     "r = (exp(a0) - exp(-a0)) / (exp(a0) + exp(-a0));"},
    {"polar distance (sin cos sqrt)", 0, 4, 1, 1,
     "float x1 = a0 * cos(a1), y1 = a0 * sin(a1), x2 = a2 * cos(a3), y2 = a2 * sin(a3);"
     " r = sqrt((x1 - x2) * (x1 - x2) + (y1 - y2) * (y1 - y2));"},
    {"add", 0, 2, 1, 1, "r = a0 + a1;"},
    {"gaussian pdf, stride 2 (arg)", 0, 1, 2, 0, "r = exp(-0.5f * a0 * a0) * 0.39894228f;"},
    {"gaussian pdf, stride 2 (const)", 0, 1, 2, 1, "r = exp(-0.5f * a0 * a0) * 0.39894228f;"},
    {"gaussian pdf float64", 1, 1, 1, 1, "r = exp(-0.5 * a0 * a0) * 0.3989422804014327;"},
};
#define NWORKLOADS ((int)(sizeof workloads / sizeof workloads[0]))

/* The kernel `k(long n, long s, inputs..., output)` in plain OpenCL C (kiln == 0)
 * or in kiln's kernel language (kiln == 1), guarded by `if (i < n)` or not. */
static void kernel_source(const workload *w, int kiln, int guarded, char *out, size_t size) {
  const char *t = w->f64 ? "double" : "float";
  int n = 0;
  if (!kiln && w->f64)
    n += snprintf(out + n, size - (size_t)n, "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n");
  n += snprintf(out + n, size - (size_t)n, "%s void k(%s n, %s s",
                kiln ? "KILN_KERNEL" : "__kernel", kiln ? "int64_t" : "long",
                kiln ? "int64_t" : "long");
  for (int j = 0; j < w->nin; j++)
    n += snprintf(out + n, size - (size_t)n, ", %s const %s *src%d",
                  kiln ? "KILN_GLOBAL" : "__global", t, j);
  n += snprintf(out + n, size - (size_t)n, ", %s %s *y) {\n  %s i = %s;\n",
                kiln ? "KILN_GLOBAL" : "__global", t, kiln ? "int64_t" : "size_t",
                kiln ? "kiln_global_id(0)" : "get_global_id(0)");
  if (guarded) n += snprintf(out + n, size - (size_t)n, "  if (i >= (%s)n) return;\n",
                             kiln ? "int64_t" : "size_t");
  for (int j = 0; j < w->nin; j++) {
    if (w->constant)
      n += snprintf(out + n, size - (size_t)n, "  %s a%d = src%d[i * %d];\n", t, j, j, w->stride);
    else
      n += snprintf(out + n, size - (size_t)n, "  %s a%d = src%d[i * s];\n", t, j, j);
  }
  snprintf(out + n, size - (size_t)n, "  %s r;\n  %s\n  y[i] = r;\n}\n", t, w->statements);
}

typedef struct times {
  double plain, guarded, ufunc, raw;
} times;

static double max_difference(const void *a, const void *b, int64_t n, int f64) {
  double worst = 0;
  for (int64_t i = 0; i < n; i++) {
    double x = f64 ? ((const double *)a)[i] : ((const float *)a)[i];
    double y = f64 ? ((const double *)b)[i] : ((const float *)b)[i];
    double d = fabs(x - y) / (fabs(x) > 1 ? fabs(x) : 1);
    if (!(d <= worst)) worst = d; /* NaN counts */
  }
  return worst;
}

/* Plain side state for one workload. */
typedef struct plain_run {
  cl_program program[2];
  cl_kernel kernel[2]; /* unguarded, guarded */
  cl_mem in[4], out;
} plain_run;

static cl_kernel plain_kernel(cl_context context, cl_device_id device, const char *source,
                              cl_program *program) {
  cl_int code = 0;
  *program = cl.CreateProgramWithSource(context, 1, &source, NULL, &code);
  CL(code);
  if (cl.BuildProgram(*program, 1, &device, "", NULL, NULL) != 0) {
    char log[8192] = "";
    cl.GetProgramBuildInfo(*program, device, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
    fprintf(stderr, "plain build failed:\n%s\n%s\n", source, log);
    exit(1);
  }
  cl_kernel kernel = cl.CreateKernel(*program, "k", &code);
  CL(code);
  return kernel;
}

static void plain_launch(cl_command_queue queue, cl_kernel kernel, size_t global, size_t local) {
  CL(cl.EnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, local ? &local : NULL, 0, NULL,
                             NULL));
  CL(cl.Finish(queue));
}

int main(int argc, char **argv) {
  int64_t n = argc > 1 ? (int64_t)strtod(argv[1], NULL) : 10000000;
  int repeats = argc > 2 ? atoi(argv[2]) : 9;
  if (n < 1 || repeats < 3) return fprintf(stderr, "usage: cpu_bench [n [repeats >= 3]]\n"), 2;
  const char *filter = getenv("KILN_OPENCL_PLATFORM");
  char version[256] = "", platform[256] = "";
  cl_device_id device = NULL;
  if (!load_opencl() || !(device = find_cpu_device(filter, version, sizeof version, platform))) {
    printf("cpu_bench: skipped: no OpenCL CPU device through libOpenCL.so.1\n");
    return 0;
  }
  kiln_context_options options;
  kiln_context_options_init(&options);
  options.backends = "opencl";
  options.platform_filter = platform; /* kiln on the same CPU platform */
  kiln_context *ctx = NULL;
  kiln_device_info info;
  if (kiln_context_create(&options, &ctx) != KILN_OK ||
      kiln_context_device_info(ctx, &info) != KILN_OK || info.type != KILN_DEVICE_CPU) {
    printf("cpu_bench: skipped: kiln's OpenCL device is not a CPU (%s); set "
           "KILN_OPENCL_PLATFORM to the CPU platform (e.g. Portable)\n",
           ctx ? info.name : kiln_last_error());
    kiln_context_release(ctx);
    return 0;
  }
  char device_name[256] = "";
  cl.GetDeviceInfo(device, CL_DEVICE_NAME, sizeof device_name - 1, device_name, NULL);
  printf("cpu_bench: n = %lld, %d repeats, median ms per call (launch + finish)\n",
         (long long)n, repeats);
  printf("plain OpenCL: %s, %s; kiln: %s %s (driver %s)\n", version, device_name, info.backend,
         info.name, info.driver_version);
  cl_int code = 0;
  cl_context context = cl.CreateContext(NULL, 1, &device, NULL, NULL, &code);
  CL(code);
  cl_command_queue queue = cl.CreateCommandQueue(context, device, 0, &code);
  CL(code);

  printf("\n%-30s %8s %8s %8s %8s | %9s %9s %9s %9s\n", "work", "plain", "guarded", "ufunc",
         "raw", "ufunc/pl", "raw/pl", "raw/guard", "guard/pl");
  double worst_ratio = 0;
  for (int w = 0; w < NWORKLOADS; w++) {
    const workload *wl = &workloads[w];
    if (wl->f64 && !info.has_double) {
      printf("%-30s skipped: no float64 on this device\n", wl->name);
      continue;
    }
    kiln_dtype dtype = wl->f64 ? KILN_FLOAT64 : KILN_FLOAT32;
    size_t item = wl->f64 ? 8 : 4;
    int64_t length = n * wl->stride;
    void *host_in[4] = {0}, *results[3];
    for (int j = 0; j < wl->nin; j++) {
      host_in[j] = malloc((size_t)length * item);
      for (int64_t i = 0; i < length; i++) {
        double v = -3.0 + 6.0 * (double)rand() / (double)RAND_MAX;
        if (wl->f64) ((double *)host_in[j])[i] = v;
        else ((float *)host_in[j])[i] = (float)v;
      }
    }
    for (int k = 0; k < 3; k++) results[k] = malloc((size_t)n * item);

    /* plain OpenCL */
    plain_run p;
    char source[2048];
    for (int g = 0; g < 2; g++) {
      kernel_source(wl, 0, g, source, sizeof source);
      p.kernel[g] = plain_kernel(context, device, source, &p.program[g]);
    }
    for (int j = 0; j < wl->nin; j++) {
      p.in[j] = cl.CreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                (size_t)length * item, host_in[j], &code);
      CL(code);
    }
    p.out = cl.CreateBuffer(context, CL_MEM_READ_WRITE, (size_t)n * item, NULL, &code);
    CL(code);
    for (int g = 0; g < 2; g++) {
      long nn = (long)n, ss = wl->stride;
      CL(cl.SetKernelArg(p.kernel[g], 0, sizeof nn, &nn));
      CL(cl.SetKernelArg(p.kernel[g], 1, sizeof ss, &ss));
      for (int j = 0; j < wl->nin; j++)
        CL(cl.SetKernelArg(p.kernel[g], (cl_uint)(2 + j), sizeof(cl_mem), &p.in[j]));
      CL(cl.SetKernelArg(p.kernel[g], (cl_uint)(2 + wl->nin), sizeof(cl_mem), &p.out));
    }
    size_t rounded = ((size_t)n + 255) / 256 * 256;

    /* kiln: ufunc and raw kernel on the same data */
    kiln_array *in[4] = {0}, *views[4] = {0}, *out_ufunc = NULL, *out_raw = NULL;
    for (int j = 0; j < wl->nin; j++) {
      BENCH_CHECK(kiln_array_from_host(ctx, dtype, 1, &length, NULL, host_in[j], &in[j]));
      kiln_slice every = {0, KILN_NONE, wl->stride};
      BENCH_CHECK(kiln_array_slice(in[j], 1, &every, &views[j]));
    }
    BENCH_CHECK(kiln_array_empty(ctx, dtype, 1, &n, &out_ufunc));
    BENCH_CHECK(kiln_array_empty(ctx, dtype, 1, &n, &out_raw));
    char signature[128], body[512];
    const char *t = wl->f64 ? "float64" : "float32";
    int m = snprintf(signature, sizeof signature, "%s(", t);
    for (int j = 0; j < wl->nin; j++)
      m += snprintf(signature + m, sizeof signature - (size_t)m, "%s%s a%d", j ? ", " : "", t, j);
    snprintf(signature + m, sizeof signature - (size_t)m, ")");
    snprintf(body, sizeof body, "%s r; %s return r;", wl->f64 ? "double" : "float",
             wl->statements);
    const char *signatures[1] = {signature};
    kiln_ufunc *ufunc = NULL;
    BENCH_CHECK(kiln_ufunc_create(ctx, "bench", 1, signatures, body, NULL, &ufunc));
    kiln_operand operands[4], outputs[1] = {kiln_operand_array(out_ufunc)};
    for (int j = 0; j < wl->nin; j++) operands[j] = kiln_operand_array(views[j]);
    kernel_source(wl, 1, 1, source, sizeof source);
    kiln_kernel *raw = NULL;
    BENCH_CHECK(kiln_kernel_create(ctx, source, "k", NULL, &raw));
    kiln_arg args[7];
    args[0] = kiln_arg_int64(n);
    args[1] = kiln_arg_int64(wl->stride);
    for (int j = 0; j < wl->nin; j++) args[2 + j] = kiln_arg_array(in[j]);
    args[2 + wl->nin] = kiln_arg_array(out_raw);

    /* warm-up (compiles), then the repeats, the four ways interleaved */
    double *samples = malloc(4 * (size_t)repeats * sizeof *samples);
    double *ratios = malloc(4 * (size_t)repeats * sizeof *ratios);
    for (int r = -2; r < repeats; r++) {
      double tk[4];
      /* the order rotates each repeat: no way always follows the same one */
      for (int step = 0; step < 4; step++) {
        int way = (step + r + 2) % 4;
        double t0 = bench_now_ms();
        if (way == 0) {
          plain_launch(queue, p.kernel[0], (size_t)n, 0);
        } else if (way == 1) {
          plain_launch(queue, p.kernel[1], rounded, 256);
        } else if (way == 2) {
          BENCH_CHECK(kiln_ufunc_call(ufunc, wl->nin, operands, 1, outputs, NULL));
          BENCH_CHECK(kiln_context_synchronize(ctx));
        } else {
          BENCH_CHECK(kiln_kernel_launch(raw, 1, &n, NULL, 3 + wl->nin, args, NULL));
          BENCH_CHECK(kiln_context_synchronize(ctx));
        }
        tk[way] = bench_now_ms() - t0;
      }
      if (r < 0) continue;
      for (int k = 0; k < 4; k++) samples[k * repeats + r] = tk[k];
      ratios[r] = tk[2] / tk[0];                      /* ufunc / plain */
      ratios[repeats + r] = tk[3] / tk[0];            /* raw / plain */
      ratios[2 * repeats + r] = tk[3] / tk[1];        /* raw / guarded */
      ratios[3 * repeats + r] = tk[1] / tk[0];        /* guarded / plain */
    }
    times med = {bench_median(samples, repeats), bench_median(samples + repeats, repeats),
                 bench_median(samples + 2 * repeats, repeats),
                 bench_median(samples + 3 * repeats, repeats)};
    double ratio[4];
    for (int k = 0; k < 4; k++) ratio[k] = bench_median(ratios + k * repeats, repeats);
    free(samples);
    free(ratios);

    /* the same results three ways */
    CL(cl.EnqueueReadBuffer(queue, p.out, 1, 0, (size_t)n * item, results[0], 0, NULL, NULL));
    BENCH_CHECK(kiln_array_to_host(out_ufunc, results[1], NULL));
    BENCH_CHECK(kiln_array_to_host(out_raw, results[2], NULL));
    double diff = max_difference(results[0], results[1], n, wl->f64);
    double d2 = max_difference(results[0], results[2], n, wl->f64);
    if (d2 > diff) diff = d2;

    printf("%-30s %8.2f %8.2f %8.2f %8.2f | %9.2f %9.2f %9.2f %9.2f%s\n", wl->name, med.plain,
           med.guarded, med.ufunc, med.raw, ratio[0], ratio[1], ratio[2], ratio[3],
           diff > 1e-5 ? "  RESULTS DIFFER" : "");
    if (ratio[0] > worst_ratio) worst_ratio = ratio[0];

    kiln_kernel_release(raw);
    kiln_ufunc_release(ufunc);
    kiln_array_release(out_ufunc);
    kiln_array_release(out_raw);
    for (int j = 0; j < wl->nin; j++) {
      kiln_array_release(views[j]);
      kiln_array_release(in[j]);
      CL(cl.ReleaseMemObject(p.in[j]));
      free(host_in[j]);
    }
    CL(cl.ReleaseMemObject(p.out));
    for (int g = 0; g < 2; g++) {
      CL(cl.ReleaseKernel(p.kernel[g]));
      CL(cl.ReleaseProgram(p.program[g]));
    }
    for (int k = 0; k < 3; k++) free(results[k]);
  }
  printf("\nplain: no bound test, global = n; guarded: `if (i >= n) return;`, local 256.\n"
         "worst ufunc / plain: %.2f (goal <= 1.10)\n", worst_ratio);
  CL(cl.ReleaseCommandQueue(queue));
  CL(cl.ReleaseContext(context));
  kiln_context_release(ctx);
  return 0;
}
