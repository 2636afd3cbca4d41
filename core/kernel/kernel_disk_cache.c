/* core/kernel/kernel_disk_cache.c: compiled programs on disk (format and
 * rules in kernel_disk_cache.h). POSIX file calls only; every failure is
 * logged and turns into "compile as if there were no cache". */
#include "core/kernel/kernel_disk_cache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "core/runtime/log.h"
#include "core/runtime/sha256.h"

#define SUFFIX ".kiln"
#define TEMP_PREFIX ".tmp."
/* a temporary file this old was left by a process that died mid-write */
#define STALE_TEMP_SECONDS 3600

static void put_le(unsigned char *p, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; i++) p[i] = (unsigned char)(value >> (8 * i));
}

static uint64_t get_le(const unsigned char *p, int bytes) {
  uint64_t value = 0;
  for (int i = bytes - 1; i >= 0; i--) value = (value << 8) | p[i];
  return value;
}

static void append_field(kiln_strbuf *key, const char *name, const char *value) {
  if (!value) value = "";
  kiln_strbuf_appendf(key, "%s %zu:", name, strlen(value));
  kiln_strbuf_append(key, value);
  kiln_strbuf_append(key, "\n");
}

void kiln_disk_cache_key(kiln_strbuf *key, const kiln_disk_key_parts *parts) {
  kiln_strbuf_appendf(key, "kiln disk cache key %u\n", KILN_DISK_CACHE_FORMAT);
  append_field(key, "kiln", parts->kiln_version);
  append_field(key, "backend", parts->backend);
  append_field(key, "device", parts->device);
  append_field(key, "architecture", parts->architecture);
  append_field(key, "driver", parts->driver);
  append_field(key, "fingerprint", parts->fingerprint);
  append_field(key, "options", parts->options);
  append_field(key, "source", parts->source);
}

int kiln_disk_entry_init(kiln_context *ctx, const char *source, const char *options,
                         kiln_disk_entry *entry) {
  memset(entry, 0, sizeof *entry);
  if (!ctx->disk_cache.enabled || !ctx->ops->module_binary || !ctx->ops->module_load_binary)
    return 0;
  char fingerprint[1024] = "";
  if (ctx->ops->device_fingerprint &&
      ctx->ops->device_fingerprint(ctx->device, fingerprint, sizeof fingerprint) != KILN_OK) {
    kiln_log(KILN_LOG_WARN, "disk cache not used for this kernel: %s", kiln_last_error());
    return 0;
  }
  char version[32];
  snprintf(version, sizeof version, "%d.%d.%d", KILN_VERSION_MAJOR, KILN_VERSION_MINOR,
           KILN_VERSION_PATCH);
  kiln_disk_key_parts parts = {version,
                               ctx->ops->name,
                               ctx->info.name,
                               ctx->info.architecture,
                               ctx->info.driver_version,
                               fingerprint,
                               options,
                               source};
  kiln_disk_cache_key(&entry->key, &parts);
  char hex[2 * KILN_SHA256_SIZE + 1];
  kiln_sha256_hex(kiln_strbuf_text(&entry->key), entry->key.length, hex);
  snprintf(entry->name, sizeof entry->name, "%s" SUFFIX, hex);
  kiln_strbuf_appendf(&entry->path, "%s/%s", ctx->disk_cache.dir, entry->name);
  if (kiln_strbuf_status(&entry->key) != KILN_OK || kiln_strbuf_status(&entry->path) != KILN_OK) {
    kiln_log(KILN_LOG_WARN, "disk cache not used for this kernel: out of host memory");
    kiln_disk_entry_free(entry);
    return 0;
  }
  return 1;
}

void kiln_disk_entry_free(kiln_disk_entry *entry) {
  kiln_strbuf_free(&entry->key);
  kiln_strbuf_free(&entry->path);
}

/* SHA-256 of the header's first 32 bytes, the key and the payload. */
static void entry_checksum(const unsigned char *header, const void *key, size_t key_length,
                           const void *payload, size_t payload_size,
                           unsigned char digest[KILN_SHA256_SIZE]) {
  kiln_sha256 h;
  kiln_sha256_init(&h);
  kiln_sha256_update(&h, header, 32);
  kiln_sha256_update(&h, key, key_length);
  kiln_sha256_update(&h, payload, payload_size);
  kiln_sha256_final(&h, digest);
}

void kiln_disk_cache_header(unsigned char header[KILN_DISK_CACHE_HEADER_SIZE], const char *key,
                            size_t key_length, const void *binary, size_t binary_size) {
  memset(header, 0, KILN_DISK_CACHE_HEADER_SIZE);
  memcpy(header, KILN_DISK_CACHE_MAGIC, 8);
  put_le(header + 8, KILN_DISK_CACHE_FORMAT, 4);
  put_le(header + 12, KILN_DISK_CACHE_HEADER_SIZE, 4);
  put_le(header + 16, key_length, 8);
  put_le(header + 24, binary_size, 8);
  entry_checksum(header, key, key_length, binary, binary_size, header + 32);
}

static kiln_status refuse(const char *why) {
  return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "%s", why);
}

kiln_status kiln_disk_cache_check(const void *file, size_t size, const char *key,
                                  size_t key_length, const void **payload,
                                  size_t *payload_size) {
  const unsigned char *in = file;
  *payload = NULL;
  *payload_size = 0;
  if (size < 8 || memcmp(in, KILN_DISK_CACHE_MAGIC, 8) != 0)
    return refuse(size < 8 ? "shorter than the magic: not a kiln cache entry"
                           : "no \"KILNDSK\" magic: not a kiln cache entry");
  if (size < KILN_DISK_CACHE_HEADER_SIZE)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "truncated: %zu bytes, shorter than the %u-byte header", size,
                          KILN_DISK_CACHE_HEADER_SIZE);
  uint64_t format = get_le(in + 8, 4), header_size = get_le(in + 12, 4);
  if (format != KILN_DISK_CACHE_FORMAT || header_size != KILN_DISK_CACHE_HEADER_SIZE)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "format %llu with a %llu-byte header; this kiln reads format %u",
                          (unsigned long long)format, (unsigned long long)header_size,
                          KILN_DISK_CACHE_FORMAT);
  uint64_t stored_key = get_le(in + 16, 8), stored_payload = get_le(in + 24, 8);
  size_t body = size - KILN_DISK_CACHE_HEADER_SIZE;
  if (stored_key > body || stored_payload != body - stored_key)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "truncated or padded: the header announces %llu + %llu bytes, %zu "
                          "follow",
                          (unsigned long long)stored_key, (unsigned long long)stored_payload,
                          body);
  const unsigned char *stored = in + KILN_DISK_CACHE_HEADER_SIZE;
  unsigned char digest[KILN_SHA256_SIZE];
  entry_checksum(in, stored, (size_t)stored_key, stored + stored_key, (size_t)stored_payload,
                 digest);
  if (memcmp(digest, in + 32, KILN_SHA256_SIZE) != 0)
    return refuse("damaged: its checksum does not match");
  if (stored_key != key_length || memcmp(stored, key, key_length) != 0)
    return refuse("built from another key (another source, options, device, driver or "
                  "kiln version)");
  if (stored_payload == 0) return refuse("no binary in it");
  *payload = stored + stored_key;
  *payload_size = (size_t)stored_payload;
  return KILN_OK;
}

/* The whole file of fd (closed here) into a malloc'd buffer; NULL with
 * errno (EFBIG past limit) on failure. */
static unsigned char *read_file(int fd, uint64_t limit, size_t *size) {
  unsigned char *data = NULL;
  struct stat st;
  int error = 0;
  if (fstat(fd, &st) != 0) {
    error = errno;
  } else if ((uint64_t)st.st_size > limit || (uint64_t)st.st_size > SIZE_MAX - 1) {
    error = EFBIG;
  } else if (!(data = malloc((size_t)st.st_size + 1))) {
    error = ENOMEM;
  } else {
    size_t done = 0, want = (size_t)st.st_size;
    while (done < want) {
      ssize_t n = read(fd, data + done, want - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break; /* shorter than fstat said: the checks will see it */
      done += (size_t)n;
    }
    *size = done;
  }
  close(fd);
  if (error) {
    free(data);
    errno = error;
    return NULL;
  }
  return data;
}

/* Reports a refused or unusable cache: the context's first at warn, later
 * ones at debug (a refused directory would otherwise warn per kernel). */
KILN_PRINTF(2, 3)
static void warn_once(kiln_context *ctx, const char *format, ...) {
  int first = atomic_exchange(&ctx->disk_cache_warned, 1) == 0;
  char line[512];
  va_list args;
  va_start(args, format);
  vsnprintf(line, sizeof line, format, args);
  va_end(args);
  kiln_log(first ? KILN_LOG_WARN : KILN_LOG_DEBUG, "disk cache: %s%s", line,
           first ? " (further messages at KILN_LOG=debug)" : "");
}

/* Why a file or directory of the cache is not to be trusted, or NULL: only
 * what the current user owns and nobody else may write can hold code this
 * process will run (on PoCL a cached binary is native code). */
static const char *untrusted(const struct stat *st) {
  if (st->st_uid != geteuid()) return "owned by another user";
  if (st->st_mode & (S_IWGRP | S_IWOTH)) return "writable by group or others";
  return NULL;
}

/* Opens the cache directory (which may be reached through a symbolic link)
 * for *at calls; -1 with the reason logged when it is missing (create 0:
 * at debug), not a directory, or untrusted. */
static int open_directory(kiln_context *ctx, int create) {
  const char *dir = ctx->disk_cache.dir;
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT && !create)
      kiln_log(KILN_LOG_DEBUG, "disk cache: no directory %s yet", dir);
    else
      warn_once(ctx, "cannot open the directory %s (%s); kernels are compiled", dir,
                strerror(errno));
    return -1;
  }
  struct stat st;
  const char *why = fstat(fd, &st) != 0 ? strerror(errno) : untrusted(&st);
  if (why) {
    warn_once(ctx, "directory %s refused: %s (kiln makes it 0700; fix or remove it); "
              "kernels are compiled and not stored", dir, why);
    close(fd);
    return -1;
  }
  return fd;
}

kiln_backend_module *kiln_disk_cache_load(kiln_context *ctx, const kiln_disk_entry *entry) {
  const char *path = kiln_strbuf_text(&entry->path);
  int dir = open_directory(ctx, 0);
  if (dir < 0) return NULL;
  size_t size = 0;
  unsigned char *file = NULL;
  /* O_NOFOLLOW: a symbolic link could point at anybody's file */
  int fd = openat(dir, entry->name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  struct stat st;
  const char *why = NULL;
  if (fd < 0) {
    why = errno == ELOOP ? "a symbolic link" : NULL;
  } else if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    why = "not a regular file";
  } else {
    why = untrusted(&st);
  }
  if (fd >= 0 && !why) {
    file = read_file(fd, ctx->disk_cache.max_bytes, &size);
  } else if (fd >= 0) {
    close(fd);
  }
  if (why) {
    kiln_log(KILN_LOG_WARN, "disk cache: %s refused, %s; compiling and replacing it", path, why);
    close(dir);
    return NULL;
  }
  if (!file) {
    if (errno == ENOENT)
      kiln_log(KILN_LOG_DEBUG, "disk cache: no %s", entry->name);
    else
      kiln_log(KILN_LOG_WARN, "disk cache: cannot read %s (%s); compiling", path,
               strerror(errno));
    close(dir);
    return NULL;
  }
  const void *payload = NULL;
  size_t payload_size = 0;
  kiln_backend_module *module = NULL;
  if (kiln_disk_cache_check(file, size, kiln_strbuf_text(&entry->key), entry->key.length,
                            &payload, &payload_size) != KILN_OK)
    kiln_log(KILN_LOG_WARN, "disk cache: %s refused, %s; compiling and replacing it", path,
             kiln_last_error());
  else if (ctx->ops->module_load_binary(ctx->device, payload, payload_size, &module) != KILN_OK)
    kiln_log(KILN_LOG_WARN, "disk cache: the %s driver refused %s: %s; compiling and "
             "replacing it", ctx->ops->name, path, kiln_last_error());
  free(file);
  /* mark it used for the least-recently-used eviction */
  if (module && utimensat(dir, entry->name, NULL, AT_SYMLINK_NOFOLLOW) != 0)
    kiln_log(KILN_LOG_DEBUG, "disk cache: cannot mark %s used: %s", path, strerror(errno));
  close(dir);
  if (!module) return NULL;
  kiln_log(KILN_LOG_DEBUG, "disk cache: loaded %s (%zu bytes)", entry->name, size);
  return module;
}

/* Reports a failed write: the context's first at warn, later ones at debug. */
static void write_failed(kiln_context *ctx, const char *what, const char *path, int error) {
  int first = atomic_exchange(&ctx->disk_cache_warned, 1) == 0;
  kiln_log(first ? KILN_LOG_WARN : KILN_LOG_DEBUG,
           "disk cache: cannot %s %s (%s); kernels are compiled and kept in memory only%s",
           what, path, strerror(error), first ? " (further failures at KILN_LOG=debug)" : "");
}

/* mkdir -p, each new directory 0700 (the cache holds code: nobody else
 * may write it, and its kernels are nobody else's business); 0 or -1 with
 * errno. */
static int make_directories(const char *dir) {
  size_t length = strlen(dir);
  char *path = malloc(length + 1);
  if (!path) {
    errno = ENOMEM;
    return -1;
  }
  memcpy(path, dir, length + 1);
  int result = 0;
  for (size_t i = 1; i <= length && result == 0; i++) {
    if (path[i] != '/' && path[i] != '\0') continue;
    char saved = path[i];
    path[i] = '\0';
    if (mkdir(path, 0700) != 0 && errno != EEXIST) result = -1;
    path[i] = saved;
  }
  int error = errno;
  free(path);
  struct stat st;
  if (result == 0 && (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))) {
    error = errno ? errno : ENOTDIR;
    result = -1;
  }
  errno = error;
  return result;
}

static int write_all(int fd, const void *data, size_t size) {
  const unsigned char *p = data;
  while (size > 0) {
    ssize_t n = write(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return -1;
    if (n == 0) {
      errno = ENOSPC;
      return -1;
    }
    p += n;
    size -= (size_t)n;
  }
  return 0;
}

typedef struct cached_file {
  char name[KILN_DISK_ENTRY_NAME_SIZE];
  uint64_t bytes;
  struct timespec used;
} cached_file;

static int older_first(const void *a, const void *b) {
  const cached_file *x = a, *y = b;
  if (x->used.tv_sec != y->used.tv_sec) return x->used.tv_sec < y->used.tv_sec ? -1 : 1;
  if (x->used.tv_nsec != y->used.tv_nsec) return x->used.tv_nsec < y->used.tv_nsec ? -1 : 1;
  return strcmp(x->name, y->name);
}

static int is_entry_name(const char *name) {
  size_t length = strlen(name);
  if (length != 64 + strlen(SUFFIX) || strcmp(name + 64, SUFFIX) != 0) return 0;
  for (int i = 0; i < 64; i++)
    if (!((name[i] >= '0' && name[i] <= '9') || (name[i] >= 'a' && name[i] <= 'f'))) return 0;
  return 1;
}

/* Removes the least recently used entries until the directory holds at
 * most max_bytes of them, and temporary files left by dead writers. Other
 * processes may evict at the same time: a file gone already is fine. */
static void evict(kiln_context *ctx, int dir_fd) {
  int own_fd = dup(dir_fd);
  DIR *dir = own_fd < 0 ? NULL : fdopendir(own_fd);
  if (!dir) {
    if (own_fd >= 0) close(own_fd);
    return;
  }
  cached_file *files = NULL;
  size_t count = 0, capacity = 0;
  uint64_t total = 0;
  time_t now = time(NULL);
  struct dirent *d;
  while ((d = readdir(dir)) != NULL) {
    struct stat st;
    int is_temp = strncmp(d->d_name, TEMP_PREFIX, strlen(TEMP_PREFIX)) == 0;
    if (!is_temp && !is_entry_name(d->d_name)) continue;
    if (fstatat(dirfd(dir), d->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
      continue;
    if (is_temp) {
      if (now - st.st_mtime > STALE_TEMP_SECONDS) unlinkat(dirfd(dir), d->d_name, 0);
      continue;
    }
    if (count == capacity) {
      size_t grown = capacity ? 2 * capacity : 64;
      cached_file *bigger = realloc(files, grown * sizeof *files);
      if (!bigger) break;
      files = bigger;
      capacity = grown;
    }
    snprintf(files[count].name, sizeof files[count].name, "%s", d->d_name);
    files[count].bytes = (uint64_t)st.st_size;
    files[count].used = st.st_mtim;
    total += (uint64_t)st.st_size;
    count++;
  }
  if (total > ctx->disk_cache.max_bytes) {
    qsort(files, count, sizeof *files, older_first);
    for (size_t i = 0; i < count && total > ctx->disk_cache.max_bytes; i++) {
      if (unlinkat(dirfd(dir), files[i].name, 0) == 0 || errno == ENOENT) {
        total -= files[i].bytes;
        kiln_log(KILN_LOG_DEBUG, "disk cache: evicted %s (%llu bytes)", files[i].name,
                 (unsigned long long)files[i].bytes);
      }
    }
  }
  free(files);
  closedir(dir);
}

/* Writes entry file `name` (key and binary) through a temporary file and a
 * rename, then evicts past the limit. */
static void write_entry(kiln_context *ctx, const char *name, const char *key, size_t key_length,
                       const void *binary, size_t binary_size) {
  static atomic_uint sequence;
  uint64_t total = (uint64_t)KILN_DISK_CACHE_HEADER_SIZE + key_length + binary_size;
  if (binary_size == 0 || total > ctx->disk_cache.max_bytes) {
    kiln_log(KILN_LOG_DEBUG, "disk cache: %s not kept: %llu bytes, the limit is %llu", name,
             (unsigned long long)total, (unsigned long long)ctx->disk_cache.max_bytes);
    return;
  }
  unsigned char header[KILN_DISK_CACHE_HEADER_SIZE];
  kiln_disk_cache_header(header, key, key_length, binary, binary_size);

  const char *dir = ctx->disk_cache.dir;
  if (make_directories(dir) != 0) {
    write_failed(ctx, "create the directory", dir, errno);
    return;
  }
  int dir_fd = open_directory(ctx, 1);
  if (dir_fd < 0) return;
  char temp[KILN_DISK_ENTRY_NAME_SIZE + 64];
  snprintf(temp, sizeof temp, TEMP_PREFIX "%.16s.%ld.%u", name, (long)getpid(),
           atomic_fetch_add(&sequence, 1));
  kiln_strbuf path = {0};
  kiln_strbuf_appendf(&path, "%s/%s", dir, name);
  if (kiln_strbuf_status(&path) != KILN_OK) goto cleanup;
  /* 0600: only this user reads or writes what this process will load */
  int fd = openat(dir_fd, temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) {
    write_failed(ctx, "write in", dir, errno);
    goto cleanup;
  }
  int failed = write_all(fd, header, sizeof header) != 0 || write_all(fd, key, key_length) != 0 ||
               write_all(fd, binary, binary_size) != 0;
  int error = errno;
  if (close(fd) != 0 && !failed) {
    failed = 1;
    error = errno;
  }
  /* atomic: readers see the old entry, no entry, or this whole one (a
   * refused symbolic link or foreign file of that name is replaced, not
   * followed) */
  if (!failed && renameat(dir_fd, temp, dir_fd, name) != 0) {
    failed = 2;
    error = errno;
  }
  if (failed) {
    unlinkat(dir_fd, temp, 0);
    write_failed(ctx, failed == 2 ? "rename into" : "write",
                 failed == 2 ? kiln_strbuf_text(&path) : temp, error);
    goto cleanup;
  }
  kiln_log(KILN_LOG_DEBUG, "disk cache: stored %s (%llu bytes)", name,
           (unsigned long long)total);
  evict(ctx, dir_fd);
cleanup:
  close(dir_fd);
  kiln_strbuf_free(&path);
}

void kiln_disk_cache_store(kiln_context *ctx, const kiln_disk_entry *entry,
                           kiln_backend_module *module) {
  void *binary = NULL;
  size_t size = 0;
  if (ctx->ops->module_binary(ctx->device, module, &binary, &size) != KILN_OK) {
    kiln_log(KILN_LOG_WARN, "disk cache: the %s backend gives no binary to keep: %s",
             ctx->ops->name, kiln_last_error());
    return;
  }
  write_entry(ctx, entry->name, kiln_strbuf_text(&entry->key), entry->key.length, binary, size);
  free(binary);
}

/* ---- the cache lent to vendor libraries (backend.h) ------------------- */

static kiln_backend_module *program_load(void *owner, const char *key) {
  kiln_context *ctx = owner;
  kiln_disk_entry entry;
  if (!kiln_disk_entry_init(ctx, key, KILN_DISK_LIBRARY_OPTIONS, &entry)) return NULL;
  kiln_backend_module *module = kiln_disk_cache_load(ctx, &entry);
  kiln_disk_entry_free(&entry);
  return module;
}

static void program_store(void *owner, const char *key, kiln_backend_module *module) {
  kiln_context *ctx = owner;
  kiln_disk_entry entry;
  if (!kiln_disk_entry_init(ctx, key, KILN_DISK_LIBRARY_OPTIONS, &entry)) return;
  kiln_disk_cache_store(ctx, &entry, module);
  kiln_disk_entry_free(&entry);
}

void kiln_disk_program_cache(kiln_context *ctx, kiln_backend_program_cache *cache) {
  cache->owner = ctx;
  cache->load = program_load;
  cache->store = program_store;
}
