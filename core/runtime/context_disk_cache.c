/* core/runtime/context_disk_cache.c: the disk-cache settings of a context,
 * from its options and the environment (docs/environment.md). As for
 * KILN_BACKEND, a field set in code wins over its variable, and a bad value
 * of either is an error naming it, never a silent default. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/runtime/context_internal.h"
#include "core/runtime/log.h"

#define DEFAULT_MAX_BYTES ((uint64_t)1 << 30)

static const char *env_text(const kiln_context_options *o, const char *name) {
  if (!o->use_environment) return NULL;
  const char *v = getenv(name);
  return v && v[0] ? v : NULL;
}

/* A positive byte count: decimal digits and an optional K, M, G or T suffix
 * (powers of 1024, case-insensitive, "KiB"/"KB"/"k" all accepted). */
static int parse_bytes(const char *text, uint64_t *out) {
  if (!isdigit((unsigned char)text[0])) return 0;
  errno = 0;
  char *end = NULL;
  unsigned long long value = strtoull(text, &end, 10);
  if (errno) return 0;
  int shift = 0;
  switch (tolower((unsigned char)*end)) {
    case 'k': shift = 10; break;
    case 'm': shift = 20; break;
    case 'g': shift = 30; break;
    case 't': shift = 40; break;
    default: break;
  }
  if (shift) {
    end++;
    if (tolower((unsigned char)end[0]) == 'i' && tolower((unsigned char)end[1]) == 'b') end += 2;
    else if (tolower((unsigned char)end[0]) == 'b') end++;
  }
  if (*end != '\0' || value == 0 || value > (UINT64_MAX >> shift)) return 0;
  *out = (uint64_t)value << shift;
  return 1;
}

/* Sets dir from the variables; empty when none names a directory. */
static kiln_status default_dir(const kiln_context_options *o, kiln_disk_cache_settings *s,
                               const char **origin) {
  const char *base = NULL, *tail = NULL;
  if ((base = env_text(o, "KILN_CACHE_DIR")) != NULL) {
    *origin = "KILN_CACHE_DIR";
    tail = "";
  } else if ((base = env_text(o, "XDG_CACHE_HOME")) != NULL && base[0] == '/') {
    /* the XDG spec: a relative XDG_CACHE_HOME is to be ignored */
    *origin = "XDG_CACHE_HOME";
    tail = "/kiln";
  } else if ((base = env_text(o, "HOME")) != NULL) {
    *origin = "HOME";
    tail = "/.cache/kiln";
  } else {
    s->dir[0] = '\0';
    return KILN_OK;
  }
  if (strlen(base) + strlen(tail) >= sizeof s->dir)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "%s is %zu characters long; the disk cache's directory must be "
                          "shorter than %zu",
                          *origin, strlen(base), sizeof s->dir - strlen(tail));
  strcpy(s->dir, base);
  strcat(s->dir, tail);
  return KILN_OK;
}

kiln_status kiln_disk_cache_settings_resolve(const kiln_context_options *o,
                                             kiln_disk_cache_settings *s) {
  memset(s, 0, sizeof *s);
  if (o->cache < -1 || o->cache > 1)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "options.cache = %d: use 1 (disk cache on), 0 (off) or -1 "
                          "(KILN_CACHE, else on)",
                          o->cache);
  s->enabled = o->cache;
  if (s->enabled == -1) {
    const char *text = env_text(o, "KILN_CACHE");
    s->enabled = 1;
    if (text && strcmp(text, "0") != 0 && strcmp(text, "1") != 0)
      return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                            "KILN_CACHE='%s': use 1 (disk cache of compiled kernels on) or 0 "
                            "(off)",
                            text);
    if (text) s->enabled = text[0] == '1';
  }

  s->max_bytes = o->cache_max_bytes;
  if (s->max_bytes == 0) {
    const char *text = env_text(o, "KILN_CACHE_MAX_BYTES");
    s->max_bytes = DEFAULT_MAX_BYTES;
    if (text && !parse_bytes(text, &s->max_bytes))
      return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                            "KILN_CACHE_MAX_BYTES='%s' is not a size in bytes (a positive "
                            "integer, optionally with K, M, G or T for KiB, MiB, GiB, TiB: "
                            "\"512M\")",
                            text);
  }

  const char *origin = "options.cache_dir";
  if (o->cache_dir) {
    if (!o->cache_dir[0])
      return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                            "options.cache_dir is empty: name a directory, or leave it NULL "
                            "for KILN_CACHE_DIR or the default");
    if (strlen(o->cache_dir) >= sizeof s->dir)
      return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                            "options.cache_dir is %zu characters long; it must be shorter "
                            "than %zu",
                            strlen(o->cache_dir), sizeof s->dir);
    strcpy(s->dir, o->cache_dir);
  } else {
    KILN_RETURN_IF_ERROR(default_dir(o, s, &origin));
  }
  if (s->enabled && !s->dir[0]) {
    s->enabled = 0;
    if (o->use_environment)
      kiln_log(KILN_LOG_WARN,
               "disk cache of compiled kernels off: none of KILN_CACHE_DIR, XDG_CACHE_HOME "
               "and HOME is set");
  }
  if (s->enabled)
    kiln_log(KILN_LOG_DEBUG, "disk cache of compiled kernels in %s (from %s), up to %llu bytes",
             s->dir, origin, (unsigned long long)s->max_bytes);
  return KILN_OK;
}
