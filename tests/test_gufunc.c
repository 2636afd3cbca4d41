/* Conformance: generalized ufuncs (docs/gufuncs.md) on device arrays and
 * host memory: layouts with 1, 2 and 3 core dims, fixed sizes, several
 * outputs, a scalar input, NumPy broadcasting of loop dims, strided,
 * transposed, column and reversed views without copies, core sizes baked
 * (<= 16) and passed, sizes 0 and 1 and primes, dispatch with casts on
 * load and store, and every bad input of a call. Each result is checked
 * against a host reference on random data.
 *
 * Tolerances: float64 sums of products 1e-12 relative; float32 results
 * 1e-5 relative (plus 1e-6 absolute near 0). */
#include "gufunc_testing.h"

/* Element idx (the operand's full index) of a mirrored view. */
static double at(const mirror *m, const int64_t *idx) { return mirror_get(m, m->ndim, idx); }

static kiln_array *view_transpose(const kiln_array *a, const int *axes) {
  kiln_array *v = NULL;
  CHECK_OK(kiln_array_transpose(a, axes, &v));
  return v;
}

/* ---- l2_norm (n)->() ------------------------------------------------------- */

static const char *const l2_sigs[] = {"float32(float32 x)", "float64(float64 x)"};
#define L2_BODY "double s = 0; for (int64_t i = 0; i < n; i++) s += x(i) * x(i); return sqrt(s);"

static void l2_case(kiln_context *ctx, kiln_gufunc *g, kiln_dtype dtype, int64_t rows,
                    int64_t n) {
  int64_t shape[2] = {rows, n};
  kiln_array *x = random_array(ctx, dtype, 2, shape, -2, 2), *out = NULL;
  kiln_operand in[1] = {kiln_operand_array(x)};
  kiln_operand o[1] = {kiln_operand_new(&out)};
  CHECK_OK(kiln_gufunc_call(g, 1, in, 1, o, NULL));
  if (!out) goto done;
  CHECK(kiln_array_ndim(out) == 1 && kiln_array_shape(out)[0] == rows);
  CHECK(kiln_array_dtype(out) == dtype);
  char *sx, *so;
  mirror mx = mirror_of_view(x, x, &sx), mo = mirror_of_view(out, out, &so);
  double rtol = dtype == KILN_FLOAT32 ? 1e-5 : 1e-12;
  for (int64_t r = 0; r < rows; r++) {
    double s = 0;
    for (int64_t i = 0; i < n; i++) {
      int64_t idx[2] = {r, i};
      s += at(&mx, idx) * at(&mx, idx);
    }
    int64_t idx[1] = {r};
    CHECK_CLOSE(at(&mo, idx), sqrt(s), rtol, 1e-6);
  }
  free(sx);
  free(so);
done:
  kiln_array_release(x);
  kiln_array_release(out);
}

static void test_l2_norm_sizes(kiln_context *ctx) {
  kiln_gufunc *g = make(ctx, "l2_norm", "(n)->()", 2, l2_sigs, L2_BODY, NULL);
  static const int64_t rows[] = {0, 1, 7, 1009};
  static const int64_t cols[] = {0, 1, 4, 13, 37}; /* 37: passed, not baked */
  for (size_t r = 0; r < 4; r++)
    for (size_t c = 0; c < 5; c++) {
      l2_case(ctx, g, KILN_FLOAT32, rows[r], cols[c]);
      if (r == 2) l2_case(ctx, g, KILN_FLOAT64, rows[r], cols[c]);
    }
  kiln_gufunc_release(g);
}

/* Rows of a transposed matrix (core stride != 1, loop stride 1), columns
 * of a (rows, 4) matrix taken with a step and reversed: no copies. */
static void test_l2_norm_views(kiln_context *ctx) {
  kiln_gufunc *g = make(ctx, "l2_norm", "(n)->()", 2, l2_sigs, L2_BODY, NULL);
  int64_t shape[2] = {6, 211};
  kiln_array *base = random_array(ctx, KILN_FLOAT64, 2, shape, -3, 3);
  kiln_array *t = view_transpose(base, NULL); /* (211, 6) */
  kiln_slice s[2] = {{KILN_NONE, KILN_NONE, -2}, {KILN_NONE, KILN_NONE, -1}};
  kiln_array *rev = view_slice(base, 2, s); /* (3, 211) reversed both ways */
  const kiln_array *views[2] = {t, rev};
  for (int v = 0; v < 2; v++) {
    /* the output a reversed column view of a wider array */
    int64_t rows = kiln_array_shape(views[v])[0], n = kiln_array_shape(views[v])[1];
    int64_t oshape[2] = {rows, 3};
    kiln_array *obase = NULL, *ocol = NULL;
    CHECK_OK(kiln_array_zeros(ctx, KILN_FLOAT64, 2, oshape, &obase));
    kiln_slice os[2] = {{KILN_NONE, KILN_NONE, -1}, {1, 2, 1}};
    kiln_array *o2 = view_slice(obase, 2, os);
    CHECK_OK(kiln_array_index(o2, 1, 0, &ocol));
    kiln_operand in[1] = {kiln_operand_array(views[v])};
    kiln_operand o[1] = {kiln_operand_array(ocol)};
    CHECK_OK(kiln_gufunc_call(g, 1, in, 1, o, NULL));
    char *sx, *so;
    mirror mx = mirror_of_view(base, views[v], &sx), mo = mirror_of_view(obase, ocol, &so);
    for (int64_t r = 0; r < rows; r++) {
      double acc = 0;
      for (int64_t i = 0; i < n; i++) {
        int64_t idx[2] = {r, i};
        acc += at(&mx, idx) * at(&mx, idx);
      }
      int64_t idx[1] = {r};
      CHECK_CLOSE(at(&mo, idx), sqrt(acc), 1e-12, 0);
    }
    free(sx);
    free(so);
    kiln_array_release(obase);
    kiln_array_release(o2);
    kiln_array_release(ocol);
  }
  kiln_array_release(base);
  kiln_array_release(t);
  kiln_array_release(rev);
  kiln_gufunc_release(g);
}

/* ---- matrix multiply (m,n),(n,p)->(m,p) with broadcast batches ------------- */

static const char *const mm_sigs[] = {"(float64 C)(float64 A, float64 B)"};
#define MM_BODY                                                  \
  "for (int64_t i = 0; i < m; i++)\n"                            \
  "  for (int64_t j = 0; j < p; j++) {\n"                        \
  "    double s = 0;\n"                                          \
  "    for (int64_t k = 0; k < n; k++) s += A(i, k) * B(k, j);\n" \
  "    C(i, j) = s;\n"                                           \
  "  }"

static void mm_check(kiln_gufunc *g, const kiln_array *abase,
                     const kiln_array *a, const kiln_array *bbase, const kiln_array *b,
                     int loop_ndim, const int64_t *loop) {
  kiln_array *c = NULL;
  kiln_operand in[2] = {kiln_operand_array(a), kiln_operand_array(b)};
  kiln_operand o[1] = {kiln_operand_new(&c)};
  CHECK_OK(kiln_gufunc_call(g, 2, in, 1, o, NULL));
  if (!c) return;
  int an = kiln_array_ndim(a), bn = kiln_array_ndim(b);
  int64_t m = kiln_array_shape(a)[an - 2], n = kiln_array_shape(a)[an - 1];
  int64_t p = kiln_array_shape(b)[bn - 1];
  CHECK(kiln_array_ndim(c) == loop_ndim + 2);
  char *sa, *sb, *sc;
  mirror ma = mirror_of_view(abase, a, &sa), mb = mirror_of_view(bbase, b, &sb),
         mc = mirror_of_view(c, c, &sc);
  int64_t li[KILN_MAX_DIMS] = {0};
  int64_t count = shape_size(loop_ndim, loop);
  for (int64_t e = 0; e < count; e++, index_next(loop_ndim, loop, li)) {
    for (int64_t i = 0; i < m; i++)
      for (int64_t j = 0; j < p; j++) {
        double s = 0;
        for (int64_t k = 0; k < n; k++) {
          int64_t ia[KILN_MAX_DIMS] = {0}, ib[KILN_MAX_DIMS] = {0};
          for (int d = 0; d < loop_ndim; d++) ia[d] = ib[d] = li[d];
          ia[loop_ndim] = i, ia[loop_ndim + 1] = k;
          ib[loop_ndim] = k, ib[loop_ndim + 1] = j;
          s += mirror_get(&ma, loop_ndim + 2, ia) * mirror_get(&mb, loop_ndim + 2, ib);
        }
        int64_t ic[KILN_MAX_DIMS] = {0};
        for (int d = 0; d < loop_ndim; d++) ic[d] = li[d];
        ic[loop_ndim] = i, ic[loop_ndim + 1] = j;
        CHECK_CLOSE(at(&mc, ic), s, 1e-12, 1e-12);
      }
  }
  free(sa);
  free(sb);
  free(sc);
  kiln_array_release(c);
}

static void test_matmul(kiln_context *ctx) {
  kiln_gufunc *g = make(ctx, "matmul", "(m,n),(n,p)->(m,p)", 1, mm_sigs, MM_BODY, NULL);
  /* one pair of matrices: loop shape () */
  int64_t as[2] = {3, 5}, bs[2] = {5, 2};
  kiln_array *a = random_array(ctx, KILN_FLOAT64, 2, as, -1, 1);
  kiln_array *b = random_array(ctx, KILN_FLOAT64, 2, bs, -1, 1);
  mm_check(g, a, a, b, b, 0, NULL);
  /* batches broadcast: (2,1,3,5) x (4,5,2) -> (2,4,3,2) */
  int64_t as4[4] = {2, 1, 3, 5}, bs3[3] = {4, 5, 2}, loop[2] = {2, 4};
  kiln_array *a4 = random_array(ctx, KILN_FLOAT64, 4, as4, -1, 1);
  kiln_array *b3 = random_array(ctx, KILN_FLOAT64, 3, bs3, -1, 1);
  mm_check(g, a4, a4, b3, b3, 2, loop);
  /* transposed operands, sizes over the bake limit: A = X^T (19, 17), B = Y^T */
  int64_t xs[2] = {17, 19}, ys[2] = {23, 17};
  kiln_array *x = random_array(ctx, KILN_FLOAT64, 2, xs, -1, 1);
  kiln_array *y = random_array(ctx, KILN_FLOAT64, 2, ys, -1, 1);
  kiln_array *xt = view_transpose(x, NULL), *yt = view_transpose(y, NULL);
  mm_check(g, x, xt, y, yt, 0, NULL);
  /* the core dims of a batch permuted: (3,5,2) batch transposed to (3,2,5) */
  int64_t bb[3] = {3, 5, 2};
  int axes[3] = {0, 2, 1};
  kiln_array *bbase = random_array(ctx, KILN_FLOAT64, 3, bb, -1, 1);
  kiln_array *bperm = view_transpose(bbase, axes); /* (3, 2, 5) as A: m=2, n=5 */
  int64_t bshape[2] = {5, 7}, loop3[1] = {3};
  kiln_array *b57 = random_array(ctx, KILN_FLOAT64, 2, bshape, -1, 1);
  mm_check(g, bbase, bperm, b57, b57, 1, loop3);
  kiln_array *all[] = {a, b, a4, b3, x, y, xt, yt, bbase, bperm, b57};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) kiln_array_release(all[i]);
  kiln_gufunc_release(g);
}

/* ---- batched matrix-vector product (n,m),(m)->(n) ------------------------- */

static void test_matvec_batch(kiln_context *ctx) {
  static const char *const sigs[] = {"(float32 y)(float32 M, float32 v)",
                                     "(float64 y)(float64 M, float64 v)"};
  kiln_gufunc *g = make(ctx, "matvec", "(n,m),(m)->(n)", 2, sigs,
                        "for (int64_t i = 0; i < n; i++) {\n"
                        "  double s = 0;\n"
                        "  for (int64_t j = 0; j < m; j++) s += M(i, j) * v(j);\n"
                        "  y(i) = s;\n"
                        "}",
                        NULL);
  int64_t ms[2] = {150, 100}, vs[2] = {10, 100};
  for (int t = 0; t < 2; t++) {
    kiln_dtype dtype = t ? KILN_FLOAT64 : KILN_FLOAT32;
    kiln_array *M = random_array(ctx, dtype, 2, ms, -1, 1);
    kiln_array *V = random_array(ctx, dtype, 2, vs, -1, 1), *Y = NULL;
    kiln_operand in[2] = {kiln_operand_array(M), kiln_operand_array(V)};
    kiln_operand o[1] = {kiln_operand_new(&Y)};
    CHECK_OK(kiln_gufunc_call(g, 2, in, 1, o, NULL));
    if (Y) {
      CHECK(kiln_array_ndim(Y) == 2 && kiln_array_shape(Y)[0] == 10 &&
            kiln_array_shape(Y)[1] == 150 && kiln_array_dtype(Y) == dtype);
      char *s1, *s2, *s3;
      mirror mm = mirror_of_view(M, M, &s1), mv = mirror_of_view(V, V, &s2),
             my = mirror_of_view(Y, Y, &s3);
      for (int64_t b = 0; b < 10; b++)
        for (int64_t i = 0; i < 150; i++) {
          double s = 0;
          for (int64_t j = 0; j < 100; j++) {
            int64_t im[2] = {i, j}, iv[2] = {b, j};
            s += at(&mm, im) * at(&mv, iv);
          }
          int64_t iy[2] = {b, i};
          CHECK_CLOSE(at(&my, iy), s, t ? 1e-12 : 1e-5, 1e-5);
        }
      free(s1);
      free(s2);
      free(s3);
    }
    kiln_array_release(M);
    kiln_array_release(V);
    kiln_array_release(Y);
  }
  kiln_gufunc_release(g);
}

/* ---- fixed sizes, several outputs, a scalar, 3 core dims --------------------- */

static void test_cross_fixed(kiln_context *ctx) {
  static const char *const sigs[] = {"(float64 c)(float64 a, float64 b)"};
  kiln_gufunc *g = make(ctx, "cross", "(3),(3)->(3)", 1, sigs,
                        "c(0) = a(1) * b(2) - a(2) * b(1);\n"
                        "c(1) = a(2) * b(0) - a(0) * b(2);\n"
                        "c(2) = a(0) * b(1) - a(1) * b(0);",
                        NULL);
  int64_t as[2] = {31, 3}, bs[1] = {3};
  kiln_array *a = random_array(ctx, KILN_FLOAT64, 2, as, -1, 1);
  kiln_array *b = random_array(ctx, KILN_FLOAT64, 1, bs, -1, 1), *c = NULL;
  kiln_operand in[2] = {kiln_operand_array(a), kiln_operand_array(b)};
  kiln_operand o[1] = {kiln_operand_new(&c)};
  CHECK_OK(kiln_gufunc_call(g, 2, in, 1, o, NULL));
  if (c) {
    char *s1, *s2, *s3;
    mirror ma = mirror_of_view(a, a, &s1), mb = mirror_of_view(b, b, &s2),
           mc = mirror_of_view(c, c, &s3);
    for (int64_t r = 0; r < 31; r++) {
      double x[3], y[3];
      for (int64_t i = 0; i < 3; i++) {
        int64_t ia[2] = {r, i}, ib[1] = {i};
        x[i] = at(&ma, ia);
        y[i] = at(&mb, ib);
      }
      double want[3] = {x[1] * y[2] - x[2] * y[1], x[2] * y[0] - x[0] * y[2],
                        x[0] * y[1] - x[1] * y[0]};
      for (int64_t i = 0; i < 3; i++) {
        int64_t ic[2] = {r, i};
        CHECK_CLOSE(at(&mc, ic), want[i], 1e-12, 1e-15);
      }
    }
    free(s1);
    free(s2);
    free(s3);
  }
  /* a (31, 2) operand where the layout fixes 3 */
  int64_t bad[2] = {31, 2};
  kiln_array *a2 = random_array(ctx, KILN_FLOAT64, 2, bad, -1, 1), *c2 = NULL;
  kiln_operand in2[2] = {kiln_operand_array(a2), kiln_operand_array(b)};
  kiln_operand o2[1] = {kiln_operand_new(&c2)};
  CHECK_STATUS(kiln_gufunc_call(g, 2, in2, 1, o2, NULL), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("fixed size 3");
  CHECK(c2 == NULL);
  kiln_array *all[] = {a, b, c, a2};
  for (int i = 0; i < 4; i++) kiln_array_release(all[i]);
  kiln_gufunc_release(g);
}

/* (n),()->(n),(): y = a * x and the max of y, with `a` a weak scalar, a
 * strong scalar and an array broadcast over the loop dims. */
static void test_several_outputs_scalar(kiln_context *ctx) {
  static const char *const sigs[] = {"(float32 y, float32 top)(float32 x, float32 a)",
                                     "(float64 y, float64 top)(float64 x, float64 a)"};
  kiln_gufunc *g = make(ctx, "scale_max", "(n),()->(n),()", 2, sigs,
                        "top = -1e30f;\n"
                        "for (int64_t i = 0; i < n; i++) {\n"
                        "  y(i) = a * x(i);\n"
                        "  top = fmax(top, y(i));\n"
                        "}",
                        NULL);
  int64_t xs[3] = {2, 3, 11}, as[1] = {3};
  kiln_array *x = random_array(ctx, KILN_FLOAT32, 3, xs, -5, 5);
  kiln_array *aa = random_array(ctx, KILN_FLOAT32, 1, as, 0.5, 2); /* one per row */
  float a_host[3];
  CHECK_OK(kiln_array_to_host(aa, a_host, NULL));
  for (int form = 0; form < 3; form++) {
    kiln_array *y = NULL, *top = NULL;
    kiln_operand a = form == 0   ? kiln_operand_float(1.5)
                     : form == 1 ? kiln_operand_float32(-0.75f)
                                 : kiln_operand_array(aa);
    kiln_operand in[2] = {kiln_operand_array(x), a};
    kiln_operand o[2] = {kiln_operand_new(&y), kiln_operand_new(&top)};
    CHECK_OK(kiln_gufunc_call(g, 2, in, 2, o, NULL));
    if (!y || !top) continue;
    CHECK(kiln_array_dtype(y) == KILN_FLOAT32 && kiln_array_ndim(top) == 2);
    char *s1, *s2, *s3;
    mirror mx = mirror_of_view(x, x, &s1), my = mirror_of_view(y, y, &s2),
           mt = mirror_of_view(top, top, &s3);
    for (int64_t b = 0; b < 2; b++)
      for (int64_t r = 0; r < 3; r++) {
        float av = form == 0 ? 1.5f : form == 1 ? -0.75f : a_host[r];
        double best = -1e30;
        for (int64_t i = 0; i < 11; i++) {
          int64_t idx[3] = {b, r, i};
          double want = (double)(av * (float)at(&mx, idx));
          CHECK_CLOSE(at(&my, idx), want, 1e-6, 0);
          best = fmax(best, want);
        }
        int64_t it[2] = {b, r};
        CHECK_CLOSE(at(&mt, it), best, 1e-6, 0);
      }
    free(s1);
    free(s2);
    free(s3);
    kiln_array_release(y);
    kiln_array_release(top);
  }
  kiln_array_release(x);
  kiln_array_release(aa);
  kiln_gufunc_release(g);
}

/* (a,b,c)->(): a weighted sum over a 3-d block, on a permuted view. */
static void test_three_core_dims(kiln_context *ctx) {
  static const char *const sigs[] = {"float64(float64 t)"};
  kiln_gufunc *g = make(ctx, "weighted", "(a,b,c)->()", 1, sigs,
                        "double s = 0;\n"
                        "for (int64_t i = 0; i < a; i++) for (int64_t j = 0; j < b; j++)\n"
                        "  for (int64_t k = 0; k < c; k++)\n"
                        "    s += t(i, j, k) * (1 + i + 2 * j + 3 * k);\n"
                        "return s;",
                        NULL);
  int64_t shape[4] = {5, 3, 4, 2};
  int axes[4] = {3, 1, 0, 2}; /* (2, 3, 5, 4): loop 2, core (3, 5, 4) */
  kiln_array *base = random_array(ctx, KILN_FLOAT64, 4, shape, -1, 1);
  kiln_array *v = view_transpose(base, axes), *out = NULL;
  kiln_operand in[1] = {kiln_operand_array(v)};
  kiln_operand o[1] = {kiln_operand_new(&out)};
  CHECK_OK(kiln_gufunc_call(g, 1, in, 1, o, NULL));
  if (out) {
    char *s1, *s2;
    mirror mv = mirror_of_view(base, v, &s1), mo = mirror_of_view(out, out, &s2);
    for (int64_t l = 0; l < 2; l++) {
      double s = 0;
      for (int64_t i = 0; i < 3; i++)
        for (int64_t j = 0; j < 5; j++)
          for (int64_t k = 0; k < 4; k++) {
            int64_t idx[4] = {l, i, j, k};
            s += at(&mv, idx) * (double)(1 + i + 2 * j + 3 * k);
          }
      int64_t io[1] = {l};
      CHECK_CLOSE(at(&mo, io), s, 1e-12, 1e-12);
    }
    free(s1);
    free(s2);
  }
  kiln_array_release(base);
  kiln_array_release(v);
  kiln_array_release(out);
  kiln_gufunc_release(g);
}

/* ---- dispatch and casts ------------------------------------------------------ */

/* int16 rows pick float32 by safe casting (read cast on load), the output
 * given as float64 (cast on store); the polar layout writes a float64
 * output row from float32 results. */
static void test_dispatch_casts(kiln_context *ctx) {
  kiln_gufunc *g = make(ctx, "l2_norm", "(n)->()", 2, l2_sigs, L2_BODY, NULL);
  int64_t shape[2] = {13, 3};
  kiln_array *x = random_array(ctx, KILN_INT16, 2, shape, -100, 100), *out = NULL;
  CHECK_OK(kiln_array_empty(ctx, KILN_FLOAT64, 1, shape, &out));
  kiln_operand in[1] = {kiln_operand_array(x)};
  kiln_operand o[1] = {kiln_operand_array(out)};
  CHECK_OK(kiln_gufunc_call(g, 1, in, 1, o, NULL));
  int16_t hx[39];
  double ho[13];
  CHECK_OK(kiln_array_to_host(x, hx, NULL));
  CHECK_OK(kiln_array_to_host(out, ho, NULL));
  for (int r = 0; r < 13; r++) {
    float s = 0;
    for (int i = 0; i < 3; i++) s += (float)hx[3 * r + i] * (float)hx[3 * r + i];
    CHECK_CLOSE(ho[r], (double)sqrtf(s), 1e-6, 0);
  }
  /* an int8 output cannot hold float32 under same_kind casting */
  kiln_array *bad = NULL;
  CHECK_OK(kiln_array_empty(ctx, KILN_INT8, 1, shape, &bad));
  kiln_operand ob[1] = {kiln_operand_array(bad)};
  CHECK_STATUS(kiln_gufunc_call(g, 1, in, 1, ob, NULL), KILN_ERROR_INVALID_ARGUMENT);
  kiln_array_release(bad);
  kiln_array_release(x);
  kiln_array_release(out);
  kiln_gufunc_release(g);
}

/* ---- host operands ---------------------------------------------------------- */

static void test_host_operands(kiln_context *ctx) {
  kiln_gufunc *g = make(ctx, "l2_norm", "(n)->()", 2, l2_sigs, L2_BODY, NULL);
  enum { ROWS = 101, N = 5 };
  static float x[ROWS][N];
  static float out[ROWS][2]; /* written: column 1, reversed */
  harness_fill_random(x, KILN_FLOAT32, ROWS * N, -3, 3);
  for (int r = 0; r < ROWS; r++) out[r][0] = out[r][1] = -7;
  int64_t shape[2] = {ROWS, N}, rows = ROWS, ostride[1] = {-(int64_t)(2 * sizeof(float))};
  kiln_operand in[1] = {kiln_operand_host(x, KILN_FLOAT32, 2, shape, NULL)};
  kiln_operand o[1] = {
      kiln_operand_host_output(&out[ROWS - 1][1], KILN_FLOAT32, 1, &rows, ostride)};
  CHECK_OK(kiln_gufunc_call(g, 1, in, 1, o, NULL));
  for (int r = 0; r < ROWS; r++) {
    double s = 0;
    for (int i = 0; i < N; i++) s += (double)x[r][i] * x[r][i];
    CHECK_CLOSE(out[ROWS - 1 - r][1], sqrt(s), 1e-5, 0);
    CHECK(out[r][0] == -7);
  }
  /* a host input with a device output, columns of the host matrix as rows
   * (transposed host strides) */
  int64_t tshape[2] = {N, ROWS}, tstrides[2] = {sizeof(float), N * sizeof(float)};
  kiln_array *dout = NULL;
  kiln_operand tin[1] = {kiln_operand_host(x, KILN_FLOAT32, 2, tshape, tstrides)};
  kiln_operand to[1] = {kiln_operand_new(&dout)};
  CHECK_OK(kiln_gufunc_call(g, 1, tin, 1, to, NULL));
  if (dout) {
    float h[N];
    CHECK_OK(kiln_array_to_host(dout, h, NULL));
    for (int i = 0; i < N; i++) {
      double s = 0;
      for (int r = 0; r < ROWS; r++) s += (double)x[r][i] * x[r][i];
      CHECK_CLOSE(h[i], sqrt(s), 1e-5, 0);
    }
  }
  kiln_array_release(dout);
  /* zero rows from the host */
  int64_t empty[2] = {0, N}, zero = 0;
  kiln_operand ein[1] = {kiln_operand_host(NULL, KILN_FLOAT32, 2, empty, NULL)};
  kiln_operand eo[1] = {kiln_operand_host_output(NULL, KILN_FLOAT32, 1, &zero, NULL)};
  CHECK_OK(kiln_gufunc_call(g, 1, ein, 1, eo, NULL));
  kiln_gufunc_release(g);
}

/* Host operands through many small chunks: a chunk smaller than one core
 * block (the staging grows to hold one), a host matrix broadcast over the
 * loop dims and staged per chunk, one uploaded whole, a device input and
 * host output mixed, strided host memory in and out. */
static void test_host_chunks(kiln_context *ctx) {
  static const char *const sigs[] = {"(float64 y)(float64 M, float64 v)"};
  kiln_gufunc *g = make(ctx, "matvec_h", "(n,m),(m)->(n)", 1, sigs,
                        "for (int64_t i = 0; i < n; i++) {\n"
                        "  double s = 0;\n"
                        "  for (int64_t j = 0; j < m; j++) s += M(i, j) * v(j);\n"
                        "  y(i) = s;\n"
                        "}",
                        NULL);
  CHECK_STATUS(kiln_gufunc_set_host_chunk_bytes(g, 0), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_gufunc_set_host_chunk_bytes(NULL, 64), KILN_ERROR_INVALID_ARGUMENT);
  enum { B = 3, L = 10, N = 7, M = 6 };
  static double mat[N][M], vec[B][L][M], out[B][L][N], mat_t[M][N];
  harness_fill_random(mat, KILN_FLOAT64, N * M, -1, 1);
  harness_fill_random(vec, KILN_FLOAT64, B * L * M, -1, 1);
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++) mat_t[j][i] = mat[i][j];
  int64_t ms[2] = {N, M}, vs[3] = {B, L, M}, ys[3] = {B, L, N};
  int64_t mt_strides[2] = {sizeof(double), N * sizeof(double)}; /* mat_t read as mat */
  static const size_t chunks[] = {100, 4096, 1 << 20};
  kiln_array *dv = NULL;
  CHECK_OK(kiln_array_from_host(ctx, KILN_FLOAT64, 3, vs, NULL, vec, &dv));
  for (int t = 0; t < 3; t++)
    for (int form = 0; form < 2; form++) {
      CHECK_OK(kiln_gufunc_set_host_chunk_bytes(g, chunks[t]));
      memset(out, 0, sizeof out);
      kiln_operand in[2] = {kiln_operand_host(mat_t, KILN_FLOAT64, 2, ms, mt_strides),
                            form ? kiln_operand_array(dv)
                                 : kiln_operand_host(vec, KILN_FLOAT64, 3, vs, NULL)};
      kiln_operand o[1] = {kiln_operand_host_output(out, KILN_FLOAT64, 3, ys, NULL)};
      CHECK_OK(kiln_gufunc_call(g, 2, in, 1, o, NULL));
      for (int b = 0; b < B; b++)
        for (int l = 0; l < L; l++)
          for (int i = 0; i < N; i++) {
            double s = 0;
            for (int j = 0; j < M; j++) s += mat[i][j] * vec[b][l][j];
            CHECK_CLOSE(out[b][l][i], s, 1e-12, 1e-14);
          }
    }
  kiln_array_release(dv);
  kiln_gufunc_release(g);
}

/* ---- size 0 ---------------------------------------------------------------- */

static void test_size_zero(kiln_context *ctx) {
  static const char *const sigs[] = {"(float64 y)(float64 x)"};
  kiln_gufunc *g = make(ctx, "cumsum", "(n)->(n)", 1, sigs,
                        "double s = 0; for (int64_t i = 0; i < n; i++) { s += x(i); y(i) = s; }",
                        NULL);
  /* (0, 5): nothing runs, the output is (0, 5); (4, 0): empty rows */
  int64_t shapes[2][2] = {{0, 5}, {4, 0}};
  for (int t = 0; t < 2; t++) {
    kiln_array *x = NULL, *y = NULL;
    CHECK_OK(kiln_array_zeros(ctx, KILN_FLOAT64, 2, shapes[t], &x));
    kiln_operand in[1] = {kiln_operand_array(x)};
    kiln_operand o[1] = {kiln_operand_new(&y)};
    CHECK_OK(kiln_gufunc_call(g, 1, in, 1, o, NULL));
    CHECK(y && kiln_array_ndim(y) == 2 && kiln_array_shape(y)[0] == shapes[t][0] &&
          kiln_array_shape(y)[1] == shapes[t][1]);
    kiln_array_release(x);
    kiln_array_release(y);
  }
  /* a sum over empty rows is 0 */
  kiln_gufunc *l2 = make(ctx, "l2_norm", "(n)->()", 2, l2_sigs, L2_BODY, NULL);
  int64_t s[2] = {3, 0};
  kiln_array *x = NULL, *out = NULL;
  CHECK_OK(kiln_array_zeros(ctx, KILN_FLOAT32, 2, s, &x));
  float minus = -1;
  int64_t three = 3;
  CHECK_OK(kiln_array_full(ctx, KILN_FLOAT32, 1, &three, &minus, &out));
  kiln_operand in[1] = {kiln_operand_array(x)};
  kiln_operand o[1] = {kiln_operand_array(out)};
  CHECK_OK(kiln_gufunc_call(l2, 1, in, 1, o, NULL));
  float h[3];
  CHECK_OK(kiln_array_to_host(out, h, NULL));
  for (int i = 0; i < 3; i++) CHECK(h[i] == 0);
  kiln_array_release(x);
  kiln_array_release(out);
  kiln_gufunc_release(l2);
  kiln_gufunc_release(g);
}

/* ---- a helper in the preamble, a second gufunc sharing it --------------------- */

static void test_preamble_helper(kiln_context *ctx) {
  static const char *const sigs[] = {"(float64 out)(float64 row)"};
  const char *helper =
      "KILN_DEVICE double row_sum(KILN_GLOBAL const double *p, int64_t stride, int64_t n) {\n"
      "  double s = 0; for (int64_t i = 0; i < n; i++) s += p[i * stride]; return s;\n}\n";
  kiln_gufunc *sum = make(ctx, "row_sum_g", "(k)->()", 1, sigs,
                          "out = row_sum(KILN_DATA(row), KILN_STRIDE(row, 0), k);", helper);
  kiln_gufunc *avg = make(ctx, "row_avg_g", "(k)->()", 1, sigs,
                          "out = row_sum(KILN_DATA(row), KILN_STRIDE(row, 0), k) / k;", helper);
  int64_t shape[2] = {29, 23}; /* 23: passed at run time */
  kiln_array *base = random_array(ctx, KILN_FLOAT64, 2, shape, -1, 1);
  kiln_array *t = view_transpose(base, NULL); /* rows of stride 23 */
  const kiln_array *ins[2] = {base, t};
  for (int v = 0; v < 2; v++)
    for (int which = 0; which < 2; which++) {
      kiln_array *out = NULL;
      kiln_operand in[1] = {kiln_operand_array(ins[v])};
      kiln_operand o[1] = {kiln_operand_new(&out)};
      CHECK_OK(kiln_gufunc_call(which ? avg : sum, 1, in, 1, o, NULL));
      if (!out) continue;
      char *s1, *s2;
      mirror mi = mirror_of_view(base, ins[v], &s1), mo = mirror_of_view(out, out, &s2);
      int64_t rows = kiln_array_shape(ins[v])[0], n = kiln_array_shape(ins[v])[1];
      for (int64_t r = 0; r < rows; r++) {
        double s = 0;
        for (int64_t i = 0; i < n; i++) {
          int64_t idx[2] = {r, i};
          s += at(&mi, idx);
        }
        int64_t io[1] = {r};
        CHECK_CLOSE(at(&mo, io), which ? s / (double)n : s, 1e-12, 1e-14);
      }
      free(s1);
      free(s2);
      kiln_array_release(out);
    }
  kiln_array_release(base);
  kiln_array_release(t);
  kiln_gufunc_release(sum);
  kiln_gufunc_release(avg);
}

/* ---- bad input ------------------------------------------------------------- */

static void test_bad_create(kiln_context *ctx) {
  kiln_gufunc *g = (kiln_gufunc *)1;
  static const char *const one[] = {"float32(float32 x)"};
  static const char *const two_in[] = {"float32(float32 x, float32 y)"};
  static const char *const named_n[] = {"float32(float32 n)"};
  static const char *const row_out[] = {"float32(float32 x)"};
  CHECK_STATUS(kiln_gufunc_create(ctx, "g", "(n->()", 1, one, "return 0;", NULL, &g),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK(g == NULL);
  CHECK_ERROR_CONTAINS("column 3");
  CHECK_ERROR_CONTAINS("\n    ^");
  CHECK_STATUS(kiln_gufunc_create(ctx, "g", "(n),(n)->()", 1, one, "return 0;", NULL, &g),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("has 2 inputs and 1 output");
  CHECK_STATUS(kiln_gufunc_create(ctx, "g", "(n)->()", 1, two_in, "return 0;", NULL, &g),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_gufunc_create(ctx, "g", "(n)->()", 1, named_n, "return 0;", NULL, &g),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("'n'");
  CHECK_STATUS(kiln_gufunc_create(ctx, "g", "(n)->(n)", 1, row_out, "return 0;", NULL, &g),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("returns its output");
  static const char *const bad_sig[] = {"(float32 y)(floot32 x)"};
  CHECK_STATUS(kiln_gufunc_create(ctx, "g", "(n)->(n)", 1, bad_sig, "", NULL, &g),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("column 13");
  CHECK_STATUS(kiln_gufunc_create(ctx, "bad name", "(n)->()", 1, one, "", NULL, &g),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_gufunc_create(NULL, "g", "(n)->()", 1, one, "", NULL, &g),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_gufunc_create(ctx, "g", NULL, 1, one, "", NULL, &g),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_gufunc_create(ctx, "g", "(n)->()", 0, one, "", NULL, &g),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_gufunc_create(ctx, "g", "(n)->()", 1, one, NULL, NULL, &g),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK(g == NULL);
}

static void test_bad_calls(kiln_context *ctx) {
  kiln_gufunc *mm = make(ctx, "matmul", "(m,n),(n,p)->(m,p)", 1, mm_sigs, MM_BODY, NULL);
  int64_t as[2] = {3, 4}, bs[2] = {5, 2}, vs[1] = {4}, ls[3] = {2, 3, 4}, lb[3] = {3, 4, 2};
  kiln_array *a = random_array(ctx, KILN_FLOAT64, 2, as, -1, 1);
  kiln_array *b = random_array(ctx, KILN_FLOAT64, 2, bs, -1, 1);
  kiln_array *v = random_array(ctx, KILN_FLOAT64, 1, vs, -1, 1);
  kiln_array *la = random_array(ctx, KILN_FLOAT64, 3, ls, -1, 1);
  kiln_array *lbb = random_array(ctx, KILN_FLOAT64, 3, lb, -1, 1);
  kiln_array *c = (kiln_array *)1;
  kiln_operand o[1] = {kiln_operand_new(&c)};
  /* core size mismatch: n is 4 in input 0 and 5 in input 1 */
  kiln_operand in[2] = {kiln_operand_array(a), kiln_operand_array(b)};
  CHECK_STATUS(kiln_gufunc_call(mm, 2, in, 1, o, NULL), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("core dimension 'n' mismatch: input 0 has 4, input 1 has 5");
  CHECK(c == NULL);
  /* too few dims */
  kiln_operand in2[2] = {kiln_operand_array(a), kiln_operand_array(v)};
  CHECK_STATUS(kiln_gufunc_call(mm, 2, in2, 1, o, NULL), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("input 1 has 1 dim, too few for its core dims (n, p)");
  /* a NULL array */
  kiln_operand in7[2] = {kiln_operand_array(NULL), kiln_operand_array(b)};
  CHECK_STATUS(kiln_gufunc_call(mm, 2, in7, 1, o, NULL), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("gufunc 'matmul': input 0 is a NULL array");
  /* a scalar for an operand with core dims */
  kiln_operand in3[2] = {kiln_operand_array(a), kiln_operand_float(2)};
  CHECK_STATUS(kiln_gufunc_call(mm, 2, in3, 1, o, NULL), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("is a scalar");
  /* wrong arity */
  CHECK_STATUS(kiln_gufunc_call(mm, 1, in, 1, o, NULL), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("takes 2 inputs and 1 output, 1 and 1 given");
  CHECK_STATUS(kiln_gufunc_call(mm, 2, in, 0, o, NULL), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_gufunc_call(NULL, 2, in, 1, o, NULL), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_gufunc_call(mm, 2, NULL, 1, o, NULL), KILN_ERROR_INVALID_ARGUMENT);
  /* loop dims that do not broadcast: (2,) against (3,) */
  kiln_operand in4[2] = {kiln_operand_array(la), kiln_operand_array(lbb)};
  CHECK_STATUS(kiln_gufunc_call(mm, 2, in4, 1, o, NULL), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("gufunc 'matmul': operands could not be broadcast");
  /* an output of the wrong core shape, and of the wrong loop shape */
  int64_t cs[2] = {3, 3}, cl[3] = {2, 3, 2};
  kiln_array *wrong = NULL, *wrong_loop = NULL;
  kiln_array *b42 = random_array(ctx, KILN_FLOAT64, 2, (int64_t[]){4, 2}, -1, 1);
  CHECK_OK(kiln_array_empty(ctx, KILN_FLOAT64, 2, cs, &wrong));
  CHECK_OK(kiln_array_empty(ctx, KILN_FLOAT64, 3, cl, &wrong_loop));
  kiln_operand in5[2] = {kiln_operand_array(a), kiln_operand_array(b42)};
  kiln_operand ow[1] = {kiln_operand_array(wrong)};
  CHECK_STATUS(kiln_gufunc_call(mm, 2, in5, 1, ow, NULL), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("core dimension 'p' mismatch: input 1 has 2, output 0 has 3");
  /* outputs take part in broadcasting, as in NumPy: loop (2,) against (5,) */
  kiln_array *a534 = random_array(ctx, KILN_FLOAT64, 3, (int64_t[]){5, 3, 4}, -1, 1);
  kiln_operand in6[2] = {kiln_operand_array(a534), kiln_operand_array(b42)};
  kiln_operand owl[1] = {kiln_operand_array(wrong_loop)};
  CHECK_STATUS(kiln_gufunc_call(mm, 2, in6, 1, owl, NULL), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("could not be broadcast");
  kiln_array_release(a534);
  /* an output broadcast along a core dim */
  kiln_array *row = NULL, *spread = NULL;
  int64_t one[2] = {3, 1}, wide[2] = {3, 2};
  CHECK_OK(kiln_array_empty(ctx, KILN_FLOAT64, 2, one, &row));
  CHECK_OK(kiln_array_broadcast_to(row, 2, wide, &spread));
  kiln_operand osp[1] = {kiln_operand_array(spread)};
  CHECK_STATUS(kiln_gufunc_call(mm, 2, in5, 1, osp, NULL), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("stride 0 along core dim 1");
  kiln_array_release(row);
  kiln_array_release(spread);
  /* a core dim only outputs have, with the output allocated */
  static const char *const zsig[] = {"(float32 y)(float32 x)"};
  kiln_gufunc *z = make(ctx, "widen", "(n)->(k)", 1, zsig, "", NULL);
  kiln_array *v32 = random_array(ctx, KILN_FLOAT32, 1, vs, -1, 1);
  kiln_operand zin[1] = {kiln_operand_array(v32)};
  /* no signature for float64 (float32 only) */
  kiln_operand z64[1] = {kiln_operand_array(v)};
  CHECK_STATUS(kiln_gufunc_call(z, 1, z64, 1, o, NULL), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("gufunc 'widen' has no signature for inputs (float64)");
  CHECK_STATUS(kiln_gufunc_call(z, 1, zin, 1, o, NULL), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("'k' appears only in outputs");
  /* a body that does not compile */
  kiln_gufunc *broken = make(ctx, "broken", "(n)->(n)", 1, zsig, "y(0) = undefined_thing;", NULL);
  kiln_operand bin[1] = {kiln_operand_array(v32)};
  CHECK_STATUS(kiln_gufunc_call(broken, 1, bin, 1, o, NULL), KILN_ERROR_COMPILE);
  CHECK_ERROR_CONTAINS("gufunc 'broken'");
  kiln_array *all[] = {a, b, v, la, lbb, wrong, wrong_loop, b42, v32};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) kiln_array_release(all[i]);
  kiln_gufunc_release(z);
  kiln_gufunc_release(broken);
  kiln_gufunc_release(mm);
}

static void test_properties(kiln_context *ctx) {
  kiln_gufunc *g = make(ctx, "matmul", "(m,n),(n,p)->(m,p)", 1, mm_sigs, MM_BODY, NULL);
  CHECK(strcmp(kiln_gufunc_name(g), "matmul") == 0);
  CHECK(strcmp(kiln_gufunc_layout(g), "(m,n),(n,p)->(m,p)") == 0);
  CHECK(kiln_gufunc_nin(g) == 2 && kiln_gufunc_nout(g) == 1);
  CHECK(kiln_gufunc_signature_count(g) == 1);
  CHECK(strcmp(kiln_gufunc_signature(g, 0), mm_sigs[0]) == 0);
  CHECK(kiln_gufunc_signature(g, 1) == NULL && kiln_gufunc_signature(NULL, 0) == NULL);
  CHECK(kiln_gufunc_retain(g) == g);
  kiln_gufunc_release(g);
  kiln_gufunc_release(g);
  kiln_gufunc_release(NULL);
  CHECK(kiln_gufunc_nin(NULL) == 0);
}

static const harness_test tests[] = {
    {"l2_norm_sizes", test_l2_norm_sizes},
    {"l2_norm_views", test_l2_norm_views},
    {"matmul", test_matmul},
    {"matvec_batch", test_matvec_batch},
    {"cross_fixed", test_cross_fixed},
    {"several_outputs_scalar", test_several_outputs_scalar},
    {"three_core_dims", test_three_core_dims},
    {"dispatch_casts", test_dispatch_casts},
    {"host_operands", test_host_operands},
    {"host_chunks", test_host_chunks},
    {"size_zero", test_size_zero},
    {"preamble_helper", test_preamble_helper},
    {"bad_create", test_bad_create},
    {"bad_calls", test_bad_calls},
    {"properties", test_properties},
    {0},
};

int main(int argc, char **argv) { return harness_main(argc, argv, tests); }
