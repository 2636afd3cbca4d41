/* tests/test_gpu_compile_smoke.c: the CUDA or HIP backend's
 * compile_for_target with only its compiler library (NVRTC / hiprtc; no
 * driver, no GPU): a small plain CUDA/HIP C++ kernel for each target, its
 * compile errors, and the target names the backend must refuse without
 * handing them to the compiler (Debian's ROCm 5.2 hiprtc aborts the process
 * on gfx1100 and gfx942: reaching the end of the hip run shows kiln did
 * not). A source that needs -DSCALE shows that user options reach the
 * compiler; a syntax error must be KILN_ERROR_COMPILE with the compiler's
 * log both returned and in the message.
 *
 * Environment (set by tests/gpu_backends.cmake): KILN_SMOKE_BACKEND (cuda |
 * hip), KILN_SMOKE_TARGETS (comma list of targets that must compile).
 * Skipped when the compiler library cannot be loaded. */
#include "backends/backend.h"
#include "harness.h"

typedef struct compile_smoke {
  const char *backend;
  const kiln_backend_ops *ops;
  const char *compiler;         /* for messages */
  const char *bad_targets[10];  /* NULL-terminated: INVALID_ARGUMENT */
} compile_smoke;

static const compile_smoke smokes[] = {
    {"cuda", &kiln_backend_cuda, "NVRTC",
     {"gfx90a", "sm_", "sm_9x", "sm_10", "compute_", "SM_80", "sm_80 ", "", NULL}},
    {"hip", &kiln_backend_hip, "hiprtc",
     {"gfx1100", "gfx942", "gfx90a:xnack+", "gfx", "sm_80", "GFX90A", "gfx90a ", "", NULL}},
};

static const char source[] =
    "extern \"C\" __global__ void saxpy(float *y, const float *x, float a, long long n) {\n"
    "  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n) y[i] = a * x[i] + y[i] * SCALE;\n"
    "}\n"
    "extern \"C\" __global__ void block_norm(double *out, const double *in) {\n"
    "  extern __shared__ double partial[];\n"
    "  partial[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x];\n"
    "  __syncthreads();\n"
    "  if (threadIdx.x == 0) {\n"
    "    double sum = 0;\n"
    "    for (unsigned i = 0; i < blockDim.x; i++) sum += partial[i] * partial[i];\n"
    "    out[blockIdx.x] = sqrt(sum);\n"
    "  }\n"
    "}\n";

static const char syntax_error[] =
    "extern \"C\" __global__ void broken(float *y) {\n"
    "  y[0] = 1.0f +;\n"
    "}\n";

#define MAX_TARGETS 16

typedef struct smoke_run {
  const compile_smoke *smoke;
  const char *targets[MAX_TARGETS + 1]; /* NULL-terminated, into list */
  char list[256];
} smoke_run;

/* The backend of KILN_SMOKE_BACKEND and the targets of KILN_SMOKE_TARGETS;
 * 1 when its compiler is there. 0 when they are unset or unknown (the test
 * fails) or the compiler cannot be loaded (the test is skipped). */
static int smoke_start(smoke_run *run) {
  const char *backend = getenv("KILN_SMOKE_BACKEND");
  const char *names = getenv("KILN_SMOKE_TARGETS");
  run->smoke = NULL;
  for (size_t i = 0; backend && i < sizeof smokes / sizeof smokes[0]; i++)
    if (strcmp(backend, smokes[i].backend) == 0) run->smoke = &smokes[i];
  int count = 0;
  if (names && strlen(names) < sizeof run->list) {
    snprintf(run->list, sizeof run->list, "%s", names);
    for (char *save = NULL, *target = strtok_r(run->list, ",", &save);
         target && count < MAX_TARGETS; target = strtok_r(NULL, ",", &save))
      run->targets[count++] = target;
  }
  run->targets[count] = NULL;
  if (!run->smoke || count == 0) {
    harness_fail(__FILE__, __LINE__, "KILN_SMOKE_BACKEND=%s is not cuda or hip, or "
                 "KILN_SMOKE_TARGETS=%s names no target", backend ? backend : "(unset)",
                 names ? names : "(unset)");
    return 0;
  }
  const compile_smoke *s = run->smoke;
  size_t size = 0;
  kiln_status status =
      s->ops->compile_for_target(source, "-DSCALE=2.0f", run->targets[0], &size, NULL);
  if (status == KILN_ERROR_UNAVAILABLE) {
    harness_skip("%s is not available here: %s", s->compiler, kiln_last_error());
    return 0;
  }
  return 1;
}

static void test_targets(kiln_context *ctx) {
  (void)ctx;
  smoke_run run;
  if (!smoke_start(&run)) return;
  const compile_smoke *s = run.smoke;
  for (const char *const *target = run.targets; *target; target++) {
    size_t size = 0;
    char *log = NULL;
    kiln_status status =
        s->ops->compile_for_target(source, "-DSCALE=2.0f", *target, &size, &log);
    CHECK_MSG(status == KILN_OK, "%s for %s: %s: %s", s->compiler, *target,
              kiln_status_string(status), kiln_last_error());
    CHECK_MSG(size > 64, "%s for %s: %zu bytes came back", s->compiler, *target, size);
    CHECK_MSG(log != NULL, "%s for %s: no log", s->compiler, *target);
    free(log);
    /* NULL outputs are accepted */
    CHECK_OK(s->ops->compile_for_target(source, "-DSCALE=2.0f", *target, NULL, NULL));
  }
}

static void test_errors(kiln_context *ctx) {
  (void)ctx;
  smoke_run run;
  if (!smoke_start(&run)) return;
  const compile_smoke *s = run.smoke;
  const char *target = run.targets[0];
  size_t size = 123;
  char *log = NULL;

  /* without the option the source does not compile: options do reach it */
  CHECK_STATUS(s->ops->compile_for_target(source, NULL, target, &size, &log),
               KILN_ERROR_COMPILE);
  CHECK_ERROR_CONTAINS("SCALE");
  CHECK(size == 0);
  free(log);
  log = NULL;

  CHECK_STATUS(s->ops->compile_for_target(syntax_error, "-DSCALE=1", target, &size, &log),
               KILN_ERROR_COMPILE);
  CHECK_MSG(log && strstr(log, "error"), "%s log: %s", s->compiler, log ? log : "(null)");
  if (log && log[0]) {
    /* the message carries the log (its first line at least) */
    char first[128];
    size_t n = strcspn(log, "\n");
    if (n >= sizeof first) n = sizeof first - 1;
    memcpy(first, log, n);
    first[n] = '\0';
    CHECK_ERROR_CONTAINS(first);
  }
  CHECK_ERROR_CONTAINS(target);
  free(log);
  log = NULL;

  for (const char *const *bad = s->bad_targets; *bad; bad++) {
    CHECK_MSG(s->ops->compile_for_target(source, "-DSCALE=2.0f", *bad, &size, &log) ==
                  KILN_ERROR_INVALID_ARGUMENT,
              "%s accepted the target \"%s\": %s", s->compiler, *bad, kiln_last_error());
    CHECK(log == NULL);
  }
  CHECK_STATUS(s->ops->compile_for_target(NULL, NULL, target, &size, &log),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(s->ops->compile_for_target(source, NULL, NULL, &size, &log),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(s->ops->compile_for_target(source, "-DSCALE='2.0f", target, &size, &log),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("unterminated");
}

static const harness_test tests[] = {
    {"targets", test_targets},
    {"errors", test_errors},
    {0},
};

int main(int argc, char **argv) { return harness_main_no_context(argc, argv, tests); }
