/* bench/fft_rows_bench.c: batched c2c transforms of short rows along the
 * last axis (issue 27's batched case, 16384 x 1024 complex64, and other
 * row lengths of the same 128 MiB), timed on the device (events around one
 * call; plans cached by a warm-up call; median of repeats).
 *
 * With KILN_FFT unset the program runs itself twice more, so that three
 * paths sit side by side in one table: the default (the vendor library
 * where there is one), kiln's kernels (KILN_FFT=portable: the row kernel,
 * core/fft/fft_rows.c, for lengths 32 to 2048) and kiln's kernels without
 * the row kernel (KILN_FFT_ROWS=0: fused and radix passes). With KILN_FFT
 * set it prints that path alone (for A/B runs of the row kernel's knobs,
 * KILN_FFT_ROWS and KILN_FFT_ROWS_GROUP). On a CPU device (PoCL) the rows
 * are fewer (--full keeps them).
 * Usage: fft_rows_bench [--full] [repeats] */
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

typedef struct rows_case {
  kiln_dtype dtype;
  int64_t n; /* row length; rows: 128 MiB of them (a CPU device: 1 MiB) */
} rows_case;

static const rows_case cases[] = {
    {KILN_COMPLEX64, 32},   {KILN_COMPLEX64, 64},   {KILN_COMPLEX64, 256},
    {KILN_COMPLEX64, 512},  {KILN_COMPLEX64, 1024}, {KILN_COMPLEX64, 2048},
    {KILN_COMPLEX64, 4096}, {KILN_COMPLEX128, 256}, {KILN_COMPLEX128, 1024},
};
enum { NCASES = sizeof cases / sizeof cases[0] };

typedef struct rows_call {
  kiln_context *ctx;
  const kiln_array *a;
  kiln_array *out;
} rows_call;

static void run_timed(void *data) {
  rows_call *f = data;
  BENCH_CHECK(kiln_fft(f->ctx, kiln_operand_array(f->a), KILN_FFT_DEFAULT, -1, NULL,
                       kiln_operand_array(f->out), NULL));
}

/* Times every case on this process's path into ms[] (NAN: skipped);
 * the device's name and the FFT path's description into device and path
 * (`size` bytes each); whether the sizes are the CPU device's. */
static int time_cases(int full, int repeats, double *ms, char *device, char *path, size_t size) {
  kiln_context *ctx = NULL;
  BENCH_CHECK(kiln_context_create(NULL, &ctx));
  kiln_device_info info;
  BENCH_CHECK(kiln_context_device_info(ctx, &info));
  snprintf(device, size, "%s", info.name);
  BENCH_CHECK(kiln_fft_describe(ctx, path, size));
  const int small = info.type == KILN_DEVICE_CPU && !full;
  kiln_event *start = NULL, *stop = NULL;
  BENCH_CHECK(kiln_event_create(ctx, &start));
  BENCH_CHECK(kiln_event_create(ctx, &stop));
  for (int k = 0; k < NCASES; k++) {
    ms[k] = NAN;
    const rows_case *c = &cases[k];
    if (c->dtype == KILN_COMPLEX128 && !info.has_double) continue;
    const int64_t bytes = small ? 1 << 20 : 1 << 27;
    const int64_t shape[2] = {bytes / (int64_t)kiln_dtype_size(c->dtype) / c->n, c->n};
    kiln_array *probe = NULL, *a = NULL, *out = NULL;
    float v = 0.5f; /* the time does not depend on the values */
    BENCH_CHECK(kiln_array_full(ctx, KILN_FLOAT32, 2, shape, &v, &probe));
    BENCH_CHECK(kiln_array_astype(probe, c->dtype, &a));
    kiln_array_release(probe);
    BENCH_CHECK(kiln_fft(ctx, kiln_operand_array(a), KILN_FFT_DEFAULT, -1, NULL,
                         kiln_operand_new(&out), NULL));
    rows_call call = {ctx, a, out};
    ms[k] = bench_events_median_ms(ctx, start, stop, 1, repeats < 64 ? repeats : 64, run_timed,
                                   &call);
    kiln_array_release(out);
    kiln_array_release(a);
  }
  kiln_event_release(start);
  kiln_event_release(stop);
  kiln_context_release(ctx);
  return small;
}

static void case_label(const rows_case *c, int small, char *label, size_t size) {
  const int64_t bytes = small ? 1 << 20 : 1 << 27;
  snprintf(label, size, "%s %lld x %lld", kiln_dtype_name(c->dtype),
           (long long)(bytes / (int64_t)kiln_dtype_size(c->dtype) / c->n), (long long)c->n);
}

int main(int argc, char **argv) {
  int full = 0, repeats = 10;
  const char *child = getenv("FFT_ROWS_BENCH_OUT"); /* a child's times file */
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--full")) full = 1;
    else repeats = atoi(argv[i]) > 0 ? atoi(argv[i]) : repeats;
  }
  double ms[NCASES];
  char device[512], fft_path[512];
  const int small = time_cases(full, repeats, ms, device, fft_path, sizeof device);
  if (child) {
    FILE *f = fopen(child, "w");
    for (int k = 0; f && k < NCASES; k++) fprintf(f, "%d %.6f\n", k, ms[k]);
    if (f) fclose(f);
    return 0;
  }
  const char *policy = getenv("KILN_FFT");
  const int alone = policy && *policy;
  /* the two portable runs beside the default one */
  static const char *const envs[2] = {"KILN_FFT=portable",
                                      "KILN_FFT=portable KILN_FFT_ROWS=0"};
  double other[2][NCASES];
  for (int r = 0; r < 2; r++) {
    for (int k = 0; k < NCASES; k++) other[r][k] = NAN;
    if (alone) continue;
    char path[] = "/tmp/kiln_fft_rows_bench_XXXXXX", command[4096];
    int fd = mkstemp(path);
    if (fd < 0) continue;
    close(fd);
    snprintf(command, sizeof command, "FFT_ROWS_BENCH_OUT=%s %s '%s' %s %d", path, envs[r],
             argv[0], full ? "--full" : "", repeats);
    if (system(command) != 0) printf("(the run with %s failed)\n", envs[r]);
    FILE *f = fopen(path, "r");
    int k;
    double value;
    while (f && fscanf(f, "%d %lf", &k, &value) == 2)
      if (k >= 0 && k < NCASES) other[r][k] = value;
    if (f) fclose(f);
    remove(path);
  }
  printf("fft_rows_bench on %s (ms per call; GB/s of one read and one write%s)\n", device,
         small ? "; CPU device: fewer rows, --full for the GPU sizes" : "");
  printf("default path: %s%s%s%s\n", fft_path, alone ? " (" : "", alone ? policy : "",
         alone ? ")" : "");
  if (alone)
    printf("KILN_FFT_ROWS=%s KILN_FFT_ROWS_GROUP=%s\n",
           getenv("KILN_FFT_ROWS") ? getenv("KILN_FFT_ROWS") : "(unset)",
           getenv("KILN_FFT_ROWS_GROUP") ? getenv("KILN_FFT_ROWS_GROUP") : "(unset)");
  printf("%-28s %10s %8s %12s %8s %12s %14s\n", "case", "default", "GB/s", "rows kernel", "GB/s",
         "no rows", "% of default");
  for (int k = 0; k < NCASES; k++) {
    char label[64], a[32] = "-", b[32] = "-", c[32] = "-", ga[32] = "-", gb[32] = "-",
                    ratio[32] = "-";
    case_label(&cases[k], small, label, sizeof label);
    const double bytes = 2.0 * (double)(small ? 1 << 20 : 1 << 27);
    if (!isnan(ms[k])) snprintf(a, sizeof a, "%.3f", ms[k]);
    if (!isnan(ms[k])) snprintf(ga, sizeof ga, "%.0f", bytes / (ms[k] * 1e6));
    if (!isnan(other[0][k])) snprintf(b, sizeof b, "%.3f", other[0][k]);
    if (!isnan(other[0][k])) snprintf(gb, sizeof gb, "%.0f", bytes / (other[0][k] * 1e6));
    if (!isnan(other[1][k])) snprintf(c, sizeof c, "%.3f", other[1][k]);
    if (!isnan(ms[k]) && !isnan(other[0][k]))
      snprintf(ratio, sizeof ratio, "%.1f%%", 100.0 * ms[k] / other[0][k]);
    printf("%-28s %10s %8s %12s %8s %12s %14s\n", label, a, ga, b, gb, c, ratio);
  }
  printf("(%% of default: the row kernel's speed as a share of the default path's, default "
         "ms / rows kernel ms; issue 27's goal >= 40%% of cuFFT)\n");
  return 0;
}
