/* core/ufunc/ufunc_host_copy.c: packing host operands into staging buffers and
 * unpacking results, for the ufunc host path.
 *
 * One thread's memcpy (about 10 GB/s) is slower than the DMA it feeds, so
 * boxes of a megabyte or more are cut into parts copied by a small pool of
 * threads that the staging keeps between calls (starting threads per box
 * cost more than the copy at 4 MiB chunks). The calling thread copies a
 * part too, so a pool whose threads failed to start only costs speed. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/ufunc/ufunc_internal.h"

#define PARALLEL_COPY_BYTES ((int64_t)1 << 20)
#define MAX_COPY_PARTS 8

/* Dims the strided side walks as one are merged first, so a contiguous box
 * is one memcpy and a strided column a tight loop. */
static void host_copy(int to_dense, char *dense, char *strided, const int64_t *strides,
                      int ndim, const int64_t *shape, size_t itemsize) {
  int64_t ms[KILN_MAX_DIMS], mt[KILN_MAX_DIMS];
  int m = 0;
  for (int d = 0; d < ndim; d++) {
    if (shape[d] == 1) continue;
    if (m > 0 && mt[m - 1] == strides[d] * shape[d]) {
      ms[m - 1] *= shape[d];
      mt[m - 1] = strides[d];
    } else {
      ms[m] = shape[d];
      mt[m++] = strides[d];
    }
  }
  if (m == 0) {
    memcpy(to_dense ? dense : strided, to_dense ? strided : dense, itemsize);
    return;
  }
  int64_t inner = ms[m - 1], step = mt[m - 1];
  int64_t index[KILN_MAX_DIMS] = {0};
  for (;;) {
    if (step == (int64_t)itemsize) {
      size_t bytes = (size_t)inner * itemsize;
      memcpy(to_dense ? dense : strided, to_dense ? strided : dense, bytes);
      dense += bytes;
    } else {
      char *p = strided;
#define COPY_ROW(size)                                             \
  for (int64_t i = 0; i < inner; i++, p += step, dense += (size)) \
    memcpy(to_dense ? dense : p, to_dense ? p : dense, (size))
      switch (itemsize) {
        case 1: COPY_ROW(1); break;
        case 2: COPY_ROW(2); break;
        case 4: COPY_ROW(4); break;
        case 8: COPY_ROW(8); break;
        default: COPY_ROW(itemsize); break; /* complex128: 16 */
      }
#undef COPY_ROW
    }
    int d = m - 2;
    for (; d >= 0; d--) {
      strided += mt[d];
      if (++index[d] < ms[d]) break;
      strided -= mt[d] * ms[d];
      index[d] = 0;
    }
    if (d < 0) return;
  }
}

typedef struct copy_part {
  int to_dense;
  char *dense, *strided;
  const int64_t *strides;
  int ndim;
  int64_t shape[KILN_MAX_DIMS];
  size_t itemsize;
} copy_part;

static void copy_part_run(const copy_part *c) {
  host_copy(c->to_dense, c->dense, c->strided, c->strides, c->ndim, c->shape, c->itemsize);
}

/* Parts of the current batch are taken in order by the workers and the
 * caller; `finished` counts those done. */
struct kiln_copy_pool {
  pthread_mutex_t lock;
  pthread_cond_t work, done;
  copy_part parts[MAX_COPY_PARTS];
  int nparts, next, finished, stop;
  int nthreads;
  pthread_t threads[MAX_COPY_PARTS];
};

static void *worker_main(void *arg) {
  kiln_copy_pool *pool = arg;
  pthread_mutex_lock(&pool->lock);
  for (;;) {
    while (!pool->stop && pool->next >= pool->nparts) pthread_cond_wait(&pool->work, &pool->lock);
    if (pool->stop) break;
    int i = pool->next++;
    pthread_mutex_unlock(&pool->lock);
    copy_part_run(&pool->parts[i]);
    pthread_mutex_lock(&pool->lock);
    if (++pool->finished == pool->nparts) pthread_cond_signal(&pool->done);
  }
  pthread_mutex_unlock(&pool->lock);
  return NULL;
}

void kiln_copy_pool_free(kiln_copy_pool *pool) {
  if (!pool) return;
  pthread_mutex_lock(&pool->lock);
  pool->stop = 1;
  pthread_cond_broadcast(&pool->work);
  pthread_mutex_unlock(&pool->lock);
  for (int t = 0; t < pool->nthreads; t++) pthread_join(pool->threads[t], NULL);
  pthread_cond_destroy(&pool->work);
  pthread_cond_destroy(&pool->done);
  pthread_mutex_destroy(&pool->lock);
  free(pool);
}

static kiln_copy_pool *pool_create(int workers) {
  kiln_copy_pool *pool = calloc(1, sizeof *pool);
  if (!pool) return NULL;
  pthread_mutex_init(&pool->lock, NULL);
  pthread_cond_init(&pool->work, NULL);
  pthread_cond_init(&pool->done, NULL);
  for (int t = 0; t < workers; t++) {
    if (pthread_create(&pool->threads[pool->nthreads], NULL, worker_main, pool) != 0) break;
    pool->nthreads++;
  }
  return pool;
}

/* Runs the parts on the pool's threads and this one; returns when all are
 * done. */
static void pool_run(kiln_copy_pool *pool, const copy_part *parts, int n) {
  pthread_mutex_lock(&pool->lock);
  memcpy(pool->parts, parts, (size_t)n * sizeof *parts);
  pool->nparts = n;
  pool->next = 0;
  pool->finished = 0;
  pthread_cond_broadcast(&pool->work);
  while (pool->next < pool->nparts) {
    int i = pool->next++;
    pthread_mutex_unlock(&pool->lock);
    copy_part_run(&pool->parts[i]);
    pthread_mutex_lock(&pool->lock);
    pool->finished++;
  }
  while (pool->finished < pool->nparts) pthread_cond_wait(&pool->done, &pool->lock);
  pool->nparts = pool->next = pool->finished = 0;
  pthread_mutex_unlock(&pool->lock);
}

void kiln_host_box_copy(kiln_copy_pool **pool, int to_dense, char *dense, char *strided,
                        const int64_t *strides, int ndim, const int64_t *shape,
                        size_t itemsize) {
  int d0 = 0;
  while (d0 < ndim && shape[d0] == 1) d0++;
  int64_t inner = (int64_t)itemsize;
  for (int d = d0 + 1; d < ndim; d++) inner *= shape[d];
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  int parts = cpus < 1 ? 1 : cpus > MAX_COPY_PARTS ? MAX_COPY_PARTS : (int)cpus;
  if (d0 == ndim || shape[d0] * inner < PARALLEL_COPY_BYTES) parts = 1;
  if (parts > 1 && shape[d0] < parts) parts = (int)shape[d0];
  if (parts > 1 && !*pool) *pool = pool_create(parts - 1);
  if (parts <= 1 || !*pool || (*pool)->nthreads == 0) {
    host_copy(to_dense, dense, strided, strides, ndim, shape, itemsize);
    return;
  }
  /* the box cut along its first dim of extent > 1 */
  copy_part part[MAX_COPY_PARTS];
  for (int p = 0; p < parts; p++) {
    int64_t lo = shape[d0] * p / parts, hi = shape[d0] * (p + 1) / parts;
    copy_part *c = &part[p];
    c->to_dense = to_dense;
    c->dense = dense + lo * inner;
    c->strided = strided + lo * strides[d0];
    c->strides = strides;
    c->ndim = ndim;
    memcpy(c->shape, shape, (size_t)ndim * sizeof *shape);
    c->shape[d0] = hi - lo;
    c->itemsize = itemsize;
  }
  pool_run(*pool, part, parts);
}
