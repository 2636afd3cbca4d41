/* backends/gpu/gpu_stream.c: streams and timed events, shared by the CUDA
 * and HIP backends. */
#include <stdlib.h>

#include "backends/gpu/gpu_internal.h"
#include "core/runtime/log.h"

kiln_status gpu_stream_create(kiln_backend_device *device,
                              kiln_backend_stream **out) {
  KILN_CHECK_ARG(device);
  KILN_CHECK_ARG(out);
  *out = NULL;
  kiln_backend_stream *stream = malloc(sizeof *stream);
  if (!stream)
    return kiln_error_set(KILN_ERROR_OUT_OF_MEMORY,
                          "%s device %d: out of host memory for a stream",
                          device->runtime->name, device->ordinal);
  kiln_status status = gpu_enter(device);
  if (status == KILN_OK) {
    status = device->runtime->stream_create(&stream->handle);
    gpu_leave(device);
  }
  if (status != KILN_OK) {
    free(stream);
    return gpu_error_context(device, status, "creating a stream");
  }
  *out = stream;
  return KILN_OK;
}

void gpu_stream_destroy(kiln_backend_device *device, kiln_backend_stream *stream) {
  if (!device || !stream) return;
  kiln_status status = gpu_enter(device);
  if (status == KILN_OK) {
    status = device->runtime->stream_destroy(stream->handle);
    gpu_leave(device);
  }
  if (status != KILN_OK)
    kiln_log(KILN_LOG_WARN, "%s device %d: destroying a stream: %s",
             device->runtime->name, device->ordinal, kiln_last_error());
  free(stream);
}

kiln_status gpu_stream_synchronize(kiln_backend_device *device,
                                   kiln_backend_stream *stream) {
  KILN_CHECK_ARG(device);
  kiln_status status = gpu_enter(device);
  if (status == KILN_OK) {
    status = device->runtime->stream_synchronize(gpu_stream_or_default(device, stream));
    gpu_leave(device);
  }
  if (status != KILN_OK)
    return gpu_error_context(device, status, "waiting for a stream");
  return KILN_OK;
}

kiln_status gpu_stream_wait_event(kiln_backend_device *device,
                                  kiln_backend_stream *stream,
                                  kiln_backend_event *event) {
  KILN_CHECK_ARG(device);
  KILN_CHECK_ARG(event);
  kiln_status status = gpu_enter(device);
  if (status == KILN_OK) {
    status = device->runtime->stream_wait_event(gpu_stream_or_default(device, stream),
                                                event->handle);
    gpu_leave(device);
  }
  if (status != KILN_OK)
    return gpu_error_context(device, status, "making a stream wait for an event");
  return KILN_OK;
}

kiln_status gpu_event_create(kiln_backend_device *device,
                             kiln_backend_event **out) {
  KILN_CHECK_ARG(device);
  KILN_CHECK_ARG(out);
  *out = NULL;
  kiln_backend_event *event = malloc(sizeof *event);
  if (!event)
    return kiln_error_set(KILN_ERROR_OUT_OF_MEMORY,
                          "%s device %d: out of host memory for an event",
                          device->runtime->name, device->ordinal);
  kiln_status status = gpu_enter(device);
  if (status == KILN_OK) {
    status = device->runtime->event_create(&event->handle);
    gpu_leave(device);
  }
  if (status != KILN_OK) {
    free(event);
    return gpu_error_context(device, status, "creating an event");
  }
  *out = event;
  return KILN_OK;
}

void gpu_event_destroy(kiln_backend_device *device, kiln_backend_event *event) {
  if (!device || !event) return;
  kiln_status status = gpu_enter(device);
  if (status == KILN_OK) {
    status = device->runtime->event_destroy(event->handle);
    gpu_leave(device);
  }
  if (status != KILN_OK)
    kiln_log(KILN_LOG_WARN, "%s device %d: destroying an event: %s",
             device->runtime->name, device->ordinal, kiln_last_error());
  free(event);
}

kiln_status gpu_event_record(kiln_backend_device *device,
                             kiln_backend_event *event,
                             kiln_backend_stream *stream) {
  KILN_CHECK_ARG(device);
  KILN_CHECK_ARG(event);
  kiln_status status = gpu_enter(device);
  if (status == KILN_OK) {
    status = device->runtime->event_record(event->handle,
                                           gpu_stream_or_default(device, stream));
    gpu_leave(device);
  }
  if (status != KILN_OK)
    return gpu_error_context(device, status, "recording an event");
  return KILN_OK;
}

kiln_status gpu_event_synchronize(kiln_backend_device *device,
                                  kiln_backend_event *event) {
  KILN_CHECK_ARG(device);
  KILN_CHECK_ARG(event);
  kiln_status status = gpu_enter(device);
  if (status == KILN_OK) {
    status = device->runtime->event_synchronize(event->handle);
    gpu_leave(device);
  }
  if (status != KILN_OK)
    return gpu_error_context(device, status, "waiting for an event");
  return KILN_OK;
}

kiln_status gpu_event_elapsed_ms(kiln_backend_device *device,
                                 kiln_backend_event *start,
                                 kiln_backend_event *end, double *ms) {
  KILN_CHECK_ARG(device);
  KILN_CHECK_ARG(start);
  KILN_CHECK_ARG(end);
  KILN_CHECK_ARG(ms);
  *ms = 0;
  float elapsed = 0;
  kiln_status status = gpu_enter(device);
  if (status == KILN_OK) {
    status = device->runtime->event_elapsed_ms(start->handle, end->handle, &elapsed);
    gpu_leave(device);
  }
  if (status != KILN_OK)
    return gpu_error_context(device, status, "timing two events");
  *ms = elapsed;
  return KILN_OK;
}
