/* core/gufunc/gufunc_call.c: a gufunc call: operand checks and dispatch
 * (the ufunc's), binding the core dims by name, NumPy broadcasting of the
 * loop dims (the ufunc's broadcaster with the core dims stripped), output
 * allocation, and one launch of a core-loop kernel over views of loop +
 * core dims; with host operands the ufunc's host path (ufunc_host.c)
 * stages them in chunks of loop elements and calls that launcher per
 * chunk.
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

/* Staged rows (docs/gufuncs.md, "Long core dims"): on GPUs an input row of
 * at least STAGE_MIN elements is read by its work-group into local memory
 * before the body runs (coalesced loads), rows per group from a local
 * memory budget of at most STAGE_BUDGET bytes, at most STAGE_ROWS rows, in
 * groups of at least STAGE_GROUP work-items (more loaders than rows: the
 * copy's round trips, not the rows, set a group's pace). Automatically
 * only where the budget holds STAGE_AUTO_ROWS rows: longer rows (each a
 * serial chain in the body) run faster one per work-item, all at once.
 * Measured on an H200 (docs/performance.md): rows of 8 are faster
 * unstaged, 16 to 1024 staged. */
#define STAGE_MIN 16
#define STAGE_BUDGET (32 * 1024)
#define STAGE_ROWS 256
#define STAGE_GROUP 128
#define STAGE_AUTO_ROWS 4
#define STAGE_GROUPS_MAX 65535

_Static_assert(KILN_CORE_MAX_DIMS == KILN_UFUNC_MAX_CORE_DIMS, "core dims of a plan");

typedef struct gufunc_plan {
  kiln_ufunc_plan loop; /* a ufunc call's plan over the loop dims, with core dims */
  int64_t sizes[KILN_CORE_MAX_NAMES]; /* bound core sizes, -1 while unbound */
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
        if (l->fixed[d] >= 0)
          snprintf(name, sizeof name, "of fixed size %lld", (long long)l->fixed[d]);
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

/* Operand j's core shape and strides (bytes) from its full shape and
 * strides, whose loop part the broadcaster has read; checks that loop and
 * core dims fit one view. */
static kiln_status take_core(const kiln_gufunc *g, kiln_ufunc_plan *plan, int j,
                             const int64_t *full_shape, const int64_t *full_strides,
                             int full_ndim) {
  int core = plan->core_ndim[j];
  if (plan->ndim + core > KILN_MAX_DIMS)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "gufunc '%s': %d loop dims and %d core dims of %s %d exceed %d dims",
                          g->ufunc->name, plan->ndim, core, role(j >= plan->nin),
                          j >= plan->nin ? j - plan->nin : j, KILN_MAX_DIMS);
  for (int c = 0; c < core; c++) {
    plan->core_shape[j][c] = full_shape[full_ndim - core + c];
    plan->core_strides[j][c] = full_strides[full_ndim - core + c];
    if (j >= plan->nin && plan->core_shape[j][c] > 1 && plan->core_strides[j][c] == 0)
      return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                            "gufunc '%s': output %d has stride 0 along core dim %d of extent "
                            "%lld: a broadcast view cannot be written",
                            g->ufunc->name, j - plan->nin, c, (long long)plan->core_shape[j][c]);
  }
  return KILN_OK;
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
    kiln_ufunc_operand_plan *op = &plan->loop.operands[j];
    op->array = a;
    op->dtype = a->dtype;
    op->offset = 0;
    memcpy(op->strides, a->strides, (size_t)plan->loop.ndim * sizeof *op->strides);
    KILN_RETURN_IF_ERROR(take_core(g, &plan->loop, j, a->shape, a->strides, a->ndim));
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
  uint8_t staged[KILN_UFUNC_MAX_OPERANDS]; /* rows staged in local memory */
} gufunc_key;

static atomic_int forced_staging = KILN_GUFUNC_STAGING_ENV;
static atomic_int env_staging = -1;        /* $KILN_GUFUNC_STAGE read once; -1 unread */
static atomic_llong env_budget = -1;       /* $KILN_GUFUNC_STAGE_BYTES, likewise */
static atomic_llong env_least_group = -1;  /* $KILN_GUFUNC_STAGE_GROUP, likewise */

void kiln_gufunc_force_staging(kiln_gufunc_staging mode) {
  atomic_store(&forced_staging, (int)mode);
  atomic_store(&env_staging, -1);
  atomic_store(&env_budget, -1);
  atomic_store(&env_least_group, -1);
}

/* The mode in force: the tests' switch, else $KILN_GUFUNC_STAGE (auto,
 * always, never), read at the first call of the process. */
static kiln_status staging_mode(kiln_gufunc_staging *mode) {
  int m = atomic_load(&forced_staging);
  if (m == KILN_GUFUNC_STAGING_ENV) m = atomic_load(&env_staging);
  if (m < 0) {
    const char *v = getenv("KILN_GUFUNC_STAGE");
    if (!v || !*v || !strcmp(v, "auto")) m = KILN_GUFUNC_STAGING_AUTO;
    else if (!strcmp(v, "always")) m = KILN_GUFUNC_STAGING_ALWAYS;
    else if (!strcmp(v, "never")) m = KILN_GUFUNC_STAGING_NEVER;
    else
      return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                            "KILN_GUFUNC_STAGE='%s': expected auto, always or never", v);
    atomic_store(&env_staging, m);
  }
  *mode = (kiln_gufunc_staging)m;
  return KILN_OK;
}

/* *value = $name when set (an integer in [lo, hi]), else fallback; read
 * once into *cache (-1: unread). A value outside those is an error naming
 * the variable, as for every other setting. Tuning knobs for measuring. */
static kiln_status stage_knob(atomic_llong *cache, const char *name, long long fallback,
                              long long lo, long long hi, int64_t *value) {
  long long b = atomic_load(cache);
  if (b < 0) {
    const char *v = getenv(name);
    b = fallback;
    if (v && *v) {
      char *end = NULL;
      b = strtoll(v, &end, 10);
      if (*end != 0 || b < lo || b > hi)
        return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                              "%s='%s': expected an integer from %lld to %lld", name, v, lo, hi);
    }
    atomic_store(cache, b);
  }
  *value = (int64_t)b;
  return KILN_OK;
}

/* Which inputs of the call to stage (key->staged) and its rows per group
 * and local bytes per row (0 rows: none). Inputs with one core dim of
 * length >= 1 (auto: >= STAGE_MIN, on GPUs), read by the accessor only
 * (bodies that take KILN_DATA or KILN_STRIDE get global pointers). */
static kiln_status choose_staging(const kiln_gufunc *g, const kiln_ufunc_plan *p,
                                  const kiln_ew_layout *layout, gufunc_key *key,
                                  int64_t *rows) {
  *rows = 0;
  const kiln_context *ctx = g->ufunc->ctx;
  if (g->raw_blocks) return KILN_OK;
  kiln_gufunc_staging mode = KILN_GUFUNC_STAGING_NEVER;
  KILN_RETURN_IF_ERROR(staging_mode(&mode));
  if (mode == KILN_GUFUNC_STAGING_NEVER) return KILN_OK;
  int64_t min = 1;
  if (mode == KILN_GUFUNC_STAGING_AUTO) {
    if (ctx->info.type != KILN_DEVICE_GPU) return KILN_OK;
    min = STAGE_MIN;
  }
  int64_t budget = 0, least = 0;
  KILN_RETURN_IF_ERROR(stage_knob(&env_budget, "KILN_GUFUNC_STAGE_BYTES", STAGE_BUDGET, 1024,
                                  160 * 1024, &budget));
  /* read here too, so that a bad value fails the call before it allocates */
  KILN_RETURN_IF_ERROR(stage_knob(&env_least_group, "KILN_GUFUNC_STAGE_GROUP", STAGE_GROUP, 32,
                                  1024, &least));
  if (ctx->info.local_memory && (int64_t)ctx->info.local_memory < budget)
    budget = (int64_t)ctx->info.local_memory;
  int64_t row_bytes = 0;
  for (int j = 0, array = 0; j < p->nin; j++) {
    if (key->memory[j] == KILN_UFUNC_SCALAR_SLOT) continue;
    array++;
    if (p->core_ndim[j] != 1) continue;
    int64_t w = p->core_shape[j][0];
    if (w < min) continue;
    int64_t size = (int64_t)kiln_dtype_size((kiln_dtype)key->memory[j]);
    /* one span: the rows one after another, unit core stride */
    int unit = key->unit[j] & 1;
    int span = unit && ((layout->ndim == 1 && layout->strides[array - 1][0] == w) ||
                        (layout->ndim == 0 && w == 1));
    key->staged[j] = (uint8_t)(span ? 2 : 1);
    row_bytes += kiln_gufunc_stage_pitch(w, size) * size + 8;
    if (row_bytes > budget) break;
  }
  if (row_bytes == 0) return KILN_OK;
  int64_t r = budget / row_bytes;
  if (r > STAGE_ROWS) r = STAGE_ROWS;
  if (r >= 32) r -= r % 32; /* whole warps of rows */
  if (r < (mode == KILN_GUFUNC_STAGING_AUTO ? STAGE_AUTO_ROWS : 1))
    memset(key->staged, 0, sizeof key->staged);
  else *rows = r;
  return KILN_OK;
}

int64_t kiln_gufunc_stage_pitch(int64_t w, int64_t size) {
  /* local memory has 4-byte banks: row t at t * pitch, read element by
   * element by work-items t = 0, 1, ..., meets no bank twice when the
   * pitch is an odd number of words (of 8 bytes for 8-byte elements) */
  int64_t word = size > 4 ? size : 4;
  int64_t bytes = (w * size + word - 1) / word * word;
  if ((bytes / word) % 2 == 0) bytes += word;
  return bytes / size;
}

static kiln_status generate(void *data, kiln_strbuf *source) {
  kiln_core_loop_source(data, source);
  return KILN_OK;
}

/* Launches the staged kernel (kiln_core_loop_staged) over the layout,
 * `rows` rows per work-group at most, fewer when the compiled kernel runs
 * smaller groups. */
static kiln_status launch_staged(kiln_context *ctx, kiln_stream *stream,
                                 const kiln_program *program, const kiln_ew_signature *sig,
                                 const kiln_ew_layout *layout, const void *const *scalars,
                                 int nextra, int64_t *extra, const kiln_core_loop *loop,
                                 const int64_t *sizes, int64_t rows) {
  int64_t least = 0;
  KILN_RETURN_IF_ERROR(stage_knob(&env_least_group, "KILN_GUFUNC_STAGE_GROUP", STAGE_GROUP, 32,
                                  1024, &least));
  uint64_t group = (uint64_t)(rows > least ? rows : least);
  if (group > program->max_work_group_size) group = program->max_work_group_size;
  if ((uint64_t)rows > group) rows = (int64_t)group;
  if (rows < 1)
    return kiln_error_set(KILN_ERROR_INTERNAL, "staged gufunc kernel: no work-group size");
  extra[nextra++] = rows;
  size_t local[KILN_EW_MAX_OPERANDS + 1];
  int nlocal = 1, nstaged = 0;
  for (int k = 0; k < loop->nin; k++) {
    const kiln_core_operand *o = &loop->operands[k];
    if (!o->staged) continue;
    int64_t size = (int64_t)kiln_dtype_size(o->memory);
    int64_t pitch = kiln_gufunc_stage_pitch(sizes[o->dims[0]], size);
    extra[nextra++] = pitch;
    local[nlocal++] = (size_t)(rows * pitch * size);
    nstaged++;
  }
  local[0] = (size_t)rows * 8 * (size_t)nstaged;
  int64_t blocks = (layout->n + rows - 1) / rows;
  uint64_t groups = (uint64_t)(blocks < STAGE_GROUPS_MAX ? blocks : STAGE_GROUPS_MAX);
  return kiln_ew_launch_groups(ctx, stream, program, sig, layout, scalars, nextra, extra, nlocal,
                               local, groups, group);
}

/* The plan's launcher: `full` holds one view per array operand (operand
 * order) of the loop box then the operand's core dims. The loop dims go
 * through the element-wise planner; the core strides become kernel
 * arguments or constants. */
static kiln_status launch(void *self, const kiln_ufunc_plan *p, const kiln_array *const *full,
                          kiln_stream *stream) {
  kiln_gufunc *g = self;
  const kiln_ufunc *u = g->ufunc;
  int nops = u->nin + u->nout;
  int64_t sizes[KILN_CORE_MAX_NAMES];
  for (int d = 0; d < KILN_CORE_MAX_NAMES; d++) sizes[d] = 0;
  for (int j = 0; j < nops; j++)
    for (int c = 0; c < p->core_ndim[j]; c++) sizes[g->layout.dims[j][c]] = p->core_shape[j][c];
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
    const kiln_array *f = full[n];
    /* a body writes a core-dim output through an lvalue of its memory
     * type, which a float16 element (its bits) cannot be */
    if (j >= u->nin && p->core_ndim[j] > 0 && f->dtype == KILN_FLOAT16)
      return kiln_error_set(KILN_ERROR_UNIMPLEMENTED,
                            "gufunc '%s': output %d is float16 with core dimensions, which "
                            "gufunc bodies cannot write; use a float32 output",
                            u->name, j - u->nin);
    key.memory[j] = (uint8_t)f->dtype;
    int64_t itemsize = (int64_t)kiln_dtype_size(f->dtype);
    for (int c = 0; c < p->core_ndim[j]; c++) {
      int64_t bytes = f->strides[p->ndim + c];
      if (bytes % itemsize != 0)
        return kiln_error_set(KILN_ERROR_INTERNAL, "core stride not a multiple of its itemsize");
      strides[j][c] = bytes / itemsize;
      unit[j][c] = strides[j][c] == 1 || p->core_shape[j][c] <= 1;
      key.unit[j] |= (uint8_t)(unit[j][c] << c);
    }
    kiln_array *v = &views[n]; /* the loop dims lead */
    v->buffer = f->buffer;
    v->dtype = f->dtype;
    v->offset = f->offset;
    v->ndim = p->ndim;
    v->size = 1;
    for (int d = 0; d < p->ndim; d++) {
      v->shape[d] = f->shape[d];
      v->strides[d] = f->strides[d];
      v->size *= v->shape[d];
    }
    pointers[n++] = v;
  }
  if (n == 0 || pointers[0]->size == 0) return KILN_OK;
  kiln_ew_layout layout;
  KILN_RETURN_IF_ERROR(kiln_ew_layout_plan(n, pointers, &layout));
  key.loop_ndim = layout.ndim;
  for (int d = 0; d < g->layout.nnames; d++)
    key.sizes[d] = sizes[d] <= BAKE_MAX ? sizes[d] : -1;
  int64_t rows = 0;
  KILN_RETURN_IF_ERROR(choose_staging(g, p, &layout, &key, &rows));
  char entry[96];
  kiln_core_loop loop;
  kiln_gufunc_describe(g, p->signature, key.memory, key.sizes, unit,
                       layout.ndim, entry, &loop);
  for (int j = 0; j < u->nin; j++) loop.operands[j].staged = key.staged[j];
  /* the key on the stack unless the gufunc is large */
  char small[4096], *name = small;
  size_t length = sizeof key + g->identity_length;
  if (length > sizeof small && !(name = malloc(length)))
    return kiln_error_set(KILN_ERROR_OUT_OF_MEMORY, "out of host memory");
  memcpy(name, &key, sizeof key);
  memcpy(name + sizeof key, g->identity, g->identity_length);
  kiln_program *program = NULL;
  kiln_status status = kiln_program_get_keyed(u->ctx, name, length, NULL, entry, generate,
                                              &loop, &program);
  if (name != small) free(name);
  if (status != KILN_OK)
    return kiln_error_prefix(status, "gufunc '%s', signature %d \"%s\"", u->name, p->signature,
                             u->sigs[p->signature].text);
  kiln_ew_signature sig;
  kiln_core_loop_ew_signature(&loop, &sig);
  int64_t extra[KILN_EW_MAX_EXTRA];
  int nextra = kiln_core_loop_extra(&loop, sizes, strides,
                                    extra);
  const void *scalars[KILN_EW_MAX_SCALARS];
  for (int s = 0; s < p->nscalars; s++) scalars[s] = p->scalars[s];
  if (rows == 0)
    return kiln_ew_launch_extra(u->ctx, stream, program, &sig, &layout, scalars, nextra, extra);
  return launch_staged(u->ctx, stream, program, &sig, &layout, scalars, nextra, extra, &loop,
                       sizes, rows);
}

/* The ufunc layer's messages name "ufunc 'x'"; a gufunc's say "gufunc". */
static kiln_status as_gufunc(kiln_status status) {
  const char *message = kiln_last_error();
  if (status == KILN_OK || strncmp(message, "ufunc '", 7) != 0) return status;
  char *copy = strdup(message);
  if (!copy) return status;
  kiln_error_set(status, "g%s", copy);
  free(copy);
  return status;
}

static kiln_status call_checked(kiln_gufunc *g, const kiln_operand *inputs,
                                const kiln_operand *outputs, kiln_stream *stream,
                                gufunc_plan *plan);

static kiln_status call(kiln_gufunc *g, const kiln_operand *inputs, const kiln_operand *outputs,
                        kiln_stream *stream, gufunc_plan *plan) {
  return as_gufunc(call_checked(g, inputs, outputs, stream, plan));
}

static kiln_status call_checked(kiln_gufunc *g, const kiln_operand *inputs,
                                const kiln_operand *outputs, kiln_stream *stream,
                                gufunc_plan *plan) {
  kiln_ufunc *u = g->ufunc;
  for (int j = 0; j < u->nin; j++)
    KILN_RETURN_IF_ERROR(kiln_ufunc_check_operand(u, 0, j, &inputs[j]));
  for (int k = 0; k < u->nout; k++)
    KILN_RETURN_IF_ERROR(kiln_ufunc_check_operand(u, 1, k, &outputs[k]));
  KILN_RETURN_IF_ERROR(check_core_room(g, inputs, outputs));
  kiln_ufunc_plan *p = &plan->loop;
  int any_host = kiln_ufunc_plan_operands(u, inputs, outputs, p);
  memcpy(p->core_ndim, g->layout.ndim, sizeof p->core_ndim);
  p->launch = launch;
  p->launch_self = g;
  KILN_RETURN_IF_ERROR(kiln_ufunc_dispatch(u, inputs, outputs, p));
  KILN_RETURN_IF_ERROR(bind_core(g, inputs, outputs, plan));
  KILN_RETURN_IF_ERROR(kiln_ufunc_broadcast(u, inputs, outputs, p->core_ndim, p));
  for (int j = 0; j < u->nin + u->nout; j++) {
    const kiln_ufunc_operand_plan *op = &p->operands[j];
    if (op->own_shape)
      KILN_RETURN_IF_ERROR(take_core(g, p, j, op->own_shape, op->own_strides,
                                     op->own_ndim + p->core_ndim[j]));
  }
  KILN_RETURN_IF_ERROR(allocate_outputs(g, outputs, plan));
  if (any_host) return kiln_ufunc_run_host(u, p, stream);
  /* device path: views of the loop shape and each operand's core dims */
  kiln_array views[KILN_UFUNC_MAX_OPERANDS];
  const kiln_array *pointers[KILN_UFUNC_MAX_OPERANDS];
  int n = 0;
  for (int j = 0; j < u->nin + u->nout; j++) {
    const kiln_ufunc_operand_plan *op = &p->operands[j];
    if (op->where == KILN_UFUNC_BY_VALUE) continue;
    kiln_array *v = &views[n];
    v->buffer = op->array->buffer;
    v->dtype = op->dtype;
    v->offset = op->offset;
    v->ndim = p->ndim + p->core_ndim[j];
    v->size = 1;
    for (int d = 0; d < v->ndim; d++) {
      int core = d - p->ndim;
      v->shape[d] = core < 0 ? p->shape[d] : p->core_shape[j][core];
      v->strides[d] = core < 0 ? op->strides[d] : p->core_strides[j][core];
      v->size *= v->shape[d];
    }
    pointers[n++] = v;
  }
  return launch(g, p, pointers, stream);
}

kiln_status kiln_gufunc_call(kiln_gufunc *gufunc, int nin, const kiln_operand *inputs, int nout,
                             const kiln_operand *outputs, kiln_stream *stream) {
  KILN_CHECK_ARG(gufunc);
  const kiln_gufunc_core_layout *l = &gufunc->layout;
  if (nout == l->nout) kiln_ufunc_clear_new_outputs(nout, outputs, 0);
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
  if (status != KILN_OK) kiln_ufunc_clear_new_outputs(nout, outputs, 1);
  return status;
}
