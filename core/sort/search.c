/* core/sort/search.c: kiln_searchsorted, one bisection per value
 * (kernels/builtin/search.kl) over the sorted array in NumPy's promoted
 * dtype, its first steps in a work-group's table of evenly spaced
 * elements. */
#include <string.h>

#include "core/sort/indexing_internal.h"

/* The dtype a weak scalar takes beside an array of `dtype` (NEP 50). */
static kiln_dtype weak_dtype(const kiln_operand *o, kiln_dtype dtype) {
  if (o->kind != KILN_OPERAND_WEAK_SCALAR) return dtype;
  if (o->dtype == KILN_FLOAT64 && !kiln_dtype_is_float(dtype) && !kiln_dtype_is_complex(dtype))
    return KILN_FLOAT64;
  if (o->dtype == KILN_COMPLEX128 && !kiln_dtype_is_complex(dtype)) return KILN_COMPLEX128;
  return dtype;
}

/* Entries of searchsorted's table in local memory (search.kl's
 * SEARCH_TABLE): 8 KiB of the dtype's elements. */
#define SEARCH_TABLE_BYTES 8192

int64_t kiln_ix_search_table(kiln_dtype dtype) {
  return SEARCH_TABLE_BYTES / (int64_t)kiln_dtype_size(dtype);
}

void kiln_ix_search_defines(kiln_dtype dtype, kiln_strbuf *out) {
  kiln_ix_key_defines(dtype, out);
  kiln_strbuf_appendf(out, "#define SEARCH_TABLE %lld\n", (long long)kiln_ix_search_table(dtype));
}

typedef struct search_state {
  kiln_array *owned[3];
  kiln_ix_output out;
  kiln_strbuf defines;
} search_state;

static kiln_status check_sorter(kiln_context *ctx, kiln_stream *stream, const kiln_array *sorter,
                                int64_t length) {
  const char *what = "searchsorted";
  if (sorter->ndim != 1 || sorter->size != length)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "%s: the sorter has %d dims and %lld elements; it must be 1-D with "
                          "the sorted array's %lld",
                          what, sorter->ndim, (long long)sorter->size, (long long)length);
  if (length == 0) return KILN_OK;
  int64_t min = 0, max = 0;
  KILN_RETURN_IF_ERROR(kiln_ix_min_max(ctx, stream, sorter, &min, &max));
  if (min < 0 || max >= length)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "%s: the sorter holds %lld, out of range for a sorted array of %lld "
                          "elements (NumPy: Sorter index out of range)",
                          what, (long long)(min < 0 ? min : max), (long long)length);
  return KILN_OK;
}

static kiln_status search(kiln_context *ctx, kiln_operand sorted, kiln_operand values,
                          const kiln_operand *sorter, kiln_side side, kiln_operand output,
                          kiln_stream *stream, search_state *st) {
  const char *what = "searchsorted";
  kiln_dtype ds = kiln_ix_operand_dtype(&sorted);
  if (ds == KILN_DTYPE_COUNT || sorted.kind == KILN_OPERAND_SCALAR)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "%s: the sorted array must be a device array or host memory", what);
  if (side != KILN_SIDE_LEFT && side != KILN_SIDE_RIGHT)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "%s: side %d is neither left nor right",
                          what, (int)side);
  kiln_dtype scalar = weak_dtype(&values, ds);
  kiln_dtype dv = values.kind == KILN_OPERAND_WEAK_SCALAR ? scalar : kiln_ix_operand_dtype(&values);
  if (dv == KILN_DTYPE_COUNT)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "%s: the values must be a device array, host memory or a scalar", what);
  kiln_dtype common = kiln_ix_promote(ds, dv);
  const kiln_array *a = NULL, *v = NULL, *s = NULL;
  KILN_RETURN_IF_ERROR(
      kiln_ix_input(ctx, what, "sorted array", &sorted, ds, common, stream, &a, &st->owned[0]));
  if (a->ndim != 1)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "%s: the sorted array must be 1-D; it has %d dims", what, a->ndim);
  KILN_RETURN_IF_ERROR(
      kiln_ix_input(ctx, what, "values", &values, scalar, common, stream, &v, &st->owned[1]));
  if (sorter) {
    KILN_RETURN_IF_ERROR(kiln_ix_check_index_dtype(what, "sorter's values",
                                                   kiln_ix_operand_dtype(sorter)));
    KILN_RETURN_IF_ERROR(
        kiln_ix_input(ctx, what, "sorter", sorter, KILN_INT64, KILN_INT64, stream, &s,
                      &st->owned[2]));
    KILN_RETURN_IF_ERROR(check_sorter(ctx, stream, s, a->size));
  }
  KILN_RETURN_IF_ERROR(
      kiln_ix_output_begin(ctx, what, &output, KILN_INT64, v->ndim, v->shape, 0, &st->out));
  int64_t table = kiln_ix_search_table(common);
  kiln_ix_search_defines(common, &st->defines);
  KILN_RETURN_IF_ERROR(kiln_strbuf_status(&st->defines));
  kiln_ix_args args = {0};
  kiln_ix_arg_array(&args, st->out.work);
  kiln_ix_arg_array(&args, a);
  kiln_ix_arg_array(&args, v);
  kiln_ix_arg_array(&args, s ? s : a); /* never read without a sorter */
  kiln_ix_arg_int(&args, a->size);
  kiln_ix_arg_int(&args, s != NULL);
  kiln_ix_arg_int(&args, side == KILN_SIDE_RIGHT);
  /* the table pays its load (per work-group) back where the bisection is
   * long and there are values enough to share it */
  kiln_ix_arg_int(&args, a->size >= 4 * table && v->size >= table);
  KILN_RETURN_IF_ERROR(kiln_ix_launch(ctx, stream, kiln_builtin_search,
                                      kiln_strbuf_text(&st->defines), "kiln_searchsorted",
                                      v->size, &args));
  return kiln_ix_output_finish(ctx, stream, &st->out);
}

kiln_status kiln_searchsorted(kiln_context *ctx, kiln_operand sorted, kiln_operand values,
                              const kiln_operand *sorter, kiln_side side, kiln_operand output,
                              kiln_stream *stream) {
  kiln_reduce_clear_new(output);
  KILN_CHECK_ARG(ctx);
  search_state st;
  memset(&st, 0, sizeof st);
  kiln_status status = search(ctx, sorted, values, sorter, side, output, stream, &st);
  kiln_ix_output_free(&st.out);
  kiln_strbuf_free(&st.defines);
  for (int i = 0; i < 3; i++) kiln_array_release(st.owned[i]);
  return status;
}
