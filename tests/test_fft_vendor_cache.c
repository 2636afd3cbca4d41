/* tests/test_fft_vendor_cache.c: what the vendor FFT libraries take from
 * kiln (docs/fft.md, "Libraries and the fallback"), run under
 * KILN_FFT=vendor (fft_vendor_cache.<backend>):
 *   scratch_pool: a plan's work area is a block of the context's memory
 *     pool, taken for the execution and given back (VkFFT's temp buffer,
 *     cuFFT's and hipFFT's work area), values against the exact spectrum;
 *   disk_cache: VkFFT's OpenCL programs in kiln's disk cache: a second
 *     context (a new process as far as plans go) loads them instead of
 *     compiling (seen from outside: no entry is added or rewritten), a
 *     damaged or symlinked entry is compiled again and replaced, values
 *     right throughout; with the cache off nothing is written. */
#include "disk_cache_testing.h"

#define TONES 8

/* The library in use ("vendor: VkFFT 1.2.26 ..."), or NULL after a skip. */
static const char *library(kiln_context *ctx, char *text, size_t size) {
  if (kiln_fft_describe(ctx, text, size) != KILN_OK) {
    harness_fail(__FILE__, __LINE__, "kiln_fft_describe: %s", kiln_last_error());
    return NULL;
  }
  if (strncmp(text, "vendor: ", 8) != 0) {
    harness_skip("no vendor FFT library here (KILN_FFT=vendor is set by ctest): %s", text);
    return NULL;
  }
  return text;
}

/* x (n complex, interleaved) = a sum of TONES random complex exponentials
 * at random distinct frequencies, whose DFT is exactly n * amplitude at
 * each frequency and 0 elsewhere: a reference for any length. */
typedef struct tones {
  int64_t freq[TONES];
  double re[TONES], im[TONES];
} tones;

static void make_tones(double *x, int64_t n, tones *t) {
  for (int k = 0; k < TONES; k++) {
    int fresh;
    do {
      t->freq[k] = (int64_t)(harness_rand_u64() % (uint64_t)n);
      fresh = 1;
      for (int j = 0; j < k; j++) fresh = fresh && t->freq[j] != t->freq[k];
    } while (!fresh);
    t->re[k] = harness_rand_uniform(-1, 1);
    t->im[k] = harness_rand_uniform(-1, 1);
  }
  for (int64_t j = 0; j < n; j++) {
    long double re = 0, im = 0;
    for (int k = 0; k < TONES; k++) {
      long double a = 2.0L * 3.14159265358979323846264338327950288L *
                      (long double)((t->freq[k] * j) % n) / (long double)n;
      re += t->re[k] * cosl(a) - t->im[k] * sinl(a);
      im += t->re[k] * sinl(a) + t->im[k] * cosl(a);
    }
    x[2 * j] = (double)re;
    x[2 * j + 1] = (double)im;
  }
}

/* max |X - exact| / (n * max amplitude) */
static double spectrum_error(const double *X, int64_t n, const tones *t) {
  double worst = 0, scale = 0;
  for (int64_t k = 0; k < n; k++) {
    double re = 0, im = 0;
    for (int j = 0; j < TONES; j++)
      if (t->freq[j] == k) re = (double)n * t->re[j], im = (double)n * t->im[j];
    worst = fmax(worst, fmax(fabs(X[2 * k] - re), fabs(X[2 * k + 1] - im)));
  }
  for (int j = 0; j < TONES; j++) scale = fmax(scale, hypot(t->re[j], t->im[j]));
  return worst / ((double)n * scale);
}

static uint64_t taken(const kiln_memory_pool_stats *s) { return s->hits + s->misses; }

static void test_scratch_pool(kiln_context *ctx) {
  char text[512];
  if (!library(ctx, text, sizeof text)) return;
  printf("  %s\n", text);
  kiln_memory_pool_stats s0, s1, s2;
  REQUIRE_OK(kiln_memory_pool_stats_get(ctx, &s0));
  if (!s0.enabled) {
    harness_skip("the memory pool is off (KILN_POOL=0)");
    return;
  }
  kiln_device_info info;
  REQUIRE_OK(kiln_context_device_info(ctx, &info));
  /* a length whose plan takes scratch: VkFFT's four-step (two uploads:
   * at least 2^16 points and four times the device's local memory, which
   * PoCL sets by the CPU's caches: 1 MiB on a Skylake-AVX512 EPYC, where
   * 2^16 complex128 ran in one upload without scratch), cuFFT's and
   * hipFFT's Bluestein for a large prime; clFFT's needs none at these */
  int64_t n = 1000003;
  if (strstr(text, "VkFFT")) {
    uint64_t item = info.has_double ? 16 : 8;
    for (n = 65536; (uint64_t)n * item < 4 * info.local_memory; n *= 2) {
    }
  }
  if (strstr(text, "clFFT")) {
    harness_skip("clFFT takes its temporary buffer only for lengths it plans in several passes "
                 "of its own choosing; its tmpBuffer argument is the pool's like the others'");
    return;
  }
  kiln_dtype dtype = info.has_double ? KILN_COMPLEX128 : KILN_COMPLEX64;
  double tolerance = info.has_double ? 1e-11 : 2e-4;
  double *x = malloc((size_t)(2 * n) * sizeof(double)), *got = malloc((size_t)(2 * n) * sizeof(double));
  float *xf = malloc((size_t)(2 * n) * sizeof(float)), *gotf = malloc((size_t)(2 * n) * sizeof(float));
  tones t;
  make_tones(x, n, &t);
  for (int64_t i = 0; i < 2 * n; i++) xf[i] = (float)x[i];
  kiln_array *a = NULL, *y = NULL, *back = NULL;
  REQUIRE_OK(kiln_array_from_host(ctx, dtype, 1, &n, NULL, dtype == KILN_COMPLEX128 ? (void *)x : (void *)xf, &a));
  REQUIRE_OK(kiln_array_empty(ctx, dtype, 1, &n, &y));
  REQUIRE_OK(kiln_array_empty(ctx, dtype, 1, &n, &back));
  kiln_fft_plan *forward = NULL, *inverse = NULL;
  REQUIRE_OK(kiln_fft_plan_create(ctx, KILN_FFT_FORWARD, dtype, 1, &n, 0, NULL, 0, NULL, NULL,
                                  &forward));
  REQUIRE_OK(kiln_fft_plan_create(ctx, KILN_FFT_INVERSE, dtype, 1, &n, 0, NULL, 0, NULL, NULL,
                                  &inverse));
  REQUIRE_OK(kiln_stream_synchronize(ctx, NULL));
  REQUIRE_OK(kiln_memory_pool_trim(ctx));
  REQUIRE_OK(kiln_memory_pool_stats_get(ctx, &s0));
  /* the input and output are handed to the library as they are: the one
   * block the execution takes is the scratch, back in the cache after */
  CHECK_OK(kiln_fft_plan_execute(forward, kiln_operand_array(a), kiln_operand_array(y), NULL));
  REQUIRE_OK(kiln_stream_synchronize(ctx, NULL));
  REQUIRE_OK(kiln_memory_pool_stats_get(ctx, &s1));
  CHECK_MSG(taken(&s1) - taken(&s0) == 1, "the execution took %llu pool blocks, not 1 (scratch)",
            (unsigned long long)(taken(&s1) - taken(&s0)));
  CHECK(s1.blocks_in_use == s0.blocks_in_use);
  CHECK_MSG(s1.blocks_cached == s0.blocks_cached + 1 && s1.bytes_cached > s0.bytes_cached,
            "the scratch did not go back to the pool (%llu -> %llu blocks cached)",
            (unsigned long long)s0.blocks_cached, (unsigned long long)s1.blocks_cached);
  printf("  n %lld: scratch of %llu bytes from the pool\n", (long long)n,
         (unsigned long long)(s1.bytes_cached - s0.bytes_cached));
  if (dtype == KILN_COMPLEX128) {
    REQUIRE_OK(kiln_array_to_host(y, got, NULL));
  } else {
    REQUIRE_OK(kiln_array_to_host(y, gotf, NULL));
    for (int64_t i = 0; i < 2 * n; i++) got[i] = gotf[i];
  }
  double e = spectrum_error(got, n, &t);
  CHECK_MSG(e < tolerance, "fft of %lld tones: error %.3g of n * amplitude", (long long)n, e);
  /* the inverse through its plan: the scratch is the cached block (a hit) */
  CHECK_OK(kiln_fft_plan_execute(inverse, kiln_operand_array(y), kiln_operand_array(back), NULL));
  REQUIRE_OK(kiln_stream_synchronize(ctx, NULL));
  REQUIRE_OK(kiln_memory_pool_stats_get(ctx, &s2));
  CHECK(s2.hits >= s1.hits + 1 && s2.misses == s1.misses && s2.blocks_in_use == s1.blocks_in_use);
  if (dtype == KILN_COMPLEX128) {
    REQUIRE_OK(kiln_array_to_host(back, got, NULL));
  } else {
    REQUIRE_OK(kiln_array_to_host(back, gotf, NULL));
    for (int64_t i = 0; i < 2 * n; i++) got[i] = gotf[i];
  }
  double worst = 0;
  for (int64_t i = 0; i < 2 * n; i++) worst = fmax(worst, fabs(got[i] - x[i]));
  CHECK_MSG(worst < tolerance * TONES, "ifft(fft(x)): error %.3g", worst);
  kiln_fft_plan_release(inverse);
  kiln_fft_plan_release(forward);
  kiln_array_release(back);
  kiln_array_release(y);
  kiln_array_release(a);
  free(gotf);
  free(xf);
  free(got);
  free(x);
}

/* ---- VkFFT's programs in the disk cache ------------------------------ */

/* A valid entry (disk_cache_testing.h), a regular file of mode 0600, whose
 * key is a VkFFT program's. */
static int vkfft_entry_valid(const char *dir, const char *name) {
  char path[4200];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  struct stat st;
  if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode) || (st.st_mode & 0777) != 0600 ||
      !entry_valid(dir, name))
    return 0;
  size_t size = 0;
  unsigned char *file = read_all(path, &size);
  int ok = file && memmem(file + 64, size - 64, "VkFFT 1.", 8) != NULL;
  free(file);
  return ok;
}

/* fft (forward and inverse, two plans of VkFFT) of 64 random complex64
 * on ctx, against a C DFT; 1 when right. */
static int run_vkfft(kiln_context *ctx) {
  if (!ctx) return 0;
  enum { L = 64 };
  int64_t n = L;
  float x[2 * L], y[2 * L], back[2 * L];
  harness_fill_random(x, KILN_FLOAT32, 2 * L, -1, 1);
  kiln_array *a = NULL, *f = NULL, *b = NULL;
  kiln_status s = kiln_array_from_host(ctx, KILN_COMPLEX64, 1, &n, NULL, x, &a);
  if (s == KILN_OK)
    s = kiln_fft(ctx, kiln_operand_array(a), KILN_FFT_DEFAULT, 0, NULL, kiln_operand_new(&f), NULL);
  /* norm "forward" on the inverse: no scaling kernel of kiln's own, so
   * every entry written is VkFFT's */
  if (s == KILN_OK)
    s = kiln_ifft(ctx, kiln_operand_array(f), KILN_FFT_DEFAULT, 0, "forward",
                  kiln_operand_new(&b), NULL);
  if (s == KILN_OK) s = kiln_array_to_host(f, y, NULL);
  if (s == KILN_OK) s = kiln_array_to_host(b, back, NULL);
  kiln_array_release(b);
  kiln_array_release(f);
  kiln_array_release(a);
  if (s != KILN_OK) {
    harness_fail(__FILE__, __LINE__, "fft of 64: %s", kiln_last_error());
    return 0;
  }
  double worst = 0;
  for (int k = 0; k < L; k++) {
    long double re = 0, im = 0;
    for (int j = 0; j < L; j++) {
      long double angle = -2.0L * 3.14159265358979323846264338327950288L * ((j * k) % L) / L;
      re += x[2 * j] * cosl(angle) - x[2 * j + 1] * sinl(angle);
      im += x[2 * j] * sinl(angle) + x[2 * j + 1] * cosl(angle);
    }
    worst = fmax(worst, fmax(fabs(y[2 * k] - (double)re), fabs(y[2 * k + 1] - (double)im)));
    worst = fmax(worst, fmax(fabs(back[2 * k] / L - x[2 * k]),
                             fabs(back[2 * k + 1] / L - x[2 * k + 1])));
  }
  if (worst > 1e-4) harness_fail(__FILE__, __LINE__, "fft of 64 through VkFFT: error %.3g", worst);
  return worst <= 1e-4;
}

/* How an entry is spoiled before the next context reads it. */
typedef enum damage { FLIPPED, ENVELOPE, SYMLINK, DAMAGE_COUNT } damage;
static const char *const damage_names[] = {
    "a flipped byte (the file's checksum)",
    "a flipped byte of the driver's binary, resealed (kiln's OpenCL envelope)",
    "a symbolic link to a valid copy"};

static void spoil(const char *dir, const char *name, damage kind) {
  char path[4200], copy[4300];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  size_t size = 0;
  unsigned char *file = read_all(path, &size);
  CHECK(file != NULL && size > 200);
  if (!file || size <= 200) {
    free(file);
    return;
  }
  if (kind == SYMLINK) {
    snprintf(copy, sizeof copy, "%s/valid-copy", dir);
    write_all(copy, file, size);
    chmod(copy, 0600);
    CHECK(unlink(path) == 0 && symlink(copy, path) == 0);
  } else {
    file[size - 100] ^= 0x5a; /* inside the driver's bytes, past kiln's envelope header */
    if (kind == ENVELOPE) reseal(file, size); /* the file's checksum made right again */
    write_all(path, file, size);
  }
  free(file);
}

static void test_disk_cache(kiln_context *harness_ctx) {
  char text[512];
  if (!library(harness_ctx, text, sizeof text)) return;
  if (!strstr(text, "VkFFT")) {
    harness_skip("the disk cache serves VkFFT's programs; %s compiles none of kiln's", text);
    return;
  }
  record_device(harness_ctx);
  char *dir = temp_dir();
  if (!dir) return;
  entry_list first, again, after;
  /* a cold directory: VkFFT compiles, each program is stored */
  kiln_context *ctx = open_context(dir, 1, 0);
  CHECK(run_vkfft(ctx));
  kiln_context_release(ctx);
  list_entries(dir, &first);
  CHECK_MSG(first.count >= 1, "no entry after VkFFT compiled (%d)", first.count);
  for (int i = 0; i < first.count; i++)
    CHECK_MSG(vkfft_entry_valid(dir, first.names[i]), "entry %s is not a valid VkFFT entry",
              first.names[i]);
  /* a new context plans again and loads them all: nothing added or rewritten */
  ctx = open_context(dir, 1, 0);
  CHECK(run_vkfft(ctx));
  kiln_context_release(ctx);
  list_entries(dir, &again);
  CHECK_MSG(same_entries(&first, &again), "a warm plan compiled (%d entries -> %d, or rewritten)",
            first.count, again.count);
  /* a spoiled entry is never handed to the driver: compiled, values right,
   * the entry replaced by a valid one */
  for (int kind = 0; kind < DAMAGE_COUNT && first.count > 0; kind++) {
    const char *name = first.names[kind % first.count];
    spoil(dir, name, (damage)kind);
    list_entries(dir, &again);
    ctx = open_context(dir, 1, 0);
    CHECK_MSG(run_vkfft(ctx), "after %s", damage_names[kind]);
    kiln_context_release(ctx);
    list_entries(dir, &after);
    CHECK_MSG(after.count == first.count, "after %s: %d entries, not %d", damage_names[kind],
              after.count, first.count);
    /* a new file renamed over it (a new inode), valid; the others untouched */
    for (int i = 0; i < after.count; i++)
      if (strcmp(after.names[i], name) != 0)
        CHECK_MSG(after.inodes[i] == again.inodes[i], "after %s another entry was rewritten",
                  damage_names[kind]);
      else
        CHECK_MSG(after.inodes[i] != again.inodes[i] && vkfft_entry_valid(dir, name),
                  "after %s the entry was not replaced", damage_names[kind]);
  }
  remove_tree(dir);
  free(dir);
  /* the cache off: VkFFT compiles, nothing is written */
  dir = temp_dir();
  if (!dir) return;
  ctx = open_context(dir, 0, 0);
  CHECK(run_vkfft(ctx));
  kiln_context_release(ctx);
  list_entries(dir, &after);
  CHECK_MSG(after.count == 0, "the cache is off, yet %d entries were written", after.count);
  remove_tree(dir);
  free(dir);
}

static const harness_test tests[] = {{"scratch_pool", test_scratch_pool},
                                     {"disk_cache", test_disk_cache},
                                     {NULL, NULL}};

int main(int argc, char **argv) { return harness_main(argc, argv, tests); }
