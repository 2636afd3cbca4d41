/* search_histogram: counting and looking up on the device. Random samples
 * are binned into a histogram (equal-width bins over a range), each
 * sample's bin is found again with searchsorted over the edges, and the
 * samples of one bin are gathered with take; a boolean mask then clears
 * the samples outside the range. Every result is checked against plain C.
 * Usage: search_histogram [n]   (default 1000000) */
#include <stdlib.h>

#include "example.h"

#define BINS 32

int main(int argc, char **argv) {
  int64_t n = argc > 1 ? strtoll(argv[1], NULL, 10) : 1000000;
  if (n < 1) n = 1;
  kiln_context *ctx;
  TRY(example_open("search_histogram", &ctx));
  double *x = malloc((size_t)n * sizeof *x);
  int64_t *where = malloc((size_t)n * sizeof *where), *picked = malloc((size_t)n * sizeof *picked);
  uint8_t *outside = malloc((size_t)n);
  srand(3);
  for (int64_t i = 0; i < n; i++) x[i] = 10.0 * rand() / RAND_MAX - 1.0; /* [-1, 9] */

  /* histogram over [0, 8): 32 bins of 0.25 (exact edges), the rest out */
  int64_t bins = BINS, nedges = BINS + 1, hist[BINS];
  double edges[BINS + 1];
  kiln_histogram_options o = {.bins = BINS, .has_range = 1, .range_min = 0, .range_max = 8};
  kiln_operand edges_out = kiln_operand_host_output(edges, KILN_FLOAT64, 1, &nedges, NULL);
  kiln_operand samples = kiln_operand_host(x, KILN_FLOAT64, 1, &n, NULL);
  TRY(kiln_histogram(ctx, samples, &o, kiln_operand_host_output(hist, KILN_INT64, 1, &bins, NULL),
                     &edges_out, NULL));

  /* the bin of every sample: searchsorted(edges, x, side='right') - 1 */
  TRY(kiln_searchsorted(ctx, kiln_operand_host(edges, KILN_FLOAT64, 1, &nedges, NULL), samples,
                        NULL, KILN_SIDE_RIGHT,
                        kiln_operand_host_output(where, KILN_INT64, 1, &n, NULL), NULL));

  int64_t want[BINS] = {0}, bad = 0;
  for (int64_t i = 0; i < n; i++) {
    int64_t b = (int64_t)(x[i] / 0.25);
    int in = x[i] >= 0 && x[i] <= 8;
    if (in) want[b < BINS ? b : BINS - 1]++;
    bad += in && x[i] < 8 && where[i] - 1 != b;
    outside[i] = !in;
  }
  for (int b = 0; b < BINS; b++) bad += hist[b] != want[b];

  /* gather the positions of the samples of bin 5 with take: the indices
   * are where searchsorted put them */
  int64_t count = 0;
  for (int64_t i = 0; i < n; i++)
    if (where[i] == 6) picked[count++] = i;
  double *values = malloc((size_t)(count + 1) * sizeof *values);
  TRY(kiln_take(ctx, samples, kiln_operand_host(picked, KILN_INT64, 1, &count, NULL),
                KILN_AXIS_FLAT, KILN_INDEX_RAISE,
                kiln_operand_host_output(values, KILN_FLOAT64, 1, &count, NULL), NULL));
  for (int64_t k = 0; k < count; k++) bad += values[k] < 1.25 || values[k] >= 1.5;
  bad += count != hist[5];

  /* x[outside] = 0 */
  TRY(kiln_mask_assign(ctx, kiln_operand_host_output(x, KILN_FLOAT64, 1, &n, NULL),
                       kiln_operand_host(outside, KILN_BOOL, 1, &n, NULL), kiln_operand_float(0),
                       NULL));
  for (int64_t i = 0; i < n; i++) bad += outside[i] ? x[i] != 0 : (x[i] < 0 || x[i] > 8);

  printf("%lld samples, %d bins, bin 5 holds %lld: %s\n", (long long)n, BINS,
         (long long)hist[5], bad ? "MISMATCH" : "matches plain C");
  free(values);
  free(x);
  free(where);
  free(picked);
  free(outside);
  kiln_context_release(ctx);
  return bad ? 1 : 0;
}
