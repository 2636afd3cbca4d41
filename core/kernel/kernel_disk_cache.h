/* core/kernel/kernel_disk_cache.h: compiled programs kept on disk, shared by
 * processes (internal; design in docs/architecture.md, "Disk cache").
 *
 * kernel_cache.c asks here on a miss of the context's in-memory cache,
 * before compiling, and stores what it compiled. Every kernel kiln compiles
 * goes through that one place (raw kernels, ufuncs, every generated kind).
 *
 * An entry is one file, <dir>/<sha256 of the key, 64 hex digits>.kiln:
 *
 *   offset  0: "KILNDSK\n"        magic
 *   offset  8: uint32 format      KILN_DISK_CACHE_FORMAT (little-endian)
 *   offset 12: uint32 header size KILN_DISK_CACHE_HEADER_SIZE
 *   offset 16: uint64 key length
 *   offset 24: uint64 payload length
 *   offset 32: SHA-256 of bytes [0, 32), the key and the payload
 *   offset 64: the key (text, kiln_disk_cache_key), then the payload (the
 *              backend's module_binary, itself in the backend's checked
 *              envelope)
 *
 * A file that is short, long, foreign, of another format, damaged or of
 * another key is never handed to a driver: it is reported under KILN_LOG
 * and replaced by the fresh compile. Neither is an entry that is a symbolic
 * link, not a regular file, not owned by the effective user, or writable by
 * group or others, nor anything in a directory not owned by the user or
 * writable by group or others (nothing is stored there either): a binary is
 * code the process runs. kiln makes directories 0700 and entries 0600.
 * Files are written to a temporary name
 * in the same directory and renamed, so a reader sees a whole entry or
 * none. Nothing here fails a kiln call: a disk that cannot be read or
 * written costs the compile and a warning, nothing more. */
#ifndef KILN_CORE_KERNEL_DISK_CACHE_H
#define KILN_CORE_KERNEL_DISK_CACHE_H

#include "core/kernel/kernel_internal.h"

#define KILN_DISK_CACHE_FORMAT 1u
#define KILN_DISK_CACHE_HEADER_SIZE 64u
#define KILN_DISK_CACHE_MAGIC "KILNDSK\n"
#define KILN_DISK_ENTRY_NAME_SIZE (64 + 6) /* 64 hex digits, ".kiln", NUL */

/* What decides the binary, besides nothing: each field goes into the key. */
typedef struct kiln_disk_key_parts {
  const char *kiln_version; /* "0.1.0" */
  const char *backend;      /* ops->name */
  const char *device;       /* kiln_device_info: name, architecture, driver */
  const char *architecture;
  const char *driver;
  const char *fingerprint; /* ops->device_fingerprint, or "" */
  const char *options;     /* the user's compiler options, "" for none */
  const char *source;      /* composed source: preludes and the kernel */
} kiln_disk_key_parts;

/* Appends the key of parts to *key: each field as "name length:value\n", so
 * no two different sets of fields give the same text. */
void kiln_disk_cache_key(kiln_strbuf *key, const kiln_disk_key_parts *parts);

/* One entry being looked up or stored. */
typedef struct kiln_disk_entry {
  kiln_strbuf key;
  kiln_strbuf path;          /* <dir>/<hex>.kiln */
  char name[KILN_DISK_ENTRY_NAME_SIZE]; /* <hex>.kiln */
} kiln_disk_entry;

/* Prepares *entry for the composed `source` and `options` on ctx. Returns 0
 * (entry empty, nothing to free) when the disk cache is off or the key
 * cannot be made (logged), else 1; free with kiln_disk_entry_free. */
int kiln_disk_entry_init(kiln_context *ctx, const char *source, const char *options,
                         kiln_disk_entry *entry);
void kiln_disk_entry_free(kiln_disk_entry *entry);

/* The module of a valid entry file, loaded by the backend, and the file
 * marked as used now (its modification time, for the LRU eviction); NULL
 * when there is none or it is refused (reason logged). */
kiln_backend_module *kiln_disk_cache_load(kiln_context *ctx, const kiln_disk_entry *entry);

/* Writes module's binary as the entry (replacing any file there), then
 * removes the least recently used entries past the size limit. Failures
 * are logged (the first of a context at KILN_LOG=warn), never returned. */
void kiln_disk_cache_store(kiln_context *ctx, const kiln_disk_entry *entry,
                           kiln_backend_module *module);

/* Fills *cache with ctx's disk cache as backend.h's program cache, for a
 * vendor library that compiles kernels while it plans (VkFFT through the
 * OpenCL backend): each key is looked up and stored as a composed source
 * (options KILN_DISK_LIBRARY_OPTIONS), so the entries follow every rule
 * above. With the cache off, load finds nothing and store keeps nothing. */
#define KILN_DISK_LIBRARY_OPTIONS "(a library's own program)"
void kiln_disk_program_cache(kiln_context *ctx, kiln_backend_program_cache *cache);

/* The header of an entry file holding `key` and `binary` (magic, format,
 * sizes, checksum); the file is the header, the key, then the binary. */
void kiln_disk_cache_header(unsigned char header[KILN_DISK_CACHE_HEADER_SIZE], const char *key,
                            size_t key_length, const void *binary, size_t binary_size);

/* Checks file[0..size) against the format and `key`, and points *payload
 * into it. KILN_OK, or INVALID_ARGUMENT saying what is wrong. */
kiln_status kiln_disk_cache_check(const void *file, size_t size, const char *key,
                                  size_t key_length, const void **payload,
                                  size_t *payload_size);

#endif
