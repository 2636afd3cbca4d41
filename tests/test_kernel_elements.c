/* Conformance: element launches (kiln_program_launch_elements) visit every
 * element exactly once and nothing else, at sizes around work-group
 * multiples (on CPU devices the kernel has no bound test: whole groups,
 * then groups of one for the rest), contiguous and strided, through
 * ufuncs, fill and copy; and raw kernels launched without a local size
 * still cover every work-item. Outputs are views inside larger arrays
 * whose other elements hold a sentinel that must survive. Values are small
 * integers in float64, so every result is exact. */
#include "harness.h"

#define SENTINEL -777.0

static const int64_t sizes[] = {1, 2, 7, 255, 256, 257, 511, 512, 513, 1031, 4099, 65537, 100003};
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))

/* n random integers in [-500, 500) as float64. */
static double *random_integers(int64_t n) {
  double *v = malloc((size_t)n * sizeof *v + 8);
  for (int64_t i = 0; i < n; i++) v[i] = floor(harness_rand_uniform(-500, 500));
  return v;
}

static kiln_ufunc *twice_minus(kiln_context *ctx) {
  static const char *const sigs[] = {"float64(float64 x, float64 y)"};
  kiln_ufunc *u = NULL;
  kiln_status s = kiln_ufunc_create(ctx, "twice_minus", 1, sigs, "return x * 2 - y;", NULL, &u);
  if (s != KILN_OK) harness_fail(__FILE__, __LINE__, "create: %s", kiln_last_error());
  return u;
}

/* out = x[::xstep] * 2 - y, written to every ostep-th element of a buffer
 * of n * ostep + 2 sentinels, from element 1; checks all of the buffer. */
static void ufunc_case(kiln_context *ctx, kiln_ufunc *u, int64_t n, int64_t xstep,
                       int64_t ostep) {
  int64_t xlength = n * xstep, olength = n * ostep + 2;
  double *x = random_integers(xlength), *y = random_integers(n);
  double *host = malloc((size_t)olength * sizeof *host);
  kiln_array *dx = NULL, *dy = NULL, *buffer = NULL, *xv = NULL, *ov = NULL;
  CHECK_OK(kiln_array_from_host(ctx, KILN_FLOAT64, 1, &xlength, NULL, x, &dx));
  CHECK_OK(kiln_array_from_host(ctx, KILN_FLOAT64, 1, &n, NULL, y, &dy));
  double sentinel = SENTINEL;
  CHECK_OK(kiln_array_full(ctx, KILN_FLOAT64, 1, &olength, &sentinel, &buffer));
  kiln_slice xs = {0, KILN_NONE, xstep}, os = {1, 1 + n * ostep, ostep};
  CHECK_OK(kiln_array_slice(dx, 1, &xs, &xv));
  CHECK_OK(kiln_array_slice(buffer, 1, &os, &ov));
  if (xv && ov) {
    kiln_operand in[2] = {kiln_operand_array(xv), kiln_operand_array(dy)};
    kiln_operand out[1] = {kiln_operand_array(ov)};
    CHECK_OK(kiln_ufunc_call(u, 2, in, 1, out, NULL));
    CHECK_OK(kiln_array_to_host(buffer, host, NULL));
    int64_t bad = 0;
    for (int64_t k = 0; k < olength; k++) {
      int inside = k >= 1 && k < 1 + n * ostep && (k - 1) % ostep == 0;
      int64_t i = (k - 1) / ostep;
      double want = inside ? x[i * xstep] * 2 - y[i] : SENTINEL;
      if (host[k] != want && bad++ < 3)
        CHECK_MSG(0, "n %lld, x step %lld, out step %lld: element %lld is %g, want %g",
                  (long long)n, (long long)xstep, (long long)ostep, (long long)k, host[k], want);
    }
  }
  kiln_array_release(xv);
  kiln_array_release(ov);
  kiln_array_release(dx);
  kiln_array_release(dy);
  kiln_array_release(buffer);
  free(x);
  free(y);
  free(host);
}

static void test_ufunc_contiguous(kiln_context *ctx) {
  kiln_ufunc *u = twice_minus(ctx);
  for (int s = 0; s < NSIZES; s++) ufunc_case(ctx, u, sizes[s], 1, 1);
  kiln_ufunc_release(u);
}

/* strided input and output, unit-stride and not mixed in one kernel */
static void test_ufunc_strided(kiln_context *ctx) {
  kiln_ufunc *u = twice_minus(ctx);
  for (int s = 0; s < NSIZES; s++) {
    ufunc_case(ctx, u, sizes[s], 3, 1);
    ufunc_case(ctx, u, sizes[s], 1, 2);
    ufunc_case(ctx, u, sizes[s], 2, 3);
  }
  kiln_ufunc_release(u);
}

/* fill and copy (the generator's own kernels) into every other element */
static void test_fill_and_copy(kiln_context *ctx) {
  for (int s = 0; s < NSIZES; s++) {
    int64_t n = sizes[s], length = 2 * n + 1;
    double *x = random_integers(n), *host = malloc((size_t)length * sizeof *host);
    double sentinel = SENTINEL, value = floor(harness_rand_uniform(1, 100));
    kiln_array *buffer = NULL, *view = NULL, *dx = NULL;
    CHECK_OK(kiln_array_full(ctx, KILN_FLOAT64, 1, &length, &sentinel, &buffer));
    kiln_slice odd = {1, KILN_NONE, 2};
    CHECK_OK(kiln_array_slice(buffer, 1, &odd, &view));
    CHECK_OK(kiln_array_from_host(ctx, KILN_FLOAT64, 1, &n, NULL, x, &dx));
    if (view && dx) {
      for (int pass = 0; pass < 2; pass++) {
        if (pass == 0) {
          kiln_array *filled = NULL;
          CHECK_OK(kiln_array_full(ctx, KILN_FLOAT64, 1, &n, &value, &filled));
          if (filled) CHECK_OK(kiln_array_copy_into(view, filled));
          kiln_array_release(filled);
        } else {
          CHECK_OK(kiln_array_copy_into(view, dx));
        }
        CHECK_OK(kiln_array_to_host(buffer, host, NULL));
        int64_t bad = 0;
        for (int64_t k = 0; k < length; k++) {
          double want = k % 2 == 0 ? SENTINEL : pass == 0 ? value : x[k / 2];
          if (host[k] != want && bad++ < 3)
            CHECK_MSG(0, "n %lld, pass %d: element %lld is %g, want %g", (long long)n, pass,
                      (long long)k, host[k], want);
        }
      }
    }
    kiln_array_release(dx);
    kiln_array_release(view);
    kiln_array_release(buffer);
    free(x);
    free(host);
  }
}

/* a raw kernel with a bound test, no local size: every item runs once */
static void test_raw_without_local_size(kiln_context *ctx) {
  static const char *source =
      "KILN_KERNEL void mark(int64_t n, KILN_GLOBAL int64_t *y) {\n"
      "  int64_t i = kiln_global_id(0);\n"
      "  if (i < n) y[i] += i + 1;\n"
      "}\n";
  kiln_kernel *k = NULL;
  CHECK_OK(kiln_kernel_create(ctx, source, "mark", NULL, &k));
  for (int s = 0; s < NSIZES && k; s++) {
    int64_t n = sizes[s];
    kiln_array *y = NULL;
    CHECK_OK(kiln_array_zeros(ctx, KILN_INT64, 1, &n, &y));
    int64_t *host = malloc((size_t)n * sizeof *host);
    kiln_arg args[2] = {kiln_arg_int64(n), kiln_arg_array(y)};
    CHECK_OK(kiln_kernel_launch(k, 1, &n, NULL, 2, args, NULL));
    CHECK_OK(kiln_array_to_host(y, host, NULL));
    int64_t bad = 0;
    for (int64_t i = 0; i < n; i++)
      if (host[i] != i + 1 && bad++ < 3)
        CHECK_MSG(0, "n %lld: item %lld ran %lld times", (long long)n, (long long)i,
                  (long long)(host[i] / (i + 1)));
    kiln_array_release(y);
    free(host);
  }
  kiln_kernel_release(k);
}

static const harness_test tests[] = {
    {"ufunc_contiguous", test_ufunc_contiguous},
    {"ufunc_strided", test_ufunc_strided},
    {"fill_and_copy", test_fill_and_copy},
    {"raw_without_local_size", test_raw_without_local_size},
    {0},
};

int main(int argc, char **argv) { return harness_main(argc, argv, tests); }
