/* kiln/random.h: the kernel language's counter-based generator on the host.
 *
 * Kernels draw random numbers with Philox4x32-10 (kiln_rng_* in
 * docs/kernel-language.md); these functions give the same bits on the host,
 * so a program can check or reproduce any device stream. Pure functions:
 * thread-safe, no state. */
#ifndef KILN_RANDOM_H
#define KILN_RANDOM_H

#include <stdint.h>

#include "kiln/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One Philox4x32-10 block: out = philox4x32_10(counter, key), as Random123. */
KILN_API void kiln_random_philox4x32_10(const uint32_t counter[4], const uint32_t key[2],
                                        uint32_t out[4]);

/* Word n (n = 0, 1, ...) of stream `stream` of generator `seed`: what the
 * (n+1)-th kiln_rng_next_u32() returns in a kernel after
 * kiln_rng_init(seed, stream). */
KILN_API uint32_t kiln_random_u32(uint64_t seed, uint64_t stream, uint64_t n);

/* kiln_uint32_to_float01 on the host: (0, 1], the top 24 bits, exact. */
KILN_API float kiln_random_u32_to_float01(uint32_t x);

#ifdef __cplusplus
}
#endif
#endif
