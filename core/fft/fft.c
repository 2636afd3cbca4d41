/* core/fft/fft.c: the numpy.fft calls: NumPy's argument rules (n/s, axes,
 * norm, dtypes, result shape), the sequence of 1-D steps, and each step's
 * marshalling between the caller's arrays (any view) and the contiguous
 * rows the 1-D plans transform. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/codegen/elementwise.h"
#include "core/fft/fft_internal.h"
#include "core/reduce/reduce_internal.h"
#include "core/runtime/log.h"
#include "kiln/fft.h"

#define FFT_MAX_AXES 32 /* axes may repeat, so more than KILN_MAX_DIMS */
#define FFT_DIRECT_ALIGN 256 /* bytes: caller's rows go to a library only so aligned */

/* ---- KILN_FFT ------------------------------------------------------------ */

typedef enum fft_policy {
  POLICY_AUTO = 0, /* the vendor library when usable, else kiln's kernels */
  POLICY_PORTABLE,
  POLICY_VENDOR, /* the vendor library or an error */
  POLICY_BAD
} fft_policy;

static pthread_once_t policy_once = PTHREAD_ONCE_INIT;
static fft_policy policy_value;
static char policy_text[64];

static void policy_read(void) {
  const char *v = getenv("KILN_FFT");
  snprintf(policy_text, sizeof policy_text, "%s", v ? v : "");
  if (!v || !*v || strcmp(v, "auto") == 0) policy_value = POLICY_AUTO;
  else if (strcmp(v, "portable") == 0) policy_value = POLICY_PORTABLE;
  else if (strcmp(v, "vendor") == 0) policy_value = POLICY_VENDOR;
  else policy_value = POLICY_BAD;
}

static kiln_status policy_get(fft_policy *policy) {
  pthread_once(&policy_once, policy_read);
  *policy = policy_value;
  if (policy_value == POLICY_BAD)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "KILN_FFT=%s: expected auto, portable or vendor", policy_text);
  return KILN_OK;
}

static int backend_has_fft(const kiln_context *ctx) {
  return ctx->ops->fft_describe && ctx->ops->fft_plan_create && ctx->ops->fft_execute &&
         ctx->ops->fft_plan_destroy;
}

typedef enum fft_norm { NORM_BACKWARD, NORM_ORTHO, NORM_FORWARD } fft_norm;
typedef enum fft_step_kind { STEP_C2C, STEP_R2C, STEP_C2R } fft_step_kind;

/* One transform, its arguments resolved as NumPy does. */
typedef struct fft_spec {
  kiln_fft_kind kind;
  kiln_dtype in_dtype, out_dtype;
  fft_precision precision;
  int ndim;
  int64_t in_shape[KILN_MAX_DIMS], out_shape[KILN_MAX_DIMS];
  int naxes;
  int axes[FFT_MAX_AXES];    /* non-negative */
  int64_t length[FFT_MAX_AXES]; /* transform length along axes[i] */
  fft_norm norm;
} fft_spec;

struct kiln_fft_plan {
  kiln_context *ctx;
  fft_spec spec;
  fft_plan1d *plans[FFT_MAX_AXES]; /* per step, held */
};

/* Step `step` of spec: which axis entry (i), direction, kind. The axis
 * order of NumPy's loops: c2c from the last axis to the first; rfftn's
 * rfft first; irfftn's irfft last. */
static void step_of(const fft_spec *spec, int step, int *i, int *sign, fft_step_kind *kind) {
  const int last = spec->naxes - 1;
  *kind = STEP_C2C;
  *sign = spec->kind == KILN_FFT_FORWARD || spec->kind == KILN_FFT_REAL_FORWARD ? -1 : 1;
  if (spec->kind == KILN_FFT_REAL_INVERSE) {
    *i = step;
    if (step == last) *kind = STEP_C2R;
  } else {
    *i = last - step;
    if (spec->kind == KILN_FFT_REAL_FORWARD && step == 0) *kind = STEP_R2C;
  }
}

/* The plan of one step over `batch` rows: the backend's library where the
 * policy allows and it can plan the case, else kiln's own. rank 2 or 3
 * (outer: the slower lengths): a multi-dimensional library plan, or NULL
 * (with OK) where the library is not used or cannot plan it, so that the
 * caller goes axis by axis. */
static kiln_status step_plan(kiln_context *ctx, const fft_spec *spec, fft_step_kind kind,
                             int64_t n, int64_t batch, int rank, const int64_t *outer,
                             fft_plan1d **plan) {
  *plan = NULL;
  fft_policy policy;
  KILN_RETURN_IF_ERROR(policy_get(&policy));
  /* On a CPU device (PoCL) the library is used only when asked for: clFFT
   * compiles its kernels for every plan (seconds each there, docs/fft.md),
   * and kiln's kernels are as fast on a CPU. */
  int wanted = policy == POLICY_VENDOR ||
               (policy == POLICY_AUTO && ctx->info.type != KILN_DEVICE_CPU);
  if (wanted && backend_has_fft(ctx) && batch > 0) {
    static const int vendor_type[] = {KILN_BACKEND_FFT_C2C, KILN_BACKEND_FFT_R2C,
                                      KILN_BACKEND_FFT_C2R};
    kiln_status status = kiln_fft_plan1d_get(ctx, n, spec->precision, vendor_type[kind], batch,
                                             rank, outer, plan);
    if (status == KILN_OK || policy == POLICY_VENDOR ||
        (status != KILN_ERROR_UNAVAILABLE && status != KILN_ERROR_UNIMPLEMENTED))
      return status;
    kiln_log(KILN_LOG_DEBUG, "fft: vendor library not used: %s", kiln_last_error());
  } else if (policy == POLICY_VENDOR && !backend_has_fft(ctx)) {
    return kiln_error_set(KILN_ERROR_UNAVAILABLE,
                          "fft: KILN_FFT=vendor but the %s backend has no vendor FFT library",
                          ctx->ops->name);
  }
  if (rank > 1) return KILN_OK;
  /* kiln's own r2c / c2r of an even length: a complex transform of n/2
   * (fft_real.c) */
  int64_t length = kind != STEP_C2C && n % 2 == 0 ? n / 2 : n;
  return kiln_fft_plan1d_get(ctx, length, spec->precision, 0, 1, 1, NULL, plan);
}

/* Whether spec runs as one multi-dimensional library transform, as CuPy
 * hands fftn to cuFFT: 2 or 3 distinct axes that are the input's trailing
 * ones (in any order for c2c; rfftn's real axis the last), so that the
 * library's basic layout holds them, batched over the dims before. Not
 * irfftn: the libraries leave a C2R of a non-Hermitian input undefined in
 * more than one dim, where NumPy's axis-by-axis order defines it; not
 * float16, whose first factor NumPy rounds on its own. Returns the count
 * (0: no), the axes ascending and their lengths; *batch the item count. */
static int nd_shape(const fft_spec *spec, int *axes, int64_t *lengths, int64_t *batch) {
  const int k = spec->naxes, first = spec->ndim - k;
  if (k < 2 || k > 3 || spec->kind == KILN_FFT_REAL_INVERSE || spec->in_dtype == KILN_FLOAT16)
    return 0;
  if (spec->kind == KILN_FFT_REAL_FORWARD && spec->axes[k - 1] != spec->ndim - 1) return 0;
  int seen[KILN_MAX_DIMS] = {0};
  for (int i = 0; i < k; i++) {
    int a = spec->axes[i];
    if (a < first || seen[a]) return 0;
    seen[a] = 1;
    axes[a - first] = a;
    lengths[a - first] = spec->length[i];
  }
  *batch = 1;
  for (int d = 0; d < first; d++) *batch *= spec->in_shape[d];
  return k;
}

static const char *kind_name(kiln_fft_kind kind) {
  switch (kind) {
  case KILN_FFT_FORWARD: return "fftn";
  case KILN_FFT_INVERSE: return "ifftn";
  case KILN_FFT_REAL_FORWARD: return "rfftn";
  default: return "irfftn";
  }
}

static kiln_status norm_parse(const char *what, const char *text, fft_norm *norm) {
  if (!text || strcmp(text, "backward") == 0) *norm = NORM_BACKWARD;
  else if (strcmp(text, "ortho") == 0) *norm = NORM_ORTHO;
  else if (strcmp(text, "forward") == 0) *norm = NORM_FORWARD;
  else
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "%s: invalid norm value \"%s\"; should be \"backward\", \"ortho\" "
                          "or \"forward\" (or NULL)",
                          what, text);
  return KILN_OK;
}

/* Resolves the arguments (numpy.fft's _cook_nd_args and dtype rules). */
static kiln_status spec_make(const char *what, kiln_fft_kind kind, kiln_dtype dtype, int ndim,
                             const int64_t *shape, int ns, const int64_t *s, int naxes,
                             const int *axes, const char *norm, kiln_context *ctx,
                             fft_spec *spec) {
  memset(spec, 0, sizeof *spec);
  spec->kind = kind;
  spec->in_dtype = dtype;
  spec->ndim = ndim;
  KILN_RETURN_IF_ERROR(norm_parse(what, norm, &spec->norm));
  if (kind < KILN_FFT_FORWARD || kind > KILN_FFT_REAL_INVERSE)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "%s: bad kind %d", what, (int)kind);
  if (ndim < 1 || ndim > KILN_MAX_DIMS)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "%s: the input has %d dims; a transform needs at least 1", what, ndim);
  if (kind == KILN_FFT_REAL_FORWARD && kiln_dtype_is_complex(dtype))
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "%s: input of dtype %s; a real transform takes real inputs (NumPy "
                          "raises TypeError)",
                          what, kiln_dtype_name(dtype));
  if (kiln_dtype_size(dtype) == 0)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "%s: bad dtype %d", what, (int)dtype);
  int single = dtype == KILN_FLOAT16 || dtype == KILN_FLOAT32 || dtype == KILN_COMPLEX64;
  spec->precision = single ? FFT_SINGLE : FFT_DOUBLE;
  spec->out_dtype = single ? KILN_COMPLEX64 : KILN_COMPLEX128;
  if (!single && ctx && !ctx->info.has_double)
    return kiln_error_set(KILN_ERROR_UNIMPLEMENTED, "%s: a %s transform on %s, which has no "
                          "float64", what, kiln_dtype_name(spec->out_dtype), ctx->info.name);

  /* axes and lengths */
  if (s && axes && ns != naxes)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "%s: s has %d lengths and axes %d axes (NumPy: \"Shape and axes have "
                          "different lengths\")", what, ns, naxes);
  int count = axes ? naxes : s ? ns : ndim;
  if (count < 0 || count > FFT_MAX_AXES)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "%s: %d axes (0 to %d)", what, count,
                          FFT_MAX_AXES);
  if (count == 0 && kind != KILN_FFT_FORWARD && kind != KILN_FFT_INVERSE)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "%s: no axes to transform", what);
  spec->naxes = count;
  /* irfft keeps float16 (NumPy casts back to the input's real dtype);
   * irfftn over more axes gets complex64 from its ifft steps first */
  if (kind == KILN_FFT_REAL_INVERSE)
    spec->out_dtype = dtype == KILN_FLOAT16 && count == 1 ? KILN_FLOAT16
                      : single                            ? KILN_FLOAT32
                                                          : KILN_FLOAT64;
  for (int i = 0; i < count; i++) {
    int axis = axes ? axes[i] : ndim - count + i;
    if (axis < -ndim || axis >= ndim)
      return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                            "%s: axis %d is out of range for an input of %d dims", what,
                            axes ? axes[i] : axis, ndim);
    spec->axes[i] = axis < 0 ? axis + ndim : axis;
  }
  memcpy(spec->in_shape, shape, (size_t)ndim * sizeof *shape);
  memcpy(spec->out_shape, shape, (size_t)ndim * sizeof *shape);
  for (int i = 0; i < count; i++) {
    int axis = spec->axes[i];
    int real_last = kind == KILN_FFT_REAL_INVERSE && i == count - 1;
    int64_t n = s ? s[i] : KILN_FFT_DEFAULT;
    /* the input length along axis as this step sees it (earlier steps
     * along a repeated axis changed it) */
    int64_t have = spec->out_shape[axis];
    if (n == KILN_FFT_DEFAULT) n = real_last ? 2 * (have - 1) : have;
    if (n < 1)
      return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                            "%s: invalid number of FFT data points (%lld) along axis %d", what,
                            (long long)n, axis);
    spec->length[i] = n;
    int real_first = kind == KILN_FFT_REAL_FORWARD && i == count - 1;
    spec->out_shape[axis] = real_first ? n / 2 + 1 : n;
  }
  return KILN_OK;
}

static int same_shape(int nd, const int64_t *a, int nb, const int64_t *b) {
  if (nd != nb) return 0;
  for (int i = 0; i < nd; i++)
    if (a[i] != b[i]) return 0;
  return 1;
}

/* The factor of a step of length n. NumPy computes it in the input's
 * real dtype, so a float16 input's first step is scaled by a float16
 * factor (the steps after it see complex64). */
static double step_scale(const fft_spec *spec, int sign, int64_t n, int step) {
  double scale = 1.0;
  if (spec->norm == NORM_ORTHO) scale = 1.0 / sqrt((double)n);
  else if (sign < 0 ? spec->norm == NORM_FORWARD : spec->norm == NORM_BACKWARD)
    scale = 1.0 / (double)n;
  if (step == 0 && spec->in_dtype == KILN_FLOAT16)
    scale = kiln_float16_to_float(kiln_float16_from_double(scale));
  return scale;
}

static kiln_status use_on(const kiln_array *x, kiln_stream *stream) {
  return kiln_buffer_use_on_stream(x->buffer, stream);
}

/* Whether a c2c step along a non-last axis runs where the data lies
 * (columns_step): src contiguous as a whole in the transform's dtype, not
 * cropped or padded, dst not the same buffer (both aligned, as the direct
 * rows of c2c_step). */
static int columns_fit(const kiln_array *src, const kiln_array *dst, kiln_dtype cdt, int axis,
                       int64_t n) {
  return src->dtype == cdt && src->shape[axis] == n && src->buffer != dst->buffer &&
         kiln_array_is_contiguous(src) && src->offset % FFT_DIRECT_ALIGN == 0;
}

/* A c2c step along a non-last axis of a contiguous src: the column form
 * of the passes (kiln_fft_plan1d_run_columns) on src as blocks of n x
 * inner (inner: the elements after the axis), into dst when it is
 * contiguous (aligned), else into contiguous rows of its shape copied to
 * it. 4096 x 4096 along axis 0: the passes only, not two transposing
 * copies around them. */
static kiln_status columns_step(kiln_context *ctx, kiln_stream *stream, const fft_spec *spec,
                                const fft_plan1d *plan, int sign, int step,
                                const kiln_array *src, int axis, int64_t n, kiln_array *dst) {
  const kiln_dtype cdt = src->dtype;
  int64_t inner = 1;
  for (int d = axis + 1; d < src->ndim; d++) inner *= src->shape[d];
  const int64_t batch = n > 0 ? src->size / n : 0;
  const int direct = dst->dtype == cdt && kiln_array_is_contiguous(dst) &&
                     dst->offset % FFT_DIRECT_ALIGN == 0;
  kiln_array *out = NULL;
  kiln_status status = use_on(src, stream);
  if (status == KILN_OK && direct) out = kiln_array_retain(dst);
  else if (status == KILN_OK) status = kiln_array_alloc(ctx, cdt, src->ndim, src->shape, &out);
  if (status == KILN_OK) status = use_on(out, stream);
  if (status == KILN_OK)
    status = kiln_fft_plan1d_run_columns(plan, stream, sign, step_scale(spec, sign, n, step),
                                         batch, inner, src, out);
  if (status == KILN_OK && !direct) status = kiln_ew_copy_on(dst, out, stream);
  kiln_array_release(out);
  return status;
}

/* A c2c step along axis of kiln's own: the caller's arrays are the rows
 * the passes read and write where they can be (contiguous along the axis
 * and the batch dims, the transform's dtype, not cropped or padded, not
 * the same buffer), else contiguous rows from the pool, copied in or out
 * (crop, pad, cast, strides). A contiguous 2^24 transform is then only
 * its passes over memory. */
static kiln_status c2c_step(kiln_context *ctx, kiln_stream *stream, const fft_spec *spec,
                            const fft_plan1d *plan, int sign, int step, const kiln_array *src,
                            int axis, int64_t n, kiln_array *dst) {
  const kiln_dtype cdt = spec->precision == FFT_DOUBLE ? KILN_COMPLEX128 : KILN_COMPLEX64;
  const int nd = src->ndim;
  if (axis < nd - 1 && columns_fit(src, dst, cdt, axis, n) && kiln_fft_plan1d_has_columns(plan))
    return columns_step(ctx, stream, spec, plan, sign, step, src, axis, n, dst);
  int64_t shape[KILN_MAX_DIMS], batch = 1;
  for (int d = 0, k = 0; d < nd; d++)
    if (d != axis) batch *= (shape[k++] = src->shape[d]);
  shape[nd - 1] = n;
  const int64_t have = src->shape[axis], copied = have < n ? have : n;
  const int apart = src->buffer != dst->buffer;
  kiln_array *from = NULL, *into = NULL, *in = NULL, *out = NULL;
  kiln_status status = kiln_fft_moved_view(src, axis, copied, 0, &from);
  if (status == KILN_OK) status = kiln_fft_moved_view(dst, axis, -1, 0, &into);
  if (status != KILN_OK) goto cleanup;
  /* (offsets aligned: OpenCL passes a view as a sub-buffer, whose offset
   * must be a multiple of the device's base alignment) */
  if (apart && src->dtype == cdt && have == n && kiln_array_is_contiguous(from) &&
      from->offset % FFT_DIRECT_ALIGN == 0) {
    in = kiln_array_retain(from);
  } else {
    status = kiln_array_alloc(ctx, cdt, nd, shape, &in);
    if (status == KILN_OK) status = use_on(in, stream);
    if (status == KILN_OK && copied < n) {
      static const uint64_t zero[2] = {0, 0};
      status = kiln_ew_fill_on(in, zero, stream);
    }
    kiln_array *slot = NULL;
    if (status == KILN_OK && copied > 0) status = kiln_fft_moved_view(in, nd - 1, copied, 0, &slot);
    if (status == KILN_OK && copied > 0) status = kiln_ew_copy_on(slot, from, stream);
    kiln_array_release(slot);
  }
  const int direct_out = apart && dst->dtype == cdt && kiln_array_is_contiguous(into) &&
                         into->offset % FFT_DIRECT_ALIGN == 0;
  if (status == KILN_OK && direct_out) {
    out = kiln_array_retain(into);
  } else if (status == KILN_OK && in != from) {
    out = kiln_array_retain(in); /* in place in the pool's rows */
  } else if (status == KILN_OK) {
    status = kiln_array_alloc(ctx, cdt, nd, shape, &out);
    if (status == KILN_OK) status = use_on(out, stream);
  }
  if (status == KILN_OK)
    status = kiln_fft_plan1d_run_into(plan, stream, sign, step_scale(spec, sign, n, step), batch,
                                      in, out);
  if (status == KILN_OK && !direct_out) status = kiln_ew_copy_on(into, out, stream);
cleanup:
  kiln_array_release(out);
  kiln_array_release(in);
  kiln_array_release(into);
  kiln_array_release(from);
  return status;
}

/* One 1-D step along axis: src (any view) -> dst (its shape, any view). */
static kiln_status axis_step(kiln_context *ctx, kiln_stream *stream, const fft_spec *spec,
                             const fft_plan1d *plan, fft_step_kind kind, int sign, int step,
                             const kiln_array *src, int axis, int64_t n, kiln_array *dst) {
  if (dst->size == 0) return KILN_OK;
  if (kind != STEP_C2C && 2 * plan->n == n) /* even n: a half-length transform (fft_real.c) */
    return kiln_fft_real_half_step(ctx, stream, plan, kind == STEP_R2C, sign,
                                   step_scale(spec, sign, n, step), src, axis, n, dst);
  if (kind == STEP_C2C) return c2c_step(ctx, stream, spec, plan, sign, step, src, axis, n, dst);
  const kiln_dtype cdt = spec->precision == FFT_DOUBLE ? KILN_COMPLEX128 : KILN_COMPLEX64;
  int nd = src->ndim;
  int64_t shape[KILN_MAX_DIMS], batch = 1;
  for (int d = 0, k = 0; d < nd; d++)
    if (d != axis) batch *= (shape[k++] = src->shape[d]);
  shape[nd - 1] = n;
  int64_t have = src->shape[axis];
  int64_t keep = kind == STEP_C2R ? n / 2 + 1 : n;
  int64_t copied = have < keep ? have : keep;
  kiln_array *work = NULL, *from = NULL, *into = NULL;
  kiln_status status = kiln_array_alloc(ctx, cdt, nd, shape, &work);
  if (status == KILN_OK) status = kiln_buffer_use_on_stream(work->buffer, stream);
  if (status == KILN_OK && (kind != STEP_C2C || copied < n)) {
    static const uint64_t zero[2] = {0, 0};
    status = kiln_ew_fill_on(work, zero, stream);
  }
  if (status == KILN_OK && copied > 0) {
    status = kiln_fft_moved_view(src, axis, copied, 0, &from);
    if (status == KILN_OK) status = kiln_fft_moved_view(work, nd - 1, copied, kind == STEP_R2C, &into);
    if (status == KILN_OK) status = kiln_ew_copy_on(into, from, stream);
    kiln_array_release(from);
    kiln_array_release(into);
    from = into = NULL;
  }
  if (status == KILN_OK && kind == STEP_C2R) {
    kiln_backend_arg w = {.kind = KILN_BACKEND_ARG_BUFFER, .buffer = work->buffer->handle,
                          .offset = (uint64_t)work->offset};
    status = kiln_fft_launch_helper(ctx, stream, spec->precision, FFT_HERMITIAN, 1, &w, n, 0,
                                    sign, 1.0, batch * n);
  }
  if (status == KILN_OK)
    status = kiln_fft_plan1d_run(plan, stream, sign, step_scale(spec, sign, n, step), batch, work);
  if (status == KILN_OK) {
    int64_t length = kind == STEP_R2C ? n / 2 + 1 : n;
    status = kiln_fft_moved_view(work, nd - 1, length, kind == STEP_C2R, &from);
    if (status == KILN_OK) status = kiln_fft_moved_view(dst, axis, -1, 0, &into);
    if (status == KILN_OK) status = kiln_ew_copy_on(into, from, stream);
    kiln_array_release(from);
    kiln_array_release(into);
  }
  kiln_array_release(work);
  return status;
}

/* NumPy's irfft reads only the real parts of X_0 and (n even) X_{n/2};
 * a library's C2R need not ignore their imaginary parts, so they are
 * zeroed in the rows (last dim n/2 + 1 complex, contiguous) it gets. */
static kiln_status zero_imaginary(const kiln_array *rows, int64_t n, kiln_stream *stream) {
  int nd = rows->ndim;
  kiln_dtype real = rows->dtype == KILN_COMPLEX128 ? KILN_FLOAT64 : KILN_FLOAT32;
  int64_t shape[KILN_MAX_DIMS], strides[KILN_MAX_DIMS];
  memcpy(shape, rows->shape, (size_t)nd * sizeof *shape);
  memcpy(strides, rows->strides, (size_t)nd * sizeof *strides);
  shape[nd - 1] = n % 2 == 0 && n / 2 > 0 ? 2 : 1; /* X_0, X_{n/2} */
  strides[nd - 1] = (n / 2) * rows->strides[nd - 1];
  kiln_array *imaginary = NULL;
  KILN_RETURN_IF_ERROR(kiln_array_view_new(rows, real, nd, shape, strides,
                                           rows->offset + (int64_t)kiln_dtype_size(real),
                                           &imaginary));
  static const uint64_t zero[2] = {0, 0};
  kiln_status status = kiln_ew_fill_on(imaginary, zero, stream);
  kiln_array_release(imaginary);
  return status;
}

/* One step through the backend's library, along the `count` axes (1; 2
 * or 3 for a multi-dimensional plan, then the input's trailing axes,
 * ascending) of lengths n: rows handed to it directly when the caller's
 * arrays already are what it takes (contiguous over those axes, the dtype,
 * the lengths; C2R always copies, the library may overwrite its input),
 * else through contiguous rows from the pool. */
static kiln_status vendor_step(kiln_context *ctx, kiln_stream *stream, const fft_spec *spec,
                               const fft_plan1d *plan, fft_step_kind kind, int sign, int step,
                               const kiln_array *src, int count, const int *axes,
                               const int64_t *n, kiln_array *dst) {
  if (dst->size == 0) return KILN_OK;
  const int d = spec->precision == FFT_DOUBLE, last = count - 1;
  const kiln_dtype cdt = d ? KILN_COMPLEX128 : KILN_COMPLEX64, rdt = d ? KILN_FLOAT64 : KILN_FLOAT32;
  const kiln_dtype in_dtype = kind == STEP_R2C ? rdt : cdt, out_dtype = kind == STEP_C2R ? rdt : cdt;
  int64_t in_len[3], out_len[3], copied[3];
  int as_given = kind != STEP_C2R && src->dtype == in_dtype, padded = 0, rows_axes[3];
  double scale = 1.0;
  for (int j = 0; j < count; j++) {
    int64_t have = src->shape[axes[j]];
    in_len[j] = kind == STEP_C2R && j == last ? n[j] / 2 + 1 : n[j];
    out_len[j] = kind == STEP_R2C && j == last ? n[j] / 2 + 1 : n[j];
    copied[j] = have < in_len[j] ? have : in_len[j];
    as_given = as_given && have == n[j];
    padded = padded || copied[j] < in_len[j];
    rows_axes[j] = src->ndim - count + j;
    scale *= step_scale(spec, sign, n[j], step);
  }
  int nd = src->ndim, batch_dims = nd - count;
  int64_t shape[KILN_MAX_DIMS];
  kiln_array *from = NULL, *into = NULL, *in_rows = NULL, *out_rows = NULL, *work = NULL;
  kiln_status status = kiln_fft_moved_view_n(src, count, axes, NULL, 0, &from);
  if (status == KILN_OK) status = kiln_fft_moved_view_n(dst, count, axes, NULL, 0, &into);
  if (status != KILN_OK) goto cleanup;
  memcpy(shape, from->shape, (size_t)batch_dims * sizeof *shape);
  /* (a view's offset must stay aligned for the library: OpenCL passes it
   * as a sub-buffer, CUDA libraries want aligned rows) */
  if (as_given && kiln_array_is_contiguous(from) && src->buffer != dst->buffer &&
      from->offset % FFT_DIRECT_ALIGN == 0) {
    in_rows = kiln_array_retain(from);
    status = use_on(in_rows, stream);
  } else {
    memcpy(shape + batch_dims, in_len, (size_t)count * sizeof *shape);
    kiln_array *part = NULL, *slot = NULL;
    status = kiln_array_alloc(ctx, in_dtype, nd, shape, &in_rows);
    if (status == KILN_OK) status = use_on(in_rows, stream);
    if (status == KILN_OK && padded) {
      static const uint64_t zero[2] = {0, 0};
      status = kiln_ew_fill_on(in_rows, zero, stream);
    }
    if (status == KILN_OK) status = kiln_fft_moved_view_n(src, count, axes, copied, 0, &part);
    if (status == KILN_OK) status = kiln_fft_moved_view_n(in_rows, count, rows_axes, copied, 0, &slot);
    if (status == KILN_OK) status = kiln_ew_copy_on(slot, part, stream);
    if (status == KILN_OK && kind == STEP_C2R) status = zero_imaginary(in_rows, n[last], stream);
    kiln_array_release(part);
    kiln_array_release(slot);
  }
  if (status != KILN_OK) goto cleanup;
  int direct_out = dst->dtype == out_dtype && kiln_array_is_contiguous(into) &&
                   into->offset % FFT_DIRECT_ALIGN == 0;
  if (direct_out) {
    out_rows = kiln_array_retain(into);
  } else {
    memcpy(shape + batch_dims, out_len, (size_t)count * sizeof *shape);
    status = kiln_array_alloc(ctx, out_dtype, nd, shape, &out_rows);
  }
  if (status == KILN_OK) status = use_on(out_rows, stream);
  if (status == KILN_OK && plan->work_bytes) {
    int64_t bytes = (int64_t)plan->work_bytes;
    status = kiln_array_alloc(ctx, KILN_UINT8, 1, &bytes, &work);
    if (status == KILN_OK) status = use_on(work, stream);
  }
  kiln_backend_stream *backend_stream = NULL;
  if (status == KILN_OK) status = kiln_stream_backend(ctx, stream, &backend_stream);
  if (status == KILN_OK)
    status = ctx->ops->fft_execute(ctx->device, backend_stream, plan->vendor,
                                   in_rows->buffer->handle, (uint64_t)in_rows->offset,
                                   out_rows->buffer->handle, (uint64_t)out_rows->offset,
                                   work ? work->buffer->handle : NULL, sign);
  if (status == KILN_OK && scale != 1.0) {
    kiln_backend_arg rows = {.kind = KILN_BACKEND_ARG_BUFFER, .buffer = out_rows->buffer->handle,
                             .offset = (uint64_t)out_rows->offset};
    status = kiln_fft_launch_helper(ctx, stream, spec->precision, FFT_SCALE, 1, &rows, 0, 0,
                                    sign, scale, out_rows->size * (kind == STEP_C2R ? 1 : 2));
  }
  if (status == KILN_OK && !direct_out) status = kiln_ew_copy_on(into, out_rows, stream);
cleanup:
  kiln_array_release(work);
  kiln_array_release(out_rows);
  kiln_array_release(in_rows);
  kiln_array_release(into);
  kiln_array_release(from);
  return status;
}

/* The multi-dimensional library plan of spec (nd_shape), or NULL. */
static kiln_status nd_plan(kiln_context *ctx, const fft_spec *spec, fft_plan1d **plan) {
  int axes[3];
  int64_t lengths[3], batch = 0;
  *plan = NULL;
  int k = nd_shape(spec, axes, lengths, &batch);
  if (!k) return KILN_OK;
  fft_step_kind kind = spec->kind == KILN_FFT_REAL_FORWARD ? STEP_R2C : STEP_C2C;
  return step_plan(ctx, spec, kind, lengths[k - 1], batch, k, lengths, plan);
}

/* Runs spec on a into final (a device array of the result's shape and
 * dtype); plans[i] is the 1-D plan of axis step i (NULL: from the
 * context's cache). */
static kiln_status spec_run(const fft_spec *spec, fft_plan1d *const *plans, const kiln_array *a,
                            kiln_array *final, kiln_stream *stream) {
  kiln_context *ctx = a->buffer->ctx;
  const kiln_dtype cdt = spec->precision == FFT_DOUBLE ? KILN_COMPLEX128 : KILN_COMPLEX64;
  /* all axes at once through a multi-dimensional library plan */
  fft_plan1d *nd = NULL;
  kiln_status status = KILN_OK;
  if (plans) nd = plans[0] && plans[0]->rank > 1 ? plans[0] : NULL;
  else status = nd_plan(ctx, spec, &nd);
  if (status != KILN_OK || nd) {
    int axes[3];
    int64_t lengths[3], batch;
    int k = nd_shape(spec, axes, lengths, &batch);
    int sign = spec->kind == KILN_FFT_INVERSE ? 1 : -1;
    fft_step_kind kind = spec->kind == KILN_FFT_REAL_FORWARD ? STEP_R2C : STEP_C2C;
    if (status == KILN_OK)
      status = vendor_step(ctx, stream, spec, nd, kind, sign, 0, a, k, axes, lengths, final);
    if (!plans) kiln_fft_plan1d_release(nd);
    return status;
  }
  kiln_array *cur = kiln_array_retain((kiln_array *)a);
  int64_t shape[KILN_MAX_DIMS];
  memcpy(shape, spec->in_shape, (size_t)spec->ndim * sizeof *shape);
  const int last = spec->naxes - 1;
  if (spec->naxes == 0) status = kiln_ew_copy_on(final, a, stream); /* numpy: fftn(a, axes=()) */
  for (int step = 0; step < spec->naxes && status == KILN_OK; step++) {
    int i, sign;
    fft_step_kind kind;
    step_of(spec, step, &i, &sign, &kind);
    int axis = spec->axes[i];
    int64_t n = spec->length[i];
    shape[axis] = kind == STEP_R2C ? n / 2 + 1 : n;
    int64_t batch = 1;
    for (int d = 0; d < spec->ndim; d++)
      if (d != axis) batch *= shape[d];
    kiln_array *dst = NULL;
    if (step == last) dst = kiln_array_retain(final);
    else status = kiln_array_alloc(ctx, cdt, spec->ndim, shape, &dst);
    fft_plan1d *plan = plans ? plans[step] : NULL;
    if (status == KILN_OK && !plans)
      status = step_plan(ctx, spec, kind, n, batch, 1, NULL, &plan);
    if (status == KILN_OK && plan && plan->vendor)
      status = vendor_step(ctx, stream, spec, plan, kind, sign, step, cur, 1, &axis, &n, dst);
    else if (status == KILN_OK)
      status = axis_step(ctx, stream, spec, plan, kind, sign, step, cur, axis, n, dst);
    if (!plans) kiln_fft_plan1d_release(plan);
    kiln_array_release(cur);
    cur = dst;
  }
  kiln_array_release(cur);
  return status;
}

/* The input operand as a device array: given, or host memory uploaded
 * (*owned, to release). */
static kiln_status input_device(kiln_context *ctx, const char *what, const kiln_operand *a,
                                const kiln_array **array, kiln_array **owned) {
  *owned = NULL;
  if (a->kind != KILN_OPERAND_ARRAY && a->kind != KILN_OPERAND_HOST)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "%s: the input must be a device array or host memory", what);
  return kiln_reduce_to_device(ctx, what, 0, a, KILN_DTYPE_COUNT, array, owned);
}

/* Runs spec on the device array a into the output operand: a new array,
 * a device array or host memory of exactly the result's shape and dtype
 * (a host output gets the result through a device temporary, and the call
 * waits for it). */
static kiln_status output_run(kiln_context *ctx, const char *what, const fft_spec *spec,
                              fft_plan1d *const *plans, const kiln_array *a,
                              const kiln_operand *out, kiln_stream *stream) {
  kiln_dtype dtype = spec->out_dtype;
  kiln_array *made = NULL;
  const kiln_array *into = NULL;
  KILN_RETURN_IF_ERROR(kiln_reduce_prepare_output(ctx, what, out, &dtype, spec->ndim,
                                                  spec->out_shape, 0, &made, &into));
  kiln_status status = KILN_OK;
  if (dtype != spec->out_dtype)
    status = kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "%s: out is %s; the result is %s", what,
                            kiln_dtype_name(dtype), kiln_dtype_name(spec->out_dtype));
  if (status == KILN_OK) status = spec_run(spec, plans, a, (kiln_array *)into, stream);
  if (status == KILN_OK && out->kind == KILN_OPERAND_HOST && made->size > 0) {
    if (stream) status = kiln_stream_synchronize(ctx, stream);
    if (status == KILN_OK)
      status = kiln_array_to_host(made, out->value.host.writable, out->value.host.strides);
  }
  if (status == KILN_OK && out->kind == KILN_OPERAND_NEW) {
    *out->value.result = made;
    made = NULL;
  }
  kiln_array_release(made);
  return status;
}

static kiln_status fft_call(const char *what, kiln_fft_kind kind, kiln_context *ctx,
                            kiln_operand a, int ns, const int64_t *s, int naxes, const int *axes,
                            const char *norm, kiln_operand out, kiln_stream *stream) {
  kiln_reduce_clear_new(out);
  if (!ctx) return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "%s: ctx is NULL", what);
  const kiln_array *input = NULL;
  kiln_array *owned = NULL;
  fft_spec spec;
  kiln_status status = input_device(ctx, what, &a, &input, &owned);
  if (status == KILN_OK)
    status = spec_make(what, kind, input->dtype, input->ndim, input->shape, ns, s, naxes, axes,
                       norm, ctx, &spec);
  if (status == KILN_OK) status = output_run(ctx, what, &spec, NULL, input, &out, stream);
  kiln_array_release(owned);
  return status;
}

/* ---- the public calls ------------------------------------------------------ */

#define ONE_AXIS(name, kind)                                                                   \
  kiln_status kiln_##name(kiln_context *ctx, kiln_operand a, int64_t n, int axis,             \
                          const char *norm, kiln_operand out, kiln_stream *stream) {          \
    return fft_call(#name, kind, ctx, a, 1, &n, 1, &axis, norm, out, stream);                 \
  }
ONE_AXIS(fft, KILN_FFT_FORWARD)
ONE_AXIS(ifft, KILN_FFT_INVERSE)
ONE_AXIS(rfft, KILN_FFT_REAL_FORWARD)
ONE_AXIS(irfft, KILN_FFT_REAL_INVERSE)

static const int last_two[2] = {-2, -1};
kiln_status kiln_fft2(kiln_context *ctx, kiln_operand a, const int64_t *s, const int *axes,
                      const char *norm, kiln_operand out, kiln_stream *stream) {
  return fft_call("fft2", KILN_FFT_FORWARD, ctx, a, 2, s, 2, axes ? axes : last_two, norm, out,
                  stream);
}
kiln_status kiln_ifft2(kiln_context *ctx, kiln_operand a, const int64_t *s, const int *axes,
                       const char *norm, kiln_operand out, kiln_stream *stream) {
  return fft_call("ifft2", KILN_FFT_INVERSE, ctx, a, 2, s, 2, axes ? axes : last_two, norm, out,
                  stream);
}

#define N_AXES(name, kind)                                                                     \
  kiln_status kiln_##name(kiln_context *ctx, kiln_operand a, int ns, const int64_t *s,        \
                          int naxes, const int *axes, const char *norm, kiln_operand out,     \
                          kiln_stream *stream) {                                              \
    return fft_call(#name, kind, ctx, a, ns, s, naxes, axes, norm, out, stream);              \
  }
N_AXES(fftn, KILN_FFT_FORWARD)
N_AXES(ifftn, KILN_FFT_INVERSE)
N_AXES(rfftn, KILN_FFT_REAL_FORWARD)
N_AXES(irfftn, KILN_FFT_REAL_INVERSE)

kiln_status kiln_fft_plan_create(kiln_context *ctx, kiln_fft_kind kind, kiln_dtype dtype,
                                 int ndim, const int64_t *shape, int ns, const int64_t *s,
                                 int naxes, const int *axes, const char *norm,
                                 kiln_fft_plan **plan) {
  KILN_CHECK_ARG(plan);
  *plan = NULL;
  KILN_CHECK_ARG(ctx);
  if (ndim > 0) KILN_CHECK_ARG(shape);
  kiln_fft_plan *p = calloc(1, sizeof *p);
  if (!p) return kiln_error_set(KILN_ERROR_OUT_OF_MEMORY, "kiln_fft_plan_create: no memory");
  kiln_status status = spec_make("kiln_fft_plan_create", kind, dtype, ndim, shape, ns, s,
                                 naxes, axes, norm, ctx, &p->spec);
  p->ctx = kiln_context_retain(ctx);
  int64_t now[KILN_MAX_DIMS];
  if (status == KILN_OK) memcpy(now, p->spec.in_shape, (size_t)ndim * sizeof *now);
  /* one multi-dimensional library plan where it applies (spec_run then
   * takes plans[0] for all axes), else one per axis */
  if (status == KILN_OK) status = nd_plan(ctx, &p->spec, &p->plans[0]);
  const int per_axis = !p->plans[0];
  for (int step = 0; per_axis && step < p->spec.naxes && status == KILN_OK; step++) {
    int i, sign;
    fft_step_kind step_kind;
    step_of(&p->spec, step, &i, &sign, &step_kind);
    int64_t n = p->spec.length[i], batch = 1;
    now[p->spec.axes[i]] = step_kind == STEP_R2C ? n / 2 + 1 : n;
    for (int d = 0; d < ndim; d++)
      if (d != p->spec.axes[i]) batch *= now[d];
    status = step_plan(ctx, &p->spec, step_kind, n, batch, 1, NULL, &p->plans[step]);
  }
  if (status != KILN_OK) {
    kiln_fft_plan_release(p);
    return status;
  }
  *plan = p;
  return KILN_OK;
}

kiln_status kiln_fft_plan_execute(const kiln_fft_plan *plan, kiln_operand a, kiln_operand out,
                                  kiln_stream *stream) {
  kiln_reduce_clear_new(out);
  KILN_CHECK_ARG(plan);
  const fft_spec *spec = &plan->spec;
  char what[32];
  snprintf(what, sizeof what, "%s plan", kind_name(spec->kind));
  const kiln_array *input = NULL;
  kiln_array *owned = NULL;
  kiln_status status = input_device(plan->ctx, what, &a, &input, &owned);
  if (status == KILN_OK &&
      (input->dtype != spec->in_dtype ||
       !same_shape(input->ndim, input->shape, spec->ndim, spec->in_shape)))
    status = kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                            "%s: made for %s inputs of %d dims; the input is %s of %d dims "
                            "(or a length differs)",
                            what, kiln_dtype_name(spec->in_dtype), spec->ndim,
                            kiln_dtype_name(input->dtype), input->ndim);
  if (status == KILN_OK) status = output_run(plan->ctx, what, spec, plan->plans, input, &out, stream);
  kiln_array_release(owned);
  return status;
}

void kiln_fft_plan_release(kiln_fft_plan *plan) {
  if (!plan) return;
  for (int i = 0; i < FFT_MAX_AXES; i++) kiln_fft_plan1d_release(plan->plans[i]);
  kiln_context_release(plan->ctx);
  free(plan);
}

kiln_status kiln_fft_describe(kiln_context *ctx, char *text, size_t size) {
  KILN_CHECK_ARG(ctx);
  KILN_CHECK_ARG(text);
  if (size == 0)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "kiln_fft_describe: size is 0");
  text[0] = '\0';
  fft_policy policy;
  KILN_RETURN_IF_ERROR(policy_get(&policy));
  if (policy == POLICY_PORTABLE) {
    snprintf(text, size, "portable kernel (KILN_FFT=portable)");
    return KILN_OK;
  }
  if (!backend_has_fft(ctx)) {
    snprintf(text, size, "portable kernel (the %s backend has no vendor FFT table)",
             ctx->ops->name);
    return KILN_OK;
  }
  char vendor[512];
  if (ctx->ops->fft_describe(ctx->device, vendor, sizeof vendor) == KILN_OK)
    snprintf(text, size, policy == POLICY_AUTO && ctx->info.type == KILN_DEVICE_CPU
                             ? "portable kernel (a CPU device; KILN_FFT=vendor takes %s)"
                             : "vendor: %s",
             vendor);
  else
    snprintf(text, size, "%s (%s)",
             policy == POLICY_VENDOR ? "none: KILN_FFT=vendor and no vendor FFT library"
                                     : "portable kernel",
             kiln_last_error());
  return KILN_OK;
}
