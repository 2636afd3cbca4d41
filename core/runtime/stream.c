/* core/runtime/stream.c: public streams and events over the backend's. */
#include <stdatomic.h>
#include <stdlib.h>

#include "core/runtime/stream_internal.h"

struct kiln_stream {
  kiln_context *ctx;
  kiln_backend_stream *stream;
  uint64_t id;              /* unique in the process, never reused */
  struct kiln_stream *next; /* ctx->streams, under ctx->lock */
};

static atomic_uint_fast64_t next_stream_id = 1;

struct kiln_event {
  kiln_context *ctx;
  kiln_backend_event *event;
  int recorded;
};

kiln_status kiln_stream_backend(kiln_context *ctx, kiln_stream *stream,
                                kiln_backend_stream **out) {
  *out = NULL;
  KILN_RETURN_IF_ERROR(kiln_stream_barrier(ctx, stream));
  if (!stream) return KILN_OK;
  if (stream->ctx != ctx)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "stream belongs to another context");
  *out = stream->stream;
  return KILN_OK;
}

uint64_t kiln_stream_id(const kiln_stream *stream) { return stream ? stream->id : 0; }

kiln_status kiln_stream_record_by_id(kiln_context *ctx, uint64_t id,
                                     kiln_backend_event **out) {
  *out = NULL;
  kiln_status status = KILN_OK;
  pthread_mutex_lock(&ctx->lock);
  for (kiln_stream *s = ctx->streams; s; s = s->next) {
    if (s->id != id) continue;
    status = ctx->ops->event_create(ctx->device, out);
    if (status == KILN_OK) status = ctx->ops->event_record(ctx->device, *out, s->stream);
    if (status != KILN_OK && *out) {
      ctx->ops->event_destroy(ctx->device, *out);
      *out = NULL;
    }
    break;
  }
  pthread_mutex_unlock(&ctx->lock);
  return status;
}

kiln_status kiln_stream_create(kiln_context *ctx, kiln_stream **out) {
  KILN_CHECK_ARG(out);
  *out = NULL;
  KILN_CHECK_ARG(ctx);
  kiln_stream *s = calloc(1, sizeof *s);
  if (!s) return kiln_error_set(KILN_ERROR_OUT_OF_MEMORY, "out of host memory");
  kiln_status status = ctx->ops->stream_create(ctx->device, &s->stream);
  if (status != KILN_OK) {
    free(s);
    return status;
  }
  s->ctx = kiln_context_retain(ctx);
  s->id = atomic_fetch_add(&next_stream_id, 1);
  pthread_mutex_lock(&ctx->lock);
  s->next = ctx->streams;
  ctx->streams = s;
  pthread_mutex_unlock(&ctx->lock);
  *out = s;
  return KILN_OK;
}

void kiln_stream_release(kiln_stream *stream) {
  if (!stream) return;
  kiln_context *ctx = stream->ctx;
  ctx->ops->stream_synchronize(ctx->device, stream->stream);
  /* off the list only after its work is done: a stream not on it has
   * nothing queued (kiln_stream_record_by_id) */
  pthread_mutex_lock(&ctx->lock);
  for (kiln_stream **p = &ctx->streams; *p; p = &(*p)->next)
    if (*p == stream) {
      *p = stream->next;
      break;
    }
  pthread_mutex_unlock(&ctx->lock);
  ctx->ops->stream_destroy(ctx->device, stream->stream);
  free(stream);
  kiln_context_release(ctx);
}

kiln_status kiln_stream_synchronize(kiln_context *ctx, kiln_stream *stream) {
  KILN_CHECK_ARG(ctx);
  kiln_backend_stream *s = NULL;
  KILN_RETURN_IF_ERROR(kiln_stream_backend(ctx, stream, &s));
  return ctx->ops->stream_synchronize(ctx->device, s);
}

kiln_status kiln_event_create(kiln_context *ctx, kiln_event **out) {
  KILN_CHECK_ARG(out);
  *out = NULL;
  KILN_CHECK_ARG(ctx);
  kiln_event *e = calloc(1, sizeof *e);
  if (!e) return kiln_error_set(KILN_ERROR_OUT_OF_MEMORY, "out of host memory");
  kiln_status status = ctx->ops->event_create(ctx->device, &e->event);
  if (status != KILN_OK) {
    free(e);
    return status;
  }
  e->ctx = kiln_context_retain(ctx);
  *out = e;
  return KILN_OK;
}

void kiln_event_release(kiln_event *event) {
  if (!event) return;
  kiln_context *ctx = event->ctx;
  ctx->ops->event_destroy(ctx->device, event->event);
  free(event);
  kiln_context_release(ctx);
}

kiln_status kiln_event_record(kiln_event *event, kiln_stream *stream) {
  KILN_CHECK_ARG(event);
  kiln_backend_stream *s = NULL;
  KILN_RETURN_IF_ERROR(kiln_stream_backend(event->ctx, stream, &s));
  KILN_RETURN_IF_ERROR(event->ctx->ops->event_record(event->ctx->device, event->event, s));
  event->recorded = 1;
  return KILN_OK;
}

kiln_status kiln_event_synchronize(kiln_event *event) {
  KILN_CHECK_ARG(event);
  if (!event->recorded)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "event was never recorded");
  return event->ctx->ops->event_synchronize(event->ctx->device, event->event);
}

kiln_status kiln_stream_wait_event(kiln_stream *stream, kiln_event *event) {
  KILN_CHECK_ARG(event);
  if (!event->recorded)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "event was never recorded");
  kiln_context *ctx = event->ctx;
  kiln_backend_stream *s = NULL;
  KILN_RETURN_IF_ERROR(kiln_stream_backend(ctx, stream, &s));
  return kiln_backend_wait_event(ctx, s, event->event);
}

kiln_status kiln_backend_wait_event(kiln_context *ctx, kiln_backend_stream *stream,
                                    kiln_backend_event *event) {
  if (!ctx->ops->stream_wait_event) return ctx->ops->event_synchronize(ctx->device, event);
  return ctx->ops->stream_wait_event(ctx->device, stream, event);
}

kiln_status kiln_event_elapsed_ms(const kiln_event *start, const kiln_event *end, double *ms) {
  KILN_CHECK_ARG(start);
  KILN_CHECK_ARG(end);
  KILN_CHECK_ARG(ms);
  if (start->ctx != end->ctx)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "events of different contexts");
  if (!start->recorded || !end->recorded)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "event was never recorded");
  return start->ctx->ops->event_elapsed_ms(start->ctx->device, start->event, end->event, ms);
}
