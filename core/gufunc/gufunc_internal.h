/* core/gufunc/gufunc_internal.h: what a generalized ufunc is made of
 * (internal). A gufunc is a layout (gufunc_layout.c) over an inner ufunc
 * that holds its name, signatures, bodies and preamble, so signatures
 * parse and dispatch exactly as a ufunc's (core/ufunc/). A call binds the
 * core dims, broadcasts the loop dims with the ufunc's broadcaster, and
 * launches a core-loop kernel (core/codegen/core_loop.c) found by a short
 * key in the context's program cache (gufunc_call.c). */
#ifndef KILN_CORE_GUFUNC_INTERNAL_H
#define KILN_CORE_GUFUNC_INTERNAL_H

#include "core/codegen/core_loop.h"
#include "core/ufunc/ufunc_internal.h"
#include "kiln/gufunc.h"

#define KILN_GUFUNC_DIM_NAME_MAX 32

/* A parsed layout such as "(m,n),(n,p)->(m,p)". */
typedef struct kiln_gufunc_core_layout {
  int nin, nout;
  int nnames; /* distinct dims: each name once, each fixed size on its own */
  char names[KILN_CORE_MAX_NAMES][KILN_GUFUNC_DIM_NAME_MAX]; /* "" when fixed */
  int64_t fixed[KILN_CORE_MAX_NAMES];                        /* size, or -1 */
  int ndim[KILN_UFUNC_MAX_OPERANDS];                         /* core dims */
  int dims[KILN_UFUNC_MAX_OPERANDS][KILN_CORE_MAX_DIMS];     /* into names */
} kiln_gufunc_core_layout;

/* Parses `text`. Errors: INVALID_ARGUMENT quoting the layout with a caret
 * under the offending column. */
kiln_status kiln_gufunc_layout_parse(const char *text, kiln_gufunc_core_layout *layout);

struct kiln_gufunc {
  atomic_int refcount;
  kiln_ufunc *ufunc; /* name, ctx, signatures, bodies, preamble, dispatch */
  char *layout_text;
  kiln_gufunc_core_layout layout;
  /* name, layout, preamble, signatures and body, NUL-separated: with a
   * variant's specialisation it names a program in the context's cache, so
   * equal gufuncs share their programs */
  char *identity;
  size_t identity_length;
  /* the body or preamble names KILN_DATA or KILN_STRIDE: the kernel hands
   * out global pointers to the blocks, so no rows are staged */
  int raw_blocks;
};

/* Whether long input rows are staged in local memory (gufunc_call.c,
 * docs/gufuncs.md "Long core dims"). */
typedef enum kiln_gufunc_staging {
  KILN_GUFUNC_STAGING_ENV = -1, /* as $KILN_GUFUNC_STAGE says (auto when unset) */
  KILN_GUFUNC_STAGING_AUTO = 0, /* GPUs, rows of >= 32 elements */
  KILN_GUFUNC_STAGING_ALWAYS,   /* every device, rows of >= 1 element (tests) */
  KILN_GUFUNC_STAGING_NEVER
} kiln_gufunc_staging;

/* Tests only: forces the mode for the whole process (ENV: back to the
 * environment, read again at the next call). */
void kiln_gufunc_force_staging(kiln_gufunc_staging mode);

/* The pitch in elements of a staged row of w elements of `size` bytes:
 * at least w, an odd number of 4-byte words (8-byte for 8-byte elements)
 * so that work-items reading their rows side by side hit distinct banks. */
int64_t kiln_gufunc_stage_pitch(int64_t w, int64_t size);

/* kiln_gufunc_create; ctx may be NULL (an unbound gufunc that can only
 * generate source, for the compile checks). */
kiln_status kiln_gufunc_make(kiln_context *ctx, const char *name, const char *layout, int nsig,
                             const char *const *signatures, const char *body,
                             const char *preamble, kiln_gufunc **out);

/* The core-loop description of signature `signature` with operand
 * memory dtypes `memory` (KILN_UFUNC_SCALAR_SLOT: by value), baked core
 * sizes `sizes` (-1: an argument), unit-stride flags `unit` and loop ndim.
 * entry receives the kernel name (>= 96 bytes); loop points into it and
 * into g. */
void kiln_gufunc_describe(const kiln_gufunc *g, int signature, const uint8_t *memory,
                          const int64_t *sizes,
                          int (*unit)[KILN_CORE_MAX_DIMS], int loop_ndim,
                          char *entry, kiln_core_loop *loop);

/* Appends sample gufunc kernels to the compile-check catalog. */
kiln_status kiln_gufunc_catalog_add(kiln_catalog *catalog);

#endif
