/* core/sort/take.c: kiln_take, kiln_put, kiln_take_along_axis and
 * kiln_put_along_axis over kernels/builtin/move.kl. Every array is moved
 * as words of its element size, so one program per element size serves
 * every dtype; indices are int64, checked by one reduction under RAISE
 * before anything moves. */
#include <stdio.h>
#include <string.h>

#include "core/sort/indexing_internal.h"

typedef struct move_state {
  kiln_array *owned[4];
  kiln_ix_output out;
  kiln_ix_inout io;
} move_state;

static void move_state_free(move_state *st) {
  kiln_ix_output_free(&st->out);
  kiln_ix_inout_free(&st->io);
  for (int i = 0; i < 4; i++) kiln_array_release(st->owned[i]);
}

static int64_t product(int from, int to, const int64_t *shape) {
  int64_t n = 1;
  for (int d = from; d < to; d++) n *= shape[d];
  return n;
}

static kiln_status check_mode(const char *what, kiln_index_mode mode) {
  if (mode != KILN_INDEX_RAISE && mode != KILN_INDEX_WRAP && mode != KILN_INDEX_CLIP)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "%s: mode %d is none of raise, wrap, clip", what, (int)mode);
  return KILN_OK;
}

static kiln_status normalize_axis(const char *what, int *axis, int ndim) {
  if (*axis < -ndim || *axis >= ndim)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "%s: axis %d is out of bounds for array of dimension %d", what, *axis,
                          ndim);
  if (*axis < 0) *axis += ndim;
  return KILN_OK;
}

/* The indices operand as contiguous int64 (a scalar: 0-d). */
static kiln_status index_input(kiln_context *ctx, const char *what, const kiln_operand *indices,
                               kiln_stream *stream, const kiln_array **idx, kiln_array **owned) {
  kiln_dtype d = indices->kind == KILN_OPERAND_WEAK_SCALAR ? KILN_INT64
                                                           : kiln_ix_operand_dtype(indices);
  if (indices->kind == KILN_OPERAND_WEAK_SCALAR && indices->dtype != KILN_INT64)
    d = indices->dtype;
  KILN_RETURN_IF_ERROR(kiln_ix_check_index_dtype(what, "indices", d));
  return kiln_ix_input(ctx, what, "indices", indices, KILN_INT64, KILN_INT64, stream, idx, owned);
}

/* The array read (not a scalar) as a contiguous device array. */
static kiln_status array_input(kiln_context *ctx, const char *what, const kiln_operand *o,
                               kiln_stream *stream, const kiln_array **a, kiln_array **owned) {
  kiln_dtype da = kiln_ix_operand_dtype(o);
  if (da == KILN_DTYPE_COUNT || o->kind == KILN_OPERAND_SCALAR)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "%s: the array must be a device array or host memory", what);
  return kiln_ix_input(ctx, what, "array", o, da, KILN_DTYPE_COUNT, stream, a, owned);
}

/* Launches an entry of move.kl with the word defines of dtype. */
static kiln_status move(kiln_context *ctx, kiln_stream *stream, kiln_dtype dtype,
                        const char *entry, int64_t n, kiln_ix_args *args) {
  char defines[128];
  kiln_ix_word_defines(dtype, defines, sizeof defines);
  return kiln_ix_launch(ctx, stream, kiln_builtin_move, defines, entry, n, args);
}

/* ---- take -------------------------------------------------------------------------- */

static kiln_status take(kiln_context *ctx, kiln_operand a_operand, kiln_operand indices, int axis,
                        kiln_index_mode mode, kiln_operand output, kiln_stream *stream,
                        move_state *st) {
  const char *what = "take";
  KILN_RETURN_IF_ERROR(check_mode(what, mode));
  const kiln_array *a = NULL, *idx = NULL;
  KILN_RETURN_IF_ERROR(array_input(ctx, what, &a_operand, stream, &a, &st->owned[0]));
  kiln_dtype da = a->dtype;
  KILN_RETURN_IF_ERROR(index_input(ctx, what, &indices, stream, &idx, &st->owned[1]));
  int flat = axis == KILN_AXIS_FLAT;
  if (!flat) KILN_RETURN_IF_ERROR(normalize_axis(what, &axis, a->ndim));
  int64_t extent = flat ? a->size : a->shape[axis];
  int64_t outer = flat ? 1 : product(0, axis, a->shape);
  int64_t inner = flat ? 1 : product(axis + 1, a->ndim, a->shape);
  int ndim = flat ? idx->ndim : a->ndim - 1 + idx->ndim;
  if (ndim > KILN_MAX_DIMS)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "%s: the result would have %d dims, more than %d", what, ndim,
                          KILN_MAX_DIMS);
  int64_t shape[KILN_MAX_DIMS];
  int k = 0;
  if (!flat)
    for (int d = 0; d < axis; d++) shape[k++] = a->shape[d];
  for (int d = 0; d < idx->ndim; d++) shape[k++] = idx->shape[d];
  if (!flat)
    for (int d = axis + 1; d < a->ndim; d++) shape[k++] = a->shape[d];
  if (extent == 0 && idx->size > 0)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "%s: cannot do a non-empty take from an empty axis", what);
  if (mode == KILN_INDEX_RAISE)
    KILN_RETURN_IF_ERROR(kiln_ix_check_bounds(ctx, stream, what, idx, extent, flat ? 0 : axis));
  KILN_RETURN_IF_ERROR(kiln_ix_output_begin(ctx, what, &output, da, ndim, shape, 0, &st->out));
  kiln_ix_args args = {0};
  kiln_ix_arg_array(&args, st->out.work);
  kiln_ix_arg_array(&args, a);
  kiln_ix_arg_array(&args, idx);
  if (outer == 1 && inner == 1) {
    kiln_ix_arg_int(&args, extent);
    kiln_ix_arg_int(&args, mode);
    KILN_RETURN_IF_ERROR(move(ctx, stream, da, "kiln_take_flat", idx->size, &args));
  } else {
    kiln_ix_arg_int(&args, idx->size);
    kiln_ix_arg_int(&args, extent);
    kiln_ix_arg_int(&args, inner);
    kiln_ix_arg_int(&args, mode);
    kiln_ix_arg_int(&args, 0);
    KILN_RETURN_IF_ERROR(move(ctx, stream, da, "kiln_take_axis",
                              outer * idx->size * inner * kiln_ix_words(da), &args));
  }
  return kiln_ix_output_finish(ctx, stream, &st->out);
}

kiln_status kiln_take(kiln_context *ctx, kiln_operand a, kiln_operand indices, int axis,
                      kiln_index_mode mode, kiln_operand output, kiln_stream *stream) {
  kiln_reduce_clear_new(output);
  KILN_CHECK_ARG(ctx);
  move_state st;
  memset(&st, 0, sizeof st);
  kiln_status status = take(ctx, a, indices, axis, mode, output, stream, &st);
  move_state_free(&st);
  return status;
}

/* ---- put --------------------------------------------------------------------------- */

/* Source positions per claim chunk: below 2^31, so the winner of a
 * target (move.kl) fits an int32 and OpenCL 1.2's core atomic_max serves
 * (its 64-bit atom_max is an extension that devices may lack). */
#define CLAIM_CHUNK ((int64_t)1 << 30)

/* Scatters n source positions into a with move.kl's `write` entry
 * (a, indices, values, winner, claimed, params..., first), keeping
 * NumPy's last value where targets repeat: per chunk of positions, an
 * int32 winner array of a's size is filled with -1 and `claim` (winner,
 * indices, params..., first) takes each target's largest position; then
 * only that one writes. unique (targets known distinct): one write pass,
 * no claim. */
static kiln_status scatter(kiln_context *ctx, kiln_stream *stream, const kiln_array *a,
                           const kiln_array *indices, const kiln_array *values, int64_t n,
                           const char *claim, const char *write, int nparams,
                           const int64_t *params, int unique) {
  kiln_array *winner = NULL;
  kiln_status status = KILN_OK;
  if (!unique) {
    status = kiln_array_alloc(ctx, KILN_INT32, 1, &a->size, &winner);
    const kiln_array *used[1] = {winner};
    if (status == KILN_OK) status = kiln_ix_use_on_stream(stream, 1, used);
  }
  static const int32_t unclaimed = -1;
  for (int64_t first = 0; status == KILN_OK && first < n; first += CLAIM_CHUNK) {
    int64_t chunk = n - first < CLAIM_CHUNK ? n - first : CLAIM_CHUNK;
    if (!unique) {
      status = kiln_ew_fill_on(winner, &unclaimed, stream);
      kiln_ix_args args = {0};
      kiln_ix_arg_array(&args, winner);
      kiln_ix_arg_array(&args, indices);
      for (int p = 0; p < nparams; p++) kiln_ix_arg_int(&args, params[p]);
      kiln_ix_arg_int(&args, first);
      if (status == KILN_OK) status = move(ctx, stream, a->dtype, claim, chunk, &args);
    }
    kiln_ix_args args = {0};
    kiln_ix_arg_array(&args, a);
    kiln_ix_arg_array(&args, indices);
    kiln_ix_arg_array(&args, values);
    kiln_ix_arg_array(&args, unique ? indices : winner); /* not read when unique */
    kiln_ix_arg_int(&args, !unique);
    for (int p = 0; p < nparams; p++) kiln_ix_arg_int(&args, params[p]);
    kiln_ix_arg_int(&args, first);
    if (status == KILN_OK) status = move(ctx, stream, a->dtype, write, chunk, &args);
  }
  kiln_array_release(winner);
  return status;
}

kiln_status kiln_ix_put_flat(kiln_context *ctx, kiln_stream *stream, const kiln_array *a,
                             const kiln_array *indices, const kiln_array *values,
                             kiln_index_mode mode, int unique) {
  const int64_t params[3] = {a->size, values->size, mode};
  return scatter(ctx, stream, a, indices, values, indices->size, "kiln_put_flat_claim",
                 "kiln_put_flat", 3, params, unique || indices->size == 1);
}

static kiln_status put(kiln_context *ctx, kiln_operand a_operand, kiln_operand indices,
                       kiln_operand values, kiln_index_mode mode, kiln_stream *stream,
                       move_state *st) {
  const char *what = "put";
  KILN_RETURN_IF_ERROR(check_mode(what, mode));
  const kiln_array *idx = NULL, *v = NULL;
  KILN_RETURN_IF_ERROR(kiln_ix_inout_begin(ctx, what, &a_operand, stream, &st->io));
  const kiln_array *a = st->io.work;
  KILN_RETURN_IF_ERROR(index_input(ctx, what, &indices, stream, &idx, &st->owned[0]));
  KILN_RETURN_IF_ERROR(
      kiln_ix_input(ctx, what, "values", &values, a->dtype, a->dtype, stream, &v, &st->owned[1]));
  if (idx->size == 0 || v->size == 0) return KILN_OK; /* NumPy: nothing to put */
  if (a->size == 0)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "%s: cannot replace elements of an empty array", what);
  if (mode == KILN_INDEX_RAISE)
    KILN_RETURN_IF_ERROR(kiln_ix_check_bounds(ctx, stream, what, idx, a->size, 0));
  KILN_RETURN_IF_ERROR(kiln_ix_put_flat(ctx, stream, a, idx, v, mode, 0));
  return kiln_ix_inout_finish(ctx, stream, &st->io);
}

kiln_status kiln_put(kiln_context *ctx, kiln_operand a, kiln_operand indices, kiln_operand values,
                     kiln_index_mode mode, kiln_stream *stream) {
  KILN_CHECK_ARG(ctx);
  move_state st;
  memset(&st, 0, sizeof st);
  kiln_status status = put(ctx, a, indices, values, mode, stream, &st);
  move_state_free(&st);
  return status;
}

/* ---- along an axis ----------------------------------------------------------------- */

/* x broadcast to shape and made contiguous (of dtype) when it is not that
 * already (*owned, to release). */
static kiln_status broadcast_contiguous(const kiln_array *x, int ndim, const int64_t *shape,
                                        kiln_dtype dtype, kiln_stream *stream,
                                        const kiln_array **out, kiln_array **owned) {
  kiln_array *view = NULL;
  KILN_RETURN_IF_ERROR(kiln_array_broadcast_to(x, ndim, shape, &view));
  kiln_status status = kiln_ix_contiguous(view, dtype, stream, out, owned);
  if (status == KILN_OK && !*owned) {
    *owned = view; /* the view is contiguous itself: keep it alive */
    view = NULL;
  }
  kiln_array_release(view);
  return status;
}

/* The indices of an along-axis call (contiguous int64, a's ndim) and the
 * axis normalized. */
static kiln_status along_indices(kiln_context *ctx, const char *what, const kiln_operand *indices,
                                 const kiln_array *a, int *axis, kiln_stream *stream,
                                 const kiln_array **idx, kiln_array **owned) {
  KILN_RETURN_IF_ERROR(index_input(ctx, what, indices, stream, idx, owned));
  if ((*idx)->ndim != a->ndim)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "%s: the indices have %d dims and the array %d; they must have the "
                          "same number of dimensions",
                          what, (*idx)->ndim, a->ndim);
  return normalize_axis(what, axis, a->ndim);
}

static kiln_status shape_error(const char *what, const kiln_array *a, const kiln_array *idx) {
  char sa[256], si[256];
  kiln_ufunc_format_shape(a->ndim, a->shape, sa, sizeof sa);
  kiln_ufunc_format_shape(idx->ndim, idx->shape, si, sizeof si);
  return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                        "%s: indices of shape %s do not broadcast against the array's %s "
                        "outside the axis",
                        what, si, sa);
}

static kiln_status take_along(kiln_context *ctx, kiln_operand a_operand, kiln_operand indices,
                              int axis, kiln_operand output, kiln_stream *stream,
                              move_state *st) {
  const char *what = "take_along_axis";
  const kiln_array *a = NULL, *idx = NULL;
  KILN_RETURN_IF_ERROR(array_input(ctx, what, &a_operand, stream, &a, &st->owned[0]));
  kiln_dtype da = a->dtype;
  KILN_RETURN_IF_ERROR(along_indices(ctx, what, &indices, a, &axis, stream, &idx, &st->owned[1]));
  int64_t shape[KILN_MAX_DIMS], a_shape[KILN_MAX_DIMS];
  for (int d = 0; d < a->ndim; d++) {
    int64_t x = a->shape[d], y = idx->shape[d];
    if (d != axis && x != y && x != 1 && y != 1) return shape_error(what, a, idx);
    shape[d] = d == axis ? y : (x == 1 ? y : x);
    a_shape[d] = d == axis ? x : shape[d];
  }
  KILN_RETURN_IF_ERROR(
      broadcast_contiguous(a, a->ndim, a_shape, da, stream, &a, &st->owned[2]));
  KILN_RETURN_IF_ERROR(
      broadcast_contiguous(idx, a->ndim, shape, KILN_INT64, stream, &idx, &st->owned[3]));
  int64_t extent = a->shape[axis];
  KILN_RETURN_IF_ERROR(kiln_ix_check_bounds(ctx, stream, what, idx, extent, axis));
  KILN_RETURN_IF_ERROR(kiln_ix_output_begin(ctx, what, &output, da, a->ndim, shape, 0, &st->out));
  kiln_ix_args args = {0};
  kiln_ix_arg_array(&args, st->out.work);
  kiln_ix_arg_array(&args, a);
  kiln_ix_arg_array(&args, idx);
  kiln_ix_arg_int(&args, shape[axis]);
  kiln_ix_arg_int(&args, extent);
  kiln_ix_arg_int(&args, product(axis + 1, a->ndim, shape));
  kiln_ix_arg_int(&args, KILN_INDEX_RAISE);
  kiln_ix_arg_int(&args, 1);
  KILN_RETURN_IF_ERROR(
      move(ctx, stream, da, "kiln_take_axis", idx->size * kiln_ix_words(da), &args));
  return kiln_ix_output_finish(ctx, stream, &st->out);
}

kiln_status kiln_take_along_axis(kiln_context *ctx, kiln_operand a, kiln_operand indices, int axis,
                                 kiln_operand output, kiln_stream *stream) {
  kiln_reduce_clear_new(output);
  KILN_CHECK_ARG(ctx);
  move_state st;
  memset(&st, 0, sizeof st);
  kiln_status status = take_along(ctx, a, indices, axis, output, stream, &st);
  move_state_free(&st);
  return status;
}

static kiln_status put_along(kiln_context *ctx, kiln_operand a_operand, kiln_operand indices,
                             kiln_operand values, int axis, kiln_stream *stream, move_state *st) {
  const char *what = "put_along_axis";
  KILN_RETURN_IF_ERROR(kiln_ix_inout_begin(ctx, what, &a_operand, stream, &st->io));
  const kiln_array *a = st->io.work, *idx = NULL, *v = NULL;
  KILN_RETURN_IF_ERROR(along_indices(ctx, what, &indices, a, &axis, stream, &idx, &st->owned[0]));
  int64_t shape[KILN_MAX_DIMS];
  for (int d = 0; d < a->ndim; d++) {
    if (d != axis && idx->shape[d] != a->shape[d] && idx->shape[d] != 1)
      return shape_error(what, a, idx);
    shape[d] = d == axis ? idx->shape[d] : a->shape[d];
  }
  KILN_RETURN_IF_ERROR(
      broadcast_contiguous(idx, a->ndim, shape, KILN_INT64, stream, &idx, &st->owned[1]));
  KILN_RETURN_IF_ERROR(
      kiln_ix_input(ctx, what, "values", &values, a->dtype, KILN_DTYPE_COUNT, stream, &v,
                    &st->owned[2]));
  kiln_status status = broadcast_contiguous(v, a->ndim, shape, a->dtype, stream, &v, &st->owned[3]);
  if (status != KILN_OK)
    return kiln_error_prefix(status, "%s: the values do not broadcast to the indices' shape",
                             what);
  int64_t extent = a->shape[axis];
  KILN_RETURN_IF_ERROR(kiln_ix_check_bounds(ctx, stream, what, idx, extent, axis));
  const int64_t params[4] = {shape[axis], extent, product(axis + 1, a->ndim, shape),
                             KILN_INDEX_RAISE};
  KILN_RETURN_IF_ERROR(scatter(ctx, stream, a, idx, v, idx->size, "kiln_put_along_claim",
                               "kiln_put_along", 4, params, idx->size == 1));
  return kiln_ix_inout_finish(ctx, stream, &st->io);
}

kiln_status kiln_put_along_axis(kiln_context *ctx, kiln_operand a, kiln_operand indices,
                                kiln_operand values, int axis, kiln_stream *stream) {
  KILN_CHECK_ARG(ctx);
  move_state st;
  memset(&st, 0, sizeof st);
  kiln_status status = put_along(ctx, a, indices, values, axis, stream, &st);
  move_state_free(&st);
  return status;
}
