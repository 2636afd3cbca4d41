/* core/array/pinned.c: pinned host memory of a context and the table of its
 * ranges.
 *
 * The table is sorted by start address and never holds overlapping ranges,
 * so a lookup is a binary search under a read lock: transfers ask it for
 * every host pointer they get. What is still in the table when the context
 * goes is freed or unpinned with it. */
#include <stdlib.h>
#include <string.h>

#include "core/array/array_internal.h"
#include "core/runtime/error.h"
#include "kiln/memory.h"

typedef struct pinned_range {
  uintptr_t start;
  size_t bytes;
  int registered; /* kiln_host_register; else kiln_host_alloc */
} pinned_range;

typedef struct kiln_pinned_ranges {
  pthread_rwlock_t lock;
  pinned_range *ranges;
  size_t count, capacity;
} kiln_pinned_ranges;

/* Index of the first range whose start is > address. */
static size_t upper_bound(const kiln_pinned_ranges *t, uintptr_t address) {
  size_t lo = 0, hi = t->count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (t->ranges[mid].start <= address) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

static void ranges_teardown(kiln_context *ctx) {
  kiln_pinned_ranges *t = atomic_load(&ctx->pinned);
  if (!t) return;
  for (size_t i = 0; i < t->count; i++) {
    void *host = (void *)t->ranges[i].start;
    if (t->ranges[i].registered) ctx->ops->host_unregister(ctx->device, host);
    else ctx->ops->host_free(ctx->device, host);
  }
  pthread_rwlock_destroy(&t->lock);
  free(t->ranges);
  free(t);
  atomic_store(&ctx->pinned, NULL);
}

static void *ranges_make(kiln_context *ctx) {
  (void)ctx;
  kiln_pinned_ranges *t = calloc(1, sizeof *t);
  if (t) pthread_rwlock_init(&t->lock, NULL);
  return t;
}

static kiln_status ranges_get(kiln_context *ctx, kiln_pinned_ranges **out) {
  return kiln_context_state(ctx, &ctx->pinned, ranges_make, ranges_teardown, (void **)out);
}

/* Adds a range; INVALID_ARGUMENT when it overlaps one already there. */
static kiln_status ranges_add(kiln_pinned_ranges *t, void *host, size_t bytes, int registered) {
  uintptr_t start = (uintptr_t)host;
  kiln_status status = KILN_OK;
  pthread_rwlock_wrlock(&t->lock);
  size_t i = upper_bound(t, start);
  if ((i > 0 && t->ranges[i - 1].start + t->ranges[i - 1].bytes > start) ||
      (i < t->count && t->ranges[i].start < start + bytes)) {
    status = kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                            "host memory %p (%zu bytes) overlaps memory already pinned on this "
                            "context",
                            host, bytes);
    goto done;
  }
  if (t->count == t->capacity) {
    size_t capacity = t->capacity ? 2 * t->capacity : 16;
    pinned_range *grown = realloc(t->ranges, capacity * sizeof *grown);
    if (!grown) {
      status = kiln_error_set(KILN_ERROR_OUT_OF_MEMORY, "out of host memory");
      goto done;
    }
    t->ranges = grown;
    t->capacity = capacity;
  }
  memmove(&t->ranges[i + 1], &t->ranges[i], (t->count - i) * sizeof *t->ranges);
  t->ranges[i] = (pinned_range){start, bytes, registered};
  t->count++;
done:
  pthread_rwlock_unlock(&t->lock);
  return status;
}

/* Removes the range starting at host of that kind; INVALID_ARGUMENT when
 * there is none. */
static kiln_status ranges_remove(kiln_pinned_ranges *t, void *host, int registered,
                                 const char *what) {
  uintptr_t start = (uintptr_t)host;
  kiln_status status = KILN_OK;
  pthread_rwlock_wrlock(&t->lock);
  size_t i = upper_bound(t, start);
  if (i == 0 || t->ranges[i - 1].start != start || t->ranges[i - 1].registered != registered) {
    status = kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                            "%s: %p is not the start of host memory %s on this context (or "
                            "was released already)",
                            what, host, registered ? "pinned by kiln_host_register"
                                                   : "from kiln_host_alloc");
  } else {
    memmove(&t->ranges[i - 1], &t->ranges[i], (t->count - i) * sizeof *t->ranges);
    t->count--;
  }
  pthread_rwlock_unlock(&t->lock);
  return status;
}

int kiln_host_is_pinned(kiln_context *ctx, const void *host, size_t bytes) {
  if (!ctx || !host) return 0;
  kiln_pinned_ranges *t = atomic_load_explicit(&ctx->pinned, memory_order_acquire);
  if (!t) return 0;
  uintptr_t start = (uintptr_t)host;
  pthread_rwlock_rdlock(&t->lock);
  size_t i = upper_bound(t, start);
  int inside = i > 0 && start - t->ranges[i - 1].start <= t->ranges[i - 1].bytes &&
               bytes <= t->ranges[i - 1].bytes - (start - t->ranges[i - 1].start);
  pthread_rwlock_unlock(&t->lock);
  return inside;
}

kiln_status kiln_host_alloc(kiln_context *ctx, size_t bytes, void **out) {
  KILN_CHECK_ARG(out);
  *out = NULL;
  KILN_CHECK_ARG(ctx);
  if (bytes == 0)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "kiln_host_alloc: 0 bytes asked for");
  if (!ctx->ops->host_alloc)
    return kiln_error_set(KILN_ERROR_UNIMPLEMENTED, "%s: no pinned host memory on this backend",
                          ctx->ops->name);
  kiln_pinned_ranges *t;
  KILN_RETURN_IF_ERROR(ranges_get(ctx, &t));
  void *host = NULL;
  KILN_RETURN_IF_ERROR(ctx->ops->host_alloc(ctx->device, bytes, &host));
  kiln_status status = ranges_add(t, host, bytes, 0);
  if (status != KILN_OK) {
    ctx->ops->host_free(ctx->device, host);
    return status;
  }
  *out = host;
  return KILN_OK;
}

kiln_status kiln_host_free(kiln_context *ctx, void *host) {
  KILN_CHECK_ARG(ctx);
  if (!host) return KILN_OK;
  kiln_pinned_ranges *t;
  KILN_RETURN_IF_ERROR(ranges_get(ctx, &t));
  KILN_RETURN_IF_ERROR(ranges_remove(t, host, 0, "kiln_host_free"));
  ctx->ops->host_free(ctx->device, host);
  return KILN_OK;
}

kiln_status kiln_host_register(kiln_context *ctx, void *host, size_t bytes) {
  KILN_CHECK_ARG(ctx);
  KILN_CHECK_ARG(host);
  if (bytes == 0)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "kiln_host_register: 0 bytes at %p",
                          host);
  if (!ctx->ops->host_register || !ctx->ops->host_unregister)
    return kiln_error_set(KILN_ERROR_UNIMPLEMENTED,
                          "%s: this backend cannot pin existing host memory", ctx->ops->name);
  kiln_pinned_ranges *t;
  KILN_RETURN_IF_ERROR(ranges_get(ctx, &t));
  /* in the table first, so that a second registration of the same memory
   * is refused before the driver sees it */
  KILN_RETURN_IF_ERROR(ranges_add(t, host, bytes, 1));
  kiln_status status = ctx->ops->host_register(ctx->device, host, bytes);
  if (status != KILN_OK) {
    char message[1024];
    strncpy(message, kiln_last_error(), sizeof message - 1);
    message[sizeof message - 1] = '\0';
    ranges_remove(t, host, 1, "kiln_host_register");
    kiln_error_set(status, "%s", message);
  }
  return status;
}

kiln_status kiln_host_unregister(kiln_context *ctx, void *host) {
  KILN_CHECK_ARG(ctx);
  KILN_CHECK_ARG(host);
  kiln_pinned_ranges *t;
  KILN_RETURN_IF_ERROR(ranges_get(ctx, &t));
  KILN_RETURN_IF_ERROR(ranges_remove(t, host, 1, "kiln_host_unregister"));
  return ctx->ops->host_unregister(ctx->device, host);
}
