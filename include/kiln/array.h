/* kiln/array.h: device arrays and views.
 *
 * A kiln_array is a dtype, a shape, byte strides and a byte offset into a
 * refcounted device buffer. Views (slice, index, transpose, reshape,
 * broadcast) share the buffer of the array they come from and keep it alive.
 * Arrays are refcounted: every function returning a kiln_array** gives the
 * caller one reference, to be dropped with kiln_array_release(). Shapes,
 * strides and indices are 64-bit. Strides are in bytes, as in NumPy, and may
 * be negative or zero (broadcast). Transfers and device work are ordered on
 * the context's default stream; functions that read into host memory return
 * when the data is there. */
#ifndef KILN_ARRAY_H
#define KILN_ARRAY_H

#include <stdint.h>
#include "kiln/context.h"
#include "kiln/dtype.h"
#include "kiln/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KILN_MAX_DIMS 16

typedef struct kiln_array kiln_array;

/* ---- creation ---------------------------------------------------------- */

/* New C-contiguous array with uninitialised contents. ndim may be 0 (a
 * scalar array of one element); a zero extent gives an empty array.
 * Errors: INVALID_ARGUMENT (bad dtype, ndim, negative extent),
 * OUT_OF_RANGE (byte size overflows), OUT_OF_MEMORY. */
KILN_API kiln_status kiln_array_empty(kiln_context *ctx, kiln_dtype dtype, int ndim,
                             const int64_t *shape, kiln_array **out);

/* As kiln_array_empty, every element zero. */
KILN_API kiln_status kiln_array_zeros(kiln_context *ctx, kiln_dtype dtype, int ndim,
                             const int64_t *shape, kiln_array **out);

/* As kiln_array_empty, every element equal to *value, which points to one
 * element of `dtype` in host memory. */
KILN_API kiln_status kiln_array_full(kiln_context *ctx, kiln_dtype dtype, int ndim,
                            const int64_t *shape, const void *value,
                            kiln_array **out);

/* New C-contiguous device array holding a copy of host data. host_strides
 * (bytes, one per dim, may be negative) describe the host layout; NULL means
 * C order. The host memory is read before the call returns. */
KILN_API kiln_status kiln_array_from_host(kiln_context *ctx, kiln_dtype dtype, int ndim,
                                 const int64_t *shape,
                                 const int64_t *host_strides,
                                 const void *host_data, kiln_array **out);

/* Copies the array's elements to host memory laid out by host_strides
 * (bytes; NULL = C order), waiting for queued work first. Any view works. */
KILN_API kiln_status kiln_array_to_host(const kiln_array *array, void *host_data,
                               const int64_t *host_strides);

/* New C-contiguous array with a copy of `array` (any view), done on the
 * device. */
KILN_API kiln_status kiln_array_copy(const kiln_array *array, kiln_array **out);

/* Copies src into dst element-wise on the device, broadcasting src to dst's
 * shape and casting to dst's dtype (NumPy's "unsafe" casting, as
 * numpy.copyto(casting='unsafe')). Any views. Errors: INVALID_ARGUMENT when
 * the shapes do not broadcast or the contexts differ. */
KILN_API kiln_status kiln_array_copy_into(kiln_array *dst, const kiln_array *src);

/* New contiguous array with the elements of `array` cast to `dtype`. */
KILN_API kiln_status kiln_array_astype(const kiln_array *array, kiln_dtype dtype,
                              kiln_array **out);

/* Adds a reference; returns array. */
KILN_API kiln_array *kiln_array_retain(kiln_array *array);

/* Drops a reference; NULL is ignored. The buffer is freed with its last
 * view. */
KILN_API void kiln_array_release(kiln_array *array);

/* ---- views --------------------------------------------------------------- */

/* KILN_NONE in a kiln_slice field means "not given", as an empty field in
 * Python's a[start:stop:step]. */
#define KILN_NONE INT64_MIN

typedef struct kiln_slice {
  int64_t start, stop, step; /* Python semantics; step 0 is an error */
} kiln_slice;

/* The whole axis: a[:]. */
#define KILN_SLICE_ALL ((kiln_slice){KILN_NONE, KILN_NONE, KILN_NONE})

/* View array[s0, s1, ...] with one slice per dimension (nslices <= ndim;
 * missing trailing dims are taken whole). Negative start/stop count from
 * the end and are clamped as in Python; negative steps reverse.
 * Errors: INVALID_ARGUMENT for step 0 or too many slices. */
KILN_API kiln_status kiln_array_slice(const kiln_array *array, int nslices,
                             const kiln_slice *slices, kiln_array **out);

/* View with axis `axis` removed by taking element `index` along it
 * (negative counts from the end), as a[..., index, ...].
 * Errors: INVALID_ARGUMENT for a bad axis, OUT_OF_RANGE for a bad index. */
KILN_API kiln_status kiln_array_index(const kiln_array *array, int axis, int64_t index,
                             kiln_array **out);

/* View with permuted axes: axes[i] is the source axis of result axis i.
 * axes NULL reverses the axes (a.T). */
KILN_API kiln_status kiln_array_transpose(const kiln_array *array, const int *axes,
                                 kiln_array **out);

/* View with a new shape of the same size; one extent may be -1 (inferred).
 * Errors: INVALID_ARGUMENT when the sizes differ or the array is not
 * C-contiguous (copy it first). */
KILN_API kiln_status kiln_array_reshape(const kiln_array *array, int ndim,
                               const int64_t *shape, kiln_array **out);

/* View broadcast to `shape` by NumPy's rules (zero strides for stretched
 * dims). Errors: INVALID_ARGUMENT when the shapes are not compatible. */
KILN_API kiln_status kiln_array_broadcast_to(const kiln_array *array, int ndim,
                                    const int64_t *shape, kiln_array **out);

/* ---- properties (never fail; borrowed pointers live as long as array) ---- */

KILN_API kiln_context *kiln_array_context(const kiln_array *array);
KILN_API kiln_dtype kiln_array_dtype(const kiln_array *array);
KILN_API int kiln_array_ndim(const kiln_array *array);
KILN_API const int64_t *kiln_array_shape(const kiln_array *array);
KILN_API const int64_t *kiln_array_strides(const kiln_array *array); /* bytes */
KILN_API int64_t kiln_array_offset(const kiln_array *array);         /* bytes */
KILN_API int64_t kiln_array_size(const kiln_array *array);           /* elements */
KILN_API int64_t kiln_array_nbytes(const kiln_array *array);         /* size * itemsize */
KILN_API int kiln_array_is_contiguous(const kiln_array *array);      /* C order */

/* ---- one element as a C scalar (NumPy's .item()) -------------------------- */

/* The element of an array of size 1 (0-d, or any shape of one element,
 * any view), waiting for queued work first: kiln_array_item writes it in
 * the array's dtype (kiln_dtype_size bytes: a float16 as its uint16_t bits,
 * a complex as its two parts); _float64 converts a real dtype to double
 * (int64 beyond 2^53 rounds, as float(x)); _int64 takes bool and integer
 * dtypes. Errors: INVALID_ARGUMENT (NULL, size other than 1: "can only
 * convert an array of size 1", a complex array for _float64, a float one
 * for _int64), OUT_OF_RANGE (a uint64 above INT64_MAX for _int64), errors
 * of kiln_array_to_host. */
KILN_API kiln_status kiln_array_item(const kiln_array *array, void *value);
KILN_API kiln_status kiln_array_item_float64(const kiln_array *array, double *value);
KILN_API kiln_status kiln_array_item_int64(const kiln_array *array, int64_t *value);

#ifdef __cplusplus
}
#endif
#endif
