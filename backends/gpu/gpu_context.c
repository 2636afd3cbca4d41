/* backends/gpu/gpu_context.c: making a device's context current on the
 * calling thread, and the "<backend> device <n>:" error prefix. Every file of
 * backends/gpu/ that calls the driver uses these; they live apart from
 * gpu_device.c (which opens and closes devices) so that the files which
 * gpu_device.c calls (gpu_blas.c at close) do not call back into it. */
#include <stdarg.h>
#include <stdio.h>

#include "backends/gpu/gpu_internal.h"

kiln_status gpu_enter(kiln_backend_device *device) {
  return device->runtime->context_enter(device->ordinal, device->context);
}

void gpu_leave(kiln_backend_device *device) {
  device->runtime->context_leave(device->context);
}

kiln_status gpu_error_context(const kiln_backend_device *device,
                              kiln_status status, const char *format, ...) {
  char what[256];
  va_list args;
  va_start(args, format);
  vsnprintf(what, sizeof what, format, args);
  va_end(args);
  return kiln_error_prefix(status, "%s device %d: %s", device->runtime->name,
                           device->ordinal, what);
}
