/* core/runtime/log.h: diagnostics on stderr, silent unless KILN_LOG asks. */
#ifndef KILN_CORE_LOG_H
#define KILN_CORE_LOG_H

#include "core/runtime/error.h"

typedef enum kiln_log_level {
  KILN_LOG_OFF = 0,
  KILN_LOG_ERROR,
  KILN_LOG_WARN,
  KILN_LOG_INFO,
  KILN_LOG_DEBUG
} kiln_log_level;

/* Parses KILN_LOG ("error"|"warn"|"info"|"debug"|"off", or unset).
 * INVALID_ARGUMENT naming the variable for any other value. */
kiln_status kiln_log_level_from_env(kiln_log_level *level);

/* The same for a given KILN_LOG value (NULL or "" is off). */
kiln_status kiln_log_level_parse(const char *value, kiln_log_level *level);

/* Nonzero when KILN_LOG is at `level` or more verbose: lets a caller skip
 * building a long message nobody will see. */
int kiln_log_enabled(kiln_log_level level);

/* Writes one line to stderr when KILN_LOG is at `level` or more verbose. */
void kiln_log(kiln_log_level level, const char *format, ...) KILN_PRINTF(2, 3);

#endif
