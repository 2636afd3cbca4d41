/* core/ufunc/ufunc.c: ufunc creation, lifetime and properties. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ufunc/ufunc_internal.h"

#define DEFAULT_HOST_CHUNK_BYTES ((size_t)8 << 20) /* best of 1..64 MiB on an H200 */

static kiln_status check_name(const char *name) {
  size_t n = strlen(name);
  int ok = n > 0 && n < KILN_UFUNC_NAME_MAX - 16 &&
           (isalpha((unsigned char)name[0]) || name[0] == '_');
  for (size_t i = 0; ok && i < n; i++) ok = isalnum((unsigned char)name[i]) || name[i] == '_';
  if (!ok)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "ufunc name '%s' is not an identifier of 1..%d letters, digits and "
                          "underscores",
                          name, KILN_UFUNC_NAME_MAX - 17);
  return KILN_OK;
}

static void ufunc_free(kiln_ufunc *u) {
  if (!u) return;
  for (int i = 0; i < u->nsig; i++) kiln_ufunc_signature_free(&u->sigs[i]);
  free(u->sigs);
  for (int i = 0; i < u->nbodies; i++) free(u->bodies[i]);
  free(u->bodies);
  free(u->preamble);
  free(u->variants);
  if (u->staging) kiln_ufunc_staging_free(u->ctx, u->staging);
  kiln_array_release(u->reduce_scratch.buffer);
  if (u->reduce_ops_free) u->reduce_ops_free(u->reduce_ops);
  pthread_mutex_destroy(&u->lock);
  kiln_context_release(u->ctx);
  free(u);
}

/* Copies the distinct bodies (built-ins share one per dtype class) and
 * points each signature at its own. */
static kiln_status copy_bodies(kiln_ufunc *u, const char *const *bodies) {
  u->bodies = calloc((size_t)u->nsig, sizeof *u->bodies);
  if (!u->bodies) return kiln_error_set(KILN_ERROR_OUT_OF_MEMORY, "out of host memory");
  for (int i = 0; i < u->nsig; i++) {
    if (!bodies[i])
      return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "ufunc '%s': body is NULL", u->name);
    int found = -1;
    for (int j = 0; j < i && found < 0; j++)
      if (bodies[j] == bodies[i] || strcmp(bodies[j], bodies[i]) == 0) found = j;
    if (found >= 0) {
      u->sigs[i].body = u->sigs[found].body;
      continue;
    }
    char *copy = strdup(bodies[i]);
    if (!copy) return kiln_error_set(KILN_ERROR_OUT_OF_MEMORY, "out of host memory");
    u->bodies[u->nbodies++] = copy;
    u->sigs[i].body = copy;
  }
  return KILN_OK;
}

kiln_status kiln_ufunc_create_with_bodies(kiln_context *ctx, const char *name, int nsig,
                                          const char *const *signatures,
                                          const char *const *bodies, const char *preamble,
                                          kiln_ufunc **out) {
  KILN_CHECK_ARG(out);
  *out = NULL;
  KILN_CHECK_ARG(name);
  KILN_CHECK_ARG(signatures);
  KILN_CHECK_ARG(bodies);
  KILN_RETURN_IF_ERROR(check_name(name));
  if (nsig < 1)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "ufunc '%s': %d signatures (need >= 1)",
                          name, nsig);
  kiln_ufunc *u = calloc(1, sizeof *u);
  if (!u) return kiln_error_set(KILN_ERROR_OUT_OF_MEMORY, "out of host memory");
  atomic_init(&u->refcount, 1);
  u->id = kiln_ufunc_cache_new_id();
  u->ctx = ctx ? kiln_context_retain(ctx) : NULL;
  pthread_mutex_init(&u->lock, NULL);
  snprintf(u->name, sizeof u->name, "%s", name);
  u->host_chunk_bytes = DEFAULT_HOST_CHUNK_BYTES;
  kiln_status status = KILN_OK;
  u->sigs = calloc((size_t)nsig, sizeof *u->sigs);
  if (!u->sigs) {
    status = kiln_error_set(KILN_ERROR_OUT_OF_MEMORY, "out of host memory");
    goto cleanup;
  }
  for (int i = 0; i < nsig; i++) {
    status = kiln_ufunc_signature_parse(signatures[i], i, &u->sigs[i]);
    if (status != KILN_OK) {
      kiln_error_prefix(status, "ufunc '%s'", name);
      goto cleanup;
    }
    u->nsig = i + 1;
    const kiln_ufunc_sig *s = &u->sigs[i];
    if (i > 0 && (s->nin != u->nin || s->nout != u->nout)) {
      status = kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                              "ufunc '%s': signature %d \"%s\" has %d inputs and %d outputs, "
                              "signature 0 \"%s\" has %d and %d; all must agree",
                              name, i, s->text, s->nin, s->nout, u->sigs[0].text, u->nin,
                              u->nout);
      goto cleanup;
    }
    u->nin = s->nin;
    u->nout = s->nout;
  }
  status = copy_bodies(u, bodies);
  if (status != KILN_OK) goto cleanup;
  if (preamble && !(u->preamble = strdup(preamble))) {
    status = kiln_error_set(KILN_ERROR_OUT_OF_MEMORY, "out of host memory");
    goto cleanup;
  }
  *out = u;
  u = NULL;
cleanup:
  ufunc_free(u);
  return status;
}

kiln_status kiln_ufunc_create(kiln_context *ctx, const char *name, int nsig,
                              const char *const *signatures, const char *body,
                              const char *preamble, kiln_ufunc **out) {
  KILN_CHECK_ARG(out);
  *out = NULL;
  KILN_CHECK_ARG(ctx);
  KILN_CHECK_ARG(body);
  KILN_CHECK_ARG(signatures);
  if (nsig < 1 || nsig > 4096)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "%d signatures (need 1..4096)", nsig);
  const char **bodies = malloc((size_t)nsig * sizeof *bodies);
  if (!bodies) return kiln_error_set(KILN_ERROR_OUT_OF_MEMORY, "out of host memory");
  for (int i = 0; i < nsig; i++) bodies[i] = body;
  kiln_status status =
      kiln_ufunc_create_with_bodies(ctx, name, nsig, signatures, bodies, preamble, out);
  free(bodies);
  return status;
}

kiln_ufunc *kiln_ufunc_retain(kiln_ufunc *ufunc) {
  if (ufunc) atomic_fetch_add(&ufunc->refcount, 1);
  return ufunc;
}

void kiln_ufunc_release(kiln_ufunc *ufunc) {
  if (!ufunc || atomic_fetch_sub(&ufunc->refcount, 1) != 1) return;
  ufunc_free(ufunc);
}

const char *kiln_ufunc_name(const kiln_ufunc *ufunc) { return ufunc ? ufunc->name : ""; }
int kiln_ufunc_nin(const kiln_ufunc *ufunc) { return ufunc ? ufunc->nin : 0; }
int kiln_ufunc_nout(const kiln_ufunc *ufunc) { return ufunc ? ufunc->nout : 0; }
int kiln_ufunc_signature_count(const kiln_ufunc *ufunc) { return ufunc ? ufunc->nsig : 0; }

const char *kiln_ufunc_signature(const kiln_ufunc *ufunc, int index) {
  if (!ufunc || index < 0 || index >= ufunc->nsig) return NULL;
  return ufunc->sigs[index].text;
}

kiln_status kiln_ufunc_set_host_chunk_bytes(kiln_ufunc *ufunc, size_t bytes) {
  KILN_CHECK_ARG(ufunc);
  if (bytes == 0)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "host chunk of 0 bytes");
  pthread_mutex_lock(&ufunc->lock);
  kiln_ufunc_staging *old = ufunc->staging;
  ufunc->staging = NULL;
  ufunc->host_chunk_bytes = bytes;
  pthread_mutex_unlock(&ufunc->lock);
  if (old) kiln_ufunc_staging_free(ufunc->ctx, old);
  return KILN_OK;
}
