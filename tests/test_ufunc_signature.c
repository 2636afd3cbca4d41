/* Conformance (no device): the ufunc signature parser, valid forms and
 * every kind of bad input with the column it reports. */
#include "core/ufunc/ufunc_internal.h"
#include "harness.h"

static int name_is(const kiln_ufunc_sig *s, int slot, const char *name) {
  return s->names[slot].length == (int)strlen(name) &&
         memcmp(s->text + s->names[slot].start, name, strlen(name)) == 0;
}

static void test_return_form(kiln_context *unused) {
  (void)unused;
  kiln_ufunc_sig s;
  REQUIRE_OK(kiln_ufunc_signature_parse("float32(float32 x, float32 mean, float32 sigma)", 0, &s));
  CHECK(s.nin == 3 && s.nout == 1 && s.returns_value);
  CHECK(s.dtypes[0] == KILN_FLOAT32 && s.dtypes[3] == KILN_FLOAT32);
  CHECK(name_is(&s, 0, "x") && name_is(&s, 1, "mean") && name_is(&s, 2, "sigma"));
  kiln_ufunc_signature_free(&s);
  /* aliases, odd spacing, mixed types */
  REQUIRE_OK(kiln_ufunc_signature_parse("  bool ( f8 a ,int16   b,\tuint64 c_2 )  ", 0, &s));
  CHECK(s.nin == 3 && s.nout == 1);
  CHECK(s.dtypes[0] == KILN_FLOAT64 && s.dtypes[1] == KILN_INT16 && s.dtypes[2] == KILN_UINT64);
  CHECK(s.dtypes[3] == KILN_BOOL);
  CHECK(name_is(&s, 2, "c_2"));
  kiln_ufunc_signature_free(&s);
  REQUIRE_OK(kiln_ufunc_signature_parse("double(float x)", 0, &s));
  CHECK(s.dtypes[0] == KILN_FLOAT32 && s.dtypes[1] == KILN_FLOAT64);
  kiln_ufunc_signature_free(&s);
}

static void test_named_outputs(kiln_context *unused) {
  (void)unused;
  kiln_ufunc_sig s;
  REQUIRE_OK(kiln_ufunc_signature_parse("(float32 r, float64 theta)(int32 x, float32 y)", 0, &s));
  CHECK(s.nin == 2 && s.nout == 2 && !s.returns_value);
  CHECK(s.dtypes[0] == KILN_INT32 && s.dtypes[1] == KILN_FLOAT32);
  CHECK(s.dtypes[2] == KILN_FLOAT32 && s.dtypes[3] == KILN_FLOAT64);
  CHECK(name_is(&s, 0, "x") && name_is(&s, 1, "y"));
  CHECK(name_is(&s, 2, "r") && name_is(&s, 3, "theta"));
  kiln_ufunc_signature_free(&s);
  REQUIRE_OK(kiln_ufunc_signature_parse("(int8 out)(int8 in)", 0, &s));
  CHECK(s.nin == 1 && s.nout == 1 && !s.returns_value);
  kiln_ufunc_signature_free(&s);
}

/* Expects a parse failure whose message names `column` and holds `needle`. */
static void bad(const char *text, int column, const char *needle) {
  kiln_ufunc_sig s;
  kiln_status status = kiln_ufunc_signature_parse(text, 3, &s);
  CHECK_MSG(status == KILN_ERROR_INVALID_ARGUMENT, "\"%s\" parsed: %s", text,
            kiln_status_string(status));
  if (status == KILN_OK) {
    kiln_ufunc_signature_free(&s);
    return;
  }
  char col[32];
  snprintf(col, sizeof col, "column %d", column);
  CHECK_MSG(strstr(kiln_last_error(), col) != NULL, "\"%s\": wanted %s in: %s", text, col,
            kiln_last_error());
  CHECK_ERROR_CONTAINS(needle);
  CHECK_ERROR_CONTAINS("signature 3");
  CHECK_ERROR_CONTAINS(text);
  /* the caret sits under the column: the line after the quoted text has
   * column-1 spaces after its indent */
  const char *line = strstr(kiln_last_error(), "\n  ");
  line = line ? strstr(line + 1, "\n  ") : NULL;
  CHECK_MSG(line && (int)strspn(line + 3, " ") == column - 1 && line[3 + column - 1] == '^',
            "caret misplaced for \"%s\": %s", text, kiln_last_error());
}

static void test_bad_signatures(kiln_context *unused) {
  (void)unused;
  bad("", 1, "expected a type name");
  bad("float32", 8, "expected '('");
  bad("float32(", 9, "expected a type name");
  bad("float32()", 9, "expected a parameter");
  bad("flaot32(float32 x)", 1, "unknown type 'flaot32'");
  bad("float32(float32 x,, float32 y)", 19, "expected a type name");
  bad("float32(float32)", 16, "expected a parameter name");
  bad("float32(float32 x float32 y)", 19, "expected ',' or ')'");
  bad("float32(float32 x, float32 x)", 28, "'x' is used twice");
  bad("(float32 x)(float32 x)", 21, "'x' is used twice");
  bad("float32(float32 x) junk", 20, "unexpected text");
  bad("float32(float32 x", 18, "expected ',' or ')'");
  bad("(float32 r float32 t)(float32 x)", 12, "expected ',' or ')'");
  bad("float32(float32 kiln_x)", 17, "reserved");
  bad("float32(complex32 z)", 9, "unknown type 'complex32'");
  bad("float32(float32 1x)", 17, "expected a parameter name");
}

static void test_too_many_operands(kiln_context *unused) {
  (void)unused;
  char text[2048] = "float32(";
  for (int i = 0; i < 40; i++) {
    char p[32];
    snprintf(p, sizeof p, "%sfloat32 p%d", i ? ", " : "", i);
    strcat(text, p);
  }
  strcat(text, ")");
  kiln_ufunc_sig s;
  CHECK_STATUS(kiln_ufunc_signature_parse(text, 0, &s), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("more than 32 inputs and outputs");
}

static const harness_test tests[] = {
    {"return_form", test_return_form},
    {"named_outputs", test_named_outputs},
    {"bad_signatures", test_bad_signatures},
    {"too_many_operands", test_too_many_operands},
    {0},
};

int main(int argc, char **argv) { return harness_main_no_context(argc, argv, tests); }
