/* examples/example.h: the one helper every example shares: stop with the
 * status and kiln's message when a call fails. */
#ifndef KILN_EXAMPLE_H
#define KILN_EXAMPLE_H

#include <stdio.h>

#include "kiln/kiln.h"

#define TRY(call)                                                               \
  do {                                                                          \
    kiln_status s_ = (call);                                                    \
    if (s_ != KILN_OK) {                                                        \
      fprintf(stderr, "%s failed: %s\n%s\n", #call, kiln_status_string(s_),     \
              kiln_last_error());                                               \
      return 1;                                                                 \
    }                                                                           \
  } while (0)

/* Opens the context the environment selects and prints what it is. */
static inline kiln_status example_open(const char *name, kiln_context **ctx) {
  kiln_status s = kiln_context_create(NULL, ctx);
  if (s != KILN_OK) return s;
  kiln_device_info info;
  kiln_context_device_info(*ctx, &info);
  printf("%s on %s device %d: %s\n", name, info.backend, info.index, info.name);
  return KILN_OK;
}

#endif
