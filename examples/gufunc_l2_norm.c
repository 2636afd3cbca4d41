/* gufunc_l2_norm: the Euclidean norm of every row of an (N, 4) float32
 * array with a gufunc of layout (n)->(), as Numba's
 *   @guvectorize(['void(float32[:], float32[:])'], '(n)->()', target='cuda')
 * The body loops over the row with its size `n` (4 here, baked into the
 * kernel as a constant so the loop unrolls) and returns the norm. Checked
 * against plain C (1e-6 relative). Usage: gufunc_l2_norm [n] (default 1e7) */
#include <math.h>
#include <stdlib.h>

#include "example.h"

static const char *const signatures[] = {"float32(float32 x)", "float64(float64 x)"};
static const char *const body =
    "float s = 0;\n"
    "for (int64_t i = 0; i < n; i++) s += x(i) * x(i);\n"
    "return sqrt(s);";

int main(int argc, char **argv) {
  int64_t rows = argc > 1 ? strtoll(argv[1], NULL, 10) : 10000000;
  if (rows < 0) rows = 0;
  const double tolerance = 1e-6;
  kiln_context *ctx;
  TRY(example_open("gufunc_l2_norm", &ctx));
  kiln_gufunc *l2_norm;
  TRY(kiln_gufunc_create(ctx, "l2_norm", "(n)->()", 2, signatures, body, NULL, &l2_norm));

  int64_t shape[2] = {rows, 4};
  float *v = malloc((size_t)rows * 16 + 1), *norms = malloc((size_t)rows * 4 + 1);
  srand(7);
  for (int64_t i = 0; i < 4 * rows; i++) v[i] = -1.0f + 2.0f * (float)rand() / (float)RAND_MAX;
  kiln_array *d_v, *d_norms = NULL;
  TRY(kiln_array_from_host(ctx, KILN_FLOAT32, 2, shape, NULL, v, &d_v));
  kiln_operand in[1] = {kiln_operand_array(d_v)};
  kiln_operand out[1] = {kiln_operand_new(&d_norms)};
  TRY(kiln_gufunc_call(l2_norm, 1, in, 1, out, NULL));
  TRY(kiln_array_to_host(d_norms, norms, NULL));

  double worst = 0;
  for (int64_t r = 0; r < rows; r++) {
    double s = 0;
    for (int i = 0; i < 4; i++) s += (double)v[4 * r + i] * v[4 * r + i];
    double want = sqrt(s);
    worst = fmax(worst, fabs(norms[r] - want) / fmax(want, 1e-30));
  }
  printf("l2_norm over (%lld, 4) float32 rows: max relative error vs plain C %.3g "
         "(tolerance %g)\n",
         (long long)rows, worst, tolerance);
  kiln_array_release(d_v);
  kiln_array_release(d_norms);
  kiln_gufunc_release(l2_norm);
  kiln_context_release(ctx);
  free(v);
  free(norms);
  if (!(worst <= tolerance)) {
    printf("FAILED\n");
    return 1;
  }
  printf("ok\n");
  return 0;
}
