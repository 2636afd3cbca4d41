/* sort_histogram: a pipeline's first sort, on the device. Random event
 * energies (float32, with a few NaNs from a faulty channel) are sorted,
 * argsorted to carry their channel numbers along (sort by key), and the
 * distinct channels are counted with unique; each result is checked
 * against plain C (a stable insertion order by index, NaNs last).
 * Usage: sort_histogram [n] */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "example.h"

/* NumPy's order for floats: NaNs last; ties by index (a stable sort) */
static const float *energies;
static int by_energy(const void *x, const void *y) {
  int64_t i = *(const int64_t *)x, j = *(const int64_t *)y;
  float a = energies[i], b = energies[j];
  int c = isnan(a) || isnan(b) ? isnan(a) - isnan(b) : (a > b) - (a < b);
  return c ? c : (i > j) - (i < j);
}

int main(int argc, char **argv) {
  int64_t n = argc > 1 ? strtoll(argv[1], NULL, 10) : 1000000;
  if (n < 1) {
    fprintf(stderr, "usage: sort_histogram [n >= 1]\n");
    return 2;
  }
  kiln_context *ctx;
  TRY(example_open("sort_histogram", &ctx));
  float *energy = malloc((size_t)n * sizeof *energy);
  int32_t *channel = malloc((size_t)n * sizeof *channel);
  uint64_t state = 12345;
  for (int64_t i = 0; i < n; i++) {
    state = state * 6364136223846793005u + 1442695040888963407u;
    channel[i] = (int32_t)((state >> 33) % 97);
    energy[i] = channel[i] == 13 ? NAN : (float)((state >> 40) % 5000) * 0.25f;
  }
  kiln_array *e;
  TRY(kiln_array_from_host(ctx, KILN_FLOAT32, 1, &n, NULL, energy, &e));

  /* np.sort(e, kind='stable') and the channels moved with it */
  kiln_array *sorted, *channels_sorted;
  kiln_operand keys_out = kiln_operand_new(&sorted);
  kiln_operand values = kiln_operand_host(channel, KILN_INT32, 1, &n, NULL);
  kiln_operand values_out = kiln_operand_new(&channels_sorted);
  TRY(kiln_sort_by_key(ctx, kiln_operand_array(e), &keys_out, 1, &values, &values_out, NULL,
                       NULL));
  /* np.unique(channel, return_counts=True) */
  int64_t distinct = 0, counts[97];
  int32_t unique_channels[97];
  int64_t cap = 97;
  kiln_operand counts_out = kiln_operand_host_output(counts, KILN_INT64, 1, &cap, NULL);
  kiln_unique_outputs extra = {NULL, NULL, &counts_out};
  TRY(kiln_unique(ctx, kiln_operand_host(channel, KILN_INT32, 1, &n, NULL),
                  kiln_operand_host_output(unique_channels, KILN_INT32, 1, &cap, NULL), &distinct,
                  &extra, NULL));

  /* plain C: the stable order by qsort with the index as tie-break */
  float *got = malloc((size_t)n * sizeof *got);
  int32_t *got_channels = malloc((size_t)n * sizeof *got_channels);
  int64_t *order = malloc((size_t)n * sizeof *order);
  TRY(kiln_array_to_host(sorted, got, NULL));
  TRY(kiln_array_to_host(channels_sorted, got_channels, NULL));
  for (int64_t i = 0; i < n; i++) order[i] = i;
  energies = energy;
  qsort(order, (size_t)n, sizeof *order, by_energy);
  int ok = 1;
  for (int64_t i = 0; i < n; i++)
    ok &= memcmp(&got[i], &energy[order[i]], sizeof(float)) == 0 &&
          got_channels[i] == channel[order[i]];
  int64_t want_counts[97] = {0}, want_distinct = 0, total = 0;
  for (int64_t i = 0; i < n; i++) want_counts[channel[i]]++;
  for (int c = 0, u = 0; c < 97; c++) {
    if (!want_counts[c]) continue;
    want_distinct++;
    ok &= u < distinct && unique_channels[u] == c && counts[u] == want_counts[c];
    total += counts[u < distinct ? u : 0];
    u++;
  }
  ok &= distinct == want_distinct && total == n;
  int64_t last = n - 1;
  while (last > 0 && isnan(got[last])) last--;
  printf("sorted %lld energies (lowest %g, highest %g, then %lld NaNs) with their channels\n",
         (long long)n, got[0], got[last], (long long)(n - 1 - last));
  printf("%lld distinct channels; channel %d seen %lld times\n", (long long)distinct,
         distinct ? unique_channels[0] : -1, distinct ? (long long)counts[0] : 0LL);
  printf("%s\n", ok ? "matches plain C" : "DIFFERS from plain C");
  kiln_array_release(channels_sorted);
  kiln_array_release(sorted);
  kiln_array_release(e);
  kiln_context_release(ctx);
  free(energy);
  free(channel);
  free(got);
  free(got_channels);
  free(order);
  return ok ? 0 : 1;
}
