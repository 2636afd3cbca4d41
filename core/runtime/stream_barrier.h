/* core/runtime/stream_barrier.h: the hook run before work is queued on a
 * stream or the host reads device memory (internal). */
#ifndef KILN_CORE_RUNTIME_STREAM_BARRIER_H
#define KILN_CORE_RUNTIME_STREAM_BARRIER_H

#include "kiln/context.h"
#include "kiln/stream.h"

/* A barrier before work is queued on `stream` of ctx (NULL: the default
 * stream) or before the host reads device memory: a layer above the
 * runtime that holds recorded, not yet queued work (core/fusion/) sets the
 * hook, which queues that work first, so that results never depend on the
 * recording. kiln_stream_backend calls it; so do context synchronisation
 * and host reads that take no stream. NULL hook (the default): nothing to
 * do. */
typedef kiln_status (*kiln_stream_barrier_fn)(kiln_context *ctx, kiln_stream *stream);
void kiln_stream_set_barrier(kiln_stream_barrier_fn fn);
kiln_status kiln_stream_barrier(kiln_context *ctx, kiln_stream *stream);

#endif
