/* Conformance: ufunc calls with host operands (pinned staging in chunks):
 * host in / host out at many chunk sizes so that chunks split every axis,
 * strided and reversed host memory on both sides, broadcast host inputs
 * (uploaded whole or staged without repeats), host and device operands
 * mixed, casts, several outputs, and bad host operands. Results are exact
 * (the bodies are sums and products of small integers in float64) or
 * compared with 1e-5 relative error in float32. */
#include "ufunc_testing.h"

/* x * 2 - y, exact for the small integers the tests use */
static kiln_ufunc *twice_minus(kiln_context *ctx) {
  static const char *const sigs[] = {"float64(float64 x, float64 y)",
                                     "float32(float32 x, float32 y)"};
  kiln_ufunc *u = NULL;
  kiln_status s = kiln_ufunc_create(ctx, "twice_minus", 2, sigs, "return x * 2 - y;", NULL, &u);
  if (s != KILN_OK) harness_fail(__FILE__, __LINE__, "create: %s", kiln_last_error());
  return u;
}

/* Random integers in [-50, 50) as doubles (exact in every float type). */
static double *random_values(int64_t n) {
  double *v = malloc((size_t)n * 8 + 8);
  harness_fill_random(v, KILN_FLOAT64, n, -50, 50);
  for (int64_t i = 0; i < n; i++) v[i] = floor(v[i]);
  return v;
}

static void test_contiguous_every_chunk_size(kiln_context *ctx) {
  kiln_ufunc *u = twice_minus(ctx);
  if (!u) return;
  static const int64_t sizes[] = {0, 1, 2, 7, 1009, 65537, 1000003};
  static const size_t chunks[] = {1, 24, 4096, 4 << 20};
  for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {
    CHECK_OK(kiln_ufunc_set_host_chunk_bytes(u, chunks[c]));
    for (size_t t = 0; t < sizeof sizes / sizeof sizes[0]; t++) {
      int64_t n = sizes[t];
      if (chunks[c] < 64 && n > 2000) continue; /* one element per chunk: slow */
      double *x = random_values(n), *y = random_values(n), *r = malloc((size_t)n * 8 + 8);
      for (int64_t i = 0; i < n; i++) r[i] = 12345;
      kiln_operand in[2] = {kiln_operand_host(x, KILN_FLOAT64, 1, &n, NULL),
                            kiln_operand_host(y, KILN_FLOAT64, 1, &n, NULL)};
      kiln_operand out[1] = {kiln_operand_host_output(r, KILN_FLOAT64, 1, &n, NULL)};
      CHECK_OK(kiln_ufunc_call(u, 2, in, 1, out, NULL));
      for (int64_t i = 0; i < n && harness_failures < 20; i++)
        CHECK_MSG(r[i] == x[i] * 2 - y[i], "chunk %zu n %lld i %lld: %g", chunks[c],
                  (long long)n, (long long)i, r[i]);
      free(x);
      free(y);
      free(r);
    }
  }
  kiln_ufunc_release(u);
}

/* Random N-d host operands with random broadcasting, host strides
 * (column picks, reversed axes) and chunk sizes, against the reference. */
static void test_random_layouts(kiln_context *ctx) {
  kiln_ufunc *u = twice_minus(ctx);
  if (!u) return;
  for (int iter = 0; iter < 60 && harness_failures < 20; iter++) {
    int ndim = 1 + (int)(harness_rand_u64() % 4);
    int64_t shape[KILN_MAX_DIMS], sx[KILN_MAX_DIMS], sy[KILN_MAX_DIMS];
    for (int d = 0; d < ndim; d++) {
      static const int64_t extents[] = {1, 2, 3, 5, 8, 13, 31};
      shape[d] = extents[harness_rand_u64() % 7];
      sx[d] = harness_rand_u64() % 3 == 0 ? 1 : shape[d];
      sy[d] = harness_rand_u64() % 3 == 0 ? 1 : shape[d];
    }
    int ndim_y = ndim - (int)(harness_rand_u64() % (uint64_t)ndim); /* fewer dims too */
    const int64_t *shape_y = sy + (ndim - ndim_y);
    /* each operand lives in a host buffer twice as wide in its last dim,
     * walked with a random sign per dim */
    mirror ops[3];
    const int ndims[3] = {ndim, ndim_y, ndim};
    const int64_t *shapes[3] = {sx, shape_y, shape};
    char *storage[3];
    for (int k = 0; k < 3; k++) {
      int64_t total = 2 * shape_size(ndims[k], shapes[k]);
      storage[k] = malloc((size_t)total * 8 + 8);
      double *vals = random_values(total);
      memcpy(storage[k], vals, (size_t)total * 8);
      free(vals);
      ops[k] = mirror_of_host(storage[k], KILN_FLOAT64, ndims[k], shapes[k]);
      /* widen: every stride doubles, elements at even positions */
      for (int d = 0; d < ndims[k]; d++) ops[k].strides[d] *= 2;
      for (int d = 0; d < ndims[k]; d++) {
        if (harness_rand_u64() & 1) continue;
        /* reverse dim d: start at its last element, step backwards */
        ops[k].data += (shapes[k][d] - 1) * ops[k].strides[d];
        ops[k].strides[d] = -ops[k].strides[d];
      }
    }
    int64_t n_out = 2 * shape_size(ndim, shape);
    char *before = malloc((size_t)n_out * 8 + 8);
    memcpy(before, storage[2], (size_t)n_out * 8);
    static const size_t chunks[] = {8, 40, 200, 1000, 1 << 20};
    size_t chunk = chunks[harness_rand_u64() % 5];
    CHECK_OK(kiln_ufunc_set_host_chunk_bytes(u, chunk));
    kiln_operand in[2] = {
        kiln_operand_host(ops[0].data, KILN_FLOAT64, ndim, sx, ops[0].strides),
        kiln_operand_host(ops[1].data, KILN_FLOAT64, ndim_y, shape_y, ops[1].strides)};
    kiln_operand out[1] = {
        kiln_operand_host_output(ops[2].data, KILN_FLOAT64, ndim, shape, ops[2].strides)};
    CHECK_OK(kiln_ufunc_call(u, 2, in, 1, out, NULL));
    int64_t idx[KILN_MAX_DIMS] = {0};
    char *touched = calloc((size_t)n_out, 1);
    do {
      double want = mirror_get(&ops[0], ndim, idx) * 2 - mirror_get(&ops[1], ndim, idx);
      CHECK_MSG(mirror_get(&ops[2], ndim, idx) == want, "iter %d chunk %zu: got %g want %g",
                iter, chunk, mirror_get(&ops[2], ndim, idx), want);
      touched[(ops[2].data - storage[2] + mirror_offset(&ops[2], ndim, idx)) / 8] = 1;
    } while (index_next(ndim, shape, idx) && harness_failures < 20);
    for (int64_t i = 0; i < n_out; i++)
      if (!touched[i])
        CHECK_MSG(memcmp(before + 8 * i, storage[2] + 8 * i, 8) == 0,
                  "iter %d: host element %lld outside the output changed", iter, (long long)i);
    free(touched);
    free(before);
    for (int k = 0; k < 3; k++) free(storage[k]);
  }
  kiln_ufunc_release(u);
}

/* (M, 1) and (1, N) host inputs: a small one uploaded whole, a large
 * broadcast one staged per chunk without its repeats. */
static void test_broadcast_host_inputs(kiln_context *ctx) {
  kiln_ufunc *u = twice_minus(ctx);
  if (!u) return;
  static const int64_t ms[] = {3, 1000};
  static const int64_t ns[] = {5, 20011};
  for (int a = 0; a < 2; a++)
    for (int b = 0; b < 2; b++) {
      int64_t m = ms[a], n = ns[b];
      int64_t col_shape[2] = {m, 1}, row_shape[2] = {1, n}, out_shape[2] = {m, n};
      double *col = random_values(m), *row = random_values(n);
      double *r = malloc((size_t)(m * n) * 8);
      CHECK_OK(kiln_ufunc_set_host_chunk_bytes(u, 4096));
      kiln_operand in[2] = {kiln_operand_host(col, KILN_FLOAT64, 2, col_shape, NULL),
                            kiln_operand_host(row, KILN_FLOAT64, 2, row_shape, NULL)};
      kiln_operand out[1] = {kiln_operand_host_output(r, KILN_FLOAT64, 2, out_shape, NULL)};
      CHECK_OK(kiln_ufunc_call(u, 2, in, 1, out, NULL));
      for (int64_t i = 0; i < m && harness_failures < 20; i++)
        for (int64_t j = 0; j < n; j++)
          if (r[i * n + j] != col[i] * 2 - row[j]) {
            harness_fail(__FILE__, __LINE__, "m %lld n %lld: [%lld, %lld] = %g, want %g",
                         (long long)m, (long long)n, (long long)i, (long long)j, r[i * n + j],
                         col[i] * 2 - row[j]);
            break;
          }
      free(col);
      free(row);
      free(r);
    }
  kiln_ufunc_release(u);
}

/* Device inputs, host inputs and outputs of both kinds in one call. */
static void test_mixed_host_and_device(kiln_context *ctx) {
  kiln_ufunc *u = twice_minus(ctx);
  if (!u) return;
  int64_t n = 50021;
  CHECK_OK(kiln_ufunc_set_host_chunk_bytes(u, 1 << 14));
  double *x = random_values(n), *y = random_values(n), *r = malloc((size_t)n * 8);
  kiln_array *dx = NULL, *dr = NULL, *dnew = NULL;
  REQUIRE_OK(kiln_array_from_host(ctx, KILN_FLOAT64, 1, &n, NULL, x, &dx));
  REQUIRE_OK(kiln_array_zeros(ctx, KILN_FLOAT64, 1, &n, &dr));
  /* device in + host in -> host out */
  kiln_operand in[2] = {kiln_operand_array(dx), kiln_operand_host(y, KILN_FLOAT64, 1, &n, NULL)};
  kiln_operand out[1] = {kiln_operand_host_output(r, KILN_FLOAT64, 1, &n, NULL)};
  CHECK_OK(kiln_ufunc_call(u, 2, in, 1, out, NULL));
  for (int64_t i = 0; i < n && harness_failures < 20; i++) CHECK(r[i] == x[i] * 2 - y[i]);
  /* host in + scalar -> device out (given) and -> new device array */
  kiln_operand in2[2] = {kiln_operand_host(x, KILN_FLOAT64, 1, &n, NULL), kiln_operand_int(7)};
  kiln_operand out2[1] = {kiln_operand_array(dr)};
  CHECK_OK(kiln_ufunc_call(u, 2, in2, 1, out2, NULL));
  CHECK_OK(kiln_array_to_host(dr, r, NULL));
  for (int64_t i = 0; i < n && harness_failures < 20; i++) CHECK(r[i] == x[i] * 2 - 7);
  out2[0] = kiln_operand_new(&dnew);
  CHECK_OK(kiln_ufunc_call(u, 2, in2, 1, out2, NULL));
  if (dnew) {
    CHECK(kiln_array_dtype(dnew) == KILN_FLOAT64 && kiln_array_size(dnew) == n);
    CHECK_OK(kiln_array_to_host(dnew, r, NULL));
    for (int64_t i = 0; i < n && harness_failures < 20; i++) CHECK(r[i] == x[i] * 2 - 7);
  }
  /* device in -> host out: the result of the last call, on a user stream */
  kiln_stream *stream = NULL;
  REQUIRE_OK(kiln_stream_create(ctx, &stream));
  kiln_operand in3[2] = {kiln_operand_array(dr), kiln_operand_array(dx)};
  kiln_operand out3[1] = {kiln_operand_array(dr)};
  CHECK_OK(kiln_ufunc_call(u, 2, in3, 1, out3, stream)); /* queued, device only */
  double *r2 = malloc((size_t)n * 8);
  kiln_operand out4[1] = {kiln_operand_host_output(r2, KILN_FLOAT64, 1, &n, NULL)};
  CHECK_OK(kiln_ufunc_call(u, 2, in3, 1, out4, stream)); /* waits for the stream first */
  for (int64_t i = 0; i < n && harness_failures < 20; i++) {
    double first = (x[i] * 2 - 7) * 2 - x[i];
    CHECK(r2[i] == first * 2 - x[i]);
  }
  kiln_stream_release(stream);
  free(r2);
  kiln_array_release(dx);
  kiln_array_release(dr);
  kiln_array_release(dnew);
  free(x);
  free(y);
  free(r);
  kiln_ufunc_release(u);
}

/* float32 points (N, 2) on the host: columns in, columns out, two outputs,
 * int16 input cast in the kernel, float32 results stored into float64. */
static void test_columns_casts_and_outputs(kiln_context *ctx) {
  static const char *const sigs[] = {"(float32 s, float32 d)(float32 a, float32 b)"};
  kiln_ufunc *u = NULL;
  REQUIRE_OK(kiln_ufunc_create(ctx, "sum_diff", 1, sigs, "s = a + b; d = a - b;", NULL, &u));
  CHECK_OK(kiln_ufunc_set_host_chunk_bytes(u, 1000));
  int64_t n = 7919;
  float *points = malloc((size_t)n * 8);
  harness_fill_random(points, KILN_FLOAT32, 2 * n, -10, 10);
  int16_t *w = malloc((size_t)n * 2);
  harness_fill_random(w, KILN_INT16, n, -1000, 1000);
  double *result = malloc((size_t)n * 3 * 8);
  for (int64_t i = 0; i < 3 * n; i++) result[i] = -1;
  int64_t point_stride[1] = {8}, result_stride[1] = {24}, reversed[1] = {-2};
  kiln_operand in[2] = {kiln_operand_host(points + 1, KILN_FLOAT32, 1, &n, point_stride),
                        kiln_operand_host(w + n - 1, KILN_INT16, 1, &n, reversed)};
  kiln_operand out[2] = {
      kiln_operand_host_output(result, KILN_FLOAT64, 1, &n, result_stride),
      kiln_operand_host_output(result + 2, KILN_FLOAT64, 1, &n, result_stride)};
  CHECK_OK(kiln_ufunc_call(u, 2, in, 2, out, NULL));
  for (int64_t i = 0; i < n && harness_failures < 20; i++) {
    float a = points[2 * i + 1], b = (float)w[n - 1 - i];
    CHECK(result[3 * i] == (double)(float)(a + b));
    CHECK(result[3 * i + 2] == (double)(float)(a - b));
    CHECK(result[3 * i + 1] == -1);
  }
  free(points);
  free(w);
  free(result);
  kiln_ufunc_release(u);
}

/* Boxes of megabytes are packed and unpacked by several threads: large
 * strided and reversed host columns, 2-d boxes cut by rows. */
static void test_large_boxes(kiln_context *ctx) {
  kiln_ufunc *u = twice_minus(ctx);
  if (!u) return;
  int64_t n = 400009;
  double *points = random_values(2 * n), *r = malloc((size_t)n * 3 * 8);
  for (int64_t i = 0; i < 3 * n; i++) r[i] = -1;
  int64_t column[1] = {16}, reversed[1] = {-16}, out_stride[1] = {24};
  kiln_operand in[2] = {kiln_operand_host(points, KILN_FLOAT64, 1, &n, column),
                        kiln_operand_host(points + 2 * n - 1, KILN_FLOAT64, 1, &n, reversed)};
  kiln_operand out[1] = {kiln_operand_host_output(r + 1, KILN_FLOAT64, 1, &n, out_stride)};
  CHECK_OK(kiln_ufunc_call(u, 2, in, 1, out, NULL));
  int failures = 0;
  for (int64_t i = 0; i < n && failures < 10; i++) {
    double want = points[2 * i] * 2 - points[2 * (n - 1 - i) + 1];
    if (r[3 * i + 1] != want || r[3 * i] != -1 || r[3 * i + 2] != -1) failures++;
  }
  CHECK_MSG(failures == 0, "%d wrong elements", failures);
  /* (rows, 1000) in C order and its transpose out */
  int64_t shape[2] = {701, 1000}, t_strides[2] = {8, 701 * 8};
  double *a = random_values(701 * 1000), *t = malloc(701 * 1000 * 8);
  kiln_operand in2[2] = {kiln_operand_host(a, KILN_FLOAT64, 2, shape, NULL),
                         kiln_operand_float(0.5)};
  kiln_operand out2[1] = {kiln_operand_host_output(t, KILN_FLOAT64, 2, shape, t_strides)};
  CHECK_OK(kiln_ufunc_call(u, 2, in2, 1, out2, NULL));
  failures = 0;
  for (int64_t i = 0; i < 701 && failures < 10; i++)
    for (int64_t j = 0; j < 1000; j++) failures += t[j * 701 + i] != a[i * 1000 + j] * 2 - 0.5;
  CHECK_MSG(failures == 0, "%d wrong elements in the transposed output", failures);
  free(points);
  free(r);
  free(a);
  free(t);
  kiln_ufunc_release(u);
}

static void test_zero_dim_and_empty(kiln_context *ctx) {
  kiln_ufunc *u = twice_minus(ctx);
  if (!u) return;
  double x = 4, y = 3, r = 0;
  kiln_operand in[2] = {kiln_operand_host(&x, KILN_FLOAT64, 0, NULL, NULL),
                        kiln_operand_host(&y, KILN_FLOAT64, 0, NULL, NULL)};
  kiln_operand out[1] = {kiln_operand_host_output(&r, KILN_FLOAT64, 0, NULL, NULL)};
  CHECK_OK(kiln_ufunc_call(u, 2, in, 1, out, NULL));
  CHECK(r == 5);
  /* empty: NULL data is fine, nothing is touched */
  int64_t zero[2] = {0, 3};
  in[0] = kiln_operand_host(NULL, KILN_FLOAT64, 2, zero, NULL);
  in[1] = kiln_operand_float(1);
  out[0] = kiln_operand_host_output(NULL, KILN_FLOAT64, 2, zero, NULL);
  CHECK_OK(kiln_ufunc_call(u, 2, in, 1, out, NULL));
  kiln_array *empty = NULL;
  out[0] = kiln_operand_new(&empty);
  CHECK_OK(kiln_ufunc_call(u, 2, in, 1, out, NULL));
  CHECK(empty && kiln_array_size(empty) == 0 && kiln_array_ndim(empty) == 2);
  kiln_array_release(empty);
  kiln_ufunc_release(u);
}

static void test_staging_reuse(kiln_context *ctx) {
  kiln_ufunc *u = twice_minus(ctx);
  if (!u) return;
  int64_t n = 30011;
  float *x = malloc((size_t)n * 4), *r = malloc((size_t)n * 4);
  harness_fill_random(x, KILN_FLOAT32, n, -100, 100);
  for (int round = 0; round < 6; round++) {
    /* the chunk size changes every other call: staging kept or rebuilt */
    CHECK_OK(kiln_ufunc_set_host_chunk_bytes(u, (size_t)(1000 << (round / 2))));
    kiln_operand in[2] = {kiln_operand_host(x, KILN_FLOAT32, 1, &n, NULL),
                          kiln_operand_float(round)};
    kiln_operand out[1] = {kiln_operand_host_output(r, KILN_FLOAT32, 1, &n, NULL)};
    CHECK_OK(kiln_ufunc_call(u, 2, in, 1, out, NULL));
    for (int64_t i = 0; i < n && harness_failures < 20; i++)
      CHECK(r[i] == x[i] * 2 - (float)round);
  }
  free(x);
  free(r);
  kiln_ufunc_release(u);
}

static void test_bad_host_operands(kiln_context *ctx) {
  kiln_ufunc *u = twice_minus(ctx);
  if (!u) return;
  int64_t n = 4, negative = -1;
  double x[4] = {1, 2, 3, 4}, r[4];
  kiln_operand in[2] = {kiln_operand_host(x, KILN_FLOAT64, 1, &n, NULL), kiln_operand_float(1)};
  /* a read-only host operand as output */
  kiln_operand out[1] = {kiln_operand_host(r, KILN_FLOAT64, 1, &n, NULL)};
  CHECK_STATUS(kiln_ufunc_call(u, 2, in, 1, out, NULL), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("read-only host memory");
  out[0] = kiln_operand_host_output(r, KILN_FLOAT64, 1, &n, NULL);
  in[0] = kiln_operand_host(NULL, KILN_FLOAT64, 1, &n, NULL);
  CHECK_STATUS(kiln_ufunc_call(u, 2, in, 1, out, NULL), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("host memory at NULL");
  in[0] = kiln_operand_host(x, KILN_FLOAT64, 1, &negative, NULL);
  CHECK_STATUS(kiln_ufunc_call(u, 2, in, 1, out, NULL), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("negative");
  in[0] = kiln_operand_host(x, KILN_FLOAT64, KILN_MAX_DIMS + 1, &n, NULL);
  CHECK_STATUS(kiln_ufunc_call(u, 2, in, 1, out, NULL), KILN_ERROR_INVALID_ARGUMENT);
  in[0] = kiln_operand_host(x, KILN_FLOAT64, 2, NULL, NULL);
  CHECK_STATUS(kiln_ufunc_call(u, 2, in, 1, out, NULL), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("NULL shape");
  in[0] = kiln_operand_host(x, KILN_DTYPE_COUNT, 1, &n, NULL);
  CHECK_STATUS(kiln_ufunc_call(u, 2, in, 1, out, NULL), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("unknown dtype");
  /* a host output with a zero stride would be written many times */
  int64_t zero_stride[1] = {0};
  in[0] = kiln_operand_host(x, KILN_FLOAT64, 1, &n, NULL);
  out[0] = kiln_operand_host_output(r, KILN_FLOAT64, 1, &n, zero_stride);
  CHECK_STATUS(kiln_ufunc_call(u, 2, in, 1, out, NULL), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("broadcast view");
  /* shape mismatch between host operands */
  int64_t three = 3;
  in[1] = kiln_operand_host(x, KILN_FLOAT64, 1, &three, NULL);
  out[0] = kiln_operand_host_output(r, KILN_FLOAT64, 1, &n, NULL);
  CHECK_STATUS(kiln_ufunc_call(u, 2, in, 1, out, NULL), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("could not be broadcast");
  kiln_ufunc_release(u);
}

static const harness_test tests[] = {
    {"contiguous_every_chunk_size", test_contiguous_every_chunk_size},
    {"random_layouts", test_random_layouts},
    {"broadcast_host_inputs", test_broadcast_host_inputs},
    {"mixed_host_and_device", test_mixed_host_and_device},
    {"columns_casts_and_outputs", test_columns_casts_and_outputs},
    {"large_boxes", test_large_boxes},
    {"zero_dim_and_empty", test_zero_dim_and_empty},
    {"staging_reuse", test_staging_reuse},
    {"bad_host_operands", test_bad_host_operands},
    {0},
};

int main(int argc, char **argv) { return harness_main(argc, argv, tests); }
