/* core/runtime/stream_barrier.c: the stream barrier hook, apart from the
 * streams: both the streams (stream.c) and the context (context.c, whose
 * synchronisation runs it) call it, and the streams hold the context, so it
 * lives in neither (no call circle between them; docs/architecture.md). */
#include <stdatomic.h>

#include "core/runtime/stream_barrier.h"

static _Atomic(kiln_stream_barrier_fn) barrier_hook;

void kiln_stream_set_barrier(kiln_stream_barrier_fn fn) { atomic_store(&barrier_hook, fn); }

kiln_status kiln_stream_barrier(kiln_context *ctx, kiln_stream *stream) {
  kiln_stream_barrier_fn fn = atomic_load_explicit(&barrier_hook, memory_order_acquire);
  return fn ? fn(ctx, stream) : KILN_OK;
}
