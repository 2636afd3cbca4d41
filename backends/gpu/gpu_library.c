/* backends/gpu/gpu_library.c: vendor library loading with a remembered
 * outcome. */
#include "backends/gpu/gpu_library.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/runtime/dynlib.h"
#include "core/runtime/error.h"

void *gpu_library_open(const char *const *names, size_t count,
                       const char *backend, const char *what,
                       gpu_library_outcome *outcome) {
  kiln_strbuf tried = {0};
  const char *opened = NULL;
  void *library = kiln_dynlib_open(names, count, &tried, &opened);
  if (library) {
    snprintf(outcome->opened, sizeof outcome->opened, "%s", opened);
    outcome->status = KILN_OK;
    kiln_strbuf_free(&tried);
    return library;
  }
  /* kiln_dynlib_open ends each line with '\n'; the message does not */
  const char *text = kiln_strbuf_text(&tried);
  int length = (int)strlen(text);
  while (length > 0 && text[length - 1] == '\n') length--;
  gpu_library_fail(outcome, KILN_ERROR_UNAVAILABLE, "%s: cannot load %s; tried:\n%.*s",
                   backend, what, length, text);
  kiln_strbuf_free(&tried);
  return NULL;
}

void gpu_library_fail(gpu_library_outcome *outcome, kiln_status status,
                      const char *format, ...) {
  va_list args;
  va_start(args, format);
  va_list copy;
  va_copy(copy, args);
  int n = vsnprintf(NULL, 0, format, copy);
  va_end(copy);
  char *text = n >= 0 ? malloc((size_t)n + 1) : NULL;
  if (text) vsnprintf(text, (size_t)n + 1, format, args);
  va_end(args);
  free(outcome->message);
  outcome->message = text; /* NULL when out of memory: reported generically */
  outcome->status = status;
}

kiln_status gpu_library_report(const gpu_library_outcome *outcome) {
  if (outcome->status == KILN_OK) return KILN_OK;
  return kiln_error_set(outcome->status, "%s",
                        outcome->message ? outcome->message
                                         : "out of host memory loading a library");
}
