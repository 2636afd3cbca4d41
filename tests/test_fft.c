/* tests/test_fft.c: the contract of kiln/fft.h that fft_numpy.py does not
 * cover: bad arguments (each a status and a message), explicit plans and
 * their checks, the plan cache past its bound, round trips against a plain
 * C DFT (float64), a large power of two, out and streams, host operands. Values of every
 * transform against NumPy: tests/fft/fft_numpy.py. */
#include "harness.h"

/* X_k = sum_j x_j exp(sign 2 pi i jk / n), in long double */
static void dft(const double *x, double *y, int64_t n, int sign) {
  for (int64_t k = 0; k < n; k++) {
    long double re = 0, im = 0;
    for (int64_t j = 0; j < n; j++) {
      long double a = sign * 2.0L * 3.14159265358979323846264338327950288L *
                      (long double)((j * k) % n) / (long double)n;
      re += x[2 * j] * cosl(a) - x[2 * j + 1] * sinl(a);
      im += x[2 * j] * sinl(a) + x[2 * j + 1] * cosl(a);
    }
    y[2 * k] = (double)re;
    y[2 * k + 1] = (double)im;
  }
}

/* max |a - b| / max |b| over n complex values */
static double relative_error(const double *a, const double *b, int64_t n) {
  double err = 0, scale = 0;
  for (int64_t i = 0; i < 2 * n; i++) {
    err = fmax(err, fabs(a[i] - b[i]));
    scale = fmax(scale, fabs(b[i]));
  }
  return err / (scale > 0 ? scale : 1);
}

static kiln_array *complex128_random(kiln_context *ctx, int ndim, const int64_t *shape,
                                     double **host) {
  int64_t n = 1;
  for (int i = 0; i < ndim; i++) n *= shape[i];
  *host = malloc((size_t)(2 * n) * sizeof(double));
  harness_fill_random(*host, KILN_FLOAT64, 2 * n, -1, 1);
  kiln_array *a = NULL;
  CHECK_OK(kiln_array_from_host(ctx, KILN_COMPLEX128, ndim, shape, NULL, *host, &a));
  return a;
}

static void test_against_dft(kiln_context *ctx) {
  kiln_device_info info;
  REQUIRE_OK(kiln_context_device_info(ctx, &info));
  if (!info.has_double) {
    harness_skip("no float64 on this device");
    return;
  }
  static const int64_t sizes[] = {1, 2, 6, 12, 13, 17, 60, 77, 101, 143, 256, 391};
  for (size_t t = 0; t < sizeof sizes / sizeof sizes[0]; t++) {
    int64_t n = sizes[t];
    double *x = NULL;
    kiln_array *a = complex128_random(ctx, 1, &n, &x), *f = NULL, *back = NULL;
    double *got = malloc((size_t)(2 * n) * sizeof(double));
    double *want = malloc((size_t)(2 * n) * sizeof(double));
    CHECK_OK(kiln_fft(ctx, kiln_operand_array(a), KILN_FFT_DEFAULT, 0, NULL, kiln_operand_new(&f), NULL));
    CHECK_OK(kiln_array_to_host(f, got, NULL));
    dft(x, want, n, -1);
    double e = relative_error(got, want, n);
    CHECK_MSG(e < 1e-13, "fft n=%lld: error %.3g vs a C DFT", (long long)n, e);
    CHECK_OK(kiln_ifft(ctx, kiln_operand_array(f), KILN_FFT_DEFAULT, 0, NULL, kiln_operand_new(&back), NULL));
    CHECK_OK(kiln_array_to_host(back, got, NULL));
    e = relative_error(got, x, n);
    CHECK_MSG(e < 1e-13, "ifft(fft(x)) n=%lld: error %.3g", (long long)n, e);
    free(got);
    free(want);
    free(x);
    kiln_array_release(back);
    kiln_array_release(f);
    kiln_array_release(a);
  }
}

/* 2^16 complex64 round trip on a stream, into a reversed out */
static void test_round_trip_stream(kiln_context *ctx) {
  int64_t n = 1 << 16;
  float *x = malloc((size_t)(2 * n) * sizeof(float)), *got = malloc((size_t)(2 * n) * sizeof(float));
  harness_fill_random(x, KILN_FLOAT32, 2 * n, -1, 1);
  kiln_array *a = NULL, *f = NULL, *store = NULL, *out = NULL;
  kiln_stream *stream = NULL;
  REQUIRE_OK(kiln_stream_create(ctx, &stream));
  REQUIRE_OK(kiln_array_from_host(ctx, KILN_COMPLEX64, 1, &n, NULL, x, &a));
  REQUIRE_OK(kiln_array_empty(ctx, KILN_COMPLEX64, 1, &n, &store));
  kiln_slice reverse = {KILN_NONE, KILN_NONE, -1};
  REQUIRE_OK(kiln_array_slice(store, 1, &reverse, &out));
  CHECK_OK(kiln_fft(ctx, kiln_operand_array(a), KILN_FFT_DEFAULT, -1, "ortho", kiln_operand_new(&f), stream));
  CHECK_OK(kiln_ifft(ctx, kiln_operand_array(f), KILN_FFT_DEFAULT, -1, "ortho",
                     kiln_operand_array(out), stream));
  CHECK_OK(kiln_stream_synchronize(ctx, stream));
  CHECK_OK(kiln_array_to_host(out, got, NULL));
  double err = 0;
  for (int64_t i = 0; i < 2 * n; i++) err = fmax(err, fabs(got[i] - x[i]));
  CHECK_MSG(err < 1e-5, "ifft(fft(x)) 2^16 complex64: max error %.3g", err);
  kiln_array_release(out);
  kiln_array_release(store);
  kiln_array_release(f);
  kiln_array_release(a);
  kiln_stream_release(stream);
  free(x);
  free(got);
}

/* Host operands against a C DFT: ifft of a reversed, strided host view
 * (every other row of 6 x 9, columns reversed) into host memory laid out
 * column-major, on a stream; and an explicit plan host to host. */
static void test_host_operands(kiln_context *ctx) {
  kiln_device_info info;
  REQUIRE_OK(kiln_context_device_info(ctx, &info));
  if (!info.has_double) {
    harness_skip("no float64 on this device");
    return;
  }
  enum { ROWS = 6, COLS = 9 };
  double x[2 * ROWS * COLS], got[2 * 3 * COLS], row[2 * COLS], want[2 * COLS];
  harness_fill_random(x, KILN_FLOAT64, 2 * ROWS * COLS, -1, 1);
  int64_t vshape[2] = {3, COLS}, vstrides[2] = {2 * COLS * 16, -16};
  int64_t out_strides[2] = {16, 3 * 16};
  kiln_stream *stream = NULL;
  REQUIRE_OK(kiln_stream_create(ctx, &stream));
  kiln_operand in = kiln_operand_host(x + 2 * (COLS - 1), KILN_COMPLEX128, 2, vshape, vstrides);
  CHECK_OK(kiln_ifft(ctx, in, KILN_FFT_DEFAULT, -1, "ortho",
                     kiln_operand_host_output(got, KILN_COMPLEX128, 2, vshape, out_strides),
                     stream));
  for (int r = 0; r < 3; r++) {
    for (int j = 0; j < COLS; j++) {
      row[2 * j] = x[2 * (2 * r * COLS + COLS - 1 - j)];
      row[2 * j + 1] = x[2 * (2 * r * COLS + COLS - 1 - j) + 1];
    }
    dft(row, want, COLS, 1);
    double e = 0, scale = 1 / sqrt((double)COLS);
    for (int k = 0; k < COLS; k++)
      e = fmax(e, fmax(fabs(got[2 * (k * 3 + r)] - want[2 * k] * scale),
                       fabs(got[2 * (k * 3 + r) + 1] - want[2 * k + 1] * scale)));
    CHECK_MSG(e < 1e-13, "host ifft row %d: error %.3g", r, e);
  }
  /* a plan: host in, host out */
  kiln_fft_plan *plan = NULL;
  int64_t n = COLS;
  REQUIRE_OK(kiln_fft_plan_create(ctx, KILN_FFT_FORWARD, KILN_COMPLEX128, 1, &n, 0, NULL, 0,
                                  NULL, NULL, &plan));
  CHECK_OK(kiln_fft_plan_execute(plan, kiln_operand_host(x, KILN_COMPLEX128, 1, &n, NULL),
                                 kiln_operand_host_output(got, KILN_COMPLEX128, 1, &n, NULL),
                                 NULL));
  dft(x, want, COLS, -1);
  CHECK(relative_error(got, want, COLS) < 1e-13);
  kiln_fft_plan_release(plan);
  kiln_stream_release(stream);
}

static void test_bad_arguments(kiln_context *ctx) {
  int64_t shape[2] = {4, 6}, empty = 0;
  kiln_array *a = NULL, *e = NULL, *r = (kiln_array *)1, *scalar = NULL, *wrong = NULL;
  REQUIRE_OK(kiln_array_zeros(ctx, KILN_COMPLEX64, 2, shape, &a));
  REQUIRE_OK(kiln_array_zeros(ctx, KILN_COMPLEX64, 1, &empty, &e));
  REQUIRE_OK(kiln_array_zeros(ctx, KILN_COMPLEX64, 0, NULL, &scalar));
  CHECK_STATUS(kiln_fft(ctx, kiln_operand_array(a), 0, -1, NULL, kiln_operand_new(&r), NULL), KILN_ERROR_INVALID_ARGUMENT);
  CHECK(r == NULL);
  CHECK_ERROR_CONTAINS("invalid number of FFT data points (0)");
  CHECK_STATUS(kiln_fft(ctx, kiln_operand_array(a), -5, -1, NULL, kiln_operand_new(&r), NULL), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_fft(ctx, kiln_operand_array(e), KILN_FFT_DEFAULT, 0, NULL, kiln_operand_new(&r), NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_fft(ctx, kiln_operand_array(a), KILN_FFT_DEFAULT, 2, NULL, kiln_operand_new(&r), NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("axis 2 is out of range");
  CHECK_STATUS(kiln_ifft(ctx, kiln_operand_array(a), KILN_FFT_DEFAULT, -3, NULL, kiln_operand_new(&r), NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_fft(ctx, kiln_operand_array(a), KILN_FFT_DEFAULT, -1, "Ortho", kiln_operand_new(&r), NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("\"backward\", \"ortho\" or \"forward\"");
  CHECK_STATUS(kiln_rfft(ctx, kiln_operand_array(a), KILN_FFT_DEFAULT, -1, NULL, kiln_operand_new(&r), NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("real inputs");
  CHECK_STATUS(kiln_fft(ctx, kiln_operand_array(scalar), KILN_FFT_DEFAULT, -1, NULL, kiln_operand_new(&r), NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_fft(ctx, kiln_operand_array(NULL), KILN_FFT_DEFAULT, -1, NULL, kiln_operand_new(&r), NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_fft(ctx, kiln_operand_array(a), KILN_FFT_DEFAULT, -1, NULL, kiln_operand_new(NULL), NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  int64_t s2[2] = {4, 4};
  int ax1[1] = {0};
  CHECK_STATUS(kiln_fftn(ctx, kiln_operand_array(a), 2, s2, 1, ax1, NULL, kiln_operand_new(&r), NULL), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("different lengths");
  /* out of the wrong shape, dtype, or a broadcast view */
  REQUIRE_OK(kiln_array_zeros(ctx, KILN_COMPLEX128, 2, shape, &wrong));
  CHECK_STATUS(kiln_fft(ctx, kiln_operand_array(a), KILN_FFT_DEFAULT, -1, NULL, kiln_operand_array(wrong), NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("out is complex128");
  kiln_array_release(wrong);
  wrong = NULL;
  REQUIRE_OK(kiln_array_zeros(ctx, KILN_COMPLEX64, 1, &shape[1], &wrong));
  kiln_array *broadcast = NULL;
  REQUIRE_OK(kiln_array_broadcast_to(wrong, 2, shape, &broadcast));
  CHECK_STATUS(kiln_fft(ctx, kiln_operand_array(a), KILN_FFT_DEFAULT, -1, NULL, kiln_operand_array(broadcast), NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("broadcast");
  CHECK_STATUS(kiln_fft(ctx, kiln_operand_array(a), 5, -1, NULL, kiln_operand_array(wrong), NULL), KILN_ERROR_INVALID_ARGUMENT);
  /* operands: a NULL ctx, a scalar, read-only or misshapen host out */
  CHECK_STATUS(kiln_fft(NULL, kiln_operand_array(a), KILN_FFT_DEFAULT, -1, NULL,
                        kiln_operand_new(&r), NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_fft(ctx, kiln_operand_float(1.0), KILN_FFT_DEFAULT, -1, NULL,
                        kiln_operand_new(&r), NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("device array or host memory");
  float host[48];
  CHECK_STATUS(kiln_fft(ctx, kiln_operand_array(a), KILN_FFT_DEFAULT, -1, NULL,
                        kiln_operand_host(host, KILN_COMPLEX64, 2, shape, NULL), NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("read-only");
  CHECK_STATUS(kiln_fft(ctx, kiln_operand_array(a), 5, -1, NULL,
                        kiln_operand_host_output(host, KILN_COMPLEX64, 2, shape, NULL), NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_fft(ctx, kiln_operand_host(NULL, KILN_COMPLEX64, 2, shape, NULL),
                        KILN_FFT_DEFAULT, -1, NULL, kiln_operand_new(&r), NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  char text[256];
  CHECK_OK(kiln_fft_describe(ctx, text, sizeof text));
  CHECK(strstr(text, "portable") != NULL || strstr(text, "vendor: ") == text);
  CHECK_STATUS(kiln_fft_describe(ctx, text, 0), KILN_ERROR_INVALID_ARGUMENT);
  kiln_array_release(broadcast);
  kiln_array_release(wrong);
  kiln_array_release(scalar);
  kiln_array_release(e);
  kiln_array_release(a);
}

static void test_plan(kiln_context *ctx) {
  int64_t shape[3] = {3, 10, 8}, other[3] = {3, 10, 9};
  int axes[2] = {2, 0};
  kiln_fft_plan *plan = NULL;
  CHECK_STATUS(kiln_fft_plan_create(ctx, (kiln_fft_kind)9, KILN_FLOAT32, 3, shape, 0, NULL, 2,
                                    axes, NULL, &plan),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK(plan == NULL);
  CHECK_STATUS(kiln_fft_plan_create(ctx, KILN_FFT_REAL_FORWARD, KILN_COMPLEX64, 3, shape, 0,
                                    NULL, 2, axes, NULL, &plan),
               KILN_ERROR_INVALID_ARGUMENT);
  REQUIRE_OK(kiln_fft_plan_create(ctx, KILN_FFT_REAL_FORWARD, KILN_FLOAT32, 3, shape, 0, NULL,
                                  2, axes, "forward", &plan));
  float *x = malloc(240 * sizeof(float));
  harness_fill_random(x, KILN_FLOAT32, 240, -1, 1);
  kiln_array *a = NULL, *b = NULL, *r1 = NULL, *r2 = NULL;
  REQUIRE_OK(kiln_array_from_host(ctx, KILN_FLOAT32, 3, shape, NULL, x, &a));
  REQUIRE_OK(kiln_array_zeros(ctx, KILN_FLOAT32, 3, other, &b));
  CHECK_OK(kiln_fft_plan_execute(plan, kiln_operand_array(a), kiln_operand_new(&r1), NULL));
  CHECK_OK(kiln_rfftn(ctx, kiln_operand_array(a), 0, NULL, 2, axes, "forward", kiln_operand_new(&r2), NULL));
  kiln_array *none = (kiln_array *)1;
  CHECK_STATUS(kiln_fft_plan_execute(plan, kiln_operand_array(b), kiln_operand_new(&none), NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK(none == NULL);
  CHECK_ERROR_CONTAINS("plan");
  /* rfft along the last of the axes (0: 3 -> 2), fft along axis 2 */
  float got1[2 * 10 * 8 * 2], got2[2 * 10 * 8 * 2];
  REQUIRE_OK(kiln_array_to_host(r1, got1, NULL));
  REQUIRE_OK(kiln_array_to_host(r2, got2, NULL));
  CHECK(kiln_array_shape(r1)[0] == 2 && kiln_array_dtype(r1) == KILN_COMPLEX64);
  CHECK(memcmp(got1, got2, sizeof got1) == 0);
  kiln_fft_plan_release(plan);
  kiln_fft_plan_release(NULL);
  kiln_array_release(r2);
  kiln_array_release(r1);
  kiln_array_release(b);
  kiln_array_release(a);
  free(x);
}

/* More lengths than the cache keeps (32), then the first again: evicted
 * plans are remade, and plans in use by an explicit plan survive eviction. */
static void test_cache_bound(kiln_context *ctx) {
  int64_t first = 3;
  kiln_fft_plan *held = NULL;
  REQUIRE_OK(kiln_fft_plan_create(ctx, KILN_FFT_FORWARD, KILN_COMPLEX64, 1, &first, 0, NULL, 0,
                                  NULL, NULL, &held));
  float x[2 * 48];
  harness_fill_random(x, KILN_FLOAT32, 2 * 48, -1, 1);
  for (int64_t n = 2; n <= 48; n++) {
    kiln_array *a = NULL, *f = NULL;
    REQUIRE_OK(kiln_array_from_host(ctx, KILN_COMPLEX64, 1, &n, NULL, x, &a));
    CHECK_OK(kiln_fft(ctx, kiln_operand_array(a), KILN_FFT_DEFAULT, 0, NULL, kiln_operand_new(&f), NULL));
    float got[2 * 48];
    if (f) CHECK_OK(kiln_array_to_host(f, got, NULL)); /* element 0: the sum */
    double sum = 0;
    for (int64_t j = 0; j < n; j++) sum += x[2 * j];
    CHECK_MSG(fabs(got[0] - sum) < 1e-4 * (1 + fabs(sum)), "n=%lld: X_0 %g, sum %g",
              (long long)n, got[0], sum);
    kiln_array_release(f);
    kiln_array_release(a);
  }
  kiln_array *a = NULL, *f = NULL;
  REQUIRE_OK(kiln_array_from_host(ctx, KILN_COMPLEX64, 1, &first, NULL, x, &a));
  CHECK_OK(kiln_fft_plan_execute(held, kiln_operand_array(a), kiln_operand_new(&f), NULL));
  float got[6];
  if (f) CHECK_OK(kiln_array_to_host(f, got, NULL));
  CHECK(fabs(got[0] - (x[0] + x[2] + x[4])) < 1e-5);
  kiln_array_release(f);
  kiln_array_release(a);
  kiln_fft_plan_release(held);
}

/* Run under KILN_FFT=vendor (fft_vendor.<backend>): the backend's library
 * (VkFFT or clFFT on PoCL, KILN_OPENCL_FFT) on a length it takes, c2c against a C DFT; a length it
 * cannot plan is an error naming it.
 * Otherwise a no-op (fft_numpy covers the default path). */
static void test_vendor(kiln_context *ctx) {
  const char *v = getenv("KILN_FFT");
  if (!v || strcmp(v, "vendor") != 0) return;
  char text[512];
  REQUIRE_OK(kiln_fft_describe(ctx, text, sizeof text));
  printf("  %s\n", text);
  if (strncmp(text, "vendor: ", 8) != 0) {
    harness_skip("no vendor FFT library here: %s", text);
    return;
  }
  /* one small plan: clFFT compiles its kernels per plan (tens of seconds on
   * PoCL); the GPU runs cover the rest (fft_numpy on NVIDIA's OpenCL) */
  int64_t shape[2] = {3, 16};
  double *x = NULL, *got = malloc(2 * 48 * sizeof(double)), want[32];
  kiln_array *a = complex128_random(ctx, 2, shape, &x), *f = NULL;
  CHECK_OK(kiln_fft(ctx, kiln_operand_array(a), KILN_FFT_DEFAULT, -1, NULL, kiln_operand_new(&f), NULL));
  if (f) CHECK_OK(kiln_array_to_host(f, got, NULL));
  for (int row = 0; row < 3; row++) {
    dft(x + 32 * row, want, 16, -1);
    double e = relative_error(got + 32 * row, want, 16);
    CHECK_MSG(e < 1e-12, "vendor fft row %d: error %.3g", row, e);
  }
  /* fft2 of the 3 x 16 (one 2-D library plan, a batch of 1), ortho, into
   * a transposed out: columns of the row DFTs' DFTs */
  int64_t tshape[2] = {16, 3};
  kiln_array *store = NULL, *tout = NULL;
  REQUIRE_OK(kiln_array_empty(ctx, KILN_COMPLEX128, 2, tshape, &store));
  REQUIRE_OK(kiln_array_transpose(store, NULL, &tout));
  CHECK_OK(kiln_fft2(ctx, kiln_operand_array(a), NULL, NULL, "ortho", kiln_operand_array(tout),
                     NULL));
  double *two = malloc(2 * 48 * sizeof(double)), *rows = malloc(2 * 48 * sizeof(double));
  CHECK_OK(kiln_array_to_host(tout, two, NULL));
  for (int row = 0; row < 3; row++) dft(x + 32 * row, rows + 32 * row, 16, -1);
  double worst = 0;
  for (int col = 0; col < 16; col++) {
    double column[6], column_dft[6];
    for (int r = 0; r < 3; r++)
      column[2 * r] = rows[32 * r + 2 * col], column[2 * r + 1] = rows[32 * r + 2 * col + 1];
    dft(column, column_dft, 3, -1);
    for (int r = 0; r < 3; r++)
      for (int part = 0; part < 2; part++)
        worst = fmax(worst, fabs(two[32 * r + 2 * col + part] -
                                 column_dft[2 * r + part] / sqrt(48.0)));
  }
  CHECK_MSG(worst < 1e-12, "vendor fft2 (a 2-D plan): error %.3g", worst);
  free(two);
  free(rows);
  kiln_array_release(tout);
  kiln_array_release(store);
  /* 17 is prime: clFFT cannot plan it, and KILN_FFT=vendor makes that an
   * error; VkFFT (KILN_OPENCL_FFT, the OpenCL default) plans it with
   * Bluestein: rows cropped to 16 and padded to 17, against the C DFT */
  kiln_array *none = (kiln_array *)1;
  if (harness_backend_is(ctx, "opencl") && strstr(text, "clFFT"))
    CHECK(kiln_fft(ctx, kiln_operand_array(a), 17, -1, NULL, kiln_operand_new(&none), NULL) != KILN_OK && none == NULL);
  if (harness_backend_is(ctx, "opencl") && strstr(text, "VkFFT")) {
    kiln_array *p17 = NULL;
    double padded[34], got17[3 * 34], want17[34];
    CHECK_OK(kiln_fft(ctx, kiln_operand_array(a), 17, -1, NULL, kiln_operand_new(&p17), NULL));
    if (p17) CHECK_OK(kiln_array_to_host(p17, got17, NULL));
    for (int row = 0; row < 3; row++) {
      memcpy(padded, x + 32 * row, 32 * sizeof(double));
      padded[32] = padded[33] = 0;
      dft(padded, want17, 17, -1);
      double e = relative_error(got17 + 34 * row, want17, 17);
      CHECK_MSG(e < 1e-12, "VkFFT n=17 (Bluestein) row %d: error %.3g", row, e);
    }
    kiln_array_release(p17);
  }
  kiln_array_release(f);
  kiln_array_release(a);
  free(got);
  free(x);
}

/* Run alone under KILN_FFT=bogus (fft_bad_setting.<backend>): every call
 * fails naming the variable; otherwise a no-op. */
static void test_bad_setting(kiln_context *ctx) {
  const char *v = getenv("KILN_FFT");
  if (!v || strcmp(v, "bogus") != 0) return;
  int64_t n = 8;
  kiln_array *a = NULL, *r = NULL;
  REQUIRE_OK(kiln_array_zeros(ctx, KILN_COMPLEX64, 1, &n, &a));
  CHECK_STATUS(kiln_fft(ctx, kiln_operand_array(a), KILN_FFT_DEFAULT, 0, NULL, kiln_operand_new(&r), NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("KILN_FFT=bogus");
  char text[128];
  CHECK_STATUS(kiln_fft_describe(ctx, text, sizeof text), KILN_ERROR_INVALID_ARGUMENT);
  kiln_array_release(a);
}

/* Run alone under KILN_FFT=portable KILN_FFT_FUSED=100 (fft_bad_fused.
 * <backend>): a transform fails naming the variable and makes no result;
 * otherwise a no-op. */
static void test_bad_fused(kiln_context *ctx) {
  const char *v = getenv("KILN_FFT_FUSED");
  if (!v || strcmp(v, "100") != 0) return;
  int64_t n = 512;
  kiln_array *a = NULL, *r = NULL;
  REQUIRE_OK(kiln_array_zeros(ctx, KILN_COMPLEX64, 1, &n, &a));
  CHECK_STATUS(kiln_fft(ctx, kiln_operand_array(a), KILN_FFT_DEFAULT, 0, NULL,
                        kiln_operand_new(&r), NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("KILN_FFT_FUSED=100");
  CHECK_MSG(r == NULL, "a failed transform made a result");
  kiln_array_release(r);
  kiln_array_release(a);
}

/* y = DFT of `rows` rows of n (sign, times scale), in long double with a
 * table of the n roots of unity: O(rows n^2), the row kernel's lengths. */
static void dft_rows(const double *x, double *y, int64_t rows, int64_t n, int sign,
                     double scale) {
  long double *c = malloc((size_t)n * sizeof *c), *s = malloc((size_t)n * sizeof *s);
  for (int64_t m = 0; m < n; m++) {
    long double a = 2.0L * 3.14159265358979323846264338327950288L * (long double)m / (long double)n;
    c[m] = cosl(a);
    s[m] = sign * sinl(a);
  }
  for (int64_t r = 0; r < rows; r++)
    for (int64_t k = 0; k < n; k++) {
      const double *xr = x + 2 * r * n;
      long double re = 0, im = 0;
      for (int64_t j = 0, m = 0; j < n; j++, m = (m + k) % n) {
        re += xr[2 * j] * c[m] - xr[2 * j + 1] * s[m];
        im += xr[2 * j] * s[m] + xr[2 * j + 1] * c[m];
      }
      y[2 * (r * n + k)] = (double)(re * scale);
      y[2 * (r * n + k) + 1] = (double)(im * scale);
    }
  free(c);
  free(s);
}

/* Batches of short rows (core/fft/fft_rows.c's lengths, on the portable
 * path; the default settings or the KILN_FFT_ROWS / _GROUP of the ctest
 * entry), a row count that is not a multiple of a group's rows, both
 * precisions and directions (one local buffer: complex64 4096, complex128
 * 2048), against a plain C DFT; 8192 (no row kernel) beside. Any path
 * passes it (the library's too). */
static void test_rows(kiln_context *ctx) {
  kiln_device_info info;
  REQUIRE_OK(kiln_context_device_info(ctx, &info));
  static const int64_t shapes[][2] = {{37, 32}, {19, 64}, {7, 256}, {3, 512},
                                      {3, 1024}, {2, 2048}, {2, 4096}, {1, 8192}};
  for (int d = 0; d < 2; d++) {
    if (d && !info.has_double) {
      harness_skip("no float64 on this device: complex128 rows");
      continue;
    }
    const kiln_dtype dtype = d ? KILN_COMPLEX128 : KILN_COMPLEX64;
    for (size_t t = 0; t < sizeof shapes / sizeof shapes[0]; t++) {
      const int64_t rows = shapes[t][0], n = shapes[t][1], count = rows * n;
      double *x = malloc((size_t)(2 * count) * sizeof(double));
      double *want = malloc((size_t)(2 * count) * sizeof(double));
      double *got = malloc((size_t)(2 * count) * sizeof(double));
      float *xf = malloc((size_t)(2 * count) * sizeof(float));
      harness_fill_random(xf, KILN_FLOAT32, 2 * count, -1, 1);
      for (int64_t i = 0; i < 2 * count; i++) x[i] = xf[i]; /* the same values both ways */
      kiln_array *a = NULL, *f = NULL;
      CHECK_OK(kiln_array_from_host(ctx, dtype, 2, shapes[t], NULL, d ? (void *)x : (void *)xf,
                                    &a));
      for (int inverse = 0; inverse < 2 && a; inverse++) {
        kiln_operand in = kiln_operand_array(a), out = kiln_operand_new(&f);
        CHECK_OK(inverse ? kiln_ifft(ctx, in, KILN_FFT_DEFAULT, -1, NULL, out, NULL)
                         : kiln_fft(ctx, in, KILN_FFT_DEFAULT, -1, NULL, out, NULL));
        /* (read back in its own dtype: got holds 2 count doubles, room
         * for either) */
        kiln_status read = f ? kiln_array_to_host(f, got, NULL) : KILN_ERROR_INTERNAL;
        CHECK_OK(read);
        if (!d)
          for (int64_t i = 2 * count - 1; i >= 0; i--) got[i] = ((const float *)got)[i];
        dft_rows(x, want, rows, n, inverse ? 1 : -1, inverse ? 1.0 / (double)n : 1.0);
        double e = read == KILN_OK ? relative_error(got, want, count) : 1;
        /* (PoCL: at most 2.4e-7 and 7.3e-16) */
        CHECK_MSG(e < (d ? 5e-15 : 1e-6), "%s %s %lld x %lld: error %.3g vs a C DFT",
                  inverse ? "ifft" : "fft", d ? "complex128" : "complex64", (long long)rows,
                  (long long)n, e);
        kiln_array_release(f);
        f = NULL;
      }
      kiln_array_release(a);
      free(xf);
      free(got);
      free(want);
      free(x);
    }
  }
}

/* Run alone under KILN_FFT=portable with KILN_FFT_ROWS=12 (fft_bad_rows.
 * <backend>) or KILN_FFT_ROWS_GROUP=100 (fft_bad_rows_group): a transform
 * of any length (a row kernel's or not) fails naming the variable and
 * makes no result; otherwise a no-op. */
static void test_bad_rows(kiln_context *ctx) {
  const char *rows = getenv("KILN_FFT_ROWS"), *group = getenv("KILN_FFT_ROWS_GROUP");
  const char *expect = rows && !strcmp(rows, "12")      ? "KILN_FFT_ROWS=12"
                       : group && !strcmp(group, "100") ? "KILN_FFT_ROWS_GROUP=100"
                                                        : NULL;
  if (!expect) return;
  const int64_t lengths[2] = {1024, 4096};
  for (int i = 0; i < 2; i++) {
    kiln_array *a = NULL, *r = NULL;
    REQUIRE_OK(kiln_array_zeros(ctx, KILN_COMPLEX64, 1, &lengths[i], &a));
    CHECK_STATUS(kiln_fft(ctx, kiln_operand_array(a), KILN_FFT_DEFAULT, 0, NULL,
                          kiln_operand_new(&r), NULL),
                 KILN_ERROR_INVALID_ARGUMENT);
    CHECK_ERROR_CONTAINS(expect);
    CHECK_MSG(r == NULL, "a failed transform made a result");
    kiln_array_release(r);
    kiln_array_release(a);
  }
}

/* Run alone under KILN_OPENCL_FFT=bogus KILN_FFT=vendor
 * (fft_bad_library.opencl): the library choice is refused naming the
 * variable and its values, in the description and by a transform (which
 * makes no result); otherwise a no-op. */
static void test_bad_library(kiln_context *ctx) {
  const char *v = getenv("KILN_OPENCL_FFT");
  if (!v || strcmp(v, "bogus") != 0 || !harness_backend_is(ctx, "opencl")) return;
  char text[512];
  CHECK_OK(kiln_fft_describe(ctx, text, sizeof text)); /* describes, naming the reason */
  CHECK_MSG(strstr(text, "none: KILN_FFT=vendor") && strstr(text, "KILN_OPENCL_FFT=bogus"),
            "describe: %s", text);
  int64_t n = 8;
  kiln_array *a = NULL, *r = (kiln_array *)1;
  REQUIRE_OK(kiln_array_zeros(ctx, KILN_COMPLEX64, 1, &n, &a));
  CHECK_STATUS(kiln_fft(ctx, kiln_operand_array(a), KILN_FFT_DEFAULT, 0, NULL, kiln_operand_new(&r), NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("expected auto, vkfft or clfft");
  CHECK(r == NULL);
  kiln_array_release(a);
}

static const harness_test tests[] = {{"against_dft", test_against_dft},
                                     {"bad_setting", test_bad_setting},
                                     {"bad_library", test_bad_library},
                                     {"bad_fused", test_bad_fused},
                                     {"bad_rows", test_bad_rows},
                                     {"rows", test_rows},
                                     {"vendor", test_vendor},
                                     {"round_trip_stream", test_round_trip_stream},
                                     {"host_operands", test_host_operands},
                                     {"bad_arguments", test_bad_arguments},
                                     {"plan", test_plan},
                                     {"cache_bound", test_cache_bound},
                                     {0}};

int main(int argc, char **argv) { return harness_main(argc, argv, tests); }
