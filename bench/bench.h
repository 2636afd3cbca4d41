/* bench/bench.h: what every benchmark program shares: stopping on a kiln
 * failure, a monotonic clock, and the median of repeated measurements. */
#ifndef KILN_BENCH_H
#define KILN_BENCH_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "kiln/kiln.h"

/* Benchmarks stop at the first failure, with kiln's message. */
#define BENCH_CHECK(call)                                                            \
  do {                                                                               \
    kiln_status s_ = (call);                                                         \
    if (s_ != KILN_OK) {                                                             \
      fprintf(stderr, "%s failed: %s\n%s\n", #call, kiln_status_string(s_),          \
              kiln_last_error());                                                    \
      exit(1);                                                                       \
    }                                                                                \
  } while (0)

static inline double bench_now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static inline int bench_compare_doubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Sorts v in place and returns its median. */
static inline double bench_median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, bench_compare_doubles);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* The median device time in ms of `repeats` runs of run(data), each
 * between two events on the default stream, after `warmups` runs. */
static inline double bench_time_events(kiln_context *ctx, kiln_event *start, kiln_event *stop,
                                       void (*run)(void *data), void *data, int warmups,
                                       int repeats) {
  for (int w = 0; w < warmups; w++) run(data);
  BENCH_CHECK(kiln_context_synchronize(ctx));
  double *ms = (double *)malloc((size_t)repeats * sizeof *ms);
  if (!ms) exit(1);
  for (int r = 0; r < repeats; r++) {
    BENCH_CHECK(kiln_event_record(start, NULL));
    run(data);
    BENCH_CHECK(kiln_event_record(stop, NULL));
    BENCH_CHECK(kiln_event_synchronize(stop));
    BENCH_CHECK(kiln_event_elapsed_ms(start, stop, &ms[r]));
  }
  double median = bench_median(ms, repeats);
  free(ms);
  return median;
}

#endif
