/* Random arrays (kiln/random.h) on each backend: the device's bits equal
 * the host generator's for every distribution and dtype (odd sizes,
 * strided and reversed views, host outputs, streams, consecutive calls),
 * statistical checks with fixed seeds, integer bounds and bias, the
 * generator's split/jump, and every bad input. */
#include <pthread.h>

#include "harness.h"

enum { UNIFORM, STANDARD_NORMAL, NORMAL, LOGNORMAL, EXPONENTIAL, INTEGERS, INTEGERS_WIDE,
       INTEGERS_U64, BERNOULLI, KIND_COUNT };
static const char *const kind_names[] = {"uniform",  "standard_normal", "normal",
                                         "lognormal", "exponential",    "integers",
                                         "integers_wide", "integers_u64", "bernoulli"};

static const kiln_dtype float_dtypes[] = {KILN_FLOAT16, KILN_FLOAT32, KILN_FLOAT64};
static const kiln_dtype integer_dtypes[] = {KILN_BOOL,  KILN_INT8,   KILN_UINT8,
                                            KILN_INT16, KILN_UINT16, KILN_INT32,
                                            KILN_UINT32, KILN_INT64, KILN_UINT64};

/* One call of distribution `kind` into out with parameters fitting dtype. */
static kiln_status draw(int kind, kiln_random_generator *gen, kiln_context *ctx, kiln_dtype dtype,
                        kiln_operand out, kiln_stream *stream) {
  switch (kind) {
  case UNIFORM: return kiln_random_uniform(gen, ctx, -2.5, 7.25, out, stream);
  case STANDARD_NORMAL: return kiln_random_standard_normal(gen, ctx, out, stream);
  case NORMAL: return kiln_random_normal(gen, ctx, 0.5, 0.1, out, stream);
  case LOGNORMAL: return kiln_random_lognormal(gen, ctx, 0.25, 0.75, out, stream);
  case EXPONENTIAL: return kiln_random_exponential(gen, ctx, 2.0, out, stream);
  case INTEGERS:
    if (dtype == KILN_BOOL) return kiln_random_integers(gen, ctx, 0, 2, 0, out, stream);
    if (dtype == KILN_UINT8 || dtype == KILN_UINT16 || dtype == KILN_UINT32 ||
        dtype == KILN_UINT64)
      return kiln_random_integers(gen, ctx, 3, 100, 0, out, stream);
    return kiln_random_integers(gen, ctx, -100, 27, 1, out, stream);
  case INTEGERS_WIDE: /* the full int64 range: 64-bit words */
    return kiln_random_integers(gen, ctx, INT64_MIN, INT64_MAX, 1, out, stream);
  case INTEGERS_U64: /* 3 2^62 values: half the words rejected at first */
    return kiln_random_integers_u64(gen, ctx, 5, 5 + 3 * ((uint64_t)1 << 62), 0, out, stream);
  default: return kiln_random_bernoulli(gen, ctx, 0.3, out, stream);
  }
}

static int dtype_count(int kind) {
  if (kind <= EXPONENTIAL) return 3;
  if (kind == INTEGERS) return 9;
  if (kind == BERNOULLI) return 9;
  return 1;
}
static kiln_dtype dtype_of(int kind, int t) {
  if (kind <= EXPONENTIAL) return float_dtypes[t];
  if (kind == INTEGERS_WIDE) return KILN_INT64;
  if (kind == INTEGERS_U64) return KILN_UINT64;
  return integer_dtypes[t];
}

/* A device draw into a new array of n elements vs the host generator
 * from the same state: same bytes, same position after. */
static void compare_one(kiln_context *ctx, int kind, kiln_dtype dtype, int64_t n, uint64_t seed,
                        uint64_t stream_id, uint64_t position) {
  kiln_random_state state = {seed, stream_id, position};
  kiln_random_generator *on_device = NULL, *on_host = NULL;
  kiln_array *a = NULL;
  size_t bytes = (size_t)n * kiln_dtype_size(dtype);
  unsigned char *device_bytes = malloc(bytes + 1), *host_bytes = malloc(bytes + 1);
  REQUIRE_OK(kiln_random_generator_create_state(&state, &on_device));
  REQUIRE_OK(kiln_random_generator_create_state(&state, &on_host));
  REQUIRE_OK(kiln_array_empty(ctx, dtype, 1, &n, &a));
  CHECK_OK(draw(kind, on_device, NULL, dtype, kiln_operand_array(a), NULL));
  CHECK_OK(kiln_array_to_host(a, device_bytes, NULL));
  CHECK_OK(draw(kind, on_host, NULL, dtype,
                kiln_operand_host_output(host_bytes, dtype, 1, &n, NULL), NULL));
  CHECK_MSG(memcmp(device_bytes, host_bytes, bytes) == 0,
            "%s %s n=%lld: device and host generator differ", kind_names[kind],
            kiln_dtype_name(dtype), (long long)n);
  for (int64_t i = 0; i < n && memcmp(device_bytes, host_bytes, bytes) != 0; i++) {
    size_t s = kiln_dtype_size(dtype);
    if (memcmp(device_bytes + i * s, host_bytes + i * s, s) != 0) {
      printf("  first difference at %lld: device %.17g host %.17g\n", (long long)i,
             harness_get(device_bytes, dtype, i), harness_get(host_bytes, dtype, i));
      break;
    }
  }
  CHECK(kiln_random_generator_state(on_device).position ==
        kiln_random_generator_state(on_host).position);
  kiln_array_release(a);
  kiln_random_generator_release(on_device);
  kiln_random_generator_release(on_host);
  free(device_bytes);
  free(host_bytes);
}

static void test_device_equals_host(kiln_context *ctx) {
  static const int64_t sizes[] = {1, 2, 3, 7, 13, 1031};
  for (int kind = 0; kind < KIND_COUNT; kind++)
    for (int t = 0; t < dtype_count(kind); t++)
      for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        compare_one(ctx, kind, dtype_of(kind, t), sizes[s], harness_rand_u64(),
                    harness_rand_u64(), harness_rand_u64() >> 3);
}

/* Large draws: every work-item layout (and PoCL's whole work-groups plus
 * the rest). */
static void test_device_equals_host_large(kiln_context *ctx) {
  compare_one(ctx, STANDARD_NORMAL, KILN_FLOAT32, 100003, 42, 0, 0);
  compare_one(ctx, STANDARD_NORMAL, KILN_FLOAT64, 65537, 42, 1, 0);
  compare_one(ctx, LOGNORMAL, KILN_FLOAT32, 40009, 7, 3, 11);
  compare_one(ctx, INTEGERS_U64, KILN_UINT64, 30011, 9, 2, 5);
}

/* Two calls advance the position by whole blocks; the values of the
 * second call are the host's from the advanced position. */
static void test_positions_advance(kiln_context *ctx) {
  kiln_random_generator *gen = NULL, *host = NULL;
  REQUIRE_OK(kiln_random_generator_create(1234, &gen));
  REQUIRE_OK(kiln_random_generator_create(1234, &host));
  int64_t n1 = 5, n2 = 9;
  kiln_array *a = NULL, *b = NULL;
  REQUIRE_OK(kiln_array_empty(ctx, KILN_FLOAT64, 1, &n1, &a));
  REQUIRE_OK(kiln_array_empty(ctx, KILN_FLOAT64, 1, &n2, &b));
  CHECK_OK(kiln_random_standard_normal(gen, NULL, kiln_operand_array(a), NULL));
  CHECK(kiln_random_generator_state(gen).position == 3); /* 5 doubles: 3 blocks of 2 */
  CHECK_OK(kiln_random_standard_normal(gen, NULL, kiln_operand_array(b), NULL));
  CHECK(kiln_random_generator_state(gen).position == 8);
  double got[14], want[14];
  CHECK_OK(kiln_array_to_host(a, got, NULL));
  CHECK_OK(kiln_array_to_host(b, got + 5, NULL));
  CHECK_OK(kiln_random_standard_normal(host, NULL,
                                        kiln_operand_host_output(want, KILN_FLOAT64, 1, &n1, NULL),
                                        NULL));
  CHECK_OK(kiln_random_standard_normal(
      host, NULL, kiln_operand_host_output(want + 5, KILN_FLOAT64, 1, &n2, NULL), NULL));
  CHECK(memcmp(got, want, sizeof got) == 0);
  /* an even draw of 6 then 8 equals one of 14 */
  kiln_random_generator *whole = NULL;
  REQUIRE_OK(kiln_random_generator_create(1234, &whole));
  double all[14], split[14];
  int64_t n14 = 14, n6 = 6, n8 = 8;
  CHECK_OK(kiln_random_uniform(whole, NULL, 0, 1,
                               kiln_operand_host_output(all, KILN_FLOAT64, 1, &n14, NULL), NULL));
  kiln_random_generator *parts = NULL;
  REQUIRE_OK(kiln_random_generator_create(1234, &parts));
  CHECK_OK(kiln_random_uniform(parts, ctx, 0, 1,
                               kiln_operand_host_output(split, KILN_FLOAT64, 1, &n6, NULL), NULL));
  CHECK_OK(kiln_random_uniform(parts, ctx, 0, 1,
                               kiln_operand_host_output(split + 6, KILN_FLOAT64, 1, &n8, NULL),
                               NULL));
  CHECK(memcmp(all, split, sizeof all) == 0);
  kiln_random_generator_release(whole);
  kiln_random_generator_release(parts);
  kiln_array_release(a);
  kiln_array_release(b);
  kiln_random_generator_release(gen);
  kiln_random_generator_release(host);
}

/* A reversed, strided 2-D view of a device array and a host output with
 * negative strides get the host generator's values in C order of the view;
 * the elements outside the view stay untouched. */
static void test_views(kiln_context *ctx) {
  int64_t shape[2] = {7, 10};
  float base[70];
  for (int i = 0; i < 70; i++) base[i] = -1000.0f - (float)i;
  kiln_array *a = NULL, *view = NULL;
  REQUIRE_OK(kiln_array_from_host(ctx, KILN_FLOAT32, 2, shape, NULL, base, &a));
  kiln_slice slices[2] = {{6, -8, -2}, {1, 10, 3}}; /* rows 6,4,2,0; cols 1,4,7 */
  REQUIRE_OK(kiln_array_slice(a, 2, slices, &view));
  kiln_random_generator *gen = NULL, *host = NULL;
  REQUIRE_OK(kiln_random_generator_create(99, &gen));
  REQUIRE_OK(kiln_random_generator_create(99, &host));
  kiln_stream *stream = NULL;
  REQUIRE_OK(kiln_stream_create(ctx, &stream));
  CHECK_OK(kiln_random_normal(gen, NULL, 3.0, 2.0, kiln_operand_array(view), stream));
  CHECK_OK(kiln_stream_synchronize(ctx, stream));
  float got[70], want[12];
  int64_t view_shape[2] = {4, 3};
  CHECK_OK(kiln_random_normal(host, NULL, 3.0, 2.0,
                              kiln_operand_host_output(want, KILN_FLOAT32, 2, view_shape, NULL),
                              NULL));
  CHECK_OK(kiln_array_to_host(a, got, NULL));
  for (int r = 0; r < 7; r++)
    for (int c = 0; c < 10; c++) {
      int in_view = r % 2 == 0 && c % 3 == 1;
      float expect = in_view ? want[(6 - r) / 2 * 3 + (c - 1) / 3] : base[r * 10 + c];
      CHECK_MSG(memcmp(&got[r * 10 + c], &expect, 4) == 0, "(%d, %d): %g, expected %g", r, c,
                got[r * 10 + c], expect);
    }
  /* host output with negative strides, through the device and on the host */
  int64_t strides[2] = {-40, -8};
  for (int through_device = 0; through_device < 2; through_device++) {
    float host_base[70];
    memcpy(host_base, base, sizeof host_base);
    kiln_random_generator *g = NULL;
    REQUIRE_OK(kiln_random_generator_create(99, &g));
    /* element (i, j) at host_base + 69 - 10 i - 2 j */
    CHECK_OK(kiln_random_normal(
        g, through_device ? ctx : NULL, 3.0, 2.0,
        kiln_operand_host_output(host_base + 69, KILN_FLOAT32, 2, view_shape, strides), NULL));
    for (int i = 0; i < 4; i++)
      for (int j = 0; j < 3; j++)
        CHECK_MSG(memcmp(&host_base[69 - 10 * i - 2 * j], &want[i * 3 + j], 4) == 0,
                  "host view (%d, %d) through_device=%d", i, j, through_device);
    CHECK(host_base[68] == base[68] && host_base[0] == base[0]);
    kiln_random_generator_release(g);
  }
  kiln_stream_release(stream);
  kiln_array_release(view);
  kiln_array_release(a);
  kiln_random_generator_release(gen);
  kiln_random_generator_release(host);
}

/* Every kind of value through the strided kernels: a reversed view with
 * step -3 of a 1-D device array gets the host generator's values in the
 * view's order, the other elements keep theirs. */
static void test_strided_every_kind(kiln_context *ctx) {
  static const struct {
    int kind;
    kiln_dtype dtype;
  } cases[] = {{UNIFORM, KILN_FLOAT16},   {LOGNORMAL, KILN_FLOAT64},
               {EXPONENTIAL, KILN_FLOAT32}, {INTEGERS, KILN_INT8},
               {INTEGERS_U64, KILN_UINT64}, {BERNOULLI, KILN_BOOL}};
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    kiln_dtype dtype = cases[c].dtype;
    size_t size = kiln_dtype_size(dtype);
    int64_t n = 301, m = 100; /* elements 300, 297, ..., 3 */
    unsigned char *base = malloc((size_t)n * size), *got = malloc((size_t)n * size),
                  *want = malloc((size_t)m * size);
    for (size_t i = 0; i < (size_t)n * size; i++) base[i] = (unsigned char)(i * 7 + 1);
    if (dtype == KILN_BOOL)
      for (int64_t i = 0; i < n; i++) base[i] = (unsigned char)(i % 2);
    kiln_array *a = NULL, *view = NULL;
    REQUIRE_OK(kiln_array_from_host(ctx, dtype, 1, &n, NULL, base, &a));
    kiln_slice slice = {300, 0, -3};
    REQUIRE_OK(kiln_array_slice(a, 1, &slice, &view));
    CHECK(kiln_array_size(view) == m);
    kiln_random_generator *gen = NULL, *host = NULL;
    REQUIRE_OK(kiln_random_generator_create(900 + c, &gen));
    REQUIRE_OK(kiln_random_generator_create(900 + c, &host));
    CHECK_OK(draw(cases[c].kind, gen, NULL, dtype, kiln_operand_array(view), NULL));
    CHECK_OK(draw(cases[c].kind, host, NULL, dtype,
                  kiln_operand_host_output(want, dtype, 1, &m, NULL), NULL));
    CHECK_OK(kiln_array_to_host(a, got, NULL));
    for (int64_t i = 0; i < n; i++) {
      int in_view = i >= 3 && i % 3 == 0;
      const unsigned char *expect = in_view ? want + (size_t)((300 - i) / 3) * size
                                            : base + (size_t)i * size;
      CHECK_MSG(memcmp(got + (size_t)i * size, expect, size) == 0, "%s %s element %lld",
                kind_names[cases[c].kind], kiln_dtype_name(dtype), (long long)i);
    }
    kiln_random_generator_release(gen);
    kiln_random_generator_release(host);
    kiln_array_release(view);
    kiln_array_release(a);
    free(base);
    free(got);
    free(want);
  }
}

/* Contiguous views that start off a 16-byte boundary (scalar stores) and
 * on one (one vector store per block), for 4- and 8-byte dtypes. */
static void test_contiguous_offsets(kiln_context *ctx) {
  static const kiln_dtype dtypes[] = {KILN_FLOAT32, KILN_UINT32, KILN_FLOAT64, KILN_INT64};
  for (size_t t = 0; t < sizeof dtypes / sizeof dtypes[0]; t++)
    for (int64_t start = 0; start < 5; start++) {
      kiln_dtype dtype = dtypes[t];
      size_t size = kiln_dtype_size(dtype);
      int64_t n = 41, m = n - start;
      kiln_array *a = NULL, *view = NULL;
      REQUIRE_OK(kiln_array_zeros(ctx, dtype, 1, &n, &a));
      kiln_slice slice = {start, n, 1};
      REQUIRE_OK(kiln_array_slice(a, 1, &slice, &view));
      unsigned char got[41 * 8], want[41 * 8], zero[41 * 8] = {0};
      kiln_random_generator *gen = NULL, *host = NULL;
      REQUIRE_OK(kiln_random_generator_create(40 + (uint64_t)start, &gen));
      REQUIRE_OK(kiln_random_generator_create(40 + (uint64_t)start, &host));
      int kind = kiln_dtype_is_float(dtype) ? STANDARD_NORMAL : INTEGERS;
      CHECK_OK(draw(kind, gen, NULL, dtype, kiln_operand_array(view), NULL));
      CHECK_OK(draw(kind, host, NULL, dtype, kiln_operand_host_output(want, dtype, 1, &m, NULL),
                    NULL));
      CHECK_OK(kiln_array_to_host(a, got, NULL));
      CHECK_MSG(memcmp(got, zero, (size_t)start * size) == 0 || start == 0,
                "%s from %lld: elements before the view written (%g)", kiln_dtype_name(dtype), (long long)start, harness_get(got, dtype, 0));
      CHECK_MSG(memcmp(got + (size_t)start * size, want, (size_t)m * size) == 0,
                "%s view from %lld differs from the host", kiln_dtype_name(dtype),
                (long long)start);
      kiln_random_generator_release(gen);
      kiln_random_generator_release(host);
      kiln_array_release(view);
      kiln_array_release(a);
    }
}

static void test_empty_output(kiln_context *ctx) {
  int64_t zero = 0;
  kiln_array *a = NULL;
  REQUIRE_OK(kiln_array_empty(ctx, KILN_FLOAT32, 1, &zero, &a));
  kiln_random_generator *gen = NULL;
  REQUIRE_OK(kiln_random_generator_create(5, &gen));
  CHECK_OK(kiln_random_standard_normal(gen, NULL, kiln_operand_array(a), NULL));
  CHECK_OK(kiln_random_integers(gen, ctx, 0, 5, 0,
                                kiln_operand_host_output(NULL, KILN_INT32, 1, &zero, NULL), NULL));
  CHECK(kiln_random_generator_state(gen).position == 0);
  kiln_random_generator_release(gen);
  kiln_array_release(a);
}

/* The kernel language's functions in a raw kernel give the array calls'
 * values: block i, value k is element V i + k of a draw from position 0. */
static void test_kernel_functions(kiln_context *ctx) {
  kiln_kernel *kernel = harness_kernel(ctx, "random_functions.kl", "draw_blocks");
  if (!kernel) return;
  const uint64_t seed = 0x123456789abcdefull, stream_id = 77;
  int64_t blocks = 1001, n32 = 4 * blocks, n64 = 2 * blocks;
  kiln_array *arrays[5] = {NULL};
  kiln_dtype dtypes[5] = {KILN_FLOAT32, KILN_FLOAT32, KILN_FLOAT32, KILN_FLOAT64, KILN_FLOAT64};
  for (int k = 0; k < 5; k++)
    REQUIRE_OK(kiln_array_empty(ctx, dtypes[k], 1, k < 3 ? &n32 : &n64, &arrays[k]));
  kiln_arg args[8] = {kiln_arg_uint64(seed), kiln_arg_uint64(stream_id), kiln_arg_int64(blocks)};
  for (int k = 0; k < 5; k++) args[3 + k] = kiln_arg_array(arrays[k]);
  CHECK_OK(kiln_kernel_launch(kernel, 1, &blocks, NULL, 8, args, NULL));
  for (int k = 0; k < 5; k++) {
    int64_t n = k < 3 ? n32 : n64;
    size_t bytes = (size_t)n * kiln_dtype_size(dtypes[k]);
    void *got = malloc(bytes), *want = malloc(bytes);
    CHECK_OK(kiln_array_to_host(arrays[k], got, NULL));
    kiln_random_state state = {seed, stream_id, 0};
    kiln_random_generator *gen = NULL;
    REQUIRE_OK(kiln_random_generator_create_state(&state, &gen));
    kiln_operand out = kiln_operand_host_output(want, dtypes[k], 1, &n, NULL);
    if (k == 0 || k == 3) CHECK_OK(kiln_random_standard_normal(gen, NULL, out, NULL));
    else if (k == 2) CHECK_OK(kiln_random_exponential(gen, NULL, 1.0, out, NULL));
    else CHECK_OK(kiln_random_uniform(gen, NULL, 0.0, 1.0, out, NULL));
    CHECK_MSG(memcmp(got, want, bytes) == 0, "kernel function %d differs from the host", k);
    kiln_random_generator_release(gen);
    free(got);
    free(want);
  }
  for (int k = 0; k < 5; k++) kiln_array_release(arrays[k]);
  kiln_kernel_release(kernel);
}

/* ---- statistics (fixed seeds; thresholds documented in docs/random.md) ---- */

static int compare_doubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Kolmogorov-Smirnov statistic sqrt(n) D of sorted x against cdf. */
static double ks_statistic(double *x, int64_t n, double (*cdf)(double)) {
  qsort(x, (size_t)n, sizeof *x, compare_doubles);
  double d = 0;
  for (int64_t i = 0; i < n; i++) {
    double f = cdf(x[i]);
    d = fmax(d, fmax(f - (double)i / (double)n, (double)(i + 1) / (double)n - f));
  }
  return sqrt((double)n) * d;
}

static double normal_cdf(double x) { return 0.5 * erfc(-x / sqrt(2.0)); }
static double uniform_cdf(double x) { return x < 0 ? 0 : x > 1 ? 1 : x; }
static double exponential_cdf(double x) { return x < 0 ? 0 : 1 - exp(-x); }

/* n draws into doubles: device array, read back and widened. */
static double *device_draw(kiln_context *ctx, int kind, kiln_dtype dtype, int64_t n,
                           uint64_t seed) {
  kiln_random_generator *gen = NULL;
  kiln_array *a = NULL;
  double *x = malloc((size_t)n * sizeof *x);
  void *raw = malloc((size_t)n * kiln_dtype_size(dtype));
  if (kiln_random_generator_create(seed, &gen) != KILN_OK ||
      kiln_array_empty(ctx, dtype, 1, &n, &a) != KILN_OK ||
      draw(kind, gen, NULL, dtype, kiln_operand_array(a), NULL) != KILN_OK ||
      kiln_array_to_host(a, raw, NULL) != KILN_OK) {
    harness_fail(__FILE__, __LINE__, "draw failed: %s", kiln_last_error());
    for (int64_t i = 0; i < n; i++) x[i] = 0;
  } else {
    for (int64_t i = 0; i < n; i++) x[i] = harness_get(raw, dtype, i);
  }
  free(raw);
  kiln_array_release(a);
  kiln_random_generator_release(gen);
  return x;
}

static void moments(const double *x, int64_t n, double *mean, double *var) {
  double s = 0, s2 = 0;
  for (int64_t i = 0; i < n; i++) s += x[i];
  *mean = s / (double)n;
  for (int64_t i = 0; i < n; i++) s2 += (x[i] - *mean) * (x[i] - *mean);
  *var = s2 / (double)(n - 1);
}

/* sqrt(n) D < 1.95 (KS p ~ 0.001); means within 5 standard errors;
 * variances within 5 standard errors (fourth moments of each law). */
static void test_statistics(kiln_context *ctx) {
  const int64_t n = 400000;
  const double limit = 1.95;
  for (int t = 1; t < 3; t++) {
    kiln_dtype dtype = float_dtypes[t];
    double mean, var, *x = device_draw(ctx, STANDARD_NORMAL, dtype, n, 11);
    moments(x, n, &mean, &var);
    CHECK_MSG(fabs(mean) < 5 / sqrt((double)n), "normal %s mean %g", kiln_dtype_name(dtype), mean);
    CHECK_MSG(fabs(var - 1) < 5 * sqrt(2.0 / (double)n), "normal var %g", var);
    double ks = ks_statistic(x, n, normal_cdf);
    CHECK_MSG(ks < limit, "normal %s KS sqrt(n) D = %g", kiln_dtype_name(dtype), ks);
    free(x);

    x = device_draw(ctx, UNIFORM, dtype, n, 12); /* [-2.5, 7.25) */
    for (int64_t i = 0; i < n; i++) {
      CHECK_MSG(x[i] >= -2.5 && x[i] < 7.25, "uniform %g outside [-2.5, 7.25)", x[i]);
      x[i] = (x[i] + 2.5) / 9.75;
    }
    moments(x, n, &mean, &var);
    CHECK_MSG(fabs(mean - 0.5) < 5 * sqrt(1.0 / 12 / (double)n), "uniform mean %g", mean);
    CHECK_MSG(fabs(var - 1.0 / 12) < 5 * sqrt(1.0 / 180 / (double)n), "uniform var %g", var);
    ks = ks_statistic(x, n, uniform_cdf);
    CHECK_MSG(ks < limit, "uniform %s KS %g", kiln_dtype_name(dtype), ks);
    free(x);

    x = device_draw(ctx, EXPONENTIAL, dtype, n, 13); /* scale 2 */
    for (int64_t i = 0; i < n; i++) {
      CHECK(x[i] >= 0);
      x[i] /= 2;
    }
    moments(x, n, &mean, &var);
    CHECK_MSG(fabs(mean - 1) < 5 / sqrt((double)n), "exponential mean %g", mean);
    CHECK_MSG(fabs(var - 1) < 5 * sqrt(8.0 / (double)n), "exponential var %g", var);
    ks = ks_statistic(x, n, exponential_cdf);
    CHECK_MSG(ks < limit, "exponential %s KS %g", kiln_dtype_name(dtype), ks);
    free(x);

    x = device_draw(ctx, LOGNORMAL, dtype, n, 14); /* log is normal(0.25, 0.75) */
    for (int64_t i = 0; i < n; i++) x[i] = (log(x[i]) - 0.25) / 0.75;
    ks = ks_statistic(x, n, normal_cdf);
    CHECK_MSG(ks < limit, "lognormal %s KS %g", kiln_dtype_name(dtype), ks);
    free(x);
  }
  /* bernoulli(0.3) */
  double mean, var, *x = device_draw(ctx, BERNOULLI, KILN_FLOAT32, n, 15);
  moments(x, n, &mean, &var);
  CHECK_MSG(fabs(mean - 0.3) < 5 * sqrt(0.21 / (double)n), "bernoulli mean %g", mean);
  free(x);
  /* float16 normal: coarse but unbiased */
  x = device_draw(ctx, NORMAL, KILN_FLOAT16, n, 16);
  moments(x, n, &mean, &var);
  CHECK_MSG(fabs(mean - 0.5) < 5 * 0.1 / sqrt((double)n) + 1e-4, "float16 normal mean %g", mean);
  free(x);
}

/* Integers: chi-square over 127 values of [-100, 27]; unbiased at ranges
 * where a modulo would be biased by a factor 2 (3 2^30 and 3 2^62: the
 * lowest third would get half the draws). */
static void test_integers(kiln_context *ctx) {
  const int64_t n = 254000;
  double *x = device_draw(ctx, INTEGERS, KILN_INT16, n, 21);
  int64_t counts[128] = {0};
  for (int64_t i = 0; i < n; i++) {
    CHECK_MSG(x[i] >= -100 && x[i] <= 27, "integer %g outside [-100, 27]", x[i]);
    if (x[i] >= -100 && x[i] <= 27) counts[(int)x[i] + 100]++;
  }
  double chi2 = 0, expected = (double)n / 128;
  for (int k = 0; k < 128; k++) chi2 += (counts[k] - expected) * (counts[k] - expected) / expected;
  /* 127 degrees of freedom: mean 127, sd ~16; 200 is p ~ 1e-5 */
  CHECK_MSG(chi2 < 200, "integers chi-square %g over 127 dof", chi2);
  free(x);

  kiln_random_generator *gen = NULL;
  REQUIRE_OK(kiln_random_generator_create(22, &gen));
  int64_t m = 200000;
  kiln_array *a = NULL;
  REQUIRE_OK(kiln_array_empty(ctx, KILN_UINT32, 1, &m, &a));
  CHECK_OK(kiln_random_integers(gen, NULL, 0, 3 * ((int64_t)1 << 30), 0, kiln_operand_array(a),
                                NULL));
  uint32_t *u32 = malloc((size_t)m * 4);
  CHECK_OK(kiln_array_to_host(a, u32, NULL));
  int64_t low_third = 0;
  for (int64_t i = 0; i < m; i++) low_third += u32[i] < (1u << 30);
  double frac = (double)low_third / (double)m, sd = sqrt(2.0 / 9 / (double)m);
  CHECK_MSG(fabs(frac - 1.0 / 3) < 5 * sd, "3 2^30 range: lowest third %g", frac);
  free(u32);
  kiln_array_release(a);

  REQUIRE_OK(kiln_array_empty(ctx, KILN_UINT64, 1, &m, &a));
  CHECK_OK(kiln_random_integers_u64(gen, NULL, 0, 3 * ((uint64_t)1 << 62), 0,
                                    kiln_operand_array(a), NULL));
  uint64_t *u64 = malloc((size_t)m * 8);
  CHECK_OK(kiln_array_to_host(a, u64, NULL));
  low_third = 0;
  for (int64_t i = 0; i < m; i++) {
    CHECK(u64[i] < 3 * ((uint64_t)1 << 62));
    low_third += u64[i] < ((uint64_t)1 << 62);
  }
  frac = (double)low_third / (double)m;
  CHECK_MSG(fabs(frac - 1.0 / 3) < 5 * sd, "3 2^62 range: lowest third %g", frac);
  kiln_array_release(a);

  /* full ranges: both halves and both extremes' neighbourhoods reached */
  REQUIRE_OK(kiln_array_empty(ctx, KILN_INT64, 1, &m, &a));
  CHECK_OK(kiln_random_integers(gen, NULL, INT64_MIN, INT64_MAX, 1, kiln_operand_array(a), NULL));
  CHECK_OK(kiln_array_to_host(a, u64, NULL));
  int64_t negative = 0;
  for (int64_t i = 0; i < m; i++) negative += (int64_t)u64[i] < 0;
  CHECK(fabs((double)negative / (double)m - 0.5) < 5 * sqrt(0.25 / (double)m));
  kiln_array_release(a);
  REQUIRE_OK(kiln_array_empty(ctx, KILN_UINT64, 1, &m, &a));
  CHECK_OK(kiln_random_integers_u64(gen, NULL, 0, UINT64_MAX, 1, kiln_operand_array(a), NULL));
  CHECK_OK(kiln_array_to_host(a, u64, NULL));
  int64_t top = 0;
  for (int64_t i = 0; i < m; i++) top += u64[i] >> 63;
  CHECK(fabs((double)top / (double)m - 0.5) < 5 * sqrt(0.25 / (double)m));
  kiln_array_release(a);
  free(u64);
  /* one-value ranges and the int8 extremes */
  int8_t small[64];
  int64_t n64 = 64;
  CHECK_OK(kiln_random_integers(gen, ctx, -128, 127, 1,
                                kiln_operand_host_output(small, KILN_INT8, 1, &n64, NULL), NULL));
  int seen_low = 0, seen_high = 0;
  for (int i = 0; i < 64; i++) {
    seen_low |= small[i] < -64;
    seen_high |= small[i] > 63;
  }
  CHECK(seen_low && seen_high);
  CHECK_OK(kiln_random_integers(gen, ctx, 7, 7, 1,
                                kiln_operand_host_output(small, KILN_INT8, 1, &n64, NULL), NULL));
  for (int i = 0; i < 64; i++) CHECK(small[i] == 7);
  kiln_random_generator_release(gen);
}

/* permutation: every index once, the host's and the device's equal, and
 * the stable order of the generator's full-range uint64 keys; shuffle
 * moves whole rows by that permutation. */
static int compare_u64_index(const void *a, const void *b) {
  const uint64_t *x = a, *y = b;
  if (x[0] != y[0]) return x[0] < y[0] ? -1 : 1;
  return (x[1] > y[1]) - (x[1] < y[1]);
}

static void test_permutation(kiln_context *ctx) {
  int64_t n = 1009;
  kiln_random_generator *gen = NULL, *host = NULL, *keys_gen = NULL;
  REQUIRE_OK(kiln_random_generator_create(31, &gen));
  REQUIRE_OK(kiln_random_generator_create(31, &host));
  REQUIRE_OK(kiln_random_generator_create(31, &keys_gen));
  kiln_array *a = NULL;
  REQUIRE_OK(kiln_array_empty(ctx, KILN_INT64, 1, &n, &a));
  CHECK_OK(kiln_random_permutation(gen, ctx, kiln_operand_array(a), NULL));
  int64_t *got = malloc((size_t)n * 8);
  int32_t *host32 = malloc((size_t)n * 4);
  uint64_t *keys = malloc((size_t)n * 8), (*pairs)[2] = malloc((size_t)n * 16);
  char *seen = calloc((size_t)n, 1);
  CHECK_OK(kiln_array_to_host(a, got, NULL));
  CHECK_OK(kiln_random_permutation(host, NULL,
                                   kiln_operand_host_output(host32, KILN_INT32, 1, &n, NULL), NULL));
  CHECK_OK(kiln_random_integers_u64(keys_gen, NULL, 0, UINT64_MAX, 1,
                                    kiln_operand_host_output(keys, KILN_UINT64, 1, &n, NULL), NULL));
  for (int64_t i = 0; i < n; i++) {
    pairs[i][0] = keys[i];
    pairs[i][1] = (uint64_t)i;
  }
  qsort(pairs, (size_t)n, 16, compare_u64_index);
  int64_t fixed = 0;
  for (int64_t i = 0; i < n; i++) {
    CHECK_MSG(got[i] >= 0 && got[i] < n && !seen[got[i]], "index %lld: %lld", (long long)i,
              (long long)got[i]);
    if (got[i] >= 0 && got[i] < n) seen[got[i]] = 1;
    CHECK(host32[i] == got[i]);
    CHECK(got[i] == (int64_t)pairs[i][1]);
    fixed += got[i] == i;
  }
  CHECK_MSG(fixed < 10, "%lld fixed points in a random permutation of %lld", (long long)fixed,
            (long long)n);
  CHECK(kiln_random_generator_state(gen).position == (uint64_t)(n + 1) / 2);

  /* shuffle a (17, 3) array's rows */
  int64_t shape[2] = {17, 3}, rows = 17;
  float values[51], shuffled[51];
  int64_t perm[17];
  for (int i = 0; i < 51; i++) values[i] = (float)i + 0.5f;
  kiln_array *m = NULL;
  REQUIRE_OK(kiln_array_from_host(ctx, KILN_FLOAT32, 2, shape, NULL, values, &m));
  kiln_random_generator *shuffler = NULL, *order = NULL;
  REQUIRE_OK(kiln_random_generator_create(32, &shuffler));
  REQUIRE_OK(kiln_random_generator_create(32, &order));
  CHECK_OK(kiln_random_shuffle(shuffler, m, NULL));
  CHECK_OK(kiln_array_to_host(m, shuffled, NULL));
  CHECK_OK(kiln_random_permutation(order, NULL,
                                   kiln_operand_host_output(perm, KILN_INT64, 1, &rows, NULL), NULL));
  for (int i = 0; i < 17; i++)
    for (int j = 0; j < 3; j++) CHECK(shuffled[i * 3 + j] == values[perm[i] * 3 + j]);
  /* bad input */
  int64_t two_d[2] = {2, 2};
  int8_t small[4];
  CHECK_STATUS(kiln_random_permutation(gen, NULL,
                                       kiln_operand_host_output(small, KILN_INT8, 2, two_d, NULL),
                                       NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  int64_t four = 4;
  CHECK_STATUS(kiln_random_permutation(gen, NULL,
                                       kiln_operand_host_output(small, KILN_INT8, 1, &four, NULL),
                                       NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("int8");
  kiln_array *scalar = NULL;
  REQUIRE_OK(kiln_array_empty(ctx, KILN_FLOAT32, 0, NULL, &scalar));
  CHECK_STATUS(kiln_random_shuffle(gen, scalar, NULL), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_random_shuffle(NULL, m, NULL), KILN_ERROR_INVALID_ARGUMENT);
  kiln_array_release(scalar);
  kiln_array_release(m);
  kiln_random_generator_release(shuffler);
  kiln_random_generator_release(order);
  free(got);
  free(host32);
  free(keys);
  free(pairs);
  free(seen);
  kiln_array_release(a);
  kiln_random_generator_release(gen);
  kiln_random_generator_release(host);
  kiln_random_generator_release(keys_gen);
}

/* Threads sharing one generator take disjoint blocks: every value drawn
 * is the host generator's at some block, and the position counts them
 * all. */
typedef struct shared_draw {
  kiln_random_generator *gen;
  uint32_t values[200][8];
  int failures;
} shared_draw;

static void *draw_in_thread(void *data) {
  shared_draw *d = data;
  int64_t eight = 8;
  for (int k = 0; k < 200; k++)
    if (kiln_random_integers_u64(d->gen, NULL, 0, UINT32_MAX, 1,
                                 kiln_operand_host_output(d->values[k], KILN_UINT32, 1, &eight,
                                                          NULL),
                                 NULL) != KILN_OK)
      d->failures++;
  return NULL;
}

static int compare_u32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}

static void test_threads_share_a_generator(kiln_context *ctx) {
  (void)ctx;
  enum { THREADS = 4 };
  kiln_random_generator *gen = NULL, *all = NULL;
  REQUIRE_OK(kiln_random_generator_create(555, &gen));
  REQUIRE_OK(kiln_random_generator_create(555, &all));
  static shared_draw draws[THREADS];
  pthread_t threads[THREADS];
  for (int t = 0; t < THREADS; t++) {
    draws[t].gen = gen;
    draws[t].failures = 0;
    CHECK(pthread_create(&threads[t], NULL, draw_in_thread, &draws[t]) == 0);
  }
  for (int t = 0; t < THREADS; t++) pthread_join(threads[t], NULL);
  CHECK(kiln_random_generator_state(gen).position == THREADS * 200 * 2);
  /* the multiset of values is the one of a single draw of all blocks */
  int64_t total = THREADS * 200 * 8;
  uint32_t *got = malloc((size_t)total * 4), *want = malloc((size_t)total * 4);
  for (int t = 0; t < THREADS; t++) {
    CHECK(draws[t].failures == 0);
    memcpy(got + t * 1600, draws[t].values, sizeof draws[t].values);
  }
  CHECK_OK(kiln_random_integers_u64(all, NULL, 0, UINT32_MAX, 1,
                                    kiln_operand_host_output(want, KILN_UINT32, 1, &total, NULL),
                                    NULL));
  qsort(got, (size_t)total, 4, compare_u32);
  qsort(want, (size_t)total, 4, compare_u32);
  CHECK(memcmp(got, want, (size_t)total * 4) == 0);
  free(got);
  free(want);
  kiln_random_generator_release(gen);
  kiln_random_generator_release(all);
}

/* ---- generators ---- */

static void test_generators(kiln_context *ctx) {
  (void)ctx;
  kiln_random_generator *gen = NULL, *again = NULL, *children[3], *children_again[3];
  REQUIRE_OK(kiln_random_generator_create(77, &gen));
  REQUIRE_OK(kiln_random_generator_create(77, &again));
  REQUIRE_OK(kiln_random_generator_split(gen, 3, children));
  REQUIRE_OK(kiln_random_generator_split(again, 3, children_again));
  for (int k = 0; k < 3; k++) {
    kiln_random_state s = kiln_random_generator_state(children[k]);
    CHECK(s.seed == 77 && s.position == 0 && s.stream != 0);
    CHECK(s.stream == kiln_random_generator_state(children_again[k]).stream);
    for (int j = 0; j < k; j++) CHECK(s.stream != kiln_random_generator_state(children[j]).stream);
  }
  /* a second split gives new streams */
  kiln_random_generator *more = NULL;
  REQUIRE_OK(kiln_random_generator_split(gen, 1, &more));
  for (int k = 0; k < 3; k++)
    CHECK(kiln_random_generator_state(more).stream !=
          kiln_random_generator_state(children[k]).stream);
  CHECK(kiln_random_generator_state(gen).position == 0);
  /* jump = drawing that many blocks */
  CHECK_OK(kiln_random_generator_jump(gen, 10));
  CHECK(kiln_random_generator_state(gen).position == 10);
  CHECK_STATUS(kiln_random_generator_jump(gen, (uint64_t)1 << 62), KILN_ERROR_OUT_OF_RANGE);
  CHECK(kiln_random_generator_state(gen).position == 10);
  kiln_random_state past = {1, 2, (uint64_t)1 << 62};
  kiln_random_generator *bad = NULL;
  CHECK_STATUS(kiln_random_generator_create_state(&past, &bad), KILN_ERROR_INVALID_ARGUMENT);
  CHECK(bad == NULL);
  /* a stream near its end refuses a draw that would pass it */
  kiln_random_state near_end = {1, 2, ((uint64_t)1 << 62) - 1};
  REQUIRE_OK(kiln_random_generator_create_state(&near_end, &bad));
  float values[8];
  int64_t eight = 8;
  CHECK_STATUS(kiln_random_uniform(bad, NULL, 0, 1,
                                   kiln_operand_host_output(values, KILN_FLOAT32, 1, &eight, NULL),
                                   NULL),
               KILN_ERROR_OUT_OF_RANGE);
  kiln_random_generator_release(bad);
  CHECK_STATUS(kiln_random_generator_split(gen, -1, children), KILN_ERROR_INVALID_ARGUMENT);
  CHECK(kiln_random_generator_retain(gen) == gen);
  kiln_random_generator_release(gen);
  kiln_random_generator_release(NULL);
  for (int k = 0; k < 3; k++) {
    kiln_random_generator_release(children[k]);
    kiln_random_generator_release(children_again[k]);
  }
  kiln_random_generator_release(more);
  kiln_random_generator_release(gen);
  kiln_random_generator_release(again);
}

/* ---- bad input: a status and a message, the position unchanged ---- */

static void test_bad_input(kiln_context *ctx) {
  kiln_random_generator *gen = NULL;
  REQUIRE_OK(kiln_random_generator_create(3, &gen));
  int64_t n = 4;
  kiln_array *f = NULL, *i8 = NULL, *c = NULL, *broadcast = NULL, *one = NULL;
  REQUIRE_OK(kiln_array_empty(ctx, KILN_FLOAT32, 1, &n, &f));
  REQUIRE_OK(kiln_array_empty(ctx, KILN_INT8, 1, &n, &i8));
  REQUIRE_OK(kiln_array_empty(ctx, KILN_COMPLEX64, 1, &n, &c));
  int64_t one_shape = 1;
  REQUIRE_OK(kiln_array_empty(ctx, KILN_FLOAT32, 1, &one_shape, &one));
  REQUIRE_OK(kiln_array_broadcast_to(one, 1, &n, &broadcast));
  kiln_operand of = kiln_operand_array(f), oi = kiln_operand_array(i8);
  const kiln_status bad = KILN_ERROR_INVALID_ARGUMENT;
  CHECK_STATUS(kiln_random_uniform(gen, NULL, 1, 1, of, NULL), bad);
  CHECK_ERROR_CONTAINS("low");
  CHECK_STATUS(kiln_random_uniform(gen, NULL, 2, 1, of, NULL), bad);
  CHECK_STATUS(kiln_random_uniform(gen, NULL, 0, INFINITY, of, NULL), bad);
  CHECK_STATUS(kiln_random_uniform(gen, NULL, 0, 1e300, of, NULL), bad);
  CHECK_STATUS(kiln_random_normal(gen, NULL, 0, -1, of, NULL), bad);
  CHECK_ERROR_CONTAINS("std");
  CHECK_STATUS(kiln_random_normal(gen, NULL, NAN, 1, of, NULL), bad);
  CHECK_STATUS(kiln_random_normal(gen, NULL, 0, NAN, of, NULL), bad);
  CHECK_STATUS(kiln_random_lognormal(gen, NULL, 0, -0.5, of, NULL), bad);
  CHECK_STATUS(kiln_random_exponential(gen, NULL, -1, of, NULL), bad);
  CHECK_STATUS(kiln_random_standard_normal(gen, NULL, oi, NULL), bad);
  CHECK_ERROR_CONTAINS("int8");
  CHECK_STATUS(kiln_random_uniform(gen, NULL, 0, 1, kiln_operand_array(c), NULL), bad);
  CHECK_STATUS(kiln_random_bernoulli(gen, NULL, 1.5, oi, NULL), bad);
  CHECK_STATUS(kiln_random_bernoulli(gen, NULL, -0.1, oi, NULL), bad);
  CHECK_STATUS(kiln_random_bernoulli(gen, NULL, NAN, oi, NULL), bad);
  CHECK_STATUS(kiln_random_bernoulli(gen, NULL, 0.5, kiln_operand_array(c), NULL), bad);
  CHECK_STATUS(kiln_random_integers(gen, NULL, 5, 5, 0, oi, NULL), bad);
  CHECK_ERROR_CONTAINS("empty");
  CHECK_STATUS(kiln_random_integers(gen, NULL, 5, 4, 1, oi, NULL), bad);
  CHECK_STATUS(kiln_random_integers(gen, NULL, 0, 200, 0, oi, NULL), bad);
  CHECK_ERROR_CONTAINS("int8");
  CHECK_STATUS(kiln_random_integers(gen, NULL, -129, 0, 0, oi, NULL), bad);
  CHECK_STATUS(kiln_random_integers_u64(gen, NULL, 0, UINT64_MAX, 1, oi, NULL), bad);
  CHECK_STATUS(kiln_random_integers(gen, NULL, 0, 10, 0, of, NULL), bad);
  CHECK_ERROR_CONTAINS("float32");
  CHECK_STATUS(kiln_random_integers(gen, NULL, -1, 1, 0, kiln_operand_array(i8), NULL), KILN_OK);
  kiln_random_state s = kiln_random_generator_state(gen);
  CHECK(s.position == 1); /* only the good call drew */
  /* operands */
  CHECK_STATUS(kiln_random_uniform(NULL, NULL, 0, 1, of, NULL), bad);
  CHECK_STATUS(kiln_random_uniform(gen, NULL, 0, 1, kiln_operand_array(NULL), NULL), bad);
  CHECK_STATUS(kiln_random_uniform(gen, NULL, 0, 1, kiln_operand_float(1.0), NULL), bad);
  CHECK_STATUS(kiln_random_uniform(gen, NULL, 0, 1, kiln_operand_array(broadcast), NULL), bad);
  CHECK_ERROR_CONTAINS("broadcast");
  float host[4];
  CHECK_STATUS(kiln_random_uniform(gen, NULL, 0, 1,
                                   kiln_operand_host(host, KILN_FLOAT32, 1, &n, NULL), NULL),
               bad);
  CHECK_ERROR_CONTAINS("writable");
  CHECK_STATUS(kiln_random_uniform(gen, NULL, 0, 1,
                                   kiln_operand_host_output(host, (kiln_dtype)99, 1, &n, NULL),
                                   NULL),
               bad);
  int64_t negative = -1;
  CHECK_STATUS(kiln_random_uniform(gen, NULL, 0, 1,
                                   kiln_operand_host_output(host, KILN_FLOAT32, 1, &negative, NULL),
                                   NULL),
               bad);
  CHECK(kiln_random_generator_state(gen).position == 1);
  kiln_array_release(broadcast);
  kiln_array_release(one);
  kiln_array_release(f);
  kiln_array_release(i8);
  kiln_array_release(c);
  kiln_random_generator_release(gen);
}

/* An array of another context is refused. */
static void test_other_context(kiln_context *ctx) {
  kiln_context *other = NULL;
  if (kiln_context_create(NULL, &other) != KILN_OK) {
    harness_skip("no second context: %s", kiln_last_error());
    return;
  }
  int64_t n = 4;
  kiln_array *a = NULL;
  REQUIRE_OK(kiln_array_empty(other, KILN_FLOAT32, 1, &n, &a));
  kiln_random_generator *gen = NULL;
  REQUIRE_OK(kiln_random_generator_create(1, &gen));
  CHECK_STATUS(kiln_random_standard_normal(gen, ctx, kiln_operand_array(a), NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("context");
  kiln_random_generator_release(gen);
  kiln_array_release(a);
  kiln_context_release(other);
}

/* permutation on the device (kiln's radix sort) against the host
 * generator (qsort), bit for bit: more than one sort tile (100003, prime),
 * n = 0 and 1, every output dtype, a reversed view, host memory through
 * the device on a stream; shuffle of more rows than a tile, of a strided
 * view, of complex128 and of empty rows. */
static void host_permutation_of(uint64_t seed, int64_t n, int64_t *perm) {
  kiln_random_generator *host = NULL;
  REQUIRE_OK(kiln_random_generator_create(seed, &host));
  CHECK_OK(kiln_random_permutation(host, NULL,
                                   kiln_operand_host_output(perm, KILN_INT64, 1, &n, NULL), NULL));
  kiln_random_generator_release(host);
}

static void test_permutation_device(kiln_context *ctx) {
  int64_t n = 100003;
  int64_t *want = malloc((size_t)n * 8), *got = malloc((size_t)n * 8);
  int32_t *got32 = malloc((size_t)n * 4);
  host_permutation_of(41, n, want);
  kiln_stream *stream = NULL;
  REQUIRE_OK(kiln_stream_create(ctx, &stream));
  kiln_dtype dtypes[4] = {KILN_INT64, KILN_UINT64, KILN_INT32, KILN_UINT32};
  for (int k = 0; k < 4; k++) {
    kiln_random_generator *gen = NULL;
    REQUIRE_OK(kiln_random_generator_create(41, &gen));
    kiln_array *a = NULL;
    REQUIRE_OK(kiln_array_empty(ctx, dtypes[k], 1, &n, &a));
    CHECK_OK(kiln_random_permutation(gen, NULL, kiln_operand_array(a), k == 1 ? stream : NULL));
    if (k == 1) CHECK_OK(kiln_stream_synchronize(ctx, stream));
    int wide = kiln_dtype_size(dtypes[k]) == 8;
    CHECK_OK(kiln_array_to_host(a, wide ? (void *)got : (void *)got32, NULL));
    int64_t bad = 0;
    for (int64_t i = 0; i < n; i++) bad += (wide ? got[i] : (int64_t)got32[i]) != want[i];
    CHECK_MSG(bad == 0, "%s: %lld of %lld differ from the host generator",
              kiln_dtype_name(dtypes[k]), (long long)bad, (long long)n);
    CHECK(kiln_random_generator_state(gen).position == (uint64_t)(n + 1) / 2);
    kiln_array_release(a);
    kiln_random_generator_release(gen);
  }
  /* a reversed view of a uint64 array, and int32 host memory through the
   * device on a stream (both through a temporary) */
  int64_t m = 1031;
  host_permutation_of(42, m, want);
  kiln_array *base = NULL, *reversed = NULL;
  REQUIRE_OK(kiln_array_empty(ctx, KILN_UINT64, 1, &m, &base));
  kiln_slice reverse = {KILN_NONE, KILN_NONE, -1};
  REQUIRE_OK(kiln_array_slice(base, 1, &reverse, &reversed));
  kiln_random_generator *gen = NULL;
  REQUIRE_OK(kiln_random_generator_create(42, &gen));
  CHECK_OK(kiln_random_permutation(gen, ctx, kiln_operand_array(reversed), NULL));
  CHECK_OK(kiln_array_to_host(base, got, NULL));
  for (int64_t i = 0; i < m; i++) CHECK(got[m - 1 - i] == want[i]);
  kiln_random_generator_release(gen);
  kiln_array_release(reversed);
  kiln_array_release(base);
  REQUIRE_OK(kiln_random_generator_create(42, &gen));
  int64_t two = 2 * m; /* every other int32 */
  int64_t stride = 8;
  memset(got32, 0x55, (size_t)two * 4);
  CHECK_OK(kiln_random_permutation(
      gen, ctx, kiln_operand_host_output(got32, KILN_INT32, 1, &m, &stride), stream));
  for (int64_t i = 0; i < m; i++) {
    CHECK(got32[2 * i] == want[i]);
    CHECK(got32[2 * i + 1] == 0x55555555);
  }
  kiln_random_generator_release(gen);
  /* n = 1 and n = 0: nothing or one block drawn */
  for (int64_t size = 0; size <= 1; size++) {
    REQUIRE_OK(kiln_random_generator_create(43, &gen));
    kiln_array *a = NULL;
    REQUIRE_OK(kiln_array_empty(ctx, KILN_INT64, 1, &size, &a));
    CHECK_OK(kiln_random_permutation(gen, ctx, kiln_operand_array(a), NULL));
    if (size == 1) {
      CHECK_OK(kiln_array_to_host(a, got, NULL));
      CHECK(got[0] == 0);
    }
    CHECK(kiln_random_generator_state(gen).position == (uint64_t)size);
    kiln_array_release(a);
    kiln_random_generator_release(gen);
  }
  /* shuffle: 2000 rows of 3 float32 (more rows than a tile; rows of 12
   * bytes move as 4-byte words), on a stream */
  int64_t rows = 2000, shape[2] = {2000, 3};
  float *values = malloc((size_t)rows * 3 * 4), *shuffled = malloc((size_t)rows * 3 * 4);
  for (int64_t i = 0; i < rows * 3; i++) values[i] = (float)i * 0.25f - 7.0f;
  kiln_array *mat = NULL;
  REQUIRE_OK(kiln_array_from_host(ctx, KILN_FLOAT32, 2, shape, NULL, values, &mat));
  REQUIRE_OK(kiln_random_generator_create(44, &gen));
  CHECK_OK(kiln_random_shuffle(gen, mat, stream));
  CHECK_OK(kiln_stream_synchronize(ctx, stream)); /* to_host reads on the default stream */
  CHECK_OK(kiln_array_to_host(mat, shuffled, NULL));
  host_permutation_of(44, rows, want);
  int64_t bad = 0;
  for (int64_t i = 0; i < rows; i++)
    for (int j = 0; j < 3; j++) bad += shuffled[i * 3 + j] != values[want[i] * 3 + j];
  CHECK_MSG(bad == 0, "shuffle: %lld elements misplaced", (long long)bad);
  kiln_random_generator_release(gen);
  /* shuffle a strided view: every other row, columns reversed; the rows
   * between keep their values */
  kiln_slice picks[2] = {{KILN_NONE, KILN_NONE, 2}, {KILN_NONE, KILN_NONE, -1}};
  kiln_array *view = NULL;
  kiln_array_release(mat);
  REQUIRE_OK(kiln_array_from_host(ctx, KILN_FLOAT32, 2, shape, NULL, values, &mat));
  REQUIRE_OK(kiln_array_slice(mat, 2, picks, &view));
  REQUIRE_OK(kiln_random_generator_create(45, &gen));
  CHECK_OK(kiln_random_shuffle(gen, view, NULL));
  CHECK_OK(kiln_array_to_host(mat, shuffled, NULL));
  host_permutation_of(45, rows / 2, want);
  bad = 0;
  for (int64_t i = 0; i < rows; i++)
    for (int j = 0; j < 3; j++)
      bad += shuffled[i * 3 + j] != (i % 2 ? values[i * 3 + j] : values[want[i / 2] * 2 * 3 + j]);
  CHECK_MSG(bad == 0, "shuffle of a view: %lld elements wrong", (long long)bad);
  kiln_random_generator_release(gen);
  kiln_array_release(view);
  kiln_array_release(mat);
  /* complex128 elements (16-byte rows as 8-byte words) and empty rows
   * (the order is drawn all the same) */
  int64_t c = 37;
  double *cv = malloc((size_t)c * 16), *cs = malloc((size_t)c * 16);
  for (int64_t i = 0; i < 2 * c; i++) cv[i] = (double)i + 0.5;
  REQUIRE_OK(kiln_array_from_host(ctx, KILN_COMPLEX128, 1, &c, NULL, cv, &mat));
  REQUIRE_OK(kiln_random_generator_create(46, &gen));
  CHECK_OK(kiln_random_shuffle(gen, mat, NULL));
  CHECK_OK(kiln_array_to_host(mat, cs, NULL));
  host_permutation_of(46, c, want);
  for (int64_t i = 0; i < c; i++)
    CHECK(cs[2 * i] == cv[2 * want[i]] && cs[2 * i + 1] == cv[2 * want[i] + 1]);
  kiln_array_release(mat);
  kiln_random_generator_release(gen);
  int64_t empty_rows[2] = {5, 0};
  REQUIRE_OK(kiln_array_empty(ctx, KILN_INT16, 2, empty_rows, &mat));
  REQUIRE_OK(kiln_random_generator_create(47, &gen));
  CHECK_OK(kiln_random_shuffle(gen, mat, NULL));
  CHECK(kiln_random_generator_state(gen).position == 3);
  kiln_array_release(mat);
  kiln_random_generator_release(gen);
  free(cv);
  free(cs);
  free(values);
  free(shuffled);
  kiln_stream_release(stream);
  free(want);
  free(got);
  free(got32);
}

static const harness_test tests[] = {
    {"device_equals_host", test_device_equals_host},
    {"device_equals_host_large", test_device_equals_host_large},
    {"positions_advance", test_positions_advance},
    {"views", test_views},
    {"strided_every_kind", test_strided_every_kind},
    {"contiguous_offsets", test_contiguous_offsets},
    {"empty_output", test_empty_output},
    {"kernel_functions", test_kernel_functions},
    {"statistics", test_statistics},
    {"integers", test_integers},
    {"permutation", test_permutation},
    {"permutation_device", test_permutation_device},
    {"generators", test_generators},
    {"threads_share_a_generator", test_threads_share_a_generator},
    {"bad_input", test_bad_input},
    {"other_context", test_other_context},
    {0},
};

int main(int argc, char **argv) { return harness_main(argc, argv, tests); }
