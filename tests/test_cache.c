/* Conformance: the on-disk kernel cache (core/kernel/kernel_disk_cache.h,
 * docs/environment.md). Every test uses its own temporary directory, named
 * through the options, never the user's cache. A hit is seen from outside:
 * the entry file keeps its inode (a compile would rename a new file over
 * it) and no file is added; every kernel's values are checked against a
 * host reference on random inputs. */
#include <signal.h>
#include <sys/wait.h>

#include "disk_cache_testing.h"

/* Compiles `entry` of source (with options), runs it on the n floats of
 * host (n, x, out arguments) and copies the result into back. */
static kiln_status launch_cache_kernel(kiln_context *ctx, const char *source, const char *entry,
                                       const char *options, int64_t n, const float *host,
                                       float *back) {
  kiln_kernel *kernel = NULL;
  kiln_array *x = NULL, *out = NULL;
  kiln_status s = kiln_kernel_create(ctx, source, entry, options, &kernel);
  if (s == KILN_OK) s = kiln_array_from_host(ctx, KILN_FLOAT32, 1, &n, NULL, host, &x);
  if (s == KILN_OK) s = kiln_array_empty(ctx, KILN_FLOAT32, 1, &n, &out);
  if (s == KILN_OK) {
    kiln_arg args[3] = {kiln_arg_int64(n), kiln_arg_array(x), kiln_arg_array(out)};
    s = kiln_kernel_launch(kernel, 1, &n, NULL, 3, args, NULL);
  }
  if (s == KILN_OK) s = kiln_array_to_host(out, back, NULL);
  kiln_array_release(out);
  kiln_array_release(x);
  kiln_kernel_release(kernel);
  return s;
}

/* Compiles entry of cache.kl (with `variant` appended as a comment, and
 * -DSCALE=scale unless 0), runs it on n random floats and checks the
 * values; 1 when all is right. */
static int run_kernel(kiln_context *ctx, const char *entry, int variant, int scale, int64_t n) {
  char *base = harness_load_kernel("cache.kl");
  if (!base || !ctx) return 0;
  char *source = malloc(strlen(base) + 64), options[32] = "";
  sprintf(source, "%s\n/* variant %d */\n", base, variant);
  if (scale) snprintf(options, sizeof options, "-DSCALE=%d", scale);
  float *host = malloc((size_t)n * sizeof *host + 1), *back = malloc((size_t)n * sizeof *back + 1);
  harness_fill_random(host, KILN_FLOAT32, n, -4.0, 4.0);
  int ok = 0;
  kiln_status s = launch_cache_kernel(ctx, source, entry, scale ? options : NULL, n, host, back);
  if (s != KILN_OK) {
    harness_fail(__FILE__, __LINE__, "%s variant %d: %s", entry, variant, kiln_last_error());
  } else {
    double factor = (strcmp(entry, "cache_scale_twice") == 0 ? 2.0 : 1.0) * (scale ? scale : 3);
    int bad = 0;
    for (int64_t i = 0; i < n; i++) {
      double want = (strcmp(entry, "cache_scale_twice") == 0 ? 2.0 : 1.0) * (double)(i % 7) +
                    factor * host[i];
      if (fabs(back[i] - want) > 1e-5 * (1.0 + fabs(want))) bad++;
    }
    CHECK_MSG(bad == 0, "%s variant %d: %d of %lld values wrong", entry, variant, bad,
              (long long)n);
    ok = bad == 0;
  }
  free(host);
  free(back);
  free(source);
  free(base);
  return ok;
}

/* A user ufunc (a generated kernel): y = a * x + b, checked on n randoms. */
static int run_ufunc(kiln_context *ctx, int64_t n) {
  const char *signature = "float32(float32 x, float32 a, float32 b)";
  kiln_ufunc *ufunc = NULL;
  kiln_array *x = NULL, *y = NULL;
  float *host = malloc((size_t)n * sizeof *host + 1), *back = malloc((size_t)n * sizeof *back + 1);
  harness_fill_random(host, KILN_FLOAT32, n, -2.0, 2.0);
  kiln_status s = kiln_ufunc_create(ctx, "cache_affine", 1, &signature, "return a * x + b;", NULL,
                                    &ufunc);
  if (s == KILN_OK) s = kiln_array_from_host(ctx, KILN_FLOAT32, 1, &n, NULL, host, &x);
  if (s == KILN_OK) {
    kiln_operand in[3] = {kiln_operand_array(x), kiln_operand_float(1.5), kiln_operand_float(-0.25)};
    kiln_operand out[1] = {kiln_operand_new(&y)};
    s = kiln_ufunc_call(ufunc, 3, in, 1, out, NULL);
  }
  if (s == KILN_OK) s = kiln_array_to_host(y, back, NULL);
  int bad = s != KILN_OK;
  if (s != KILN_OK) harness_fail(__FILE__, __LINE__, "ufunc: %s", kiln_last_error());
  for (int64_t i = 0; s == KILN_OK && i < n; i++) {
    double want = 1.5 * host[i] - 0.25;
    if (fabs(back[i] - want) > 1e-5 * (1.0 + fabs(want))) bad++;
  }
  CHECK_MSG(bad == 0, "ufunc: %d values wrong", bad);
  kiln_array_release(y);
  kiln_array_release(x);
  kiln_ufunc_release(ufunc);
  free(host);
  free(back);
  return bad == 0;
}


/* ---- tests --------------------------------------------------------------- */


static void test_hit_and_miss(kiln_context *harness_ctx) {
  record_device(harness_ctx);
  char *dir = temp_dir();
  if (!dir) return;
  entry_list first, again, more;
  kiln_context *ctx = open_context(dir, 1, 0);
  CHECK(run_kernel(ctx, "cache_scale", 1, 0, 4099));
  list_entries(dir, &first);
  CHECK_MSG(first.count >= 1, "no entry after a compile (%d)", first.count);
  CHECK(run_ufunc(ctx, 1031));
  list_entries(dir, &more);
  CHECK_MSG(more.count == first.count + 1, "the ufunc added %d entries", more.count - first.count);
  kiln_context_release(ctx);
  list_entries(dir, &first);
  for (int i = 0; i < first.count; i++) CHECK(entry_valid(dir, first.names[i]));
  CHECK(first.temps == 0);

  /* an old mtime, to see the hit mark the entry used */
  struct timespec old[2] = {{1000000, 0}, {1000000, 0}};
  for (int i = 0; i < first.count; i++) {
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, first.names[i]);
    CHECK(utimensat(AT_FDCWD, path, old, 0) == 0);
  }
  /* a new process-like start: a new context finds every entry */
  ctx = open_context(dir, 1, 0);
  CHECK(run_kernel(ctx, "cache_scale", 1, 0, 1));
  CHECK(run_kernel(ctx, "cache_scale", 1, 0, 4099));
  CHECK(run_ufunc(ctx, 7));
  list_entries(dir, &again);
  CHECK_MSG(same_entries(&first, &again), "a hit rewrote or added entries (%d -> %d)",
            first.count, again.count);
  int touched = 0;
  for (int i = 0; i < again.count; i++) {
    char path[4200];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, again.names[i]);
    touched += stat(path, &st) == 0 && st.st_mtime > 1000000;
  }
  CHECK_MSG(touched == again.count, "%d of %d entries marked used", touched, again.count);
  /* a miss: another source adds one entry */
  CHECK(run_kernel(ctx, "cache_scale", 2, 0, 997));
  list_entries(dir, &more);
  CHECK(more.count == again.count + 1);
  kiln_context_release(ctx);
  remove_tree(dir);
  free(dir);
}

/* When the entry is written: right after the compile on GPU backends; on
 * CPU devices of a backend whose binaries gain code at the first launch
 * (PoCL), after the first call's launches have run, or at the context's
 * release for a kernel never launched. Either way a new context then loads
 * it and runs it right. */
static void test_store_after_first_launch(kiln_context *harness_ctx) {
  record_device(harness_ctx);
  char *dir = temp_dir();
  if (!dir) return;
  /* the source run_kernel makes for variant 0 */
  char *base = harness_load_kernel("cache.kl");
  char *source = base ? malloc(strlen(base) + 64) : NULL;
  if (source) sprintf(source, "%s\n/* variant %d */\n", base, 0);
  kiln_context *ctx = open_context(dir, 1, 0);
  kiln_kernel *kernel = NULL;
  entry_list before, after, again;
  int deferred = strcmp(device.backend, "opencl") == 0 && device.type == KILN_DEVICE_CPU;
  if (ctx && source) CHECK_OK(kiln_kernel_create(ctx, source, "cache_scale", NULL, &kernel));
  list_entries(dir, &before);
  CHECK_MSG(before.count == (deferred ? 0 : 1), "%d entries after a compile, %s expected",
            before.count, deferred ? "none (stored after the first launch)" : "one");
  kiln_kernel_release(kernel);
  kiln_context_release(ctx);
  list_entries(dir, &after);
  CHECK_MSG(after.count == 1, "%d entries after the context's release, one expected",
            after.count);
  for (int i = 0; i < after.count; i++) CHECK(entry_valid(dir, after.names[i]));
  /* a launch in a new context: a hit, nothing rewritten */
  ctx = open_context(dir, 1, 0);
  CHECK(run_kernel(ctx, "cache_scale", 0, 0, 4099));
  list_entries(dir, &again);
  CHECK(same_entries(&after, &again));
  /* another kernel, launched: stored by the end of the launching call */
  CHECK(run_kernel(ctx, "cache_scale", 5, 0, 1031));
  list_entries(dir, &again);
  CHECK_MSG(again.count == 2, "%d entries after a second kernel's first launch", again.count);
  kiln_context_release(ctx);
  free(source);
  free(base);
  remove_tree(dir);
  free(dir);
}

static void test_key_changes(kiln_context *harness_ctx) {
  record_device(harness_ctx);
  char *dir = temp_dir();
  if (!dir) return;
  entry_list a, b;
  kiln_context *ctx = open_context(dir, 1, 0);
  CHECK(run_kernel(ctx, "cache_scale", 10, 0, 101));
  list_entries(dir, &a);
  /* another entry point of the same program shares the entry */
  CHECK(run_kernel(ctx, "cache_scale_twice", 10, 0, 101));
  list_entries(dir, &b);
  CHECK_MSG(same_entries(&a, &b), "same source and options made a second entry");
  /* options are part of the key, and change the values */
  CHECK(run_kernel(ctx, "cache_scale", 10, 5, 101));
  list_entries(dir, &b);
  CHECK(b.count == a.count + 1);
  CHECK(run_kernel(ctx, "cache_scale", 10, 6, 101));
  list_entries(dir, &a);
  CHECK(a.count == b.count + 1);
  /* so is the source */
  CHECK(run_kernel(ctx, "cache_scale", 11, 6, 101));
  list_entries(dir, &b);
  CHECK(b.count == a.count + 1);
  kiln_context_release(ctx);

  /* every field of the key changes it (the device's fingerprint, driver,
   * architecture, kiln's version ...) */
  kiln_disk_key_parts base = {"0.1.0", "opencl", "dev", "arch", "drv", "fp", "-DX", "src"};
  kiln_disk_key_parts parts[9];
  for (int i = 0; i < 9; i++) parts[i] = base;
  parts[1].kiln_version = "0.1.1";
  parts[2].backend = "cuda";
  parts[3].device = "dev2";
  parts[4].architecture = "arch2";
  parts[5].driver = "drv2";
  parts[6].fingerprint = "fp2";
  parts[7].options = "-DY";
  parts[8].source = "src2";
  char hex[9][65];
  for (int i = 0; i < 9; i++) {
    kiln_strbuf key = {0};
    kiln_disk_cache_key(&key, &parts[i]);
    kiln_sha256_hex(kiln_strbuf_text(&key), key.length, hex[i]);
    kiln_strbuf_free(&key);
  }
  for (int i = 0; i < 9; i++)
    for (int j = i + 1; j < 9; j++) CHECK_MSG(strcmp(hex[i], hex[j]) != 0, "keys %d and %d", i, j);
  /* fields cannot run into each other */
  kiln_disk_key_parts x = base, y = base;
  x.options = "-DX\nsource 3:src";
  y.options = "-DX";
  y.source = "src\nsource 3:src";
  kiln_strbuf kx = {0}, ky = {0};
  kiln_disk_cache_key(&kx, &x);
  kiln_disk_cache_key(&ky, &y);
  CHECK(strcmp(kiln_strbuf_text(&kx), kiln_strbuf_text(&ky)) != 0);
  kiln_strbuf_free(&kx);
  kiln_strbuf_free(&ky);

  /* an entry at the right name whose key names another device (another
   * fingerprint): refused, recompiled, replaced */
  list_entries(dir, &a);
  char path[4200];
  snprintf(path, sizeof path, "%s/%s", dir, a.names[0]);
  size_t size = 0;
  unsigned char *file = read_all(path, &size);
  unsigned char *at = file ? (unsigned char *)strstr((char *)file + 64, "\nfingerprint ") : NULL;
  CHECK(at != NULL);
  if (at) {
    at = (unsigned char *)strchr((char *)at + 13, ':') + 1;
    at[0] ^= 1; /* one character of the fingerprint */
    reseal(file, size);
    write_all(path, file, size);
    ctx = open_context(dir, 1, 0);
    static const int variants[4][2] = {{10, 0}, {10, 5}, {10, 6}, {11, 6}};
    for (int i = 0; i < 4; i++) CHECK(run_kernel(ctx, "cache_scale", variants[i][0], variants[i][1], 37));
    kiln_context_release(ctx);
    list_entries(dir, &b);
    CHECK(b.count == a.count);
    for (int i = 0; i < b.count; i++) {
      CHECK(entry_valid(dir, b.names[i]));
      CHECK_MSG((b.inodes[i] != a.inodes[i]) == (i == 0), "entry %d replaced: %d", i,
                b.inodes[i] != a.inodes[i]);
    }
  }
  free(file);
  remove_tree(dir);
  free(dir);
}

typedef enum damage {
  TRUNCATED, FLIPPED_PAYLOAD, FLIPPED_HEADER, FLIPPED_CHECKSUM, FLIPPED_KEY, FOREIGN, EMPTY,
  WRONG_VERSION, PADDED, A_DIRECTORY, DAMAGE_COUNT
} damage;

static const char *damage_names[DAMAGE_COUNT] = {
    "truncated", "flipped payload byte", "flipped header byte", "flipped checksum byte",
    "flipped key byte", "foreign file", "zero-length", "wrong version (checksum fixed)",
    "padded", "a directory"};

static void apply_damage(const char *path, damage kind) {
  size_t size = 0;
  unsigned char *file = read_all(path, &size);
  CHECK(file != NULL && size > 128);
  if (!file) return;
  switch (kind) {
    case TRUNCATED: write_all(path, file, size / 2); break;
    case FLIPPED_PAYLOAD: file[size - 1 - harness_rand_u64() % 16] ^= 0x40; write_all(path, file, size); break;
    case FLIPPED_HEADER: file[24] ^= 0x01; write_all(path, file, size); break; /* payload length */
    case FLIPPED_CHECKSUM: file[40] ^= 0x80; write_all(path, file, size); break;
    case FLIPPED_KEY: file[64 + 30] ^= 0x02; write_all(path, file, size); break;
    case FOREIGN:
      for (size_t i = 0; i < size; i++) file[i] = (unsigned char)harness_rand_u64();
      write_all(path, file, size);
      break;
    case EMPTY: write_all(path, file, 0); break;
    case WRONG_VERSION:
      put_le(file + 8, 2, 4);
      reseal(file, size);
      write_all(path, file, size);
      break;
    case PADDED: {
      unsigned char *longer = calloc(size + 100, 1);
      memcpy(longer, file, size);
      write_all(path, longer, size + 100);
      free(longer);
      break;
    }
    case A_DIRECTORY:
      CHECK(unlink(path) == 0);
      CHECK(mkdir(path, 0755) == 0);
      break;
    default: break;
  }
  free(file);
}

static void test_corruption(kiln_context *harness_ctx) {
  record_device(harness_ctx);
  for (int kind = 0; kind < DAMAGE_COUNT; kind++) {
    char *dir = temp_dir();
    if (!dir) return;
    harness_current = damage_names[kind];
    entry_list good, after;
    kiln_context *ctx = open_context(dir, 1, 0);
    CHECK(run_kernel(ctx, "cache_scale", 20 + kind, 0, 257));
    kiln_context_release(ctx);
    list_entries(dir, &good);
    CHECK(good.count == 1);
    if (good.count < 1) {
      remove_tree(dir);
      free(dir);
      continue;
    }
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, good.names[0]);
    apply_damage(path, (damage)kind);
    /* the damaged entry is never loaded: the values stay right, and the
     * entry is rewritten whole (except where a directory stands in its way) */
    ctx = open_context(dir, 1, 0);
    CHECK(run_kernel(ctx, "cache_scale", 20 + kind, 0, 257));
    CHECK(run_kernel(ctx, "cache_scale_twice", 20 + kind, 0, 2));
    kiln_context_release(ctx);
    list_entries(dir, &after);
    if (kind == A_DIRECTORY) {
      struct stat st;
      CHECK(stat(path, &st) == 0 && S_ISDIR(st.st_mode));
    } else {
      CHECK(after.count == 1 && entry_valid(dir, good.names[0]));
      /* and the replacement is a hit next time */
      ctx = open_context(dir, 1, 0);
      CHECK(run_kernel(ctx, "cache_scale", 20 + kind, 0, 31));
      kiln_context_release(ctx);
      entry_list hit;
      list_entries(dir, &hit);
      CHECK(same_entries(&after, &hit));
    }
    CHECK(after.temps == 0);
    remove_tree(dir);
    free(dir);
  }
  harness_current = "corruption";
}

/* Runs `children` copies of this program at once, each compiling the same
 * new kernels into dir; returns how many failed. */
static int run_children(const char *dir, int round, int children) {
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return children;
  self[n] = '\0';
  char round_text[16], index_text[16];
  snprintf(round_text, sizeof round_text, "%d", round);
  snprintf(index_text, sizeof index_text, "%d", device.index);
  pid_t pids[16];
  for (int c = 0; c < children; c++) {
    fflush(NULL);
    pids[c] = fork();
    if (pids[c] == 0) {
      execl(self, self, "--child", dir, round_text, device.backend, index_text, (char *)NULL);
      _exit(127);
    }
  }
  int failed = 0, unavailable = 0;
  for (int c = 0; c < children; c++) {
    int status = 0;
    if (pids[c] < 0 || waitpid(pids[c], &status, 0) != pids[c] || !WIFEXITED(status))
      failed++;
    else if (WEXITSTATUS(status) == HARNESS_SKIP)
      unavailable++;
    else if (WEXITSTATUS(status) != 0)
      failed++;
  }
  /* every child found the device unavailable: say so (the caller skips) */
  return unavailable == children ? -1 : failed + unavailable;
}

/* A child of test_concurrent_processes: compiles two kernels and a ufunc,
 * twice (the second time in a new context, reading what the others may be
 * rewriting at that moment). */
static int child_main(char **argv) {
  harness_current = "concurrent_processes (child)";
  snprintf(device.backend, sizeof device.backend, "%s", argv[4]);
  device.index = atoi(argv[5]);
  int round = atoi(argv[3]);
  for (int pass = 0; pass < 2; pass++) {
    kiln_context_options o;
    kiln_context_options_init(&o);
    o.backends = device.backend;
    o.device = device.index;
    kiln_context *probe = NULL;
    if (pass == 0 && kiln_context_create(&o, &probe) == KILN_ERROR_UNAVAILABLE) {
      /* the device the parent holds is not offered to a new process */
      fprintf(stderr, "child: %s\n", kiln_last_error());
      return HARNESS_SKIP;
    }
    kiln_context_release(probe);
    kiln_context *ctx = open_context(argv[2], 1, 0);
    if (!ctx) return 1;
    run_kernel(ctx, "cache_scale", 100 + round, 0, 1009);
    run_kernel(ctx, "cache_scale", 100 + round, 4, 13);
    run_ufunc(ctx, 101);
    kiln_context_release(ctx);
  }
  return harness_failures ? 1 : 0;
}

static void test_concurrent_processes(kiln_context *harness_ctx) {
  record_device(harness_ctx);
  char *dir = temp_dir();
  if (!dir) return;
  /* every round brings new kernels, so each has several writers of the
   * same entries at once, and readers of entries being replaced */
  for (int round = 0; round < 4; round++) {
    int failed = run_children(dir, round, 4);
    if (failed < 0) {
      harness_skip("child processes cannot open %s device %d here (their message is above); "
                   "concurrent writers are tested on the other backends",
                   device.backend, device.index);
      break;
    }
    CHECK_MSG(failed == 0, "round %d: %d of 4 processes failed", round, failed);
    entry_list list;
    list_entries(dir, &list);
    CHECK_MSG(list.count == 2 * (round + 1) + 1, "round %d: %d entries", round, list.count);
    CHECK(list.temps == 0);
    for (int i = 0; i < list.count; i++) CHECK(entry_valid(dir, list.names[i]));
  }
  remove_tree(dir);
  free(dir);
}

static void test_unwritable_directory(kiln_context *harness_ctx) {
  record_device(harness_ctx);
  char *dir = temp_dir();
  if (!dir) return;
  /* a path through a regular file cannot be created, by root either */
  char blocked[4200];
  snprintf(blocked, sizeof blocked, "%s/file", dir);
  write_all(blocked, "x", 1);
  strcat(blocked, "/cache");
  kiln_context *ctx = open_context(blocked, 1, 0);
  CHECK(run_kernel(ctx, "cache_scale", 30, 0, 4099));
  CHECK(run_kernel(ctx, "cache_scale", 31, 0, 3));
  kiln_context_release(ctx);
  /* a directory without write permission (root writes anyway: then the
   * entry is simply stored) */
  char readonly[4200];
  snprintf(readonly, sizeof readonly, "%s/readonly", dir);
  CHECK(mkdir(readonly, 0500) == 0);
  ctx = open_context(readonly, 1, 0);
  CHECK(run_kernel(ctx, "cache_scale", 32, 0, 4099));
  kiln_context_release(ctx);
  entry_list list;
  list_entries(readonly, &list);
  CHECK(list.temps == 0);
  if (geteuid() != 0) CHECK(list.count == 0);
  chmod(readonly, 0700);
  remove_tree(dir);
  free(dir);
}

static void test_cache_off(kiln_context *harness_ctx) {
  record_device(harness_ctx);
  char *dir = temp_dir();
  if (!dir) return;
  entry_list list;
  kiln_context *ctx = open_context(dir, 0, 0);
  CHECK(run_kernel(ctx, "cache_scale", 40, 0, 211));
  kiln_context_release(ctx);
  list_entries(dir, &list);
  CHECK(list.count == 0);
  /* KILN_CACHE=0 when the option is left to the environment */
  setenv("KILN_CACHE", "0", 1);
  ctx = open_context(dir, -1, 0);
  CHECK(run_kernel(ctx, "cache_scale", 41, 0, 211));
  kiln_context_release(ctx);
  list_entries(dir, &list);
  CHECK(list.count == 0);
  /* the option wins over the variable */
  ctx = open_context(dir, 1, 0);
  CHECK(run_kernel(ctx, "cache_scale", 42, 0, 211));
  kiln_context_release(ctx);
  list_entries(dir, &list);
  CHECK(list.count == 1);
  unsetenv("KILN_CACHE");
  remove_tree(dir);
  free(dir);
}

/* Creates a context as configured, expecting status and a message part. */
static void expect_create(const kiln_context_options *o, kiln_status status, const char *needle) {
  kiln_context *ctx = NULL;
  CHECK_STATUS(kiln_context_create(o, &ctx), status);
  if (needle) CHECK_ERROR_CONTAINS(needle);
  kiln_context_release(ctx);
}

/* Compiles variant on a context made from o; dir must then hold `entries`. */
static void compile_into(const kiln_context_options *o, int variant, const char *dir,
                         int entries) {
  kiln_context *ctx = NULL;
  CHECK_OK(kiln_context_create(o, &ctx));
  CHECK(run_kernel(ctx, "cache_scale", variant, 0, 17));
  kiln_context_release(ctx);
  entry_list list;
  list_entries(dir, &list);
  CHECK_MSG(list.count == entries, "variant %d: %d entries in %s", variant, list.count, dir);
}

static void test_settings(kiln_context *harness_ctx) {
  record_device(harness_ctx);
  char *dir = temp_dir();
  if (!dir) return;
  kiln_context_options o;
  kiln_context_options_init(&o);
  CHECK(o.cache == -1 && o.cache_dir == NULL && o.cache_max_bytes == 0);
  o.backends = device.backend;
  o.device = device.index;
  const char *saved_dir = getenv("KILN_CACHE_DIR");
  char *saved = saved_dir ? strdup(saved_dir) : NULL;

  static const char *bad_switch[] = {"yes", "2", "on", " 1"};
  for (int i = 0; i < 4; i++) {
    setenv("KILN_CACHE", bad_switch[i], 1);
    expect_create(&o, KILN_ERROR_INVALID_ARGUMENT, "KILN_CACHE=");
  }
  unsetenv("KILN_CACHE");
  static const char *bad_sizes[] = {"0", "-5", "12Q", "1.5G", "K", "99999999999999999999",
                                    "20000000T"};
  for (int i = 0; i < 7; i++) {
    setenv("KILN_CACHE_MAX_BYTES", bad_sizes[i], 1);
    expect_create(&o, KILN_ERROR_INVALID_ARGUMENT, "KILN_CACHE_MAX_BYTES");
  }
  static const char *good_sizes[] = {"1", "4096", "64k", "512M", "2GiB", "1T"};
  for (int i = 0; i < 6; i++) {
    setenv("KILN_CACHE_MAX_BYTES", good_sizes[i], 1);
    expect_create(&o, KILN_OK, NULL);
  }
  unsetenv("KILN_CACHE_MAX_BYTES");
  o.cache = 2;
  expect_create(&o, KILN_ERROR_INVALID_ARGUMENT, "options.cache");
  o.cache = 1;
  o.cache_dir = "";
  expect_create(&o, KILN_ERROR_INVALID_ARGUMENT, "options.cache_dir");
  o.cache_dir = NULL;
  /* use_environment = 0: a bad variable is not read */
  setenv("KILN_CACHE", "yes", 1);
  o.use_environment = 0;
  expect_create(&o, KILN_OK, NULL);
  unsetenv("KILN_CACHE");

  /* where the entries go: KILN_CACHE_DIR, else XDG_CACHE_HOME/kiln, else
   * HOME/.cache/kiln; use_environment = 0 and no cache_dir: nowhere */
  const char *saved_home = getenv("HOME"), *saved_xdg = getenv("XDG_CACHE_HOME");
  char *home = saved_home ? strdup(saved_home) : NULL, *xdg = saved_xdg ? strdup(saved_xdg) : NULL;
  char sub[4200];
  o.cache = -1;
  o.use_environment = 1;
  snprintf(sub, sizeof sub, "%s/by-variable", dir);
  setenv("KILN_CACHE_DIR", sub, 1);
  compile_into(&o, 50, sub, 1);
  unsetenv("KILN_CACHE_DIR");
  setenv("XDG_CACHE_HOME", dir, 1);
  snprintf(sub, sizeof sub, "%s/kiln", dir);
  compile_into(&o, 51, sub, 1);
  unsetenv("XDG_CACHE_HOME");
  setenv("HOME", dir, 1);
  snprintf(sub, sizeof sub, "%s/.cache/kiln", dir);
  compile_into(&o, 52, sub, 1);
  o.use_environment = 0;
  compile_into(&o, 53, sub, 1); /* nothing added */
  unsetenv("HOME"); /* and no directory at all: off, with a warning */
  o.use_environment = 1;
  compile_into(&o, 54, sub, 1);

  if (home) setenv("HOME", home, 1);
  if (xdg) setenv("XDG_CACHE_HOME", xdg, 1);
  if (saved) setenv("KILN_CACHE_DIR", saved, 1);
  free(home);
  free(xdg);
  free(saved);
  remove_tree(dir);
  free(dir);
}

static void set_mtime(const char *dir, const char *name, time_t when) {
  char path[4200];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  struct timespec t[2] = {{when, 0}, {when, 0}};
  CHECK(utimensat(AT_FDCWD, path, t, 0) == 0);
}

static int has_entry(const entry_list *list, const char *name) {
  for (int i = 0; i < list->count; i++)
    if (strcmp(list->names[i], name) == 0) return 1;
  return 0;
}

static void test_eviction(kiln_context *harness_ctx) {
  record_device(harness_ctx);
  char *dir = temp_dir();
  if (!dir) return;
  entry_list list;
  char a[KILN_DISK_ENTRY_NAME_SIZE], b[KILN_DISK_ENTRY_NAME_SIZE];
  kiln_context *ctx = open_context(dir, 1, 0);
  CHECK(run_kernel(ctx, "cache_scale", 60, 0, 50));
  list_entries(dir, &list);
  if (list.count != 1) {
    CHECK(list.count == 1);
    kiln_context_release(ctx);
    remove_tree(dir);
    free(dir);
    return;
  }
  snprintf(a, sizeof a, "%s", list.names[0]);
  CHECK(run_kernel(ctx, "cache_scale", 61, 0, 50));
  list_entries(dir, &list);
  CHECK(list.count == 2);
  snprintf(b, sizeof b, "%s", strcmp(list.names[0], a) == 0 ? list.names[1] : list.names[0]);
  off_t biggest = list.sizes[0] > list.sizes[1] ? list.sizes[0] : list.sizes[1];
  kiln_context_release(ctx);
  /* b used more recently than a; then a hit makes a the most recent */
  set_mtime(dir, a, 1000000);
  set_mtime(dir, b, 2000000);
  /* temporary files: one left by a dead writer, one being written */
  char stale[4200], fresh[4200];
  snprintf(stale, sizeof stale, "%s/.tmp.0123456789abcdef.1.1", dir);
  snprintf(fresh, sizeof fresh, "%s/.tmp.0123456789abcdef.1.2", dir);
  write_all(stale, "partial", 7);
  write_all(fresh, "partial", 7);
  struct timespec hours_ago[2] = {{time(NULL) - 7200, 0}, {time(NULL) - 7200, 0}};
  CHECK(utimensat(AT_FDCWD, stale, hours_ago, 0) == 0);

  uint64_t limit = (uint64_t)biggest * 5 / 2 + 64; /* two entries fit, not three */
  ctx = open_context(dir, 1, limit);
  CHECK(run_kernel(ctx, "cache_scale", 60, 0, 50)); /* hit: a is now the newest */
  CHECK(run_kernel(ctx, "cache_scale", 62, 0, 50)); /* c: b, the oldest, goes */
  list_entries(dir, &list);
  CHECK_MSG(list.count == 2, "%d entries under a limit for 2", list.count);
  CHECK(has_entry(&list, a));
  CHECK(!has_entry(&list, b));
  uint64_t total = 0;
  for (int i = 0; i < list.count; i++) total += (uint64_t)list.sizes[i];
  CHECK(total <= limit);
  CHECK(access(stale, F_OK) != 0 && access(fresh, F_OK) == 0);
  kiln_context_release(ctx);
  unlink(fresh);
  /* an entry larger than the whole limit is not kept at all */
  remove_tree(dir);
  ctx = open_context(dir, 1, 100);
  CHECK(run_kernel(ctx, "cache_scale", 63, 0, 50));
  kiln_context_release(ctx);
  list_entries(dir, &list);
  CHECK(list.count == 0 && list.temps == 0);
  remove_tree(dir);
  free(dir);
}

/* ---- trust: only the user's own, unwritable-by-others files are loaded -- */

/* The factor cache_scale (source variant `variant`, no options) applies on
 * this context: 3 when compiled from source, 5 when a planted binary built
 * with -DSCALE=5 was loaded; 0 on failure. */
static int observed_scale(kiln_context *ctx, int variant) {
  char *base = harness_load_kernel("cache.kl");
  if (!base || !ctx) return 0;
  char *source = malloc(strlen(base) + 64);
  sprintf(source, "%s\n/* variant %d */\n", base, variant);
  int64_t n = 97;
  float host[97], back[97];
  harness_fill_random(host, KILN_FLOAT32, n, 1.0, 4.0);
  kiln_status s = launch_cache_kernel(ctx, source, "cache_scale", NULL, n, host, back);
  int scale = 0;
  if (s != KILN_OK) harness_fail(__FILE__, __LINE__, "cache_scale: %s", kiln_last_error());
  for (int factor = 3; s == KILN_OK && factor <= 5 && !scale; factor += 2) {
    int bad = 0;
    for (int64_t i = 0; i < n; i++)
      bad += fabs(back[i] - (factor * host[i] + (float)(i % 7))) > 1e-5 * (1.0 + factor * 4);
    if (!bad) scale = factor;
  }
  free(source);
  free(base);
  return scale;
}

/* The one entry of dir (its name into name), or 0. */
static int only_entry(const char *dir, char name[KILN_DISK_ENTRY_NAME_SIZE]) {
  entry_list list;
  list_entries(dir, &list);
  CHECK_MSG(list.count == 1, "%s holds %d entries, 1 expected", dir, list.count);
  if (list.count != 1) return 0;
  snprintf(name, KILN_DISK_ENTRY_NAME_SIZE, "%s", list.names[0]);
  return 1;
}

/* What another user would plant: the key of cache_scale (variant, no
 * options) with the binary of the same kernel built with -DSCALE=5, under
 * a valid checksum. Into *file (caller frees); 0 on failure. */
static int make_planted(int variant, unsigned char **file, size_t *size,
                        char name[KILN_DISK_ENTRY_NAME_SIZE]) {
  char *honest = temp_dir(), *other = temp_dir();
  char other_name[KILN_DISK_ENTRY_NAME_SIZE];
  int ok = 0;
  kiln_context *ctx = open_context(honest, 1, 0);
  CHECK(observed_scale(ctx, variant) == 3);
  kiln_context_release(ctx);
  ctx = open_context(other, 1, 0);
  CHECK(run_kernel(ctx, "cache_scale", variant, 5, 33));
  kiln_context_release(ctx);
  if (honest && other && only_entry(honest, name) && only_entry(other, other_name)) {
    char path[4200];
    size_t honest_size = 0, other_size = 0;
    snprintf(path, sizeof path, "%s/%s", honest, name);
    unsigned char *mine = read_all(path, &honest_size);
    snprintf(path, sizeof path, "%s/%s", other, other_name);
    unsigned char *theirs = read_all(path, &other_size);
    if (mine && theirs && honest_size > 64 && other_size > 64) {
      size_t key_length = (size_t)get_le(mine + 16, 8);
      size_t payload_size = (size_t)get_le(theirs + 24, 8);
      const unsigned char *payload = theirs + other_size - payload_size;
      *size = 64 + key_length + payload_size;
      *file = malloc(*size);
      kiln_disk_cache_header(*file, (const char *)mine + 64, key_length, payload, payload_size);
      memcpy(*file + 64, mine + 64, key_length);
      memcpy(*file + 64 + key_length, payload, payload_size);
      ok = 1;
    }
    free(mine);
    free(theirs);
  }
  if (honest) remove_tree(honest);
  if (other) remove_tree(other);
  free(honest);
  free(other);
  return ok;
}

/* Plants the entry into dir/name (mode 0600, this user's). */
static void plant(const char *dir, const char *name, const unsigned char *file, size_t size) {
  char path[4200];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  unlink(path);
  write_all(path, file, size);
  CHECK(chmod(path, 0600) == 0);
}

/* After a refused entry: a regular file of this user, mode 0600, valid. */
static void check_replaced(const char *dir, const char *name) {
  char path[4200];
  struct stat st;
  snprintf(path, sizeof path, "%s/%s", dir, name);
  CHECK(lstat(path, &st) == 0 && S_ISREG(st.st_mode));
  CHECK_MSG((st.st_mode & 0777) == 0600, "entry mode %o", (unsigned)(st.st_mode & 0777));
  CHECK(st.st_uid == geteuid());
  CHECK(entry_valid(dir, name));
}

typedef enum plant_kind {
  PLANT_TRUSTED, PLANT_GROUP_WRITABLE, PLANT_OTHERS_WRITABLE, PLANT_SYMLINK, PLANT_OTHER_OWNER,
  PLANT_DIR_GROUP_WRITABLE, PLANT_DIR_OTHER_OWNER, PLANT_COUNT
} plant_kind;

static const char *plant_names[PLANT_COUNT] = {
    "trusted plant (control)", "group-writable entry", "others-writable entry",
    "symlinked entry", "entry of another user", "group-writable directory",
    "directory of another user"};

static void test_trust(kiln_context *harness_ctx) {
  record_device(harness_ctx);
  /* what kiln makes: the directory (and the missing parents) 0700, entries 0600 */
  char *base = temp_dir();
  if (!base) return;
  char dir[4200], parent[4200];
  snprintf(parent, sizeof parent, "%s/made", base);
  snprintf(dir, sizeof dir, "%s/made/cache", base);
  mode_t old_mask = umask(0); /* the modes must not depend on the umask */
  kiln_context *ctx = open_context(dir, 1, 0);
  CHECK(observed_scale(ctx, 70) == 3);
  kiln_context_release(ctx);
  umask(old_mask);
  struct stat st;
  char name[KILN_DISK_ENTRY_NAME_SIZE], path[4200];
  CHECK(stat(parent, &st) == 0 && (st.st_mode & 0777) == 0700);
  CHECK_MSG(stat(dir, &st) == 0 && (st.st_mode & 0777) == 0700, "directory mode %o",
            (unsigned)(st.st_mode & 0777));
  if (only_entry(dir, name)) check_replaced(dir, name);
  remove_tree(base);
  free(base);

  unsigned char *planted = NULL;
  size_t planted_size = 0;
  if (!make_planted(71, &planted, &planted_size, name)) return;
  int root = geteuid() == 0;
  for (int kind = 0; kind < PLANT_COUNT; kind++) {
    harness_current = plant_names[kind];
    if (!root && (kind == PLANT_OTHER_OWNER || kind == PLANT_DIR_OTHER_OWNER)) {
      printf("  %s: not checked: only root can give a file to another user here\n",
             plant_names[kind]);
      continue;
    }
    char *d = temp_dir();
    if (!d) break;
    CHECK(chmod(d, 0700) == 0);
    snprintf(path, sizeof path, "%s/%s", d, name);
    char elsewhere[4200];
    snprintf(elsewhere, sizeof elsewhere, "%s/elsewhere", d);
    if (kind == PLANT_SYMLINK) {
      plant(d, "elsewhere", planted, planted_size);
      CHECK(symlink(elsewhere, path) == 0);
    } else {
      plant(d, name, planted, planted_size);
    }
    if (kind == PLANT_GROUP_WRITABLE) CHECK(chmod(path, 0620) == 0);
    if (kind == PLANT_OTHERS_WRITABLE) CHECK(chmod(path, 0602) == 0);
    if (kind == PLANT_OTHER_OWNER) CHECK(chown(path, 65534, 65534) == 0);
    if (kind == PLANT_DIR_GROUP_WRITABLE) CHECK(chmod(d, 0770) == 0);
    if (kind == PLANT_DIR_OTHER_OWNER) CHECK(chown(d, 65534, 65534) == 0);
    struct stat before;
    CHECK(lstat(path, &before) == 0);
    ctx = open_context(d, 1, 0);
    int scale = observed_scale(ctx, 71);
    kiln_context_release(ctx);
    if (kind == PLANT_TRUSTED) {
      /* the plant is a valid entry: loaded when nothing is wrong with it,
       * which shows the refusals below are the trust checks' doing */
      CHECK_MSG(scale == 5, "the planted binary was not loaded (scale %d)", scale);
    } else {
      CHECK_MSG(scale == 3, "the planted binary was loaded (scale %d)", scale);
    }
    struct stat after;
    CHECK(lstat(path, &after) == 0);
    if (kind == PLANT_DIR_GROUP_WRITABLE || kind == PLANT_DIR_OTHER_OWNER) {
      /* nothing is read from or written into an untrusted directory */
      CHECK(after.st_ino == before.st_ino);
      entry_list list;
      list_entries(d, &list);
      CHECK(list.count == 1 && list.temps == 0);
      CHECK(chown(d, geteuid(), getegid()) == 0 && chmod(d, 0700) == 0);
    } else if (kind != PLANT_TRUSTED) {
      check_replaced(d, name);
      /* the symbolic link itself was replaced, not the file it pointed at */
      if (kind == PLANT_SYMLINK) CHECK(lstat(elsewhere, &st) == 0 && st.st_size ==
                                       (off_t)planted_size);
    }
    remove_tree(d);
    free(d);
  }
  harness_current = "trust";
  free(planted);
}

/* The entry format checks on their own, without a device. */
static void test_format_checks(kiln_context *harness_ctx) {
  record_device(harness_ctx);
  const char *key = "kiln disk cache key 1\nsource 3:abc\n";
  size_t key_length = strlen(key), payload_size = 1 + harness_rand_u64() % 300;
  size_t size = 64 + key_length + payload_size;
  unsigned char *file = calloc(size, 1);
  memcpy(file, KILN_DISK_CACHE_MAGIC, 8);
  put_le(file + 8, KILN_DISK_CACHE_FORMAT, 4);
  put_le(file + 12, 64, 4);
  put_le(file + 16, key_length, 8);
  put_le(file + 24, payload_size, 8);
  memcpy(file + 64, key, key_length);
  harness_fill_random(file + 64 + key_length, KILN_UINT8, (int64_t)payload_size, 0, 256);
  reseal(file, size);
  const void *payload = NULL;
  size_t got = 0;
  CHECK_OK(kiln_disk_cache_check(file, size, key, key_length, &payload, &got));
  CHECK(payload == file + 64 + key_length && got == payload_size);
  /* every single flipped bit is caught */
  int missed = 0;
  for (size_t i = 0; i < size; i++) {
    int bit = (int)(harness_rand_u64() % 8);
    file[i] ^= (unsigned char)(1 << bit);
    missed += kiln_disk_cache_check(file, size, key, key_length, &payload, &got) == KILN_OK;
    file[i] ^= (unsigned char)(1 << bit);
  }
  CHECK_MSG(missed == 0, "%d flipped bits went unnoticed", missed);
  /* every truncation */
  for (size_t n = 0; n < size; n++)
    missed += kiln_disk_cache_check(file, n, key, key_length, &payload, &got) == KILN_OK;
  CHECK_MSG(missed == 0, "%d truncations went unnoticed", missed);
  CHECK_STATUS(kiln_disk_cache_check(file, size, "other", 5, &payload, &got),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("another key");
  put_le(file + 8, 7, 4);
  reseal(file, size);
  CHECK_STATUS(kiln_disk_cache_check(file, size, key, key_length, &payload, &got),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("format 7");
  CHECK(payload == NULL && got == 0);
  free(file);

  /* SHA-256 against FIPS 180-4's examples */
  char hex[65];
  kiln_sha256_hex("abc", 3, hex);
  CHECK(strcmp(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad") == 0);
  kiln_sha256_hex("", 0, hex);
  CHECK(strcmp(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855") == 0);
  const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
  kiln_sha256_hex(two, strlen(two), hex);
  CHECK(strcmp(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1") == 0);
  /* incremental updates in odd pieces give the one-shot digest */
  unsigned char data[1000], digest[32];
  harness_fill_random(data, KILN_UINT8, 1000, 0, 256);
  kiln_sha256 h;
  kiln_sha256_init(&h);
  for (size_t at = 0, step = 1; at < 1000; at += step, step = step * 3 % 67 + 1)
    kiln_sha256_update(&h, data + at, at + step > 1000 ? 1000 - at : step);
  kiln_sha256_final(&h, digest);
  char pieces[65], whole[65];
  for (int i = 0; i < 32; i++) sprintf(pieces + 2 * i, "%02x", digest[i]);
  kiln_sha256_hex(data, 1000, whole);
  CHECK(strcmp(pieces, whole) == 0);
}

static const harness_test tests[] = {
    {"format_checks", test_format_checks},
    {"hit_and_miss", test_hit_and_miss},
    {"store_after_first_launch", test_store_after_first_launch},
    {"key_changes", test_key_changes},
    {"corruption", test_corruption},
    {"concurrent_processes", test_concurrent_processes},
    {"unwritable_directory", test_unwritable_directory},
    {"cache_off", test_cache_off},
    {"settings", test_settings},
    {"eviction", test_eviction},
    {"trust", test_trust},
    {0}};

int main(int argc, char **argv) {
  if (argc == 6 && strcmp(argv[1], "--child") == 0) return child_main(argv);
  return harness_main(argc, argv, tests);
}
