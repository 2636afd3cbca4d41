/* core/kernel/random.c: the kernel language's Philox4x32-10 on the host.
 * (core/kernel/host_dialect.h: the common prelude compiled for the host, so
 * host and kernels give identical bits by construction). */
#include "core/kernel/host_dialect.h"
#include "kiln/random.h"

void kiln_random_philox4x32_10(const uint32_t counter[4], const uint32_t key[2],
                               uint32_t out[4]) {
  kiln_philox4x32_ctr c = {{counter[0], counter[1], counter[2], counter[3]}};
  kiln_philox4x32_key k = {{key[0], key[1]}};
  kiln_philox4x32_ctr r = kiln_philox4x32_10(c, k);
  for (int i = 0; i < 4; i++) out[i] = r.v[i];
}

uint32_t kiln_random_u32(uint64_t seed, uint64_t stream, uint64_t n) {
  uint64_t block = n / 4;
  const uint32_t counter[4] = {(uint32_t)block, (uint32_t)(block >> 32), (uint32_t)stream,
                               (uint32_t)(stream >> 32)};
  const uint32_t key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
  uint32_t out[4];
  kiln_random_philox4x32_10(counter, key, out);
  return out[n % 4];
}

float kiln_random_u32_to_float01(uint32_t x) { return kiln_uint32_to_float01(x); }
