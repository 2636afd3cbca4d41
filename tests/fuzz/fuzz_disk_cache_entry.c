/* tests/fuzz/fuzz_disk_cache_entry.c: the on-disk kernel cache's entry
 * reader (kiln_disk_cache_check), the one place kiln parses bytes another
 * process wrote. Random bytes alone would rarely get past the checksum, so
 * the input also builds a valid entry (its key and binary from the input)
 * and then damages it as a crash, a full disk or another kiln could:
 *   byte 0 % 4 = 0  the input itself is the file
 *                1  a valid entry, truncated at some length
 *                2  a valid entry with one byte changed
 *                3  a valid entry read under another key
 * Checks: a valid entry gives back exactly its binary; every damaged one
 * is refused with a message (every byte is under the checksum or is the
 * checksum); a file accepted is accepted only with its payload inside it. */
#include "core/kernel/kernel_disk_cache.h"
#include "core/runtime/error.h"
#include "fuzz_common.h"

static const char fixed_key[] = "kiln disk cache key 1\nsource 3:abc\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const void *payload = NULL;
  size_t payload_size = 0;
  if (size < 4 || data[0] % 4 == 0) {
    if (kiln_disk_cache_check(data, size, fixed_key, sizeof fixed_key - 1, &payload,
                              &payload_size) == KILN_OK) {
      FUZZ_ASSERT(payload_size > 0);
      FUZZ_ASSERT((const uint8_t *)payload >= data + KILN_DISK_CACHE_HEADER_SIZE);
      FUZZ_ASSERT((const uint8_t *)payload + payload_size == data + size);
    } else {
      FUZZ_ASSERT(kiln_last_error()[0] != '\0');
    }
    return 0;
  }
  int mode = data[0] % 4;
  size_t rest = size - 4, key_length = rest ? data[1] % (rest + 1) : 0;
  const char *key = (const char *)data + 4;
  const uint8_t *binary = data + 4 + key_length;
  size_t binary_size = rest - key_length;
  size_t file_size = KILN_DISK_CACHE_HEADER_SIZE + key_length + binary_size;
  unsigned char *file = malloc(file_size);
  if (!file) return 0;
  kiln_disk_cache_header(file, key, key_length, binary, binary_size);
  memcpy(file + KILN_DISK_CACHE_HEADER_SIZE, key, key_length);
  memcpy(file + KILN_DISK_CACHE_HEADER_SIZE + key_length, binary, binary_size);

  /* the entry as written */
  kiln_status status =
      kiln_disk_cache_check(file, file_size, key, key_length, &payload, &payload_size);
  if (binary_size == 0) {
    FUZZ_ASSERT(status != KILN_OK);
  } else {
    FUZZ_ASSERT(status == KILN_OK);
    FUZZ_ASSERT(payload_size == binary_size && memcmp(payload, binary, binary_size) == 0);
  }

  /* damaged */
  size_t where = ((size_t)data[2] << 8 | data[3]) % file_size;
  if (mode == 1) {
    status = kiln_disk_cache_check(file, where, key, key_length, &payload, &payload_size);
  } else if (mode == 2) {
    file[where] ^= (unsigned char)(data[1] | 1);
    status = kiln_disk_cache_check(file, file_size, key, key_length, &payload, &payload_size);
  } else {
    char *other = malloc(key_length + 2);
    if (!other) {
      free(file);
      return 0;
    }
    memcpy(other, key, key_length);
    other[key_length] = 'x';
    status = kiln_disk_cache_check(file, file_size, other, key_length + 1, &payload,
                                   &payload_size);
    free(other);
  }
  FUZZ_ASSERT(status != KILN_OK);
  FUZZ_ASSERT(payload == NULL && payload_size == 0);
  FUZZ_ASSERT(kiln_last_error()[0] != '\0');
  free(file);
  return 0;
}
