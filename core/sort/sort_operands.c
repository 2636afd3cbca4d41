/* core/sort/sort_operands.c: the inputs and outputs of the sorting calls:
 * operands made device arrays laid out as the kernels want them (the
 * sorted axis last, C-contiguous), and results written to any output. */
#include <stdio.h>
#include <string.h>

#include "core/reduce/reduce_internal.h"
#include "core/sort/sort_internal.h"

/* axes moving `axis` last, the others in order */
static void axis_last_order(int ndim, int axis, int *axes) {
  for (int d = 0, k = 0; d < ndim; d++)
    if (d != axis) axes[k++] = d;
  if (ndim > 0) axes[ndim - 1] = axis;
}

kiln_status kiln_sort_input_prepare(kiln_context *ctx, const char *what, const char *name,
                                    const kiln_operand *o, int flatten, int axis,
                                    kiln_stream *stream, kiln_sort_input *in) {
  memset(in, 0, sizeof *in);
  if (o->kind != KILN_OPERAND_ARRAY && o->kind != KILN_OPERAND_HOST)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "%s: the %s must be a device array or host memory", what, name);
  if (o->kind == KILN_OPERAND_ARRAY && o->value.array &&
      kiln_array_context(o->value.array) != ctx)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "%s: the %s is an array of another context",
                          what, name);
  KILN_RETURN_IF_ERROR(
      kiln_reduce_to_device(ctx, what, 0, o, KILN_DTYPE_COUNT, &in->array, &in->owned));
  const kiln_array *a = in->array;
  if (flatten) {
    in->ndim = 1;
    in->shape[0] = a->size;
    in->axis = 0;
  } else {
    if (axis < -a->ndim || axis >= a->ndim)
      return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                            "%s: axis %d is out of bounds for the %s, an array of dimension %d",
                            what, axis, name, a->ndim);
    in->axis = axis < 0 ? axis + a->ndim : axis;
    in->ndim = a->ndim;
    memcpy(in->shape, a->shape, sizeof(int64_t) * (size_t)a->ndim);
  }
  in->row_len = in->shape[in->axis];
  in->rows = in->row_len > 0 ? a->size / in->row_len : 0;
  if (kiln_array_is_contiguous(a) && (flatten || in->axis == a->ndim - 1)) {
    in->src = kiln_array_retain((kiln_array *)a);
    return KILN_OK;
  }
  int axes[KILN_MAX_DIMS];
  axis_last_order(a->ndim, in->axis, axes);
  kiln_array *view = NULL;
  if (flatten) /* C order of the input itself */
    view = kiln_array_retain((kiln_array *)a);
  else
    KILN_RETURN_IF_ERROR(kiln_array_transpose(a, axes, &view));
  kiln_status status = kiln_array_copy(view, &in->src);
  kiln_array_release(view);
  /* the copy is on the default stream, which another stream does not wait for */
  if (status == KILN_OK && stream) status = kiln_context_synchronize(ctx);
  return status;
}

void kiln_sort_input_free(kiln_sort_input *in) {
  kiln_array_release(in->src);
  kiln_array_release(in->owned);
  memset(in, 0, sizeof *in);
}

/* What fills a C-contiguous device array of the result's shape (the
 * sorted axis last). */
typedef kiln_status (*fill_fn)(kiln_context *ctx, kiln_stream *stream, const kiln_array *dst,
                               const void *data);

typedef struct gather_fill {
  const kiln_array *src, *perm;
  int64_t row_len;
} gather_fill;

static kiln_status fill_gather(kiln_context *ctx, kiln_stream *stream, const kiln_array *dst,
                               const void *data) {
  const gather_fill *g = data;
  return kiln_sort_gather(ctx, stream, g->src, g->perm, g->src ? dst : NULL,
                          g->src ? NULL : dst, g->row_len);
}

static kiln_status fill_sorted(kiln_context *ctx, kiln_stream *stream, const kiln_array *dst,
                               const void *data) {
  (void)ctx;
  (void)stream;
  return kiln_sort_values_by_keys(data, dst);
}

/* out (any view) gets what fill writes: straight into it when its
 * axis-last order is contiguous, else through a contiguous temporary. */
static kiln_status write_into(kiln_context *ctx, const kiln_array *out, const kiln_sort_input *in,
                              fill_fn fill, const void *data, kiln_stream *stream) {
  int axes[KILN_MAX_DIMS];
  axis_last_order(in->ndim, in->axis, axes);
  kiln_array *dst = NULL, *tmp = NULL;
  KILN_RETURN_IF_ERROR(kiln_array_transpose(out, axes, &dst));
  kiln_status status = KILN_OK;
  if (kiln_array_is_contiguous(dst)) {
    status = kiln_buffer_use_on_stream(dst->buffer, stream);
    if (status == KILN_OK) status = fill(ctx, stream, dst, data);
  } else {
    status = kiln_array_alloc(ctx, dst->dtype, dst->ndim, dst->shape, &tmp);
    if (status == KILN_OK) status = kiln_buffer_use_on_stream(tmp->buffer, stream);
    if (status == KILN_OK) status = fill(ctx, stream, tmp, data);
    /* into place on the same stream, which the caller waits for */
    if (status == KILN_OK) status = kiln_buffer_use_on_stream(dst->buffer, stream);
    if (status == KILN_OK) status = kiln_ew_copy_on(dst, tmp, stream);
  }
  kiln_array_release(tmp);
  kiln_array_release(dst);
  return status;
}

/* The output prepared (new, device or host, of in's shape and exactly
 * `dtype`), filled by fill when there are n > 0 elements, and handed over. */
static kiln_status write_result(kiln_context *ctx, const char *what, const char *name,
                                const kiln_operand *o, kiln_dtype dtype, const kiln_sort_input *in,
                                int64_t n, fill_fn fill, const void *data, kiln_stream *stream) {
  kiln_dtype result = dtype;
  kiln_array *made = NULL;
  const kiln_array *out = NULL;
  char label[160];
  snprintf(label, sizeof label, "%s (%s)", what, name);
  KILN_RETURN_IF_ERROR(
      kiln_reduce_prepare_output(ctx, label, o, &result, in->ndim, in->shape, 0, &made, &out));
  kiln_status status = KILN_OK;
  if (result != dtype)
    status = kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "%s: the %s is %s; it must be %s", what,
                            name, kiln_dtype_name(result), kiln_dtype_name(dtype));
  if (status == KILN_OK && n > 0) status = write_into(ctx, out, in, fill, data, stream);
  if (status == KILN_OK && o->kind == KILN_OPERAND_HOST && made->size > 0) {
    if (stream) status = kiln_stream_synchronize(ctx, stream);
    if (status == KILN_OK)
      status = kiln_array_to_host(made, o->value.host.writable, o->value.host.strides);
  }
  if (status == KILN_OK && o->kind == KILN_OPERAND_NEW) {
    *o->value.result = made;
    made = NULL;
  }
  kiln_array_release(made);
  return status;
}

kiln_status kiln_sort_write_output(kiln_context *ctx, const char *what, const char *name,
                                   const kiln_operand *o, kiln_dtype dtype,
                                   const kiln_sort_input *in, const kiln_array *src,
                                   const kiln_array *perm, int64_t row_len, kiln_stream *stream) {
  gather_fill g = {src, perm, row_len};
  return write_result(ctx, what, name, o, dtype, in, perm ? perm->size : src->size, fill_gather,
                      &g, stream);
}

kiln_status kiln_sort_write_sorted(kiln_context *ctx, const char *what, const char *name,
                                   const kiln_operand *o, const kiln_sort_input *in,
                                   const kiln_sort_job *job, kiln_stream *stream) {
  return write_result(ctx, what, name, o, in->array->dtype, in, in->src->size, fill_sorted, job,
                      stream);
}
