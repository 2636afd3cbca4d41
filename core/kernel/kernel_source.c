/* core/kernel/kernel_source.c: composing the source the compiler sees, and
 * numbering it for error messages. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "core/kernel/kernel_internal.h"

extern const char kiln_prelude_common[];
extern const char kiln_prelude_random[];

kiln_status kiln_source_compose(const kiln_backend_ops *ops, const char *source,
                                char **full) {
  kiln_strbuf b = {0};
  kiln_strbuf_append(&b, ops->prelude);
  kiln_strbuf_append(&b, "\n");
  kiln_strbuf_append(&b, kiln_prelude_common);
  kiln_strbuf_append(&b, "\n");
  kiln_strbuf_append(&b, kiln_prelude_random);
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

static int count_lines(const char *text) {
  int n = 0;
  for (; *text; text++) n += *text == '\n';
  return n;
}

int kiln_source_prefix_lines(const kiln_backend_ops *ops) {
  /* prelude, "\n", common prelude, "\n", random prelude,
   * "\n#line 1 \"kernel\"\n" */
  return count_lines(ops->prelude) + 1 + count_lines(kiln_prelude_common) + 1 +
         count_lines(kiln_prelude_random) + 2;
}

void kiln_source_append_log(kiln_strbuf *b, const char *log, int prefix_lines) {
  if (strstr(log, "kernel:") || strstr(log, "kernel(")) {
    kiln_strbuf_append(b, log);
    return;
  }
  const char *p = log;
  while (*p) {
    /* ":<digits>:" with a line number past the preludes */
    if (*p == ':' && isdigit((unsigned char)p[1])) {
      char *end = NULL;
      long line = strtol(p + 1, &end, 10);
      if (*end == ':' && line > prefix_lines && line < prefix_lines + 10000000) {
        kiln_strbuf_appendf(b, ":%ld (kernel:%ld):", line, line - prefix_lines);
        p = end + 1;
        continue;
      }
    }
    kiln_strbuf_append_n(b, p, 1);
    p++;
  }
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
