/* core/codegen/elementwise.h: generated element-wise loops over arrays of one shape
 * (internal). Used by fill/copy/cast and by ufuncs.
 *
 * A loop has operands (inputs first, then outputs) that all have the loop's
 * shape (callers broadcast inputs first), plus optional by-value scalars.
 * Before launch the dims are merged where every operand allows, so the
 * kernel is either the contiguous variant (ndim 0: flat index, no division)
 * or a strided variant specialised for the merged ndim. The kernel body
 * reads inputs as v0..v<ninputs-1>, assigns outputs v<ninputs>.., may read
 * scalars s0.. and the flat index i. */
#ifndef KILN_CORE_ELEMENTWISE_H
#define KILN_CORE_ELEMENTWISE_H

#include "core/array/array_internal.h"
#include "core/kernel/kernel_catalog.h"
#include "core/kernel/kernel_internal.h"

#define KILN_EW_MAX_OPERANDS 32
#define KILN_EW_MAX_SCALARS 8
#define KILN_EW_MAX_EXTRA 320 /* int64 arguments after the scalars */

typedef struct kiln_ew_signature {
  int ninputs;
  int noperands; /* inputs + outputs */
  kiln_dtype dtypes[KILN_EW_MAX_OPERANDS];
  int nscalars;
  kiln_dtype scalar_dtypes[KILN_EW_MAX_SCALARS];
} kiln_ew_signature;

typedef struct kiln_ew_layout {
  int ndim;  /* 0: all operands contiguous */
  int64_t n; /* elements */
  int64_t shape[KILN_MAX_DIMS];
  kiln_backend_buffer *buffers[KILN_EW_MAX_OPERANDS];
  int64_t offsets[KILN_EW_MAX_OPERANDS];                /* elements */
  int64_t strides[KILN_EW_MAX_OPERANDS][KILN_MAX_DIMS]; /* elements */
} kiln_ew_layout;

/* Merges dims and decides contiguous vs strided. All operands must have
 * operands[0]'s shape and one context. */
kiln_status kiln_ew_layout_plan(int noperands, const kiln_array *const *operands,
                                kiln_ew_layout *layout);

/* Appends to *out the kernel `name` for sig at a layout's ndim, after
 * `preamble` (helper functions, may be NULL). */
void kiln_ew_source(const kiln_ew_signature *sig, int ndim, const char *name,
                    const char *preamble, const char *body, kiln_strbuf *out);

/* kiln_ew_source whose work-items on GPUs take `batch` (>= 2; 1 is
 * kiln_ew_source) indices per trip of the element loop and load all their
 * inputs before the first body runs (KILN_ELEMENTS_BATCH_BEGIN): for
 * bodies long enough that one load in flight per work-item leaves the
 * memory idle (fused chains). Contiguous layouts of 4-byte dtypes whose
 * operands are 16-byte aligned at `base` (a test in the kernel) take four
 * consecutive elements per trip with 16-byte loads and stores instead. Same values and bits as kiln_ew_source
 * provided no output overlaps another operand other than element for
 * element (in place): fusion's recorder closes a group before a call that
 * would. CPU devices compile the one-index loop only. */
void kiln_ew_source_batched(const kiln_ew_signature *sig, int ndim, const char *name,
                            const char *preamble, const char *body, int batch,
                            kiln_strbuf *out);

/* The two pieces kiln_ew_source is made of, for generators that write
 * their own loop body over the same layouts (core/codegen/core_loop.c):
 * the kernel's opening "KILN_KERNEL void name(n, shapes, operands,
 * scalars" without the closing ")", and the grid-stride loop's opening
 * line with the element offsets e<k> of every operand at index i. */
void kiln_ew_append_parameters(const kiln_ew_signature *sig, int ndim, const char *name,
                               kiln_strbuf *out);
void kiln_ew_append_loop_head(const kiln_ew_signature *sig, int ndim, kiln_strbuf *out);

/* The element offsets e<k> of every operand at index i, as the loop head
 * writes them, for kernels whose own loop visits several indices per
 * work-item (core/random: one Philox block, 2 or 4 elements). */
void kiln_ew_append_offsets(const kiln_ew_signature *sig, int ndim, kiln_strbuf *out);

/* Closes the element loop and the kernel opened by kiln_ew_append_loop_head
 * and kiln_ew_append_parameters. */
void kiln_ew_append_loop_tail(kiln_strbuf *out);

/* Queues the program (built from kiln_ew_source for layout->ndim) over the
 * layout. scalars[k] points to one value of sig->scalar_dtypes[k]. */
kiln_status kiln_ew_launch(kiln_context *ctx, kiln_stream *stream, const kiln_program *program,
                           const kiln_ew_signature *sig, const kiln_ew_layout *layout,
                           const void *const *scalars);

/* As kiln_ew_launch, then nextra (<= KILN_EW_MAX_EXTRA) int64 arguments
 * after the scalars, for kernels whose parameter list goes on past
 * kiln_ew_append_parameters'. */
kiln_status kiln_ew_launch_extra(kiln_context *ctx, kiln_stream *stream,
                                 const kiln_program *program, const kiln_ew_signature *sig,
                                 const kiln_ew_layout *layout, const void *const *scalars,
                                 int nextra, const int64_t *extra);

/* As kiln_ew_launch_extra, for kernels that run their own loop over the
 * elements in work-groups (core_loop.c's staged rows) rather than
 * KILN_ELEMENTS_BEGIN: `base` is 0, the int64 extras are followed by
 * nlocal (<= KILN_EW_MAX_OPERANDS + 1) local-memory arguments of
 * local_bytes[x] bytes each, and the launch is `groups` work-groups of
 * group_size items, on every device (no CPU form). */
kiln_status kiln_ew_launch_groups(kiln_context *ctx, kiln_stream *stream,
                                  const kiln_program *program, const kiln_ew_signature *sig,
                                  const kiln_ew_layout *layout, const void *const *scalars,
                                  int nextra, const int64_t *extra, int nlocal,
                                  const size_t *local_bytes, uint64_t groups,
                                  uint64_t group_size);

/* kiln_ew_launch prepared once for a program and a layout's geometry
 * (ndim, n, shape, strides, scalar dtypes), so that launches over operands
 * of that geometry only set each operand's buffer and element offset (and
 * the scalars' bytes): core/ufunc's repeat-call cache. The argument list
 * points into the struct itself, so it is launched where it was prepared,
 * never from a copy. Small layouts only (the limits below). */
#define KILN_EW_PREPARED_OPERANDS 6
#define KILN_EW_PREPARED_DIMS 4
#define KILN_EW_PREPARED_ARGS                                                   \
  (2 + KILN_EW_PREPARED_DIMS + KILN_EW_PREPARED_OPERANDS * (2 + KILN_EW_PREPARED_DIMS) + \
   KILN_EW_MAX_SCALARS)
typedef struct kiln_ew_prepared {
  const kiln_program *program;
  kiln_elements_grid grid;
  int nargs, base_arg;
  int operand_arg;  /* args[operand_arg + k * operand_step]: operand k's buffer */
  int operand_step; /* then its offset, then its strides */
  int64_t shape[KILN_EW_PREPARED_DIMS];
  int64_t strides[KILN_EW_PREPARED_OPERANDS][KILN_EW_PREPARED_DIMS];
  int64_t offsets[KILN_EW_PREPARED_OPERANDS]; /* elements; set per launch */
  unsigned char scalars[KILN_EW_MAX_SCALARS][KILN_SCALAR_BYTES]; /* set per launch */
  kiln_backend_arg args[KILN_EW_PREPARED_ARGS];
} kiln_ew_prepared;

/* Fills *p for launches of `program` (built for sig at layout->ndim) over
 * the layout's geometry; returns 0 (and leaves *p unusable) when the layout
 * or sig exceeds the limits above. */
int kiln_ew_prepare(kiln_context *ctx, const kiln_program *program,
                    const kiln_ew_signature *sig, const kiln_ew_layout *layout,
                    kiln_ew_prepared *p);

/* Operand k's buffer and element offset for the next launch of p. */
static inline void kiln_ew_prepared_operand(kiln_ew_prepared *p, int k,
                                            kiln_backend_buffer *buffer, int64_t offset) {
  p->args[p->operand_arg + k * p->operand_step].buffer = buffer;
  p->offsets[k] = offset;
}

/* Queues p's program with its operands and scalars as set. */
kiln_status kiln_ew_launch_prepared(kiln_context *ctx, kiln_stream *stream,
                                    kiln_ew_prepared *p);

/* Plan + source + compile (cached by the context) + launch. */
kiln_status kiln_ew_run(kiln_context *ctx, kiln_stream *stream, const kiln_ew_signature *sig,
                        const char *name, const char *preamble, const char *body,
                        const kiln_array *const *operands, const void *const *scalars);

/* Sets every element of dst (any view) to *value (one element of dst's
 * dtype in host memory). */
kiln_status kiln_ew_fill(kiln_array *dst, const void *value);

/* dst = src cast to dst's dtype; src already has dst's shape. */
kiln_status kiln_ew_copy(kiln_array *dst, const kiln_array *src);

/* kiln_ew_fill and kiln_ew_copy queued on `stream` (NULL: default). */
kiln_status kiln_ew_fill_on(kiln_array *dst, const void *value, kiln_stream *stream);
kiln_status kiln_ew_copy_on(kiln_array *dst, const kiln_array *src, kiln_stream *stream);

/* The kernel-language type a value of dtype d is computed in: its storage
 * type (kiln_dtype_kernel_type), except float16, stored as kiln_half and
 * computed in float (NumPy's half loops). Generated code declares its
 * values with it and reads and writes elements through the next two. */
const char *kiln_ew_value_type(kiln_dtype d);

/* The expression of kiln_ew_value_type(d) for one stored element (or a
 * by-value scalar, which is passed in its storage type), `element` being an
 * expression of d's storage type. Written into out. */
void kiln_ew_load_expression(kiln_dtype d, const char *element, char *out, size_t size);

/* The expression of d's storage type that stores `value` (of
 * kiln_ew_value_type(d)): float16 rounds to nearest even. Written into out. */
void kiln_ew_store_expression(kiln_dtype d, const char *value, char *out, size_t size);

/* The cast expression for one value `v` of `from` to `to` (both values in
 * kiln_ew_value_type), NumPy's unsafe casting: to bool means "nonzero"; to
 * float16 gives the float holding the float16 value (rounded once); a
 * complex value casts each part to a complex dtype, its real part to a real
 * one (NumPy's ComplexWarning case), and is true when either part is
 * nonzero; a real value becomes a complex one with imaginary part 0.
 * Written into out (>= 256 bytes with a short v). */
void kiln_ew_cast_expression(kiln_dtype from, kiln_dtype to, const char *v, char *out,
                             size_t size);

/* The zero of kiln_ew_value_type(d) as an expression ("(float)0",
 * "kiln_complex64_make(0, 0)"); out >= 64 bytes. */
void kiln_ew_zero_expression(kiln_dtype d, char *out, size_t size);

/* The loop bodies of fill (v0 = the scalar s0, one element of d) and of
 * copy/cast (v1 = v0 cast from -> to), for kiln_ew_source; out >= 288
 * bytes. */
void kiln_ew_fill_body(kiln_dtype d, char *out, size_t size);
void kiln_ew_copy_body(kiln_dtype from, kiln_dtype to, char *out, size_t size);

/* Appends the fill kernels for every dtype and the copy/cast kernels for
 * every dtype pair, contiguous and strided. */
kiln_status kiln_ew_catalog_add(kiln_catalog *catalog);

#endif
