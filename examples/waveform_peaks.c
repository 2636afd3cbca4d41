/* waveform_peaks: after zero suppression, the samples that survive and
 * where they are: NumPy's x[x > t] and np.nonzero(x > t) on a noisy int16
 * waveform kept on the device, through kiln's single-pass scan
 * (docs/scan.md). The kept samples and their indices must equal plain C
 * exactly. Usage: waveform_peaks [n]   (default 1000000) */
#include <math.h>
#include <stdlib.h>

#include "example.h"

int main(int argc, char **argv) {
  int64_t n = argc > 1 ? strtoll(argv[1], NULL, 10) : 1000000;
  if (n < 0) n = 0;
  const int threshold = 90;
  kiln_context *ctx;
  TRY(example_open("waveform_peaks", &ctx));
  kiln_ufunc *greater;
  TRY(kiln_ufunc_builtin(ctx, "greater", &greater));

  /* a sine wave with noise, scaled to int16 as in the tutorial */
  int16_t *waveform = malloc((size_t)n * sizeof *waveform + 1);
  srand(2);
  for (int64_t i = 0; i < n; i++) {
    double noise = 20.0 * ((double)rand() / RAND_MAX - 0.5);
    waveform[i] = (int16_t)(100.0 * sin((double)i * 0.001) + noise);
  }
  kiln_array *x, *above = NULL, *kept = NULL, *where[1] = {NULL};
  TRY(kiln_array_from_host(ctx, KILN_INT16, 1, &n, NULL, waveform, &x));
  kiln_operand in[2] = {kiln_operand_array(x), kiln_operand_int(threshold)};
  kiln_operand out[1] = {kiln_operand_new(&above)};
  TRY(kiln_ufunc_call(greater, 2, in, 1, out, NULL));
  int64_t count = 0, count_where = 0;
  TRY(kiln_compact(ctx, kiln_operand_array(x), kiln_operand_array(above),
                   kiln_operand_new(&kept), &count, NULL));   /* x[x > t] */
  TRY(kiln_nonzero(ctx, kiln_operand_array(above), where, &count_where, NULL)); /* np.nonzero */

  int16_t *samples = malloc((size_t)count * sizeof *samples + 1);
  int64_t *index = malloc((size_t)count_where * sizeof *index + 1);
  if (count > 0) TRY(kiln_array_to_host(kept, samples, NULL));
  if (count_where > 0) TRY(kiln_array_to_host(where[0], index, NULL));
  int64_t k = 0, wrong = count != count_where;
  for (int64_t i = 0; i < n && !wrong; i++)
    if (waveform[i] > threshold) {
      wrong += k >= count || samples[k] != waveform[i] || index[k] != i;
      k++;
    }
  wrong += k != count;
  printf("n = %lld, threshold %d: %lld samples above it, first at %lld\n", (long long)n,
         threshold, (long long)count, count > 0 ? (long long)index[0] : -1LL);
  kiln_array_release(where[0]);
  kiln_array_release(kept);
  kiln_array_release(above);
  kiln_array_release(x);
  kiln_ufunc_release(greater);
  kiln_context_release(ctx);
  free(waveform);
  free(samples);
  free(index);
  if (wrong) {
    printf("FAILED: the kept samples or their indices differ from plain C\n");
    return 1;
  }
  printf("ok\n");
  return 0;
}
