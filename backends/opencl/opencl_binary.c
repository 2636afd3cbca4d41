/* backends/opencl/opencl_binary.c */
#include "backends/opencl/opencl_binary.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/runtime/error.h"

static const char binary_magic[8] = {'K', 'I', 'L', 'N', 'O', 'C', 'L', '1'};

static uint64_t fnv1a64(const void *data, size_t size) {
  const unsigned char *p = data;
  uint64_t hash = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < size; i++) {
    hash ^= p[i];
    hash *= 0x100000001b3ull;
  }
  return hash;
}

static void store_u64(unsigned char *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t load_u64(const unsigned char *p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; i++) v |= (uint64_t)p[i] << (8 * i);
  return v;
}

kiln_status kiln_opencl_binary_wrap(const char *identity, const void *payload, size_t size,
                                    void **binary, size_t *binary_size) {
  KILN_CHECK_ARG(identity);
  KILN_CHECK_ARG(payload);
  KILN_CHECK_ARG(binary);
  KILN_CHECK_ARG(binary_size);
  *binary = NULL;
  *binary_size = 0;
  if (size > SIZE_MAX - KILN_OPENCL_BINARY_HEADER_SIZE)
    return kiln_error_set(KILN_ERROR_OUT_OF_RANGE, "opencl: program binary too large");
  unsigned char *out = malloc(KILN_OPENCL_BINARY_HEADER_SIZE + size);
  if (!out)
    return kiln_error_set(KILN_ERROR_OUT_OF_MEMORY,
                          "opencl: out of host memory copying a program binary of %zu bytes", size);
  memcpy(out, binary_magic, sizeof binary_magic);
  store_u64(out + 8, size);
  store_u64(out + 16, fnv1a64(payload, size));
  store_u64(out + 24, fnv1a64(identity, strlen(identity)));
  memcpy(out + KILN_OPENCL_BINARY_HEADER_SIZE, payload, size);
  *binary = out;
  *binary_size = KILN_OPENCL_BINARY_HEADER_SIZE + size;
  return KILN_OK;
}

kiln_status kiln_opencl_binary_unwrap(const char *identity, const void *binary, size_t size,
                                      const void **payload, size_t *payload_size) {
  KILN_CHECK_ARG(identity);
  KILN_CHECK_ARG(binary);
  KILN_CHECK_ARG(payload);
  KILN_CHECK_ARG(payload_size);
  const unsigned char *in = binary;
  *payload = NULL;
  *payload_size = 0;
  if (size < KILN_OPENCL_BINARY_HEADER_SIZE || memcmp(in, binary_magic, sizeof binary_magic) != 0)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "opencl: not a kiln OpenCL program binary (%zu bytes without the "
                          "\"KILNOCL1\" header)",
                          size);
  uint64_t declared = load_u64(in + 8);
  if (declared != size - KILN_OPENCL_BINARY_HEADER_SIZE)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "opencl: truncated or padded program binary: the header announces %llu "
                          "bytes of program, %zu follow",
                          (unsigned long long)declared, size - KILN_OPENCL_BINARY_HEADER_SIZE);
  const unsigned char *body = in + KILN_OPENCL_BINARY_HEADER_SIZE;
  if (load_u64(in + 16) != fnv1a64(body, (size_t)declared))
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "opencl: corrupted program binary: its checksum does not match");
  if (load_u64(in + 24) != fnv1a64(identity, strlen(identity)))
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "opencl: the program binary was built for another OpenCL device or "
                          "driver version than \"%s\"",
                          identity);
  *payload = body;
  *payload_size = (size_t)declared;
  return KILN_OK;
}
