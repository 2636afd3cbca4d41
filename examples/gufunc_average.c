/* gufunc_average: row means and sums of a (20, 5) float32 array with
 * gufuncs of layout (i)->(), as the Numba tutorial's gpu_average, gpu_sum
 * and gpu_average_2:
 *   gpu_average   the body loops over the row itself;
 *   gpu_sum       calls the helper device function row_sum(...);
 *   gpu_average_2 calls the same helper and divides by the row length.
 * The helper takes the row as a pointer and a stride (KILN_DATA(row),
 * KILN_STRIDE(row, 0)), so it also works on a column or a reversed view.
 * Checked against plain C (1e-5 relative). Usage: gufunc_average [rows]
 * (default 20) */
#include <math.h>
#include <stdlib.h>

#include "example.h"

static const char *const signatures[] = {"(float32 out)(float32 row)"};
static const char *const helpers =
    "KILN_DEVICE float row_sum(KILN_GLOBAL const float *row, int64_t stride, int64_t n) {\n"
    "  float s = 0;\n"
    "  for (int64_t i = 0; i < n; i++) s += row[i * stride];\n"
    "  return s;\n"
    "}\n";

static int run(kiln_context *ctx, const char *name, const char *body, kiln_array *rows,
               const float *host, int64_t nrows, int64_t ncols, int mean, double *worst) {
  kiln_gufunc *g;
  TRY(kiln_gufunc_create(ctx, name, "(i)->()", 1, signatures, body, helpers, &g));
  kiln_array *out = NULL;
  kiln_operand in[1] = {kiln_operand_array(rows)};
  kiln_operand o[1] = {kiln_operand_new(&out)};
  TRY(kiln_gufunc_call(g, 1, in, 1, o, NULL));
  float *result = malloc((size_t)nrows * sizeof *result + 1);
  TRY(kiln_array_to_host(out, result, NULL));
  for (int64_t r = 0; r < nrows; r++) {
    double s = 0;
    for (int64_t c = 0; c < ncols; c++) s += host[r * ncols + c];
    double want = mean ? s / (double)ncols : s;
    *worst = fmax(*worst, fabs(result[r] - want) / fmax(fabs(want), 1e-6));
  }
  printf("  %-14s row 0: %9.5f\n", name, nrows ? result[0] : 0.0f);
  free(result);
  kiln_array_release(out);
  kiln_gufunc_release(g);
  return 0;
}

int main(int argc, char **argv) {
  int64_t nrows = argc > 1 ? strtoll(argv[1], NULL, 10) : 20, ncols = 5;
  if (nrows < 0) nrows = 0;
  const double tolerance = 1e-5;
  kiln_context *ctx;
  TRY(example_open("gufunc_average", &ctx));
  int64_t shape[2] = {nrows, ncols};
  float *host = malloc((size_t)(nrows * ncols) * sizeof *host + 1);
  srand(3);
  for (int64_t i = 0; i < nrows * ncols; i++) host[i] = 10.0f * (float)rand() / (float)RAND_MAX;
  kiln_array *rows;
  TRY(kiln_array_from_host(ctx, KILN_FLOAT32, 2, shape, NULL, host, &rows));
  double worst = 0;
  int failed =
      run(ctx, "gpu_average",
          "float s = 0;\nfor (int64_t k = 0; k < i; k++) s += row(k);\nout = s / i;", rows,
          host, nrows, ncols, 1, &worst) ||
      run(ctx, "gpu_sum", "out = row_sum(KILN_DATA(row), KILN_STRIDE(row, 0), i);", rows, host,
          nrows, ncols, 0, &worst) ||
      run(ctx, "gpu_average_2", "out = row_sum(KILN_DATA(row), KILN_STRIDE(row, 0), i) / i;",
          rows, host, nrows, ncols, 1, &worst);
  printf("(%lld, %lld) float32: max relative error vs plain C %.3g (tolerance %g)\n",
         (long long)nrows, (long long)ncols, worst, tolerance);
  kiln_array_release(rows);
  kiln_context_release(ctx);
  free(host);
  if (failed || !(worst <= tolerance)) {
    printf("FAILED\n");
    return 1;
  }
  printf("ok\n");
  return 0;
}
