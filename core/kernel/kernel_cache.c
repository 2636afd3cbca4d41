/* core/kernel/kernel_cache.c: compiled programs of a context, keyed by
 * (source, options, entry). Compilation runs outside the lock so that one
 * long compile does not stall other threads' lookups; if two threads
 * compile the same program at once, the second result is dropped. A miss
 * here asks the disk cache (kernel_disk_cache.c) before compiling, and a
 * compile is stored there, so every kernel kiln compiles is kept across
 * processes. */
#include <stdlib.h>
#include <string.h>

#include "core/kernel/kernel_disk_cache.h"
#include "core/kernel/kernel_internal.h"
#include "core/runtime/log.h"

#define CACHE_BUCKETS 256

typedef struct cache_entry {
  uint64_t hash;
  char *key;
  size_t key_length;
  kiln_program program;
  struct cache_entry *next;
} cache_entry;

struct kiln_program_cache {
  cache_entry *buckets[CACHE_BUCKETS];
};

/* FNV-1a, 64-bit. */
static uint64_t hash_bytes(const char *data, size_t n) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < n; i++) {
    h ^= (unsigned char)data[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

static void program_destroy(kiln_context *ctx, kiln_program *p) {
  if (p->function) ctx->ops->function_release(ctx->device, p->function);
  if (p->module) ctx->ops->module_unload(ctx->device, p->module);
  free(p->params);
  free(p->entry);
}

static void program_cache_destroy(kiln_context *ctx) {
  if (!ctx->programs) return;
  for (int b = 0; b < CACHE_BUCKETS; b++) {
    cache_entry *e = ctx->programs->buckets[b];
    while (e) {
      cache_entry *next = e->next;
      program_destroy(ctx, &e->program);
      free(e->key);
      free(e);
      e = next;
    }
  }
  free(ctx->programs);
  ctx->programs = NULL;
}

static kiln_program *cache_find(kiln_context *ctx, uint64_t hash, const char *key,
                                size_t key_length) {
  if (!ctx->programs) return NULL;
  for (cache_entry *e = ctx->programs->buckets[hash % CACHE_BUCKETS]; e; e = e->next)
    if (e->hash == hash && e->key_length == key_length && memcmp(e->key, key, key_length) == 0)
      return &e->program;
  return NULL;
}

/* The module of the composed source: from the disk cache, else compiled
 * (and then stored there). */
static kiln_status module_get(kiln_context *ctx, const char *full, const char *options,
                              kiln_backend_module **module, char **log) {
  kiln_disk_entry disk;
  int use_disk = kiln_disk_entry_init(ctx, full, options, &disk);
  if (use_disk) *module = kiln_disk_cache_load(ctx, &disk);
  kiln_status status = KILN_OK;
  if (!*module) {
    status = ctx->ops->module_build(ctx->device, full, options, module, log);
    if (status == KILN_OK && use_disk) kiln_disk_cache_store(ctx, &disk, *module);
  }
  if (use_disk) kiln_disk_entry_free(&disk);
  return status;
}

/* Builds the module and finds the entry; on failure *p is left for
 * program_destroy. */
static kiln_status program_build(kiln_context *ctx, const char *source, const char *options,
                                 const char *entry, kiln_program *p) {
  char *full = NULL, *log = NULL;
  /* Parameters first: a type kiln cannot pass gets kiln's message whatever
   * the dialect's compiler would say, and costs no compile. */
  KILN_RETURN_IF_ERROR(kiln_params_parse(source, entry, &p->params, &p->nparams));
  KILN_RETURN_IF_ERROR(kiln_source_compose(ctx->ops, source, &full));
  kiln_status status = module_get(ctx, full, options, &p->module, &log);
  free(full);
  if (status == KILN_ERROR_COMPILE) {
    kiln_strbuf b = {0};
    kiln_strbuf_appendf(&b, "kernel '%s' failed to compile for %s (%s):\n", entry,
                        ctx->ops->name, ctx->info.name);
    kiln_source_append_log(&b, log ? log : "(no compiler log)",
                           kiln_source_prefix_lines(ctx->ops));
    kiln_strbuf_append(&b, "\n");
    kiln_strbuf_append(&b, "source (\"kernel\" line numbers):\n");
    kiln_source_append_numbered(&b, source);
    kiln_error_set(KILN_ERROR_COMPILE, "%s", kiln_strbuf_text(&b));
    kiln_strbuf_free(&b);
  } else if (status == KILN_OK && log && log[0]) {
    kiln_log(KILN_LOG_DEBUG, "compiler log for '%s': %s", entry, log);
  }
  free(log);
  KILN_RETURN_IF_ERROR(status);
  KILN_RETURN_IF_ERROR(ctx->ops->function_get(ctx->device, p->module, entry, &p->function));
  return ctx->ops->function_limits(ctx->device, p->function, &p->max_work_group_size,
                                   &p->preferred_multiple);
}

kiln_status kiln_program_get_keyed(kiln_context *ctx, const char *key, size_t key_length,
                                   const char *options, const char *entry,
                                   kiln_source_generator generate, void *data,
                                   kiln_program **out) {
  if (!options) options = "";
  uint64_t hash = hash_bytes(key, key_length);
  pthread_mutex_lock(&ctx->lock);
  *out = cache_find(ctx, hash, key, key_length);
  pthread_mutex_unlock(&ctx->lock);
  if (*out) return KILN_OK;

  /* a miss: generate the source, compile, and insert a copy of the key */
  kiln_strbuf source = {0};
  char *stored = malloc(key_length);
  cache_entry *e = calloc(1, sizeof *e);
  kiln_status status = KILN_OK;
  if (!stored || !e || !(e->program.entry = strdup(entry))) {
    status = kiln_error_set(KILN_ERROR_OUT_OF_MEMORY, "out of host memory");
    goto cleanup;
  }
  memcpy(stored, key, key_length);
  status = generate(data, &source);
  if (status == KILN_OK) status = kiln_strbuf_status(&source);
  if (status == KILN_OK) status = program_build(ctx, kiln_strbuf_text(&source), options, entry, &e->program);
  if (status != KILN_OK) goto cleanup;

  pthread_mutex_lock(&ctx->lock);
  *out = cache_find(ctx, hash, key, key_length);
  if (!*out && !ctx->programs &&
      kiln_context_on_destroy(ctx, program_cache_destroy) == KILN_OK)
    ctx->programs = calloc(1, sizeof *ctx->programs);
  if (!*out && ctx->programs) {
    e->hash = hash;
    e->key = stored;
    e->key_length = key_length;
    e->next = ctx->programs->buckets[hash % CACHE_BUCKETS];
    ctx->programs->buckets[hash % CACHE_BUCKETS] = e;
    *out = &e->program;
    stored = NULL;
    e = NULL;
  }
  pthread_mutex_unlock(&ctx->lock);
  if (!*out) status = kiln_error_set(KILN_ERROR_OUT_OF_MEMORY, "out of host memory");
cleanup:
  if (e) {
    program_destroy(ctx, &e->program);
    free(e);
  }
  free(stored);
  kiln_strbuf_free(&source);
  return status;
}

static kiln_status copy_source(void *data, kiln_strbuf *source) {
  kiln_strbuf_append(source, data);
  return KILN_OK;
}

kiln_status kiln_program_get(kiln_context *ctx, const char *source, const char *options,
                             const char *entry, kiln_program **out) {
  if (!options) options = "";
  /* the key is the text itself: source \0 options \0 entry */
  size_t ls = strlen(source), lo = strlen(options), le = strlen(entry);
  size_t key_length = ls + lo + le + 2;
  char *key = malloc(key_length);
  if (!key) return kiln_error_set(KILN_ERROR_OUT_OF_MEMORY, "out of host memory");
  memcpy(key, source, ls);
  key[ls] = '\0';
  memcpy(key + ls + 1, options, lo);
  key[ls + 1 + lo] = '\0';
  memcpy(key + ls + lo + 2, entry, le);
  kiln_status status = kiln_program_get_keyed(ctx, key, key_length, options, entry, copy_source,
                                              (void *)source, out);
  free(key);
  return status;
}

void kiln_program_grid_1d(const kiln_context *ctx, const kiln_program *program, int64_t n,
                          uint64_t *global, uint64_t *local) {
  uint64_t size = program->max_work_group_size < 256 ? program->max_work_group_size : 256;
  uint64_t multiple = program->preferred_multiple;
  if (multiple > 0 && multiple <= size) size -= size % multiple;
  if (size == 0) size = 1;
  uint64_t groups = ((uint64_t)n + size - 1) / size;
  /* GPUs: enough groups to fill the device many times over, beyond that each
   * work-item loops (grid-stride: measured faster than one work-item per
   * element on an H200). CPU devices run a work-group as a vectorised loop
   * over its items and lose that when each item loops itself (10x slower
   * on PoCL): there one item per element, up to 2^31 items in all. */
  uint64_t cap = ctx->info.type == KILN_DEVICE_CPU
                     ? (((uint64_t)1 << 31) - size) / size
                     : (uint64_t)(ctx->info.compute_units ? ctx->info.compute_units : 16) * 64;
  if (groups > cap) groups = cap;
  if (groups == 0) groups = 1;
  *local = size;
  *global = groups * size;
}

kiln_status kiln_program_launch(kiln_context *ctx, const kiln_program *program,
                                kiln_stream *stream, const kiln_backend_launch *launch,
                                int nargs, const kiln_backend_arg *args) {
  kiln_backend_stream *s = NULL;
  KILN_RETURN_IF_ERROR(kiln_stream_backend(ctx, stream, &s));
  return ctx->ops->launch(ctx->device, s, program->function, launch, nargs, args);
}
