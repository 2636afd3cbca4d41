/* core/reduce/reduce.c: ufunc reduce, custom map/reduce/post reductions and
 * argmin/argmax (kiln/reduce.h). Each call resolves dtypes and axes,
 * brings host operands to the device, broadcasts the inputs, orders their
 * dims as (kept, reduced) views and runs one reduction of the fixed tree
 * (core/codegen/reduce_tree.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/reduce/reduce_internal.h"

/* ---- axes ---------------------------------------------------------------------- */

kiln_status kiln_reduce_resolve_axes(const char *what, int ndim, const kiln_reduce_options *o,
                                     int reduced[KILN_MAX_DIMS]) {
  memset(reduced, 0, KILN_MAX_DIMS * sizeof *reduced);
  if (!o || o->all_axes) {
    for (int d = 0; d < ndim; d++) reduced[d] = 1;
    return KILN_OK;
  }
  if (o->naxes < 0 || o->naxes > KILN_MAX_DIMS)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "%s: %d axes (0..%d)", what, o->naxes,
                          KILN_MAX_DIMS);
  for (int i = 0; i < o->naxes; i++) {
    int axis = o->axes[i];
    if (axis < -ndim || axis >= ndim)
      return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                            "%s: axis %d is out of bounds for array of dimension %d", what, axis,
                            ndim);
    if (axis < 0) axis += ndim;
    if (reduced[axis])
      return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "%s: duplicate value in 'axis' (%d)", what,
                            o->axes[i]);
    reduced[axis] = 1;
  }
  return KILN_OK;
}

/* ---- operands ------------------------------------------------------------------- */

static int is_unsigned(kiln_dtype d) {
  return d == KILN_UINT8 || d == KILN_UINT16 || d == KILN_UINT32 || d == KILN_UINT64;
}

/* Does v fit integer dtype d? */
static int int_fits(int64_t v, kiln_dtype d) {
  int bits = 8 * (int)kiln_dtype_size(d);
  if (is_unsigned(d)) return v >= 0 && (bits == 64 || v < ((int64_t)1 << bits));
  if (bits == 64) return 1;
  return v >= -((int64_t)1 << (bits - 1)) && v < ((int64_t)1 << (bits - 1));
}

/* A scalar operand's value as one element of `to` (8 bytes at out). */
static void scalar_bytes(const kiln_operand *o, kiln_dtype to, unsigned char out[8]) {
  memset(out, 0, 8);
  int is_float = o->kind == KILN_OPERAND_WEAK_SCALAR ? o->dtype == KILN_FLOAT64
                                                     : kiln_dtype_is_float(o->dtype);
  double f = is_float                ? o->value.f
             : is_unsigned(o->dtype) ? (double)o->value.u
                                     : (double)o->value.i;
  if (kiln_dtype_is_float(to)) {
    kiln_dtype_float_bytes(to, f, out);
  } else if (to == KILN_BOOL) {
    out[0] = is_float ? f != 0 : o->value.i != 0;
  } else {
    uint64_t bits = is_float ? (uint64_t)(int64_t)f : o->value.u;
    memcpy(out, &bits, kiln_dtype_size(to));
  }
}

/* The operand as a device array: given, or uploaded (host memory, a scalar
 * as a 0-d array of `scalar_dtype` for weak scalars, its own otherwise).
 * *owned receives what was made (release it). */
kiln_status kiln_reduce_to_device(kiln_context *ctx, const char *what, int index,
                                  const kiln_operand *o, kiln_dtype scalar_dtype,
                                  const kiln_array **array, kiln_array **owned) {
  *owned = NULL;
  switch (o->kind) {
    case KILN_OPERAND_ARRAY:
      if (!o->value.array)
        return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "%s: input %d is a NULL array", what,
                              index);
      if (kiln_array_context(o->value.array) != ctx)
        return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                              "%s: input %d is an array of another context", what, index);
      *array = o->value.array;
      return KILN_OK;
    case KILN_OPERAND_HOST: {
      if (kiln_dtype_size(o->dtype) == 0 || o->value.host.ndim < 0 ||
          o->value.host.ndim > KILN_MAX_DIMS || (o->value.host.ndim > 0 && !o->value.host.shape))
        return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                              "%s: input %d: host memory with a bad dtype, ndim or shape", what,
                              index);
      int64_t size = 0;
      kiln_status status =
          kiln_shape_validate(o->dtype, o->value.host.ndim, o->value.host.shape, &size);
      if (status != KILN_OK) return kiln_error_prefix(status, "%s: input %d", what, index);
      if (size > 0 && !o->value.host.data)
        return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "%s: input %d is host memory at NULL",
                              what, index);
      status = kiln_array_from_host(ctx, o->dtype, o->value.host.ndim, o->value.host.shape,
                                    o->value.host.strides, o->value.host.data, owned);
      *array = *owned;
      return status;
    }
    case KILN_OPERAND_SCALAR:
    case KILN_OPERAND_WEAK_SCALAR: {
      kiln_dtype d = o->kind == KILN_OPERAND_WEAK_SCALAR ? scalar_dtype : o->dtype;
      if (kiln_dtype_size(d) == 0)
        return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "%s: input %d: unknown scalar dtype",
                              what, index);
      if (o->kind == KILN_OPERAND_WEAK_SCALAR && o->dtype == KILN_FLOAT64 &&
          !kiln_dtype_is_float(d))
        return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                              "%s: input %d is a float scalar, which does not cast safely to %s",
                              what, index, kiln_dtype_name(d));
      if (o->kind == KILN_OPERAND_WEAK_SCALAR && o->dtype == KILN_INT64 &&
          !kiln_dtype_is_float(d) && d != KILN_BOOL && !int_fits(o->value.i, d))
        return kiln_error_set(KILN_ERROR_OUT_OF_RANGE,
                              "%s: input %d, the int scalar %lld, is out of range for %s", what,
                              index, (long long)o->value.i, kiln_dtype_name(d));
      unsigned char bytes[8];
      scalar_bytes(o, d, bytes);
      kiln_status status = kiln_array_from_host(ctx, d, 0, NULL, NULL, bytes, owned);
      *array = *owned;
      return status;
    }
    default:
      return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                            "%s: input %d must be a device array, host memory or a scalar", what,
                            index);
  }
}

/* The dtype of an array or host input, or KILN_DTYPE_COUNT. */
kiln_dtype kiln_reduce_input_dtype(const kiln_operand *o) {
  if (o->kind == KILN_OPERAND_ARRAY)
    return o->value.array ? kiln_array_dtype(o->value.array) : KILN_DTYPE_COUNT;
  if (o->kind == KILN_OPERAND_HOST || o->kind == KILN_OPERAND_SCALAR) return o->dtype;
  return KILN_DTYPE_COUNT;
}

/* ---- one reduction -------------------------------------------------------------- */

typedef struct reduce_job {
  kiln_context *ctx;
  const char *what;          /* "ufunc 'add' reduce", for messages */
  kiln_rt_spec spec;         /* spec.out: the result dtype of a new output */
  const char *identity;      /* expression of the accumulator type, or NULL */
  const char *empty_message; /* the error when empty and no identity */
  int ninputs;
  const kiln_array *inputs[KILN_RT_MAX_INPUTS];
  const kiln_reduce_options *options;
  int single_axis; /* arg reductions: one axis or all */
  kiln_operand output;
  kiln_stream *stream;
  kiln_rt_scratch *scratch;
} reduce_job;

static void format_shape(int ndim, const int64_t *shape, char *out, size_t size) {
  kiln_ufunc_format_shape(ndim, shape, out, size);
}

kiln_status kiln_reduce_prepare_output(kiln_context *ctx, const char *what, const kiln_operand *o,
                                       kiln_dtype *result, int ndim, const int64_t *shape,
                                       int at_least, kiln_array **made, const kiln_array **out) {
  *made = NULL;
  if (o->kind == KILN_OPERAND_NEW) {
    if (!o->value.result)
      return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "%s: kiln_operand_new(NULL)", what);
    KILN_RETURN_IF_ERROR(kiln_array_alloc(ctx, *result, ndim, shape, made));
    *out = *made;
    return KILN_OK;
  }
  int have_ndim;
  const int64_t *have;
  kiln_dtype dtype;
  if (o->kind == KILN_OPERAND_ARRAY) {
    if (!o->value.array)
      return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "%s: the output is a NULL array", what);
    if (kiln_array_context(o->value.array) != ctx)
      return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                            "%s: the output is an array of another context", what);
    have_ndim = kiln_array_ndim(o->value.array);
    have = kiln_array_shape(o->value.array);
    dtype = kiln_array_dtype(o->value.array);
  } else if (o->kind == KILN_OPERAND_HOST) {
    if (!o->value.host.writable && kiln_dtype_size(o->dtype) > 0)
      return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                            "%s: the output is read-only host memory (make it with "
                            "kiln_operand_host_output)",
                            what);
    if (o->value.host.ndim < 0 || o->value.host.ndim > KILN_MAX_DIMS ||
        (o->value.host.ndim > 0 && !o->value.host.shape))
      return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "%s: the output has a bad ndim or shape",
                            what);
    have_ndim = o->value.host.ndim;
    have = o->value.host.shape;
    dtype = o->dtype;
  } else {
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "%s: the output must be kiln_operand_new(), a device array or host "
                          "memory",
                          what);
  }
  int same = have_ndim == ndim;
  for (int d = 0; same && d < ndim; d++)
    same = at_least ? have[d] >= shape[d] : have[d] == shape[d];
  if (!same) {
    char want[256], got[256];
    format_shape(ndim, shape, want, sizeof want);
    format_shape(have_ndim, have, got, sizeof got);
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "%s: the output has shape %s, the result %s%s", what, got,
                          at_least ? "needs at least " : "has ", want);
  }
  if (!kiln_ufunc_can_cast_same_kind(*result, dtype))
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "%s: the output is %s, but the result is %s, which casts to it "
                          "only unsafely (same_kind casting)",
                          what, kiln_dtype_name(dtype), kiln_dtype_name(*result));
  *result = dtype;
  if (o->kind == KILN_OPERAND_ARRAY) {
    const kiln_array *a = o->value.array;
    for (int d = 0; d < ndim; d++)
      if (shape[d] > 1 && a->strides[d] == 0)
        return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                              "%s: the output has stride 0 along dim %d: a broadcast view "
                              "cannot be written",
                              what, d);
    *out = a;
    return KILN_OK;
  }
  KILN_RETURN_IF_ERROR(kiln_array_alloc(ctx, dtype, ndim, shape, made));
  *out = *made;
  return KILN_OK;
}

/* Fills out (keep view) with the identity through the post-map. */
static kiln_status fill_identity(reduce_job *job, const kiln_array *out) {
  kiln_ew_signature sig = {.ninputs = 0, .noperands = 1, .dtypes = {out->dtype}};
  char store[1024];
  kiln_rt_store_expression(&job->spec, store, sizeof store);
  kiln_strbuf body = {0}, name = {0};
  /* a complex identity is already a value of the type (a struct, which
   * admits no cast) */
  const char *acc = kiln_dtype_kernel_type(job->spec.acc);
  if (kiln_dtype_is_complex(job->spec.acc))
    kiln_strbuf_appendf(&body, "%s a = %s; v0 = %s;", acc, job->identity, store);
  else
    kiln_strbuf_appendf(&body, "%s a = (%s)(%s); v0 = %s;", acc, acc, job->identity, store);
  kiln_strbuf_appendf(&name, "kiln_reduce_identity_%s", job->spec.name);
  kiln_status status = kiln_strbuf_status(&body);
  if (status == KILN_OK) status = kiln_strbuf_status(&name);
  const kiln_array *operands[1] = {out};
  if (status == KILN_OK)
    status = kiln_ew_run(job->ctx, job->stream, &sig, name.data, job->spec.preamble, body.data,
                         operands, NULL);
  kiln_strbuf_free(&body);
  kiln_strbuf_free(&name);
  return status;
}

static kiln_status run_job(reduce_job *job) {
  /* broadcast the inputs together */
  int ndim = 0;
  int64_t shape[KILN_MAX_DIMS];
  for (int j = 0; j < job->ninputs; j++)
    if (job->inputs[j]->ndim > ndim) ndim = job->inputs[j]->ndim;
  for (int d = 0; d < ndim; d++) {
    shape[d] = 1;
    for (int j = 0; j < job->ninputs; j++) {
      const kiln_array *a = job->inputs[j];
      int own = d - (ndim - a->ndim);
      if (own < 0 || a->shape[own] == 1) continue;
      if (shape[d] != 1 && a->shape[own] != shape[d])
        return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                              "%s: the inputs could not be broadcast together", job->what);
      shape[d] = a->shape[own];
    }
  }
  int reduced[KILN_MAX_DIMS];
  KILN_RETURN_IF_ERROR(kiln_reduce_resolve_axes(job->what, ndim, job->options, reduced));
  int nred = 0, nkeep = 0;
  for (int d = 0; d < ndim; d++) nred += reduced[d];
  nkeep = ndim - nred;
  if (job->single_axis && nred > 1 && !(job->options == NULL || job->options->all_axes))
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "%s: one axis or all, %d given", job->what,
                          nred);
  int keepdims = job->options && job->options->keepdims;
  int rndim = 0;
  int64_t rshape[KILN_MAX_DIMS], M = 1, K = 1;
  for (int d = 0; d < ndim; d++) {
    if (reduced[d]) {
      K *= shape[d];
      if (keepdims) rshape[rndim++] = 1;
    } else {
      M *= shape[d];
      rshape[rndim++] = shape[d];
    }
  }
  if (K == 0 && M > 0 && !job->identity)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "%s: %s", job->what, job->empty_message);

  kiln_array *made = NULL;
  const kiln_array *out = NULL;
  KILN_RETURN_IF_ERROR(kiln_reduce_prepare_output(job->ctx, job->what, &job->output, &job->spec.out,
                                                  rndim, rshape, 0, &made, &out));
  /* views: inputs as (kept, reduced) dims; the output's kept dims */
  kiln_array views[KILN_RT_MAX_INPUTS], outview;
  const kiln_array *pointers[KILN_RT_MAX_INPUTS];
  for (int j = 0; j < job->ninputs; j++) {
    const kiln_array *a = job->inputs[j];
    kiln_array *v = &views[j];
    memset(v, 0, sizeof *v);
    v->buffer = a->buffer;
    v->dtype = a->dtype;
    v->offset = a->offset;
    v->ndim = ndim;
    v->size = M * K;
    int at = 0;
    for (int pass = 0; pass < 2; pass++)
      for (int d = 0; d < ndim; d++) {
        if (reduced[d] != pass) continue;
        int own = d - (ndim - a->ndim);
        v->shape[at] = shape[d];
        v->strides[at++] = own < 0 || a->shape[own] == 1 ? 0 : a->strides[own];
      }
    pointers[j] = v;
  }
  memset(&outview, 0, sizeof outview);
  outview.buffer = out->buffer;
  outview.dtype = out->dtype;
  outview.offset = out->offset;
  outview.ndim = nkeep;
  outview.size = M;
  for (int d = 0, r = 0, k = 0; d < ndim; d++) {
    if (reduced[d]) {
      r += keepdims;
      continue;
    }
    outview.shape[k] = shape[d];
    outview.strides[k++] = out->strides[r++];
  }
  kiln_status status = KILN_OK;
  if (M > 0 && K == 0)
    status = fill_identity(job, &outview);
  else if (M > 0)
    status = kiln_rt_run(job->ctx, job->stream, &job->spec, nkeep, nred, pointers, &outview,
                         job->options ? job->options->work_group_size : 0, job->scratch);
  if (status == KILN_OK && job->output.kind == KILN_OPERAND_HOST && M > 0) {
    if (job->stream) status = kiln_stream_synchronize(job->ctx, job->stream);
    if (status == KILN_OK)
      status =
          kiln_array_to_host(made, job->output.value.host.writable, job->output.value.host.strides);
  }
  if (job->output.kind == KILN_OPERAND_NEW && status == KILN_OK) {
    *job->output.value.result = made;
    made = NULL;
  }
  kiln_array_release(made);
  return status;
}

/* ---- scratch kept by an owner between calls ------------------------------------ */

kiln_rt_scratch kiln_reduce_scratch_take(pthread_mutex_t *lock, kiln_rt_scratch *kept) {
  pthread_mutex_lock(lock);
  kiln_rt_scratch s = *kept;
  kept->buffer = NULL;
  pthread_mutex_unlock(lock);
  return s;
}

void kiln_reduce_scratch_give(pthread_mutex_t *lock, kiln_rt_scratch *kept, kiln_rt_scratch s) {
  pthread_mutex_lock(lock);
  if (!kept->buffer) {
    *kept = s;
    s.buffer = NULL;
  }
  pthread_mutex_unlock(lock);
  kiln_array_release(s.buffer);
}

void kiln_reduce_clear_new(kiln_operand output) {
  if (output.kind == KILN_OPERAND_NEW && output.value.result) *output.value.result = NULL;
}

/* An identity operand as an expression of the accumulator type. */
static void identity_expression(const kiln_operand *o, char *out, size_t size) {
  int is_float = o->kind == KILN_OPERAND_WEAK_SCALAR ? o->dtype == KILN_FLOAT64
                                                     : kiln_dtype_is_float(o->dtype);
  if (is_float) {
    double v = o->value.f;
    if (isnan(v))
      snprintf(out, size, "KILN_NAN");
    else if (isinf(v))
      snprintf(out, size, "%sKILN_INFINITY", v < 0 ? "-" : "");
    else
      snprintf(out, size, "%a", v);
  } else if (o->kind == KILN_OPERAND_SCALAR && is_unsigned(o->dtype)) {
    snprintf(out, size, "%lluull", (unsigned long long)o->value.u);
  } else if (o->value.i == INT64_MIN) {
    snprintf(out, size, "(-9223372036854775807ll - 1)");
  } else {
    snprintf(out, size, "%lldll", (long long)o->value.i);
  }
}

/* ---- ufunc reduce ---------------------------------------------------------------- */

/* The ops a ufunc has built (kiln_ufunc_op_make): building one dispatches
 * the ufunc and formats its combine function, a large part of the host
 * time of a call; calls after the first copy the kept op. A few per ufunc
 * (one per verb and dtype in practice), never evicted, cleared when the
 * ufunc is declared reducible again. */
#define OP_CACHE_SIZE 8
typedef struct op_cache {
  int count;
  struct {
    char verb[16];
    kiln_dtype in, dtype;
    int has_dtype;
    kiln_ufunc_op op;
  } entries[OP_CACHE_SIZE];
} op_cache;

/* Drops the kept ops of c (may be NULL). */
static void op_cache_clear(op_cache *c) {
  for (int i = 0; c && i < c->count; i++) kiln_ufunc_op_free(&c->entries[i].op);
  if (c) c->count = 0;
}

static void op_cache_free(void *data) {
  op_cache_clear(data);
  free(data);
}

kiln_status kiln_ufunc_declare_reducible(kiln_ufunc *ufunc, const kiln_operand *identity) {
  KILN_CHECK_ARG(ufunc);
  if (ufunc->nin != 2 || ufunc->nout != 1)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "ufunc '%s' has %d inputs and %d outputs; only binary functions "
                          "(2 inputs, 1 output) reduce",
                          ufunc->name, ufunc->nin, ufunc->nout);
  if (identity && identity->kind != KILN_OPERAND_SCALAR &&
      identity->kind != KILN_OPERAND_WEAK_SCALAR)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "ufunc '%s': the identity must be a scalar operand", ufunc->name);
  pthread_mutex_lock(&ufunc->lock);
  ufunc->reducible = 1;
  ufunc->has_identity = identity != NULL;
  if (identity) ufunc->reduce_identity = *identity;
  op_cache_clear(ufunc->reduce_ops); /* the kept ops carry the old identity */
  pthread_mutex_unlock(&ufunc->lock);
  return KILN_OK;
}

void kiln_ufunc_op_free(kiln_ufunc_op *op) {
  kiln_strbuf_free(&op->preamble);
  kiln_strbuf_free(&op->combine);
}

/* *to = a copy of *from owning its own strings. */
static kiln_status op_copy(const kiln_ufunc_op *from, kiln_ufunc_op *to) {
  *to = *from;
  to->preamble = (kiln_strbuf){0};
  to->combine = (kiln_strbuf){0};
  if (from->preamble.data)
    kiln_strbuf_append_n(&to->preamble, from->preamble.data, from->preamble.length);
  if (from->combine.data)
    kiln_strbuf_append_n(&to->combine, from->combine.data, from->combine.length);
  to->spec.name = to->name;
  to->spec.preamble = from->spec.preamble ? to->preamble.data : NULL;
  to->spec.combine = from->spec.combine ? to->combine.data : NULL;
  to->identity = from->identity ? to->ident : NULL;
  kiln_status status = kiln_strbuf_status(&to->preamble);
  return status == KILN_OK ? kiln_strbuf_status(&to->combine) : status;
}

static kiln_status op_build(kiln_ufunc *u, const char *verb, kiln_dtype in, int has_dtype,
                            kiln_dtype dtype, kiln_ufunc_op *op);

kiln_status kiln_ufunc_op_make(kiln_ufunc *u, const char *verb, kiln_dtype in, int has_dtype,
                               kiln_dtype dtype, kiln_ufunc_op *op) {
  if (!has_dtype) dtype = KILN_DTYPE_COUNT;
  int found = 0;
  kiln_status status = KILN_OK;
  pthread_mutex_lock(&u->lock);
  op_cache *c = u->reduce_ops;
  for (int i = 0; c && i < c->count && !found; i++)
    if (strcmp(c->entries[i].verb, verb) == 0 && c->entries[i].in == in &&
        c->entries[i].has_dtype == has_dtype && c->entries[i].dtype == dtype) {
      found = 1;
      status = op_copy(&c->entries[i].op, op);
    }
  pthread_mutex_unlock(&u->lock);
  if (found) return status;
  KILN_RETURN_IF_ERROR(op_build(u, verb, in, has_dtype, dtype, op));
  /* keep a copy (failing to is no error: the next call builds again) */
  pthread_mutex_lock(&u->lock);
  if (!u->reduce_ops) {
    u->reduce_ops = calloc(1, sizeof(op_cache));
    u->reduce_ops_free = op_cache_free;
  }
  c = u->reduce_ops;
  if (c && c->count < OP_CACHE_SIZE) {
    int i = c->count;
    if (op_copy(op, &c->entries[i].op) == KILN_OK) {
      snprintf(c->entries[i].verb, sizeof c->entries[i].verb, "%s", verb);
      c->entries[i].in = in;
      c->entries[i].has_dtype = has_dtype;
      c->entries[i].dtype = dtype;
      c->count++;
    } else {
      kiln_ufunc_op_free(&c->entries[i].op);
    }
  }
  pthread_mutex_unlock(&u->lock);
  return KILN_OK;
}

static kiln_status op_build(kiln_ufunc *u, const char *verb, kiln_dtype in, int has_dtype,
                            kiln_dtype dtype, kiln_ufunc_op *op) {
  memset(op, 0, sizeof *op);
  snprintf(op->what, sizeof op->what, "ufunc '%s' %s", u->name, verb);
  const char *what = op->what;
  if (u->nin != 2 || u->nout != 1)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "%s: %s only supported for binary functions (this one has %d "
                          "inputs and %d outputs)",
                          what, verb, u->nin, u->nout);
  pthread_mutex_lock(&u->lock);
  int reducible = u->reducible, has_identity = u->has_identity, widens = u->reduce_widens;
  kiln_operand identity = u->reduce_identity;
  pthread_mutex_unlock(&u->lock);
  if (!reducible)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "%s: the ufunc is not declared associative and commutative "
                          "(kiln_ufunc_declare_reducible)",
                          what);
  if (in == KILN_DTYPE_COUNT)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "%s: the input must be a device array or host memory", what);
  kiln_dtype acc = in;
  if (has_dtype) {
    acc = dtype;
    if (kiln_dtype_size(acc) == 0)
      return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "%s: unknown dtype %d", what, (int)acc);
    if (!kiln_ufunc_can_cast_same_kind(in, acc))
      return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                            "%s: cannot cast the input from %s to dtype %s with casting rule "
                            "'same_kind'",
                            what, kiln_dtype_name(in), kiln_dtype_name(acc));
  } else if (u->truth_only) {
    acc = KILN_BOOL; /* NumPy's logical reductions fold truth values: any dtype in, bool out */
  } else if (widens && !kiln_dtype_is_float(in) && !kiln_dtype_is_complex(in) &&
             kiln_dtype_size(in) < 8) {
    acc = is_unsigned(in) ? KILN_UINT64 : KILN_INT64;
  }
  /* one dispatch: the signature a call with two accumulator operands gets */
  kiln_operand pair[2];
  int64_t no_shape = 0;
  pair[0] = pair[1] = kiln_operand_host(&no_shape, acc, 0, NULL, NULL);
  kiln_array *unused = NULL;
  kiln_operand outs[1] = {kiln_operand_new(&unused)};
  kiln_ufunc_plan plan;
  KILN_RETURN_IF_ERROR(kiln_ufunc_dispatch(u, pair, outs, &plan));
  const kiln_ufunc_sig *sig = &u->sigs[plan.signature];
  if (sig->dtypes[0] != sig->dtypes[1] || sig->dtypes[1] != sig->dtypes[2])
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "%s: signature \"%s\" (chosen for %s) does not give its input dtype "
                          "back, so it cannot accumulate",
                          what, sig->text, kiln_dtype_name(acc));
  acc = sig->dtypes[2];
  char entry[96], zero[64];
  kiln_ew_zero_expression(acc, zero, sizeof zero);
  snprintf(op->name, sizeof op->name, "ufunc_%s", u->name);
  kiln_ufunc_entry(u, entry, sizeof entry);
  if (u->preamble) kiln_strbuf_appendf(&op->preamble, "%s\n", u->preamble);
  kiln_ufunc_append_body_function(u, sig, entry, &op->preamble);
  if (sig->returns_value)
    kiln_strbuf_appendf(&op->combine, "return %s_body(a, b);", entry);
  else
    kiln_strbuf_appendf(&op->combine, "%s r = %s; %s_body(a, b, &r); return r;",
                        kiln_ew_value_type(acc), zero, entry);
  KILN_RETURN_IF_ERROR(kiln_strbuf_status(&op->preamble));
  KILN_RETURN_IF_ERROR(kiln_strbuf_status(&op->combine));
  op->spec = (kiln_rt_spec){.name = op->name,
                            .ninputs = 1,
                            .inputs = {in},
                            .acc = kiln_rt_accumulator(acc),
                            .out = acc,
                            .preamble = op->preamble.data,
                            .combine = op->combine.data};
  /* built-in minimum/maximum pick one operand (NaN first, else the larger,
   * the later on ties): exactly associative, bits included (complex: not
   * claimed) */
  op->spec.associative = u->builtin_picks && !kiln_dtype_is_complex(acc);
  if (has_identity) {
    identity_expression(&identity, op->ident, sizeof op->ident);
    /* bool storage is a byte: bitwise_and's all-bits identity is true */
    if (acc == KILN_BOOL) snprintf(op->ident, sizeof op->ident, "%d", identity.value.i != 0);
    if (kiln_dtype_is_complex(acc)) { /* a real identity: imaginary part 0 */
      char real[32];
      snprintf(real, sizeof real, "%.31s", op->ident);
      snprintf(op->ident, sizeof op->ident, "%s_make(%s, 0)", kiln_dtype_kernel_type(acc), real);
    }
    op->identity = op->ident;
  }
  snprintf(op->empty, sizeof op->empty,
           "zero-size array to reduction operation %s which has no identity", u->name);
  return KILN_OK;
}

static kiln_status ufunc_reduce(kiln_ufunc *u, kiln_operand input, kiln_operand output,
                                const kiln_reduce_options *options, kiln_stream *stream,
                                kiln_ufunc_op *op, kiln_array **owned) {
  kiln_dtype in =
      input.kind == KILN_OPERAND_SCALAR ? KILN_DTYPE_COUNT : kiln_reduce_input_dtype(&input);
  KILN_RETURN_IF_ERROR(kiln_ufunc_op_make(u, "reduce", in, options && options->has_dtype,
                                          options ? options->dtype : KILN_DTYPE_COUNT, op));
  reduce_job job = {.ctx = u->ctx,
                    .what = op->what,
                    .options = options,
                    .output = output,
                    .stream = stream,
                    .ninputs = 1,
                    .spec = op->spec,
                    .identity = op->identity,
                    .empty_message = op->empty};
  KILN_RETURN_IF_ERROR(
      kiln_reduce_to_device(u->ctx, op->what, 0, &input, in, &job.inputs[0], owned));
  kiln_rt_scratch scratch = kiln_reduce_scratch_take(&u->lock, &u->reduce_scratch);
  job.scratch = &scratch;
  kiln_status status = run_job(&job);
  kiln_reduce_scratch_give(&u->lock, &u->reduce_scratch, scratch);
  return status;
}

kiln_status kiln_ufunc_reduce(kiln_ufunc *ufunc, kiln_operand input, kiln_operand output,
                              const kiln_reduce_options *options, kiln_stream *stream) {
  kiln_reduce_clear_new(output);
  KILN_CHECK_ARG(ufunc);
  kiln_array *owned = NULL;
  kiln_ufunc_op op;
  kiln_status status = ufunc_reduce(ufunc, input, output, options, stream, &op, &owned);
  kiln_ufunc_op_free(&op);
  kiln_array_release(owned);
  return status;
}

/* ---- custom reductions ------------------------------------------------------------ */

struct kiln_reduction {
  kiln_context *ctx;
  char name[KILN_UFUNC_NAME_MAX];
  kiln_ufunc_sig sig;
  kiln_dtype acc;
  char *map, *combine, *post, *identity, *preamble;
  pthread_mutex_t lock;
  kiln_rt_scratch scratch;
};

static char *copy_text(const char *text, int *failed) {
  if (!text) return NULL;
  char *c = strdup(text);
  if (!c) *failed = 1;
  return c;
}

void kiln_reduction_release(kiln_reduction *r) {
  if (!r) return;
  kiln_ufunc_signature_free(&r->sig);
  free(r->map);
  free(r->combine);
  free(r->post);
  free(r->identity);
  free(r->preamble);
  kiln_array_release(r->scratch.buffer);
  pthread_mutex_destroy(&r->lock);
  kiln_context_release(r->ctx);
  free(r);
}

static int is_identifier(const char *s) {
  if (!s || !(s[0] == '_' || (s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z')))
    return 0;
  for (const char *p = s; *p; p++)
    if (!(*p == '_' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
          (*p >= '0' && *p <= '9')))
      return 0;
  return 1;
}

kiln_status kiln_reduction_create(kiln_context *ctx, const kiln_reduction_desc *desc,
                                  kiln_reduction **out) {
  KILN_CHECK_ARG(out);
  *out = NULL;
  KILN_CHECK_ARG(ctx);
  KILN_CHECK_ARG(desc);
  if (!is_identifier(desc->name) || strlen(desc->name) >= KILN_UFUNC_NAME_MAX - 8)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "reduction name \"%s\" is not an identifier of at most %d characters",
                          desc->name ? desc->name : "(null)", KILN_UFUNC_NAME_MAX - 9);
  if (!desc->signature || !desc->map_expr || !desc->reduce_expr)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "reduction '%s': signature, map_expr and reduce_expr are required",
                          desc->name);
  if (kiln_dtype_size(desc->accumulator) == 0)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "reduction '%s': unknown accumulator "
                          "dtype %d",
                          desc->name, (int)desc->accumulator);
  kiln_reduction *r = calloc(1, sizeof *r);
  if (!r) return kiln_error_set(KILN_ERROR_OUT_OF_MEMORY, "out of host memory");
  pthread_mutex_init(&r->lock, NULL);
  r->ctx = kiln_context_retain(ctx);
  snprintf(r->name, sizeof r->name, "%s", desc->name);
  r->acc = kiln_rt_accumulator(desc->accumulator);
  kiln_status status = kiln_ufunc_signature_parse(desc->signature, 0, &r->sig);
  if (status != KILN_OK) {
    kiln_error_prefix(status, "reduction '%s'", desc->name);
    kiln_reduction_release(r);
    return status;
  }
  if (r->sig.nout != 1 || !r->sig.returns_value || r->sig.nin < 1 ||
      r->sig.nin > KILN_RT_MAX_INPUTS) {
    kiln_reduction_release(r);
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "reduction '%s': the signature must be \"T(T1 name1, ...)\" with 1 to "
                          "%d inputs and one output type",
                          desc->name, KILN_RT_MAX_INPUTS);
  }
  int failed = 0;
  kiln_strbuf combine = {0};
  kiln_strbuf_appendf(&combine, "return (%s)(%s);", kiln_dtype_kernel_type(r->acc),
                      desc->reduce_expr);
  failed |= kiln_strbuf_status(&combine) != KILN_OK;
  r->combine = copy_text(combine.data ? combine.data : "", &failed);
  kiln_strbuf_free(&combine);
  r->map = copy_text(desc->map_expr, &failed);
  r->post = copy_text(desc->post_expr, &failed);
  r->identity = copy_text(desc->identity, &failed);
  r->preamble = copy_text(desc->preamble, &failed);
  if (failed) {
    kiln_reduction_release(r);
    return kiln_error_set(KILN_ERROR_OUT_OF_MEMORY, "out of host memory");
  }
  *out = r;
  return KILN_OK;
}

kiln_status kiln_reduction_call(kiln_reduction *r, int nin, const kiln_operand *inputs,
                                kiln_operand output, const kiln_reduce_options *options,
                                kiln_stream *stream) {
  kiln_reduce_clear_new(output);
  KILN_CHECK_ARG(r);
  char what[KILN_UFUNC_NAME_MAX + 16];
  snprintf(what, sizeof what, "reduction '%s'", r->name);
  if (nin != r->sig.nin)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "%s takes %d inputs, %d given", what,
                          r->sig.nin, nin);
  KILN_CHECK_ARG(inputs);
  kiln_dtype out_dtype = r->sig.dtypes[nin];
  reduce_job job = {.ctx = r->ctx,
                    .what = what,
                    .options = options,
                    .output = output,
                    .stream = stream,
                    .ninputs = nin,
                    .identity = r->identity,
                    .empty_message = "zero-size array to a reduction with no identity"};
  kiln_array *owned[KILN_RT_MAX_INPUTS] = {0};
  kiln_strbuf map = {0};
  kiln_status status = KILN_OK;
  for (int j = 0; j < nin && status == KILN_OK; j++) {
    kiln_dtype want = r->sig.dtypes[j];
    status = kiln_reduce_to_device(r->ctx, what, j, &inputs[j], want, &job.inputs[j], &owned[j]);
    if (status != KILN_OK) break;
    kiln_dtype have = job.inputs[j]->dtype;
    if (!kiln_dtype_can_cast_safely(have, want)) {
      status = kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                              "%s: input %d is %s, which does not cast safely to %s (signature "
                              "\"%s\")",
                              what, j, kiln_dtype_name(have), kiln_dtype_name(want), r->sig.text);
      break;
    }
    char cast[256], value[16];
    snprintf(value, sizeof value, "v%d", j);
    kiln_ew_cast_expression(have, want, value, cast, sizeof cast);
    kiln_strbuf_appendf(&map, "%s ", kiln_ew_value_type(want));
    kiln_strbuf_append_n(&map, r->sig.text + r->sig.names[j].start, (size_t)r->sig.names[j].length);
    kiln_strbuf_appendf(&map, " = %s; ", cast);
    job.spec.inputs[j] = have;
  }
  if (status == KILN_OK) {
    kiln_strbuf_appendf(&map, "kiln_m = (%s)(%s);", kiln_dtype_kernel_type(r->acc), r->map);
    status = kiln_strbuf_status(&map);
  }
  if (status == KILN_OK) {
    job.spec.name = r->name;
    job.spec.ninputs = nin;
    job.spec.acc = r->acc;
    job.spec.out = out_dtype;
    job.spec.preamble = r->preamble;
    job.spec.map = map.data;
    job.spec.combine = r->combine;
    job.spec.post = r->post;
    kiln_rt_scratch scratch = kiln_reduce_scratch_take(&r->lock, &r->scratch);
    job.scratch = &scratch;
    status = run_job(&job);
    kiln_reduce_scratch_give(&r->lock, &r->scratch, scratch);
  }
  kiln_strbuf_free(&map);
  for (int j = 0; j < nin; j++) kiln_array_release(owned[j]);
  return status;
}

/* ---- argmin / argmax --------------------------------------------------------------- */

static kiln_status arg_reduce(kiln_context *ctx, int sign, kiln_operand input, kiln_operand output,
                              const kiln_reduce_options *options, kiln_stream *stream) {
  kiln_reduce_clear_new(output);
  KILN_CHECK_ARG(ctx);
  const char *what = sign > 0 ? "argmax" : "argmin";
  kiln_dtype in = kiln_reduce_input_dtype(&input);
  if (in == KILN_DTYPE_COUNT || input.kind == KILN_OPERAND_SCALAR)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "%s: the input must be a device array or host memory", what);
  if (options && !options->all_axes && options->naxes != 1)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "%s: one axis (naxes 1) or all (all_axes), not %d axes", what,
                          options->naxes);
  if (kiln_dtype_is_complex(in))
    return kiln_error_set(KILN_ERROR_UNIMPLEMENTED,
                          "%s: not implemented for %s input (NumPy orders complex values "
                          "lexicographically; kiln's arg reductions compare real values only)",
                          what, kiln_dtype_name(in));
  /* NumPy casts the int64 indices into `out` only to an integer dtype
   * (np.argmax(a, out=float64 array) raises): same_kind alone would let a
   * float out through. The shape and the rest are checked with the output. */
  kiln_dtype out_dtype = output.kind == KILN_OPERAND_ARRAY && output.value.array
                             ? kiln_array_dtype(output.value.array)
                         : output.kind == KILN_OPERAND_HOST ? output.dtype
                                                            : KILN_INT64;
  if (out_dtype == KILN_BOOL || kiln_dtype_is_float(out_dtype) ||
      kiln_dtype_is_complex(out_dtype))
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "%s: the output is %s, but the indices are int64, which cast to it "
                          "only unsafely (an integer output is needed)",
                          what, kiln_dtype_name(out_dtype));
  char empty[64];
  snprintf(empty, sizeof empty, "attempt to get %s of an empty sequence", what);
  reduce_job job = {.ctx = ctx,
                    .what = what,
                    .options = options,
                    .output = output,
                    .stream = stream,
                    .ninputs = 1,
                    .empty_message = empty,
                    .single_axis = 1};
  job.spec = (kiln_rt_spec){
      .name = what, .ninputs = 1, .inputs = {in}, .acc = kiln_rt_accumulator(in),
      .out = KILN_INT64, .arg = sign, .associative = 1};
  kiln_array *owned = NULL;
  kiln_status status = kiln_reduce_to_device(ctx, what, 0, &input, in, &job.inputs[0], &owned);
  if (status == KILN_OK) status = run_job(&job);
  kiln_array_release(owned);
  return status;
}

kiln_status kiln_argmax(kiln_context *ctx, kiln_operand input, kiln_operand output,
                        const kiln_reduce_options *options, kiln_stream *stream) {
  return arg_reduce(ctx, 1, input, output, options, stream);
}

kiln_status kiln_argmin(kiln_context *ctx, kiln_operand input, kiln_operand output,
                        const kiln_reduce_options *options, kiln_stream *stream) {
  return arg_reduce(ctx, -1, input, output, options, stream);
}
