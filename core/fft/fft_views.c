/* core/fft/fft_views.c: the views the FFT steps transform: a caller's
 * array with its transformed axes moved last (cropped, or its real parts),
 * shared by the complex steps (fft.c) and the real ones (fft_real.c). */
#include "core/fft/fft_internal.h"

kiln_status kiln_fft_moved_view_n(const kiln_array *x, int count, const int *axes,
                                  const int64_t *lengths, int as_real, kiln_array **out) {
  int nd = x->ndim, k = 0, moved[KILN_MAX_DIMS] = {0};
  int64_t shape[KILN_MAX_DIMS], strides[KILN_MAX_DIMS];
  for (int j = 0; j < count; j++) moved[axes[j]] = 1;
  for (int d = 0; d < nd; d++)
    if (!moved[d]) shape[k] = x->shape[d], strides[k++] = x->strides[d];
  for (int j = 0; j < count; j++, k++) {
    shape[k] = lengths && lengths[j] >= 0 ? lengths[j] : x->shape[axes[j]];
    strides[k] = x->strides[axes[j]];
  }
  kiln_dtype dtype = x->dtype;
  if (as_real) dtype = x->dtype == KILN_COMPLEX128 ? KILN_FLOAT64 : KILN_FLOAT32;
  return kiln_array_view_new(x, dtype, nd, shape, strides, x->offset, out);
}

kiln_status kiln_fft_moved_view(const kiln_array *x, int axis, int64_t length, int as_real,
                                kiln_array **out) {
  return kiln_fft_moved_view_n(x, 1, &axis, &length, as_real, out);
}
