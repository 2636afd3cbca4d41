/* core/kernel/kernel_catalog.h: every kernel source kiln itself generates, for the
 * compile checks that build them for GPU targets absent from the machine
 * (NVRTC for sm_80/sm_90, hiprtc for gfx90a/gfx1030) in CI (internal).
 *
 * Variants of one family go into one translation unit under distinct names,
 * so a whole family costs one compile. */
#ifndef KILN_CORE_KERNEL_CATALOG_H
#define KILN_CORE_KERNEL_CATALOG_H

#include "core/runtime/error.h"
#include "core/runtime/strbuf.h"

typedef struct kiln_catalog_entry {
  char *name;   /* what the source is, for messages */
  char *source; /* kernel language, without the preludes */
} kiln_catalog_entry;

typedef struct kiln_catalog {
  kiln_catalog_entry *entries;
  int count;
  int capacity;
} kiln_catalog;

/* Appends a copy of (name, source). */
kiln_status kiln_catalog_add(kiln_catalog *catalog, const char *name, const char *source);

void kiln_catalog_free(kiln_catalog *catalog);

#endif
