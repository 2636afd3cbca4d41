/* core/kernel/kernel_cache.c: compiled programs of a context, keyed by
 * (source, options, entry). Compilation runs outside the lock so that one
 * long compile does not stall other threads' lookups; if two threads
 * compile the same program at once, the second result is dropped. A miss
 * here asks the disk cache (kernel_disk_cache.c) before compiling, and a
 * compile is stored there, so every kernel kiln compiles is kept across
 * processes. */
#include <pthread.h>
#include <stdatomic.h>
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

/* Stores the entry a program's module waits under (if any) and forgets
 * it; once per program, whichever thread gets there first. */
static void store_pending(kiln_context *ctx, const kiln_program *program) {
  kiln_disk_entry *entry = atomic_exchange(&((kiln_program *)program)->pending_store, NULL);
  if (!entry) return;
  kiln_disk_cache_store(ctx, entry, program->module);
  kiln_disk_entry_free(entry);
  free(entry);
}

static void program_destroy(kiln_context *ctx, kiln_program *p) {
  store_pending(ctx, p); /* never launched: the binary as compiled */
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

static atomic_uint_fast64_t programs_built, modules_compiled;

void kiln_program_cache_counts(uint64_t *built, uint64_t *compiled) {
  *built = atomic_load(&programs_built);
  *compiled = atomic_load(&modules_compiled);
}

/* KILN_ELEMENTS_GRID (kiln_elements_cpu_form): work-items of the GPU form
 * on a CPU device, 0 when unset. */
static uint64_t elements_grid = 0;
static pthread_once_t elements_grid_once = PTHREAD_ONCE_INIT;

static void elements_grid_read(void) {
  const char *v = getenv("KILN_ELEMENTS_GRID");
  long long items = v ? atoll(v) : 0;
  elements_grid = items > 0 ? (uint64_t)items : 0;
}

static uint64_t elements_grid_items(void) {
  pthread_once(&elements_grid_once, elements_grid_read);
  return elements_grid;
}

int kiln_elements_cpu_form(const kiln_context *ctx) {
  return ctx->info.type == KILN_DEVICE_CPU && elements_grid_items() == 0;
}

/* The module of the composed source: from the disk cache, else compiled
 * and stored there, now or (ops->binary_after_launch on a CPU device)
 * after the first launch: then *pending receives the entry. */
static kiln_status module_get(kiln_context *ctx, const char *full, const char *options,
                              kiln_backend_module **module, char **log,
                              kiln_disk_entry **pending) {
  kiln_disk_entry disk;
  int use_disk = kiln_disk_entry_init(ctx, full, options, &disk);
  if (use_disk) *module = kiln_disk_cache_load(ctx, &disk);
  kiln_status status = KILN_OK;
  if (!*module) {
    atomic_fetch_add(&modules_compiled, 1);
    status = ctx->ops->module_build(ctx->device, full, options, module, log);
    if (status == KILN_OK && use_disk && ctx->ops->binary_after_launch &&
        ctx->info.type == KILN_DEVICE_CPU && (*pending = malloc(sizeof **pending)) != NULL) {
      **pending = disk; /* the entry's buffers move with it */
      use_disk = 0;
    } else if (status == KILN_OK && use_disk) {
      kiln_disk_cache_store(ctx, &disk, *module);
    }
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
  /* CPU devices get KILN_DEVICE_IS_CPU: the prelude's element loop then has
   * no loop and no bound test (kiln_program_launch_elements). The memory
   * cache belongs to one device; the disk cache's key has these options. */
  kiln_strbuf all_options = {0};
  kiln_strbuf_append(&all_options, options);
  if (kiln_elements_cpu_form(ctx))
    kiln_strbuf_appendf(&all_options, "%s-DKILN_DEVICE_IS_CPU", options[0] ? " " : "");
  atomic_fetch_add(&programs_built, 1);
  kiln_status status = kiln_strbuf_status(&all_options);
  if (status == KILN_OK && kiln_log_enabled(KILN_LOG_DEBUG))
    kiln_log(KILN_LOG_DEBUG, "compiling '%s' for %s (%s), options \"%s\", source:\n%s", entry,
             ctx->ops->name, ctx->info.name, kiln_strbuf_text(&all_options), source);
  kiln_disk_entry *pending = NULL;
  if (status == KILN_OK)
    status = module_get(ctx, full, kiln_strbuf_text(&all_options), &p->module, &log, &pending);
  atomic_store(&p->pending_store, pending);
  kiln_strbuf_free(&all_options);
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

/* The 1-D work-group size: 256 or the kernel's limit, a multiple of its
 * preferred multiple where that fits. */
static uint64_t group_size_1d(const kiln_program *program) {
  uint64_t size = program->max_work_group_size < 256 ? program->max_work_group_size : 256;
  uint64_t multiple = program->preferred_multiple;
  if (multiple > 0 && multiple <= size) size -= size % multiple;
  return size == 0 ? 1 : size;
}

void kiln_program_grid_1d(const kiln_context *ctx, const kiln_program *program, int64_t n,
                          uint64_t *global, uint64_t *local) {
  uint64_t size = group_size_1d(program);
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

/* KILN_LOG=debug: true the first time for a program (then its geometry is
 * printed), false after and whenever debug logging is off. */
static int geometry_log_first(const kiln_program *program) {
  if (!kiln_log_enabled(KILN_LOG_DEBUG)) return 0;
  /* the flag is the only mutable part of a cached program */
  return atomic_exchange(&((kiln_program *)program)->geometry_logged, 1) == 0;
}

/* One launch on the backend stream, logging the geometry once. */
static kiln_status launch_one(kiln_context *ctx, const kiln_program *program,
                              kiln_backend_stream *s, const kiln_backend_launch *launch,
                              int nargs, const kiln_backend_arg *args) {
  if (geometry_log_first(program))
    kiln_log(KILN_LOG_DEBUG, "launching '%s': work_dim %d, global {%llu, %llu, %llu}, "
             "local {%llu, %llu, %llu}", program->entry, launch->work_dim,
             (unsigned long long)launch->global[0], (unsigned long long)launch->global[1],
             (unsigned long long)launch->global[2], (unsigned long long)launch->local[0],
             (unsigned long long)launch->local[1], (unsigned long long)launch->local[2]);
  return ctx->ops->launch(ctx->device, s, program->function, launch, nargs, args);
}

/* After a call's launches of a program: a module waiting for its first
 * call to run before it is stored (ops->binary_after_launch) is stored now,
 * once per compiled program, and only when it was compiled, which cost far
 * more than this wait. A failed wait leaves it for program_destroy. */
static void after_launches(kiln_context *ctx, const kiln_program *program,
                           kiln_backend_stream *s) {
  if (atomic_load(&program->pending_store) &&
      ctx->ops->stream_synchronize(ctx->device, s) == KILN_OK)
    store_pending(ctx, program);
}

void kiln_program_elements_grid(kiln_context *ctx, const kiln_program *program, int64_t n,
                                kiln_elements_grid *grid) {
  memset(grid, 0, sizeof *grid);
  grid->n = n;
  if (n <= 0) return;
  grid->cpu_form = kiln_elements_cpu_form(ctx);
  if (!grid->cpu_form) {
    kiln_program_grid_1d(ctx, program, n, &grid->global, &grid->local);
    if (ctx->info.type == KILN_DEVICE_CPU) { /* KILN_ELEMENTS_GRID: one small group */
      uint64_t items = elements_grid_items();
      grid->local = grid->global = items < grid->local ? items : grid->local;
    }
    return;
  }
  /* CPU: exact cover, no item past n, so the kernel has no bound test */
  grid->local = group_size_1d(program);
  grid->whole = (uint64_t)n / grid->local * grid->local;
  grid->rest = (uint64_t)n - grid->whole;
  grid->chunk = (((uint64_t)1 << 31) - 1) / grid->local * grid->local;
}

kiln_status kiln_program_launch_grid(kiln_context *ctx, const kiln_program *program,
                                     kiln_stream *stream, const kiln_elements_grid *grid,
                                     int nargs, kiln_backend_arg *args, int base_arg) {
  if (grid->n <= 0) return KILN_OK;
  int64_t base = 0;
  args[base_arg] = (kiln_backend_arg){.kind = KILN_BACKEND_ARG_SCALAR, .value = &base,
                                      .size = sizeof base};
  kiln_backend_launch launch = {.work_dim = 1, .global = {1, 1, 1}, .local = {1, 1, 1}};
  int log = geometry_log_first(program);
  if (!grid->cpu_form) {
    launch.global[0] = grid->global;
    launch.local[0] = grid->local;
    if (log)
      kiln_log(KILN_LOG_DEBUG, "launching '%s' over %lld elements: grid-stride, global %llu, "
               "local %llu", program->entry, (long long)grid->n,
               (unsigned long long)launch.global[0], (unsigned long long)launch.local[0]);
    return kiln_program_launch(ctx, program, stream, &launch, nargs, args);
  }
  kiln_backend_stream *s = NULL;
  KILN_RETURN_IF_ERROR(kiln_stream_backend(ctx, stream, &s));
  if (log)
    kiln_log(KILN_LOG_DEBUG, "launching '%s' over %lld elements (CPU device): %llu in "
             "work-groups of %llu (launches of at most %llu), then %llu work-groups of 1",
             program->entry, (long long)grid->n, (unsigned long long)grid->whole,
             (unsigned long long)grid->local, (unsigned long long)grid->chunk,
             (unsigned long long)grid->rest);
  for (uint64_t done = 0; done < grid->whole; done += grid->chunk) {
    base = (int64_t)done;
    launch.global[0] = grid->whole - done < grid->chunk ? grid->whole - done : grid->chunk;
    launch.local[0] = grid->local;
    KILN_RETURN_IF_ERROR(launch_one(ctx, program, s, &launch, nargs, args));
  }
  if (grid->rest > 0) {
    base = (int64_t)grid->whole;
    launch.global[0] = grid->rest;
    launch.local[0] = 1;
    KILN_RETURN_IF_ERROR(launch_one(ctx, program, s, &launch, nargs, args));
  }
  /* after both geometries ran: a stored binary then has both work-group
   * functions (docs/performance.md, "Disk cache") */
  after_launches(ctx, program, s);
  return KILN_OK;
}

kiln_status kiln_program_launch_elements(kiln_context *ctx, const kiln_program *program,
                                         kiln_stream *stream, int64_t n, int nargs,
                                         kiln_backend_arg *args, int base_arg) {
  kiln_elements_grid grid;
  kiln_program_elements_grid(ctx, program, n, &grid);
  return kiln_program_launch_grid(ctx, program, stream, &grid, nargs, args, base_arg);
}

kiln_status kiln_program_launch(kiln_context *ctx, const kiln_program *program,
                                kiln_stream *stream, const kiln_backend_launch *launch,
                                int nargs, const kiln_backend_arg *args) {
  kiln_backend_stream *s = NULL;
  KILN_RETURN_IF_ERROR(kiln_stream_backend(ctx, stream, &s));
  kiln_status status = launch_one(ctx, program, s, launch, nargs, args);
  if (status == KILN_OK) after_launches(ctx, program, s);
  return status;
}
