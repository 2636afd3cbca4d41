/* Conformance: device arrays, transfers, views, copies and casts, checked
 * element by element against host references on random data. */
#include "harness.h"

static const int64_t sizes[] = {0, 1, 2, 7, 1009, 65537};
#define NSIZES (int)(sizeof sizes / sizeof sizes[0])

static double host_cast(double v, kiln_dtype to) {
  /* the value a NumPy unsafe cast stores (for in-range values) */
  switch (to) {
    case KILN_BOOL: return v != 0;
    case KILN_FLOAT16: return kiln_float16_to_float(kiln_float16_from_double(v));
    case KILN_FLOAT32: return (float)v;
    case KILN_FLOAT64: return v;
    default: return trunc(v);
  }
}

static void test_round_trip_every_dtype(kiln_context *ctx) {
  for (int d = 0; d < KILN_DTYPE_COUNT; d++) {
    kiln_dtype dtype = (kiln_dtype)d;
    size_t item = kiln_dtype_size(dtype);
    for (int s = 0; s < NSIZES; s++) {
      int64_t n = sizes[s];
      unsigned char *in = malloc((size_t)n * item + 1), *out = malloc((size_t)n * item + 1);
      harness_fill_random(in, dtype, n, -100, 100);
      if (dtype == KILN_UINT8 || dtype == KILN_UINT16 || dtype == KILN_UINT32 || dtype == KILN_UINT64)
        harness_fill_random(in, dtype, n, 0, 200);
      kiln_array *a = NULL;
      CHECK_OK(kiln_array_from_host(ctx, dtype, 1, &n, NULL, in, &a));
      if (a) {
        CHECK(kiln_array_size(a) == n);
        CHECK(kiln_array_dtype(a) == dtype);
        CHECK(kiln_array_nbytes(a) == n * (int64_t)item);
        CHECK(kiln_array_is_contiguous(a));
        memset(out, 0xAB, (size_t)n * item);
        CHECK_OK(kiln_array_to_host(a, out, NULL));
        CHECK_MSG(n == 0 || memcmp(in, out, (size_t)n * item) == 0, "%s n=%lld round trip differs",
                  kiln_dtype_name(dtype), (long long)n);
      }
      kiln_array_release(a);
      free(in);
      free(out);
    }
  }
}

static void test_full_and_zeros(kiln_context *ctx) {
  int64_t shape[3] = {3, 5, 7};
  for (int d = 0; d < KILN_DTYPE_COUNT; d++) {
    kiln_dtype dtype = (kiln_dtype)d;
    size_t item = kiln_dtype_size(dtype);
    unsigned char value[16]; /* complex128 is the widest */
    harness_fill_random(value, dtype, 1, 1, 100);
    kiln_array *full = NULL, *zeros = NULL;
    REQUIRE_OK(kiln_array_full(ctx, dtype, 3, shape, value, &full));
    REQUIRE_OK(kiln_array_zeros(ctx, dtype, 3, shape, &zeros));
    unsigned char *host = malloc(105 * item);
    CHECK_OK(kiln_array_to_host(full, host, NULL));
    for (int i = 0; i < 105; i++)
      CHECK_MSG(memcmp(host + i * item, value, item) == 0, "full %s element %d", kiln_dtype_name(dtype), i);
    memset(host, 0x5A, 105 * item);
    CHECK_OK(kiln_array_to_host(zeros, host, NULL));
    for (int i = 0; i < 105; i++)
      CHECK_MSG(harness_get(host, dtype, i) == 0, "zeros %s element %d", kiln_dtype_name(dtype), i);
    free(host);
    kiln_array_release(full);
    kiln_array_release(zeros);
  }
  /* ndim 0: one element */
  kiln_array *scalar = NULL;
  double v = 2.5, back = 0;
  REQUIRE_OK(kiln_array_full(ctx, KILN_FLOAT32, 0, NULL, &(float){2.5f}, &scalar));
  CHECK(kiln_array_size(scalar) == 1 && kiln_array_ndim(scalar) == 0);
  float f = 0;
  CHECK_OK(kiln_array_to_host(scalar, &f, NULL));
  back = f;
  CHECK(back == v);
  kiln_array_release(scalar);
  /* bool fill normalises any nonzero byte to 1 */
  kiln_array *b = NULL;
  unsigned char seven = 7, out[4];
  REQUIRE_OK(kiln_array_full(ctx, KILN_BOOL, 1, (int64_t[]){4}, &seven, &b));
  CHECK_OK(kiln_array_to_host(b, out, NULL));
  CHECK(out[0] == 1 && out[3] == 1);
  kiln_array_release(b);
}

/* Host data with arbitrary strides in and out. */
static void test_host_strides(kiln_context *ctx) {
  enum { R = 13, C = 11 };
  double host[R][C];
  harness_fill_random(host, KILN_FLOAT64, R * C, -1, 1);
  /* read the host matrix transposed: shape (C, R), strides (8, C*8) */
  int64_t shape[2] = {C, R}, strides[2] = {8, C * 8};
  kiln_array *t = NULL;
  REQUIRE_OK(kiln_array_from_host(ctx, KILN_FLOAT64, 2, shape, strides, host, &t));
  double dense[C][R];
  CHECK_OK(kiln_array_to_host(t, dense, NULL));
  for (int i = 0; i < C; i++)
    for (int j = 0; j < R; j++) CHECK(dense[i][j] == host[j][i]);
  /* negative host strides: rows reversed */
  int64_t rshape[2] = {R, C}, rstrides[2] = {-(int64_t)(C * 8), 8};
  kiln_array *rev = NULL;
  REQUIRE_OK(kiln_array_from_host(ctx, KILN_FLOAT64, 2, rshape, rstrides, &host[R - 1][0], &rev));
  double back[R][C];
  CHECK_OK(kiln_array_to_host(rev, back, NULL));
  for (int i = 0; i < R; i++)
    for (int j = 0; j < C; j++) CHECK(back[i][j] == host[R - 1 - i][j]);
  /* to_host into a strided host layout: every other element of a buffer */
  double spread[2 * R * C];
  for (int i = 0; i < 2 * R * C; i++) spread[i] = -7;
  int64_t sstrides[2] = {2 * C * 8, 16};
  CHECK_OK(kiln_array_to_host(rev, spread, sstrides));
  for (int i = 0; i < R; i++)
    for (int j = 0; j < C; j++) {
      CHECK(spread[2 * (i * C + j)] == host[R - 1 - i][j]);
      CHECK(spread[2 * (i * C + j) + 1] == -7);
    }
  kiln_array_release(t);
  kiln_array_release(rev);
}

/* Python slice semantics, computed independently on the host. */
static int64_t py_slice(int64_t len, kiln_slice s, int64_t *idx) {
  int64_t step = s.step == KILN_NONE ? 1 : s.step;
  int64_t n = 0;
  for (int64_t k = 0; k < len; k++) idx[k] = -1;
  /* enumerate candidates in order and keep those inside [start, stop) */
  int64_t start, stop;
  if (step > 0) {
    start = s.start == KILN_NONE ? 0 : s.start < 0 ? s.start + len : s.start;
    stop = s.stop == KILN_NONE ? len : s.stop < 0 ? s.stop + len : s.stop;
    if (start < 0) start = 0;
    if (stop > len) stop = len;
    for (int64_t i = start; i < stop; i += step) idx[n++] = i;
  } else {
    start = s.start == KILN_NONE ? len - 1 : s.start < 0 ? s.start + len : s.start;
    stop = s.stop == KILN_NONE ? -1 : s.stop < 0 ? s.stop + len : s.stop;
    if (start > len - 1) start = len - 1;
    if (stop < -1) stop = -1;
    for (int64_t i = start; i > stop; i += step) idx[n++] = i;
  }
  return n;
}

static void test_slices(kiln_context *ctx) {
  enum { R = 17, C = 23 };
  int32_t host[R][C];
  harness_fill_random(host, KILN_INT32, R * C, -1000, 1000);
  kiln_array *a = NULL;
  REQUIRE_OK(kiln_array_from_host(ctx, KILN_INT32, 2, (int64_t[]){R, C}, NULL, host, &a));
  const kiln_slice cases[][2] = {
      {{KILN_NONE, KILN_NONE, KILN_NONE}, {1, 2, 1}},      /* a[:, 1:2] */
      {{2, 15, 3}, {KILN_NONE, KILN_NONE, -1}},           /* a[2:15:3, ::-1] */
      {{-1, KILN_NONE, -2}, {-5, 3, -4}},                  /* a[-1::-2, -5:3:-4] */
      {{5, 5, 1}, {KILN_NONE, KILN_NONE, KILN_NONE}},      /* empty rows */
      {{-100, 100, 7}, {100, -100, -5}},                   /* clamping */
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    int64_t ri[R], ci[C];
    int64_t nr = py_slice(R, cases[c][0], ri), nc = py_slice(C, cases[c][1], ci);
    kiln_array *v = NULL;
    CHECK_OK(kiln_array_slice(a, 2, cases[c], &v));
    if (!v) continue;
    CHECK_MSG(kiln_array_shape(v)[0] == nr && kiln_array_shape(v)[1] == nc,
              "case %zu: shape (%lld, %lld), expected (%lld, %lld)", c,
              (long long)kiln_array_shape(v)[0], (long long)kiln_array_shape(v)[1],
              (long long)nr, (long long)nc);
    int32_t *out = malloc((size_t)(nr * nc + 1) * 4);
    CHECK_OK(kiln_array_to_host(v, out, NULL));
    for (int64_t i = 0; i < nr; i++)
      for (int64_t j = 0; j < nc; j++)
        CHECK_MSG(out[i * nc + j] == host[ri[i]][ci[j]], "case %zu (%lld,%lld)", c, (long long)i,
                  (long long)j);
    /* a view of a view: every other row of the slice */
    kiln_array *vv = NULL;
    CHECK_OK(kiln_array_slice(v, 1, (kiln_slice[]){{KILN_NONE, KILN_NONE, 2}}, &vv));
    if (vv && nr > 0) {
      CHECK_OK(kiln_array_to_host(vv, out, NULL));
      for (int64_t i = 0; i < (nr + 1) / 2; i++)
        for (int64_t j = 0; j < nc; j++) CHECK(out[i * nc + j] == host[ri[2 * i]][ci[j]]);
    }
    kiln_array_release(vv);
    free(out);
    kiln_array_release(v);
  }
  /* index: a column a[:, 3] and a row a[-2] */
  kiln_array *col = NULL, *row = NULL;
  REQUIRE_OK(kiln_array_index(a, 1, 3, &col));
  REQUIRE_OK(kiln_array_index(a, 0, -2, &row));
  CHECK(kiln_array_ndim(col) == 1 && kiln_array_shape(col)[0] == R);
  CHECK(!kiln_array_is_contiguous(col) && kiln_array_is_contiguous(row));
  int32_t colh[R], rowh[C];
  CHECK_OK(kiln_array_to_host(col, colh, NULL));
  CHECK_OK(kiln_array_to_host(row, rowh, NULL));
  for (int i = 0; i < R; i++) CHECK(colh[i] == host[i][3]);
  for (int j = 0; j < C; j++) CHECK(rowh[j] == host[R - 2][j]);
  kiln_array_release(col);
  kiln_array_release(row);
  kiln_array_release(a);
}

static void test_transpose_reshape_broadcast(kiln_context *ctx) {
  enum { A = 4, B = 5, C = 6 };
  float host[A][B][C];
  harness_fill_random(host, KILN_FLOAT32, A * B * C, -3, 3);
  kiln_array *a = NULL, *t = NULL, *r = NULL, *tr = NULL;
  REQUIRE_OK(kiln_array_from_host(ctx, KILN_FLOAT32, 3, (int64_t[]){A, B, C}, NULL, host, &a));
  /* axes (2, 0, 1): t[k][i][j] = a[i][j][k] */
  REQUIRE_OK(kiln_array_transpose(a, (int[]){2, 0, 1}, &t));
  float out[C][A][B];
  CHECK_OK(kiln_array_to_host(t, out, NULL));
  for (int i = 0; i < A; i++)
    for (int j = 0; j < B; j++)
      for (int k = 0; k < C; k++) CHECK(out[k][i][j] == host[i][j][k]);
  /* reshape to (-1, 6) then reverse-transpose */
  REQUIRE_OK(kiln_array_reshape(a, 2, (int64_t[]){-1, C}, &r));
  CHECK(kiln_array_shape(r)[0] == A * B);
  REQUIRE_OK(kiln_array_transpose(r, NULL, &tr));
  float out2[C][A * B];
  CHECK_OK(kiln_array_to_host(tr, out2, NULL));
  for (int m = 0; m < A * B; m++)
    for (int k = 0; k < C; k++) CHECK(out2[k][m] == host[m / B][m % B][k]);
  /* reshape of a non-contiguous view is refused */
  kiln_array *bad = NULL;
  CHECK_STATUS(kiln_array_reshape(t, 1, (int64_t[]){A * B * C}, &bad), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("contiguous");
  CHECK(bad == NULL);
  /* broadcast a row (C,) to (3, B, C) */
  kiln_array *row = NULL, *bc = NULL, *dense = NULL;
  REQUIRE_OK(kiln_array_index(a, 0, 1, &row));      /* (B, C) */
  kiln_array *row1 = NULL;
  REQUIRE_OK(kiln_array_index(row, 0, 2, &row1));   /* (C,) */
  REQUIRE_OK(kiln_array_broadcast_to(row1, 3, (int64_t[]){3, B, C}, &bc));
  CHECK(kiln_array_strides(bc)[0] == 0 && kiln_array_strides(bc)[1] == 0);
  REQUIRE_OK(kiln_array_copy(bc, &dense));
  CHECK(kiln_array_is_contiguous(dense));
  float out3[3][B][C];
  CHECK_OK(kiln_array_to_host(dense, out3, NULL));
  for (int x = 0; x < 3; x++)
    for (int j = 0; j < B; j++)
      for (int k = 0; k < C; k++) CHECK(out3[x][j][k] == host[1][2][k]);
  kiln_array_release(row);
  kiln_array_release(row1);
  kiln_array_release(bc);
  kiln_array_release(dense);
  kiln_array_release(tr);
  kiln_array_release(r);
  kiln_array_release(t);
  kiln_array_release(a);
}

/* copy_into with broadcasting and a cast, onto a strided destination. */
static void test_copy_into_and_astype(kiln_context *ctx) {
  enum { N = 101 };
  double src[N];
  harness_fill_random(src, KILN_FLOAT64, N, -50, 50);
  kiln_array *s = NULL;
  REQUIRE_OK(kiln_array_from_host(ctx, KILN_FLOAT64, 1, (int64_t[]){N}, NULL, src, &s));
  for (int d = 0; d < KILN_DTYPE_COUNT; d++) {
    kiln_dtype to = (kiln_dtype)d;
    if (!kiln_dtype_is_float(to) && to != KILN_BOOL && to != KILN_INT8 && to != KILN_INT16 &&
        to != KILN_INT32 && to != KILN_INT64)
      continue; /* negative values to unsigned are implementation-defined */
    kiln_array *c = NULL;
    CHECK_OK(kiln_array_astype(s, to, &c));
    if (!c) continue;
    unsigned char out[N * 8];
    CHECK_OK(kiln_array_to_host(c, out, NULL));
    for (int i = 0; i < N; i++)
      CHECK_MSG(harness_get(out, to, i) == host_cast(src[i], to), "astype %s [%d]: %g vs %g",
                kiln_dtype_name(to), i, harness_get(out, to, i), host_cast(src[i], to));
    kiln_array_release(c);
  }
  /* dst: columns 1, 3, 5 of a (4, 6) int32 matrix; src: (3,) broadcast over rows */
  kiln_array *m = NULL, *cols = NULL;
  int32_t fill = -9;
  REQUIRE_OK(kiln_array_full(ctx, KILN_INT32, 2, (int64_t[]){4, 6}, &fill, &m));
  REQUIRE_OK(kiln_array_slice(m, 2, (kiln_slice[]){KILN_SLICE_ALL, {1, KILN_NONE, 2}}, &cols));
  kiln_array *three = NULL;
  REQUIRE_OK(kiln_array_slice(s, 1, (kiln_slice[]){{10, 13, 1}}, &three));
  CHECK_OK(kiln_array_copy_into(cols, three));
  int32_t mh[4][6];
  CHECK_OK(kiln_array_to_host(m, mh, NULL));
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 6; j++)
      CHECK(mh[i][j] == (j % 2 ? (int32_t)src[10 + j / 2] : -9));
  /* shapes that do not broadcast */
  CHECK_STATUS(kiln_array_copy_into(m, s), KILN_ERROR_INVALID_ARGUMENT);
  kiln_array_release(three);
  kiln_array_release(cols);
  kiln_array_release(m);
  kiln_array_release(s);
}

static void test_bad_arguments(kiln_context *ctx) {
  kiln_array *a = NULL;
  int64_t shape[2] = {3, 4};
  CHECK_STATUS(kiln_array_empty(NULL, KILN_FLOAT32, 2, shape, &a), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_array_empty(ctx, KILN_FLOAT32, 2, shape, NULL), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_array_empty(ctx, (kiln_dtype)99, 2, shape, &a), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("dtype");
  CHECK_STATUS(kiln_array_empty(ctx, KILN_FLOAT32, KILN_MAX_DIMS + 1, shape, &a),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_array_empty(ctx, KILN_FLOAT32, 2, (int64_t[]){3, -1}, &a),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_array_empty(ctx, KILN_FLOAT32, 2, (int64_t[]){INT64_MAX / 2, 3}, &a),
               KILN_ERROR_OUT_OF_RANGE);
  CHECK_STATUS(kiln_array_empty(ctx, KILN_FLOAT64, 1, (int64_t[]){INT64_MAX / 4}, &a),
               KILN_ERROR_OUT_OF_RANGE);
  CHECK_STATUS(kiln_array_empty(ctx, KILN_INT8, 1, (int64_t[]){INT64_MAX / 2}, &a),
               KILN_ERROR_OUT_OF_MEMORY);
  CHECK(a == NULL);
  CHECK_STATUS(kiln_array_from_host(ctx, KILN_FLOAT32, 2, shape, NULL, NULL, &a),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK(a == NULL);
  REQUIRE_OK(kiln_array_zeros(ctx, KILN_FLOAT32, 2, shape, &a));
  kiln_array *v = NULL;
  CHECK_STATUS(kiln_array_to_host(a, NULL, NULL), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_array_slice(a, 1, (kiln_slice[]){{0, 3, 0}}, &v), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("step");
  CHECK_STATUS(kiln_array_slice(a, 3, (kiln_slice[]){KILN_SLICE_ALL, KILN_SLICE_ALL, KILN_SLICE_ALL}, &v),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_array_index(a, 0, 3, &v), KILN_ERROR_OUT_OF_RANGE);
  CHECK_STATUS(kiln_array_index(a, 0, -4, &v), KILN_ERROR_OUT_OF_RANGE);
  CHECK_STATUS(kiln_array_index(a, 2, 0, &v), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_array_transpose(a, (int[]){0, 0}, &v), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_array_transpose(a, (int[]){0, 5}, &v), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_array_reshape(a, 2, (int64_t[]){5, -1}, &v), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_array_reshape(a, 2, (int64_t[]){-1, -1}, &v), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_array_reshape(a, 1, (int64_t[]){13}, &v), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_array_broadcast_to(a, 2, (int64_t[]){3, 5}, &v), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_array_broadcast_to(a, 1, (int64_t[]){4}, &v), KILN_ERROR_INVALID_ARGUMENT);
  CHECK(v == NULL);
  CHECK_STATUS(kiln_array_full(ctx, KILN_FLOAT32, 2, shape, NULL, &v), KILN_ERROR_INVALID_ARGUMENT);
  kiln_array_release(a);
  kiln_array_release(NULL); /* accepted */
}

/* More than 2^31 elements: the loops index with 64 bits. */
static void test_more_than_2_31_elements(kiln_context *ctx) {
  kiln_device_info info;
  kiln_context_device_info(ctx, &info);
  const int64_t n = ((int64_t)1 << 31) + 13;
  uint64_t limit = info.max_buffer_size ? info.max_buffer_size : info.global_memory;
  if (limit < (uint64_t)n) {
    harness_skip("one buffer may hold %llu bytes on this device, the test needs %lld "
                 "(64-bit indexing is also covered by kernel.index_beyond_2_31)",
                 (unsigned long long)limit, (long long)n);
    return;
  }
  kiln_array *a = NULL, *tail = NULL, *tail_copy = NULL;
  uint8_t value = 0x3C;
  REQUIRE_OK(kiln_array_full(ctx, KILN_UINT8, 1, &n, &value, &a));
  /* the last 29 elements, through a strided view and a device copy */
  REQUIRE_OK(kiln_array_slice(a, 1, (kiln_slice[]){{-29, KILN_NONE, 1}}, &tail));
  uint8_t seven = 7;
  kiln_array *src = NULL;
  REQUIRE_OK(kiln_array_full(ctx, KILN_UINT8, 1, (int64_t[]){29}, &seven, &src));
  kiln_array *odd = NULL;
  REQUIRE_OK(kiln_array_slice(tail, 1, (kiln_slice[]){{1, KILN_NONE, 2}}, &odd));
  kiln_array *src_odd = NULL;
  REQUIRE_OK(kiln_array_slice(src, 1, (kiln_slice[]){{0, 14, 1}}, &src_odd));
  CHECK_OK(kiln_array_copy_into(odd, src_odd));
  REQUIRE_OK(kiln_array_copy(tail, &tail_copy));
  uint8_t host[29];
  CHECK_OK(kiln_array_to_host(tail_copy, host, NULL));
  for (int i = 0; i < 29; i++) CHECK(host[i] == (i % 2 ? 7 : 0x3C));
  kiln_array_release(src_odd);
  kiln_array_release(odd);
  kiln_array_release(src);
  kiln_array_release(tail_copy);
  kiln_array_release(tail);
  kiln_array_release(a);
}

static const harness_test tests[] = {
    {"round_trip_every_dtype", test_round_trip_every_dtype},
    {"full_and_zeros", test_full_and_zeros},
    {"host_strides", test_host_strides},
    {"slices", test_slices},
    {"transpose_reshape_broadcast", test_transpose_reshape_broadcast},
    {"copy_into_and_astype", test_copy_into_and_astype},
    {"bad_arguments", test_bad_arguments},
    {"more_than_2_31_elements", test_more_than_2_31_elements},
    {0},
};

int main(int argc, char **argv) { return harness_main(argc, argv, tests); }
