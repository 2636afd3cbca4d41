/* backends/gpu/gpu_library.h: loading a vendor library once, remembering
 * the outcome (internal to the CUDA and HIP backends).
 *
 * A backend loads each library inside pthread_once and keeps a
 * gpu_library_outcome: the status and, on failure, the full message (each
 * path tried with dlerror(), or the missing entry point), so that every
 * later call, on any thread, reports exactly the same thing. */
#ifndef KILN_BACKENDS_GPU_LIBRARY_H
#define KILN_BACKENDS_GPU_LIBRARY_H

#include <stddef.h>

#include "core/runtime/strbuf.h"
#include "kiln/status.h"

typedef struct gpu_library_outcome {
  kiln_status status;
  char *message; /* set when status != KILN_OK; kept for the process */
  char opened[512]; /* the name that loaded */
} gpu_library_outcome;

/* dlopens the first of names[0..count) that loads (NULL or empty entries,
 * e.g. an unset override variable, are skipped) and records its name in
 * outcome->opened. When none loads, returns NULL and records UNAVAILABLE
 * with "<backend>: cannot load <what>; tried:" and one line per name with
 * the loader's reason. */
void *gpu_library_open(const char *const *names, size_t count,
                       const char *backend, const char *what,
                       gpu_library_outcome *outcome);

/* Records a failure with the given message (printf-style). */
void gpu_library_fail(gpu_library_outcome *outcome, kiln_status status,
                      const char *format, ...) KILN_PRINTF(3, 4);

/* Returns the recorded status, setting the thread's error detail to the
 * recorded message when it is a failure. */
kiln_status gpu_library_report(const gpu_library_outcome *outcome);

#endif
