/* core/codegen/core_loop.h: generated loops whose body works on small
 * strided blocks of each operand, not on single elements (internal). Used
 * by generalized ufuncs (core/gufunc/, docs/gufuncs.md).
 *
 * The loop dims are the element-wise generator's: the caller plans them
 * with kiln_ew_layout_plan over views of the loop shape (one per array
 * operand, element 0 of each block), so they merge, go contiguous or
 * strided and run as the same 64-bit grid-stride loop (elementwise.c).
 * Each work-item takes one loop element and calls the body function once.
 *
 * The body function sees
 *   - each core dimension's size under its name, as `int64_t n`;
 *   - each operand with core dims as an accessor macro of its name:
 *     `x(i)`, `A(i, j)`, ... (inputs read as the signature's type, outputs
 *     are lvalues of the output array's element type);
 *     KILN_DATA(x) is its first element (a KILN_GLOBAL pointer of the
 *     array's element type) and KILN_STRIDE(x, c) its stride along core
 *     dim c in elements, to hand the block to a helper function;
 *   - each operand without core dims as a plain value (inputs) or an
 *     lvalue (outputs), as in a ufunc body; the one output of the
 *     returns-value form is the body's `return`.
 * Specialisation: a core size known when generating (`sizes[d] >= 0`) is
 * a constant in the body, so its loops unroll; a core stride of one
 * element is a constant 1 (no multiply). Other sizes and strides are
 * kernel arguments after the scalars, in the order kiln_core_loop_extra
 * writes them. */
#ifndef KILN_CORE_CODEGEN_CORE_LOOP_H
#define KILN_CORE_CODEGEN_CORE_LOOP_H

#include "core/codegen/elementwise.h"

#define KILN_CORE_MAX_DIMS 8   /* core dims of one operand */
#define KILN_CORE_MAX_NAMES 16 /* distinct core dims of one loop */

typedef struct kiln_core_operand {
  const char *name; /* the body's name for it (not NUL-terminated) */
  int name_length;
  kiln_dtype memory;    /* element type in memory (ignored when by_value) */
  kiln_dtype body_type; /* the signature's type */
  int by_value;         /* an input scalar passed as a kernel argument */
  int ndim;             /* core dims */
  int dims[KILN_CORE_MAX_DIMS]; /* index into the loop's core dims */
  int unit[KILN_CORE_MAX_DIMS]; /* nonzero: stride is one element, baked */
  /* an input with one core dim whose rows the work-group stages in local
   * memory (see kiln_core_loop_staged below); the body's accessor then
   * reads the local copy. 2: the rows of a block follow one another with a
   * core stride of one element (one span of memory: a simpler copy) */
  int staged;
} kiln_core_operand;

typedef struct kiln_core_loop {
  const char *entry;    /* kernel name; the body function is <entry>_body */
  const char *comment;  /* one line put on top of the source, or NULL */
  const char *preamble; /* helper device functions, or NULL */
  const char *body;
  int returns_value; /* the body returns the one output (which has no core dims) */
  int nin, nout;
  kiln_core_operand operands[KILN_EW_MAX_OPERANDS]; /* inputs, then outputs */
  int nnames;
  const char *names[KILN_CORE_MAX_NAMES]; /* core dim names, NUL-terminated;
                                             NULL for a fixed-size dim */
  int64_t sizes[KILN_CORE_MAX_NAMES];     /* baked size, or -1: an argument */
  int loop_ndim;                          /* kiln_ew_layout's ndim */
} kiln_core_loop;

/* The element-wise signature of the loop: array operands (memory dtypes)
 * in operand order, by-value inputs as scalars. */
void kiln_core_loop_ew_signature(const kiln_core_loop *loop, kiln_ew_signature *sig);

/* Appends the kernel source. */
void kiln_core_loop_source(const kiln_core_loop *loop, kiln_strbuf *out);

/* Writes the extra kernel arguments (unbaked core sizes, then the core
 * strides in elements of every operand that are not baked) into extra;
 * sizes[d] and strides[k][c] are the call's values. Returns how many. */
int kiln_core_loop_extra(const kiln_core_loop *loop, const int64_t *sizes,
                         int64_t (*strides)[KILN_CORE_MAX_DIMS], int64_t *extra);

/* Staged rows (long core dims, docs/gufuncs.md "Long core dims"): when
 * any operand is `staged`, the kernel is not a grid-stride loop of one row
 * per work-item but runs blocks of `rows` consecutive loop elements per
 * work-group (rows <= the group size): each work-item computes the offsets
 * of its row, the group copies every staged operand's rows into local
 * memory with consecutive work-items at consecutive elements of each row
 * (coalesced), a barrier, then work-item t runs the unchanged body on row
 * t, its staged accessors reading local memory (row t at t * pitch), the
 * other operands and the outputs as in the plain kernel. Same body, same
 * order of operations: the same bits as the plain kernel.
 * Kernel arguments after kiln_core_loop_extra's: int64 rows, then one
 * int64 pitch (elements) per staged operand (operand order), then the
 * local memory: rows * 8 bytes per staged operand (row offsets), then
 * rows * pitch elements of each staged operand. Launch with
 * kiln_ew_launch_groups. */
int kiln_core_loop_staged(const kiln_core_loop *loop);

#endif
