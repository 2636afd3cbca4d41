/* backends/opencl/opencl_binary.h: kiln's envelope around an OpenCL program
 * binary (internal to the OpenCL backend).
 *
 * Drivers are not hardened against damaged binaries, so module_binary wraps
 * the driver's bytes with a header that lets module_load_binary reject a
 * truncated, corrupted or foreign binary before the driver sees it:
 *
 *   offset  0: "KILNOCL1"                  magic and format version
 *   offset  8: uint64 payload size         (all integers little-endian)
 *   offset 16: uint64 FNV-1a 64 of the payload
 *   offset 24: uint64 FNV-1a 64 of the device identity (platform, device,
 *              versions) the payload was built for
 *   offset 32: payload (the driver's CL_PROGRAM_BINARIES bytes)
 */
#ifndef KILN_BACKENDS_OPENCL_BINARY_H
#define KILN_BACKENDS_OPENCL_BINARY_H

#include <stddef.h>

#include "kiln/status.h"

#define KILN_OPENCL_BINARY_HEADER_SIZE 32

/* Writes the envelope around payload[0..size) for a device of `identity`
 * into a malloc'd *binary of *binary_size bytes (caller frees).
 * OUT_OF_MEMORY if the allocation fails. */
kiln_status kiln_opencl_binary_wrap(const char *identity, const void *payload, size_t size,
                                    void **binary, size_t *binary_size);

/* Checks an envelope made by kiln_opencl_binary_wrap for a device of
 * `identity` and points *payload (inside `binary`) at the driver's bytes.
 * INVALID_ARGUMENT, saying what is wrong, for anything else. */
kiln_status kiln_opencl_binary_unwrap(const char *identity, const void *binary, size_t size,
                                      const void **payload, size_t *payload_size);

#endif
