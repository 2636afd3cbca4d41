/* core/array/array_view.c: slice, index, transpose, reshape and broadcast views.
 * Each derives a new geometry over the same buffer; none copies data. */
#include <string.h>

#include "core/array/array_internal.h"
#include "core/runtime/error.h"

/* Python's slice.indices(): resolves start/stop for a given step and
 * length, clamping as Python does, and returns the resulting count. */
static int64_t slice_resolve(int64_t length, int64_t step, int64_t *start, int64_t *stop) {
  int64_t lower = step < 0 ? -1 : 0;
  int64_t upper = step < 0 ? length - 1 : length;
  int64_t *ends[2] = {start, stop};
  for (int k = 0; k < 2; k++) {
    int64_t *v = ends[k];
    if (*v == KILN_NONE) {
      *v = (k == 0) == (step > 0) ? lower : upper;
      continue;
    }
    if (*v < 0) {
      *v += length;
      if (*v < lower) *v = lower;
    } else if (*v > upper) {
      *v = upper;
    }
  }
  /* *stop now equals lower or upper when it was missing */
  if (step > 0) return *start < *stop ? (*stop - *start - 1) / step + 1 : 0;
  return *stop < *start ? (*start - *stop - 1) / (-step) + 1 : 0;
}

kiln_status kiln_array_slice(const kiln_array *a, int nslices, const kiln_slice *slices,
                             kiln_array **out) {
  KILN_CHECK_ARG(a);
  KILN_CHECK_ARG(out);
  *out = NULL;
  if (nslices < 0 || nslices > a->ndim)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "%d slices given for an array of %d dims", nslices, a->ndim);
  if (nslices > 0 && !slices)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "slices is NULL");
  int64_t shape[KILN_MAX_DIMS], strides[KILN_MAX_DIMS];
  int64_t offset = a->offset;
  for (int d = 0; d < a->ndim; d++) {
    shape[d] = a->shape[d];
    strides[d] = a->strides[d];
    if (d >= nslices) continue;
    int64_t step = slices[d].step == KILN_NONE ? 1 : slices[d].step;
    if (step == 0)
      return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "slice step of axis %d is zero", d);
    if (step == INT64_MIN)
      return kiln_error_set(KILN_ERROR_OUT_OF_RANGE, "slice step of axis %d too large", d);
    int64_t start = slices[d].start, stop = slices[d].stop;
    int64_t count = slice_resolve(a->shape[d], step, &start, &stop);
    shape[d] = count;
    strides[d] = a->strides[d] * step;
    if (count > 0) offset += start * a->strides[d];
  }
  return kiln_array_view_new(a, a->dtype, a->ndim, shape, strides, offset, out);
}

kiln_status kiln_array_index(const kiln_array *a, int axis, int64_t index, kiln_array **out) {
  KILN_CHECK_ARG(a);
  KILN_CHECK_ARG(out);
  *out = NULL;
  if (axis < 0) axis += a->ndim;
  if (axis < 0 || axis >= a->ndim)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "axis out of range for an array of %d dims", a->ndim);
  int64_t extent = a->shape[axis];
  if (index < -extent || index >= extent)
    return kiln_error_set(KILN_ERROR_OUT_OF_RANGE,
                          "index %lld is out of bounds for axis %d with size %lld",
                          (long long)index, axis, (long long)extent);
  if (index < 0) index += extent;
  int64_t shape[KILN_MAX_DIMS], strides[KILN_MAX_DIMS];
  int n = 0;
  for (int d = 0; d < a->ndim; d++) {
    if (d == axis) continue;
    shape[n] = a->shape[d];
    strides[n++] = a->strides[d];
  }
  return kiln_array_view_new(a, a->dtype, n, shape, strides,
                             a->offset + index * a->strides[axis], out);
}

kiln_status kiln_array_transpose(const kiln_array *a, const int *axes, kiln_array **out) {
  KILN_CHECK_ARG(a);
  KILN_CHECK_ARG(out);
  *out = NULL;
  int64_t shape[KILN_MAX_DIMS], strides[KILN_MAX_DIMS];
  int seen[KILN_MAX_DIMS] = {0};
  for (int d = 0; d < a->ndim; d++) {
    int src = axes ? axes[d] : a->ndim - 1 - d;
    if (src < 0) src += a->ndim;
    if (src < 0 || src >= a->ndim || seen[src])
      return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                            "axes is not a permutation of 0..%d (axes[%d] = %d)",
                            a->ndim - 1, d, axes ? axes[d] : src);
    seen[src] = 1;
    shape[d] = a->shape[src];
    strides[d] = a->strides[src];
  }
  return kiln_array_view_new(a, a->dtype, a->ndim, shape, strides, a->offset, out);
}

kiln_status kiln_array_reshape(const kiln_array *a, int ndim, const int64_t *shape,
                               kiln_array **out) {
  KILN_CHECK_ARG(a);
  KILN_CHECK_ARG(out);
  *out = NULL;
  if (ndim < 0 || ndim > KILN_MAX_DIMS || (ndim > 0 && !shape))
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "bad reshape target: ndim %d", ndim);
  int64_t resolved[KILN_MAX_DIMS];
  int infer = -1;
  int64_t known = 1;
  for (int d = 0; d < ndim; d++) {
    resolved[d] = shape[d];
    if (shape[d] == -1) {
      if (infer >= 0)
        return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "more than one -1 in reshape");
      infer = d;
      continue;
    }
    if (shape[d] < 0)
      return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "shape[%d] = %lld is negative", d,
                            (long long)shape[d]);
    if (shape[d] != 0 && known > INT64_MAX / shape[d])
      return kiln_error_set(KILN_ERROR_OUT_OF_RANGE, "reshape size overflows 64 bits");
    known *= shape[d];
  }
  if (infer >= 0) {
    if (known == 0 || a->size % known != 0)
      return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                            "cannot infer the -1 extent: size %lld over %lld",
                            (long long)a->size, (long long)known);
    resolved[infer] = a->size / known;
    known = a->size;
  }
  if (known != a->size)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "cannot reshape an array of size %lld into size %lld",
                          (long long)a->size, (long long)known);
  if (!kiln_array_is_contiguous(a))
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "reshape needs a C-contiguous array; copy the view first "
                          "(kiln_array_copy)");
  int64_t strides[KILN_MAX_DIMS];
  kiln_shape_c_strides(ndim, resolved, (int64_t)kiln_dtype_size(a->dtype), strides);
  return kiln_array_view_new(a, a->dtype, ndim, resolved, strides, a->offset, out);
}

kiln_status kiln_array_broadcast_to(const kiln_array *a, int ndim, const int64_t *shape,
                                    kiln_array **out) {
  KILN_CHECK_ARG(a);
  KILN_CHECK_ARG(out);
  *out = NULL;
  int64_t size;
  KILN_RETURN_IF_ERROR(kiln_shape_validate(a->dtype, ndim, shape, &size));
  if (ndim < a->ndim)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "cannot broadcast %d dims to fewer (%d)", a->ndim, ndim);
  int64_t strides[KILN_MAX_DIMS];
  int lead = ndim - a->ndim;
  for (int d = 0; d < ndim; d++) {
    int src = d - lead;
    if (src < 0) {
      strides[d] = 0;
    } else if (a->shape[src] == shape[d]) {
      strides[d] = a->strides[src];
    } else if (a->shape[src] == 1) {
      strides[d] = 0;
    } else {
      return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                            "cannot broadcast axis %d of extent %lld to %lld", src,
                            (long long)a->shape[src], (long long)shape[d]);
    }
  }
  return kiln_array_view_new(a, a->dtype, ndim, shape, strides, a->offset, out);
}
