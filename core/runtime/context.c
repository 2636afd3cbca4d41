/* core/runtime/context.c: choosing a backend and device, and the context's life.
 *
 * Selection reads the options struct first and the environment for fields
 * left unset. A backend that was asked for and cannot be used is an error
 * that says, per backend tried, what the backend reported (library paths,
 * vendor error names). Trying the next backend of a comma list is the
 * order of preference the user gave, not a silent fallback: it is logged
 * at KILN_LOG=info and every failure is in the final error if none works. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/runtime/context_internal.h"
#include "core/runtime/fault_injection.h"
#include "core/runtime/log.h"
#include "core/runtime/strbuf.h"
#include "core/runtime/stream_barrier.h"

#define DEFAULT_BACKENDS "cuda,hip,opencl"

void kiln_context_options_init(kiln_context_options *options) {
  if (!options) return;
  memset(options, 0, sizeof *options);
  options->backends = NULL;
  options->device = -1;
  options->platform_filter = NULL;
  options->use_environment = 1;
  options->memory_pool = -1;
  options->cache = -1;
}

/* The resolved settings, with where each came from for messages. */
typedef struct selection {
  const char *backends;
  const char *backends_origin; /* "KILN_BACKEND", "options.backends", "default" */
  int device;
  const char *platform_filter;
  int memory_pool;
  kiln_disk_cache_settings disk_cache;
} selection;

static const char *env_value(const kiln_context_options *o, const char *name) {
  if (!o->use_environment) return NULL;
  const char *v = getenv(name);
  return v && v[0] ? v : NULL;
}

int kiln_device_index_parse(const char *text, int *out) {
  if (!text || !isdigit((unsigned char)text[0])) return 0;
  errno = 0;
  char *end = NULL;
  long v = strtol(text, &end, 10);
  if (errno || *end != '\0' || v < 0 || v > 1000000) return 0;
  *out = (int)v;
  return 1;
}

static kiln_status selection_resolve(const kiln_context_options *o, selection *s) {
  memset(s, 0, sizeof *s);
  kiln_log_level level;
  if (o->use_environment) KILN_RETURN_IF_ERROR(kiln_log_level_from_env(&level));

  s->backends = o->backends;
  s->backends_origin = "options.backends";
  if (!s->backends && (s->backends = env_value(o, "KILN_BACKEND")) != NULL)
    s->backends_origin = "KILN_BACKEND";
  if (!s->backends) {
    s->backends = DEFAULT_BACKENDS;
    s->backends_origin = "default";
  }

  s->device = o->device;
  if (s->device < -1)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "options.device = %d is not a device index (use -1 for "
                          "KILN_DEVICE or the default 0)",
                          o->device);
  if (s->device == -1) {
    const char *text = env_value(o, "KILN_DEVICE");
    s->device = 0;
    if (text && !kiln_device_index_parse(text, &s->device))
      return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                            "KILN_DEVICE='%s' is not a device index (a non-negative "
                            "integer such as 0)",
                            text);
  }
  s->platform_filter = o->platform_filter;
  if (!s->platform_filter) s->platform_filter = env_value(o, "KILN_OPENCL_PLATFORM");
  if (o->memory_pool < -1 || o->memory_pool > 1)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "options.memory_pool = %d is not -1 (KILN_POOL), 0 (off) or 1 (on)",
                          o->memory_pool);
  s->memory_pool = o->memory_pool;
  if (s->memory_pool == -1) {
    const char *text = env_value(o, "KILN_POOL");
    s->memory_pool = 1;
    if (text && strcmp(text, "0") != 0 && strcmp(text, "1") != 0)
      return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                            "KILN_POOL='%s' is not 0 (memory pool off) or 1 (on)", text);
    if (text) s->memory_pool = text[0] == '1';
  }
  return kiln_disk_cache_settings_resolve(o, &s->disk_cache);
}

static void config_from(kiln_context *ctx, const char *filter) {
  ctx->config.platform_filter = NULL;
  if (filter) {
    strncpy(ctx->platform_filter, filter, sizeof ctx->platform_filter - 1);
    ctx->config.platform_filter = ctx->platform_filter;
  }
}

kiln_status kiln_backend_list_parse(const char *text, const char *origin,
                                    const kiln_backend_ops **list, int *count) {
  *count = 0;
  const char *p = text;
  for (;;) {
    while (*p == ' ') p++;
    size_t n = strcspn(p, ",");
    size_t trimmed = n;
    while (trimmed > 0 && p[trimmed - 1] == ' ') trimmed--;
    char name[32] = {0};
    const kiln_backend_ops *ops = NULL;
    if (trimmed > 0 && trimmed < sizeof name) {
      memcpy(name, p, trimmed);
      ops = kiln_registry_find(name);
    }
    if (!ops)
      return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                            "%s='%s': unknown backend '%.*s'; valid backends: %s (a "
                            "comma list is an order of preference)",
                            origin, text, (int)trimmed, p, kiln_registry_names());
    int duplicate = 0;
    for (int i = 0; i < *count; i++) duplicate |= list[i] == ops;
    if (!duplicate && *count < kiln_registry_count()) list[(*count)++] = ops;
    if (p[n] != ',') break;
    p += n + 1;
  }
  return KILN_OK;
}

kiln_status kiln_context_on_destroy(kiln_context *ctx, kiln_context_teardown fn) {
  for (int i = 0; i < ctx->nteardowns; i++)
    if (ctx->teardowns[i] == fn) return KILN_OK;
  if (ctx->nteardowns == KILN_CONTEXT_MAX_TEARDOWNS)
    return kiln_error_set(KILN_ERROR_INTERNAL, "context teardown table is full");
  ctx->teardowns[ctx->nteardowns++] = fn;
  return KILN_OK;
}

kiln_status kiln_context_state(kiln_context *ctx, _Atomic(void *) *slot,
                               void *(*make)(kiln_context *ctx), kiln_context_teardown teardown,
                               void **out) {
  void *state = atomic_load_explicit(slot, memory_order_acquire);
  kiln_status status = KILN_OK;
  if (!state) {
    pthread_mutex_lock(&ctx->lock);
    state = atomic_load(slot);
    if (!state) status = kiln_context_on_destroy(ctx, teardown);
    if (!state && status == KILN_OK) {
      state = make(ctx);
      if (state) atomic_store_explicit(slot, state, memory_order_release);
      else status = kiln_error_set(KILN_ERROR_OUT_OF_MEMORY, "out of host memory");
    }
    pthread_mutex_unlock(&ctx->lock);
  }
  *out = state;
  return status;
}

static void context_free(kiln_context *ctx) {
  for (int i = ctx->nteardowns - 1; i >= 0; i--) ctx->teardowns[i](ctx);
  if (ctx->device) ctx->ops->device_close(ctx->device);
  pthread_mutex_destroy(&ctx->lock);
  free(ctx);
}

/* Opens device s->device of `ops`; on failure the detail is set. */
static kiln_status context_open(const kiln_backend_ops *ops, const selection *s,
                                kiln_context **out) {
  kiln_context *ctx = calloc(1, sizeof *ctx);
  if (!ctx) return kiln_error_set(KILN_ERROR_OUT_OF_MEMORY, "out of host memory");
  atomic_init(&ctx->refcount, 1);
#ifdef KILN_FAULT_INJECTION
  ops = kiln_fault_wrap_ops(ops); /* test builds: backend calls can be made to fail */
#endif
  ctx->ops = ops;
  ctx->pool_enabled = s->memory_pool;
  ctx->disk_cache = s->disk_cache;
  config_from(ctx, s->platform_filter);
  pthread_mutex_init(&ctx->lock, NULL);

  int count = 0;
  kiln_status status = ops->probe(&ctx->config, &count);
  if (status == KILN_OK && s->device >= count)
    status = kiln_error_set(KILN_ERROR_NOT_FOUND,
                            "device %d does not exist (KILN_DEVICE / options.device); "
                            "%s has %d device%s here",
                            s->device, ops->name, count, count == 1 ? "" : "s");
  if (status == KILN_OK) status = ops->device_info(&ctx->config, s->device, &ctx->info);
  if (status == KILN_OK) status = ops->device_open(&ctx->config, s->device, &ctx->device);
  if (status != KILN_OK) {
    context_free(ctx);
    return status;
  }
  *out = ctx;
  return KILN_OK;
}

kiln_status kiln_context_create(const kiln_context_options *options, kiln_context **out) {
  KILN_CHECK_ARG(out);
  *out = NULL;
  kiln_context_options defaults;
  if (!options) {
    kiln_context_options_init(&defaults);
    options = &defaults;
  }
  selection s = {0};
  KILN_RETURN_IF_ERROR(selection_resolve(options, &s));
  const kiln_backend_ops *list[8];
  int count = 0;
  KILN_RETURN_IF_ERROR(kiln_backend_list_parse(s.backends, s.backends_origin, list, &count));

  kiln_strbuf reasons = {0};
  kiln_status worst = KILN_ERROR_UNAVAILABLE;
  for (int i = 0; i < count; i++) {
    kiln_status status = context_open(list[i], &s, out);
    if (status == KILN_OK) {
      kiln_log(KILN_LOG_INFO, "using %s device %d: %s", list[i]->name, s.device,
               (*out)->info.name);
      kiln_strbuf_free(&reasons);
      return KILN_OK;
    }
    if (status != KILN_ERROR_UNAVAILABLE) worst = status;
    kiln_log(KILN_LOG_INFO, "backend %s not usable: %s", list[i]->name, kiln_last_error());
    /* backends start their messages with their name; say it once */
    const char *why = kiln_last_error();
    size_t n = strlen(list[i]->name);
    if (strncmp(why, list[i]->name, n) == 0 && why[n] == ':') why += n + 1;
    while (*why == ' ') why++;
    kiln_strbuf_appendf(&reasons, "\n- %s: %s", list[i]->name, why);
  }
  /* A device index past the end, or a vendor failure while opening, is more
   * telling than "unavailable"; report it as such. */
  kiln_status status = kiln_error_set(worst, "no usable backend for %s='%s':%s",
                                      s.backends_origin, s.backends,
                                      kiln_strbuf_text(&reasons));
  kiln_strbuf_free(&reasons);
  return status;
}

kiln_context *kiln_context_retain(kiln_context *ctx) {
  if (ctx) atomic_fetch_add(&ctx->refcount, 1);
  return ctx;
}

void kiln_context_release(kiln_context *ctx) {
  if (ctx && atomic_fetch_sub(&ctx->refcount, 1) == 1) context_free(ctx);
}

kiln_status kiln_context_device_info(const kiln_context *ctx, kiln_device_info *info) {
  KILN_CHECK_ARG(ctx);
  KILN_CHECK_ARG(info);
  *info = ctx->info;
  return KILN_OK;
}

kiln_status kiln_context_synchronize(kiln_context *ctx) {
  KILN_CHECK_ARG(ctx);
  KILN_RETURN_IF_ERROR(kiln_stream_barrier(ctx, NULL)); /* recorded work first */
  return ctx->ops->stream_synchronize(ctx->device, NULL);
}

/* ---- discovery ------------------------------------------------------------ */

static kiln_status discovery_config(const char *name, const kiln_context_options *options,
                                    const kiln_backend_ops **ops, kiln_backend_config *config) {
  KILN_CHECK_ARG(name);
  *ops = kiln_registry_find(name);
  if (!*ops)
    return kiln_error_set(KILN_ERROR_NOT_FOUND, "unknown backend '%s'; valid backends: %s",
                          name, kiln_registry_names());
  kiln_context_options defaults;
  if (!options) {
    kiln_context_options_init(&defaults);
    options = &defaults;
  }
  config->platform_filter = options->platform_filter;
  if (!config->platform_filter)
    config->platform_filter = env_value(options, "KILN_OPENCL_PLATFORM");
  return KILN_OK;
}

kiln_status kiln_backend_device_count(const char *name, const kiln_context_options *options,
                                      int *count) {
  KILN_CHECK_ARG(count);
  *count = 0;
  const kiln_backend_ops *ops;
  kiln_backend_config config;
  KILN_RETURN_IF_ERROR(discovery_config(name, options, &ops, &config));
  return ops->probe(&config, count);
}

kiln_status kiln_backend_device_info(const char *name, const kiln_context_options *options,
                                     int index, kiln_device_info *info) {
  KILN_CHECK_ARG(info);
  const kiln_backend_ops *ops;
  kiln_backend_config config;
  KILN_RETURN_IF_ERROR(discovery_config(name, options, &ops, &config));
  int count = 0;
  KILN_RETURN_IF_ERROR(ops->probe(&config, &count));
  if (index < 0 || index >= count)
    return kiln_error_set(KILN_ERROR_NOT_FOUND, "%s has no device %d (%d device%s)", name,
                          index, count, count == 1 ? "" : "s");
  return ops->device_info(&config, index, info);
}
