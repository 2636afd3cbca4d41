/* core/runtime/context_internal.h: what a context is made of (internal). */
#ifndef KILN_CORE_CONTEXT_INTERNAL_H
#define KILN_CORE_CONTEXT_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include "backends/backend.h"
#include "kiln/context.h"

typedef struct kiln_program_cache kiln_program_cache;
typedef struct kiln_memory_pool kiln_memory_pool;     /* core/array/memory_pool.c */
typedef struct kiln_pinned_ranges kiln_pinned_ranges; /* core/array/pinned.c */
typedef struct kiln_host_staging kiln_host_staging;   /* core/array/host_staging.c */
struct kiln_stream;

/* Frees what a layer above the context keeps in it (the program cache, the
 * memory pool); called once, when the context is destroyed. */
typedef void (*kiln_context_teardown)(kiln_context *ctx);
#define KILN_CONTEXT_MAX_TEARDOWNS 8

struct kiln_context {
  atomic_int refcount;
  const kiln_backend_ops *ops;
  kiln_backend_device *device;
  kiln_backend_config config;
  char platform_filter[128]; /* storage behind config.platform_filter */
  kiln_device_info info;
  pthread_mutex_t lock;        /* guards the caches below */
  kiln_program_cache *programs; /* compiled programs (core/kernel/kernel_cache.c) */
  int pool_enabled;                   /* options.memory_pool / KILN_POOL, resolved */
  _Atomic(kiln_memory_pool *) pool;   /* made on first use (core/array/memory_pool.c) */
  _Atomic(kiln_pinned_ranges *) pinned; /* made on first use (core/array/pinned.c) */
  _Atomic(kiln_host_staging *) staging; /* made on first use (core/array/host_staging.c) */
  struct kiln_stream *streams;        /* live public streams (core/runtime/stream.c) */
  /* Registered by the layers above (so the context never calls up into
   * them); run in reverse order of registration, before the device closes. */
  kiln_context_teardown teardowns[KILN_CONTEXT_MAX_TEARDOWNS];
  int nteardowns;
};

/* Registers fn to run when ctx is destroyed; registering the same fn again
 * does nothing. Call with ctx->lock held. INTERNAL when the table is full
 * (a fixed number of layers register, so this is a programming error). */
kiln_status kiln_context_on_destroy(kiln_context *ctx, kiln_context_teardown fn);

/* The backends compiled into libkiln, in the default order of preference. */
int kiln_registry_count(void);
const kiln_backend_ops *kiln_registry_get(int index);
/* NULL when no backend has that name. */
const kiln_backend_ops *kiln_registry_find(const char *name);
/* "cuda, hip, opencl": for messages listing the valid names. */
const char *kiln_registry_names(void);

#endif
