/* core/fusion/fusion_fold.c: a reduction whose input is a recorded chain
 * folds the chain into its map step.
 *
 * Every reduction (ufunc reduce, sum/min/max, argmin/argmax, custom
 * map/reduce/post reductions) runs through kiln_rt_run. When one starts on
 * a stream with a recorded group and reads results of that group, element
 * for element, the reduction is run at once with a map step that first
 * computes those results from the group's own inputs (the nodes' body
 * functions, as the fused kernel does) and then applies the reduction's own
 * map to them: one pass over memory, and no store of the chain. The group
 * stays recorded: a result the program still holds at the end is written
 * then. That order is right because the reduction reads only what the
 * group reads (never what it writes) and writes nothing the group touches;
 * anything else runs the group first, as any other work does. A reduction
 * that reads nothing the group writes runs at once the same way.
 *
 * Bits: the map computes each value as the unfused kernel would (same
 * bodies, same casts, no contraction: reductions and ufuncs share the
 * options), and the reduction's order depends on element indices only, so
 * the result is the unfused one's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fusion/fusion_internal.h"
#include "core/runtime/log.h"

/* Does any access of g use buffer b? written: only its outputs. */
static int group_uses(const kiln_fusion_group *g, const kiln_buffer *b, int written) {
  for (int o = 0; o < g->noutputs; o++)
    if (g->outputs[o].array->buffer == b) return 1;
  for (int e = 0; !written && e < g->ninputs; e++)
    if (g->inputs[e].array->buffer == b) return 1;
  return 0;
}

/* Is view a (the reduction's dims, any order) the elements of output o,
 * one for one? map[d] receives the group dim of view dim d (-1: extent 1). */
static int same_elements(const kiln_fusion_group *g, const kiln_fusion_access *o,
                         const kiln_array *a, int map[KILN_MAX_DIMS]) {
  if (a->dtype != o->dtype || a->offset != o->offset || a->size != g->size) return 0;
  int used[KILN_MAX_DIMS] = {0};
  for (int d = 0; d < a->ndim; d++) {
    map[d] = -1;
    if (a->shape[d] == 1) continue;
    for (int e = 0; e < g->ndim && map[d] < 0; e++)
      if (!used[e] && g->shape[e] == a->shape[d] && o->strides[e] == a->strides[d]) map[d] = e;
    if (map[d] < 0) return 0;
    used[map[d]] = 1;
  }
  for (int e = 0; e < g->ndim; e++)
    if (g->shape[e] > 1 && !used[e]) return 0;
  return 1;
}

int kiln_fusion_group_fold(kiln_fusion_group *g, kiln_stream *stream, const kiln_rt_spec *spec,
                           int nkeep, int nred, const kiln_array *const *inputs,
                           const kiln_array *out, int work_group_size, kiln_rt_scratch *scratch,
                           kiln_status *status) {
  int nin = spec->ninputs, ndim = nkeep + nred;
  if (g->nnodes == 0 || nin < 1 || nin > KILN_RT_MAX_INPUTS || group_uses(g, out->buffer, 0))
    return 0;
  int consumed[KILN_RT_MAX_INPUTS], map[KILN_MAX_DIMS], first_map[KILN_MAX_DIMS], any = 0;
  for (int j = 0; j < nin; j++) {
    consumed[j] = -1;
    for (int o = g->noutputs - 1; o >= 0 && consumed[j] < 0; o--) {
      if (g->outputs[o].array->buffer != inputs[j]->buffer) continue;
      if (!same_elements(g, &g->outputs[o], inputs[j], map)) return 0;
      if (any && memcmp(map, first_map, (size_t)ndim * sizeof *map) != 0) return 0;
      memcpy(first_map, map, sizeof map);
      consumed[j] = o;
      any = 1;
    }
  }
  if (!any) {
    /* independent of the group (reads nothing it writes, writes nothing it
     * touches): runs now and leaves the group recorded, so that a chain
     * and a reduction of its input (a mean beside a sum of squares) still
     * share one group */
    for (int j = 0; j < nin; j++)
      if (group_uses(g, inputs[j]->buffer, 1)) return 0;
    *status = kiln_rt_run(g->ctx, stream, spec, nkeep, nred, inputs, out, work_group_size, scratch);
    return 1;
  }

  /* the nodes that lead to the consumed results, and their inputs */
  int *needed = calloc((size_t)g->nnodes, sizeof *needed);
  kiln_fusion_slots *slots = calloc(1, sizeof *slots);
  kiln_strbuf functions = {0}, body = {0};
  int value_needed[KILN_FUSION_MAX_ACCESSES] = {0};
  int folded = 0;
  if (!needed || !slots) goto cleanup;
  for (int j = 0; j < nin; j++)
    if (consumed[j] >= 0) value_needed[consumed[j]] = 1;
  for (int n = g->nnodes - 1; n >= 0; n--) {
    const kiln_fusion_node *node = &g->nodes[n];
    for (int k = 0; k < node->ufunc->nout; k++) needed[n] |= value_needed[node->outputs[k]];
    for (int j = 0; needed[n] && j < node->ufunc->nin; j++)
      if (node->inputs[j].source == KILN_FUSION_VALUE) value_needed[node->inputs[j].index] = 1;
  }
  kiln_rt_spec fused = *spec;
  kiln_array views[KILN_RT_MAX_INPUTS];
  const kiln_array *pointers[KILN_RT_MAX_INPUTS];
  int count = 0;
  for (int e = 0; e < g->ninputs; e++) slots->input_slot[e] = -1;
  for (int n = 0; n < g->nnodes; n++) {
    for (int j = 0; needed[n] && j < g->nodes[n].ufunc->nin; j++) {
      const kiln_fusion_input *in = &g->nodes[n].inputs[j];
      if (in->source != KILN_FUSION_EXTERNAL || slots->input_slot[in->index] >= 0) continue;
      if (count == KILN_RT_MAX_INPUTS) goto cleanup;
      const kiln_fusion_access *a = &g->inputs[in->index];
      kiln_array *v = &views[count];
      memset(v, 0, sizeof *v);
      v->buffer = a->array->buffer;
      v->dtype = a->dtype;
      v->ndim = ndim;
      v->size = inputs[0]->size;
      v->offset = a->offset;
      for (int d = 0; d < ndim; d++) {
        v->shape[d] = inputs[0]->shape[d];
        v->strides[d] = first_map[d] >= 0 ? a->strides[first_map[d]] : 0;
      }
      fused.inputs[count] = a->dtype;
      pointers[count] = v;
      slots->input_slot[in->index] = count++;
    }
  }
  int plain_slot[KILN_RT_MAX_INPUTS];
  for (int j = 0; j < nin; j++) {
    if (consumed[j] >= 0) continue;
    if (count == KILN_RT_MAX_INPUTS) goto cleanup;
    fused.inputs[count] = spec->inputs[j];
    pointers[count] = inputs[j];
    plain_slot[j] = count++;
  }
  fused.ninputs = count;
  slots->literal_scalars = 1;
  if (!kiln_fusion_chain_source(g, needed, slots, &functions, &body)) goto cleanup;
  /* the reduction's inputs v0.. as its own map sees them, then its map */
  kiln_strbuf_append(&body, "    {");
  for (int j = 0; j < nin; j++) {
    if (consumed[j] >= 0)
      kiln_strbuf_appendf(&body, " %s kiln_fold%d = f%d;", kiln_ew_value_type(spec->inputs[j]), j,
                          consumed[j]);
    else
      kiln_strbuf_appendf(&body, " %s kiln_fold%d = v%d;", kiln_ew_value_type(spec->inputs[j]), j,
                          plain_slot[j]);
  }
  kiln_strbuf_append(&body, "\n    {");
  for (int j = 0; j < nin; j++)
    kiln_strbuf_appendf(&body, " %s v%d = kiln_fold%d;", kiln_ew_value_type(spec->inputs[j]), j, j);
  if (spec->map) {
    kiln_strbuf_appendf(&body, "\n      %s\n    } }", spec->map);
  } else {
    char cast[256];
    kiln_ew_cast_expression(spec->inputs[0], spec->acc, "v0", cast, sizeof cast);
    kiln_strbuf_appendf(&body, "\n      kiln_m = %s;\n    } }", cast);
  }
  if (spec->preamble) {
    kiln_strbuf preamble = {0};
    kiln_strbuf_append(&preamble, spec->preamble);
    kiln_strbuf_append(&preamble, "\n");
    kiln_strbuf_append_n(&preamble, functions.data ? functions.data : "", functions.length);
    kiln_strbuf_free(&functions);
    functions = preamble;
  }
  if (kiln_strbuf_status(&functions) != KILN_OK || kiln_strbuf_status(&body) != KILN_OK)
    goto cleanup;
  fused.preamble = functions.data;
  fused.map = body.data;
  *status = kiln_rt_run(g->ctx, stream, &fused, nkeep, nred, pointers, out, work_group_size,
                        scratch);
  /* a chain whose helpers clash with the reduction's: the unfused way */
  folded = *status != KILN_ERROR_COMPILE;
  if (folded) {
    int nodes = 0;
    for (int n = 0; n < g->nnodes; n++) nodes += needed[n];
    kiln_log(KILN_LOG_DEBUG, "fusion: reduction '%s' folded %d recorded calls into its map step "
             "(%d inputs read)", spec->name, nodes, count);
    kiln_fusion_count_fold((uint64_t)nodes);
  }
cleanup:
  kiln_strbuf_free(&functions);
  kiln_strbuf_free(&body);
  free(needed);
  free(slots);
  return folded;
}
