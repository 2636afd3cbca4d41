/* core/ufunc/ufunc_call_cache.c: the repeat-call cache. A call's work before
 * its launch (operand checks, dispatch, broadcasting, dims merging, the
 * variant lookup, the kernel's argument list and grid) depends only on the
 * ufunc and on each operand's kind, dtype, shape and strides; its buffers,
 * view offsets and scalar values change only the arguments. So each thread
 * keeps its last few calls' prepared launches (kiln_ew_prepared), keyed on
 * exactly those, and a repeat call checks what depends on the operands
 * themselves (NULLs, their context, offsets a whole number of elements,
 * each scalar's conversion), sets the buffers, offsets and scalars, and
 * launches: no dispatch, no broadcasting, no lock, no allocation.
 *
 * Anything the cache does not know (host operands, NEW outputs, more
 * operands or dims than kiln_ew_prepared holds, a recorder installed,
 * weak ints of ufuncs that compare them by value) takes the full path
 * (ufunc_call.c), which stores what it prepared when its launch succeeds,
 * so a call that fails is never cached and a bad input always meets the
 * full path's checks and messages.
 *
 * Thread-local, so a hit takes no lock and the per-launch argument slots
 * are the thread's own; a ufunc is known by a process-unique id (never
 * its address, which a new ufunc may reuse), and a cached program lives as
 * long as its context, which the ufunc holds. */
#include <string.h>

#include "core/ufunc/ufunc_internal.h"

#define CACHE_ENTRIES 4

typedef struct cache_operand {
  kiln_operand_kind kind; /* ARRAY, SCALAR or WEAK_SCALAR */
  kiln_dtype dtype;       /* the array's, or the scalar's as given */
  int ndim;
  int shift;              /* arrays: log2 of the itemsize */
  int64_t shape[KILN_EW_PREPARED_DIMS];
  int64_t strides[KILN_EW_PREPARED_DIMS];
  kiln_dtype to;          /* scalars: the dtype the signature converts to */
  int slot;               /* arrays: operand index of the launch; scalars: scalar index */
} cache_operand;

struct kiln_ufunc_cache_entry {
  uint64_t ufunc_id; /* 0: empty or being filled */
  int noperands;     /* the ufunc's nin + nout */
  int empty;         /* the broadcast shape has no element: nothing launches */
  cache_operand operands[KILN_EW_PREPARED_OPERANDS];
  kiln_ew_prepared launch;
};

typedef struct call_cache {
  int busy; /* a call of this thread is using an entry (no re-entry) */
  unsigned next; /* the entry the next full-path call fills */
  unsigned last; /* the entry hit or filled last */
  uint64_t hits; /* kiln_ufunc_cache_hits */
  kiln_ufunc_cache_entry entries[CACHE_ENTRIES];
} call_cache;

static _Thread_local call_cache cache;
static atomic_uint_fast64_t last_ufunc_id;

uint64_t kiln_ufunc_cache_hits(void) { return cache.hits; }

uint64_t kiln_ufunc_cache_new_id(void) { return atomic_fetch_add(&last_ufunc_id, 1) + 1; }

static int shift_of(size_t itemsize) {
  int shift = 0;
  while (((size_t)1 << shift) < itemsize) shift++;
  return shift;
}

static const kiln_operand *operand_at(const kiln_ufunc *u, const kiln_operand *inputs,
                                      const kiln_operand *outputs, int j) {
  return j < u->nin ? &inputs[j] : &outputs[j - u->nin];
}

/* Whether operand o is what entry operand c was made from. */
static int same_operand(const cache_operand *c, const kiln_operand *o) {
  if (o->kind != c->kind) return 0;
  if (o->kind != KILN_OPERAND_ARRAY) return o->dtype == c->dtype;
  const kiln_array *a = o->value.array;
  if (!a || a->dtype != c->dtype || a->ndim != c->ndim) return 0;
  for (int d = 0; d < c->ndim; d++)
    if (a->shape[d] != c->shape[d] || a->strides[d] != c->strides[d]) return 0;
  return 1;
}

static int matches(const kiln_ufunc_cache_entry *entry, const kiln_ufunc *u,
                   const kiln_operand *inputs, const kiln_operand *outputs) {
  if (entry->ufunc_id != u->id) return 0;
  const cache_operand *c = entry->operands;
  for (int j = 0; j < u->nin; j++)
    if (!same_operand(&c[j], &inputs[j])) return 0;
  for (int k = 0; k < u->nout; k++)
    if (!same_operand(&c[u->nin + k], &outputs[k])) return 0;
  return 1;
}

/* The entry for this call: the last one hit first (a loop calling one
 * ufunc on one shape finds it at once). */
static kiln_ufunc_cache_entry *find(call_cache *c, const kiln_ufunc *u,
                                    const kiln_operand *inputs, const kiln_operand *outputs) {
  if (matches(&c->entries[c->last], u, inputs, outputs)) return &c->entries[c->last];
  for (unsigned e = 0; e < CACHE_ENTRIES; e++) {
    if (e == c->last || !matches(&c->entries[e], u, inputs, outputs)) continue;
    c->last = e;
    return &c->entries[e];
  }
  return NULL;
}

/* Sets operand o's per-call parts of the launch; 0 when this call needs the
 * full path (an array of another context, an offset inside an element, a
 * scalar the full path would refuse). */
static int bind(kiln_ufunc *u, int j, const cache_operand *c, const kiln_operand *o,
                kiln_ew_prepared *launch) {
  if (c->kind != KILN_OPERAND_ARRAY)
    return kiln_ufunc_convert_scalar(u, j, o, c->to, launch->scalars[c->slot]) == KILN_OK;
  const kiln_array *a = o->value.array;
  if (a->buffer->ctx != u->ctx || (a->offset & (((int64_t)1 << c->shift) - 1))) return 0;
  kiln_ew_prepared_operand(launch, c->slot, a->buffer->handle, a->offset >> c->shift);
  return 1;
}

int kiln_ufunc_cache_call(kiln_ufunc *u, const kiln_operand *inputs,
                          const kiln_operand *outputs, kiln_stream *stream,
                          kiln_status *status) {
  call_cache *c = &cache;
  if (c->busy) return 0;
  kiln_ufunc_cache_entry *entry = find(c, u, inputs, outputs);
  if (!entry) return 0;
  for (int j = 0; j < u->nin; j++)
    if (!bind(u, j, &entry->operands[j], &inputs[j], &entry->launch)) return 0;
  for (int k = 0; k < u->nout; k++)
    if (!bind(u, u->nin + k, &entry->operands[u->nin + k], &outputs[k], &entry->launch))
      return 0;
  c->hits++;
  *status = KILN_OK;
  if (entry->empty) return 1;
  c->busy = 1;
  /* the memory pool's stream rule (kiln/memory.h), as the full path */
  for (int j = 0; stream && j < entry->noperands && *status == KILN_OK; j++)
    if (entry->operands[j].kind == KILN_OPERAND_ARRAY)
      *status = kiln_buffer_use_on_stream(operand_at(u, inputs, outputs, j)->value.array->buffer,
                                          stream);
  if (*status == KILN_OK) *status = kiln_ew_launch_prepared(u->ctx, stream, &entry->launch);
  c->busy = 0;
  return 1;
}

/* Whether the cache can hold operand o of a call. */
static int cacheable(const kiln_ufunc *u, const kiln_operand *o) {
  if (o->kind == KILN_OPERAND_ARRAY) {
    size_t itemsize = kiln_dtype_size(o->value.array->dtype);
    return o->value.array->ndim <= KILN_EW_PREPARED_DIMS &&
           ((size_t)1 << shift_of(itemsize)) == itemsize;
  }
  /* a weak int that NumPy 2 compares by value may change the signature
   * with its value, not only with its dtype */
  if (o->kind == KILN_OPERAND_WEAK_SCALAR) return !u->int_scalar_by_value;
  return o->kind == KILN_OPERAND_SCALAR; /* not host memory, not NEW outputs */
}

kiln_ufunc_cache_entry *kiln_ufunc_cache_claim(kiln_ufunc *u, const kiln_operand *inputs,
                                               const kiln_operand *outputs,
                                               const kiln_ufunc_plan *plan) {
  call_cache *c = &cache;
  int n = u->nin + u->nout;
  if (c->busy || !u->id || n > KILN_EW_PREPARED_OPERANDS) return NULL;
  for (int j = 0; j < n; j++)
    if (!cacheable(u, operand_at(u, inputs, outputs, j))) return NULL;
  kiln_ufunc_cache_entry *entry = &c->entries[c->next];
  entry->ufunc_id = 0; /* until kiln_ufunc_cache_store */
  entry->noperands = n;
  entry->empty = plan->size == 0;
  /* an empty call never launches, but its binding still writes operands
   * into the launch: slots that index nothing stale */
  if (entry->empty) memset(&entry->launch, 0, sizeof entry->launch);
  int arrays = 0;
  for (int j = 0; j < n; j++) {
    const kiln_operand *o = operand_at(u, inputs, outputs, j);
    cache_operand *op = &entry->operands[j];
    op->kind = o->kind;
    if (o->kind == KILN_OPERAND_ARRAY) {
      const kiln_array *a = o->value.array;
      op->dtype = a->dtype;
      op->ndim = a->ndim;
      op->shift = shift_of(kiln_dtype_size(a->dtype));
      memcpy(op->shape, a->shape, (size_t)a->ndim * sizeof *op->shape);
      memcpy(op->strides, a->strides, (size_t)a->ndim * sizeof *op->strides);
      op->slot = arrays++;
    } else {
      op->dtype = o->dtype;
      op->to = plan->scalar_dtypes[plan->operands[j].scalar];
      op->slot = plan->operands[j].scalar;
    }
  }
  c->busy = 1;
  return entry;
}

kiln_ew_prepared *kiln_ufunc_cache_launch(kiln_ufunc_cache_entry *entry) {
  return entry ? &entry->launch : NULL;
}

void kiln_ufunc_cache_store(kiln_ufunc *u, kiln_ufunc_cache_entry *entry, int prepared) {
  if (!entry) return;
  call_cache *c = &cache;
  c->busy = 0;
  if (!prepared) return;
  entry->ufunc_id = u->id;
  c->last = (unsigned)(entry - c->entries);
  c->next = (c->next + 1) % CACHE_ENTRIES;
}
