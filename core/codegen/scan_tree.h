/* core/codegen/scan_tree.h: generated scans (cumulative reductions) of
 * several lines with a fixed order of operations (internal). Used by
 * core/reduce/scan.c; one line takes the single-pass scan
 * (core/codegen/scan_line.h).
 *
 * A scan runs along one dim of M independent lines of K elements. Each
 * line is cut into chunks of KILN_RT_CHUNK elements, each chunk into 32
 * segments of 128. Within a chunk: segment totals S_s (in order), the
 * chunk's total T_c = S_0 op S_1 op ... (in order); the chunk totals of a
 * line are scanned (inclusive) by the same algorithm, recursively, giving
 * P_c = T_0 op ... op T_{c-1}; the result at element k of segment s of
 * chunk c is P_c op (S_0 op ... op S_{s-1}) op (the segment's elements up
 * to k), each part absent where empty. Every association is fixed by the
 * element indices: the same bits on every device. A work-group of 32
 * work-items takes one (line, chunk) at a time, staging the chunk in local
 * memory so loads and stores along a contiguous line coalesce. */
#ifndef KILN_CORE_SCAN_TREE_H
#define KILN_CORE_SCAN_TREE_H

#include "core/codegen/reduce_tree.h"

#define KILN_SCAN_SEGMENT 128

/* Scans `in` (nkeep + 1 dims, the last one scanned) into out (same shape;
 * spec->out its dtype) with spec's combine (spec->map, post and arg
 * unused; inputs[0] is in's dtype). exclusive: out[k] combines the
 * elements before k, the first being `identity` (an expression; required
 * then). One line (M == 1) runs kiln_scan_line. Queued on stream. The
 * chunk totals go in scratch (as kiln_rt_run's; NULL: allocated per
 * call). */
kiln_status kiln_scan_run(kiln_context *ctx, kiln_stream *stream, const kiln_rt_spec *spec,
                          const char *identity, int exclusive, int nkeep, const kiln_array *in,
                          const kiln_array *out, kiln_rt_scratch *scratch);

/* Appends the kernel source of one scan pass: totals (chunk totals into
 * an acc array) or apply (the results, from the scanned totals). */
void kiln_scan_source(const kiln_rt_spec *spec, const char *identity, int totals, int exclusive,
                      int keep_ndim, const char *entry, kiln_strbuf *out);

#endif
