/* core/fft/fft_cache.c: each context's cache of 1-D plans, keyed by length
 * and precision (kiln's own plans take the batch, strides and axes as
 * arguments of a run, so one serves every shape with that length) and, for
 * a vendor library's plans, the transform type, the batch and the slower
 * lengths of a multi-dimensional plan (its rank and outer); least
 * recently used first out past FFT_CACHE_PLANS, freed with the context. */
#include <pthread.h>
#include <stdlib.h>

#include "core/fft/fft_internal.h"

#define FFT_CACHE_PLANS 32

typedef struct fft_cache {
  pthread_mutex_t lock;
  fft_plan1d *head, *tail; /* most recently used first */
  int count;
} fft_cache;

static void *cache_make(kiln_context *ctx) {
  (void)ctx;
  fft_cache *c = calloc(1, sizeof *c);
  if (c) pthread_mutex_init(&c->lock, NULL);
  return c;
}

static void unlink_plan(fft_cache *c, fft_plan1d *p) {
  if (p->prev) p->prev->next = p->next;
  else c->head = p->next;
  if (p->next) p->next->prev = p->prev;
  else c->tail = p->prev;
  p->prev = p->next = NULL;
  c->count--;
}

static void push_front(fft_cache *c, fft_plan1d *p) {
  p->prev = NULL;
  p->next = c->head;
  if (c->head) c->head->prev = p;
  c->head = p;
  if (!c->tail) c->tail = p;
  c->count++;
}

static void cache_teardown(kiln_context *ctx) {
  fft_cache *c = atomic_exchange(&ctx->fft, NULL);
  if (!c) return;
  while (c->head) {
    fft_plan1d *p = c->head;
    unlink_plan(c, p);
    kiln_fft_plan1d_release(p);
  }
  pthread_mutex_destroy(&c->lock);
  free(c);
}

static int same_outer(const fft_plan1d *p, int rank, const int64_t *outer) {
  if (p->rank != rank) return 0;
  for (int d = 0; d + 1 < rank; d++)
    if (p->outer[d] != outer[d]) return 0;
  return 1;
}

static fft_plan1d *find(fft_cache *c, int64_t n, fft_precision precision, int vendor_type,
                        int64_t batch, int rank, const int64_t *outer) {
  for (fft_plan1d *p = c->head; p; p = p->next)
    if (p->n == n && p->precision == precision && (int)p->vendor_type == vendor_type &&
        (vendor_type == 0 || (p->batch == batch && same_outer(p, rank, outer)))) {
      unlink_plan(c, p);
      push_front(c, p);
      atomic_fetch_add(&p->refcount, 1);
      return p;
    }
  return NULL;
}

kiln_status kiln_fft_plan1d_get(kiln_context *ctx, int64_t n, fft_precision precision,
                                int vendor_type, int64_t batch, int rank,
                                const int64_t *outer, fft_plan1d **out) {
  *out = NULL;
  if (rank < 2) rank = 1;
  void *state = NULL;
  KILN_RETURN_IF_ERROR(kiln_context_state(ctx, &ctx->fft, cache_make, cache_teardown, &state));
  fft_cache *c = state;
  pthread_mutex_lock(&c->lock);
  *out = find(c, n, precision, vendor_type, batch, rank, outer);
  pthread_mutex_unlock(&c->lock);
  if (*out) return KILN_OK;
  /* made outside the lock: Bluestein's plan runs kernels (and gets its
   * sub-plan from this cache) */
  fft_plan1d *made = NULL;
  KILN_RETURN_IF_ERROR(
      kiln_fft_plan1d_make(ctx, n, precision, vendor_type, batch, rank, outer,
                           kiln_fft_plan1d_get, &made));
  fft_plan1d *evicted = NULL;
  pthread_mutex_lock(&c->lock);
  /* another thread may have made it meanwhile */
  *out = find(c, n, precision, vendor_type, batch, rank, outer);
  if (!*out) {
    atomic_fetch_add(&made->refcount, 1); /* the cache's reference */
    push_front(c, made);
    *out = made;
    made = NULL;
    if (c->count > FFT_CACHE_PLANS) {
      evicted = c->tail;
      unlink_plan(c, evicted);
    }
  }
  pthread_mutex_unlock(&c->lock);
  kiln_fft_plan1d_release(made);
  kiln_fft_plan1d_release(evicted);
  return KILN_OK;
}
