/* core/gufunc/gufunc_call.c: a gufunc call: operand checks and dispatch
 * (the ufunc's), binding the core dims by name, NumPy broadcasting of the
 * loop dims (the ufunc's broadcaster with the core dims stripped), output
 * allocation, host staging, and one launch of a core-loop kernel.
 *
 * The kernel is specialised, and keyed in the context's program cache, by
 * signature, operand dtypes, merged loop ndim, core sizes up to
 * BAKE_MAX (constants in the body, so its loops unroll) and which core
 * strides are one element (constant 1), followed by the gufunc's text
 * (so equal gufuncs share programs). A repeat call hashes that key (a few
 * hundred bytes) and launches: no source is generated. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/gufunc/gufunc_internal.h"

#define BAKE_MAX 16 /* core sizes up to this become constants */

typedef struct gufunc_plan {
  kiln_ufunc_plan loop; /* the loop dims, as a ufunc call's plan */
  int core_ndim[KILN_UFUNC_MAX_OPERANDS];
  int64_t sizes[KILN_CORE_MAX_NAMES]; /* bound core sizes, -1 while unbound */
  int64_t core_strides[KILN_UFUNC_MAX_OPERANDS][KILN_CORE_MAX_DIMS]; /* bytes */
  kiln_array *staged[KILN_UFUNC_MAX_OPERANDS]; /* device copies of host operands */
} gufunc_plan;

static const char *role(int output) { return output ? "output" : "input"; }

/* The full shape of an array or host operand; NULL for the others. */
static const int64_t *full_shape(const kiln_operand *o, int *ndim) {
  if (o->kind == KILN_OPERAND_ARRAY) {
    *ndim = kiln_array_ndim(o->value.array);
    return kiln_array_shape(o->value.array);
  }
  if (o->kind == KILN_OPERAND_HOST) {
    *ndim = o->value.host.ndim;
    return o->value.host.shape;
  }
  *ndim = 0;
  return NULL;
}

/* "(m, n)" for operand j's core dims. */
static void format_core(const kiln_gufunc_core_layout *l, int j, char *out, size_t size) {
  size_t used = (size_t)snprintf(out, size, "(");
  for (int c = 0; c < l->ndim[j] && used < size; c++) {
    int d = l->dims[j][c];
    if (l->fixed[d] >= 0)
      used += (size_t)snprintf(out + used, size - used, "%s%lld", c ? ", " : "",
                               (long long)l->fixed[d]);
    else
      used += (size_t)snprintf(out + used, size - used, "%s%s", c ? ", " : "", l->names[d]);
  }
  if (used < size) snprintf(out + used, size - used, ")");
}

/* Operands must have room for their core dims; scalars have none. */
static kiln_status check_core_room(const kiln_gufunc *g, const kiln_operand *inputs,
                                   const kiln_operand *outputs) {
  const kiln_gufunc_core_layout *l = &g->layout;
  for (int j = 0; j < l->nin + l->nout; j++) {
    int output = j >= l->nin, index = output ? j - l->nin : j;
    const kiln_operand *o = output ? &outputs[index] : &inputs[index];
    if (l->ndim[j] == 0 || o->kind == KILN_OPERAND_NEW) continue;
    char core[160];
    format_core(l, j, core, sizeof core);
    if (o->kind == KILN_OPERAND_SCALAR || o->kind == KILN_OPERAND_WEAK_SCALAR)
      return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                            "gufunc '%s': %s %d is a scalar, but layout \"%s\" gives it core "
                            "dims %s",
                            g->ufunc->name, role(output), index, g->layout_text, core);
    int ndim;
    full_shape(o, &ndim);
    if (ndim < l->ndim[j])
      return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                            "gufunc '%s': %s %d has %d dim%s, too few for its core dims %s "
                            "(layout \"%s\")",
                            g->ufunc->name, role(output), index, ndim, ndim == 1 ? "" : "s",
                            core, g->layout_text);
  }
  return KILN_OK;
}

/* Binds every core dim from the inputs and given outputs. */
static kiln_status bind_core(const kiln_gufunc *g, const kiln_operand *inputs,
                             const kiln_operand *outputs, gufunc_plan *plan) {
  const kiln_gufunc_core_layout *l = &g->layout;
  int who[KILN_CORE_MAX_NAMES];
  for (int d = 0; d < l->nnames; d++) {
    plan->sizes[d] = l->fixed[d];
    who[d] = -1;
  }
  for (int j = 0; j < l->nin + l->nout; j++) {
    int output = j >= l->nin, index = output ? j - l->nin : j;
    const kiln_operand *o = output ? &outputs[index] : &inputs[index];
    int ndim;
    const int64_t *shape = full_shape(o, &ndim);
    if (!shape) continue;
    for (int c = 0; c < l->ndim[j]; c++) {
      int d = l->dims[j][c];
      int64_t have = shape[ndim - l->ndim[j] + c];
      if (plan->sizes[d] < 0) {
        plan->sizes[d] = have;
        who[d] = j;
      } else if (have != plan->sizes[d]) {
        char name[KILN_GUFUNC_DIM_NAME_MAX + 16];
        if (l->fixed[d] >= 0) snprintf(name, sizeof name, "of fixed size %lld", (long long)l->fixed[d]);
        else snprintf(name, sizeof name, "'%s'", l->names[d]);
        char first[64];
        if (who[d] < 0) snprintf(first, sizeof first, "the layout fixes it to");
        else snprintf(first, sizeof first, "%s %d has", role(who[d] >= l->nin),
                      who[d] >= l->nin ? who[d] - l->nin : who[d]);
        return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                              "gufunc '%s': core dimension %s mismatch: %s %lld, %s %d has "
                              "%lld (layout \"%s\")",
                              g->ufunc->name, name, first, (long long)plan->sizes[d],
                              role(output), index, (long long)have, g->layout_text);
      }
    }
  }
  for (int d = 0; d < l->nnames; d++)
    if (plan->sizes[d] < 0)
      return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                            "gufunc '%s': core dimension '%s' appears only in outputs that "
                            "kiln allocates, so its size is unknown; give such an output",
                            g->ufunc->name, l->names[d]);
  return KILN_OK;
}

/* Core strides of operand j (bytes) from its full strides, whose loop part
 * has already been read by the broadcaster. */
static void take_core_strides(gufunc_plan *plan, int j, const int64_t *full_strides,
                              int full_ndim) {
  for (int c = 0; c < plan->core_ndim[j]; c++)
    plan->core_strides[j][c] = full_strides[full_ndim - plan->core_ndim[j] + c];
}

/* Points operand j at device array a (the operand's own full shape). */
static void use_device_array(gufunc_plan *plan, int j, const kiln_array *a) {
  kiln_ufunc_operand_plan *op = &plan->loop.operands[j];
  int own = a->ndim - plan->core_ndim[j]; /* loop dims of the array */
  op->where = KILN_UFUNC_DEVICE;
  op->array = a;
  op->dtype = a->dtype;
  op->offset = a->offset;
  for (int d = 0; d < plan->loop.ndim; d++) {
    int o = d - (plan->loop.ndim - own);
    op->strides[d] = o < 0 || a->shape[o] == 1 ? 0 : a->strides[o];
  }
  take_core_strides(plan, j, a->strides, a->ndim);
}

/* NEW outputs: the loop shape then the core sizes. */
static kiln_status allocate_outputs(kiln_gufunc *g, const kiln_operand *outputs,
                                    gufunc_plan *plan) {
  const kiln_gufunc_core_layout *l = &g->layout;
  const kiln_ufunc_sig *sig = &g->ufunc->sigs[plan->loop.signature];
  for (int k = 0; k < l->nout; k++) {
    if (outputs[k].kind != KILN_OPERAND_NEW) continue;
    int j = l->nin + k;
    int ndim = plan->loop.ndim + l->ndim[j];
    if (ndim > KILN_MAX_DIMS)
      return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                            "gufunc '%s': output %d would have %d dims (at most %d)",
                            g->ufunc->name, k, ndim, KILN_MAX_DIMS);
    int64_t shape[KILN_MAX_DIMS];
    memcpy(shape, plan->loop.shape, (size_t)plan->loop.ndim * sizeof *shape);
    for (int c = 0; c < l->ndim[j]; c++) shape[plan->loop.ndim + c] = plan->sizes[l->dims[j][c]];
    kiln_array *a = NULL;
    KILN_RETURN_IF_ERROR(kiln_array_alloc(g->ufunc->ctx, sig->dtypes[j], ndim, shape, &a));
    *outputs[k].value.result = a;
    use_device_array(plan, j, a);
  }
  return KILN_OK;
}

/* Host inputs are uploaded whole, host outputs get a device array each
 * (written back by unstage_outputs). */
static kiln_status stage_host(kiln_gufunc *g, const kiln_operand *inputs,
                              const kiln_operand *outputs, gufunc_plan *plan) {
  const kiln_gufunc_core_layout *l = &g->layout;
  for (int j = 0; j < l->nin + l->nout; j++) {
    const kiln_operand *o = j < l->nin ? &inputs[j] : &outputs[j - l->nin];
    if (o->kind != KILN_OPERAND_HOST) continue;
    const kiln_ufunc_operand_plan *op = &plan->loop.operands[j];
    int ndim = o->value.host.ndim;
    if (j < l->nin)
      KILN_RETURN_IF_ERROR(kiln_array_from_host(g->ufunc->ctx, o->dtype, ndim,
                                                o->value.host.shape, op->own_strides,
                                                o->value.host.data, &plan->staged[j]));
    else
      KILN_RETURN_IF_ERROR(kiln_array_alloc(g->ufunc->ctx, o->dtype, ndim, o->value.host.shape,
                                            &plan->staged[j]));
    use_device_array(plan, j, plan->staged[j]);
  }
  return KILN_OK;
}

static kiln_status unstage_outputs(kiln_gufunc *g, const kiln_operand *outputs,
                                   gufunc_plan *plan) {
  const kiln_gufunc_core_layout *l = &g->layout;
  for (int k = 0; k < l->nout; k++) {
    if (outputs[k].kind != KILN_OPERAND_HOST) continue;
    const kiln_ufunc_operand_plan *op = &plan->loop.operands[l->nin + k];
    KILN_RETURN_IF_ERROR(kiln_array_to_host(plan->staged[l->nin + k],
                                            outputs[k].value.host.writable, op->own_strides));
  }
  return KILN_OK;
}

/* A program's name in the context's cache: this, then the gufunc's
 * identity (all it is made of). */
typedef struct gufunc_key {
  char tag[8];
  int32_t signature, loop_ndim;
  int64_t sizes[KILN_CORE_MAX_NAMES];      /* baked sizes, -1: argument */
  uint8_t memory[KILN_UFUNC_MAX_OPERANDS]; /* dtype or KILN_UFUNC_SCALAR_SLOT */
  uint8_t unit[KILN_UFUNC_MAX_OPERANDS];   /* bit c: core stride c is one element */
} gufunc_key;

static kiln_status generate(void *data, kiln_strbuf *source) {
  kiln_core_loop_source(data, source);
  return KILN_OK;
}

static kiln_status launch(kiln_gufunc *g, const gufunc_plan *plan, kiln_stream *stream) {
  const kiln_ufunc *u = g->ufunc;
  const kiln_ufunc_plan *p = &plan->loop;
  int nops = u->nin + u->nout;
  kiln_array views[KILN_UFUNC_MAX_OPERANDS];
  const kiln_array *pointers[KILN_UFUNC_MAX_OPERANDS];
  gufunc_key key;
  memset(&key, 0, sizeof key);
  memcpy(key.tag, "\1gufunc", 8);
  key.signature = p->signature;
  int unit[KILN_UFUNC_MAX_OPERANDS][KILN_CORE_MAX_DIMS];
  int64_t strides[KILN_UFUNC_MAX_OPERANDS][KILN_CORE_MAX_DIMS];
  int n = 0;
  for (int j = 0; j < nops; j++) {
    const kiln_ufunc_operand_plan *op = &p->operands[j];
    if (op->where == KILN_UFUNC_BY_VALUE) {
      key.memory[j] = KILN_UFUNC_SCALAR_SLOT;
      continue;
    }
    key.memory[j] = (uint8_t)op->dtype;
    int64_t itemsize = (int64_t)kiln_dtype_size(op->dtype);
    for (int c = 0; c < plan->core_ndim[j]; c++) {
      if (plan->core_strides[j][c] % itemsize != 0)
        return kiln_error_set(KILN_ERROR_INTERNAL, "core stride not a multiple of its itemsize");
      strides[j][c] = plan->core_strides[j][c] / itemsize;
      unit[j][c] = strides[j][c] == 1 || plan->sizes[g->layout.dims[j][c]] <= 1;
      key.unit[j] |= (uint8_t)(unit[j][c] << c);
    }
    kiln_array *v = &views[n];
    v->buffer = op->array->buffer;
    v->dtype = op->dtype;
    v->ndim = p->ndim;
    v->size = p->size;
    v->offset = op->offset;
    for (int d = 0; d < p->ndim; d++) {
      v->shape[d] = p->shape[d];
      v->strides[d] = op->strides[d];
    }
    pointers[n++] = v;
  }
  if (p->size == 0) return KILN_OK;
  kiln_ew_layout layout;
  KILN_RETURN_IF_ERROR(kiln_ew_layout_plan(n, pointers, &layout));
  key.loop_ndim = layout.ndim;
  for (int d = 0; d < g->layout.nnames; d++)
    key.sizes[d] = plan->sizes[d] <= BAKE_MAX ? plan->sizes[d] : -1;
  char entry[96];
  kiln_core_loop loop;
  kiln_gufunc_describe(g, p->signature, key.memory, key.sizes, (const int(*)[KILN_CORE_MAX_DIMS])unit,
                       layout.ndim, entry, &loop);
  /* the key on the stack unless the gufunc is large */
  char small[4096], *full = small;
  size_t length = sizeof key + g->identity_length;
  if (length > sizeof small && !(full = malloc(length)))
    return kiln_error_set(KILN_ERROR_OUT_OF_MEMORY, "out of host memory");
  memcpy(full, &key, sizeof key);
  memcpy(full + sizeof key, g->identity, g->identity_length);
  kiln_program *program = NULL;
  kiln_status status = kiln_program_get_keyed(u->ctx, full, length, NULL, entry, generate,
                                              &loop, &program);
  if (full != small) free(full);
  if (status != KILN_OK)
    return kiln_error_prefix(status, "gufunc '%s', signature %d \"%s\"", u->name, p->signature,
                             u->sigs[p->signature].text);
  kiln_ew_signature sig;
  kiln_core_loop_ew_signature(&loop, &sig);
  int64_t extra[KILN_EW_MAX_EXTRA];
  int nextra = kiln_core_loop_extra(&loop, plan->sizes, (const int64_t(*)[KILN_CORE_MAX_DIMS])strides,
                                    extra);
  const void *scalars[KILN_EW_MAX_SCALARS];
  for (int s = 0; s < p->nscalars; s++) scalars[s] = p->scalars[s];
  return kiln_ew_launch_extra(u->ctx, stream, program, &sig, &layout, scalars, nextra, extra);
}

static kiln_status call(kiln_gufunc *g, const kiln_operand *inputs, const kiln_operand *outputs,
                        kiln_stream *stream, gufunc_plan *plan) {
  kiln_ufunc *u = g->ufunc;
  for (int j = 0; j < u->nin; j++)
    KILN_RETURN_IF_ERROR(kiln_ufunc_check_operand(u, 0, j, &inputs[j]));
  for (int k = 0; k < u->nout; k++)
    KILN_RETURN_IF_ERROR(kiln_ufunc_check_operand(u, 1, k, &outputs[k]));
  KILN_RETURN_IF_ERROR(check_core_room(g, inputs, outputs));
  int any_host = kiln_ufunc_plan_operands(u, inputs, outputs, &plan->loop);
  memcpy(plan->core_ndim, g->layout.ndim, sizeof plan->core_ndim);
  KILN_RETURN_IF_ERROR(kiln_ufunc_dispatch(u, inputs, outputs, &plan->loop));
  KILN_RETURN_IF_ERROR(bind_core(g, inputs, outputs, plan));
  KILN_RETURN_IF_ERROR(kiln_ufunc_broadcast(u, inputs, outputs, plan->core_ndim, &plan->loop));
  for (int j = 0; j < u->nin + u->nout; j++) {
    const kiln_ufunc_operand_plan *op = &plan->loop.operands[j];
    if (op->own_shape) take_core_strides(plan, j, op->own_strides, op->own_ndim + plan->core_ndim[j]);
  }
  KILN_RETURN_IF_ERROR(allocate_outputs(g, outputs, plan));
  if (!any_host) return launch(g, plan, stream);
  KILN_RETURN_IF_ERROR(kiln_stream_synchronize(u->ctx, stream));
  KILN_RETURN_IF_ERROR(stage_host(g, inputs, outputs, plan));
  KILN_RETURN_IF_ERROR(launch(g, plan, NULL));
  return unstage_outputs(g, outputs, plan);
}

kiln_status kiln_gufunc_call(kiln_gufunc *gufunc, int nin, const kiln_operand *inputs, int nout,
                             const kiln_operand *outputs, kiln_stream *stream) {
  KILN_CHECK_ARG(gufunc);
  const kiln_gufunc_core_layout *l = &gufunc->layout;
  if (outputs && nout == l->nout)
    for (int k = 0; k < nout; k++)
      if (outputs[k].kind == KILN_OPERAND_NEW && outputs[k].value.result)
        *outputs[k].value.result = NULL;
  if (nin != l->nin || nout != l->nout)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "gufunc '%s' (layout \"%s\") takes %d input%s and %d output%s, %d "
                          "and %d given",
                          gufunc->ufunc->name, gufunc->layout_text, l->nin,
                          l->nin == 1 ? "" : "s", l->nout, l->nout == 1 ? "" : "s", nin, nout);
  KILN_CHECK_ARG(inputs);
  KILN_CHECK_ARG(outputs);
  gufunc_plan plan;
  memset(&plan, 0, sizeof plan);
  kiln_status status = call(gufunc, inputs, outputs, stream, &plan);
  for (int j = 0; j < KILN_UFUNC_MAX_OPERANDS; j++) kiln_array_release(plan.staged[j]);
  if (status != KILN_OK) {
    for (int k = 0; k < nout; k++) {
      if (outputs[k].kind != KILN_OPERAND_NEW || !outputs[k].value.result) continue;
      kiln_array_release(*outputs[k].value.result);
      *outputs[k].value.result = NULL;
    }
  }
  return status;
}
