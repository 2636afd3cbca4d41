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

kiln_status kiln_array_item_float64(const kiln_array *array, double *value) {
  KILN_CHECK_ARG(value);
  KILN_CHECK_ARG(array);
  if (kiln_dtype_is_complex(array->dtype))
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "kiln_array_item_float64: the array is %s; read complex values with "
                          "kiln_array_item",
                          kiln_dtype_name(array->dtype));
  union {
    uint8_t b;
    int8_t i8;
    uint8_t u8;
    int16_t i16;
    uint16_t u16;
    int32_t i32;
    uint32_t u32;
    int64_t i64;
    uint64_t u64;
    float f32;
    double f64;
  } v;
  KILN_RETURN_IF_ERROR(read_one(array, "kiln_array_item_float64", &v));
  switch (array->dtype) {
  case KILN_BOOL: *value = v.b != 0; break;
  case KILN_INT8: *value = v.i8; break;
  case KILN_UINT8: *value = v.u8; break;
  case KILN_INT16: *value = v.i16; break;
  case KILN_UINT16: *value = v.u16; break;
  case KILN_INT32: *value = v.i32; break;
  case KILN_UINT32: *value = v.u32; break;
  case KILN_INT64: *value = (double)v.i64; break;
  case KILN_UINT64: *value = (double)v.u64; break;
  case KILN_FLOAT16: *value = kiln_float16_to_float(v.u16); break;
  case KILN_FLOAT32: *value = v.f32; break;
  default: *value = v.f64; break;
  }
  return KILN_OK;
}

kiln_status kiln_array_item_int64(const kiln_array *array, int64_t *value) {
  KILN_CHECK_ARG(value);
  KILN_CHECK_ARG(array);
  if (kiln_dtype_is_float(array->dtype) || kiln_dtype_is_complex(array->dtype))
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "kiln_array_item_int64: the array is %s; use "
                          "kiln_array_item_float64",
                          kiln_dtype_name(array->dtype));
  union {
    uint8_t b;
    int8_t i8;
    int16_t i16;
    uint16_t u16;
    int32_t i32;
    uint32_t u32;
    int64_t i64;
    uint64_t u64;
  } v;
  KILN_RETURN_IF_ERROR(read_one(array, "kiln_array_item_int64", &v));
  switch (array->dtype) {
  case KILN_BOOL: *value = v.b != 0; break;
  case KILN_INT8: *value = v.i8; break;
  case KILN_UINT8: *value = v.b; break;
  case KILN_INT16: *value = v.i16; break;
  case KILN_UINT16: *value = v.u16; break;
  case KILN_INT32: *value = v.i32; break;
  case KILN_UINT32: *value = v.u32; break;
  case KILN_UINT64:
    if (v.u64 > (uint64_t)INT64_MAX)
      return kiln_error_set(KILN_ERROR_OUT_OF_RANGE,
                            "kiln_array_item_int64: %llu does not fit int64",
                            (unsigned long long)v.u64);
    *value = (int64_t)v.u64;
    break;
  default: *value = v.i64; break;
  }
  return KILN_OK;
}
