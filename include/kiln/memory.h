/* kiln/memory.h: the device memory pool and pinned host memory.
 *
 * Memory pool. Every context keeps freed device buffers in a cache and
 * hands them to later arrays of the same size class instead of asking the
 * driver again (as CuPy's memory pool does). Requests are rounded up: to a
 * multiple of 512 bytes up to 1 MiB, above that to m * 2^e with m in
 * 5..8 (at most 25% more). A block only serves requests of its own class.
 *
 * Stream rule. kiln arrays are not bound to a stream: every allocation and
 * release is ordered on the context's default stream. A block released
 * while work queued on the default stream may still use it is handed out
 * again at once (later work on the default stream runs after that work).
 * When kiln queues work on another stream (a kiln_stream given to a ufunc
 * call or a kernel launch, the host path's own streams) it records that
 * stream in the array's buffer; when such a buffer is released the pool
 * records an event on each of those streams, and a later array gets the
 * block only after the default stream has been made to wait for those
 * events. A block taken from the cache and then used first on another
 * stream makes that stream wait for the default stream first. So no block
 * is ever handed to a stream before the work of another stream that may
 * still use it is done, without the host waiting.
 *
 * On an allocation the driver refuses for lack of memory, or one over the
 * limit set below, the pool frees every cached block and tries once more
 * before returning OUT_OF_MEMORY. KILN_POOL=0 in the environment or
 * kiln_context_options.memory_pool = 0 turns caching off (each release
 * frees at once; for leak checkers); statistics are kept either way.
 *
 * Pinned host memory. Page-locked host memory transfers at the full speed
 * of the bus and asynchronously. kiln_host_alloc gives new pinned memory,
 * kiln_host_register pins memory the caller already has. kiln keeps the
 * ranges of both per context: array transfers (kiln_array_from_host,
 * kiln_array_to_host) and ufunc host operands lying wholly inside one copy
 * straight from or to it, without the staging copy pageable memory needs.
 * What each backend gives is in docs/api.md. */
#ifndef KILN_MEMORY_H
#define KILN_MEMORY_H

#include <stddef.h>
#include <stdint.h>

#include "kiln/context.h"
#include "kiln/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- memory pool ----------------------------------------------------- */

typedef struct kiln_memory_pool_stats {
  int enabled;            /* 0 when caching is off (KILN_POOL=0) */
  uint64_t bytes_in_use;  /* device bytes held by live arrays (rounded sizes) */
  uint64_t bytes_cached;  /* device bytes freed by arrays, kept for reuse */
  uint64_t blocks_in_use;
  uint64_t blocks_cached;
  uint64_t hits;          /* allocations served from the cache */
  uint64_t misses;        /* allocations that asked the driver */
  uint64_t releases;      /* times the cache was emptied to retry an allocation */
  uint64_t limit;         /* bytes in use + cached may not pass this; 0: none */
} kiln_memory_pool_stats;

/* Fills *stats with the pool's counters for ctx. Errors: INVALID_ARGUMENT
 * for NULL arguments. */
KILN_API kiln_status kiln_memory_pool_stats_get(kiln_context *ctx,
                                                kiln_memory_pool_stats *stats);

/* Frees every cached block back to the driver (blocks held by live arrays
 * stay). Never fails for a valid ctx. */
KILN_API kiln_status kiln_memory_pool_trim(kiln_context *ctx);

/* Caps the device bytes the pool holds (in use + cached); an allocation
 * that would pass it empties the cache and, if still over, fails with
 * OUT_OF_MEMORY. 0 removes the cap. Lowering it below what is in use only
 * makes later allocations fail. */
KILN_API kiln_status kiln_memory_pool_set_limit(kiln_context *ctx, uint64_t bytes);

/* ---- pinned host memory ---------------------------------------------- */

/* New page-locked host memory of `bytes` (> 0) for transfers on ctx; free
 * with kiln_host_free before the context's last reference goes (what is
 * left then is freed with it). Errors: INVALID_ARGUMENT (NULL, 0 bytes),
 * OUT_OF_MEMORY, UNIMPLEMENTED when the backend has no pinned memory. */
KILN_API kiln_status kiln_host_alloc(kiln_context *ctx, size_t bytes, void **out);

/* Frees memory from kiln_host_alloc. NULL is ignored (KILN_OK).
 * Errors: INVALID_ARGUMENT for a pointer kiln_host_alloc did not return
 * (or one already freed). */
KILN_API kiln_status kiln_host_free(kiln_context *ctx, void *host);

/* Pins `bytes` (> 0) of the caller's memory at `host` for ctx. The memory
 * stays the caller's: it must stay valid until kiln_host_unregister, and
 * ranges may not overlap ranges already pinned on ctx. Errors:
 * INVALID_ARGUMENT (NULL, 0 bytes, overlap), UNIMPLEMENTED when the
 * backend cannot pin, DEVICE with the driver's reason. */
KILN_API kiln_status kiln_host_register(kiln_context *ctx, void *host, size_t bytes);

/* Unpins memory pinned by kiln_host_register at `host` (the same start
 * address). Errors: INVALID_ARGUMENT for NULL or an address that is not
 * registered (including a second unregister). */
KILN_API kiln_status kiln_host_unregister(kiln_context *ctx, void *host);

/* Nonzero when [host, host + bytes) lies inside one range of ctx from
 * kiln_host_alloc or kiln_host_register. */
KILN_API int kiln_host_is_pinned(kiln_context *ctx, const void *host, size_t bytes);

#ifdef __cplusplus
}
#endif

#endif
