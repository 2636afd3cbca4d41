/* core/runtime/fault_injection.c: see fault_injection.h. Test builds only. */
#ifdef KILN_FAULT_INJECTION

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "core/runtime/error.h"
#include "core/runtime/fault_injection.h"

#define FI_MAX_TABLES 4

static atomic_int armed_kind;  /* kiln_fault_kind */
static atomic_long target;     /* the call that fails; <= 0: none */
static atomic_long calls;      /* counted since arm */
static atomic_int fired;
static char operation[64];     /* written once per arm, by the failing call */

void kiln_fault_arm(kiln_fault_kind kind, long n) {
  atomic_store(&armed_kind, KILN_FAULT_NONE);
  atomic_store(&calls, 0);
  atomic_store(&fired, 0);
  atomic_store(&target, n);
  operation[0] = '\0';
  atomic_store(&armed_kind, kind);
}

void kiln_fault_disarm(void) { atomic_store(&armed_kind, KILN_FAULT_NONE); }

long kiln_fault_calls(void) { return atomic_load(&calls); }

int kiln_fault_fired(void) { return atomic_load(&fired); }

const char *kiln_fault_operation(void) { return operation; }

int kiln_fault_hit(kiln_fault_kind kind, const char *op) {
  if (atomic_load(&armed_kind) != (int)kind) return 0;
  long n = atomic_fetch_add(&calls, 1) + 1;
  if (n != atomic_load(&target)) return 0;
  atomic_store(&fired, 1);
  if (op) {
    strncpy(operation, op, sizeof operation - 1);
    operation[sizeof operation - 1] = '\0';
  }
  return 1;
}

static int fi_fail(const char *slot) { return kiln_fault_hit(KILN_FAULT_BACKEND, slot); }

static kiln_status fi_status(const char *slot) {
  return kiln_error_set(KILN_ERROR_DEVICE, "%s: injected device fault", slot);
}

static const kiln_backend_ops *fi_real[FI_MAX_TABLES];
static kiln_backend_ops fi_wrapped[FI_MAX_TABLES];

#define FI_INDEX 0
#include "core/runtime/fault_shims.inc"
#undef FI_INDEX
#define FI_INDEX 1
#include "core/runtime/fault_shims.inc"
#undef FI_INDEX
#define FI_INDEX 2
#include "core/runtime/fault_shims.inc"
#undef FI_INDEX
#define FI_INDEX 3
#include "core/runtime/fault_shims.inc"
#undef FI_INDEX

static void (*const fi_install[FI_MAX_TABLES])(kiln_backend_ops *) = {
    fi_install_0, fi_install_1, fi_install_2, fi_install_3};

static pthread_mutex_t wrap_lock = PTHREAD_MUTEX_INITIALIZER;

const kiln_backend_ops *kiln_fault_wrap_ops(const kiln_backend_ops *ops) {
  const kiln_backend_ops *result = ops;
  pthread_mutex_lock(&wrap_lock);
  for (int i = 0; i < FI_MAX_TABLES; i++) {
    if (fi_real[i] == ops) {
      result = &fi_wrapped[i];
      break;
    }
    if (!fi_real[i]) {
      fi_wrapped[i] = *ops; /* slots this file does not know pass through */
      fi_install[i](&fi_wrapped[i]);
      fi_real[i] = ops;
      result = &fi_wrapped[i];
      break;
    }
  }
  pthread_mutex_unlock(&wrap_lock);
  return result;
}

#else
/* ISO C forbids an empty translation unit. */
typedef int kiln_fault_injection_disabled;
#endif
