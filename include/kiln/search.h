/* kiln/search.h: searching sorted arrays and counting (NumPy's
 * searchsorted, bincount and histogram), on the device (docs/searching.md).
 *
 * Operands are as in the ufunc calls (kiln/ufunc.h): device arrays (any
 * view: strided, reversed, transposed) or host memory, outputs
 * kiln_operand_new (a new device array from the context's memory pool), a
 * device array or host memory. Device operands are queued on `stream`
 * (NULL: the default stream); calls whose result size depends on the data
 * (bincount, histogram without a range) wait for that one number. Host
 * outputs are written when the call returns. */
#ifndef KILN_SEARCH_H
#define KILN_SEARCH_H

#include <stdint.h>
#include "kiln/array.h"
#include "kiln/context.h"
#include "kiln/stream.h"
#include "kiln/ufunc.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Which end of a run of equal values searchsorted returns. */
typedef enum kiln_side {
  KILN_SIDE_LEFT = 0, /* the first index i with sorted[i] >= v */
  KILN_SIDE_RIGHT = 1 /* the first index i with sorted[i] > v */
} kiln_side;

/* numpy.searchsorted(sorted, values, side, sorter): for each element of
 * `values` (any shape; a scalar gives a 0-d result) the index where it
 * would be inserted into the 1-D `sorted` to keep it sorted, into `output`
 * of values' shape and dtype int64 (or one it casts to same_kind). Both
 * are compared in their NumPy promoted dtype (int64 with float64: float64;
 * uint64 with int64: float64) in NumPy's sort order: NaNs after every
 * number, complex numbers by real then imaginary part. `sorter` (NULL:
 * none) is 1-D integer indices of sorted's length that sort it (an
 * argsort), as NumPy's sorter; a sorter value out of range is an error.
 * An unsorted `sorted` gives unspecified indices (as NumPy), never a fault.
 * Errors: INVALID_ARGUMENT (sorted not 1-D, sorter length or dtype, a
 * sorter value out of range, output shape or dtype). */
KILN_API kiln_status kiln_searchsorted(kiln_context *ctx, kiln_operand sorted, kiln_operand values,
                                       const kiln_operand *sorter, kiln_side side,
                                       kiln_operand output, kiln_stream *stream);

/* numpy.bincount(x, weights, minlength): the number of occurrences of each
 * value 0..max(x) of the non-negative integers x (1-D; bool, int8..int64,
 * uint8..uint32: NumPy's safe casts to int64), into `output` of
 * *length = max(max(x) + 1, minlength) elements (0 for an empty x without
 * minlength): int64 counts, or with `weights` (NULL: none; x's shape, any
 * real dtype) the float64 sums of the weights. output: kiln_operand_new, or
 * a 1-D device array / host memory of at least *length elements (the rest
 * is left as it was). Counts are exact; weighted sums are accumulated with
 * float64 atomics, so their last bits may depend on the order the device
 * ran them in (docs/searching.md: NumPy sums in index order).
 * Errors: INVALID_ARGUMENT (x not 1-D, a negative value in x: "bincount:
 * x must have no negative elements (x[3] = -1)", minlength < 0, a
 * float, complex or uint64 x, weights of another shape, complex weights,
 * output too short), OUT_OF_RANGE (the length does not fit memory),
 * UNIMPLEMENTED (weights, or 2^32 elements or more, on an OpenCL device
 * without 64-bit atomics: cl_khr_int64_base_atomics). */
KILN_API kiln_status kiln_bincount(kiln_context *ctx, kiln_operand x, const kiln_operand *weights,
                                   int64_t minlength, kiln_operand output, int64_t *length,
                                   kiln_stream *stream);

/* How to bin (zero-initialise, then set bins or edges). */
typedef struct kiln_histogram_options {
  /* Equal-width bins: their number (> 0), over [range_min, range_max]
   * when has_range, else over [min(a), max(a)] (an empty `a`: [0, 1]; an
   * equal min and max: widened by 0.5 each way), as NumPy's bins=int. */
  int64_t bins;
  int has_range;
  double range_min, range_max;
  /* Explicit edges (NULL: equal-width bins): a 1-D operand of at least 2
   * monotonically increasing (repeats allowed) real values, as NumPy's
   * bins=array; range is then ignored. */
  const kiln_operand *edges;
  /* Weights of a's shape (NULL: count), as NumPy's weights. */
  const kiln_operand *weights;
} kiln_histogram_options;

/* numpy.histogram(a, bins, range, weights): counts of the real values of
 * `a` (any shape, flattened) in each bin, into `hist` (1-D of the number
 * of bins): int64 counts, or with weights the weights' dtype (summed in
 * float64 and cast, as NumPy). Bin i holds edges[i] <= x < edges[i+1]; the
 * last bin also holds x == its right edge; values outside the edges and
 * NaNs are not counted. Equal-width bins use NumPy's own edges
 * (numpy.linspace in NumPy's bin dtype: a's float dtype, float64 for
 * integers) and its arithmetic for the bin of each value, so every value
 * lands where NumPy puts it. `bin_edges`: kiln_operand_new, a device array
 * or host memory for the bins + 1 edges (their dtype: NumPy's), or a NULL
 * pointer for none.
 * Errors: INVALID_ARGUMENT (bins <= 0 without edges, range_min >
 * range_max, a range or autodetected range that is not finite, edges not
 * increasing: "histogram: bins must increase monotonically (edges[2] =
 * 0.5 < edges[1] = 1)", fewer than 2 edges, complex input or edges,
 * weights of another shape, output shape or dtype), UNIMPLEMENTED
 * (weights, or 2^32 elements or more, on an OpenCL device without 64-bit
 * atomics: cl_khr_int64_base_atomics). */
KILN_API kiln_status kiln_histogram(kiln_context *ctx, kiln_operand a,
                                    const kiln_histogram_options *options, kiln_operand hist,
                                    const kiln_operand *bin_edges, kiln_stream *stream);

#ifdef __cplusplus
}
#endif
#endif
