/* gaussian_pdf: the tutorials' first @vectorize example, the normal
 * probability density over many points with a mean and a sigma given as
 * scalars, as a kiln ufunc with a float32 and a float64 signature.
 *
 * Called twice: host arrays in and out (kiln stages the data through
 * pinned memory in chunks that overlap copies and compute), then on device
 * arrays with a device result (no transfer). Both are checked against
 * plain C in double precision; the float32 results must be within 1e-6
 * (absolute; the density is at most 0.4). Usage: gaussian_pdf [n]
 * (default 1000000; the tutorials use 100000000). */
#include <math.h>
#include <stdlib.h>

#include "example.h"

static const char *const signatures[] = {
    "float32(float32 x, float32 mean, float32 sigma)",
    "float64(float64 x, float64 mean, float64 sigma)",
};
static const char *const body =
    "return exp(-0.5f * ((x - mean) / sigma) * ((x - mean) / sigma)) / (sigma * 2.5066283f);";

static double reference(double x, double mean, double sigma) {
  double z = (x - mean) / sigma;
  return exp(-0.5 * z * z) / (sigma * 2.5066282746310002);
}

int main(int argc, char **argv) {
  int64_t n = argc > 1 ? strtoll(argv[1], NULL, 10) : 1000000;
  if (n < 0) n = 0;
  const double mean = 0.0, sigma = 1.0, tolerance = 1e-6;
  kiln_context *ctx;
  TRY(example_open("gaussian_pdf", &ctx));
  kiln_ufunc *gaussian;
  TRY(kiln_ufunc_create(ctx, "gaussian_pdf", 2, signatures, body, NULL, &gaussian));

  float *x = malloc((size_t)n * sizeof *x + 1), *y = malloc((size_t)n * sizeof *y + 1);
  srand(1);
  for (int64_t i = 0; i < n; i++) x[i] = -3.0f + 6.0f * (float)rand() / (float)RAND_MAX;

  /* host in, host out: mean and sigma are Python-style scalars, which keep
   * the float32 signature */
  kiln_operand in[3] = {kiln_operand_host(x, KILN_FLOAT32, 1, &n, NULL),
                        kiln_operand_float(mean), kiln_operand_float(sigma)};
  kiln_operand out[1] = {kiln_operand_host_output(y, KILN_FLOAT32, 1, &n, NULL)};
  TRY(kiln_ufunc_call(gaussian, 3, in, 1, out, NULL));
  double host_error = 0;
  for (int64_t i = 0; i < n; i++)
    host_error = fmax(host_error, fabs(y[i] - reference(x[i], mean, sigma)));

  /* device in, device out */
  kiln_array *dx, *dy = NULL;
  TRY(kiln_array_from_host(ctx, KILN_FLOAT32, 1, &n, NULL, x, &dx));
  in[0] = kiln_operand_array(dx);
  out[0] = kiln_operand_new(&dy);
  TRY(kiln_ufunc_call(gaussian, 3, in, 1, out, NULL));
  TRY(kiln_array_to_host(dy, y, NULL));
  double device_error = 0;
  for (int64_t i = 0; i < n; i++)
    device_error = fmax(device_error, fabs(y[i] - reference(x[i], mean, sigma)));

  printf("n = %lld, result %s, max |error| vs plain C: host arrays %.3g, device arrays %.3g "
         "(tolerance %g)\n",
         (long long)n, kiln_dtype_name(kiln_array_dtype(dy)), host_error, device_error,
         tolerance);
  kiln_array_release(dx);
  kiln_array_release(dy);
  kiln_ufunc_release(gaussian);
  kiln_context_release(ctx);
  free(x);
  free(y);
  if (!(host_error <= tolerance && device_error <= tolerance)) {
    printf("FAILED\n");
    return 1;
  }
  printf("ok\n");
  return 0;
}
