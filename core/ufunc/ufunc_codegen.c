/* core/ufunc/ufunc_codegen.c: the kernel source of one ufunc variant.
 *
 * The user's body becomes a device function with the signature's parameter
 * names, so `return` works in it and its names never meet the loop's (a
 * float16 parameter or result is a float: the body computes in float, the
 * store rounds, as NumPy's half loops and Numba's float16 do); the
 * element-wise loop (core/codegen/elementwise.c) loads each input in its own dtype,
 * converts it to the signature's dtype in the call, and converts each
 * result to its output's dtype on the store. Named outputs are pointer
 * parameters the body sees under their names through #define, so an early
 * `return;` keeps what was assigned. */
#include <stdio.h>
#include <string.h>

#include "core/codegen/type_names.h"
#include "core/ufunc/ufunc_internal.h"

void kiln_ufunc_entry(const kiln_ufunc *ufunc, char *out, size_t size) {
  snprintf(out, size, "kiln_ufunc_%s", ufunc->name);
}

void kiln_ufunc_ew_signature(const kiln_ufunc *ufunc, const kiln_ufunc_variant_key *key,
                             kiln_ew_signature *sig) {
  const kiln_ufunc_sig *s = &ufunc->sigs[key->signature];
  memset(sig, 0, sizeof *sig);
  for (int j = 0; j < ufunc->nin; j++) {
    if (key->operands[j] == KILN_UFUNC_SCALAR_SLOT)
      sig->scalar_dtypes[sig->nscalars++] = s->dtypes[j];
    else
      sig->dtypes[sig->ninputs++] = (kiln_dtype)key->operands[j];
  }
  sig->noperands = sig->ninputs;
  for (int k = 0; k < ufunc->nout; k++)
    sig->dtypes[sig->noperands++] = (kiln_dtype)key->operands[ufunc->nin + k];
}

static void append_name(kiln_strbuf *b, const kiln_ufunc_sig *s, int slot) {
  kiln_strbuf_append_n(b, s->text + s->names[slot].start, (size_t)s->names[slot].length);
}

void kiln_ufunc_append_body_function(const kiln_ufunc *ufunc, const kiln_ufunc_sig *s,
                                     const char *entry, kiln_strbuf *b) {
  int nin = ufunc->nin, nout = ufunc->nout;
  kiln_strbuf_appendf(b, "KILN_DEVICE %s %s_body(",
                      s->returns_value ? kiln_ew_value_type(s->dtypes[nin]) : "void",
                      entry);
  for (int j = 0; j < nin; j++) {
    kiln_strbuf_appendf(b, "%s%s ", j ? ", " : "", kiln_ew_value_type(s->dtypes[j]));
    append_name(b, s, j);
  }
  if (!s->returns_value)
    for (int k = 0; k < nout; k++)
      kiln_strbuf_appendf(b, ", %s *kiln_out_%d", kiln_ew_value_type(s->dtypes[nin + k]), k);
  kiln_strbuf_append(b, ") {\n");
  kiln_type_name types[KILN_UFUNC_MAX_OPERANDS];
  for (int k = 0; k < nin + nout; k++)
    types[k] = (kiln_type_name){s->text + s->names[k].start, s->names[k].length, s->dtypes[k]};
  kiln_type_names_define(b, nin, nout, types);
  if (!s->returns_value) {
    for (int k = 0; k < nout; k++) {
      kiln_strbuf_append(b, "#define ");
      append_name(b, s, nin + k);
      kiln_strbuf_appendf(b, " (*kiln_out_%d)\n", k);
    }
  }
  kiln_strbuf_append(b, s->body);
  kiln_strbuf_append(b, "\n");
  if (!s->returns_value) {
    for (int k = 0; k < nout; k++) {
      kiln_strbuf_append(b, "#undef ");
      append_name(b, s, nin + k);
      kiln_strbuf_append(b, "\n");
    }
  }
  kiln_type_names_undef(b, nin, nout, types);
  kiln_strbuf_append(b, "}\n");
}

/* The loop body: call the body function, store the results. */
static void append_loop_body(const kiln_ufunc *ufunc, const kiln_ufunc_variant_key *key,
                             const char *entry, kiln_strbuf *b) {
  const kiln_ufunc_sig *s = &ufunc->sigs[key->signature];
  int nin = ufunc->nin, nout = ufunc->nout;
  char cast[256], value[32], zero[64];
  for (int k = 0; k < nout; k++) {
    kiln_ew_zero_expression(s->dtypes[nin + k], zero, sizeof zero);
    kiln_strbuf_appendf(b, "%s kiln_r%d = %s; ", kiln_ew_value_type(s->dtypes[nin + k]), k,
                        zero);
  }
  kiln_strbuf_appendf(b, "%s%s_body(", s->returns_value ? "kiln_r0 = " : "", entry);
  int array = 0, scalar = 0;
  for (int j = 0; j < nin; j++) {
    if (key->operands[j] == KILN_UFUNC_SCALAR_SLOT) {
      snprintf(value, sizeof value, "s%d", scalar++);
      kiln_ew_load_expression(s->dtypes[j], value, cast, sizeof cast);
    } else {
      snprintf(value, sizeof value, "v%d", array++);
      kiln_ew_cast_expression((kiln_dtype)key->operands[j], s->dtypes[j], value, cast,
                              sizeof cast);
    }
    kiln_strbuf_appendf(b, "%s%s", j ? ", " : "", cast);
  }
  if (!s->returns_value)
    for (int k = 0; k < nout; k++) kiln_strbuf_appendf(b, ", &kiln_r%d", k);
  kiln_strbuf_append(b, "); ");
  for (int k = 0; k < nout; k++) {
    snprintf(value, sizeof value, "kiln_r%d", k);
    kiln_ew_cast_expression(s->dtypes[nin + k], (kiln_dtype)key->operands[nin + k], value, cast,
                            sizeof cast);
    kiln_strbuf_appendf(b, "v%d = %s; ", array + k, cast);
  }
}

void kiln_ufunc_source(const kiln_ufunc *ufunc, const kiln_ufunc_variant_key *key,
                       kiln_strbuf *out) {
  const kiln_ufunc_sig *s = &ufunc->sigs[key->signature];
  char entry[96];
  kiln_ufunc_entry(ufunc, entry, sizeof entry);
  kiln_strbuf preamble = {0}, body = {0};
  kiln_strbuf_appendf(&preamble, "/* ufunc '%s', signature %d: %s */\n", ufunc->name,
                      key->signature, s->text);
  if (ufunc->preamble) {
    kiln_strbuf_append(&preamble, ufunc->preamble);
    kiln_strbuf_append(&preamble, "\n");
  }
  kiln_ufunc_append_body_function(ufunc, s, entry, &preamble);
  append_loop_body(ufunc, key, entry, &body);
  kiln_ew_signature sig;
  kiln_ufunc_ew_signature(ufunc, key, &sig);
  if (preamble.failed || body.failed) {
    out->failed = 1;
  } else {
    kiln_ew_source(&sig, key->ndim, entry, preamble.data, body.data, out);
  }
  kiln_strbuf_free(&preamble);
  kiln_strbuf_free(&body);
}
