/* core/runtime/dynlib.c: dlopen with a record of what was tried. */
#include "core/runtime/dynlib.h"

#include <dlfcn.h>

void *kiln_dynlib_open(const char *const *names, size_t count,
                       kiln_strbuf *tried, const char **opened) {
  for (size_t i = 0; i < count; i++) {
    if (!names[i] || !names[i][0]) continue;
    dlerror(); /* clear a stale message */
    void *handle = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (handle) {
      if (opened) *opened = names[i];
      return handle;
    }
    const char *why = dlerror();
    if (tried) kiln_strbuf_appendf(tried, "  %s: %s\n", names[i], why ? why : "not loadable");
  }
  return NULL;
}

void *kiln_dynlib_symbol(void *library, const char *name) {
  return library ? dlsym(library, name) : NULL;
}

void kiln_dynlib_close(void *library) {
  if (library) dlclose(library);
}
