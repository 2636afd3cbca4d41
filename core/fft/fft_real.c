/* core/fft/fft_real.c: kiln's own rfft / irfft of an even length n through
 * one complex transform of n/2 (the portable path; odd lengths go through
 * a full complex transform in fft.c).
 *
 * r2c: the n real samples of a row are read as n/2 complex z_j = x_2j +
 * i x_2j+1 (the same bytes: the input is copied once into contiguous real
 * rows, which are complex rows of n/2), Z = FFT_{n/2}(z), then one pass
 * splits the even and odd halves' spectra, E_k = (Z_k + conj Z_{h-k}) / 2
 * and O_k = (Z_k - conj Z_{h-k}) / 2i (h = n/2, indices mod h), and joins
 * them: X_k = E_k + w^k O_k, w = exp(sign 2 pi i / n), k = 0..h.
 * c2r runs it backwards: Z_k = (X_k + conj X_{h-k}) + i w^k (X_k - conj
 * X_{h-k}) for k < h (the imaginary parts of X_0 and X_h ignored, as
 * NumPy's irfft reads them), the inverse FFT of h, and the complex rows
 * of h are the n real outputs. Half the transform's memory traffic and
 * arithmetic of the full-length complex transform of the real row. */
#include <string.h>

#include "core/codegen/elementwise.h"
#include "core/fft/fft_internal.h"

static kiln_backend_arg arg_of(const kiln_array *x) {
  return (kiln_backend_arg){.kind = KILN_BACKEND_ARG_BUFFER, .buffer = x->buffer->handle,
                            .offset = (uint64_t)x->offset};
}

/* A new contiguous complex array of `rows` (batch shape) x length, noted
 * as used on stream. */
static kiln_status rows_alloc(kiln_context *ctx, kiln_dtype cdt, int nd, const int64_t *batch,
                              int64_t length, kiln_stream *stream, kiln_array **out) {
  int64_t shape[KILN_MAX_DIMS];
  memcpy(shape, batch, (size_t)(nd - 1) * sizeof *shape);
  shape[nd - 1] = length;
  KILN_RETURN_IF_ERROR(kiln_array_alloc(ctx, cdt, nd, shape, out));
  kiln_status status = kiln_buffer_use_on_stream((*out)->buffer, stream);
  if (status != KILN_OK) {
    kiln_array_release(*out);
    *out = NULL;
  }
  return status;
}

/* Complex rows of h (contiguous) read as real rows of `length` <= 2h. */
static kiln_status real_rows(const kiln_array *rows, int64_t length, kiln_array **out) {
  const int nd = rows->ndim;
  const kiln_dtype real = rows->dtype == KILN_COMPLEX128 ? KILN_FLOAT64 : KILN_FLOAT32;
  int64_t shape[KILN_MAX_DIMS], strides[KILN_MAX_DIMS];
  memcpy(shape, rows->shape, (size_t)nd * sizeof *shape);
  memcpy(strides, rows->strides, (size_t)nd * sizeof *strides);
  shape[nd - 1] = length;
  strides[nd - 1] = (int64_t)kiln_dtype_size(real);
  return kiln_array_view_new(rows, real, nd, shape, strides, rows->offset, out);
}

/* dst <- src with both views' axis moved last (src cropped to `copied`
 * along it, dst's last axis too when crop_dst). */
static kiln_status copy_along(const kiln_array *src, int src_axis, kiln_array *dst,
                              int dst_axis, int64_t copied, int crop_dst, kiln_stream *stream) {
  kiln_array *from = NULL, *into = NULL;
  kiln_status status = kiln_fft_moved_view(src, src_axis, copied, 0, &from);
  if (status == KILN_OK)
    status = kiln_fft_moved_view(dst, dst_axis, crop_dst ? copied : -1, 0, &into);
  if (status == KILN_OK) status = kiln_ew_copy_on(into, from, stream);
  kiln_array_release(from);
  kiln_array_release(into);
  return status;
}

kiln_status kiln_fft_real_half_step(kiln_context *ctx, kiln_stream *stream,
                                    const fft_plan1d *half, int forward, int sign, double scale,
                                    const kiln_array *src, int axis, int64_t n,
                                    kiln_array *dst) {
  if (dst->size == 0) return KILN_OK;
  const kiln_dtype cdt = half->precision == FFT_DOUBLE ? KILN_COMPLEX128 : KILN_COMPLEX64;
  const int nd = src->ndim;
  const int64_t h = n / 2;
  int64_t batch_shape[KILN_MAX_DIMS], batch = 1;
  for (int d = 0, k = 0; d < nd; d++)
    if (d != axis) batch *= (batch_shape[k++] = src->shape[d]);
  const int64_t have = src->shape[axis], keep = forward ? n : h + 1;
  const int64_t copied = have < keep ? have : keep;
  static const uint64_t zero[2] = {0, 0};
  kiln_array *z = NULL, *spectrum = NULL, *real = NULL;
  /* z: the complex rows of h the transform runs on; spectrum: rows of
   * h + 1 (the r2c result, or the c2r input) */
  kiln_status status = rows_alloc(ctx, cdt, nd, batch_shape, h, stream, &z);
  if (status == KILN_OK) status = rows_alloc(ctx, cdt, nd, batch_shape, h + 1, stream, &spectrum);
  if (status == KILN_OK) status = real_rows(z, n, &real);
  kiln_array *in = forward ? real : spectrum;
  if (status == KILN_OK && copied < keep) status = kiln_ew_fill_on(in, zero, stream);
  if (status == KILN_OK && copied > 0)
    status = copy_along(src, axis, in, nd - 1, copied, 1, stream);
  kiln_backend_arg post[2] = {arg_of(z), arg_of(spectrum)}, pre[2] = {post[1], post[0]};
  if (forward) {
    if (status == KILN_OK) status = kiln_fft_plan1d_run(half, stream, sign, 1.0, batch, z);
    if (status == KILN_OK)
      status = kiln_fft_launch_helper(ctx, stream, half->precision, FFT_REAL_POST, 2, post, n,
                                      0, sign, scale, batch * (h + 1));
    if (status == KILN_OK) status = copy_along(spectrum, nd - 1, dst, axis, -1, 0, stream);
  } else {
    if (status == KILN_OK)
      status = kiln_fft_launch_helper(ctx, stream, half->precision, FFT_REAL_PRE, 2, pre, n, 0,
                                      sign, scale, batch * h);
    if (status == KILN_OK) status = kiln_fft_plan1d_run(half, stream, sign, 1.0, batch, z);
    if (status == KILN_OK) status = copy_along(real, nd - 1, dst, axis, -1, 0, stream);
  }
  kiln_array_release(real);
  kiln_array_release(spectrum);
  kiln_array_release(z);
  return status;
}
