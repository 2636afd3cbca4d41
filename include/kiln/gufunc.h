/* kiln/gufunc.h: generalized universal functions (functions over whole rows
 * or blocks of arrays), as NumPy's gufuncs and Numba's @guvectorize
 * (docs/gufuncs.md).
 *
 * A gufunc is a ufunc whose body works on "core" blocks of its operands,
 * described by a layout in NumPy's notation:
 *   "(n)->()"               a row in, a scalar out (l2_norm, average)
 *   "(i)->(i)"              a row in, a row of the same length out
 *   "(m,n),(n,p)->(m,p)"    matrix multiply
 *   "(n,m),(m)->(n)"        matrix-vector product
 *   "(3),(3)->(3)"          fixed sizes (cross product)
 *   "(n)->(),()"            several outputs
 * The trailing dims of each operand are its core dims, bound by name across
 * operands (all `n` must agree); the leading (loop) dims broadcast as
 * NumPy's do, and the body runs once per loop element, in parallel.
 *
 * Signatures are ufunc signatures (kiln/ufunc.h), naming the element type
 * of each operand: "(float32 out)(float32 x)" or, when the one output has
 * no core dims, "float32(float32 x)" with a body that returns the value.
 * Several signatures dispatch exactly as ufuncs do.
 *
 * The body (kiln's kernel language) sees
 *   - each core dim's size by name: `n` (an int64_t constant or variable);
 *   - each operand with core dims through an accessor of its name: `x(i)`,
 *     `A(i, j)`; input elements read as the signature's type, outputs are
 *     lvalues: `out(i) = ...`, `C(i, j) += ...`;
 *   - KILN_DATA(x), the first element of x's block (a KILN_GLOBAL pointer
 *     of the array's element type), and KILN_STRIDE(x, c), its stride along
 *     core dim c in elements, to hand a block to a helper function;
 *   - each operand without core dims as a ufunc body does: inputs are
 *     values, outputs are assignable names (or the body returns the value).
 * The preamble may hold helper functions (KILN_DEVICE) the body calls,
 *   KILN_DEVICE float row_sum(KILN_GLOBAL const float *row, int64_t stride,
 *                             int64_t n)
 * called as row_sum(KILN_DATA(x), KILN_STRIDE(x, 0), n). */
#ifndef KILN_GUFUNC_H
#define KILN_GUFUNC_H

#include "kiln/ufunc.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kiln_gufunc kiln_gufunc;

/* Creates gufunc `name` (an identifier) on ctx from its `layout`, nsig >= 1
 * typed signatures with parameter names (one per operand, inputs and
 * outputs as the layout counts them), the `body` and an optional
 * `preamble` of helper functions (may be NULL). All strings are copied;
 * nothing is compiled until a call needs it.
 * Errors: INVALID_ARGUMENT (NULL arguments, a bad name; a layout or
 * signature that does not parse: the message quotes it with a caret under
 * the offending column; signatures whose operand counts differ from the
 * layout's or from each other; a core dim named like a parameter; the
 * returns-value form for an output with core dims), OUT_OF_MEMORY. *out is
 * NULL on failure. The gufunc holds a reference to ctx. */
KILN_API kiln_status kiln_gufunc_create(kiln_context *ctx, const char *name,
                                        const char *layout, int nsig,
                                        const char *const *signatures, const char *body,
                                        const char *preamble, kiln_gufunc **out);

/* Adds a reference; returns gufunc. */
KILN_API kiln_gufunc *kiln_gufunc_retain(kiln_gufunc *gufunc);

/* Drops a reference; the last one frees the gufunc (its compiled programs
 * stay in the context's cache). NULL is ignored. */
KILN_API void kiln_gufunc_release(kiln_gufunc *gufunc);

/* ---- properties (never fail; strings live as long as the gufunc) ---------- */

KILN_API const char *kiln_gufunc_name(const kiln_gufunc *gufunc);
KILN_API const char *kiln_gufunc_layout(const kiln_gufunc *gufunc);
KILN_API int kiln_gufunc_nin(const kiln_gufunc *gufunc);
KILN_API int kiln_gufunc_nout(const kiln_gufunc *gufunc);
KILN_API int kiln_gufunc_signature_count(const kiln_gufunc *gufunc);
/* Signature i as given at creation; NULL when out of range. */
KILN_API const char *kiln_gufunc_signature(const kiln_gufunc *gufunc, int index);

/* Bytes of each host operand staged per chunk of loop elements on the host
 * path (default 8 MiB; one loop element's core block is always staged
 * whole, even when larger). Errors: INVALID_ARGUMENT for 0. */
KILN_API kiln_status kiln_gufunc_set_host_chunk_bytes(kiln_gufunc *gufunc, size_t bytes);

/* ---- calls --------------------------------------------------------------- */

/* Applies the gufunc. nin and nout must equal the gufunc's; operands are
 * built as for kiln_ufunc_call (kiln_operand_array, _host, _host_output,
 * _new, scalars).
 *
 * Each array or host operand needs at least as many dims as its core
 * dims; those trailing dims bind the layout's names (all equal per name,
 * fixed sizes as written). Scalars may stand only for operands without
 * core dims. The leading dims of the inputs and given outputs broadcast by
 * NumPy's rules; given outputs must have exactly the broadcast loop shape
 * followed by their core sizes, and must not be broadcast views. NEW
 * outputs are allocated on the device (C order, the signature's dtype); a
 * core dim that only outputs have must then be given by another output.
 * Any view works without a copy: columns, transposes, negative steps.
 *
 * Device operands only: the kernel is queued on `stream` (NULL: the
 * default stream) and the call returns. Any host operand: as a ufunc call,
 * the call waits for `stream`, stages host data through pinned buffers in
 * chunks of loop elements on its own streams, and returns when every
 * output is written.
 *
 * Errors: INVALID_ARGUMENT (operand counts, bad operands, too few dims for
 * the core dims, core size mismatch: the message names the dimension, both
 * operands and both sizes; loop shapes that do not broadcast, no signature
 * for the input dtypes, output dtype or shape mismatch, a scalar for an
 * operand with core dims), OUT_OF_RANGE, COMPILE (the message holds the
 * log and numbered source), OUT_OF_MEMORY, DEVICE. On failure NEW outputs
 * are NULL. */
KILN_API kiln_status kiln_gufunc_call(kiln_gufunc *gufunc, int nin, const kiln_operand *inputs,
                                      int nout, const kiln_operand *outputs,
                                      kiln_stream *stream);

#ifdef __cplusplus
}
#endif
#endif
