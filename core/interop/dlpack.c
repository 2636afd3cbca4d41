/* core/interop/dlpack.c: DLPack export and import (the DLManagedTensor
 * ABI) over the native handles of native.c. Each backend names its DLPack
 * device type (kiln_backend_ops.dlpack_device_type), so this file needs no
 * backend names. */
#include <stdlib.h>
#include <string.h>

#include <dlpack/dlpack.h>

#include "core/array/array_internal.h"
#include "core/runtime/error.h"
#include "kiln/interop.h"

/* kDLBool of DLDataTypeCode: added in DLPack 0.8 (the 0.6 header lacks
 * it), the same value in every later header. */
enum { KILN_DL_BOOL = 6 };

/* An exported tensor and what it points into. */
typedef struct dlpack_export {
  DLManagedTensor managed;
  int64_t shape[KILN_MAX_DIMS];
  int64_t strides[KILN_MAX_DIMS]; /* elements */
  kiln_array *array;              /* one reference, dropped by the deleter */
} dlpack_export;

static void dlpack_export_delete(DLManagedTensor *managed) {
  if (!managed) return;
  dlpack_export *export = managed->manager_ctx;
  kiln_array_release(export->array);
  free(export);
}

static DLDataType dlpack_dtype(kiln_dtype dtype) {
  DLDataType t = {.code = kDLInt, .bits = (uint8_t)(8 * kiln_dtype_size(dtype)), .lanes = 1};
  if (dtype == KILN_BOOL) t.code = KILN_DL_BOOL;
  else if (kiln_dtype_is_float(dtype)) t.code = kDLFloat;
  else if (kiln_dtype_is_complex(dtype)) t.code = kDLComplex; /* bits: both parts, 64 or 128 */
  else if (dtype == KILN_UINT8 || dtype == KILN_UINT16 || dtype == KILN_UINT32 ||
           dtype == KILN_UINT64)
    t.code = kDLUInt;
  return t;
}

static kiln_status kiln_dtype_of_dlpack(DLDataType t, kiln_dtype *out) {
  for (int d = 0; d < KILN_DTYPE_COUNT; d++) {
    DLDataType k = dlpack_dtype((kiln_dtype)d);
    if (t.code == k.code && t.bits == k.bits && t.lanes == 1) {
      *out = (kiln_dtype)d;
      return KILN_OK;
    }
  }
  return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                        "DLPack dtype (code %u, %u bits, %u lanes) has no kiln dtype (kiln "
                        "takes int/uint 8..64, float 16/32/64, complex 64/128 and bool, one lane)",
                        (unsigned)t.code, (unsigned)t.bits, (unsigned)t.lanes);
}

/* The DLPack device id of ctx: the native ordinal where the backend has
 * one, else kiln's device index. */
static kiln_status dlpack_device(kiln_context *ctx, DLDevice *device, int *memory_objects) {
  if (!ctx->ops->native_handles || !ctx->ops->dlpack_device_type)
    return kiln_error_set(KILN_ERROR_UNIMPLEMENTED, "the %s backend has no DLPack device type",
                          ctx->ops->name);
  kiln_backend_native native;
  KILN_RETURN_IF_ERROR(ctx->ops->native_handles(ctx->device, NULL, &native));
  device->device_type = (DLDeviceType)ctx->ops->dlpack_device_type;
  device->device_id = native.ordinal >= 0 ? native.ordinal : ctx->info.index;
  *memory_objects = native.memory_objects;
  return KILN_OK;
}

kiln_status kiln_array_to_dlpack(const kiln_array *array, void **managed_tensor) {
  KILN_CHECK_ARG(managed_tensor);
  *managed_tensor = NULL;
  KILN_CHECK_ARG(array);
  kiln_context *ctx = array->buffer->ctx;
  DLDevice device = {0};
  int memory_objects = 0;
  KILN_RETURN_IF_ERROR(dlpack_device(ctx, &device, &memory_objects));
  kiln_native_memory memory;
  KILN_RETURN_IF_ERROR(kiln_array_native(array, &memory));
  int64_t itemsize = (int64_t)kiln_dtype_size(array->dtype);
  dlpack_export *export = calloc(1, sizeof *export);
  if (!export) return kiln_error_set(KILN_ERROR_OUT_OF_MEMORY, "out of host memory");
  for (int d = 0; d < array->ndim; d++) {
    /* kiln's views always step whole elements; checked all the same */
    if (array->strides[d] % itemsize != 0) {
      free(export);
      return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                            "axis %d has a stride of %lld bytes, not a whole number of %s "
                            "elements: DLPack strides count elements",
                            d, (long long)array->strides[d], kiln_dtype_name(array->dtype));
    }
    export->shape[d] = array->shape[d];
    export->strides[d] = array->strides[d] / itemsize;
  }
  DLTensor *t = &export->managed.dl_tensor;
  if (memory_objects) {
    t->data = memory.object;
    t->byte_offset = (uint64_t)memory.offset;
  } else {
    t->data = memory.address ? (void *)(uintptr_t)(memory.address + (uint64_t)memory.offset)
                             : NULL;
    t->byte_offset = 0;
  }
  t->device = device;
  t->ndim = array->ndim;
  t->dtype = dlpack_dtype(array->dtype);
  t->shape = export->shape;
  t->strides = export->strides;
  export->array = kiln_array_retain((kiln_array *)array);
  export->managed.manager_ctx = export;
  export->managed.deleter = dlpack_export_delete;
  *managed_tensor = &export->managed;
  return KILN_OK;
}

/* The release callback of an imported tensor. */
static void dlpack_import_release(void *managed_tensor) {
  DLManagedTensor *managed = managed_tensor;
  if (managed->deleter) managed->deleter(managed);
}

kiln_status kiln_array_from_dlpack(kiln_context *ctx, void *managed_tensor, kiln_array **out) {
  KILN_CHECK_ARG(out);
  *out = NULL;
  KILN_CHECK_ARG(ctx);
  KILN_CHECK_ARG(managed_tensor);
  DLManagedTensor *managed = managed_tensor;
  const DLTensor *t = &managed->dl_tensor;
  DLDevice device = {0};
  int memory_objects = 0;
  KILN_RETURN_IF_ERROR(dlpack_device(ctx, &device, &memory_objects));
  if (t->device.device_type != device.device_type || t->device.device_id != device.device_id)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "DLPack tensor on device type %d id %d, but the %s context is "
                          "device type %d id %d%s",
                          (int)t->device.device_type, (int)t->device.device_id, ctx->ops->name,
                          (int)device.device_type, (int)device.device_id,
                          t->device.device_type == kDLCPU
                              ? " (host memory: copy it with kiln_array_from_host)"
                              : "");
  kiln_dtype dtype = KILN_DTYPE_COUNT;
  KILN_RETURN_IF_ERROR(kiln_dtype_of_dlpack(t->dtype, &dtype));
  if (t->ndim < 0 || t->ndim > KILN_MAX_DIMS || (t->ndim > 0 && !t->shape))
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "DLPack tensor has %d dims (kiln takes 0..%d, with a shape)",
                          (int)t->ndim, KILN_MAX_DIMS);
  int64_t size;
  KILN_RETURN_IF_ERROR(kiln_shape_validate(dtype, t->ndim, t->shape, &size));
  int64_t itemsize = (int64_t)kiln_dtype_size(dtype);
  int64_t strides[KILN_MAX_DIMS];
  if (t->strides) {
    for (int d = 0; d < t->ndim; d++)
      if (__builtin_mul_overflow(t->strides[d], itemsize, &strides[d]))
        return kiln_error_set(KILN_ERROR_OUT_OF_RANGE,
                              "DLPack stride %lld of axis %d overflows as bytes",
                              (long long)t->strides[d], d);
  } else {
    kiln_shape_c_strides(t->ndim, t->shape, itemsize, strides);
  }
  kiln_native_memory memory = {0};
  if (size > 0) {
    if (!t->data)
      return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "DLPack tensor of %lld elements has no "
                            "data", (long long)size);
    /* DLPack gives no allocation size: the memory is what the elements reach */
    int64_t low, high;
    KILN_RETURN_IF_ERROR(kiln_view_extent(t->ndim, t->shape, strides, &low, &high));
    if (t->byte_offset > (uint64_t)INT64_MAX - (uint64_t)(high + itemsize))
      return kiln_error_set(KILN_ERROR_OUT_OF_RANGE, "DLPack byte_offset %llu too large",
                            (unsigned long long)t->byte_offset);
    if (memory_objects) {
      memory.object = t->data;
      memory.offset = (int64_t)t->byte_offset;
      memory.bytes = (size_t)(memory.offset + high + itemsize);
    } else {
      memory.address = (uint64_t)(uintptr_t)t->data + t->byte_offset + (uint64_t)low;
      memory.offset = -low;
      memory.bytes = (size_t)(high - low + itemsize);
    }
  }
  return kiln_array_wrap_native(ctx, &memory, dtype, t->ndim, t->shape, strides,
                                dlpack_import_release, managed, out);
}
