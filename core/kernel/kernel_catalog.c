/* core/kernel/kernel_catalog.c: the list that holds generated kernel
 * sources for the compile checks. What goes into it is decided above, in
 * core/catalog/. */
#include <stdlib.h>
#include <string.h>

#include "core/kernel/kernel_catalog.h"

kiln_status kiln_catalog_add(kiln_catalog *c, const char *name, const char *source) {
  if (c->count == c->capacity) {
    int capacity = c->capacity ? 2 * c->capacity : 16;
    kiln_catalog_entry *grown = realloc(c->entries, (size_t)capacity * sizeof *grown);
    if (!grown) return kiln_error_set(KILN_ERROR_OUT_OF_MEMORY, "out of host memory");
    c->entries = grown;
    c->capacity = capacity;
  }
  kiln_catalog_entry *e = &c->entries[c->count];
  e->name = strdup(name);
  e->source = strdup(source);
  if (!e->name || !e->source) {
    free(e->name);
    free(e->source);
    return kiln_error_set(KILN_ERROR_OUT_OF_MEMORY, "out of host memory");
  }
  c->count++;
  return KILN_OK;
}

void kiln_catalog_free(kiln_catalog *c) {
  for (int i = 0; i < c->count; i++) {
    free(c->entries[i].name);
    free(c->entries[i].source);
  }
  free(c->entries);
  memset(c, 0, sizeof *c);
}
