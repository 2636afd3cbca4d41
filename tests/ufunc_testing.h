/* tests/ufunc_testing.h: helpers shared by the ufunc conformance tests:
 * host mirrors of device views (so references read exactly the elements a
 * view names) and the N-d index walk of a broadcast shape. */
#ifndef KILN_TESTS_UFUNC_TESTING_H
#define KILN_TESTS_UFUNC_TESTING_H

#include "harness.h"

/* A host picture of one operand: its element 0, dtype, shape, byte
 * strides. Reads broadcast to a larger shape by NumPy's rules. */
typedef struct mirror {
  char *data;
  kiln_dtype dtype;
  int ndim;
  int64_t shape[KILN_MAX_DIMS];
  int64_t strides[KILN_MAX_DIMS];
} mirror;

/* Byte offset of the broadcast index idx (of a shape with bndim dims). */
static inline int64_t mirror_offset(const mirror *m, int bndim, const int64_t *idx) {
  int64_t off = 0;
  for (int d = 0; d < m->ndim; d++) {
    int64_t i = idx[bndim - m->ndim + d];
    if (m->shape[d] != 1) off += i * m->strides[d];
  }
  return off;
}

static inline double mirror_get(const mirror *m, int bndim, const int64_t *idx) {
  return harness_get(m->data + mirror_offset(m, bndim, idx), m->dtype, 0);
}

/* Mirror of a device view: copies its whole buffer base (the view's base
 * array `base`, C-contiguous) into *storage and points into it. */
static inline mirror mirror_of_view(const kiln_array *base, const kiln_array *view,
                                    char **storage) {
  mirror m;
  memset(&m, 0, sizeof m);
  *storage = malloc((size_t)kiln_array_nbytes(base) + 16);
  kiln_status s = kiln_array_to_host(base, *storage, NULL);
  if (s != KILN_OK)
    harness_fail(__FILE__, __LINE__, "to_host: %s", kiln_last_error());
  m.data = *storage + kiln_array_offset(view);
  m.dtype = kiln_array_dtype(view);
  m.ndim = kiln_array_ndim(view);
  for (int d = 0; d < m.ndim; d++) {
    m.shape[d] = kiln_array_shape(view)[d];
    m.strides[d] = kiln_array_strides(view)[d];
  }
  return m;
}

/* Mirror of host memory with C-order strides. */
static inline mirror mirror_of_host(void *data, kiln_dtype dtype, int ndim,
                                    const int64_t *shape) {
  mirror m;
  memset(&m, 0, sizeof m);
  m.data = data;
  m.dtype = dtype;
  m.ndim = ndim;
  int64_t stride = (int64_t)kiln_dtype_size(dtype);
  for (int d = ndim - 1; d >= 0; d--) {
    m.shape[d] = shape[d];
    m.strides[d] = stride;
    stride *= shape[d] > 0 ? shape[d] : 1;
  }
  return m;
}

/* Steps a C-order multi-index; 0 when the walk is over. */
static inline int index_next(int ndim, const int64_t *shape, int64_t *idx) {
  for (int d = ndim - 1; d >= 0; d--) {
    if (++idx[d] < shape[d]) return 1;
    idx[d] = 0;
  }
  return 0;
}

static inline int64_t shape_size(int ndim, const int64_t *shape) {
  int64_t n = 1;
  for (int d = 0; d < ndim; d++) n *= shape[d];
  return n;
}

/* A device array of random values of dtype in [lo, hi). */
static inline kiln_array *random_array(kiln_context *ctx, kiln_dtype dtype, int ndim,
                                       const int64_t *shape, double lo, double hi) {
  int64_t n = shape_size(ndim, shape);
  void *host = malloc((size_t)n * kiln_dtype_size(dtype) + 16);
  harness_fill_random(host, dtype, n, lo, hi);
  kiln_array *a = NULL;
  kiln_status s = kiln_array_from_host(ctx, dtype, ndim, shape, NULL, host, &a);
  if (s != KILN_OK) harness_fail(__FILE__, __LINE__, "from_host: %s", kiln_last_error());
  free(host);
  return a;
}

#endif
