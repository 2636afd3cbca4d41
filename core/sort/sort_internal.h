/* core/sort/sort_internal.h: the radix sort engine under kiln_sort,
 * kiln_argsort, kiln_sort_by_key, kiln_segmented_sort and kiln_unique, and
 * the entry other parts of core call (internal). The kernels are
 * kernels/builtin/radix_sort.kl; docs/sorting.md explains the algorithm. */
#ifndef KILN_CORE_SORT_INTERNAL_H
#define KILN_CORE_SORT_INTERNAL_H

#include "core/array/array_internal.h"
#include "core/kernel/kernel_catalog.h"
#include "core/kernel/kernel_internal.h"
#include "kiln/sort.h"

/* keys per tile of the kernels (SORT_TILE of radix_sort.kl): inputs and
 * segments up to this size are sorted in local memory in one launch */
#define KILN_SORT_TILE 1024
/* keys per tile of the global passes (256 work-items x 8 on every device,
 * so the work never depends on the device) */
#define KILN_SORT_PASS_TILE 2048

/* How a dtype becomes ordered unsigned key words (radix_sort.kl's
 * SORT_KIND_*). */
typedef enum kiln_sort_key_kind {
  KILN_SORT_KIND_UINT8 = 0, /* also bool */
  KILN_SORT_KIND_INT8,
  KILN_SORT_KIND_UINT16,
  KILN_SORT_KIND_INT16,
  KILN_SORT_KIND_FLOAT16,
  KILN_SORT_KIND_UINT32,
  KILN_SORT_KIND_INT32,
  KILN_SORT_KIND_FLOAT32,
  KILN_SORT_KIND_UINT64,
  KILN_SORT_KIND_INT64,
  KILN_SORT_KIND_FLOAT64,
  KILN_SORT_KIND_COMPLEX64,
  KILN_SORT_KIND_COMPLEX128,
  KILN_SORT_KIND_ROWS,
  KILN_SORT_KIND_OFFSETS
} kiln_sort_key_kind;

/* A dtype's key: kind, number of key words (2 for complex128, else 1) and
 * the bits of each word (8, 16, 32 or 64). */
typedef struct kiln_sort_key_format {
  kiln_sort_key_kind kind;
  int words;
  int bits;
} kiln_sort_key_format;
kiln_sort_key_format kiln_sort_key_format_of(kiln_dtype dtype);
/* Whether an element is its key's inverse image (bool and the integers:
 * sorting the keys alone gives the sorted elements bit for bit; a float's
 * key merges NaNs and the zeros, so floats move by permutation). */
int kiln_sort_keys_invertible(kiln_dtype dtype);

/* The bits of v: the least b with v < 2^b (0 for 0). */
int kiln_sort_bit_length(uint64_t v);

/* The work of one sort: elements of `src` (a C-contiguous device array,
 * rows of row_len elements, or the segments of `offsets`: nseg + 1 int64 on
 * the device) ordered by their keys, then by row or segment when there is
 * more than one. On success *perm is a new 1-D array (uint32 when the size
 * fits, else uint64) of the flat source index of each sorted element. */
typedef struct kiln_sort_job {
  kiln_context *ctx;
  kiln_stream *stream;
  const kiln_array *src;
  int64_t row_len;          /* > 0: rows (the last axis); 0: offsets */
  const kiln_array *offsets; /* int64, nseg + 1 */
  int64_t nseg;
  int64_t max_segment;       /* the longest row or segment */
  int descending;
} kiln_sort_job;
kiln_status kiln_sort_permutation(const kiln_sort_job *job, kiln_array **perm);
/* Whether kiln_sort of one row of n elements of dtype goes through
 * kiln_sort_values_by_keys: bool and the integers, float32 and float64
 * over KILN_SORT_TILE. */
int kiln_sort_keys_alone(kiln_dtype dtype, int64_t n);
/* The job's elements sorted (one row or segment, kiln_sort_keys_alone)
 * into dst (C-contiguous, src's dtype and size; it may be src itself) by
 * their keys alone: radix passes over the keys without values, no
 * permutation, no gather. 32- and 64-bit integers and floats go straight
 * from src to dst (kiln_sort_keys_device, NaNs and -0.0 included); 8- and
 * 16-bit integers
 * go through keys made (sort_make_keys) and made back
 * (sort_unmake_keys). */
kiln_status kiln_sort_values_by_keys(const kiln_sort_job *job, const kiln_array *dst);

/* Launches radix_sort.kl's sort_gather: out (C-contiguous, src's dtype; or
 * NULL) = src[perm], index (int64, or NULL) = perm % row_len (row_len 0:
 * perm). perm NULL: the identity (out = a copy of src). */
kiln_status kiln_sort_gather(kiln_context *ctx, kiln_stream *stream, const kiln_array *src,
                             const kiln_array *perm, const kiln_array *out,
                             const kiln_array *index, int64_t row_len);

/* The program of radix_sort.kl's `entry` for keys of key_bytes (4 or 8),
 * values of val_bytes (4 or 8), offsets of off_bytes (4 or 8) and tiles of
 * `tile` keys (32 .. KILN_SORT_TILE, a power of 2). Errors as
 * kiln_program_get; UNIMPLEMENTED when the device's work-groups are too
 * small. */
kiln_status kiln_sort_program(kiln_context *ctx, const char *entry, int key_bytes, int val_bytes,
                              int off_bytes, int tile, kiln_program **out);

/* Appends the radix sort's programs (every key/value/offset width and tile
 * the calls use) to the catalog CI compiles with NVRTC and hiprtc. */
kiln_status kiln_sort_catalog_add(kiln_catalog *catalog);

/* The smallest tile holding `longest` keys (at most KILN_SORT_TILE), and
 * the work-group size of a tile. */
int kiln_sort_tile_for(int64_t longest);
int kiln_sort_group_size(int tile);
/* The look-back passes' shape by the key and value widths in bytes
 * (value 0: keys alone): keys per work-item (SORT_OS_ITEMS of
 * radix_sort.kl; the tile is kiln_sort_group_size(KILN_SORT_PASS_TILE)
 * times as many), the work-groups per multiprocessor its register bound
 * asks for (SORT_OS_GROUPS: KILN_GROUP_BOUNDS), the flag words a
 * look-back step reads at once (SORT_LOOKBACK) and whether a work-group
 * takes its next tile when it starts one (SORT_PREFETCH_TILE). */
typedef struct kiln_sort_onesweep_shape {
  int items, groups, lookback, prefetch;
} kiln_sort_onesweep_shape;
kiln_sort_onesweep_shape kiln_sort_onesweep(int key_bytes, int val_bytes);

/* Launches `groups` work-groups (capped; the kernels loop) of a program
 * made for `tile`. */
kiln_status kiln_sort_launch_groups(kiln_context *ctx, kiln_stream *stream,
                                    const kiln_program *program, int tile, int64_t groups,
                                    int nargs, const kiln_backend_arg *args);

/* Sorts keys (1-D contiguous uint32 or uint64 device array) with values
 * (uint32 or uint64, the same size; or NULL: the keys alone, half the
 * memory traffic per pass) stably by the key bits [begin_bit, end_bit), in
 * place, queued on `stream`. iota: values are written, not read (value i =
 * i before the sort). Scratch (one more copy of keys and values; 256
 * counters per work-group, or 256 look-back flags per ranked tile; 8 x 256
 * digit counts) comes from the pool.
 *
 * This is also the entry kiln_random_permutation uses: uint64 keys,
 * uint32 or uint64 values, begin_bit 0, end_bit 64. */
kiln_status kiln_sort_pairs_device(kiln_context *ctx, kiln_stream *stream, kiln_array *keys,
                                   kiln_array *values, int iota, int begin_bit, int end_bit);

/* Sorts the elements of src (C-contiguous, 4 or 8 bytes each, more than
 * KILN_SORT_TILE of them) into dst (the same size and width, C-contiguous;
 * it may be src itself) by their keys, `bits` (all of the element's) of
 * them, keys alone, queued on `stream`. The key of an element u is u ^
 * xor_mask for integers (fmask 0: the sign bit for signed ones, every bit
 * more when descending); for IEEE floats (fmask = every bit but the sign,
 * xor_mask the sign bit, every bit more when descending) negatives are
 * inverted first. The transform is done as the first pass reads (and the
 * histogram counts) and undone as the last one writes, so no pass of its
 * own makes or unmakes keys. Floats: the key makes every NaN one NaN and
 * -0.0 0.0 (NumPy's order: equal, kept in input order, NaNs last; first
 * when descending, which the caller says), and one more launch writes the
 * input's own NaNs and zeros over theirs in input order, when the
 * histogram saw a NaN or a -0.0 (decided on the device: no host round
 * trip). Scratch: one more copy of the keys (pool); floats in place, two. */
kiln_status kiln_sort_keys_device(kiln_context *ctx, kiln_stream *stream, const kiln_array *src,
                                  kiln_array *dst, uint64_t xor_mask, uint64_t fmask, int bits,
                                  int descending);

/* Whether the global passes over n keys take Onesweep's look-back
 * (*lookback 1) or reduce-then-scan (0): the scan's choice for the device
 * (kiln_scan_choose_path: $KILN_SCAN, kiln_scan_force_path, else the
 * look-back on CUDA and HIP GPUs), and n < 2^30. Logged once per process
 * and path at KILN_LOG=debug. Errors: INVALID_ARGUMENT for a bad
 * $KILN_SCAN. */
kiln_status kiln_sort_choose_path(kiln_context *ctx, int64_t n, int *lookback);

/* The path's name for the device ("onesweep look-back" or
 * "reduce-then-scan"), for kiln-info. */
const char *kiln_sort_path(kiln_context *ctx);

/* A launch argument for an array (its buffer and byte offset) or a scalar
 * (borrowed: `value` must outlive the launch call). */
kiln_backend_arg kiln_sort_arg_array(const kiln_array *a);
kiln_backend_arg kiln_sort_arg_scalar(const void *value, size_t size);

#endif

/* ---- operands (core/sort/sort_operands.c) -------------------------------- */

/* An input of a sort as the kernels read it. */
typedef struct kiln_sort_input {
  const kiln_array *array; /* the device input (given or uploaded) */
  kiln_array *owned;       /* the upload of host memory, or NULL */
  kiln_array *src;         /* a reference to a C-contiguous array of the
                              elements with the sorted axis last */
  int ndim;                /* the result's shape: the input's, or 1-D */
  int64_t shape[KILN_MAX_DIMS];
  int axis;                /* the sorted axis of that shape */
  int64_t row_len, rows;   /* src as rows along the axis */
} kiln_sort_input;

/* Fills *in for operand *o (operand `name` of `what`, for messages),
 * sorted along `axis` or flattened. Errors: INVALID_ARGUMENT (a scalar or
 * NULL input, an array of another context, axis out of range). Free *in
 * with kiln_sort_input_free, also after an error. */
kiln_status kiln_sort_input_prepare(kiln_context *ctx, const char *what, const char *name,
                                    const kiln_operand *o, int flatten, int axis,
                                    kiln_stream *stream, kiln_sort_input *in);
void kiln_sort_input_free(kiln_sort_input *in);

/* Writes the sorted elements of in (one row, an invertible dtype:
 * kiln_sort_values_by_keys) into output *o (operand `name` of `what`) of
 * in's shape and dtype, straight into it when it is a contiguous device
 * array. Outputs as kiln_sort_write_output. */
kiln_status kiln_sort_write_sorted(kiln_context *ctx, const char *what, const char *name,
                                   const kiln_operand *o, const kiln_sort_input *in,
                                   const kiln_sort_job *job, kiln_stream *stream);

/* Writes the result of a permutation into output *o (operand `name` of
 * `what`) of in's shape and `dtype` (exactly): src[perm] when src is given,
 * else the indices (perm % row_len, row_len 0: perm; int64); perm NULL:
 * src itself (already sorted). Handles new,
 * device and host outputs and any view of a device output. */
kiln_status kiln_sort_write_output(kiln_context *ctx, const char *what, const char *name,
                                   const kiln_operand *o, kiln_dtype dtype,
                                   const kiln_sort_input *in, const kiln_array *src,
                                   const kiln_array *perm, int64_t row_len, kiln_stream *stream);
