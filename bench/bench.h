/* bench/bench.h: what every benchmark program shares: stopping on a kiln
 * failure, a monotonic clock, and the median of repeated measurements. */
#ifndef KILN_BENCH_H
#define KILN_BENCH_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* The one event-timing loop of the benchmarks: for each of `count`
 * workloads, the median device time (ms) of `repeats` runs of run[k](data[k]),
 * each between two events recorded on the default stream, after `warmups`
 * unmeasured runs of each (compiles, plans, pool) and, when ctx is not
 * NULL, a synchronize of ctx. The workloads take turns (run 0, 1, ..., then
 * again), so a ratio between two of them does not depend on a drift of the
 * device's clocks over the measurement. */
static inline void bench_events_medians_ms(kiln_context *ctx, kiln_event *start,
                                           kiln_event *stop, int warmups, int repeats,
                                           int count, void (*const *run)(void *data),
                                           void *const *data, double *medians) {
  for (int w = 0; w < warmups; w++)
    for (int k = 0; k < count; k++) run[k](data[k]);
  if (ctx) BENCH_CHECK(kiln_context_synchronize(ctx));
  double *ms = (double *)malloc((size_t)repeats * (size_t)count * sizeof *ms);
  if (!ms) exit(1);
  for (int r = 0; r < repeats; r++)
    for (int k = 0; k < count; k++) {
      BENCH_CHECK(kiln_event_record(start, NULL));
      run[k](data[k]);
      BENCH_CHECK(kiln_event_record(stop, NULL));
      BENCH_CHECK(kiln_event_synchronize(stop));
      BENCH_CHECK(kiln_event_elapsed_ms(start, stop, &ms[(size_t)k * (size_t)repeats + (size_t)r]));
    }
  for (int k = 0; k < count; k++) medians[k] = bench_median(ms + (size_t)k * (size_t)repeats, repeats);
  free(ms);
}

/* The median device time (ms) of `repeats` runs of run(data) (one
 * workload of bench_events_medians_ms). */
static inline double bench_events_median_ms(kiln_context *ctx, kiln_event *start,
                                            kiln_event *stop, int warmups, int repeats,
                                            void (*run)(void *data), void *data) {
  double median;
  bench_events_medians_ms(ctx, start, stop, warmups, repeats, 1, &run, &data, &median);
  return median;
}

/* The median device time (ms) of `repeats` runs of run(data), each between
 * two events recorded on the default stream, after two unmeasured runs
 * (compiles, pool). */
static inline double bench_device_median_ms(kiln_event *start, kiln_event *stop, int repeats,
                                            void (*run)(void *data), void *data) {
  return bench_events_median_ms(NULL, start, stop, 2, repeats, run, data);
}

/* The arguments [n [repeats]] (n may be written 1e8; defaults 1e8 and
 * default_repeats); exits 2 with "usage: <usage>" when n < min_n or
 * repeats < 1. */
static inline void bench_parse_n_repeats(int argc, char **argv, int64_t min_n,
                                         int default_repeats, const char *usage, int64_t *n,
                                         int *repeats) {
  *n = argc > 1 ? (int64_t)strtod(argv[1], NULL) : 100000000;
  *repeats = argc > 2 ? atoi(argv[2]) : default_repeats;
  if (*n < min_n || *repeats < 1) {
    fprintf(stderr, "usage: %s\n", usage);
    exit(2);
  }
}

/* Whether `name` contains one of the comma-separated texts of `only` (a
 * bench's row filter). */
static inline int bench_name_matches(const char *name, const char *only) {
  while (*only) {
    const char *end = strchr(only, ',');
    size_t length = end ? (size_t)(end - only) : strlen(only);
    for (const char *at = name; length > 0 && *at; at++)
      if (strncmp(at, only, length) == 0) return 1;
    if (!end) break;
    only = end + 1;
  }
  return 0;
}

/* The common arguments [n [rows [cols [repeats]]]] (defaults 1e8, 1e6,
 * 100, 20); exits 2 with the usage of `name` when one is not positive. */
static inline void bench_parse_sizes(int argc, char **argv, const char *name, int64_t *n,
                                     int64_t *rows, int64_t *cols, int *repeats) {
  /* strtod: "1e8" as ci/gpu.sh writes it (strtoll read it as 1) */
  *n = argc > 1 ? (int64_t)strtod(argv[1], NULL) : 100000000;
  *rows = argc > 2 ? (int64_t)strtod(argv[2], NULL) : 1000000;
  *cols = argc > 3 ? (int64_t)strtod(argv[3], NULL) : 100;
  *repeats = argc > 4 ? atoi(argv[4]) : 20;
  if (*n < 1 || *rows < 1 || *cols < 1 || *repeats < 1) {
    fprintf(stderr, "usage: %s [n [rows [cols [repeats]]]]\n", name);
    exit(2);
  }
}

/* run(state, op) as the void (*)(void *) that bench_events_median_ms calls */
typedef struct bench_op_call {
  void (*run)(void *state, int op);
  void *state;
  int op;
} bench_op_call;

static inline void bench_run_op_call(void *data) {
  bench_op_call *c = (bench_op_call *)data;
  c->run(c->state, c->op);
}

/* Median device time (ms) of `repeats` calls of run(state, op), each
 * between two events recorded on the default stream, after 3 warm-up
 * calls and a synchronize of ctx. */
static inline double bench_time_events(kiln_context *ctx, kiln_event *start, kiln_event *stop,
                                       int repeats, void (*run)(void *state, int op),
                                       void *state, int op) {
  bench_op_call c = {run, state, op};
  return bench_events_median_ms(ctx, start, stop, 3, repeats, bench_run_op_call, &c);
}

#endif
