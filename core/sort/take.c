/* core/sort/take.c: kiln_take, kiln_put, kiln_take_along_axis and
 * kiln_put_along_axis over kernels/builtin/move.kl. Every array is moved
 * as words of its element size, so one program per element size serves
 * every dtype; indices are int64, checked by one reduction under RAISE
 * before anything moves. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
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

/* Mode RAISE's index check of a take (NumPy's default; every index in
 * [-extent, extent) or OUT_OF_RANGE, the output left alone). Where the
 * output the kernel writes is not the caller's until the call succeeds (a
 * new result, host memory, a temporary), the gather checks each index as
 * it reads it and raises a flag (move.kl), and only a raised flag runs the
 * reduction that names the first bad index: one pass over the indices
 * instead of two. Into a given device array written in place, the
 * reduction runs first. $KILN_TAKE_CHECK (fused, separate, auto; read at
 * each call) fixes the form, for bench A/B runs and tests. */
typedef struct take_check {
  int raise, fused;
  kiln_array *bad; /* the flag (uint32, one element) when fused */
} take_check;

static kiln_status take_check_begin(kiln_context *ctx, kiln_stream *stream, const char *what,
                                    kiln_index_mode mode, const kiln_operand *output,
                                    const move_state *st, const kiln_array *idx, int64_t extent,
                                    int axis, take_check *c) {
  memset(c, 0, sizeof *c);
  c->raise = mode == KILN_INDEX_RAISE;
  if (!c->raise || idx->size == 0) return KILN_OK;
  const char *v = getenv("KILN_TAKE_CHECK");
  int forced = -1; /* 1 fused, 0 separate */
  if (v && *v && strcmp(v, "auto") != 0) {
    if (strcmp(v, "fused") == 0) forced = 1;
    else if (strcmp(v, "separate") == 0) forced = 0;
    else
      return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                            "%s: KILN_TAKE_CHECK=%s is none of fused, separate, auto", what, v);
  }
  int in_place = output->kind == KILN_OPERAND_ARRAY && st->out.work == st->out.target;
  c->fused = !in_place && forced != 0;
  if (!c->fused) return kiln_ix_check_bounds(ctx, stream, what, idx, extent, axis);
  int64_t one = 1;
  static const uint32_t zero = 0;
  KILN_RETURN_IF_ERROR(kiln_array_alloc(ctx, KILN_UINT32, 1, &one, &c->bad));
  return kiln_ew_fill_on(c->bad, &zero, stream);
}

/* The take's check arguments: the flag and whether to check (none when
 * take_check_begin failed before the flag was made). */
static void take_check_args(kiln_ix_args *args, const take_check *c, const kiln_array *idx) {
  kiln_ix_arg_array(args, c->bad ? c->bad : idx); /* idx: not written (check 0) */
  kiln_ix_arg_int(args, c->bad != NULL);
}

/* After the gather: a raised flag names the first bad index (the
 * reduction), else OK. Waits for the stream when fused. */
static kiln_status take_check_end(kiln_context *ctx, kiln_stream *stream, const char *what,
                                  const kiln_array *idx, int64_t extent, int axis, take_check *c) {
  if (!c->fused) return KILN_OK;
  uint32_t raised = 1;
  kiln_status status = stream ? kiln_stream_synchronize(ctx, stream) : KILN_OK;
  if (status == KILN_OK) status = kiln_array_to_host(c->bad, &raised, NULL);
  if (status == KILN_OK && raised) {
    status = kiln_ix_check_bounds(ctx, stream, what, idx, extent, axis);
    if (status == KILN_OK) /* a flag raised by no index: cannot happen */
      status = kiln_error_set(KILN_ERROR_INTERNAL, "%s: the index check disagrees", what);
  }
  return status;
}

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
  KILN_RETURN_IF_ERROR(kiln_ix_output_begin(ctx, what, &output, da, ndim, shape, 0, &st->out));
  take_check check;
  kiln_status status = take_check_begin(ctx, stream, what, mode, &output, st, idx, extent,
                                        flat ? 0 : axis, &check);
  kiln_ix_args args = {0};
  kiln_ix_arg_array(&args, st->out.work);
  kiln_ix_arg_array(&args, a);
  kiln_ix_arg_array(&args, idx);
  take_check_args(&args, &check, idx);
  if (status == KILN_OK && outer == 1 && inner == 1) {
    kiln_ix_arg_int(&args, extent);
    kiln_ix_arg_int(&args, mode);
    /* one work-item per element (H200: 2.736-2.757 ms against 2.802-2.809
     * with grid-stride trips, 1e8 random indices; docs/indexing.md) */
    char defines[128];
    kiln_ix_word_defines(da, defines, sizeof defines);
    status = kiln_ix_launch_wide(ctx, stream, kiln_builtin_move, defines, "kiln_take_flat",
                                 idx->size, &args);
  } else if (status == KILN_OK) {
    kiln_ix_arg_int(&args, idx->size);
    kiln_ix_arg_int(&args, extent);
    kiln_ix_arg_int(&args, inner);
    kiln_ix_arg_int(&args, mode);
    kiln_ix_arg_int(&args, 0);
    status = move(ctx, stream, da, "kiln_take_axis", outer * idx->size * inner * kiln_ix_words(da),
                  &args);
  }
  if (status == KILN_OK) status = take_check_end(ctx, stream, what, idx, extent, flat ? 0 : axis,
                                                 &check);
  kiln_array_release(check.bad);
  KILN_RETURN_IF_ERROR(status);
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
 * (its 64-bit atom_max is an extension that devices may lack), and the
 * packed claim's (i + 1) << 32 fits 64 bits. */
#define CLAIM_CHUNK ((int64_t)1 << 30)

/* The tests' claim chunk (0: CLAIM_CHUNK), so that puts of many chunks
 * run at small sizes (tests/test_put_chunks.c). */
static _Atomic int64_t forced_chunk;

void kiln_ix_force_put_chunk(int64_t positions) {
  atomic_store(&forced_chunk, positions > 0 && positions < CLAIM_CHUNK ? positions : 0);
}

/* How a scatter whose targets may repeat keeps NumPy's last value
 * (move.kl; docs/indexing.md). Each chunk of positions first claims its
 * targets with an atomic max of the position, into scratch of a's size;
 * then:
 *   CHECKED  every position writes its target where it won: winner read
 *            at random, a written at random (sparse puts: few positions);
 *   WINNERS  one pass over a's targets writes each claimed one from its
 *            winner's value: a gather of the values, a written in order;
 *   PACKED   the claim is a 64-bit max of (position + 1) << 32 | the
 *            value's bits (elements of at most 4 bytes, a device with a
 *            64-bit atomic max), and one pass over a unpacks it: one random
 *            access per position, as an unordered scatter.
 * Dense puts (positions at least an eighth of a's size) take PACKED where
 * it can run, else WINNERS; sparse ones CHECKED, whose cost does not grow
 * with a's size beyond the scratch fill.
 * Tried and dropped (docs/indexing.md): a plain scatter that marks its
 * targets in a bitmap, the claim redone only where a target repeated. The
 * bitmap's atomics cost more than the packed claim's fill and unpack (1e8
 * permutation: atomic ORs whose old value was read, H200, 7.31 ms against
 * 6.82; ORs without a result and a popcount, H100, 9.24 against 8.38).
 * $KILN_PUT_FORM (checked, winners, packed, auto; read at each call) fixes
 * the form, for bench A/B runs and tests (packed falls back to winners for
 * 8- and 16-byte elements and without a 64-bit atomic max). */
typedef enum put_form { PUT_CHECKED = 0, PUT_WINNERS = 1, PUT_PACKED = 2, PUT_AUTO = 3 } put_form;

static kiln_status env_put_form(put_form *form) {
  static const char *const names[] = {"checked", "winners", "packed"};
  *form = PUT_AUTO;
  const char *v = getenv("KILN_PUT_FORM");
  if (!v || !*v || strcmp(v, "auto") == 0) return KILN_OK;
  for (int f = 0; f < 3; f++)
    if (strcmp(v, names[f]) == 0) {
      *form = (put_form)f;
      return KILN_OK;
    }
  return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                        "put: KILN_PUT_FORM=%s is none of checked, winners, packed, auto", v);
}

/* The form of a scatter of n positions into a, before the check that the
 * device has a 64-bit atomic max. */
static put_form choose_form(const kiln_array *a, int64_t n, put_form forced) {
  int packable = kiln_ix_words(a->dtype) == 1 && kiln_dtype_size(a->dtype) <= 4;
  if (forced == PUT_PACKED && !packable) return PUT_WINNERS;
  if (forced != PUT_AUTO) return forced;
  if (n < a->size / 8) return PUT_CHECKED;
  return packable ? PUT_PACKED : PUT_WINNERS;
}

/* move.kl's defines for dtype with the packed claim's kernels. */
static void packed_defines(kiln_dtype dtype, char *out, size_t size) {
  char words[128];
  kiln_ix_word_defines(dtype, words, sizeof words);
  snprintf(out, size, "%s#define PUT_PACKED 1\n", words);
}

/* Launches an entry of move.kl built with the packed claim's kernels. */
static kiln_status move_packed(kiln_context *ctx, kiln_stream *stream, kiln_dtype dtype,
                               const char *entry, int64_t n, kiln_ix_args *args) {
  char defines[160];
  packed_defines(dtype, defines, sizeof defines);
  return kiln_ix_launch(ctx, stream, kiln_builtin_move, defines, entry, n, args);
}

/* Whether the device compiles the packed claim (move.kl's #error where it
 * has no 64-bit atomic max: the form falls back to WINNERS). */
static kiln_status packed_available(kiln_context *ctx, kiln_dtype dtype, const char *claim,
                                    int *available) {
  char defines[160];
  packed_defines(dtype, defines, sizeof defines);
  kiln_program *program = NULL;
  kiln_status status = kiln_ix_program(ctx, kiln_builtin_move, defines, claim, &program);
  *available = status == KILN_OK;
  if (status != KILN_OK &&
      strstr(kiln_last_error(), "need 64-bit atomics, which this device lacks"))
    status = KILN_OK;
  return status;
}

/* One chunk's claim and write in the chosen form (see above). params:
 * the claim's and write's parameters before `first`; nvalues: the values'
 * size (a position's value is values[k % nvalues]). */
typedef struct scatter_job {
  const kiln_array *a, *indices, *values;
  const char *claim, *write; /* the CHECKED form's entries; + "_packed" */
  int nparams;
  const int64_t *params;
  int64_t nvalues;
} scatter_job;

static kiln_status scatter_chunk(kiln_context *ctx, kiln_stream *stream, const scatter_job *j,
                                 put_form form, kiln_array *scratch, int64_t first,
                                 int64_t chunk) {
  kiln_dtype dtype = j->a->dtype;
  kiln_ix_args args = {0};
  if (form == PUT_PACKED) {
    static const uint64_t zero = 0;
    KILN_RETURN_IF_ERROR(kiln_ew_fill_on(scratch, &zero, stream));
    char entry[64];
    snprintf(entry, sizeof entry, "%s_packed", j->claim);
    kiln_ix_arg_array(&args, scratch);
    kiln_ix_arg_array(&args, j->indices);
    kiln_ix_arg_array(&args, j->values);
    for (int p = 0; p < j->nparams; p++) kiln_ix_arg_int(&args, j->params[p]);
    kiln_ix_arg_int(&args, first);
    KILN_RETURN_IF_ERROR(move_packed(ctx, stream, dtype, entry, chunk, &args));
    kiln_ix_args unpack = {0};
    kiln_ix_arg_array(&unpack, j->a);
    kiln_ix_arg_array(&unpack, scratch);
    return move_packed(ctx, stream, dtype, "kiln_put_unpack", j->a->size, &unpack);
  }
  static const int32_t unclaimed = -1;
  KILN_RETURN_IF_ERROR(kiln_ew_fill_on(scratch, &unclaimed, stream));
  kiln_ix_arg_array(&args, scratch);
  kiln_ix_arg_array(&args, j->indices);
  for (int p = 0; p < j->nparams; p++) kiln_ix_arg_int(&args, j->params[p]);
  kiln_ix_arg_int(&args, first);
  KILN_RETURN_IF_ERROR(move(ctx, stream, dtype, j->claim, chunk, &args));
  kiln_ix_args write = {0};
  kiln_ix_arg_array(&write, j->a);
  if (form == PUT_WINNERS) {
    kiln_ix_arg_array(&write, scratch);
    kiln_ix_arg_array(&write, j->values);
    kiln_ix_arg_int(&write, j->nvalues);
    kiln_ix_arg_int(&write, first);
    return move(ctx, stream, dtype, "kiln_put_winners", j->a->size, &write);
  }
  kiln_ix_arg_array(&write, j->indices);
  kiln_ix_arg_array(&write, j->values);
  kiln_ix_arg_array(&write, scratch);
  kiln_ix_arg_int(&write, 1);
  for (int p = 0; p < j->nparams; p++) kiln_ix_arg_int(&write, j->params[p]);
  kiln_ix_arg_int(&write, first);
  return move(ctx, stream, dtype, j->write, chunk, &write);
}

/* Scatters n source positions into a with move.kl's `write` entry
 * (a, indices, values, winner, claimed, params..., first), keeping
 * NumPy's last value where targets repeat, chunk by chunk in order (a later
 * chunk overwrites an earlier one, as NumPy's loop does), in the form
 * choose_form picks. unique (targets known distinct, or every value the
 * same): one write pass, no claim. */
static kiln_status scatter(kiln_context *ctx, kiln_stream *stream, const scatter_job *j,
                           int64_t n, int unique) {
  const kiln_array *a = j->a;
  put_form forced = PUT_AUTO;
  KILN_RETURN_IF_ERROR(env_put_form(&forced));
  if (unique) {
    kiln_ix_args args = {0};
    kiln_ix_arg_array(&args, a);
    kiln_ix_arg_array(&args, j->indices);
    kiln_ix_arg_array(&args, j->values);
    kiln_ix_arg_array(&args, j->indices); /* winner: not read */
    kiln_ix_arg_int(&args, 0);
    for (int p = 0; p < j->nparams; p++) kiln_ix_arg_int(&args, j->params[p]);
    kiln_ix_arg_int(&args, 0);
    return move(ctx, stream, a->dtype, j->write, n, &args);
  }
  put_form form = choose_form(a, n, forced);
  if (form == PUT_PACKED) {
    char entry[64];
    int available = 0;
    snprintf(entry, sizeof entry, "%s_packed", j->claim);
    KILN_RETURN_IF_ERROR(packed_available(ctx, a->dtype, entry, &available));
    if (!available) form = PUT_WINNERS;
  }
  kiln_array *scratch = NULL;
  KILN_RETURN_IF_ERROR(kiln_array_alloc(ctx, form == PUT_PACKED ? KILN_UINT64 : KILN_INT32, 1,
                                        &a->size, &scratch));
  const kiln_array *used[1] = {scratch};
  kiln_status status = kiln_ix_use_on_stream(stream, 1, used);
  int64_t step = atomic_load(&forced_chunk);
  if (step == 0) step = CLAIM_CHUNK;
  for (int64_t first = 0; status == KILN_OK && first < n; first += step) {
    int64_t chunk = n - first < step ? n - first : step;
    status = scatter_chunk(ctx, stream, j, form, scratch, first, chunk);
  }
  kiln_array_release(scratch);
  return status;
}

kiln_status kiln_ix_put_flat(kiln_context *ctx, kiln_stream *stream, const kiln_array *a,
                             const kiln_array *indices, const kiln_array *values,
                             kiln_index_mode mode, int unique) {
  const int64_t params[3] = {a->size, values->size, mode};
  scatter_job job = {a, indices, values, "kiln_put_flat_claim", "kiln_put_flat", 3, params,
                     values->size};
  /* one value: a repeated target gets the same value whichever write wins */
  return scatter(ctx, stream, &job, indices->size,
                 unique || indices->size == 1 || values->size == 1);
}

static kiln_status put(kiln_context *ctx, kiln_operand a_operand, kiln_operand indices,
                       kiln_operand values, kiln_index_mode mode, kiln_stream *stream,
                       move_state *st) {
  const char *what = "put";
  int any_wins = ((int)mode & KILN_INDEX_ANY_WINS) != 0;
  mode = (kiln_index_mode)((int)mode & ~KILN_INDEX_ANY_WINS);
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
  /* any one value may win: the plain scatter, as for distinct targets, where
   * an element moves as one word; two racing writes of a two-word element
   * (complex128) could leave half of each (seen on the H200), so it keeps
   * the claim */
  int plain = any_wins && kiln_ix_words(a->dtype) == 1;
  KILN_RETURN_IF_ERROR(kiln_ix_put_flat(ctx, stream, a, idx, v, mode, plain));
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
  KILN_RETURN_IF_ERROR(kiln_ix_output_begin(ctx, what, &output, da, a->ndim, shape, 0, &st->out));
  take_check check;
  kiln_status status = take_check_begin(ctx, stream, what, KILN_INDEX_RAISE, &output, st, idx,
                                        extent, axis, &check);
  kiln_ix_args args = {0};
  kiln_ix_arg_array(&args, st->out.work);
  kiln_ix_arg_array(&args, a);
  kiln_ix_arg_array(&args, idx);
  take_check_args(&args, &check, idx);
  kiln_ix_arg_int(&args, shape[axis]);
  kiln_ix_arg_int(&args, extent);
  kiln_ix_arg_int(&args, product(axis + 1, a->ndim, shape));
  kiln_ix_arg_int(&args, KILN_INDEX_RAISE);
  kiln_ix_arg_int(&args, 1);
  if (status == KILN_OK)
    status = move(ctx, stream, da, "kiln_take_axis", idx->size * kiln_ix_words(da), &args);
  if (status == KILN_OK) status = take_check_end(ctx, stream, what, idx, extent, axis, &check);
  kiln_array_release(check.bad);
  KILN_RETURN_IF_ERROR(status);
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
  scatter_job job = {a, idx, v, "kiln_put_along_claim", "kiln_put_along", 4, params, idx->size};
  KILN_RETURN_IF_ERROR(scatter(ctx, stream, &job, idx->size, idx->size == 1));
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
