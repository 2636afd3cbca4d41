/* core/runtime/device_order.c: see device_order.h. */
#include "core/runtime/device_order.h"

int kiln_device_lookback_safe(const kiln_context *ctx) {
  return ctx->info.type == KILN_DEVICE_GPU && ctx->ops->device_scope_order &&
         ctx->ops->device_scope_order(ctx->device);
}
