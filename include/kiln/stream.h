/* kiln/stream.h: streams (in-order queues of device work) and events.
 *
 * Every kiln function that takes a kiln_stream* accepts NULL for the
 * context's default stream. Work on different streams may overlap unless
 * ordered with an event (kiln_stream_wait_event) or the host waits. */
#ifndef KILN_STREAM_H
#define KILN_STREAM_H

#include "kiln/context.h"
#include "kiln/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kiln_stream kiln_stream;
typedef struct kiln_event kiln_event;

/* New stream on ctx (holds a reference to ctx). */
KILN_API kiln_status kiln_stream_create(kiln_context *ctx, kiln_stream **out);

/* Waits for the stream's queued work, then frees it. NULL is ignored. */
KILN_API void kiln_stream_release(kiln_stream *stream);

/* Waits until all work queued on the stream is done (NULL: default). */
KILN_API kiln_status kiln_stream_synchronize(kiln_context *ctx, kiln_stream *stream);

/* New event able to record timestamps. */
KILN_API kiln_status kiln_event_create(kiln_context *ctx, kiln_event **out);

/* Frees the event. NULL is ignored. */
KILN_API void kiln_event_release(kiln_event *event);

/* Marks the point in `stream` reached by the work queued so far. */
KILN_API kiln_status kiln_event_record(kiln_event *event, kiln_stream *stream);

/* Waits until the recorded point is reached. */
KILN_API kiln_status kiln_event_synchronize(kiln_event *event);

/* Makes the work queued on `stream` (NULL: the default stream) after this
 * call wait until the point `event` recorded is reached, without blocking
 * the host (CuPy's Stream.wait_event, cudaStreamWaitEvent): the way to
 * order work across streams, which otherwise may overlap. Recording the
 * event again later does not change what is waited for.
 * Errors: INVALID_ARGUMENT (NULL event, an event never recorded, a stream
 * of another context). */
KILN_API kiln_status kiln_stream_wait_event(kiln_stream *stream, kiln_event *event);

/* Milliseconds between two recorded, completed events. */
KILN_API kiln_status kiln_event_elapsed_ms(const kiln_event *start,
                                  const kiln_event *end, double *ms);

#ifdef __cplusplus
}
#endif
#endif
