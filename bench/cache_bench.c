/* cache_bench: what the on-disk kernel cache saves a new process
 * (docs/performance.md, "Disk cache").
 *
 * The program runs itself as child processes on a fresh, empty cache
 * directory, each child timing the FIRST call of a user ufunc and of a raw
 * kernel (create, first call or launch, synchronize; wall clock, after the
 * context is open and the inputs are on the device):
 *   1. uncached: KILN_CACHE=0, a plain compile (the reference);
 *   2. fill:     cache on, empty directory: compile and store;
 *   3. cached:   `runs` more processes that find the entries (median).
 * It prints each, and cached / uncached. Children get POCL_KERNEL_CACHE=0
 * (unless set already) so that PoCL's own cache does not hide the compile.
 * Runs on any backend (KILN_BACKEND). Goals (issue 10): the cached first
 * call at most 5 ms on CUDA, at most 5% of the uncached one on PoCL.
 * Usage: cache_bench [runs]      (default 3) */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

#define N 4099

static const char *kernel_source =
    "KILN_KERNEL void bench_axpb(int64_t n, float a, KILN_GLOBAL const float *x,\n"
    "                            KILN_GLOBAL float *out) {\n"
    "  int64_t i = kiln_global_id(0);\n"
    "  if (i < n) out[i] = a * x[i] + 1.0f;\n"
    "}\n";

typedef struct timing {
  double context_ms, ufunc_ms, kernel_ms;
} timing;

/* Child: open a context, then time the two first calls; checks values. */
static int child(void) {
  double t0 = bench_now_ms();
  kiln_context *ctx = NULL;
  BENCH_CHECK(kiln_context_create(NULL, &ctx));
  double t1 = bench_now_ms();
  float *host = malloc(N * sizeof *host), *back = malloc(N * sizeof *back);
  for (int i = 0; i < N; i++) host[i] = (float)(i % 97) * 0.25f - 3.0f;
  int64_t n = N;
  kiln_array *x = NULL, *out = NULL, *made = NULL;
  BENCH_CHECK(kiln_array_from_host(ctx, KILN_FLOAT32, 1, &n, NULL, host, &x));
  BENCH_CHECK(kiln_array_empty(ctx, KILN_FLOAT32, 1, &n, &out));
  BENCH_CHECK(kiln_context_synchronize(ctx));

  /* a user ufunc: Gaussian density, one signature */
  double t2 = bench_now_ms();
  const char *signature = "float32(float32 x, float32 mean, float32 sigma)";
  kiln_ufunc *gauss = NULL;
  BENCH_CHECK(kiln_ufunc_create(ctx, "bench_gauss", 1, &signature,
                                "float d = (x - mean) / sigma;\n"
                                "return exp(-0.5f * d * d) / (sigma * 2.5066283f);",
                                NULL, &gauss));
  kiln_operand in[3] = {kiln_operand_array(x), kiln_operand_float(1.0),
                        kiln_operand_float(2.0)};
  kiln_operand o[1] = {kiln_operand_new(&made)};
  BENCH_CHECK(kiln_ufunc_call(gauss, 3, in, 1, o, NULL));
  BENCH_CHECK(kiln_context_synchronize(ctx));
  double t3 = bench_now_ms();

  kiln_kernel *kernel = NULL;
  BENCH_CHECK(kiln_kernel_create(ctx, kernel_source, "bench_axpb", NULL, &kernel));
  kiln_arg args[4] = {kiln_arg_int64(n), kiln_arg_float32(2.0f), kiln_arg_array(x),
                      kiln_arg_array(out)};
  BENCH_CHECK(kiln_kernel_launch(kernel, 1, &n, NULL, 4, args, NULL));
  BENCH_CHECK(kiln_context_synchronize(ctx));
  double t4 = bench_now_ms();

  int bad = 0;
  BENCH_CHECK(kiln_array_to_host(made, back, NULL));
  for (int i = 0; i < N; i++) {
    double d = (host[i] - 1.0) / 2.0, want = exp(-0.5 * d * d) / (2.0 * 2.5066283);
    if (fabs(back[i] - want) > 1e-5 + 1e-4 * fabs(want)) bad++;
  }
  BENCH_CHECK(kiln_array_to_host(out, back, NULL));
  for (int i = 0; i < N; i++)
    if (fabs(back[i] - (2.0f * host[i] + 1.0f)) > 1e-5) bad++;
  printf("TIMING %.3f %.3f %.3f\n", t1 - t0, t3 - t2, t4 - t3);
  kiln_kernel_release(kernel);
  kiln_ufunc_release(gauss);
  kiln_array_release(made);
  kiln_array_release(out);
  kiln_array_release(x);
  kiln_context_release(ctx);
  free(host);
  free(back);
  if (bad) fprintf(stderr, "cache_bench: %d wrong values\n", bad);
  return bad ? 1 : 0;
}

/* Runs this program as a child with KILN_CACHE=cache; reads its timing. */
static timing run_child(const char *self, const char *cache) {
  int fds[2];
  if (pipe(fds) != 0) {
    perror("pipe");
    exit(1);
  }
  pid_t pid = fork();
  if (pid < 0) {
    perror("fork");
    exit(1);
  }
  if (pid == 0) {
    dup2(fds[1], STDOUT_FILENO);
    close(fds[0]);
    close(fds[1]);
    setenv("KILN_CACHE", cache, 1);
    execl(self, self, "--child", (char *)NULL);
    perror("exec");
    _exit(127);
  }
  close(fds[1]);
  char text[512] = "";
  size_t used = 0;
  ssize_t got;
  while (used < sizeof text - 1 && (got = read(fds[0], text + used, sizeof text - 1 - used)) > 0)
    used += (size_t)got;
  text[used] = '\0';
  close(fds[0]);
  int wstatus = 0;
  waitpid(pid, &wstatus, 0);
  timing t = {0};
  const char *line = strstr(text, "TIMING ");
  if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0 || !line ||
      sscanf(line, "TIMING %lf %lf %lf", &t.context_ms, &t.ufunc_ms, &t.kernel_ms) != 3) {
    fprintf(stderr, "cache_bench: child (KILN_CACHE=%s) failed\n%s", cache, text);
    exit(1);
  }
  return t;
}

static void remove_tree(const char *dir) {
  char command[4200];
  snprintf(command, sizeof command, "rm -rf '%s'", dir);
  if (system(command) != 0) fprintf(stderr, "cache_bench: could not remove %s\n", dir);
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "--child") == 0) return child();
  int runs = argc > 1 ? atoi(argv[1]) : 3;
  if (runs < 1 || runs > 100) {
    fprintf(stderr, "usage: cache_bench [runs 1..100]\n");
    return 2;
  }
  char self[4096];
  ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
  if (length <= 0) {
    perror("readlink /proc/self/exe");
    return 1;
  }
  self[length] = '\0';
  const char *base = getenv("TMPDIR") && getenv("TMPDIR")[0] ? getenv("TMPDIR") : "/tmp";
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/kiln-cache-bench-XXXXXX", base);
  if (!mkdtemp(dir)) {
    perror("mkdtemp");
    return 1;
  }
  setenv("KILN_CACHE_DIR", dir, 1);
  setenv("POCL_KERNEL_CACHE", "0", 0);
  printf("cache_bench: backend %s, cache %s, POCL_KERNEL_CACHE=%s\n",
         getenv("KILN_BACKEND") ? getenv("KILN_BACKEND") : "(default)", dir,
         getenv("POCL_KERNEL_CACHE"));
  timing uncached = run_child(self, "0");
  timing fill = run_child(self, "1");
  double *ufunc = malloc((size_t)runs * sizeof *ufunc);
  double *kernel = malloc((size_t)runs * sizeof *kernel);
  double *context = malloc((size_t)runs * sizeof *context);
  for (int r = 0; r < runs; r++) {
    timing t = run_child(self, "1");
    ufunc[r] = t.ufunc_ms;
    kernel[r] = t.kernel_ms;
    context[r] = t.context_ms;
  }
  timing cached = {bench_median(context, runs), bench_median(ufunc, runs),
                   bench_median(kernel, runs)};
  printf("first call in a new process, ms   uncached   fill    cached (median of %d)  "
         "cached/uncached\n",
         runs);
  printf("  user ufunc (create+call+sync)   %8.2f %8.2f %8.2f             %6.2f%%\n",
         uncached.ufunc_ms, fill.ufunc_ms, cached.ufunc_ms,
         100.0 * cached.ufunc_ms / uncached.ufunc_ms);
  printf("  raw kernel (create+launch+sync) %8.2f %8.2f %8.2f             %6.2f%%\n",
         uncached.kernel_ms, fill.kernel_ms, cached.kernel_ms,
         100.0 * cached.kernel_ms / uncached.kernel_ms);
  printf("  (context creation: %.2f / %.2f / %.2f ms)\n", uncached.context_ms,
         fill.context_ms, cached.context_ms);
  free(ufunc);
  free(kernel);
  free(context);
  remove_tree(dir);
  return 0;
}
