/* core/ufunc/ufunc_variant.c: the programs a ufunc has compiled, by variant key.
 *
 * A repeat call finds its program here with one short scan under the
 * ufunc's lock: no source is generated, hashed or compiled. A miss
 * generates the source and goes through the context's program cache
 * (which compiles once per source, also across ufuncs with the same
 * body), outside the lock. */
#include <stdlib.h>
#include <string.h>

#include "core/ufunc/ufunc_internal.h"

static const kiln_program *find(const kiln_ufunc *u, const kiln_ufunc_variant_key *key) {
  for (int i = 0; i < u->nvariants; i++)
    if (memcmp(&u->variants[i].key, key, sizeof *key) == 0) return u->variants[i].program;
  return NULL;
}

kiln_status kiln_ufunc_variant_get(kiln_ufunc *u, const kiln_ufunc_variant_key *key,
                                   const kiln_program **program) {
  pthread_mutex_lock(&u->lock);
  *program = find(u, key);
  pthread_mutex_unlock(&u->lock);
  if (*program) return KILN_OK;

  kiln_strbuf source = {0};
  kiln_ufunc_source(u, key, &source);
  kiln_status status = kiln_strbuf_status(&source);
  kiln_program *compiled = NULL;
  if (status == KILN_OK) {
    char entry[96];
    kiln_ufunc_entry(u, entry, sizeof entry);
    status = kiln_program_get(u->ctx, source.data, KILN_UFUNC_OPTIONS, entry, &compiled);
    if (status != KILN_OK)
      kiln_error_prefix(status, "ufunc '%s', signature %d \"%s\"", u->name, key->signature,
                        u->sigs[key->signature].text);
  }
  kiln_strbuf_free(&source);
  if (status != KILN_OK) return status;

  pthread_mutex_lock(&u->lock);
  if (!find(u, key)) {
    if (u->nvariants == u->variant_capacity) {
      int capacity = u->variant_capacity ? 2 * u->variant_capacity : 8;
      kiln_ufunc_variant *grown = realloc(u->variants, (size_t)capacity * sizeof *grown);
      if (grown) {
        u->variants = grown;
        u->variant_capacity = capacity;
      }
    }
    /* a full table only costs a cache lookup next time */
    if (u->nvariants < u->variant_capacity) {
      /* memcpy, not assignment: the padding takes part in memcmp */
      memcpy(&u->variants[u->nvariants].key, key, sizeof *key);
      u->variants[u->nvariants].program = compiled;
      u->nvariants++;
    }
  }
  pthread_mutex_unlock(&u->lock);
  *program = compiled;
  return KILN_OK;
}
