/* tests/gpu_compile_smoke.h: compile_for_target checks shared by the NVRTC
 * and hiprtc smoke tests. A source that needs -DSCALE shows that user
 * options reach the compiler; a syntax error must be KILN_ERROR_COMPILE with
 * the compiler's log both returned and in the message; target names the
 * backend must refuse never reach the compiler. */
#ifndef KILN_TESTS_GPU_COMPILE_SMOKE_H
#define KILN_TESTS_GPU_COMPILE_SMOKE_H

#include "backends/backend.h"
#include "harness.h"

typedef struct compile_smoke {
  const kiln_backend_ops *ops;
  const char *compiler;           /* for messages: "NVRTC", "hiprtc" */
  const char *source;             /* compiles with -DSCALE=2.0f */
  const char *syntax_error;       /* does not compile */
  const char *const *targets;     /* NULL-terminated, must compile */
  const char *const *bad_targets; /* NULL-terminated, INVALID_ARGUMENT */
} compile_smoke;

/* 1 when the compiler is there; otherwise marks the test skipped. */
static int compile_smoke_available(const compile_smoke *s) {
  size_t size = 0;
  kiln_status status =
      s->ops->compile_for_target(s->source, "-DSCALE=2.0f", s->targets[0], &size, NULL);
  if (status == KILN_ERROR_UNAVAILABLE) {
    harness_skip("%s is not available here: %s", s->compiler, kiln_last_error());
    return 0;
  }
  return 1;
}

static void compile_smoke_targets(const compile_smoke *s) {
  if (!compile_smoke_available(s)) return;
  for (const char *const *target = s->targets; *target; target++) {
    size_t size = 0;
    char *log = NULL;
    kiln_status status = s->ops->compile_for_target(s->source, "-DSCALE=2.0f", *target,
                                                    &size, &log);
    CHECK_MSG(status == KILN_OK, "%s for %s: %s: %s", s->compiler, *target,
              kiln_status_string(status), kiln_last_error());
    CHECK_MSG(size > 64, "%s for %s: %zu bytes came back", s->compiler, *target, size);
    CHECK_MSG(log != NULL, "%s for %s: no log", s->compiler, *target);
    free(log);
    /* NULL outputs are accepted */
    CHECK_OK(s->ops->compile_for_target(s->source, "-DSCALE=2.0f", *target, NULL, NULL));
  }
}

static void compile_smoke_errors(const compile_smoke *s) {
  if (!compile_smoke_available(s)) return;
  const char *target = s->targets[0];
  size_t size = 123;
  char *log = NULL;

  /* without the option the source does not compile: options do reach it */
  CHECK_STATUS(s->ops->compile_for_target(s->source, NULL, target, &size, &log),
               KILN_ERROR_COMPILE);
  CHECK_ERROR_CONTAINS("SCALE");
  CHECK(size == 0);
  free(log);
  log = NULL;

  CHECK_STATUS(s->ops->compile_for_target(s->syntax_error, "-DSCALE=1", target, &size, &log),
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
    CHECK_MSG(s->ops->compile_for_target(s->source, "-DSCALE=2.0f", *bad, &size, &log) ==
                  KILN_ERROR_INVALID_ARGUMENT,
              "%s accepted the target \"%s\": %s", s->compiler, *bad, kiln_last_error());
    CHECK(log == NULL);
  }
  CHECK_STATUS(s->ops->compile_for_target(NULL, NULL, target, &size, &log),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(s->ops->compile_for_target(s->source, NULL, NULL, &size, &log),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(s->ops->compile_for_target(s->source, "-DSCALE='2.0f", target, &size, &log),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("unterminated");
}

#endif
