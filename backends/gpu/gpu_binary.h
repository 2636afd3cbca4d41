/* backends/gpu/gpu_binary.h: structural checks of kernel images before a
 * driver parses them, and the envelope around binaries handed out for the
 * disk cache (internal).
 *
 * cuModuleLoadData and hipModuleLoadData take no size: a truncated or
 * corrupt image (say, a damaged disk-cache entry) would make the driver read
 * past the end. These checks make sure every header, section and segment
 * the image claims lies inside the bytes given; they do not judge whether
 * the code is right for the device (the driver does). Each returns KILN_OK
 * or INVALID_ARGUMENT with the reason. */
#ifndef KILN_BACKENDS_GPU_BINARY_H
#define KILN_BACKENDS_GPU_BINARY_H

#include <stddef.h>

#include "kiln/status.h"

/* Nonzero when image starts with the ELF magic. */
int gpu_binary_is_elf(const void *image, size_t size);

/* A 64-bit little-endian ELF file whose program and section headers, and
 * the contents they point at, lie within size. */
kiln_status gpu_binary_check_elf(const void *image, size_t size);

/* Text (PTX) that ends in a NUL byte within size. */
kiln_status gpu_binary_check_text(const void *image, size_t size);

/* A clang offload bundle ("__CLANG_OFFLOAD_BUNDLE__") whose entries lie
 * within size and each hold a well-formed ELF (or nothing). */
kiln_status gpu_binary_check_offload_bundle(const void *image, size_t size);

/* Nonzero when image starts with the offload-bundle magic. */
int gpu_binary_is_offload_bundle(const void *image, size_t size);

/* The envelope module_binary hands out: a header with a magic, the
 * payload's size, an FNV-1a 64 hash of all but itself, the backend and the
 * architecture it was built for, then the payload (the CUBIN / PTX / code
 * object). Damage
 * or a binary of another backend or device is then an INVALID_ARGUMENT
 * naming what differs, before any driver sees the bytes. */

/* *envelope (malloc'd, caller frees) wraps payload. */
kiln_status gpu_envelope_wrap(const char *backend, const char *architecture,
                              const void *payload, size_t size, void **envelope,
                              size_t *envelope_size);

/* Checks envelope against backend and architecture and points *payload
 * into it. */
kiln_status gpu_envelope_open(const char *backend, const char *architecture,
                              const void *envelope, size_t size,
                              const void **payload, size_t *payload_size);

#endif
