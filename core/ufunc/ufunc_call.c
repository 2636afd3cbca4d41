/* core/ufunc/ufunc_call.c: a ufunc call: operand checks, dispatch, broadcasting,
 * output allocation, and the device path (one launch over views of the
 * operands, no copies). Calls with host operands continue in
 * ufunc_host.c.
 *
 * The device path is what a tiny call costs, so it allocates nothing when
 * the outputs are given: views are kiln_array structs on the stack that
 * borrow the operands' buffers for the launch. */
#include <stdio.h>
#include <string.h>

#include "core/ufunc/ufunc_internal.h"

static _Atomic(kiln_ufunc_recorder) recorder;
static _Atomic(kiln_ufunc_recording) recording;

void kiln_ufunc_set_recorder(kiln_ufunc_recorder r, kiln_ufunc_recording is_recording) {
  atomic_store(&recording, is_recording); /* before the recorder that needs it */
  atomic_store(&recorder, r);
}

/* Whether a recorder may take this thread's calls now (then a call needs
 * the full plan). */
static int may_record(void) {
  if (!atomic_load_explicit(&recorder, memory_order_acquire)) return 0;
  kiln_ufunc_recording is = atomic_load_explicit(&recording, memory_order_acquire);
  return !is || is();
}

void kiln_ufunc_format_shape(int ndim, const int64_t *shape, char *out, size_t size) {
  size_t used = (size_t)snprintf(out, size, "(");
  for (int d = 0; d < ndim && used < size; d++)
    used += (size_t)snprintf(out + used, size - used, "%s%lld", d ? ", " : "",
                             (long long)shape[d]);
  if (used < size) snprintf(out + used, size - used, ndim == 1 ? ",)" : ")");
}

static const char *role(int output) { return output ? "output" : "input"; }

kiln_status kiln_ufunc_check_operand(const kiln_ufunc *u, int output, int index,
                                     const kiln_operand *o) {
  switch (o->kind) {
    case KILN_OPERAND_ARRAY:
      if (!o->value.array)
        return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "ufunc '%s': %s %d is a NULL array",
                              u->name, role(output), index);
      if (kiln_array_context(o->value.array) != u->ctx)
        return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                              "ufunc '%s': %s %d is an array of another context", u->name,
                              role(output), index);
      return KILN_OK;
    case KILN_OPERAND_HOST: {
      if (kiln_dtype_size(o->dtype) == 0)
        return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                              "ufunc '%s': %s %d has an unknown dtype (%d)", u->name,
                              role(output), index, (int)o->dtype);
      if (o->value.host.ndim < 0 || o->value.host.ndim > KILN_MAX_DIMS ||
          (o->value.host.ndim > 0 && !o->value.host.shape))
        return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                              "ufunc '%s': %s %d has ndim %d (0..%d) or a NULL shape",
                              u->name, role(output), index, o->value.host.ndim, KILN_MAX_DIMS);
      int64_t size = 0;
      kiln_status status = kiln_shape_validate(o->dtype, o->value.host.ndim,
                                               o->value.host.shape, &size);
      if (status != KILN_OK)
        return kiln_error_prefix(status, "ufunc '%s': %s %d", u->name, role(output), index);
      if (size > 0 && !o->value.host.data)
        return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                              "ufunc '%s': %s %d is host memory at NULL", u->name,
                              role(output), index);
      if (output && size > 0 && !o->value.host.writable)
        return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                              "ufunc '%s': output %d is read-only host memory (make it with "
                              "kiln_operand_host_output)",
                              u->name, index);
      return KILN_OK;
    }
    case KILN_OPERAND_SCALAR:
    case KILN_OPERAND_WEAK_SCALAR:
      if (output)
        return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                              "ufunc '%s': output %d is a scalar; outputs are arrays, host "
                              "memory or kiln_operand_new()",
                              u->name, index);
      if (kiln_dtype_size(o->dtype) == 0 ||
          (o->kind == KILN_OPERAND_WEAK_SCALAR && o->dtype != KILN_INT64 &&
           o->dtype != KILN_FLOAT64 && o->dtype != KILN_COMPLEX128))
        return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                              "ufunc '%s': input %d is a scalar of unknown dtype (%d)",
                              u->name, index, (int)o->dtype);
      return KILN_OK;
    case KILN_OPERAND_NEW:
      if (!output)
        return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                              "ufunc '%s': input %d is kiln_operand_new(), which only "
                              "outputs can be",
                              u->name, index);
      if (!o->value.result)
        return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                              "ufunc '%s': output %d: kiln_operand_new(NULL)", u->name, index);
      return KILN_OK;
  }
  return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "ufunc '%s': %s %d has unknown kind %d",
                        u->name, role(output), index, (int)o->kind);
}

/* The operand's own geometry; 0 for scalars and NEW outputs. */
static int own_geometry(const kiln_operand *o, int *ndim, const int64_t **shape,
                        int64_t strides[KILN_MAX_DIMS]) {
  if (o->kind == KILN_OPERAND_ARRAY) {
    *ndim = kiln_array_ndim(o->value.array);
    *shape = kiln_array_shape(o->value.array);
    memcpy(strides, kiln_array_strides(o->value.array), (size_t)*ndim * sizeof *strides);
    return 1;
  }
  if (o->kind == KILN_OPERAND_HOST) {
    *ndim = o->value.host.ndim;
    *shape = o->value.host.shape;
    if (o->value.host.strides)
      memcpy(strides, o->value.host.strides, (size_t)*ndim * sizeof *strides);
    else
      kiln_shape_c_strides(*ndim, *shape, (int64_t)kiln_dtype_size(o->dtype), strides);
    return 1;
  }
  return 0;
}

static kiln_status broadcast_error(const kiln_ufunc *u, const kiln_operand *inputs,
                                   const kiln_operand *outputs) {
  kiln_strbuf b = {0};
  kiln_strbuf_appendf(&b, "ufunc '%s': operands could not be broadcast together with shapes",
                      u->name);
  int64_t scratch[KILN_MAX_DIMS];
  for (int j = 0; j < u->nin + u->nout; j++) {
    const kiln_operand *o = j < u->nin ? &inputs[j] : &outputs[j - u->nin];
    int ndim;
    const int64_t *shape;
    if (!own_geometry(o, &ndim, &shape, scratch)) continue;
    char text[256];
    kiln_ufunc_format_shape(ndim, shape, text, sizeof text);
    kiln_strbuf_appendf(&b, " %s %d %s", role(j >= u->nin), j < u->nin ? j : j - u->nin, text);
  }
  kiln_status status = kiln_strbuf_status(&b);
  if (status == KILN_OK) status = kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "%s", b.data);
  kiln_strbuf_free(&b);
  return status;
}

kiln_status kiln_ufunc_broadcast(const kiln_ufunc *u, const kiln_operand *inputs,
                                 const kiln_operand *outputs, const int *core_ndim,
                                 kiln_ufunc_plan *plan) {
  int noperands = u->nin + u->nout;
  int ndim = 0;
  int has[KILN_UFUNC_MAX_OPERANDS];
  for (int j = 0; j < noperands; j++) {
    const kiln_operand *o = j < u->nin ? &inputs[j] : &outputs[j - u->nin];
    kiln_ufunc_operand_plan *op = &plan->operands[j];
    has[j] = own_geometry(o, &op->own_ndim, &op->own_shape, op->own_strides);
    if (!has[j]) op->own_ndim = 0, op->own_shape = NULL;
    if (has[j] && core_ndim) op->own_ndim -= core_ndim[j]; /* the loop dims lead */
    if (has[j] && op->own_ndim > ndim) ndim = op->own_ndim;
  }
  plan->ndim = ndim;
  plan->size = 1;
  for (int d = 0; d < ndim; d++) {
    int64_t extent = 1;
    for (int j = 0; j < noperands; j++) {
      const kiln_ufunc_operand_plan *op = &plan->operands[j];
      int own = d - (ndim - op->own_ndim);
      if (!has[j] || own < 0 || op->own_shape[own] == 1) continue;
      if (extent != 1 && op->own_shape[own] != extent) return broadcast_error(u, inputs, outputs);
      extent = op->own_shape[own];
    }
    plan->shape[d] = extent;
    plan->size *= extent;
  }
  for (int j = 0; j < noperands; j++) {
    kiln_ufunc_operand_plan *op = &plan->operands[j];
    if (!has[j]) continue;
    for (int d = 0; d < ndim; d++) {
      int own = d - (ndim - op->own_ndim);
      op->strides[d] = own < 0 || op->own_shape[own] == 1 ? 0 : op->own_strides[own];
    }
    if (j < u->nin) continue;
    int k = j - u->nin;
    char want[256], have[256];
    int same = op->own_ndim == ndim;
    for (int d = 0; same && d < ndim; d++) same = op->own_shape[d] == plan->shape[d];
    if (!same) {
      kiln_ufunc_format_shape(ndim, plan->shape, want, sizeof want);
      kiln_ufunc_format_shape(op->own_ndim, op->own_shape, have, sizeof have);
      return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                            "ufunc '%s': output %d has shape %s, the operands broadcast to %s",
                            u->name, k, have, want);
    }
    for (int d = 0; d < ndim; d++)
      if (plan->shape[d] > 1 && op->own_strides[d] == 0)
        return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                              "ufunc '%s': output %d has stride 0 along dim %d of extent %lld: "
                              "a broadcast view cannot be written",
                              u->name, k, d, (long long)plan->shape[d]);
  }
  return KILN_OK;
}

/* Launches the plan's signature over `views`: one array of the broadcast
 * (or chunk) shape per non-BY_VALUE operand, in operand order, all of one
 * shape. Nothing runs for an empty shape. With `entry` (the repeat-call
 * cache's, ufunc_call_cache.c) the launch is prepared there and goes
 * through it, so a repeat call finds it ready; *prepared says whether it
 * was. */
static kiln_status launch_planned(kiln_ufunc *u, const kiln_ufunc_plan *plan,
                                  const kiln_array *const *views, kiln_stream *stream,
                                  kiln_ufunc_cache_entry *entry, int *prepared) {
  int noperands = u->nin + u->nout - plan->nscalars;
  if (views[0]->size == 0) return KILN_OK;
  /* the memory pool's stream rule (kiln/memory.h) */
  for (int j = 0; j < noperands; j++)
    KILN_RETURN_IF_ERROR(kiln_buffer_use_on_stream(views[j]->buffer, stream));
  kiln_ew_layout layout;
  KILN_RETURN_IF_ERROR(kiln_ew_layout_plan(noperands, views, &layout));
  kiln_ufunc_variant_key key;
  memset(&key, 0xff, sizeof key);
  key.signature = (int16_t)plan->signature;
  key.ndim = (int8_t)layout.ndim;
  for (int j = 0; j < u->nin + u->nout; j++)
    key.operands[j] = plan->operands[j].where == KILN_UFUNC_BY_VALUE
                          ? KILN_UFUNC_SCALAR_SLOT
                          : (uint8_t)plan->operands[j].dtype;
  const kiln_program *program = NULL;
  KILN_RETURN_IF_ERROR(kiln_ufunc_variant_get(u, &key, &program));
  kiln_ew_signature sig;
  kiln_ufunc_ew_signature(u, &key, &sig);
  kiln_ew_prepared *p = kiln_ufunc_cache_launch(entry);
  if (p && kiln_ew_prepare(u->ctx, program, &sig, &layout, p)) {
    *prepared = 1;
    for (int k = 0; k < noperands; k++)
      kiln_ew_prepared_operand(p, k, layout.buffers[k], layout.offsets[k]);
    for (int s = 0; s < plan->nscalars; s++)
      memcpy(p->scalars[s], plan->scalars[s], KILN_SCALAR_BYTES);
    return kiln_ew_launch_prepared(u->ctx, stream, p);
  }
  const void *scalars[KILN_EW_MAX_SCALARS];
  for (int s = 0; s < plan->nscalars; s++) scalars[s] = plan->scalars[s];
  return kiln_ew_launch(u->ctx, stream, program, &sig, &layout, scalars);
}

/* A ufunc plan's `launch` hook (self: the kiln_ufunc), so that the host
 * path (ufunc_host.c) reaches it through the plan, not by calling back
 * into this file. */
static kiln_status launch_views(void *self, const kiln_ufunc_plan *plan,
                                const kiln_array *const *views, kiln_stream *stream) {
  int prepared = 0;
  return launch_planned(self, plan, views, stream, NULL, &prepared);
}

kiln_status kiln_ufunc_launch(kiln_ufunc *u, const kiln_ufunc_plan *plan,
                              const kiln_array *const *views, kiln_stream *stream) {
  return launch_views(u, plan, views, stream);
}

/* Device path: every operand is a device array or a scalar. A call that
 * succeeds is stored in the repeat-call cache when it can hold it. */
static kiln_status run_device(kiln_ufunc *u, const kiln_operand *inputs,
                              const kiln_operand *outputs, const kiln_ufunc_plan *plan,
                              kiln_stream *stream) {
  kiln_array views[KILN_UFUNC_MAX_OPERANDS];
  const kiln_array *pointers[KILN_UFUNC_MAX_OPERANDS];
  int n = 0;
  for (int j = 0; j < u->nin + u->nout; j++) {
    const kiln_ufunc_operand_plan *op = &plan->operands[j];
    if (op->where == KILN_UFUNC_BY_VALUE) continue;
    kiln_array *v = &views[n];
    v->buffer = op->array->buffer;
    v->dtype = op->array->dtype;
    v->ndim = plan->ndim;
    v->size = plan->size;
    v->offset = op->array->offset;
    for (int d = 0; d < plan->ndim; d++) {
      v->shape[d] = plan->shape[d];
      v->strides[d] = op->strides[d];
    }
    pointers[n++] = v;
  }
  kiln_ufunc_cache_entry *entry = kiln_ufunc_cache_claim(u, inputs, outputs, plan);
  int prepared = n == 0 || plan->size == 0; /* nothing to launch, ever */
  kiln_status status = prepared ? KILN_OK
                                : launch_planned(u, plan, pointers, stream, entry, &prepared);
  kiln_ufunc_cache_store(u, entry, status == KILN_OK && prepared);
  return status;
}

int kiln_ufunc_plan_operands(kiln_ufunc *u, const kiln_operand *inputs,
                             const kiln_operand *outputs, kiln_ufunc_plan *plan) {
  memset(plan->core_ndim, 0, sizeof plan->core_ndim);
  plan->launch = launch_views;
  plan->launch_self = u;
  plan->nin = u->nin;
  plan->nout = u->nout;
  int any_host = 0;
  for (int j = 0; j < u->nin + u->nout; j++) {
    const kiln_operand *o = j < u->nin ? &inputs[j] : &outputs[j - u->nin];
    kiln_ufunc_operand_plan *op = &plan->operands[j];
    op->where = o->kind == KILN_OPERAND_HOST ? KILN_UFUNC_HOST : KILN_UFUNC_DEVICE;
    op->array = o->kind == KILN_OPERAND_ARRAY ? o->value.array : NULL;
    op->dtype = op->array ? op->array->dtype : o->dtype;
    op->offset = op->array ? op->array->offset : 0;
    op->host = o->kind == KILN_OPERAND_HOST ? o->value.host.data : NULL;
    op->host_out = o->kind == KILN_OPERAND_HOST ? o->value.host.writable : NULL;
    any_host |= o->kind == KILN_OPERAND_HOST;
  }
  return any_host;
}

static kiln_status call(kiln_ufunc *u, const kiln_operand *inputs, const kiln_operand *outputs,
                        kiln_stream *stream, kiln_ufunc_plan *plan) {
  for (int j = 0; j < u->nin; j++)
    KILN_RETURN_IF_ERROR(kiln_ufunc_check_operand(u, 0, j, &inputs[j]));
  for (int k = 0; k < u->nout; k++)
    KILN_RETURN_IF_ERROR(kiln_ufunc_check_operand(u, 1, k, &outputs[k]));
  int any_host = kiln_ufunc_plan_operands(u, inputs, outputs, plan);
  KILN_RETURN_IF_ERROR(kiln_ufunc_dispatch(u, inputs, outputs, plan));
  KILN_RETURN_IF_ERROR(kiln_ufunc_broadcast(u, inputs, outputs, NULL, plan));
  const kiln_ufunc_sig *sig = &u->sigs[plan->signature];
  for (int k = 0; k < u->nout; k++) {
    if (outputs[k].kind != KILN_OPERAND_NEW) continue;
    kiln_ufunc_operand_plan *op = &plan->operands[u->nin + k];
    kiln_array *a = NULL;
    KILN_RETURN_IF_ERROR(
        kiln_array_alloc(u->ctx, sig->dtypes[u->nin + k], plan->ndim, plan->shape, &a));
    *outputs[k].value.result = a;
    op->array = a;
    op->dtype = a->dtype;
    op->offset = 0;
    memcpy(op->strides, a->strides, sizeof op->strides);
  }
  if (any_host) return kiln_ufunc_run_host(u, plan, stream); /* synchronizes `stream` first */
  kiln_ufunc_recorder record = atomic_load_explicit(&recorder, memory_order_acquire);
  kiln_status recorded = KILN_OK;
  if (record && record(u, plan, stream, &recorded)) return recorded;
  return run_device(u, inputs, outputs, plan, stream);
}

void kiln_ufunc_clear_new_outputs(int nout, const kiln_operand *outputs, int release) {
  for (int k = 0; outputs && k < nout; k++) {
    if (outputs[k].kind != KILN_OPERAND_NEW || !outputs[k].value.result) continue;
    if (release) kiln_array_release(*outputs[k].value.result);
    *outputs[k].value.result = NULL;
  }
}

kiln_status kiln_ufunc_call(kiln_ufunc *ufunc, int nin, const kiln_operand *inputs, int nout,
                            const kiln_operand *outputs, kiln_stream *stream) {
  KILN_CHECK_ARG(ufunc);
  kiln_status status;
  /* a repeat call (ufunc_call_cache.c); a recorder needs the full plan */
  if (nin == ufunc->nin && nout == ufunc->nout && inputs && outputs && !may_record() &&
      kiln_ufunc_cache_call(ufunc, inputs, outputs, stream, &status))
    return status;
  if (nout == ufunc->nout) kiln_ufunc_clear_new_outputs(nout, outputs, 0);
  if (nin != ufunc->nin || nout != ufunc->nout)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "ufunc '%s' takes %d input%s and %d output%s, %d and %d given",
                          ufunc->name, ufunc->nin, ufunc->nin == 1 ? "" : "s", ufunc->nout,
                          ufunc->nout == 1 ? "" : "s", nin, nout);
  KILN_CHECK_ARG(inputs);
  KILN_CHECK_ARG(outputs);
  kiln_ufunc_plan plan;
  status = call(ufunc, inputs, outputs, stream, &plan);
  if (status != KILN_OK) kiln_ufunc_clear_new_outputs(nout, outputs, 1);
  return status;
}
