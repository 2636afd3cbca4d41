/* core/ufunc/ufunc_host.c: ufunc calls with host operands.
 *
 * The broadcast shape is cut into chunks that are boxes in C order: the
 * innermost dims whole, a range of the next one, single indices of the
 * outer ones, at most `host_chunk_bytes` per staged operand. Each chunk
 * goes through one of SLOTS slots, each with its own stream and its own
 * pinned host and device buffers: the host packs chunk c's inputs into
 * pinned memory while the device still copies and computes chunks c-1 and
 * c-2, and the slot's d2h copy of chunk c is unpacked only when the slot
 * comes round again. Copies and launches of one slot are ordered by its
 * stream; slots never share buffers.
 *
 * Host inputs smaller than the output that fit in one chunk (a broadcast
 * row, a bias vector) are uploaded whole once and read as device arrays.
 * Larger broadcast inputs are staged per chunk without their repeated
 * elements: the staging holds extent 1 where the input's stride is 0.
 * Strided host operands are packed and unpacked on the host
 * (core/ufunc/ufunc_host_copy.c, on several threads for large boxes).
 * A host operand whose chunk is one dense block inside pinned memory
 * (kiln_host_alloc / kiln_host_register) skips the pinned staging: the
 * slot's stream copies straight from or to the caller's memory. */
#include <stdlib.h>
#include <string.h>

#include "core/ufunc/ufunc_internal.h"

#define SLOTS 3

typedef struct staging_slot {
  kiln_stream *stream;
  void *host[KILN_UFUNC_MAX_OPERANDS];        /* per operand position */
  int host_pinned[KILN_UFUNC_MAX_OPERANDS];   /* from host_alloc, else malloc */
  kiln_array *device[KILN_UFUNC_MAX_OPERANDS]; /* uint8 arrays of `bytes` */
  int direct[KILN_UFUNC_MAX_OPERANDS];         /* copied straight from/to pinned user memory */
  int busy;                                    /* holds a chunk not yet unpacked */
  int64_t start[KILN_MAX_DIMS], box[KILN_MAX_DIMS];
} staging_slot;

struct kiln_ufunc_staging {
  size_t bytes; /* capacity of every buffer */
  size_t chunk_bytes;
  staging_slot slots[SLOTS];
  kiln_copy_pool *pool; /* threads packing and unpacking large boxes */
};

void kiln_ufunc_staging_free(kiln_context *ctx, kiln_ufunc_staging *staging) {
  if (!staging) return;
  kiln_copy_pool_free(staging->pool);
  for (int s = 0; s < SLOTS; s++) {
    staging_slot *slot = &staging->slots[s];
    kiln_stream_release(slot->stream); /* waits for its work first */
    for (int j = 0; j < KILN_UFUNC_MAX_OPERANDS; j++) {
      if (slot->host[j] && slot->host_pinned[j]) ctx->ops->host_free(ctx->device, slot->host[j]);
      else free(slot->host[j]);
      kiln_array_release(slot->device[j]);
    }
  }
  free(staging);
}

/* A staging whose buffers hold at least min_bytes (a gufunc's core block
 * may exceed the chunk size). */
static kiln_status staging_take(kiln_ufunc *u, size_t min_bytes, kiln_ufunc_staging **out) {
  pthread_mutex_lock(&u->lock);
  kiln_ufunc_staging *s = u->staging;
  u->staging = NULL;
  size_t chunk_bytes = u->host_chunk_bytes;
  pthread_mutex_unlock(&u->lock);
  if (s && (s->chunk_bytes != chunk_bytes || s->bytes < min_bytes)) {
    kiln_ufunc_staging_free(u->ctx, s);
    s = NULL;
  }
  if (!s) {
    s = calloc(1, sizeof *s);
    if (!s) return kiln_error_set(KILN_ERROR_OUT_OF_MEMORY, "out of host memory");
    s->chunk_bytes = chunk_bytes;
    s->bytes = chunk_bytes < 8 ? 8 : chunk_bytes;
    if (s->bytes < min_bytes) s->bytes = min_bytes;
  }
  *out = s;
  return KILN_OK;
}

/* Keeps the staging for the next call unless another call already put
 * one back or the chunk size changed meanwhile. */
static void staging_give(kiln_ufunc *u, kiln_ufunc_staging *s) {
  pthread_mutex_lock(&u->lock);
  if (!u->staging && s->chunk_bytes == u->host_chunk_bytes) {
    u->staging = s;
    s = NULL;
  }
  pthread_mutex_unlock(&u->lock);
  if (s) kiln_ufunc_staging_free(u->ctx, s);
}

/* The slot's stream and operand j's buffers, made on first use (the host
 * staging only when the operand needs it). */
static kiln_status slot_prepare(kiln_ufunc *u, kiln_ufunc_staging *s, staging_slot *slot, int j,
                                int need_host) {
  kiln_context *ctx = u->ctx;
  if (!slot->stream) KILN_RETURN_IF_ERROR(kiln_stream_create(ctx, &slot->stream));
  if (need_host && !slot->host[j]) {
    if (ctx->ops->host_alloc &&
        ctx->ops->host_alloc(ctx->device, s->bytes, &slot->host[j]) == KILN_OK) {
      slot->host_pinned[j] = 1;
    } else {
      slot->host[j] = malloc(s->bytes);
      slot->host_pinned[j] = 0;
      if (!slot->host[j])
        return kiln_error_set(KILN_ERROR_OUT_OF_MEMORY, "out of host memory (%zu bytes)",
                              s->bytes);
    }
  }
  if (!slot->device[j]) {
    int64_t bytes = (int64_t)s->bytes;
    KILN_RETURN_IF_ERROR(kiln_array_alloc(ctx, KILN_UINT8, 1, &bytes, &slot->device[j]));
  }
  return KILN_OK;
}

/* Operand j's geometry in a chunk: the loop dims (`box` with `strides`)
 * followed by its core dims; returns the ndim. */
static int with_core(const kiln_ufunc_plan *plan, int j, const int64_t *box,
                     const int64_t *strides, int64_t *full_shape, int64_t *full_strides) {
  memcpy(full_shape, box, (size_t)plan->ndim * sizeof *box);
  memcpy(full_strides, strides, (size_t)plan->ndim * sizeof *strides);
  for (int c = 0; c < plan->core_ndim[j]; c++) {
    full_shape[plan->ndim + c] = plan->core_shape[j][c];
    full_strides[plan->ndim + c] = plan->core_strides[j][c];
  }
  return plan->ndim + plan->core_ndim[j];
}

/* Elements of operand j's core block (1 for ufuncs). */
static int64_t core_size(const kiln_ufunc_plan *plan, int j) {
  int64_t n = 1;
  for (int c = 0; c < plan->core_ndim[j]; c++) n *= plan->core_shape[j][c];
  return n;
}

static int64_t element_offset(const kiln_ufunc_plan *plan, const int64_t *strides,
                              const int64_t *start) {
  int64_t offset = 0;
  for (int d = 0; d < plan->ndim; d++) offset += start[d] * strides[d];
  return offset;
}

/* A view of the slot's device buffer for operand j over box `box`: dense in
 * C order over `dense` (box, or box with broadcast dims collapsed to 1),
 * stride 0 where collapsed. */
static void staging_view(const kiln_ufunc_plan *plan, const staging_slot *slot, int j,
                         const int64_t *box, const int64_t *dense, kiln_array *view) {
  const kiln_ufunc_operand_plan *op = &plan->operands[j];
  view->buffer = slot->device[j]->buffer;
  view->dtype = op->dtype;
  view->ndim = plan->ndim + plan->core_ndim[j];
  view->offset = 0;
  view->size = 1;
  int64_t stride = (int64_t)kiln_dtype_size(op->dtype);
  for (int c = plan->core_ndim[j] - 1; c >= 0; c--) {
    view->shape[plan->ndim + c] = plan->core_shape[j][c];
    view->strides[plan->ndim + c] = stride;
    stride *= plan->core_shape[j][c];
    view->size *= plan->core_shape[j][c];
  }
  for (int d = plan->ndim - 1; d >= 0; d--) {
    view->shape[d] = box[d];
    view->strides[d] = dense[d] == box[d] ? stride : 0;
    stride *= dense[d];
    view->size *= box[d];
  }
}

/* The address of operand j's box (with its core block, for gufuncs) when
 * the box is one dense block of pinned host memory (C-order strides over
 * the box and the core dims), else NULL. */
static char *pinned_block(kiln_context *ctx, const kiln_ufunc_plan *plan, int j,
                          const int64_t *start, const int64_t *box, size_t *bytes) {
  const kiln_ufunc_operand_plan *op = &plan->operands[j];
  int64_t shape[KILN_MAX_DIMS], strides[KILN_MAX_DIMS];
  int ndim = with_core(plan, j, box, op->strides, shape, strides);
  int64_t expected = (int64_t)kiln_dtype_size(op->dtype);
  for (int d = ndim - 1; d >= 0; d--) {
    if (shape[d] == 1) continue;
    if (strides[d] != expected) return NULL;
    expected *= shape[d];
  }
  char *base = (op->where == KILN_UFUNC_HOST && op->host_out ? op->host_out : (char *)op->host) +
               element_offset(plan, op->strides, start);
  *bytes = (size_t)expected;
  return kiln_host_is_pinned(ctx, base, *bytes) ? base : NULL;
}

static void unpack_outputs(kiln_ufunc_staging *s, const kiln_ufunc_plan *plan,
                           const staging_slot *slot) {
  for (int j = plan->nin; j < plan->nin + plan->nout; j++) {
    const kiln_ufunc_operand_plan *op = &plan->operands[j];
    if (op->where != KILN_UFUNC_HOST || slot->direct[j]) continue;
    char *dst = op->host_out + element_offset(plan, op->strides, slot->start);
    int64_t shape[KILN_MAX_DIMS], strides[KILN_MAX_DIMS];
    int ndim = with_core(plan, j, slot->box, op->strides, shape, strides);
    kiln_host_box_copy(&s->pool, 0, slot->host[j], dst, strides, ndim, shape,
                       kiln_dtype_size(op->dtype));
  }
}

/* Waits for the slot's last chunk and writes its host outputs. */
static kiln_status slot_finish(kiln_ufunc *u, kiln_ufunc_staging *s, const kiln_ufunc_plan *plan,
                               staging_slot *slot) {
  if (!slot->busy) return KILN_OK;
  slot->busy = 0;
  KILN_RETURN_IF_ERROR(kiln_stream_synchronize(u->ctx, slot->stream));
  unpack_outputs(s, plan, slot);
  return KILN_OK;
}

/* Queues one chunk on a free slot: pack and upload staged inputs, launch,
 * download staged outputs. */
static kiln_status run_chunk(kiln_ufunc *u, const kiln_ufunc_plan *plan, kiln_ufunc_staging *s,
                             staging_slot *slot, const int64_t *start, const int64_t *box) {
  kiln_context *ctx = u->ctx;
  kiln_array views[KILN_UFUNC_MAX_OPERANDS];
  const kiln_array *pointers[KILN_UFUNC_MAX_OPERANDS];
  int n = 0;
  kiln_backend_stream *stream = NULL;
  for (int j = 0; j < plan->nin + plan->nout; j++) {
    const kiln_ufunc_operand_plan *op = &plan->operands[j];
    if (op->where == KILN_UFUNC_BY_VALUE) continue;
    kiln_array *v = &views[n];
    pointers[n++] = v;
    if (op->where == KILN_UFUNC_DEVICE) {
      v->buffer = op->array->buffer;
      v->dtype = op->dtype;
      v->offset = op->offset + element_offset(plan, op->strides, start);
      v->ndim = with_core(plan, j, box, op->strides, v->shape, v->strides);
      v->size = 1;
      for (int d = 0; d < v->ndim; d++) v->size *= v->shape[d];
      continue;
    }
    size_t direct_bytes = 0;
    char *direct = pinned_block(ctx, plan, j, start, box, &direct_bytes);
    slot->direct[j] = direct != NULL;
    KILN_RETURN_IF_ERROR(slot_prepare(u, s, slot, j, !direct));
    KILN_RETURN_IF_ERROR(kiln_stream_backend(ctx, slot->stream, &stream));
    int64_t dense[KILN_MAX_DIMS];
    int64_t count = 1;
    for (int d = 0; d < plan->ndim; d++) {
      dense[d] = j < plan->nin && op->strides[d] == 0 ? 1 : box[d];
      count *= dense[d];
    }
    staging_view(plan, slot, j, box, dense, v);
    if (j < plan->nin && direct) {
      KILN_RETURN_IF_ERROR(ctx->ops->copy_h2d(ctx->device, stream,
                                              slot->device[j]->buffer->handle, 0, direct,
                                              direct_bytes, 0));
    } else if (j < plan->nin) {
      size_t itemsize = kiln_dtype_size(op->dtype);
      const char *src = op->host + element_offset(plan, op->strides, start);
      int64_t shape[KILN_MAX_DIMS], strides[KILN_MAX_DIMS];
      int ndim = with_core(plan, j, dense, op->strides, shape, strides);
      kiln_host_box_copy(&s->pool, 1, slot->host[j], (char *)src, strides, ndim, shape,
                         itemsize);
      count *= core_size(plan, j);
      KILN_RETURN_IF_ERROR(ctx->ops->copy_h2d(ctx->device, stream,
                                              slot->device[j]->buffer->handle, 0,
                                              slot->host[j], (size_t)count * itemsize, 0));
    }
  }
  if (!slot->stream) KILN_RETURN_IF_ERROR(kiln_stream_create(ctx, &slot->stream));
  KILN_RETURN_IF_ERROR(plan->launch(plan->launch_self, plan, pointers, slot->stream));
  int64_t box_size = 1;
  for (int d = 0; d < plan->ndim; d++) box_size *= box[d];
  for (int j = plan->nin; j < plan->nin + plan->nout; j++) {
    const kiln_ufunc_operand_plan *op = &plan->operands[j];
    if (op->where != KILN_UFUNC_HOST) continue;
    size_t bytes = (size_t)(box_size * core_size(plan, j)) * kiln_dtype_size(op->dtype);
    void *target = slot->direct[j] ? op->host_out + element_offset(plan, op->strides, start)
                                   : slot->host[j];
    KILN_RETURN_IF_ERROR(ctx->ops->copy_d2h(ctx->device, stream, target,
                                            slot->device[j]->buffer->handle, 0, bytes, 0));
  }
  memcpy(slot->start, start, sizeof slot->start);
  memcpy(slot->box, box, sizeof slot->box);
  slot->busy = 1;
  return KILN_OK;
}

/* Host inputs smaller than the output that fit a chunk become device
 * arrays (uploaded[j]). */
static kiln_status upload_small_inputs(kiln_ufunc *u, kiln_ufunc_plan *plan, size_t chunk_bytes,
                                       kiln_array **uploaded) {
  for (int j = 0; j < plan->nin; j++) {
    kiln_ufunc_operand_plan *op = &plan->operands[j];
    if (op->where != KILN_UFUNC_HOST) continue;
    int64_t own = 1; /* loop elements */
    for (int d = 0; d < op->own_ndim; d++) own *= op->own_shape[d];
    uint64_t bytes = (uint64_t)own * (uint64_t)core_size(plan, j) * kiln_dtype_size(op->dtype);
    if (own >= plan->size || bytes > chunk_bytes) continue;
    KILN_RETURN_IF_ERROR(kiln_array_from_host(u->ctx, op->dtype,
                                              op->own_ndim + plan->core_ndim[j], op->own_shape,
                                              op->own_strides, op->host, &uploaded[j]));
    const kiln_array *a = uploaded[j];
    op->where = KILN_UFUNC_DEVICE;
    op->array = a;
    op->offset = 0;
    for (int d = 0; d < plan->ndim; d++) {
      int o = d - (plan->ndim - op->own_ndim);
      op->strides[d] = o < 0 || op->own_shape[o] == 1 ? 0 : a->strides[o];
    }
    for (int c = 0; c < plan->core_ndim[j]; c++)
      plan->core_strides[j][c] = a->strides[op->own_ndim + c];
  }
  return KILN_OK;
}

kiln_status kiln_ufunc_run_host(kiln_ufunc *u, kiln_ufunc_plan *plan, kiln_stream *stream) {
  if (plan->size == 0) return KILN_OK;
  /* device operands may still be written by work queued on `stream` */
  KILN_RETURN_IF_ERROR(kiln_stream_synchronize(u->ctx, stream));
  /* a loop element's bytes in the widest staged operand (a core block for
   * gufuncs): the staging must hold one */
  size_t block = 0;
  for (int j = 0; j < plan->nin + plan->nout; j++) {
    size_t bytes = kiln_dtype_size(plan->operands[j].dtype) * (size_t)core_size(plan, j);
    if (plan->operands[j].where == KILN_UFUNC_HOST && bytes > block) block = bytes;
  }
  kiln_ufunc_staging *s = NULL;
  KILN_RETURN_IF_ERROR(staging_take(u, block, &s));
  kiln_array *uploaded[KILN_UFUNC_MAX_OPERANDS] = {0};
  kiln_status status = upload_small_inputs(u, plan, s->chunk_bytes, uploaded);
  if (status != KILN_OK) goto cleanup;

  /* loop elements per chunk: the chunk size over the widest staged element */
  size_t widest = 0;
  for (int j = 0; j < plan->nin + plan->nout; j++) {
    size_t bytes = kiln_dtype_size(plan->operands[j].dtype) * (size_t)core_size(plan, j);
    if (plan->operands[j].where == KILN_UFUNC_HOST && bytes > widest) widest = bytes;
  }
  int64_t budget = widest ? (int64_t)(s->chunk_bytes / widest) : plan->size;
  if (budget < 1) budget = 1;

  /* the chunked axis: inner dims whole while they fit */
  int axis = plan->ndim - 1;
  int64_t inner = 1;
  while (axis >= 0 && plan->shape[axis] <= budget / inner) inner *= plan->shape[axis--];
  int64_t rows = axis >= 0 ? budget / inner : 0;

  int64_t start[KILN_MAX_DIMS] = {0}, box[KILN_MAX_DIMS];
  for (int d = 0; d < plan->ndim; d++) box[d] = d < axis ? 1 : plan->shape[d];
  for (int64_t chunk = 0;; chunk++) {
    staging_slot *slot = &s->slots[chunk % SLOTS];
    status = slot_finish(u, s, plan, slot);
    if (status != KILN_OK) goto cleanup;
    if (axis >= 0) {
      int64_t left = plan->shape[axis] - start[axis];
      box[axis] = left < rows ? left : rows;
    }
    status = run_chunk(u, plan, s, slot, start, box);
    if (status != KILN_OK) goto cleanup;
    /* next box: along the axis, then odometer over the outer dims */
    if (axis < 0) break;
    start[axis] += rows;
    int d = axis;
    while (d >= 0 && start[d] >= plan->shape[d]) {
      start[d] = 0;
      if (--d >= 0) start[d]++;
    }
    if (d < 0) break;
  }
  for (int k = 0; k < SLOTS && status == KILN_OK; k++) status = slot_finish(u, s, plan, &s->slots[k]);

cleanup:
  for (int k = 0; k < SLOTS; k++) {
    staging_slot *slot = &s->slots[k];
    if (slot->stream) kiln_stream_synchronize(u->ctx, slot->stream);
    slot->busy = 0;
  }
  for (int j = 0; j < KILN_UFUNC_MAX_OPERANDS; j++) kiln_array_release(uploaded[j]);
  staging_give(u, s);
  return status;
}
