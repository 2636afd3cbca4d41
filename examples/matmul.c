/* matmul: the tutorials' matrix product, a 1024x2048 by 2048x512 float32
 * product on the device (the vendor BLAS where the backend loads one, else
 * kiln's portable kernel: the first line says which), timed with events
 * (one warm-up call, then the mean of 5), and checked against plain C in
 * double precision: |error| <= (k + 2) 2^-24 sum_p |a_ip b_pj| per element,
 * the bound on any order of float32 summation (docs/linalg.md).
 * Usage: matmul [m [k [n]]] (default 1024 2048 512; the test runs smaller) */
#include <math.h>
#include <stdlib.h>

#include "example.h"

int main(int argc, char **argv) {
  int64_t m = argc > 1 ? strtoll(argv[1], NULL, 10) : 1024;
  int64_t k = argc > 2 ? strtoll(argv[2], NULL, 10) : 2 * m;
  int64_t n = argc > 3 ? strtoll(argv[3], NULL, 10) : m / 2;
  if (m < 1) m = 1;
  if (k < 1) k = 1;
  if (n < 1) n = 1;
  kiln_context *ctx;
  TRY(example_open("matmul", &ctx));
  char path[1024];
  TRY(kiln_linalg_describe(ctx, path, sizeof path));
  printf("path: %s\n", path);

  float *a = malloc((size_t)(m * k) * sizeof(float));
  float *b = malloc((size_t)(k * n) * sizeof(float));
  float *c = malloc((size_t)(m * n) * sizeof(float));
  srand(14);
  for (int64_t i = 0; i < m * k; i++) a[i] = (float)rand() / (float)RAND_MAX - 0.5f;
  for (int64_t i = 0; i < k * n; i++) b[i] = (float)rand() / (float)RAND_MAX - 0.5f;
  int64_t ashape[2] = {m, k}, bshape[2] = {k, n};
  kiln_array *da, *db, *dc = NULL;
  TRY(kiln_array_from_host(ctx, KILN_FLOAT32, 2, ashape, NULL, a, &da));
  TRY(kiln_array_from_host(ctx, KILN_FLOAT32, 2, bshape, NULL, b, &db));

  TRY(kiln_matmul(da, db, NULL, NULL, &dc)); /* warm-up: loads the BLAS or compiles */
  kiln_event *start, *stop;
  TRY(kiln_event_create(ctx, &start));
  TRY(kiln_event_create(ctx, &stop));
  const int repeats = 5;
  TRY(kiln_event_record(start, NULL));
  for (int r = 0; r < repeats; r++) TRY(kiln_matmul(da, db, dc, NULL, NULL));
  TRY(kiln_event_record(stop, NULL));
  TRY(kiln_event_synchronize(stop));
  double ms = 0;
  TRY(kiln_event_elapsed_ms(start, stop, &ms));
  ms /= repeats;
  TRY(kiln_array_to_host(dc, c, NULL));

  /* plain C in double; the bound for each element */
  int64_t bad = 0;
  double max_error = 0;
  double *row = malloc((size_t)n * sizeof(double)), *bound = malloc((size_t)n * sizeof(double));
  for (int64_t i = 0; i < m; i++) {
    for (int64_t j = 0; j < n; j++) row[j] = bound[j] = 0;
    for (int64_t p = 0; p < k; p++) {
      double x = a[i * k + p];
      for (int64_t j = 0; j < n; j++) {
        double t = x * b[p * n + j];
        row[j] += t;
        bound[j] += fabs(t);
      }
    }
    for (int64_t j = 0; j < n; j++) {
      double error = fabs(c[i * n + j] - row[j]);
      max_error = fmax(max_error, error);
      if (!(error <= (double)(k + 2) * ldexp(1, -24) * bound[j] + 1e-30)) bad++;
    }
  }
  printf("%lldx%lld @ %lldx%lld float32: %.4f ms per product (%.1f GFLOP/s), max |error| vs "
         "plain C %.3g, %lld elements outside the bound\n",
         (long long)m, (long long)k, (long long)k, (long long)n, ms,
         2.0 * (double)m * (double)n * (double)k / (ms * 1e6), max_error, (long long)bad);
  kiln_event_release(start);
  kiln_event_release(stop);
  kiln_array_release(da);
  kiln_array_release(db);
  kiln_array_release(dc);
  kiln_context_release(ctx);
  free(a);
  free(b);
  free(c);
  free(row);
  free(bound);
  if (bad) {
    printf("FAILED\n");
    return 1;
  }
  printf("ok\n");
  return 0;
}
