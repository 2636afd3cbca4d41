/* core/fusion/fusion_internal.h: a recorded group of ufunc calls (internal).
 *
 * fusion_record.c keeps the open scopes and turns each recorded call into a
 * node of its stream's group; fusion_kernel.c runs a group: it hands the
 * graph to the element-wise generator (core/codegen/) as one loop body
 * that calls the ufuncs' own body functions in order (fusion generates no
 * loop of its own), or, when that kernel does not compile, runs the nodes
 * one by one. */
#ifndef KILN_CORE_FUSION_INTERNAL_H
#define KILN_CORE_FUSION_INTERNAL_H

#include "core/ufunc/ufunc_internal.h"
#include "kiln/fusion.h"

/* An array operand of the group, as the loop sees it: a buffer read or
 * written at offset with byte strides over the group's shape. */
typedef struct kiln_fusion_access {
  kiln_array *array; /* a reference the group holds */
  kiln_dtype dtype;
  int64_t offset;
  int64_t strides[KILN_MAX_DIMS];
} kiln_fusion_access;

typedef enum kiln_fusion_source {
  KILN_FUSION_EXTERNAL = 1, /* read from memory: group->inputs[index] */
  KILN_FUSION_VALUE,        /* a result of an earlier node: group->outputs[index] */
  KILN_FUSION_SCALAR        /* by value: group->scalars[index] (signature dtype) */
} kiln_fusion_source;

typedef struct kiln_fusion_input {
  kiln_fusion_source source;
  int index;
} kiln_fusion_input;

/* One recorded call. */
typedef struct kiln_fusion_node {
  kiln_ufunc *ufunc; /* a reference the group holds */
  int signature;
  kiln_fusion_input inputs[KILN_UFUNC_MAX_OPERANDS];
  int outputs[KILN_UFUNC_MAX_OPERANDS]; /* indices into group->outputs */
} kiln_fusion_node;

/* Operands one fused kernel may have at most (the element-wise loop's): a
 * group that would need more is run first, so chains of any length split. */
#define KILN_FUSION_MAX_ACCESSES KILN_EW_MAX_OPERANDS

typedef struct kiln_fusion_group {
  kiln_context *ctx;
  int ndim;
  int64_t shape[KILN_MAX_DIMS];
  int64_t size;
  kiln_fusion_node *nodes;
  int nnodes, node_capacity;
  kiln_fusion_access inputs[KILN_FUSION_MAX_ACCESSES];
  int ninputs;
  kiln_fusion_access outputs[KILN_FUSION_MAX_ACCESSES];
  int producer[KILN_FUSION_MAX_ACCESSES]; /* node writing outputs[o] */
  int noutputs;
  kiln_dtype scalar_dtypes[KILN_EW_MAX_SCALARS];
  unsigned char scalars[KILN_EW_MAX_SCALARS][KILN_SCALAR_BYTES];
  int nscalars;
} kiln_fusion_group;

/* Where a chain's code reads the group's inputs and scalars: external
 * input e as v<input_slot[e]>, scalar s as s<scalar_slot[s]>, or as its
 * value when literal_scalars (a kernel without scalar arguments). */
typedef struct kiln_fusion_slots {
  int input_slot[KILN_FUSION_MAX_ACCESSES];
  int scalar_slot[KILN_EW_MAX_SCALARS];
  int literal_scalars;
} kiln_fusion_slots;

/* Appends to *functions the ufunc body functions of the needed nodes
 * (needed[n] per node) and to *body their statements, each result in a
 * register f<output index> of its output's value type, computed as the
 * unfused kernels compute it. Returns 0 when a scalar cannot be a literal
 * (float16, complex, not finite). Check the buffers' failed flags. */
int kiln_fusion_chain_source(const kiln_fusion_group *g, const int *needed,
                             const kiln_fusion_slots *slots, kiln_strbuf *functions,
                             kiln_strbuf *body);

/* Runs the group on stream (fused, or node by node when the fused kernel
 * does not compile) and empties it, releasing what it held, also on
 * failure. An output still referenced by the program (or sharing its
 * buffer with another array) is written; one only the group holds is not,
 * and nodes that only lead to such outputs are dropped. */
kiln_status kiln_fusion_group_run(kiln_fusion_group *group, kiln_stream *stream);

/* The fused kernel's source for g at merged ndim, held[o] saying which
 * outputs are written (for the compile-check catalog: g needs no arrays). */
kiln_status kiln_fusion_group_source(const kiln_fusion_group *g, const int *held, int ndim,
                                     kiln_strbuf *out);

/* Appends sample fused kernels to the compile-check catalog
 * (fusion_catalog.c). */
kiln_status kiln_fusion_catalog_add(kiln_catalog *catalog);

/* Releases what the group holds and empties it (nothing runs). */
void kiln_fusion_group_clear(kiln_fusion_group *group);

/* Tests only: counts of this process, in every thread (fusion_counters.c). */
typedef struct kiln_fusion_counters {
  uint64_t recorded;  /* calls recorded */
  uint64_t kernels;   /* fused kernels launched */
  uint64_t fused;     /* nodes those kernels ran */
  uint64_t unfused;   /* nodes run one by one (a fused kernel that failed to compile) */
  uint64_t stored;    /* outputs fused kernels wrote */
  uint64_t kept;      /* outputs they kept in registers only */
  uint64_t folds;     /* reductions that folded a chain into their map */
  uint64_t folded;    /* nodes those reductions computed */
} kiln_fusion_counters;
void kiln_fusion_counters_get(kiln_fusion_counters *out);

/* Recording (fusion_record.c), fused kernels (fusion_kernel.c) and folds
 * (fusion_fold.c) add to the counters through these. */
void kiln_fusion_count_recorded(void);
void kiln_fusion_count(uint64_t kernels, uint64_t fused, uint64_t unfused, uint64_t stored,
                       uint64_t kept);
void kiln_fusion_count_fold(uint64_t nodes);

/* The reduction of kiln_rt_run's arguments, folding the nodes of g that
 * produce its inputs into its map step (fusion_fold.c); 0 when it cannot
 * (the inputs are not g's results element for element, the output is
 * memory g touches, too many inputs, a scalar that cannot be a literal, a
 * map that does not compile), and kiln_rt_run goes on. Else 1, *status
 * the reduction's result; g stays recorded. A reduction independent of g
 * (reads nothing g writes, writes nothing g touches) runs as it is. */
int kiln_fusion_group_fold(kiln_fusion_group *g, kiln_stream *stream, const kiln_rt_spec *spec,
                           int nkeep, int nred, const kiln_array *const *inputs,
                           const kiln_array *out, int work_group_size, kiln_rt_scratch *scratch,
                           kiln_status *status);

#endif
