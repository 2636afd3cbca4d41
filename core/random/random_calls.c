/* core/random/random_calls.c: the distribution calls of kiln/random.h:
 * their checks, the draw they plan, and where it is computed (a device
 * array, host memory through the device, or the host generator). */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/array/array_internal.h"
#include "core/random/random_internal.h"
#include "core/runtime/error.h"

/* Copies n contiguous elements into host memory of any byte strides. */
static void scatter(const void *src, size_t itemsize, int ndim, const int64_t *shape,
                    const int64_t *strides, void *dst) {
  int64_t index[KILN_MAX_DIMS] = {0};
  int64_t n = 1;
  for (int d = 0; d < ndim; d++) n *= shape[d];
  for (int64_t j = 0; j < n; j++) {
    int64_t offset = 0;
    for (int d = 0; d < ndim; d++) offset += index[d] * strides[d];
    memcpy((char *)dst + offset, (const char *)src + (size_t)j * itemsize, itemsize);
    for (int d = ndim - 1; d >= 0 && ++index[d] == shape[d]; d--) index[d] = 0;
  }
}

/* Nonzero when strides (bytes) are C order for shape. */
static int c_order(int ndim, const int64_t *shape, const int64_t *strides, int64_t itemsize) {
  int64_t expected = itemsize;
  for (int d = ndim - 1; d >= 0; d--) {
    if (shape[d] != 1 && strides[d] != expected) return 0;
    expected *= shape[d];
  }
  return 1;
}

static kiln_status check_not_broadcast(int ndim, const int64_t *shape, const int64_t *strides) {
  for (int d = 0; d < ndim; d++)
    if (strides && strides[d] == 0 && shape[d] > 1)
      return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                            "random: the output is a broadcast view (stride 0 in dim %d): its "
                            "elements would overlap", d);
  return KILN_OK;
}

/* The output's dtype, after checking the operand. */
static kiln_status output_dtype(kiln_context *ctx, const kiln_operand *out, kiln_dtype *dtype) {
  if (out->kind == KILN_OPERAND_ARRAY) {
    const kiln_array *a = out->value.array;
    if (!a) return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "random: the output array is NULL");
    if (ctx && a->buffer->ctx != ctx)
      return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                            "random: the output array belongs to another context");
    KILN_RETURN_IF_ERROR(check_not_broadcast(a->ndim, a->shape, a->strides));
    *dtype = a->dtype;
    return KILN_OK;
  }
  if (out->kind == KILN_OPERAND_HOST) {
    int64_t size = 0;
    if (out->value.host.ndim < 0 || out->value.host.ndim > KILN_MAX_DIMS ||
        (out->value.host.ndim > 0 && !out->value.host.shape))
      return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "random: bad host output shape");
    KILN_RETURN_IF_ERROR(
        kiln_shape_validate(out->dtype, out->value.host.ndim, out->value.host.shape, &size));
    if (size > 0 && !out->value.host.writable)
      return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                            "random: the host output is not writable (use "
                            "kiln_operand_host_output)");
    KILN_RETURN_IF_ERROR(check_not_broadcast(out->value.host.ndim, out->value.host.shape,
                                             out->value.host.strides));
    *dtype = out->dtype;
    return KILN_OK;
  }
  return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                        "random: the output must be a device array or a writable host output "
                        "(operand kind %d)", (int)out->kind);
}

/* Host memory: drawn on ctx's device and copied back, or by the host
 * generator when ctx is NULL. */
static kiln_status fill_host_output(const kiln_random_draw *d, kiln_context *ctx,
                                    const kiln_operand *out, kiln_stream *stream) {
  int ndim = out->value.host.ndim;
  const int64_t *shape = out->value.host.shape, *strides = out->value.host.strides;
  size_t itemsize = kiln_dtype_size(d->dtype);
  int64_t n = 1;
  for (int k = 0; k < ndim; k++) n *= shape[k];
  if (n == 0) return KILN_OK;
  if (ctx) {
    kiln_array *staging = NULL;
    KILN_RETURN_IF_ERROR(kiln_array_empty(ctx, d->dtype, ndim, shape, &staging));
    kiln_status status = kiln_random_fill_device(d, staging, stream);
    if (status == KILN_OK && stream) status = kiln_stream_synchronize(ctx, stream);
    if (status == KILN_OK) status = kiln_array_to_host(staging, out->value.host.writable, strides);
    kiln_array_release(staging);
    return status;
  }
  if (!strides || c_order(ndim, shape, strides, (int64_t)itemsize)) {
    kiln_random_fill_host(d, n, out->value.host.writable);
    return KILN_OK;
  }
  void *values = malloc((size_t)n * itemsize);
  if (!values)
    return kiln_error_set(KILN_ERROR_OUT_OF_MEMORY, "random: out of host memory (%lld bytes)",
                          (long long)n * (long long)itemsize);
  kiln_random_fill_host(d, n, values);
  scatter(values, itemsize, ndim, shape, strides, out->value.host.writable);
  free(values);
  return KILN_OK;
}

/* Reserves the draw's blocks from gen and computes it into out. */
static kiln_status run_draw(kiln_random_generator *gen, kiln_context *ctx, kiln_random_draw *d,
                            const kiln_operand *out, kiln_stream *stream) {
  int64_t n = out->kind == KILN_OPERAND_ARRAY ? out->value.array->size : 1;
  if (out->kind == KILN_OPERAND_HOST)
    for (int k = 0; k < out->value.host.ndim; k++) n *= out->value.host.shape[k];
  int64_t per_block = kiln_random_values_per_block(d);
  KILN_RETURN_IF_ERROR(kiln_random_reserve(gen, (uint64_t)((n + per_block - 1) / per_block),
                                           &d->position));
  d->seed = gen->seed;
  d->stream = gen->stream;
  if (out->kind == KILN_OPERAND_ARRAY)
    return kiln_random_fill_device(d, (kiln_array *)out->value.array, stream);
  return fill_host_output(d, ctx, out, stream);
}

static const char *const kind_names[] = {"uniform", "normal", "lognormal", "exponential",
                                         "integers", "bernoulli"};

/* The float distributions: float16, float32, float64 outputs, finite
 * parameters that fit the output's precision. */
static kiln_status float_draw(kiln_random_generator *gen, kiln_context *ctx,
                              kiln_random_kind kind, double a, double b, kiln_operand out,
                              kiln_stream *stream) {
  KILN_CHECK_ARG(gen);
  kiln_dtype dtype = KILN_DTYPE_COUNT;
  KILN_RETURN_IF_ERROR(output_dtype(ctx, &out, &dtype));
  if (dtype != KILN_FLOAT16 && dtype != KILN_FLOAT32 && dtype != KILN_FLOAT64)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "random %s: the output dtype is %s; it must be float16, float32 or "
                          "float64", kind_names[kind], kiln_dtype_name(dtype));
  if (!isfinite(a) || !isfinite(b))
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "random %s: parameters must be finite (got %g, %g)", kind_names[kind],
                          a, b);
  double limit = dtype == KILN_FLOAT64 ? DBL_MAX : FLT_MAX;
  if (fabs(a) > limit || fabs(b) > limit)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "random %s: parameters %g, %g do not fit the output's %s",
                          kind_names[kind], a, b, kiln_dtype_name(dtype));
  kiln_random_draw d = {.kind = kind, .dtype = dtype, .a = a, .b = b};
  return run_draw(gen, ctx, &d, &out, stream);
}

kiln_status kiln_random_uniform(kiln_random_generator *gen, kiln_context *ctx, double low,
                                double high, kiln_operand out, kiln_stream *stream) {
  if (!(low < high))
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "random uniform: low (%g) must be below high (%g)", low, high);
  return float_draw(gen, ctx, KILN_RANDOM_UNIFORM, low, high - low, out, stream);
}

kiln_status kiln_random_standard_normal(kiln_random_generator *gen, kiln_context *ctx,
                                        kiln_operand out, kiln_stream *stream) {
  return float_draw(gen, ctx, KILN_RANDOM_NORMAL, 0.0, 1.0, out, stream);
}

/* A draw whose parameter `name` (std, sigma, scale) must be >= 0. */
static kiln_status scaled_draw(kiln_random_generator *gen, kiln_context *ctx,
                               kiln_random_kind kind, double a, double b, const char *name,
                               double value, kiln_operand out, kiln_stream *stream) {
  if (!(value >= 0))
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "random %s: %s (%g) must be >= 0",
                          kind_names[kind], name, value);
  return float_draw(gen, ctx, kind, a, b, out, stream);
}

kiln_status kiln_random_normal(kiln_random_generator *gen, kiln_context *ctx, double mean,
                               double std, kiln_operand out, kiln_stream *stream) {
  return scaled_draw(gen, ctx, KILN_RANDOM_NORMAL, mean, std, "std", std, out, stream);
}

kiln_status kiln_random_lognormal(kiln_random_generator *gen, kiln_context *ctx, double mean,
                                  double sigma, kiln_operand out, kiln_stream *stream) {
  return scaled_draw(gen, ctx, KILN_RANDOM_LOGNORMAL, mean, sigma, "sigma", sigma, out, stream);
}

kiln_status kiln_random_exponential(kiln_random_generator *gen, kiln_context *ctx, double scale,
                                    kiln_operand out, kiln_stream *stream) {
  return scaled_draw(gen, ctx, KILN_RANDOM_EXPONENTIAL, scale, 0.0, "scale", scale, out, stream);
}

/* An integer dtype's bounds, as 64-bit patterns; 0 for other dtypes. */
static int integer_bounds(kiln_dtype dtype, int64_t *min, uint64_t *max) {
  switch (dtype) {
  case KILN_BOOL: *min = 0; *max = 1; return 1;
  case KILN_INT8: *min = INT8_MIN; *max = INT8_MAX; return 1;
  case KILN_UINT8: *min = 0; *max = UINT8_MAX; return 1;
  case KILN_INT16: *min = INT16_MIN; *max = INT16_MAX; return 1;
  case KILN_UINT16: *min = 0; *max = UINT16_MAX; return 1;
  case KILN_INT32: *min = INT32_MIN; *max = INT32_MAX; return 1;
  case KILN_UINT32: *min = 0; *max = UINT32_MAX; return 1;
  case KILN_INT64: *min = INT64_MIN; *max = INT64_MAX; return 1;
  case KILN_UINT64: *min = 0; *max = UINT64_MAX; return 1;
  default: return 0;
  }
}

/* [low, last] (last inclusive): low_negative says low < 0 (it is then an
 * int64), else both are read as unsigned. */
static kiln_status integers_draw(kiln_random_generator *gen, kiln_context *ctx, uint64_t low,
                                 uint64_t last, int low_negative, kiln_operand out,
                                 kiln_stream *stream) {
  KILN_CHECK_ARG(gen);
  kiln_dtype dtype = KILN_DTYPE_COUNT;
  KILN_RETURN_IF_ERROR(output_dtype(ctx, &out, &dtype));
  int64_t min;
  uint64_t max;
  if (!integer_bounds(dtype, &min, &max))
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "random integers: the output dtype is %s; it must be an integer dtype "
                          "or bool", kiln_dtype_name(dtype));
  int last_negative = low_negative && (int64_t)last < 0;
  int fits_low = low_negative ? (int64_t)low >= min : low <= max;
  int fits_last = last_negative ? (int64_t)last >= min : last <= max;
  if (!fits_low || !fits_last) {
    if (low_negative)
      return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                            "random integers: the range [%lld, %lld] is not inside %s's",
                            (long long)low, (long long)last, kiln_dtype_name(dtype));
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "random integers: the range [%llu, %llu] is not inside %s's",
                          (unsigned long long)low, (unsigned long long)last,
                          kiln_dtype_name(dtype));
  }
  uint64_t count = last - low + 1; /* 0: 2^64 */
  kiln_random_draw d = {.kind = KILN_RANDOM_INTEGERS, .dtype = dtype, .low = low};
  d.wide = count == 0 || count > ((uint64_t)1 << 32);
  d.range = d.wide ? count : (uint32_t)count; /* 2^32 becomes 0 */
  return run_draw(gen, ctx, &d, &out, stream);
}

kiln_status kiln_random_integers(kiln_random_generator *gen, kiln_context *ctx, int64_t low,
                                 int64_t high, int endpoint, kiln_operand out,
                                 kiln_stream *stream) {
  if (endpoint ? high < low : high <= low)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "random integers: the range [%lld, %lld%s is empty", (long long)low,
                          (long long)high, endpoint ? "]" : ")");
  int64_t last = endpoint ? high : high - 1;
  if (low >= 0)
    return integers_draw(gen, ctx, (uint64_t)low, (uint64_t)last, 0, out, stream);
  return integers_draw(gen, ctx, (uint64_t)low, (uint64_t)last, 1, out, stream);
}

kiln_status kiln_random_integers_u64(kiln_random_generator *gen, kiln_context *ctx, uint64_t low,
                                     uint64_t high, int endpoint, kiln_operand out,
                                     kiln_stream *stream) {
  if (endpoint ? high < low : high <= low)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "random integers: the range [%llu, %llu%s is empty",
                          (unsigned long long)low, (unsigned long long)high,
                          endpoint ? "]" : ")");
  return integers_draw(gen, ctx, low, endpoint ? high : high - 1, 0, out, stream);
}

kiln_status kiln_random_bernoulli(kiln_random_generator *gen, kiln_context *ctx, double p,
                                  kiln_operand out, kiln_stream *stream) {
  KILN_CHECK_ARG(gen);
  if (!(p >= 0 && p <= 1))
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "random bernoulli: p (%g) must be in [0, 1]", p);
  kiln_dtype dtype = KILN_DTYPE_COUNT;
  KILN_RETURN_IF_ERROR(output_dtype(ctx, &out, &dtype));
  if (kiln_dtype_is_complex(dtype))
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "random bernoulli: the output dtype is %s; it must be bool, an "
                          "integer or a real float dtype", kiln_dtype_name(dtype));
  kiln_random_draw d = {.kind = KILN_RANDOM_BERNOULLI, .dtype = dtype};
  d.range = (uint64_t)llround(p * 4294967296.0);
  return run_draw(gen, ctx, &d, &out, stream);
}
