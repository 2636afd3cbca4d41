/* kiln/creation.h: arrays of evenly spaced values, as numpy.arange and
 * numpy.linspace (docs/statistics.md, "arange, linspace").
 *
 * The values are those of NumPy's own loops, bit for bit: they are
 * computed on the host the way NumPy's fill functions compute them, then
 * copied to a new C-contiguous device array with one transfer
 * (kiln_array_from_host). */
#ifndef KILN_CREATION_H
#define KILN_CREATION_H

#include <stdint.h>
#include "kiln/ufunc.h"

#ifdef __cplusplus
extern "C" {
#endif

/* numpy.arange(start, stop, step, dtype): a new 1-D array on ctx.
 * start, stop, step are scalar operands: kiln_operand_int / _float (Python
 * numbers) or typed ones (kiln_operand_float32, kiln_operand_int32, ...).
 * dtype KILN_DTYPE_COUNT is NumPy 2's choice: int64 when all three are
 * integers, else float64 (typed float32 scalars too, as NumPy 2.4). The length is
 * ceil((stop - start) / step) (0 when not positive); element 0 is start and
 * element 1 start + step, both cast to dtype, and element i > 1 is
 * start + i * (element 1 - element 0) computed in dtype (float16 in float),
 * as NumPy's fill loops, so arange(0, 1, 0.1) has NumPy's last bits.
 * Errors: INVALID_ARGUMENT (NULL ctx/out, an operand that is not a real
 * scalar, step 0, a NaN or infinite length, bool dtype with more than 2
 * elements, as NumPy), UNIMPLEMENTED (complex), OUT_OF_RANGE (a length
 * above 2^62), as kiln_array_from_host. *out is NULL on failure. */
KILN_API kiln_status kiln_arange(kiln_context *ctx, kiln_operand start, kiln_operand stop,
                                 kiln_operand step, kiln_dtype dtype, kiln_array **out);

/* numpy.linspace(start, stop, num, endpoint, retstep, dtype): num values
 * from start to stop (included when endpoint is nonzero), computed in
 * float64 as NumPy's (i * step + start, with stop itself as the last value
 * under endpoint; i / div * delta when the step underflows to 0), then
 * cast to dtype (KILN_DTYPE_COUNT: float64; integer dtypes take the floor
 * first, as NumPy). *step_out (may be NULL) receives the step (NaN when
 * there is no interval: num 1 with endpoint, or 0).
 * Errors: INVALID_ARGUMENT (NULL ctx/out, num < 0, a non-real dtype),
 * UNIMPLEMENTED (complex), as kiln_array_from_host. */
KILN_API kiln_status kiln_linspace(kiln_context *ctx, double start, double stop, int64_t num,
                                   int endpoint, kiln_dtype dtype, double *step_out,
                                   kiln_array **out);

#ifdef __cplusplus
}
#endif
#endif
