/* core/sort/indexing_internal.h: what searchsorted, bincount, histogram,
 * take/put and the boolean-mask calls share (internal): operands brought
 * to contiguous device arrays, outputs staged and delivered, launches of
 * the templates in kernels/builtin/ (search.kl, move.kl, count.kl), the
 * index checks.
 *
 * Every call here works on C-contiguous device arrays: an input that is
 * host memory is uploaded, a strided or reversed view is copied (on the
 * call's stream), and an output that is not a contiguous array of the
 * result's dtype is written to a temporary first and copied (cast) into
 * place at the end. The kernels then need only flat indices. */
#ifndef KILN_CORE_SORT_INDEXING_INTERNAL_H
#define KILN_CORE_SORT_INDEXING_INTERNAL_H

#include "core/codegen/elementwise.h"
#include "core/kernel/kernel_catalog.h"
#include "core/kernel/kernel_internal.h"
#include "core/reduce/reduce_internal.h"
#include "kiln/indexing.h"
#include "kiln/search.h"

/* ---- inputs ------------------------------------------------------------ */

/* An input operand as a C-contiguous device array of `dtype`
 * (KILN_DTYPE_COUNT: its own): the array itself when it already is one,
 * else an upload or a copy made on stream (*owned, to release). A scalar
 * becomes a 0-d array of scalar_dtype when weak. what: "searchsorted",
 * name: the operand's name in messages ("values"). */
kiln_status kiln_ix_input(kiln_context *ctx, const char *what, const char *name,
                          const kiln_operand *o, kiln_dtype scalar_dtype, kiln_dtype dtype,
                          kiln_stream *stream, const kiln_array **array, kiln_array **owned);

/* `a` (any view) as a C-contiguous array of dtype, copied on stream when
 * it is not one (*owned, to release). */
kiln_status kiln_ix_contiguous(const kiln_array *a, kiln_dtype dtype, kiln_stream *stream,
                               const kiln_array **out, kiln_array **owned);

/* kiln_ew_copy_on (broadcast, cast) after marking both buffers used on
 * stream. */
kiln_status kiln_ix_copy(const kiln_array *dst, const kiln_array *src, kiln_stream *stream);

/* The dtype of an operand (array, host, typed scalar), KILN_DTYPE_COUNT
 * for anything else. */
kiln_dtype kiln_ix_operand_dtype(const kiln_operand *o);

/* NumPy's promotion of two dtypes (np.result_type of two arrays): the
 * first of bool, int8, uint8, ..., complex128 both cast to safely. */
kiln_dtype kiln_ix_promote(kiln_dtype a, kiln_dtype b);

/* INVALID_ARGUMENT naming the operand unless dtype is an integer dtype
 * that casts safely to int64 (bool, int8..int64, uint8..uint32), as
 * NumPy's indices (uint64 and floats do not). */
kiln_status kiln_ix_check_index_dtype(const char *what, const char *name, kiln_dtype dtype);

/* ---- outputs ----------------------------------------------------------- */

/* A result being computed: `work` is the C-contiguous device array the
 * kernels write (of `dtype`); finish delivers it to the operand. */
typedef struct kiln_ix_output {
  const kiln_operand *operand;
  const kiln_array *target; /* the given device array or the host staging */
  kiln_array *made;         /* a new result or the host staging (owned) */
  kiln_array *temporary;    /* work when target cannot be written directly */
  const kiln_array *work;
  kiln_dtype dtype; /* of work: the result's */
} kiln_ix_output;

/* Checks the output operand for a result of dtype and shape (exactly, or
 * at least per dim when at_least: then work has `shape` and the rest of
 * the given output is left as it was), and readies *out. The operand's
 * own dtype must be same_kind castable from dtype. */
kiln_status kiln_ix_output_begin(kiln_context *ctx, const char *what, const kiln_operand *o,
                                 kiln_dtype dtype, int ndim, const int64_t *shape, int at_least,
                                 kiln_ix_output *out);

/* Copies work into a given array or host memory (the host after waiting
 * for stream), or hands a new result to the caller. */
kiln_status kiln_ix_output_finish(kiln_context *ctx, kiln_stream *stream, kiln_ix_output *out);

void kiln_ix_output_free(kiln_ix_output *out);

/* ---- arrays changed in place (put, put_along_axis, mask_assign) -------- */

/* The array written: `target` (a device array, any view that is not a
 * broadcast) or writable host memory; `work` its C-contiguous copy on the
 * device (the array itself where it already is one). */
typedef struct kiln_ix_inout {
  const kiln_operand *operand;
  const kiln_array *target;
  kiln_array *owned;
  const kiln_array *work;
} kiln_ix_inout;

kiln_status kiln_ix_inout_begin(kiln_context *ctx, const char *what, const kiln_operand *o,
                                kiln_stream *stream, kiln_ix_inout *io);

/* Writes work back into a view or host memory (after waiting for stream). */
kiln_status kiln_ix_inout_finish(kiln_context *ctx, kiln_stream *stream, kiln_ix_inout *io);

void kiln_ix_inout_free(kiln_ix_inout *io);

/* ---- launches ---------------------------------------------------------- */

#define KILN_IX_MAX_ARGS 24

/* Arguments of a template kernel: arrays (a byte pointer to the buffer and
 * the view's byte offset, read with KILN_IX_AT) and int64 values, in the
 * order of its parameter list, then the base and n the launcher adds. */
typedef struct kiln_ix_args {
  int n;
  kiln_backend_arg args[KILN_IX_MAX_ARGS + 2];
  int64_t values[KILN_IX_MAX_ARGS + 2];
  int narrays;
  const kiln_array *arrays[KILN_IX_MAX_ARGS]; /* marked used on the launch's stream */
} kiln_ix_args;

/* Marks the arrays' buffers as used by work queued on stream (the memory
 * pool's stream rule, kiln/memory.h); NULL entries and a NULL stream are
 * ignored. */
kiln_status kiln_ix_use_on_stream(kiln_stream *stream, int n, const kiln_array *const *arrays);

void kiln_ix_arg_array(kiln_ix_args *l, const kiln_array *a);
void kiln_ix_arg_int(kiln_ix_args *l, int64_t v);
void kiln_ix_arg_double(kiln_ix_args *l, double v);

/* The kernel `entry` of template `text` (a kernels/builtin/ file) compiled
 * with the #defines `defines` put before it (the source is the cache key). */
kiln_status kiln_ix_program(kiln_context *ctx, const char *text, const char *defines,
                            const char *entry, kiln_program **out);

/* Launches `entry` over [0, n) with KILN_ELEMENTS (the args, then base and
 * n appended); nothing when n <= 0. */
kiln_status kiln_ix_launch(kiln_context *ctx, kiln_stream *stream, const char *text,
                           const char *defines, const char *entry, int64_t n, kiln_ix_args *args);

/* kiln_ix_launch with one work-item per element on GPUs (no grid-stride
 * trips): take's random gathers (core/sort/take.c) measured faster so. */
kiln_status kiln_ix_launch_wide(kiln_context *ctx, kiln_stream *stream, const char *text,
                                const char *defines, const char *entry, int64_t n,
                                kiln_ix_args *args);

/* The #defines of the element-moving kernels for dtype: WORD (an unsigned
 * integer type of 1, 2, 4 or 8 bytes) and WORDS (per element: 1, or 2 for
 * complex128), so any dtype moves as words. */
void kiln_ix_word_defines(kiln_dtype dtype, char *out, size_t size);

/* Elements as words (kiln_ix_word_defines). */
int64_t kiln_ix_words(kiln_dtype dtype);

/* Appends the #defines of a compared dtype (core/sort/indexing_keys.c):
 * KEY (its kernel type), VALUE (the type compared: float for float16, int
 * for bool), LOAD(x) and kiln_key_less(a, b) in NumPy's sort order. */
void kiln_ix_key_defines(kiln_dtype dtype, kiln_strbuf *out);

/* searchsorted's table (search.kl's SEARCH_TABLE) for a compared dtype:
 * its entries, and the key #defines with SEARCH_TABLE appended. */
int64_t kiln_ix_search_table(kiln_dtype dtype);
void kiln_ix_search_defines(kiln_dtype dtype, kiln_strbuf *out);

/* Appends "#define <prefix> <kernel type>" and <prefix>_LOAD(x), the
 * element as a number (float16 as float). */
void kiln_ix_number_defines(const char *prefix, kiln_dtype dtype, kiln_strbuf *out);

/* Tests only: put's claim takes `positions` per chunk instead of 2^30
 * (a later chunk overwrites an earlier one, as NumPy's loop does), so
 * that puts of many chunks run at small sizes; 0 (or out of (0, 2^30)):
 * the default. */
void kiln_ix_force_put_chunk(int64_t positions);

/* a.flat[indices[k]] = values[k % values->size] for every k (move.kl's
 * kiln_put_flat; core/sort/take.c): all contiguous, values of a's dtype,
 * indices int64 resolved by mode (checked before for RAISE). A repeated
 * target keeps the value of its last k, as NumPy, on every device (an
 * atomic claim pass first); unique: the caller knows the targets are
 * distinct (mask positions), and the claim is skipped. */
kiln_status kiln_ix_put_flat(kiln_context *ctx, kiln_stream *stream, const kiln_array *a,
                             const kiln_array *indices, const kiln_array *values,
                             kiln_index_mode mode, int unique);

/* Appends the source of a template: the KILN_IX_AT macro, the defines,
 * the template's text. */
void kiln_ix_compose(const char *defines, const char *text, kiln_strbuf *source);

/* ---- counting (core/sort/bincount.c) ------------------------------------ */

/* What kernels/builtin/count.kl counts: x (contiguous, n elements) into
 * nbins bins, found by bin_kind (0: the value, 1: equal-width bins over
 * `edges` with denom and nq, 2: the sorted `edges`), adding 1 or the
 * float64 `weights` (contiguous; NULL: count). defines: count.kl's for
 * the kind (1: B_T, B_ROUND, Q_T, Q_ROUND, EDGE, EDGE_LOAD; 2: the key
 * defines of x and the edges), X and X_LOAD added here for kinds 0 and 1. */
typedef struct kiln_ix_count_job {
  int bin_kind;
  const kiln_array *x, *weights, *edges;
  int64_t nbins;
  double denom, nq;
  const char *defines;
} kiln_ix_count_job;

/* Runs the job into a new zeroed array of nbins (*counts, to release):
 * uint32 counts (uint64 for 2^32 elements or more), float64 sums with
 * weights. Queued on stream. */
kiln_status kiln_ix_count(kiln_context *ctx, kiln_stream *stream, const kiln_ix_count_job *job,
                          kiln_array **counts);

/* The uint32 counters a work-group of the count kernel keeps in local
 * memory for nbins bins on ctx's device (LOCAL_BINS), 0 for none. */
int64_t kiln_ix_count_local_bins(const kiln_context *ctx, int64_t nbins, int weighted);

/* Appends count.kl's own #defines (BIN_KIND, COUNT_T, ADD, COUNT_64,
 * LOCAL_BINS, WEIGHTED) for counts of count_dtype (uint32, uint64, or
 * float64: weighted). */
void kiln_ix_count_defines(int bin_kind, kiln_dtype count_dtype, int64_t local_bins,
                           kiln_strbuf *out);

/* ---- index checks ------------------------------------------------------ */

/* Checks that every value of `indices` (a contiguous int64 array) is in
 * [-extent, extent) with one reduction (no index is read out of bounds
 * later); else OUT_OF_RANGE naming the first offending index, as NumPy's
 * IndexError: "<what>: index 7 is out of bounds for axis 0 with size 5".
 * Waits for the check (one small copy to the host). */
kiln_status kiln_ix_check_bounds(kiln_context *ctx, kiln_stream *stream, const char *what,
                                 const kiln_array *indices, int64_t extent, int axis);

/* Reduces a contiguous array (n > 0) into one value of dtype acc written
 * to *result on the host (waiting for it): kiln_rt_spec's map over v0 (an
 * element), v1 (`extra`, int64) and kiln_i, then combine. */
kiln_status kiln_ix_reduce(kiln_context *ctx, kiln_stream *stream, const char *name,
                           const kiln_array *values, int64_t extra, kiln_dtype acc,
                           const char *map, const char *combine, void *result);

/* The smallest and largest value of a contiguous array of an integer
 * dtype up to int64 (n > 0), as int64, in two reductions; waits for them. */
kiln_status kiln_ix_min_max(kiln_context *ctx, kiln_stream *stream, const kiln_array *values,
                            int64_t *min, int64_t *max);

/* The templates of kernels/builtin/ (embedded at build time). */
extern const char kiln_builtin_search[];
extern const char kiln_builtin_move[];
extern const char kiln_builtin_count[];
extern const char kiln_builtin_unique[];

/* Appends the kernel families of this folder (every dtype's defines) to the
 * catalog of generated kernels. */
kiln_status kiln_indexing_catalog_add(kiln_catalog *catalog);

#endif
