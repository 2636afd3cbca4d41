/* tests/disk_cache_testing.h: what the tests of the on-disk kernel cache
 * share (test_cache.c: kiln's kernels; test_fft_vendor_cache.c: VkFFT's
 * programs): fresh directories, the entries of one (names and inodes: a
 * hit keeps both, a compile renames a new file in), an entry's validity,
 * and contexts on the harness's device with the cache in a given
 * directory. */
#ifndef KILN_TESTS_DISK_CACHE_TESTING_H
#define KILN_TESTS_DISK_CACHE_TESTING_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "core/kernel/kernel_disk_cache.h"
#include "core/runtime/sha256.h"
#include "harness.h"

#define MAX_ENTRIES 64

static kiln_device_info device;

/* ---- directories and files -------------------------------------------- */

static inline int remove_one(const char *path, const struct stat *st, int flag,
                             struct FTW *ftw) {
  (void)st;
  (void)flag;
  (void)ftw;
  return remove(path);
}

static inline void remove_tree(const char *dir) {
  nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* A fresh directory (caller frees and removes). */
static inline char *temp_dir(void) {
  const char *base = getenv("TMPDIR") && getenv("TMPDIR")[0] ? getenv("TMPDIR") : "/tmp";
  char *dir = malloc(strlen(base) + 32);
  sprintf(dir, "%s/kiln-cache-test-XXXXXX", base);
  if (!mkdtemp(dir)) {
    harness_fail(__FILE__, __LINE__, "mkdtemp: %s", strerror(errno));
    free(dir);
    return NULL;
  }
  return dir;
}

typedef struct entry_list {
  int count, temps;
  char names[MAX_ENTRIES][KILN_DISK_ENTRY_NAME_SIZE];
  ino_t inodes[MAX_ENTRIES];
  off_t sizes[MAX_ENTRIES];
} entry_list;

/* The *.kiln entries of dir, sorted by name, and the count of temp files. */
static inline void list_entries(const char *dir, entry_list *list) {
  memset(list, 0, sizeof *list);
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    size_t n = strlen(e->d_name);
    if (strncmp(e->d_name, ".tmp.", 5) == 0) list->temps++;
    if (n != 69 || strcmp(e->d_name + 64, ".kiln") != 0 || list->count == MAX_ENTRIES) continue;
    int i = list->count++;
    snprintf(list->names[i], sizeof list->names[i], "%s", e->d_name);
  }
  closedir(d);
  qsort(list->names, (size_t)list->count, sizeof list->names[0],
        (int (*)(const void *, const void *))strcmp);
  for (int i = 0; i < list->count; i++) {
    char path[4200];
    struct stat st;
    int length = snprintf(path, sizeof path, "%s/%s", dir, list->names[i]);
    if (length > 0 && (size_t)length < sizeof path && stat(path, &st) == 0) {
      list->inodes[i] = st.st_ino;
      list->sizes[i] = st.st_size;
    }
  }
}

static inline unsigned char *read_all(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *data = malloc((size_t)n + 1);
  *size = fread(data, 1, (size_t)n, f);
  fclose(f);
  return data;
}

static inline void write_all(const char *path, const void *data, size_t size) {
  FILE *f = fopen(path, "wb");
  CHECK(f != NULL);
  if (!f) return;
  CHECK(fwrite(data, 1, size, f) == size);
  fclose(f);
}

static inline uint64_t get_le(const unsigned char *p, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; i--) v = (v << 8) | p[i];
  return v;
}

static inline void put_le(unsigned char *p, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; i++) p[i] = (unsigned char)(v >> (8 * i));
}

/* Recomputes the checksum of an entry image (after a deliberate edit). */
static inline void reseal(unsigned char *file, size_t size) {
  kiln_sha256 h;
  kiln_sha256_init(&h);
  kiln_sha256_update(&h, file, 32);
  kiln_sha256_update(&h, file + 64, size - 64);
  kiln_sha256_final(&h, file + 32);
}

/* Whether path holds a well-formed entry whose name is the hash of its key. */
static inline int entry_valid(const char *dir, const char *name) {
  char path[4200];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  size_t size = 0;
  unsigned char *file = read_all(path, &size);
  if (!file) return 0;
  int ok = 0;
  if (size >= 64) {
    uint64_t key_length = get_le(file + 16, 8);
    const void *payload = NULL;
    size_t payload_size = 0;
    char hex[65];
    if (key_length <= size - 64 &&
        kiln_disk_cache_check(file, size, (const char *)file + 64, (size_t)key_length, &payload,
                              &payload_size) == KILN_OK) {
      kiln_sha256_hex(file + 64, (size_t)key_length, hex);
      ok = strncmp(hex, name, 64) == 0 && payload_size > 0;
    }
  }
  free(file);
  return ok;
}

/* ---- contexts and kernels ---------------------------------------------- */

/* A context on the device under test with its disk cache in dir. */
static inline kiln_context *open_context(const char *dir, int cache, uint64_t max_bytes) {
  kiln_context_options o;
  kiln_context_options_init(&o);
  o.backends = device.backend;
  o.device = device.index;
  o.cache_dir = dir;
  o.cache = cache;
  o.cache_max_bytes = max_bytes;
  kiln_context *ctx = NULL;
  kiln_status s = kiln_context_create(&o, &ctx);
  if (s != KILN_OK)
    harness_fail(__FILE__, __LINE__, "kiln_context_create: %s", kiln_last_error());
  return ctx;
}

static inline int same_entries(const entry_list *a, const entry_list *b) {
  if (a->count != b->count) return 0;
  for (int i = 0; i < a->count; i++)
    if (strcmp(a->names[i], b->names[i]) != 0 || a->inodes[i] != b->inodes[i]) return 0;
  return 1;
}

/* The tests' own contexts open the device of the harness's. */
static inline void record_device(kiln_context *ctx) {
  CHECK_OK(kiln_context_device_info(ctx, &device));
}

#endif
