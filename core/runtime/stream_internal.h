/* core/runtime/stream_internal.h: the backend objects behind public streams
 * (internal). */
#ifndef KILN_CORE_RUNTIME_STREAM_INTERNAL_H
#define KILN_CORE_RUNTIME_STREAM_INTERNAL_H

#include "core/runtime/context_internal.h"
#include "core/runtime/error.h"
#include "kiln/stream.h"

/* The backend stream behind a public stream (NULL: default stream).
 * INVALID_ARGUMENT when the stream belongs to another context. */
kiln_status kiln_stream_backend(kiln_context *ctx, kiln_stream *stream,
                                kiln_backend_stream **out);

#endif
