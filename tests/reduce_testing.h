/* tests/reduce_testing.h: what the reduction tests share: kiln's fixed
 * reduction tree emulated on the host (kiln/reduce.h), whose bits every
 * device must give, a two-input custom sum and a float32 sum's generator
 * spec. */
#ifndef KILN_TESTS_REDUCE_TESTING_H
#define KILN_TESTS_REDUCE_TESTING_H

#include "harness.h"

/* The element type T's sum (mul 0) or product (mul 1) of x[0..n) in
 * kiln's order: chunks of KILN_REDUCE_CHUNK, lane l combining l, l+32, ...
 * in order, the pairwise lane tree, again over the chunk results until one
 * is left; n >= 1. DEFINE_TREE(tree_f64, double) defines
 * static double tree_f64(const double *x, int64_t n, int mul). */
#define DEFINE_TREE(name, T)                                                           \
  static inline T name(const T *x, int64_t n, int mul) {                               \
    T *level = malloc((size_t)n * sizeof *level);                                      \
    memcpy(level, x, (size_t)n * sizeof *level);                                       \
    for (;;) {                                                                         \
      int64_t chunks = (n + KILN_REDUCE_CHUNK - 1) / KILN_REDUCE_CHUNK;                \
      for (int64_t c = 0; c < chunks; c++) {                                           \
        T lanes[KILN_REDUCE_LANES];                                                    \
        int64_t k0 = c * KILN_REDUCE_CHUNK,                                            \
                kend = k0 + KILN_REDUCE_CHUNK < n ? k0 + KILN_REDUCE_CHUNK : n;        \
        for (int l = 0; l < KILN_REDUCE_LANES && k0 + l < kend; l++) {                 \
          lanes[l] = level[k0 + l];                                                    \
          for (int64_t k = k0 + l + KILN_REDUCE_LANES; k < kend; k += KILN_REDUCE_LANES) \
            lanes[l] = mul ? lanes[l] * level[k] : lanes[l] + level[k];                \
        }                                                                              \
        for (int s = KILN_REDUCE_LANES / 2; s > 0; s /= 2)                             \
          for (int l = 0; l < s; l++)                                                  \
            if (k0 + l + s < kend)                                                     \
              lanes[l] = mul ? lanes[l] * lanes[l + s] : lanes[l] + lanes[l + s];      \
        level[c] = lanes[0];                                                           \
      }                                                                                \
      n = chunks;                                                                      \
      if (n == 1) break;                                                               \
    }                                                                                  \
    T r = level[0];                                                                    \
    free(level);                                                                       \
    return r;                                                                          \
  }

DEFINE_TREE(host_tree_f32, float)

/* The float32 sum of x[0..n) in kiln's order (n >= 1). */
static inline float host_tree_sum(const float *x, int64_t n) { return host_tree_f32(x, n, 0); }

/* A custom reduction float32(float32 x, int32 y) in float32 summing
 * map_expr (over x, y and kiln_i) from 0, named name; NULL where it
 * cannot be made. */
static inline kiln_reduction *make_xy_sum(kiln_context *ctx, const char *name,
                                          const char *map_expr) {
  kiln_reduction_desc desc = {.name = name,
                              .signature = "float32(float32 x, int32 y)",
                              .accumulator = KILN_FLOAT32,
                              .map_expr = map_expr,
                              .reduce_expr = "a + b",
                              .identity = "0"};
  kiln_reduction *r = NULL;
  return kiln_reduction_create(ctx, &desc, &r) == KILN_OK ? r : NULL;
}

#ifdef KILN_CORE_REDUCE_TREE_H
/* The generator's spec of a float32 sum, for the tests that include
 * core/codegen/reduce_tree.h (before this header). */
static inline kiln_rt_spec float32_sum_spec(void) {
  kiln_rt_spec sum = {.name = "sum",
                      .ninputs = 1,
                      .inputs = {KILN_FLOAT32},
                      .acc = KILN_FLOAT32,
                      .out = KILN_FLOAT32,
                      .combine = "return a + b;"};
  return sum;
}
#endif

#endif
