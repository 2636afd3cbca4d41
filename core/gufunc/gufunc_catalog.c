/* core/gufunc/gufunc_catalog.c: gufunc kernels for the compile checks on
 * GPU targets absent from the machine (core/kernel/kernel_catalog.h): the
 * tutorials' gufuncs (l2_norm, polar, average through a helper, matrix
 * multiply, matrix-vector product, cross product) at the variants a call makes: core
 * sizes baked and passed, unit and general core strides, contiguous and
 * strided loops, a scalar input, casts on load and store, rows staged in
 * local memory (long core dims). */
#include <stdio.h>
#include <string.h>

#include "core/gufunc/gufunc_internal.h"

typedef struct sample {
  const char *name, *layout, *signature, *body, *preamble;
} sample;

static const sample samples[] = {
    {"l2_norm", "(n)->()", "float32(float32 x)",
     "float s = 0; for (int64_t i = 0; i < n; i++) s += x(i) * x(i); return sqrt(s);", NULL},
    {"polar", "(i)->(i)", "(float32 rt)(float32 xy)",
     "rt(0) = sqrt(xy(0) * xy(0) + xy(1) * xy(1)); rt(1) = atan2(xy(1), xy(0));", NULL},
    {"average", "(i)->()", "(float32 out)(float32 row)",
     "out = row_sum(KILN_DATA(row), KILN_STRIDE(row, 0), i) / i;",
     "KILN_DEVICE float row_sum(KILN_GLOBAL const float *row, int64_t stride, int64_t n) {\n"
     "  float s = 0; for (int64_t i = 0; i < n; i++) s += row[i * stride]; return s;\n}\n"},
    {"matvec", "(n,m),(m)->(n)", "(float32 y)(float32 M, float32 v)",
     "for (int64_t i = 0; i < n; i++) {\n"
     "  double s = 0; for (int64_t j = 0; j < m; j++) s += M(i, j) * v(j); y(i) = s; }",
     NULL},
    {"matmul", "(m,n),(n,p)->(m,p)", "(float64 C)(float64 A, float64 B)",
     "for (int64_t i = 0; i < m; i++) for (int64_t j = 0; j < p; j++) {\n"
     "  double s = 0; for (int64_t k = 0; k < n; k++) s += A(i, k) * B(k, j); C(i, j) = s; }",
     NULL},
    {"scale_rows", "(n),()->(n),()", "(float32 y, float32 top)(float32 x, float32 a)",
     "top = 0; for (int64_t i = 0; i < n; i++) { y(i) = a * x(i); top = fmax(top, y(i)); }",
     NULL},
    {"cross", "(3),(3)->(3)", "(float64 c)(float64 a, float64 b)",
     "c(0) = a(1) * b(2) - a(2) * b(1); c(1) = a(2) * b(0) - a(0) * b(2);\n"
     "c(2) = a(0) * b(1) - a(1) * b(0);",
     NULL},
};

/* Variant v of a sample: 0 baked sizes, unit strides, contiguous-free
 * strided loop of 1 dim; 1 sizes and strides as arguments, 2 loop dims;
 * 2 inputs read from int16 and 0-core outputs stored as float64, input 1
 * by value where it has no core dims; 3 that of 1 with every input of one
 * core dim staged (the samples without KILN_DATA), input 0 as one span. */
static void add_variant(const kiln_gufunc *g, int v, kiln_strbuf *b) {
  const kiln_ufunc *u = g->ufunc;
  const kiln_gufunc_core_layout *l = &g->layout;
  const kiln_ufunc_sig *s = &u->sigs[0];
  uint8_t memory[KILN_UFUNC_MAX_OPERANDS];
  int64_t sizes[KILN_CORE_MAX_NAMES];
  int unit[KILN_UFUNC_MAX_OPERANDS][KILN_CORE_MAX_DIMS];
  for (int j = 0; j < u->nin + u->nout; j++) {
    memory[j] = (uint8_t)s->dtypes[j];
    /* helpers take the block's pointer: keep its type where a preamble is */
    int cast = v == 2;
    if (cast && j < u->nin && !u->preamble) memory[j] = KILN_INT16;
    if (cast && j >= u->nin && l->ndim[j] == 0) memory[j] = KILN_FLOAT64;
    if (cast && j == 1 && j < u->nin && l->ndim[j] == 0) memory[j] = KILN_UFUNC_SCALAR_SLOT;
    for (int c = 0; c < KILN_CORE_MAX_DIMS; c++) unit[j][c] = v == 0 && c == l->ndim[j] - 1;
  }
  for (int d = 0; d < l->nnames; d++) sizes[d] = v == 0 ? 4 : -1;
  char entry[96], base[KILN_UFUNC_NAME_MAX];
  kiln_core_loop loop;
  snprintf(base, sizeof base, "%s", u->name);
  kiln_gufunc_describe(g, 0, memory, sizes, unit, v == 0 ? 1 : 2,
                       entry, &loop);
  for (int j = 0; v == 3 && !g->raw_blocks && j < u->nin; j++)
    if (l->ndim[j] == 1 && memory[j] != KILN_UFUNC_SCALAR_SLOT)
      loop.operands[j].staged = j == 0 ? 2 : 1; /* one span, rows anywhere */
  char unique[128];
  snprintf(unique, sizeof unique, "%s_v%d", entry, v);
  loop.entry = unique;
  kiln_core_loop_source(&loop, b);
}

static int has_row_input(const kiln_gufunc *g) {
  for (int j = 0; j < g->layout.nin; j++)
    if (g->layout.ndim[j] == 1) return 1;
  return 0;
}

kiln_status kiln_gufunc_catalog_add(kiln_catalog *c) {
  kiln_status status = KILN_OK;
  for (size_t i = 0; status == KILN_OK && i < sizeof samples / sizeof samples[0]; i++) {
    const sample *s = &samples[i];
    kiln_gufunc *g = NULL;
    status = kiln_gufunc_make(NULL, s->name, s->layout, 1, &s->signature, s->body, s->preamble,
                              &g);
    for (int v = 0; status == KILN_OK && v < 4; v++) {
      if (v == 3 && (g->raw_blocks || !has_row_input(g))) continue;
      /* a preamble may appear once per source: one source per variant */
      kiln_strbuf b = {0};
      add_variant(g, v, &b);
      char what[128];
      snprintf(what, sizeof what, "gufunc %s %s, variant %d", s->name, s->layout, v);
      status = kiln_strbuf_status(&b);
      if (status == KILN_OK) status = kiln_catalog_add(c, what, b.data);
      kiln_strbuf_free(&b);
    }
    kiln_gufunc_release(g);
  }
  return status;
}
