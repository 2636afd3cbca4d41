/* backends/opencl/opencl_queue.c: streams (in-order command queues with
 * profiling) and events (markers).
 *
 * Work is flushed to the device whenever something else may wait for it: a
 * queue that was never flushed may never start, and a barrier on another
 * queue waiting for its marker would then wait forever. */
#include <stdlib.h>

#include "backends/opencl/opencl_backend.h"
#include "backends/opencl/opencl_status.h"
#include "core/runtime/error.h"

kiln_backend_stream *kiln_opencl_stream_or_default(kiln_backend_device *device,
                                                   kiln_backend_stream *stream) {
  return stream ? stream : &device->default_stream;
}

kiln_status kiln_opencl_queue_create(kiln_backend_device *device, cl_command_queue *queue) {
  const kiln_opencl_symbols *cl = device->cl;
  cl_int code = CL_SUCCESS;
  if (device->version_major >= 2 && cl->clCreateCommandQueueWithProperties) {
    const cl_queue_properties properties[3] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
    *queue = cl->clCreateCommandQueueWithProperties(device->context, device->device, properties,
                                                    &code);
    return KILN_CL_STATUS(code, clCreateCommandQueueWithProperties,
                          "creating a command queue on \"%s\"", device->name);
  }
  *queue = cl->clCreateCommandQueue(device->context, device->device, CL_QUEUE_PROFILING_ENABLE,
                                    &code);
  return KILN_CL_STATUS(code, clCreateCommandQueue, "creating a command queue on \"%s\"",
                        device->name);
}

kiln_status kiln_opencl_stream_create(kiln_backend_device *device, kiln_backend_stream **out) {
  kiln_status status = KILN_OK;
  kiln_backend_stream *stream = NULL;
  KILN_CHECK_ARG(device);
  KILN_CHECK_ARG(out);
  *out = NULL;
  stream = calloc(1, sizeof *stream);
  if (!stream) {
    status = kiln_error_set(KILN_ERROR_OUT_OF_MEMORY, "opencl: out of host memory creating a stream");
    goto cleanup;
  }
  status = kiln_opencl_queue_create(device, &stream->queue);
  if (status != KILN_OK) goto cleanup;
  *out = stream;
  stream = NULL;
cleanup:
  free(stream);
  return status;
}

void kiln_opencl_stream_destroy(kiln_backend_device *device, kiln_backend_stream *stream) {
  if (!device || !stream || stream == &device->default_stream) return;
  /* queued work still completes: the queue is deleted after it */
  device->cl->clReleaseCommandQueue(stream->queue);
  free(stream);
}

kiln_status kiln_opencl_stream_synchronize(kiln_backend_device *device,
                                           kiln_backend_stream *stream) {
  KILN_CHECK_ARG(device);
  return KILN_CL_CALL(device->cl, clFinish, (kiln_opencl_stream_or_default(device, stream)->queue),
                      "waiting for a stream of \"%s\"", device->name);
}

/* The event's current cl_event with a reference for the caller, or NULL
 * when it was never recorded. */
static cl_event event_acquire(kiln_backend_device *device, kiln_backend_event *event) {
  pthread_mutex_lock(&event->lock);
  cl_event e = event->event;
  if (e) device->cl->clRetainEvent(e);
  pthread_mutex_unlock(&event->lock);
  return e;
}

kiln_status kiln_opencl_stream_wait_event(kiln_backend_device *device,
                                          kiln_backend_stream *stream,
                                          kiln_backend_event *event) {
  kiln_status status = KILN_OK;
  KILN_CHECK_ARG(device);
  KILN_CHECK_ARG(event);
  cl_event e = event_acquire(device, event);
  if (!e) return KILN_OK; /* never recorded: nothing to wait for (as CUDA) */
  cl_command_queue queue = kiln_opencl_stream_or_default(device, stream)->queue;
  status = KILN_CL_CALL(device->cl, clEnqueueBarrierWithWaitList, (queue, 1, &e, NULL),
                        "making a stream wait for an event");
  if (status == KILN_OK)
    status = KILN_CL_CALL(device->cl, clFlush, (queue), "submitting a wait for an event");
  device->cl->clReleaseEvent(e);
  return status;
}

kiln_status kiln_opencl_event_create(kiln_backend_device *device, kiln_backend_event **out) {
  KILN_CHECK_ARG(device);
  KILN_CHECK_ARG(out);
  *out = NULL;
  kiln_backend_event *event = calloc(1, sizeof *event);
  if (!event)
    return kiln_error_set(KILN_ERROR_OUT_OF_MEMORY, "opencl: out of host memory creating an event");
  if (pthread_mutex_init(&event->lock, NULL) != 0) {
    free(event);
    return kiln_error_set(KILN_ERROR_INTERNAL, "opencl: pthread_mutex_init failed");
  }
  *out = event;
  return KILN_OK;
}

void kiln_opencl_event_destroy(kiln_backend_device *device, kiln_backend_event *event) {
  if (!device || !event) return;
  if (event->event) device->cl->clReleaseEvent(event->event);
  pthread_mutex_destroy(&event->lock);
  free(event);
}

kiln_status kiln_opencl_event_record(kiln_backend_device *device, kiln_backend_event *event,
                                     kiln_backend_stream *stream) {
  KILN_CHECK_ARG(device);
  KILN_CHECK_ARG(event);
  cl_command_queue queue = kiln_opencl_stream_or_default(device, stream)->queue;
  cl_event marker = NULL;
  KILN_RETURN_IF_ERROR(KILN_CL_CALL(device->cl, clEnqueueMarkerWithWaitList,
                                    (queue, 0, NULL, &marker), "recording an event"));
  pthread_mutex_lock(&event->lock);
  cl_event old = event->event;
  event->event = marker;
  pthread_mutex_unlock(&event->lock);
  if (old) device->cl->clReleaseEvent(old);
  return KILN_CL_CALL(device->cl, clFlush, (queue), "submitting a recorded event");
}

kiln_status kiln_opencl_event_synchronize(kiln_backend_device *device,
                                          kiln_backend_event *event) {
  KILN_CHECK_ARG(device);
  KILN_CHECK_ARG(event);
  cl_event e = event_acquire(device, event);
  if (!e) return KILN_OK;
  kiln_status status =
      KILN_CL_CALL(device->cl, clWaitForEvents, (1, &e), "waiting for an event");
  device->cl->clReleaseEvent(e);
  return status;
}

/* Device time in nanoseconds at which a completed marker ended. */
static kiln_status marker_time(kiln_backend_device *device, cl_event e, cl_ulong *ns) {
  KILN_RETURN_IF_ERROR(
      KILN_CL_CALL(device->cl, clWaitForEvents, (1, &e), "waiting for an event to time it"));
  return KILN_CL_CALL(device->cl, clGetEventProfilingInfo,
                      (e, CL_PROFILING_COMMAND_END, sizeof *ns, ns, NULL),
                      "reading the time of an event (CL_PROFILING_COMMAND_END)");
}

/* Waits for both events (CUDA would answer "not ready"; OpenCL has no
 * profiling data before completion), then reports end - start. */
kiln_status kiln_opencl_event_elapsed_ms(kiln_backend_device *device,
                                         kiln_backend_event *start,
                                         kiln_backend_event *end, double *ms) {
  kiln_status status = KILN_OK;
  cl_event start_event = NULL, end_event = NULL;
  cl_ulong start_ns = 0, end_ns = 0;
  KILN_CHECK_ARG(device);
  KILN_CHECK_ARG(start);
  KILN_CHECK_ARG(end);
  KILN_CHECK_ARG(ms);
  start_event = event_acquire(device, start);
  end_event = event_acquire(device, end);
  if (!start_event || !end_event) {
    status = kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                            "opencl: elapsed time between events: the %s event was never recorded",
                            !start_event ? "start" : "end");
    goto cleanup;
  }
  if ((status = marker_time(device, start_event, &start_ns)) != KILN_OK ||
      (status = marker_time(device, end_event, &end_ns)) != KILN_OK)
    goto cleanup;
  *ms = (double)(int64_t)(end_ns - start_ns) * 1e-6;
cleanup:
  if (start_event) device->cl->clReleaseEvent(start_event);
  if (end_event) device->cl->clReleaseEvent(end_event);
  return status;
}
