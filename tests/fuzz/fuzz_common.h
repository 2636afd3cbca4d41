/* tests/fuzz/fuzz_common.h: what every libFuzzer target shares. A target
 * checks what it can beyond "no crash": a FUZZ_ASSERT failure aborts, which
 * libFuzzer reports with the input that caused it. */
#ifndef KILN_TESTS_FUZZ_COMMON_H
#define KILN_TESTS_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_ASSERT(cond)                                                    \
  do {                                                                       \
    if (!(cond)) {                                                           \
      fprintf(stderr, "%s:%d: FUZZ_ASSERT(%s) failed\n", __FILE__, __LINE__, \
              #cond);                                                        \
      abort();                                                               \
    }                                                                        \
  } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input as a NUL-terminated string (malloc'd; NULL if out of memory).
 * Bytes after an embedded NUL are kept (see fuzz_split). */
static inline char *fuzz_string(const uint8_t *data, size_t size) {
  char *s = malloc(size + 1);
  if (!s) return NULL;
  memcpy(s, data, size);
  s[size] = '\0';
  return s;
}

/* Splits a fuzz_string copy of `size` bytes at its NULs into at most n
 * strings; missing ones are "". Returns how many were present. */
static inline int fuzz_split(char *s, size_t size, const char **parts, int n) {
  int count = 0;
  size_t start = 0;
  for (int i = 0; i < n; i++) parts[i] = "";
  for (size_t i = 0; i <= size && count < n; i++)
    if (s[i] == '\0') {
      parts[count++] = s + start;
      start = i + 1;
    }
  return count;
}

#endif
