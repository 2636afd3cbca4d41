/* core/runtime/log.c: KILN_LOG-gated diagnostics. The level is read once. */
#include "core/runtime/log.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const level_names[] = {"off", "error", "warn", "info", "debug"};

kiln_status kiln_log_level_from_env(kiln_log_level *level) {
  return kiln_log_level_parse(getenv("KILN_LOG"), level);
}

kiln_status kiln_log_level_parse(const char *value, kiln_log_level *level) {
  *level = KILN_LOG_OFF;
  if (!value || !value[0]) return KILN_OK;
  for (int i = 0; i < (int)(sizeof level_names / sizeof level_names[0]); i++) {
    if (strcmp(value, level_names[i]) == 0) {
      *level = (kiln_log_level)i;
      return KILN_OK;
    }
  }
  return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                        "KILN_LOG='%s' is not a log level; valid: "
                        "off, error, warn, info, debug",
                        value);
}

static kiln_log_level current_level = KILN_LOG_OFF;
static pthread_once_t level_once = PTHREAD_ONCE_INIT;
/* set once current_level is read: every launch asks, so after the first
 * read the answer costs one load, not a pthread_once */
static atomic_int level_ready;

static void level_read(void) {
  kiln_log_level level;
  /* An invalid KILN_LOG logs nothing here; context creation reports it. */
  if (kiln_log_level_from_env(&level) == KILN_OK) current_level = level;
  atomic_store_explicit(&level_ready, 1, memory_order_release);
}

int kiln_log_enabled(kiln_log_level level) {
  if (!atomic_load_explicit(&level_ready, memory_order_acquire))
    pthread_once(&level_once, level_read);
  return level != KILN_LOG_OFF && level <= current_level;
}

void kiln_log(kiln_log_level level, const char *format, ...) {
  if (!kiln_log_enabled(level)) return;
  va_list args;
  va_start(args, format);
  fprintf(stderr, "kiln[%s]: ", level_names[level]);
  vfprintf(stderr, format, args);
  fputc('\n', stderr);
  va_end(args);
}
