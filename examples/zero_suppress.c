/* zero_suppress: the tutorials' waveform zero suppression: every sample of
 * an int16 waveform below a threshold becomes 0. A ufunc with an int16
 * signature, called on a host waveform with the threshold as a scalar (a
 * Python-style int: it takes the waveform's int16). The result must equal
 * plain C exactly. Usage: zero_suppress [n]   (default 1000000) */
#include <math.h>
#include <stdlib.h>

#include "example.h"

static const char *const signatures[] = {"int16(int16 waveform_value, int16 threshold)"};
static const char *const body =
    "if (waveform_value < threshold) return 0;\n"
    "return waveform_value;";

int main(int argc, char **argv) {
  int64_t n = argc > 1 ? strtoll(argv[1], NULL, 10) : 1000000;
  if (n < 0) n = 0;
  const int threshold = 15;
  kiln_context *ctx;
  TRY(example_open("zero_suppress", &ctx));
  kiln_ufunc *zero_suppress;
  TRY(kiln_ufunc_create(ctx, "zero_suppress", 1, signatures, body, NULL, &zero_suppress));

  /* a sine wave with noise, scaled to int16 as in the tutorial */
  int16_t *waveform = malloc((size_t)n * sizeof *waveform + 1);
  int16_t *suppressed = malloc((size_t)n * sizeof *suppressed + 1);
  srand(2);
  for (int64_t i = 0; i < n; i++) {
    double noise = 20.0 * ((double)rand() / RAND_MAX - 0.5);
    waveform[i] = (int16_t)(100.0 * sin((double)i * 0.001) + noise);
  }
  kiln_operand in[2] = {kiln_operand_host(waveform, KILN_INT16, 1, &n, NULL),
                        kiln_operand_int(threshold)};
  kiln_operand out[1] = {kiln_operand_host_output(suppressed, KILN_INT16, 1, &n, NULL)};
  TRY(kiln_ufunc_call(zero_suppress, 2, in, 1, out, NULL));

  int64_t wrong = 0, zeros = 0;
  double max_error = 0;
  for (int64_t i = 0; i < n; i++) {
    int16_t want = waveform[i] < threshold ? 0 : waveform[i];
    max_error = fmax(max_error, fabs((double)suppressed[i] - want));
    wrong += suppressed[i] != want;
    zeros += suppressed[i] == 0;
  }
  printf("n = %lld, threshold %d: %lld samples suppressed, max |error| vs plain C = %g "
         "(must be 0)\n",
         (long long)n, threshold, (long long)zeros, max_error);
  kiln_ufunc_release(zero_suppress);
  kiln_context_release(ctx);
  free(waveform);
  free(suppressed);
  if (wrong) {
    printf("FAILED: %lld samples differ\n", (long long)wrong);
    return 1;
  }
  printf("ok\n");
  return 0;
}
