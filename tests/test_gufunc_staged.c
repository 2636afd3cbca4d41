/* Conformance: gufunc rows staged in local memory (docs/gufuncs.md, "Long
 * core dims"). The staged kernel runs the same body in the same order as
 * the one-row-per-work-item kernel, so every case is run staged (forced:
 * kiln_gufunc_force_staging, every device and row length), unstaged and
 * in the automatic mode, and each result must have the bits of a host
 * reference that adds in the body's order (kiln compiles without
 * contraction and with correctly rounded division on every backend).
 * Bodies with products (dot, scaled sum) are compared bit for bit between
 * the modes and within 1e-12 (float64) or 1e-5 (float32) of the host,
 * since an OpenCL compiler may contract a * b + c (PoCL does).
 * Covered: row lengths 1, 2, baked 13, primes, just below and above the
 * automatic threshold (32), 100, longer than a work-group, and longer
 * than the local-memory budget (the unstaged fallback); loop lengths 0, 1
 * and not a multiple of the rows per group; contiguous rows (one span,
 * 16-byte aligned or not) and strided, reversed and broadcast rows; two
 * staged inputs; a by-value scalar before a staged input; float16 rows
 * cast on load; given outputs as strided views; host inputs; a stream;
 * bodies taking KILN_DATA (never staged); a bad KILN_GUFUNC_STAGE. */
#include <stdlib.h>

#include "core/gufunc/gufunc_internal.h"
#include "core/kernel/kernel_internal.h"
#include "gufunc_testing.h"

static const kiln_gufunc_staging modes[3] = {
    KILN_GUFUNC_STAGING_ALWAYS, KILN_GUFUNC_STAGING_NEVER, KILN_GUFUNC_STAGING_AUTO};

static uint64_t programs_built(void) {
  uint64_t built = 0, compiled = 0;
  kiln_program_cache_counts(&built, &compiled);
  return built;
}

/* ---- average (n)->(), float32: every row length and loop length ---------- */

static const char *const avg_sigs[] = {"float32(float32 x)"};
#define AVG_BODY \
  "float s = 0; for (int64_t i = 0; i < n; i++) s += x(i); return s / (float)n;"

/* The body's order on the host: the bits the device must give. */
static float average_ref(const mirror *m, int64_t r, int64_t w) {
  float s = 0;
  for (int64_t i = 0; i < w; i++) {
    int64_t idx[2] = {r, i};
    s += (float)mirror_get(m, 2, idx);
  }
  return s / (float)w;
}

static void check_average(kiln_gufunc *g, const kiln_array *base,
                          const kiln_array *x, const char *what) {
  int64_t rows = kiln_array_shape(x)[0], w = kiln_array_shape(x)[1];
  char *sx;
  mirror mx = mirror_of_view(base, x, &sx);
  for (int m = 0; m < 3; m++) {
    kiln_gufunc_force_staging(modes[m]);
    kiln_array *out = NULL;
    kiln_operand in[1] = {kiln_operand_array(x)};
    kiln_operand o[1] = {kiln_operand_new(&out)};
    CHECK_OK(kiln_gufunc_call(g, 1, in, 1, o, NULL));
    if (!out) continue;
    float *h = malloc((size_t)rows * sizeof *h + 4);
    CHECK_OK(kiln_array_to_host(out, h, NULL));
    int bad = 0;
    for (int64_t r = 0; r < rows && bad < 3; r++) {
      float want = average_ref(&mx, r, w);
      if (memcmp(&h[r], &want, sizeof want) != 0) {
        bad++;
        CHECK_MSG(0, "%s (%lld, %lld), mode %d, row %lld: %.9g, host %.9g", what,
                  (long long)rows, (long long)w, m, (long long)r, h[r], want);
      }
    }
    free(h);
    kiln_array_release(out);
  }
  kiln_gufunc_force_staging(KILN_GUFUNC_STAGING_ENV);
  free(sx);
}

static void test_average_sizes(kiln_context *ctx) {
  kiln_gufunc *g = make(ctx, "average", "(n)->()", 1, avg_sigs, AVG_BODY, NULL);
  static const int64_t widths[] = {1, 2, 13, 31, 32, 33, 100, 257, 1031};
  static const int64_t rows[] = {0, 1, 63, 64, 65, 1000};
  for (size_t a = 0; a < sizeof widths / sizeof *widths; a++)
    for (size_t b = 0; b < sizeof rows / sizeof *rows; b++) {
      if (widths[a] > 300 && rows[b] > 100) continue; /* time on PoCL */
      int64_t shape[2] = {rows[b], widths[a]};
      kiln_array *x = random_array(ctx, KILN_FLOAT32, 2, shape, -2, 2);
      check_average(g, x, x, "contiguous");
      kiln_array_release(x);
    }
  kiln_gufunc_release(g);
}

/* Strided, reversed rows with a core stride of 2 (the general copy), and a
 * row longer than the 32 KiB budget (unstaged, but the same bits). */
static void test_average_views(kiln_context *ctx) {
  kiln_gufunc *g = make(ctx, "average", "(n)->()", 1, avg_sigs, AVG_BODY, NULL);
  int64_t shape[2] = {203, 2 * 101};
  kiln_array *base = random_array(ctx, KILN_FLOAT32, 2, shape, -2, 2);
  kiln_slice s[2] = {{KILN_NONE, KILN_NONE, -3}, {1, KILN_NONE, 2}};
  kiln_array *v = view_slice(base, 2, s); /* (68, 101), rows reversed */
  check_average(g, base, v, "reversed, core stride 2");
  kiln_slice t[2] = {{KILN_NONE, KILN_NONE, 1}, {KILN_NONE, KILN_NONE, -1}};
  kiln_array *rev = view_slice(base, 2, t); /* core stride -1 */
  check_average(g, base, rev, "core stride -1");
  kiln_array_release(v);
  kiln_array_release(rev);
  kiln_array_release(base);
  /* one span starting 33 floats in: blocks not 16-byte aligned (the
   * element-wise copy, not the 16-byte loads) */
  int64_t odd[2] = {300, 33};
  kiln_array *obase = random_array(ctx, KILN_FLOAT32, 2, odd, -2, 2);
  kiln_slice from1[1] = {{1, KILN_NONE, 1}};
  kiln_array *tail = view_slice(obase, 1, from1);
  check_average(g, obase, tail, "one span, unaligned");
  kiln_array_release(tail);
  kiln_array_release(obase);
  int64_t wide[2] = {5, 9001};
  kiln_array *x = random_array(ctx, KILN_FLOAT32, 2, wide, -2, 2);
  check_average(g, x, x, "longer than the budget");
  kiln_array_release(x);
  kiln_gufunc_release(g);
}

/* The staged kernel is a program of its own, a row beyond the budget is
 * not staged, and a body taking KILN_DATA never is. */
static void test_which_kernel(kiln_context *ctx) {
  /* a text of its own: the other tests have built its programs already */
  kiln_gufunc *g = make(ctx, "average_which", "(n)->()", 1, avg_sigs, AVG_BODY, NULL);
  static const char *const sum_sigs[] = {"(float32 out)(float32 row)"};
  kiln_gufunc *raw = make(ctx, "raw_sum", "(i)->()", 1, sum_sigs,
                          "out = row_sum(KILN_DATA(row), KILN_STRIDE(row, 0), i);",
                          "KILN_DEVICE float row_sum(KILN_GLOBAL const float *r, int64_t t, "
                          "int64_t n) {\n"
                          "  float s = 0; for (int64_t i = 0; i < n; i++) s += r[i * t]; return s;\n"
                          "}\n");
  int64_t shape[2] = {70, 120}, wide[2] = {3, 9001};
  kiln_array *x = random_array(ctx, KILN_FLOAT32, 2, shape, -1, 1);
  kiln_array *y = random_array(ctx, KILN_FLOAT32, 2, wide, -1, 1);
  kiln_gufunc *gs[2] = {g, raw};
  kiln_array *xs[2] = {x, y};
  int expect_new[2][2] = {{1, 0}, {0, 0}}; /* [gufunc][array]: staging made a program */
  for (int a = 0; a < 2; a++)
    for (int b = 0; b < 2; b++) {
      kiln_array *out = NULL;
      kiln_operand in[1] = {kiln_operand_array(xs[b])};
      kiln_operand o[1] = {kiln_operand_new(&out)};
      kiln_gufunc_force_staging(KILN_GUFUNC_STAGING_NEVER);
      CHECK_OK(kiln_gufunc_call(gs[a], 1, in, 1, o, NULL));
      kiln_array_release(out);
      out = NULL;
      uint64_t before = programs_built();
      kiln_gufunc_force_staging(KILN_GUFUNC_STAGING_ALWAYS);
      CHECK_OK(kiln_gufunc_call(gs[a], 1, in, 1, o, NULL));
      CHECK_MSG((programs_built() > before) == expect_new[a][b],
                "gufunc %d on array %d: staged program built %d, expected %d", a, b,
                (int)(programs_built() - before), expect_new[a][b]);
      if (out && a == 1) { /* the raw body's sums, unstaged, still right */
        int64_t rows = kiln_array_shape(xs[b])[0], w = kiln_array_shape(xs[b])[1];
        float *h = malloc((size_t)rows * sizeof *h);
        char *sx;
        mirror mx = mirror_of_view(xs[b], xs[b], &sx);
        CHECK_OK(kiln_array_to_host(out, h, NULL));
        for (int64_t r = 0; r < rows; r++) {
          float s = 0;
          for (int64_t i = 0; i < w; i++) {
            int64_t idx[2] = {r, i};
            s += (float)mirror_get(&mx, 2, idx);
          }
          CHECK(memcmp(&h[r], &s, sizeof s) == 0);
        }
        free(h);
        free(sx);
      }
      kiln_array_release(out);
    }
  kiln_gufunc_force_staging(KILN_GUFUNC_STAGING_ENV);
  kiln_array_release(x);
  kiln_array_release(y);
  kiln_gufunc_release(g);
  kiln_gufunc_release(raw);
}

/* ---- dot (n),(n)->() float64: two staged inputs, views, broadcast --------- */

static const char *const dot_sigs[] = {"float64(float64 x, float64 y)"};
#define DOT_BODY "double s = 0; for (int64_t i = 0; i < n; i++) s += x(i) * y(i); return s;"

static void test_dot_views(kiln_context *ctx) {
  kiln_gufunc *g = make(ctx, "dot", "(n),(n)->()", 1, dot_sigs, DOT_BODY, NULL);
  enum { ROWS = 131, W = 67 };
  int64_t xshape[2] = {ROWS, W}, yshape[2] = {2 * ROWS, W + 3}, vshape[1] = {W};
  kiln_array *x = random_array(ctx, KILN_FLOAT64, 2, xshape, -2, 2);
  kiln_array *ybase = random_array(ctx, KILN_FLOAT64, 2, yshape, -2, 2);
  kiln_array *v = random_array(ctx, KILN_FLOAT64, 1, vshape, -2, 2);
  /* rows reversed, every other one, the last W columns reversed */
  kiln_slice s[2] = {{KILN_NONE, KILN_NONE, -2}, {W + 2, 2, -1}};
  kiln_array *y = view_slice(ybase, 2, s);
  CHECK(kiln_array_shape(y)[0] == ROWS && kiln_array_shape(y)[1] == W);
  const kiln_array *second[2] = {y, v}; /* a view, a row broadcast over the loop */
  const kiln_array *second_base[2] = {ybase, v};
  char *sx;
  mirror mx = mirror_of_view(x, x, &sx);
  for (int c = 0; c < 2; c++) {
    char *sy;
    mirror my = mirror_of_view(second_base[c], second[c], &sy);
    double unstaged[ROWS];
    for (int t = 0, m = 1; t < 3; m = ++t == 1 ? 2 : 0) { /* NEVER first: the reference */
      kiln_gufunc_force_staging(modes[m]);
      kiln_array *out = NULL;
      kiln_operand in[2] = {kiln_operand_array(x), kiln_operand_array(second[c])};
      kiln_operand o[1] = {kiln_operand_new(&out)};
      CHECK_OK(kiln_gufunc_call(g, 2, in, 1, o, NULL));
      double h[ROWS];
      if (out) CHECK_OK(kiln_array_to_host(out, h, NULL));
      for (int64_t r = 0; out && r < ROWS; r++) {
        double want = 0;
        for (int64_t i = 0; i < W; i++) {
          int64_t idx[2] = {r, i};
          want += mirror_get(&mx, 2, idx) * mirror_get(&my, 2, idx);
        }
        if (m == 1) unstaged[r] = h[r];
        CHECK_CLOSE(h[r], want, 1e-12, 1e-12);
        CHECK_MSG(memcmp(&h[r], &unstaged[r], sizeof want) == 0,
                  "case %d mode %d row %lld: %.17g, unstaged %.17g", c, m, (long long)r, h[r],
                  unstaged[r]);
      }
      kiln_array_release(out);
    }
    free(sy);
  }
  kiln_gufunc_force_staging(KILN_GUFUNC_STAGING_ENV);
  free(sx);
  kiln_array_release(x);
  kiln_array_release(ybase);
  kiln_array_release(y);
  kiln_array_release(v);
  kiln_gufunc_release(g);
}

/* ---- a scalar before the row, casts on load, out, streams, host ----------- */

static void test_scalar_casts_out_stream(kiln_context *ctx) {
  static const char *const sigs[] = {"float32(float32 a, float32 x)"};
  kiln_gufunc *g = make(ctx, "scaled_sum", "(),(n)->()", 1, sigs,
                        "float s = 0; for (int64_t i = 0; i < n; i++) s += a * x(i); return s;",
                        NULL);
  enum { ROWS = 77, W = 45 };
  kiln_dtype dtypes[2] = {KILN_FLOAT32, KILN_FLOAT16};
  kiln_stream *stream = NULL;
  CHECK_OK(kiln_stream_create(ctx, &stream));
  for (int d = 0; d < 2; d++) {
    int64_t shape[2] = {ROWS, W}, oshape[1] = {2 * ROWS};
    kiln_array *x = random_array(ctx, dtypes[d], 2, shape, -50, 50);
    char *sx;
    mirror mx = mirror_of_view(x, x, &sx);
    float a = 0.75f;
    float ref[ROWS], unstaged[ROWS];
    for (int64_t r = 0; r < ROWS; r++) {
      float s = 0;
      for (int64_t i = 0; i < W; i++) {
        int64_t idx[2] = {r, i};
        s += a * (float)mirror_get(&mx, 2, idx);
      }
      ref[r] = s;
    }
    for (int t = 0, m = 1; t < 3; m = ++t == 1 ? 2 : 0) { /* NEVER first: the reference */
      kiln_gufunc_force_staging(modes[m]);
      /* into every other element of a given output, on a stream */
      kiln_array *obase = NULL, *out = NULL;
      CHECK_OK(kiln_array_zeros(ctx, KILN_FLOAT32, 1, oshape, &obase));
      /* the fill is on the default stream; the call below is on another */
      CHECK_OK(kiln_context_synchronize(ctx));
      kiln_slice s[1] = {{1, KILN_NONE, 2}};
      out = view_slice(obase, 1, s);
      kiln_operand in[2] = {kiln_operand_float(a), kiln_operand_array(x)};
      kiln_operand o[1] = {kiln_operand_array(out)};
      CHECK_OK(kiln_gufunc_call(g, 2, in, 1, o, stream));
      CHECK_OK(kiln_stream_synchronize(ctx, stream));
      float h[2 * ROWS];
      CHECK_OK(kiln_array_to_host(obase, h, NULL));
      for (int64_t r = 0; r < ROWS; r++) {
        if (m == 1) unstaged[r] = h[2 * r + 1];
        CHECK_CLOSE(h[2 * r + 1], ref[r], 1e-5, 1e-3);
        CHECK_MSG(memcmp(&h[2 * r + 1], &unstaged[r], sizeof(float)) == 0,
                  "dtype %d mode %d row %lld: %.9g, unstaged %.9g", d, m, (long long)r,
                  h[2 * r + 1], unstaged[r]);
        CHECK(h[2 * r] == 0);
      }
      kiln_array_release(out);
      kiln_array_release(obase);
    }
    /* the same rows from host memory (the ufunc host path's chunks) */
    if (d == 0) {
      float hx[ROWS * W], hout[ROWS];
      CHECK_OK(kiln_array_to_host(x, hx, NULL));
      kiln_gufunc_force_staging(KILN_GUFUNC_STAGING_ALWAYS);
      int64_t rows = ROWS;
      kiln_operand in[2] = {kiln_operand_float(a),
                            kiln_operand_host(hx, KILN_FLOAT32, 2, shape, NULL)};
      kiln_operand o[1] = {kiln_operand_host_output(hout, KILN_FLOAT32, 1, &rows, NULL)};
      CHECK_OK(kiln_gufunc_set_host_chunk_bytes(g, 40 * W * sizeof(float)));
      CHECK_OK(kiln_gufunc_call(g, 2, in, 1, o, stream));
      CHECK(memcmp(hout, unstaged, sizeof unstaged) == 0);
    }
    kiln_gufunc_force_staging(KILN_GUFUNC_STAGING_ENV);
    free(sx);
    kiln_array_release(x);
  }
  kiln_stream_release(stream);
  kiln_gufunc_release(g);
}

/* A bad KILN_GUFUNC_STAGE, _BYTES or _GROUP fails the call with its value;
 * a good one works. */
static void test_bad_environment(kiln_context *ctx) {
  kiln_gufunc *g = make(ctx, "average", "(n)->()", 1, avg_sigs, AVG_BODY, NULL);
  int64_t shape[2] = {4, 40};
  kiln_array *x = random_array(ctx, KILN_FLOAT32, 2, shape, -1, 1), *out = NULL;
  kiln_operand in[1] = {kiln_operand_array(x)};
  kiln_operand o[1] = {kiln_operand_new(&out)};
  static const char *const values[] = {"sometimes", "always", "never", "auto"};
  for (int v = 0; v < 4; v++) {
    setenv("KILN_GUFUNC_STAGE", values[v], 1);
    kiln_gufunc_force_staging(KILN_GUFUNC_STAGING_ENV); /* read it again */
    if (v == 0) {
      CHECK_STATUS(kiln_gufunc_call(g, 1, in, 1, o, NULL), KILN_ERROR_INVALID_ARGUMENT);
      CHECK_ERROR_CONTAINS("KILN_GUFUNC_STAGE='sometimes'");
      CHECK(out == NULL);
    } else {
      CHECK_OK(kiln_gufunc_call(g, 1, in, 1, o, NULL));
      kiln_array_release(out);
      out = NULL;
    }
  }
  unsetenv("KILN_GUFUNC_STAGE");
  /* the tuning knobs: a value out of range or not a number fails the call
   * naming the variable; a good one works */
  static const struct {
    const char *name, *bad, *good;
  } knobs[] = {{"KILN_GUFUNC_STAGE_BYTES", "512", "16384"},
               {"KILN_GUFUNC_STAGE_BYTES", "32k", "65536"},
               {"KILN_GUFUNC_STAGE_GROUP", "2048", "64"},
               {"KILN_GUFUNC_STAGE_GROUP", "-1", "32"}};
  kiln_gufunc_force_staging(KILN_GUFUNC_STAGING_ALWAYS);
  for (size_t k = 0; k < sizeof knobs / sizeof *knobs; k++) {
    setenv(knobs[k].name, knobs[k].bad, 1);
    kiln_gufunc_force_staging(KILN_GUFUNC_STAGING_ALWAYS); /* read them again */
    CHECK_STATUS(kiln_gufunc_call(g, 1, in, 1, o, NULL), KILN_ERROR_INVALID_ARGUMENT);
    CHECK_ERROR_CONTAINS(knobs[k].name);
    CHECK_ERROR_CONTAINS(knobs[k].bad);
    CHECK(out == NULL);
    setenv(knobs[k].name, knobs[k].good, 1);
    kiln_gufunc_force_staging(KILN_GUFUNC_STAGING_ALWAYS);
    CHECK_OK(kiln_gufunc_call(g, 1, in, 1, o, NULL));
    kiln_array_release(out);
    out = NULL;
    unsetenv(knobs[k].name);
  }
  kiln_gufunc_force_staging(KILN_GUFUNC_STAGING_ENV);
  kiln_array_release(x);
  kiln_gufunc_release(g);
}

static const harness_test tests[] = {
    {"average_sizes", test_average_sizes},
    {"average_views", test_average_views},
    {"which_kernel", test_which_kernel},
    {"dot_views", test_dot_views},
    {"scalar_casts_out_stream", test_scalar_casts_out_stream},
    {"bad_environment", test_bad_environment},
    {0}};

int main(int argc, char **argv) { return harness_main(argc, argv, tests); }
