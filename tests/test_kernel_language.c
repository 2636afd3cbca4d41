/* Conformance: the kernel language (docs/kernel-language.md), name by name,
 * on the device under test and against host references: work-item indexing
 * in 1-D/2-D/3-D, barriers with static and dynamic local memory, atomics on
 * global and local memory, every math function in float32 and float64 and
 * the -f spellings, the fixed-width types, kiln_vload and its vectors,
 * kiln_min/kiln_max/kiln_abs, kiln_lane_shuffle_down and kiln_flag_load /
 * kiln_flag_store across work-groups (where defined),
 * Philox4x32-10 (Random123's known answers and a host implementation) and
 * the rng helpers, and the error a kernel that does not compile gives.
 * Every kernel is a file under tests/kernels (KILN_TEST_KERNEL_DIR). */
#include <float.h>

#include "harness.h"

#ifndef KILN_TEST_KERNEL_DIR
#error "KILN_TEST_KERNEL_DIR must name the directory of the test kernels"
#endif

/* ---- helpers ------------------------------------------------------------- */

/* 1-D device copy of n host elements; NULL after a failure. */
static kiln_array *upload(kiln_context *ctx, kiln_dtype dtype, int64_t n, const void *host) {
  kiln_array *a = NULL;
  kiln_status status = kiln_array_from_host(ctx, dtype, 1, &n, NULL, host, &a);
  if (status != KILN_OK)
    harness_fail(__FILE__, __LINE__, "upload of %lld %s: %s: %s", (long long)n,
                 kiln_dtype_name(dtype), kiln_status_string(status), kiln_last_error());
  return a;
}

/* 1-D device array of n zeros; NULL after a failure. */
static kiln_array *zeros(kiln_context *ctx, kiln_dtype dtype, int64_t n) {
  kiln_array *a = NULL;
  kiln_status status = kiln_array_zeros(ctx, dtype, 1, &n, &a);
  if (status != KILN_OK)
    harness_fail(__FILE__, __LINE__, "zeros(%lld %s): %s: %s", (long long)n,
                 kiln_dtype_name(dtype), kiln_status_string(status), kiln_last_error());
  return a;
}

/* Copies a device array into a new malloc'd host buffer; NULL on failure. */
static void *download(const kiln_array *a) {
  if (!a) return NULL;
  void *host = malloc((size_t)kiln_array_nbytes(a) + 1);
  kiln_status status = host ? kiln_array_to_host(a, host, NULL) : KILN_ERROR_OUT_OF_MEMORY;
  if (status != KILN_OK) {
    harness_fail(__FILE__, __LINE__, "download: %s: %s", kiln_status_string(status),
                 kiln_last_error());
    free(host);
    return NULL;
  }
  return host;
}

static int device_has_double(kiln_context *ctx) {
  kiln_device_info info;
  return kiln_context_device_info(ctx, &info) == KILN_OK && info.has_double;
}

static void release_arrays(kiln_array **arrays, int n) {
  for (int i = 0; i < n; i++) kiln_array_release(arrays[i]);
}

/* A scalar argument of any integer dtype (kiln.h has helpers for the
 * 32/64-bit ones only). */
static kiln_arg int_arg(kiln_dtype dtype, int64_t value) {
  kiln_arg a = kiln_arg_int64(value);
  a.dtype = dtype;
  return a;
}
static kiln_arg uint_arg(kiln_dtype dtype, uint64_t value) {
  kiln_arg a = kiln_arg_uint64(value);
  a.dtype = dtype;
  return a;
}

/* ---- work-item indexing -------------------------------------------------- */

#define INDEX_FIELDS 18 /* 6 values per dimension, see index_record.kl */

static void check_index_launch(kiln_context *ctx, kiln_kernel *kernel, int work_dim,
                               const int64_t *global, const int64_t *local) {
  int64_t n[3] = {1, 1, 1};
  for (int d = 0; d < work_dim; d++) n[d] = global[d];
  int64_t items = n[0] * n[1] * n[2], count = items * INDEX_FIELDS, minus_one = -1;
  kiln_array *out = NULL;
  REQUIRE_OK(kiln_array_full(ctx, KILN_INT64, 1, &count, &minus_one, &out));
  kiln_arg args[] = {kiln_arg_array(out), kiln_arg_int64(n[0]), kiln_arg_int64(n[1]),
                     kiln_arg_int64(n[2])};
  CHECK_OK(kiln_kernel_launch(kernel, work_dim, global, local, 4, args, NULL));
  int64_t *host = download(out);
  kiln_array_release(out);
  if (!host) return;
  int errors = 0;
  int64_t first_local_size[3] = {0, 0, 0};
  for (int64_t z = 0; z < n[2]; z++)
    for (int64_t y = 0; y < n[1]; y++)
      for (int64_t x = 0; x < n[0]; x++) {
        const int64_t *slot = host + ((z * n[1] + y) * n[0] + x) * INDEX_FIELDS;
        int64_t coord[3] = {x, y, z};
        for (int d = 0; d < 3; d++) {
          const int64_t *v = slot + d * 6;
          int64_t gid = v[0], lid = v[1], group = v[2], lsize = v[3], gsize = v[4],
                  groups = v[5];
          int ok;
          if (d < work_dim) {
            if (!first_local_size[d]) first_local_size[d] = lsize;
            ok = gid == coord[d] && lsize > 0 && lsize == first_local_size[d] && lid >= 0 &&
                 lid < lsize && group >= 0 && group < groups && group * lsize + lid == gid &&
                 gsize == groups * lsize && gsize >= n[d] && gsize - n[d] < lsize &&
                 (!local || (lsize == local[d] &&
                             gsize == (n[d] + local[d] - 1) / local[d] * local[d]));
          } else {
            ok = gid == 0 && lid == 0 && group == 0 && lsize == 1 && gsize == 1 && groups == 1;
          }
          if (!ok && errors++ < 5)
            harness_fail(__FILE__, __LINE__,
                         "%d-D launch %lldx%lldx%lld, work-item (%lld,%lld,%lld) dim %d: "
                         "global id %lld, local id %lld, group %lld, local size %lld, "
                         "global size %lld, groups %lld",
                         work_dim, (long long)n[0], (long long)n[1], (long long)n[2],
                         (long long)x, (long long)y, (long long)z, d, (long long)gid,
                         (long long)lid, (long long)group, (long long)lsize,
                         (long long)gsize, (long long)groups);
        }
      }
  free(host);
}

static void test_index_functions(kiln_context *ctx) {
  kiln_kernel *kernel = harness_kernel(ctx, "index_record.kl", "index_record");
  if (!kernel) return;
  static const struct {
    int work_dim;
    int64_t global[3], local[3]; /* local[0] == 0: let kiln choose */
  } launches[] = {
      {1, {1000}, {64}},          {1, {4099}, {128}},    {1, {1}, {0}},
      {1, {77}, {0}},             {2, {33, 17}, {8, 4}}, {2, {5, 300}, {0}},
      {3, {9, 5, 3}, {4, 2, 2}},  {3, {7, 6, 5}, {0}},   {3, {1, 1, 70}, {1, 1, 64}},
  };
  for (size_t i = 0; i < sizeof launches / sizeof launches[0]; i++)
    check_index_launch(ctx, kernel, launches[i].work_dim, launches[i].global,
                       launches[i].local[0] ? launches[i].local : NULL);
  kiln_kernel_release(kernel);
}

/* ---- barrier and local memory --------------------------------------------- */

static void test_barrier_local_array(kiln_context *ctx) {
  const int64_t group = 128, n = 128 * 37 + 5, groups = (n + group - 1) / group;
  kiln_kernel *kernel = harness_kernel(ctx, "reduce_local_array.kl", "reduce_local_array");
  int32_t *in = malloc((size_t)n * sizeof *in);
  harness_fill_random(in, KILN_INT32, n, -1000, 1000);
  kiln_array *arrays[2] = {upload(ctx, KILN_INT32, n, in), zeros(ctx, KILN_INT32, groups)};
  if (kernel && arrays[0] && arrays[1]) {
    kiln_arg args[] = {kiln_arg_array(arrays[0]), kiln_arg_array(arrays[1]), kiln_arg_int64(n)};
    CHECK_OK(kiln_kernel_launch(kernel, 1, &n, &group, 3, args, NULL));
    int32_t *partial = download(arrays[1]);
    for (int64_t g = 0; partial && g < groups; g++) {
      int32_t expected = 0;
      for (int64_t i = g * group; i < n && i < (g + 1) * group; i++) expected += in[i];
      CHECK_MSG(partial[g] == expected, "group %lld sums to %d, expected %d", (long long)g,
                partial[g], expected);
    }
    free(partial);
  }
  release_arrays(arrays, 2);
  kiln_kernel_release(kernel);
  free(in);
}

static void test_local_param(kiln_context *ctx) {
  const int64_t n = 463;
  kiln_kernel *kernel = harness_kernel(ctx, "local_param_reverse.kl", "local_param_reverse");
  float *in = malloc((size_t)n * sizeof *in);
  harness_fill_random(in, KILN_FLOAT32, n, -10, 10);
  kiln_array *arrays[3] = {upload(ctx, KILN_FLOAT32, n, in), zeros(ctx, KILN_FLOAT32, n),
                           zeros(ctx, KILN_INT32, n)};
  /* two work-group sizes: the local sizes are bound at launch */
  static const int64_t group_sizes[] = {50, 16};
  for (int s = 0; s < 2 && kernel && arrays[0] && arrays[1] && arrays[2]; s++) {
    int64_t ls = group_sizes[s];
    kiln_arg args[] = {kiln_arg_array(arrays[0]),
                       kiln_arg_array(arrays[1]),
                       kiln_arg_array(arrays[2]),
                       kiln_arg_local((size_t)ls * sizeof(uint8_t)),
                       kiln_arg_local((size_t)ls * sizeof(float)),
                       kiln_arg_int64(n)};
    CHECK_OK(kiln_kernel_launch(kernel, 1, &n, &ls, 6, args, NULL));
    float *out = download(arrays[1]);
    int32_t *tags = download(arrays[2]);
    int errors = 0;
    for (int64_t i = 0; out && tags && i < n; i++) {
      int64_t mirror = ls - 1 - i % ls, source = i / ls * ls + mirror;
      float value = source < n ? in[source] : 0.0f;
      int32_t tag = (uint8_t)(mirror * 7 + 3);
      if ((out[i] != value || tags[i] != tag) && errors++ < 5)
        harness_fail(__FILE__, __LINE__,
                     "group size %lld, item %lld: value %g tag %d, expected %g tag %d",
                     (long long)ls, (long long)i, out[i], tags[i], value, tag);
    }
    free(out);
    free(tags);
  }
  release_arrays(arrays, 3);
  kiln_kernel_release(kernel);
  free(in);
}

/* ---- atomics ----------------------------------------------------------------- */

/* Nonzero when tickets[begin..end) hold each of 0..end-begin-1 once. */
static int is_permutation(const double *tickets, int64_t begin, int64_t end) {
  int64_t count = end - begin;
  unsigned char *seen = calloc((size_t)count + 1, 1);
  int ok = seen != NULL;
  for (int64_t i = begin; ok && i < end; i++) {
    double t = tickets[i];
    if (t < 0 || t >= (double)count || t != floor(t) || seen[(int64_t)t]) ok = 0;
    else seen[(int64_t)t] = 1;
  }
  free(seen);
  return ok;
}

/* atomics_<i32|u32|f32>.kl: totals[0] (global adds) and totals[1] (local
 * adds, then one global add per group) must equal the host sum exactly: the
 * float inputs are multiples of 1/8 small enough for every partial sum to
 * be exact in any order. Tickets must be permutations. */
static void check_atomics(kiln_context *ctx, const char *file, const char *entry,
                          kiln_dtype dtype) {
  const int64_t n = 5037, group = 64, three = 3;
  size_t item = kiln_dtype_size(dtype);
  kiln_kernel *kernel = harness_kernel(ctx, file, entry);
  void *in = malloc((size_t)n * item);
  double expected = 0;
  for (int64_t i = 0; i < n; i++) {
    if (dtype == KILN_INT32) ((int32_t *)in)[i] = (int32_t)harness_rand_uniform(-1000, 1000);
    if (dtype == KILN_UINT32) ((uint32_t *)in)[i] = (uint32_t)harness_rand_u64();
    if (dtype == KILN_FLOAT32)
      ((float *)in)[i] = (float)(floor(harness_rand_uniform(-512, 512)) / 8);
    expected += harness_get(in, dtype, i);
  }
  if (dtype == KILN_UINT32) expected = fmod(expected, 4294967296.0); /* wraps */
  kiln_array *arrays[4] = {upload(ctx, dtype, n, in), zeros(ctx, dtype, three),
                           zeros(ctx, dtype, n), zeros(ctx, dtype, n)};
  if (kernel && arrays[0] && arrays[1] && arrays[2] && arrays[3]) {
    kiln_arg args[] = {kiln_arg_array(arrays[0]), kiln_arg_array(arrays[1]),
                       kiln_arg_array(arrays[2]), kiln_arg_array(arrays[3]), kiln_arg_int64(n)};
    CHECK_OK(kiln_kernel_launch(kernel, 1, &n, &group, 5, args, NULL));
    void *totals = download(arrays[1]), *global_raw = download(arrays[2]),
         *local_raw = download(arrays[3]);
    double *global_tickets = malloc((size_t)n * sizeof(double)),
           *local_tickets = malloc((size_t)n * sizeof(double));
    if (totals && global_raw && local_raw) {
      CHECK_MSG(harness_get(totals, dtype, 0) == expected, "%s: global sum %.17g, expected %.17g",
                entry, harness_get(totals, dtype, 0), expected);
      CHECK_MSG(harness_get(totals, dtype, 1) == expected, "%s: local sum %.17g, expected %.17g",
                entry, harness_get(totals, dtype, 1), expected);
      CHECK_MSG(harness_get(totals, dtype, 2) == (double)n, "%s: counter %.17g, expected %lld",
                entry, harness_get(totals, dtype, 2), (long long)n);
      for (int64_t i = 0; i < n; i++) {
        global_tickets[i] = harness_get(global_raw, dtype, i);
        local_tickets[i] = harness_get(local_raw, dtype, i);
      }
      CHECK_MSG(is_permutation(global_tickets, 0, n),
                "%s: the old values of the global counter are not 0..n-1", entry);
      for (int64_t g = 0; g * group < n; g++) {
        int64_t end = (g + 1) * group < n ? (g + 1) * group : n;
        CHECK_MSG(is_permutation(local_tickets, g * group, end),
                  "%s: group %lld: the old values of the local counter are not 0..%lld", entry,
                  (long long)g, (long long)(end - g * group - 1));
      }
    }
    free(totals);
    free(global_raw);
    free(local_raw);
    free(global_tickets);
    free(local_tickets);
  }
  release_arrays(arrays, 4);
  kiln_kernel_release(kernel);
  free(in);
}

static void test_atomics_i32(kiln_context *ctx) {
  check_atomics(ctx, "atomics_i32.kl", "atomics_i32", KILN_INT32);
}
static void test_atomics_u32(kiln_context *ctx) {
  check_atomics(ctx, "atomics_u32.kl", "atomics_u32", KILN_UINT32);
}
static void test_atomics_f32(kiln_context *ctx) {
  check_atomics(ctx, "atomics_f32.kl", "atomics_f32", KILN_FLOAT32);
}

static void test_atomics_contention(kiln_context *ctx) {
  const int64_t n = 4096, group = 128, groups = n / group, one = 1;
  const int32_t repeats = 1000; /* n * repeats stays exact in float */
  kiln_kernel *kernel = harness_kernel(ctx, "atomics_contention.kl", "atomics_contention");
  kiln_array *arrays[4] = {zeros(ctx, KILN_INT32, one), zeros(ctx, KILN_UINT32, one),
                           zeros(ctx, KILN_FLOAT32, one), zeros(ctx, KILN_FLOAT32, groups)};
  if (kernel && arrays[0] && arrays[1] && arrays[2] && arrays[3]) {
    kiln_arg args[] = {kiln_arg_array(arrays[0]), kiln_arg_array(arrays[1]),
                       kiln_arg_array(arrays[2]), kiln_arg_array(arrays[3]),
                       kiln_arg_int32(repeats)};
    CHECK_OK(kiln_kernel_launch(kernel, 1, &n, &group, 5, args, NULL));
    int32_t *icount = download(arrays[0]);
    uint32_t *ucount = download(arrays[1]);
    float *fcount = download(arrays[2]), *group_counts = download(arrays[3]);
    if (icount && ucount && fcount && group_counts) {
      CHECK_MSG(icount[0] == n * repeats, "int32 counter %d, expected %lld", icount[0],
                (long long)(n * repeats));
      CHECK_MSG(ucount[0] == (uint32_t)(n * repeats), "uint32 counter %u, expected %lld",
                ucount[0], (long long)(n * repeats));
      CHECK_MSG(fcount[0] == (float)(n * repeats), "float counter %.9g, expected %lld",
                fcount[0], (long long)(n * repeats));
      for (int64_t g = 0; g < groups; g++)
        CHECK_MSG(group_counts[g] == (float)(group * repeats),
                  "group %lld: local float counter %.9g, expected %lld", (long long)g,
                  group_counts[g], (long long)(group * repeats));
    }
    free(icount);
    free(ucount);
    free(fcount);
    free(group_counts);
  }
  release_arrays(arrays, 4);
  kiln_kernel_release(kernel);
}

static void test_atomics_64(kiln_context *ctx) {
  const int64_t n = 3001, group = 64, three = 3, one = 1;
  kiln_kernel *kernel = harness_kernel(ctx, "atomics_64.kl", "atomics_64");
  int64_t *in = malloc((size_t)n * sizeof *in);
  uint64_t usum = 0;
  int64_t isum = 0;
  for (int64_t i = 0; i < n; i++) {
    /* beyond 32 bits, both signs */
    in[i] = (int64_t)(harness_rand_u64() >> 23) - ((int64_t)1 << 40);
    usum += (uint64_t)in[i];
    isum += in[i];
  }
  kiln_array *arrays[5] = {upload(ctx, KILN_INT64, n, in), zeros(ctx, KILN_UINT64, three),
                           zeros(ctx, KILN_INT64, three), zeros(ctx, KILN_INT64, n),
                           zeros(ctx, KILN_INT32, one)};
  if (kernel && arrays[0] && arrays[1] && arrays[2] && arrays[3] && arrays[4]) {
    kiln_arg args[] = {kiln_arg_array(arrays[0]), kiln_arg_array(arrays[1]),
                       kiln_arg_array(arrays[2]), kiln_arg_array(arrays[3]),
                       kiln_arg_array(arrays[4]), kiln_arg_int64(n)};
    CHECK_OK(kiln_kernel_launch(kernel, 1, &n, &group, 6, args, NULL));
    uint64_t *utotals = download(arrays[1]);
    int64_t *itotals = download(arrays[2]), *tickets = download(arrays[3]);
    int32_t *supported = download(arrays[4]);
    if (supported && !supported[0]) {
      CHECK_MSG(harness_backend_is(ctx, "opencl"), "CUDA and HIP always have 64-bit atomics");
      harness_skip("the device has no cl_khr_int64_base_atomics (KILN_HAS_ATOMIC_INT64 unset)");
    } else if (utotals && itotals && tickets) {
      CHECK_MSG(utotals[0] == usum && utotals[1] == usum, "u64 sums %llu / %llu, expected %llu",
                (unsigned long long)utotals[0], (unsigned long long)utotals[1],
                (unsigned long long)usum);
      CHECK_MSG(itotals[0] == isum && itotals[1] == isum, "i64 sums %lld / %lld, expected %lld",
                (long long)itotals[0], (long long)itotals[1], (long long)isum);
      CHECK(itotals[2] == n);
      double *t = malloc((size_t)n * sizeof *t);
      for (int64_t i = 0; i < n; i++) t[i] = (double)tickets[i];
      CHECK_MSG(is_permutation(t, 0, n), "old values of the 64-bit counter are not 0..n-1");
      free(t);
    }
    free(utotals);
    free(itotals);
    free(tickets);
    free(supported);
  }
  release_arrays(arrays, 5);
  kiln_kernel_release(kernel);
  free(in);
}

static void test_atomics_f64(kiln_context *ctx) {
  if (!device_has_double(ctx)) {
    harness_skip("the device has no float64 support");
    return;
  }
  const int64_t n = 3001, group = 64, three = 3, one = 1;
  kiln_kernel *kernel = harness_kernel(ctx, "atomics_f64.kl", "atomics_f64");
  double *in = malloc((size_t)n * sizeof *in), sum = 0;
  for (int64_t i = 0; i < n; i++) {
    /* multiples of 1/8 below 2^20: every partial sum is exact */
    in[i] = floor(harness_rand_uniform(-8388608.0, 8388608.0)) / 8;
    sum += in[i];
  }
  kiln_array *arrays[4] = {upload(ctx, KILN_FLOAT64, n, in), zeros(ctx, KILN_FLOAT64, three),
                           zeros(ctx, KILN_FLOAT64, n), zeros(ctx, KILN_INT32, one)};
  if (kernel && arrays[0] && arrays[1] && arrays[2] && arrays[3]) {
    kiln_arg args[] = {kiln_arg_array(arrays[0]), kiln_arg_array(arrays[1]),
                       kiln_arg_array(arrays[2]), kiln_arg_array(arrays[3]), kiln_arg_int64(n)};
    CHECK_OK(kiln_kernel_launch(kernel, 1, &n, &group, 5, args, NULL));
    double *totals = download(arrays[1]), *tickets = download(arrays[2]);
    int32_t *supported = download(arrays[3]);
    if (supported && !supported[0]) {
      CHECK_MSG(harness_backend_is(ctx, "opencl"), "CUDA and HIP always have 64-bit atomics");
      harness_skip("the device has no cl_khr_int64_base_atomics (KILN_HAS_ATOMIC_INT64 unset)");
    } else if (totals && tickets) {
      CHECK_MSG(totals[0] == sum && totals[1] == sum, "f64 sums %.17g / %.17g, expected %.17g",
                totals[0], totals[1], sum);
      CHECK(totals[2] == (double)n);
      CHECK_MSG(is_permutation(tickets, 0, n), "old values of the f64 counter are not 0..n-1");
    }
    free(totals);
    free(tickets);
    free(supported);
  }
  release_arrays(arrays, 4);
  kiln_kernel_release(kernel);
  free(in);
}

/* ---- math ------------------------------------------------------------------ */

/* Special inputs placed at the start of x (and y) for some functions. */
enum {
  SPECIAL_NONE = 0,
  SPECIAL_ROUNDING, /* halfway cases and signed zero */
  SPECIAL_CLASSES,  /* NaN, infinities, signed zeros */
  SPECIAL_NAN_ARG,  /* a NaN in x or y: fmin/fmax return the other one */
  SPECIAL_SIGNS     /* y negative half of the time, and -0.0 */
};

typedef struct math_case {
  const char *name; /* in the order of the kernels' switch (fn) */
  double x_lo, x_hi, y_lo, y_hi;
  int special;
  /* tolerance: |got - ref| <= atol + ulps * eps * |ref|, eps of the type */
  double ulps, atol_eps;
  double (*ref)(double x, double y, double z);
} math_case;

#define REF(fn, expr)                                   \
  static double ref_##fn(double x, double y, double z) { \
    (void)x;                                            \
    (void)y;                                            \
    (void)z;                                            \
    return (expr);                                      \
  }
REF(sqrt, sqrt(x))
REF(rsqrt, 1 / sqrt(x))
REF(cbrt, cbrt(x))
REF(exp, exp(x))
REF(exp2, exp2(x))
REF(exp10, pow(10, x))
REF(expm1, expm1(x))
REF(log, log(x))
REF(log2, log2(x))
REF(log10, log10(x))
REF(log1p, log1p(x))
REF(sin, sin(x))
REF(cos, cos(x))
REF(tan, tan(x))
REF(asin, asin(x))
REF(acos, acos(x))
REF(atan, atan(x))
REF(atan2, atan2(x, y))
REF(sinh, sinh(x))
REF(cosh, cosh(x))
REF(tanh, tanh(x))
REF(asinh, asinh(x))
REF(acosh, acosh(x))
REF(atanh, atanh(x))
REF(pow, pow(x, y))
REF(hypot, hypot(x, y))
REF(fabs, fabs(x))
REF(floor, floor(x))
REF(ceil, ceil(x))
REF(round, round(x))
REF(trunc, trunc(x))
REF(fmod, fmod(x, y))
REF(fmin, fmin(x, y))
REF(fmax, fmax(x, y))
REF(fma, fma(x, y, z))
REF(copysign, copysign(x, y))
REF(erf, erf(x))
REF(erfc, erfc(x))
REF(tgamma, tgamma(x))
REF(lgamma, lgamma(x))
REF(isnan, isnan(x) ? 1 : 0)
REF(isinf, isinf(x) ? 1 : 0)
REF(isfinite, isfinite(x) ? 1 : 0)
REF(signbit, signbit(x) ? 1 : 0)
REF(min, y < x ? y : x)
REF(max, x < y ? y : x)
REF(abs, x < 0 ? -x : x)
REF(pi, 3.141592653589793238462643383279502884)
REF(infinity, INFINITY)
REF(nan, NAN)

/* Tolerances: the OpenCL 1.2 full-profile ulp bounds (which the CUDA and
 * HIP libraries meet) plus one for the rounding of the reference, and an
 * absolute floor where a result passes through zero. */
static const math_case math_cases[] = {
    {"sqrt", 0, 100, 0, 1, SPECIAL_NONE, 4, 0, ref_sqrt},
    {"rsqrt", 0.01, 100, 0, 1, SPECIAL_NONE, 4, 0, ref_rsqrt},
    {"cbrt", -100, 100, 0, 1, SPECIAL_NONE, 4, 0, ref_cbrt},
    {"exp", -20, 20, 0, 1, SPECIAL_NONE, 4, 0, ref_exp},
    {"exp2", -20, 20, 0, 1, SPECIAL_NONE, 4, 0, ref_exp2},
    {"exp10", -10, 10, 0, 1, SPECIAL_NONE, 4, 0, ref_exp10},
    {"expm1", -5, 5, 0, 1, SPECIAL_NONE, 4, 0, ref_expm1},
    {"log", 1e-3, 1e3, 0, 1, SPECIAL_NONE, 4, 0, ref_log},
    {"log2", 1e-3, 1e3, 0, 1, SPECIAL_NONE, 4, 0, ref_log2},
    {"log10", 1e-3, 1e3, 0, 1, SPECIAL_NONE, 4, 0, ref_log10},
    {"log1p", -0.9, 100, 0, 1, SPECIAL_NONE, 4, 0, ref_log1p},
    {"sin", -3, 3, 0, 1, SPECIAL_NONE, 5, 4, ref_sin},
    {"cos", -3, 3, 0, 1, SPECIAL_NONE, 5, 4, ref_cos},
    {"tan", -1.5, 1.5, 0, 1, SPECIAL_NONE, 5, 4, ref_tan},
    {"asin", -1, 1, 0, 1, SPECIAL_NONE, 5, 4, ref_asin},
    {"acos", -1, 1, 0, 1, SPECIAL_NONE, 5, 4, ref_acos},
    {"atan", -10, 10, 0, 1, SPECIAL_NONE, 6, 0, ref_atan},
    {"atan2", -10, 10, -10, 10, SPECIAL_NONE, 7, 4, ref_atan2},
    {"sinh", -10, 10, 0, 1, SPECIAL_NONE, 5, 0, ref_sinh},
    {"cosh", -10, 10, 0, 1, SPECIAL_NONE, 5, 0, ref_cosh},
    {"tanh", -5, 5, 0, 1, SPECIAL_NONE, 6, 0, ref_tanh},
    {"asinh", -100, 100, 0, 1, SPECIAL_NONE, 5, 0, ref_asinh},
    {"acosh", 1, 50, 0, 1, SPECIAL_NONE, 5, 4, ref_acosh},
    {"atanh", -0.99, 0.99, 0, 1, SPECIAL_NONE, 6, 0, ref_atanh},
    {"pow", 0.1, 10, -5, 5, SPECIAL_NONE, 17, 0, ref_pow},
    {"hypot", -100, 100, -100, 100, SPECIAL_NONE, 5, 0, ref_hypot},
    {"fabs", -100, 100, 0, 1, SPECIAL_CLASSES, 0, 0, ref_fabs},
    {"floor", -100, 100, 0, 1, SPECIAL_ROUNDING, 0, 0, ref_floor},
    {"ceil", -100, 100, 0, 1, SPECIAL_ROUNDING, 0, 0, ref_ceil},
    {"round", -100, 100, 0, 1, SPECIAL_ROUNDING, 0, 0, ref_round},
    {"trunc", -100, 100, 0, 1, SPECIAL_ROUNDING, 0, 0, ref_trunc},
    {"fmod", -100, 100, 0.5, 10, SPECIAL_SIGNS, 0, 0, ref_fmod},
    {"fmin", -100, 100, -100, 100, SPECIAL_NAN_ARG, 0, 0, ref_fmin},
    {"fmax", -100, 100, -100, 100, SPECIAL_NAN_ARG, 0, 0, ref_fmax},
    {"fma", -100, 100, -100, 100, SPECIAL_NONE, 1, 0, ref_fma},
    {"copysign", -100, 100, 0.5, 10, SPECIAL_SIGNS, 0, 0, ref_copysign},
    {"erf", -3, 3, 0, 1, SPECIAL_NONE, 17, 0, ref_erf},
    {"erfc", -2, 5, 0, 1, SPECIAL_NONE, 17, 0, ref_erfc},
    {"tgamma", 0.1, 10, 0, 1, SPECIAL_NONE, 17, 0, ref_tgamma},
    {"lgamma", 0.1, 20, 0, 1, SPECIAL_NONE, 17, 16, ref_lgamma},
    {"isnan", -100, 100, 0, 1, SPECIAL_CLASSES, 0, 0, ref_isnan},
    {"isinf", -100, 100, 0, 1, SPECIAL_CLASSES, 0, 0, ref_isinf},
    {"isfinite", -100, 100, 0, 1, SPECIAL_CLASSES, 0, 0, ref_isfinite},
    {"signbit", -100, 100, 0, 1, SPECIAL_CLASSES, 0, 0, ref_signbit},
    {"kiln_min", -100, 100, -100, 100, SPECIAL_NONE, 0, 0, ref_min},
    {"kiln_max", -100, 100, -100, 100, SPECIAL_NONE, 0, 0, ref_max},
    {"kiln_abs", -100, 100, 0, 1, SPECIAL_NONE, 0, 0, ref_abs},
    {"KILN_PI", 0, 1, 0, 1, SPECIAL_NONE, 0, 0, ref_pi},
    {"KILN_INFINITY", 0, 1, 0, 1, SPECIAL_NONE, 0, 0, ref_infinity},
    {"KILN_NAN", 0, 1, 0, 1, SPECIAL_NONE, 0, 0, ref_nan},
};
#define MATH_CASES (int)(sizeof math_cases / sizeof math_cases[0])
#define MATH_N 2048

/* Fills x, y, z (doubles) with the inputs of case c. */
static void math_inputs(const math_case *c, double *x, double *y, double *z) {
  for (int i = 0; i < MATH_N; i++) {
    x[i] = harness_rand_uniform(c->x_lo, c->x_hi);
    y[i] = harness_rand_uniform(c->y_lo, c->y_hi);
    z[i] = harness_rand_uniform(-100, 100);
    if (c->special == SPECIAL_SIGNS && i % 2) y[i] = -y[i];
  }
  static const double rounding[] = {0.5, -0.5, 1.5, -1.5, 2.5, -2.5, -0.0, 0.0, 99.5, -7.25};
  static const double classes[] = {NAN, INFINITY, -INFINITY, -0.0, 0.0, 1, -1, FLT_MAX, -FLT_MAX};
  if (c->special == SPECIAL_ROUNDING) memcpy(x, rounding, sizeof rounding);
  if (c->special == SPECIAL_CLASSES) memcpy(x, classes, sizeof classes);
  if (c->special == SPECIAL_NAN_ARG) {
    x[0] = NAN;
    y[1] = NAN;
  }
  if (c->special == SPECIAL_SIGNS) y[0] = -0.0;
}

/* Runs every case of the table through kernel `entry` of `file` in dtype
 * (float32 or float64) and compares with libm. */
static void check_math(kiln_context *ctx, const char *file, const char *entry, kiln_dtype dtype) {
  kiln_kernel *kernel = harness_kernel(ctx, file, entry);
  if (!kernel) return;
  int is_f32 = dtype == KILN_FLOAT32;
  double eps = is_f32 ? FLT_EPSILON : DBL_EPSILON;
  size_t item = kiln_dtype_size(dtype);
  double *x = malloc(MATH_N * sizeof *x), *y = malloc(MATH_N * sizeof *y),
         *z = malloc(MATH_N * sizeof *z);
  unsigned char *hx = malloc(MATH_N * item), *hy = malloc(MATH_N * item),
                *hz = malloc(MATH_N * item);
  const int64_t n = MATH_N;
  for (int c = 0; c < MATH_CASES; c++) {
    const math_case *mc = &math_cases[c];
    math_inputs(mc, x, y, z);
    for (int i = 0; i < MATH_N; i++) {
      if (is_f32) {
        /* the reference sees exactly the float the device sees */
        ((float *)hx)[i] = (float)x[i], x[i] = ((float *)hx)[i];
        ((float *)hy)[i] = (float)y[i], y[i] = ((float *)hy)[i];
        ((float *)hz)[i] = (float)z[i], z[i] = ((float *)hz)[i];
      } else {
        ((double *)hx)[i] = x[i];
        ((double *)hy)[i] = y[i];
        ((double *)hz)[i] = z[i];
      }
    }
    kiln_array *arrays[4] = {upload(ctx, dtype, n, hx), upload(ctx, dtype, n, hy),
                             upload(ctx, dtype, n, hz), zeros(ctx, dtype, n)};
    if (arrays[0] && arrays[1] && arrays[2] && arrays[3]) {
      kiln_arg args[] = {kiln_arg_array(arrays[0]), kiln_arg_array(arrays[1]),
                         kiln_arg_array(arrays[2]), kiln_arg_array(arrays[3]),
                         kiln_arg_int32(c),         kiln_arg_int64(n)};
      CHECK_OK(kiln_kernel_launch(kernel, 1, &n, NULL, 6, args, NULL));
      void *out = download(arrays[3]);
      int errors = 0;
      for (int i = 0; out && i < MATH_N; i++) {
        double got = harness_get(out, dtype, i), ref = mc->ref(x[i], y[i], z[i]);
        /* a float result can at best be the float nearest the exact value */
        if (is_f32 && isfinite(ref))
          ref = ref > FLT_MAX ? INFINITY : ref < -FLT_MAX ? -INFINITY : (double)(float)ref;
        int ok = (isnan(ref) && isnan(got)) || got == ref ||
                 (isfinite(ref) && isfinite(got) &&
                  fabs(got - ref) <= mc->atol_eps * eps + mc->ulps * eps * fabs(ref));
        if (!ok && errors++ < 3)
          harness_fail(__FILE__, __LINE__, "%s %s(%.9g, %.9g, %.9g) = %.17g, expected %.17g",
                       entry, mc->name, x[i], y[i], z[i], got, ref);
      }
      free(out);
    }
    release_arrays(arrays, 4);
  }
  free(x);
  free(y);
  free(z);
  free(hx);
  free(hy);
  free(hz);
  kiln_kernel_release(kernel);
}

static void test_math_f32(kiln_context *ctx) {
  check_math(ctx, "math_f32.kl", "math_f32", KILN_FLOAT32);
}

static void test_math_f64(kiln_context *ctx) {
  if (!device_has_double(ctx)) {
    harness_skip("the device has no float64 support");
    return;
  }
  check_math(ctx, "math_f64.kl", "math_f64", KILN_FLOAT64);
}

static void test_math_f_suffix(kiln_context *ctx) {
  check_math(ctx, "math_fsuffix.kl", "math_fsuffix", KILN_FLOAT32);
}

/* ---- types ----------------------------------------------------------------- */

static void test_type_sizes(kiln_context *ctx) {
  const int64_t count = 23, one = 1;
  kiln_kernel *kernel = harness_kernel(ctx, "type_sizes.kl", "type_sizes");
  kiln_array *out = zeros(ctx, KILN_INT32, count);
  if (kernel && out) {
    kiln_arg arg = kiln_arg_array(out);
    CHECK_OK(kiln_kernel_launch(kernel, 1, &one, NULL, 1, &arg, NULL));
    int32_t *v = download(out);
    static const char *const names[] = {
        "int8_t", "uint8_t", "int16_t", "uint16_t", "int32_t", "uint32_t", "int64_t",
        "uint64_t", "kiln_bool", "kiln_index", "float", "double", "kiln_philox4x32_ctr",
        "kiln_philox4x32_key"};
    const int32_t sizes[] = {1, 1, 2, 2, 4, 4, 8, 8, 1, 8, 4,
                             device_has_double(ctx) ? 8 : -1, 16, 8};
    for (int i = 0; v && i < 14; i++)
      CHECK_MSG(v[i] == sizes[i], "sizeof(%s) = %d in the kernel, expected %d", names[i], v[i],
                sizes[i]);
    static const char *const facts[] = {
        "(int8_t)-1 < 0",         "(uint8_t)-1 == 255",       "(int16_t)-1 < 0",
        "(uint16_t)-1 == 65535",  "(uint32_t)-1 + 1u == 0",   "(uint64_t)-1 == 2^64-1",
        "(int64_t)-1 * 2^32 == -2^32", "(kiln_index)-1 < 0"};
    for (int i = 0; v && i < 8; i++) CHECK_MSG(v[14 + i] == 1, "in the kernel, %s is false", facts[i]);
    int dialect = harness_backend_is(ctx, "opencl") ? 1 : harness_backend_is(ctx, "cuda") ? 10 : 100;
    if (v)
      CHECK_MSG(v[22] == dialect, "dialect macros sum to %d, expected %d (only this backend's)",
                v[22], dialect);
    free(v);
  }
  kiln_array_release(out);
  kiln_kernel_release(kernel);
}

static void test_type_arrays(kiln_context *ctx) {
  const int64_t n = 1000;
  kiln_kernel *kernel = harness_kernel(ctx, "type_arrays.kl", "type_arrays");
  int8_t *i8 = malloc((size_t)n), s8 = -5;
  uint8_t *u8 = malloc((size_t)n), t8 = 200, *b = malloc((size_t)n);
  int16_t *i16 = malloc((size_t)n * 2), s16 = -300;
  uint16_t *u16 = malloc((size_t)n * 2), t16 = 60000;
  int64_t *i64 = malloc((size_t)n * 8), s64 = -((int64_t)1 << 40);
  uint64_t *u64 = malloc((size_t)n * 8), t64 = (uint64_t)3 << 40;
  harness_fill_random(i8, KILN_INT8, n, -128, 128);
  harness_fill_random(u8, KILN_UINT8, n, 0, 256);
  harness_fill_random(i16, KILN_INT16, n, -32768, 32768);
  harness_fill_random(u16, KILN_UINT16, n, 0, 65536);
  harness_fill_random(b, KILN_BOOL, n, 0, 2);
  for (int64_t i = 0; i < n; i++) {
    i64[i] = (int64_t)(harness_rand_u64() >> 14) - ((int64_t)1 << 49);
    u64[i] = harness_rand_u64();
  }
  kiln_array *arrays[14] = {
      upload(ctx, KILN_INT8, n, i8),    zeros(ctx, KILN_INT8, n),
      upload(ctx, KILN_UINT8, n, u8),   zeros(ctx, KILN_UINT8, n),
      upload(ctx, KILN_INT16, n, i16),  zeros(ctx, KILN_INT16, n),
      upload(ctx, KILN_UINT16, n, u16), zeros(ctx, KILN_UINT16, n),
      upload(ctx, KILN_INT64, n, i64),  zeros(ctx, KILN_INT64, n),
      upload(ctx, KILN_UINT64, n, u64), zeros(ctx, KILN_UINT64, n),
      upload(ctx, KILN_BOOL, n, b),     zeros(ctx, KILN_BOOL, n)};
  int ready = kernel != NULL;
  for (int a = 0; a < 14; a++) ready = ready && arrays[a];
  if (ready) {
    kiln_arg args[] = {
        kiln_arg_array(arrays[0]),  kiln_arg_array(arrays[1]),  int_arg(KILN_INT8, s8),
        kiln_arg_array(arrays[2]),  kiln_arg_array(arrays[3]),  uint_arg(KILN_UINT8, t8),
        kiln_arg_array(arrays[4]),  kiln_arg_array(arrays[5]),  int_arg(KILN_INT16, s16),
        kiln_arg_array(arrays[6]),  kiln_arg_array(arrays[7]),  uint_arg(KILN_UINT16, t16),
        kiln_arg_array(arrays[8]),  kiln_arg_array(arrays[9]),  kiln_arg_int64(s64),
        kiln_arg_array(arrays[10]), kiln_arg_array(arrays[11]), kiln_arg_uint64(t64),
        kiln_arg_array(arrays[12]), kiln_arg_array(arrays[13]), kiln_arg_int64(n)};
    CHECK_OK(kiln_kernel_launch(kernel, 1, &n, NULL, (int)(sizeof args / sizeof args[0]), args,
                                NULL));
    int8_t *o8 = download(arrays[1]);
    uint8_t *p8 = download(arrays[3]), *nb = download(arrays[13]);
    int16_t *o16 = download(arrays[5]);
    uint16_t *p16 = download(arrays[7]);
    int64_t *o64 = download(arrays[9]);
    uint64_t *p64 = download(arrays[11]);
    int errors = 0;
    for (int64_t i = 0; o8 && p8 && nb && o16 && p16 && o64 && p64 && i < n; i++) {
      int ok = o8[i] == (int8_t)(i8[i] * 3 - 1 + s8) &&
               p8[i] == (uint8_t)(u8[i] * 3u - 1u + t8) &&
               o16[i] == (int16_t)(i16[i] * 3 - 1 + s16) &&
               p16[i] == (uint16_t)(u16[i] * 3u - 1u + t16) && o64[i] == i64[i] * 3 - 1 + s64 &&
               p64[i] == u64[i] * 3u - 1u + t64 && nb[i] == !b[i];
      if (!ok && errors++ < 5)
        harness_fail(__FILE__, __LINE__,
                     "element %lld: int8 %d (in %d), uint8 %u (in %u), int16 %d (in %d), "
                     "uint16 %u (in %u), int64 %lld (in %lld), uint64 %llu (in %llu), "
                     "bool %u (in %u)",
                     (long long)i, o8[i], i8[i], p8[i], u8[i], o16[i], i16[i], p16[i], u16[i],
                     (long long)o64[i], (long long)i64[i], (unsigned long long)p64[i],
                     (unsigned long long)u64[i], nb[i], b[i]);
    }
    free(o8);
    free(p8);
    free(nb);
    free(o16);
    free(p16);
    free(o64);
    free(p64);
  }
  release_arrays(arrays, 14);
  kiln_kernel_release(kernel);
  free(i8);
  free(u8);
  free(b);
  free(i16);
  free(u16);
  free(i64);
  free(u64);
}

/* kiln_vload and the kiln_<dtype>x<n> vectors: each component in place. */
static void test_vector_load(kiln_context *ctx) {
  const int64_t nv = 257;
  static const kiln_dtype dtypes[] = {KILN_FLOAT32, KILN_INT32,  KILN_UINT32,
                                      KILN_INT64,   KILN_UINT64, KILN_FLOAT64};
  static const char *const entries[] = {"vector_load_4", "vector_load_2", "vector_load_f64"};
  int have_double = device_has_double(ctx);
  for (int k = 0; k < 3; k++) {
    int first = k == 0 ? 0 : k == 1 ? 3 : 5, count = k == 0 ? 3 : k == 1 ? 2 : 1;
    if (k == 2 && !have_double) continue;
    int lanes = k == 0 ? 4 : 2;
    int64_t n = nv * lanes;
    kiln_kernel *kernel = harness_kernel(ctx, "vector_load.kl", entries[k]);
    void *host[3] = {0};
    kiln_array *arrays[6] = {0};
    kiln_arg args[7];
    int ready = kernel != NULL, nargs = 0;
    for (int a = 0; a < count; a++) {
      kiln_dtype d = dtypes[first + a];
      host[a] = malloc((size_t)n * kiln_dtype_size(d));
      harness_fill_random(host[a], d, n, d == KILN_UINT32 || d == KILN_UINT64 ? 0 : -1e6, 1e6);
      arrays[2 * a] = upload(ctx, d, n, host[a]);
      arrays[2 * a + 1] = zeros(ctx, d, n);
      ready = ready && arrays[2 * a] && arrays[2 * a + 1];
      args[nargs++] = kiln_arg_array(arrays[2 * a]);
      args[nargs++] = kiln_arg_array(arrays[2 * a + 1]);
    }
    args[nargs++] = kiln_arg_int64(nv);
    if (ready) {
      CHECK_OK(kiln_kernel_launch(kernel, 1, &nv, NULL, nargs, args, NULL));
      for (int a = 0; a < count; a++) {
        size_t size = kiln_dtype_size(dtypes[first + a]);
        char *got = download(arrays[2 * a + 1]);
        for (int64_t i = 0; got && i < n; i++) {
          int64_t from = i - i % lanes + (lanes - 1 - i % lanes);
          CHECK_MSG(memcmp(got + i * (int64_t)size, (char *)host[a] + from * (int64_t)size,
                           size) == 0,
                    "%s %s element %lld", entries[k], kiln_dtype_name(dtypes[first + a]),
                    (long long)i);
        }
        free(got);
      }
    }
    for (int a = 0; a < 6; a++) kiln_array_release(arrays[a]);
    for (int a = 0; a < 3; a++) free(host[a]);
    kiln_kernel_release(kernel);
  }
}

/* A backend lacks the warp feature `macro`: a failure on CUDA, and on
 * NVIDIA's OpenCL, which has it through inline PTX unless turned off
 * (KILN_OPENCL_LANE_SHUFFLE=0) or unless its compiler refused that (a
 * KILN_LOG=warn line says so). */
static void expect_warp_feature(kiln_context *ctx, const char *macro) {
  CHECK_MSG(!harness_backend_is(ctx, "cuda"), "CUDA must define %s", macro);
  kiln_device_info info;
  const char *off = getenv("KILN_OPENCL_LANE_SHUFFLE");
  CHECK_MSG(!(harness_backend_is(ctx, "opencl") && kiln_context_device_info(ctx, &info) == KILN_OK &&
              strcmp(info.platform, "NVIDIA CUDA") == 0 && !(off && strcmp(off, "0") == 0)),
            "NVIDIA's OpenCL should define %s (inline PTX; KILN_LOG=warn shows whether the "
            "driver refused it)",
            macro);
}

/* kiln_flag_load / kiln_flag_store where work-groups see each other's
 * flags (KILN_DEVICE_SCOPE_ORDER: CUDA, HIP, NVIDIA's OpenCL): 300
 * work-groups chain an inclusive prefix sum of random values through flag
 * words, each waiting for the one that took the ticket before it, against
 * the sum on the host; backends without it skip with the reason (CUDA and
 * NVIDIA's OpenCL must have it). */
static void test_flag_chain(kiln_context *ctx) {
  const int64_t groups = 300, group = 64, n = groups * group;
  kiln_kernel *kernel = harness_kernel(ctx, "flag_chain.kl", "flag_chain");
  uint32_t *in = malloc((size_t)groups * sizeof *in);
  for (int64_t t = 0; t < groups; t++) in[t] = 1u + (uint32_t)(harness_rand_u64() % 100000u);
  kiln_array *arrays[5] = {zeros(ctx, KILN_UINT32, groups), zeros(ctx, KILN_UINT32, 1),
                           upload(ctx, KILN_UINT32, groups, in), zeros(ctx, KILN_UINT32, groups),
                           zeros(ctx, KILN_INT32, 1)};
  int ready = kernel != NULL;
  for (int a = 0; a < 5; a++) ready = ready && arrays[a];
  if (ready) {
    kiln_arg args[5];
    for (int a = 0; a < 5; a++) args[a] = kiln_arg_array(arrays[a]);
    CHECK_OK(kiln_kernel_launch(kernel, 1, &n, &group, 5, args, NULL));
    int32_t *found = download(arrays[4]);
    uint32_t *out = download(arrays[3]);
    if (found && !found[0]) {
      expect_warp_feature(ctx, "KILN_DEVICE_SCOPE_ORDER");
      harness_skip("no device-scope ordering on this backend (KILN_DEVICE_SCOPE_ORDER "
                   "undefined; CUDA, HIP and NVIDIA's OpenCL have it)");
    } else if (found && out) {
      uint32_t sum = 0;
      int64_t bad = -1;
      for (int64_t t = 0; t < groups && bad < 0; t++) {
        sum += in[t];
        if (out[t] != sum) bad = t;
      }
      CHECK_MSG(bad < 0, "ticket %lld: prefix %u, expected the host's", (long long)bad,
                bad >= 0 ? out[bad] : 0u);
    }
    free(found);
    free(out);
  }
  for (int a = 0; a < 5; a++) kiln_array_release(arrays[a]);
  free(in);
  kiln_kernel_release(kernel);
}

/* kiln_lane_shuffle_down (CUDA, NVIDIA's OpenCL: KILN_LANE_SHUFFLE), distances 1 to 16, on
 * random int32, float32 and int64 values: a work-item whose partner is in
 * its warp (lane + d < 32) gets the partner's value; backends without it
 * skip with the reason. */
static void test_lane_shuffle(kiln_context *ctx) {
  const int64_t n = 256 * 5, group = 256;
  kiln_kernel *kernel = harness_kernel(ctx, "lane_shuffle.kl", "lane_shuffle");
  int32_t *i32 = malloc((size_t)n * sizeof *i32);
  float *f32 = malloc((size_t)n * sizeof *f32);
  int64_t *i64 = malloc((size_t)n * sizeof *i64);
  harness_fill_random(i32, KILN_INT32, n, -1e9, 1e9);
  harness_fill_random(f32, KILN_FLOAT32, n, -1e6, 1e6);
  harness_fill_random(i64, KILN_INT64, n, -9e18, 9e18);
  kiln_array *arrays[7] = {upload(ctx, KILN_INT32, n, i32),   zeros(ctx, KILN_INT32, n),
                           upload(ctx, KILN_FLOAT32, n, f32), zeros(ctx, KILN_FLOAT32, n),
                           upload(ctx, KILN_INT64, n, i64),   zeros(ctx, KILN_INT64, n),
                           zeros(ctx, KILN_INT32, 1)};
  int ready = kernel != NULL;
  for (int a = 0; a < 7; a++) ready = ready && arrays[a];
  static const int32_t distances[] = {1, 2, 4, 8, 16};
  for (size_t k = 0; ready && k < sizeof distances / sizeof distances[0]; k++) {
    int32_t d = distances[k];
    kiln_arg args[8];
    for (int a = 0; a < 7; a++) args[a] = kiln_arg_array(arrays[a]);
    args[7] = kiln_arg_int32(d);
    CHECK_OK(kiln_kernel_launch(kernel, 1, &n, &group, 8, args, NULL));
    int32_t *found = download(arrays[6]);
    if (found && !found[0]) {
      free(found);
      expect_warp_feature(ctx, "KILN_LANE_SHUFFLE");
      harness_skip("no lane shuffle on this backend (KILN_LANE_SHUFFLE undefined; CUDA and "
                   "NVIDIA's OpenCL have it)");
      break;
    }
    free(found);
    int32_t *o32 = download(arrays[1]);
    float *of32 = download(arrays[3]);
    int64_t *o64 = download(arrays[5]);
    for (int64_t i = 0; o32 && of32 && o64 && i < n; i++) {
      if (i % 32 + d >= 32) continue; /* the partner is in another warp */
      CHECK_MSG(o32[i] == i32[i + d] && memcmp(&of32[i], &f32[i + d], sizeof(float)) == 0 &&
                    o64[i] == i64[i + d],
                "distance %d, work-item %lld: got %d %g %lld, expected %d %g %lld", d,
                (long long)i, o32[i], of32[i], (long long)o64[i], i32[i + d], f32[i + d],
                (long long)i64[i + d]);
    }
    free(o32);
    free(of32);
    free(o64);
  }
  release_arrays(arrays, 7);
  kiln_kernel_release(kernel);
  free(i32);
  free(f32);
  free(i64);
}

/* kiln_lane_ballot (CUDA, NVIDIA's OpenCL: KILN_LANE_BALLOT) on random
 * predicates (about a third set, some negative), and kiln_popcount_u32 on
 * every backend: each work-item gets its warp's 32 votes, bit j for lane
 * j; backends without the ballot check the popcount of their own value and
 * skip the ballot with the reason. */
static void test_lane_ballot(kiln_context *ctx) {
  const int64_t n = 256 * 3, group = 256;
  kiln_kernel *kernel = harness_kernel(ctx, "lane_ballot.kl", "lane_ballot");
  int32_t *pred = malloc((size_t)n * sizeof *pred);
  for (int64_t i = 0; i < n; i++) {
    uint64_t r = harness_rand_u64();
    pred[i] = r % 3 == 0 ? (int32_t)(r >> 32) | 1 : 0;
    if (pred[i] && r % 2) pred[i] = -pred[i];
  }
  kiln_array *arrays[4] = {upload(ctx, KILN_INT32, n, pred), zeros(ctx, KILN_UINT32, n),
                           zeros(ctx, KILN_UINT32, n), zeros(ctx, KILN_INT32, 1)};
  int ready = kernel != NULL;
  for (int a = 0; a < 4; a++) ready = ready && arrays[a];
  kiln_arg args[4];
  for (int a = 0; a < 4; a++) args[a] = kiln_arg_array(arrays[a]);
  if (ready) CHECK_OK(kiln_kernel_launch(kernel, 1, &n, &group, 4, args, NULL));
  int32_t *found = ready ? download(arrays[3]) : NULL;
  uint32_t *votes = ready ? download(arrays[1]) : NULL;
  uint32_t *count = ready ? download(arrays[2]) : NULL;
  for (int64_t i = 0; found && votes && count && i < n; i++) {
    uint32_t want = (uint32_t)pred[i];
    if (found[0]) {
      want = 0;
      for (int j = 0; j < 32; j++) want |= (uint32_t)(pred[i / 32 * 32 + j] != 0) << j;
    }
    uint32_t bits = 0;
    for (uint32_t w = want; w; w &= w - 1) bits++;
    CHECK_MSG(votes[i] == want && count[i] == bits,
              "work-item %lld: ballot %08x popcount %u, expected %08x %u", (long long)i,
              votes[i], count[i], want, bits);
  }
  if (found && !found[0]) {
    expect_warp_feature(ctx, "KILN_LANE_BALLOT");
    harness_skip("no lane ballot on this backend (KILN_LANE_BALLOT undefined; CUDA and "
                 "NVIDIA's OpenCL have it); popcount checked");
  }
  free(found);
  free(votes);
  free(count);
  release_arrays(arrays, 4);
  kiln_kernel_release(kernel);
  free(pred);
}

static void test_min_max_int(kiln_context *ctx) {
  const int64_t n = 1000, n3 = 3 * n;
  kiln_kernel *kernel = harness_kernel(ctx, "minmax_int.kl", "minmax_int");
  int32_t *a = malloc((size_t)n * 4), *b = malloc((size_t)n * 4);
  uint32_t *ua = malloc((size_t)n * 4), *ub = malloc((size_t)n * 4);
  int64_t *la = malloc((size_t)n * 8), *lb = malloc((size_t)n * 8);
  for (int64_t i = 0; i < n; i++) {
    /* full ranges (but not INT_MIN, whose abs overflows), some equal pairs */
    a[i] = (int32_t)(harness_rand_u64() % 4294967295u - 2147483647);
    b[i] = i % 10 == 0 ? a[i] : (int32_t)(harness_rand_u64() % 4294967295u - 2147483647);
    ua[i] = (uint32_t)harness_rand_u64();
    ub[i] = i % 10 == 0 ? ua[i] : (uint32_t)harness_rand_u64();
    la[i] = (int64_t)(harness_rand_u64() >> 1) - (int64_t)(harness_rand_u64() >> 1);
    lb[i] = i % 10 == 0 ? la[i] : (int64_t)(harness_rand_u64() >> 1) - (int64_t)(harness_rand_u64() >> 1);
  }
  kiln_array *arrays[9] = {upload(ctx, KILN_INT32, n, a),  upload(ctx, KILN_INT32, n, b),
                           upload(ctx, KILN_UINT32, n, ua), upload(ctx, KILN_UINT32, n, ub),
                           upload(ctx, KILN_INT64, n, la),  upload(ctx, KILN_INT64, n, lb),
                           zeros(ctx, KILN_INT32, n3),     zeros(ctx, KILN_UINT32, n3),
                           zeros(ctx, KILN_INT64, n3)};
  int ready = kernel != NULL;
  for (int k = 0; k < 9; k++) ready = ready && arrays[k];
  if (ready) {
    kiln_arg args[10];
    for (int k = 0; k < 9; k++) args[k] = kiln_arg_array(arrays[k]);
    args[9] = kiln_arg_int64(n);
    CHECK_OK(kiln_kernel_launch(kernel, 1, &n, NULL, 10, args, NULL));
    int32_t *out = download(arrays[6]);
    uint32_t *uout = download(arrays[7]);
    int64_t *lout = download(arrays[8]);
    int errors = 0;
    for (int64_t i = 0; out && uout && lout && i < n; i++) {
      int ok = out[3 * i] == (a[i] < b[i] ? a[i] : b[i]) &&
               out[3 * i + 1] == (a[i] > b[i] ? a[i] : b[i]) &&
               out[3 * i + 2] == (a[i] < 0 ? -a[i] : a[i]) &&
               uout[3 * i] == (ua[i] < ub[i] ? ua[i] : ub[i]) &&
               uout[3 * i + 1] == (ua[i] > ub[i] ? ua[i] : ub[i]) && uout[3 * i + 2] == ua[i] &&
               lout[3 * i] == (la[i] < lb[i] ? la[i] : lb[i]) &&
               lout[3 * i + 1] == (la[i] > lb[i] ? la[i] : lb[i]) &&
               lout[3 * i + 2] == (la[i] < 0 ? -la[i] : la[i]);
      if (!ok && errors++ < 5)
        harness_fail(__FILE__, __LINE__,
                     "element %lld: int32 (%d, %d) -> min %d max %d abs %d; uint32 (%u, %u) -> "
                     "min %u max %u; int64 (%lld, %lld) -> min %lld max %lld abs %lld",
                     (long long)i, a[i], b[i], out[3 * i], out[3 * i + 1], out[3 * i + 2], ua[i],
                     ub[i], uout[3 * i], uout[3 * i + 1], (long long)la[i], (long long)lb[i],
                     (long long)lout[3 * i], (long long)lout[3 * i + 1],
                     (long long)lout[3 * i + 2]);
    }
    free(out);
    free(uout);
    free(lout);
  }
  release_arrays(arrays, 9);
  kiln_kernel_release(kernel);
  free(a);
  free(b);
  free(ua);
  free(ub);
  free(la);
  free(lb);
}

/* ---- Philox4x32-10 and the rng helpers ------------------------------------- */

/* Host Philox4x32-10, written from the paper (Salmon et al., SC'11). */
static void host_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4]) {
  uint32_t c0 = ctr[0], c1 = ctr[1], c2 = ctr[2], c3 = ctr[3], k0 = key[0], k1 = key[1];
  for (int round = 0; round < 10; round++) {
    if (round > 0) {
      k0 += 0x9E3779B9u;
      k1 += 0xBB67AE85u;
    }
    uint64_t p0 = (uint64_t)0xD2511F53u * c0, p1 = (uint64_t)0xCD9E8D57u * c2;
    uint32_t n0 = (uint32_t)(p1 >> 32) ^ c1 ^ k0, n2 = (uint32_t)(p0 >> 32) ^ c3 ^ k1;
    c1 = (uint32_t)p1;
    c3 = (uint32_t)p0;
    c0 = n0;
    c2 = n2;
  }
  out[0] = c0;
  out[1] = c1;
  out[2] = c2;
  out[3] = c3;
}

/* Word n of stream `stream` of generator `seed`, as documented for
 * kiln_rng_init. */
static uint32_t host_rng_word(uint64_t seed, uint64_t stream, uint64_t n) {
  uint64_t block = n / 4;
  uint32_t ctr[4] = {(uint32_t)block, (uint32_t)(block >> 32), (uint32_t)stream,
                     (uint32_t)(stream >> 32)};
  uint32_t key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)}, out[4];
  host_philox4x32_10(ctr, key, out);
  return out[n % 4];
}

static double host_u01_f32(uint32_t w) { return (double)((w >> 8) + 1u) * 0x1p-24; }
static double host_u01_f64(uint64_t w) { return (double)((w >> 11) + 1u) * 0x1p-53; }

/* Random123's tests/kat_vectors, "philox4x32 10" lines: counter, key,
 * expected output. */
static const uint32_t philox_kat[3][10] = {
    {0, 0, 0, 0, 0, 0, 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8},
    {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0x408f276d,
     0x41c83b0e, 0xa20bc7c6, 0x6d5451fd},
    {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822, 0x299f31d0, 0xd16cfe09,
     0x94fdcceb, 0x5001e420, 0x24126ea1},
};

static void test_philox_known_answers(kiln_context *ctx) {
  const int64_t n = 1003, nin = 6 * n, nout = 4 * n;
  uint32_t *in = malloc((size_t)nin * 4), expected[4];
  /* the known answers first, then random counters and keys */
  for (int v = 0; v < 3; v++) {
    memcpy(in + 6 * v, philox_kat[v], 6 * sizeof(uint32_t));
    host_philox4x32_10(philox_kat[v], philox_kat[v] + 4, expected);
    CHECK_MSG(memcmp(expected, philox_kat[v] + 6, sizeof expected) == 0,
              "the host Philox misses known answer %d", v);
  }
  for (int64_t i = 18; i < nin; i++) in[i] = (uint32_t)harness_rand_u64();
  kiln_kernel *kernel = harness_kernel(ctx, "philox_kat.kl", "philox_kat");
  kiln_array *arrays[2] = {upload(ctx, KILN_UINT32, nin, in), zeros(ctx, KILN_UINT32, nout)};
  if (kernel && arrays[0] && arrays[1]) {
    kiln_arg args[] = {kiln_arg_array(arrays[0]), kiln_arg_array(arrays[1]), kiln_arg_int64(n)};
    CHECK_OK(kiln_kernel_launch(kernel, 1, &n, NULL, 3, args, NULL));
    uint32_t *out = download(arrays[1]);
    for (int v = 0; out && v < 3; v++)
      CHECK_MSG(memcmp(out + 4 * v, philox_kat[v] + 6, 4 * sizeof(uint32_t)) == 0,
                "known answer %d: device gives %08x %08x %08x %08x, expected %08x %08x %08x %08x",
                v, out[4 * v], out[4 * v + 1], out[4 * v + 2], out[4 * v + 3], philox_kat[v][6],
                philox_kat[v][7], philox_kat[v][8], philox_kat[v][9]);
    int errors = 0;
    for (int64_t i = 0; out && i < n; i++) {
      host_philox4x32_10(in + 6 * i, in + 6 * i + 4, expected);
      if (memcmp(out + 4 * i, expected, sizeof expected) != 0 && errors++ < 5)
        harness_fail(__FILE__, __LINE__, "vector %lld differs from the host Philox",
                     (long long)i);
    }
    free(out);
  }
  release_arrays(arrays, 2);
  kiln_kernel_release(kernel);
  free(in);
}

#define RNG_WORDS 6    /* per work-item, see rng_f32.kl */
#define RNG_UNIFORMS 4
#define RNG_NORMALS 2

typedef struct rng_f32_run {
  uint32_t *words;
  float *uniforms, *normals, *mapped;
  uint64_t *wide;
} rng_f32_run;

static void rng_f32_run_free(rng_f32_run *r) {
  free(r->words);
  free(r->uniforms);
  free(r->normals);
  free(r->mapped);
  free(r->wide);
}

/* One launch of rng_f32.kl; returns nonzero when every output came back. */
static int run_rng_f32(kiln_context *ctx, kiln_kernel *kernel, uint64_t seed, uint64_t first_stream,
                       int64_t n, const uint32_t *in, rng_f32_run *r) {
  memset(r, 0, sizeof *r);
  kiln_array *arrays[6] = {zeros(ctx, KILN_UINT32, n * RNG_WORDS),
                           zeros(ctx, KILN_FLOAT32, n * RNG_UNIFORMS),
                           zeros(ctx, KILN_FLOAT32, n * RNG_NORMALS),
                           zeros(ctx, KILN_UINT64, n),
                           upload(ctx, KILN_UINT32, n, in),
                           zeros(ctx, KILN_FLOAT32, n)};
  int ok = arrays[0] && arrays[1] && arrays[2] && arrays[3] && arrays[4] && arrays[5];
  if (ok) {
    kiln_arg args[9];
    for (int k = 0; k < 6; k++) args[k] = kiln_arg_array(arrays[k]);
    args[6] = kiln_arg_uint64(seed);
    args[7] = kiln_arg_uint64(first_stream);
    args[8] = kiln_arg_int64(n);
    CHECK_OK(kiln_kernel_launch(kernel, 1, &n, NULL, 9, args, NULL));
    r->words = download(arrays[0]);
    r->uniforms = download(arrays[1]);
    r->normals = download(arrays[2]);
    r->wide = download(arrays[3]);
    r->mapped = download(arrays[5]);
    ok = r->words && r->uniforms && r->normals && r->wide && r->mapped;
  }
  release_arrays(arrays, 6);
  return ok;
}

static void test_rng_f32(kiln_context *ctx) {
  const int64_t n = 4099;
  const uint64_t seed = harness_rand_u64();
  /* streams cross a 32-bit boundary: both counter words of the stream count */
  const uint64_t first_stream = ((uint64_t)1 << 32) - 100;
  kiln_kernel *kernel = harness_kernel(ctx, "rng_f32.kl", "rng_f32");
  uint32_t *in = malloc((size_t)n * 4);
  for (int64_t i = 0; i < n; i++) in[i] = (uint32_t)harness_rand_u64();
  in[0] = 0, in[1] = 0xffffffffu, in[2] = 255, in[3] = 256;
  rng_f32_run r = {0}, again, other;
  if (!kernel || !run_rng_f32(ctx, kernel, seed, first_stream, n, in, &r)) goto cleanup;
  int errors = 0;
  double sum = 0, nsum = 0, nsum2 = 0;
  for (int64_t i = 0; i < n; i++) {
    uint64_t stream = first_stream + (uint64_t)i;
    for (int k = 0; k < RNG_WORDS; k++) {
      uint32_t w = host_rng_word(seed, stream, (uint64_t)k);
      if (r.words[RNG_WORDS * i + k] != w && errors++ < 5)
        harness_fail(__FILE__, __LINE__, "stream %llu word %d: %08x, expected %08x",
                     (unsigned long long)stream, k, r.words[RNG_WORDS * i + k], w);
    }
    for (int k = 0; k < RNG_UNIFORMS; k++) {
      double u = r.uniforms[RNG_UNIFORMS * i + k];
      double expected = host_u01_f32(host_rng_word(seed, stream, (uint64_t)(RNG_WORDS + k)));
      if ((u != expected || !(u > 0 && u <= 1)) && errors++ < 5)
        harness_fail(__FILE__, __LINE__, "stream %llu uniform %d: %.9g, expected %.9g",
                     (unsigned long long)stream, k, u, expected);
      sum += u;
    }
    for (int k = 0; k < RNG_NORMALS; k++) {
      uint64_t w = (uint64_t)(RNG_WORDS + RNG_UNIFORMS + 2 * k);
      double u1 = host_u01_f32(host_rng_word(seed, stream, w));
      double u2 = host_u01_f32(host_rng_word(seed, stream, w + 1));
      double expected = sqrt(-2 * log(u1)) * cos(2 * 3.14159265358979323846 * u2);
      double v = r.normals[RNG_NORMALS * i + k];
      if (!(fabs(v - expected) <= 2e-5 + 1e-5 * fabs(expected)) && errors++ < 5)
        harness_fail(__FILE__, __LINE__, "stream %llu normal %d: %.9g, expected %.9g",
                     (unsigned long long)stream, k, v, expected);
      nsum += v;
      nsum2 += v * v;
    }
    uint64_t w14 = host_rng_word(seed, stream, 14), w15 = host_rng_word(seed, stream, 15);
    if (r.wide[i] != (w14 | w15 << 32) && errors++ < 5)
      harness_fail(__FILE__, __LINE__, "stream %llu 64-bit word: %016llx, expected %016llx",
                   (unsigned long long)stream, (unsigned long long)r.wide[i],
                   (unsigned long long)(w14 | w15 << 32));
    if (r.mapped[i] != host_u01_f32(in[i]) && errors++ < 5)
      harness_fail(__FILE__, __LINE__, "kiln_uint32_to_float01(%08x) = %.9g, expected %.9g",
                   in[i], r.mapped[i], host_u01_f32(in[i]));
  }
  CHECK_MSG(r.mapped[0] == 0x1p-24f && r.mapped[1] == 1.0f && r.mapped[2] == 0x1p-24f &&
                r.mapped[3] == 0x1p-23f,
            "kiln_uint32_to_float01 ends: %.9g %.9g %.9g %.9g", r.mapped[0], r.mapped[1],
            r.mapped[2], r.mapped[3]);
  double count = (double)(n * RNG_UNIFORMS), ncount = (double)(n * RNG_NORMALS);
  double nmean = nsum / ncount, nvar = nsum2 / ncount - nmean * nmean;
  CHECK_MSG(fabs(sum / count - 0.5) < 0.01, "mean of the uniforms %.5f", sum / count);
  CHECK_MSG(fabs(nmean) < 0.05 && fabs(nvar - 1) < 0.07, "normals: mean %.4f variance %.4f",
            nmean, nvar);
  /* determinism: same seed and streams, same bits; another seed, others */
  if (run_rng_f32(ctx, kernel, seed, first_stream, n, in, &again)) {
    CHECK_MSG(memcmp(r.words, again.words, (size_t)n * RNG_WORDS * 4) == 0 &&
                  memcmp(r.uniforms, again.uniforms, (size_t)n * RNG_UNIFORMS * 4) == 0 &&
                  memcmp(r.normals, again.normals, (size_t)n * RNG_NORMALS * 4) == 0,
              "a second launch with the same seed gives other numbers");
  }
  rng_f32_run_free(&again);
  if (run_rng_f32(ctx, kernel, seed ^ 1, first_stream, n, in, &other)) {
    int64_t same = 0;
    for (int64_t k = 0; k < n * RNG_WORDS; k++) same += r.words[k] == other.words[k];
    CHECK_MSG(same < 10, "another seed repeats %lld of %lld words", (long long)same,
              (long long)(n * RNG_WORDS));
  }
  rng_f32_run_free(&other);
cleanup:
  rng_f32_run_free(&r);
  kiln_kernel_release(kernel);
  free(in);
}

static void test_rng_f64(kiln_context *ctx) {
  if (!device_has_double(ctx)) {
    harness_skip("the device has no float64 support");
    return;
  }
  const int64_t n = 2053, nu = 3 * n, nn = 2 * n;
  const uint64_t seed = harness_rand_u64(), first_stream = harness_rand_u64();
  kiln_kernel *kernel = harness_kernel(ctx, "rng_f64.kl", "rng_f64");
  uint64_t *in = malloc((size_t)n * 8);
  for (int64_t i = 0; i < n; i++) in[i] = harness_rand_u64();
  in[0] = 0, in[1] = ~(uint64_t)0, in[2] = 2047, in[3] = 2048;
  kiln_array *arrays[4] = {zeros(ctx, KILN_FLOAT64, nu), zeros(ctx, KILN_FLOAT64, nn),
                           upload(ctx, KILN_UINT64, n, in), zeros(ctx, KILN_FLOAT64, n)};
  if (kernel && arrays[0] && arrays[1] && arrays[2] && arrays[3]) {
    kiln_arg args[] = {kiln_arg_array(arrays[0]), kiln_arg_array(arrays[1]),
                       kiln_arg_array(arrays[2]), kiln_arg_array(arrays[3]),
                       kiln_arg_uint64(seed),     kiln_arg_uint64(first_stream),
                       kiln_arg_int64(n)};
    CHECK_OK(kiln_kernel_launch(kernel, 1, &n, NULL, 7, args, NULL));
    double *uniforms = download(arrays[0]), *normals = download(arrays[1]),
           *mapped = download(arrays[3]);
    int errors = 0;
    for (int64_t i = 0; uniforms && normals && mapped && i < n; i++) {
      uint64_t stream = first_stream + (uint64_t)i, words[14];
      for (int k = 0; k < 14; k++) words[k] = host_rng_word(seed, stream, (uint64_t)k);
      for (int k = 0; k < 3; k++) {
        double expected = host_u01_f64(words[2 * k] | words[2 * k + 1] << 32);
        if (uniforms[3 * i + k] != expected && errors++ < 5)
          harness_fail(__FILE__, __LINE__, "stream %llu uniform %d: %.17g, expected %.17g",
                       (unsigned long long)stream, k, uniforms[3 * i + k], expected);
      }
      for (int k = 0; k < 2; k++) {
        const uint64_t *w = words + 6 + 4 * k;
        double u1 = host_u01_f64(w[0] | w[1] << 32), u2 = host_u01_f64(w[2] | w[3] << 32);
        double expected = sqrt(-2 * log(u1)) * cos(2 * 3.14159265358979323846 * u2);
        if (!(fabs(normals[2 * i + k] - expected) <= 1e-12 * (1 + fabs(expected))) &&
            errors++ < 5)
          harness_fail(__FILE__, __LINE__, "stream %llu normal %d: %.17g, expected %.17g",
                       (unsigned long long)stream, k, normals[2 * i + k], expected);
      }
      if (mapped[i] != host_u01_f64(in[i]) && errors++ < 5)
        harness_fail(__FILE__, __LINE__, "kiln_uint64_to_double01(%016llx) = %.17g",
                     (unsigned long long)in[i], mapped[i]);
    }
    if (mapped)
      CHECK_MSG(mapped[0] == 0x1p-53 && mapped[1] == 1.0 && mapped[2] == 0x1p-53 &&
                    mapped[3] == 0x1p-52,
                "kiln_uint64_to_double01 ends: %.17g %.17g %.17g %.17g", mapped[0], mapped[1],
                mapped[2], mapped[3]);
    free(uniforms);
    free(normals);
    free(mapped);
  }
  release_arrays(arrays, 4);
  kiln_kernel_release(kernel);
  free(in);
}

/* ---- helper functions and compile errors ----------------------------------- */

static void test_device_function(kiln_context *ctx) {
  const int64_t n = 10007, threads = 1000;
  kiln_kernel *kernel = harness_kernel(ctx, "device_function.kl", "device_function");
  float *host[4];
  for (int k = 0; k < 4; k++) {
    host[k] = malloc((size_t)n * sizeof(float));
    harness_fill_random(host[k], KILN_FLOAT32, n, k % 2 ? -3 : 0.5, k % 2 ? 3 : 10);
  }
  kiln_array *arrays[5] = {upload(ctx, KILN_FLOAT32, n, host[0]),
                           upload(ctx, KILN_FLOAT32, n, host[1]),
                           upload(ctx, KILN_FLOAT32, n, host[2]),
                           upload(ctx, KILN_FLOAT32, n, host[3]), zeros(ctx, KILN_FLOAT32, n)};
  if (kernel && arrays[0] && arrays[1] && arrays[2] && arrays[3] && arrays[4]) {
    kiln_arg args[6];
    for (int k = 0; k < 5; k++) args[k] = kiln_arg_array(arrays[k]);
    args[5] = kiln_arg_int64(n);
    /* fewer work-items than elements: the kernel's grid-stride loop */
    CHECK_OK(kiln_kernel_launch(kernel, 1, &threads, NULL, 6, args, NULL));
    float *out = download(arrays[4]);
    int errors = 0;
    for (int64_t i = 0; out && i < n; i++) {
      double r1 = host[0][i], t1 = host[1][i], r2 = host[2][i], t2 = host[3][i];
      double expected = sqrt(r1 * r1 + r2 * r2 - 2 * r1 * r2 * cos(t1 - t2)) + 0.5 * r1;
      if (!(fabs(out[i] - expected) <= 1e-4 + 1e-5 * fabs(expected)) && errors++ < 5)
        harness_fail(__FILE__, __LINE__, "element %lld: %.9g, expected %.9g", (long long)i,
                     out[i], expected);
    }
    free(out);
  }
  release_arrays(arrays, 5);
  kiln_kernel_release(kernel);
  for (int k = 0; k < 4; k++) free(host[k]);
}

static void test_constant_table(kiln_context *ctx) {
  static const float weights[5] = {0.5f, -1.25f, 2.0f, 3.5f, -0.75f};
  static const int32_t offsets[5] = {7, -3, 11, 0, 42};
  const int64_t n = 1001;
  kiln_kernel *kernel = harness_kernel(ctx, "constant_table.kl", "constant_table");
  float *x = malloc((size_t)n * sizeof *x);
  harness_fill_random(x, KILN_FLOAT32, n, -10, 10);
  kiln_array *arrays[2] = {upload(ctx, KILN_FLOAT32, n, x), zeros(ctx, KILN_FLOAT32, n)};
  if (kernel && arrays[0] && arrays[1]) {
    kiln_arg args[] = {kiln_arg_array(arrays[0]), kiln_arg_array(arrays[1]), kiln_arg_int64(n)};
    CHECK_OK(kiln_kernel_launch(kernel, 1, &n, NULL, 3, args, NULL));
    float *out = download(arrays[1]);
    int errors = 0;
    for (int64_t i = 0; out && i < n; i++) {
      /* one rounding of the product and one of the sum, or a fused one */
      double expected = (double)weights[i % 5] * x[i] + offsets[i % 5];
      if (!(fabs(out[i] - expected) <= 2 * FLT_EPSILON * (fabs(expected) + 1)) && errors++ < 5)
        harness_fail(__FILE__, __LINE__, "element %lld: %.9g, expected %.9g", (long long)i,
                     out[i], expected);
    }
    free(out);
  }
  release_arrays(arrays, 2);
  kiln_kernel_release(kernel);
  free(x);
}

/* Nonzero when some line of `text` starts (after spaces) with the number
 * `line` and contains `needle`: the numbered source. */
static int has_numbered_line(const char *text, int line, const char *needle) {
  for (const char *p = text; *p;) {
    const char *end = strchr(p, '\n');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    char buf[512];
    snprintf(buf, sizeof buf, "%.*s", (int)(len < sizeof buf - 1 ? len : sizeof buf - 1), p);
    char *q = buf;
    while (*q == ' ') q++;
    char *after = NULL;
    long number = strtol(q, &after, 10);
    if (after != q && number == line && *after && !(*after >= '0' && *after <= '9') &&
        strstr(after, needle))
      return 1;
    p = end ? end + 1 : p + len;
  }
  return 0;
}

static void test_compile_error(kiln_context *ctx) {
  char *source = harness_load_kernel("invalid/syntax_error.kl");
  if (!source) return;
  kiln_kernel *kernel = NULL;
  CHECK_STATUS(kiln_kernel_create(ctx, source, "syntax_error", NULL, &kernel),
               KILN_ERROR_COMPILE);
  CHECK(kernel == NULL);
  const char *message = kiln_last_error();
  /* the compiler's log, pointing at the user's line 5 through #line */
  CHECK_MSG(strstr(message, "error") != NULL, "no compiler log in: %s", message);
  CHECK_MSG(strstr(message, "kernel:5:") || strstr(message, "kernel(5)") ||
                strstr(message, "(kernel:5)"),
            "the log does not point at kernel line 5: %s", message);
  /* and the numbered source */
  CHECK_MSG(has_numbered_line(message, 5, "kiln_syntax_error_marker"),
            "no numbered source line 5 in: %s", message);
  CHECK_MSG(has_numbered_line(message, 3, "KILN_KERNEL void syntax_error"),
            "no numbered source line 3 in: %s", message);
  kiln_kernel_release(kernel);
  free(source);
}

static const harness_test tests[] = {
    {"index_functions", test_index_functions},
    {"barrier_local_array", test_barrier_local_array},
    {"local_param", test_local_param},
    {"atomics_i32", test_atomics_i32},
    {"atomics_u32", test_atomics_u32},
    {"atomics_f32", test_atomics_f32},
    {"atomics_contention", test_atomics_contention},
    {"atomics_64", test_atomics_64},
    {"atomics_f64", test_atomics_f64},
    {"math_f32", test_math_f32},
    {"math_f64", test_math_f64},
    {"math_f_suffix", test_math_f_suffix},
    {"type_sizes", test_type_sizes},
    {"type_arrays", test_type_arrays},
    {"vector_load", test_vector_load},
    {"lane_shuffle", test_lane_shuffle},
    {"lane_ballot", test_lane_ballot},
    {"flag_chain", test_flag_chain},
    {"min_max_int", test_min_max_int},
    {"philox_known_answers", test_philox_known_answers},
    {"rng_f32", test_rng_f32},
    {"rng_f64", test_rng_f64},
    {"device_function", test_device_function},
    {"constant_table", test_constant_table},
    {"compile_error", test_compile_error},
    {0}};

int main(int argc, char **argv) { return harness_main(argc, argv, tests); }
