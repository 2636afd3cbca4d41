/* Conformance: the single-pass scan of one line (core/codegen/scan_line.h,
 * docs/scan.md). Both paths (decoupled look-back, reduce-then-scan) are
 * forced through the internal switch and must give the same bits, which
 * must be those of kiln's order emulated on the host (float32, float64,
 * integers wrapping), at sizes 1, primes, a tile + 1 and many tiles, on
 * 1-D views with steps 2 and -1; every dtype the scan takes against a
 * host reference; compaction and nonzero/argwhere (1-D to 3-D, transposed
 * views, complex) on both paths; the internal prefix sum
 * (kiln_scan_add_line); KILN_SCAN, kiln_scan_describe and bad input;
 * the decoupled fallback forced (tiles in reverse, so that it runs). */
#include "core/codegen/scan_line.h"
#include "core/runtime/device_order.h"
#include "core/sort/sort_internal.h"
#include "harness.h"

static const kiln_scan_path paths[2] = {KILN_SCAN_PATH_LOOKBACK, KILN_SCAN_PATH_REDUCE_THEN_SCAN};
/* tiles of 4096 (8-byte accumulators) and 8192 (4-byte ones) */
static const int64_t sizes[] = {1, 2, 17, 4093, KILN_SCAN_TILE + 1, KILN_SCAN_WIDE_TILE + 1,
                                3 * KILN_SCAN_WIDE_TILE + 17, 100003};
#define NSIZES (sizeof sizes / sizeof sizes[0])

/* kiln's order on the host for one line (docs/scan.md): tiles of 256 lanes
 * of ITEMS elements (32 for 4-byte accumulators, else 16), the lanes
 * folded left, Kogge-Stone over the lane totals, the tile prefixes folded
 * left. x is read at x[k * step]. */
#define DEFINE_LINE_SCAN(name, T, OP, ACC)                                                    \
  static void name(const T *x, int64_t step, int64_t n, T *out) {                         \
    const int ITEMS = kiln_scan_items(ACC);                                               \
    T prefix = 0, lanes[2][KILN_SCAN_LANES];                                              \
    const int64_t tile = (int64_t)KILN_SCAN_LANES * ITEMS;                                \
    for (int64_t k0 = 0; k0 < n; k0 += tile) {                                            \
      int len = n - k0 < tile ? (int)(n - k0) : (int)tile;                                \
      int nl = (len + ITEMS - 1) / ITEMS, src = 0;                                        \
      for (int l = 0; l < nl; l++) {                                                      \
        T s = x[(k0 + l * ITEMS) * step];                                                 \
        for (int i = 1; i < ITEMS && l * ITEMS + i < len; i++)                            \
          s = OP(s, x[(k0 + l * ITEMS + i) * step]);                                      \
        lanes[0][l] = s;                                                                  \
      }                                                                                   \
      for (int d = 1; d < nl; d *= 2, src ^= 1)                                           \
        for (int l = 0; l < nl; l++)                                                      \
          lanes[src ^ 1][l] = l >= d ? OP(lanes[src][l - d], lanes[src][l]) : lanes[src][l];  \
      for (int l = 0; l < nl; l++) {                                                      \
        int has = k0 > 0;                                                                 \
        T base = prefix, run = 0;                                                         \
        if (l > 0) {                                                                      \
          base = has ? OP(base, lanes[src][l - 1]) : lanes[src][l - 1];                   \
          has = 1;                                                                        \
        }                                                                                 \
        for (int i = 0; i < ITEMS && l * ITEMS + i < len; i++) {                          \
          int64_t k = k0 + l * ITEMS + i;                                                 \
          run = i ? OP(run, x[k * step]) : x[k * step];                                   \
          out[k] = has ? OP(base, run) : run;                                             \
        }                                                                                 \
      }                                                                                   \
      prefix = k0 > 0 ? OP(prefix, lanes[src][nl - 1]) : lanes[src][nl - 1];              \
    }                                                                                     \
  }

#define ADD(a, b) ((a) + (b))
#define MUL(a, b) ((a) * (b))
#define MAX(a, b) ((a) > (b) || (a) != (a) ? (a) : (b))
DEFINE_LINE_SCAN(line_sum_f32, float, ADD, KILN_FLOAT32)
DEFINE_LINE_SCAN(line_prod_f64, double, MUL, KILN_FLOAT64)
DEFINE_LINE_SCAN(line_max_f32, float, MAX, KILN_FLOAT32)

/* One scan of a host line into host memory on the forced path. */
static kiln_status scan_host(kiln_context *ctx, const char *ufunc, const void *x, kiln_dtype in,
                             int64_t n, void *out, kiln_dtype dtype, int exclusive,
                             kiln_scan_path path) {
  kiln_ufunc *u = NULL;
  kiln_status s = kiln_ufunc_builtin(ctx, ufunc, &u);
  kiln_scan_options opt = {.flatten = 1, .exclusive = exclusive};
  kiln_scan_force_path(path);
  if (s == KILN_OK)
    s = kiln_ufunc_scan(u, kiln_operand_host(x, in, 1, &n, NULL),
                        kiln_operand_host_output(out, dtype, 1, &n, NULL), &opt, NULL);
  kiln_scan_force_path(KILN_SCAN_PATH_AUTO);
  kiln_ufunc_release(u);
  return s;
}

static int64_t differing(const void *a, const void *b, int64_t n, size_t item) {
  int64_t bad = 0;
  for (int64_t i = 0; i < n; i++)
    bad += memcmp((const char *)a + i * item, (const char *)b + i * item, item) != 0;
  return bad;
}

/* The inclusive scan of x (n of dtype) with ufunc on both paths into
 * got[0], got[1]: the bits of want (kiln's order on the host). */
static void both_paths(kiln_context *ctx, const char *ufunc, const void *x, kiln_dtype dtype,
                       int64_t n, const void *want, void **got) {
  size_t item = kiln_dtype_size(dtype);
  for (int p = 0; p < 2; p++) {
    CHECK_OK(scan_host(ctx, ufunc, x, dtype, n, got[p], dtype, 0, paths[p]));
    int64_t bad = differing(got[p], want, n, item);
    CHECK_MSG(bad == 0, "%s scan of %lld %s on %s: %lld elements differ from kiln's order",
              ufunc, (long long)n, kiln_dtype_name(dtype), kiln_scan_path_name(paths[p]),
              (long long)bad);
  }
}

/* Both paths, bits against each other and the host emulation. */
static void test_paths_bits(kiln_context *ctx) {
  for (size_t t = 0; t < NSIZES; t++) {
    int64_t n = sizes[t];
    float *x = malloc((size_t)n * 4), *want = malloc((size_t)n * 4), *got[2];
    double *xd = malloc((size_t)n * 8), *wantd = malloc((size_t)n * 8), *gotd[2];
    harness_fill_random(x, KILN_FLOAT32, n, -1, 1);
    harness_fill_random(xd, KILN_FLOAT64, n, 0.9999, 1.0001);
    for (int p = 0; p < 2; p++) {
      got[p] = malloc((size_t)n * 4);
      gotd[p] = malloc((size_t)n * 8);
    }
    /* float32 cumsum; maximum.accumulate with a NaN in the middle; float64
     * cumprod */
    line_sum_f32(x, 1, n, want);
    both_paths(ctx, "add", x, KILN_FLOAT32, n, want, (void **)got);
    if (n > 5) x[n / 2] = NAN;
    line_max_f32(x, 1, n, want);
    both_paths(ctx, "maximum", x, KILN_FLOAT32, n, want, (void **)got);
    line_prod_f64(xd, 1, n, wantd);
    both_paths(ctx, "multiply", xd, KILN_FLOAT64, n, wantd, (void **)gotd);
    /* int32 exclusive cumsum in int64 (wrapping checked by int8 below) */
    int32_t *xi = malloc((size_t)n * 4);
    int64_t *gi = malloc((size_t)n * 8), *gi2 = malloc((size_t)n * 8);
    harness_fill_random(xi, KILN_INT32, n, -1000000, 1000000);
    CHECK_OK(scan_host(ctx, "add", xi, KILN_INT32, n, gi, KILN_INT64, 1, paths[0]));
    CHECK_OK(scan_host(ctx, "add", xi, KILN_INT32, n, gi2, KILN_INT64, 1, paths[1]));
    int64_t s = 0;
    for (int64_t i = 0; i < n && harness_failures < 10; i++) {
      CHECK_MSG(gi[i] == s && gi2[i] == s, "n %lld: exclusive cumsum[%lld] = %lld / %lld, "
                "expected %lld", (long long)n, (long long)i, (long long)gi[i], (long long)gi2[i],
                (long long)s);
      s += xi[i];
    }
    /* int8 cumsum into int8 output: the int64 accumulator cast (wraps) */
    int8_t *x8 = malloc((size_t)n), *g8[2] = {malloc((size_t)n), malloc((size_t)n)};
    harness_fill_random(x8, KILN_INT8, n, -128, 127);
    for (int p = 0; p < 2; p++)
      CHECK_OK(scan_host(ctx, "add", x8, KILN_INT8, n, g8[p], KILN_INT8, 0, paths[p]));
    s = 0;
    for (int64_t i = 0; i < n && harness_failures < 10; i++) {
      s += x8[i];
      CHECK_MSG(g8[0][i] == (int8_t)s && g8[1][i] == (int8_t)s, "int8 cumsum[%lld]",
                (long long)i);
    }
    free(x8);
    free(g8[0]);
    free(g8[1]);
    free(xi);
    free(gi);
    free(gi2);
    for (int p = 0; p < 2; p++) {
      free(got[p]);
      free(gotd[p]);
    }
    free(x);
    free(want);
    free(xd);
    free(wantd);
  }
}

/* 1-D device views with steps 2 and -1, into a strided output. */
static void test_strided_views(kiln_context *ctx) {
  int64_t n = 2 * KILN_SCAN_WIDE_TILE + 333, base_n = 2 * n;
  float *x = malloc((size_t)base_n * 4), *want = malloc((size_t)n * 4);
  float *got = malloc((size_t)base_n * 4);
  harness_fill_random(x, KILN_FLOAT32, base_n, -1, 1);
  kiln_array *base = NULL, *out = NULL;
  REQUIRE_OK(kiln_array_from_host(ctx, KILN_FLOAT32, 1, &base_n, NULL, x, &base));
  REQUIRE_OK(kiln_array_zeros(ctx, KILN_FLOAT32, 1, &base_n, &out));
  kiln_ufunc *add = NULL;
  REQUIRE_OK(kiln_ufunc_builtin(ctx, "add", &add));
  const kiln_slice steps[2] = {{1, KILN_NONE, 2}, {n - 1, KILN_NONE, -1}};
  for (int v = 0; v < 2; v++)
    for (int p = 0; p < 2; p++) {
      kiln_array *in = NULL, *o = NULL;
      CHECK_OK(kiln_array_slice(base, 1, &steps[v], &in));
      kiln_slice every_other = {0, KILN_NONE, 2};
      CHECK_OK(kiln_array_slice(out, 1, &every_other, &o));
      if (!in || !o) continue;
      kiln_scan_force_path(paths[p]);
      CHECK_OK(kiln_ufunc_scan(add, kiln_operand_array(in), kiln_operand_array(o), NULL, NULL));
      kiln_scan_force_path(KILN_SCAN_PATH_AUTO);
      CHECK_OK(kiln_array_to_host(out, got, NULL));
      line_sum_f32(v == 0 ? x + 1 : x + n - 1, v == 0 ? 2 : -1, n, want);
      int64_t bad = 0;
      for (int64_t i = 0; i < n; i++) bad += memcmp(&got[2 * i], &want[i], 4) != 0;
      CHECK_MSG(bad == 0, "step %d %s: %lld elements differ", v ? -1 : 2,
                kiln_scan_path_name(paths[p]), (long long)bad);
      kiln_array_release(in);
      kiln_array_release(o);
    }
  kiln_ufunc_release(add);
  kiln_array_release(base);
  kiln_array_release(out);
  free(x);
  free(want);
  free(got);
}

/* A part of element i of a host buffer as double (complex: part 0 real,
 * 1 imaginary). */
static double part_of(const void *data, kiln_dtype d, int64_t i, int part) {
  if (d == KILN_COMPLEX64) return harness_get(data, KILN_FLOAT32, 2 * i + part);
  if (d == KILN_COMPLEX128) return harness_get(data, KILN_FLOAT64, 2 * i + part);
  return harness_get(data, d, i);
}

/* Every input dtype through add (cumsum) on the look-back (the other path
 * gives the same bits: paths_bits; complex takes reduce-then-scan), against
 * a host reference in double (exact for the integers here). */
static void test_every_dtype(kiln_context *ctx) {
  static const kiln_dtype dtypes[] = {KILN_BOOL,   KILN_INT8,    KILN_UINT8,     KILN_INT16,
                                      KILN_UINT16, KILN_INT32,   KILN_UINT32,    KILN_INT64,
                                      KILN_UINT64, KILN_FLOAT16, KILN_FLOAT32,   KILN_FLOAT64,
                                      KILN_COMPLEX64, KILN_COMPLEX128};
  int64_t n = KILN_SCAN_WIDE_TILE + 5;
  kiln_ufunc *add = NULL;
  kiln_device_info info;
  REQUIRE_OK(kiln_context_device_info(ctx, &info));
  REQUIRE_OK(kiln_ufunc_builtin(ctx, "add", &add));
  for (size_t t = 0; t < sizeof dtypes / sizeof *dtypes; t++) {
    kiln_dtype d = dtypes[t];
    if (!info.has_double && (d == KILN_FLOAT64 || d == KILN_COMPLEX128)) continue;
    size_t item = kiln_dtype_size(d);
    void *x = malloc((size_t)n * item);
    harness_fill_random(x, d, n, 0, 4);
    kiln_array *r = NULL;
    kiln_scan_force_path(KILN_SCAN_PATH_LOOKBACK);
    CHECK_OK(kiln_ufunc_scan(add, kiln_operand_host(x, d, 1, &n, NULL), kiln_operand_new(&r), NULL,
                             NULL));
    kiln_scan_force_path(KILN_SCAN_PATH_AUTO);
    if (r) {
      kiln_dtype rd = kiln_array_dtype(r);
      void *got = malloc((size_t)n * kiln_dtype_size(rd));
      CHECK_OK(kiln_array_to_host(r, got, NULL));
      int parts = kiln_dtype_is_complex(d) ? 2 : 1;
      double tol = rd == KILN_FLOAT16 ? 2e-3 : rd == KILN_FLOAT32 || rd == KILN_COMPLEX64 ? 1e-5
                                                                                        : 1e-12;
      for (int part = 0; part < parts; part++) {
        double s = 0;
        for (int64_t i = 0; i < n && harness_failures < 10; i++) {
          s += part_of(x, d, i, part);
          double g = part_of(got, rd, i, part);
          CHECK_MSG(fabs(g - s) <= tol * fabs(s) + (rd == KILN_FLOAT16 ? 0.5 : 0),
                    "%s cumsum[%lld] part %d = %.17g, expected %.17g", kiln_dtype_name(d),
                    (long long)i, part, g, s);
        }
      }
      free(got);
    }
    kiln_array_release(r);
    free(x);
  }
  kiln_ufunc_release(add);
}

/* Compaction at tile edges on both paths, with int32 counts (tiles of
 * 8192, packed status words) and forced int64 ones (tiles of 4096, flags:
 * lines of 2^31 elements or more). */
static void test_compact_paths(kiln_context *ctx) {
  for (size_t t = 0; t < 2 * NSIZES; t++) {
    kiln_scan_force_wide_counts(t >= NSIZES);
    int64_t n = sizes[t % NSIZES];
    float *x = malloc((size_t)n * 4), *got = malloc((size_t)n * 4 + 4);
    harness_fill_random(x, KILN_FLOAT32, n, -1, 1);
    int64_t want = 0;
    for (int64_t i = 0; i < n; i++) want += x[i] > 0;
    uint8_t *mask = malloc((size_t)n + 1);
    for (int64_t i = 0; i < n; i++) mask[i] = x[i] > 0;
    for (int p = 0; p < 2; p++) {
      int64_t count = -1, room = n;
      kiln_scan_force_path(paths[p]);
      CHECK_OK(kiln_compact(ctx, kiln_operand_host(x, KILN_FLOAT32, 1, &n, NULL),
                            kiln_operand_host(mask, KILN_BOOL, 1, &n, NULL),
                            kiln_operand_host_output(got, KILN_FLOAT32, 1, &room, NULL), &count,
                            NULL));
      kiln_scan_force_path(KILN_SCAN_PATH_AUTO);
      CHECK_MSG(count == want, "n %lld %s (%s counts): count %lld, expected %lld", (long long)n,
                kiln_scan_path_name(paths[p]), t >= NSIZES ? "int64" : "int32", (long long)count,
                (long long)want);
      int64_t k = 0, bad = 0;
      for (int64_t i = 0; i < n && k < count; i++)
        if (x[i] > 0) bad += memcmp(&got[k++], &x[i], 4) != 0;
      CHECK_MSG(bad == 0, "n %lld %s: %lld compacted elements differ", (long long)n,
                kiln_scan_path_name(paths[p]), (long long)bad);
    }
    free(x);
    free(got);
    free(mask);
  }
  kiln_scan_force_wide_counts(0);
}

/* nonzero's indices of a C-order host array h (shape) against the device's. */
static void check_nonzero(kiln_context *ctx, const char *what, kiln_operand in, int ndim,
                          const int64_t *shape, const uint8_t *nz) {
  int64_t n = 1, want = 0;
  for (int d = 0; d < ndim; d++) n *= shape[d];
  for (int64_t i = 0; i < n; i++) want += nz[i];
  for (int p = 0; p < 2; p++) {
    kiln_array *idx[KILN_MAX_DIMS] = {NULL}, *rows = NULL;
    int64_t count = -1, count2 = -1;
    kiln_scan_force_path(paths[p]);
    CHECK_OK(kiln_nonzero(ctx, in, idx, &count, NULL));
    CHECK_OK(kiln_argwhere(ctx, in, &rows, &count2, NULL));
    kiln_scan_force_path(KILN_SCAN_PATH_AUTO);
    CHECK_MSG(count == want && count2 == want, "%s %s: count %lld / %lld, expected %lld", what,
              kiln_scan_path_name(paths[p]), (long long)count, (long long)count2,
              (long long)want);
    if (count != want || !rows) {
      for (int d = 0; d < ndim; d++) kiln_array_release(idx[d]);
      kiln_array_release(rows);
      continue;
    }
    CHECK(kiln_array_ndim(rows) == 2 && kiln_array_shape(rows)[1] == ndim);
    int64_t *got = malloc((size_t)(count * ndim) * 8 + 8), *col = malloc((size_t)count * 8 + 8);
    CHECK_OK(kiln_array_to_host(rows, got, NULL));
    for (int d = 0; d < ndim; d++) {
      CHECK(idx[d] && kiln_array_dtype(idx[d]) == KILN_INT64 && kiln_array_ndim(idx[d]) == 1 &&
            kiln_array_shape(idx[d])[0] == count);
      CHECK_OK(kiln_array_to_host(idx[d], col, NULL));
      for (int64_t k = 0; k < count; k++)
        if (col[k] != got[k * ndim + d]) {
          CHECK_MSG(0, "%s: nonzero[%d][%lld] %lld, argwhere %lld", what, d, (long long)k,
                    (long long)col[k], (long long)got[k * ndim + d]);
          break;
        }
      kiln_array_release(idx[d]);
    }
    int64_t k = 0;
    for (int64_t i = 0; i < n && harness_failures < 10; i++) {
      if (!nz[i]) continue;
      int64_t r = i;
      for (int d = ndim - 1; d >= 0; d--) {
        CHECK_MSG(got[k * ndim + d] == r % shape[d], "%s %s: row %lld dim %d = %lld, expected "
                  "%lld", what, kiln_scan_path_name(paths[p]), (long long)k, d,
                  (long long)got[k * ndim + d], (long long)(r % shape[d]));
        r /= shape[d];
      }
      k++;
    }
    free(got);
    free(col);
    kiln_array_release(rows);
  }
}

static void test_nonzero(kiln_context *ctx) {
  /* 1-D float32 at the sizes; about half nonzero */
  for (size_t t = 0; t < NSIZES; t += 2) {
    int64_t n = sizes[t];
    float *x = malloc((size_t)n * 4);
    uint8_t *nz = malloc((size_t)n);
    harness_fill_random(x, KILN_FLOAT32, n, -1, 1);
    for (int64_t i = 0; i < n; i++) {
      if (x[i] < 0) x[i] = 0;
      nz[i] = x[i] != 0;
    }
    char what[64];
    snprintf(what, sizeof what, "1-D float32 n %lld", (long long)n);
    check_nonzero(ctx, what, kiln_operand_host(x, KILN_FLOAT32, 1, &n, NULL), 1, &n, nz);
    free(x);
    free(nz);
  }
  /* 3-D int16 transposed device view: C order of the view */
  int64_t shape[3] = {23, 41, 9}, n = 23 * 41 * 9, bshape[3] = {9, 41, 23};
  int16_t *b = malloc((size_t)n * 2), *h = malloc((size_t)n * 2);
  uint8_t *nz = malloc((size_t)n);
  harness_fill_random(b, KILN_INT16, n, -3, 3);
  kiln_array *base = NULL, *view = NULL;
  REQUIRE_OK(kiln_array_from_host(ctx, KILN_INT16, 3, bshape, NULL, b, &base));
  REQUIRE_OK(kiln_array_transpose(base, NULL, &view));
  for (int64_t i = 0; i < shape[0]; i++)
    for (int64_t j = 0; j < shape[1]; j++)
      for (int64_t k = 0; k < shape[2]; k++) {
        int64_t c = (i * shape[1] + j) * shape[2] + k;
        h[c] = b[(k * bshape[1] + j) * bshape[2] + i];
        nz[c] = h[c] != 0;
      }
  check_nonzero(ctx, "3-D int16 transposed", kiln_operand_array(view), 3, shape, nz);
  kiln_scan_force_wide_counts(1); /* int64 counts, as past 2^31 elements */
  check_nonzero(ctx, "3-D int16 transposed, int64 counts", kiln_operand_array(view), 3, shape, nz);
  kiln_scan_force_wide_counts(0);
  /* 2-D complex64: nonzero when either part is */
  int64_t cshape[2] = {67, 71}, cn = 67 * 71;
  float *c = malloc((size_t)cn * 8);
  uint8_t *cnz = malloc((size_t)cn);
  harness_fill_random(c, KILN_FLOAT32, 2 * cn, -1, 1);
  for (int64_t i = 0; i < cn; i++) {
    if (i % 3 == 0) c[2 * i] = 0;
    if (i % 2 == 0) c[2 * i + 1] = 0;
    cnz[i] = c[2 * i] != 0 || c[2 * i + 1] != 0;
  }
  check_nonzero(ctx, "2-D complex64", kiln_operand_host(c, KILN_COMPLEX64, 2, cshape, NULL), 2,
                cshape, cnz);
  /* all zero and empty */
  int64_t zn = 5000;
  uint8_t *z = calloc((size_t)zn, 1);
  check_nonzero(ctx, "zeros", kiln_operand_host(z, KILN_BOOL, 1, &zn, NULL), 1, &zn, z);
  int64_t en = 0;
  check_nonzero(ctx, "empty", kiln_operand_host(z, KILN_BOOL, 1, &en, NULL), 1, &en, z);
  free(z);
  kiln_array_release(view);
  kiln_array_release(base);
  free(b);
  free(h);
  free(nz);
  free(c);
  free(cnz);
}

/* The prefix sum other core code calls (kiln_scan_add_line). */
static void test_add_line(kiln_context *ctx) {
  int64_t n = 3 * KILN_SCAN_WIDE_TILE + 1;
  int32_t *x = malloc((size_t)n * 4);
  int64_t *got = malloc((size_t)n * 8);
  harness_fill_random(x, KILN_INT32, n, 0, 1000);
  kiln_array *in = NULL, *out = NULL, *bad = NULL;
  REQUIRE_OK(kiln_array_from_host(ctx, KILN_INT32, 1, &n, NULL, x, &in));
  REQUIRE_OK(kiln_array_empty(ctx, KILN_INT64, 1, &n, &out));
  for (int p = 0; p < 2; p++)
    for (int exclusive = 0; exclusive < 2; exclusive++) {
      kiln_scan_force_path(paths[p]);
      CHECK_OK(kiln_scan_add_line(ctx, NULL, in, out, exclusive));
      kiln_scan_force_path(KILN_SCAN_PATH_AUTO);
      CHECK_OK(kiln_array_to_host(out, got, NULL));
      int64_t s = 0, wrong = 0;
      for (int64_t i = 0; i < n; i++) {
        if (!exclusive) s += x[i];
        wrong += got[i] != s;
        if (exclusive) s += x[i];
      }
      CHECK_MSG(wrong == 0, "add_line %s exclusive %d: %lld wrong", kiln_scan_path_name(paths[p]),
                exclusive, (long long)wrong);
    }
  int64_t short_n = n - 1;
  REQUIRE_OK(kiln_array_empty(ctx, KILN_INT64, 1, &short_n, &bad));
  CHECK_STATUS(kiln_scan_add_line(ctx, NULL, in, bad, 0), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("1-D of one length");
  kiln_array_release(bad);
  kiln_array_release(in);
  kiln_array_release(out);
  free(x);
  free(got);
}

static void test_bad_input(kiln_context *ctx) {
  float x[3] = {1, 0, 2}, y[3];
  int64_t n = 3, count = 7;
  kiln_array *idx[KILN_MAX_DIMS] = {NULL}, *rows = NULL;
  setenv("KILN_SCAN", "sideways", 1);
  CHECK_STATUS(scan_host(ctx, "add", x, KILN_FLOAT32, n, y, KILN_FLOAT32, 0, KILN_SCAN_PATH_AUTO),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("KILN_SCAN='sideways'");
  setenv("KILN_SCAN", "reduce-then-scan", 1);
  CHECK_OK(scan_host(ctx, "add", x, KILN_FLOAT32, n, y, KILN_FLOAT32, 0, KILN_SCAN_PATH_AUTO));
  CHECK(y[2] == 3);
  char text[256];
  CHECK_OK(kiln_scan_describe(ctx, text, sizeof text));
  CHECK_MSG(strncmp(text, "reduce-then-scan (forced by KILN_SCAN", 37) == 0, "describe: %s", text);
  setenv("KILN_SCAN", "lookback", 1);
  CHECK_OK(kiln_scan_describe(ctx, text, sizeof text));
  CHECK_MSG(strncmp(text, "lookback (forced by KILN_SCAN", 29) == 0, "describe: %s", text);
  unsetenv("KILN_SCAN");
  kiln_device_info info;
  CHECK_OK(kiln_context_device_info(ctx, &info));
  CHECK_OK(kiln_scan_describe(ctx, text, sizeof text));
  if (info.type == KILN_DEVICE_CPU) CHECK_MSG(strncmp(text, "reduce-then-scan", 16) == 0, "%s", text);
  if (!strcmp(info.backend, "cuda")) CHECK_MSG(strncmp(text, "lookback", 8) == 0, "%s", text);
  CHECK_STATUS(kiln_scan_describe(ctx, text, 0), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_scan_describe(NULL, text, sizeof text), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_nonzero(ctx, kiln_operand_host(x, KILN_FLOAT32, 0, NULL, NULL), idx, &count,
                            NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("0-d");
  CHECK(count == 0 && idx[0] == NULL);
  CHECK_STATUS(kiln_nonzero(ctx, kiln_operand_float(1.0), idx, &count, NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_nonzero(ctx, kiln_operand_host(x, KILN_FLOAT32, 1, &n, NULL), NULL, &count,
                            NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_argwhere(ctx, kiln_operand_host(x, KILN_FLOAT32, 1, &n, NULL), &rows, NULL,
                             NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_argwhere(NULL, kiln_operand_host(x, KILN_FLOAT32, 1, &n, NULL), &rows, &count,
                             NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK(rows == NULL && count == 0);
}

/* One decision for the scan and the sort: forced by the tests' switch or
 * KILN_SCAN, else kiln_device_lookback_safe (the backend's capability);
 * complex accumulators always reduce-then-scan; the explanation names the
 * reason, and the sort's radix passes follow the scan's path. */
static void check_choice(kiln_context *ctx, kiln_scan_path want, const char *why) {
  kiln_scan_path got = KILN_SCAN_PATH_AUTO, complex = KILN_SCAN_PATH_AUTO;
  CHECK_OK(kiln_scan_choose_path(ctx, KILN_FLOAT32, &got));
  CHECK_OK(kiln_scan_choose_path(ctx, KILN_COMPLEX64, &complex));
  CHECK_MSG(got == want, "%s: path %s, expected %s", why, kiln_scan_path_name(got),
            kiln_scan_path_name(want));
  CHECK_MSG(complex == KILN_SCAN_PATH_REDUCE_THEN_SCAN, "%s: complex takes %s", why,
            kiln_scan_path_name(complex));
  char text[256];
  CHECK_OK(kiln_scan_describe(ctx, text, sizeof text));
  CHECK_MSG(strstr(text, why) != NULL, "describe: '%s' lacks '%s'", text, why);
  const char *sort = kiln_sort_path(ctx);
  int sort_lookback = !strcmp(sort, "onesweep look-back");
  CHECK_MSG(sort_lookback == (want == KILN_SCAN_PATH_LOOKBACK), "%s: sort takes %s", why, sort);
}

static void test_path_choice(kiln_context *ctx) {
  unsetenv("KILN_SCAN");
  int safe = kiln_device_lookback_safe(ctx);
  printf("  device lookback-safe: %d\n", safe);
  check_choice(ctx, safe ? KILN_SCAN_PATH_LOOKBACK : KILN_SCAN_PATH_REDUCE_THEN_SCAN,
               safe ? "device-scope ordering:" : "no device-scope ordering known");
  for (int p = 0; p < 2; p++) {
    kiln_scan_force_path(paths[p]);
    check_choice(ctx, paths[p], "forced by the tests' switch");
    kiln_scan_force_path(KILN_SCAN_PATH_AUTO);
    setenv("KILN_SCAN", paths[p] == KILN_SCAN_PATH_LOOKBACK ? "lookback" : "reduce-then-scan", 1);
    check_choice(ctx, paths[p], "forced by KILN_SCAN");
    /* the tests' switch wins over the environment */
    kiln_scan_force_path(paths[1 - p]);
    check_choice(ctx, paths[1 - p], "forced by the tests' switch");
    kiln_scan_force_path(KILN_SCAN_PATH_AUTO);
  }
  setenv("KILN_SCAN", "auto", 1);
  check_choice(ctx, safe ? KILN_SCAN_PATH_LOOKBACK : KILN_SCAN_PATH_REDUCE_THEN_SCAN,
               safe ? "device-scope ordering:" : "no device-scope ordering known");
  unsetenv("KILN_SCAN");
  kiln_device_info info;
  CHECK_OK(kiln_context_device_info(ctx, &info));
  /* CUDA's GPUs and PoCL's CPU: the capability as documented */
  if (!strcmp(info.backend, "cuda") && info.type == KILN_DEVICE_GPU) CHECK(safe);
  if (info.type == KILN_DEVICE_CPU) CHECK(!safe);
}

/* Both paths at a GPU's size (1e8, KILN_SCAN_LARGE_N overrides; GPUs only,
 * a CPU device skips with the reason): float32 cumsum (packed status
 * words) bit for bit against each other and the host emulation, float64
 * cumprod (8-byte values behind flags) against each other, compaction
 * (int64 counts) against the host. The look-back's cross-work-group
 * visibility shows only with thousands of tiles in flight. */
static void test_large_paths(kiln_context *ctx) {
  kiln_device_info info;
  REQUIRE_OK(kiln_context_device_info(ctx, &info));
  const char *v = getenv("KILN_SCAN_LARGE_N");
  if (info.type != KILN_DEVICE_GPU && !v) {
    harness_skip("not a GPU: the 1e8 check of both paths runs on GPUs (KILN_SCAN_LARGE_N=n forces it)");
    return;
  }
  int64_t n = v ? atoll(v) : 100000000;
  float *x = malloc((size_t)n * 4), *want = malloc((size_t)n * 4);
  float *got[2] = {malloc((size_t)n * 4), malloc((size_t)n * 4)};
  CHECK_MSG(x && want && got[0] && got[1], "host memory for %lld float32", (long long)n);
  if (!x || !want || !got[0] || !got[1]) n = 0;
  harness_fill_random(x, KILN_FLOAT32, n, -1, 1);
  line_sum_f32(x, 1, n, want);
  both_paths(ctx, "add", x, KILN_FLOAT32, n, want, (void **)got);
  /* compaction of x > 0: count and values against the host, both paths */
  uint8_t *mask = malloc((size_t)n + 1);
  int64_t kept = 0;
  if (!mask) n = 0;
  for (int64_t i = 0; i < n; i++) kept += mask[i] = x[i] > 0;
  for (int p = 0; p < 2; p++) {
    int64_t count = -1, room = n;
    kiln_scan_force_path(paths[p]);
    CHECK_OK(kiln_compact(ctx, kiln_operand_host(x, KILN_FLOAT32, 1, &n, NULL),
                          kiln_operand_host(mask, KILN_BOOL, 1, &n, NULL),
                          kiln_operand_host_output(got[p], KILN_FLOAT32, 1, &room, NULL), &count,
                          NULL));
    kiln_scan_force_path(KILN_SCAN_PATH_AUTO);
    int64_t k = 0, bad = 0;
    for (int64_t i = 0; i < n && k < count; i++)
      if (mask[i]) bad += memcmp(&got[p][k++], &x[i], 4) != 0;
    CHECK_MSG(count == kept && bad == 0, "n %lld %s: count %lld (expected %lld), %lld differ",
              (long long)n, kiln_scan_path_name(paths[p]), (long long)count, (long long)kept,
              (long long)bad);
  }
  free(mask);
  free(got[0]);
  free(got[1]);
  free(want);
  free(x);
  if (!info.has_double) return;
  int64_t nd = n / 2;
  double *xd = malloc((size_t)nd * 8), *wantd = malloc((size_t)nd * 8);
  double *gotd[2] = {malloc((size_t)nd * 8), malloc((size_t)nd * 8)};
  CHECK_MSG(xd && wantd && gotd[0] && gotd[1], "host memory for %lld float64", (long long)nd);
  if (!xd || !wantd || !gotd[0] || !gotd[1]) nd = 0;
  harness_fill_random(xd, KILN_FLOAT64, nd, 0.99999999, 1.00000001);
  line_prod_f64(xd, 1, nd, wantd);
  both_paths(ctx, "multiply", xd, KILN_FLOAT64, nd, wantd, (void **)gotd);
  free(xd);
  free(wantd);
  free(gotd[0]);
  free(gotd[1]);
}

/* GPUs with ballots look back on warp 0 alone; the work-group's form
 * (HIP's wave64, PoCL) is tested there too, forced: the bits and
 * compaction cases above again. A CPU device takes that form anyway. */
static void test_group_lookback(kiln_context *ctx) {
  kiln_device_info info;
  REQUIRE_OK(kiln_context_device_info(ctx, &info));
  if (info.type != KILN_DEVICE_GPU) {
    harness_skip("not a GPU: paths_bits and compact_paths already ran the work-group's look-back");
    return;
  }
  kiln_scan_force_group_lookback(1);
  test_paths_bits(ctx);
  test_compact_paths(ctx);
  kiln_scan_force_group_lookback(0);
}

/* The lean form of the fallback's check on a CPU device (each kernel a
 * cold PoCL compile in CI): float32 sums (one status word) and float64
 * products (two), bits against the host emulation, and compaction with
 * int32 counts, at the sizes above. */
static void fallback_bits(kiln_context *ctx) {
  for (size_t t = 0; t < NSIZES; t++) {
    int64_t n = sizes[t];
    float *x = malloc((size_t)n * 4), *want = malloc((size_t)n * 4), *got = malloc((size_t)n * 4);
    double *xd = malloc((size_t)n * 8), *wantd = malloc((size_t)n * 8), *gotd = malloc((size_t)n * 8);
    uint8_t *mask = malloc((size_t)n);
    harness_fill_random(x, KILN_FLOAT32, n, -1, 1);
    harness_fill_random(xd, KILN_FLOAT64, n, 0.9999, 1.0001);
    line_sum_f32(x, 1, n, want);
    CHECK_OK(scan_host(ctx, "add", x, KILN_FLOAT32, n, got, KILN_FLOAT32, 0, paths[0]));
    CHECK_MSG(differing(got, want, n, 4) == 0, "fallback: float32 cumsum of %lld differs",
              (long long)n);
    line_prod_f64(xd, 1, n, wantd);
    CHECK_OK(scan_host(ctx, "multiply", xd, KILN_FLOAT64, n, gotd, KILN_FLOAT64, 0, paths[0]));
    CHECK_MSG(differing(gotd, wantd, n, 8) == 0, "fallback: float64 cumprod of %lld differs",
              (long long)n);
    int64_t count = -1, room = n, kept = 0, bad = 0;
    for (int64_t i = 0; i < n; i++) kept += mask[i] = x[i] > 0;
    kiln_scan_force_path(paths[0]);
    CHECK_OK(kiln_compact(ctx, kiln_operand_host(x, KILN_FLOAT32, 1, &n, NULL),
                          kiln_operand_host(mask, KILN_BOOL, 1, &n, NULL),
                          kiln_operand_host_output(got, KILN_FLOAT32, 1, &room, NULL), &count, NULL));
    kiln_scan_force_path(KILN_SCAN_PATH_AUTO);
    for (int64_t i = 0, k = 0; i < n && k < count; i++)
      if (mask[i]) bad += memcmp(&got[k++], &x[i], 4) != 0;
    CHECK_MSG(count == kept && bad == 0, "fallback: compaction of %lld: count %lld of %lld, %lld "
              "wrong", (long long)n, (long long)count, (long long)kept, (long long)bad);
    free(x);
    free(want);
    free(got);
    free(xd);
    free(wantd);
    free(gotd);
    free(mask);
  }
}

/* The decoupled fallback (tile t = work-group t; a tile whose predecessor
 * published nothing after a bounded spin reduces it itself, same fold
 * order), forced with tiles in reverse order (tile t = work-group
 * ntiles - 1 - t): a tile then nearly always starts before its
 * predecessors, so the aggregates it folds are the fallback's (PoCL: the
 * fallback reduced 12 of 13 tiles at 100003 elements, KILN_LOG=debug), and
 * a device that runs work-groups in order on fewer threads than tiles
 * would never finish without it. A CPU device: fallback_bits, spin bound
 * 0. GPUs: the bits and compaction cases of every dtype pair above and
 * strided views, spin bounds 0 and 1 and tiles in order too, and the
 * work-group's form of the look-back. */
static void test_fallback(kiln_context *ctx) {
  kiln_device_info info;
  REQUIRE_OK(kiln_context_device_info(ctx, &info));
  if (info.type != KILN_DEVICE_GPU) {
    kiln_scan_force_fallback(0, 1);
    fallback_bits(ctx);
    kiln_scan_force_fallback(-1, 0);
    return;
  }
  static const int forms[3][2] = {{0, 1}, {1, 1}, {0, 0}}; /* spins, reverse */
  for (int f = 0; f < 3; f++) {
    kiln_scan_force_fallback(forms[f][0], forms[f][1]);
    test_paths_bits(ctx);
    test_compact_paths(ctx);
    if (f == 0) {
      test_strided_views(ctx);
      kiln_scan_force_group_lookback(1);
      test_paths_bits(ctx);
      test_compact_paths(ctx);
      kiln_scan_force_group_lookback(0);
    }
  }
  kiln_scan_force_fallback(-1, 0);
}

static const harness_test tests[] = {{"path_choice", test_path_choice},
                                     {"paths_bits", test_paths_bits},
                                     {"strided_views", test_strided_views},
                                     {"every_dtype", test_every_dtype},
                                     {"compact_paths", test_compact_paths},
                                     {"nonzero", test_nonzero},
                                     {"add_line", test_add_line},
                                     {"bad_input", test_bad_input},
                                     {"large_paths", test_large_paths},
                                     {"group_lookback", test_group_lookback},
                                     {"fallback", test_fallback},
                                     {0}};

int main(int argc, char **argv) { return harness_main(argc, argv, tests); }
