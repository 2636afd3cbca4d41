/* core/array/array_internal.h: device buffers and array views (internal). */
#ifndef KILN_CORE_ARRAY_INTERNAL_H
#define KILN_CORE_ARRAY_INTERNAL_H

#include <stdatomic.h>

#include "core/runtime/context_internal.h"
#include "kiln/array.h"
#include "kiln/stream.h"

#define KILN_BUFFER_STREAMS 4

/* Device memory shared by every view of it. Holds a context reference.
 * The fields after `bytes` belong to the memory pool (core/array/
 * memory_pool.c) and are guarded by its lock. */
typedef struct kiln_buffer {
  atomic_int refcount;
  kiln_context *ctx;
  kiln_backend_buffer *handle; /* NULL when bytes == 0 */
  size_t bytes;
  size_t capacity;  /* bytes the backend allocated (the size class) */
  int cacheable;    /* returns to the pool's cache when released */
  int reused;       /* came from the cache: default-stream work may still use it */
  int nstreams;     /* other streams work was queued on, by id */
  int many_streams; /* more than KILN_BUFFER_STREAMS of them */
  uint64_t streams[KILN_BUFFER_STREAMS];
  /* Memory another library owns (kiln/interop.h): never pooled. */
  int wrapped;
  /* Wrapped memory: called after the handle is freed (may be NULL). */
  void (*release)(void *user_data);
  void *release_data;
} kiln_buffer;

/* Gives b device memory for `bytes` (> 0) from ctx's pool: b->handle,
 * capacity, cacheable, reused. Empties the cache and retries once when the
 * driver is out of memory. OUT_OF_MEMORY with the sizes on failure. */
kiln_status kiln_pool_acquire(kiln_context *ctx, kiln_buffer *b, size_t bytes);

/* Returns b's memory to the pool (or to the driver), by the stream rule of
 * kiln/memory.h. b itself stays the caller's. */
void kiln_pool_release(kiln_buffer *b);

/* Notes that work on `stream` (NULL: the default stream, nothing to note)
 * is about to use b; makes that stream wait for the default stream first
 * when b came from the cache. Call before queuing the work. */
kiln_status kiln_buffer_use_on_stream(kiln_buffer *b, kiln_stream *stream);

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

/* Writes v as one element of float dtype `to` (float16, float32, float64;
 * each rounded once from the double) into out, little-endian, the rest of
 * the 8 bytes zero. The one host conversion of scalars to float dtypes. */
void kiln_dtype_float_bytes(kiln_dtype to, double v, unsigned char out[8]);

/* The most bytes one scalar of any dtype takes (complex128). */
#define KILN_SCALAR_BYTES 16

/* Writes re + im*i as one element of complex dtype `to` (each part rounded
 * once to the component's precision) into out, the rest zero. */
void kiln_dtype_complex_bytes(kiln_dtype to, double re, double im,
                              unsigned char out[KILN_SCALAR_BYTES]);

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

/* Copies `bytes` between pageable host memory and buffer (at offset)
 * through the context's pinned staging, in parallel lanes that overlap the
 * host's copies with the DMA, ordered after the default stream's queued
 * work and finished on return. Sets *done = 0 and does nothing when the
 * transfer is too small to gain, the backend has no pinned memory or the
 * staging is busy: the caller then copies directly. */
kiln_status kiln_host_staged_copy(kiln_context *ctx, int to_device, kiln_backend_buffer *buffer,
                                  uint64_t offset, void *host, size_t bytes, int *done);

/* Copies between host memory (any byte strides) and a host staging area in
 * C order: the N-d loop shared by from_host and to_host. to_c_order nonzero
 * gathers strided -> dense, zero scatters dense -> strided. */
void kiln_host_strided_copy(int to_c_order, void *dense, void *strided,
                            const int64_t *strided_strides, int ndim,
                            const int64_t *shape, size_t itemsize);

#endif
