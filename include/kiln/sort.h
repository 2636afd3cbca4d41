/* kiln/sort.h: sorting (NumPy's sort, argsort, unique; sort by key and
 * segmented sort as thrust::sort_by_key and cub::DeviceSegmentedSort),
 * docs/sorting.md.
 *
 * Every sort is stable, so the result is defined element by element and is
 * the same on every backend and device: NumPy's kind='stable'. The order
 * is NumPy's: integers and bool by value; floats with -0.0 and 0.0 equal
 * (they keep their input order) and NaNs (any sign or payload) last;
 * complex numbers lexicographically by (real, imaginary), a NaN part
 * sorting after every number, as NumPy's: R + Rj < R + nanj < nan + Rj <
 * nan + nanj (R: not NaN). Descending reverses the order of
 * the keys (NaNs first) and keeps equal keys in their input order.
 *
 * Operands as the ufuncs': inputs are device arrays (any view: strided,
 * negative steps) or host memory (kiln_operand_host); outputs are
 * kiln_operand_new(&array) (a new device array), a device array or host
 * memory (kiln_operand_host_output) of the result's shape and dtype.
 * Device work is queued on `stream` (NULL: the default stream); with a
 * host output the call returns when it is written. Scratch comes from the
 * memory pool: at most one more copy of the keys and the permutation. */
#ifndef KILN_SORT_H
#define KILN_SORT_H

#include <stdint.h>
#include "kiln/array.h"
#include "kiln/context.h"
#include "kiln/stream.h"
#include "kiln/ufunc.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How to sort; NULL options: along the last axis, ascending. */
typedef struct kiln_sort_options {
  int axis;       /* -ndim..ndim-1 (negative counts from the end) */
  int flatten;    /* nonzero: sort the input flattened in C order (NumPy's
                     axis=None): the result is 1-D; axis is ignored */
  int descending; /* nonzero: largest first, equal keys in input order */
} kiln_sort_options;

/* Options sorting along one axis, ascending. */
static inline kiln_sort_options kiln_sort_along(int axis) {
  kiln_sort_options o = {0};
  o.axis = axis;
  return o;
}

/* On ctx (the input's, for a device array), the elements of `input` sorted
 * along the axis (NumPy's np.sort(a, axis, kind='stable')) into `output`
 * (the input's shape, 1-D when flattened, and dtype). Any dtype. The
 * output may be the input itself. One long row of float32/float64 reads
 * one word back (whether it holds a NaN or -0.0: docs/sorting.md), so
 * the call waits for `stream` there.
 * Errors: INVALID_ARGUMENT (axis out of range, a 0-d input without
 * flatten, a scalar input, output shape or dtype), OUT_OF_MEMORY, DEVICE.
 * A new output is NULL on failure. */
KILN_API kiln_status kiln_sort(kiln_context *ctx, kiln_operand input, kiln_operand output,
                               const kiln_sort_options *options, kiln_stream *stream);

/* As kiln_sort, the indices (int64) along the axis that sort the input
 * (np.argsort(a, axis, kind='stable'); flattened: the flat C-order index).
 * The output is int64. Errors as kiln_sort. */
KILN_API kiln_status kiln_argsort(kiln_context *ctx, kiln_operand input, kiln_operand output,
                                  const kiln_sort_options *options, kiln_stream *stream);

/* Sort by key (cub::DeviceRadixSort::SortPairs, thrust::sort_by_key): the
 * keys sorted along the axis into keys_output, and each of the nvalues
 * arrays values[i] (any dtype, the keys' shape) moved with them into
 * values_output[i] (its dtype, the same shape). keys_output may be NULL
 * (not written). Errors as kiln_sort, and INVALID_ARGUMENT when a values
 * array's shape differs from the keys' (the message names it) or nvalues
 * is negative. */
KILN_API kiln_status kiln_sort_by_key(kiln_context *ctx, kiln_operand keys,
                                      const kiln_operand *keys_output, int nvalues,
                                      const kiln_operand *values,
                                      const kiln_operand *values_output,
                                      const kiln_sort_options *options, kiln_stream *stream);

/* Segmented sort (cub::DeviceSegmentedSort::StableSortPairs): the 1-D
 * input with each segment [offsets[s], offsets[s + 1]) sorted on its own
 * (options: only descending is read; NULL: ascending). offsets: int64,
 * 1-D, nseg + 1 entries (device or host), non-decreasing from 0 to the
 * input's size (checked: the offsets are read to the host once). output:
 * the input's shape and dtype; indices (NULL: none): int64, for each sorted
 * element its flat index in the input. Rows of a 2-D array are kiln_sort
 * along axis 1. Errors: INVALID_ARGUMENT (input not 1-D, offsets not int64
 * or 1-D or empty, offsets out of order or not covering the input: the
 * message names the first bad one), others as kiln_sort. */
KILN_API kiln_status kiln_segmented_sort(kiln_context *ctx, kiln_operand input,
                                         kiln_operand offsets, kiln_operand output,
                                         const kiln_operand *indices,
                                         const kiln_sort_options *options, kiln_stream *stream);

/* The optional outputs of kiln_unique (NULL: not computed); each is a 1-D
 * int64 output (kiln_operand_new, a device array or host memory), of the
 * number of unique values (index, counts) or of the input's size
 * (inverse). */
typedef struct kiln_unique_outputs {
  const kiln_operand *index;   /* NumPy's return_index: the first
                                  occurrence of each unique value */
  const kiln_operand *inverse; /* return_inverse: for each element of the
                                  flattened input, its unique value's
                                  position */
  const kiln_operand *counts;  /* return_counts */
} kiln_unique_outputs;

/* NumPy's np.unique(input) (flattened; equal_nan: all NaNs are one value,
 * every complex number with a NaN part too (NumPy 2: the first of them in
 * sorted order is kept), -0.0 equals 0.0 and the first occurrence's bits
 * are kept): the sorted
 * unique values into `output` (1-D, input's dtype; a given device array or
 * host memory needs at least *count elements, the rest left as it was),
 * their number into *count, and the outputs asked in *extra (NULL: none).
 * Waits for the count (one small copy to the host).
 * Errors: INVALID_ARGUMENT (scalar input, output dtype or too short: the
 * message gives the count, extra outputs' dtype or size), OUT_OF_MEMORY,
 * DEVICE. */
KILN_API kiln_status kiln_unique(kiln_context *ctx, kiln_operand input, kiln_operand output,
                                 int64_t *count, const kiln_unique_outputs *extra,
                                 kiln_stream *stream);

#ifdef __cplusplus
}
#endif

#endif
