/* tests/harness.c */
#include "harness.h"

#include <stdarg.h>

int harness_failures = 0;
const char *harness_current = "";
static int current_failed = 0;
static int current_skipped = 0;

void harness_fail(const char *file, int line, const char *format, ...) {
  va_list args;
  va_start(args, format);
  fprintf(stdout, "  FAIL %s (%s:%d): ", harness_current, file, line);
  vfprintf(stdout, format, args);
  fputc('\n', stdout);
  va_end(args);
  fflush(stdout);
  harness_failures++;
  current_failed = 1;
}

void harness_skip(const char *format, ...) {
  va_list args;
  va_start(args, format);
  fprintf(stdout, "  SKIP %s: ", harness_current);
  vfprintf(stdout, format, args);
  fputc('\n', stdout);
  va_end(args);
  current_skipped = 1;
}

int harness_backend_is(kiln_context *ctx, const char *name) {
  kiln_device_info info;
  if (!ctx || kiln_context_device_info(ctx, &info) != KILN_OK) return 0;
  return strcmp(info.backend, name) == 0;
}

/* xoshiro256** seeded by splitmix64. */
static uint64_t rng_state[4];

static uint64_t splitmix64(uint64_t *x) {
  uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static void rng_seed(uint64_t seed) {
  for (int i = 0; i < 4; i++) rng_state[i] = splitmix64(&seed);
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t harness_rand_u64(void) {
  uint64_t *s = rng_state;
  uint64_t result = rotl(s[1] * 5, 7) * 9;
  uint64_t t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl(s[3], 45);
  return result;
}

double harness_rand_uniform(double lo, double hi) {
  double u = (double)(harness_rand_u64() >> 11) * (1.0 / 9007199254740992.0);
  return lo + (hi - lo) * u;
}

static void store(void *data, kiln_dtype dtype, int64_t i, double v) {
  switch (dtype) {
    case KILN_BOOL: ((uint8_t *)data)[i] = v != 0; break;
    case KILN_INT8: ((int8_t *)data)[i] = (int8_t)v; break;
    case KILN_UINT8: ((uint8_t *)data)[i] = (uint8_t)v; break;
    case KILN_INT16: ((int16_t *)data)[i] = (int16_t)v; break;
    case KILN_UINT16: ((uint16_t *)data)[i] = (uint16_t)v; break;
    case KILN_INT32: ((int32_t *)data)[i] = (int32_t)v; break;
    case KILN_UINT32: ((uint32_t *)data)[i] = (uint32_t)v; break;
    case KILN_INT64: ((int64_t *)data)[i] = (int64_t)v; break;
    case KILN_UINT64: ((uint64_t *)data)[i] = (uint64_t)v; break;
    case KILN_FLOAT32: ((float *)data)[i] = (float)v; break;
    case KILN_FLOAT64: ((double *)data)[i] = v; break;
    case KILN_FLOAT16: ((uint16_t *)data)[i] = kiln_float16_from_double(v); break;
    /* complex: real part v, imaginary part -v/2 (nonzero with v) */
    case KILN_COMPLEX64:
      ((float *)data)[2 * i] = (float)v;
      ((float *)data)[2 * i + 1] = (float)(-v / 2);
      break;
    case KILN_COMPLEX128:
      ((double *)data)[2 * i] = v;
      ((double *)data)[2 * i + 1] = -v / 2;
      break;
    default: break;
  }
}

void harness_permutation(int64_t *perm, int64_t n) {
  for (int64_t i = 0; i < n; i++) perm[i] = i;
  for (int64_t i = n - 1; i > 0; i--) {
    int64_t j = (int64_t)(harness_rand_u64() % (uint64_t)(i + 1)), x = perm[i];
    perm[i] = perm[j];
    perm[j] = x;
  }
}

void harness_fill_random(void *data, kiln_dtype dtype, int64_t n, double lo, double hi) {
  for (int64_t i = 0; i < n; i++) {
    double v = dtype == KILN_BOOL ? (double)(harness_rand_u64() & 1) : harness_rand_uniform(lo, hi);
    if (!kiln_dtype_is_float(dtype) && !kiln_dtype_is_complex(dtype)) {
      /* a float to integer conversion out of the type's range is undefined
       * behaviour: fold into range (unsigned types take |v|) */
      static const double lowest[KILN_DTYPE_COUNT] = {
          [KILN_INT8] = -128, [KILN_INT16] = -32768, [KILN_INT32] = -2147483648.0,
          [KILN_INT64] = -9.2e18};
      static const double highest[KILN_DTYPE_COUNT] = {
          [KILN_BOOL] = 1, [KILN_INT8] = 127, [KILN_UINT8] = 255, [KILN_INT16] = 32767,
          [KILN_UINT16] = 65535, [KILN_INT32] = 2147483647.0, [KILN_UINT32] = 4294967295.0,
          [KILN_INT64] = 9.2e18, [KILN_UINT64] = 1.8e19};
      v = floor(v);
      if (lowest[dtype] == 0 && v < 0) v = -v;
      if (v < lowest[dtype]) v = lowest[dtype];
      if (v > highest[dtype]) v = highest[dtype];
    }
    /* keep data away from all-zeros: a zero where a value is expected is a
     * classic silent bug */
    if (v == 0 && i % 2 == 0 && dtype != KILN_BOOL) v = (lo < 1 && hi > 1) ? 1 : lo;
    store(data, dtype, i, v);
  }
  if (dtype == KILN_BOOL && n > 0) ((uint8_t *)data)[0] = 1;
}

double harness_get(const void *data, kiln_dtype dtype, int64_t i) {
  switch (dtype) {
    case KILN_BOOL: return ((const uint8_t *)data)[i];
    case KILN_INT8: return ((const int8_t *)data)[i];
    case KILN_UINT8: return ((const uint8_t *)data)[i];
    case KILN_INT16: return ((const int16_t *)data)[i];
    case KILN_UINT16: return ((const uint16_t *)data)[i];
    case KILN_INT32: return ((const int32_t *)data)[i];
    case KILN_UINT32: return ((const uint32_t *)data)[i];
    case KILN_INT64: return (double)((const int64_t *)data)[i];
    case KILN_UINT64: return (double)((const uint64_t *)data)[i];
    case KILN_FLOAT32: return ((const float *)data)[i];
    case KILN_FLOAT64: return ((const double *)data)[i];
    case KILN_FLOAT16: return kiln_float16_to_float(((const uint16_t *)data)[i]);
    case KILN_COMPLEX64: return ((const float *)data)[2 * i]; /* the real part */
    case KILN_COMPLEX128: return ((const double *)data)[2 * i];
    default: return NAN;
  }
}

int harness_sample_from_env(const char *variable, harness_sample *sample) {
  sample->every = 1;
  sample->offset = 0;
  const char *text = getenv(variable);
  if (!text || !*text) return 1;
  char *end = NULL;
  long k = strtol(text, &end, 10);
  if (*end == ':') sample->offset = strtoul(end + 1, &end, 10);
  if (k < 1 || *end) {
    harness_fail(__FILE__, __LINE__, "%s='%s': expected k or k:offset", variable, text);
    return 0;
  }
  sample->every = (unsigned long)k;
  sample->offset %= sample->every;
  return 1;
}

int harness_sample_takes(const harness_sample *sample, unsigned long i) {
  return (i + sample->offset) % sample->every == 0;
}

static const harness_sample *case_sample(void) {
  static harness_sample sample;
  static int read;
  if (!read) {
    read = 1;
    if (!harness_sample_from_env("KILN_TEST_SAMPLE", &sample)) sample.every = 1;
    if (sample.every > 1)
      printf("KILN_TEST_SAMPLE=%lu:%lu: a sample of the rarely-varying cases\n", sample.every,
             sample.offset);
  }
  return &sample;
}

int harness_case_sampled(unsigned long i) { return harness_sample_takes(case_sample(), i); }

int harness_case_variant(unsigned long i, unsigned long v, unsigned long m) {
  const harness_sample *sample = case_sample();
  return sample->every == 1 || (i + sample->offset) % m == v;
}

char *harness_load_kernel(const char *file) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", KILN_TEST_KERNEL_DIR, file);
  FILE *f = fopen(path, "rb");
  if (!f) {
    harness_fail(__FILE__, __LINE__, "cannot open %s", path);
    return NULL;
  }
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *text = malloc((size_t)n + 1);
  if (text && fread(text, 1, (size_t)n, f) != (size_t)n) {
    free(text);
    text = NULL;
  }
  fclose(f);
  if (!text) {
    harness_fail(__FILE__, __LINE__, "cannot read %s", path);
    return NULL;
  }
  text[n] = '\0';
  return text;
}

kiln_kernel *harness_kernel(kiln_context *ctx, const char *file, const char *entry) {
  char *source = harness_load_kernel(file);
  if (!source) return NULL;
  kiln_kernel *kernel = NULL;
  kiln_status status = kiln_kernel_create(ctx, source, entry, NULL, &kernel);
  if (status != KILN_OK)
    harness_fail(__FILE__, __LINE__, "kiln_kernel_create(%s, %s) returned %s: %s", file, entry,
                 kiln_status_string(status), kiln_last_error());
  free(source);
  return kernel;
}

/* Does `name` contain the first `len` characters of `word`? */
static int contains_prefix_of(const char *name, const char *word, size_t len) {
  for (const char *at = name; *at; at++)
    if (strncmp(at, word, len) == 0) return 1;
  return 0;
}

/* filter: one word, or words separated by commas (the fault sweep's
 * groups); a test runs when its name contains any of them */
static int name_matches(const char *name, const char *filter) {
  if (!filter) return 1;
  for (const char *word = filter; *word;) {
    size_t len = strcspn(word, ",");
    if (len > 0 && contains_prefix_of(name, word, len)) return 1;
    word += len;
    if (*word == ',') word++;
  }
  return 0;
}

static int run_tests(int argc, char **argv, const harness_test *tests, kiln_context *ctx) {
  const char *filter = argc > 1 ? argv[1] : NULL;
  int ran = 0, skipped = 0;
  for (const harness_test *t = tests; t->name; t++) {
    if (!name_matches(t->name, filter)) continue;
    harness_current = t->name;
    current_failed = current_skipped = 0;
    t->run(ctx);
    if (current_skipped && !current_failed) skipped++;
    printf("%s %s\n", current_failed ? "FAIL" : current_skipped ? "skip" : "ok  ", t->name);
    fflush(stdout);
    ran++;
  }
  printf("%d tests, %d failed checks, %d skipped\n", ran, harness_failures, skipped);
  if (harness_failures) return 1;
  if (ran > 0 && skipped == ran) return HARNESS_SKIP;
  return 0;
}

static void seed_from_env(void) {
  const char *s = getenv("KILN_TEST_SEED");
  uint64_t seed = s ? strtoull(s, NULL, 0) : 20261122u;
  printf("seed %llu (KILN_TEST_SEED)\n", (unsigned long long)seed);
  rng_seed(seed);
}

static int backend_required(const char *backend) {
  const char *required = getenv("KILN_TEST_REQUIRE");
  if (!required || !backend) return 0;
  size_t n = strlen(backend);
  for (const char *p = required; (p = strstr(p, backend)) != NULL; p += n) {
    int starts = p == required || p[-1] == ',';
    int ends = p[n] == '\0' || p[n] == ',';
    if (starts && ends) return 1;
  }
  return 0;
}

int harness_main(int argc, char **argv, const harness_test *tests) {
  seed_from_env();
  kiln_context *ctx = NULL;
  kiln_status status = kiln_context_create(NULL, &ctx);
  if (status != KILN_OK) {
    const char *backend = getenv("KILN_BACKEND");
    printf("no context for KILN_BACKEND=%s: %s: %s\n", backend ? backend : "(unset)",
           kiln_status_string(status), kiln_last_error());
    if (status == KILN_ERROR_UNAVAILABLE && !backend_required(backend)) {
      printf("SKIP: backend not usable on this machine\n");
      return HARNESS_SKIP;
    }
    return 1;
  }
  kiln_device_info info;
  if (kiln_context_device_info(ctx, &info) == KILN_OK)
    printf("backend %s, device %d: %s (%s)\n", info.backend, info.index, info.name, info.platform);
  int rc = run_tests(argc, argv, tests, ctx);
  kiln_context_release(ctx);
  return rc;
}

int harness_main_no_context(int argc, char **argv, const harness_test *tests) {
  seed_from_env();
  return run_tests(argc, argv, tests, NULL);
}
