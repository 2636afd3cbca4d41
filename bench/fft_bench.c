/* bench/fft_bench.c: kiln's FFT on the cases of issue 27, timed on the
 * device (events around one call; plans cached by a warm-up call; median
 * of repeats), then the same cases through CuPy (cuFFT) and NumPy where
 * importable (bench/fft_peers.py, run from here so the figures sit side by
 * side in one run). KILN_FFT picks kiln's path (default: the vendor
 * library where there is one); with KILN_FFT unset the program also runs
 * itself with KILN_FFT=portable, so the library and kiln's own kernels are
 * both reported. On a CPU device (PoCL) every size is divided (--full
 * keeps them), since one 2^24 transform takes seconds there. Both runs
 * write their times to one file (FFT_BENCH_TIMES, made by the first), from
 * which fft_peers.py prints the goals' ratios against CuPy measured in the
 * same run.
 * On the OpenCL backend (KILN_FFT and KILN_OPENCL_FFT unset) it also runs
 * itself once per OpenCL FFT library (KILN_FFT=vendor with
 * KILN_OPENCL_FFT=vkfft, then clfft) and prints the two side by side with
 * their ratio (docs/fft.md, "OpenCL: clFFT or VkFFT"); --libraries does
 * only that (no default, portable or peer runs). A case a library cannot
 * plan is reported as such.
 * Usage: fft_bench [--full] [--no-peers] [--libraries] [repeats] */
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

typedef struct fft_case {
  const char *name;
  const char *op; /* fft, rfft, fft2 */
  kiln_dtype dtype;
  int ndim;
  int64_t shape[2], small[2]; /* GPU sizes; CPU device sizes */
  double cupy_ms;             /* CuPy 14.2 on the H100 (issue 27) */
} fft_case;

static const fft_case cases[] = {
    {"c2c complex64 2^24", "fft", KILN_COMPLEX64, 1, {1 << 24}, {1 << 20}, 0.332},
    {"c2c complex128 2^24", "fft", KILN_COMPLEX128, 1, {1 << 24}, {1 << 20}, 0.640},
    {"rfft float32 2^24", "rfft", KILN_FLOAT32, 1, {1 << 24}, {1 << 20}, 0.235},
    {"fft2 complex64 4096x4096", "fft2", KILN_COMPLEX64, 2, {4096, 4096}, {1024, 1024}, 0.296},
    {"batched 16384 x 1024 complex64", "fft", KILN_COMPLEX64, 2, {16384, 1024}, {1024, 1024},
     0.123},
    {"prime 1000003 complex64", "fft", KILN_COMPLEX64, 1, {1000003}, {100003}, 0.163},
};

static kiln_status run(kiln_context *ctx, const fft_case *c, const kiln_array *a,
                       kiln_operand out) {
  kiln_operand in = kiln_operand_array(a);
  if (!strcmp(c->op, "rfft")) return kiln_rfft(ctx, in, KILN_FFT_DEFAULT, -1, NULL, out, NULL);
  if (!strcmp(c->op, "fft2")) return kiln_fft2(ctx, in, NULL, NULL, NULL, out, NULL);
  return kiln_fft(ctx, in, KILN_FFT_DEFAULT, -1, NULL, out, NULL);
}

typedef struct fft_call {
  kiln_context *ctx;
  const fft_case *c;
  const kiln_array *a;
  kiln_array *out;
} fft_call;

/* A case's name: the issue's, or the divided sizes on a CPU device. */
static void case_label(const fft_case *c, int small, char *label, size_t size) {
  if (!small) {
    snprintf(label, size, "%s", c->name);
    return;
  }
  snprintf(label, size, "%s %s %lld%s%.0lld", c->op, kiln_dtype_name(c->dtype),
           (long long)c->small[0], c->ndim > 1 ? "x" : "",
           c->ndim > 1 ? (long long)c->small[1] : 0LL);
}

/* The times file's lines "kind case ms" of one kind, by case (NAN: none). */
static void read_times(const char *times, const char *kind, double *ms, size_t count) {
  for (size_t k = 0; k < count; k++) ms[k] = NAN;
  FILE *f = times ? fopen(times, "r") : NULL;
  if (!f) return;
  char label[32];
  size_t k;
  double value;
  while (fscanf(f, "%31s %zu %lf", label, &k, &value) == 3)
    if (!strcmp(label, kind) && k < count) ms[k] = value;
  fclose(f);
}

/* The OpenCL libraries side by side: one child run per library, then a
 * table of their times (ms per call, and of the first call, which makes the
 * plan: the library generates and compiles its kernels then) and clFFT's
 * time over VkFFT's. */
static void compare_libraries(const char *self, int full, int small, int repeats,
                              const char *times) {
  static const char *const libraries[2] = {"vkfft", "clfft"};
  char command[4096];
  for (int l = 0; l < 2; l++) {
    printf("\n== KILN_FFT=vendor KILN_OPENCL_FFT=%s\n", libraries[l]);
    fflush(stdout);
    snprintf(command, sizeof command,
             "FFT_BENCH_KIND=%s KILN_FFT=vendor KILN_OPENCL_FFT=%s '%s' --no-peers %s %d",
             libraries[l], libraries[l], self, full ? "--full" : "", repeats);
    if (system(command) != 0) printf("(the %s run failed)\n", libraries[l]);
  }
  enum { N = sizeof cases / sizeof cases[0] };
  double vk[N], cl[N], vk_first[N], cl_first[N];
  read_times(times, "vkfft", vk, N);
  read_times(times, "clfft", cl, N);
  read_times(times, "vkfft_first", vk_first, N);
  read_times(times, "clfft_first", cl_first, N);
  printf("\n== OpenCL FFT libraries side by side (ms per call; first: the call that made "
         "the plan; - : cannot plan or failed)\n");
  printf("%-34s %12s %12s %14s %14s %14s\n", "case", "VkFFT ms", "clFFT ms", "clFFT / VkFFT",
         "VkFFT first", "clFFT first");
  for (size_t k = 0; k < N; k++) {
    char a[32] = "-", b[32] = "-", r[32] = "-", af[32] = "-", bf[32] = "-", label[64];
    if (!isnan(vk[k])) snprintf(a, sizeof a, "%.3f", vk[k]);
    if (!isnan(cl[k])) snprintf(b, sizeof b, "%.3f", cl[k]);
    if (!isnan(vk[k]) && !isnan(cl[k])) snprintf(r, sizeof r, "%.2f", cl[k] / vk[k]);
    if (!isnan(vk_first[k])) snprintf(af, sizeof af, "%.0f", vk_first[k]);
    if (!isnan(cl_first[k])) snprintf(bf, sizeof bf, "%.0f", cl_first[k]);
    case_label(&cases[k], small, label, sizeof label);
    printf("%-34s %12s %12s %14s %14s %14s\n", label, a, b, r, af, bf);
  }
  fflush(stdout);
}

static void run_timed(void *data) {
  fft_call *f = data;
  BENCH_CHECK(run(f->ctx, f->c, f->a, kiln_operand_array(f->out)));
}

int main(int argc, char **argv) {
  int full = 0, peers = 1, repeats = 10, libraries_only = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--full")) full = 1;
    else if (!strcmp(argv[i], "--no-peers")) peers = 0;
    else if (!strcmp(argv[i], "--libraries")) libraries_only = 1;
    else repeats = atoi(argv[i]) > 0 ? atoi(argv[i]) : repeats;
  }
  /* the times file, shared with the portable run and read by the peers */
  char times_path[] = "/tmp/kiln_fft_bench_XXXXXX";
  const char *times = getenv("FFT_BENCH_TIMES");
  int own_times = 0;
  if (!times) {
    int fd = mkstemp(times_path);
    if (fd >= 0) {
      close(fd);
      setenv("FFT_BENCH_TIMES", times_path, 1);
      times = times_path;
      own_times = 1;
    }
  }
  const char *policy = getenv("KILN_FFT");
  /* FFT_BENCH_KIND: the label of a library run (compare_libraries) */
  const char *library_run = getenv("FFT_BENCH_KIND");
  const char *path_kind = library_run                               ? library_run
                          : policy && !strcmp(policy, "portable") ? "portable"
                                                                   : "default";
  kiln_context *ctx = NULL;
  BENCH_CHECK(kiln_context_create(NULL, &ctx));
  kiln_device_info info;
  BENCH_CHECK(kiln_context_device_info(ctx, &info));
  const int opencl_libraries = !strcmp(info.backend, "opencl") && (!policy || !*policy) &&
                               !getenv("KILN_OPENCL_FFT");
  if (libraries_only) {
    kiln_context_release(ctx);
    if (!opencl_libraries) {
      printf("fft_bench --libraries: only on the OpenCL backend with KILN_FFT and "
             "KILN_OPENCL_FFT unset (here: %s)\n", info.backend);
      return 0;
    }
    compare_libraries(argv[0], full, info.type == KILN_DEVICE_CPU && !full, repeats, times);
    if (own_times) remove(times_path);
    return 0;
  }
  char path[512];
  BENCH_CHECK(kiln_fft_describe(ctx, path, sizeof path));
  const int small = info.type == KILN_DEVICE_CPU && !full;
  printf("fft_bench on %s, FFT path: %s%s\n", info.name, path, small ? " [CPU device: sizes divided; --full for the GPU sizes]" : "");
  printf("%-34s %12s %12s %10s\n", "case", "kiln ms", "GB/s", "CuPy ms*");
  kiln_event *start = NULL, *stop = NULL;
  BENCH_CHECK(kiln_event_create(ctx, &start));
  BENCH_CHECK(kiln_event_create(ctx, &stop));
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    const fft_case *c = &cases[k];
    if ((c->dtype == KILN_COMPLEX128) && !info.has_double) continue;
    const int64_t *shape = small ? c->small : c->shape;
    kiln_array *a = NULL, *out = NULL, *probe = NULL;
    float v = 0.5f; /* the time does not depend on the values */
    BENCH_CHECK(kiln_array_full(ctx, KILN_FLOAT32, c->ndim, shape, &v, &probe));
    BENCH_CHECK(kiln_array_astype(probe, c->dtype, &a));
    kiln_array_release(probe);
    /* the result array, made by a first call (which also makes the plans);
     * a library run reports a case its library cannot plan and goes on */
    char label[64];
    case_label(c, small, label, sizeof label);
    BENCH_CHECK(kiln_context_synchronize(ctx));
    double first_ms = bench_now_ms();
    kiln_status first = run(ctx, c, a, kiln_operand_new(&out));
    if (first == KILN_OK) first = kiln_context_synchronize(ctx);
    first_ms = bench_now_ms() - first_ms;
    if (first != KILN_OK && library_run) {
      printf("%-34s %12s   (%s: %s)\n", label, "-", kiln_status_string(first),
             kiln_last_error());
      kiln_array_release(a);
      continue;
    }
    BENCH_CHECK(first);
    /* one more warm-up, then at most 64 timed calls (as before) */
    fft_call call = {ctx, c, a, out};
    double ms = bench_events_median_ms(ctx, start, stop, 1, repeats < 64 ? repeats : 64,
                                       run_timed, &call);
    double bytes = (double)kiln_array_nbytes(a) + (double)kiln_array_nbytes(out);
    printf("%-34s %12.3f %12.2f %10.3f\n", label, ms, bytes / (ms * 1e6),
           small ? NAN : c->cupy_ms);
    FILE *f = times ? fopen(times, "a") : NULL;
    if (f) {
      fprintf(f, "%s %zu %.6f\n", path_kind, k, ms);
      if (library_run) fprintf(f, "%s_first %zu %.6f\n", path_kind, k, first_ms);
      fclose(f);
    }
    kiln_array_release(out);
    kiln_array_release(a);
  }
  printf("* CuPy 14.2 (cuFFT) on the H100 from issue 27; bench/fft_peers.py measures it here\n");
  kiln_event_release(start);
  kiln_event_release(stop);
  kiln_context_release(ctx);
  fflush(stdout);
  char command[4096];
  if (!policy || !*policy) {
    /* the portable kernels beside the library, in the same run */
    snprintf(command, sizeof command, "KILN_FFT=portable '%s' --no-peers %s %d", argv[0],
             full ? "--full" : "", repeats);
    printf("\n== kiln's own kernels (KILN_FFT=portable)\n");
    fflush(stdout);
    if (system(command) != 0) printf("(the portable run failed)\n");
  }
  if (opencl_libraries) compare_libraries(argv[0], full, small, repeats, times);
  if (peers) {
    snprintf(command, sizeof command, "%s '%s' %s --kiln-times '%s' %d",
             getenv("KILN_PYTHON") ? getenv("KILN_PYTHON") : "python3",
             KILN_BENCH_DIR "/fft_peers.py", small ? "--small" : "", times ? times : "", repeats);
    printf("\n== peers (bench/fft_peers.py)\n");
    fflush(stdout);
    if (system(command) != 0) printf("(fft_peers.py did not run: no python3 with NumPy?)\n");
  }
  if (own_times) remove(times_path);
  return 0;
}
