/* random_weights: the tutorials' `weights = np.random.normal(.5, .1, n)`
 * drawn on the device by kiln's generator, then the same n values drawn on
 * the host by the host generator (kiln_random_normal with no context) for
 * a check that is equality, not a tolerance: kiln's random numbers have
 * the same bits on every backend and on the host (docs/random.md). Also
 * prints the sample mean and standard deviation. Usage: random_weights [n] */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "example.h"

int main(int argc, char **argv) {
  int64_t n = argc > 1 ? strtoll(argv[1], NULL, 10) : 1000000;
  if (n < 2) {
    fprintf(stderr, "usage: random_weights [n >= 2]\n");
    return 2;
  }
  kiln_context *ctx;
  TRY(example_open("random_weights", &ctx));
  kiln_random_generator *gen, *check;
  TRY(kiln_random_generator_create(2026, &gen));
  TRY(kiln_random_generator_create(2026, &check));
  kiln_array *weights;
  TRY(kiln_array_empty(ctx, KILN_FLOAT32, 1, &n, &weights));
  TRY(kiln_random_normal(gen, NULL, 0.5, 0.1, kiln_operand_array(weights), NULL));

  float *device = malloc((size_t)n * sizeof *device), *host = malloc((size_t)n * sizeof *host);
  if (!device || !host) return 1;
  TRY(kiln_array_to_host(weights, device, NULL));
  TRY(kiln_random_normal(check, NULL, 0.5, 0.1,
                         kiln_operand_host_output(host, KILN_FLOAT32, 1, &n, NULL), NULL));
  double sum = 0, sum2 = 0;
  for (int64_t i = 0; i < n; i++) sum += device[i];
  double mean = sum / (double)n;
  for (int64_t i = 0; i < n; i++) sum2 += (device[i] - mean) * (device[i] - mean);
  double std = sqrt(sum2 / (double)(n - 1));
  int same = memcmp(device, host, (size_t)n * sizeof *device) == 0;
  printf("%lld weights: mean %.5f, std %.5f; device values %s the host generator's\n",
         (long long)n, mean, std, same ? "equal" : "DIFFER FROM");
  free(device);
  free(host);
  kiln_array_release(weights);
  kiln_random_generator_release(gen);
  kiln_random_generator_release(check);
  kiln_context_release(ctx);
  /* mean within 5 standard errors of 0.5, std within 2% of 0.1 */
  if (!same || fabs(mean - 0.5) > 5 * 0.1 / sqrt((double)n) || fabs(std - 0.1) > 0.002) {
    printf("FAILED\n");
    return 1;
  }
  printf("ok\n");
  return 0;
}
