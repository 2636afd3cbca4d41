/* The host side of the kernel language's generator (kiln/random.h):
 * Random123's published known-answer vectors for philox4x32 with 10 rounds,
 * and the stream layout the kernel-side kiln_rng documents. */
#include "harness.h"

static void test_known_answers(kiln_context *unused) {
  (void)unused;
  static const struct {
    uint32_t ctr[4], key[2], expect[4];
  } kat[] = {
      {{0, 0, 0, 0}, {0, 0}, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
      {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
       {0xffffffff, 0xffffffff},
       {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
      {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
       {0xa4093822, 0x299f31d0},
       {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
  };
  for (size_t i = 0; i < sizeof kat / sizeof kat[0]; i++) {
    uint32_t out[4];
    kiln_random_philox4x32_10(kat[i].ctr, kat[i].key, out);
    for (int w = 0; w < 4; w++)
      CHECK_MSG(out[w] == kat[i].expect[w], "vector %zu word %d: %08x, expected %08x", i, w,
                out[w], kat[i].expect[w]);
  }
}

static void test_stream_layout(kiln_context *unused) {
  (void)unused;
  uint64_t seed = harness_rand_u64(), stream = harness_rand_u64();
  for (uint64_t n = 0; n < 64; n++) {
    uint64_t block = n / 4;
    uint32_t ctr[4] = {(uint32_t)block, (uint32_t)(block >> 32), (uint32_t)stream,
                       (uint32_t)(stream >> 32)};
    uint32_t key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
    uint32_t out[4];
    kiln_random_philox4x32_10(ctr, key, out);
    CHECK(kiln_random_u32(seed, stream, n) == out[n % 4]);
  }
  /* (0, 1]: the extremes */
  CHECK(kiln_random_u32_to_float01(0) == 5.9604644775390625e-8f);
  CHECK(kiln_random_u32_to_float01(0xffffffffu) == 1.0f);
}

static const harness_test tests[] = {
    {"known_answers", test_known_answers},
    {"stream_layout", test_stream_layout},
    {0},
};

int main(int argc, char **argv) { return harness_main_no_context(argc, argv, tests); }
