/* core/sort/indexing_operands.c: operands, outputs and launches shared by
 * searchsorted, bincount, histogram, take/put and the boolean-mask calls
 * (see indexing_internal.h). */
#include <stdio.h>
#include <string.h>

#include "core/sort/indexing_internal.h"

kiln_dtype kiln_ix_operand_dtype(const kiln_operand *o) {
  if (o->kind == KILN_OPERAND_ARRAY)
    return o->value.array ? kiln_array_dtype(o->value.array) : KILN_DTYPE_COUNT;
  if (o->kind == KILN_OPERAND_HOST || o->kind == KILN_OPERAND_SCALAR) return o->dtype;
  return KILN_DTYPE_COUNT;
}

kiln_dtype kiln_ix_promote(kiln_dtype a, kiln_dtype b) {
  static const kiln_dtype order[] = {KILN_BOOL,    KILN_INT8,    KILN_UINT8,     KILN_INT16,
                                     KILN_UINT16,  KILN_INT32,   KILN_UINT32,    KILN_INT64,
                                     KILN_UINT64,  KILN_FLOAT16, KILN_FLOAT32,   KILN_FLOAT64,
                                     KILN_COMPLEX64, KILN_COMPLEX128};
  for (size_t i = 0; i < sizeof order / sizeof order[0]; i++)
    if (kiln_dtype_can_cast_safely(a, order[i]) && kiln_dtype_can_cast_safely(b, order[i]))
      return order[i];
  return KILN_COMPLEX128;
}

kiln_status kiln_ix_check_index_dtype(const char *what, const char *name, kiln_dtype dtype) {
  int integer = dtype == KILN_BOOL || (dtype >= KILN_INT8 && dtype <= KILN_INT64);
  if (!integer || dtype == KILN_UINT64 || !kiln_dtype_can_cast_safely(dtype, KILN_INT64))
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "%s: the %s are %s; they must be integers that cast safely to int64 "
                          "(bool, int8..int64, uint8..uint32), as NumPy's",
                          what, name, kiln_dtype_name(dtype));
  return KILN_OK;
}

kiln_status kiln_ix_copy(const kiln_array *dst, const kiln_array *src, kiln_stream *stream) {
  const kiln_array *used[2] = {dst, src};
  KILN_RETURN_IF_ERROR(kiln_ix_use_on_stream(stream, 2, used));
  return kiln_ew_copy_on((kiln_array *)dst, src, stream);
}

kiln_status kiln_ix_contiguous(const kiln_array *a, kiln_dtype dtype, kiln_stream *stream,
                               const kiln_array **out, kiln_array **owned) {
  *owned = NULL;
  if (dtype == KILN_DTYPE_COUNT) dtype = a->dtype;
  if (a->dtype == dtype && kiln_array_is_contiguous(a)) {
    *out = a;
    return KILN_OK;
  }
  KILN_RETURN_IF_ERROR(kiln_array_alloc(kiln_array_context(a), dtype, a->ndim, a->shape, owned));
  *out = *owned;
  return kiln_ix_copy(*owned, a, stream);
}

kiln_status kiln_ix_input(kiln_context *ctx, const char *what, const char *name,
                          const kiln_operand *o, kiln_dtype scalar_dtype, kiln_dtype dtype,
                          kiln_stream *stream, const kiln_array **array, kiln_array **owned) {
  *owned = NULL;
  char label[160];
  snprintf(label, sizeof label, "%s (%s)", what, name);
  kiln_array *uploaded = NULL;
  const kiln_array *a = NULL;
  KILN_RETURN_IF_ERROR(kiln_reduce_to_device(ctx, label, 0, o, scalar_dtype, &a, &uploaded));
  /* an upload is ordered on the default stream: a call on another one
   * waits for it */
  kiln_status status = KILN_OK;
  if (uploaded && stream) status = kiln_context_synchronize(ctx);
  if (status == KILN_OK) status = kiln_ix_contiguous(a, dtype, stream, array, owned);
  if (status == KILN_OK && !*owned) {
    *owned = uploaded;
    uploaded = NULL;
  }
  kiln_array_release(uploaded);
  return status;
}

/* ---- outputs ------------------------------------------------------------------- */

kiln_status kiln_ix_output_begin(kiln_context *ctx, const char *what, const kiln_operand *o,
                                 kiln_dtype dtype, int ndim, const int64_t *shape, int at_least,
                                 kiln_ix_output *out) {
  memset(out, 0, sizeof *out);
  out->operand = o;
  out->dtype = dtype;
  kiln_dtype given = dtype;
  KILN_RETURN_IF_ERROR(kiln_reduce_prepare_output(ctx, what, o, &given, ndim, shape, at_least,
                                                  &out->made, &out->target));
  const kiln_array *t = out->target;
  if (o->kind == KILN_OPERAND_ARRAY && at_least) {
    /* the leading `shape` of the given array */
    kiln_slice slices[KILN_MAX_DIMS];
    for (int d = 0; d < ndim; d++) slices[d] = (kiln_slice){0, shape[d], 1};
    KILN_RETURN_IF_ERROR(kiln_array_slice(t, ndim, slices, &out->temporary));
    /* the view is the target; work goes into a temporary below if needed */
    out->target = out->temporary;
    out->temporary = NULL;
    out->made = (kiln_array *)out->target; /* owned: released with the output */
    t = out->target;
  }
  if (o->kind != KILN_OPERAND_HOST && t->dtype == dtype && kiln_array_is_contiguous(t)) {
    out->work = t;
    return KILN_OK;
  }
  if (o->kind == KILN_OPERAND_HOST && t->dtype == dtype) {
    out->work = t; /* the staging array is contiguous */
    return KILN_OK;
  }
  KILN_RETURN_IF_ERROR(kiln_array_alloc(ctx, dtype, ndim, shape, &out->temporary));
  out->work = out->temporary;
  return KILN_OK;
}

kiln_status kiln_ix_output_finish(kiln_context *ctx, kiln_stream *stream, kiln_ix_output *out) {
  const kiln_operand *o = out->operand;
  kiln_array *target = (kiln_array *)out->target;
  if (out->work != target && target->size > 0) {
    KILN_RETURN_IF_ERROR(kiln_ix_copy(target, out->work, stream));
  }
  if (o->kind == KILN_OPERAND_HOST) {
    if (target->size == 0) return KILN_OK;
    if (stream) KILN_RETURN_IF_ERROR(kiln_stream_synchronize(ctx, stream));
    return kiln_array_to_host(target, o->value.host.writable, o->value.host.strides);
  }
  if (o->kind == KILN_OPERAND_NEW) {
    *o->value.result = out->made;
    out->made = NULL;
  }
  return KILN_OK;
}

void kiln_ix_output_free(kiln_ix_output *out) {
  kiln_array_release(out->temporary);
  kiln_array_release(out->made);
  memset(out, 0, sizeof *out);
}

/* ---- arrays changed in place ---------------------------------------------------- */

kiln_status kiln_ix_inout_begin(kiln_context *ctx, const char *what, const kiln_operand *o,
                                kiln_stream *stream, kiln_ix_inout *io) {
  memset(io, 0, sizeof *io);
  io->operand = o;
  if (o->kind == KILN_OPERAND_ARRAY) {
    const kiln_array *a = o->value.array;
    if (!a)
      return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "%s: the array written is NULL", what);
    if (kiln_array_context(a) != ctx)
      return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                            "%s: the array written belongs to another context", what);
    for (int d = 0; d < a->ndim; d++)
      if (a->shape[d] > 1 && a->strides[d] == 0)
        return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                              "%s: the array written has stride 0 along dim %d: a broadcast "
                              "view cannot be written",
                              what, d);
    io->target = a;
    return kiln_ix_contiguous(a, KILN_DTYPE_COUNT, stream, &io->work, &io->owned);
  }
  if (o->kind == KILN_OPERAND_HOST && !o->value.host.writable)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "%s: the array written is read-only host memory (make it with "
                          "kiln_operand_host_output)",
                          what);
  if (o->kind != KILN_OPERAND_HOST)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "%s: the array written must be a device array or writable host memory",
                          what);
  return kiln_ix_input(ctx, what, "array written", o, o->dtype, KILN_DTYPE_COUNT, stream,
                       &io->work, &io->owned);
}

kiln_status kiln_ix_inout_finish(kiln_context *ctx, kiln_stream *stream, kiln_ix_inout *io) {
  const kiln_operand *o = io->operand;
  if (o->kind == KILN_OPERAND_ARRAY) {
    if (io->work == io->target || io->target->size == 0) return KILN_OK;
    return kiln_ix_copy(io->target, io->work, stream);
  }
  if (io->work->size == 0) return KILN_OK;
  if (stream) KILN_RETURN_IF_ERROR(kiln_stream_synchronize(ctx, stream));
  return kiln_array_to_host(io->work, o->value.host.writable, o->value.host.strides);
}

void kiln_ix_inout_free(kiln_ix_inout *io) {
  kiln_array_release(io->owned);
  memset(io, 0, sizeof *io);
}

/* ---- launches ------------------------------------------------------------------ */

/* The buffer from its start and the view's byte offset as a value: OpenCL
 * passes a buffer offset as a sub-buffer, which must be aligned to 128
 * bytes or more, and views of any element need not be. */
kiln_status kiln_ix_use_on_stream(kiln_stream *stream, int n, const kiln_array *const *arrays) {
  if (!stream) return KILN_OK;
  for (int i = 0; i < n; i++)
    if (arrays[i]) KILN_RETURN_IF_ERROR(kiln_buffer_use_on_stream(arrays[i]->buffer, stream));
  return KILN_OK;
}

void kiln_ix_arg_array(kiln_ix_args *l, const kiln_array *a) {
  l->arrays[l->narrays++] = a;
  l->args[l->n++] = (kiln_backend_arg){.kind = KILN_BACKEND_ARG_BUFFER, .buffer = a->buffer->handle};
  kiln_ix_arg_int(l, a->offset);
}

void kiln_ix_arg_double(kiln_ix_args *l, double v) {
  memcpy(&l->values[l->n], &v, sizeof v);
  l->args[l->n] = (kiln_backend_arg){
      .kind = KILN_BACKEND_ARG_SCALAR, .value = &l->values[l->n], .size = sizeof(double)};
  l->n++;
}

void kiln_ix_arg_int(kiln_ix_args *l, int64_t v) {
  l->values[l->n] = v;
  l->args[l->n] = (kiln_backend_arg){
      .kind = KILN_BACKEND_ARG_SCALAR, .value = &l->values[l->n], .size = sizeof(int64_t)};
  l->n++;
}

void kiln_ix_compose(const char *defines, const char *text, kiln_strbuf *source) {
  kiln_strbuf_append(source, "#define KILN_IX_AT(T, bytes, offset) "
                             "((KILN_GLOBAL T *)((bytes) + (offset)))\n");
  kiln_strbuf_append(source, defines);
  kiln_strbuf_append(source, text);
}

kiln_status kiln_ix_program(kiln_context *ctx, const char *text, const char *defines,
                            const char *entry, kiln_program **out) {
  kiln_strbuf source = {0};
  kiln_ix_compose(defines, text, &source);
  kiln_status status = kiln_strbuf_status(&source);
  if (status == KILN_OK) status = kiln_program_get(ctx, kiln_strbuf_text(&source), NULL, entry, out);
  kiln_strbuf_free(&source);
  return status;
}

/* The program of a launch over [0, n) with its arguments completed (base,
 * then n, appended; *base: base's index), the arrays marked used. */
static kiln_status launch_prepare(kiln_context *ctx, kiln_stream *stream, const char *text,
                                  const char *defines, const char *entry, int64_t n,
                                  kiln_ix_args *args, kiln_program **program, int *base) {
  KILN_RETURN_IF_ERROR(kiln_ix_program(ctx, text, defines, entry, program));
  KILN_RETURN_IF_ERROR(kiln_ix_use_on_stream(stream, args->narrays, args->arrays));
  *base = args->n;
  kiln_ix_arg_int(args, 0); /* base: set by the launcher */
  kiln_ix_arg_int(args, n);
  return KILN_OK;
}

kiln_status kiln_ix_launch(kiln_context *ctx, kiln_stream *stream, const char *text,
                           const char *defines, const char *entry, int64_t n, kiln_ix_args *args) {
  if (n <= 0) return KILN_OK;
  kiln_program *program = NULL;
  int base = 0;
  KILN_RETURN_IF_ERROR(launch_prepare(ctx, stream, text, defines, entry, n, args, &program, &base));
  return kiln_program_launch_elements(ctx, program, stream, n, args->n, args->args, base);
}

kiln_status kiln_ix_launch_wide(kiln_context *ctx, kiln_stream *stream, const char *text,
                                const char *defines, const char *entry, int64_t n,
                                kiln_ix_args *args) {
  if (n <= 0) return KILN_OK;
  kiln_program *program = NULL;
  int base = 0;
  KILN_RETURN_IF_ERROR(launch_prepare(ctx, stream, text, defines, entry, n, args, &program, &base));
  kiln_elements_grid grid;
  kiln_program_elements_grid(ctx, program, n, &grid);
  if (!grid.cpu_form && ctx->info.type != KILN_DEVICE_CPU) {
    /* every element its own work-item (the loop runs once), up to 2^31 */
    uint64_t most = (((uint64_t)1 << 31) - grid.local) / grid.local;
    uint64_t groups = ((uint64_t)n + grid.local - 1) / grid.local;
    grid.global = (groups < most ? groups : most) * grid.local;
  }
  return kiln_program_launch_grid(ctx, program, stream, &grid, args->n, args->args, base);
}

int64_t kiln_ix_words(kiln_dtype dtype) { return kiln_dtype_size(dtype) > 8 ? 2 : 1; }

void kiln_ix_word_defines(kiln_dtype dtype, char *out, size_t size) {
  size_t bytes = kiln_dtype_size(dtype);
  const char *word = bytes == 1 ? "uint8_t" : bytes == 2 ? "uint16_t" : bytes == 4 ? "uint32_t"
                                                                                    : "uint64_t";
  snprintf(out, size, "#define WORD %s\n#define WORDS %d\n", word, (int)kiln_ix_words(dtype));
}

/* ---- index checks -------------------------------------------------------------- */

/* `values` (contiguous) as a 1-D view (*flat, to release). */
static kiln_status flat_view(const kiln_array *values, kiln_array **flat) {
  int64_t stride = (int64_t)kiln_dtype_size(values->dtype);
  return kiln_array_view_new(values, values->dtype, 1, &values->size, &stride, values->offset,
                             flat);
}

kiln_status kiln_ix_reduce(kiln_context *ctx, kiln_stream *stream, const char *name,
                           const kiln_array *values, int64_t extra, kiln_dtype acc,
                           const char *map, const char *combine, void *result) {
  kiln_array *scalar = NULL, *out = NULL, *extra_view = NULL, *flat = NULL;
  kiln_status status = kiln_array_full(ctx, KILN_INT64, 0, NULL, &extra, &scalar);
  if (status == KILN_OK)
    status = kiln_array_broadcast_to(scalar, 1, &values->size, &extra_view);
  if (status == KILN_OK) status = kiln_array_alloc(ctx, acc, 0, NULL, &out);
  if (status == KILN_OK) status = flat_view(values, &flat);
  /* the scalar was written on the default stream */
  if (status == KILN_OK && stream) status = kiln_context_synchronize(ctx);
  if (status == KILN_OK) {
    kiln_rt_spec spec = {.name = name,
                         .ninputs = 2,
                         .inputs = {values->dtype, KILN_INT64},
                         .acc = acc,
                         .out = acc,
                         .map = map,
                         .combine = combine};
    const kiln_array *inputs[2] = {flat, extra_view};
    const kiln_array *used[3] = {flat, extra_view, out};
    status = kiln_ix_use_on_stream(stream, 3, used);
    if (status == KILN_OK) status = kiln_rt_run(ctx, stream, &spec, 0, 1, inputs, out, 0, NULL);
  }
  if (status == KILN_OK && stream) status = kiln_stream_synchronize(ctx, stream);
  if (status == KILN_OK) status = kiln_array_to_host(out, result, NULL);
  kiln_array_release(flat);
  kiln_array_release(out);
  kiln_array_release(extra_view);
  kiln_array_release(scalar);
  return status;
}

static kiln_status reduce_int64(kiln_context *ctx, kiln_stream *stream, const char *name,
                                const kiln_array *values, int64_t extra, const char *map,
                                const char *combine, int64_t *result) {
  return kiln_ix_reduce(ctx, stream, name, values, extra, KILN_INT64, map, combine, result);
}

kiln_status kiln_ix_check_bounds(kiln_context *ctx, kiln_stream *stream, const char *what,
                                 const kiln_array *indices, int64_t extent, int axis) {
  if (indices->size == 0) return KILN_OK;
  int64_t first = 0;
  KILN_RETURN_IF_ERROR(reduce_int64(
      ctx, stream, "index_check", indices, extent,
      "kiln_m = (v0 < -v1 || v0 >= v1) ? kiln_i : (int64_t)0x7fffffffffffffff;",
      "return a < b ? a : b;", &first));
  if (first == INT64_MAX) return KILN_OK;
  int64_t bad = 0;
  kiln_array *flat = NULL, *one = NULL;
  kiln_status status = flat_view(indices, &flat);
  if (status == KILN_OK) status = kiln_array_index(flat, 0, first, &one);
  if (status == KILN_OK) status = kiln_array_to_host(one, &bad, NULL);
  kiln_array_release(one);
  kiln_array_release(flat);
  KILN_RETURN_IF_ERROR(status);
  return kiln_error_set(KILN_ERROR_OUT_OF_RANGE,
                        "%s: index %lld is out of bounds for axis %d with size %lld", what,
                        (long long)bad, axis, (long long)extent);
}

kiln_status kiln_ix_min_max(kiln_context *ctx, kiln_stream *stream, const kiln_array *values,
                            int64_t *min, int64_t *max) {
  KILN_RETURN_IF_ERROR(reduce_int64(ctx, stream, "index_min", values, 0,
                                    "kiln_m = (int64_t)v0;", "return a < b ? a : b;", min));
  return reduce_int64(ctx, stream, "index_max", values, 0, "kiln_m = (int64_t)v0;",
                      "return a > b ? a : b;", max);
}
