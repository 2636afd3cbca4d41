/* kiln/reduce.h: reductions, as NumPy's ufunc.reduce, CuPy's ReductionKernel
 * and argmin/argmax (docs/reductions.md).
 *
 * Reproducible: for the same input, shape and dtype, a reduction gives the
 * same bits on every run, backend and device. kiln fixes the order of the
 * operations: the reduced elements (in C order of the reduced axes) are cut
 * into chunks of KILN_REDUCE_CHUNK; in a chunk, lane l (0..31) combines the
 * elements l, l+32, l+64, ... in that order, then the 32 lane results are
 * combined by a fixed pairwise tree (lane i with lane i+16, then i+8, ...);
 * the chunk results are reduced again the same way until one is left.
 * Work-group size and core count never change that order, and these
 * programs are compiled without floating-point contraction (no FMA).
 *
 * The combining operation must be associative and commutative (the tree
 * pairs interleaved lanes). */
#ifndef KILN_REDUCE_H
#define KILN_REDUCE_H

#include <stdint.h>
#include "kiln/array.h"
#include "kiln/context.h"
#include "kiln/stream.h"
#include "kiln/ufunc.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KILN_REDUCE_CHUNK 4096
#define KILN_REDUCE_LANES 32

/* Which axes to reduce and how (all fields optional: zero-initialise). */
typedef struct kiln_reduce_options {
  /* Axes to reduce, each in -ndim..ndim-1 (negative counts from the end).
   * NumPy's axis=None is all_axes = 1; axis=k is naxes = 1, axes = {k};
   * axis=() is naxes = 0 (nothing reduced: a cast copy). */
  int naxes;
  int axes[KILN_MAX_DIMS];
  int all_axes;     /* nonzero: reduce every axis (axes ignored) */
  int keepdims;     /* keep the reduced axes with extent 1 */
  kiln_dtype dtype; /* accumulator/result dtype, read only when has_dtype */
  int has_dtype;    /* nonzero: `dtype` is given; zero: NumPy's default */
  /* Work-group size of the launches (a multiple of 32, at most 256; 0:
   * kiln's choice). It never changes the result: it exists to test that. */
  int work_group_size;
} kiln_reduce_options;

/* Options reducing every axis (NumPy's axis=None). */
static inline kiln_reduce_options kiln_reduce_all(void) {
  kiln_reduce_options o = {0};
  o.all_axes = 1;
  return o;
}
/* Options reducing one axis. */
static inline kiln_reduce_options kiln_reduce_axis(int axis) {
  kiln_reduce_options o = {0};
  o.naxes = 1;
  o.axes[0] = axis;
  return o;
}

/* Declares a user ufunc (2 inputs, 1 output) associative and commutative so
 * it can be reduced, with its identity (a scalar operand; NULL: none, then
 * reducing an empty extent is an error). Built-ins with an identity (add 0,
 * multiply 1, logical_and true, logical_or/xor false, bitwise_and all
 * bits, bitwise_or/xor 0) and minimum/maximum (no identity) need no
 * declaration.
 * Errors: INVALID_ARGUMENT (not binary, identity not a scalar). */
KILN_API kiln_status kiln_ufunc_declare_reducible(kiln_ufunc *ufunc, const kiln_operand *identity);

/* Reduces `input` (a device array or host memory: kiln_operand_array /
 * kiln_operand_host) with the binary ufunc over the axes of *options
 * (NULL: every axis) into `output`: kiln_operand_new(&result) (a device
 * array), a device array or host memory (kiln_operand_host_output) of the
 * result shape (the input's without the reduced axes; with them as 1 under
 * keepdims).
 *
 * Dtypes follow NumPy: the accumulator is options->dtype if given, else
 * for add and multiply bool and integers narrower than 64 bits widen to
 * int64 (unsigned: uint64), the logical functions fold truth values in
 * bool, else the input's dtype (float16 is accumulated in float32 and
 * rounded once, at the output); the ufunc's signature
 * is dispatched for (acc, acc) as a ufunc call would be and must give acc
 * back; a given output must be same_kind castable from it. Integer sums
 * wrap as NumPy's do. minimum/maximum propagate NaN.
 *
 * Empty reduced extent: the identity, or INVALID_ARGUMENT where the ufunc
 * has none ("zero-size array to reduction operation minimum which has no
 * identity"). Device operands: queued on `stream` (NULL: default) and the
 * call returns; host operands: returns when the result is written.
 * Errors: INVALID_ARGUMENT (axis out of range or repeated, a ufunc that is
 * not binary or not reducible, dtype mismatches, output shape), others as
 * kiln_ufunc_call. A new output is NULL on failure. */
KILN_API kiln_status kiln_ufunc_reduce(kiln_ufunc *ufunc, kiln_operand input, kiln_operand output,
                                       const kiln_reduce_options *options, kiln_stream *stream);

/* ---- custom map/reduce/post reductions (CuPy's ReductionKernel) ---------- */

typedef struct kiln_reduction kiln_reduction;

/* What a custom reduction computes; strings are kernel language, copied. */
typedef struct kiln_reduction_desc {
  const char *name; /* an identifier */
  /* "float64(float32 x, float32 y)": the inputs (names and dtypes the map
   * sees; array inputs are cast to them, safely) and the output dtype. */
  const char *signature;
  kiln_dtype accumulator;  /* type of a and b below */
  const char *map_expr;    /* over the inputs' names and kiln_i (the int64
                              index of the element among the reduced
                              ones, C order): the accumulator value */
  const char *reduce_expr; /* over a and b: a combined with b (associative
                              and commutative) */
  const char *post_expr;   /* over a: the output value; NULL: a cast */
  const char *identity;    /* the empty reduction's value (an expression
                              of the accumulator type); NULL: empty is an
                              error */
  const char *preamble;    /* KILN_DEVICE helpers; NULL: none */
} kiln_reduction_desc;

/* Creates a custom reduction; nothing is compiled yet.
 * Errors: INVALID_ARGUMENT (NULL fields, a bad name or signature: the
 * message shows where; more than 16 inputs; unknown accumulator dtype),
 * OUT_OF_MEMORY. *out is NULL on failure; it holds a reference to ctx. */
KILN_API kiln_status kiln_reduction_create(kiln_context *ctx, const kiln_reduction_desc *desc,
                                           kiln_reduction **out);

/* Runs it: the inputs broadcast together (NumPy's rules; device arrays,
 * host arrays or scalars), the map applied element-wise, the results
 * reduced over *options' axes of the broadcast shape (NULL: all) into
 * `output` as in kiln_ufunc_reduce (dtype: the signature's output dtype,
 * options->dtype is ignored). Errors: INVALID_ARGUMENT (nin differs, an
 * input dtype that does not cast safely to the signature's, axes, shapes,
 * empty reduction without identity), compile errors with the generated
 * source. */
KILN_API kiln_status kiln_reduction_call(kiln_reduction *reduction, int nin,
                                         const kiln_operand *inputs, kiln_operand output,
                                         const kiln_reduce_options *options, kiln_stream *stream);

/* Drops the reduction (its compiled programs stay in the context's cache).
 * NULL is ignored. */
KILN_API void kiln_reduction_release(kiln_reduction *reduction);

/* ---- argmin / argmax ------------------------------------------------------ */

/* On ctx (the input's, for device arrays), the index (int64) of the largest (argmax) or smallest
 * (argmin) element over one axis (options->naxes == 1) or all (NULL or all_axes: the flat C-order
 * index), as NumPy's: the first index on ties, the first NaN wins.
 * Output as kiln_ufunc_reduce, of int64 or another integer dtype (the indices cast into it).
 * Errors: INVALID_ARGUMENT (empty extent: "attempt to get argmax of an
 * empty sequence", more than one axis, bad axis, an output of a bool,
 * float or complex dtype: the indices cast only into integers). */
KILN_API kiln_status kiln_argmax(kiln_context *ctx, kiln_operand input, kiln_operand output,
                                 const kiln_reduce_options *options, kiln_stream *stream);
KILN_API kiln_status kiln_argmin(kiln_context *ctx, kiln_operand input, kiln_operand output,
                                 const kiln_reduce_options *options, kiln_stream *stream);

/* ---- scans and compaction ------------------------------------------------ */

/* How to scan (zero-initialise; NULL options: the flattened input). */
typedef struct kiln_scan_options {
  int axis;         /* the axis scanned, -ndim..ndim-1 */
  int flatten;      /* nonzero: scan the input flattened in C order (NumPy's
                       cumsum with axis=None): the result is 1-D */
  int exclusive;    /* nonzero: element k combines the elements before k
                       (the first is the identity); else up to k included */
  kiln_dtype dtype; /* accumulator/result dtype when has_dtype */
  int has_dtype;
} kiln_scan_options;

/* Cumulative reduction (NumPy's ufunc.accumulate, cumsum, cumprod) of
 * `input` with a reducible binary ufunc (see kiln_ufunc_reduce: add,
 * multiply, maximum, minimum, the logical and bitwise ones, declared user
 * ufuncs) along one axis, into
 * `output` of the input's shape (1-D when flattened): kiln_operand_new, a
 * device array or host memory. Result dtype as kiln_ufunc_reduce's
 * accumulator (cumsum of int8 gives int64). Reproducible: the order of
 * operations is fixed by the element indices (docs/reductions.md), so
 * every device gives the same bits. Coalesced along a contiguous axis.
 * Errors: INVALID_ARGUMENT (bad axis, not reducible, exclusive without an
 * identity, dtype or output mismatches). */
KILN_API kiln_status kiln_ufunc_scan(kiln_ufunc *ufunc, kiln_operand input, kiln_operand output,
                                     const kiln_scan_options *options, kiln_stream *stream);

/* Stream compaction: the elements of `input` where `mask` (any dtype;
 * nonzero keeps) is true, in C order, into `output`, and their number into
 * *count. input and mask: device arrays or host memory of one shape, on
 * ctx. output: kiln_operand_new (a 1-D device array of exactly *count
 * elements of input's dtype) or a 1-D device array / host memory with at
 * least *count elements (input's dtype; the rest is left as it was).
 * Waits for the count (one small copy to the host); device work is queued
 * on stream. Errors: INVALID_ARGUMENT (shapes differ, dtype, output too
 * short: the message gives the count). */
KILN_API kiln_status kiln_compact(kiln_context *ctx, kiln_operand input, kiln_operand mask,
                                  kiln_operand output, int64_t *count, kiln_stream *stream);

/* Which path the single-pass scan of one line (docs/scan.md) takes on ctx's
 * device and why, as text into text (size bytes, NUL-terminated,
 * truncated): "lookback (...)" or "reduce-then-scan (...)"; both give the
 * same bits. Errors: INVALID_ARGUMENT (NULL arguments, size 0, a KILN_SCAN
 * value kiln does not know). */
KILN_API kiln_status kiln_scan_describe(kiln_context *ctx, char *text, size_t size);

/* NumPy's nonzero: the indices of the nonzero elements of `input` (any
 * dtype; complex: either part; a device array or host memory of ndim >= 1
 * dims, any view), in C order, as ndim new 1-D int64 device arrays
 * indices[0..ndim-1] of *count elements each (the caller's array needs room
 * for ndim pointers, KILN_MAX_DIMS always suffices; release each). They are
 * the columns of one (count, ndim) array, kiln_argwhere's. Waits for the
 * count (one small copy to the host); device work is queued on stream.
 * Built on the single-pass scan (docs/scan.md). Errors: INVALID_ARGUMENT
 * (a 0-d input, as NumPy 2; a scalar; NULL pointers); on error indices is
 * left as it was and *count is 0. */
KILN_API kiln_status kiln_nonzero(kiln_context *ctx, kiln_operand input, kiln_array **indices,
                                  int64_t *count, kiln_stream *stream);

/* NumPy's argwhere: the same indices as one new (count, ndim) int64 device
 * array in *out (row k: the index of the k-th nonzero element in C order;
 * the caller releases it). Errors as kiln_nonzero's (*out NULL then). */
KILN_API kiln_status kiln_argwhere(kiln_context *ctx, kiln_operand input, kiln_array **out,
                                   int64_t *count, kiln_stream *stream);

#ifdef __cplusplus
}
#endif

#endif
