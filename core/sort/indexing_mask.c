/* core/sort/indexing_mask.c: boolean-mask gather and scatter, a[mask] and
 * a[mask] = v, built on the compaction of core/reduce (kiln_compact):
 * the gather compacts a itself; the scatter compacts the flat positions
 * 0..n-1 into the selected ones and puts the values there
 * (kernels/builtin/move.kl). A mask over the leading dims of a selects
 * whole sub-arrays: it is broadcast over the trailing dims first. */
#include <string.h>

#include "core/sort/indexing_internal.h"

typedef struct mask_state {
  kiln_array *owned[2], *mask_view, *selected, *positions, *iota, *shaped;
  kiln_ix_output out;
  kiln_ix_inout io;
} mask_state;

static void mask_state_free(mask_state *st) {
  for (int i = 0; i < 2; i++) kiln_array_release(st->owned[i]);
  kiln_array_release(st->mask_view);
  kiln_array_release(st->selected);
  kiln_array_release(st->positions);
  kiln_array_release(st->iota);
  kiln_array_release(st->shaped);
  kiln_ix_output_free(&st->out);
  kiln_ix_inout_free(&st->io);
}

/* The mask (its shape a's leading dims) broadcast to a's shape
 * (st->mask_view); *inner: the elements each mask entry selects. */
static kiln_status mask_over(kiln_context *ctx, const char *what, const kiln_array *a,
                             const kiln_operand *mask_operand, kiln_stream *stream, mask_state *st,
                             int64_t *inner) {
  kiln_dtype dm = kiln_ix_operand_dtype(mask_operand);
  if (dm == KILN_DTYPE_COUNT || mask_operand->kind == KILN_OPERAND_SCALAR)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "%s: the mask must be a device array or host memory", what);
  const kiln_array *m = NULL;
  KILN_RETURN_IF_ERROR(kiln_ix_input(ctx, what, "mask", mask_operand, dm, KILN_DTYPE_COUNT, stream,
                                     &m, &st->owned[1]));
  int same = m->ndim <= a->ndim;
  for (int d = 0; same && d < m->ndim; d++) same = m->shape[d] == a->shape[d];
  if (!same) {
    char sa[256], sm[256];
    kiln_ufunc_format_shape(a->ndim, a->shape, sa, sizeof sa);
    kiln_ufunc_format_shape(m->ndim, m->shape, sm, sizeof sm);
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "%s: the mask has shape %s and the array %s; the mask's must be the "
                          "array's leading dims (NumPy: boolean index did not match)",
                          what, sm, sa);
  }
  *inner = 1;
  int64_t strides[KILN_MAX_DIMS];
  for (int d = 0; d < a->ndim; d++) {
    strides[d] = d < m->ndim ? m->strides[d] : 0;
    if (d >= m->ndim) *inner *= a->shape[d];
  }
  return kiln_array_view_new(m, m->dtype, a->ndim, a->shape, strides, m->offset, &st->mask_view);
}

static kiln_status mask_select(kiln_context *ctx, kiln_operand a_operand, kiln_operand mask,
                               kiln_operand output, int64_t *count, kiln_stream *stream,
                               mask_state *st) {
  const char *what = "mask_select";
  kiln_dtype da = kiln_ix_operand_dtype(&a_operand);
  if (da == KILN_DTYPE_COUNT || a_operand.kind == KILN_OPERAND_SCALAR)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "%s: the array must be a device array or host memory", what);
  const kiln_array *a = NULL;
  KILN_RETURN_IF_ERROR(kiln_reduce_to_device(ctx, what, 0, &a_operand, da, &a, &st->owned[0]));
  int64_t inner = 1;
  KILN_RETURN_IF_ERROR(mask_over(ctx, what, a, &mask, stream, st, &inner));
  int mask_ndim = kiln_ix_operand_dtype(&mask) != KILN_DTYPE_COUNT && mask.kind == KILN_OPERAND_ARRAY
                      ? kiln_array_ndim(mask.value.array)
                      : mask.value.host.ndim;
  int64_t selected = 0;
  if (mask_ndim == a->ndim) /* a 1-D result: the compaction writes the output itself */
    return kiln_compact(ctx, kiln_operand_array(a), kiln_operand_array(st->mask_view), output,
                        count, stream);
  KILN_RETURN_IF_ERROR(kiln_compact(ctx, kiln_operand_array(a), kiln_operand_array(st->mask_view),
                                    kiln_operand_new(&st->selected), &selected, stream));
  if (inner > 0) {
    *count = selected / inner;
  } else { /* nothing selected per entry: count the mask's own true entries */
    const kiln_array *m = st->owned[1] ? st->owned[1] : mask.value.array;
    KILN_RETURN_IF_ERROR(kiln_compact(ctx, kiln_operand_array(m), kiln_operand_array(m),
                                      kiln_operand_new(&st->positions), count, stream));
  }
  int64_t shape[KILN_MAX_DIMS];
  shape[0] = *count;
  for (int d = mask_ndim; d < a->ndim; d++) shape[1 + d - mask_ndim] = a->shape[d];
  int ndim = 1 + a->ndim - mask_ndim;
  KILN_RETURN_IF_ERROR(kiln_ix_output_begin(ctx, what, &output, da, ndim, shape, 1, &st->out));
  KILN_RETURN_IF_ERROR(kiln_array_reshape(st->selected, ndim, shape, &st->shaped));
  if (st->shaped->size > 0)
    KILN_RETURN_IF_ERROR(kiln_ix_copy(st->out.work, st->shaped, stream));
  return kiln_ix_output_finish(ctx, stream, &st->out);
}

kiln_status kiln_mask_select(kiln_context *ctx, kiln_operand a, kiln_operand mask,
                             kiln_operand output, int64_t *count, kiln_stream *stream) {
  kiln_reduce_clear_new(output);
  KILN_CHECK_ARG(count);
  *count = 0;
  KILN_CHECK_ARG(ctx);
  mask_state st;
  memset(&st, 0, sizeof st);
  kiln_status status = mask_select(ctx, a, mask, output, count, stream, &st);
  mask_state_free(&st);
  return status;
}

static kiln_status mask_assign(kiln_context *ctx, kiln_operand a_operand, kiln_operand mask,
                               kiln_operand values, kiln_stream *stream, mask_state *st) {
  const char *what = "kiln_mask_assign";
  KILN_RETURN_IF_ERROR(kiln_ix_inout_begin(ctx, what, &a_operand, stream, &st->io));
  const kiln_array *a = st->io.work, *v = NULL;
  int64_t inner = 1, selected = 0;
  KILN_RETURN_IF_ERROR(mask_over(ctx, what, a, &mask, stream, st, &inner));
  KILN_RETURN_IF_ERROR(
      kiln_ix_input(ctx, what, "values", &values, a->dtype, a->dtype, stream, &v, &st->owned[0]));
  if (a->size == 0) return KILN_OK;
  /* the flat positions of the selected elements */
  KILN_RETURN_IF_ERROR(kiln_array_alloc(ctx, KILN_INT64, a->ndim, a->shape, &st->iota));
  kiln_ix_args iota = {0};
  kiln_ix_arg_array(&iota, st->iota);
  KILN_RETURN_IF_ERROR(
      kiln_ix_launch(ctx, stream, kiln_builtin_move, "#define WORD uint64_t\n#define WORDS 1\n",
                     "kiln_iota", a->size, &iota));
  KILN_RETURN_IF_ERROR(kiln_compact(ctx, kiln_operand_array(st->iota),
                                    kiln_operand_array(st->mask_view),
                                    kiln_operand_new(&st->positions), &selected, stream));
  if (selected == 0) return KILN_OK;
  if (v->size != 1 && v->size != selected && v->size != inner)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "%s: %lld values for %lld selected elements (give 1, %lld or %lld)",
                          what, (long long)v->size, (long long)selected, (long long)inner,
                          (long long)selected);
  KILN_RETURN_IF_ERROR(
      kiln_ix_put_flat(ctx, stream, a, st->positions, v, KILN_INDEX_RAISE, 1)); /* distinct */
  return kiln_ix_inout_finish(ctx, stream, &st->io);
}

kiln_status kiln_mask_assign(kiln_context *ctx, kiln_operand a, kiln_operand mask,
                             kiln_operand values, kiln_stream *stream) {
  KILN_CHECK_ARG(ctx);
  mask_state st;
  memset(&st, 0, sizeof st);
  kiln_status status = mask_assign(ctx, a, mask, values, stream, &st);
  mask_state_free(&st);
  return status;
}
