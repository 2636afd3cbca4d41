/* core/runtime/backend_registry.c: the backends compiled into this libkiln. The
 * order is the default preference: a GPU vendor's own runtime first, then
 * OpenCL, which also covers CPUs through PoCL. */
#include <string.h>

#include "core/runtime/context_internal.h"

static const kiln_backend_ops *const registry[] = {
    &kiln_backend_cuda,
    &kiln_backend_hip,
    &kiln_backend_opencl,
};

#define REGISTRY_COUNT ((int)(sizeof registry / sizeof registry[0]))

int kiln_registry_count(void) { return REGISTRY_COUNT; }

const kiln_backend_ops *kiln_registry_get(int index) {
  return index >= 0 && index < REGISTRY_COUNT ? registry[index] : NULL;
}

const kiln_backend_ops *kiln_registry_find(const char *name) {
  for (int i = 0; i < REGISTRY_COUNT; i++)
    if (name && strcmp(registry[i]->name, name) == 0) return registry[i];
  return NULL;
}

const char *kiln_registry_names(void) { return "cuda, hip, opencl"; }

int kiln_backend_count(void) { return REGISTRY_COUNT; }

const char *kiln_backend_name(int index) {
  const kiln_backend_ops *ops = kiln_registry_get(index);
  return ops ? ops->name : NULL;
}
