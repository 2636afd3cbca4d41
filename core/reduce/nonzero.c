/* core/reduce/nonzero.c: NumPy's nonzero and argwhere (kiln_nonzero,
 * kiln_argwhere) over the single-pass line scan (core/codegen/scan_line.h):
 * the count, then one scan of (input != 0) that writes the C-order index of
 * each nonzero element as a row of a (count, ndim) int64 array. */
#include <string.h>

#include "core/reduce/reduce_internal.h"

typedef struct nonzero_state {
  kiln_array *owned, *copy, *rows;
} nonzero_state;

/* The (count, ndim) rows of input's nonzero elements into st->rows. */
static kiln_status argwhere(kiln_context *ctx, const char *what, kiln_operand input,
                            int64_t *count, kiln_stream *stream, nonzero_state *st) {
  kiln_dtype d = kiln_reduce_input_dtype(&input);
  if (d == KILN_DTYPE_COUNT || input.kind == KILN_OPERAND_SCALAR)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "%s: the input must be a device array or host memory", what);
  const kiln_array *a = NULL;
  KILN_RETURN_IF_ERROR(kiln_reduce_to_device(ctx, what, 0, &input, d, &a, &st->owned));
  if (a->ndim == 0)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "%s: a 0-d input has no indices (NumPy 2 refuses it too; reshape it "
                          "to 1-D)",
                          what);
  kiln_array flat;
  KILN_RETURN_IF_ERROR(kiln_reduce_flat_view(a, stream, &flat, &st->copy));
  if (flat.size > 0) KILN_RETURN_IF_ERROR(kiln_reduce_count_nonzero(ctx, stream, &flat, count));
  int64_t shape[2] = {*count, a->ndim};
  KILN_RETURN_IF_ERROR(kiln_array_alloc(ctx, KILN_INT64, 2, shape, &st->rows));
  if (*count == 0) return KILN_OK;
  kiln_scan_line_job job = {.kind = KILN_SCAN_LINE_NONZERO,
                            .in = &flat,
                            .out = st->rows,
                            .ndim = a->ndim,
                            .shape = a->shape};
  return kiln_scan_line(ctx, stream, &job, NULL);
}

static void release(nonzero_state *st) {
  kiln_array_release(st->rows);
  kiln_array_release(st->copy);
  kiln_array_release(st->owned);
}

kiln_status kiln_argwhere(kiln_context *ctx, kiln_operand input, kiln_array **out, int64_t *count,
                          kiln_stream *stream) {
  KILN_CHECK_ARG(out);
  *out = NULL;
  KILN_CHECK_ARG(count);
  *count = 0;
  KILN_CHECK_ARG(ctx);
  nonzero_state st = {NULL, NULL, NULL};
  kiln_status status = argwhere(ctx, "argwhere", input, count, stream, &st);
  if (status == KILN_OK) {
    *out = st.rows;
    st.rows = NULL;
  } else {
    *count = 0;
  }
  release(&st);
  return status;
}

kiln_status kiln_nonzero(kiln_context *ctx, kiln_operand input, kiln_array **indices,
                         int64_t *count, kiln_stream *stream) {
  KILN_CHECK_ARG(indices);
  KILN_CHECK_ARG(count);
  *count = 0;
  KILN_CHECK_ARG(ctx);
  nonzero_state st = {NULL, NULL, NULL};
  kiln_status status = argwhere(ctx, "nonzero", input, count, stream, &st);
  int ndim = status == KILN_OK ? (int)kiln_array_shape(st.rows)[1] : 0, made = 0;
  kiln_array *columns[KILN_MAX_DIMS] = {NULL};
  for (; status == KILN_OK && made < ndim; made++)
    status = kiln_array_index(st.rows, 1, made, &columns[made]);
  if (status == KILN_OK) {
    memcpy(indices, columns, sizeof *indices * (size_t)ndim);
  } else {
    for (int d = 0; d < made; d++) kiln_array_release(columns[d]);
    *count = 0;
  }
  release(&st);
  return status;
}
