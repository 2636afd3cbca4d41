/* reduce_sum: the tutorials' `add_ufunc.reduce(a)`: a user ufunc declared
 * reducible (associative, commutative, identity 0) reduces a whole array,
 * and the built-in add reduces a matrix along each axis, each checked
 * against plain C. Integer sums are exact; float32 sums use kiln's fixed
 * tree, so they match the float64 reference closely and give the same
 * bits on every device. Usage: reduce_sum [n] */
#include <math.h>
#include <stdlib.h>

#include "example.h"

int main(int argc, char **argv) {
  int64_t n = argc > 1 ? strtoll(argv[1], NULL, 10) : 10000000;
  if (n < 1) {
    fprintf(stderr, "usage: reduce_sum [n >= 1]\n");
    return 2;
  }
  kiln_context *ctx;
  TRY(example_open("reduce_sum", &ctx));

  /* @vectorize(['int64(int64, int64)', 'float32(float32, float32)'])
   * def add_ufunc(x, y): return x + y */
  static const char *const sigs[] = {"int64(int64 x, int64 y)", "float32(float32 x, float32 y)"};
  kiln_ufunc *add_ufunc;
  TRY(kiln_ufunc_create(ctx, "add_ufunc", 2, sigs, "return x + y;", NULL, &add_ufunc));
  kiln_operand zero = kiln_operand_int(0);
  TRY(kiln_ufunc_declare_reducible(add_ufunc, &zero));

  int64_t *ints = malloc((size_t)n * sizeof *ints);
  float *floats = malloc((size_t)n * sizeof *floats);
  double want_float = 0;
  for (int64_t i = 0; i < n; i++) {
    ints[i] = i;
    floats[i] = (float)((i * 7919) % 1000) / 1000.0f; /* in [0, 1) */
    want_float += floats[i];
  }
  kiln_array *a, *b;
  TRY(kiln_array_from_host(ctx, KILN_INT64, 1, &n, NULL, ints, &a));
  TRY(kiln_array_from_host(ctx, KILN_FLOAT32, 1, &n, NULL, floats, &b));
  int64_t got_int = 0;
  float got_float = 0;
  TRY(kiln_ufunc_reduce(add_ufunc, kiln_operand_array(a),
                        kiln_operand_host_output(&got_int, KILN_INT64, 0, NULL, NULL), NULL, NULL));
  TRY(kiln_ufunc_reduce(add_ufunc, kiln_operand_array(b),
                        kiln_operand_host_output(&got_float, KILN_FLOAT32, 0, NULL, NULL), NULL,
                        NULL));
  int64_t want_int = n * (n - 1) / 2;
  double rel = fabs(got_float - want_float) / want_float;
  printf("add_ufunc.reduce(arange(%lld)) = %lld (plain C %lld)\n", (long long)n, (long long)got_int,
         (long long)want_int);
  printf(
      "add_ufunc.reduce(float32 values) = %.9g (plain C, float64: %.9g, relative error "
      "%.2e)\n",
      got_float, want_float, rel);

  /* the built-in add along each axis of a (rows, 3) matrix view of b */
  int ok = got_int == want_int && rel < 1e-6;
  int64_t rows = n / 3, shape[2] = {rows, 3};
  kiln_ufunc *add;
  TRY(kiln_ufunc_builtin(ctx, "add", &add));
  kiln_array *m;
  TRY(kiln_array_from_host(ctx, KILN_FLOAT32, 2, shape, NULL, floats, &m));
  float col_sums[3];
  int64_t three = 3;
  kiln_reduce_options axis0 = kiln_reduce_axis(0);
  TRY(kiln_ufunc_reduce(add, kiln_operand_array(m),
                        kiln_operand_host_output(col_sums, KILN_FLOAT32, 1, &three, NULL), &axis0,
                        NULL));
  for (int j = 0; j < 3; j++) {
    double s = 0;
    for (int64_t i = 0; i < rows; i++) s += floats[i * 3 + j];
    printf("column %d: %.9g (plain C %.9g)\n", j, col_sums[j], s);
    ok &= fabs(col_sums[j] - s) <= 1e-6 * s + 1e-6;
  }
  kiln_array *row_sums;
  kiln_reduce_options axis1 = kiln_reduce_axis(1);
  TRY(kiln_ufunc_reduce(add, kiln_operand_array(m), kiln_operand_new(&row_sums), &axis1, NULL));
  float *rs = malloc((size_t)rows * sizeof *rs + 1);
  TRY(kiln_array_to_host(row_sums, rs, NULL));
  for (int64_t i = 0; i < rows; i++) {
    /* three float32 values: the tree adds ((x0 + x2) + x1)... any order of
     * three rounds within 2 ulp */
    double s = (double)floats[i * 3] + floats[i * 3 + 1] + floats[i * 3 + 2];
    ok &= fabs(rs[i] - s) <= 4e-7 * s + 1e-7;
  }
  printf("%lld row sums checked\n", (long long)rows);
  free(rs);
  free(ints);
  free(floats);
  kiln_array_release(row_sums);
  kiln_array_release(m);
  kiln_array_release(a);
  kiln_array_release(b);
  kiln_ufunc_release(add);
  kiln_ufunc_release(add_ufunc);
  kiln_context_release(ctx);
  printf(ok ? "ok\n" : "FAILED\n");
  return ok ? 0 : 1;
}
