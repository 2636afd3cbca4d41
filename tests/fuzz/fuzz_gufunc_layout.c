/* tests/fuzz/fuzz_gufunc_layout.c: the gufunc layout parser ("(m,n),(n)->(m)").
 * A layout that parses must print back (canonical spacing, names and fixed
 * sizes) to one that parses to the same dims; one that does not must fail
 * with a message that quotes the layout with a caret under a column. */
#include "core/gufunc/gufunc_internal.h"
#include "fuzz_common.h"

/* The canonical text of a parsed layout. */
static void print_layout(const kiln_gufunc_core_layout *l, char *out, size_t size) {
  size_t used = 0;
  out[0] = '\0';
  for (int k = 0; k < l->nin + l->nout; k++) {
    used += (size_t)snprintf(out + used, size - used, "%s(",
                             k == l->nin ? "->" : k ? "," : "");
    for (int d = 0; d < l->ndim[k] && used < size; d++) {
      int n = l->dims[k][d];
      if (l->names[n][0])
        used += (size_t)snprintf(out + used, size - used, "%s%s", d ? "," : "", l->names[n]);
      else
        used += (size_t)snprintf(out + used, size - used, "%s%lld", d ? "," : "",
                                 (long long)l->fixed[n]);
    }
    if (used < size) used += (size_t)snprintf(out + used, size - used, ")");
    if (used >= size) return;
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = fuzz_string(data, size);
  if (!text) return 0;
  static kiln_gufunc_core_layout layout, again;
  if (kiln_gufunc_layout_parse(text, &layout) != KILN_OK) {
    const char *message = kiln_last_error();
    FUZZ_ASSERT(strstr(message, "column") || strstr(message, "memory") ||
                strstr(message, "NULL"));
    free(text);
    return 0;
  }
  FUZZ_ASSERT(layout.nin >= 1 && layout.nout >= 1);
  FUZZ_ASSERT(layout.nin + layout.nout <= KILN_UFUNC_MAX_OPERANDS);
  FUZZ_ASSERT(layout.nnames >= 0 && layout.nnames <= KILN_CORE_MAX_NAMES);
  for (int k = 0; k < layout.nin + layout.nout; k++) {
    FUZZ_ASSERT(layout.ndim[k] >= 0 && layout.ndim[k] <= KILN_CORE_MAX_DIMS);
    for (int d = 0; d < layout.ndim[k]; d++) {
      int n = layout.dims[k][d];
      FUZZ_ASSERT(n >= 0 && n < layout.nnames);
      FUZZ_ASSERT(layout.names[n][0] ? layout.fixed[n] == -1 : layout.fixed[n] >= 1);
    }
  }
  static char printed[16 * 1024];
  print_layout(&layout, printed, sizeof printed);
  FUZZ_ASSERT(kiln_gufunc_layout_parse(printed, &again) == KILN_OK);
  FUZZ_ASSERT(again.nin == layout.nin && again.nout == layout.nout);
  for (int k = 0; k < layout.nin + layout.nout; k++) {
    FUZZ_ASSERT(again.ndim[k] == layout.ndim[k]);
    for (int d = 0; d < layout.ndim[k]; d++) {
      int a = again.dims[k][d], b = layout.dims[k][d];
      FUZZ_ASSERT(strcmp(again.names[a], layout.names[b]) == 0);
      FUZZ_ASSERT(again.fixed[a] == layout.fixed[b]);
    }
  }
  free(text);
  return 0;
}
