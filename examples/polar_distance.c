/* polar_distance: the tutorials' ufunc with a helper device function: the
 * distance between two points given in polar coordinates, each converted
 * to Cartesian by a helper (KILN_DEVICE, in the ufunc's preamble) that
 * returns two values through pointers. Host arrays in and out; checked
 * against plain C, within 1e-5 (absolute; distances are at most 2).
 * Usage: polar_distance [n]   (default 1000000) */
#include <math.h>
#include <stdlib.h>

#include "example.h"

#define PI 3.14159265358979323846

static const char *const signatures[] = {
    "float32(float32 rho1, float32 theta1, float32 rho2, float32 theta2)"};
static const char *const helpers =
    "KILN_DEVICE void polar_to_cartesian(float rho, float theta, float *x, float *y) {\n"
    "  *x = rho * cos(theta);\n"
    "  *y = rho * sin(theta);\n"
    "}\n";
static const char *const body =
    "float x1, y1, x2, y2;\n"
    "polar_to_cartesian(rho1, theta1, &x1, &y1);\n"
    "polar_to_cartesian(rho2, theta2, &x2, &y2);\n"
    "return sqrt((x1 - x2) * (x1 - x2) + (y1 - y2) * (y1 - y2));";

static float uniform(float lo, float hi) { return lo + (hi - lo) * (float)rand() / (float)RAND_MAX; }

int main(int argc, char **argv) {
  int64_t n = argc > 1 ? strtoll(argv[1], NULL, 10) : 1000000;
  if (n < 0) n = 0;
  const double tolerance = 1e-5;
  kiln_context *ctx;
  TRY(example_open("polar_distance", &ctx));
  kiln_ufunc *polar_distance;
  TRY(kiln_ufunc_create(ctx, "polar_distance", 1, signatures, body, helpers, &polar_distance));

  float *rho1 = malloc((size_t)n * 4 + 1), *theta1 = malloc((size_t)n * 4 + 1);
  float *rho2 = malloc((size_t)n * 4 + 1), *theta2 = malloc((size_t)n * 4 + 1);
  float *distance = malloc((size_t)n * 4 + 1);
  srand(3);
  for (int64_t i = 0; i < n; i++) {
    rho1[i] = uniform(0.5f, 1.5f);
    theta1[i] = uniform((float)-PI, (float)PI);
    rho2[i] = uniform(0.5f, 1.5f);
    theta2[i] = uniform((float)-PI, (float)PI);
  }
  kiln_operand in[4] = {kiln_operand_host(rho1, KILN_FLOAT32, 1, &n, NULL),
                        kiln_operand_host(theta1, KILN_FLOAT32, 1, &n, NULL),
                        kiln_operand_host(rho2, KILN_FLOAT32, 1, &n, NULL),
                        kiln_operand_host(theta2, KILN_FLOAT32, 1, &n, NULL)};
  kiln_operand out[1] = {kiln_operand_host_output(distance, KILN_FLOAT32, 1, &n, NULL)};
  TRY(kiln_ufunc_call(polar_distance, 4, in, 1, out, NULL));

  double max_error = 0;
  for (int64_t i = 0; i < n; i++) {
    double x1 = rho1[i] * cos((double)theta1[i]), y1 = rho1[i] * sin((double)theta1[i]);
    double x2 = rho2[i] * cos((double)theta2[i]), y2 = rho2[i] * sin((double)theta2[i]);
    double want = sqrt((x1 - x2) * (x1 - x2) + (y1 - y2) * (y1 - y2));
    max_error = fmax(max_error, fabs(distance[i] - want));
  }
  printf("n = %lld, max |error| vs plain C = %.3g (tolerance %g)\n", (long long)n, max_error,
         tolerance);
  kiln_ufunc_release(polar_distance);
  kiln_context_release(ctx);
  free(rho1);
  free(theta1);
  free(rho2);
  free(theta2);
  free(distance);
  if (!(max_error <= tolerance)) {
    printf("FAILED\n");
    return 1;
  }
  printf("ok\n");
  return 0;
}
