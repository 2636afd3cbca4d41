/* core/kernel/kernel_params.c: reading a kernel's parameter list from its source.
 *
 * kiln checks every launch against the parameters (count, array dtypes,
 * scalar types) and needs the scalar sizes to pass them on CUDA/HIP, where
 * nothing at run time tells them. The parser works on the user's source
 * with comments removed; the entry point must be written out literally as
 * `KILN_KERNEL void name(...)` (not produced by a macro). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/kernel/kernel_internal.h"

/* Copy of `source` with comments replaced by spaces (lengths kept). */
static char *strip_comments(const char *source) {
  size_t n = strlen(source);
  char *out = malloc(n + 1);
  if (!out) return NULL;
  size_t i = 0;
  while (i < n) {
    if (source[i] == '/' && source[i + 1] == '/') {
      while (i < n && source[i] != '\n') out[i++] = ' ';
    } else if (source[i] == '/' && source[i + 1] == '*') {
      out[i] = out[i + 1] = ' ';
      i += 2;
      while (i < n && !(source[i] == '*' && source[i + 1] == '/'))
        out[i] = source[i] == '\n' ? '\n' : ' ', i++;
      if (i < n) out[i] = out[i + 1] = ' ', i += 2;
    } else if (source[i] == '"' || source[i] == '\'') {
      char quote = source[i];
      out[i] = source[i];
      i++;
      while (i < n && source[i] != quote) {
        if (source[i] == '\\' && i + 1 < n) out[i] = source[i], i++;
        out[i] = source[i], i++;
      }
      if (i < n) out[i] = source[i], i++;
    } else {
      out[i] = source[i];
      i++;
    }
  }
  out[n] = '\0';
  return out;
}

static int is_ident(char c) { return isalnum((unsigned char)c) || c == '_'; }

/* Finds "entry(" as a whole word whose declaration, back to the previous
 * ';', '}' or '#' line, contains KILN_KERNEL. Returns the '(' or NULL. */
static const char *find_entry(const char *text, const char *entry) {
  size_t len = strlen(entry);
  for (const char *p = text; (p = strstr(p, entry)) != NULL; p += len) {
    if (p > text && is_ident(p[-1])) continue;
    if (is_ident(p[len])) continue;
    const char *q = p + len;
    while (isspace((unsigned char)*q)) q++;
    if (*q != '(') continue;
    const char *start = p;
    while (start > text && start[-1] != ';' && start[-1] != '}' && start[-1] != '{' &&
           start[-1] != '#')
      start--;
    const char *kw = strstr(start, "KILN_KERNEL");
    if (kw && kw < p) return q;
  }
  return NULL;
}

typedef struct type_name {
  const char *words; /* type words joined by single spaces */
  kiln_dtype dtype;
} type_name;

static const type_name type_names[] = {
    {"float", KILN_FLOAT32},         {"double", KILN_FLOAT64},
    {"kiln_half", KILN_FLOAT16},     {"kiln_complex64", KILN_COMPLEX64},
    {"kiln_complex128", KILN_COMPLEX128},
    {"kiln_bool", KILN_BOOL},        {"int8_t", KILN_INT8},
    {"char", KILN_INT8},             {"signed char", KILN_INT8},
    {"uint8_t", KILN_UINT8},         {"unsigned char", KILN_UINT8},
    {"uchar", KILN_UINT8},           {"int16_t", KILN_INT16},
    {"short", KILN_INT16},           {"uint16_t", KILN_UINT16},
    {"unsigned short", KILN_UINT16}, {"ushort", KILN_UINT16},
    {"int32_t", KILN_INT32},         {"int", KILN_INT32},
    {"signed int", KILN_INT32},      {"signed", KILN_INT32},
    {"uint32_t", KILN_UINT32},       {"unsigned int", KILN_UINT32},
    {"unsigned", KILN_UINT32},       {"uint", KILN_UINT32},
    {"int64_t", KILN_INT64},         {"kiln_index", KILN_INT64},
    {"long", KILN_INT64},            {"long long", KILN_INT64},
    {"uint64_t", KILN_UINT64},       {"unsigned long", KILN_UINT64},
    {"unsigned long long", KILN_UINT64}, {"ulong", KILN_UINT64},
};

static int lookup_type(const char *words, kiln_dtype *dtype) {
  for (size_t i = 0; i < sizeof type_names / sizeof type_names[0]; i++) {
    if (strcmp(words, type_names[i].words) == 0) {
      *dtype = type_names[i].dtype;
      return 1;
    }
  }
  return 0;
}

static int is_qualifier(const char *word) {
  static const char *const qualifiers[] = {"const", "volatile", "restrict", "__restrict",
                                           "__restrict__", "KILN_GLOBAL"};
  for (size_t i = 0; i < sizeof qualifiers / sizeof qualifiers[0]; i++)
    if (strcmp(word, qualifiers[i]) == 0) return 1;
  return 0;
}

/* Classifies one parameter's text (between commas). */
static kiln_status parse_param(const char *text, size_t n, int index, const char *entry,
                               kiln_param *param) {
  char words[8][64];
  int nwords = 0, stars = 0;
  int local = 0;
  for (size_t i = 0; i < n;) {
    if (is_ident(text[i])) {
      size_t j = i;
      while (j < n && is_ident(text[j])) j++;
      if (nwords == 8 || j - i >= 64) goto bad;
      memcpy(words[nwords], text + i, j - i);
      words[nwords][j - i] = '\0';
      if (strcmp(words[nwords], "KILN_LOCAL_PARAM") == 0) local = 1;
      else nwords++;
      i = j;
    } else if (text[i] == '*') {
      stars++;
      i++;
    } else if (isspace((unsigned char)text[i]) || text[i] == '(' || text[i] == ')') {
      i++;
    } else {
      goto bad;
    }
  }
  if (nwords < 2 || stars > 1 || (local && stars)) goto bad;
  memset(param, 0, sizeof *param);
  snprintf(param->name, sizeof param->name, "%s", words[nwords - 1]);
  char type[256] = "";
  for (int w = 0; w < nwords - 1; w++) {
    if (strcmp(words[w], "KILN_LOCAL") == 0)
      return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                            "kernel '%s' parameter %d ('%s'): a local-memory parameter "
                            "is written KILN_LOCAL_PARAM(type) name",
                            entry, index, param->name);
    if (is_qualifier(words[w])) continue;
    if (type[0]) strcat(type, " ");
    strcat(type, words[w]);
  }
  if (!lookup_type(type, &param->dtype)) {
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "kernel '%s' parameter %d ('%s') has type '%s%s', which kiln "
                          "cannot pass; use a fixed-width type (int32_t, int64_t, "
                          "uint32_t, float, double, ...)",
                          entry, index, param->name, type, stars ? " *" : "");
  }
  param->kind = local ? KILN_PARAM_LOCAL : stars ? KILN_PARAM_ARRAY : KILN_PARAM_SCALAR;
  return KILN_OK;
bad:
  return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                        "kernel '%s' parameter %d ('%.*s') is not a form kiln can pass: "
                        "use `KILN_GLOBAL T *name`, `T name` or `KILN_LOCAL_PARAM(T) name`",
                        entry, index, (int)n, text);
}

/* Nonzero when [s, end) is "void" with optional trailing space. */
static int only_void(const char *s, const char *end) {
  if (end - s < 4 || strncmp(s, "void", 4) != 0) return 0;
  for (s += 4; s < end; s++)
    if (!isspace((unsigned char)*s)) return 0;
  return 1;
}

kiln_status kiln_params_parse(const char *source, const char *entry, kiln_param **params,
                              int *count) {
  *params = NULL;
  *count = 0;
  /* an entry point is a C identifier (an empty one would match everywhere) */
  int identifier = entry[0] != '\0' && !isdigit((unsigned char)entry[0]);
  for (const char *c = entry; identifier && *c; c++) identifier = is_ident(*c);
  if (!identifier)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "kernel name '%s' is not an identifier (letters, digits and '_', "
                          "not starting with a digit)",
                          entry);
  char *text = strip_comments(source);
  if (!text) return kiln_error_set(KILN_ERROR_OUT_OF_MEMORY, "out of host memory");
  kiln_status status = KILN_OK;
  kiln_param *list = NULL;
  const char *open = find_entry(text, entry);
  if (!open) {
    status = kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                            "no kernel named '%s' in the source (expected a definition "
                            "`KILN_KERNEL void %s(...)`)",
                            entry, entry);
    goto cleanup;
  }
  const char *close = open + 1;
  for (int depth = 1; *close && depth > 0; close++) depth += (*close == '(') - (*close == ')');
  if (close[-1] != ')') {
    status = kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                            "unbalanced parentheses in the parameter list of '%s'", entry);
    goto cleanup;
  }
  const char *begin = open + 1, *end = close - 1;
  int capacity = 1;
  for (const char *p = begin; p < end; p++) capacity += *p == ',';
  list = calloc((size_t)capacity, sizeof *list);
  if (!list) {
    status = kiln_error_set(KILN_ERROR_OUT_OF_MEMORY, "out of host memory");
    goto cleanup;
  }
  /* "()" and "(void)" take no parameters */
  const char *s = begin;
  while (s < end && isspace((unsigned char)*s)) s++;
  int empty = s == end || only_void(s, end);
  int n = 0;
  for (const char *p = begin; !empty && p <= end;) {
    const char *comma = p;
    int depth = 0;
    while (comma < end && !(*comma == ',' && depth == 0)) {
      depth += (*comma == '(') - (*comma == ')');
      comma++;
    }
    status = parse_param(p, (size_t)(comma - p), n, entry, &list[n]);
    if (status != KILN_OK) goto cleanup;
    n++;
    p = comma + 1;
  }
  *params = list;
  *count = n;
  list = NULL;
cleanup:
  free(list);
  free(text);
  return status;
}
