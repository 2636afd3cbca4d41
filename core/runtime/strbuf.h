/* core/runtime/strbuf.h: a growable string for messages and generated source. */
#ifndef KILN_CORE_STRBUF_H
#define KILN_CORE_STRBUF_H

#include <stddef.h>

#include "core/runtime/error.h"

/* Zero-initialise ({0}) before use. After an allocation failure `failed` is
 * set, further appends do nothing, and kiln_strbuf_status reports it. */
typedef struct kiln_strbuf {
  char *data; /* NUL-terminated once anything was appended */
  size_t length;
  size_t capacity;
  int failed;
} kiln_strbuf;

void kiln_strbuf_append(kiln_strbuf *b, const char *text);
void kiln_strbuf_append_n(kiln_strbuf *b, const char *text, size_t n);
void kiln_strbuf_appendf(kiln_strbuf *b, const char *format, ...) KILN_PRINTF(2, 3);

/* The text so far ("" when empty); valid until the next append. */
const char *kiln_strbuf_text(const kiln_strbuf *b);

/* KILN_OK, or OUT_OF_MEMORY (with the detail set) if an append failed. */
kiln_status kiln_strbuf_status(const kiln_strbuf *b);

/* Hands the malloc'd text to the caller (never NULL unless out of memory)
 * and resets the buffer. */
char *kiln_strbuf_take(kiln_strbuf *b);

void kiln_strbuf_free(kiln_strbuf *b);

#endif
