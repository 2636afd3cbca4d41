/* core/runtime/context_internal.h: what a context is made of (internal). */
#ifndef KILN_CORE_CONTEXT_INTERNAL_H
#define KILN_CORE_CONTEXT_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include "backends/backend.h"
#include "kiln/context.h"

typedef struct kiln_program_cache kiln_program_cache;

struct kiln_context {
  atomic_int refcount;
  const kiln_backend_ops *ops;
  kiln_backend_device *device;
  kiln_backend_config config;
  char platform_filter[128]; /* storage behind config.platform_filter */
  kiln_device_info info;
  pthread_mutex_t lock;        /* guards the caches below */
  kiln_program_cache *programs; /* compiled programs by source hash */
};

/* The backends compiled into libkiln, in the default order of preference. */
int kiln_registry_count(void);
const kiln_backend_ops *kiln_registry_get(int index);
/* NULL when no backend has that name. */
const kiln_backend_ops *kiln_registry_find(const char *name);
/* "cuda, hip, opencl": for messages listing the valid names. */
const char *kiln_registry_names(void);

/* Drops every cached program of ctx (core/kernel/kernel_cache.c). */
void kiln_program_cache_destroy(kiln_context *ctx);

#endif
