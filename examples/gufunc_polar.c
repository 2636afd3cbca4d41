/* gufunc_polar: each row [x, y] of an (N, 2) float32 points array becomes
 * [r, theta] with a gufunc of layout (i)->(i), as the Numba tutorial's
 * gpu_polar. The body reads the row with xy(0), xy(1) and writes the
 * output row with rt(0), rt(1). Run on device arrays, then on host memory
 * (staged by the call). Checked against plain C: r 1e-6 relative, theta
 * 1e-5 absolute. Usage: gufunc_polar [n] (default 1000000) */
#include <math.h>
#include <stdlib.h>

#include "example.h"

static const char *const signatures[] = {"(float32 rt)(float32 xy)",
                                         "(float64 rt)(float64 xy)"};
static const char *const body =
    "rt(0) = sqrt(xy(0) * xy(0) + xy(1) * xy(1));\n"
    "rt(1) = atan2(xy(1), xy(0));";

static void check(const float *points, const float *polar, int64_t n, double *r_error,
                  double *theta_error) {
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
  TRY(example_open("gufunc_polar", &ctx));
  kiln_gufunc *gpu_polar;
  TRY(kiln_gufunc_create(ctx, "gpu_polar", "(i)->(i)", 2, signatures, body, NULL, &gpu_polar));
  int64_t shape[2] = {n, 2};
  float *points = malloc((size_t)n * 8 + 1), *polar = malloc((size_t)n * 8 + 1);
  srand(11);
  for (int64_t i = 0; i < 2 * n; i++) points[i] = -10.0f + 20.0f * (float)rand() / (float)RAND_MAX;

  kiln_array *d_points, *d_polar = NULL;
  TRY(kiln_array_from_host(ctx, KILN_FLOAT32, 2, shape, NULL, points, &d_points));
  kiln_operand in[1] = {kiln_operand_array(d_points)};
  kiln_operand out[1] = {kiln_operand_new(&d_polar)};
  TRY(kiln_gufunc_call(gpu_polar, 1, in, 1, out, NULL));
  TRY(kiln_array_to_host(d_polar, polar, NULL));
  double device_r = 0, device_theta = 0;
  check(points, polar, n, &device_r, &device_theta);

  for (int64_t i = 0; i < 2 * n; i++) polar[i] = NAN;
  kiln_operand hin[1] = {kiln_operand_host(points, KILN_FLOAT32, 2, shape, NULL)};
  kiln_operand hout[1] = {kiln_operand_host_output(polar, KILN_FLOAT32, 2, shape, NULL)};
  TRY(kiln_gufunc_call(gpu_polar, 1, hin, 1, hout, NULL));
  double host_r = 0, host_theta = 0;
  check(points, polar, n, &host_r, &host_theta);

  printf("n = %lld points, max error vs plain C: device r %.3g (relative), theta %.3g; host "
         "r %.3g, theta %.3g (tolerances %g, %g)\n",
         (long long)n, device_r, device_theta, host_r, host_theta, r_tolerance,
         theta_tolerance);
  kiln_array_release(d_points);
  kiln_array_release(d_polar);
  kiln_gufunc_release(gpu_polar);
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
