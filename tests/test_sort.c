/* tests/test_sort.c: kiln_sort, kiln_argsort, kiln_sort_by_key,
 * kiln_segmented_sort and the internal pairs entry against a plain C
 * reference: qsort of the indices by NumPy's order with the index as the
 * tie-break, which is what a stable sort gives (docs/sorting.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "core/codegen/scan_line.h"
#include "core/sort/sort_internal.h"
#include "harness.h"

static const kiln_dtype all_dtypes[] = {
    KILN_BOOL,   KILN_INT8,    KILN_UINT8,   KILN_INT16,    KILN_UINT16,
    KILN_INT32,  KILN_UINT32,  KILN_INT64,   KILN_UINT64,   KILN_FLOAT16,
    KILN_FLOAT32, KILN_FLOAT64, KILN_COMPLEX64, KILN_COMPLEX128};
#define NDTYPES ((int)(sizeof all_dtypes / sizeof all_dtypes[0]))

/* ---- the reference --------------------------------------------------------- */

static int64_t read_int(const void *data, kiln_dtype dt, int64_t i) {
  const unsigned char *p = (const unsigned char *)data + i * (int64_t)kiln_dtype_size(dt);
  int8_t i8; int16_t i16; int32_t i32; int64_t i64;
  switch (dt) {
    case KILN_INT8: memcpy(&i8, p, 1); return i8;
    case KILN_INT16: memcpy(&i16, p, 2); return i16;
    case KILN_INT32: memcpy(&i32, p, 4); return i32;
    default: memcpy(&i64, p, 8); return i64;
  }
}

static uint64_t read_uint(const void *data, kiln_dtype dt, int64_t i) {
  const unsigned char *p = (const unsigned char *)data + i * (int64_t)kiln_dtype_size(dt);
  uint8_t u8; uint16_t u16; uint32_t u32; uint64_t u64;
  switch (kiln_dtype_size(dt)) {
    case 1: memcpy(&u8, p, 1); return u8;
    case 2: memcpy(&u16, p, 2); return u16;
    case 4: memcpy(&u32, p, 4); return u32;
    default: memcpy(&u64, p, 8); return u64;
  }
}

static void read_complex(const void *data, kiln_dtype dt, int64_t i, double *re, double *im) {
  if (dt == KILN_COMPLEX64) {
    *re = ((const float *)data)[2 * i];
    *im = ((const float *)data)[2 * i + 1];
  } else {
    *re = ((const double *)data)[2 * i];
    *im = ((const double *)data)[2 * i + 1];
  }
}

/* NumPy's float order: NaNs last and equal to each other, -0.0 == 0.0 */
static int cmp_float(double a, double b) {
  if (isnan(a) || isnan(b)) return isnan(a) - isnan(b);
  return (a > b) - (a < b);
}

/* NumPy's complex order (npysort's CFLOAT_LT): by class first, 0 for no
 * NaN part, 1 a NaN imaginary part only, 2 a NaN real part only, 3 both
 * (R + Rj < R + nanj < nan + Rj < nan + nanj), then by real part, then
 * imaginary part (a NaN part equal to a NaN part). */
static int cmp_complex(double ar, double ai, double br, double bi) {
  int ca = 2 * isnan(ar) + isnan(ai), cb = 2 * isnan(br) + isnan(bi);
  if (ca != cb) return (ca > cb) - (ca < cb);
  int c = cmp_float(ar, br);
  return c ? c : cmp_float(ai, bi);
}

static int cmp_elements(const void *data, kiln_dtype dt, int64_t i, int64_t j) {
  switch (dt) {
    case KILN_INT8: case KILN_INT16: case KILN_INT32: case KILN_INT64: {
      int64_t a = read_int(data, dt, i), b = read_int(data, dt, j);
      return (a > b) - (a < b);
    }
    case KILN_BOOL: case KILN_UINT8: case KILN_UINT16: case KILN_UINT32: case KILN_UINT64: {
      uint64_t a = read_uint(data, dt, i), b = read_uint(data, dt, j);
      if (dt == KILN_BOOL) a = a != 0, b = b != 0;
      return (a > b) - (a < b);
    }
    case KILN_COMPLEX64: case KILN_COMPLEX128: {
      double ar, ai, br, bi;
      read_complex(data, dt, i, &ar, &ai);
      read_complex(data, dt, j, &br, &bi);
      return cmp_complex(ar, ai, br, bi);
    }
    default: return cmp_float(harness_get(data, dt, i), harness_get(data, dt, j));
  }
}

static const void *ref_data;
static kiln_dtype ref_dtype;
static int64_t ref_base;
static int ref_sign;

static int ref_compare(const void *x, const void *y) {
  int64_t i = *(const int64_t *)x, j = *(const int64_t *)y;
  int c = ref_sign * cmp_elements(ref_data, ref_dtype, ref_base + i, ref_base + j);
  return c ? c : (i > j) - (i < j);
}

/* perm: the stable order of the row_len elements from data[base]. */
static void ref_argsort(const void *data, kiln_dtype dt, int64_t base, int64_t row_len,
                        int descending, int64_t *perm) {
  for (int64_t i = 0; i < row_len; i++) perm[i] = i;
  ref_data = data, ref_dtype = dt, ref_base = base, ref_sign = descending ? -1 : 1;
  qsort(perm, (size_t)row_len, sizeof *perm, ref_compare);
}

/* ---- data --------------------------------------------------------------------- */

/* Random elements with many repeats (stability shows), and for float
 * dtypes NaNs of both signs, -0.0, 0.0 and infinities among them. */
static void *random_data(kiln_dtype dt, int64_t n) {
  size_t es = kiln_dtype_size(dt);
  unsigned char *data = malloc(es * (size_t)(n > 0 ? n : 1));
  double lo = dt == KILN_BOOL ? 0 : kiln_dtype_is_float(dt) || dt >= KILN_COMPLEX64 ? -6 : -40;
  if (dt == KILN_UINT8 || dt == KILN_UINT16 || dt == KILN_UINT32 || dt == KILN_UINT64) lo = 0;
  harness_fill_random(data, dt, n, lo, lo + 80);
  int complex_dt = dt == KILN_COMPLEX64 || dt == KILN_COMPLEX128;
  if (!kiln_dtype_is_float(dt) && !complex_dt) {
    /* a few extremes of the type */
    for (int64_t i = 0; i < n; i += 97) memset(data + (size_t)i * es, i % 2 ? 0xff : 0x80, es);
    if (dt == KILN_BOOL) for (int64_t i = 0; i < n; i++) data[i] = data[i] != 0;
    return data;
  }
  static const double specials[] = {NAN, -NAN, -0.0, 0.0, INFINITY, -INFINITY, 1.5, -1.5};
  int parts = complex_dt ? 2 : 1;
  for (int64_t i = 0; i < n * parts; i++) {
    double v = floor(harness_rand_uniform(-8, 8)) * 0.5;
    if (harness_rand_u64() % 8 == 0) v = specials[harness_rand_u64() % 8];
    switch (dt) {
      case KILN_FLOAT16: ((uint16_t *)data)[i] = kiln_float16_from_double(v); break;
      case KILN_FLOAT32: case KILN_COMPLEX64: ((float *)data)[i] = (float)v; break;
      default: ((double *)data)[i] = v;
    }
  }
  return data;
}

static int same_element(const void *a, int64_t i, const void *b, int64_t j, kiln_dtype dt) {
  size_t es = kiln_dtype_size(dt);
  return memcmp((const char *)a + (size_t)i * es, (const char *)b + (size_t)j * es, es) == 0;
}

/* ---- 1-D: every dtype, edge sizes ------------------------------------------- */

/* Sorts and argsorts host data of n elements (1-D) and checks both. */
static void check_1d(kiln_context *ctx, kiln_dtype dt, int64_t n, int descending) {
  void *data = random_data(dt, n);
  size_t es = kiln_dtype_size(dt);
  int64_t *perm = malloc(sizeof(int64_t) * (size_t)(n + 1));
  ref_argsort(data, dt, 0, n, descending, perm);
  kiln_array *a = NULL, *sorted = NULL, *idx = NULL;
  kiln_sort_options o = {.axis = 0, .descending = descending};
  REQUIRE_OK(kiln_array_from_host(ctx, dt, 1, &n, NULL, data, &a));
  CHECK_OK(kiln_sort(ctx, kiln_operand_array(a), kiln_operand_new(&sorted), &o, NULL));
  CHECK_OK(kiln_argsort(ctx, kiln_operand_array(a), kiln_operand_new(&idx), &o, NULL));
  unsigned char *got = malloc(es * (size_t)(n + 1));
  int64_t *got_idx = malloc(sizeof(int64_t) * (size_t)(n + 1));
  if (sorted && idx) {
    CHECK(kiln_array_size(sorted) == n && kiln_array_dtype(sorted) == dt);
    CHECK(kiln_array_dtype(idx) == KILN_INT64);
    CHECK_OK(kiln_array_to_host(sorted, got, NULL));
    CHECK_OK(kiln_array_to_host(idx, got_idx, NULL));
    int64_t bad = -1;
    for (int64_t i = 0; i < n && bad < 0; i++)
      if (got_idx[i] != perm[i] || !same_element(got, i, data, perm[i], dt)) bad = i;
    CHECK_MSG(bad < 0, "%s n=%lld descending=%d: element %lld: index %lld, expected %lld",
              kiln_dtype_name(dt), (long long)n, descending, (long long)bad,
              (long long)(bad >= 0 ? got_idx[bad] : 0), (long long)(bad >= 0 ? perm[bad] : 0));
  }
  kiln_array_release(a);
  kiln_array_release(sorted);
  kiln_array_release(idx);
  free(got);
  free(got_idx);
  free(perm);
  free(data);
}

static void test_every_dtype(kiln_context *ctx) {
  /* 0, 1, primes, one tile and one more (the local and the global path) */
  static const int64_t sizes[] = {0, 1, 2, 13, 1024, 1025, 4099};
  for (int d = 0; d < NDTYPES; d++)
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
      check_1d(ctx, all_dtypes[d], sizes[s], 0);
}

static void test_descending(kiln_context *ctx) {
  static const kiln_dtype dts[] = {KILN_INT16, KILN_UINT32, KILN_FLOAT32, KILN_FLOAT64,
                                   KILN_COMPLEX128, KILN_BOOL};
  for (size_t d = 0; d < sizeof dts / sizeof dts[0]; d++) {
    check_1d(ctx, dts[d], 701, 1);
    check_1d(ctx, dts[d], 5003, 1);
  }
}

static void test_large(kiln_context *ctx) {
  /* many tiles: every digit pass, the 64-bit keys */
  check_1d(ctx, KILN_UINT32, 200003, 0);
  check_1d(ctx, KILN_FLOAT64, 65537, 0);
  check_1d(ctx, KILN_INT64, 65537, 1);
}

/* all-equal, already sorted and reversed inputs */
static void test_patterns(kiln_context *ctx) {
  int64_t n = 3001;
  int32_t *v = malloc(sizeof(int32_t) * (size_t)n);
  int64_t *idx = malloc(sizeof(int64_t) * (size_t)n);
  for (int pattern = 0; pattern < 3; pattern++) {
    for (int64_t i = 0; i < n; i++) v[i] = pattern == 0 ? 7 : pattern == 1 ? (int32_t)i : (int32_t)(n - i);
    CHECK_OK(kiln_argsort(ctx, kiln_operand_host(v, KILN_INT32, 1, &n, NULL),
                          kiln_operand_host_output(idx, KILN_INT64, 1, &n, NULL), NULL, NULL));
    int ok = 1;
    for (int64_t i = 0; i < n; i++) ok &= idx[i] == (pattern == 2 ? n - 1 - i : i);
    CHECK_MSG(ok, "pattern %d", pattern);
  }
  free(v);
  free(idx);
}

/* ---- axes, views, operands ---------------------------------------------------- */

/* Checks `out` (host, C order, shape of `a` as given by shape) against the
 * reference sort of the C-order host copy `data` of the input along axis. */
static void check_axis_result(const void *data, kiln_dtype dt, int ndim, const int64_t *shape,
                              int axis, int descending, const void *out, const int64_t *out_idx,
                              const char *label) {
  int64_t len = shape[axis], inner = 1, outer = 1;
  for (int d = axis + 1; d < ndim; d++) inner *= shape[d];
  for (int d = 0; d < axis; d++) outer *= shape[d];
  size_t es = kiln_dtype_size(dt);
  unsigned char *line = malloc(es * (size_t)len + 1);
  int64_t *perm = malloc(sizeof(int64_t) * (size_t)len + 1);
  int bad = 0;
  for (int64_t o = 0; o < outer && !bad; o++)
    for (int64_t in = 0; in < inner && !bad; in++) {
      for (int64_t k = 0; k < len; k++)
        memcpy(line + k * es, (const char *)data + ((o * len + k) * inner + in) * es, es);
      ref_argsort(line, dt, 0, len, descending, perm);
      for (int64_t k = 0; k < len && !bad; k++) {
        int64_t at = (o * len + k) * inner + in;
        if (out && !same_element(out, at, line, perm[k], dt)) bad = 1;
        if (out_idx && out_idx[at] != perm[k]) bad = 1;
      }
    }
  CHECK_MSG(!bad, "%s: %s along axis %d differs from the reference", label, kiln_dtype_name(dt),
            axis);
  free(line);
  free(perm);
}

static void test_axes(kiln_context *ctx) {
  /* short rows (local sorts) and one long row axis (passes + row word) */
  static const int64_t shapes[][3] = {{5, 6, 7}, {3, 1500, 2}, {2, 3, 1100}};
  static const kiln_dtype dts[] = {KILN_INT32, KILN_FLOAT64, KILN_COMPLEX128, KILN_FLOAT16};
  for (size_t s = 0; s < 3; s++)
    for (size_t d = 0; d < sizeof dts / sizeof dts[0]; d++)
      for (int axis = -1; axis < 3; axis++) {
        kiln_dtype dt = dts[d];
        int64_t n = shapes[s][0] * shapes[s][1] * shapes[s][2];
        void *data = random_data(dt, n);
        void *out = malloc(kiln_dtype_size(dt) * (size_t)n);
        int64_t *idx = malloc(sizeof(int64_t) * (size_t)n);
        kiln_sort_options o = kiln_sort_along(axis);
        o.descending = axis == 1;
        CHECK_OK(kiln_sort(ctx, kiln_operand_host(data, dt, 3, shapes[s], NULL),
                           kiln_operand_host_output(out, dt, 3, shapes[s], NULL), &o, NULL));
        CHECK_OK(kiln_argsort(ctx, kiln_operand_host(data, dt, 3, shapes[s], NULL),
                              kiln_operand_host_output(idx, KILN_INT64, 3, shapes[s], NULL), &o,
                              NULL));
        check_axis_result(data, dt, 3, shapes[s], axis < 0 ? 2 : axis, o.descending, out, idx,
                          "host operands");
        free(data);
        free(out);
        free(idx);
      }
}

/* a strided view with a negative step as input, a transposed device
 * array as output, on a stream */
static void test_views_and_streams(kiln_context *ctx) {
  int64_t shape[2] = {40, 60}, n = 2400;
  float *data = random_data(KILN_FLOAT32, n);
  kiln_array *a = NULL, *view = NULL, *out = NULL, *out_t = NULL, *idx = NULL;
  kiln_stream *stream = NULL;
  REQUIRE_OK(kiln_array_from_host(ctx, KILN_FLOAT32, 2, shape, NULL, data, &a));
  kiln_slice sl[2] = {{KILN_NONE, KILN_NONE, -2}, {5, 55, 3}}; /* (20, 17) */
  REQUIRE_OK(kiln_array_slice(a, 2, sl, &view));
  int64_t vshape[2] = {20, 17}, tshape[2] = {17, 20};
  float *expect = malloc(sizeof(float) * 340);
  for (int64_t r = 0; r < 20; r++)
    for (int64_t c = 0; c < 17; c++) expect[r * 17 + c] = data[(39 - 2 * r) * 60 + 5 + 3 * c];
  REQUIRE_OK(kiln_array_empty(ctx, KILN_FLOAT32, 2, tshape, &out));
  REQUIRE_OK(kiln_array_transpose(out, NULL, &out_t)); /* (20, 17), not contiguous */
  REQUIRE_OK(kiln_stream_create(ctx, &stream));
  for (int axis = 0; axis < 2; axis++) {
    kiln_sort_options o = kiln_sort_along(axis);
    CHECK_OK(kiln_sort(ctx, kiln_operand_array(view), kiln_operand_array(out_t), &o, stream));
    CHECK_OK(kiln_argsort(ctx, kiln_operand_array(view), kiln_operand_new(&idx), &o, stream));
    CHECK_OK(kiln_stream_synchronize(ctx, stream));
    float got[340];
    int64_t got_idx[340];
    CHECK_OK(kiln_array_to_host(out_t, got, NULL));
    if (idx) CHECK_OK(kiln_array_to_host(idx, got_idx, NULL));
    check_axis_result(expect, KILN_FLOAT32, 2, vshape, axis, 0, got, idx ? got_idx : NULL,
                      "views");
    kiln_array_release(idx);
    idx = NULL;
  }
  /* flattened: the C order of the view */
  kiln_sort_options flat = {.flatten = 1};
  float got[340];
  int64_t one = 340;
  CHECK_OK(kiln_sort(ctx, kiln_operand_array(view),
                     kiln_operand_host_output(got, KILN_FLOAT32, 1, &one, NULL), &flat, NULL));
  check_axis_result(expect, KILN_FLOAT32, 1, &one, 0, 0, got, NULL, "flatten");
  kiln_stream_release(stream);
  kiln_array_release(out_t);
  kiln_array_release(out);
  kiln_array_release(view);
  kiln_array_release(a);
  free(expect);
  free(data);
}

/* ---- by key, segmented -------------------------------------------------------- */

static void test_by_key(kiln_context *ctx) {
  int64_t shape[2] = {3, 1200}, n = 3600;
  int16_t *keys = random_data(KILN_INT16, n);
  double *v0 = random_data(KILN_FLOAT64, n);
  uint8_t *v1 = random_data(KILN_UINT8, n);
  int16_t *k_out = malloc(sizeof(int16_t) * (size_t)n);
  double *v0_out = malloc(sizeof(double) * (size_t)n);
  kiln_array *v1_out = NULL;
  kiln_operand values[2] = {kiln_operand_host(v0, KILN_FLOAT64, 2, shape, NULL),
                            kiln_operand_host(v1, KILN_UINT8, 2, shape, NULL)};
  kiln_operand outs[2] = {kiln_operand_host_output(v0_out, KILN_FLOAT64, 2, shape, NULL),
                          kiln_operand_new(&v1_out)};
  kiln_operand k_o = kiln_operand_host_output(k_out, KILN_INT16, 2, shape, NULL);
  CHECK_OK(kiln_sort_by_key(ctx, kiln_operand_host(keys, KILN_INT16, 2, shape, NULL), &k_o, 2,
                            values, outs, NULL, NULL));
  uint8_t *v1_got = malloc((size_t)n);
  if (v1_out) CHECK_OK(kiln_array_to_host(v1_out, v1_got, NULL));
  int bad = 0;
  int64_t perm[1200];
  for (int64_t r = 0; r < 3; r++) {
    ref_argsort(keys, KILN_INT16, r * 1200, 1200, 0, perm);
    for (int64_t k = 0; k < 1200; k++) {
      int64_t at = r * 1200 + k, from = r * 1200 + perm[k];
      bad |= k_out[at] != keys[from] || memcmp(&v0_out[at], &v0[from], 8) != 0 ||
             v1_got[at] != v1[from];
    }
  }
  CHECK_MSG(!bad, "sort_by_key differs from the reference");
  kiln_array_release(v1_out);
  free(v1_got);
  free(keys);
  free(v0);
  free(v1);
  free(k_out);
  free(v0_out);
}

static void check_segmented(kiln_context *ctx, kiln_dtype dt, const int64_t *offsets, int nseg,
                            int descending) {
  int64_t n = offsets[nseg], count = nseg + 1;
  void *data = random_data(dt, n);
  size_t es = kiln_dtype_size(dt);
  unsigned char *out = malloc(es * (size_t)n + 1);
  int64_t *idx = malloc(sizeof(int64_t) * (size_t)n + 1);
  int64_t *perm = malloc(sizeof(int64_t) * (size_t)n + 1);
  kiln_array *dev_offsets = NULL;
  REQUIRE_OK(kiln_array_from_host(ctx, KILN_INT64, 1, &count, NULL, offsets, &dev_offsets));
  kiln_operand idx_o = kiln_operand_host_output(idx, KILN_INT64, 1, &n, NULL);
  kiln_sort_options o = {.descending = descending};
  CHECK_OK(kiln_segmented_sort(ctx, kiln_operand_host(data, dt, 1, &n, NULL),
                               kiln_operand_array(dev_offsets),
                               kiln_operand_host_output(out, dt, 1, &n, NULL), &idx_o, &o, NULL));
  int bad = 0;
  for (int s = 0; s < nseg; s++) {
    int64_t first = offsets[s], len = offsets[s + 1] - first;
    ref_argsort(data, dt, first, len, descending, perm);
    for (int64_t k = 0; k < len; k++)
      bad |= idx[first + k] != first + perm[k] || !same_element(out, first + k, data,
                                                                first + perm[k], dt);
  }
  CHECK_MSG(!bad, "segmented sort of %s (%d segments) differs from the reference",
            kiln_dtype_name(dt), nseg);
  kiln_array_release(dev_offsets);
  free(data);
  free(out);
  free(idx);
  free(perm);
}

static void test_segmented(kiln_context *ctx) {
  /* empty segments, one of one element, short ones (local sorts) */
  static const int64_t small[] = {0, 0, 1, 10, 10, 300, 1324, 1400};
  check_segmented(ctx, KILN_FLOAT32, small, 7, 0);
  check_segmented(ctx, KILN_INT64, small, 7, 1);
  /* a segment longer than a tile: the global passes, then by segment */
  static const int64_t big[] = {0, 5, 3000, 3001, 3001, 7919};
  check_segmented(ctx, KILN_FLOAT64, big, 5, 0);
  check_segmented(ctx, KILN_COMPLEX64, big, 5, 1);
}

/* ---- unique ------------------------------------------------------------------- */

/* Whether elements i and j are one value of np.unique (NumPy 2's
 * equal_nan: equal in the sort order, or both complex with a NaN part). */
static int same_unique_value(const void *data, kiln_dtype dt, int64_t i, int64_t j) {
  if (dt == KILN_COMPLEX64 || dt == KILN_COMPLEX128) {
    double ar, ai, br, bi;
    read_complex(data, dt, i, &ar, &ai);
    read_complex(data, dt, j, &br, &bi);
    if ((isnan(ar) || isnan(ai)) && (isnan(br) || isnan(bi))) return 1;
  }
  return cmp_elements(data, dt, i, j) == 0;
}

static void check_unique(kiln_context *ctx, kiln_dtype dt, int64_t n) {
  void *data = random_data(dt, n);
  size_t es = kiln_dtype_size(dt);
  int64_t *perm = malloc(sizeof(int64_t) * (size_t)(n + 1));
  ref_argsort(data, dt, 0, n, 0, perm);
  /* the reference: runs of equal elements in the stable order */
  int64_t m = 0, *first = malloc(sizeof(int64_t) * (size_t)(n + 1));
  int64_t *counts = malloc(sizeof(int64_t) * (size_t)(n + 1));
  int64_t *inverse = malloc(sizeof(int64_t) * (size_t)(n + 1));
  for (int64_t i = 0; i < n; i++) {
    if (i == 0 || !same_unique_value(data, dt, perm[i], perm[i - 1]))
      first[m] = perm[i], counts[m++] = 0;
    counts[m - 1]++;
    inverse[perm[i]] = m - 1;
  }
  kiln_array *values = NULL, *index = NULL;
  int64_t count = -1, *got_counts = malloc(sizeof(int64_t) * (size_t)(m + 1));
  int64_t *got_inverse = malloc(sizeof(int64_t) * (size_t)(n + 1)), *got_index = NULL;
  kiln_operand index_o = kiln_operand_new(&index);
  kiln_operand inverse_o = kiln_operand_host_output(got_inverse, KILN_INT64, 1, &n, NULL);
  kiln_operand counts_o = kiln_operand_host_output(got_counts, KILN_INT64, 1, &m, NULL);
  kiln_unique_outputs extra = {&index_o, &inverse_o, &counts_o};
  CHECK_OK(kiln_unique(ctx, kiln_operand_host(data, dt, 1, &n, NULL), kiln_operand_new(&values),
                       &count, &extra, NULL));
  CHECK_MSG(count == m, "unique %s n=%lld: count %lld, expected %lld", kiln_dtype_name(dt),
            (long long)n, (long long)count, (long long)m);
  if (values && index && count == m) {
    unsigned char *got = malloc(es * (size_t)(m + 1));
    got_index = malloc(sizeof(int64_t) * (size_t)(m + 1));
    CHECK_OK(kiln_array_to_host(values, got, NULL));
    CHECK_OK(kiln_array_to_host(index, got_index, NULL));
    int bad = 0;
    for (int64_t u = 0; u < m; u++)
      bad |= !same_element(got, u, data, first[u], dt) || got_index[u] != first[u] ||
             got_counts[u] != counts[u];
    for (int64_t i = 0; i < n; i++) bad |= got_inverse[i] != inverse[i];
    CHECK_MSG(!bad, "unique %s n=%lld differs from the reference", kiln_dtype_name(dt),
              (long long)n);
    free(got);
  }
  kiln_array_release(values);
  kiln_array_release(index);
  free(got_index);
  free(got_counts);
  free(got_inverse);
  free(first);
  free(counts);
  free(inverse);
  free(perm);
  free(data);
}

static void test_unique(kiln_context *ctx) {
  static const int64_t sizes[] = {0, 1, 17, 5003};
  static const kiln_dtype dts[] = {KILN_BOOL, KILN_INT8, KILN_UINT64, KILN_FLOAT16, KILN_FLOAT32,
                                   KILN_FLOAT64, KILN_COMPLEX64, KILN_COMPLEX128};
  for (size_t d = 0; d < sizeof dts / sizeof dts[0]; d++)
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) check_unique(ctx, dts[d], sizes[s]);
  /* a 2-D strided input is flattened in C order; a given device output
   * longer than the count keeps its tail */
  int64_t shape[2] = {3, 4}, ten = 10;
  int32_t data[12] = {5, 1, 5, 9, 1, 1, 7, 5, 9, 0, 2, 2};
  kiln_array *a = NULL, *t = NULL, *out = NULL;
  REQUIRE_OK(kiln_array_from_host(ctx, KILN_INT32, 2, shape, NULL, data, &a));
  REQUIRE_OK(kiln_array_transpose(a, NULL, &t));
  int32_t fill = -3, got[10];
  REQUIRE_OK(kiln_array_full(ctx, KILN_INT32, 1, &ten, &fill, &out));
  int64_t count = 0;
  CHECK_OK(kiln_unique(ctx, kiln_operand_array(t), kiln_operand_array(out), &count, NULL, NULL));
  CHECK(count == 6);
  CHECK_OK(kiln_array_to_host(out, got, NULL));
  static const int32_t want[10] = {0, 1, 2, 5, 7, 9, -3, -3, -3, -3};
  CHECK(memcmp(got, want, sizeof want) == 0);
  /* bad outputs: too short, wrong dtype; the message gives the count */
  int64_t four = 4;
  int64_t small[4];
  CHECK_STATUS(kiln_unique(ctx, kiln_operand_array(t),
                           kiln_operand_host_output(got, KILN_INT32, 1, &four, NULL), &count, NULL,
                           NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("6 unique values");
  CHECK_STATUS(kiln_unique(ctx, kiln_operand_array(t),
                           kiln_operand_host_output(small, KILN_INT64, 1, &four, NULL), &count,
                           NULL, NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_unique(ctx, kiln_operand_int(3), kiln_operand_array(out), &count, NULL, NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_unique(ctx, kiln_operand_array(t), kiln_operand_array(out), NULL, NULL, NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  kiln_array_release(a);
  kiln_array_release(t);
  kiln_array_release(out);
}

/* ---- the internal entry (kiln_random_permutation's) ----------------------- */

static void test_pairs_device(kiln_context *ctx) {
  int64_t n = 50001;
  uint64_t *keys = malloc(sizeof(uint64_t) * (size_t)n);
  for (int64_t i = 0; i < n; i++) keys[i] = harness_rand_u64() >> (i % 3 ? 0 : 60);
  kiln_array *k = NULL, *v = NULL;
  REQUIRE_OK(kiln_array_from_host(ctx, KILN_UINT64, 1, &n, NULL, keys, &k));
  REQUIRE_OK(kiln_array_empty(ctx, KILN_UINT32, 1, &n, &v));
  CHECK_OK(kiln_sort_pairs_device(ctx, NULL, k, v, 1, 0, 64));
  uint64_t *got = malloc(sizeof(uint64_t) * (size_t)n);
  uint32_t *got_v = malloc(sizeof(uint32_t) * (size_t)n);
  int64_t *perm = malloc(sizeof(int64_t) * (size_t)n);
  CHECK_OK(kiln_array_to_host(k, got, NULL));
  CHECK_OK(kiln_array_to_host(v, got_v, NULL));
  ref_argsort(keys, KILN_UINT64, 0, n, 0, perm);
  int bad = 0;
  for (int64_t i = 0; i < n; i++) bad |= got_v[i] != perm[i] || got[i] != keys[perm[i]];
  CHECK_MSG(!bad, "kiln_sort_pairs_device differs from the reference");
  CHECK_STATUS(kiln_sort_pairs_device(ctx, NULL, k, v, 0, 0, 65), KILN_ERROR_INVALID_ARGUMENT);
  kiln_array_release(k);
  kiln_array_release(v);
  free(keys);
  free(got);
  free(got_v);
  free(perm);
}

/* The global passes on both paths (the look-back forced on this device
 * too, as KILN_SCAN=lookback does), over the tile edges of
 * KILN_SORT_PASS_TILE and key patterns whose passes are skipped (one digit
 * holds every key), whose tiles each hold one digit, or whose keys are all
 * equal, with uint32 and uint64 keys and iota values. */
static uint64_t pass_key(int pattern, int64_t i, int64_t n) {
  uint64_t r = harness_rand_u64();
  switch (pattern) {
    case 0: return r;                                            /* every pass */
    case 1: return 0x5a5a5a00u | (r & 0xffu);                    /* passes 1..3 (and 4..7) skipped */
    case 2: return 0x0101010101010101ull * (uint64_t)(i / KILN_SORT_PASS_TILE); /* a digit per tile */
    case 3: return 0x77;                                         /* every pass skipped */
    default: return (uint64_t)(n - i) << 20 | (r & 0xf0000u);    /* reversed, low passes skipped */
  }
}

static void check_pairs(kiln_context *ctx, int key_bytes, int val_bytes, int pattern, int64_t n) {
  uint64_t *keys = malloc(8 * (size_t)n);
  uint32_t *keys32 = malloc(4 * (size_t)n);
  for (int64_t i = 0; i < n; i++) {
    keys[i] = pass_key(pattern, i, n);
    if (key_bytes == 4) keys[i] &= 0xffffffffu;
    keys32[i] = (uint32_t)keys[i];
  }
  kiln_array *k = NULL, *v = NULL;
  REQUIRE_OK(kiln_array_from_host(ctx, key_bytes == 4 ? KILN_UINT32 : KILN_UINT64, 1, &n, NULL,
                                  key_bytes == 4 ? (void *)keys32 : (void *)keys, &k));
  REQUIRE_OK(kiln_array_empty(ctx, val_bytes == 4 ? KILN_UINT32 : KILN_UINT64, 1, &n, &v));
  CHECK_OK(kiln_sort_pairs_device(ctx, NULL, k, v, 1, 0, 8 * key_bytes));
  uint64_t *got = malloc(8 * (size_t)n);
  uint64_t *got_v = malloc(8 * (size_t)n);
  int64_t *perm = malloc(8 * (size_t)n);
  CHECK_OK(kiln_array_to_host(k, key_bytes == 4 ? (void *)keys32 : (void *)got, NULL));
  CHECK_OK(kiln_array_to_host(v, got_v, NULL));
  if (key_bytes == 4)
    for (int64_t i = 0; i < n; i++) got[i] = keys32[i];
  if (val_bytes == 4) /* widen in place, from the end */
    for (int64_t i = n - 1; i >= 0; i--) {
      uint32_t v32;
      memcpy(&v32, (const char *)got_v + 4 * i, 4);
      got_v[i] = v32;
    }
  ref_argsort(keys, KILN_UINT64, 0, n, 0, perm);
  int64_t bad = -1;
  for (int64_t i = 0; i < n && bad < 0; i++)
    if (got_v[i] != (uint64_t)perm[i] || got[i] != keys[perm[i]]) bad = i;
  CHECK_MSG(bad < 0, "%d-byte keys, %d-byte values, pattern %d, n %lld: differs at %lld",
            key_bytes, val_bytes, pattern, (long long)n, (long long)bad);
  kiln_array_release(k);
  kiln_array_release(v);
  free(keys);
  free(keys32);
  free(got);
  free(got_v);
  free(perm);
}

static void test_passes(kiln_context *ctx) {
  const int64_t T2 = KILN_SORT_PASS_TILE;
  /* the look-back's tiles (kiln_sort_onesweep): 24 keys per work-item
   * for 4-byte keys alone (3 T2), 16 for 8-byte keys alone and 4 + 4
   * bytes (2 T2), 12 for 8 + 4 (1.5 T2) */
  const int64_t sizes[] = {KILN_SORT_TILE + 1, T2 - 1, T2, T2 + 1, 3 * T2 + 17, 20011,
                           2 * T2 + 1, 3 * T2 - 1};
  static const kiln_scan_path paths[2] = {KILN_SCAN_PATH_REDUCE_THEN_SCAN, KILN_SCAN_PATH_LOOKBACK};
  for (int p = 0; p < 2; p++) {
    kiln_scan_force_path(paths[p]);
    int lookback = -1;
    CHECK_OK(kiln_sort_choose_path(ctx, 1000, &lookback));
    CHECK_MSG(lookback == (p == 1), "the forced path is not taken");
    for (int key_bytes = 4; key_bytes <= 8; key_bytes += 4)
      for (int pattern = 0; pattern < 5; pattern++)
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
          if (pattern == 0 || s % 2 == 1 || s == 5) check_pairs(ctx, key_bytes, 4, pattern, sizes[s]);
    /* 8-byte values (the tiles of 12 and 8 keys per work-item) */
    for (int key_bytes = 4; key_bytes <= 8; key_bytes += 4) {
      check_pairs(ctx, key_bytes, 8, 0, 3 * T2 + 17);
      check_pairs(ctx, key_bytes, 8, 4, 20011);
    }
    /* argsort through the forced path: floats with NaNs and -0.0 */
    check_1d(ctx, KILN_FLOAT32, 3 * T2 + 5, p);
    /* integers: sort moves the keys alone (no values), argsort pairs */
    check_1d(ctx, KILN_INT32, 5 * T2 + 3, p);
    check_1d(ctx, KILN_UINT32, 6 * T2, p); /* whole tiles only: 2 of keys alone, 3 of pairs */
    check_1d(ctx, KILN_INT64, 3 * T2 + 7, !p);
    check_1d(ctx, KILN_UINT8, 2 * T2 + 1, p);
  }
  kiln_scan_force_path(KILN_SCAN_PATH_AUTO);
}

/* kiln_sort of 32- and 64-bit integers and floats moves the keys alone
 * from the input straight into the output (the key transform folded into
 * the first and last passes; floats' NaNs and zeros then put in place by
 * one more launch, which does nothing when there is no NaN or -0.0): every
 * such dtype both ways and on both paths, into a new array, the input
 * itself (in place), a contiguous and a strided device output and host
 * memory, from a reversed strided view, on a stream. specials (floats):
 * 0 as random_data makes them (many NaNs of both signs, -0.0 and 0.0), 1
 * none (no NaN or -0.0; infinities and 0.0 stay), 2 sparse: one -0.0 and
 * one NaN (negative, with a payload) among clean data with a few 0.0,
 * in different parts of the histogram's cut. */
static void check_keys_alone(kiln_context *ctx, kiln_dtype dt, int64_t n, int descending,
                             kiln_stream *stream, int specials) {
  size_t es = kiln_dtype_size(dt);
  int64_t n2 = 2 * n;
  unsigned char *data2 = random_data(dt, n2), *data = malloc(es * (size_t)n);
  int clean = specials != 0;
  for (int64_t i = 0; clean && i < n2; i++) {
    if (dt == KILN_FLOAT32) {
      float *x = (float *)data2 + i;
      if (isnan(*x) || (*x == 0 && signbit(*x))) *x = i % 2 ? 0.25f : -3.5f;
    } else if (dt == KILN_FLOAT64) {
      double *x = (double *)data2 + i;
      if (isnan(*x) || (*x == 0 && signbit(*x))) *x = i % 2 ? 0.25 : -3.5;
    }
  }
  /* (odd places: the view below takes those) */
  if (specials == 2 && dt == KILN_FLOAT32) {
    float *x = (float *)data2;
    uint32_t nan_bits = 0xffc01234u;
    x[(n2 / 3) | 1] = -0.0f;
    memcpy(&x[n2 - 5], &nan_bits, 4);
    x[7] = x[(n2 / 2) | 1] = x[n2 - 9] = 0.0f;
  } else if (specials == 2 && dt == KILN_FLOAT64) {
    double *x = (double *)data2;
    uint64_t nan_bits = 0xfff8000000001234u;
    x[(n2 / 3) | 1] = -0.0;
    memcpy(&x[n2 - 5], &nan_bits, 8);
    x[7] = x[(n2 / 2) | 1] = x[n2 - 9] = 0.0;
  }
  /* the view x[::-2] of data2 */
  for (int64_t i = 0; i < n; i++) memcpy(data + (size_t)i * es, data2 + (size_t)(n2 - 1 - 2 * i) * es, es);
  int64_t *perm = malloc(sizeof(int64_t) * (size_t)n);
  ref_argsort(data, dt, 0, n, descending, perm);
  unsigned char *want = malloc(es * (size_t)n), *got = malloc(es * (size_t)n);
  for (int64_t i = 0; i < n; i++) memcpy(want + (size_t)i * es, data + (size_t)perm[i] * es, es);
  kiln_array *big = NULL, *view = NULL, *a = NULL, *out = NULL, *obig = NULL, *oview = NULL,
             *made = NULL;
  kiln_sort_options o = {.axis = 0, .descending = descending};
  kiln_slice back = {KILN_NONE, KILN_NONE, -2}, every2 = {KILN_NONE, KILN_NONE, 2};
  REQUIRE_OK(kiln_array_from_host(ctx, dt, 1, &n2, NULL, data2, &big));
  REQUIRE_OK(kiln_array_slice(big, 1, &back, &view));
  REQUIRE_OK(kiln_array_from_host(ctx, dt, 1, &n, NULL, data, &a));
  REQUIRE_OK(kiln_array_empty(ctx, dt, 1, &n, &out));
  REQUIRE_OK(kiln_array_empty(ctx, dt, 1, &n2, &obig));
  REQUIRE_OK(kiln_array_slice(obig, 1, &every2, &oview));
  for (int way = 0; way < 5; way++) {
    memset(got, 0, es * (size_t)n);
    kiln_status st;
    switch (way) {
      case 0: st = kiln_sort(ctx, kiln_operand_array(view), kiln_operand_new(&made), &o, stream); break;
      case 1: st = kiln_sort(ctx, kiln_operand_array(view), kiln_operand_array(out), &o, stream); break;
      case 2: st = kiln_sort(ctx, kiln_operand_array(view), kiln_operand_array(oview), &o, stream); break;
      case 3:
        st = kiln_sort(ctx, kiln_operand_host(data, dt, 1, &n, NULL),
                       kiln_operand_host_output(got, dt, 1, &n, NULL), &o, stream);
        break;
      default: st = kiln_sort(ctx, kiln_operand_array(a), kiln_operand_array(a), &o, stream);
    }
    CHECK_OK(st);
    if (st != KILN_OK) continue;
    CHECK_OK(kiln_stream_synchronize(ctx, stream));
    const kiln_array *result = way == 0 ? made : way == 1 ? out : way == 2 ? oview : way == 4 ? a : NULL;
    if (result) CHECK_OK(kiln_array_to_host(result, got, NULL));
    int64_t bad = -1;
    for (int64_t i = 0; i < n && bad < 0; i++)
      if (!same_element(got, i, want, i, dt)) bad = i;
    CHECK_MSG(bad < 0, "%s n=%lld descending=%d specials %d output %d: element %lld differs",
              kiln_dtype_name(dt), (long long)n, descending, specials, way, (long long)bad);
    kiln_array_release(made);
    made = NULL;
  }
  kiln_array_release(oview);
  kiln_array_release(obig);
  kiln_array_release(out);
  kiln_array_release(a);
  kiln_array_release(view);
  kiln_array_release(big);
  free(want);
  free(got);
  free(perm);
  free(data);
  free(data2);
}

static void test_keys_alone(kiln_context *ctx) {
  static const kiln_dtype dts[] = {KILN_UINT32, KILN_INT32, KILN_UINT64, KILN_INT64,
                                   KILN_FLOAT32, KILN_FLOAT64};
  static const kiln_scan_path paths[2] = {KILN_SCAN_PATH_REDUCE_THEN_SCAN, KILN_SCAN_PATH_LOOKBACK};
  kiln_stream *stream = NULL;
  REQUIRE_OK(kiln_stream_create(ctx, &stream));
  for (int p = 0; p < 2; p++) {
    kiln_scan_force_path(paths[p]);
    for (size_t d = 0; d < sizeof dts / sizeof dts[0]; d++)
      for (int descending = 0; descending < 2; descending++)
        for (int specials = 0; specials <= (d >= 4 ? 2 : 0); specials++)
          check_keys_alone(ctx, dts[d],
                           specials == 2 ? 9 * KILN_SORT_PASS_TILE + 5
                           : d % 2       ? 3 * KILN_SORT_PASS_TILE + 7
                                         : KILN_SORT_TILE + 1,
                           descending, (d + descending) % 2 ? stream : NULL, specials);
  }
  kiln_scan_force_path(KILN_SCAN_PATH_AUTO);
  kiln_stream_release(stream);
}

/* ---- bad input ------------------------------------------------------------------ */

static void test_bad_input(kiln_context *ctx) {
  int64_t shape[2] = {4, 5}, n = 20, three = 3;
  float data[20] = {0};
  float out[20];
  int64_t idx[20];
  kiln_array *made = (kiln_array *)&made; /* must come back NULL */
  kiln_operand in = kiln_operand_host(data, KILN_FLOAT32, 2, shape, NULL);
  kiln_sort_options o = kiln_sort_along(2);
  CHECK_STATUS(kiln_sort(ctx, in, kiln_operand_new(&made), &o, NULL), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("axis 2 is out of bounds");
  CHECK(made == NULL);
  o.axis = -3;
  CHECK_STATUS(kiln_argsort(ctx, in, kiln_operand_new(&made), &o, NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_sort(ctx, kiln_operand_float(1.0), kiln_operand_new(&made), NULL, NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("device array or host memory");
  /* output shape and dtype */
  CHECK_STATUS(kiln_sort(ctx, in, kiln_operand_host_output(out, KILN_FLOAT32, 1, &n, NULL), NULL,
                         NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("shape");
  CHECK_STATUS(kiln_argsort(ctx, in, kiln_operand_host_output(out, KILN_FLOAT32, 2, shape, NULL),
                            NULL, NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_sort(ctx, in, kiln_operand_host_output(idx, KILN_INT64, 2, shape, NULL), NULL,
                         NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  /* by key: values of another shape, named in the message */
  kiln_operand values[1] = {kiln_operand_host(data, KILN_FLOAT32, 1, &n, NULL)};
  kiln_operand outs[1] = {kiln_operand_new(&made)};
  CHECK_STATUS(kiln_sort_by_key(ctx, in, NULL, 1, values, outs, NULL, NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("values 0 has shape");
  CHECK(made == NULL);
  CHECK_STATUS(kiln_sort_by_key(ctx, in, NULL, -1, NULL, NULL, NULL, NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  /* segmented: offsets out of order, not covering, wrong dtype; 2-D input */
  int64_t bad_order[3] = {0, 12, 8}, short_cover[3] = {0, 5, 19};
  int32_t wrong[3] = {0, 5, 20};
  kiln_operand flat = kiln_operand_host(data, KILN_FLOAT32, 1, &n, NULL);
  CHECK_STATUS(kiln_segmented_sort(ctx, flat, kiln_operand_host(bad_order, KILN_INT64, 1, &three,
                                                                 NULL),
                                   kiln_operand_new(&made), NULL, NULL, NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("offsets");
  CHECK(made == NULL);
  CHECK_STATUS(kiln_segmented_sort(ctx, flat, kiln_operand_host(short_cover, KILN_INT64, 1, &three,
                                                                 NULL),
                                   kiln_operand_new(&made), NULL, NULL, NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("from 0 to");
  CHECK_STATUS(kiln_segmented_sort(ctx, flat, kiln_operand_host(wrong, KILN_INT32, 1, &three,
                                                                 NULL),
                                   kiln_operand_new(&made), NULL, NULL, NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("int64");
  CHECK_STATUS(kiln_segmented_sort(ctx, in, kiln_operand_host(short_cover, KILN_INT64, 1, &three,
                                                               NULL),
                                   kiln_operand_new(&made), NULL, NULL, NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("1-D");
  CHECK_STATUS(kiln_sort(NULL, in, kiln_operand_new(&made), NULL, NULL),
               KILN_ERROR_INVALID_ARGUMENT);
}

/* ---- NumPy itself ------------------------------------------------------------ */

#include "numpy_python.h"

/* argsort, sort and unique (with index, inverse and counts) of float32
 * with many repeats, NaNs, -0.0 and 0.0 against NumPy 2's own
 * (tests/sort_numpy.py): the sorted and unique values compared bit for bit,
 * so the order of -0.0 and 0.0 (equal: stable) and the kept bits count. */
#define NUMPY_REQUIRE(cond, ...)                                                   \
  do {                                                                             \
    if (!(cond)) {                                                                 \
      CHECK_MSG(0, __VA_ARGS__);                                                   \
      return;                                                                      \
    }                                                                              \
  } while (0)

static void test_numpy(kiln_context *ctx) {
  const char *py = numpy_python();
  if (!py) return;
  enum { N = 1031 };
  int64_t n = N;
  static float a[N], sorted[N], want_sorted[N], uvalues[N], want_values[N];
  static int64_t order[N], index[N], inverse[N], counts[N];
  static int64_t want[4 * N + 1]; /* argsort, count, index, inverse, counts */
  uint64_t state = 0x9e3779b97f4a7c15ull;
  for (int i = 0; i < N; i++) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    int r = (int)(state >> 33) % 41 - 20;
    a[i] = r == 20 ? NAN : r == -20 ? -0.0f : r == 19 ? 0.0f : (float)r * 0.5f;
  }
  char in_path[64], out_path[64], command[1400];
  snprintf(in_path, sizeof in_path, "/tmp/kiln_sort_numpy_%d.in", (int)getpid());
  snprintf(out_path, sizeof out_path, "/tmp/kiln_sort_numpy_%d.out", (int)getpid());
  FILE *f = fopen(in_path, "wb");
  NUMPY_REQUIRE(f != NULL, "cannot open a temporary file");
  fwrite(a, 4, N, f);
  fclose(f);
  snprintf(command, sizeof command, "'%s' '%s/tests/sort_numpy.py' %s %s", py, KILN_SOURCE_DIR,
           in_path, out_path);
  int rc = system(command);
  remove(in_path);
  NUMPY_REQUIRE(rc == 0, "NumPy failed: %s", command);
  f = fopen(out_path, "rb");
  NUMPY_REQUIRE(f != NULL, "cannot open a temporary file");
  int64_t k = 0;
  size_t got = fread(want, 8, N, f);
  got += fread(want_sorted, 4, N, f);
  got += fread(&k, 8, 1, f);
  NUMPY_REQUIRE(got == 2 * N + 1 && k > 0 && k <= N, "NumPy wrote a short result");
  got = fread(want_values, 4, (size_t)k, f);
  got += fread(want + N, 8, (size_t)k, f);       /* index */
  got += fread(want + 2 * N, 8, N, f);           /* inverse */
  got += fread(want + 3 * N, 8, (size_t)k, f);   /* counts */
  fclose(f);
  remove(out_path);
  NUMPY_REQUIRE(got == (size_t)(3 * k + N), "NumPy wrote a short result");
  kiln_operand input = kiln_operand_host(a, KILN_FLOAT32, 1, &n, NULL);
  CHECK_OK(kiln_argsort(ctx, input, kiln_operand_host_output(order, KILN_INT64, 1, &n, NULL),
                        NULL, NULL));
  CHECK_OK(kiln_sort(ctx, input, kiln_operand_host_output(sorted, KILN_FLOAT32, 1, &n, NULL),
                     NULL, NULL));
  int64_t bad = 0;
  for (int i = 0; i < N; i++)
    bad += order[i] != want[i] || memcmp(&sorted[i], &want_sorted[i], 4) != 0;
  CHECK_MSG(bad == 0, "argsort/sort: %lld of %d differ from NumPy's", (long long)bad, N);
  kiln_operand o_index = kiln_operand_host_output(index, KILN_INT64, 1, &n, NULL);
  kiln_operand o_inverse = kiln_operand_host_output(inverse, KILN_INT64, 1, &n, NULL);
  kiln_operand o_counts = kiln_operand_host_output(counts, KILN_INT64, 1, &n, NULL);
  kiln_unique_outputs extra = {&o_index, &o_inverse, &o_counts};
  int64_t count = 0;
  CHECK_OK(kiln_unique(ctx, input, kiln_operand_host_output(uvalues, KILN_FLOAT32, 1, &n, NULL),
                       &count, &extra, NULL));
  CHECK_MSG(count == k, "unique: %lld values, NumPy %lld", (long long)count, (long long)k);
  bad = 0;
  for (int64_t i = 0; count == k && i < k; i++)
    bad += memcmp(&uvalues[i], &want_values[i], 4) != 0 || index[i] != want[N + i] ||
           counts[i] != want[3 * N + i];
  for (int i = 0; i < N; i++) bad += inverse[i] != want[2 * N + i];
  CHECK_MSG(bad == 0, "unique: %lld values, indices, inverse or counts differ from NumPy's",
            (long long)bad);
}

/* complex64 and complex128 with NaN real parts, NaN imaginary parts, both,
 * NaNs of both signs, -0.0, 0.0 and infinities (random_data), sorted and
 * argsorted by kiln and by NumPy 2 (tests/sort_numpy.py: kind='stable';
 * descending as kiln defines it), compared index for index and bit for
 * bit: sizes 1, a prime within one tile, primes past it (the radix
 * passes) and one of several look-back tiles. */
static void test_numpy_complex(kiln_context *ctx) {
  const char *py = numpy_python();
  if (!py) return;
  static const int64_t sizes[] = {1, 13, 1031, 5003, 65537};
  char in_path[64], out_path[64], command[1400];
  snprintf(in_path, sizeof in_path, "/tmp/kiln_sort_complex_%d.in", (int)getpid());
  snprintf(out_path, sizeof out_path, "/tmp/kiln_sort_complex_%d.out", (int)getpid());
  for (int c = 0; c < 2 * 5 * 2; c++) {
    kiln_dtype dt = c % 2 ? KILN_COMPLEX128 : KILN_COMPLEX64;
    int64_t n = sizes[c / 2 % 5];
    int descending = c / 10;
    if (n == 65537 && (dt == KILN_COMPLEX128 || descending)) continue; /* time on PoCL */
    size_t es = kiln_dtype_size(dt);
    void *data = random_data(dt, n);
    unsigned char *sorted = malloc(es * (size_t)n), *want_sorted = malloc(es * (size_t)n);
    int64_t *order = malloc(8 * (size_t)n), *want = malloc(8 * (size_t)n);
    FILE *f = fopen(in_path, "wb");
    NUMPY_REQUIRE(f != NULL, "cannot open a temporary file");
    fwrite(data, es, (size_t)n, f);
    fclose(f);
    snprintf(command, sizeof command, "'%s' '%s/tests/sort_numpy.py' %s %s %s %d", py,
             KILN_SOURCE_DIR, in_path, out_path, kiln_dtype_name(dt), descending);
    int rc = system(command);
    remove(in_path);
    f = rc == 0 ? fopen(out_path, "rb") : NULL;
    size_t got = 0;
    if (f) {
      got = fread(want, 8, (size_t)n, f);
      got += fread(want_sorted, es, (size_t)n, f);
      fclose(f);
    }
    remove(out_path);
    CHECK_MSG(got == 2 * (size_t)n, "NumPy failed or wrote a short result: %s", command);
    kiln_sort_options o = {.axis = 0, .descending = descending};
    kiln_operand input = kiln_operand_host(data, dt, 1, &n, NULL);
    CHECK_OK(kiln_argsort(ctx, input, kiln_operand_host_output(order, KILN_INT64, 1, &n, NULL),
                          &o, NULL));
    CHECK_OK(kiln_sort(ctx, input, kiln_operand_host_output(sorted, dt, 1, &n, NULL), &o, NULL));
    int64_t bad = 0;
    for (int64_t i = 0; got == 2 * (size_t)n && i < n; i++)
      bad += order[i] != want[i] || !same_element(sorted, i, want_sorted, i, dt);
    CHECK_MSG(bad == 0, "%s n=%lld descending=%d: %lld of the sort/argsort differ from NumPy's",
              kiln_dtype_name(dt), (long long)n, descending, (long long)bad);
    free(data);
    free(sorted);
    free(want_sorted);
    free(order);
    free(want);
  }
}

static const harness_test tests[] = {{"every_dtype", test_every_dtype},
                                     {"descending", test_descending},
                                     {"large", test_large},
                                     {"patterns", test_patterns},
                                     {"axes", test_axes},
                                     {"views_and_streams", test_views_and_streams},
                                     {"by_key", test_by_key},
                                     {"segmented", test_segmented},
                                     {"unique", test_unique},
                                     {"pairs_device", test_pairs_device},
                                     {"passes", test_passes},
                                     {"keys_alone", test_keys_alone},
                                     {"bad_input", test_bad_input},
                                     {"numpy", test_numpy},
                                     {"numpy_complex", test_numpy_complex},
                                     {0}};

int main(int argc, char **argv) { return harness_main(argc, argv, tests); }
