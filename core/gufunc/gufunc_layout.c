/* core/gufunc/gufunc_layout.c: parsing gufunc layouts (NumPy's gufunc
 * signature notation).
 *
 *   layout   := operands '->' operands
 *   operands := operand {',' operand}
 *   operand  := '(' [dim {',' dim}] ')'
 *   dim      := name | size          name: an identifier, size: 1..2^31-1
 *
 * with spaces anywhere between tokens. A name is one dim wherever it
 * appears; each size is a dim of its own. Messages give a 1-based column
 * and repeat the layout with a caret under it, as ufunc signatures do. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/gufunc/gufunc_internal.h"

typedef struct parser {
  const char *text;
  int pos;
  kiln_gufunc_core_layout *layout;
} parser;

static kiln_status parse_error(const parser *p, int column, const char *format, ...)
    KILN_PRINTF(3, 4);

static kiln_status parse_error(const parser *p, int column, const char *format, ...) {
  va_list args;
  va_start(args, format);
  kiln_status status = kiln_syntax_error("layout", p->text, column, format, args);
  va_end(args);
  return status;
}

static void skip_spaces(parser *p) {
  while (isspace((unsigned char)p->text[p->pos])) p->pos++;
}

/* One dim at the current position, into operand `slot`'s next core dim. */
static kiln_status parse_dim(parser *p, int slot) {
  kiln_gufunc_core_layout *l = p->layout;
  int start = p->pos;
  const char *s = p->text + start;
  if (l->ndim[slot] == KILN_CORE_MAX_DIMS)
    return parse_error(p, start, "more than %d core dims in one operand", KILN_CORE_MAX_DIMS);
  int found = -1;
  if (isdigit((unsigned char)*s)) {
    int64_t size = 0;
    while (isdigit((unsigned char)p->text[p->pos])) {
      size = size * 10 + (p->text[p->pos++] - '0');
      if (size > INT32_MAX) return parse_error(p, start, "fixed size too large");
    }
    if (size == 0) return parse_error(p, start, "a fixed size must be at least 1");
    if (l->nnames == KILN_CORE_MAX_NAMES)
      return parse_error(p, start, "more than %d distinct core dims", KILN_CORE_MAX_NAMES);
    found = l->nnames++;
    l->names[found][0] = '\0';
    l->fixed[found] = size;
  } else if (isalpha((unsigned char)*s) || *s == '_') {
    while (isalnum((unsigned char)p->text[p->pos]) || p->text[p->pos] == '_') p->pos++;
    int n = p->pos - start;
    if (n >= KILN_GUFUNC_DIM_NAME_MAX) return parse_error(p, start, "dim name too long");
    if (strncmp(s, "kiln_", 5) == 0 || strncmp(s, "KILN_", 5) == 0)
      return parse_error(p, start, "names beginning with kiln_ or KILN_ are reserved");
    for (int d = 0; d < l->nnames && found < 0; d++)
      if ((int)strlen(l->names[d]) == n && memcmp(l->names[d], s, (size_t)n) == 0) found = d;
    if (found < 0) {
      if (l->nnames == KILN_CORE_MAX_NAMES)
        return parse_error(p, start, "more than %d distinct core dims", KILN_CORE_MAX_NAMES);
      found = l->nnames++;
      memcpy(l->names[found], s, (size_t)n);
      l->names[found][n] = '\0';
      l->fixed[found] = -1;
    }
    for (int c = 0; c < l->ndim[slot]; c++)
      if (l->dims[slot][c] == found)
        return parse_error(p, start, "dim '%s' appears twice in one operand", l->names[found]);
  } else {
    return parse_error(p, start, "expected a dim name or size");
  }
  l->dims[slot][l->ndim[slot]++] = found;
  return KILN_OK;
}

/* operand {',' operand} into slots first.., counting them in *count. */
static kiln_status parse_operands(parser *p, int first, int *count) {
  *count = 0;
  for (;;) {
    int slot = first + *count;
    skip_spaces(p);
    if (slot >= KILN_UFUNC_MAX_OPERANDS)
      return parse_error(p, p->pos, "more than %d operands", KILN_UFUNC_MAX_OPERANDS);
    if (p->text[p->pos] != '(') return parse_error(p, p->pos, "expected '('");
    p->pos++;
    skip_spaces(p);
    if (p->text[p->pos] != ')') {
      for (;;) {
        KILN_RETURN_IF_ERROR(parse_dim(p, slot));
        skip_spaces(p);
        if (p->text[p->pos] == ')') break;
        if (p->text[p->pos] != ',') return parse_error(p, p->pos, "expected ',' or ')'");
        p->pos++;
        skip_spaces(p);
      }
    }
    p->pos++;
    (*count)++;
    skip_spaces(p);
    if (p->text[p->pos] != ',') return KILN_OK;
    p->pos++;
  }
}

kiln_status kiln_gufunc_layout_parse(const char *text, kiln_gufunc_core_layout *layout) {
  memset(layout, 0, sizeof *layout);
  if (!text) return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "layout is NULL");
  parser p = {.text = text, .pos = 0, .layout = layout};
  KILN_RETURN_IF_ERROR(parse_operands(&p, 0, &layout->nin));
  if (strncmp(text + p.pos, "->", 2) != 0)
    return parse_error(&p, p.pos, "expected ',' or '->'");
  p.pos += 2;
  KILN_RETURN_IF_ERROR(parse_operands(&p, layout->nin, &layout->nout));
  skip_spaces(&p);
  if (text[p.pos] != '\0') return parse_error(&p, p.pos, "unexpected text after the layout");
  return KILN_OK;
}
