/* core/codegen/scan_line.h: the single-pass scan of one line (internal),
 * with decoupled look-back (Merrill & Garland 2016, as CUB's DeviceScan),
 * or, where work-groups are not known to make progress while others spin,
 * reduce-then-scan. Both give the same bits (docs/scan.md): used by
 * kiln_ufunc_scan for one line (core/codegen/scan_tree.c), by compaction
 * and nonzero (core/reduce/scan.c), and by any core code that needs a
 * prefix sum of a device buffer (kiln_scan_add_line).
 *
 * The order of operations, fixed by element indices and the accumulator
 * dtype alone: the line is cut into tiles of KILN_SCAN_LANES lanes of
 * kiln_scan_items(acc) consecutive elements (KILN_SCAN_WIDE_TILE elements
 * for accumulators of at most 4 bytes, else KILN_SCAN_TILE). A lane folds its elements left
 * to right (the running values r_i); the lane totals are scanned by a
 * Kogge-Stone tree (step d = 1, 2, 4, ...: x_l = x_{l-d} op x_l for
 * l >= d); the last one is the tile's aggregate A_t. The exclusive prefix
 * of tile t is the left fold P_t = ((A_0 op A_1) op ...) op A_{t-1}; the
 * look-back reaches it as I_j op A_{j+1} op ... op A_{t-1} folded left from
 * the nearest inclusive prefix I_j = P_j op A_j, which by induction is the
 * same value, and reduce-then-scan folds the aggregates in one work-item.
 * Element i of lane l of tile t is (P_t op X_{l-1}) op r_i (X the lane
 * scan; parts absent where empty). */
#ifndef KILN_CORE_SCAN_LINE_H
#define KILN_CORE_SCAN_LINE_H

#include "core/codegen/reduce_tree.h"

#define KILN_SCAN_ITEMS 16
#define KILN_SCAN_LANES 256
#define KILN_SCAN_TILE (KILN_SCAN_ITEMS * KILN_SCAN_LANES)
#define KILN_SCAN_WIDE_ITEMS 32 /* accumulators of at most 4 bytes */
#define KILN_SCAN_WIDE_TILE (KILN_SCAN_WIDE_ITEMS * KILN_SCAN_LANES)

/* Elements per lane of a scan whose accumulator is acc: KILN_SCAN_WIDE_ITEMS
 * where it is at most 4 bytes (half as many tiles, hence half the
 * look-back work per element; the staged tile, 33 KiB, still fits 48 KiB
 * of local memory), else KILN_SCAN_ITEMS. Fixed by the dtype, never by the
 * device. */
int kiln_scan_items(kiln_dtype acc);

/* How a tile learns the prefix of the tiles before it. */
typedef enum kiln_scan_path {
  KILN_SCAN_PATH_AUTO = 0,         /* kiln's choice for the device */
  KILN_SCAN_PATH_LOOKBACK = 1,     /* one pass, tile ids from a counter */
  KILN_SCAN_PATH_REDUCE_THEN_SCAN = 2 /* aggregates, their fold, the scan */
} kiln_scan_path;

/* Where a requested path comes from. */
typedef enum kiln_scan_path_source {
  KILN_SCAN_FROM_DEVICE = 0, /* nothing forced: the device decides */
  KILN_SCAN_FROM_TESTS = 1,  /* kiln_scan_force_path */
  KILN_SCAN_FROM_ENV = 2     /* $KILN_SCAN */
} kiln_scan_path_source;

/* The path asked for, whatever the device: kiln_scan_force_path's, else
 * $KILN_SCAN's (lookback | reduce-then-scan | auto), else AUTO; source
 * (may be NULL) says which. The sort's passes follow it too
 * (kiln_sort_choose_path). INVALID_ARGUMENT: $KILN_SCAN is none of those
 * words. */
kiln_status kiln_scan_requested_path(kiln_scan_path *path, kiln_scan_path_source *source);

/* The path a scan of accumulator `acc` takes on ctx's device: the
 * requested one (kiln_scan_requested_path), else the look-back where
 * kiln_device_lookback_safe(ctx) (work-groups make progress while others
 * spin, the prelude's flag and word accesses are device-scope: CUDA and
 * HIP GPUs, NVIDIA's OpenCL through PTX), else reduce-then-scan (other
 * OpenCL devices: OpenCL 1.2 has no device-scope acquire/release; CPU
 * devices such as PoCL's). Complex accumulators always take
 * reduce-then-scan (the look-back moves values as 64-bit words).
 * Errors as kiln_scan_requested_path's. */
kiln_status kiln_scan_choose_path(const kiln_context *ctx, kiln_dtype acc, kiln_scan_path *path);

/* The path of a real accumulator on ctx's device and why, as text
 * ("lookback: ..."), into text (size bytes, truncated). Errors as
 * kiln_scan_choose_path's. */
kiln_status kiln_scan_explain_path(const kiln_context *ctx, char *text, size_t size);

/* "lookback" or "reduce-then-scan" (what kiln-info and the debug log say). */
const char *kiln_scan_path_name(kiln_scan_path path);

/* Tests only: the path of the calls that follow, in every thread (AUTO:
 * back to the environment and the device). */
void kiln_scan_force_path(kiln_scan_path path);

/* Tests only: compaction and nonzero count in int64 even where int32
 * would do (nonzero: on), as for lines of 2^31 elements or more. */
void kiln_scan_force_wide_counts(int wide);

/* Tests only: the look-back of the whole work-group even where warp 0
 * would look back alone with ballots (nonzero: on; the form HIP's wave64
 * and PoCL take), so that GPUs with ballots test it too. */
void kiln_scan_force_group_lookback(int on);

/* Tests only: the look-back takes tile t as work-group t with the
 * decoupled fallback (a tile whose predecessor published nothing after
 * `spins` rereads reduces that tile itself: docs/scan.md), spins >= 0 (0:
 * at once); reverse (nonzero): tile t as work-group ntiles - 1 - t
 * instead, so that tiles start before their predecessors and the fallback
 * runs for nearly every tile (without it, a device that runs work-groups
 * in order on fewer threads than tiles would never finish), for every
 * kind of scan; spins negative: kiln's default (the fallback, bound 64,
 * tiles in order, for scans of values; the counter's tile ids for
 * compaction and nonzero). */
void kiln_scan_force_fallback(int spins, int reverse);

/* What a line scan writes. */
typedef enum kiln_scan_line_kind {
  KILN_SCAN_LINE_VALUES = 0,  /* out[k] = the scan at k */
  KILN_SCAN_LINE_COMPACT = 1, /* out[pos] = data[k] where in[k] != 0 */
  KILN_SCAN_LINE_NONZERO = 2  /* row pos of out: the C-order index of k */
} kiln_scan_line_kind;

/* One line scan. in: 1-D (any stride). VALUES: spec's combine (inputs[0]
 * in's dtype, acc, out, post as kiln_rt_run's; map unused), exclusive with
 * `identity` (an expression) as kiln_scan_run's; out 1-D of in's length.
 * COMPACT and NONZERO (spec, identity, exclusive ignored: an exclusive
 * add-scan of in != 0 counted in int32 where in is shorter than 2^31, else
 * in int64): out 1-D (COMPACT, data's dtype, at least the
 * count long) or contiguous int64 of shape (count, ndim) (NONZERO: the
 * index of k in `shape`, ndim >= 1 dims, C order). data: COMPACT's 1-D
 * values of in's length, else NULL. Queued on stream; scratch as
 * kiln_rt_run's (NULL: allocated per call). */
typedef struct kiln_scan_line_job {
  kiln_scan_line_kind kind;
  const kiln_rt_spec *spec;
  const char *identity;
  int exclusive;
  const kiln_array *in, *out, *data;
  int ndim;
  const int64_t *shape;
} kiln_scan_line_job;

kiln_status kiln_scan_line(kiln_context *ctx, kiln_stream *stream, const kiln_scan_line_job *job,
                           kiln_rt_scratch *scratch);

/* The kernels of a line scan: the look-back pass; reduce-then-scan's
 * aggregates, their fold and the scan from the folded prefixes. */
typedef enum kiln_scan_line_pass {
  KILN_SCAN_LINE_LOOKBACK = 0,
  KILN_SCAN_LINE_AGGREGATE = 1,
  KILN_SCAN_LINE_APPLY = 2,
  KILN_SCAN_LINE_FOLD = 3
} kiln_scan_line_pass;

/* Appends the source of job's pass (direct: the tile read and written in
 * global memory, as a complex128 accumulator is), named entry: for the
 * compile checks (core/reduce/reduce_catalog.c). job->spec must be set
 * for every kind (COMPACT/NONZERO: the count, int32 or int64). */
kiln_status kiln_scan_line_source(const kiln_scan_line_job *job, kiln_scan_line_pass pass,
                                  int direct, const char *entry, kiln_strbuf *out);

/* The prefix sum other core code calls on device buffers (unique,
 * histograms, sort): out[k] = in[0] + ... + in[k] (exclusive: up to
 * in[k-1], out[0] = 0), accumulated in out's dtype (an integer or real
 * float dtype; in is cast to it), in the order above. in, out: 1-D device
 * arrays of one length. Queued on stream. */
kiln_status kiln_scan_add_line(kiln_context *ctx, kiln_stream *stream, const kiln_array *in,
                               const kiln_array *out, int exclusive);

#endif
