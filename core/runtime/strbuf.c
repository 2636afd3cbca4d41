/* core/runtime/strbuf.c */
#include "core/runtime/strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int strbuf_reserve(kiln_strbuf *b, size_t extra) {
  if (b->failed) return 0;
  size_t need = b->length + extra + 1;
  if (need <= b->capacity) return 1;
  size_t capacity = b->capacity ? b->capacity : 64;
  while (capacity < need) capacity *= 2;
  char *grown = realloc(b->data, capacity);
  if (!grown) {
    b->failed = 1;
    return 0;
  }
  b->data = grown;
  b->capacity = capacity;
  return 1;
}

void kiln_strbuf_append_n(kiln_strbuf *b, const char *text, size_t n) {
  if (!strbuf_reserve(b, n)) return;
  memcpy(b->data + b->length, text, n);
  b->length += n;
  b->data[b->length] = '\0';
}

void kiln_strbuf_append(kiln_strbuf *b, const char *text) {
  kiln_strbuf_append_n(b, text, strlen(text));
}

void kiln_strbuf_appendf(kiln_strbuf *b, const char *format, ...) {
  va_list args;
  va_start(args, format);
  va_list copy;
  va_copy(copy, args);
  int n = vsnprintf(NULL, 0, format, copy);
  va_end(copy);
  if (n >= 0 && strbuf_reserve(b, (size_t)n)) {
    vsnprintf(b->data + b->length, (size_t)n + 1, format, args);
    b->length += (size_t)n;
  }
  va_end(args);
}

const char *kiln_strbuf_text(const kiln_strbuf *b) { return b->data ? b->data : ""; }

kiln_status kiln_strbuf_status(const kiln_strbuf *b) {
  if (b->failed) return kiln_error_set(KILN_ERROR_OUT_OF_MEMORY, "out of host memory building a string");
  return KILN_OK;
}

char *kiln_strbuf_take(kiln_strbuf *b) {
  char *text = b->data;
  if (!text && !b->failed) text = calloc(1, 1);
  if (b->failed) {
    free(text);
    text = NULL;
  }
  b->data = NULL;
  b->length = b->capacity = 0;
  b->failed = 0;
  return text;
}

void kiln_strbuf_free(kiln_strbuf *b) {
  free(b->data);
  b->data = NULL;
  b->length = b->capacity = 0;
  b->failed = 0;
}
