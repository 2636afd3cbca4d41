/* core/runtime/dynlib.h: loading vendor libraries at run time (internal).
 *
 * Backends never link against a vendor library; they dlopen versioned names
 * through these helpers, which record each path tried and the loader's
 * reason so a failure can say exactly what happened. */
#ifndef KILN_CORE_DYNLIB_H
#define KILN_CORE_DYNLIB_H

#include <stddef.h>

#include "core/runtime/strbuf.h"

/* Tries each of names[0..count) with dlopen(RTLD_NOW | RTLD_LOCAL); NULL
 * entries are skipped (for optional overrides). Returns the first handle
 * that loads and sets *opened (if not NULL) to its name; on failure returns
 * NULL. Every failed attempt appends "  <name>: <dlerror()>\n" to `tried`
 * (may be NULL). */
void *kiln_dynlib_open(const char *const *names, size_t count,
                       kiln_strbuf *tried, const char **opened);

/* dlsym; NULL when the symbol is absent. */
void *kiln_dynlib_symbol(void *library, const char *name);

/* dlclose; NULL is ignored. */
void kiln_dynlib_close(void *library);

#endif
