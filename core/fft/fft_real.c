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

/* Contiguous rows read as rows of `length` elements of dtype (complex
 * rows of h as real rows of 2h, or the reverse): the same bytes. */
static kiln_status rows_as(const kiln_array *rows, kiln_dtype dtype, int64_t length,
                           kiln_array **out) {
  const int nd = rows->ndim;
  int64_t shape[KILN_MAX_DIMS], strides[KILN_MAX_DIMS];
  memcpy(shape, rows->shape, (size_t)nd * sizeof *shape);
  memcpy(strides, rows->strides, (size_t)nd * sizeof *strides);
  shape[nd - 1] = length;
  strides[nd - 1] = (int64_t)kiln_dtype_size(dtype);
  return kiln_array_view_new(rows, dtype, nd, shape, strides, rows->offset, out);
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

/* Whether a view (its axis moved last) can be the rows a kernel reads or
 * writes: contiguous, of dtype, aligned (OpenCL passes a view as a
 * sub-buffer, whose offset must be a multiple of the base alignment). */
static int usable_rows(const kiln_array *view, kiln_dtype dtype) {
  return view->dtype == dtype && kiln_array_is_contiguous(view) && view->offset % 256 == 0;
}

kiln_status kiln_fft_real_half_step(kiln_context *ctx, kiln_stream *stream,
                                    const fft_plan1d *half, int forward, int sign, double scale,
                                    const kiln_array *src, int axis, int64_t n,
                                    kiln_array *dst) {
  if (dst->size == 0) return KILN_OK;
  const int d = half->precision == FFT_DOUBLE;
  const kiln_dtype cdt = d ? KILN_COMPLEX128 : KILN_COMPLEX64, rdt = d ? KILN_FLOAT64 : KILN_FLOAT32;
  const int nd = src->ndim;
  const int64_t h = n / 2;
  int64_t batch_shape[KILN_MAX_DIMS], batch = 1;
  for (int k = 0, j = 0; k < nd; k++)
    if (k != axis) batch *= (batch_shape[j++] = src->shape[k]);
  const int64_t have = src->shape[axis], keep = forward ? n : h + 1;
  const int64_t copied = have < keep ? have : keep;
  const int apart = src->buffer != dst->buffer;
  static const uint64_t zero[2] = {0, 0};
  /* z: the complex rows of h the transform runs on (zin: its input);
   * spectrum: rows of h + 1 (the r2c result, or the c2r input); each the
   * caller's array where usable_rows, else from the pool */
  kiln_array *from = NULL, *into = NULL, *z = NULL, *zin = NULL, *spectrum = NULL, *view = NULL;
  kiln_status status = kiln_fft_moved_view(src, axis, copied, 0, &from);
  if (status == KILN_OK) status = kiln_fft_moved_view(dst, axis, -1, 0, &into);
  if (status != KILN_OK) goto cleanup;
  const int direct_in = apart && have == keep && usable_rows(from, forward ? rdt : cdt);
  const int direct_out = apart && usable_rows(into, forward ? cdt : rdt);
  /* the input rows */
  if (direct_in) {
    status = forward ? rows_as(from, cdt, h, &zin) : KILN_OK;
    if (!forward) spectrum = kiln_array_retain(from);
  } else {
    kiln_array **rows = forward ? &zin : &spectrum;
    status = rows_alloc(ctx, cdt, nd, batch_shape, forward ? h : h + 1, stream, rows);
    if (status == KILN_OK && forward) status = rows_as(zin, rdt, n, &view);
    kiln_array *in = forward ? view : spectrum;
    if (status == KILN_OK && copied < keep) status = kiln_ew_fill_on(in, zero, stream);
    if (status == KILN_OK && copied > 0)
      status = copy_along(src, axis, in, nd - 1, copied, 1, stream);
    kiln_array_release(view);
    view = NULL;
  }
  if (status != KILN_OK) goto cleanup;
  if (forward) {
    /* z: in place in the pool's rows, or out of the caller's input */
    if (direct_in) status = rows_alloc(ctx, cdt, nd, batch_shape, h, stream, &z);
    else z = kiln_array_retain(zin);
    if (status == KILN_OK) status = kiln_fft_plan1d_run_into(half, stream, sign, 1.0, batch, zin, z);
    if (status == KILN_OK && direct_out) spectrum = kiln_array_retain(into);
    else if (status == KILN_OK)
      status = rows_alloc(ctx, cdt, nd, batch_shape, h + 1, stream, &spectrum);
    if (status == KILN_OK) {
      kiln_backend_arg post[2] = {arg_of(z), arg_of(spectrum)};
      status = kiln_fft_launch_helper(ctx, stream, half->precision, FFT_REAL_POST, 2, post, n,
                                      0, sign, scale, batch * (h + 1));
    }
    if (status == KILN_OK && !direct_out)
      status = copy_along(spectrum, nd - 1, dst, axis, -1, 0, stream);
  } else {
    if (direct_out) status = rows_as(into, cdt, h, &z);
    else status = rows_alloc(ctx, cdt, nd, batch_shape, h, stream, &z);
    if (status == KILN_OK) {
      kiln_backend_arg pre[2] = {arg_of(spectrum), arg_of(z)};
      status = kiln_fft_launch_helper(ctx, stream, half->precision, FFT_REAL_PRE, 2, pre, n, 0,
                                      sign, scale, batch * h);
    }
    if (status == KILN_OK) status = kiln_fft_plan1d_run(half, stream, sign, 1.0, batch, z);
    if (status == KILN_OK && !direct_out) status = rows_as(z, rdt, n, &view);
    if (status == KILN_OK && !direct_out)
      status = copy_along(view, nd - 1, dst, axis, -1, 0, stream);
  }
cleanup:
  kiln_array_release(view);
  kiln_array_release(spectrum);
  kiln_array_release(zin);
  kiln_array_release(z);
  kiln_array_release(into);
  kiln_array_release(from);
  return status;
}
