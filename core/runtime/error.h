/* core/runtime/error.h: setting the thread-local error detail (internal). */
#ifndef KILN_CORE_ERROR_H
#define KILN_CORE_ERROR_H

#include "kiln/status.h"

#if defined(__GNUC__)
#define KILN_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define KILN_PRINTF(f, a)
#endif

/* Sets the calling thread's error detail (printf-style) and returns status,
 * so a failure path reads `return kiln_error_set(KILN_ERROR_..., ...)`. */
kiln_status kiln_error_set(kiln_status status, const char *format, ...)
    KILN_PRINTF(2, 3);

/* Puts `context` + ": " in front of the current detail and returns status:
 * for adding what was being done to a lower layer's message. */
kiln_status kiln_error_prefix(kiln_status status, const char *format, ...)
    KILN_PRINTF(2, 3);

/* Propagates a failure to the caller. */
#define KILN_RETURN_IF_ERROR(expr)             \
  do {                                         \
    kiln_status kiln_status_ = (expr);         \
    if (kiln_status_ != KILN_OK) return kiln_status_; \
  } while (0)

/* Rejects a NULL argument with INVALID_ARGUMENT naming it. */
#define KILN_CHECK_ARG(arg)                                               \
  do {                                                                    \
    if ((arg) == NULL)                                                    \
      return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "%s: %s is NULL", \
                            __func__, #arg);                              \
  } while (0)

#endif
