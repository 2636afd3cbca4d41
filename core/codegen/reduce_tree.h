/* core/codegen/reduce_tree.h: generated reductions with kiln's fixed tree
 * (internal). Used by core/reduce/ (ufunc reduce, custom reductions,
 * argmin/argmax).
 *
 * The problem: inputs of one shape (keep dims first, then reduced dims;
 * broadcast views allowed), a map from the inputs' values (and the reduced
 * flat index kiln_i) to an accumulator value, a commutative associative
 * combine, a post-map to the output. The order of combination is fixed by
 * element indices alone (see kiln/reduce.h): chunks of KILN_RT_CHUNK
 * reduced elements, 32 lanes per chunk each combining its elements in
 * order, a pairwise tree over the lanes, then the chunk partials reduced
 * the same way in further passes. A pass is launched as work-groups of
 * slots x 32 lanes; in the "column" variant (used when the kept dims step
 * through memory faster than the reduced ones) neighbouring work-items take
 * neighbouring outputs, so loads coalesce either way; in the row variant's
 * first pass over contiguous, 16-byte aligned rows, a work-item owns 4 (2)
 * lanes and reads them as one vector (the same order, the same bits). The
 * keep and reduce dims are each merged by the element-wise planner. */
#ifndef KILN_CORE_REDUCE_TREE_H
#define KILN_CORE_REDUCE_TREE_H

#include "core/codegen/elementwise.h"

#define KILN_RT_CHUNK 4096
#define KILN_RT_LANES 32
#define KILN_RT_MAX_GROUP 256
#define KILN_RT_MAX_INPUTS 16
#define KILN_RT_MAX_BATCH 32
/* Unrolling of the vector variant's loop over a whole chunk (measured,
 * reduce_tree.c) */
#define KILN_RT_VECTOR_UNROLL 2
#define KILN_RT_ARG_VECTOR_UNROLL 4
/* Vectors of each half an exactly associative combine's lane loads at
 * once in a whole chunk (reduce_tree.c, append_split_chunk); divides 64 */
#define KILN_RT_SPLIT_RUN 4
#define KILN_RT_ARG_SPLIT_RUN 1
/* the runs of vectors a short chunk (a short row) is read in, at least */
#define KILN_RT_SHORT_RUN 4
#define KILN_RT_SERIAL 2 /* the `col` of the serial variant (kiln_rt_source) */
/* The batch of loads of the later passes run in a first pass's last
 * work-group (measured, reduce_tree.c): sums and the like, and exactly
 * associative combines (min, max, arg reductions), whose first pass keeps
 * registers enough for the bigger batch */
#define KILN_RT_TAIL_BATCH 8
#define KILN_RT_ASSOCIATIVE_TAIL_BATCH 16

typedef struct kiln_rt_spec {
  const char *name;                      /* identifier: entry-point prefix and cache key */
  int ninputs;                           /* >= 1 */
  kiln_dtype inputs[KILN_RT_MAX_INPUTS]; /* in memory */
  kiln_dtype acc;                        /* accumulator */
  kiln_dtype out;                        /* output (INT64 for arg reductions) */
  int arg;                               /* 0; +1 argmax; -1 argmin (the index is the output) */
  const char *preamble;                  /* helper functions, or NULL */
  /* Statements assigning `kiln_m` (acc) from v0.. (each input in its own
   * dtype) and kiln_i (int64); NULL: kiln_m = v0 cast to acc. */
  const char *map;
  const char *combine; /* expression over a, b (acc); unused for arg */
  const char *post;    /* expression over a (acc) giving `out`; NULL: cast */
  /* 1: combine (or the arg comparison) is exactly associative, bits
   * included (it picks one of its operands: min/max, arg reductions), so a
   * lane may fold its chunk in two halves at once and combine them, the
   * same bits as one fold (reduce_tree.c, append_split_chunk) */
  int associative;
} kiln_rt_spec;

/* Reduces: inputs[j] have ndim nkeep + nred (the keep dims first, the
 * reduced dims last, the product of the reduced extents >= 1); out has the
 * keep shape (nkeep dims, dtype spec->out). work_group_size: 0 or a
 * multiple of 32 up to 256. Queued on stream. Scratch buffers are taken
 * from and left in *scratch (an array cache of the caller's, used only
 * with this stream; NULL: allocate per call). */
typedef struct kiln_rt_scratch {
  kiln_array *buffer;  /* uint8, reused when large enough */
  kiln_stream *stream; /* the stream its last use was queued on */
} kiln_rt_scratch;

kiln_status kiln_rt_run(kiln_context *ctx, kiln_stream *stream, const kiln_rt_spec *spec, int nkeep,
                        int nred, const kiln_array *const *inputs, const kiln_array *out,
                        int work_group_size, kiln_rt_scratch *scratch);

/* A folder of reductions into recorded work above this layer (core/fusion/
 * sets it; codegen knows nothing of fusion): called first by kiln_rt_run
 * with its arguments, it returns 1 when it ran the reduction itself
 * (*status is then the result), 0 when kiln_rt_run goes on. */
typedef int (*kiln_rt_folder)(kiln_context *ctx, kiln_stream *stream, const kiln_rt_spec *spec,
                              int nkeep, int nred, const kiln_array *const *inputs,
                              const kiln_array *out, int work_group_size,
                              kiln_rt_scratch *scratch, kiln_status *status);
void kiln_rt_set_folder(kiln_rt_folder folder);

/* One pass's kernel: first reads the inputs through the map (else acc
 * partials); last writes out through post (else acc partials); col: 0 the
 * row variant, 1 the column variant, KILN_RT_SERIAL one work-item per
 * output (only first and last: one chunk); batch: loads a work-item has in
 * flight at once, 1..KILN_RT_MAX_BATCH (kiln_rt_batch); vec: lanes a
 * work-item owns, 1, or kiln_rt_vector_width(spec) for the vector variant
 * of a first pass's row variant with red_ndim 1 (any other pass ignores
 * it): it reads each input's elements as 16-byte vectors, so the launch
 * must guarantee a reduced stride of 1 and 16-byte aligned rows (see
 * kiln_rt_run); keep_ndim/red_ndim: merged dims; tail: a first, not last,
 * row pass of one output (M == 1) whose last work-group to finish runs
 * all the later passes (kiln_rt_tail_fits). The order of operations
 * depends on none of batch, vec and tail. */
typedef struct kiln_rt_pass {
  int first, last, col, batch, vec, keep_ndim, red_ndim, tail;
} kiln_rt_pass;

/* Appends the kernel source of pass, named entry. */
void kiln_rt_source(const kiln_rt_spec *spec, const kiln_rt_pass *pass, const char *entry,
                    kiln_strbuf *out);

/* Can a first pass of spec run the later passes in its last work-group:
 * the later passes fit one work-group of `local` work-items in one round
 * (a chunk a slot of 32), and the accumulator is a real number (the tail
 * reads partials through volatile pointers, which C++ cannot copy as
 * structs). Arg reductions too (H100, argmax of 1e8 float32: 0.163 ms
 * against 0.167 with separate launches; it was slower, 0.204 against
 * 0.189, while the first pass took 67 registers). partials: the first
 * pass's chunk count (M == 1). */
int kiln_rt_tail_fits(const kiln_rt_spec *spec, int64_t partials, uint64_t local);

/* The vector variant's lanes a work-item for spec's inputs: 16 bytes of
 * each, 4 of 4-byte and 2 of 8-byte dtypes; 1 (no vector variant) for
 * inputs of 1 or 2 bytes or of different sizes. */
int kiln_rt_vector_width(const kiln_rt_spec *spec);

/* Tests only: the first pass's loads for the calls that follow, in every
 * thread. AUTO: kiln's choice; SCALAR: never vectors; VECTOR: the vector
 * variant, or INVALID_ARGUMENT where it cannot run. Both forced modes also
 * keep CPU devices off the serial variant, so that they compare the row
 * kernels. */
typedef enum kiln_rt_loads {
  KILN_RT_LOADS_AUTO = 0,
  KILN_RT_LOADS_SCALAR = 1,
  KILN_RT_LOADS_VECTOR = 2
} kiln_rt_loads;
void kiln_rt_force_loads(kiln_rt_loads loads);

/* Tests only: whether the calls that follow, in every thread, may run a
 * reduction's later passes in its first pass's last work-group (1, kiln's
 * choice) or always launch them separately (0). */
void kiln_rt_allow_tail(int allow);

/* Tests only: how many launches of this process ran their later passes in
 * their last work-group (so that a test can tell the tail ran). */
uint64_t kiln_rt_tail_launches(void);

/* The scratch of one call, shared by reductions and scans: a uint8 buffer
 * whose first KILN_RT_SCRATCH_HEAD bytes are the tail's work-group counter
 * (zero between calls), then at least `bytes` for the passes. Reused from
 * *scratch (may be NULL) when on the same stream and large enough, else
 * allocated, its head zeroed on stream, and returned in *owned too.
 * *buffer is NULL when bytes is 0. */
#define KILN_RT_SCRATCH_HEAD 64
kiln_status kiln_rt_scratch_acquire(kiln_context *ctx, kiln_stream *stream,
                                    kiln_rt_scratch *scratch, uint64_t bytes,
                                    kiln_array **buffer, kiln_array **owned);

/* Ends a call's use of the scratch: on success an owned buffer replaces
 * scratch's (which then remembers stream); on failure the buffer used is
 * dropped, since a pass stopped half-way may have left its counter set. */
void kiln_rt_scratch_finish(kiln_rt_scratch *scratch, kiln_stream *stream, kiln_array *buffer,
                            kiln_array *owned, kiln_status status);

/* The batch of loads for a pass of spec: wide for a pass too small to fill
 * a GPU (its time is the latency of a lane's loads one batch after
 * another), else what measured fastest for a pass that fills it. */
int kiln_rt_batch(const kiln_rt_spec *spec, int wide);

/* The value stored in the output for an accumulated `a` (the post-map,
 * cast to spec->out), written into out: a value of
 * kiln_ew_value_type(spec->out), which the tree's store converts. */
void kiln_rt_store_expression(const kiln_rt_spec *spec, char *out, size_t size);

/* The accumulator a reduction of dtype d runs in: d, except float16, which
 * accumulates in float32 and is rounded once at the output (NumPy's half
 * reductions convert to float, accumulate and round back too). Every spec's
 * acc is one of these; inputs and output may be float16. */
kiln_dtype kiln_rt_accumulator(kiln_dtype d);

/* Shared with the scans (scan_tree.c): */

/* Appends spec's preamble and its combine as KILN_DEVICE function
 * kiln_rt_combine(a, b) (for arg reductions kiln_rt_takes). */
void kiln_rt_append_helpers(const kiln_rt_spec *spec, kiln_strbuf *b);

/* Appends statements adding to each offsets[k] the offset of flat index
 * `index` through dims <shape>0.. (extents) with strides <strides[k]>0..,
 * the innermost dim last. */
void kiln_rt_append_decompose(kiln_strbuf *b, const char *indent, const char *index, int ndim,
                              const char *shape, int noperands, const char *const *offsets,
                              const char *const *strides);

/* *v = dims first..first+ndim-1 of a (size: their product), borrowing a's
 * buffer, at a's offset when with_offset (else 0). */
void kiln_rt_subview(const kiln_array *a, int first, int ndim, int64_t size, int with_offset,
                     kiln_array *v);

/* Merged dims of n views of one shape (kiln_ew_layout_plan); the
 * contiguous case becomes one dim of stride 1, so kernels have one form. */
kiln_status kiln_rt_merge(int n, const kiln_array *const *views, kiln_ew_layout *layout);

/* Compile options of every reduction program: no floating-point
 * contraction (backends map KILN_STRICT_FP to their compilers' switch). */
#define KILN_RT_OPTIONS "-DKILN_STRICT_FP=1"

#endif
