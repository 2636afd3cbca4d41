/* core/array/array_ranges.c: numpy.arange and numpy.linspace. The values
 * are computed on the host as NumPy's loops compute them (its arange fill
 * functions, its linspace expression in float64) and copied once: a
 * generated kernel would let GPU compilers fuse start + i * delta into an
 * FMA and lose NumPy's bits. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/array/array_internal.h"
#include "core/runtime/error.h"
#include "kiln/creation.h"

/* A double converted to int64 as x86's cvttsd2si does (NumPy's casts on
 * x86): truncated toward zero, INT64_MIN for NaN and values out of range
 * (a plain C cast would be undefined there). */
static int64_t to_int64(double v) {
  if (!(v >= -9223372036854775808.0 && v < 9223372036854775808.0)) return INT64_MIN;
  return (int64_t)v;
}

/* Element i of a host buffer of `dtype` set from a double (integers:
 * truncated toward zero then wrapped, as C's conversions via int64). */
static void store(void *buffer, kiln_dtype dtype, int64_t i, double v) {
  switch (dtype) {
  case KILN_BOOL: ((uint8_t *)buffer)[i] = v != 0; break;
  case KILN_INT8: ((int8_t *)buffer)[i] = (int8_t)to_int64(v); break;
  case KILN_UINT8: ((uint8_t *)buffer)[i] = (uint8_t)to_int64(v); break;
  case KILN_INT16: ((int16_t *)buffer)[i] = (int16_t)to_int64(v); break;
  case KILN_UINT16: ((uint16_t *)buffer)[i] = (uint16_t)to_int64(v); break;
  case KILN_INT32: ((int32_t *)buffer)[i] = (int32_t)to_int64(v); break;
  case KILN_UINT32: ((uint32_t *)buffer)[i] = (uint32_t)to_int64(v); break;
  case KILN_INT64: ((int64_t *)buffer)[i] = to_int64(v); break;
  case KILN_UINT64:
    ((uint64_t *)buffer)[i] = v >= 0 && v < 18446744073709551616.0 ? (uint64_t)v : (uint64_t)to_int64(v);
    break;
  case KILN_FLOAT16: ((uint16_t *)buffer)[i] = kiln_float16_from_double(v); break;
  case KILN_FLOAT32: ((float *)buffer)[i] = (float)v; break;
  default: ((double *)buffer)[i] = v; break;
  }
}

static int is_integer_dtype(kiln_dtype d) {
  return d != KILN_BOOL && !kiln_dtype_is_float(d) && !kiln_dtype_is_complex(d);
}

/* A scalar operand's value; *integer: it is an integer (weak or typed). */
static kiln_status scalar_value(kiln_operand o, const char *what, double *v, int64_t *iv,
                                int *integer) {
  if (o.kind != KILN_OPERAND_SCALAR && o.kind != KILN_OPERAND_WEAK_SCALAR)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "arange: %s must be a scalar operand (kiln_operand_int, _float, ...)",
                          what);
  if (o.dtype >= KILN_DTYPE_COUNT || kiln_dtype_is_complex(o.dtype))
    return kiln_error_set(o.dtype >= KILN_DTYPE_COUNT ? KILN_ERROR_INVALID_ARGUMENT
                                                      : KILN_ERROR_UNIMPLEMENTED,
                          "arange: %s must be a real scalar", what);
  *integer = !kiln_dtype_is_float(o.dtype);
  if (kiln_dtype_is_float(o.dtype)) {
    *v = o.value.f;
    *iv = to_int64(o.value.f);
  } else if (o.dtype == KILN_UINT64 || o.dtype == KILN_UINT32 || o.dtype == KILN_UINT16 ||
             o.dtype == KILN_UINT8) {
    *v = (double)o.value.u;
    *iv = (int64_t)o.value.u;
  } else {
    *v = (double)o.value.i;
    *iv = o.value.i;
  }
  return KILN_OK;
}

kiln_status kiln_arange(kiln_context *ctx, kiln_operand start, kiln_operand stop,
                        kiln_operand step, kiln_dtype dtype, kiln_array **out) {
  KILN_CHECK_ARG(out);
  *out = NULL;
  KILN_CHECK_ARG(ctx);
  double v[3];
  int64_t iv[3];
  int integer[3];
  const kiln_operand ops[3] = {start, stop, step};
  static const char *const names[3] = {"start", "stop", "step"};
  for (int k = 0; k < 3; k++)
    KILN_RETURN_IF_ERROR(scalar_value(ops[k], names[k], &v[k], &iv[k], &integer[k]));
  int all_integer = integer[0] && integer[1] && integer[2];
  /* NumPy 2's choice: int64 for integers, float64 as soon as one is a
   * float (np.arange(np.float32(0), np.float32(2), np.float32(0.3)) is
   * float64 too) */
  if (dtype == KILN_DTYPE_COUNT) dtype = all_integer ? KILN_INT64 : KILN_FLOAT64;
  if (dtype >= KILN_DTYPE_COUNT)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "arange: unknown dtype %d", (int)dtype);
  if (kiln_dtype_is_complex(dtype))
    return kiln_error_set(KILN_ERROR_UNIMPLEMENTED, "arange: complex dtypes are not implemented");
  if (v[2] == 0) return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "arange: step is zero");
  /* NumPy's length: ceil((stop - start) / step), the difference exact for
   * integers */
  double span = all_integer ? (double)((long double)iv[1] - (long double)iv[0]) : v[1] - v[0];
  double ratio = span / v[2];
  if (isnan(ratio) || isinf(ratio))
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "arange: the length (stop - start) / step is %g", ratio);
  double length_d = ratio == 0 && span != 0 ? (signbit(ratio) ? 0 : 1) : ceil(ratio);
  if (length_d > 4611686018427387904.0)
    return kiln_error_set(KILN_ERROR_OUT_OF_RANGE, "arange: %g elements", length_d);
  int64_t n = length_d > 0 ? (int64_t)length_d : 0;
  if (dtype == KILN_BOOL && n > 2)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "arange: no fill-function for data-type bool (%lld elements; at most 2)",
                          (long long)n);
  size_t itemsize = kiln_dtype_size(dtype);
  void *buffer = malloc((size_t)(n > 0 ? n : 1) * itemsize);
  if (!buffer)
    return kiln_error_set(KILN_ERROR_OUT_OF_MEMORY, "arange: out of host memory (%lld elements)",
                          (long long)n);
  if (is_integer_dtype(dtype) && all_integer) {
    /* start + i * step in int64, wrapped into the dtype */
    for (int64_t i = 0; i < n; i++) {
      int64_t value = (int64_t)((uint64_t)iv[0] + (uint64_t)i * (uint64_t)iv[2]);
      memcpy((char *)buffer + i * itemsize, &value, itemsize); /* little-endian truncation */
    }
  } else {
    if (n > 0) store(buffer, dtype, 0, v[0]);
    if (n > 1) store(buffer, dtype, 1, v[0] + v[2]);
    if (dtype == KILN_FLOAT32) {
      float *f = buffer;
      float first = f[0], delta = n > 1 ? f[1] - f[0] : 0;
      for (int64_t i = 2; i < n; i++) {
        volatile float product = (float)i * delta; /* NumPy's start + i*delta, unfused */
        f[i] = first + product;
      }
    } else if (dtype == KILN_FLOAT16) {
      uint16_t *h = buffer;
      float first = kiln_float16_to_float(h[0]);
      float delta = n > 1 ? kiln_float16_to_float(h[1]) - first : 0;
      for (int64_t i = 2; i < n; i++) {
        volatile float product = (float)i * delta;
        h[i] = kiln_float16_from_float(first + product);
      }
    } else if (dtype == KILN_FLOAT64) {
      double *d = buffer;
      double first = d[0], delta = n > 1 ? d[1] - d[0] : 0;
      for (int64_t i = 2; i < n; i++) {
        volatile double product = (double)i * delta;
        d[i] = first + product;
      }
    } else {
      /* an integer dtype from float arguments: NumPy casts start and
       * start + step, then steps by their difference */
      int64_t first = to_int64(v[0]), second = to_int64(v[0] + v[2]);
      for (int64_t i = 0; i < n; i++) {
        int64_t value = (int64_t)((uint64_t)first + (uint64_t)i * ((uint64_t)second - (uint64_t)first));
        memcpy((char *)buffer + i * itemsize, &value, itemsize);
      }
    }
  }
  kiln_status status = kiln_array_from_host(ctx, dtype, 1, &n, NULL, buffer, out);
  free(buffer);
  return status;
}

kiln_status kiln_linspace(kiln_context *ctx, double start, double stop, int64_t num, int endpoint,
                          kiln_dtype dtype, double *step_out, kiln_array **out) {
  KILN_CHECK_ARG(out);
  *out = NULL;
  KILN_CHECK_ARG(ctx);
  if (num < 0)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "linspace: number of samples, %lld, must be non-negative",
                          (long long)num);
  if (dtype == KILN_DTYPE_COUNT) dtype = KILN_FLOAT64;
  if (dtype > KILN_DTYPE_COUNT)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "linspace: unknown dtype %d", (int)dtype);
  if (kiln_dtype_is_complex(dtype))
    return kiln_error_set(KILN_ERROR_UNIMPLEMENTED, "linspace: complex dtypes are not implemented");
  int64_t div = endpoint ? num - 1 : num;
  double delta = stop - start, step = div > 0 ? delta / (double)div : NAN;
  size_t itemsize = kiln_dtype_size(dtype);
  void *buffer = malloc((size_t)(num > 0 ? num : 1) * itemsize);
  if (!buffer)
    return kiln_error_set(KILN_ERROR_OUT_OF_MEMORY, "linspace: out of host memory");
  for (int64_t i = 0; i < num; i++) {
    volatile double y = (double)i; /* NumPy's y = arange(num) in float64 */
    if (div > 0) y = step == 0 ? y / (double)div * delta : y * step;
    else y = y * delta;
    double value = y + start;
    if (endpoint && num > 1 && i == num - 1) value = stop;
    if (is_integer_dtype(dtype)) value = floor(value);
    store(buffer, dtype, i, value);
  }
  if (step_out) *step_out = step;
  kiln_status status = kiln_array_from_host(ctx, dtype, 1, &num, NULL, buffer, out);
  free(buffer);
  return status;
}
