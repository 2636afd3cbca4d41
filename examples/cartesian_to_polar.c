/* cartesian_to_polar: a ufunc with two outputs (r, theta) applied to the
 * columns points[:, 0] and points[:, 1] of an (N, 2) array: strided views
 * read in the kernel with no copy, the results written into the columns
 * of an (N, 2) device array. Then the same on host memory: the columns of
 * a host (N, 2) array in, the columns of a host (N, 2) array out. Checked
 * against plain C: r within 1e-6 relative, theta within 1e-5 absolute.
 * Usage: cartesian_to_polar [n]   (default 1000000) */
#include <math.h>
#include <stdlib.h>

#include "example.h"

static const char *const signatures[] = {"(float32 r, float32 theta)(float32 x, float32 y)",
                                         "(float64 r, float64 theta)(float64 x, float64 y)"};
static const char *const body =
    "r = sqrt(x * x + y * y);\n"
    "theta = atan2(y, x);";

/* Largest errors of the (N, 2) polar results against plain C: r relative,
 * theta absolute. */
static void check(const float *points, const float *polar, int64_t n, double *r_error,
                  double *theta_error) {
  *r_error = *theta_error = 0;
  for (int64_t i = 0; i < n; i++) {
    double x = points[2 * i], y = points[2 * i + 1], r = sqrt(x * x + y * y);
    *r_error = fmax(*r_error, fabs(polar[2 * i] - r) / fmax(r, 1e-30));
    *theta_error = fmax(*theta_error, fabs(polar[2 * i + 1] - atan2(y, x)));
  }
}

int main(int argc, char **argv) {
  int64_t n = argc > 1 ? strtoll(argv[1], NULL, 10) : 1000000;
  if (n < 0) n = 0;
  const double r_tolerance = 1e-6, theta_tolerance = 1e-5;
  kiln_context *ctx;
  TRY(example_open("cartesian_to_polar", &ctx));
  kiln_ufunc *to_polar;
  TRY(kiln_ufunc_create(ctx, "cartesian_to_polar", 2, signatures, body, NULL, &to_polar));

  int64_t shape[2] = {n, 2};
  float *points = malloc((size_t)n * 8 + 1), *polar = malloc((size_t)n * 8 + 1);
  srand(5);
  for (int64_t i = 0; i < 2 * n; i++) points[i] = -10.0f + 20.0f * (float)rand() / (float)RAND_MAX;

  /* device: columns as views of the (N, 2) arrays, no copies */
  kiln_array *d_points, *d_polar, *x, *y, *r, *theta;
  TRY(kiln_array_from_host(ctx, KILN_FLOAT32, 2, shape, NULL, points, &d_points));
  TRY(kiln_array_empty(ctx, KILN_FLOAT32, 2, shape, &d_polar));
  TRY(kiln_array_index(d_points, 1, 0, &x)); /* points[:, 0] */
  TRY(kiln_array_index(d_points, 1, 1, &y)); /* points[:, 1] */
  TRY(kiln_array_index(d_polar, 1, 0, &r));
  TRY(kiln_array_index(d_polar, 1, 1, &theta));
  kiln_operand in[2] = {kiln_operand_array(x), kiln_operand_array(y)};
  kiln_operand out[2] = {kiln_operand_array(r), kiln_operand_array(theta)};
  TRY(kiln_ufunc_call(to_polar, 2, in, 2, out, NULL));
  TRY(kiln_array_to_host(d_polar, polar, NULL));
  double device_r, device_theta;
  check(points, polar, n, &device_r, &device_theta);

  /* host: the same columns described by a pointer and a byte stride */
  int64_t column_stride[1] = {2 * sizeof(float)};
  for (int64_t i = 0; i < 2 * n; i++) polar[i] = NAN;
  kiln_operand hin[2] = {kiln_operand_host(points, KILN_FLOAT32, 1, &n, column_stride),
                         kiln_operand_host(points + 1, KILN_FLOAT32, 1, &n, column_stride)};
  kiln_operand hout[2] = {
      kiln_operand_host_output(polar, KILN_FLOAT32, 1, &n, column_stride),
      kiln_operand_host_output(polar + 1, KILN_FLOAT32, 1, &n, column_stride)};
  TRY(kiln_ufunc_call(to_polar, 2, hin, 2, hout, NULL));
  double host_r, host_theta;
  check(points, polar, n, &host_r, &host_theta);

  printf("n = %lld points, max error vs plain C: device views r %.3g (relative), theta "
         "%.3g; host columns r %.3g, theta %.3g (tolerances %g, %g)\n",
         (long long)n, device_r, device_theta, host_r, host_theta, r_tolerance,
         theta_tolerance);
  kiln_array *arrays[] = {d_points, d_polar, x, y, r, theta};
  for (int i = 0; i < 6; i++) kiln_array_release(arrays[i]);
  kiln_ufunc_release(to_polar);
  kiln_context_release(ctx);
  free(points);
  free(polar);
  if (!(device_r <= r_tolerance && host_r <= r_tolerance && device_theta <= theta_tolerance &&
        host_theta <= theta_tolerance)) {
    printf("FAILED\n");
    return 1;
  }
  printf("ok\n");
  return 0;
}
