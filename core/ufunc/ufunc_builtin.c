/* core/ufunc/ufunc_builtin.c: kiln's built-in ufuncs, made from the one table in
 * kernels/ufuncs.def: each row expands to one signature per dtype it
 * covers, with the row's body for that dtype. */
#include <stdlib.h>
#include <string.h>

#include "core/ufunc/ufunc_internal.h"

typedef struct builtin_row {
  const char *name, *dtypes, *inputs, *output, *body;
} builtin_row;

static const builtin_row rows[] = {
#define KILN_UFUNC(name, dtypes, inputs, output, body) {#name, dtypes, inputs, output, body},
#include "kernels/ufuncs.def"
#undef KILN_UFUNC
};
#define NROWS ((int)(sizeof rows / sizeof rows[0]))

static const struct {
  const char *alias, *name;
} aliases[] = {
    {"abs", "absolute"},       {"true_divide", "divide"},   {"mod", "remainder"},
    {"conj", "conjugate"},     {"bitwise_not", "invert"},   {"bitwise_invert", "invert"},
    {"bitwise_left_shift", "left_shift"}, {"bitwise_right_shift", "right_shift"},
    {"pow", "power"},          {"radians", "deg2rad"},      {"degrees", "rad2deg"},
    {"acos", "arccos"},        {"asin", "arcsin"},          {"atan", "arctan"},
    {"atan2", "arctan2"},      {"acosh", "arccosh"},        {"asinh", "arcsinh"},
    {"atanh", "arctanh"},
};

static char dtype_class(kiln_dtype d) {
  switch (d) {
    case KILN_BOOL: return 'B';
    case KILN_INT8: case KILN_INT16: case KILN_INT32: case KILN_INT64: return 'I';
    case KILN_FLOAT16: case KILN_FLOAT32: case KILN_FLOAT64: return 'F';
    case KILN_COMPLEX64: case KILN_COMPLEX128: return 'C';
    default: return 'U';
  }
}

/* NumPy's type order (its ufuncs list their loops in it): dispatch tries
 * signatures in order, so sqrt(int8) finds the float16 loop first. */
static const kiln_dtype numpy_order[] = {
    KILN_BOOL,   KILN_INT8,   KILN_UINT8,   KILN_INT16,   KILN_UINT16,  KILN_INT32,
    KILN_UINT32, KILN_INT64,  KILN_UINT64,  KILN_FLOAT16, KILN_FLOAT32, KILN_FLOAT64,
    KILN_COMPLEX64, KILN_COMPLEX128,
};
_Static_assert(sizeof numpy_order / sizeof numpy_order[0] == KILN_DTYPE_COUNT,
               "every dtype has its place in NumPy's order");

int kiln_ufunc_builtin_count(void) {
  int n = 0;
  for (int r = 0; r < NROWS; r++) n += r == 0 || strcmp(rows[r].name, rows[r - 1].name) != 0;
  return n;
}

const char *kiln_ufunc_builtin_name(int index) {
  if (index < 0) return NULL;
  for (int r = 0; r < NROWS; r++) {
    if (r > 0 && strcmp(rows[r].name, rows[r - 1].name) == 0) continue;
    if (index-- == 0) return rows[r].name;
  }
  return NULL;
}

/* Whether a row's dtype letters cover d: its class letter, G (float32 and
 * float64), H (float16 only) or D (float64 only). */
static int row_covers(const builtin_row *row, kiln_dtype d) {
  return strchr(row->dtypes, dtype_class(d)) != NULL ||
         ((d == KILN_FLOAT32 || d == KILN_FLOAT64) && strchr(row->dtypes, 'G') != NULL) ||
         (d == KILN_FLOAT16 && strchr(row->dtypes, 'H') != NULL) ||
         (d == KILN_FLOAT64 && strchr(row->dtypes, 'D') != NULL);
}

static kiln_dtype letter_dtype(char letter, kiln_dtype row_dtype) {
  switch (letter) {
    case '?': return KILN_BOOL;
    case 'd': return KILN_FLOAT64;
    case 'i': return KILN_INT32;
    case 'l': return KILN_INT64;
    case 'u': return KILN_UINT8;
    case 'r': return kiln_dtype_component(row_dtype);
    default: return row_dtype;
  }
}

/* "float32(float32 a, float32 b)" for row r at dtype d; with two outputs
 * "(float32 y, float32 z)(float32 a, float32 b)". */
static void append_signature(const builtin_row *row, kiln_dtype d, kiln_strbuf *b) {
  if (row->output[1] == '\0') {
    kiln_strbuf_appendf(b, "%s(", kiln_dtype_name(letter_dtype(row->output[0], d)));
  } else {
    kiln_strbuf_append(b, "(");
    for (int k = 0; row->output[k]; k++)
      kiln_strbuf_appendf(b, "%s%s %c", k ? ", " : "",
                          kiln_dtype_name(letter_dtype(row->output[k], d)), 'y' + k);
    kiln_strbuf_append(b, ")(");
  }
  for (int j = 0; row->inputs[j]; j++)
    kiln_strbuf_appendf(b, "%s%s %c", j ? ", " : "",
                        kiln_dtype_name(letter_dtype(row->inputs[j], d)), 'a' + j);
}

/* The body with $T, $U, $R and $F replaced for dtype d (float16 computes
 * in float: $T is float, $F "f"; a complex dtype's $R is its component
 * type, $F the component's suffix). */
static void append_body(const builtin_row *row, kiln_dtype d, kiln_strbuf *b) {
  for (const char *p = row->body; *p; p++) {
    if (p[0] == '$' && p[1] == 'T') {
      kiln_strbuf_append(b, kiln_ew_value_type(d));
      p++;
    } else if (p[0] == '$' && p[1] == 'U') {
      kiln_strbuf_append(b, kiln_dtype_size(d) <= 4 ? "uint32_t" : "uint64_t");
      p++;
    } else if (p[0] == '$' && p[1] == 'R') {
      kiln_strbuf_append(b, kiln_ew_value_type(kiln_dtype_component(d)));
      p++;
    } else if (p[0] == '$' && p[1] == 'F') {
      kiln_dtype part = kiln_dtype_component(d);
      kiln_strbuf_append(b, part == KILN_FLOAT64 ? "" : "f");
      p++;
    } else {
      kiln_strbuf_append_n(b, p, 1);
    }
  }
}

kiln_status kiln_ufunc_builtin(kiln_context *ctx, const char *name, kiln_ufunc **out) {
  KILN_CHECK_ARG(out);
  *out = NULL;
  KILN_CHECK_ARG(ctx);
  return kiln_ufunc_builtin_make(ctx, name, out);
}

kiln_status kiln_ufunc_builtin_make(kiln_context *ctx, const char *name, kiln_ufunc **out) {
  KILN_CHECK_ARG(out);
  *out = NULL;
  KILN_CHECK_ARG(name);
  for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
    if (strcmp(name, aliases[i].alias) == 0) name = aliases[i].name;
  /* one signature per (dtype, row covering it): by dtype in NumPy's order,
   * then row order
   * (ldexp's int32 exponent loop before its int64 one, as NumPy's) */
  enum { MAX_SIGS = 2 * KILN_DTYPE_COUNT };
  const builtin_row *chosen[MAX_SIGS];
  kiln_dtype chosen_dtype[MAX_SIGS];
  int nsig = 0;
  for (int i = 0; i < KILN_DTYPE_COUNT; i++)
    for (int r = 0; r < NROWS && nsig < MAX_SIGS; r++)
      if (strcmp(rows[r].name, name) == 0 && row_covers(&rows[r], numpy_order[i])) {
        chosen[nsig] = &rows[r];
        chosen_dtype[nsig++] = numpy_order[i];
      }
  if (nsig == 0) {
    kiln_strbuf b = {0};
    for (int i = 0; i < kiln_ufunc_builtin_count(); i++)
      kiln_strbuf_appendf(&b, "%s%s", i ? ", " : "", kiln_ufunc_builtin_name(i));
    kiln_status status = kiln_strbuf_status(&b);
    if (status == KILN_OK)
      status = kiln_error_set(KILN_ERROR_NOT_FOUND, "no built-in ufunc '%s'; built-ins: %s",
                              name, b.data);
    kiln_strbuf_free(&b);
    return status;
  }
  /* one text per signature and per body, kept in two buffers, the NULs
   * between them turned into pointers once all are written */
  kiln_strbuf sig_text = {0}, body_text = {0};
  size_t sig_at[MAX_SIGS], body_at[MAX_SIGS];
  for (int i = 0; i < nsig; i++) {
    sig_at[i] = sig_text.length;
    append_signature(chosen[i], chosen_dtype[i], &sig_text);
    kiln_strbuf_append_n(&sig_text, ")", 2); /* with its NUL */
    body_at[i] = body_text.length;
    append_body(chosen[i], chosen_dtype[i], &body_text);
    kiln_strbuf_append_n(&body_text, "", 1);
  }
  kiln_status status = kiln_strbuf_status(&sig_text);
  if (status == KILN_OK) status = kiln_strbuf_status(&body_text);
  if (status == KILN_OK) {
    const char *sigs[MAX_SIGS], *bodies[MAX_SIGS];
    for (int i = 0; i < nsig; i++) {
      sigs[i] = sig_text.data + sig_at[i];
      bodies[i] = body_text.data + body_at[i];
    }
    status = kiln_ufunc_create_with_bodies(ctx, name, nsig, sigs, bodies, NULL, out);
  }
  if (status == KILN_OK) {
    /* what reductions need (core/reduce/), NumPy's: add and multiply have
     * an identity and widen small ints; minimum/maximum have none; the
     * logical and bitwise functions have one (and: true / all bits set)
     * and keep their dtype, bool for the logical ones */
    kiln_ufunc *u = *out;
    static const struct {
      const char *name;
      int64_t identity; /* INT64_MAX: none */
      int widens;
    } reducible[] = {{"add", 0, 1},         {"multiply", 1, 1},   {"minimum", INT64_MAX, 0},
                     {"maximum", INT64_MAX, 0}, {"logical_and", 1, 0}, {"logical_or", 0, 0},
                     {"logical_xor", 0, 0}, {"bitwise_and", -1, 0}, {"bitwise_or", 0, 0},
                     {"bitwise_xor", 0, 0}};
    for (size_t i = 0; i < sizeof reducible / sizeof reducible[0]; i++) {
      if (strcmp(name, reducible[i].name) != 0) continue;
      u->reducible = 1;
      u->has_identity = reducible[i].identity != INT64_MAX;
      u->reduce_widens = reducible[i].widens;
      u->reduce_identity = kiln_operand_int(u->has_identity ? reducible[i].identity : 0);
    }
    u->truth_only = strncmp(name, "logical_", 8) == 0;
    static const char *const by_value[] = {"equal", "not_equal", "less", "less_equal",
                                           "greater", "greater_equal", "divide"};
    for (size_t i = 0; i < sizeof by_value / sizeof by_value[0]; i++)
      u->int_scalar_by_value |= strcmp(name, by_value[i]) == 0;
    u->builtin_picks = strcmp(name, "minimum") == 0 || strcmp(name, "maximum") == 0;
  }
  kiln_strbuf_free(&sig_text);
  kiln_strbuf_free(&body_text);
  return status;
}
