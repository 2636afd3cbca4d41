/* core/codegen/elementwise_catalog.c: the fill and copy/cast kernels the
 * element-wise generator makes, for the compile checks
 * (core/kernel/kernel_catalog.h). */
#include <stdio.h>

#include "core/codegen/elementwise.h"

/* The strided variants at ndim 1 and 3 cover the generator's two shapes of
 * index code (no division; division per inner dim). */
static const int catalog_ndims[] = {0, 1, 3};

static void add_fill_family(kiln_strbuf *b) {
  for (int d = 0; d < KILN_DTYPE_COUNT; d++)
    for (size_t v = 0; v < sizeof catalog_ndims / sizeof catalog_ndims[0]; v++) {
      kiln_ew_signature sig = {.ninputs = 0, .noperands = 1, .dtypes = {(kiln_dtype)d},
                               .nscalars = 1, .scalar_dtypes = {(kiln_dtype)d}};
      char name[64], body[288];
      snprintf(name, sizeof name, "kiln_fill_%s_d%d", kiln_dtype_name((kiln_dtype)d),
               catalog_ndims[v]);
      kiln_ew_fill_body((kiln_dtype)d, body, sizeof body);
      kiln_ew_source(&sig, catalog_ndims[v], name, NULL, body, b);
    }
}

static void add_copy_family(kiln_strbuf *b, int ndim) {
  for (int from = 0; from < KILN_DTYPE_COUNT; from++)
    for (int to = 0; to < KILN_DTYPE_COUNT; to++) {
      kiln_ew_signature sig = {.ninputs = 1, .noperands = 2,
                               .dtypes = {(kiln_dtype)from, (kiln_dtype)to}};
      char name[64], body[288];
      snprintf(name, sizeof name, "kiln_copy_%s_%s_d%d", kiln_dtype_name((kiln_dtype)from),
               kiln_dtype_name((kiln_dtype)to), ndim);
      kiln_ew_copy_body((kiln_dtype)from, (kiln_dtype)to, body, sizeof body);
      kiln_ew_source(&sig, ndim, name, NULL, body, b);
    }
}

kiln_status kiln_ew_catalog_add(kiln_catalog *c) {
  kiln_strbuf b = {0};
  add_fill_family(&b);
  kiln_status status = kiln_strbuf_status(&b);
  if (status == KILN_OK) status = kiln_catalog_add(c, "built-in fill, every dtype", b.data);
  for (size_t v = 0; status == KILN_OK && v < sizeof catalog_ndims / sizeof catalog_ndims[0]; v++) {
    kiln_strbuf_free(&b);
    add_copy_family(&b, catalog_ndims[v]);
    char name[64];
    snprintf(name, sizeof name, "built-in copy/cast, every dtype pair, ndim %d", catalog_ndims[v]);
    status = kiln_strbuf_status(&b);
    if (status == KILN_OK) status = kiln_catalog_add(c, name, b.data);
  }
  kiln_strbuf_free(&b);
  return status;
}
