/* core/codegen/elementwise.c: planning, generating and launching element-wise
 * loops. Every kernel visits its elements through the prelude's
 * KILN_ELEMENTS_BEGIN/END with 64-bit indices and is launched by
 * kiln_program_launch_elements: a grid-stride loop over a bounded grid on
 * GPUs, one element per work-item with no bound test on CPU devices. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "core/codegen/elementwise.h"

kiln_status kiln_ew_layout_plan(int noperands, const kiln_array *const *operands,
                                kiln_ew_layout *layout) {
  if (noperands < 1 || noperands > KILN_EW_MAX_OPERANDS)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "%d operands (1..%d)", noperands,
                          KILN_EW_MAX_OPERANDS);
  const kiln_array *first = operands[0];
  memset(layout, 0, sizeof *layout);
  layout->n = first->size;
  int ndim = 0;
  int64_t shape[KILN_MAX_DIMS];
  int64_t strides[KILN_EW_MAX_OPERANDS][KILN_MAX_DIMS];
  for (int k = 0; k < noperands; k++) {
    const kiln_array *a = operands[k];
    if (a->ndim != first->ndim || memcmp(a->shape, first->shape, (size_t)a->ndim * 8) != 0)
      return kiln_error_set(KILN_ERROR_INTERNAL, "element-wise operands of different shapes");
    if (a->buffer->ctx != first->buffer->ctx)
      return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "arrays of different contexts");
    int64_t itemsize = (int64_t)kiln_dtype_size(a->dtype);
    if (a->offset % itemsize != 0)
      return kiln_error_set(KILN_ERROR_INTERNAL, "view offset not a multiple of its itemsize");
    layout->buffers[k] = a->buffer->handle;
    layout->offsets[k] = a->offset / itemsize;
  }
  /* Drop extent-1 dims, then merge a dim into the next inner one when every
   * operand steps through both as one. */
  for (int d = 0; d < first->ndim; d++) {
    if (first->shape[d] == 1) continue;
    int merge = ndim > 0;
    for (int k = 0; k < noperands && merge; k++) {
      const kiln_array *a = operands[k];
      int64_t itemsize = (int64_t)kiln_dtype_size(a->dtype);
      merge = strides[k][ndim - 1] == (a->strides[d] / itemsize) * first->shape[d];
    }
    for (int k = 0; k < noperands; k++) {
      const kiln_array *a = operands[k];
      int64_t itemsize = (int64_t)kiln_dtype_size(a->dtype);
      if (a->strides[d] % itemsize != 0)
        return kiln_error_set(KILN_ERROR_INTERNAL, "stride not a multiple of its itemsize");
      strides[k][merge ? ndim - 1 : ndim] = a->strides[d] / itemsize;
    }
    if (merge) shape[ndim - 1] *= first->shape[d];
    else shape[ndim++] = first->shape[d];
  }
  int contiguous = 1;
  for (int k = 0; k < noperands && ndim > 0; k++)
    contiguous &= ndim == 1 && strides[k][0] == 1;
  layout->ndim = contiguous ? 0 : ndim;
  for (int d = 0; d < layout->ndim; d++) {
    layout->shape[d] = shape[d];
    for (int k = 0; k < noperands; k++) layout->strides[k][d] = strides[k][d];
  }
  return KILN_OK;
}

void kiln_ew_append_parameters(const kiln_ew_signature *sig, int ndim, const char *name,
                               kiln_strbuf *out) {
  kiln_strbuf_appendf(out, "KILN_KERNEL void %s(int64_t n, int64_t base", name);
  for (int d = 0; d < ndim; d++) kiln_strbuf_appendf(out, ", int64_t shape%d", d);
  for (int k = 0; k < sig->noperands; k++) {
    kiln_strbuf_appendf(out, ",\n    KILN_GLOBAL %s%s *p%d, int64_t o%d",
                        k < sig->ninputs ? "const " : "", kiln_dtype_kernel_type(sig->dtypes[k]),
                        k, k);
    for (int d = 0; d < ndim; d++) kiln_strbuf_appendf(out, ", int64_t t%d_%d", k, d);
  }
  for (int s = 0; s < sig->nscalars; s++)
    kiln_strbuf_appendf(out, ",\n    %s s%d", kiln_dtype_kernel_type(sig->scalar_dtypes[s]), s);
}

void kiln_ew_append_loop_head(const kiln_ew_signature *sig, int ndim, kiln_strbuf *out) {
  kiln_strbuf_append(out, "  KILN_ELEMENTS_BEGIN(i, base, n)\n");
  kiln_ew_append_offsets(sig, ndim, out);
}

/* The offsets e<k><suffix> of every operand at flat index `index` (an
 * expression, read once). */
static void append_offsets_at(const kiln_ew_signature *sig, int ndim, const char *index,
                              const char *suffix, kiln_strbuf *out) {
  if (ndim == 0) {
    for (int k = 0; k < sig->noperands; k++)
      kiln_strbuf_appendf(out, "    int64_t e%d%s = o%d + %s;\n", k, suffix, k, index);
  } else {
    for (int k = 0; k < sig->noperands; k++)
      kiln_strbuf_appendf(out, "    int64_t e%d%s = o%d;\n", k, suffix, k);
    kiln_strbuf_appendf(out, "    int64_t r%s = %s;\n", suffix, index);
    /* innermost dim first; the outermost takes what is left, no division */
    for (int d = ndim - 1; d >= 0; d--) {
      if (d > 0)
        kiln_strbuf_appendf(out, "    { int64_t c = r%s %% shape%d; r%s /= shape%d;\n", suffix, d,
                            suffix, d);
      else
        kiln_strbuf_appendf(out, "    { int64_t c = r%s;\n", suffix);
      for (int k = 0; k < sig->noperands; k++)
        kiln_strbuf_appendf(out, "      e%d%s += c * t%d_%d;\n", k, suffix, k, d);
      kiln_strbuf_append(out, "    }\n");
    }
  }
}

void kiln_ew_append_offsets(const kiln_ew_signature *sig, int ndim, kiln_strbuf *out) {
  append_offsets_at(sig, ndim, "i", "", out);
}

void kiln_ew_append_loop_tail(kiln_strbuf *out) {
  kiln_strbuf_append(out, "  KILN_ELEMENTS_END\n}\n");
}

/* Element i's statements once its inputs are loaded into v<k><suffix>
 * (inputs) and its offsets are e<k><suffix>: the body over v<k>, then the
 * stores of the outputs. */
static void append_element(const kiln_ew_signature *sig, const char *body, const char *suffix,
                           kiln_strbuf *out) {
  char element[32], access[96];
  for (int k = 0; k < sig->noperands; k++) {
    const char *type = kiln_ew_value_type(sig->dtypes[k]);
    if (k < sig->ninputs && suffix[0]) kiln_strbuf_appendf(out, "    %s v%d = v%d%s;\n", type, k, k, suffix);
    else if (k >= sig->ninputs) kiln_strbuf_appendf(out, "    %s v%d;\n", type, k);
  }
  kiln_strbuf_appendf(out, "    { %s }\n", body);
  for (int k = sig->ninputs; k < sig->noperands; k++) {
    snprintf(element, sizeof element, "v%d", k);
    kiln_ew_store_expression(sig->dtypes[k], element, access, sizeof access);
    kiln_strbuf_appendf(out, "    p%d[e%d%s] = %s;\n", k, k, suffix, access);
  }
}

/* The loads of every input at offsets e<k><suffix> into v<k><suffix>. */
static void append_loads(const kiln_ew_signature *sig, const char *suffix, kiln_strbuf *out) {
  char element[32], access[96];
  for (int k = 0; k < sig->ninputs; k++) {
    snprintf(element, sizeof element, "p%d[e%d%s]", k, k, suffix);
    kiln_ew_load_expression(sig->dtypes[k], element, access, sizeof access);
    kiln_strbuf_appendf(out, "    %s v%d%s = %s;\n", kiln_ew_value_type(sig->dtypes[k]), k, suffix,
                        access);
  }
}

/* Whether body names the flat index i (an identifier "i"; a false yes
 * only costs an unused variable): the batched trips declare it only then,
 * as compilers warn about an unused one. */
static int mentions_index(const char *body) {
  for (const char *c = strchr(body, 'i'); c; c = strchr(c + 1, 'i')) {
    int before = c > body && (isalnum((unsigned char)c[-1]) || c[-1] == '_');
    int after = isalnum((unsigned char)c[1]) || c[1] == '_';
    if (!before && !after) return 1;
  }
  return 0;
}

/* The 16-byte vector of four elements of dtype d, or NULL: only 4-byte
 * dtypes, whose loads and stores are the element itself (no conversion). */
static const char *quad_vector_type(kiln_dtype d) {
  switch (d) {
    case KILN_FLOAT32: return "kiln_float32x4";
    case KILN_INT32: return "kiln_int32x4";
    case KILN_UINT32: return "kiln_uint32x4";
    default: return NULL;
  }
}

static int quads_possible(const kiln_ew_signature *sig, int ndim) {
  if (ndim != 0) return 0;
  for (int k = 0; k < sig->noperands; k++)
    if (!quad_vector_type(sig->dtypes[k])) return 0;
  return 1;
}

/* GPUs, contiguous layouts whose operands are all of 4-byte dtypes: when
 * every operand's element at `base` lies at a 16-byte aligned address
 * (checked in the kernel, the same for all work-items: pool allocations
 * are aligned, a wrapped pointer or a view may not be), each work-item
 * takes four consecutive elements per trip with one 16-byte load per input
 * and one 16-byte store per output; the indices left (fewer than four)
 * go to the loop after it. Why: the same bytes in flight as four batched
 * scalar loads with a quarter of the memory instructions, which is what a
 * long fused body leaves room for (docs/fusion.md, "Speed"). Each
 * element's values, body and stored value are those of the one-index
 * loop, so the bits are the same; an element's loads precede its stores. */
static void append_quad_trips(const kiln_ew_signature *sig, const char *body, kiln_strbuf *out) {
  static const char lanes[] = "xyzw";
  int uses_index = mentions_index(body);
  kiln_strbuf_append(out, "  if (");
  for (int k = 0; k < sig->noperands; k++)
    kiln_strbuf_appendf(out, "%s((size_t)(p%d + o%d + base) & 15) == 0", k ? " && " : "", k, k);
  kiln_strbuf_append(out, ") {\n");
  kiln_strbuf_append(out, "    const int64_t kiln_quads = (n - base) / 4;\n");
  kiln_strbuf_append(out, "    for (int64_t kiln_q = kiln_global_id(0); kiln_q < kiln_quads;"
                          " kiln_q += kiln_global_size(0)) {\n");
  kiln_strbuf_append(out, "    const int64_t kiln_i = base + 4 * kiln_q;\n");
  for (int k = 0; k < sig->ninputs; k++) {
    const char *vector = quad_vector_type(sig->dtypes[k]);
    kiln_strbuf_appendf(out, "    %s w%d = kiln_vload(%s, p%d + o%d + kiln_i);\n", vector, k,
                        vector, k, k);
  }
  for (int k = sig->ninputs; k < sig->noperands; k++)
    kiln_strbuf_appendf(out, "    %s w%d;\n", quad_vector_type(sig->dtypes[k]), k);
  for (int j = 0; j < 4; j++) {
    kiln_strbuf_append(out, "    {\n");
    if (uses_index) kiln_strbuf_appendf(out, "    int64_t i = kiln_i + %d;\n", j);
    for (int k = 0; k < sig->noperands; k++) {
      const char *type = kiln_ew_value_type(sig->dtypes[k]);
      if (k < sig->ninputs) kiln_strbuf_appendf(out, "    %s v%d = w%d.%c;\n", type, k, k, lanes[j]);
      else kiln_strbuf_appendf(out, "    %s v%d;\n", type, k);
    }
    kiln_strbuf_appendf(out, "    { %s }\n", body);
    for (int k = sig->ninputs; k < sig->noperands; k++)
      kiln_strbuf_appendf(out, "    w%d.%c = v%d;\n", k, lanes[j], k);
    kiln_strbuf_append(out, "    }\n");
  }
  for (int k = sig->ninputs; k < sig->noperands; k++)
    kiln_strbuf_appendf(out, "    *(KILN_GLOBAL %s *)(p%d + o%d + kiln_i) = w%d;\n",
                        quad_vector_type(sig->dtypes[k]), k, k, k);
  kiln_strbuf_append(out, "    }\n    base += 4 * kiln_quads;\n  } else {\n");
}

/* GPUs: the trips of `batch` indices each (KILN_ELEMENTS_BATCH_BEGIN), all
 * their loads first, then each index's body and stores. A work-item of the
 * one-index loop waits for its load before its computation and only then
 * issues the next load; with a long body (the fused hidden layer: two
 * exps, two divisions) too few loads are in flight to use the memory
 * (ncu on an H200: 52% of DRAM bandwidth, warps stalled 26.5 of 31.7
 * cycles on their loads). Loading `batch` elements first puts that many
 * in flight. Each index's values, body and stores are those of the
 * one-index loop, so the bits are the same; an index's loads still come
 * before its stores (in-place operands). Operands must not overlap other
 * than element for element (see kiln_ew_source_batched), as then a store
 * could reach a later index's load. */
static void append_batched_trips(const kiln_ew_signature *sig, int ndim, const char *body,
                                 int batch, kiln_strbuf *out) {
  char index[64], suffix[16];
  int uses_index = mentions_index(body);
  int quads = quads_possible(sig, ndim);
  kiln_strbuf_append(out, "#ifndef KILN_DEVICE_IS_CPU\n");
  if (quads) append_quad_trips(sig, body, out);
  kiln_strbuf_appendf(out, "  KILN_ELEMENTS_BATCH_BEGIN(kiln_i, kiln_step, base, n, %d)\n", batch);
  for (int j = 0; j < batch; j++) {
    snprintf(index, sizeof index, j ? "kiln_i + %d * kiln_step" : "kiln_i", j);
    snprintf(suffix, sizeof suffix, "_%d", j);
    append_offsets_at(sig, ndim, index, suffix, out);
  }
  for (int j = 0; j < batch; j++) {
    snprintf(suffix, sizeof suffix, "_%d", j);
    append_loads(sig, suffix, out);
  }
  for (int j = 0; j < batch; j++) {
    snprintf(suffix, sizeof suffix, "_%d", j);
    kiln_strbuf_append(out, "    {\n");
    if (uses_index) kiln_strbuf_appendf(out, "    int64_t i = kiln_i + %d * kiln_step;\n", j);
    append_element(sig, body, suffix, out);
    kiln_strbuf_append(out, "    }\n");
  }
  kiln_strbuf_append(out, "  KILN_ELEMENTS_BATCH_END(kiln_i, base)\n");
  if (quads) kiln_strbuf_append(out, "  }\n");
  kiln_strbuf_append(out, "#endif\n");
}

void kiln_ew_source(const kiln_ew_signature *sig, int ndim, const char *name,
                    const char *preamble, const char *body, kiln_strbuf *out) {
  kiln_ew_source_batched(sig, ndim, name, preamble, body, 1, out);
}

void kiln_ew_source_batched(const kiln_ew_signature *sig, int ndim, const char *name,
                            const char *preamble, const char *body, int batch,
                            kiln_strbuf *out) {
  if (preamble) {
    kiln_strbuf_append(out, preamble);
    kiln_strbuf_append(out, "\n");
  }
  kiln_ew_append_parameters(sig, ndim, name, out);
  kiln_strbuf_append(out, ") {\n");
  if (batch > 1) append_batched_trips(sig, ndim, body, batch, out);
  kiln_ew_append_loop_head(sig, ndim, out);
  append_loads(sig, "", out);
  append_element(sig, body, "", out);
  kiln_ew_append_loop_tail(out);
}

kiln_status kiln_ew_launch(kiln_context *ctx, kiln_stream *stream, const kiln_program *program,
                           const kiln_ew_signature *sig, const kiln_ew_layout *layout,
                           const void *const *scalars) {
  return kiln_ew_launch_extra(ctx, stream, program, sig, layout, scalars, 0, NULL);
}

/* Writes the arguments of an element-wise kernel (kiln_ew_append_parameters'
 * order) into args, each scalar pointing at its value where it lies: n, the
 * shape, per operand its buffer, element offset and strides (operand k's
 * at strides[k * row]), then the scalars. Returns the count; *base_arg is
 * the slot kiln_program_launch_elements fills. */
static int put_args(const kiln_ew_signature *sig, int ndim, const int64_t *n,
                    const int64_t *shape, kiln_backend_buffer *const *buffers,
                    const int64_t *offsets, const int64_t *strides, int row,
                    const void *const *scalars, kiln_backend_arg *args, int *base_arg) {
  int count = 0;
#define SCALAR_ARG(ptr)                                                          \
  (args[count++] = (kiln_backend_arg){.kind = KILN_BACKEND_ARG_SCALAR, .value = (ptr), \
                                      .size = sizeof(int64_t)})
  SCALAR_ARG(n);
  *base_arg = count++;
  for (int d = 0; d < ndim; d++) SCALAR_ARG(&shape[d]);
  for (int k = 0; k < sig->noperands; k++) {
    args[count++] = (kiln_backend_arg){.kind = KILN_BACKEND_ARG_BUFFER,
                                       .buffer = buffers ? buffers[k] : NULL};
    SCALAR_ARG(&offsets[k]);
    for (int d = 0; d < ndim; d++) SCALAR_ARG(&strides[k * row + d]);
  }
#undef SCALAR_ARG
  for (int s = 0; s < sig->nscalars; s++)
    args[count++] = (kiln_backend_arg){.kind = KILN_BACKEND_ARG_SCALAR, .value = scalars[s],
                                       .size = kiln_dtype_size(sig->scalar_dtypes[s])};
  return count;
}

enum { EW_MAX_ARGS = 2 + KILN_MAX_DIMS + KILN_EW_MAX_OPERANDS * (2 + KILN_MAX_DIMS) +
                     KILN_EW_MAX_SCALARS + KILN_EW_MAX_EXTRA + KILN_EW_MAX_OPERANDS + 1 };

/* put_args over the layout, then nextra int64 arguments; -1 (an error
 * set) when nextra is out of range. */
static int put_layout_args(const kiln_ew_signature *sig, const kiln_ew_layout *layout,
                           const void *const *scalars, int nextra, const int64_t *extra,
                           kiln_backend_arg *args, int *base_arg) {
  if (nextra < 0 || nextra > KILN_EW_MAX_EXTRA) {
    kiln_error_set(KILN_ERROR_INTERNAL, "%d extra kernel arguments (0..%d)", nextra,
                   KILN_EW_MAX_EXTRA);
    return -1;
  }
  int n = put_args(sig, layout->ndim, &layout->n, layout->shape, layout->buffers,
                   layout->offsets, &layout->strides[0][0], KILN_MAX_DIMS, scalars, args,
                   base_arg);
  for (int x = 0; x < nextra; x++)
    args[n++] = (kiln_backend_arg){.kind = KILN_BACKEND_ARG_SCALAR, .value = &extra[x],
                                   .size = sizeof(int64_t)};
  return n;
}

kiln_status kiln_ew_launch_extra(kiln_context *ctx, kiln_stream *stream,
                                 const kiln_program *program, const kiln_ew_signature *sig,
                                 const kiln_ew_layout *layout, const void *const *scalars,
                                 int nextra, const int64_t *extra) {
  if (layout->n == 0) return KILN_OK;
  kiln_backend_arg args[EW_MAX_ARGS];
  int base_arg;
  int n = put_layout_args(sig, layout, scalars, nextra, extra, args, &base_arg);
  if (n < 0) return KILN_ERROR_INTERNAL;
  return kiln_program_launch_elements(ctx, program, stream, layout->n, n, args, base_arg);
}

kiln_status kiln_ew_launch_groups(kiln_context *ctx, kiln_stream *stream,
                                  const kiln_program *program, const kiln_ew_signature *sig,
                                  const kiln_ew_layout *layout, const void *const *scalars,
                                  int nextra, const int64_t *extra, int nlocal,
                                  const size_t *local_bytes, uint64_t groups,
                                  uint64_t group_size) {
  if (layout->n == 0) return KILN_OK;
  if (nlocal < 0 || nlocal > KILN_EW_MAX_OPERANDS + 1)
    return kiln_error_set(KILN_ERROR_INTERNAL, "%d local kernel arguments", nlocal);
  kiln_backend_arg args[EW_MAX_ARGS];
  int base_arg;
  int n = put_layout_args(sig, layout, scalars, nextra, extra, args, &base_arg);
  if (n < 0) return KILN_ERROR_INTERNAL;
  static const int64_t zero = 0;
  args[base_arg] = (kiln_backend_arg){.kind = KILN_BACKEND_ARG_SCALAR, .value = &zero,
                                      .size = sizeof zero};
  for (int x = 0; x < nlocal; x++)
    args[n++] = (kiln_backend_arg){.kind = KILN_BACKEND_ARG_LOCAL, .local_bytes = local_bytes[x]};
  kiln_backend_launch launch = {
      .work_dim = 1, .global = {groups * group_size, 1, 1}, .local = {group_size, 1, 1}};
  return kiln_program_launch(ctx, program, stream, &launch, n, args);
}

int kiln_ew_prepare(kiln_context *ctx, const kiln_program *program,
                    const kiln_ew_signature *sig, const kiln_ew_layout *layout,
                    kiln_ew_prepared *p) {
  if (layout->ndim > KILN_EW_PREPARED_DIMS || sig->noperands > KILN_EW_PREPARED_OPERANDS ||
      sig->nscalars > KILN_EW_MAX_SCALARS)
    return 0;
  p->program = program;
  kiln_program_elements_grid(ctx, program, layout->n, &p->grid);
  for (int d = 0; d < layout->ndim; d++) {
    p->shape[d] = layout->shape[d];
    for (int k = 0; k < sig->noperands; k++) p->strides[k][d] = layout->strides[k][d];
  }
  const void *scalars[KILN_EW_MAX_SCALARS];
  for (int s = 0; s < sig->nscalars; s++) scalars[s] = p->scalars[s];
  p->nargs = put_args(sig, layout->ndim, &p->grid.n, p->shape, NULL, p->offsets,
                      &p->strides[0][0], KILN_EW_PREPARED_DIMS, scalars, p->args,
                      &p->base_arg);
  p->operand_arg = 2 + layout->ndim;
  p->operand_step = 2 + layout->ndim;
  return 1;
}

kiln_status kiln_ew_launch_prepared(kiln_context *ctx, kiln_stream *stream,
                                    kiln_ew_prepared *p) {
  return kiln_program_launch_grid(ctx, p->program, stream, &p->grid, p->nargs, p->args,
                                  p->base_arg);
}

typedef struct ew_request {
  const kiln_ew_signature *sig;
  int ndim;
  const char *name, *preamble, *body;
} ew_request;

static kiln_status ew_generate(void *data, kiln_strbuf *source) {
  const ew_request *r = data;
  kiln_ew_source(r->sig, r->ndim, r->name, r->preamble, r->body, source);
  return KILN_OK;
}

kiln_status kiln_ew_run(kiln_context *ctx, kiln_stream *stream, const kiln_ew_signature *sig,
                        const char *name, const char *preamble, const char *body,
                        const kiln_array *const *operands, const void *const *scalars) {
  kiln_ew_layout layout;
  KILN_RETURN_IF_ERROR(kiln_ew_layout_plan(sig->noperands, operands, &layout));
  if (layout.n == 0) return KILN_OK;
  /* Name the program by what generates it (a few dozen bytes), so a repeat
   * call neither generates nor hashes the source. */
  char key[1024];
  int n = snprintf(key, sizeof key, "\1ew|%s|%d|%d|%d|%d|", name, layout.ndim, sig->ninputs,
                   sig->noperands, sig->nscalars);
  for (int k = 0; k < sig->noperands && n < (int)sizeof key; k++)
    n += snprintf(key + n, sizeof key - (size_t)n, "%d,", (int)sig->dtypes[k]);
  for (int k = 0; k < sig->nscalars && n < (int)sizeof key; k++)
    n += snprintf(key + n, sizeof key - (size_t)n, "%d;", (int)sig->scalar_dtypes[k]);
  if (n < (int)sizeof key)
    n += snprintf(key + n, sizeof key - (size_t)n, "|%s|%s", preamble ? preamble : "", body);
  if (n >= (int)sizeof key)
    return kiln_error_set(KILN_ERROR_INTERNAL, "element-wise kernel key too long");
  ew_request request = {sig, layout.ndim, name, preamble, body};
  kiln_program *program = NULL;
  KILN_RETURN_IF_ERROR(kiln_program_get_keyed(ctx, key, (size_t)n, NULL, name, ew_generate,
                                              &request, &program));
  return kiln_ew_launch(ctx, stream, program, sig, &layout, scalars);
}

const char *kiln_ew_value_type(kiln_dtype d) {
  return d == KILN_FLOAT16 ? "float" : kiln_dtype_kernel_type(d);
}

void kiln_ew_load_expression(kiln_dtype d, const char *element, char *out, size_t size) {
  if (d == KILN_FLOAT16) snprintf(out, size, "kiln_half_to_float(%s)", element);
  else snprintf(out, size, "%s", element);
}

void kiln_ew_store_expression(kiln_dtype d, const char *value, char *out, size_t size) {
  if (d == KILN_FLOAT16) snprintf(out, size, "kiln_float_to_half(%s)", value);
  else snprintf(out, size, "%s", value);
}

/* "kiln_complex64_make(re, im)" for complex dtype d. */
static void complex_make(kiln_dtype d, const char *re, const char *im, char *out, size_t size) {
  snprintf(out, size, "%s_make(%s, %s)", kiln_dtype_kernel_type(d), re, im);
}

void kiln_ew_zero_expression(kiln_dtype d, char *out, size_t size) {
  if (kiln_dtype_is_complex(d)) complex_make(d, "0", "0", out, size);
  else snprintf(out, size, "(%s)0", kiln_ew_value_type(d));
}

void kiln_ew_cast_expression(kiln_dtype from, kiln_dtype to, const char *v, char *out,
                             size_t size) {
  char part[2][1200], element[1100];
  if (from == to) {
    snprintf(out, size, "%s", v);
  } else if (kiln_dtype_is_complex(from)) {
    /* NumPy's complex casts: to complex, each part; to bool, nonzero
     * either part; to any other real dtype, the real part's cast */
    if (to == KILN_BOOL) {
      snprintf(out, size, "(kiln_bool)((%s).real != 0 || (%s).imag != 0)", v, v);
      return;
    }
    kiln_dtype from_part = kiln_dtype_component(from), to_part = kiln_dtype_component(to);
    snprintf(element, sizeof element, "(%s).real", v);
    kiln_ew_cast_expression(from_part, to_part, element, part[0], sizeof part[0]);
    if (!kiln_dtype_is_complex(to)) {
      snprintf(out, size, "%s", part[0]);
      return;
    }
    snprintf(element, sizeof element, "(%s).imag", v);
    kiln_ew_cast_expression(from_part, to_part, element, part[1], sizeof part[1]);
    complex_make(to, part[0], part[1], out, size);
  } else if (kiln_dtype_is_complex(to)) {
    /* a real value: the real part, imaginary part 0 */
    kiln_ew_cast_expression(from, kiln_dtype_component(to), v, part[0], sizeof part[0]);
    complex_make(to, part[0], "0", out, size);
  }
  else if (to == KILN_BOOL) snprintf(out, size, "(kiln_bool)(%s != 0)", v);
  /* to float16: the float holding the float16 value; bool and 8-bit ints
   * are exact, float64 rounds once (as NumPy's cast), the rest through
   * float (exact for every int that does not overflow float16 anyway) */
  else if (to == KILN_FLOAT16 && kiln_dtype_can_cast_safely(from, to))
    snprintf(out, size, "(float)%s", v);
  else if (to == KILN_FLOAT16 && from == KILN_FLOAT64)
    snprintf(out, size, "kiln_half_to_float(kiln_double_to_half(%s))", v);
  else if (to == KILN_FLOAT16) snprintf(out, size, "kiln_round_to_half((float)%s)", v);
  else snprintf(out, size, "(%s)%s", kiln_ew_value_type(to), v);
}

void kiln_ew_fill_body(kiln_dtype d, char *out, size_t size) {
  char load[48];
  kiln_ew_load_expression(d, "s0", load, sizeof load);
  snprintf(out, size, "v0 = %s;", load);
}

void kiln_ew_copy_body(kiln_dtype from, kiln_dtype to, char *out, size_t size) {
  char cast[256];
  kiln_ew_cast_expression(from, to, "v0", cast, sizeof cast);
  snprintf(out, size, "v1 = %s;", cast);
}

kiln_status kiln_ew_fill(kiln_array *dst, const void *value) {
  return kiln_ew_fill_on(dst, value, NULL);
}

kiln_status kiln_ew_fill_on(kiln_array *dst, const void *value, kiln_stream *stream) {
  kiln_ew_signature sig = {.ninputs = 0, .noperands = 1, .dtypes = {dst->dtype},
                           .nscalars = 1, .scalar_dtypes = {dst->dtype}};
  /* bool storage is a byte: normalise any nonzero byte to 1 */
  unsigned char normalised;
  if (dst->dtype == KILN_BOOL) {
    normalised = *(const unsigned char *)value != 0;
    value = &normalised;
  }
  const kiln_array *operands[1] = {dst};
  const void *scalars[1] = {value};
  char body[64];
  kiln_ew_fill_body(dst->dtype, body, sizeof body);
  return kiln_ew_run(dst->buffer->ctx, stream, &sig, "kiln_fill", NULL, body, operands, scalars);
}

kiln_status kiln_ew_copy(kiln_array *dst, const kiln_array *src) {
  return kiln_ew_copy_on(dst, src, NULL);
}

kiln_status kiln_ew_copy_on(kiln_array *dst, const kiln_array *src, kiln_stream *stream) {
  kiln_ew_signature sig = {.ninputs = 1, .noperands = 2, .dtypes = {src->dtype, dst->dtype}};
  char body[288];
  kiln_ew_copy_body(src->dtype, dst->dtype, body, sizeof body);
  const kiln_array *operands[2] = {src, dst};
  return kiln_ew_run(dst->buffer->ctx, stream, &sig, "kiln_copy", NULL, body, operands, NULL);
}
