/* fft_plan_bench: what kiln's disk cache saves a library FFT plan
 * (docs/fft.md, "VkFFT's kernels in the disk cache").
 *
 * VkFFT generates and compiles OpenCL kernels for every plan; kiln keeps
 * them in its disk cache. For fft_bench's six cases (on a CPU device,
 * smaller lengths of the same shapes) this times kiln_fft_plan_create, each
 * in a new context (an empty plan cache, as in a new process):
 *   uncached: the disk cache off (KILN_CACHE=0's option): a plain compile;
 *   cold:     an empty cache directory: compile and store;
 *   warm:     a new context on that directory: load the programs.
 * and prints warm / uncached. Then one execution of the warm plan, checked
 * (X_0 is the sum of the input). Runs the vendor library (sets
 * KILN_FFT=vendor unless set); on cuFFT / hipFFT / clFFT, which keep no
 * programs in kiln's cache, the three are the same plan.
 * Usage: fft_plan_bench */
#include <errno.h>
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

typedef struct plan_case {
  const char *name;
  kiln_fft_kind kind;
  kiln_dtype dtype;
  int ndim;
  int64_t shape[2], small[2]; /* GPU, CPU device */
  int naxes;                  /* 1: the last axis; 2: both */
} plan_case;

static const plan_case cases[] = {
    {"c2c complex64 2^24", KILN_FFT_FORWARD, KILN_COMPLEX64, 1, {1 << 24}, {1 << 14}, 1},
    {"c2c complex128 2^24", KILN_FFT_FORWARD, KILN_COMPLEX128, 1, {1 << 24}, {1 << 14}, 1},
    {"rfft float32 2^24", KILN_FFT_REAL_FORWARD, KILN_FLOAT32, 1, {1 << 24}, {1 << 14}, 1},
    {"fft2 complex64 4096^2", KILN_FFT_FORWARD, KILN_COMPLEX64, 2, {4096, 4096}, {64, 64}, 2},
    {"batched 16384 x 1024", KILN_FFT_FORWARD, KILN_COMPLEX64, 2, {16384, 1024}, {64, 1024}, 1},
    {"prime 1000003 complex64", KILN_FFT_FORWARD, KILN_COMPLEX64, 1, {1000003}, {1009}, 1},
};

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st, (void)flag, (void)ftw;
  return remove(path);
}

static kiln_context *open_context(const char *dir, int cache) {
  kiln_context_options o;
  kiln_context_options_init(&o);
  o.cache = cache;
  o.cache_dir = dir;
  kiln_context *ctx = NULL;
  BENCH_CHECK(kiln_context_create(&o, &ctx));
  return ctx;
}

/* ms to make the plan of c on a new context (cache on in dir, or off). */
static double time_plan(const plan_case *c, const int64_t *shape, const char *dir, int cache,
                        int check) {
  kiln_context *ctx = open_context(dir, cache);
  int axes[2] = {c->ndim - c->naxes, c->ndim - 1};
  kiln_fft_plan *plan = NULL;
  double t0 = bench_now_ms();
  BENCH_CHECK(kiln_fft_plan_create(ctx, c->kind, c->dtype, c->ndim, shape, 0, NULL, c->naxes,
                                   axes, NULL, &plan));
  double ms = bench_now_ms() - t0;
  if (check) { /* one execution on ones: X_0 of the first item is its size */
    static const double one128[2] = {1, 0};
    static const float one64[2] = {1, 0};
    const void *one = c->dtype == KILN_COMPLEX128 ? (const void *)one128 : (const void *)one64;
    kiln_array *a = NULL, *f = NULL, *first = NULL;
    BENCH_CHECK(kiln_array_full(ctx, c->dtype, c->ndim, shape, one, &a));
    BENCH_CHECK(kiln_fft_plan_execute(plan, kiln_operand_array(a), kiln_operand_new(&f), NULL));
    first = kiln_array_retain(f);
    while (kiln_array_ndim(first) > 0) {
      kiln_array *next = NULL;
      BENCH_CHECK(kiln_array_index(first, 0, 0, &next));
      kiln_array_release(first);
      first = next;
    }
    double x0[2] = {0, 0};
    if (kiln_array_dtype(first) == KILN_COMPLEX128) {
      BENCH_CHECK(kiln_array_item(first, x0));
    } else {
      float g[2];
      BENCH_CHECK(kiln_array_item(first, g));
      x0[0] = g[0], x0[1] = g[1];
    }
    double want = 1;
    for (int d = c->ndim - c->naxes; d < c->ndim; d++) want *= (double)shape[d];
    if (fabs(x0[0] - want) > 1e-3 * want || fabs(x0[1]) > 1e-3 * want) {
      fprintf(stderr, "%s: X_0 = %g%+gi, expected %g\n", c->name, x0[0], x0[1], want);
      exit(1);
    }
    kiln_array_release(first);
    kiln_array_release(f);
    kiln_array_release(a);
  }
  kiln_fft_plan_release(plan);
  kiln_context_release(ctx);
  return ms;
}

int main(void) {
  setenv("KILN_FFT", "vendor", 0);
  if (!getenv("POCL_KERNEL_CACHE")) setenv("POCL_KERNEL_CACHE", "0", 1); /* PoCL's own cache off */
  kiln_context *probe = NULL;
  BENCH_CHECK(kiln_context_create(NULL, &probe));
  kiln_device_info info;
  BENCH_CHECK(kiln_context_device_info(probe, &info));
  char library[512];
  BENCH_CHECK(kiln_fft_describe(probe, library, sizeof library));
  kiln_context_release(probe);
  int small = info.type == KILN_DEVICE_CPU;
  printf("fft_plan_bench: %s (%s), %s%s\n", info.name, info.backend, library,
         small ? "; a CPU device: smaller lengths" : "");
  const char *base = getenv("TMPDIR") && getenv("TMPDIR")[0] ? getenv("TMPDIR") : "/tmp";
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/kiln-fft-plan-bench-XXXXXX", base);
  if (!mkdtemp(dir)) {
    fprintf(stderr, "mkdtemp: %s\n", strerror(errno));
    return 1;
  }
  printf("%-26s %12s %12s %12s %14s\n", "case (plan create)", "uncached ms", "cold ms", "warm ms",
         "warm/uncached");
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const plan_case *c = &cases[i];
    if (c->dtype == KILN_COMPLEX128 && !info.has_double) continue;
    const int64_t *shape = small ? c->small : c->shape;
    double uncached = time_plan(c, shape, dir, 0, 0);
    double cold = time_plan(c, shape, dir, 1, 0);
    double warm = time_plan(c, shape, dir, 1, 1);
    char label[64];
    snprintf(label, sizeof label, "%s", c->name);
    if (small && c->ndim == 1) /* the CPU lengths, not the name's */
      snprintf(label, sizeof label, "%.*s %lld", (int)strcspn(c->name, " "), c->name,
               (long long)shape[0]);
    else if (small)
      snprintf(label, sizeof label, "%.*s %lld x %lld", (int)strcspn(c->name, " "), c->name,
               (long long)shape[0], (long long)shape[1]);
    printf("%-26s %12.1f %12.1f %12.1f %14.3f\n", label, uncached, cold, warm, warm / uncached);
  }
  nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
  return 0;
}
