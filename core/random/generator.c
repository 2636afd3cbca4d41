/* core/random/generator.c: generator objects (kiln/random.h): a seed, a
 * stream and an atomic position, split into children on streams of their
 * own. */
#include <stdlib.h>

#include "core/random/random_internal.h"
#include "core/runtime/error.h"

static kiln_status generator_new(uint64_t seed, uint64_t stream, uint64_t position,
                                 kiln_random_generator **out) {
  kiln_random_generator *gen = calloc(1, sizeof *gen);
  if (!gen) return kiln_error_set(KILN_ERROR_OUT_OF_MEMORY, "random: out of host memory");
  atomic_init(&gen->refcount, 1);
  gen->seed = seed;
  gen->stream = stream;
  atomic_init(&gen->position, position);
  atomic_init(&gen->children, 0);
  *out = gen;
  return KILN_OK;
}

kiln_status kiln_random_generator_create(uint64_t seed, kiln_random_generator **out) {
  KILN_CHECK_ARG(out);
  *out = NULL;
  return generator_new(seed, 0, 0, out);
}

kiln_status kiln_random_generator_create_state(const kiln_random_state *state,
                                               kiln_random_generator **out) {
  KILN_CHECK_ARG(out);
  *out = NULL;
  KILN_CHECK_ARG(state);
  if (state->position >= KILN_RANDOM_MAX_POSITION)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "random generator: position %llu is past the stream's 2^62 blocks",
                          (unsigned long long)state->position);
  return generator_new(state->seed, state->stream, state->position, out);
}

kiln_random_generator *kiln_random_generator_retain(kiln_random_generator *gen) {
  if (gen) atomic_fetch_add(&gen->refcount, 1);
  return gen;
}

void kiln_random_generator_release(kiln_random_generator *gen) {
  if (gen && atomic_fetch_sub(&gen->refcount, 1) == 1) free(gen);
}

kiln_random_state kiln_random_generator_state(const kiln_random_generator *gen) {
  kiln_random_state state = {0, 0, 0};
  if (!gen) return state;
  state.seed = gen->seed;
  state.stream = gen->stream;
  state.position = atomic_load(&((kiln_random_generator *)gen)->position);
  return state;
}

kiln_status kiln_random_generator_split(kiln_random_generator *gen, int count,
                                        kiln_random_generator **children) {
  KILN_CHECK_ARG(gen);
  if (count < 0)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "random generator split: count %d < 0",
                          count);
  if (count == 0) return KILN_OK;
  KILN_CHECK_ARG(children);
  uint64_t first = atomic_fetch_add(&gen->children, (uint64_t)count);
  const uint32_t key[2] = {(uint32_t)gen->seed ^ 0x53504c54u, (uint32_t)(gen->seed >> 32)};
  for (int k = 0; k < count; k++) {
    uint64_t s = first + (uint64_t)k;
    const uint32_t counter[4] = {(uint32_t)s, (uint32_t)(s >> 32), (uint32_t)gen->stream,
                                 (uint32_t)(gen->stream >> 32)};
    uint32_t words[4];
    kiln_random_philox4x32_10(counter, key, words);
    kiln_status status =
        generator_new(gen->seed, (uint64_t)words[0] | ((uint64_t)words[1] << 32), 0, &children[k]);
    if (status != KILN_OK) {
      while (k-- > 0) {
        kiln_random_generator_release(children[k]);
        children[k] = NULL;
      }
      return status;
    }
  }
  return KILN_OK;
}

kiln_status kiln_random_reserve(kiln_random_generator *gen, uint64_t blocks, uint64_t *first) {
  uint64_t position = atomic_load(&gen->position);
  do {
    if (blocks > KILN_RANDOM_MAX_POSITION - position)
      return kiln_error_set(KILN_ERROR_OUT_OF_RANGE,
                            "random generator: %llu more blocks from position %llu pass the "
                            "stream's 2^62",
                            (unsigned long long)blocks, (unsigned long long)position);
  } while (!atomic_compare_exchange_weak(&gen->position, &position, position + blocks));
  *first = position;
  return KILN_OK;
}

kiln_status kiln_random_generator_jump(kiln_random_generator *gen, uint64_t blocks) {
  KILN_CHECK_ARG(gen);
  uint64_t unused;
  return kiln_random_reserve(gen, blocks, &unused);
}
