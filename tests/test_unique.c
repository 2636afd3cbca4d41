/* tests/test_unique.c: kiln_unique on both of its paths (docs/sorting.md):
 * values and counts alone (the sorted values compacted where runs start,
 * no permutation) and with first indices or the inverse (the stable
 * permutation), for every dtype, against a plain C reference that never
 * sorts the elements (each element looked up among the distinct values
 * seen so far, then the distinct values ordered), and against NumPy 2's
 * np.unique itself through tests/unique_numpy.py (skipped with the reason
 * when there is no Python with NumPy 2: tests/numpy_python.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "harness.h"

static const kiln_dtype all_dtypes[] = {
    KILN_BOOL,   KILN_INT8,    KILN_UINT8,   KILN_INT16,    KILN_UINT16,
    KILN_INT32,  KILN_UINT32,  KILN_INT64,   KILN_UINT64,   KILN_FLOAT16,
    KILN_FLOAT32, KILN_FLOAT64, KILN_COMPLEX64, KILN_COMPLEX128};
#define NDTYPES ((int)(sizeof all_dtypes / sizeof all_dtypes[0]))

/* ---- the reference ------------------------------------------------------------ */

/* Element i as numbers: an integer exactly (int64 or uint64 bits in *u), a
 * float or complex as doubles. */
typedef struct number {
  int is_float, is_signed;
  int64_t i;
  uint64_t u;
  double re, im;
} number;

static number number_at(const void *data, kiln_dtype dt, int64_t i) {
  number x = {0};
  const unsigned char *p = (const unsigned char *)data + (size_t)i * kiln_dtype_size(dt);
  switch (dt) {
    case KILN_BOOL: x.u = p[0] != 0; break;
    case KILN_UINT8: x.u = p[0]; break;
    case KILN_INT8: x.is_signed = 1; x.i = (int8_t)p[0]; break;
    case KILN_UINT16: { uint16_t v; memcpy(&v, p, 2); x.u = v; break; }
    case KILN_INT16: { int16_t v; memcpy(&v, p, 2); x.is_signed = 1; x.i = v; break; }
    case KILN_UINT32: { uint32_t v; memcpy(&v, p, 4); x.u = v; break; }
    case KILN_INT32: { int32_t v; memcpy(&v, p, 4); x.is_signed = 1; x.i = v; break; }
    case KILN_UINT64: memcpy(&x.u, p, 8); break;
    case KILN_INT64: memcpy(&x.i, p, 8); x.is_signed = 1; break;
    case KILN_COMPLEX64: {
      float v[2];
      memcpy(v, p, 8);
      x.is_float = 1, x.re = v[0], x.im = v[1];
      break;
    }
    case KILN_COMPLEX128: {
      double v[2];
      memcpy(v, p, 16);
      x.is_float = 1, x.re = v[0], x.im = v[1];
      break;
    }
    default: x.is_float = 1, x.re = harness_get(data, dt, i); /* float16/32/64 */
  }
  return x;
}

/* A real part's order: numbers by value (-0.0 == 0.0), every NaN after
 * them and equal to each other. */
static int order_double(double a, double b) {
  if (isnan(a) || isnan(b)) return isnan(a) - isnan(b);
  return (a > b) - (a < b);
}

/* The sort order of two elements (docs/sorting.md, NumPy's): complex by
 * class first (0: no NaN part, 1: a NaN imaginary part only, 2: a NaN
 * real part only, 3: both), then real part, then imaginary part. */
static int sort_order(number a, number b) {
  if (a.is_float) {
    int ca = 2 * isnan(a.re) + isnan(a.im), cb = 2 * isnan(b.re) + isnan(b.im);
    if (ca != cb) return (ca > cb) - (ca < cb);
    int c = order_double(a.re, b.re);
    return c ? c : order_double(a.im, b.im);
  }
  if (a.is_signed) return (a.i > b.i) - (a.i < b.i);
  return (a.u > b.u) - (a.u < b.u);
}

/* unique's order: the sort order, but every complex number with a NaN part
 * equal to every other (NumPy 2's equal_nan=True; for a float, NaNs are
 * one class of the sort order already). */
static int order(number a, number b) {
  if (a.is_float && (isnan(a.re) || isnan(a.im)) && (isnan(b.re) || isnan(b.im))) return 0;
  return sort_order(a, b);
}

/* np.unique's results for data: m distinct values, first[u] (the input
 * position of the first occurrence of the u-th smallest; of unique values
 * that are not all equal in the sort order, the complex numbers with a NaN
 * part, the smallest in the sort order: NumPy keeps the first of its run
 * in sorted order), counts[u] and
 * inverse[i], by lookup among the distinct values in input order (no sort
 * of the elements) and an insertion sort of the distinct ones. */
typedef struct reference {
  int64_t m, *first, *counts, *inverse;
} reference;

static reference make_reference(const void *data, kiln_dtype dt, int64_t n) {
  reference r = {0, malloc(sizeof(int64_t) * (size_t)(n + 1)),
                 malloc(sizeof(int64_t) * (size_t)(n + 1)),
                 malloc(sizeof(int64_t) * (size_t)(n + 1))};
  int64_t *klass = malloc(sizeof(int64_t) * (size_t)(n + 1)); /* first-seen class of i */
  int64_t *seen_first = malloc(sizeof(int64_t) * (size_t)(n + 1));
  int64_t *seen_count = calloc((size_t)(n + 1), sizeof(int64_t));
  int64_t seen = 0;
  for (int64_t i = 0; i < n; i++) {
    number x = number_at(data, dt, i);
    int64_t c = 0;
    while (c < seen && order(number_at(data, dt, seen_first[c]), x) != 0) c++;
    if (c == seen) seen_first[seen++] = i;
    else if (sort_order(x, number_at(data, dt, seen_first[c])) < 0) seen_first[c] = i;
    klass[i] = c;
    seen_count[c]++;
  }
  /* rank[c]: the class's place among the distinct values in order */
  int64_t *by_rank = malloc(sizeof(int64_t) * (size_t)(seen + 1));
  int64_t *rank = malloc(sizeof(int64_t) * (size_t)(seen + 1));
  for (int64_t c = 0; c < seen; c++) {
    int64_t p = c;
    number x = number_at(data, dt, seen_first[c]);
    while (p > 0 && order(number_at(data, dt, seen_first[by_rank[p - 1]]), x) > 0) {
      by_rank[p] = by_rank[p - 1];
      p--;
    }
    by_rank[p] = c;
  }
  for (int64_t u = 0; u < seen; u++) {
    rank[by_rank[u]] = u;
    r.first[u] = seen_first[by_rank[u]];
    r.counts[u] = seen_count[by_rank[u]];
  }
  for (int64_t i = 0; i < n; i++) r.inverse[i] = rank[klass[i]];
  r.m = seen;
  free(klass);
  free(seen_first);
  free(seen_count);
  free(by_rank);
  free(rank);
  return r;
}

static void free_reference(reference *r) {
  free(r->first);
  free(r->counts);
  free(r->inverse);
}

/* n elements of dt with repeats: integers from a range of about `distinct`
 * values (and the type's extremes), floats from halves in [-8, 8) with
 * NaNs of both signs and two payloads, -0.0, 0.0 and infinities; complex
 * parts alike (no NaN when `nan` is 0, for NumPy, which makes every complex
 * holding a NaN one value). */
static void *make_data(kiln_dtype dt, int64_t n, int64_t distinct, int nan) {
  size_t es = kiln_dtype_size(dt);
  unsigned char *data = calloc((size_t)(n + 1), es);
  int is_complex = dt == KILN_COMPLEX64 || dt == KILN_COMPLEX128;
  if (!kiln_dtype_is_float(dt) && !is_complex) {
    for (int64_t i = 0; i < n; i++) {
      uint64_t r = harness_rand_u64();
      uint64_t v = dt == KILN_BOOL ? r % 2 : r % (uint64_t)distinct - (uint64_t)(distinct / 2);
      if (dt != KILN_BOOL && r % 61 == 0) v = r % 122 == 0 ? ~(uint64_t)0 : (uint64_t)1 << 63;
      if (dt != KILN_BOOL && r % 67 == 0) v = ((uint64_t)1 << (8 * es - 1)) - 1; /* max */
      memcpy(data + (size_t)i * es, &v, es); /* the low bytes (little-endian) */
    }
    return data;
  }
  double quiet_nan = NAN;
  uint64_t bits;
  memcpy(&bits, &quiet_nan, 8);
  bits |= 1; /* another payload */
  double other_nan;
  memcpy(&other_nan, &bits, 8);
  const double specials[] = {NAN, -NAN, other_nan, -0.0, 0.0, INFINITY, -INFINITY, 1.5};
  int parts = is_complex ? 2 : 1;
  for (int64_t i = 0; i < n * parts; i++) {
    double v = floor(harness_rand_uniform(0, (double)distinct)) * 0.5 - (double)distinct / 4;
    if (harness_rand_u64() % 6 == 0) v = specials[harness_rand_u64() % 8];
    if (!nan && isnan(v)) v = -0.0;
    switch (dt) {
      case KILN_FLOAT16: ((uint16_t *)data)[i] = kiln_float16_from_double(v); break;
      case KILN_FLOAT32: case KILN_COMPLEX64: ((float *)data)[i] = (float)v; break;
      default: ((double *)data)[i] = v;
    }
  }
  return data;
}

static int same_bits(const void *a, int64_t i, const void *b, int64_t j, size_t es) {
  return memcmp((const char *)a + (size_t)i * es, (const char *)b + (size_t)j * es, es) == 0;
}

/* ---- every dtype, both paths ------------------------------------------------------ */

/* The outputs a call asks for: 1 values, 2 counts, 4 index, 8 inverse. */
enum { WANT_COUNTS = 2, WANT_INDEX = 4, WANT_INVERSE = 8 };

/* kiln_unique of data (host input) asking `want`, checked against r. */
static void check_call(kiln_context *ctx, const void *data, kiln_dtype dt, int64_t n,
                       const reference *r, int want) {
  size_t es = kiln_dtype_size(dt);
  kiln_array *values = NULL, *index = NULL;
  int64_t count = -1, m = r->m;
  int64_t *counts = malloc(sizeof(int64_t) * (size_t)(m + 1));
  int64_t *inverse = malloc(sizeof(int64_t) * (size_t)(n + 1));
  kiln_operand index_o = kiln_operand_new(&index);
  kiln_operand counts_o = kiln_operand_host_output(counts, KILN_INT64, 1, &m, NULL);
  kiln_operand inverse_o = kiln_operand_host_output(inverse, KILN_INT64, 1, &n, NULL);
  kiln_unique_outputs extra = {want & WANT_INDEX ? &index_o : NULL,
                               want & WANT_INVERSE ? &inverse_o : NULL,
                               want & WANT_COUNTS ? &counts_o : NULL};
  CHECK_OK(kiln_unique(ctx, kiln_operand_host(data, dt, 1, &n, NULL), kiln_operand_new(&values),
                       &count, want > 1 ? &extra : NULL, NULL));
  CHECK_MSG(count == m, "unique %s n=%lld want=%d: count %lld, expected %lld",
            kiln_dtype_name(dt), (long long)n, want, (long long)count, (long long)m);
  if (values && count == m) {
    CHECK(kiln_array_size(values) == m && kiln_array_dtype(values) == dt);
    unsigned char *got = malloc(es * (size_t)(m + 1));
    int64_t *got_index = malloc(sizeof(int64_t) * (size_t)(m + 1));
    CHECK_OK(kiln_array_to_host(values, got, NULL));
    if (index) CHECK_OK(kiln_array_to_host(index, got_index, NULL));
    int64_t bad = -1;
    for (int64_t u = 0; u < m && bad < 0; u++)
      if (!same_bits(got, u, data, r->first[u], es) ||
          ((want & WANT_COUNTS) && counts[u] != r->counts[u]) ||
          ((want & WANT_INDEX) && got_index[u] != r->first[u]))
        bad = u;
    for (int64_t i = 0; (want & WANT_INVERSE) && i < n && bad < 0; i++)
      if (inverse[i] != r->inverse[i]) bad = m + i;
    CHECK_MSG(bad < 0, "unique %s n=%lld want=%d: differs from the reference at %lld (of %lld "
              "values, then the inverse)", kiln_dtype_name(dt), (long long)n, want,
              (long long)bad, (long long)m);
    free(got);
    free(got_index);
  }
  CHECK(index == NULL || (want & WANT_INDEX));
  kiln_array_release(values);
  kiln_array_release(index);
  free(counts);
  free(inverse);
}

/* Both paths at edge sizes: 0, 1, 2, a prime below one sort tile (1024
 * keys), primes above it (the keys-alone sort for integers, float32 and
 * float64) and above one scan tile (4096: several compaction tiles). */
static void test_every_dtype(kiln_context *ctx) {
  static const int64_t sizes[] = {0, 1, 2, 17, 1031, 4099, 5003};
  static const int wants[] = {1, WANT_COUNTS, WANT_INDEX, WANT_COUNTS | WANT_INDEX | WANT_INVERSE};
  for (int d = 0; d < NDTYPES; d++)
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
      void *data = make_data(all_dtypes[d], sizes[s], 80, 1);
      reference r = make_reference(data, all_dtypes[d], sizes[s]);
      for (size_t w = 0; w < sizeof wants / sizeof wants[0]; w++)
        check_call(ctx, data, all_dtypes[d], sizes[s], &r, wants[w]);
      free_reference(&r);
      free(data);
    }
}

/* Many distinct values (every element its own run for integers) and many
 * compaction tiles, on both paths; and inputs of one repeated value. */
static void test_patterns(kiln_context *ctx) {
  static const kiln_dtype dts[] = {KILN_INT32, KILN_UINT64, KILN_FLOAT32, KILN_FLOAT64};
  for (size_t d = 0; d < sizeof dts / sizeof dts[0]; d++) {
    int64_t n = 6007;
    void *data = make_data(dts[d], n, 1 << 20, 1);
    reference r = make_reference(data, dts[d], n);
    check_call(ctx, data, dts[d], n, &r, WANT_COUNTS);
    check_call(ctx, data, dts[d], n, &r, WANT_INVERSE | WANT_COUNTS);
    free_reference(&r);
    memset(data, 0x41, (size_t)n * kiln_dtype_size(dts[d])); /* one value */
    r = make_reference(data, dts[d], n);
    CHECK(r.m == 1);
    check_call(ctx, data, dts[d], n, &r, WANT_COUNTS);
    check_call(ctx, data, dts[d], n, &r, WANT_INDEX);
    free_reference(&r);
    free(data);
  }
}

/* ---- views, outputs, streams --------------------------------------------------- */

/* A reversed strided device view as the input; the values written into a
 * reversed view of a longer device array (the rest kept), counts into a
 * device array, on a stream; then host output with a 2-D transposed
 * input. Both paths. */
static void test_views_and_streams(kiln_context *ctx) {
  int64_t n = 3001, big = 2 * n;
  kiln_dtype dt = KILN_INT32;
  int32_t *host = make_data(dt, big, 50, 1);
  kiln_array *a = NULL, *view = NULL, *out = NULL, *out_view = NULL, *counts = NULL;
  kiln_stream *stream = NULL;
  REQUIRE_OK(kiln_array_from_host(ctx, dt, 1, &big, NULL, host, &a));
  kiln_slice every_other_reversed = {big - 1, KILN_NONE, -2};
  REQUIRE_OK(kiln_array_slice(a, 1, &every_other_reversed, &view));
  CHECK(kiln_array_size(view) == n);
  int32_t *seen = malloc(sizeof(int32_t) * (size_t)n); /* what the view holds */
  for (int64_t i = 0; i < n; i++) seen[i] = host[big - 1 - 2 * i];
  reference r = make_reference(seen, dt, n);
  int64_t room = r.m + 7, count = 0;
  int32_t fill = -12345;
  kiln_slice reversed = {KILN_NONE, KILN_NONE, -1};
  REQUIRE_OK(kiln_array_empty(ctx, KILN_INT64, 1, &r.m, &counts));
  REQUIRE_OK(kiln_stream_create(ctx, &stream));
  int32_t *got = malloc(sizeof(int32_t) * (size_t)room);
  int64_t *got_counts = malloc(sizeof(int64_t) * (size_t)(r.m + 1));
  int64_t *got_index = malloc(sizeof(int64_t) * (size_t)(r.m + 1));
  for (int path = 0; path < 2; path++) {
    kiln_array_release(out_view);
    kiln_array_release(out);
    out = out_view = NULL;
    REQUIRE_OK(kiln_array_full(ctx, dt, 1, &room, &fill, &out));
    /* the fill is on the default stream; the call below is on another */
    CHECK_OK(kiln_context_synchronize(ctx));
    REQUIRE_OK(kiln_array_slice(out, 1, &reversed, &out_view));
    kiln_operand counts_o = kiln_operand_array(counts);
    kiln_operand index_o = kiln_operand_host_output(got_index, KILN_INT64, 1, &r.m, NULL);
    kiln_unique_outputs extra = {path ? &index_o : NULL, NULL, &counts_o};
    CHECK_OK(kiln_unique(ctx, kiln_operand_array(view), kiln_operand_array(out_view), &count,
                         &extra, stream));
    CHECK_OK(kiln_stream_synchronize(ctx, stream));
    CHECK(count == r.m);
    CHECK_OK(kiln_array_to_host(out, got, NULL));
    CHECK_OK(kiln_array_to_host(counts, got_counts, NULL));
    int64_t bad = 0;
    for (int64_t u = 0; u < r.m; u++) /* out_view[u] is out[room - 1 - u] */
      bad += got[room - 1 - u] != seen[r.first[u]] || got_counts[u] != r.counts[u] ||
             (path && got_index[u] != r.first[u]);
    for (int64_t k = 0; k < room - r.m; k++) bad += got[k] != fill;
    CHECK_MSG(bad == 0, "views, path %d: %lld values, counts or the kept tail differ", path,
              (long long)bad);
  }
  free_reference(&r);
  /* a 2-D transposed device input, flattened in C order, into host memory */
  int64_t shape[2] = {37, 41}, total = 37 * 41;
  kiln_array *m2 = NULL, *t = NULL;
  REQUIRE_OK(kiln_array_from_host(ctx, dt, 2, shape, NULL, host, &m2));
  REQUIRE_OK(kiln_array_transpose(m2, NULL, &t));
  int32_t *flat = malloc(sizeof(int32_t) * (size_t)total);
  for (int64_t i = 0; i < 41; i++)
    for (int64_t j = 0; j < 37; j++) flat[i * 37 + j] = host[j * 41 + i];
  r = make_reference(flat, dt, total);
  int32_t *values = malloc(sizeof(int32_t) * (size_t)total);
  CHECK_OK(kiln_unique(ctx, kiln_operand_array(t),
                       kiln_operand_host_output(values, dt, 1, &total, NULL), &count, NULL,
                       stream));
  CHECK(count == r.m);
  int64_t bad = 0;
  for (int64_t u = 0; count == r.m && u < r.m; u++) bad += values[u] != flat[r.first[u]];
  CHECK_MSG(bad == 0, "transposed input: %lld values differ", (long long)bad);
  free_reference(&r);
  kiln_stream_release(stream);
  kiln_array *arrays[] = {a, view, out, out_view, counts, m2, t};
  for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++) kiln_array_release(arrays[i]);
  free(values);
  free(flat);
  free(got);
  free(got_counts);
  free(got_index);
  free(seen);
  free(host);
}

/* Bad outputs of the path without a permutation: nothing written, new
 * outputs NULL, the message gives the count. */
static void test_bad_input(kiln_context *ctx) {
  int64_t n = 9, two = 2, five = 5;
  int32_t data[9] = {4, 1, 4, 9, 1, 1, 7, 0, 7}; /* 5 unique */
  int32_t small[2] = {-1, -1};
  int64_t counts[5], short_counts[2];
  float wrong[5];
  kiln_array *values = NULL;
  int64_t count = 0;
  kiln_operand input = kiln_operand_host(data, KILN_INT32, 1, &n, NULL);
  CHECK_STATUS(kiln_unique(ctx, input, kiln_operand_host_output(small, KILN_INT32, 1, &two, NULL),
                           &count, NULL, NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("5 unique values");
  CHECK(small[0] == -1 && small[1] == -1);
  CHECK_STATUS(kiln_unique(ctx, input, kiln_operand_host_output(wrong, KILN_FLOAT32, 1, &five,
                                                                NULL),
                           &count, NULL, NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("int32");
  kiln_operand short_o = kiln_operand_host_output(short_counts, KILN_INT64, 1, &two, NULL);
  kiln_unique_outputs extra = {NULL, NULL, &short_o};
  CHECK_STATUS(kiln_unique(ctx, input, kiln_operand_new(&values), &count, &extra, NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("counts");
  CHECK(values == NULL);
  kiln_operand float_counts = kiln_operand_host_output(wrong, KILN_FLOAT32, 1, &five, NULL);
  extra.counts = &float_counts;
  CHECK_STATUS(kiln_unique(ctx, input, kiln_operand_new(&values), &count, &extra, NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK(values == NULL);
  kiln_operand counts_o = kiln_operand_host_output(counts, KILN_INT64, 1, &five, NULL);
  extra.counts = &counts_o;
  CHECK_OK(kiln_unique(ctx, input, kiln_operand_new(&values), &count, &extra, NULL));
  CHECK(count == 5 && counts[0] == 1 && counts[1] == 3 && counts[2] == 2 && counts[3] == 2 &&
        counts[4] == 1);
  kiln_array_release(values);
  CHECK_STATUS(kiln_unique(ctx, kiln_operand_float(1.5), kiln_operand_new(&values), &count, NULL,
                           NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK(values == NULL && count == 0);
}

/* ---- NumPy itself ---------------------------------------------------------------- */

#include "numpy_python.h"

/* Every dtype at 1031 and 5003 elements (floats with NaNs of two payloads
 * and both signs, -0.0 and 0.0; complex with NaN real, imaginary or both
 * parts, which NumPy 2 makes one value, the first in sorted order)
 * through one run of tests/unique_numpy.py: np.unique with index,
 * inverse and counts (a stable sort, so the first occurrence's bits are
 * kept as kiln keeps them). Both of kiln's paths are compared with it,
 * the values bit for bit. */
static void test_numpy(kiln_context *ctx) {
  const char *py = numpy_python();
  if (!py) return;
  static const int64_t sizes[] = {1031, 5003};
  enum { NCASES = NDTYPES * 2 };
  void *inputs[NCASES];
  char in_path[64], out_path[64], command[1400];
  snprintf(in_path, sizeof in_path, "/tmp/kiln_unique_numpy_%d.in", (int)getpid());
  snprintf(out_path, sizeof out_path, "/tmp/kiln_unique_numpy_%d.out", (int)getpid());
  FILE *f = fopen(in_path, "wb");
  if (!f) {
    CHECK_MSG(0, "cannot open %s", in_path);
    return;
  }
  for (int c = 0; c < NCASES; c++) {
    kiln_dtype dt = all_dtypes[c / 2];
    int64_t n = sizes[c % 2];
    inputs[c] = make_data(dt, n, 80, 1);
    const char *name = kiln_dtype_name(dt);
    int32_t length = (int32_t)strlen(name);
    fwrite(&length, 4, 1, f);
    fwrite(name, 1, (size_t)length, f);
    fwrite(&n, 8, 1, f);
    fwrite(inputs[c], kiln_dtype_size(dt), (size_t)n, f);
  }
  fclose(f);
  snprintf(command, sizeof command, "'%s' '%s/tests/unique_numpy.py' %s %s", py, KILN_SOURCE_DIR,
           in_path, out_path);
  int rc = system(command);
  remove(in_path);
  CHECK_MSG(rc == 0, "NumPy failed: %s", command);
  f = rc == 0 ? fopen(out_path, "rb") : NULL;
  CHECK(rc != 0 || f != NULL);
  for (int c = 0; f && c < NCASES; c++) {
    kiln_dtype dt = all_dtypes[c / 2];
    size_t es = kiln_dtype_size(dt);
    int64_t n = sizes[c % 2], k = 0;
    int ok = fread(&k, 8, 1, f) == 1 && k > 0 && k <= n;
    unsigned char *want = malloc(es * (size_t)n);
    int64_t *want_index = malloc(8 * (size_t)n), *want_inverse = malloc(8 * (size_t)n);
    int64_t *want_counts = malloc(8 * (size_t)n);
    ok = ok && fread(want, es, (size_t)k, f) == (size_t)k &&
         fread(want_index, 8, (size_t)k, f) == (size_t)k &&
         fread(want_inverse, 8, (size_t)n, f) == (size_t)n &&
         fread(want_counts, 8, (size_t)k, f) == (size_t)k;
    CHECK_MSG(ok, "NumPy wrote a short result for %s n=%lld", kiln_dtype_name(dt), (long long)n);
    for (int path = 0; ok && path < 2; path++) {
      unsigned char *got = malloc(es * (size_t)n);
      int64_t *index = malloc(8 * (size_t)n), *inverse = malloc(8 * (size_t)n);
      int64_t *counts = malloc(8 * (size_t)n), count = 0;
      kiln_operand o_index = kiln_operand_host_output(index, KILN_INT64, 1, &n, NULL);
      kiln_operand o_inverse = kiln_operand_host_output(inverse, KILN_INT64, 1, &n, NULL);
      kiln_operand o_counts = kiln_operand_host_output(counts, KILN_INT64, 1, &n, NULL);
      /* path 0: values and counts alone; path 1: everything (permutation) */
      kiln_unique_outputs extra = {path ? &o_index : NULL, path ? &o_inverse : NULL, &o_counts};
      CHECK_OK(kiln_unique(ctx, kiln_operand_host(inputs[c], dt, 1, &n, NULL),
                           kiln_operand_host_output(got, dt, 1, &n, NULL), &count, &extra, NULL));
      int64_t bad = count != k;
      for (int64_t u = 0; !bad && u < k; u++)
        bad += !same_bits(got, u, want, u, es) || counts[u] != want_counts[u] ||
               (path && index[u] != want_index[u]);
      for (int64_t i = 0; !bad && path && i < n; i++) bad += inverse[i] != want_inverse[i];
      CHECK_MSG(bad == 0, "%s n=%lld path %d: %lld values (NumPy %lld); values, counts, indices "
                "or inverse differ from NumPy's", kiln_dtype_name(dt), (long long)n, path,
                (long long)count, (long long)k);
      free(got);
      free(index);
      free(inverse);
      free(counts);
    }
    free(want);
    free(want_index);
    free(want_inverse);
    free(want_counts);
  }
  if (f) fclose(f);
  remove(out_path);
  for (int c = 0; c < NCASES; c++) free(inputs[c]);
}

static const harness_test tests[] = {{"every_dtype", test_every_dtype},
                                     {"patterns", test_patterns},
                                     {"views_and_streams", test_views_and_streams},
                                     {"bad_input", test_bad_input},
                                     {"numpy", test_numpy},
                                     {0}};

int main(int argc, char **argv) { return harness_main(argc, argv, tests); }
