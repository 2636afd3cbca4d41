/* kiln/indexing.h: gather and scatter by indices and by boolean masks
 * (NumPy's take, put, take_along_axis, put_along_axis, a[mask] and
 * a[mask] = v), on the device (docs/indexing.md).
 *
 * Operands are as in the ufunc calls (kiln/ufunc.h): device arrays (any
 * view) or host memory; results kiln_operand_new (a device array from the
 * context's memory pool), a device array or host memory. The array
 * written by put, put_along_axis and kiln_mask_assign is a device array
 * (any view that is not a broadcast) or writable host memory
 * (kiln_operand_host_output), changed in place. Device work is queued on
 * `stream` (NULL: the default stream); mode RAISE and the mask calls wait
 * for one small number (the first bad index, the count).
 *
 * Indices are any integer dtype NumPy casts safely to int64 (bool,
 * int8..int64, uint8..uint32). A negative index counts from the end, as in
 * Python (-1 is the last element). Never is an index read or written out
 * of bounds: RAISE checks every index before anything moves. */
#ifndef KILN_INDEXING_H
#define KILN_INDEXING_H

#include <stdint.h>
#include "kiln/array.h"
#include "kiln/context.h"
#include "kiln/stream.h"
#include "kiln/ufunc.h"

#ifdef __cplusplus
extern "C" {
#endif

/* NumPy's mode= of take and put: what an index outside [-n, n) does. */
typedef enum kiln_index_mode {
  KILN_INDEX_RAISE = 0, /* OUT_OF_RANGE naming the first such index */
  KILN_INDEX_WRAP = 1,  /* taken modulo n (Python's %, so -1 is n - 1) */
  KILN_INDEX_CLIP = 2   /* clamped to [0, n - 1]; negative indices clip to 0 */
} kiln_index_mode;

/* OR'd into kiln_put's mode (KILN_INDEX_WRAP | KILN_INDEX_ANY_WINS): where
 * a target repeats, any one of its values wins, as CuPy's put and
 * thrust::scatter, instead of NumPy's last; the put is then one plain
 * scatter with no claim (docs/indexing.md), except for 16-byte elements,
 * which keep the claim so that no element mixes halves of two values.
 * Every target still holds one of the values aimed at it. kiln_take
 * rejects it. */
#define KILN_INDEX_ANY_WINS 0x100

/* `axis` of kiln_take meaning NumPy's axis=None: the array flattened. */
#define KILN_AXIS_FLAT (-1000)

/* numpy.take(a, indices, axis, mode): the elements of `a` at `indices`
 * along `axis` (-ndim..ndim-1, or KILN_AXIS_FLAT for a flattened), into
 * `output` of shape a.shape[:axis] + indices.shape + a.shape[axis+1:]
 * (flat: indices.shape) and a's dtype (or one it casts to same_kind).
 * Mode RAISE waits for `stream` once (the index check is read on the
 * host), leaving the output alone on an error. Errors: INVALID_ARGUMENT
 * (axis, index dtype, output shape or dtype, a non-empty take from an
 * empty axis), OUT_OF_RANGE (mode RAISE: "take: index 9 is out of bounds
 * for axis 0 with size 5"). */
KILN_API kiln_status kiln_take(kiln_context *ctx, kiln_operand a, kiln_operand indices, int axis,
                               kiln_index_mode mode, kiln_operand output, kiln_stream *stream);

/* numpy.put(a, indices, values, mode): a.flat[indices[k]] = values[k],
 * values (any shape, flattened, cast to a's dtype) repeated when shorter
 * than indices. `a`: a device array or writable host memory, changed in
 * place. Where a target repeats (an index twice, or several clipped or
 * wrapped onto one), the last value in index order wins, as NumPy, on
 * every device (with KILN_INDEX_ANY_WINS in mode: any one of them, in
 * less time). An empty values with indices is an error. Errors: INVALID_ARGUMENT (a not writable, dtypes, empty
 * values), OUT_OF_RANGE (mode RAISE, naming the index). */
KILN_API kiln_status kiln_put(kiln_context *ctx, kiln_operand a, kiln_operand indices,
                              kiln_operand values, kiln_index_mode mode, kiln_stream *stream);

/* numpy.take_along_axis(a, indices, axis): output[..., k, ...] =
 * a[..., indices[..., k, ...], ...] along `axis`. indices has a's ndim
 * and broadcasts against a in every other dim; the output has the
 * broadcast shape with indices' extent along axis, and a's dtype. As
 * NumPy, an index outside [-n, n) is an error (OUT_OF_RANGE naming it).
 * Errors: INVALID_ARGUMENT (axis, ndim, shapes that do not broadcast,
 * index dtype, output), OUT_OF_RANGE. */
KILN_API kiln_status kiln_take_along_axis(kiln_context *ctx, kiln_operand a, kiln_operand indices,
                                          int axis, kiln_operand output, kiln_stream *stream);

/* numpy.put_along_axis(a, indices, values, axis): a[..., indices[..., k,
 * ...], ...] = values[..., k, ...], values broadcast to indices' shape
 * (after indices broadcast against a's other dims: their shapes must
 * then equal a's there). A repeated target keeps the last value in
 * index order, as NumPy. `a` is changed in place (device array or writable host
 * memory). Errors as kiln_take_along_axis. */
KILN_API kiln_status kiln_put_along_axis(kiln_context *ctx, kiln_operand a, kiln_operand indices,
                                         kiln_operand values, int axis, kiln_stream *stream);

/* a[mask] (NumPy's boolean indexing): mask's shape equals the first
 * mask.ndim dims of a (all of them: a 1-D result of the selected
 * elements; fewer: the selected sub-arrays, shape (count,) +
 * a.shape[mask.ndim:]); elements in C order, through kiln_compact. A mask
 * of any dtype selects its nonzero entries. *count receives the number of
 * true entries of mask. output: kiln_operand_new (exact shape), or a
 * device array / host memory of at least that shape.
 * Errors: INVALID_ARGUMENT (mask shape, output too short). */
KILN_API kiln_status kiln_mask_select(kiln_context *ctx, kiln_operand a, kiln_operand mask,
                                      kiln_operand output, int64_t *count, kiln_stream *stream);

/* a[mask] = values: values (cast to a's dtype) is a scalar or 1 element
 * (every selected element gets it) or has one element per selected
 * element of a (count x the selected sub-array's size, any shape, in C
 * order), as NumPy's assignment. `a`: device array or writable host
 * memory, changed in place; mask as kiln_mask_select.
 * Errors: INVALID_ARGUMENT (mask shape, "kiln_mask_assign: 5 values for 3
 * selected elements", a not writable). */
KILN_API kiln_status kiln_mask_assign(kiln_context *ctx, kiln_operand a, kiln_operand mask,
                                      kiln_operand values, kiln_stream *stream);

#ifdef __cplusplus
}
#endif
#endif
