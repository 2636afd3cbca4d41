/* core/runtime/fault_injection.h: make the n-th call into the backend table,
 * or the n-th host allocation, fail (internal; test builds only).
 *
 * Compiled only with -DKILN_FAULT_INJECTION=ON (which defines
 * KILN_FAULT_INJECTION); a release build has none of it. The tests in
 * tests/fault/ arm a fault, run a scenario through the public API and check
 * that the call fails cleanly: a status, a message naming the operation, no
 * leak, and the same context working afterwards.
 *
 * Backend faults: every context's ops table is replaced by a wrapped copy
 * whose slots that return a kiln_status count their calls; the armed call
 * fails with KILN_ERROR_DEVICE ("<slot>: injected device fault") before the
 * real slot runs, with its outputs set as a failing backend leaves them
 * (handles NULL). Slots that cannot fail (frees, destroys) pass through.
 * Host faults: kiln_fault_hit(KILN_FAULT_HOST_ALLOC) is called by the
 * allocation wrappers the fault tests link (-Wl,--wrap=malloc ...), which
 * then return NULL. */
#ifndef KILN_CORE_RUNTIME_FAULT_INJECTION_H
#define KILN_CORE_RUNTIME_FAULT_INJECTION_H

#ifdef KILN_FAULT_INJECTION

#include "backends/backend.h"

typedef enum kiln_fault_kind {
  KILN_FAULT_NONE = 0,
  KILN_FAULT_BACKEND,   /* a call into the backend's ops table */
  KILN_FAULT_HOST_ALLOC /* malloc/calloc/realloc/strdup in kiln */
} kiln_fault_kind;

/* From now on count calls of `kind` (from every thread); call number n
 * (1-based) fails, and only that one. n <= 0 counts without failing. */
void kiln_fault_arm(kiln_fault_kind kind, long n);

/* Stops counting and failing. */
void kiln_fault_disarm(void);

/* Calls of the armed kind counted since kiln_fault_arm. */
long kiln_fault_calls(void);

/* Nonzero once the armed fault has been injected. */
int kiln_fault_fired(void);

/* The backend slot the fault was injected into ("" before, or for a host
 * fault). Valid until the next kiln_fault_arm. */
const char *kiln_fault_operation(void);

/* Counts one call of `kind`; nonzero when this call must fail. */
int kiln_fault_hit(kiln_fault_kind kind, const char *operation);

/* The counting copy of a backend's table (made once per backend; lives as
 * long as the process). Returns ops itself if the table cannot be made. */
const kiln_backend_ops *kiln_fault_wrap_ops(const kiln_backend_ops *ops);

#endif
#endif
