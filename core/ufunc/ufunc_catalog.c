/* core/ufunc/ufunc_catalog.c: the ufunc kernels kiln generates, for the compile
 * checks on GPU targets absent from the machine (core/kernel/kernel_catalog.h):
 * every built-in ufunc at every signature, contiguous and strided, with a
 * scalar input; and user-style ufuncs that exercise what built-ins do not
 * (named outputs, a preamble helper, casts on load and store). */
#include <stdio.h>
#include <string.h>

#include "core/ufunc/ufunc_internal.h"

/* Appends variant (signature, ndim, by-value input 0 or not, dtypes of the
 * signature except `load`/`store` overrides) of u to b, named uniquely. */
static void add_variant(kiln_ufunc *u, const char *base, int signature, int ndim, int scalar0,
                        kiln_dtype load0, kiln_dtype store0, kiln_strbuf *b) {
  const kiln_ufunc_sig *s = &u->sigs[signature];
  kiln_ufunc_variant_key key;
  memset(&key, 0xff, sizeof key);
  key.signature = (int16_t)signature;
  key.ndim = (int8_t)ndim;
  for (int j = 0; j < u->nin + u->nout; j++) key.operands[j] = (uint8_t)s->dtypes[j];
  if (load0 != KILN_DTYPE_COUNT) key.operands[0] = (uint8_t)load0;
  if (store0 != KILN_DTYPE_COUNT) key.operands[u->nin] = (uint8_t)store0;
  if (scalar0) key.operands[0] = KILN_UFUNC_SCALAR_SLOT;
  /* the entry and body-function names come from the ufunc's name */
  snprintf(u->name, sizeof u->name, "%s_%d_%d%s", base, signature, ndim, scalar0 ? "_s" : "");
  kiln_ufunc_source(u, &key, b);
}

typedef struct catalog_variant {
  const char *base;
  int signature, ndim, scalar0;
  kiln_dtype load0, store0;
} catalog_variant;

/* All variants of u in one source, unless u has a preamble, which one
 * source may hold only once: then one source per variant. */
static kiln_status add_ufunc(kiln_catalog *c, kiln_ufunc *u, const char *what, int casts) {
  char base[KILN_UFUNC_NAME_MAX], cast_base[KILN_UFUNC_NAME_MAX + 8];
  snprintf(base, sizeof base, "%s", u->name);
  snprintf(cast_base, sizeof cast_base, "%s_cast", base);
  catalog_variant variants[3 * 64 + 1];
  int n = 0;
  for (int i = 0; i < u->nsig && i < 64; i++) {
    for (int ndim = 0; ndim <= 2; ndim += 2)
      variants[n++] = (catalog_variant){base, i, ndim, 0, KILN_DTYPE_COUNT,
                                                KILN_DTYPE_COUNT};
    if (i == 0)
      variants[n++] = (catalog_variant){base, 0, 0, 1, KILN_DTYPE_COUNT,
                                                KILN_DTYPE_COUNT};
  }
  if (casts)
    variants[n++] = (catalog_variant){cast_base, 0, 1, 0, KILN_INT16, KILN_FLOAT64};
  kiln_strbuf b = {0};
  kiln_status status = KILN_OK;
  for (int v = 0; v < n && status == KILN_OK; v++) {
    add_variant(u, variants[v].base, variants[v].signature, variants[v].ndim,
                variants[v].scalar0, variants[v].load0, variants[v].store0, &b);
    if (u->preamble || v == n - 1) {
      status = kiln_strbuf_status(&b);
      if (status == KILN_OK) status = kiln_catalog_add(c, what, b.data);
      kiln_strbuf_free(&b);
    }
  }
  kiln_strbuf_free(&b);
  return status;
}

static kiln_status add_user_style(kiln_catalog *c) {
  static const char *const gaussian[] = {"float32(float32 x, float32 mean, float32 sigma)",
                                         "float64(float64 x, float64 mean, float64 sigma)"};
  static const char *const gaussian_body =
      "return exp(-0.5f * ((x - mean) / sigma) * ((x - mean) / sigma)) / (sigma * 2.5066283f);";
  static const char *const polar[] = {"(float32 r, float32 theta)(float32 x, float32 y)"};
  static const char *const polar_body = "r = radius(x, y);\ntheta = atan2(y, x);";
  static const char *const polar_preamble =
      "KILN_DEVICE float radius(float x, float y) { return sqrt(x * x + y * y); }\n";
  const char *bodies[2] = {gaussian_body, gaussian_body};
  kiln_ufunc *u = NULL;
  KILN_RETURN_IF_ERROR(kiln_ufunc_create_with_bodies(NULL, "gaussian", 2, gaussian, bodies,
                                                     NULL, &u));
  kiln_status status = add_ufunc(c, u, "ufunc gaussian (user style, casts)", 1);
  kiln_ufunc_release(u);
  u = NULL;
  bodies[0] = polar_body;
  if (status == KILN_OK)
    status = kiln_ufunc_create_with_bodies(NULL, "polar", 1, polar, bodies, polar_preamble, &u);
  if (status == KILN_OK) status = add_ufunc(c, u, "ufunc polar (named outputs, helper)", 1);
  kiln_ufunc_release(u);
  return status;
}

kiln_status kiln_ufunc_catalog_add(kiln_catalog *c) {
  kiln_status status = add_user_style(c);
  for (int i = 0; status == KILN_OK && i < kiln_ufunc_builtin_count(); i++) {
    kiln_ufunc *u = NULL;
    status = kiln_ufunc_builtin_make(NULL, kiln_ufunc_builtin_name(i), &u);
    char what[96];
    snprintf(what, sizeof what, "built-in ufunc %s, every signature", kiln_ufunc_builtin_name(i));
    if (status == KILN_OK) status = add_ufunc(c, u, what, 0);
    kiln_ufunc_release(u);
  }
  return status;
}
