/* core/array/array_item.c: the one element of a size-1 array as a C value
 * (NumPy's .item()). */
#include "core/array/array_internal.h"
#include "core/runtime/error.h"

/* The element's bytes, after checking the array has exactly one. */
static kiln_status read_one(const kiln_array *array, const char *what, void *bytes) {
  KILN_CHECK_ARG(array);
  if (array->size != 1)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "%s: can only convert an array of size 1 to a C scalar (size %lld)",
                          what, (long long)array->size);
  return kiln_array_to_host(array, bytes, NULL);
}

kiln_status kiln_array_item(const kiln_array *array, void *value) {
  KILN_CHECK_ARG(value);
  return read_one(array, "kiln_array_item", value);
}

/* The element of a real array as a double and, for bool and integer
 * dtypes, as an int64 (*wide: a uint64 above INT64_MAX). */
static kiln_status read_real(const kiln_array *array, const char *what, double *real,
                             int64_t *integer, int *wide) {
  KILN_CHECK_ARG(array);
  union {
    uint8_t u8;
    int8_t i8;
    int16_t i16;
    uint16_t u16;
    int32_t i32;
    uint32_t u32;
    int64_t i64;
    uint64_t u64;
    float f32;
    double f64;
  } v;
  KILN_RETURN_IF_ERROR(read_one(array, what, &v));
  *wide = 0;
  switch (array->dtype) {
  case KILN_BOOL: *integer = v.u8 != 0; break;
  case KILN_INT8: *integer = v.i8; break;
  case KILN_UINT8: *integer = v.u8; break;
  case KILN_INT16: *integer = v.i16; break;
  case KILN_UINT16: *integer = v.u16; break;
  case KILN_INT32: *integer = v.i32; break;
  case KILN_UINT32: *integer = v.u32; break;
  case KILN_INT64: *integer = v.i64; break;
  case KILN_UINT64:
    *wide = v.u64 > (uint64_t)INT64_MAX;
    *integer = (int64_t)v.u64;
    *real = (double)v.u64;
    return KILN_OK;
  case KILN_FLOAT16: *real = kiln_float16_to_float(v.u16); return KILN_OK;
  case KILN_FLOAT32: *real = v.f32; return KILN_OK;
  default: *real = v.f64; return KILN_OK;
  }
  *real = (double)*integer;
  return KILN_OK;
}

kiln_status kiln_array_item_float64(const kiln_array *array, double *value) {
  KILN_CHECK_ARG(value);
  KILN_CHECK_ARG(array);
  if (kiln_dtype_is_complex(array->dtype))
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "kiln_array_item_float64: the array is %s; read complex values with "
                          "kiln_array_item",
                          kiln_dtype_name(array->dtype));
  int64_t integer = 0;
  int wide = 0;
  return read_real(array, "kiln_array_item_float64", value, &integer, &wide);
}

kiln_status kiln_array_item_int64(const kiln_array *array, int64_t *value) {
  KILN_CHECK_ARG(value);
  KILN_CHECK_ARG(array);
  if (kiln_dtype_is_float(array->dtype) || kiln_dtype_is_complex(array->dtype))
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "kiln_array_item_int64: the array is %s; use kiln_array_item_float64",
                          kiln_dtype_name(array->dtype));
  double real = 0;
  int wide = 0;
  KILN_RETURN_IF_ERROR(read_real(array, "kiln_array_item_int64", &real, value, &wide));
  if (wide)
    return kiln_error_set(KILN_ERROR_OUT_OF_RANGE, "kiln_array_item_int64: %.0f does not fit int64",
                          real);
  return KILN_OK;
}
