/* core/fusion/fusion_record.c: fusion scopes and the recording of ufunc calls
 * into their stream's group.
 *
 * The ufunc layer knows nothing of fusion: on the first kiln_fusion_begin
 * this file sets two hooks below it, the ufunc recorder (a checked device
 * call is handed here instead of launched) and the stream barrier (work
 * about to be queued on a stream, or a host read, runs the recorded group
 * first). While no scope is open, both cost one atomic load.
 *
 * One mutex guards every scope: recording is a few comparisons and
 * appends, and a group runs under it (a barrier from another thread waits
 * for that run rather than race with it). The thread running a group marks
 * itself, so the launches the run makes pass their own barrier. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/fusion/fusion_internal.h"
#include "core/runtime/stream_internal.h"

typedef struct fusion_scope {
  kiln_context *ctx;
  kiln_stream *stream;
  int enabled; /* 0 under KILN_FUSION=0: the scope records nothing */
  kiln_fusion_group group;
  struct fusion_scope *next;
} fusion_scope;

static pthread_mutex_t scopes_lock = PTHREAD_MUTEX_INITIALIZER;
static fusion_scope *scopes;       /* under scopes_lock */
static atomic_int open_scopes;     /* enabled ones: the hooks' fast test */
static _Thread_local int running;  /* this thread is running a group */
static pthread_once_t hooks_once = PTHREAD_ONCE_INIT;

static fusion_scope *find(kiln_context *ctx, kiln_stream *stream) {
  for (fusion_scope *s = scopes; s; s = s->next)
    if (s->ctx == ctx && s->stream == stream) return s;
  return NULL;
}

static kiln_status run_group(fusion_scope *s) {
  running++;
  kiln_status status = kiln_fusion_group_run(&s->group, s->stream);
  running--;
  return status;
}

/* ---- recording ------------------------------------------------------------- */

/* Strides that step through the same elements of `shape` (a dim of extent
 * 1 has any stride: a NEW output's is its itemsize, the same array read
 * back as an input has 0). */
static int same_strides(const int64_t *a, const int64_t *b, const int64_t *shape, int ndim) {
  for (int d = 0; d < ndim; d++)
    if (shape[d] > 1 && a[d] != b[d]) return 0;
  return 1;
}

static int same_access(const kiln_fusion_access *a, const kiln_array *array, kiln_dtype dtype,
                       int64_t offset, const int64_t *strides, const int64_t *shape, int ndim) {
  return a->array->buffer == array->buffer && a->dtype == dtype && a->offset == offset &&
         same_strides(a->strides, strides, shape, ndim);
}

/* Where node inputs and outputs go, decided before anything is changed. */
typedef struct node_plan {
  kiln_fusion_node node;
  int new_inputs, new_outputs, new_scalars;
  int input_of[KILN_UFUNC_MAX_OPERANDS]; /* new external: the plan operand */
} node_plan;

/* Fills *p for the call on group g; 0 when it cannot join g: another
 * shape, too many operands or scalars for one kernel, or a buffer that g
 * writes and the call reads or writes other than element for element (or
 * the reverse), which one kernel could not order. */
static int place(const kiln_fusion_group *g, kiln_ufunc *u, const kiln_ufunc_plan *plan,
                 node_plan *p) {
  if (g->nnodes > 0 && (plan->ndim != g->ndim ||
                        memcmp(plan->shape, g->shape, (size_t)g->ndim * sizeof *g->shape) != 0))
    return 0;
  memset(p, 0, sizeof *p);
  p->node.ufunc = u;
  p->node.signature = plan->signature;
  int ndim = plan->ndim;
  for (int j = 0; j < u->nin; j++) {
    const kiln_ufunc_operand_plan *op = &plan->operands[j];
    kiln_fusion_input *in = &p->node.inputs[j];
    if (op->where == KILN_UFUNC_BY_VALUE) {
      kiln_dtype d = plan->scalar_dtypes[op->scalar];
      size_t bytes = kiln_dtype_size(d);
      in->source = KILN_FUSION_SCALAR;
      in->index = -1;
      for (int s = 0; s < g->nscalars && in->index < 0; s++)
        if (g->scalar_dtypes[s] == d && memcmp(g->scalars[s], plan->scalars[op->scalar], bytes) == 0)
          in->index = s;
      if (in->index < 0) in->index = g->nscalars + p->new_scalars++;
      continue;
    }
    const kiln_array *a = op->array;
    in->source = 0;
    for (int o = g->noutputs - 1; o >= 0 && !in->source; o--) {
      if (g->outputs[o].array->buffer != a->buffer) continue;
      if (!same_access(&g->outputs[o], a, op->dtype, op->offset, op->strides, plan->shape, ndim)) return 0;
      in->source = KILN_FUSION_VALUE;
      in->index = o;
    }
    for (int e = 0; e < g->ninputs && !in->source; e++)
      if (same_access(&g->inputs[e], a, op->dtype, op->offset, op->strides, plan->shape, ndim)) {
        in->source = KILN_FUSION_EXTERNAL;
        in->index = e;
      }
    for (int e = 0; e < j && !in->source; e++) /* the same operand twice in this call */
      if (p->node.inputs[e].source == KILN_FUSION_EXTERNAL &&
          p->node.inputs[e].index >= g->ninputs) {
        const kiln_ufunc_operand_plan *other = &plan->operands[e];
        if (other->array->buffer == a->buffer && other->dtype == op->dtype &&
            other->offset == op->offset &&
            same_strides(other->strides, op->strides, plan->shape, ndim))
          *in = p->node.inputs[e];
      }
    if (!in->source) {
      in->source = KILN_FUSION_EXTERNAL;
      in->index = g->ninputs + p->new_inputs;
      p->input_of[p->new_inputs++] = j;
    }
  }
  for (int k = 0; k < u->nout; k++) {
    const kiln_ufunc_operand_plan *op = &plan->operands[u->nin + k];
    const kiln_array *a = op->array;
    for (int o = 0; o < g->noutputs; o++)
      if (g->outputs[o].array->buffer == a->buffer &&
          !same_access(&g->outputs[o], a, op->dtype, op->offset, op->strides, plan->shape, ndim))
        return 0;
    for (int e = 0; e < g->ninputs; e++)
      if (g->inputs[e].array->buffer == a->buffer &&
          !same_access(&g->inputs[e], a, op->dtype, op->offset, op->strides, plan->shape, ndim))
        return 0;
    for (int n = 0; n < p->new_inputs; n++) {
      const kiln_ufunc_operand_plan *in = &plan->operands[p->input_of[n]];
      if (in->array->buffer == a->buffer &&
          (in->offset != op->offset ||
           !same_strides(in->strides, op->strides, plan->shape, ndim)))
        return 0;
    }
    p->node.outputs[k] = g->noutputs + p->new_outputs++;
  }
  return g->ninputs + p->new_inputs + g->noutputs + p->new_outputs <= KILN_FUSION_MAX_ACCESSES &&
         g->nscalars + p->new_scalars <= KILN_EW_MAX_SCALARS;
}

static void set_access(kiln_fusion_access *a, const kiln_ufunc_operand_plan *op, int ndim) {
  a->array = kiln_array_retain((kiln_array *)op->array);
  a->dtype = op->dtype;
  a->offset = op->offset;
  memcpy(a->strides, op->strides, (size_t)ndim * sizeof *op->strides);
}

/* Appends the placed call to g (empty or the call's shape). */
static kiln_status append(kiln_fusion_group *g, const kiln_ufunc_plan *plan, const node_plan *p) {
  if (g->nnodes == g->node_capacity) {
    int capacity = g->node_capacity ? 2 * g->node_capacity : 8;
    kiln_fusion_node *grown = realloc(g->nodes, (size_t)capacity * sizeof *grown);
    if (!grown) return kiln_error_set(KILN_ERROR_OUT_OF_MEMORY, "out of host memory");
    g->nodes = grown;
    g->node_capacity = capacity;
  }
  kiln_ufunc *u = p->node.ufunc;
  if (g->nnodes == 0) {
    g->ctx = u->ctx;
    g->ndim = plan->ndim;
    memcpy(g->shape, plan->shape, sizeof g->shape);
    g->size = plan->size;
  }
  for (int n = 0; n < p->new_inputs; n++)
    set_access(&g->inputs[g->ninputs++], &plan->operands[p->input_of[n]], plan->ndim);
  for (int k = 0; k < u->nout; k++) {
    g->producer[g->noutputs] = g->nnodes;
    set_access(&g->outputs[g->noutputs++], &plan->operands[u->nin + k], plan->ndim);
  }
  for (int j = 0; j < u->nin; j++) {
    const kiln_ufunc_operand_plan *op = &plan->operands[j];
    if (op->where != KILN_UFUNC_BY_VALUE || p->node.inputs[j].index < g->nscalars) continue;
    g->scalar_dtypes[g->nscalars] = plan->scalar_dtypes[op->scalar];
    memcpy(g->scalars[g->nscalars++], plan->scalars[op->scalar], KILN_SCALAR_BYTES);
  }
  g->nodes[g->nnodes] = p->node;
  g->nodes[g->nnodes++].ufunc = kiln_ufunc_retain(u);
  kiln_fusion_count_recorded();
  return KILN_OK;
}

/* The ufunc recorder (kiln_ufunc_set_recorder). */
static int record(kiln_ufunc *u, const kiln_ufunc_plan *plan, kiln_stream *stream,
                  kiln_status *status) {
  if (atomic_load_explicit(&open_scopes, memory_order_acquire) == 0 || running) return 0;
  if (plan->size == 0) return 0; /* nothing runs anyway */
  node_plan p;
  int taken = 0;
  *status = KILN_OK;
  pthread_mutex_lock(&scopes_lock);
  fusion_scope *s = find(u->ctx, stream);
  if (s && s->enabled) {
    if (place(&s->group, u, plan, &p)) {
      taken = 1;
    } else if (s->group.nnodes > 0) {
      /* the call starts a new group, after the one recorded so far */
      *status = run_group(s);
      taken = *status != KILN_OK || place(&s->group, u, plan, &p);
    }
    if (taken && *status == KILN_OK) *status = append(&s->group, plan, &p);
  }
  pthread_mutex_unlock(&scopes_lock);
  return taken;
}

/* The stream barrier (kiln_stream_set_barrier): work queued on `stream`
 * runs that stream's group first, and the default stream's (which other
 * streams may wait for); work on the default stream, or a host read, runs
 * every group of the context. */
static kiln_status barrier(kiln_context *ctx, kiln_stream *stream) {
  if (atomic_load_explicit(&open_scopes, memory_order_acquire) == 0 || running) return KILN_OK;
  kiln_status status = KILN_OK;
  pthread_mutex_lock(&scopes_lock);
  for (fusion_scope *s = scopes; s; s = s->next) {
    if (s->ctx != ctx || s->group.nnodes == 0) continue;
    if (stream && s->stream != stream && s->stream != NULL) continue;
    kiln_status ran = run_group(s);
    if (status == KILN_OK) status = ran;
  }
  pthread_mutex_unlock(&scopes_lock);
  return status;
}

/* The reduction folder (kiln_rt_set_folder): a reduction on a stream with
 * a recorded group may fold the group's chain into its map step. */
static int fold(kiln_context *ctx, kiln_stream *stream, const kiln_rt_spec *spec, int nkeep,
                int nred, const kiln_array *const *inputs, const kiln_array *out,
                int work_group_size, kiln_rt_scratch *scratch, kiln_status *status) {
  if (atomic_load_explicit(&open_scopes, memory_order_acquire) == 0 || running) return 0;
  int folded = 0;
  pthread_mutex_lock(&scopes_lock);
  fusion_scope *s = find(ctx, stream);
  if (s && s->enabled && s->group.nnodes > 0) {
    running++;
    folded = kiln_fusion_group_fold(&s->group, stream, spec, nkeep, nred, inputs, out,
                                    work_group_size, scratch, status);
    running--;
  }
  pthread_mutex_unlock(&scopes_lock);
  return folded;
}

/* The recorder's cheap test (kiln_ufunc_set_recorder): record() takes
 * nothing while no scope is open or this thread runs a group. */
static int recording(void) {
  return atomic_load_explicit(&open_scopes, memory_order_acquire) != 0 && !running;
}

static void install_hooks(void) {
  kiln_ufunc_set_recorder(record, recording);
  kiln_stream_set_barrier(barrier);
  kiln_rt_set_folder(fold);
}

/* ---- public ---------------------------------------------------------------- */

static int fusion_enabled(void) {
  const char *v = getenv("KILN_FUSION");
  return !(v && strcmp(v, "0") == 0);
}

kiln_status kiln_fusion_begin(kiln_context *ctx, kiln_stream *stream) {
  KILN_CHECK_ARG(ctx);
  kiln_backend_stream *backend_stream = NULL;
  KILN_RETURN_IF_ERROR(kiln_stream_backend(ctx, stream, &backend_stream)); /* its context */
  pthread_once(&hooks_once, install_hooks);
  fusion_scope *s = calloc(1, sizeof *s);
  if (!s) return kiln_error_set(KILN_ERROR_OUT_OF_MEMORY, "out of host memory");
  s->ctx = ctx;
  s->stream = stream;
  s->enabled = fusion_enabled();
  pthread_mutex_lock(&scopes_lock);
  int open = find(ctx, stream) != NULL;
  if (!open) {
    s->next = scopes;
    scopes = s;
    if (s->enabled) atomic_fetch_add(&open_scopes, 1);
  }
  pthread_mutex_unlock(&scopes_lock);
  if (!open) return KILN_OK;
  free(s);
  return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                        "kiln_fusion_begin: a fusion scope is already open on this stream "
                        "(scopes do not nest)");
}

kiln_status kiln_fusion_end(kiln_context *ctx, kiln_stream *stream) {
  KILN_CHECK_ARG(ctx);
  kiln_status status = KILN_OK;
  pthread_mutex_lock(&scopes_lock);
  fusion_scope **link = &scopes;
  while (*link && !((*link)->ctx == ctx && (*link)->stream == stream)) link = &(*link)->next;
  fusion_scope *s = *link;
  if (s) {
    status = run_group(s);
    *link = s->next;
    if (s->enabled) atomic_fetch_sub(&open_scopes, 1);
  }
  pthread_mutex_unlock(&scopes_lock);
  if (!s)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "kiln_fusion_end: no fusion scope is open on this stream (end "
                          "without begin, or twice)");
  kiln_fusion_group_clear(&s->group);
  free(s->group.nodes);
  free(s);
  return status;
}
