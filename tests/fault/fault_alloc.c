/* tests/fault/fault_alloc.c: host allocation wrappers for the fault tests.
 * The fault test links kiln's static library with -Wl,--wrap=malloc (and
 * calloc, realloc, strdup), so every allocation kiln makes comes here and
 * can be made to fail (core/runtime/fault_injection.h). Allocations of
 * shared libraries (the OpenCL ICD loader, PoCL) are not wrapped. */
#include <stddef.h>

#include "core/runtime/fault_injection.h"

void *__real_malloc(size_t size);
void *__real_calloc(size_t count, size_t size);
void *__real_realloc(void *pointer, size_t size);
char *__real_strdup(const char *text);
void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t count, size_t size);
void *__wrap_realloc(void *pointer, size_t size);
char *__wrap_strdup(const char *text);

void *__wrap_malloc(size_t size) {
  return kiln_fault_hit(KILN_FAULT_HOST_ALLOC, "malloc") ? NULL : __real_malloc(size);
}

void *__wrap_calloc(size_t count, size_t size) {
  return kiln_fault_hit(KILN_FAULT_HOST_ALLOC, "calloc") ? NULL : __real_calloc(count, size);
}

void *__wrap_realloc(void *pointer, size_t size) {
  return kiln_fault_hit(KILN_FAULT_HOST_ALLOC, "realloc") ? NULL : __real_realloc(pointer, size);
}

char *__wrap_strdup(const char *text) {
  return kiln_fault_hit(KILN_FAULT_HOST_ALLOC, "strdup") ? NULL : __real_strdup(text);
}
