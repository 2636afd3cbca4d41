/* core/sort/unique.c: kiln_unique (NumPy's np.unique), two paths.
 *
 * Values (and counts) alone: the input sorted as kiln_sort sorts it (the
 * keys alone where kiln_sort_keys_alone, else by permutation and a
 * gather), flags where a run of equal values starts (unique.kl), and the
 * one line scan compacts the sorted values at the flags (COMPACT) and,
 * for counts, the run starts (NONZERO); counts are differences of run
 * starts. No index moves with the keys: about the sort of the keys alone
 * plus three light passes.
 *
 * First indices or the inverse: the stable sort permutation, flags where
 * the sorted value changes, their add-scan (the one scan,
 * kiln_ufunc_scan) numbers the unique values, and one kernel writes the
 * values, first indices, run starts and the inverse. */
#include <stdio.h>
#include <string.h>

#include "core/codegen/scan_line.h"
#include "core/reduce/reduce_internal.h"
#include "core/sort/indexing_internal.h"
#include "core/sort/sort_internal.h"

#define WHAT "unique"

typedef struct unique_state {
  kiln_sort_input in;
  kiln_array *perm, *flags, *ids, *values, *first, *starts, *inverse, *counts, *last, *sorted;
  kiln_ufunc *add;
} unique_state;

static kiln_status alloc_1d(kiln_context *ctx, kiln_stream *stream, kiln_dtype dtype, int64_t n,
                            kiln_array **out) {
  KILN_RETURN_IF_ERROR(kiln_array_alloc(ctx, dtype, 1, &n, out));
  return kiln_buffer_use_on_stream((*out)->buffer, stream);
}

/* Checks output *o (1-D, `dtype`, at least `n` elements, or exactly when
 * exact) before anything is written. */
static kiln_status check_output(const char *name, const kiln_operand *o, kiln_dtype dtype,
                                int64_t n, int exact) {
  if (o->kind == KILN_OPERAND_NEW) {
    if (!o->value.result)
      return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, WHAT ": the %s is kiln_operand_new(NULL)",
                            name);
    return KILN_OK;
  }
  int ndim;
  const int64_t *shape;
  kiln_dtype have;
  if (o->kind == KILN_OPERAND_ARRAY && o->value.array) {
    ndim = kiln_array_ndim(o->value.array);
    shape = kiln_array_shape(o->value.array);
    have = kiln_array_dtype(o->value.array);
  } else if (o->kind == KILN_OPERAND_HOST && o->value.host.writable) {
    ndim = o->value.host.ndim;
    shape = o->value.host.shape;
    have = o->dtype;
  } else {
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          WHAT ": the %s must be kiln_operand_new(), a device array or writable "
                          "host memory (kiln_operand_host_output)",
                          name);
  }
  if (have != dtype)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, WHAT ": the %s is %s; it must be %s", name,
                          kiln_dtype_name(have), kiln_dtype_name(dtype));
  if (ndim != 1 || !shape || (exact ? shape[0] != n : shape[0] < n))
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          WHAT ": the %s must be 1-D with %s%lld elements (there are %lld unique "
                          "values)",
                          name, exact ? "" : "at least ", (long long)n, (long long)n);
  return KILN_OK;
}

/* Writes tmp (contiguous, 1-D) into the first tmp->size elements of *o. */
static kiln_status write_output(kiln_context *ctx, const kiln_operand *o, kiln_array *tmp,
                                kiln_stream *stream) {
  if (o->kind == KILN_OPERAND_NEW) {
    *o->value.result = kiln_array_retain(tmp);
    return KILN_OK;
  }
  if (tmp->size == 0) return KILN_OK;
  if (o->kind == KILN_OPERAND_HOST) {
    if (stream) KILN_RETURN_IF_ERROR(kiln_stream_synchronize(ctx, stream));
    return kiln_array_to_host(tmp, o->value.host.writable, o->value.host.strides);
  }
  kiln_array *head = NULL;
  kiln_slice s = {0, tmp->size, 1};
  KILN_RETURN_IF_ERROR(kiln_array_slice(o->value.array, 1, &s, &head));
  /* into place on the same stream, which the caller waits for */
  kiln_status status = kiln_ix_copy(head, tmp, stream);
  kiln_array_release(head);
  return status;
}

/* Launches radix_sort.kl's `entry` over n items, its program made for
 * values of val_bytes (the permutation's width; 4 where there is none). */
static kiln_status launch(kiln_context *ctx, kiln_stream *stream, const char *entry,
                          int val_bytes, int64_t n, int nargs, const kiln_backend_arg *args) {
  if (n <= 0) return KILN_OK;
  kiln_program *program = NULL;
  KILN_RETURN_IF_ERROR(kiln_sort_program(ctx, entry, 4, val_bytes, 4, 256, &program));
  kiln_backend_launch grid = {.work_dim = 1, .global = {1, 1, 1}, .local = {1, 1, 1}};
  kiln_program_grid_1d(ctx, program, n, &grid.global[0], &grid.local[0]);
  return kiln_program_launch(ctx, program, stream, &grid, nargs, args);
}

/* With first indices or the inverse: by the stable sort permutation. */
static kiln_status unique_by_permutation(kiln_context *ctx, kiln_operand output, int64_t *count,
                                         const kiln_unique_outputs *extra, kiln_stream *stream,
                                         unique_state *st) {
  const kiln_array *src = st->in.src;
  kiln_dtype dtype = st->in.array->dtype;
  int64_t n = src->size;
  const kiln_operand *index = extra->index, *inverse = extra->inverse, *counts = extra->counts;
  kiln_sort_job job = {.ctx = ctx, .stream = stream, .src = src, .row_len = n > 0 ? n : 1,
                       .nseg = n > 0, .max_segment = n};
  KILN_RETURN_IF_ERROR(kiln_sort_permutation(&job, &st->perm));
  int perm_bytes = (int)kiln_dtype_size(st->perm->dtype);
  if (n > 0) {
    kiln_sort_key_format f = kiln_sort_key_format_of(dtype);
    KILN_RETURN_IF_ERROR(alloc_1d(ctx, stream, KILN_INT64, n, &st->flags));
    int32_t kind = (int32_t)f.kind, words = f.words;
    kiln_backend_arg flag_args[6] = {kiln_sort_arg_array(src), kiln_sort_arg_array(st->perm),
                                     kiln_sort_arg_array(st->flags), kiln_sort_arg_scalar(&n, 8),
                                     kiln_sort_arg_scalar(&kind, 4),
                                     kiln_sort_arg_scalar(&words, 4)};
    KILN_RETURN_IF_ERROR(launch(ctx, stream, "sort_unique_flags", perm_bytes, n, 6, flag_args));
    KILN_RETURN_IF_ERROR(kiln_ufunc_builtin(ctx, "add", &st->add));
    KILN_RETURN_IF_ERROR(kiln_ufunc_scan(st->add, kiln_operand_array(st->flags),
                                         kiln_operand_new(&st->ids), NULL, stream));
    KILN_RETURN_IF_ERROR(kiln_array_index(st->ids, 0, n - 1, &st->last));
    if (stream) KILN_RETURN_IF_ERROR(kiln_stream_synchronize(ctx, stream));
    KILN_RETURN_IF_ERROR(kiln_array_to_host(st->last, count, NULL));
  }
  int64_t m = *count;
  KILN_RETURN_IF_ERROR(check_output("output", &output, dtype, m, 0));
  if (index) KILN_RETURN_IF_ERROR(check_output("index", index, KILN_INT64, m, 0));
  if (counts) KILN_RETURN_IF_ERROR(check_output("counts", counts, KILN_INT64, m, 0));
  KILN_RETURN_IF_ERROR(alloc_1d(ctx, stream, dtype, m, &st->values));
  KILN_RETURN_IF_ERROR(alloc_1d(ctx, stream, KILN_INT64, m, &st->starts));
  KILN_RETURN_IF_ERROR(alloc_1d(ctx, stream, KILN_INT64, index ? m : 0, &st->first));
  KILN_RETURN_IF_ERROR(alloc_1d(ctx, stream, KILN_INT64, inverse ? n : 0, &st->inverse));
  KILN_RETURN_IF_ERROR(alloc_1d(ctx, stream, KILN_INT64, counts ? m : 0, &st->counts));
  if (n > 0) {
    int32_t itemsize = (int32_t)kiln_dtype_size(dtype), want_first = index != NULL,
            want_inverse = inverse != NULL;
    kiln_backend_arg args[12] = {
        kiln_sort_arg_array(src),
        kiln_sort_arg_array(st->perm),
        kiln_sort_arg_array(st->flags),
        kiln_sort_arg_array(st->ids),
        kiln_sort_arg_array(st->values),
        kiln_sort_arg_array(index ? st->first : st->starts),
        kiln_sort_arg_array(st->starts),
        kiln_sort_arg_array(inverse ? st->inverse : st->starts),
        kiln_sort_arg_scalar(&n, 8),
        kiln_sort_arg_scalar(&itemsize, 4),
        kiln_sort_arg_scalar(&want_first, 4),
        kiln_sort_arg_scalar(&want_inverse, 4)};
    KILN_RETURN_IF_ERROR(launch(ctx, stream, "sort_unique_scatter", perm_bytes, n, 12, args));
    if (counts) {
      kiln_backend_arg count_args[4] = {kiln_sort_arg_array(st->starts),
                                        kiln_sort_arg_array(st->counts),
                                        kiln_sort_arg_scalar(&m, 8), kiln_sort_arg_scalar(&n, 8)};
      KILN_RETURN_IF_ERROR(launch(ctx, stream, "sort_unique_counts", 4, m, 4, count_args));
    }
  }
  KILN_RETURN_IF_ERROR(write_output(ctx, &output, st->values, stream));
  if (index) KILN_RETURN_IF_ERROR(write_output(ctx, index, st->first, stream));
  if (inverse) KILN_RETURN_IF_ERROR(write_output(ctx, inverse, st->inverse, stream));
  if (counts) KILN_RETURN_IF_ERROR(write_output(ctx, counts, st->counts, stream));
  return KILN_OK;
}

/* The n elements of st->in.src sorted (stably: of equal elements, the
 * first in input order first) into a new st->sorted, as kiln_sort sorts
 * one row: the keys alone where they are the elements, else by the
 * permutation and a gather. */
static kiln_status sort_values(kiln_context *ctx, kiln_stream *stream, unique_state *st) {
  const kiln_array *src = st->in.src;
  int64_t n = src->size;
  KILN_RETURN_IF_ERROR(alloc_1d(ctx, stream, src->dtype, n, &st->sorted));
  kiln_sort_job job = {.ctx = ctx, .stream = stream, .src = src, .row_len = n, .nseg = 1,
                       .max_segment = n};
  if (n > KILN_SORT_TILE && kiln_sort_keys_alone(src->dtype, n))
    return kiln_sort_values_by_keys(&job, st->sorted);
  KILN_RETURN_IF_ERROR(kiln_sort_permutation(&job, &st->perm));
  return kiln_sort_gather(ctx, stream, src, st->perm, st->sorted, NULL, 0);
}

/* Values and counts only: the sorted values compacted where runs start. */
static kiln_status unique_sorted(kiln_context *ctx, kiln_operand output, int64_t *count,
                                 const kiln_operand *counts, kiln_stream *stream,
                                 unique_state *st) {
  kiln_dtype dtype = st->in.array->dtype;
  int64_t n = st->in.src->size;
  if (n > 0) {
    KILN_RETURN_IF_ERROR(sort_values(ctx, stream, st));
    KILN_RETURN_IF_ERROR(alloc_1d(ctx, stream, KILN_UINT8, n, &st->flags));
    kiln_strbuf defines = {0};
    kiln_ix_key_defines(dtype, &defines);
    kiln_status status = kiln_strbuf_status(&defines);
    kiln_ix_args args = {0};
    kiln_ix_arg_array(&args, st->flags);
    kiln_ix_arg_array(&args, st->sorted);
    if (status == KILN_OK)
      status = kiln_ix_launch(ctx, stream, kiln_builtin_unique, kiln_strbuf_text(&defines),
                              "kiln_unique_flags", n, &args);
    kiln_strbuf_free(&defines);
    KILN_RETURN_IF_ERROR(status);
    /* waits for the count, as kiln_compact does */
    KILN_RETURN_IF_ERROR(kiln_reduce_count_nonzero(ctx, stream, st->flags, count));
  }
  int64_t m = *count;
  KILN_RETURN_IF_ERROR(check_output("output", &output, dtype, m, 0));
  if (counts) KILN_RETURN_IF_ERROR(check_output("counts", counts, KILN_INT64, m, 0));
  /* a device output (1-D, at least m long: checked) takes the values
   * straight from the compaction */
  int direct = output.kind == KILN_OPERAND_ARRAY;
  const kiln_array *values = direct ? output.value.array : NULL;
  if (!direct) {
    KILN_RETURN_IF_ERROR(alloc_1d(ctx, stream, dtype, m, &st->values));
    values = st->values;
  }
  KILN_RETURN_IF_ERROR(alloc_1d(ctx, stream, KILN_INT64, counts ? m : 0, &st->starts));
  KILN_RETURN_IF_ERROR(alloc_1d(ctx, stream, KILN_INT64, counts ? m : 0, &st->counts));
  if (m > 0) {
    if (direct) KILN_RETURN_IF_ERROR(kiln_buffer_use_on_stream(values->buffer, stream));
    kiln_scan_line_job job = {
        .kind = KILN_SCAN_LINE_COMPACT, .in = st->flags, .out = values, .data = st->sorted};
    KILN_RETURN_IF_ERROR(kiln_scan_line(ctx, stream, &job, NULL));
  }
  if (counts && m > 0) {
    kiln_scan_line_job job = {.kind = KILN_SCAN_LINE_NONZERO, .in = st->flags,
                              .out = st->starts, .ndim = 1, .shape = &n};
    KILN_RETURN_IF_ERROR(kiln_scan_line(ctx, stream, &job, NULL));
    kiln_backend_arg count_args[4] = {kiln_sort_arg_array(st->starts),
                                      kiln_sort_arg_array(st->counts),
                                      kiln_sort_arg_scalar(&m, 8), kiln_sort_arg_scalar(&n, 8)};
    KILN_RETURN_IF_ERROR(launch(ctx, stream, "sort_unique_counts", 4, m, 4, count_args));
  }
  if (!direct) KILN_RETURN_IF_ERROR(write_output(ctx, &output, st->values, stream));
  if (counts) KILN_RETURN_IF_ERROR(write_output(ctx, counts, st->counts, stream));
  return KILN_OK;
}

static kiln_status unique(kiln_context *ctx, kiln_operand input, kiln_operand output,
                          int64_t *count, const kiln_unique_outputs *extra, kiln_stream *stream,
                          unique_state *st) {
  KILN_RETURN_IF_ERROR(kiln_sort_input_prepare(ctx, WHAT, "input", &input, 1, 0, stream, &st->in));
  const kiln_operand *inverse = extra ? extra->inverse : NULL;
  if (inverse)
    KILN_RETURN_IF_ERROR(check_output("inverse", inverse, KILN_INT64, st->in.src->size, 1));
  if (!extra || (!extra->index && !extra->inverse))
    return unique_sorted(ctx, output, count, extra ? extra->counts : NULL, stream, st);
  return unique_by_permutation(ctx, output, count, extra, stream, st);
}

static void clear_new(const kiln_operand *o, int release) {
  if (!o || o->kind != KILN_OPERAND_NEW || !o->value.result) return;
  if (release) kiln_array_release(*o->value.result);
  *o->value.result = NULL;
}

kiln_status kiln_unique(kiln_context *ctx, kiln_operand input, kiln_operand output,
                        int64_t *count, const kiln_unique_outputs *extra, kiln_stream *stream) {
  const kiln_operand *all[4] = {&output, extra ? extra->index : NULL,
                                extra ? extra->inverse : NULL, extra ? extra->counts : NULL};
  for (int i = 0; i < 4; i++) clear_new(all[i], 0);
  KILN_CHECK_ARG(count);
  *count = 0;
  KILN_CHECK_ARG(ctx);
  unique_state st;
  memset(&st, 0, sizeof st);
  kiln_status status = unique(ctx, input, output, count, extra, stream, &st);
  if (status != KILN_OK)
    for (int i = 0; i < 4; i++) clear_new(all[i], 1);
  kiln_array *arrays[] = {st.perm,   st.flags,   st.ids,    st.values, st.first,
                          st.starts, st.inverse, st.counts, st.last,   st.sorted};
  for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++) kiln_array_release(arrays[i]);
  kiln_ufunc_release(st.add);
  kiln_sort_input_free(&st.in);
  return status;
}
