/* Conformance (no device): the gufunc layout grammar, its column-pointing
 * errors, create-time checks against the signatures, and the shape of the
 * generated core-loop source (baked sizes, unit strides, accessors). */
#include "core/gufunc/gufunc_internal.h"
#include "harness.h"

static void test_layouts(kiln_context *ctx) {
  (void)ctx;
  kiln_gufunc_core_layout l;
  CHECK_OK(kiln_gufunc_layout_parse(" ( m , n ) , (n,p) -> (m,p) ", &l));
  CHECK(l.nin == 2 && l.nout == 1 && l.nnames == 3);
  CHECK(l.ndim[0] == 2 && l.ndim[1] == 2 && l.ndim[2] == 2);
  CHECK(l.dims[0][1] == l.dims[1][0] && l.dims[2][1] == l.dims[1][1]);
  CHECK(strcmp(l.names[0], "m") == 0 && l.fixed[0] == -1);
  CHECK_OK(kiln_gufunc_layout_parse("(),()->()", &l));
  CHECK(l.nin == 2 && l.nout == 1 && l.nnames == 0 && l.ndim[0] == 0);
  CHECK_OK(kiln_gufunc_layout_parse("(3),(3)->(3)", &l));
  CHECK(l.nnames == 3 && l.fixed[0] == 3 && l.fixed[2] == 3);
  CHECK_OK(kiln_gufunc_layout_parse("(n)->(),()", &l));
  CHECK(l.nout == 2 && l.ndim[1] == 0 && l.ndim[2] == 0);
  CHECK_OK(kiln_gufunc_layout_parse("(a,b,c)->(c,b,a)", &l));
  CHECK(l.ndim[1] == 3 && l.dims[1][0] == l.dims[0][2]);
}

static void bad(const char *layout, const char *needle, int column) {
  kiln_gufunc_core_layout l;
  kiln_status s = kiln_gufunc_layout_parse(layout, &l);
  CHECK_MSG(s == KILN_ERROR_INVALID_ARGUMENT, "layout \"%s\" parsed", layout);
  CHECK_MSG(strstr(kiln_last_error(), needle) != NULL, "\"%s\": %s", layout, kiln_last_error());
  char where[32];
  snprintf(where, sizeof where, "column %d\n", column);
  CHECK_MSG(strstr(kiln_last_error(), where) != NULL, "\"%s\": %s", layout, kiln_last_error());
  /* the caret sits under the column */
  const char *caret = strrchr(kiln_last_error(), '\n');
  CHECK(caret && (int)strlen(caret) == 1 + 2 + column);
}

static void test_bad_layouts(kiln_context *ctx) {
  (void)ctx;
  bad("", "expected '('", 1);
  bad("(n)", "expected ',' or '->'", 4);
  bad("(n)->", "expected '('", 6);
  bad("(n->()", "expected ',' or ')'", 3);
  bad("(n,)->()", "expected a dim name or size", 4);
  bad("(n)->() x", "unexpected text", 9);
  bad("(n,n)->()", "appears twice", 4);
  bad("(0)->()", "at least 1", 2);
  bad("(kiln_n)->()", "reserved", 2);
  bad("(99999999999)->()", "too large", 2);
  bad("(a,b,c,d,e,f,g,h,i)->()", "more than 8 core dims", 18);
  bad("(n)-()", "expected ',' or '->'", 4);
  CHECK_STATUS(kiln_gufunc_layout_parse(NULL, &(kiln_gufunc_core_layout){0}),
               KILN_ERROR_INVALID_ARGUMENT);
}

static void test_create_checks(kiln_context *ctx) {
  (void)ctx;
  kiln_gufunc *g = NULL;
  static const char *const sig[] = {"(float32 y)(float32 x)"};
  CHECK_STATUS(kiln_gufunc_make(NULL, "g", "(n)->(n", 1, sig, "", NULL, &g),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("gufunc 'g'");
  CHECK_ERROR_CONTAINS("column 8");
  static const char *const two[] = {"(float32 y)(float32 x)", "(float32 y, float32 z)(float32 x)"};
  CHECK_STATUS(kiln_gufunc_make(NULL, "g", "(n)->(n)", 2, two, "", NULL, &g),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK(g == NULL);
}

/* The generated source of l2_norm at n = 4 (baked, unit stride) and at a
 * size passed as an argument with a general stride. */
static void test_source(kiln_context *ctx) {
  (void)ctx;
  static const char *const sig[] = {"float32(float32 x)"};
  kiln_gufunc *g = NULL;
  REQUIRE_OK(kiln_gufunc_make(NULL, "l2", "(n)->()", 1, sig,
                              "float s = 0; for (int64_t i = 0; i < n; i++) s += x(i) * x(i); "
                              "return sqrt(s);",
                              NULL, &g));
  uint8_t memory[2] = {KILN_FLOAT32, KILN_FLOAT32};
  int unit[2][KILN_CORE_MAX_DIMS] = {{1}, {0}};
  int64_t baked[1] = {4}, passed[1] = {-1};
  char entry[96];
  kiln_core_loop loop;
  kiln_gufunc_describe(g, 0, memory, baked, unit, 1, entry,
                       &loop);
  kiln_strbuf b = {0};
  kiln_core_loop_source(&loop, &b);
  REQUIRE_OK(kiln_strbuf_status(&b));
  CHECK(strstr(b.data, "const int64_t n = 4;") != NULL);
  CHECK(strstr(b.data, "#define x(kiln_a0) (kiln_p0[(kiln_a0)])") != NULL);
  CHECK(strstr(b.data, "kiln_r1 = kiln_gufunc_l2_body(p0 + e0);") != NULL);
  CHECK(strstr(b.data, "p1[e1] = kiln_r1;") != NULL);
  kiln_strbuf_free(&b);
  unit[0][0] = 0;
  memory[0] = KILN_INT16;
  kiln_gufunc_describe(g, 0, memory, passed, unit, 2, entry,
                       &loop);
  kiln_core_loop_source(&loop, &b);
  REQUIRE_OK(kiln_strbuf_status(&b));
  CHECK(strstr(b.data, "int64_t n, KILN_GLOBAL const int16_t *kiln_p0, int64_t kiln_t0_0") != NULL);
  CHECK(strstr(b.data, "((float)kiln_p0[(kiln_a0) * kiln_t0_0])") != NULL);
  CHECK(strstr(b.data, "int64_t kiln_n0, int64_t kiln_c0_0) {") != NULL);
  CHECK(strstr(b.data, "int64_t shape1") != NULL);
  int64_t extra[8], sizes[1] = {9};
  int64_t strides[2][KILN_CORE_MAX_DIMS] = {{-3}, {0}};
  CHECK(kiln_core_loop_extra(&loop, sizes, strides,
                             extra) == 2);
  CHECK(extra[0] == 9 && extra[1] == -3);
  kiln_strbuf_free(&b);
  kiln_gufunc_release(g);
}

static const harness_test tests[] = {
    {"layouts", test_layouts},
    {"bad_layouts", test_bad_layouts},
    {"create_checks", test_create_checks},
    {"source", test_source},
    {0},
};

int main(int argc, char **argv) { return harness_main_no_context(argc, argv, tests); }
