/* core/stats/stats_common.c: see stats_internal.h. */
#include "core/stats/stats_internal.h"

#include "core/array/array_internal.h"
#include "core/runtime/context_internal.h"
#include "core/runtime/error.h"

kiln_status kiln_stats_input(kiln_context *ctx, const char *what, kiln_operand input,
                             kiln_array **x) {
  *x = NULL;
  if (!ctx) return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "%s: ctx is NULL", what);
  if (input.kind == KILN_OPERAND_ARRAY) {
    if (!input.value.array)
      return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "%s: the input array is NULL", what);
    if (kiln_array_context(input.value.array) != ctx)
      return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                            "%s: the input array belongs to another context", what);
    *x = kiln_array_retain((kiln_array *)input.value.array);
    return KILN_OK;
  }
  if (input.kind == KILN_OPERAND_HOST) {
    if (!input.value.host.data && input.value.host.ndim > 0) {
      int64_t size = 1;
      for (int i = 0; i < input.value.host.ndim && input.value.host.shape; i++)
        size *= input.value.host.shape[i];
      if (size != 0)
        return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "%s: the host input's data is NULL",
                              what);
    }
    return kiln_array_from_host(ctx, input.dtype, input.value.host.ndim, input.value.host.shape,
                                input.value.host.strides, input.value.host.data, x);
  }
  return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                        "%s: the input must be a device array or host memory (operand kind %d)",
                        what, (int)input.kind);
}

kiln_dtype kiln_stats_float_dtype(kiln_dtype input) {
  return kiln_dtype_is_float(input) || kiln_dtype_is_complex(input) ? input : KILN_FLOAT64;
}

kiln_dtype kiln_stats_accumulator(kiln_dtype result) {
  return result == KILN_FLOAT16 ? KILN_FLOAT32 : result;
}

kiln_dtype kiln_stats_real(kiln_dtype dtype) {
  return kiln_dtype_is_complex(dtype) ? kiln_dtype_component(dtype) : dtype;
}

kiln_status kiln_stats_deliver(kiln_ufunc *ufunc, int nin, const kiln_operand *inputs,
                               kiln_operand output, kiln_dtype dtype,
                               const kiln_array *shape_like, kiln_stream *stream) {
  if (output.kind != KILN_OPERAND_NEW) return kiln_ufunc_call(ufunc, nin, inputs, 1, &output, stream);
  if (!output.value.result)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "the new output's pointer is NULL");
  *output.value.result = NULL;
  kiln_array *result = NULL;
  KILN_RETURN_IF_ERROR(kiln_array_empty(kiln_array_context(shape_like), dtype,
                                        kiln_array_ndim(shape_like), kiln_array_shape(shape_like),
                                        &result));
  kiln_operand out = kiln_operand_array(result);
  kiln_status status = kiln_ufunc_call(ufunc, nin, inputs, 1, &out, stream);
  if (status != KILN_OK) kiln_array_release(result);
  else *output.value.result = result;
  return status;
}

kiln_operand kiln_stats_count(kiln_context *ctx, int64_t count) {
  return ctx->info.has_double ? kiln_operand_int64(count) : kiln_operand_int(count);
}

kiln_reduce_options kiln_stats_options(const kiln_reduce_options *options, kiln_dtype dtype,
                                       int keepdims) {
  kiln_reduce_options o = options ? *options : kiln_reduce_all();
  o.has_dtype = 1;
  o.dtype = dtype;
  if (keepdims) o.keepdims = 1;
  return o;
}
