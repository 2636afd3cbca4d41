/* tests/harness.h: the conformance suite's small test framework.
 *
 * A test file defines test functions and a table:
 *   static void test_x(kiln_context *ctx) { CHECK(...); }
 *   static const harness_test tests[] = {{"x", test_x}, {0}};
 *   int main(int argc, char **argv) { return harness_main(argc, argv, tests); }
 *
 * harness_main opens one context from the environment (KILN_BACKEND etc.,
 * set per backend by tests/CMakeLists.txt). When that backend has no usable
 * device here, the whole program prints the reason and exits 77, which
 * ctest reports as SKIPPED, unless KILN_TEST_REQUIRE names the backend (CI
 * sets it for opencl, so a broken PoCL fails rather than skips). Tests that
 * need no device use harness_main_no_context. argv[1], if given, runs only
 * the tests whose name contains it. Random data comes from harness_rand*,
 * seeded from KILN_TEST_SEED (printed) so a failure can be replayed. */
#ifndef KILN_TESTS_HARNESS_H
#define KILN_TESTS_HARNESS_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kiln/kiln.h"

#define HARNESS_SKIP 77

typedef struct harness_test {
  const char *name;
  void (*run)(kiln_context *ctx); /* ctx is NULL under harness_main_no_context */
} harness_test;

extern int harness_failures;
extern const char *harness_current;

void harness_fail(const char *file, int line, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

/* Nonzero when the backend under test is `name` ("opencl", "cuda", ...). */
int harness_backend_is(kiln_context *ctx, const char *name);

/* Marks the current test as skipped with a reason (printed). */
void harness_skip(const char *format, ...) __attribute__((format(printf, 1, 2)));

int harness_main(int argc, char **argv, const harness_test *tests);
int harness_main_no_context(int argc, char **argv, const harness_test *tests);

/* Deterministic random numbers (xoshiro256**). */
uint64_t harness_rand_u64(void);
double harness_rand_uniform(double lo, double hi); /* [lo, hi) */
/* Fills n elements of dtype with random values: floats in [lo, hi),
 * integers in [lo, hi) truncated, bools random 0/1. Never all zeros. */
void harness_fill_random(void *data, kiln_dtype dtype, int64_t n, double lo, double hi);
/* perm[0..n) = a random permutation of 0..n-1 (Fisher-Yates). */
void harness_permutation(int64_t *perm, int64_t n);

/* Contents of tests/kernels/<file> (malloc'd, NUL-terminated), or NULL
 * after recording a failure. Every kernel the suite compiles lives there, so
 * the NVRTC/hiprtc compile checks can compile them all. */
char *harness_load_kernel(const char *file);

/* Compiles kernel `entry` of tests/kernels/<file> on ctx; NULL after
 * recording a failure (with kiln's message). */
kiln_kernel *harness_kernel(kiln_context *ctx, const char *file, const char *entry);

/* A sample of a long sweep, from an environment variable of the form
 * k[:offset] (CI sets them so that each commit checks a different k-th of
 * the cases and the run stays short; developers and GPU runs leave them
 * unset). every = 1 when the variable is unset or empty. Returns 0 after
 * recording a failure for a malformed value. */
typedef struct harness_sample {
  unsigned long every, offset;
} harness_sample;
int harness_sample_from_env(const char *variable, harness_sample *sample);
/* Nonzero when case i is in the sample. */
int harness_sample_takes(const harness_sample *sample, unsigned long i);
/* The sample of a test's rarely-varying cases (more dtype/op combinations
 * of a code path that one of them already covers: each one a kernel to
 * compile on PoCL) from KILN_TEST_SAMPLE=k[:offset] (.ci/run: k = 3, the
 * commit's offset, so consecutive commits check different thirds and all
 * of them over three commits); nonzero when case i runs. Unset (developers,
 * GPU runs): every case. A test keeps its always-run cases out of it. */
int harness_case_sampled(unsigned long i);
/* Whether variant v of m (the same check over all axes, the rows or the
 * columns, say; v < m) of case i runs: all of them when KILN_TEST_SAMPLE
 * is unset, else exactly one per case, (i + offset) % m, so that
 * consecutive cases and commits take turns. */
int harness_case_variant(unsigned long i, unsigned long v, unsigned long m);

/* Reads element i of a host buffer of `dtype` as double. */
double harness_get(const void *data, kiln_dtype dtype, int64_t i); /* complex: the real part */

#define CHECK(cond)                                                 \
  do {                                                              \
    if (!(cond)) harness_fail(__FILE__, __LINE__, "CHECK(%s)", #cond); \
  } while (0)

#define CHECK_MSG(cond, ...)                                        \
  do {                                                              \
    if (!(cond)) harness_fail(__FILE__, __LINE__, __VA_ARGS__);     \
  } while (0)

/* Expects `expr` to return `status`. */
#define CHECK_STATUS(expr, status)                                              \
  do {                                                                          \
    kiln_status s_ = (expr);                                                    \
    if (s_ != (status))                                                         \
      harness_fail(__FILE__, __LINE__, "%s returned %s, expected %s: %s", #expr, \
                   kiln_status_string(s_), kiln_status_string(status),          \
                   kiln_last_error());                                          \
  } while (0)

#define CHECK_OK(expr) CHECK_STATUS(expr, KILN_OK)

/* Like CHECK_OK but returns from the test function on failure. */
#define REQUIRE_OK(expr)                                                        \
  do {                                                                          \
    kiln_status s_ = (expr);                                                    \
    if (s_ != KILN_OK) {                                                        \
      harness_fail(__FILE__, __LINE__, "%s returned %s: %s", #expr,             \
                   kiln_status_string(s_), kiln_last_error());                  \
      return;                                                                   \
    }                                                                           \
  } while (0)

/* |a - b| <= atol + rtol * |b|, NaNs equal to NaNs, infinities exact. */
#define CHECK_CLOSE(a, b, rtol, atol)                                           \
  do {                                                                          \
    double a_ = (a), b_ = (b);                                                  \
    int ok_ = (isnan(a_) && isnan(b_)) || a_ == b_ ||                           \
              (isfinite(a_) && isfinite(b_) &&                                  \
               fabs(a_ - b_) <= (atol) + (rtol) * fabs(b_));                    \
    if (!ok_)                                                                   \
      harness_fail(__FILE__, __LINE__, "%s = %.17g, expected %s = %.17g", #a, a_, \
                   #b, b_);                                                     \
  } while (0)

/* Checks that the last error message contains `needle`. */
#define CHECK_ERROR_CONTAINS(needle)                                            \
  do {                                                                          \
    if (!strstr(kiln_last_error(), (needle)))                                   \
      harness_fail(__FILE__, __LINE__, "error message lacks \"%s\": %s", (needle), \
                   kiln_last_error());                                          \
  } while (0)

#endif
