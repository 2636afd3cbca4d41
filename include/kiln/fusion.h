/* kiln/fusion.h: fusion of ufunc chains into one kernel (docs/fusion.md).
 *
 * Between kiln_fusion_begin and kiln_fusion_end on a stream, the program
 * makes its usual kiln_ufunc_call()s (built-in and user ufuncs, any
 * signatures, broadcasting, strided views, scalars, mixed dtypes). Calls
 * whose operands are all device arrays or scalars are not run at once but
 * recorded; kiln then generates one kernel for a recorded group, in which
 * an intermediate result the program released inside the scope is never
 * written to memory (it stays in a register) and one the program still
 * holds is written.
 *
 *   kiln_fusion_begin(ctx, stream);
 *   kiln_ufunc_call(divide, 2, {g, 255.0}, 1, {new &t1}, stream);
 *   kiln_ufunc_call(multiply, 2, {t1, w}, 1, {new &t2}, stream);
 *   kiln_array_release(t1);
 *   kiln_ufunc_call(tanh, 1, {t2}, 1, {out}, stream);
 *   kiln_array_release(t2);
 *   kiln_fusion_end(ctx, stream);      -- one kernel: reads g, w, writes out
 *
 * Results never depend on fusion: anything else that queues work on the
 * stream (a raw kernel, a reduction, a gufunc, a matmul, a copy, an event,
 * a synchronize) or reads device memory on the host first runs the group
 * recorded so far, in order; a call with host operands does too. The fused
 * kernel has the same bits as the calls run one by one (ufunc kernels and
 * fused kernels are compiled without floating-point contraction), and is
 * cached like every kernel (memory, then disk). Every call still checks
 * its operands, dispatches and allocates its NEW outputs when it is made,
 * so errors (shapes, dtypes, casting) are reported by the call that caused
 * them, and the arrays it returns are valid at once (a released
 * intermediate's memory is allocated but never read or written). A failure
 * while running a group (DEVICE, OUT_OF_MEMORY) is returned by whatever ran
 * it: kiln_fusion_end, or the call that closed the group. End a scope
 * before releasing its stream or context: an open scope holds references
 * to the arrays and ufuncs of its calls.
 *
 * KILN_FUSION=0 in the environment (read by each kiln_fusion_begin) makes
 * begin and end do nothing: the same program runs unfused.
 * KILN_LOG=debug prints, for each group run, what was fused and the fused
 * source when it is generated. */
#ifndef KILN_FUSION_H
#define KILN_FUSION_H

#include "kiln/context.h"
#include "kiln/stream.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Starts recording ufunc calls queued on `stream` of ctx (NULL: the
 * context's default stream). Any thread may record; each stream has at
 * most one scope at a time. Errors: INVALID_ARGUMENT (NULL ctx, a stream
 * of another context, a scope already open on that stream: scopes do not
 * nest), OUT_OF_MEMORY. */
KILN_API kiln_status kiln_fusion_begin(kiln_context *ctx, kiln_stream *stream);

/* Runs what is still recorded on the stream (queued on it, as the calls
 * would have been) and closes the scope. The scope is closed whatever the
 * result. Errors: INVALID_ARGUMENT (no scope open on the stream: end
 * without begin, or twice), and those of running the group (DEVICE,
 * OUT_OF_MEMORY; a fused kernel that does not compile runs unfused). */
KILN_API kiln_status kiln_fusion_end(kiln_context *ctx, kiln_stream *stream);

#ifdef __cplusplus
}
#endif
#endif
