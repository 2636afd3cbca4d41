/* core/runtime/sha256.c: SHA-256 as FIPS 180-4 states it, byte order
 * independent (words are assembled big-endian byte by byte). */
#include "core/runtime/sha256.h"

#include <string.h>

static const uint32_t round_constants[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
    0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
    0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
    0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
    0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
    0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
    0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
    0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
    0xc67178f2};

static uint32_t rotate_right(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

static void compress(uint32_t state[8], const unsigned char block[64]) {
  uint32_t w[64];
  for (int i = 0; i < 16; i++)
    w[i] = (uint32_t)block[4 * i] << 24 | (uint32_t)block[4 * i + 1] << 16 |
           (uint32_t)block[4 * i + 2] << 8 | (uint32_t)block[4 * i + 3];
  for (int i = 16; i < 64; i++) {
    uint32_t s0 = rotate_right(w[i - 15], 7) ^ rotate_right(w[i - 15], 18) ^ (w[i - 15] >> 3);
    uint32_t s1 = rotate_right(w[i - 2], 17) ^ rotate_right(w[i - 2], 19) ^ (w[i - 2] >> 10);
    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
  }
  uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
  uint32_t e = state[4], f = state[5], g = state[6], h = state[7];
  for (int i = 0; i < 64; i++) {
    uint32_t s1 = rotate_right(e, 6) ^ rotate_right(e, 11) ^ rotate_right(e, 25);
    uint32_t choose = (e & f) ^ (~e & g);
    uint32_t t1 = h + s1 + choose + round_constants[i] + w[i];
    uint32_t s0 = rotate_right(a, 2) ^ rotate_right(a, 13) ^ rotate_right(a, 22);
    uint32_t majority = (a & b) ^ (a & c) ^ (b & c);
    uint32_t t2 = s0 + majority;
    h = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  state[0] += a;
  state[1] += b;
  state[2] += c;
  state[3] += d;
  state[4] += e;
  state[5] += f;
  state[6] += g;
  state[7] += h;
}

void kiln_sha256_init(kiln_sha256 *h) {
  static const uint32_t initial[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                      0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  memcpy(h->state, initial, sizeof initial);
  h->length = 0;
  h->used = 0;
}

void kiln_sha256_update(kiln_sha256 *h, const void *data, size_t size) {
  const unsigned char *p = data;
  if (size == 0) return; /* data may then be NULL */
  h->length += size;
  if (h->used > 0) {
    size_t take = 64 - h->used < size ? 64 - h->used : size;
    memcpy(h->block + h->used, p, take);
    h->used += take;
    p += take;
    size -= take;
    if (h->used < 64) return;
    compress(h->state, h->block);
    h->used = 0;
  }
  for (; size >= 64; p += 64, size -= 64) compress(h->state, p);
  memcpy(h->block, p, size);
  h->used = size;
}

void kiln_sha256_final(kiln_sha256 *h, unsigned char digest[KILN_SHA256_SIZE]) {
  uint64_t bits = h->length * 8;
  h->block[h->used++] = 0x80;
  if (h->used > 56) {
    memset(h->block + h->used, 0, 64 - h->used);
    compress(h->state, h->block);
    h->used = 0;
  }
  memset(h->block + h->used, 0, 56 - h->used);
  for (int i = 0; i < 8; i++) h->block[56 + i] = (unsigned char)(bits >> (56 - 8 * i));
  compress(h->state, h->block);
  for (int i = 0; i < 8; i++)
    for (int j = 0; j < 4; j++) digest[4 * i + j] = (unsigned char)(h->state[i] >> (24 - 8 * j));
}

void kiln_sha256_hex(const void *data, size_t size, char hex[2 * KILN_SHA256_SIZE + 1]) {
  static const char digits[] = "0123456789abcdef";
  unsigned char digest[KILN_SHA256_SIZE];
  kiln_sha256 h;
  kiln_sha256_init(&h);
  kiln_sha256_update(&h, data, size);
  kiln_sha256_final(&h, digest);
  for (int i = 0; i < KILN_SHA256_SIZE; i++) {
    hex[2 * i] = digits[digest[i] >> 4];
    hex[2 * i + 1] = digits[digest[i] & 15];
  }
  hex[2 * KILN_SHA256_SIZE] = '\0';
}
