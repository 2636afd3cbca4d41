/* core/runtime/context_internal.h: what a context is made of (internal). */
#ifndef KILN_CORE_CONTEXT_INTERNAL_H
#define KILN_CORE_CONTEXT_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include "backends/backend.h"
#include "kiln/context.h"

typedef struct kiln_program_cache kiln_program_cache;
struct kiln_stream;

/* Where and whether compiled programs are kept on disk, resolved from the
 * options and the environment (context_disk_cache.c); read by
 * core/kernel/kernel_disk_cache.c. */
typedef struct kiln_disk_cache_settings {
  int enabled;         /* zero: never read or write the disk */
  char dir[4096];      /* the directory, when enabled */
  uint64_t max_bytes;  /* size limit (> 0) */
} kiln_disk_cache_settings;

/* Fills *settings from options (cache_dir, cache, cache_max_bytes) and, for
 * fields left at their defaults when use_environment is set, KILN_CACHE_DIR,
 * XDG_CACHE_HOME, HOME, KILN_CACHE and KILN_CACHE_MAX_BYTES.
 * INVALID_ARGUMENT naming the field or variable for a bad value. No
 * directory to be found (no HOME) turns the disk cache off with a warning
 * under KILN_LOG. */
kiln_status kiln_disk_cache_settings_resolve(const kiln_context_options *options,
                                             kiln_disk_cache_settings *settings);

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
  /* State of layers above, made on first use (kiln_context_state): the
   * memory pool (core/array/memory_pool.c), the pinned ranges
   * (core/array/pinned.c), the host staging (core/array/host_staging.c). */
  _Atomic(void *) pool, pinned, staging;
  _Atomic(void *) fft; /* the FFT plan cache (core/fft/fft_cache.c) */
  struct kiln_stream *streams;        /* live public streams (core/runtime/stream.c) */
  kiln_disk_cache_settings disk_cache; /* fixed at creation */
  atomic_int disk_cache_warned; /* a failed disk write was reported at KILN_LOG=warn */
  /* Registered by the layers above (so the context never calls up into
   * them); run in reverse order of registration, before the device closes. */
  kiln_context_teardown teardowns[KILN_CONTEXT_MAX_TEARDOWNS];
  int nteardowns;
};

/* Registers fn to run when ctx is destroyed; registering the same fn again
 * does nothing. Call with ctx->lock held. INTERNAL when the table is full
 * (a fixed number of layers register, so this is a programming error). */
kiln_status kiln_context_on_destroy(kiln_context *ctx, kiln_context_teardown fn);

/* The state in *slot, made by make(ctx) (NULL: out of memory) and
 * registered for teardown the first time (under ctx->lock, so once); teardown
 * must accept a slot still NULL. Errors: OUT_OF_MEMORY, INTERNAL (teardown
 * table full). */
kiln_status kiln_context_state(kiln_context *ctx, _Atomic(void *) *slot,
                               void *(*make)(kiln_context *ctx), kiln_context_teardown teardown,
                               void **out);

/* The backends compiled into libkiln, in the default order of preference. */
int kiln_registry_count(void);
const kiln_backend_ops *kiln_registry_get(int index);
/* NULL when no backend has that name. */
const kiln_backend_ops *kiln_registry_find(const char *name);
/* "cuda, hip, opencl": for messages listing the valid names. */
const char *kiln_registry_names(void);

/* Splits a KILN_BACKEND-style comma list ("cuda, opencl") into backend
 * tables in order, dropping repeats; list has room for
 * kiln_registry_count() entries. `origin` names where the text came from
 * in the message ("KILN_BACKEND", "options.backends"). Errors:
 * INVALID_ARGUMENT naming the unknown entry and the valid names. */
kiln_status kiln_backend_list_parse(const char *text, const char *origin,
                                    const kiln_backend_ops **list, int *count);

/* Strict parse of a KILN_DEVICE-style non-negative decimal index (no sign,
 * no spaces, at most 1000000). Returns nonzero on success. */
int kiln_device_index_parse(const char *text, int *out);

#endif
