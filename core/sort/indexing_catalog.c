/* core/sort/indexing_catalog.c: the programs of searchsorted, bincount,
 * histogram, take/put and the mask calls for the catalog of generated
 * kernels (core/catalog), so that CI compiles them with NVRTC and hiprtc:
 * searchsorted and unique's run flags for every dtype, the movers for
 * every element size, and the counting kernel's kinds over representative
 * dtypes. */
#include <stdio.h>

#include "core/sort/indexing_internal.h"

static kiln_status add(kiln_catalog *catalog, const char *name, const char *defines,
                       const char *text) {
  kiln_strbuf source = {0};
  kiln_ix_compose(defines, text, &source);
  kiln_status status = kiln_strbuf_status(&source);
  if (status == KILN_OK) status = kiln_catalog_add(catalog, name, kiln_strbuf_text(&source));
  kiln_strbuf_free(&source);
  return status;
}

/* count.kl's defines as kiln_ix_count makes them, for one kind. */
static void count_defines(int kind, kiln_dtype x, kiln_dtype count, int64_t local_bins,
                          kiln_strbuf *out) {
  kiln_ix_count_defines(kind, count, local_bins, out);
  if (kind == 2) {
    kiln_ix_key_defines(x, out);
    kiln_strbuf_append(out, "#define X KEY\n");
    return;
  }
  kiln_ix_number_defines("X", x, out);
  if (kind == 1)
    kiln_strbuf_appendf(out,
                        "#define B_T %s\n#define B_ROUND(v) %s\n#define Q_T double\n"
                        "#define Q_ROUND(v) (v)\n#define EDGE %s\n#define EDGE_LOAD(e) %s\n",
                        x == KILN_FLOAT64 ? "double" : "float",
                        x == KILN_FLOAT16 ? "kiln_half_to_float(kiln_float_to_half(v))" : "(v)",
                        kiln_dtype_kernel_type(x),
                        x == KILN_FLOAT16 ? "kiln_half_to_float(e)" : "(e)");
}

kiln_status kiln_indexing_catalog_add(kiln_catalog *catalog) {
  char name[96], words[128];
  for (int d = 0; d < KILN_DTYPE_COUNT; d++) {
    kiln_strbuf defines = {0};
    kiln_ix_search_defines((kiln_dtype)d, &defines);
    snprintf(name, sizeof name, "searchsorted %s", kiln_dtype_name((kiln_dtype)d));
    kiln_status status = kiln_strbuf_status(&defines);
    if (status == KILN_OK) status = add(catalog, name, kiln_strbuf_text(&defines), kiln_builtin_search);
    kiln_strbuf_free(&defines);
    KILN_RETURN_IF_ERROR(status);
    kiln_strbuf keys = {0};
    kiln_ix_key_defines((kiln_dtype)d, &keys);
    snprintf(name, sizeof name, "unique flags %s", kiln_dtype_name((kiln_dtype)d));
    status = kiln_strbuf_status(&keys);
    if (status == KILN_OK) status = add(catalog, name, kiln_strbuf_text(&keys), kiln_builtin_unique);
    kiln_strbuf_free(&keys);
    KILN_RETURN_IF_ERROR(status);
  }
  const kiln_dtype sizes[] = {KILN_UINT8, KILN_UINT16, KILN_UINT32, KILN_UINT64, KILN_COMPLEX128};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    kiln_ix_word_defines(sizes[i], words, sizeof words);
    snprintf(name, sizeof name, "take/put, %zu-byte elements", kiln_dtype_size(sizes[i]));
    KILN_RETURN_IF_ERROR(add(catalog, name, words, kiln_builtin_move));
    if (kiln_ix_words(sizes[i]) > 1 || kiln_dtype_size(sizes[i]) > 4) continue;
    /* put's packed claim (core/sort/take.c), for elements of up to 4 bytes */
    char packed[160];
    snprintf(packed, sizeof packed, "%s#define PUT_PACKED 1\n", words);
    snprintf(name, sizeof name, "take/put, %zu-byte elements, packed claim",
             kiln_dtype_size(sizes[i]));
    KILN_RETURN_IF_ERROR(add(catalog, name, packed, kiln_builtin_move));
  }
  /* the kinds over representative dtypes, each with the counts it can
   * have: uint32 in local memory (256 and 8192 bins) or global, uint64,
   * and float64 sums of weights */
  const struct {
    int kind;
    kiln_dtype x, count;
    int64_t local_bins;
  } counts[] = {{0, KILN_INT32, KILN_UINT32, 256},      {0, KILN_INT32, KILN_UINT32, 0},
                {0, KILN_INT64, KILN_UINT32, 8192},     {0, KILN_INT64, KILN_UINT64, 256},
                {0, KILN_UINT8, KILN_FLOAT64, 0},       {1, KILN_FLOAT32, KILN_UINT32, 256},
                {1, KILN_FLOAT32, KILN_UINT32, 0},      {1, KILN_FLOAT16, KILN_FLOAT64, 0},
                {1, KILN_FLOAT64, KILN_UINT32, 4096},   {1, KILN_FLOAT64, KILN_UINT64, 0},
                {2, KILN_FLOAT64, KILN_UINT32, 256},    {2, KILN_FLOAT64, KILN_UINT32, 0},
                {2, KILN_FLOAT16, KILN_FLOAT64, 0},     {2, KILN_INT64, KILN_UINT32, 1024}};
  for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
    kiln_strbuf defines = {0};
    count_defines(counts[i].kind, counts[i].x, counts[i].count, counts[i].local_bins, &defines);
    snprintf(name, sizeof name, "count kind %d of %s into %s, %lld local bins", counts[i].kind,
             kiln_dtype_name(counts[i].x), kiln_dtype_name(counts[i].count),
             (long long)counts[i].local_bins);
    kiln_status status = kiln_strbuf_status(&defines);
    if (status == KILN_OK) status = add(catalog, name, kiln_strbuf_text(&defines), kiln_builtin_count);
    kiln_strbuf_free(&defines);
    KILN_RETURN_IF_ERROR(status);
  }
  return KILN_OK;
}
