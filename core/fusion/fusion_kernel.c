/* core/fusion/fusion_kernel.c: running a recorded group as one kernel.
 *
 * The kernel is an element-wise loop of the one generator
 * (core/codegen/elementwise.c) whose operands are the group's external
 * inputs and the outputs the program still holds; its body calls each
 * node's ufunc body function (the very function the unfused kernel calls,
 * kiln_ufunc_append_body_function) in recording order, with the unfused
 * kernel's conversions: each input cast to the signature's dtype, each
 * result cast to its output array's dtype and, where that dtype is
 * float16, through the stored half and back, as a store and a load would.
 * Compiled like the ufunc kernels without floating-point contraction
 * (KILN_UFUNC_OPTIONS), the values in registers are the values the
 * unfused calls would have written and read back, bit for bit.
 *
 * The source is a function of the graph's structure, dtypes and merged
 * layout only (values are kernel arguments), so it is also the program's
 * key in the context's cache, in memory and on disk. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fusion/fusion_internal.h"
#include "core/runtime/log.h"

void kiln_fusion_group_clear(kiln_fusion_group *g) {
  for (int n = 0; n < g->nnodes; n++) kiln_ufunc_release(g->nodes[n].ufunc);
  for (int e = 0; e < g->ninputs; e++) kiln_array_release(g->inputs[e].array);
  for (int o = 0; o < g->noutputs; o++) kiln_array_release(g->outputs[o].array);
  g->nnodes = g->ninputs = g->noutputs = g->nscalars = 0;
}

/* What one run needs, worked out from the group. */
typedef struct fused_plan {
  int held[KILN_FUSION_MAX_ACCESSES];
  kiln_fusion_slots slots;                   /* ew operands of inputs, scalars */
  int output_slot[KILN_FUSION_MAX_ACCESSES]; /* ew operand of group output o, -1 kept */
  kiln_ew_signature sig;
  const kiln_array *views[KILN_EW_MAX_OPERANDS];
  kiln_array view_storage[KILN_EW_MAX_OPERANDS];
  const void *scalars[KILN_EW_MAX_SCALARS];
} fused_plan;

static void make_view(const kiln_fusion_group *g, const kiln_fusion_access *a, kiln_array *v) {
  v->buffer = a->array->buffer;
  v->dtype = a->dtype;
  v->ndim = g->ndim;
  v->size = g->size;
  v->offset = a->offset;
  for (int d = 0; d < g->ndim; d++) {
    v->shape[d] = g->shape[d];
    v->strides[d] = a->strides[d];
  }
}

/* The nodes that lead to the held outputs (p->held), and the kernel's
 * operands; views only when with_views (the group has arrays). */
static int plan_operands(const kiln_fusion_group *g, fused_plan *p, int *needed_nodes,
                         int with_views) {
  int value_needed[KILN_FUSION_MAX_ACCESSES];
  for (int o = 0; o < g->noutputs; o++) value_needed[o] = p->held[o];
  int count = 0;
  for (int n = g->nnodes - 1; n >= 0; n--) {
    const kiln_fusion_node *node = &g->nodes[n];
    int need = 0;
    for (int k = 0; k < node->ufunc->nout; k++) need |= value_needed[node->outputs[k]];
    needed_nodes[n] = need;
    count += need;
    for (int j = 0; need && j < node->ufunc->nin; j++)
      if (node->inputs[j].source == KILN_FUSION_VALUE) value_needed[node->inputs[j].index] = 1;
  }
  memset(&p->sig, 0, sizeof p->sig);
  p->slots.literal_scalars = 0;
  for (int e = 0; e < g->ninputs; e++) p->slots.input_slot[e] = -1;
  for (int s = 0; s < g->nscalars; s++) p->slots.scalar_slot[s] = -1;
  for (int n = 0; n < g->nnodes; n++) {
    if (!needed_nodes[n]) continue;
    const kiln_fusion_node *node = &g->nodes[n];
    for (int j = 0; j < node->ufunc->nin; j++) {
      const kiln_fusion_input *in = &node->inputs[j];
      if (in->source == KILN_FUSION_EXTERNAL && p->slots.input_slot[in->index] < 0) {
        p->slots.input_slot[in->index] = p->sig.ninputs;
        p->sig.dtypes[p->sig.ninputs++] = g->inputs[in->index].dtype;
      } else if (in->source == KILN_FUSION_SCALAR && p->slots.scalar_slot[in->index] < 0) {
        p->slots.scalar_slot[in->index] = p->sig.nscalars;
        p->scalars[p->sig.nscalars] = g->scalars[in->index];
        p->sig.scalar_dtypes[p->sig.nscalars++] = g->scalar_dtypes[in->index];
      }
    }
  }
  p->sig.noperands = p->sig.ninputs;
  for (int o = 0; o < g->noutputs; o++) {
    p->output_slot[o] = -1;
    if (!p->held[o]) continue;
    p->output_slot[o] = p->sig.noperands;
    p->sig.dtypes[p->sig.noperands++] = g->outputs[o].dtype;
  }
  if (!with_views) return count;
  /* views in operand order: inputs by slot, then outputs */
  for (int e = 0; e < g->ninputs; e++)
    if (p->slots.input_slot[e] >= 0) make_view(g, &g->inputs[e], &p->view_storage[p->slots.input_slot[e]]);
  for (int o = 0; o < g->noutputs; o++)
    if (p->output_slot[o] >= 0) make_view(g, &g->outputs[o], &p->view_storage[p->output_slot[o]]);
  for (int k = 0; k < p->sig.noperands; k++) p->views[k] = &p->view_storage[k];
  return count;
}

/* ---- the source ------------------------------------------------------------ */

/* The distinct (ufunc, signature) pairs of the needed nodes: pair[n] is
 * node n's, numbering the body functions kiln_fz<pair>_body. */
static int number_pairs(const kiln_fusion_group *g, const int *needed, int *pair) {
  int count = 0;
  for (int n = 0; n < g->nnodes; n++) {
    pair[n] = -1;
    if (!needed[n]) continue;
    for (int m = 0; m < n && pair[n] < 0; m++)
      if (needed[m] && g->nodes[m].ufunc == g->nodes[n].ufunc &&
          g->nodes[m].signature == g->nodes[n].signature)
        pair[n] = pair[m];
    if (pair[n] < 0) pair[n] = count++;
  }
  return count;
}

static void append_preamble(const kiln_fusion_group *g, const int *needed, const int *pair,
                            kiln_strbuf *b) {
  int written = -1;
  for (int n = 0; n < g->nnodes; n++) {
    if (!needed[n] || pair[n] <= written) continue;
    written = pair[n];
    const kiln_ufunc *u = g->nodes[n].ufunc;
    const kiln_ufunc_sig *s = &u->sigs[g->nodes[n].signature];
    kiln_strbuf_appendf(b, "/* fused node %d: ufunc '%s', signature %d: %s */\n", n, u->name,
                        g->nodes[n].signature, s->text);
    /* a ufunc's helpers once, also when two ufuncs share them */
    int seen = 0;
    for (int m = 0; m < n && u->preamble && !seen; m++)
      seen = needed[m] && g->nodes[m].ufunc->preamble &&
             strcmp(g->nodes[m].ufunc->preamble, u->preamble) == 0;
    if (u->preamble && !seen) {
      kiln_strbuf_append(b, u->preamble);
      kiln_strbuf_append(b, "\n");
    }
    char entry[32];
    snprintf(entry, sizeof entry, "kiln_fz%d", pair[n]);
    kiln_ufunc_append_body_function(u, s, entry, b);
  }
}

/* A scalar of the group as a literal of the kernel language (reductions
 * take no scalar arguments): exact hex floats for finite float32/float64,
 * the two's complement bits for integers; 0 for other dtypes. */
static int scalar_literal(kiln_dtype d, const unsigned char *bytes, char *out, size_t size) {
  if (d == KILN_FLOAT32) {
    float f;
    memcpy(&f, bytes, sizeof f);
    if (!isfinite(f)) return 0;
    snprintf(out, size, "(%af)", (double)f);
  } else if (d == KILN_FLOAT64) {
    double f;
    memcpy(&f, bytes, sizeof f);
    if (!isfinite(f)) return 0;
    snprintf(out, size, "(%a)", f);
  } else if (!kiln_dtype_is_float(d) && !kiln_dtype_is_complex(d)) { /* bool, integers */
    uint64_t u = 0;
    memcpy(&u, bytes, kiln_dtype_size(d)); /* little-endian hosts, as the kernel arguments */
    snprintf(out, size, "((%s)%lluULL)", kiln_dtype_kernel_type(d), (unsigned long long)u);
  } else {
    return 0;
  }
  return 1;
}

/* Node n as statements: the unfused kernel's call (ufunc_codegen.c's
 * append_loop_body) with its inputs from loads, registers or scalars and
 * its results into registers f<output>. */
static int append_node(const kiln_fusion_group *g, const kiln_fusion_slots *p, int n, int pair,
                       kiln_strbuf *b) {
  const kiln_fusion_node *node = &g->nodes[n];
  const kiln_ufunc *u = node->ufunc;
  const kiln_ufunc_sig *s = &u->sigs[node->signature];
  int nin = u->nin, nout = u->nout;
  char cast[1200], value[32], zero[64], stored[1300];
  for (int k = 0; k < nout; k++)
    kiln_strbuf_appendf(b, "    %s f%d;\n", kiln_ew_value_type(g->outputs[node->outputs[k]].dtype),
                        node->outputs[k]);
  kiln_strbuf_append(b, "    { ");
  for (int k = 0; k < nout; k++) {
    kiln_ew_zero_expression(s->dtypes[nin + k], zero, sizeof zero);
    kiln_strbuf_appendf(b, "%s kiln_r%d = %s; ", kiln_ew_value_type(s->dtypes[nin + k]), k, zero);
  }
  kiln_strbuf_appendf(b, "%skiln_fz%d_body(", s->returns_value ? "kiln_r0 = " : "", pair);
  for (int j = 0; j < nin; j++) {
    const kiln_fusion_input *in = &node->inputs[j];
    if (in->source == KILN_FUSION_SCALAR && p->literal_scalars) {
      if (!scalar_literal(g->scalar_dtypes[in->index], g->scalars[in->index], cast, sizeof cast))
        return 0;
    } else if (in->source == KILN_FUSION_SCALAR) {
      snprintf(value, sizeof value, "s%d", p->scalar_slot[in->index]);
      kiln_ew_load_expression(s->dtypes[j], value, cast, sizeof cast);
    } else {
      kiln_dtype from;
      if (in->source == KILN_FUSION_EXTERNAL) {
        snprintf(value, sizeof value, "v%d", p->input_slot[in->index]);
        from = g->inputs[in->index].dtype;
      } else {
        snprintf(value, sizeof value, "f%d", in->index);
        from = g->outputs[in->index].dtype;
      }
      kiln_ew_cast_expression(from, s->dtypes[j], value, cast, sizeof cast);
    }
    kiln_strbuf_appendf(b, "%s%s", j ? ", " : "", cast);
  }
  if (!s->returns_value)
    for (int k = 0; k < nout; k++) kiln_strbuf_appendf(b, ", &kiln_r%d", k);
  kiln_strbuf_append(b, ");\n");
  for (int k = 0; k < nout; k++) {
    int o = node->outputs[k];
    kiln_dtype to = g->outputs[o].dtype;
    snprintf(value, sizeof value, "kiln_r%d", k);
    kiln_ew_cast_expression(s->dtypes[nin + k], to, value, cast, sizeof cast);
    if (to == KILN_FLOAT16) { /* the value a store and a load give */
      kiln_ew_store_expression(to, cast, stored, sizeof stored);
      kiln_ew_load_expression(to, stored, cast, sizeof cast);
    }
    kiln_strbuf_appendf(b, "      f%d = %s;\n", o, cast);
  }
  kiln_strbuf_append(b, "    }\n");
  return 1;
}

int kiln_fusion_chain_source(const kiln_fusion_group *g, const int *needed,
                             const kiln_fusion_slots *slots, kiln_strbuf *functions,
                             kiln_strbuf *body) {
  int pair[1024];
  int *pairs = g->nnodes <= 1024 ? pair : malloc((size_t)g->nnodes * sizeof *pairs);
  if (!pairs) {
    functions->failed = 1;
    return 1;
  }
  number_pairs(g, needed, pairs);
  append_preamble(g, needed, pairs, functions);
  int ok = 1;
  for (int n = 0; n < g->nnodes && ok; n++)
    if (needed[n]) ok = append_node(g, slots, n, pairs[n], body);
  if (pairs != pair) free(pairs);
  return ok;
}

/* Elements per trip of a fused kernel's loop on GPUs: a fused body is long
 * (it is several calls' bodies), so each work-item loads this many
 * elements before it computes (kiln_ew_source_batched; docs/fusion.md,
 * "Speed"). Strided layouts keep every operand's 64-bit offset of every
 * element of the trip in registers: 2 there (ptxas, sm_90: the strided
 * float16 sample of fusion_catalog.c takes 95 registers at 4, 64 at 2; the
 * contiguous hidden layer 32 at 4, as many as unbatched). */
#define KILN_FUSION_BATCH(ndim) ((ndim) == 0 ? 4 : 2)

/* KILN_FUSION_BATCH=<k> (1..8; read once per process) sets the elements per
 * trip for every layout instead, to measure the choice on a GPU
 * (docs/environment.md); 0 when unset or out of range. */
static int batch_override = 0;
static pthread_once_t batch_once = PTHREAD_ONCE_INIT;

static void batch_read(void) {
  const char *v = getenv("KILN_FUSION_BATCH");
  int k = v ? atoi(v) : 0;
  batch_override = k >= 1 && k <= 8 ? k : 0;
}

static int fused_batch(int ndim) {
  pthread_once(&batch_once, batch_read);
  return batch_override ? batch_override : KILN_FUSION_BATCH(ndim);
}

static void append_source(const kiln_fusion_group *g, const fused_plan *p, const int *needed,
                          int ndim, kiln_strbuf *out) {
  kiln_strbuf preamble = {0}, body = {0};
  kiln_strbuf_append(&body, "\n");
  kiln_fusion_chain_source(g, needed, &p->slots, &preamble, &body);
  for (int o = 0; o < g->noutputs; o++)
    if (p->output_slot[o] >= 0) kiln_strbuf_appendf(&body, "    v%d = f%d;\n", p->output_slot[o], o);
  kiln_strbuf_append(&body, "   ");
  if (preamble.failed || body.failed) out->failed = 1;
  else
    kiln_ew_source_batched(&p->sig, ndim, "kiln_fused", preamble.data, body.data,
                           fused_batch(ndim), out);
  kiln_strbuf_free(&preamble);
  kiln_strbuf_free(&body);
}

/* ---- running ---------------------------------------------------------------- */

/* "add -> multiply -> tanh (2 inputs, 1 stored, 2 kept)" for the log. */
static void log_group(const kiln_fusion_group *g, const fused_plan *p, const int *needed,
                      const char *how) {
  if (!kiln_log_enabled(KILN_LOG_DEBUG)) return;
  kiln_strbuf b = {0};
  int kept = 0, count = 0;
  for (int n = 0; n < g->nnodes; n++) {
    if (!needed[n]) continue;
    kiln_strbuf_appendf(&b, "%s%s", count++ ? " -> " : "", g->nodes[n].ufunc->name);
  }
  for (int o = 0; o < g->noutputs; o++) kept += !p->held[o];
  char shape[256];
  kiln_ufunc_format_shape(g->ndim, g->shape, shape, sizeof shape);
  kiln_log(KILN_LOG_DEBUG, "fusion: %s %d of %d recorded calls over %s: %s (%d inputs read, %d "
           "outputs written, %d kept in registers)", how, count, g->nnodes,
           shape, b.data ? b.data : "", p->sig.ninputs, p->sig.noperands - p->sig.ninputs, kept);
  kiln_strbuf_free(&b);
}

/* Node by node, each with its own ufunc kernel (all of a needed node's
 * outputs written: no registers between kernels). */
static kiln_status run_unfused(const kiln_fusion_group *g, const int *needed,
                               kiln_stream *stream) {
  kiln_ufunc_plan *plan = malloc(sizeof *plan);
  if (!plan) return kiln_error_set(KILN_ERROR_OUT_OF_MEMORY, "out of host memory");
  kiln_status status = KILN_OK;
  uint64_t ran = 0;
  for (int n = 0; n < g->nnodes && status == KILN_OK; n++) {
    if (!needed[n]) continue;
    const kiln_fusion_node *node = &g->nodes[n];
    kiln_ufunc *u = node->ufunc;
    kiln_array storage[KILN_UFUNC_MAX_OPERANDS];
    const kiln_array *views[KILN_UFUNC_MAX_OPERANDS];
    int nviews = 0;
    plan->signature = node->signature;
    plan->nin = u->nin;
    plan->nout = u->nout;
    plan->nscalars = 0;
    for (int j = 0; j < u->nin + u->nout; j++) {
      kiln_ufunc_operand_plan *op = &plan->operands[j];
      const kiln_fusion_access *a = NULL;
      if (j >= u->nin) a = &g->outputs[node->outputs[j - u->nin]];
      else if (node->inputs[j].source == KILN_FUSION_EXTERNAL) a = &g->inputs[node->inputs[j].index];
      else if (node->inputs[j].source == KILN_FUSION_VALUE) a = &g->outputs[node->inputs[j].index];
      if (!a) {
        int s = node->inputs[j].index;
        op->where = KILN_UFUNC_BY_VALUE;
        op->dtype = g->scalar_dtypes[s];
        op->scalar = plan->nscalars;
        plan->scalar_dtypes[plan->nscalars] = g->scalar_dtypes[s];
        memcpy(plan->scalars[plan->nscalars++], g->scalars[s], KILN_SCALAR_BYTES);
        continue;
      }
      op->where = KILN_UFUNC_DEVICE;
      op->dtype = a->dtype;
      make_view(g, a, &storage[nviews]);
      views[nviews] = &storage[nviews];
      nviews++;
    }
    status = kiln_ufunc_launch(u, plan, views, stream);
    ran++;
  }
  free(plan);
  kiln_fusion_count(0, 0, ran, 0, 0);
  return status;
}

static kiln_status run_fused(const kiln_fusion_group *g, fused_plan *p, const int *needed,
                             int count, kiln_stream *stream) {
  kiln_ew_layout layout;
  KILN_RETURN_IF_ERROR(kiln_ew_layout_plan(p->sig.noperands, p->views, &layout));
  kiln_strbuf source = {0};
  append_source(g, p, needed, layout.ndim, &source);
  kiln_status status = kiln_strbuf_status(&source);
  const kiln_program *program = NULL;
  if (status == KILN_OK) {
    kiln_program *compiled = NULL;
    status = kiln_program_get(g->ctx, source.data, KILN_UFUNC_OPTIONS, "kiln_fused", &compiled);
    program = compiled; /* KILN_LOG=debug: the cache prints the source it compiles */
  }
  kiln_strbuf_free(&source);
  if (status == KILN_ERROR_COMPILE) {
    /* e.g. two ufuncs' helpers of one name: each compiles on its own */
    kiln_log(KILN_LOG_DEBUG, "fusion: the fused kernel does not compile; running the calls "
             "one by one: %s", kiln_last_error());
    log_group(g, p, needed, "ran unfused");
    return run_unfused(g, needed, stream);
  }
  KILN_RETURN_IF_ERROR(status);
  log_group(g, p, needed, "fused");
  for (int k = 0; k < p->sig.noperands; k++)
    KILN_RETURN_IF_ERROR(kiln_buffer_use_on_stream(p->views[k]->buffer, stream));
  KILN_RETURN_IF_ERROR(kiln_ew_launch(g->ctx, stream, program, &p->sig, &layout, p->scalars));
  uint64_t kept = 0;
  for (int o = 0; o < g->noutputs; o++) kept += !p->held[o];
  kiln_fusion_count(1, (uint64_t)count, 0, (uint64_t)(p->sig.noperands - p->sig.ninputs), kept);
  return KILN_OK;
}

kiln_status kiln_fusion_group_run(kiln_fusion_group *g, kiln_stream *stream) {
  if (g->nnodes == 0) return KILN_OK;
  kiln_status status = KILN_OK;
  fused_plan *p = malloc(sizeof *p);
  int *needed = malloc((size_t)g->nnodes * sizeof *needed);
  if (!p || !needed) {
    status = kiln_error_set(KILN_ERROR_OUT_OF_MEMORY, "out of host memory");
  } else {
    for (int o = 0; o < g->noutputs; o++) {
      const kiln_array *a = g->outputs[o].array;
      p->held[o] = atomic_load(&a->refcount) > 1 || atomic_load(&a->buffer->refcount) > 1;
    }
    int count = plan_operands(g, p, needed, 1);
    if (count > 0) status = run_fused(g, p, needed, count, stream);
    else log_group(g, p, needed, "dropped (nothing held)");
  }
  free(p);
  free(needed);
  kiln_fusion_group_clear(g);
  return status;
}

kiln_status kiln_fusion_group_source(const kiln_fusion_group *g, const int *held, int ndim,
                                     kiln_strbuf *out) {
  fused_plan *p = malloc(sizeof *p);
  int *needed = malloc((size_t)(g->nnodes ? g->nnodes : 1) * sizeof *needed);
  kiln_status status = KILN_OK;
  if (!p || !needed) {
    status = kiln_error_set(KILN_ERROR_OUT_OF_MEMORY, "out of host memory");
  } else {
    memcpy(p->held, held, (size_t)g->noutputs * sizeof *held);
    plan_operands(g, p, needed, 0);
    append_source(g, p, needed, ndim, out);
    status = kiln_strbuf_status(out);
  }
  free(p);
  free(needed);
  return status;
}
