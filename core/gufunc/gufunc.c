/* core/gufunc/gufunc.c: gufunc creation, lifetime, properties, and the
 * core-loop description the generator works from. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/gufunc/gufunc_internal.h"

static void gufunc_free(kiln_gufunc *g) {
  if (!g) return;
  kiln_ufunc_release(g->ufunc);
  free(g->layout_text);
  free(g->identity);
  free(g);
}

/* Signatures must count the layout's operands, the returns-value form
 * needs one output without core dims, and no parameter may be named like
 * a core dim (the body sees both names). */
static kiln_status check_against_layout(const kiln_gufunc *g) {
  const kiln_ufunc *u = g->ufunc;
  const kiln_gufunc_core_layout *l = &g->layout;
  if (u->nin != l->nin || u->nout != l->nout)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "gufunc '%s': layout \"%s\" has %d input%s and %d output%s, "
                          "signature 0 \"%s\" has %d and %d",
                          u->name, g->layout_text, l->nin, l->nin == 1 ? "" : "s", l->nout,
                          l->nout == 1 ? "" : "s", u->sigs[0].text, u->nin, u->nout);
  for (int i = 0; i < u->nsig; i++) {
    const kiln_ufunc_sig *s = &u->sigs[i];
    if (s->returns_value && l->ndim[l->nin] > 0)
      return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                            "gufunc '%s': signature %d \"%s\" returns its output, but the "
                            "layout gives that output core dims; name it instead, as in "
                            "\"(float32 out)(...)\"",
                            u->name, i, s->text);
    for (int k = 0; k < s->nin + s->nout; k++)
      for (int d = 0; d < l->nnames; d++)
        if (s->names[k].length == (int)strlen(l->names[d]) &&
            memcmp(s->text + s->names[k].start, l->names[d], strlen(l->names[d])) == 0)
          return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                                "gufunc '%s': signature %d \"%s\" names a parameter '%s', "
                                "the name of a core dim in layout \"%s\"",
                                u->name, i, s->text, l->names[d], g->layout_text);
  }
  return KILN_OK;
}

static kiln_status make_identity(kiln_gufunc *g, const char *body, const char *preamble) {
  kiln_strbuf b = {0};
  const char *parts[4] = {g->ufunc->name, g->layout_text, preamble ? preamble : "", body};
  for (int i = 0; i < 4; i++) kiln_strbuf_append_n(&b, parts[i], strlen(parts[i]) + 1);
  for (int i = 0; i < g->ufunc->nsig; i++)
    kiln_strbuf_append_n(&b, g->ufunc->sigs[i].text, strlen(g->ufunc->sigs[i].text) + 1);
  kiln_status status = kiln_strbuf_status(&b);
  if (status == KILN_OK) {
    g->identity_length = b.length;
    g->identity = b.data; /* taken over */
  } else {
    kiln_strbuf_free(&b);
  }
  return status;
}

kiln_status kiln_gufunc_make(kiln_context *ctx, const char *name, const char *layout, int nsig,
                             const char *const *signatures, const char *body,
                             const char *preamble, kiln_gufunc **out) {
  KILN_CHECK_ARG(out);
  *out = NULL;
  KILN_CHECK_ARG(name);
  KILN_CHECK_ARG(layout);
  KILN_CHECK_ARG(signatures);
  KILN_CHECK_ARG(body);
  if (nsig < 1 || nsig > 4096)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "gufunc '%s': %d signatures (need 1..4096)",
                          name, nsig);
  kiln_gufunc *g = calloc(1, sizeof *g);
  const char **bodies = malloc((size_t)nsig * sizeof *bodies);
  kiln_status status = KILN_OK;
  if (!g || !bodies || !(g->layout_text = strdup(layout))) {
    status = kiln_error_set(KILN_ERROR_OUT_OF_MEMORY, "out of host memory");
    goto cleanup;
  }
  atomic_init(&g->refcount, 1);
  status = kiln_gufunc_layout_parse(layout, &g->layout);
  if (status != KILN_OK) {
    kiln_error_prefix(status, "gufunc '%s'", name);
    goto cleanup;
  }
  for (int i = 0; i < nsig; i++) bodies[i] = body;
  status = kiln_ufunc_create_with_bodies(ctx, name, nsig, signatures, bodies, preamble,
                                         &g->ufunc);
  if (status == KILN_OK) status = check_against_layout(g);
  if (status == KILN_OK) status = make_identity(g, body, preamble);
  const char *texts[2] = {body, preamble ? preamble : ""};
  for (int i = 0; i < 2; i++)
    if (strstr(texts[i], "KILN_DATA") || strstr(texts[i], "KILN_STRIDE")) g->raw_blocks = 1;
  if (status != KILN_OK) goto cleanup;
  *out = g;
  g = NULL;
cleanup:
  free(bodies);
  gufunc_free(g);
  return status;
}

kiln_status kiln_gufunc_create(kiln_context *ctx, const char *name, const char *layout,
                               int nsig, const char *const *signatures, const char *body,
                               const char *preamble, kiln_gufunc **out) {
  KILN_CHECK_ARG(out);
  *out = NULL;
  KILN_CHECK_ARG(ctx);
  return kiln_gufunc_make(ctx, name, layout, nsig, signatures, body, preamble, out);
}

kiln_gufunc *kiln_gufunc_retain(kiln_gufunc *gufunc) {
  if (gufunc) atomic_fetch_add(&gufunc->refcount, 1);
  return gufunc;
}

void kiln_gufunc_release(kiln_gufunc *gufunc) {
  if (!gufunc || atomic_fetch_sub(&gufunc->refcount, 1) != 1) return;
  gufunc_free(gufunc);
}

const char *kiln_gufunc_name(const kiln_gufunc *gufunc) {
  return gufunc ? gufunc->ufunc->name : "";
}
const char *kiln_gufunc_layout(const kiln_gufunc *gufunc) {
  return gufunc ? gufunc->layout_text : "";
}
int kiln_gufunc_nin(const kiln_gufunc *gufunc) { return gufunc ? gufunc->layout.nin : 0; }
int kiln_gufunc_nout(const kiln_gufunc *gufunc) { return gufunc ? gufunc->layout.nout : 0; }
int kiln_gufunc_signature_count(const kiln_gufunc *gufunc) {
  return gufunc ? kiln_ufunc_signature_count(gufunc->ufunc) : 0;
}
kiln_status kiln_gufunc_set_host_chunk_bytes(kiln_gufunc *gufunc, size_t bytes) {
  KILN_CHECK_ARG(gufunc);
  return kiln_ufunc_set_host_chunk_bytes(gufunc->ufunc, bytes);
}

const char *kiln_gufunc_signature(const kiln_gufunc *gufunc, int index) {
  return gufunc ? kiln_ufunc_signature(gufunc->ufunc, index) : NULL;
}

void kiln_gufunc_describe(const kiln_gufunc *g, int signature, const uint8_t *memory,
                          const int64_t *sizes, int (*unit)[KILN_CORE_MAX_DIMS],
                          int loop_ndim, char *entry, kiln_core_loop *loop) {
  const kiln_ufunc *u = g->ufunc;
  const kiln_ufunc_sig *s = &u->sigs[signature];
  const kiln_gufunc_core_layout *l = &g->layout;
  memset(loop, 0, sizeof *loop);
  snprintf(entry, 96, "kiln_gufunc_%s", u->name);
  loop->entry = entry;
  loop->comment = s->text;
  loop->preamble = u->preamble;
  loop->body = s->body;
  loop->returns_value = s->returns_value;
  loop->nin = u->nin;
  loop->nout = u->nout;
  loop->nnames = l->nnames;
  loop->loop_ndim = loop_ndim;
  for (int d = 0; d < l->nnames; d++) {
    loop->names[d] = l->fixed[d] >= 0 ? NULL : l->names[d];
    loop->sizes[d] = l->fixed[d] >= 0 ? l->fixed[d] : sizes[d];
  }
  for (int k = 0; k < u->nin + u->nout; k++) {
    kiln_core_operand *o = &loop->operands[k];
    o->name = s->text + s->names[k].start;
    o->name_length = s->names[k].length;
    o->body_type = s->dtypes[k];
    o->by_value = memory[k] == KILN_UFUNC_SCALAR_SLOT;
    o->memory = o->by_value ? s->dtypes[k] : (kiln_dtype)memory[k];
    o->ndim = l->ndim[k];
    for (int c = 0; c < o->ndim; c++) {
      o->dims[c] = l->dims[k][c];
      o->unit[c] = unit[k][c];
    }
  }
}
