/* core/reduce/reduce_internal.h: what the reductions (reduce.c) and the
 * scans and compaction (scan.c) share (internal). */
#ifndef KILN_CORE_REDUCE_INTERNAL_H
#define KILN_CORE_REDUCE_INTERNAL_H

#include "core/codegen/scan_line.h"
#include "core/codegen/scan_tree.h"
#include "core/ufunc/ufunc_internal.h"
#include "kiln/reduce.h"

/* Marks reduced[d] for the axes of *o (NULL or all_axes: every axis).
 * Errors: INVALID_ARGUMENT (out of bounds, repeated), prefixed by what. */
kiln_status kiln_reduce_resolve_axes(const char *what, int ndim, const kiln_reduce_options *o,
                                     int reduced[KILN_MAX_DIMS]);

/* An input operand as a device array: given, or uploaded (host memory; a
 * scalar as a 0-d array, of scalar_dtype for weak scalars). *owned
 * receives what was made (the caller releases it). */
kiln_status kiln_reduce_to_device(kiln_context *ctx, const char *what, int index,
                                  const kiln_operand *o, kiln_dtype scalar_dtype,
                                  const kiln_array **array, kiln_array **owned);

/* `a` as a 1-D view in C order: itself when 1-D, else a view of it when
 * contiguous, else of a contiguous copy (*copy, to release; made on the
 * default stream, so a call on another stream waits for it). */
kiln_status kiln_reduce_flat_view(const kiln_array *a, kiln_stream *stream, kiln_array *view,
                                  kiln_array **copy);

/* The number of nonzero elements of a (a reduction queued on stream, then
 * waited for: one 8-byte copy to the host). */
kiln_status kiln_reduce_count_nonzero(kiln_context *ctx, kiln_stream *stream, const kiln_array *a,
                                      int64_t *count);

/* The dtype of an array, host or typed scalar operand; else
 * KILN_DTYPE_COUNT. */
kiln_dtype kiln_reduce_input_dtype(const kiln_operand *o);

/* The output operand as a device array of shape (exactly, or at least per
 * dim when at_least): new (of *result dtype), given, or a temporary for
 * host memory (*made, to copy back and release). *result becomes the
 * output's dtype, which *result must cast to same_kind. */
kiln_status kiln_reduce_prepare_output(kiln_context *ctx, const char *what, const kiln_operand *o,
                                       kiln_dtype *result, int ndim, const int64_t *shape,
                                       int at_least, kiln_array **made, const kiln_array **out);

/* Takes an owner's kept scratch (partials) under its lock, leaving none;
 * gives it back after the call (or frees it when another call already
 * gave one back). */
kiln_rt_scratch kiln_reduce_scratch_take(pthread_mutex_t *lock, kiln_rt_scratch *kept);
void kiln_reduce_scratch_give(pthread_mutex_t *lock, kiln_rt_scratch *kept, kiln_rt_scratch s);

/* Sets a NEW operand's result to NULL. */
void kiln_reduce_clear_new(kiln_operand output);

/* A reducible binary ufunc as an accumulating operation: NumPy's
 * accumulator dtype (see kiln/reduce.h), the one dispatch, the body as
 * kiln_rt_combine, the identity. */
typedef struct kiln_ufunc_op {
  char what[KILN_UFUNC_NAME_MAX + 32]; /* "ufunc 'add' reduce" */
  char name[KILN_UFUNC_NAME_MAX + 8];
  char ident[64];
  char empty[KILN_UFUNC_NAME_MAX + 96];
  kiln_strbuf preamble, combine;
  kiln_rt_spec spec;    /* inputs[0] = the input dtype, acc = out */
  const char *identity; /* ident, or NULL */
} kiln_ufunc_op;

/* Fills *op (free it with kiln_ufunc_op_free, also after an error). verb:
 * "reduce", "scan". in: the input dtype (KILN_DTYPE_COUNT: not an
 * array). Errors: INVALID_ARGUMENT (not binary, not reducible, dtype). */
kiln_status kiln_ufunc_op_make(kiln_ufunc *u, const char *verb, kiln_dtype in, int has_dtype,
                               kiln_dtype dtype, kiln_ufunc_op *op);
void kiln_ufunc_op_free(kiln_ufunc_op *op);

#endif
