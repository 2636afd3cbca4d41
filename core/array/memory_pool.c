/* core/array/memory_pool.c: the caching device memory pool of a context.
 *
 * Blocks are backend buffers of a size class (kiln/memory.h): multiples of
 * 512 bytes up to 1 MiB (2048 classes), then m * 2^e for m in 5..8. Each
 * class has a LIFO list of cached blocks; a request takes the head of its
 * class's list (a hit) or asks the backend (a miss). One mutex guards the
 * lists, the counters and the pool fields of every buffer; backend calls
 * that may take long (alloc, free) run outside it.
 *
 * The stream rule (kiln/memory.h): arrays are ordered on the default
 * stream, so a block released with default-stream work pending is reused
 * at once. Buffers remember the other streams work was queued on
 * (kiln_buffer_use_on_stream); on release the pool records an event on each
 * that is still alive and keeps the events with the block; the next taker
 * makes the default stream wait for them (the host never waits). A buffer
 * used on more streams than it can remember is freed to the driver instead
 * of cached (the driver's free waits for the device). A reused block's
 * first use on another stream makes that stream wait for the default
 * stream, which may still run work on the block's previous contents. */
#include <stdlib.h>
#include <string.h>

#include "core/array/array_internal.h"
#include "core/runtime/error.h"
#include "core/runtime/stream_internal.h"
#include "kiln/memory.h"

#define SMALL_STEP 512u
#define SMALL_LIMIT ((size_t)1 << 20)
#define SMALL_CLASSES (SMALL_LIMIT / SMALL_STEP)
#define LARGE_FIRST_EXPONENT 18 /* 5 * 2^18 = 1.25 MiB, the first large class */
#define LARGE_CLASSES (4 * (64 - LARGE_FIRST_EXPONENT))
#define CLASSES (SMALL_CLASSES + LARGE_CLASSES)

typedef struct pool_block {
  struct pool_block *next;
  kiln_backend_buffer *handle;
  size_t capacity;
  int nevents;
  kiln_backend_event *events[KILN_BUFFER_STREAMS];
} pool_block;

typedef struct kiln_memory_pool {
  pthread_mutex_t lock;
  pool_block *cached[CLASSES];
  kiln_memory_pool_stats stats;
} kiln_memory_pool;

/* The class of a request and its rounded size. */
static size_t size_class(size_t bytes, size_t *capacity) {
  if (bytes <= SMALL_LIMIT) {
    size_t k = (bytes + SMALL_STEP - 1) / SMALL_STEP;
    *capacity = k * SMALL_STEP;
    return k - 1;
  }
  int length = 64 - __builtin_clzll((unsigned long long)(bytes - 1)); /* bits of bytes-1 */
  int e = length - 3;                                              /* bytes in (4, 8] * 2^e */
  if (e < LARGE_FIRST_EXPONENT) e = LARGE_FIRST_EXPONENT;
  size_t unit = (size_t)1 << e;
  size_t m = (bytes + unit - 1) / unit; /* 5..8 */
  if (m < 5) m = 5;
  *capacity = m * unit;
  return SMALL_CLASSES + (size_t)(e - LARGE_FIRST_EXPONENT) * 4 + (m - 5);
}

static void block_free(kiln_context *ctx, pool_block *block) {
  for (int i = 0; i < block->nevents; i++) ctx->ops->event_destroy(ctx->device, block->events[i]);
  ctx->ops->buffer_free(ctx->device, block->handle);
  free(block);
}

/* Takes every cached block off the lists (call with the lock held); the
 * caller frees them outside the lock. */
static pool_block *take_all(kiln_memory_pool *pool) {
  pool_block *all = NULL;
  for (size_t c = 0; c < CLASSES; c++) {
    while (pool->cached[c]) {
      pool_block *b = pool->cached[c];
      pool->cached[c] = b->next;
      b->next = all;
      all = b;
    }
  }
  pool->stats.bytes_cached = 0;
  pool->stats.blocks_cached = 0;
  return all;
}

static void free_list(kiln_context *ctx, pool_block *list) {
  while (list) {
    pool_block *next = list->next;
    block_free(ctx, list);
    list = next;
  }
}

static void pool_teardown(kiln_context *ctx) {
  kiln_memory_pool *pool = atomic_load(&ctx->pool);
  if (!pool) return;
  free_list(ctx, take_all(pool));
  pthread_mutex_destroy(&pool->lock);
  free(pool);
  atomic_store(&ctx->pool, NULL);
}

static void *pool_make(kiln_context *ctx) {
  kiln_memory_pool *pool = calloc(1, sizeof *pool);
  if (!pool) return NULL;
  pthread_mutex_init(&pool->lock, NULL);
  pool->stats.enabled = ctx->pool_enabled;
  return pool;
}

static kiln_status pool_get(kiln_context *ctx, kiln_memory_pool **out) {
  return kiln_context_state(ctx, &ctx->pool, pool_make, pool_teardown, (void **)out);
}

/* Makes the default stream wait for a reused block's events. */
static kiln_status wait_events(kiln_context *ctx, pool_block *block) {
  kiln_status status = KILN_OK;
  for (int i = 0; i < block->nevents; i++) {
    kiln_status s = kiln_backend_wait_event(ctx, NULL, block->events[i]);
    if (status == KILN_OK) status = s;
    ctx->ops->event_destroy(ctx->device, block->events[i]);
  }
  block->nevents = 0;
  return status;
}

kiln_status kiln_pool_acquire(kiln_context *ctx, kiln_buffer *b, size_t bytes) {
  kiln_memory_pool *pool;
  KILN_RETURN_IF_ERROR(pool_get(ctx, &pool));
  size_t capacity = bytes;
  size_t c = 0;
  int cacheable = ctx->pool_enabled;
  if (cacheable) {
    c = size_class(bytes, &capacity);
    uint64_t max = ctx->info.max_buffer_size;
    if (max && capacity > max) capacity = bytes, cacheable = 0;
  }
  pthread_mutex_lock(&pool->lock);
  pool_block *block = cacheable ? pool->cached[c] : NULL;
  if (block) {
    pool->cached[c] = block->next;
    pool->stats.bytes_cached -= block->capacity;
    pool->stats.blocks_cached--;
    pool->stats.hits++;
    pool->stats.bytes_in_use += block->capacity;
    pool->stats.blocks_in_use++;
  }
  pool_block *released = NULL;
  uint64_t limit = pool->stats.limit;
  int over = 0;
  if (!block) {
    pool->stats.misses++;
    if (limit && pool->stats.bytes_in_use + pool->stats.bytes_cached + capacity > limit &&
        pool->stats.bytes_cached > 0) {
      released = take_all(pool);
      pool->stats.releases++;
    }
    over = limit && pool->stats.bytes_in_use + capacity > limit;
    if (!over) {
      /* counted now so that concurrent allocations see the limit */
      pool->stats.bytes_in_use += capacity;
      pool->stats.blocks_in_use++;
    }
  }
  uint64_t in_use = pool->stats.bytes_in_use;
  pthread_mutex_unlock(&pool->lock);
  free_list(ctx, released);

  if (block) {
    kiln_status status = wait_events(ctx, block);
    b->handle = block->handle;
    b->capacity = block->capacity;
    b->cacheable = 1;
    b->reused = 1;
    free(block);
    return status;
  }
  if (over)
    return kiln_error_set(KILN_ERROR_OUT_OF_MEMORY,
                          "memory pool limit: %zu bytes more would pass the limit of %llu "
                          "bytes set by kiln_memory_pool_set_limit (%llu in use)",
                          capacity, (unsigned long long)limit, (unsigned long long)in_use);
  kiln_status status = ctx->ops->buffer_alloc(ctx->device, capacity, &b->handle);
  if (status == KILN_ERROR_OUT_OF_MEMORY) {
    pthread_mutex_lock(&pool->lock);
    released = take_all(pool);
    if (released) pool->stats.releases++;
    pthread_mutex_unlock(&pool->lock);
    if (released) {
      free_list(ctx, released);
      status = ctx->ops->buffer_alloc(ctx->device, capacity, &b->handle);
    }
  }
  if (status != KILN_OK) {
    pthread_mutex_lock(&pool->lock);
    pool->stats.bytes_in_use -= capacity;
    pool->stats.blocks_in_use--;
    pthread_mutex_unlock(&pool->lock);
    b->handle = NULL;
    return status;
  }
  b->capacity = capacity;
  b->cacheable = cacheable;
  b->reused = 0;
  return KILN_OK;
}

void kiln_pool_release(kiln_buffer *b) {
  kiln_context *ctx = b->ctx;
  kiln_memory_pool *pool = atomic_load(&ctx->pool);
  if (!b->handle || !pool) return;
  pthread_mutex_lock(&pool->lock);
  int cache = b->cacheable && !b->many_streams;
  int nstreams = b->nstreams;
  uint64_t streams[KILN_BUFFER_STREAMS];
  memcpy(streams, b->streams, sizeof streams);
  pthread_mutex_unlock(&pool->lock);

  pool_block *block = cache ? calloc(1, sizeof *block) : NULL;
  if (block) {
    /* events on the other streams, taken outside the pool's lock (they
     * take the context's) */
    for (int i = 0; i < nstreams && block; i++) {
      kiln_backend_event *event = NULL;
      if (kiln_stream_record_by_id(ctx, streams[i], &event) != KILN_OK) {
        for (int k = 0; k < block->nevents; k++)
          ctx->ops->event_destroy(ctx->device, block->events[k]);
        free(block);
        block = NULL;
      } else if (event) {
        block->events[block->nevents++] = event;
      }
    }
  }
  pthread_mutex_lock(&pool->lock);
  pool->stats.bytes_in_use -= b->capacity;
  pool->stats.blocks_in_use--;
  if (block) {
    size_t capacity;
    size_t c = size_class(b->bytes, &capacity);
    block->handle = b->handle;
    block->capacity = b->capacity;
    block->next = pool->cached[c];
    pool->cached[c] = block;
    pool->stats.bytes_cached += block->capacity;
    pool->stats.blocks_cached++;
  }
  pthread_mutex_unlock(&pool->lock);
  if (!block) ctx->ops->buffer_free(ctx->device, b->handle);
  b->handle = NULL;
}

kiln_status kiln_buffer_use_on_stream(kiln_buffer *b, kiln_stream *stream) {
  if (!stream || !b->handle) return KILN_OK;
  kiln_context *ctx = b->ctx;
  kiln_memory_pool *pool = atomic_load(&ctx->pool);
  if (!pool) return KILN_OK;
  uint64_t id = kiln_stream_id(stream);
  pthread_mutex_lock(&pool->lock);
  int known = 0;
  for (int i = 0; i < b->nstreams; i++) known |= b->streams[i] == id;
  if (!known) {
    if (b->nstreams < KILN_BUFFER_STREAMS) b->streams[b->nstreams++] = id;
    else b->many_streams = 1;
  }
  int wait = !known && b->reused;
  pthread_mutex_unlock(&pool->lock);
  if (!wait) return KILN_OK;
  /* the block's previous contents may still be in use on the default stream */
  kiln_backend_stream *side = NULL;
  KILN_RETURN_IF_ERROR(kiln_stream_backend(ctx, stream, &side));
  kiln_backend_event *event = NULL;
  KILN_RETURN_IF_ERROR(ctx->ops->event_create(ctx->device, &event));
  kiln_status status = ctx->ops->event_record(ctx->device, event, NULL);
  if (status == KILN_OK) status = kiln_backend_wait_event(ctx, side, event);
  ctx->ops->event_destroy(ctx->device, event);
  return status;
}

/* ---- public ---------------------------------------------------------------- */

kiln_status kiln_memory_pool_stats_get(kiln_context *ctx, kiln_memory_pool_stats *stats) {
  KILN_CHECK_ARG(ctx);
  KILN_CHECK_ARG(stats);
  kiln_memory_pool *pool;
  KILN_RETURN_IF_ERROR(pool_get(ctx, &pool));
  pthread_mutex_lock(&pool->lock);
  *stats = pool->stats;
  pthread_mutex_unlock(&pool->lock);
  return KILN_OK;
}

kiln_status kiln_memory_pool_trim(kiln_context *ctx) {
  KILN_CHECK_ARG(ctx);
  kiln_memory_pool *pool;
  KILN_RETURN_IF_ERROR(pool_get(ctx, &pool));
  pthread_mutex_lock(&pool->lock);
  pool_block *all = take_all(pool);
  pthread_mutex_unlock(&pool->lock);
  free_list(ctx, all);
  return KILN_OK;
}

kiln_status kiln_memory_pool_set_limit(kiln_context *ctx, uint64_t bytes) {
  KILN_CHECK_ARG(ctx);
  kiln_memory_pool *pool;
  KILN_RETURN_IF_ERROR(pool_get(ctx, &pool));
  pthread_mutex_lock(&pool->lock);
  pool->stats.limit = bytes;
  pthread_mutex_unlock(&pool->lock);
  return KILN_OK;
}
