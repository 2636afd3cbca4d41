/* core/kernel_source.c: composing the source the compiler sees, and
 * numbering it for error messages. */
#include <stdlib.h>
#include <string.h>

#include "core/kernel_internal.h"

extern const char kiln_prelude_common[];

kiln_status kiln_source_compose(const kiln_backend_ops *ops, const char *source,
                                char **full) {
  kiln_strbuf b = {0};
  kiln_strbuf_append(&b, ops->prelude);
  kiln_strbuf_append(&b, "\n");
  kiln_strbuf_append(&b, kiln_prelude_common);
  /* Compiler messages then point at the user's own line numbers. */
  kiln_strbuf_append(&b, "\n#line 1 \"kernel\"\n");
  kiln_strbuf_append(&b, source);
  kiln_strbuf_append(&b, "\n");
  kiln_status status = kiln_strbuf_status(&b);
  if (status != KILN_OK) {
    kiln_strbuf_free(&b);
    return status;
  }
  *full = kiln_strbuf_take(&b);
  return KILN_OK;
}

void kiln_source_append_numbered(kiln_strbuf *b, const char *source) {
  int line = 1;
  const char *p = source;
  while (*p) {
    size_t n = strcspn(p, "\n");
    kiln_strbuf_appendf(b, "%4d | %.*s\n", line++, (int)n, p);
    p += n;
    if (*p == '\n') p++;
  }
}
