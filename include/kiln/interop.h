/* kiln/interop.h: working with other libraries and other devices.
 *
 * - Native handles: the backend's own objects behind a context, a stream and
 *   an array (any view), to hand kiln memory to a vendor library or a
 *   device-aware MPI; and the reverse, memory another library allocated
 *   wrapped as a kiln array without a copy.
 * - DLPack: export and import through the DLManagedTensor ABI (the pointers
 *   are void * here, so users need no dlpack.h; cast them to
 *   DLManagedTensor *).
 * - Copies between contexts, which may be on different devices.
 *
 * What "native" means per backend (docs/interop.md has the table): a
 * backend whose memory has addresses (the two GPU runtimes) reports a
 * native pointer; a backend whose memory is an object reports a native
 * memory object and a byte offset into it. */
#ifndef KILN_INTEROP_H
#define KILN_INTEROP_H

#include <stddef.h>
#include <stdint.h>

#include "kiln/array.h"
#include "kiln/context.h"
#include "kiln/status.h"
#include "kiln/stream.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The native objects behind a context and one of its streams. All are
 * borrowed: valid while the context lives (queue: while the stream lives;
 * the default stream's while the context lives). Do not release or destroy
 * them. A field the backend has no object for is NULL. */
typedef struct kiln_native_handles {
  char backend[16];   /* "cuda", "hip", "opencl" (the context's backend) */
  void *context;      /* native context; NULL where the backend has none */
  void *device;       /* native device object; NULL
                         where the backend names devices by ordinal */
  int device_ordinal; /* native device ordinal; -1 where `device` is used */
  void *queue;        /* native stream / command queue of `stream` */
} kiln_native_handles;

/* Fills *out for ctx and `stream` (NULL: the context's default stream).
 * Work queued by kiln on that stream is ordered before work another library
 * queues on the same native queue afterwards; across different queues,
 * synchronise (kiln_stream_synchronize) first.
 * Errors: INVALID_ARGUMENT (NULL ctx/out, a stream of another context),
 * UNIMPLEMENTED (a backend without interop). */
KILN_API kiln_status kiln_context_native(kiln_context *ctx, kiln_stream *stream,
                                         kiln_native_handles *out);

/* Device memory as its backend names it. Exactly one of object and address
 * is set (both zero for an empty array). */
typedef struct kiln_native_memory {
  void *object;     /* native memory object, else NULL */
  uint64_t address; /* native pointer of the memory's first byte (the GPU
                       runtimes' device pointer), else 0 */
  size_t bytes;     /* bytes from object/address on that may be reached */
  int64_t offset;   /* bytes from object/address to the array's first
                       element (its element at index 0,..,0) */
} kiln_native_memory;

/* The memory behind `array` (any view: offset and kiln_array_strides, in
 * bytes, locate its elements). Borrowed: valid while any view of that
 * memory lives; do not free it. Kiln work on it may still be queued: call
 * kiln_stream_synchronize (or use the native queue) before another library
 * reads it.
 * Errors: INVALID_ARGUMENT (NULL), UNIMPLEMENTED (backend without interop). */
KILN_API kiln_status kiln_array_native(const kiln_array *array, kiln_native_memory *out);

/* Called once, when the last view of wrapped memory is released (after
 * kiln waited for the context's default stream), so the owner may free it. */
typedef void (*kiln_release_callback)(void *user_data);

/* Wraps memory another library owns as an array of ctx, without a copy.
 * memory->object (a native memory object of the native context that
 * kiln_context_native reports, which kiln retains while it uses it; kiln
 * checks its context and size) or memory->address (a
 * device pointer of the context's device), memory->bytes reachable from
 * there, memory->offset the bytes to element 0,..,0. strides are in bytes,
 * any sign; offset and strides must be whole multiples of the itemsize and
 * every element must lie inside [0, memory->bytes); NULL means C order. The memory must
 * stay valid until `release` is called (release may be NULL: then it must
 * outlive every view). Work another library queued on the memory must be
 * finished (or ordered on the same native queue) before kiln uses it.
 * On failure release is not called and *out is NULL.
 * Errors: INVALID_ARGUMENT (NULL arguments, both or neither of
 * object/address, a memory object of another context, bad dtype/shape),
 * OUT_OF_RANGE (an element outside the memory), UNIMPLEMENTED. */
KILN_API kiln_status kiln_array_wrap_native(kiln_context *ctx, const kiln_native_memory *memory,
                                            kiln_dtype dtype, int ndim, const int64_t *shape,
                                            const int64_t *strides,
                                            kiln_release_callback release, void *user_data,
                                            kiln_array **out);

/* Exports `array` (any view) as a DLPack DLManagedTensor (returned as
 * void *; it is a DLManagedTensor *). The tensor holds a reference to the
 * array's memory until its deleter is called, which the consumer must do
 * exactly once. device_type: the backend's DLPack device type
 * (docs/interop.md has the table); with native pointers, device_id is the
 * native ordinal and `data` points at element 0 (byte_offset 0); with
 * native memory objects, device_id is kiln's device index, `data` the
 * memory object and byte_offset the view's offset. Strides are in elements
 * (always set). bool exports as DLPack's bool code (6), 8 bits.
 * Kiln work on the array may still be queued: synchronise the stream first.
 * Errors: INVALID_ARGUMENT (NULL), UNIMPLEMENTED (backend without interop),
 * OUT_OF_MEMORY. *managed_tensor is NULL on failure. */
KILN_API kiln_status kiln_array_to_dlpack(const kiln_array *array, void **managed_tensor);

/* Imports a DLManagedTensor (void * to it) as an array of ctx without a
 * copy. On success kiln owns the tensor and calls its deleter (if any) when
 * the last view is released; on failure the caller still owns it. The
 * device type and id must be ctx's device, as kiln_array_to_dlpack
 * reports them; host (CPU) tensors and other devices are INVALID_ARGUMENT
 * (copy host memory with kiln_array_from_host). dtype: int/uint 8..64 bits,
 * float 32/64, bool (code 6, 8 bits), one lane. NULL strides mean C
 * order.
 * Errors: INVALID_ARGUMENT (NULL, device or dtype not supported, too many
 * dims, negative shape), OUT_OF_RANGE (strides whose byte size overflows),
 * UNIMPLEMENTED. */
KILN_API kiln_status kiln_array_from_dlpack(kiln_context *ctx, void *managed_tensor,
                                            kiln_array **out);

/* New C-contiguous array on `dst_ctx` holding the values of `src` (any
 * view, any context, any device or backend). Where the backend can copy
 * between the two devices directly (contexts of one GPU runtime, on one
 * device or on two: the driver's peer copy) the copy does not touch host
 * memory; otherwise (memory objects of different native contexts, two
 * backends) it goes through host memory. Returns when the copy is done; *path (may
 * be NULL) receives "device" or "host", the route taken.
 * Errors: INVALID_ARGUMENT (NULL), OUT_OF_MEMORY, DEVICE. */
KILN_API kiln_status kiln_array_copy_to_context(const kiln_array *src, kiln_context *dst_ctx,
                                                kiln_array **out, const char **path);

#ifdef __cplusplus
}
#endif
#endif
