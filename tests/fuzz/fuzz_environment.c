/* tests/fuzz/fuzz_environment.c: the values of KILN_BACKEND, KILN_DEVICE
 * and KILN_LOG, through the parsers context creation uses. Input: three
 * values separated by NULs. Accepted values must mean what they say:
 * a backend list names only known backends, once each, in the order
 * given; a device index is the decimal number written; a log level is one
 * of the documented names. Rejected values name their variable. */
#include <limits.h>

#include "core/runtime/context_internal.h"
#include "core/runtime/log.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = fuzz_string(data, size);
  if (!text) return 0;
  const char *value[3];
  fuzz_split(text, size, value, 3);

  const kiln_backend_ops *list[8];
  int count = -1;
  FUZZ_ASSERT(kiln_registry_count() <= 8);
  if (kiln_backend_list_parse(value[0], "KILN_BACKEND", list, &count) == KILN_OK) {
    FUZZ_ASSERT(count >= 1 && count <= kiln_registry_count());
    const char *previous = NULL;
    for (int i = 0; i < count; i++) {
      FUZZ_ASSERT(list[i] && kiln_registry_find(list[i]->name) == list[i]);
      for (int j = 0; j < i; j++) FUZZ_ASSERT(list[j] != list[i]);
      /* in the order written: each first appears after the one before */
      const char *at = strstr(value[0], list[i]->name);
      FUZZ_ASSERT(at != NULL && (!previous || at > previous));
      previous = at;
    }
  } else {
    FUZZ_ASSERT(strstr(kiln_last_error(), "KILN_BACKEND") != NULL);
  }

  int device = -1;
  if (kiln_device_index_parse(value[1], &device)) {
    char *end = NULL;
    long expected = strtol(value[1], &end, 10);
    FUZZ_ASSERT(*end == '\0' && expected == device && device >= 0);
  }

  kiln_log_level level;
  if (kiln_log_level_parse(value[2], &level) == KILN_OK) {
    static const char *const names[] = {"off", "error", "warn", "info", "debug"};
    FUZZ_ASSERT(level >= KILN_LOG_OFF && level <= KILN_LOG_DEBUG);
    FUZZ_ASSERT(value[2][0] == '\0' || strcmp(value[2], names[level]) == 0);
  } else {
    FUZZ_ASSERT(strstr(kiln_last_error(), "KILN_LOG") != NULL);
  }
  free(text);
  return 0;
}
