/* core/ufunc/ufunc_signature.c: parsing ufunc type signatures.
 *
 *   signature := outputs '(' param {',' param} ')'
 *   outputs   := type                          (the body returns the value)
 *              | '(' param {',' param} ')'     (the body assigns the names)
 *   param     := type name
 *
 * with spaces anywhere between tokens. Messages give a 1-based column and
 * repeat the text with a caret under it, as a compiler does. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ufunc/ufunc_internal.h"

typedef struct parser {
  const char *text;
  int pos;
  int index; /* signature number, for messages */
  kiln_ufunc_sig *sig;
} parser;

static kiln_status parse_error(const parser *p, int column, const char *format, ...)
    KILN_PRINTF(3, 4);

kiln_status kiln_syntax_error(const char *what, const char *text, int column,
                              const char *format, va_list args) {
  char message[256];
  vsnprintf(message, sizeof message, format, args);
  return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "%s \"%s\": %s at column %d\n  %s\n  %*s^",
                        what, text, message, column + 1, text, column, "");
}

static kiln_status parse_error(const parser *p, int column, const char *format, ...) {
  char what[32];
  snprintf(what, sizeof what, "signature %d", p->index);
  va_list args;
  va_start(args, format);
  kiln_status status = kiln_syntax_error(what, p->text, column, format, args);
  va_end(args);
  return status;
}

static void skip_spaces(parser *p) {
  while (isspace((unsigned char)p->text[p->pos])) p->pos++;
}

static int is_ident_start(char c) { return isalpha((unsigned char)c) || c == '_'; }
static int is_ident(char c) { return isalnum((unsigned char)c) || c == '_'; }

/* Reads an identifier at the current position; its length, 0 if none. */
static int read_identifier(parser *p) {
  int start = p->pos;
  if (!is_ident_start(p->text[p->pos])) return 0;
  while (is_ident(p->text[p->pos])) p->pos++;
  return p->pos - start;
}

static kiln_status parse_type(parser *p, kiln_dtype *dtype) {
  skip_spaces(p);
  int start = p->pos;
  int n = read_identifier(p);
  if (n == 0) return parse_error(p, start, "expected a type name");
  char word[32];
  if (n >= (int)sizeof word) return parse_error(p, start, "unknown type name");
  memcpy(word, p->text + start, (size_t)n);
  word[n] = '\0';
  if (kiln_dtype_from_name(word, dtype) != KILN_OK)
    return parse_error(p, start,
                       "unknown type '%s' (valid: bool, int8, uint8, int16, uint16, int32, "
                       "uint32, int64, uint64, float32, float64)",
                       word);
  return KILN_OK;
}

/* `type name`, stored as operand `slot`. */
static kiln_status parse_param(parser *p, int slot) {
  kiln_ufunc_sig *sig = p->sig;
  if (slot >= KILN_UFUNC_MAX_OPERANDS)
    return parse_error(p, p->pos, "more than %d inputs and outputs", KILN_UFUNC_MAX_OPERANDS);
  KILN_RETURN_IF_ERROR(parse_type(p, &sig->dtypes[slot]));
  skip_spaces(p);
  int start = p->pos;
  int n = read_identifier(p);
  if (n == 0) return parse_error(p, start, "expected a parameter name after the type");
  if (n >= KILN_UFUNC_NAME_MAX) return parse_error(p, start, "parameter name too long");
  if (strncmp(p->text + start, "kiln_", 5) == 0 || strncmp(p->text + start, "KILN_", 5) == 0)
    return parse_error(p, start, "names beginning with kiln_ or KILN_ are reserved");
  for (int k = 0; k < slot; k++) {
    const kiln_ufunc_span *other = &sig->names[k];
    if (other->length == n && memcmp(p->text + other->start, p->text + start, (size_t)n) == 0) {
      char name[KILN_UFUNC_NAME_MAX];
      memcpy(name, p->text + start, (size_t)n);
      name[n] = '\0';
      return parse_error(p, start, "parameter name '%s' is used twice", name);
    }
  }
  sig->names[slot].start = start;
  sig->names[slot].length = n;
  return KILN_OK;
}

/* '(' param {',' param} ')' into slots first.., returning how many. */
static kiln_status parse_list(parser *p, int first, int *count) {
  skip_spaces(p);
  if (p->text[p->pos] != '(') return parse_error(p, p->pos, "expected '('");
  p->pos++;
  skip_spaces(p);
  *count = 0;
  if (p->text[p->pos] == ')')
    return parse_error(p, p->pos, "expected a parameter (type and name)");
  for (;;) {
    KILN_RETURN_IF_ERROR(parse_param(p, first + *count));
    (*count)++;
    skip_spaces(p);
    char c = p->text[p->pos];
    if (c == ')') break;
    if (c != ',') return parse_error(p, p->pos, "expected ',' or ')'");
    p->pos++;
  }
  p->pos++;
  return KILN_OK;
}

static kiln_status parse(parser *p) {
  kiln_ufunc_sig *sig = p->sig;
  /* Outputs come first in the text but are stored after the inputs, whose
   * count is known only later: parse them into the tail, then move. */
  kiln_dtype out_dtypes[KILN_UFUNC_MAX_OPERANDS];
  kiln_ufunc_span out_names[KILN_UFUNC_MAX_OPERANDS];
  skip_spaces(p);
  if (p->text[p->pos] == '(') {
    KILN_RETURN_IF_ERROR(parse_list(p, 0, &sig->nout));
    memcpy(out_dtypes, sig->dtypes, sizeof out_dtypes);
    memcpy(out_names, sig->names, sizeof out_names);
    /* output names must stay unique against inputs: keep them in front
     * while inputs parse, then reorder */
    KILN_RETURN_IF_ERROR(parse_list(p, sig->nout, &sig->nin));
    kiln_dtype in_dtypes[KILN_UFUNC_MAX_OPERANDS];
    kiln_ufunc_span in_names[KILN_UFUNC_MAX_OPERANDS];
    memcpy(in_dtypes, sig->dtypes + sig->nout, (size_t)sig->nin * sizeof *in_dtypes);
    memcpy(in_names, sig->names + sig->nout, (size_t)sig->nin * sizeof *in_names);
    memcpy(sig->dtypes, in_dtypes, (size_t)sig->nin * sizeof *in_dtypes);
    memcpy(sig->names, in_names, (size_t)sig->nin * sizeof *in_names);
    memcpy(sig->dtypes + sig->nin, out_dtypes, (size_t)sig->nout * sizeof *out_dtypes);
    memcpy(sig->names + sig->nin, out_names, (size_t)sig->nout * sizeof *out_names);
  } else {
    kiln_dtype out;
    KILN_RETURN_IF_ERROR(parse_type(p, &out));
    KILN_RETURN_IF_ERROR(parse_list(p, 0, &sig->nin));
    sig->nout = 1;
    sig->returns_value = 1;
    sig->dtypes[sig->nin] = out;
    sig->names[sig->nin].start = sig->names[sig->nin].length = 0;
  }
  skip_spaces(p);
  if (p->text[p->pos] != '\0')
    return parse_error(p, p->pos, "unexpected text after the signature");
  return KILN_OK;
}

kiln_status kiln_ufunc_signature_parse(const char *text, int index, kiln_ufunc_sig *sig) {
  memset(sig, 0, sizeof *sig);
  if (!text)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "signature %d is NULL", index);
  sig->text = strdup(text);
  if (!sig->text) return kiln_error_set(KILN_ERROR_OUT_OF_MEMORY, "out of host memory");
  parser p = {.text = sig->text, .pos = 0, .index = index, .sig = sig};
  kiln_status status = parse(&p);
  if (status != KILN_OK) kiln_ufunc_signature_free(sig);
  return status;
}

void kiln_ufunc_signature_free(kiln_ufunc_sig *sig) {
  free(sig->text);
  sig->text = NULL;
}
