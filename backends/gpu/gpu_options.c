/* backends/gpu/gpu_options.c: splitting compiler options into words. */
#include "backends/gpu/gpu_options.h"

#include <stdlib.h>
#include <string.h>

#include "core/runtime/error.h"

static int is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

kiln_status gpu_options_split(const char *options, char ***words, int *count) {
  KILN_CHECK_ARG(words);
  KILN_CHECK_ARG(count);
  *words = NULL;
  *count = 0;
  if (!options) options = "";
  size_t length = strlen(options);
  /* at most one word per two characters, plus the terminating NULL */
  size_t max_words = length / 2 + 2;
  if (max_words > ((size_t)-1 - (length + 1)) / sizeof(char *))
    return kiln_error_set(KILN_ERROR_OUT_OF_RANGE, "compiler options too long");
  char **list = malloc(max_words * sizeof(char *) + length + 1);
  if (!list)
    return kiln_error_set(KILN_ERROR_OUT_OF_MEMORY,
                          "out of host memory splitting compiler options");
  char *out = (char *)(list + max_words);
  int n = 0;
  const char *p = options;
  for (;;) {
    while (is_space(*p)) p++;
    if (!*p) break;
    list[n++] = out;
    char quote = 0;
    for (; *p && (quote || !is_space(*p)); p++) {
      if (quote == '\'') {
        if (*p == '\'') quote = 0;
        else *out++ = *p;
      } else if (quote == '"') {
        if (*p == '"') quote = 0;
        else if (*p == '\\' && (p[1] == '"' || p[1] == '\\')) *out++ = *++p;
        else *out++ = *p;
      } else if (*p == '\'' || *p == '"') {
        quote = *p;
      } else if (*p == '\\' && p[1]) {
        *out++ = *++p;
      } else {
        *out++ = *p;
      }
    }
    if (quote) {
      free(list);
      return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                            "compiler options have an unterminated %c quote: %s",
                            quote, options);
    }
    *out++ = '\0';
  }
  list[n] = NULL;
  *words = list;
  *count = n;
  return KILN_OK;
}
