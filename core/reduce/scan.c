/* core/reduce/scan.c: cumulative reductions (kiln_ufunc_scan) and stream
 * compaction (kiln_compact) over the fixed-order scan of
 * core/codegen/scan_tree.c. */
#include <stdio.h>
#include <string.h>

#include "core/reduce/reduce_internal.h"

kiln_status kiln_reduce_flat_view(const kiln_array *a, kiln_stream *stream, kiln_array *view,
                             kiln_array **copy) {
  *copy = NULL;
  if (a->ndim != 1 && !kiln_array_is_contiguous(a)) {
    KILN_RETURN_IF_ERROR(kiln_array_copy(a, copy));
    if (stream) KILN_RETURN_IF_ERROR(kiln_context_synchronize(kiln_array_context(a)));
    a = *copy;
  }
  memset(view, 0, sizeof *view);
  view->buffer = a->buffer;
  view->dtype = a->dtype;
  view->offset = a->offset;
  view->size = a->size;
  view->ndim = 1;
  view->shape[0] = a->size;
  view->strides[0] = a->ndim == 1 ? a->strides[0] : (int64_t)kiln_dtype_size(a->dtype);
  return KILN_OK;
}

/* `a` with dim `axis` moved last (a view struct borrowing a's buffer). */
static void axis_last(const kiln_array *a, int axis, kiln_array *v) {
  memset(v, 0, sizeof *v);
  v->buffer = a->buffer;
  v->dtype = a->dtype;
  v->offset = a->offset;
  v->size = a->size;
  v->ndim = a->ndim;
  for (int d = 0, k = 0; d < a->ndim; d++) {
    if (d == axis) continue;
    v->shape[k] = a->shape[d];
    v->strides[k++] = a->strides[d];
  }
  v->shape[a->ndim - 1] = a->shape[axis];
  v->strides[a->ndim - 1] = a->strides[axis];
}

/* Copies a host output's temporary back once the work is done. */
static kiln_status finish_output(kiln_context *ctx, kiln_stream *stream, const kiln_operand *o,
                                 kiln_array **made) {
  kiln_status status = KILN_OK;
  if (o->kind == KILN_OPERAND_HOST && *made && (*made)->size > 0) {
    if (stream) status = kiln_stream_synchronize(ctx, stream);
    if (status == KILN_OK)
      status = kiln_array_to_host(*made, o->value.host.writable, o->value.host.strides);
  }
  if (o->kind == KILN_OPERAND_NEW && status == KILN_OK) {
    *o->value.result = *made;
    *made = NULL;
  }
  return status;
}

static kiln_status scan(kiln_ufunc *u, kiln_operand input, kiln_operand output,
                        const kiln_scan_options *options, kiln_stream *stream, kiln_ufunc_op *op,
                        kiln_array **owned, kiln_array **copy, kiln_array **made) {
  kiln_dtype in =
      input.kind == KILN_OPERAND_SCALAR ? KILN_DTYPE_COUNT : kiln_reduce_input_dtype(&input);
  KILN_RETURN_IF_ERROR(kiln_ufunc_op_make(u, "scan", in, options && options->has_dtype,
                                          options ? options->dtype : KILN_DTYPE_COUNT, op));
  int exclusive = options && options->exclusive;
  if (exclusive && !op->identity)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "%s: an exclusive scan starts with the identity, and this ufunc has "
                          "none",
                          op->what);
  const kiln_array *a = NULL;
  KILN_RETURN_IF_ERROR(kiln_reduce_to_device(u->ctx, op->what, 0, &input, in, &a, owned));
  kiln_array flat;
  int axis = 0;
  if (!options || options->flatten) {
    KILN_RETURN_IF_ERROR(kiln_reduce_flat_view(a, stream, &flat, copy));
    a = &flat;
  } else {
    axis = options->axis;
    if (axis < -a->ndim || axis >= a->ndim)
      return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                            "%s: axis %d is out of bounds for array of dimension %d", op->what,
                            axis, a->ndim);
    if (axis < 0) axis += a->ndim;
  }
  const kiln_array *out = NULL;
  KILN_RETURN_IF_ERROR(kiln_reduce_prepare_output(u->ctx, op->what, &output, &op->spec.out, a->ndim,
                                                  a->shape, 0, made, &out));
  kiln_array inv, outv;
  axis_last(a, axis, &inv);
  axis_last(out, axis, &outv);
  kiln_rt_scratch scratch = kiln_reduce_scratch_take(&u->lock, &u->reduce_scratch);
  kiln_status status = kiln_scan_run(u->ctx, stream, &op->spec, op->identity, exclusive,
                                     a->ndim - 1, &inv, &outv, &scratch);
  kiln_reduce_scratch_give(&u->lock, &u->reduce_scratch, scratch);
  KILN_RETURN_IF_ERROR(status);
  return finish_output(u->ctx, stream, &output, made);
}

kiln_status kiln_ufunc_scan(kiln_ufunc *ufunc, kiln_operand input, kiln_operand output,
                            const kiln_scan_options *options, kiln_stream *stream) {
  kiln_reduce_clear_new(output);
  KILN_CHECK_ARG(ufunc);
  kiln_ufunc_op op;
  kiln_array *owned = NULL, *copy = NULL, *made = NULL;
  kiln_status status = scan(ufunc, input, output, options, stream, &op, &owned, &copy, &made);
  kiln_ufunc_op_free(&op);
  kiln_array_release(made);
  kiln_array_release(copy);
  kiln_array_release(owned);
  return status;
}

kiln_status kiln_scan_describe(kiln_context *ctx, char *text, size_t size) {
  KILN_CHECK_ARG(ctx);
  KILN_CHECK_ARG(text);
  if (size == 0)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "scan_describe: size must be positive");
  return kiln_scan_explain_path(ctx, text, size);
}

/* ---- compaction ------------------------------------------------------------------ */

typedef struct compact_state {
  kiln_array *owned[2], *copies[2], *made;
} compact_state;

kiln_status kiln_reduce_count_nonzero(kiln_context *ctx, kiln_stream *stream, const kiln_array *a,
                                      int64_t *count) {
  char truth[256], map[320]; /* "nonzero" as a cast to bool says it (complex: either part) */
  kiln_ew_cast_expression(a->dtype, KILN_BOOL, "v0", truth, sizeof truth);
  snprintf(map, sizeof map, "kiln_m = (int64_t)((%s) ? 1 : 0);", truth);
  kiln_rt_spec counting = {.name = "compact_count",
                           .ninputs = 1,
                           .inputs = {a->dtype},
                           .acc = KILN_INT64,
                           .out = KILN_INT64,
                           .map = map,
                           .combine = "return a + b;"};
  kiln_array *total = NULL;
  const kiln_array *in[1] = {a};
  kiln_status status = kiln_array_alloc(ctx, KILN_INT64, 0, NULL, &total);
  if (status == KILN_OK) status = kiln_rt_run(ctx, stream, &counting, 0, 1, in, total, 0, NULL);
  if (status == KILN_OK && stream) status = kiln_stream_synchronize(ctx, stream);
  if (status == KILN_OK) status = kiln_array_to_host(total, count, NULL);
  kiln_array_release(total);
  return status;
}

static kiln_status compact(kiln_context *ctx, kiln_operand input, kiln_operand mask,
                           kiln_operand output, int64_t *count, kiln_stream *stream,
                           compact_state *st) {
  const char *what = "compact";
  const kiln_operand *operands[2] = {&input, &mask};
  const kiln_array *arrays[2];
  kiln_array flat[2];
  for (int j = 0; j < 2; j++) {
    kiln_dtype d = kiln_reduce_input_dtype(operands[j]);
    if (d == KILN_DTYPE_COUNT || operands[j]->kind == KILN_OPERAND_SCALAR)
      return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                            "compact: the %s must be a device array or host memory",
                            j ? "mask" : "input");
    KILN_RETURN_IF_ERROR(
        kiln_reduce_to_device(ctx, what, j, operands[j], d, &arrays[j], &st->owned[j]));
  }
  int same = arrays[0]->ndim == arrays[1]->ndim;
  for (int d = 0; same && d < arrays[0]->ndim; d++)
    same = arrays[0]->shape[d] == arrays[1]->shape[d];
  if (!same) {
    char a[256], b[256];
    kiln_ufunc_format_shape(arrays[0]->ndim, arrays[0]->shape, a, sizeof a);
    kiln_ufunc_format_shape(arrays[1]->ndim, arrays[1]->shape, b, sizeof b);
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "compact: the input has shape %s and the mask %s; they must be equal", a,
                          b);
  }
  for (int j = 0; j < 2; j++)
    KILN_RETURN_IF_ERROR(kiln_reduce_flat_view(arrays[j], stream, &flat[j], &st->copies[j]));
  int64_t n = flat[0].size;
  if (n > 0) KILN_RETURN_IF_ERROR(kiln_reduce_count_nonzero(ctx, stream, &flat[1], count));
  kiln_dtype dtype = flat[0].dtype;
  const kiln_array *out = NULL;
  int64_t shape[1] = {*count};
  KILN_RETURN_IF_ERROR(
      kiln_reduce_prepare_output(ctx, what, &output, &dtype, 1, shape, 1, &st->made, &out));
  if (dtype != flat[0].dtype)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "compact: the output is %s, the input %s; they must be equal",
                          kiln_dtype_name(dtype), kiln_dtype_name(flat[0].dtype));
  if (*count > 0) {
    kiln_scan_line_job job = {
        .kind = KILN_SCAN_LINE_COMPACT, .in = &flat[1], .out = out, .data = &flat[0]};
    KILN_RETURN_IF_ERROR(kiln_scan_line(ctx, stream, &job, NULL));
  }
  return finish_output(ctx, stream, &output, &st->made);
}

kiln_status kiln_compact(kiln_context *ctx, kiln_operand input, kiln_operand mask,
                         kiln_operand output, int64_t *count, kiln_stream *stream) {
  kiln_reduce_clear_new(output);
  KILN_CHECK_ARG(count);
  *count = 0;
  KILN_CHECK_ARG(ctx);
  compact_state st = {{NULL, NULL}, {NULL, NULL}, NULL};
  kiln_status status = compact(ctx, input, mask, output, count, stream, &st);
  for (int j = 0; j < 2; j++) {
    kiln_array_release(st.owned[j]);
    kiln_array_release(st.copies[j]);
  }
  kiln_array_release(st.made);
  return status;
}
