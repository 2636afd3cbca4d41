/* backends/gpu/gpu_binary.c: bounds checks of ELF, PTX and offload-bundle
 * images, and the checksummed envelope of cached binaries. Fields are read byte by byte as little-endian, so unaligned
 * images and any host byte order are fine. */
#include "backends/gpu/gpu_binary.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/runtime/error.h"

#define ELF_HEADER_SIZE 64u
#define ELF_SECTION_HEADER_SIZE 64u
#define ELF_PROGRAM_HEADER_SIZE 56u
#define ELF_SECTION_NOBITS 8u

#define BUNDLE_MAGIC "__CLANG_OFFLOAD_BUNDLE__"
#define BUNDLE_MAGIC_SIZE 24u

static uint64_t read_le(const unsigned char *p, int bytes) {
  uint64_t value = 0;
  for (int i = bytes - 1; i >= 0; i--) value = (value << 8) | p[i];
  return value;
}

/* Nonzero when [offset, offset + length) lies within size. */
static int inside(uint64_t offset, uint64_t length, size_t size) {
  return offset <= size && length <= size - offset;
}

int gpu_binary_is_elf(const void *image, size_t size) {
  return image && size >= 4 && memcmp(image, "\x7f" "ELF", 4) == 0;
}

int gpu_binary_is_offload_bundle(const void *image, size_t size) {
  return image && size >= BUNDLE_MAGIC_SIZE &&
         memcmp(image, BUNDLE_MAGIC, BUNDLE_MAGIC_SIZE) == 0;
}

static kiln_status bad_elf(const char *why) {
  return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                        "not a well-formed ELF image: %s", why);
}

kiln_status gpu_binary_check_elf(const void *image, size_t size) {
  const unsigned char *elf = image;
  if (!gpu_binary_is_elf(image, size)) return bad_elf("no ELF magic");
  if (size < ELF_HEADER_SIZE) return bad_elf("shorter than its header");
  if (elf[4] != 2) return bad_elf("not 64-bit");
  if (elf[5] != 1) return bad_elf("not little-endian");
  uint64_t phoff = read_le(elf + 32, 8), shoff = read_le(elf + 40, 8);
  uint64_t phentsize = read_le(elf + 54, 2), phnum = read_le(elf + 56, 2);
  uint64_t shentsize = read_le(elf + 58, 2), shnum = read_le(elf + 60, 2);
  uint64_t shstrndx = read_le(elf + 62, 2);

  if (shnum == 0 && shoff != 0) return bad_elf("extended section numbering");
  if (shnum > 0) {
    if (shentsize != ELF_SECTION_HEADER_SIZE) return bad_elf("odd section header size");
    if (!inside(shoff, shnum * ELF_SECTION_HEADER_SIZE, size))
      return bad_elf("section headers past the end");
    if (shstrndx >= shnum) return bad_elf("section name table out of range");
    for (uint64_t i = 0; i < shnum; i++) {
      const unsigned char *section = elf + shoff + i * ELF_SECTION_HEADER_SIZE;
      if (read_le(section + 4, 4) == ELF_SECTION_NOBITS) continue;
      if (!inside(read_le(section + 24, 8), read_le(section + 32, 8), size))
        return bad_elf("a section lies past the end");
    }
  }
  if (phnum > 0) {
    if (phentsize != ELF_PROGRAM_HEADER_SIZE) return bad_elf("odd program header size");
    if (!inside(phoff, phnum * ELF_PROGRAM_HEADER_SIZE, size))
      return bad_elf("program headers past the end");
    for (uint64_t i = 0; i < phnum; i++) {
      const unsigned char *segment = elf + phoff + i * ELF_PROGRAM_HEADER_SIZE;
      if (!inside(read_le(segment + 8, 8), read_le(segment + 32, 8), size))
        return bad_elf("a segment lies past the end");
    }
  }
  if (shnum == 0 && phnum == 0) return bad_elf("no sections and no segments");
  return KILN_OK;
}

kiln_status gpu_binary_check_text(const void *image, size_t size) {
  if (!image || size < 2)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "empty text image");
  if (((const unsigned char *)image)[size - 1] != '\0')
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "text image of %zu bytes does not end in a NUL byte", size);
  return KILN_OK;
}

kiln_status gpu_binary_check_offload_bundle(const void *image, size_t size) {
  const unsigned char *bundle = image;
  if (!gpu_binary_is_offload_bundle(image, size) || size < BUNDLE_MAGIC_SIZE + 8)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "not an offload bundle");
  uint64_t entries = read_le(bundle + BUNDLE_MAGIC_SIZE, 8);
  size_t at = BUNDLE_MAGIC_SIZE + 8;
  for (uint64_t i = 0; i < entries; i++) {
    /* entry: offset, size, triple size (8 bytes each), triple */
    if (!inside(at, 24, size))
      return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                            "offload bundle entry %llu past the end",
                            (unsigned long long)i);
    uint64_t offset = read_le(bundle + at, 8), length = read_le(bundle + at + 8, 8);
    uint64_t triple = read_le(bundle + at + 16, 8);
    if (!inside(at + 24, triple, size) || !inside(offset, length, size))
      return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                            "offload bundle entry %llu past the end",
                            (unsigned long long)i);
    if (length > 0)
      KILN_RETURN_IF_ERROR(gpu_binary_check_elf(bundle + offset, (size_t)length));
    at += 24 + (size_t)triple;
  }
  return KILN_OK;
}

#define ENVELOPE_MAGIC "KILNGPU1"
#define ENVELOPE_BACKEND_SIZE 16u
#define ENVELOPE_ARCH_SIZE 64u
/* magic, payload size, hash, backend, architecture */
#define ENVELOPE_HEADER_SIZE (8u + 8u + 8u + ENVELOPE_BACKEND_SIZE + ENVELOPE_ARCH_SIZE)

static uint64_t fnv1a64(uint64_t hash, const unsigned char *data, size_t size) {
  for (size_t i = 0; i < size; i++) hash = (hash ^ data[i]) * 0x100000001b3ull;
  return hash;
}

/* The hash of everything but the hash field (header and payload). */
static uint64_t envelope_hash(const unsigned char *envelope, size_t size) {
  uint64_t hash = fnv1a64(0xcbf29ce484222325ull, envelope, 16);
  return fnv1a64(hash, envelope + 24, size - 24);
}

static void write_le(unsigned char *p, uint64_t value) {
  for (int i = 0; i < 8; i++) p[i] = (unsigned char)(value >> (8 * i));
}

/* Copies text into a NUL-padded field; INTERNAL when it does not fit. */
static kiln_status write_field(unsigned char *field, size_t size, const char *text) {
  size_t length = strlen(text);
  if (length >= size)
    return kiln_error_set(KILN_ERROR_INTERNAL, "\"%s\" too long for a binary header", text);
  memset(field, 0, size);
  memcpy(field, text, length);
  return KILN_OK;
}

kiln_status gpu_envelope_wrap(const char *backend, const char *architecture,
                              const void *payload, size_t size, void **envelope,
                              size_t *envelope_size) {
  *envelope = NULL;
  *envelope_size = 0;
  if (size > SIZE_MAX - ENVELOPE_HEADER_SIZE)
    return kiln_error_set(KILN_ERROR_OUT_OF_RANGE, "binary too large");
  unsigned char *out = malloc(ENVELOPE_HEADER_SIZE + size);
  if (!out)
    return kiln_error_set(KILN_ERROR_OUT_OF_MEMORY,
                          "out of host memory for a binary of %zu bytes", size);
  memcpy(out, ENVELOPE_MAGIC, 8);
  write_le(out + 8, size);
  kiln_status status = write_field(out + 24, ENVELOPE_BACKEND_SIZE, backend);
  if (status == KILN_OK)
    status = write_field(out + 24 + ENVELOPE_BACKEND_SIZE, ENVELOPE_ARCH_SIZE, architecture);
  if (status != KILN_OK) {
    free(out);
    return status;
  }
  memcpy(out + ENVELOPE_HEADER_SIZE, payload, size);
  write_le(out + 16, envelope_hash(out, ENVELOPE_HEADER_SIZE + size));
  *envelope = out;
  *envelope_size = ENVELOPE_HEADER_SIZE + size;
  return KILN_OK;
}

kiln_status gpu_envelope_open(const char *backend, const char *architecture,
                              const void *envelope, size_t size,
                              const void **payload, size_t *payload_size) {
  const unsigned char *in = envelope;
  *payload = NULL;
  *payload_size = 0;
  if (!in || size < ENVELOPE_HEADER_SIZE || memcmp(in, ENVELOPE_MAGIC, 8) != 0)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "not a kiln GPU binary (no " ENVELOPE_MAGIC " header)");
  uint64_t length = read_le(in + 8, 8);
  if (length != size - ENVELOPE_HEADER_SIZE)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "binary truncated or padded: header says %llu bytes, %zu follow",
                          (unsigned long long)length, size - ENVELOPE_HEADER_SIZE);
  char field_backend[ENVELOPE_BACKEND_SIZE + 1], field_arch[ENVELOPE_ARCH_SIZE + 1];
  memcpy(field_backend, in + 24, ENVELOPE_BACKEND_SIZE);
  field_backend[ENVELOPE_BACKEND_SIZE] = '\0';
  memcpy(field_arch, in + 24 + ENVELOPE_BACKEND_SIZE, ENVELOPE_ARCH_SIZE);
  field_arch[ENVELOPE_ARCH_SIZE] = '\0';
  if (strcmp(field_backend, backend) != 0 || strcmp(field_arch, architecture) != 0)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "binary built for %s %s, not for this %s %s", field_backend,
                          field_arch, backend, architecture);
  if (envelope_hash(in, size) != read_le(in + 16, 8))
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "binary damaged: its checksum does not match");
  *payload = in + ENVELOPE_HEADER_SIZE;
  *payload_size = (size_t)length;
  return KILN_OK;
}
