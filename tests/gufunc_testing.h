/* tests/gufunc_testing.h: helpers shared by the gufunc conformance tests
 * (test_gufunc.c, test_gufunc_staged.c). */
#ifndef KILN_TESTS_GUFUNC_TESTING_H
#define KILN_TESTS_GUFUNC_TESTING_H

#include "ufunc_testing.h"

/* kiln_gufunc_create, failing the test with the message on an error. */
static inline kiln_gufunc *make(kiln_context *ctx, const char *name, const char *layout,
                                int nsig, const char *const *sigs, const char *body,
                                const char *preamble) {
  kiln_gufunc *g = NULL;
  kiln_status s = kiln_gufunc_create(ctx, name, layout, nsig, sigs, body, preamble, &g);
  if (s != KILN_OK) harness_fail(__FILE__, __LINE__, "create %s: %s", name, kiln_last_error());
  return g;
}

static inline kiln_array *view_slice(const kiln_array *a, int n, const kiln_slice *s) {
  kiln_array *v = NULL;
  CHECK_OK(kiln_array_slice(a, n, s, &v));
  return v;
}

#endif
