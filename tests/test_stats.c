/* tests/test_stats.c: kiln_mean, kiln_var, kiln_std (kiln/stats.h) against
 * a long double host reference of NumPy's definitions, with NumPy's result
 * dtypes, on random data: axes, keepdims, ddof, views with negative strides,
 * host and device operands, out of another dtype, empty extents, bad input. */
#include "harness.h"

static int has_double(kiln_context *ctx) {
  kiln_device_info info;
  kiln_context_device_info(ctx, &info);
  return info.has_double;
}

/* The elements of any array as doubles (real parts), C order. */
static double *values_of(const kiln_array *a) {
  int64_t n = kiln_array_size(a);
  kiln_dtype dt = kiln_array_dtype(a);
  void *raw = malloc((size_t)(n + 1) * kiln_dtype_size(dt));
  double *v = calloc((size_t)n + 1, sizeof *v);
  if (!raw || !v || kiln_array_to_host(a, raw, NULL) != KILN_OK) {
    CHECK_MSG(0, "reading a result back: %s", kiln_last_error());
  } else {
    for (int64_t i = 0; i < n; i++) v[i] = harness_get(raw, dt, i);
  }
  free(raw);
  return v;
}

/* Reference over axis `axis` (-1: all) of a (rows, cols) matrix given by
 * element(r, c); kind 0 mean, 1 var, 2 std. */
typedef double (*element_fn)(const void *ctx, int64_t r, int64_t c);
static void reference(const void *data, element_fn at, int64_t rows, int64_t cols, int axis,
                      int kind, int64_t ddof, double *out) {
  int64_t nout = axis < 0 ? 1 : axis == 0 ? cols : rows;
  int64_t nred = axis < 0 ? rows * cols : axis == 0 ? rows : cols;
  for (int64_t o = 0; o < nout; o++) {
    long double s = 0, ss = 0;
    for (int64_t k = 0; k < nred; k++) {
      int64_t r = axis < 0 ? k / cols : axis == 0 ? k : o, c = axis < 0 ? k % cols : axis == 0 ? o : k;
      s += at(data, r, c);
    }
    long double m = s / nred;
    for (int64_t k = 0; k < nred; k++) {
      int64_t r = axis < 0 ? k / cols : axis == 0 ? k : o, c = axis < 0 ? k % cols : axis == 0 ? o : k;
      long double d = at(data, r, c) - m;
      ss += d * d;
    }
    long double var = nred > ddof ? ss / (nred - ddof) : (long double)NAN;
    out[o] = kind == 0 ? (double)m : kind == 1 ? (double)var : (double)sqrtl(var);
  }
}

typedef struct matrix {
  const double *v;
  int64_t cols;
  int reversed_rows; /* the view a[::-1, :] */
  int64_t rows;
} matrix;
static double matrix_at(const void *p, int64_t r, int64_t c) {
  const matrix *m = p;
  int64_t rr = m->reversed_rows ? m->rows - 1 - r : r;
  return m->v[rr * m->cols + c];
}

typedef kiln_status (*stat_fn)(kiln_context *, kiln_operand, kiln_operand, int64_t,
                               const kiln_reduce_options *, kiln_stream *);
static kiln_status mean_call(kiln_context *ctx, kiln_operand in, kiln_operand out, int64_t ddof,
                             const kiln_reduce_options *o, kiln_stream *s) {
  (void)ddof;
  return kiln_mean(ctx, in, out, o, s);
}

/* One dtype: random (rows, cols) data, every axis choice, mean/var/std,
 * also through a reversed view. */
static void dtype_case(kiln_context *ctx, kiln_dtype dt, kiln_dtype want, double rtol,
                       int views) {
  enum { ROWS = 37, COLS = 53 };
  int64_t shape[2] = {ROWS, COLS};
  size_t isz = kiln_dtype_size(dt);
  void *raw = malloc(ROWS * COLS * isz);
  double lo = kiln_dtype_is_float(dt) ? -3 : -100, hi = kiln_dtype_is_float(dt) ? 5 : 120;
  if (dt == KILN_UINT8 || dt == KILN_BOOL) lo = 0;
  harness_fill_random(raw, dt, ROWS * COLS, lo, hi);
  double *v = malloc(ROWS * COLS * sizeof *v);
  for (int i = 0; i < ROWS * COLS; i++) v[i] = harness_get(raw, dt, i);
  kiln_array *a = NULL, *rev = NULL;
  REQUIRE_OK(kiln_array_from_host(ctx, dt, 2, shape, NULL, raw, &a));
  kiln_slice flip[1] = {{KILN_NONE, KILN_NONE, -1}};
  REQUIRE_OK(kiln_array_slice(a, 1, flip, &rev));
  stat_fn fns[3] = {mean_call, kiln_var, kiln_std};
  const char *names[3] = {"mean", "var", "std"};
  for (int view = 0; view < views; view++) {
    matrix m = {v, COLS, view, ROWS};
    for (int kind = 0; kind < 3; kind++) {
      for (int axis = -1; axis < 2; axis++) {
        int64_t ddof = kind == 0 ? 0 : axis == 1 ? 1 : 0;
        kiln_reduce_options o = axis < 0 ? kiln_reduce_all() : kiln_reduce_axis(axis);
        kiln_array *r = NULL;
        CHECK_OK(fns[kind](ctx, kiln_operand_array(view ? rev : a), kiln_operand_new(&r), ddof,
                           &o, NULL));
        if (!r) continue;
        CHECK_MSG(kiln_array_dtype(r) == want, "%s of %s gives %s, NumPy's is %s", names[kind],
                  kiln_dtype_name(dt), kiln_dtype_name(kiln_array_dtype(r)), kiln_dtype_name(want));
        int64_t nout = axis < 0 ? 1 : axis == 0 ? COLS : ROWS;
        CHECK(kiln_array_size(r) == nout);
        CHECK(kiln_array_ndim(r) == (axis < 0 ? 0 : 1));
        double ref[COLS > ROWS ? COLS : ROWS], *got = values_of(r);
        reference(&m, matrix_at, ROWS, COLS, axis, kind, ddof, ref);
        for (int64_t i = 0; i < nout; i++)
          if (!(fabs(got[i] - ref[i]) <= rtol * fabs(ref[i]) + rtol)) {
            CHECK_MSG(0, "%s %s axis %d view %d [%lld]: %.17g, reference %.17g", names[kind],
                      kiln_dtype_name(dt), axis, view, (long long)i, got[i], ref[i]);
            break;
          }
        free(got);
        kiln_array_release(r);
      }
    }
  }
  kiln_array_release(rev);
  kiln_array_release(a);
  free(v);
  free(raw);
}

static void test_dtypes(kiln_context *ctx) {
  int dbl = has_double(ctx);
  /* the reversed view for two dtypes only: each case compiles programs */
  dtype_case(ctx, KILN_FLOAT32, KILN_FLOAT32, 2e-5, 2);
  dtype_case(ctx, KILN_FLOAT16, KILN_FLOAT16, 2e-3, 1);
  if (!dbl) {
    harness_skip("no float64: integer inputs (float64 results) not run");
    return;
  }
  dtype_case(ctx, KILN_FLOAT64, KILN_FLOAT64, 1e-13, 2);
  dtype_case(ctx, KILN_INT32, KILN_FLOAT64, 1e-13, 1);
  dtype_case(ctx, KILN_UINT8, KILN_FLOAT64, 1e-13, 1);
}

/* keepdims, several axes, host in and out, out of a wider dtype, a stream,
 * dtype= option. */
static void test_operands(kiln_context *ctx) {
  if (!has_double(ctx)) {
    harness_skip("no float64 on this device");
    return;
  }
  enum { A = 4, B = 5, C = 6 };
  int64_t shape[3] = {A, B, C};
  float x[A * B * C];
  harness_fill_random(x, KILN_FLOAT32, A * B * C, -2, 3);
  /* mean over axes (0, 2), keepdims: shape (1, 5, 1), into host float64 */
  kiln_reduce_options o = {.naxes = 2, .axes = {0, -1}, .keepdims = 1};
  double host_out[B];
  int64_t kshape[3] = {1, B, 1};
  kiln_stream *stream = NULL;
  REQUIRE_OK(kiln_stream_create(ctx, &stream));
  CHECK_OK(kiln_mean(ctx, kiln_operand_host(x, KILN_FLOAT32, 3, shape, NULL),
                     kiln_operand_host_output(host_out, KILN_FLOAT64, 3, kshape, NULL), &o,
                     stream));
  for (int b = 0; b < B; b++) {
    double s = 0;
    for (int i = 0; i < A; i++)
      for (int k = 0; k < C; k++) s += x[(i * B + b) * C + k];
    CHECK_CLOSE(host_out[b], s / (A * C), 2e-6, 1e-6); /* float32 sums */
  }
  /* std with dtype=float64 of float32 data: float64 result, device out */
  kiln_array *dev = NULL, *out = NULL;
  REQUIRE_OK(kiln_array_from_host(ctx, KILN_FLOAT32, 3, shape, NULL, x, &dev));
  int64_t oshape[2] = {A, B};
  REQUIRE_OK(kiln_array_empty(ctx, KILN_FLOAT64, 2, oshape, &out));
  kiln_reduce_options last = kiln_reduce_axis(2);
  last.has_dtype = 1;
  last.dtype = KILN_FLOAT64;
  CHECK_OK(kiln_std(ctx, kiln_operand_array(dev), kiln_operand_array(out), 0, &last, stream));
  double got[A * B];
  CHECK_OK(kiln_stream_synchronize(ctx, stream));
  CHECK_OK(kiln_array_to_host(out, got, NULL));
  for (int r = 0; r < A * B; r++) {
    double s = 0, ss = 0;
    for (int k = 0; k < C; k++) s += x[r * C + k];
    for (int k = 0; k < C; k++) ss += (x[r * C + k] - s / C) * (x[r * C + k] - s / C);
    CHECK_CLOSE(got[r], sqrt(ss / C), 1e-12, 0);
  }
  /* complex64: var is float32 of |x - mean|^2 */
  float z[2 * 7] = {1, 2, -3, 0.5f, 4, -1, 0, 0, 2.5f, 3, -1, -2, 6, 1};
  int64_t n7 = 7;
  kiln_array *zr = NULL;
  CHECK_OK(kiln_var(ctx, kiln_operand_host(z, KILN_COMPLEX64, 1, &n7, NULL),
                    kiln_operand_new(&zr), 0, NULL, NULL));
  if (zr) {
    CHECK(kiln_array_dtype(zr) == KILN_FLOAT32);
    double mr = 0, mi = 0, ss = 0;
    for (int i = 0; i < 7; i++) mr += z[2 * i] / 7.0, mi += z[2 * i + 1] / 7.0;
    for (int i = 0; i < 7; i++)
      ss += (z[2 * i] - mr) * (z[2 * i] - mr) + (z[2 * i + 1] - mi) * (z[2 * i + 1] - mi);
    double *v = values_of(zr);
    CHECK_CLOSE(v[0], ss / 7, 1e-6, 0);
    free(v);
  }
  kiln_array_release(zr);
  kiln_array_release(out);
  kiln_array_release(dev);
  kiln_stream_release(stream);
}

/* Empty extents give NaN, ddof >= N inf or NaN, as NumPy's. */
static void test_empty_and_ddof(kiln_context *ctx) {
  int64_t zero = 0, three = 3;
  float none[1] = {0}, few[3] = {1.5f, 2.5f, 4.0f};
  kiln_array *r = NULL;
  CHECK_OK(kiln_mean(ctx, kiln_operand_host(none, KILN_FLOAT32, 1, &zero, NULL),
                     kiln_operand_new(&r), NULL, NULL));
  if (r) {
    double *v = values_of(r);
    CHECK_MSG(isnan(v[0]), "mean of empty: %g", v[0]);
    free(v);
  }
  kiln_array_release(r);
  r = NULL;
  CHECK_OK(kiln_var(ctx, kiln_operand_host(few, KILN_FLOAT32, 1, &three, NULL),
                    kiln_operand_new(&r), 3, NULL, NULL));
  if (r) {
    double *v = values_of(r);
    CHECK_MSG(isinf(v[0]), "var with ddof = N: %g (NumPy: inf)", v[0]);
    free(v);
  }
  kiln_array_release(r);
  r = NULL;
  CHECK_OK(kiln_var(ctx, kiln_operand_host(few, KILN_FLOAT32, 1, &three, NULL),
                    kiln_operand_new(&r), 1, NULL, NULL));
  if (r) {
    double *v = values_of(r);
    double m = (1.5 + 2.5 + 4.0) / 3;
    double want = ((1.5 - m) * (1.5 - m) + (2.5 - m) * (2.5 - m) + (4 - m) * (4 - m)) / 2;
    CHECK_CLOSE(v[0], want, 1e-6, 0);
    free(v);
  }
  kiln_array_release(r);
}

static void test_bad_input(kiln_context *ctx) {
  int64_t shape[2] = {3, 4};
  float x[12];
  harness_fill_random(x, KILN_FLOAT32, 12, -1, 1);
  kiln_operand in = kiln_operand_host(x, KILN_FLOAT32, 2, shape, NULL);
  kiln_array *r = (kiln_array *)1;
  CHECK_STATUS(kiln_var(ctx, in, kiln_operand_new(&r), -1, NULL, NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("ddof");
  CHECK(r == NULL);
  CHECK_STATUS(kiln_mean(NULL, in, kiln_operand_new(&r), NULL, NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  kiln_reduce_options bad = kiln_reduce_axis(2);
  r = (kiln_array *)1;
  CHECK_STATUS(kiln_std(ctx, in, kiln_operand_new(&r), 0, &bad, NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("axis 2 is out of bounds");
  CHECK(r == NULL);
  /* an output of the wrong shape, and an integer output for a float mean */
  int64_t wrong[1] = {5}, right[1] = {3};
  double out5[5];
  int32_t out3[3];
  kiln_reduce_options rows = kiln_reduce_axis(1);
  CHECK_STATUS(kiln_mean(ctx, in, kiln_operand_host_output(out5, KILN_FLOAT64, 1, wrong, NULL),
                         &rows, NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_mean(ctx, in, kiln_operand_host_output(out3, KILN_INT32, 1, right, NULL),
                         &rows, NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_mean(ctx, kiln_operand_float(1.0), kiln_operand_new(&r), NULL, NULL),
               KILN_ERROR_INVALID_ARGUMENT);
}

/* The same input gives the same bits, whatever the work-group size. */
static void test_reproducible(kiln_context *ctx) {
  enum { N = 100003 };
  float *x = malloc(N * sizeof *x);
  harness_fill_random(x, KILN_FLOAT32, N, -1, 1);
  int64_t n = N;
  float r[3];
  int64_t one = 1;
  int sizes[3] = {0, 64, 256};
  for (int i = 0; i < 3; i++) {
    kiln_reduce_options o = kiln_reduce_all();
    o.work_group_size = sizes[i];
    CHECK_OK(kiln_var(ctx, kiln_operand_host(x, KILN_FLOAT32, 1, &n, NULL),
                      kiln_operand_host_output(&r[i], KILN_FLOAT32, 0, &one, NULL), 0, &o, NULL));
  }
  CHECK_MSG(memcmp(&r[0], &r[1], sizeof r[0]) == 0 && memcmp(&r[0], &r[2], sizeof r[0]) == 0,
            "var bits differ with the work-group size: %.9g %.9g %.9g", r[0], r[1], r[2]);
  free(x);
}

/* isclose against NumPy 2's formula evaluated on the host in the same
 * dtype, on random pairs near the tolerance, with infinities and NaNs. */
static void test_isclose(kiln_context *ctx) {
  enum { N = 1009 };
  float x[N], y[N];
  harness_fill_random(x, KILN_FLOAT32, N, -10, 10);
  for (int i = 0; i < N; i++) {
    double scale = harness_rand_uniform(0, 3e-5); /* around rtol = 1e-5 */
    y[i] = (float)(x[i] * (1 + (harness_rand_u64() & 1 ? scale : -scale)));
  }
  x[3] = INFINITY, y[3] = INFINITY;  /* equal infinities: close */
  x[4] = INFINITY, y[4] = -INFINITY; /* not */
  x[5] = NAN, y[5] = NAN;            /* close only with equal_nan */
  x[6] = 1, y[6] = NAN;
  x[7] = NAN, y[7] = 2;
  x[8] = 1e-9f, y[8] = 0;            /* within atol */
  int64_t n = N;
  float rtol = 1e-5f, atol = 1e-8f;
  for (int equal_nan = 0; equal_nan < 2; equal_nan++) {
    uint8_t got[N];
    CHECK_OK(kiln_isclose(ctx, kiln_operand_host(x, KILN_FLOAT32, 1, &n, NULL),
                          kiln_operand_host(y, KILN_FLOAT32, 1, &n, NULL),
                          kiln_operand_host_output(got, KILN_BOOL, 1, &n, NULL), KILN_ISCLOSE_RTOL,
                          KILN_ISCLOSE_ATOL, equal_nan, NULL));
    int mismatches = 0, trues = 0;
    for (int i = 0; i < N; i++) {
      volatile float scaled = rtol * fabsf(y[i]);
      volatile float bound = atol + scaled;
      int want = (fabsf(x[i] - y[i]) <= bound && isfinite(y[i])) || x[i] == y[i] ||
                 (equal_nan && isnan(x[i]) && isnan(y[i]));
      trues += want;
      if ((got[i] != 0) != want && mismatches++ < 5)
        CHECK_MSG(0, "isclose(%.9g, %.9g) equal_nan %d: %d, expected %d", x[i], y[i], equal_nan,
                  got[i], want);
    }
    CHECK_MSG(trues > N / 4 && trues < 3 * N / 4, "%d of %d close: the data does not test much",
              trues, N);
    CHECK(got[3] && !got[4] && got[5] == equal_nan && !got[6] && !got[7] && got[8]);
  }
  /* integers compute in float64; a weak scalar b broadcasts */
  int32_t ints[4] = {100000, 100001, 100002, -5};
  int64_t four = 4;
  uint8_t got4[4];
  CHECK_OK(kiln_isclose(ctx, kiln_operand_host(ints, KILN_INT32, 1, &four, NULL),
                        kiln_operand_int(100001), kiln_operand_host_output(got4, KILN_BOOL, 1, &four, NULL),
                        KILN_ISCLOSE_RTOL, 0, 0, NULL));
  CHECK(got4[0] && got4[1] && got4[2] && !got4[3]); /* |1| <= 1e-5 * 100001 */
  /* complex: the modulus */
  float z[4] = {3, 4, 3, 4.0001f}, w[4] = {3, 4, 3.00001f, 4};
  int64_t two = 2;
  uint8_t gotz[2];
  CHECK_OK(kiln_isclose(ctx, kiln_operand_host(z, KILN_COMPLEX64, 1, &two, NULL),
                        kiln_operand_host(w, KILN_COMPLEX64, 1, &two, NULL),
                        kiln_operand_host_output(gotz, KILN_BOOL, 1, &two, NULL), 1e-5, 0, 0, NULL));
  CHECK(gotz[0] && !gotz[1]); /* |0.0001 - 0.00001i| ~ 1e-4 > 5e-5 */
  /* allclose */
  int all = -1;
  CHECK_OK(kiln_allclose(ctx, kiln_operand_host(x + 10, KILN_FLOAT32, 1, &four, NULL),
                         kiln_operand_host(x + 10, KILN_FLOAT32, 1, &four, NULL),
                         KILN_ISCLOSE_RTOL, KILN_ISCLOSE_ATOL, 0, &all));
  CHECK(all == 1);
  kiln_array *dx = NULL, *dy = NULL;
  REQUIRE_OK(kiln_array_from_host(ctx, KILN_FLOAT32, 1, &n, NULL, x, &dx));
  REQUIRE_OK(kiln_array_from_host(ctx, KILN_FLOAT32, 1, &n, NULL, y, &dy));
  CHECK_OK(kiln_allclose(ctx, kiln_operand_array(dx), kiln_operand_array(dy), KILN_ISCLOSE_RTOL,
                         KILN_ISCLOSE_ATOL, 1, &all));
  CHECK(all == 0);
  CHECK_OK(kiln_allclose(ctx, kiln_operand_array(dx), kiln_operand_array(dx), 0, 0, 1, &all));
  CHECK(all == 1); /* NaNs equal with equal_nan */
  CHECK_OK(kiln_allclose(ctx, kiln_operand_array(dx), kiln_operand_array(dx), 0, 0, 0, &all));
  CHECK(all == 0); /* but not without */
  int64_t zero = 0;
  CHECK_OK(kiln_allclose(ctx, kiln_operand_host(x, KILN_FLOAT32, 1, &zero, NULL),
                         kiln_operand_host(y, KILN_FLOAT32, 1, &zero, NULL), 0, 0, 0, &all));
  CHECK(all == 1);
  /* shapes that do not broadcast, NULL result */
  int64_t three = 3;
  CHECK_STATUS(kiln_allclose(ctx, kiln_operand_host(x, KILN_FLOAT32, 1, &three, NULL),
                             kiln_operand_host(y, KILN_FLOAT32, 1, &four, NULL), 0, 0, 0, &all),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_allclose(ctx, kiln_operand_array(dx), kiln_operand_array(dx), 0, 0, 0, NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  kiln_array_release(dx);
  kiln_array_release(dy);
}

static void test_item(kiln_context *ctx) {
  float x[5] = {1.5f, -2.25f, 8, 0.5f, 3};
  int64_t n = 5;
  kiln_array *m = NULL, *arg = NULL, *vec = NULL, *one = NULL;
  REQUIRE_OK(kiln_mean(ctx, kiln_operand_host(x, KILN_FLOAT32, 1, &n, NULL), kiln_operand_new(&m),
                       NULL, NULL));
  double value = 0;
  CHECK_OK(kiln_array_item_float64(m, &value));
  CHECK(value == (double)(float)((1.5 - 2.25 + 8 + 0.5 + 3) / 5));
  float raw = 0;
  CHECK_OK(kiln_array_item(m, &raw));
  CHECK(raw == (float)value);
  int64_t index = -1;
  REQUIRE_OK(kiln_argmax(ctx, kiln_operand_host(x, KILN_FLOAT32, 1, &n, NULL),
                         kiln_operand_new(&arg), NULL, NULL));
  CHECK_OK(kiln_array_item_int64(arg, &index));
  CHECK(index == 2);
  CHECK_OK(kiln_array_item_float64(arg, &value));
  CHECK(value == 2);
  /* a (1, 1) view of one element is fine; size 5 is not */
  REQUIRE_OK(kiln_array_from_host(ctx, KILN_FLOAT32, 1, &n, NULL, x, &vec));
  kiln_slice last[1] = {{-1, KILN_NONE, 1}};
  REQUIRE_OK(kiln_array_slice(vec, 1, last, &one));
  CHECK_OK(kiln_array_item_float64(one, &value));
  CHECK(value == 3);
  CHECK_STATUS(kiln_array_item_float64(vec, &value), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("size 1");
  CHECK_STATUS(kiln_array_item_int64(m, &index), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_array_item(NULL, &raw), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_array_item(m, NULL), KILN_ERROR_INVALID_ARGUMENT);
  uint64_t big = UINT64_MAX;
  kiln_array *u = NULL;
  REQUIRE_OK(kiln_array_from_host(ctx, KILN_UINT64, 0, NULL, NULL, &big, &u));
  CHECK_STATUS(kiln_array_item_int64(u, &index), KILN_ERROR_OUT_OF_RANGE);
  uint16_t h = kiln_float16_from_float(0.375f);
  kiln_array *half = NULL;
  REQUIRE_OK(kiln_array_from_host(ctx, KILN_FLOAT16, 0, NULL, NULL, &h, &half));
  CHECK_OK(kiln_array_item_float64(half, &value));
  CHECK(value == 0.375);
  kiln_array *arrays[] = {m, arg, vec, one, u, half};
  for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++) kiln_array_release(arrays[i]);
}

/* Vector norm of n values (NumPy's definitions). */
static double vector_norm_ref(const double *v, int64_t n, int64_t stride, double p, int order) {
  long double s = 0;
  if (order == KILN_NORM_DEFAULT) p = 2;
  if (p == INFINITY || p == -INFINITY) {
    long double m = fabs(v[0]);
    for (int64_t i = 1; i < n; i++) {
      long double a = fabs(v[i * stride]);
      m = p > 0 ? (a > m ? a : m) : (a < m ? a : m);
    }
    return (double)m;
  }
  for (int64_t i = 0; i < n; i++) {
    long double a = fabs(v[i * stride]);
    s += p == 0 ? (a != 0) : p == 1 ? a : p == 2 ? a * a : powl(a, p);
  }
  return p == 0 || p == 1 ? (double)s : p == 2 ? (double)sqrtl(s) : (double)powl(s, 1 / p);
}

static double *norm_of(kiln_context *ctx, kiln_operand in, const kiln_norm_options *o,
                       kiln_dtype want, int64_t expect_size) {
  kiln_array *r = NULL;
  kiln_status s = kiln_norm(ctx, in, kiln_operand_new(&r), o, NULL);
  CHECK_MSG(s == KILN_OK, "norm order %d p %g naxes %d: %s", (int)o->order, o->p, o->naxes,
            kiln_last_error());
  if (!r) return NULL;
  CHECK_MSG(kiln_array_dtype(r) == want, "norm gives %s, NumPy's is %s",
            kiln_dtype_name(kiln_array_dtype(r)), kiln_dtype_name(want));
  CHECK(kiln_array_size(r) == expect_size);
  double *v = values_of(r);
  kiln_array_release(r);
  return v;
}

static void test_norm(kiln_context *ctx) {
  if (!has_double(ctx)) {
    harness_skip("no float64 on this device");
    return;
  }
  enum { R = 13, C = 29 };
  double x[R * C];
  harness_fill_random(x, KILN_FLOAT64, R * C, -4, 4);
  x[5] = 0; /* a zero for ord=0 */
  int64_t shape[2] = {R, C}, flat = R * C;
  kiln_operand m = kiln_operand_host(x, KILN_FLOAT64, 2, shape, NULL);
  kiln_operand v = kiln_operand_host(x, KILN_FLOAT64, 1, &flat, NULL);
  double ps[6] = {1, 2, INFINITY, -INFINITY, 0, 0.5};
  /* ord=None, axis=None on a matrix: the 2-norm of every element */
  kiln_norm_options none = {0};
  double *got = norm_of(ctx, m, &none, KILN_FLOAT64, 1);
  if (got) CHECK_CLOSE(got[0], vector_norm_ref(x, R * C, 1, 2, KILN_NORM_DEFAULT), 1e-13, 0);
  free(got);
  for (int i = 0; i < 6; i++) {
    kiln_norm_options o = {.order = KILN_NORM_P, .p = ps[i]};
    got = norm_of(ctx, v, &o, KILN_FLOAT64, 1); /* 1-D, axis=None */
    if (got) CHECK_CLOSE(got[0], vector_norm_ref(x, R * C, 1, ps[i], KILN_NORM_P), 1e-12, 0);
    free(got);
    for (int axis = 0; axis < (i < 3 ? 2 : 0); axis++) { /* along one axis of the matrix */
      o.naxes = 1;
      o.axes[0] = axis - 2; /* negative axes */
      o.keepdims = axis;
      got = norm_of(ctx, m, &o, KILN_FLOAT64, axis == 0 ? C : R);
      for (int k = 0; got && k < (axis == 0 ? C : R); k++) {
        double want = axis == 0 ? vector_norm_ref(x + k, R, C, ps[i], KILN_NORM_P)
                                : vector_norm_ref(x + k * C, C, 1, ps[i], KILN_NORM_P);
        CHECK_CLOSE(got[k], want, 1e-12, 0);
      }
      free(got);
    }
  }
  /* matrix norms */
  double col_sums[C] = {0}, row_sums[R] = {0};
  long double fro = 0;
  for (int r = 0; r < R; r++)
    for (int c = 0; c < C; c++) {
      col_sums[c] += fabs(x[r * C + c]);
      row_sums[r] += fabs(x[r * C + c]);
      fro += (long double)x[r * C + c] * x[r * C + c];
    }
  double max_col = 0, min_col = INFINITY, max_row = 0, min_row = INFINITY;
  for (int c = 0; c < C; c++) max_col = fmax(max_col, col_sums[c]), min_col = fmin(min_col, col_sums[c]);
  for (int r = 0; r < R; r++) max_row = fmax(max_row, row_sums[r]), min_row = fmin(min_row, row_sums[r]);
  struct { kiln_norm_order order; double p; double want; } mats[5] = {
      {KILN_NORM_FRO, 0, (double)sqrtl(fro)}, {KILN_NORM_P, 1, max_col}, {KILN_NORM_P, -1, min_col},
      {KILN_NORM_P, INFINITY, max_row}, {KILN_NORM_P, -INFINITY, min_row}};
  for (int i = 0; i < 5; i++) {
    kiln_norm_options o = {.order = mats[i].order, .p = mats[i].p};
    got = norm_of(ctx, m, &o, KILN_FLOAT64, 1);
    if (got) CHECK_CLOSE(got[0], mats[i].want, 1e-13, 0);
    free(got);
    /* the same through explicit axes of the transposed view: (cols, rows) */
    kiln_array *dm = NULL, *t = NULL;
    REQUIRE_OK(kiln_array_from_host(ctx, KILN_FLOAT64, 2, shape, NULL, x, &dm));
    REQUIRE_OK(kiln_array_transpose(dm, NULL, &t));
    kiln_norm_options ot = {.order = mats[i].order, .p = mats[i].p, .naxes = 2, .axes = {1, 0},
                            .keepdims = 1};
    kiln_array *r = NULL;
    CHECK_OK(kiln_norm(ctx, kiln_operand_array(t), kiln_operand_new(&r), &ot, NULL));
    if (r) {
      CHECK(kiln_array_ndim(r) == 2 && kiln_array_shape(r)[0] == 1 && kiln_array_shape(r)[1] == 1);
      double *w = values_of(r);
      CHECK_CLOSE(w[0], mats[i].want, 1e-13, 0);
      free(w);
    }
    kiln_array_release(r);
    kiln_array_release(t);
    kiln_array_release(dm);
  }
  /* dtypes: int32 gives float64, float16 float16, complex64 float32 */
  int32_t ints[3] = {3, -4, 12};
  int64_t three = 3;
  got = norm_of(ctx, kiln_operand_host(ints, KILN_INT32, 1, &three, NULL), &none, KILN_FLOAT64, 1);
  if (got) CHECK(got[0] == 13);
  free(got);
  float z[4] = {3, 4, -5, 12};
  int64_t two = 2;
  kiln_norm_options one = {.order = KILN_NORM_P, .p = 1};
  got = norm_of(ctx, kiln_operand_host(z, KILN_COMPLEX64, 1, &two, NULL), &one, KILN_FLOAT32, 1);
  if (got) CHECK_CLOSE(got[0], 18, 1e-6, 0);
  free(got);
  uint16_t h[3] = {kiln_float16_from_float(3), kiln_float16_from_float(4), kiln_float16_from_float(0)};
  got = norm_of(ctx, kiln_operand_host(h, KILN_FLOAT16, 1, &three, NULL), &none, KILN_FLOAT16, 1);
  if (got) CHECK(got[0] == 5);
  free(got);
  /* on a stream, a new float16 result cast from its float32 sums: the cast
   * is queued on the stream too (the host waits for that stream alone) */
  {
    enum { HR = 700, HC = 301 };
    uint16_t *hm = malloc(sizeof(uint16_t) * HR * HC);
    double hcol[HC] = {0}, hwant = 0;
    for (int k = 0; k < HR * HC; k++) {
      hm[k] = kiln_float16_from_float((float)((k * 37 % 101) - 50) / 64.0f);
      hcol[k % HC] += fabs((double)kiln_float16_to_float(hm[k]));
    }
    for (int c = 0; c < HC; c++) hwant = fmax(hwant, hcol[c]);
    int64_t hshape[2] = {HR, HC};
    kiln_array *dh = NULL, *hr = NULL;
    kiln_stream *hs = NULL;
    REQUIRE_OK(kiln_stream_create(ctx, &hs));
    REQUIRE_OK(kiln_array_from_host(ctx, KILN_FLOAT16, 2, hshape, NULL, hm, &dh));
    CHECK_OK(kiln_norm(ctx, kiln_operand_array(dh), kiln_operand_new(&hr), &one, hs));
    CHECK_OK(kiln_stream_synchronize(ctx, hs));
    if (hr) {
      CHECK(kiln_array_dtype(hr) == KILN_FLOAT16);
      uint16_t bits = 0;
      CHECK_OK(kiln_array_to_host(hr, &bits, NULL));
      CHECK_CLOSE(kiln_float16_to_float(bits), hwant, 2e-3, 0);
    }
    kiln_array_release(hr);
    kiln_array_release(dh);
    kiln_stream_release(hs);
    free(hm);
  }
  /* errors */
  kiln_array *r = (kiln_array *)1;
  kiln_norm_options nuc = {.order = KILN_NORM_NUC};
  CHECK_STATUS(kiln_norm(ctx, m, kiln_operand_new(&r), &nuc, NULL), KILN_ERROR_UNIMPLEMENTED);
  CHECK(r == NULL);
  kiln_norm_options two_norm = {.order = KILN_NORM_P, .p = 2};
  CHECK_STATUS(kiln_norm(ctx, m, kiln_operand_new(&r), &two_norm, NULL), KILN_ERROR_UNIMPLEMENTED);
  CHECK_ERROR_CONTAINS("singular values");
  kiln_norm_options fro_opt = {.order = KILN_NORM_FRO};
  CHECK_STATUS(kiln_norm(ctx, v, kiln_operand_new(&r), &fro_opt, NULL), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("'fro' for vectors");
  kiln_norm_options three_p = {.order = KILN_NORM_P, .p = 3};
  CHECK_STATUS(kiln_norm(ctx, m, kiln_operand_new(&r), &three_p, NULL), KILN_ERROR_INVALID_ARGUMENT);
  int64_t s3[3] = {2, 3, 4};
  CHECK_STATUS(kiln_norm(ctx, kiln_operand_host(x, KILN_FLOAT64, 3, s3, NULL), kiln_operand_new(&r),
                         &one, NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("dimensions");
  kiln_norm_options bad_axis = {.naxes = 1, .axes = {2}};
  CHECK_STATUS(kiln_norm(ctx, m, kiln_operand_new(&r), &bad_axis, NULL), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("out of bounds");
  kiln_norm_options same = {.naxes = 2, .axes = {0, -2}};
  CHECK_STATUS(kiln_norm(ctx, m, kiln_operand_new(&r), &same, NULL), KILN_ERROR_INVALID_ARGUMENT);
  kiln_norm_options inf = {.order = KILN_NORM_P, .p = INFINITY};
  int64_t zero = 0;
  CHECK_STATUS(kiln_norm(ctx, kiln_operand_host(x, KILN_FLOAT64, 1, &zero, NULL),
                         kiln_operand_new(&r), &inf, NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK(r == NULL);
}

/* arange / linspace: the bits NumPy 2.4 gives (printed by NumPy as integer
 * views of the values; regenerate with the expressions in the comments). */
static void check_range(kiln_array *a, kiln_dtype dtype, int64_t n, const uint64_t *bits,
                        const int64_t *ints, const int64_t *at, int nat, const char *what) {
  if (!a) {
    CHECK_MSG(0, "%s: no array", what);
    return;
  }
  CHECK_MSG(kiln_array_dtype(a) == dtype, "%s: dtype %s, NumPy's %s", what,
            kiln_dtype_name(kiln_array_dtype(a)), kiln_dtype_name(dtype));
  CHECK_MSG(kiln_array_size(a) == n && kiln_array_ndim(a) == 1, "%s: %lld elements, NumPy's %lld",
            what, (long long)kiln_array_size(a), (long long)n);
  if (kiln_array_size(a) != n || kiln_array_dtype(a) != dtype) return;
  size_t size = kiln_dtype_size(dtype);
  unsigned char *host = malloc((size_t)(n + 1) * size);
  CHECK_OK(kiln_array_to_host(a, host, NULL));
  for (int k = 0; k < (at ? nat : n); k++) {
    int64_t i = at ? at[k] : k;
    if (kiln_dtype_is_float(dtype)) {
      uint64_t b = 0;
      memcpy(&b, host + i * size, size);
      CHECK_MSG(b == bits[k], "%s[%lld]: bits %llx, NumPy's %llx (%.17g)", what, (long long)i,
                (unsigned long long)b, (unsigned long long)bits[k], harness_get(host, dtype, i));
    } else {
      CHECK_MSG(harness_get(host, dtype, i) == (double)ints[k], "%s[%lld]: %g, NumPy's %lld", what,
                (long long)i, harness_get(host, dtype, i), (long long)ints[k]);
    }
  }
  free(host);
}

static void test_arange_linspace(kiln_context *ctx) {
  kiln_array *a = NULL;
  if (has_double(ctx)) {
    /* np.arange(0, 1, 0.1) */
    static const uint64_t a01[10] = {0, 4591870180066957722u, 4596373779694328218u,
                                     4599075939470750516u, 4600877379321698714u,
                                     4602678819172646912u, 4603579539098121012u,
                                     4604480259023595111u, 4605380978949069210u,
                                     4606281698874543309u};
    CHECK_OK(kiln_arange(ctx, kiln_operand_int(0), kiln_operand_int(1), kiln_operand_float(0.1),
                         KILN_DTYPE_COUNT, &a));
    check_range(a, KILN_FLOAT64, 10, a01, NULL, NULL, 0, "arange(0, 1, 0.1)");
    kiln_array_release(a);
    /* np.arange(np.float32(0), np.float32(2), np.float32(0.3)): float64 */
    static const uint64_t f32args[7] = {0, 4599075939685498880u, 4603579539312869376u,
                                        4606281699196665856u, 4608083138940239872u,
                                        4609434218882138112u, 4610785298824036352u};
    CHECK_OK(kiln_arange(ctx, kiln_operand_float32(0), kiln_operand_float32(2),
                         kiln_operand_float32(0.3f), KILN_DTYPE_COUNT, &a));
    check_range(a, KILN_FLOAT64, 7, f32args, NULL, NULL, 0, "arange(float32 args)");
    kiln_array_release(a);
    /* np.arange(1e-3, 1.0, 0.0123): 82 values, some of them */
    static const int64_t at[4] = {0, 1, 40, 81};
    static const uint64_t m[4] = {4562254508917369340u, 4578820549786688972u,
                                  4602552718383080537u, 4607158099362029606u};
    CHECK_OK(kiln_arange(ctx, kiln_operand_float(1e-3), kiln_operand_float(1.0),
                         kiln_operand_float(0.0123), KILN_DTYPE_COUNT, &a));
    check_range(a, KILN_FLOAT64, 82, m, NULL, at, 4, "arange(1e-3, 1, 0.0123)");
    kiln_array_release(a);
    /* np.linspace(0, 1, 7), retstep 0x1.5555555555555p-3 */
    static const uint64_t l7[7] = {0, 4595172819793696085u, 4599676419421066581u,
                                   4602678819172646912u, 4604180019048437077u,
                                   4605681218924227242u, 4607182418800017408u};
    double step = 0;
    CHECK_OK(kiln_linspace(ctx, 0, 1, 7, 1, KILN_DTYPE_COUNT, &step, &a));
    check_range(a, KILN_FLOAT64, 7, l7, NULL, NULL, 0, "linspace(0, 1, 7)");
    CHECK(step == 0x1.5555555555555p-3);
    kiln_array_release(a);
  }
  /* np.arange(0.5, 7.3, 0.7, dtype=np.float32) */
  static const uint64_t b[10] = {1056964608, 1067030938, 1072902964, 1076258407, 1079194420,
                                 1082130432, 1083598439, 1085066446, 1086534452, 1088002458};
  CHECK_OK(kiln_arange(ctx, kiln_operand_float(0.5), kiln_operand_float(7.3),
                       kiln_operand_float(0.7), KILN_FLOAT32, &a));
  check_range(a, KILN_FLOAT32, 10, b, NULL, NULL, 0, "arange(0.5, 7.3, 0.7, float32)");
  kiln_array_release(a);
  /* np.arange(0.1, 3.3, 0.37, dtype=np.float32) */
  static const uint64_t n9[9] = {1036831949, 1055957975, 1062668862, 1067114824, 1070218609,
                                 1073322394, 1075084001, 1076635894, 1078187786};
  CHECK_OK(kiln_arange(ctx, kiln_operand_float(0.1), kiln_operand_float(3.3),
                       kiln_operand_float(0.37), KILN_FLOAT32, &a));
  check_range(a, KILN_FLOAT32, 9, n9, NULL, NULL, 0, "arange(0.1, 3.3, 0.37, float32)");
  kiln_array_release(a);
  /* np.arange(1.0, 2.0, 0.0625, dtype=np.float16) */
  static const uint64_t g[16] = {15360, 15424, 15488, 15552, 15616, 15680, 15744, 15808,
                                 15872, 15936, 16000, 16064, 16128, 16192, 16256, 16320};
  CHECK_OK(kiln_arange(ctx, kiln_operand_float(1), kiln_operand_float(2),
                       kiln_operand_float(0.0625), KILN_FLOAT16, &a));
  check_range(a, KILN_FLOAT16, 16, g, NULL, NULL, 0, "arange(1, 2, 0.0625, float16)");
  kiln_array_release(a);
  /* integers: np.arange(-3, 20, 4), np.arange(10, 0, -3, dtype=np.int8),
   * np.arange(0.5, 5, 1, dtype=np.int64) */
  static const int64_t d[6] = {-3, 1, 5, 9, 13, 17}, e[4] = {10, 7, 4, 1}, f[5] = {0, 1, 2, 3, 4};
  CHECK_OK(kiln_arange(ctx, kiln_operand_int(-3), kiln_operand_int(20), kiln_operand_int(4),
                       KILN_DTYPE_COUNT, &a));
  check_range(a, KILN_INT64, 6, NULL, d, NULL, 0, "arange(-3, 20, 4)");
  kiln_array_release(a);
  CHECK_OK(kiln_arange(ctx, kiln_operand_int(10), kiln_operand_int(0), kiln_operand_int(-3),
                       KILN_INT8, &a));
  check_range(a, KILN_INT8, 4, NULL, e, NULL, 0, "arange(10, 0, -3, int8)");
  kiln_array_release(a);
  CHECK_OK(kiln_arange(ctx, kiln_operand_float(0.5), kiln_operand_int(5), kiln_operand_int(1),
                       KILN_INT64, &a));
  check_range(a, KILN_INT64, 5, NULL, f, NULL, 0, "arange(0.5, 5, 1, int64)");
  kiln_array_release(a);
  /* np.linspace(-3, 5, 11, endpoint=False, dtype=np.float32) */
  static const uint64_t i11[11] = {3225419776u, 3222369373u, 3217412468u, 3209786461u,
                                   3183095436u, 1059252410u, 1068403619u, 1074123124u,
                                   1077173527u, 1080223930u, 1082702383u};
  CHECK_OK(kiln_linspace(ctx, -3, 5, 11, 0, KILN_FLOAT32, NULL, &a));
  check_range(a, KILN_FLOAT32, 11, i11, NULL, NULL, 0, "linspace(-3, 5, 11, endpoint=False)");
  kiln_array_release(a);
  /* np.linspace(0, 10, 6, dtype=np.int32), np.linspace(-2.5, 2.5, 5, dtype=np.int16): floors */
  static const int64_t j[6] = {0, 2, 4, 6, 8, 10}, k[5] = {-3, -2, 0, 1, 2};
  CHECK_OK(kiln_linspace(ctx, 0, 10, 6, 1, KILN_INT32, NULL, &a));
  check_range(a, KILN_INT32, 6, NULL, j, NULL, 0, "linspace(0, 10, 6, int32)");
  kiln_array_release(a);
  CHECK_OK(kiln_linspace(ctx, -2.5, 2.5, 5, 1, KILN_INT16, NULL, &a));
  check_range(a, KILN_INT16, 5, NULL, k, NULL, 0, "linspace(-2.5, 2.5, 5, int16)");
  kiln_array_release(a);
  /* edges: empty ranges, one sample (step NaN), errors */
  CHECK_OK(kiln_arange(ctx, kiln_operand_int(0), kiln_operand_int(-1), kiln_operand_int(1),
                       KILN_DTYPE_COUNT, &a));
  CHECK(a && kiln_array_size(a) == 0);
  kiln_array_release(a);
  double step = 0;
  CHECK_OK(kiln_linspace(ctx, 2, 3, 1, 1, KILN_FLOAT32, &step, &a));
  CHECK(a && kiln_array_size(a) == 1 && isnan(step));
  kiln_array_release(a);
  a = (kiln_array *)1;
  CHECK_STATUS(kiln_arange(ctx, kiln_operand_int(0), kiln_operand_int(5), kiln_operand_int(0),
                           KILN_DTYPE_COUNT, &a),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("step is zero");
  CHECK(a == NULL);
  CHECK_STATUS(kiln_arange(ctx, kiln_operand_int(0), kiln_operand_float(INFINITY),
                           kiln_operand_int(1), KILN_DTYPE_COUNT, &a),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_arange(ctx, kiln_operand_int(0), kiln_operand_int(5), kiln_operand_int(1),
                           KILN_BOOL, &a),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_arange(ctx, kiln_operand_new(&a), kiln_operand_int(5), kiln_operand_int(1),
                           KILN_DTYPE_COUNT, &a),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_linspace(ctx, 0, 1, -1, 1, KILN_DTYPE_COUNT, NULL, &a),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("must be non-negative");
  CHECK_STATUS(kiln_linspace(ctx, 0, 1, 3, 1, KILN_COMPLEX64, NULL, &a), KILN_ERROR_UNIMPLEMENTED);
  CHECK_STATUS(kiln_linspace(NULL, 0, 1, 3, 1, KILN_FLOAT32, NULL, &a), KILN_ERROR_INVALID_ARGUMENT);
  CHECK(a == NULL);
}

static const harness_test tests[] = {
    {"dtypes", test_dtypes},
    {"operands", test_operands},
    {"empty_and_ddof", test_empty_and_ddof},
    {"bad_input", test_bad_input},
    {"reproducible", test_reproducible},
    {"isclose", test_isclose},
    {"item", test_item},
    {"norm", test_norm},
    {"arange_linspace", test_arange_linspace},
    {0}};

int main(int argc, char **argv) { return harness_main(argc, argv, tests); }
