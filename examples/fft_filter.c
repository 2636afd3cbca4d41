/* fft_filter: low-pass filter a noisy signal in the frequency domain, the
 * FFT tutorial's first workload. A 5 Hz + 12 Hz signal sampled at 1 kHz
 * for 4 s (4000 points: 2^5 5^3, kiln's radix passes) gets white noise;
 * rfft on the device, every bin above 20 Hz zeroed there (a slice of the
 * spectrum filled with zeros), irfft back. Checked against a plain C DFT
 * doing the same filter (float64, O(n^2): 16 M terms), and the filtered
 * signal must be closer to the clean one than the noisy input was.
 * Usage: fft_filter [n] (default 4000; the test runs 1000) */
#include <math.h>
#include <stdlib.h>

#include "example.h"

#define RATE 1000.0 /* samples per second */
#define CUTOFF 20.0 /* Hz */

static const double pi = 3.14159265358979323846;

int main(int argc, char **argv) {
  int64_t n = argc > 1 ? strtoll(argv[1], NULL, 10) : 4000;
  if (n < 2) n = 2;
  kiln_context *ctx;
  TRY(example_open("fft_filter", &ctx));
  char path[512];
  TRY(kiln_fft_describe(ctx, path, sizeof path));
  printf("path: %s\n", path);

  double *clean = malloc((size_t)n * sizeof(double)), *noisy = malloc((size_t)n * sizeof(double));
  double *filtered = malloc((size_t)n * sizeof(double));
  srand(27);
  for (int64_t i = 0; i < n; i++) {
    double t = (double)i / RATE;
    clean[i] = sin(2 * pi * 5 * t) + 0.5 * sin(2 * pi * 12 * t);
    noisy[i] = clean[i] + ((double)rand() / RAND_MAX - 0.5);
  }
  /* device: spectrum = rfft(noisy); high bins zeroed; filtered = irfft */
  int64_t bins = n / 2 + 1, keep = (int64_t)(CUTOFF * (double)n / RATE) + 1;
  /* the host signal goes up with the call; the spectrum stays on the device */
  kiln_array *spectrum = NULL;
  TRY(kiln_rfft(ctx, kiln_operand_host(noisy, KILN_FLOAT64, 1, &n, NULL), KILN_FFT_DEFAULT, 0,
                NULL, kiln_operand_new(&spectrum), NULL));
  if (keep < bins) {
    kiln_slice high = {keep, KILN_NONE, 1};
    kiln_array *tail;
    TRY(kiln_array_slice(spectrum, 1, &high, &tail));
    double zero[2] = {0, 0};
    kiln_array *zeros;
    int64_t count = bins - keep;
    TRY(kiln_array_full(ctx, KILN_COMPLEX128, 1, &count, zero, &zeros));
    TRY(kiln_array_copy_into(tail, zeros));
    kiln_array_release(zeros);
    kiln_array_release(tail);
  }
  /* and the filtered signal comes down into host memory */
  TRY(kiln_irfft(ctx, kiln_operand_array(spectrum), n, 0, NULL,
                 kiln_operand_host_output(filtered, KILN_FLOAT64, 1, &n, NULL), NULL));

  /* host reference: the same filter through a plain DFT */
  double worst = 0, noise_before = 0, noise_after = 0;
  double *re = calloc((size_t)bins, sizeof(double)), *im = calloc((size_t)bins, sizeof(double));
  for (int64_t k = 0; k < keep && k < bins; k++)
    for (int64_t j = 0; j < n; j++) {
      double a = -2 * pi * (double)((j * k) % n) / (double)n;
      re[k] += noisy[j] * cos(a);
      im[k] += noisy[j] * sin(a);
    }
  for (int64_t j = 0; j < n; j++) {
    double v = re[0];
    for (int64_t k = 1; k < keep && k < bins; k++) {
      double a = 2 * pi * (double)((j * k) % n) / (double)n;
      double w = 2 * k == n ? 1 : 2; /* the Nyquist bin counts once */
      v += w * (re[k] * cos(a) - im[k] * sin(a));
    }
    v /= (double)n;
    worst = fmax(worst, fabs(v - filtered[j]));
    noise_before += (noisy[j] - clean[j]) * (noisy[j] - clean[j]);
    noise_after += (filtered[j] - clean[j]) * (filtered[j] - clean[j]);
  }
  double rms_before = sqrt(noise_before / (double)n), rms_after = sqrt(noise_after / (double)n);
  printf("n %lld, %lld of %lld bins kept: noise RMS %.4f -> %.4f; max |kiln - C DFT| %.2e\n",
         (long long)n, (long long)keep, (long long)bins, rms_before, rms_after, worst);
  int ok = worst < 1e-9 && rms_after < rms_before;
  printf("%s\n", ok ? "OK" : "MISMATCH");
  free(re);
  free(im);
  free(clean);
  free(noisy);
  free(filtered);
  kiln_array_release(spectrum);
  kiln_context_release(ctx);
  return ok ? 0 : 1;
}
