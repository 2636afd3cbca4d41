/* core/runtime/stream_internal.h: the backend objects behind public streams
 * (internal). */
#ifndef KILN_CORE_RUNTIME_STREAM_INTERNAL_H
#define KILN_CORE_RUNTIME_STREAM_INTERNAL_H

#include "core/runtime/context_internal.h"
#include "core/runtime/error.h"
#include "core/runtime/stream_barrier.h" /* kiln_stream_backend runs it */
#include "kiln/stream.h"

/* The backend stream behind a public stream (NULL: default stream).
 * INVALID_ARGUMENT when the stream belongs to another context. */
kiln_status kiln_stream_backend(kiln_context *ctx, kiln_stream *stream,
                                kiln_backend_stream **out);

/* The stream's process-unique id (0 for NULL, the default stream). */
uint64_t kiln_stream_id(const kiln_stream *stream);

/* Makes the backend stream (NULL: the default) wait for event on the
 * device; the host waits instead where the backend has no such wait. */
kiln_status kiln_backend_wait_event(kiln_context *ctx, kiln_backend_stream *stream,
                                    kiln_backend_event *event);

/* Records a new backend event on the live stream of ctx with that id
 * (*out: the caller destroys it), or sets *out to NULL when that stream was
 * released meanwhile (its work was then finished before it went). */
kiln_status kiln_stream_record_by_id(kiln_context *ctx, uint64_t id,
                                     kiln_backend_event **out);

#endif
