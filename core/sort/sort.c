/* core/sort/sort.c: kiln_sort, kiln_argsort, kiln_sort_by_key and
 * kiln_segmented_sort over the permutation of core/sort/sort_keys.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/reduce/reduce_internal.h"
#include "core/sort/sort_internal.h"

static void clear_new(const kiln_operand *o) {
  if (o && o->kind == KILN_OPERAND_NEW && o->value.result) *o->value.result = NULL;
}

static kiln_sort_job job_of(kiln_context *ctx, kiln_stream *stream, const kiln_sort_input *in,
                            const kiln_sort_options *options) {
  kiln_sort_job job = {.ctx = ctx,
                       .stream = stream,
                       .src = in->src,
                       .row_len = in->row_len > 0 ? in->row_len : 1,
                       .nseg = in->rows,
                       .max_segment = in->row_len,
                       .descending = options && options->descending};
  return job;
}

/* sort (want_values) or argsort */
static kiln_status sort_call(kiln_context *ctx, const char *what, kiln_operand input,
                             kiln_operand output, const kiln_sort_options *options,
                             kiln_stream *stream, int want_values) {
  clear_new(&output);
  KILN_CHECK_ARG(ctx);
  kiln_sort_input in;
  kiln_array *perm = NULL;
  int flatten = options && options->flatten;
  kiln_status status = kiln_sort_input_prepare(ctx, what, "input", &input, flatten,
                                               options ? options->axis : -1, stream, &in);
  /* one long row of integers or floats: the keys alone are sorted and
   * made back into elements, half the traffic of keys with indices and no
   * gather */
  int keys_alone = status == KILN_OK && want_values && in.rows <= 1 &&
                   in.src->size > KILN_SORT_TILE &&
                   kiln_sort_keys_alone(in.src->dtype, in.src->size);
  if (status == KILN_OK) {
    kiln_sort_job job = job_of(ctx, stream, &in, options);
    if (keys_alone) /* straight into the output where it is contiguous */
      status = kiln_sort_write_sorted(ctx, what, "output", &output, &in, &job, stream);
    else
      status = kiln_sort_permutation(&job, &perm);
  }
  if (status == KILN_OK && !keys_alone)
    status = kiln_sort_write_output(ctx, what, "output", &output,
                                    want_values ? in.array->dtype : KILN_INT64, &in,
                                    want_values ? in.src : NULL, perm,
                                    flatten ? 0 : in.row_len, stream);
  kiln_array_release(perm);
  kiln_sort_input_free(&in);
  return status;
}

kiln_status kiln_sort(kiln_context *ctx, kiln_operand input, kiln_operand output,
                      const kiln_sort_options *options, kiln_stream *stream) {
  return sort_call(ctx, "sort", input, output, options, stream, 1);
}

kiln_status kiln_argsort(kiln_context *ctx, kiln_operand input, kiln_operand output,
                         const kiln_sort_options *options, kiln_stream *stream) {
  return sort_call(ctx, "argsort", input, output, options, stream, 0);
}

/* ---- by key ------------------------------------------------------------------- */

static kiln_status by_key(kiln_context *ctx, kiln_operand keys, const kiln_operand *keys_output,
                          int nvalues, const kiln_operand *values,
                          const kiln_operand *values_output, const kiln_sort_options *options,
                          kiln_stream *stream, kiln_sort_input *in, kiln_array **perm) {
  const char *what = "sort_by_key";
  int flatten = options && options->flatten, axis = options ? options->axis : -1;
  if (nvalues < 0 || (nvalues > 0 && (!values || !values_output)))
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "%s: %d values arrays with values %s and values_output %s", what,
                          nvalues, values ? "given" : "NULL", values_output ? "given" : "NULL");
  KILN_RETURN_IF_ERROR(kiln_sort_input_prepare(ctx, what, "keys", &keys, flatten, axis, stream, in));
  /* every values array's shape first, so nothing is written on a mismatch */
  for (int i = 0; i < nvalues; i++) {
    if (values[i].kind != KILN_OPERAND_ARRAY && values[i].kind != KILN_OPERAND_HOST)
      return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                            "%s: values %d must be a device array or host memory", what, i);
    int ndim = values[i].kind == KILN_OPERAND_ARRAY
                   ? (values[i].value.array ? kiln_array_ndim(values[i].value.array) : -1)
                   : values[i].value.host.ndim;
    const int64_t *shape = values[i].kind == KILN_OPERAND_ARRAY
                               ? (values[i].value.array ? kiln_array_shape(values[i].value.array)
                                                        : NULL)
                               : values[i].value.host.shape;
    int same = ndim == in->array->ndim && (ndim == 0 || shape);
    for (int d = 0; same && d < ndim; d++) same = shape[d] == in->array->shape[d];
    if (!same) {
      char want[256], got[256] = "(unknown)";
      kiln_ufunc_format_shape(in->array->ndim, in->array->shape, want, sizeof want);
      if (ndim >= 0 && (ndim == 0 || shape)) kiln_ufunc_format_shape(ndim, shape, got, sizeof got);
      return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                            "%s: values %d has shape %s, the keys %s; they must be equal", what, i,
                            got, want);
    }
  }
  kiln_sort_job job = job_of(ctx, stream, in, options);
  KILN_RETURN_IF_ERROR(kiln_sort_permutation(&job, perm));
  if (keys_output)
    KILN_RETURN_IF_ERROR(kiln_sort_write_output(ctx, what, "keys output", keys_output,
                                                in->array->dtype, in, in->src, *perm, 0, stream));
  for (int i = 0; i < nvalues; i++) {
    kiln_sort_input v;
    char name[48];
    snprintf(name, sizeof name, "values %d", i);
    kiln_status status =
        kiln_sort_input_prepare(ctx, what, name, &values[i], flatten, axis, stream, &v);
    if (status == KILN_OK)
      status = kiln_sort_write_output(ctx, what, name, &values_output[i], v.array->dtype, &v,
                                      v.src, *perm, 0, stream);
    kiln_sort_input_free(&v);
    KILN_RETURN_IF_ERROR(status);
  }
  return KILN_OK;
}

kiln_status kiln_sort_by_key(kiln_context *ctx, kiln_operand keys, const kiln_operand *keys_output,
                             int nvalues, const kiln_operand *values,
                             const kiln_operand *values_output, const kiln_sort_options *options,
                             kiln_stream *stream) {
  clear_new(keys_output);
  for (int i = 0; values_output && i < nvalues; i++) clear_new(&values_output[i]);
  KILN_CHECK_ARG(ctx);
  kiln_sort_input in;
  memset(&in, 0, sizeof in);
  kiln_array *perm = NULL;
  kiln_status status = by_key(ctx, keys, keys_output, nvalues, values, values_output, options,
                              stream, &in, &perm);
  if (status != KILN_OK) { /* no half-made new outputs */
    for (int i = -1; i < nvalues; i++) {
      const kiln_operand *o = i < 0 ? keys_output : values_output ? &values_output[i] : NULL;
      if (o && o->kind == KILN_OPERAND_NEW && o->value.result) {
        kiln_array_release(*o->value.result);
        *o->value.result = NULL;
      }
    }
  }
  kiln_array_release(perm);
  kiln_sort_input_free(&in);
  return status;
}

/* ---- segmented ------------------------------------------------------------------ */

typedef struct segmented_state {
  kiln_sort_input in;
  const kiln_array *offsets;
  kiln_array *owned_offsets, *perm;
  int64_t *host;
} segmented_state;

/* The offsets on the host (checked) and on the device; the longest segment. */
static kiln_status read_offsets(kiln_context *ctx, const kiln_operand *o, int64_t n,
                                segmented_state *st, int64_t *nseg, int64_t *longest) {
  const char *what = "segmented_sort";
  kiln_dtype dtype = kiln_reduce_input_dtype(o);
  if (o->kind != KILN_OPERAND_ARRAY && o->kind != KILN_OPERAND_HOST)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "%s: the offsets must be a device array or host memory", what);
  if (dtype != KILN_INT64)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "%s: the offsets are %s; they must be int64",
                          what, dtype == KILN_DTYPE_COUNT ? "not an array" : kiln_dtype_name(dtype));
  KILN_RETURN_IF_ERROR(
      kiln_reduce_to_device(ctx, what, 1, o, KILN_INT64, &st->offsets, &st->owned_offsets));
  if (st->offsets->ndim != 1 || st->offsets->size < 1)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "%s: the offsets must be 1-D with at least one entry (nseg + 1)", what);
  int64_t count = st->offsets->size;
  if (!kiln_array_is_contiguous(st->offsets)) {
    kiln_array *copy = NULL;
    KILN_RETURN_IF_ERROR(kiln_array_copy(st->offsets, &copy));
    kiln_array_release(st->owned_offsets);
    st->owned_offsets = copy;
    st->offsets = copy;
  }
  st->host = malloc(sizeof(int64_t) * (size_t)count);
  if (!st->host) return kiln_error_set(KILN_ERROR_OUT_OF_MEMORY, "%s: offsets", what);
  KILN_RETURN_IF_ERROR(kiln_array_to_host(st->offsets, st->host, NULL));
  *longest = 0;
  if (st->host[0] != 0 || st->host[count - 1] != n)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "%s: the offsets run from %lld to %lld; they must run from 0 to the "
                          "input's size, %lld",
                          what, (long long)st->host[0], (long long)st->host[count - 1],
                          (long long)n);
  for (int64_t s = 0; s + 1 < count; s++) {
    if (st->host[s + 1] < st->host[s])
      return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                            "%s: offsets[%lld] = %lld is less than offsets[%lld] = %lld; they "
                            "must not decrease",
                            what, (long long)(s + 1), (long long)st->host[s + 1], (long long)s,
                            (long long)st->host[s]);
    if (st->host[s + 1] - st->host[s] > *longest) *longest = st->host[s + 1] - st->host[s];
  }
  *nseg = count - 1;
  return KILN_OK;
}

static kiln_status segmented(kiln_context *ctx, kiln_operand input, kiln_operand offsets,
                             kiln_operand output, const kiln_operand *indices,
                             const kiln_sort_options *options, kiln_stream *stream,
                             segmented_state *st) {
  const char *what = "segmented_sort";
  KILN_RETURN_IF_ERROR(kiln_sort_input_prepare(ctx, what, "input", &input, 0, 0, stream, &st->in));
  if (st->in.array->ndim != 1)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "%s: the input has %d dimensions; it must be 1-D (sort rows with "
                          "kiln_sort along the last axis)",
                          what, st->in.array->ndim);
  int64_t nseg = 0, longest = 0;
  KILN_RETURN_IF_ERROR(read_offsets(ctx, &offsets, st->in.array->size, st, &nseg, &longest));
  if (stream) KILN_RETURN_IF_ERROR(kiln_context_synchronize(ctx));
  kiln_sort_job job = {.ctx = ctx,
                       .stream = stream,
                       .src = st->in.src,
                       .row_len = 0,
                       .offsets = st->offsets,
                       .nseg = nseg,
                       .max_segment = longest,
                       .descending = options && options->descending};
  KILN_RETURN_IF_ERROR(kiln_sort_permutation(&job, &st->perm));
  KILN_RETURN_IF_ERROR(kiln_sort_write_output(ctx, what, "output", &output, st->in.array->dtype,
                                              &st->in, st->in.src, st->perm, 0, stream));
  if (indices)
    KILN_RETURN_IF_ERROR(kiln_sort_write_output(ctx, what, "indices", indices, KILN_INT64,
                                                &st->in, NULL, st->perm, 0, stream));
  return KILN_OK;
}

kiln_status kiln_segmented_sort(kiln_context *ctx, kiln_operand input, kiln_operand offsets,
                                kiln_operand output, const kiln_operand *indices,
                                const kiln_sort_options *options, kiln_stream *stream) {
  clear_new(&output);
  clear_new(indices);
  KILN_CHECK_ARG(ctx);
  segmented_state st;
  memset(&st, 0, sizeof st);
  kiln_status status = segmented(ctx, input, offsets, output, indices, options, stream, &st);
  if (status != KILN_OK && output.kind == KILN_OPERAND_NEW && output.value.result) {
    kiln_array_release(*output.value.result);
    *output.value.result = NULL;
  }
  kiln_array_release(st.perm);
  kiln_array_release(st.owned_offsets);
  free(st.host);
  kiln_sort_input_free(&st.in);
  return status;
}
