/* core/kernel/host_dialect.h: the kernel language's host "dialect" (internal).
 *
 * The common prelude is written in the kernel language, a C99 subset, so a
 * host file that includes this header compiles the very same code: one
 * implementation for kernels and host, identical bits by construction
 * (core/kernel/random.c: Philox; core/kernel/float16.c: float16). Include
 * it from one .c file only, before anything that defines kiln_ names. */
#ifndef KILN_CORE_HOST_DIALECT_H
#define KILN_CORE_HOST_DIALECT_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#define KILN_DIALECT_HOST 1 /* the common prelude leaves out what the host has no use for */
#define KILN_DEVICE static inline
#define KILN_GLOBAL
#define KILN_LOCAL
#define KILN_HAS_DOUBLE 1

/* bit casts: memcpy is the defined way in C */
static inline uint32_t kiln_float_as_uint32(float x) {
  uint32_t u;
  memcpy(&u, &x, sizeof u);
  return u;
}
static inline float kiln_uint32_as_float(uint32_t x) {
  float f;
  memcpy(&f, &x, sizeof f);
  return f;
}
static inline uint64_t kiln_double_as_uint64(double x) {
  uint64_t u;
  memcpy(&u, &x, sizeof u);
  return u;
}

static inline double kiln_uint64_as_double(uint64_t x) {
  double d;
  memcpy(&d, &x, sizeof d);
  return d;
}
/* C rounds each product on its own unless contraction is on: GCC does not
 * contract in ISO C mode (-std=c11: CMake's C_EXTENSIONS OFF), clang obeys
 * the pragma (kernels/random.kl's bits depend on it) */
#define kiln_mul_rn(a, b) ((a) * (b))
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#endif
#include "kernels/prelude_common.kl"
#include "kernels/random.kl"
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

#endif
