/* core/runtime/sha256.h: SHA-256 (FIPS 180-4), for names and checksums of
 * on-disk cache entries (internal). Incremental: init, update any number of
 * times, final. */
#ifndef KILN_CORE_SHA256_H
#define KILN_CORE_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define KILN_SHA256_SIZE 32

typedef struct kiln_sha256 {
  uint32_t state[8];
  uint64_t length; /* bytes hashed so far */
  unsigned char block[64];
  size_t used; /* bytes of block filled */
} kiln_sha256;

void kiln_sha256_init(kiln_sha256 *h);
void kiln_sha256_update(kiln_sha256 *h, const void *data, size_t size);
/* Writes the 32-byte digest; h must be initialised again before reuse. */
void kiln_sha256_final(kiln_sha256 *h, unsigned char digest[KILN_SHA256_SIZE]);

/* The digest of data[0..size) as 64 lowercase hex digits and a NUL. */
void kiln_sha256_hex(const void *data, size_t size, char hex[2 * KILN_SHA256_SIZE + 1]);

#endif
