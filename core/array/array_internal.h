/* core/array/array_internal.h: device buffers and array views (internal). */
#ifndef KILN_CORE_ARRAY_INTERNAL_H
#define KILN_CORE_ARRAY_INTERNAL_H

#include <stdatomic.h>

#include "core/runtime/context_internal.h"
#include "kiln/array.h"

/* Device memory shared by every view of it. Holds a context reference. */
typedef struct kiln_buffer {
  atomic_int refcount;
  kiln_context *ctx;
  kiln_backend_buffer *handle; /* NULL when bytes == 0 */
  size_t bytes;
  /* Wrapped memory (kiln/interop.h): called after the handle is freed. */
  void (*release)(void *user_data);
  void *release_data;
} kiln_buffer;

struct kiln_array {
  atomic_int refcount;
  kiln_buffer *buffer;
  kiln_dtype dtype;
  int ndim;
  int64_t shape[KILN_MAX_DIMS];
  int64_t strides[KILN_MAX_DIMS]; /* bytes */
  int64_t offset;                 /* bytes from the start of buffer */
  int64_t size;                   /* product of shape */
};

/* Checks ndim/shape/dtype and computes the element count, rejecting
 * negative extents and products or byte sizes that overflow int64. */
kiln_status kiln_shape_validate(kiln_dtype dtype, int ndim, const int64_t *shape,
                                int64_t *size);

/* The lowest and highest byte offsets, relative to element 0,..,0, of the
 * first byte of any element of a view with size > 0; OUT_OF_RANGE when
 * they overflow 64 bits. */
kiln_status kiln_view_extent(int ndim, const int64_t *shape, const int64_t *strides,
                             int64_t *low, int64_t *high);

/* Fills C-order byte strides for shape. */
void kiln_shape_c_strides(int ndim, const int64_t *shape, int64_t itemsize,
                          int64_t *strides);

/* New C-contiguous array on a fresh buffer (contents undefined). */
kiln_status kiln_array_alloc(kiln_context *ctx, kiln_dtype dtype, int ndim,
                             const int64_t *shape, kiln_array **out);

/* New array over `handle` (NULL when bytes == 0), a backend buffer of
 * `bytes`, allocated by kiln or wrapping another library's memory: the array
 * takes it over on success (freed with buffer_free when the last view goes;
 * then, for wrapped memory, release(release_data) is called after the
 * default stream is drained; release may be NULL); on failure the caller
 * keeps both. Geometry is not checked against bytes (the caller did). */
kiln_status kiln_array_adopt(kiln_context *ctx, kiln_backend_buffer *handle, size_t bytes,
                             void (*release)(void *), void *release_data, kiln_dtype dtype,
                             int ndim, const int64_t *shape, const int64_t *strides,
                             int64_t offset, kiln_array **out);

/* New view of base's buffer with the given geometry (no bounds check: the
 * caller derived it from base). */
kiln_status kiln_array_view_new(const kiln_array *base, kiln_dtype dtype, int ndim,
                                const int64_t *shape, const int64_t *strides,
                                int64_t offset, kiln_array **out);

/* Copies between host memory (any byte strides) and a host staging area in
 * C order: the N-d loop shared by from_host and to_host. to_c_order nonzero
 * gathers strided -> dense, zero scatters dense -> strided. */
void kiln_host_strided_copy(int to_c_order, void *dense, void *strided,
                            const int64_t *strided_strides, int ndim,
                            const int64_t *shape, size_t itemsize);

#endif
