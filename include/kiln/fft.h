/* kiln/fft.h: discrete Fourier transforms with numpy.fft's semantics
 * (docs/fft.md).
 *
 * kiln_fft, kiln_ifft, kiln_rfft, kiln_irfft transform along one axis;
 * the 2-D and N-D forms along several (by default the last two, or all).
 * As NumPy:
 * - n / s: the transform length along each axis; the input is cropped or
 *   zero-padded to it (irfft: to n/2 + 1 complex points). KILN_FFT_DEFAULT
 *   means NumPy's None: the input's length (irfft: 2 (length - 1)). A
 *   length below 1 is an error, as is an input of length 0 with the
 *   default (NumPy's "Invalid number of FFT data points (0)").
 * - axis / axes: negative counts from the end. axes NULL: the last
 *   len(s) axes when s is given, else every axis (the last two for the 2-D
 *   forms). An axis may repeat (transformed again, as NumPy does).
 * - norm: "backward" (or NULL: no scale forward, 1/n inverse), "ortho"
 *   (1/sqrt(n) both ways), "forward" (1/n forward, none inverse).
 * - dtypes: complex64 and complex128 transform in their precision;
 *   float32 and float16 give complex64, float64, integers and bool give
 *   complex128. rfft takes real inputs only (complex is INVALID_ARGUMENT,
 *   NumPy's TypeError); irfft gives float32 from complex64/float32,
 *   float16 from float16, float64 otherwise.
 * - Operands as the ufuncs' (kiln/ufunc.h): the input a is a device array
 *   of ctx (any view: negative and zero strides) or host memory
 *   (kiln_operand_host, any byte strides), uploaded by the call; any batch
 *   dims. out is kiln_operand_new(&result) (a new C-contiguous device
 *   array; NULL on failure), a device array or host memory
 *   (kiln_operand_host_output) of exactly the result's shape and dtype
 *   (any strides; a device out no zero stride), which gets it.
 * - stream: the work is queued on it (NULL: the default stream) and the
 *   call returns before it is done, as any kernel launch; with a host out
 *   the call returns when it is written.
 *
 * The transform is the backend's vendor library where one loads (cuFFT,
 * hipFFT, clFFT; 2 or 3 trailing axes of the complex forms and rfftn as
 * one multi-dimensional transform), else kiln's own (Stockham auto-sort
 * passes of radix 2, 3, 4, 5, 7, 8, 11, 13, 16; Bluestein's algorithm for
 * lengths with a larger prime factor); docs/fft.md. Plans are cached per
 * context (bounded, freed with the context); kiln_fft_plan makes one
 * explicitly for repeated transforms of one shape. Work buffers come from
 * the memory pool.
 *
 * Errors (all calls): INVALID_ARGUMENT for a NULL ctx or input (or a
 * scalar, or an array of another context), a bad n/s entry,
 * an axis out of range, s and axes of different lengths, a bad norm
 * string (the message lists the valid ones), a complex rfft input, a
 * 0-d input, an out of the wrong shape or dtype or of another context;
 * UNIMPLEMENTED for a double-precision transform on a device without
 * float64; OUT_OF_MEMORY; device errors as for launches. */
#ifndef KILN_FFT_H
#define KILN_FFT_H

#include <stddef.h>
#include <stdint.h>

#include "kiln/array.h"
#include "kiln/context.h"
#include "kiln/stream.h"
#include "kiln/ufunc.h"

#ifdef __cplusplus
extern "C" {
#endif

/* NumPy's None for n or an entry of s (NumPy 2 also takes -1 in s). */
#define KILN_FFT_DEFAULT ((int64_t)-1)

/* numpy.fft.fft(a, n, axis, norm) */
KILN_API kiln_status kiln_fft(kiln_context *ctx, kiln_operand a, int64_t n, int axis,
                              const char *norm, kiln_operand out, kiln_stream *stream);
/* numpy.fft.ifft(a, n, axis, norm) */
KILN_API kiln_status kiln_ifft(kiln_context *ctx, kiln_operand a, int64_t n, int axis,
                               const char *norm, kiln_operand out, kiln_stream *stream);
/* numpy.fft.rfft(a, n, axis, norm): n/2 + 1 outputs along axis. */
KILN_API kiln_status kiln_rfft(kiln_context *ctx, kiln_operand a, int64_t n, int axis,
                               const char *norm, kiln_operand out, kiln_stream *stream);
/* numpy.fft.irfft(a, n, axis, norm): n real outputs along axis. */
KILN_API kiln_status kiln_irfft(kiln_context *ctx, kiln_operand a, int64_t n, int axis,
                                const char *norm, kiln_operand out, kiln_stream *stream);

/* numpy.fft.fft2 / ifft2 (a, s, axes, norm): s NULL or 2 lengths, axes
 * NULL (the last two) or 2 axes. */
KILN_API kiln_status kiln_fft2(kiln_context *ctx, kiln_operand a, const int64_t *s,
                               const int *axes, const char *norm, kiln_operand out,
                               kiln_stream *stream);
KILN_API kiln_status kiln_ifft2(kiln_context *ctx, kiln_operand a, const int64_t *s,
                                const int *axes, const char *norm, kiln_operand out,
                                kiln_stream *stream);

/* numpy.fft.fftn / ifftn / rfftn / irfftn (a, s, axes, norm): s NULL
 * (None) or ns lengths; axes NULL (None) or naxes axes (ns and naxes are
 * ignored for a NULL array). rfftn does rfft along the last of the axes
 * first; irfftn does irfft along it last. */
KILN_API kiln_status kiln_fftn(kiln_context *ctx, kiln_operand a, int ns, const int64_t *s,
                               int naxes, const int *axes, const char *norm, kiln_operand out,
                               kiln_stream *stream);
KILN_API kiln_status kiln_ifftn(kiln_context *ctx, kiln_operand a, int ns, const int64_t *s,
                                int naxes, const int *axes, const char *norm, kiln_operand out,
                                kiln_stream *stream);
KILN_API kiln_status kiln_rfftn(kiln_context *ctx, kiln_operand a, int ns, const int64_t *s,
                                int naxes, const int *axes, const char *norm, kiln_operand out,
                                kiln_stream *stream);
KILN_API kiln_status kiln_irfftn(kiln_context *ctx, kiln_operand a, int ns, const int64_t *s,
                                 int naxes, const int *axes, const char *norm, kiln_operand out,
                                 kiln_stream *stream);

/* ---- explicit plans ------------------------------------------------------ */

typedef enum kiln_fft_kind {
  KILN_FFT_FORWARD = 1,  /* fftn */
  KILN_FFT_INVERSE,      /* ifftn */
  KILN_FFT_REAL_FORWARD, /* rfftn */
  KILN_FFT_REAL_INVERSE  /* irfftn */
} kiln_fft_kind;

typedef struct kiln_fft_plan kiln_fft_plan;

/* A plan for transforms of `kind` of inputs of `dtype` and shape (ndim,
 * shape), with s, axes and norm as kiln_fftn. Holds what the transforms
 * need (retains ctx) so that kiln_fft_plan_execute does no planning.
 * Errors: as kiln_fftn for the arguments; INVALID_ARGUMENT for NULL ctx or
 * plan, a bad kind or dtype. */
KILN_API kiln_status kiln_fft_plan_create(kiln_context *ctx, kiln_fft_kind kind,
                                          kiln_dtype dtype, int ndim, const int64_t *shape,
                                          int ns, const int64_t *s, int naxes, const int *axes,
                                          const char *norm, kiln_fft_plan **plan);

/* Runs plan on a (a device array of the plan's context or host memory, of
 * the plan's dtype and shape, any strides), out as kiln_fftn.
 * INVALID_ARGUMENT when a does not match the plan (the message names
 * both). */
KILN_API kiln_status kiln_fft_plan_execute(const kiln_fft_plan *plan, kiln_operand a,
                                           kiln_operand out, kiln_stream *stream);

/* Frees the plan; NULL is ignored. */
KILN_API void kiln_fft_plan_release(kiln_fft_plan *plan);

/* One line saying which FFT path ctx takes and why ("portable kernel
 * (Stockham / Bluestein)"), written into text (truncated to size).
 * INVALID_ARGUMENT for NULL ctx/text or size 0. */
KILN_API kiln_status kiln_fft_describe(kiln_context *ctx, char *text, size_t size);

#ifdef __cplusplus
}
#endif
#endif
