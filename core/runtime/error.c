/* core/runtime/error.c: thread-local error detail. The buffer is per thread, grows
 * as needed (compiler logs can be long) and is freed at thread exit. */
#include "core/runtime/error.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct error_buffer {
  char *text;
  size_t capacity;
} error_buffer;

static pthread_key_t error_key;
static pthread_once_t error_once = PTHREAD_ONCE_INIT;

static void error_buffer_free(void *p) {
  error_buffer *b = p;
  if (b) free(b->text);
  free(b);
}

static void error_key_create(void) { pthread_key_create(&error_key, error_buffer_free); }

static error_buffer *error_buffer_get(void) {
  pthread_once(&error_once, error_key_create);
  error_buffer *b = pthread_getspecific(error_key);
  if (!b) {
    b = calloc(1, sizeof *b);
    if (b && pthread_setspecific(error_key, b) != 0) {
      free(b);
      b = NULL;
    }
  }
  return b;
}

/* Formats into the thread's buffer after `keep` bytes of existing text. */
static void error_vformat(error_buffer *b, size_t keep, const char *format,
                          va_list args) {
  va_list copy;
  va_copy(copy, args);
  int n = vsnprintf(NULL, 0, format, copy);
  va_end(copy);
  if (n < 0) return;
  size_t need = keep + (size_t)n + 1;
  if (need > b->capacity) {
    char *grown = realloc(b->text, need);
    if (!grown) return; /* keep the old message rather than none */
    b->text = grown;
    b->capacity = need;
  }
  vsnprintf(b->text + keep, (size_t)n + 1, format, args);
}

kiln_status kiln_error_set(kiln_status status, const char *format, ...) {
  error_buffer *b = error_buffer_get();
  if (!b) return status;
  va_list args;
  va_start(args, format);
  error_vformat(b, 0, format, args);
  va_end(args);
  return status;
}

kiln_status kiln_error_prefix(kiln_status status, const char *format, ...) {
  error_buffer *b = error_buffer_get();
  if (!b) return status;
  char *old = (b->text && b->text[0]) ? strdup(b->text) : NULL;
  va_list args;
  va_start(args, format);
  error_vformat(b, 0, format, args);
  va_end(args);
  if (old) {
    size_t len = strlen(b->text);
    size_t need = len + 2 + strlen(old) + 1;
    if (need > b->capacity) {
      char *grown = realloc(b->text, need);
      if (grown) {
        b->text = grown;
        b->capacity = need;
      }
    }
    if (need <= b->capacity) {
      memcpy(b->text + len, ": ", 2);
      memcpy(b->text + len + 2, old, strlen(old) + 1);
    }
    free(old);
  }
  return status;
}

const char *kiln_last_error(void) {
  error_buffer *b = error_buffer_get();
  return (b && b->text) ? b->text : "";
}

const char *kiln_status_string(kiln_status status) {
  switch (status) {
    case KILN_OK: return "KILN_OK";
    case KILN_ERROR_INVALID_ARGUMENT: return "KILN_ERROR_INVALID_ARGUMENT";
    case KILN_ERROR_NOT_FOUND: return "KILN_ERROR_NOT_FOUND";
    case KILN_ERROR_UNAVAILABLE: return "KILN_ERROR_UNAVAILABLE";
    case KILN_ERROR_UNIMPLEMENTED: return "KILN_ERROR_UNIMPLEMENTED";
    case KILN_ERROR_OUT_OF_MEMORY: return "KILN_ERROR_OUT_OF_MEMORY";
    case KILN_ERROR_OUT_OF_RANGE: return "KILN_ERROR_OUT_OF_RANGE";
    case KILN_ERROR_COMPILE: return "KILN_ERROR_COMPILE";
    case KILN_ERROR_DEVICE: return "KILN_ERROR_DEVICE";
    case KILN_ERROR_INTERNAL: return "KILN_ERROR_INTERNAL";
  }
  return "KILN_ERROR_UNKNOWN";
}
