/* core/random/random_device.c: the kernels that fill an array with a
 * draw. One work-item computes one Philox block (kiln_draw_* of
 * kernels/random.kl) and stores its 4 or 2 values to consecutive elements
 * (C order) of any view, through the element-wise generator's operand
 * layout (merged dims, contiguous or strided offsets). */
#include <stdio.h>
#include <string.h>

#include "core/codegen/elementwise.h"
#include "core/random/random_internal.h"
#include "core/runtime/error.h"

int kiln_random_values_per_block(const kiln_random_draw *d) {
  if (d->kind == KILN_RANDOM_INTEGERS) return d->wide ? 2 : 4;
  if (d->kind == KILN_RANDOM_BERNOULLI) return 4;
  return d->dtype == KILN_FLOAT64 ? 2 : 4;
}

const char *kiln_random_value_type(const kiln_random_draw *d) {
  if (d->kind == KILN_RANDOM_INTEGERS || d->kind == KILN_RANDOM_BERNOULLI) return "uint64_t";
  return d->dtype == KILN_FLOAT64 ? "double" : "float";
}

/* The dtype of the draw's parameter scalars s3, s4. */
static kiln_dtype parameter_dtype(const kiln_random_draw *d) {
  if (d->kind == KILN_RANDOM_INTEGERS || d->kind == KILN_RANDOM_BERNOULLI) return KILN_UINT64;
  return d->dtype == KILN_FLOAT64 ? KILN_FLOAT64 : KILN_FLOAT32;
}

static void fill_signature(const kiln_random_draw *d, kiln_ew_signature *sig) {
  memset(sig, 0, sizeof *sig);
  sig->ninputs = 0;
  sig->noperands = 1;
  sig->dtypes[0] = d->dtype;
  sig->nscalars = 5; /* seed, stream, position, two parameters */
  sig->scalar_dtypes[0] = sig->scalar_dtypes[1] = sig->scalar_dtypes[2] = KILN_UINT64;
  sig->scalar_dtypes[3] = sig->scalar_dtypes[4] = parameter_dtype(d);
}

/* "kiln_random_normal_float32" */
static void kernel_name(const kiln_random_draw *d, char *out, size_t size) {
  static const char *const kinds[] = {"uniform", "normal", "lognormal", "exponential",
                                      "integers", "bernoulli"};
  snprintf(out, size, "kiln_random_%s%s_%s", kinds[d->kind],
           d->kind == KILN_RANDOM_INTEGERS && d->wide ? "_wide" : "", kiln_dtype_name(d->dtype));
}

/* The statement computing the block's values into `values`. */
static void block_expression(const kiln_random_draw *d, char *out, size_t size) {
  if (d->kind == KILN_RANDOM_INTEGERS)
    snprintf(out, size, "kiln_random_u64x4 values = kiln_draw_integers(s0, s1, block, s3, s4, %d);",
             d->wide);
  else if (d->kind == KILN_RANDOM_BERNOULLI)
    snprintf(out, size, "kiln_random_u64x4 values = kiln_draw_bernoulli(s0, s1, block, s4);");
  else if (d->dtype == KILN_FLOAT64)
    snprintf(out, size, "kiln_random_f64x2 values = kiln_draw_f64(%d, s0, s1, block, s3, s4);",
             (int)d->kind);
  else
    snprintf(out, size, "kiln_random_f32x4 values = kiln_draw_%s(%d, s0, s1, block, s3, s4);",
             d->dtype == KILN_FLOAT16 ? "f16" : "f32", (int)d->kind);
}

/* The stored element for value `v` (of kiln_random_value_type). */
static void store_expression(const kiln_random_draw *d, char *out, size_t size) {
  char value[96];
  const char *type = kiln_random_value_type(d);
  if (strcmp(type, "uint64_t") != 0) snprintf(value, sizeof value, "v");
  else if (d->dtype == KILN_BOOL) snprintf(value, sizeof value, "(kiln_bool)(v != 0)");
  else if (d->dtype == KILN_FLOAT16 || d->dtype == KILN_FLOAT32)
    snprintf(value, sizeof value, "(float)v");
  else if (d->dtype == KILN_FLOAT64) snprintf(value, sizeof value, "(double)v");
  else snprintf(value, sizeof value, "(%s)(int64_t)v", kiln_dtype_kernel_type(d->dtype));
  kiln_ew_store_expression(d->dtype, value, out, size);
}

/* The 16-byte vector type of a whole block's values (4 4-byte or 2 8-byte
 * elements), or NULL when the block is not 16 bytes of one of them. */
static const char *block_vector_type(const kiln_random_draw *d) {
  int per_block = kiln_random_values_per_block(d);
  if (per_block == 4 && d->dtype == KILN_FLOAT32) return "kiln_float32x4";
  if (per_block == 4 && d->dtype == KILN_INT32) return "kiln_int32x4";
  if (per_block == 4 && d->dtype == KILN_UINT32) return "kiln_uint32x4";
  if (per_block == 2 && d->dtype == KILN_FLOAT64) return "kiln_float64x2";
  if (per_block == 2 && d->dtype == KILN_INT64) return "kiln_int64x2";
  if (per_block == 2 && d->dtype == KILN_UINT64) return "kiln_uint64x2";
  return NULL;
}

typedef struct random_request {
  const kiln_random_draw *draw;
  int ndim;
  int vector; /* contiguous, first element 16-byte aligned: one vector store */
} random_request;

/* The stores of value k of the block to element i = g V + k. */
static void append_store(const kiln_random_draw *d, const kiln_ew_signature *sig, int ndim,
                         int per_block, int checked, const char *store, kiln_strbuf *out) {
  kiln_strbuf_appendf(out, "      for (int k = 0; k < %d; k++) {\n", per_block);
  kiln_strbuf_appendf(out, "        int64_t i = g * %d + k;\n", per_block);
  if (checked) kiln_strbuf_append(out, "        if (i >= total) break;\n");
  kiln_strbuf_appendf(out, "        %s v = values.v[k];\n", kiln_random_value_type(d));
  kiln_ew_append_offsets(sig, ndim, out);
  kiln_strbuf_appendf(out, "        p0[e0] = %s;\n      }\n", store);
}

/* A whole block's values as one 16-byte store (contiguous output whose
 * element o0 is 16-byte aligned): a warp then writes whole sectors, where
 * 4 scalar stores per work-item would each touch every sector. */
static void append_vector_store(const kiln_random_draw *d, int per_block, const char *store,
                                const char *destination, kiln_strbuf *out) {
  static const char lanes[] = "xyzw";
  const char *type = block_vector_type(d);
  if (!type) return; /* callers ask only for types that have one */
  kiln_strbuf_appendf(out, "      %s vector;\n", type);
  for (int k = 0; k < per_block; k++)
    kiln_strbuf_appendf(out, "      { %s v = values.v[%d]; vector.%c = %s; }\n",
                        kiln_random_value_type(d), k, lanes[k], store);
  kiln_strbuf_appendf(out, "      %s = vector;\n", destination);
}

/* The vector kernel (contiguous output, 16-byte aligned) draws whole
 * blocks only, at most KILN_RANDOM_VECTOR_BLOCKS per launch
 * (kiln_random_fill_device sends a last partial block to the scalar
 * kernel). On GPUs its loop then needs a 32-bit index and no bound test,
 * offset or 64-bit arithmetic: 5 instructions of loop and store per block
 * beside Philox and the transform, where the general loop spends about 20
 * (docs/random.md, "Speed"); one draw site also lets the compiler keep
 * Philox's key schedule in uniform registers (30 registers, not 48). The
 * store's byte offset j * 16 is a 32-bit product (blocks < 2^28): one
 * instruction fewer than indexing. */
#define KILN_RANDOM_VECTOR_BLOCKS ((int64_t)1 << 28)

static void append_vector_body(const kiln_random_draw *d, int per_block, const char *block,
                               const char *store, kiln_strbuf *out) {
  const char *type = block_vector_type(d);
  if (!type) return; /* callers ask only for types that have one */
  kiln_strbuf_append(out, "#ifndef KILN_DEVICE_IS_CPU\n");
  kiln_strbuf_append(out, "  uint32_t count = (uint32_t)(n - base); /* <= 2^28 */\n");
  kiln_strbuf_append(out, "  uint32_t step = (uint32_t)kiln_global_size(0);\n");
  kiln_strbuf_appendf(out, "  KILN_GLOBAL %s *blocks = (KILN_GLOBAL %s *)(p0 + o0 + base * %d);\n",
                      type, type, per_block);
  kiln_strbuf_append(out, "  uint64_t first = s2 + (uint64_t)base;\n");
  kiln_strbuf_append(out, "  for (uint32_t j = (uint32_t)kiln_global_id(0); j < count; j += step) {\n");
  kiln_strbuf_appendf(out, "    uint64_t block = first + j;\n    %s\n", block);
  char element[160];
  snprintf(element, sizeof element, "*(KILN_GLOBAL %s *)((KILN_GLOBAL char *)blocks + (j * 16u))",
           type);
  append_vector_store(d, per_block, store, element, out);
  kiln_strbuf_append(out, "  }\n  (void)total;\n#else\n");
  kiln_strbuf_append(out, "  (void)total;\n  KILN_ELEMENTS_BEGIN(g, base, n)\n");
  kiln_strbuf_appendf(out, "    uint64_t block = s2 + (uint64_t)g;\n    %s\n", block);
  char destination[128];
  snprintf(destination, sizeof destination, "*(KILN_GLOBAL %s *)(p0 + o0 + g * %d)", type,
           per_block);
  append_vector_store(d, per_block, store, destination, out);
  kiln_strbuf_append(out, "  KILN_ELEMENTS_END\n#endif\n}\n");
}

static void random_source(const kiln_random_draw *d, int ndim, int vector, kiln_strbuf *out) {
  kiln_ew_signature sig;
  fill_signature(d, &sig);
  char name[96], block[192], store[192];
  kernel_name(d, name, sizeof name);
  block_expression(d, block, sizeof block);
  store_expression(d, store, sizeof store);
  int per_block = kiln_random_values_per_block(d);
  if (vector) strcat(name, "_vector");
  kiln_ew_append_parameters(&sig, ndim, name, out);
  kiln_strbuf_append(out, ",\n    int64_t total) {\n");
  if (vector) {
    append_vector_body(d, per_block, block, store, out);
    return;
  }
  kiln_strbuf_append(out, "  KILN_ELEMENTS_BEGIN(g, base, n)\n");
  kiln_strbuf_appendf(out, "    uint64_t block = s2 + (uint64_t)g;\n    %s\n", block);
  /* every block but the last is whole: its stores need no bound test,
   * which lets CPU compilers vectorise them (measured 1.5x on PoCL) */
  kiln_strbuf_appendf(out, "    if (g * %d + %d <= total) {\n", per_block, per_block);
  append_store(d, &sig, ndim, per_block, 0, store, out);
  kiln_strbuf_append(out, "    } else {\n");
  append_store(d, &sig, ndim, per_block, 1, store, out);
  kiln_strbuf_append(out, "    }\n");
  kiln_ew_append_loop_tail(out);
}

static kiln_status random_generate(void *data, kiln_strbuf *source) {
  const random_request *r = data;
  random_source(r->draw, r->ndim, r->vector, source);
  return KILN_OK;
}

/* One launch of the fill kernel (vector or not) over `total` elements of
 * layout from block `position`. */
static kiln_status launch_fill(const kiln_random_draw *d, kiln_context *ctx, kiln_stream *stream,
                               kiln_ew_layout *layout, int vector, uint64_t position,
                               int64_t total) {
  kiln_ew_signature sig;
  fill_signature(d, &sig);
  int64_t per_block = kiln_random_values_per_block(d);
  char name[96], key[128];
  kernel_name(d, name, sizeof name);
  if (vector) strcat(name, "_vector");
  int length = snprintf(key, sizeof key, "\1random|%s|%d", name, layout->ndim);
  random_request request = {d, layout->ndim, vector};
  kiln_program *program = NULL;
  KILN_RETURN_IF_ERROR(kiln_program_get_keyed(ctx, key, (size_t)length, NULL, name,
                                              random_generate, &request, &program));
  layout->n = (total + per_block - 1) / per_block; /* work-items: one per block */
  float a32 = (float)d->a, b32 = (float)d->b;
  const void *parameters[2] = {&d->a, &d->b};
  if (parameter_dtype(d) == KILN_FLOAT32) {
    parameters[0] = &a32;
    parameters[1] = &b32;
  } else if (parameter_dtype(d) == KILN_UINT64) {
    parameters[0] = &d->low;
    parameters[1] = &d->range;
  }
  const void *scalars[5] = {&d->seed, &d->stream, &position, parameters[0], parameters[1]};
  return kiln_ew_launch_extra(ctx, stream, program, &sig, layout, scalars, 1, &total);
}

kiln_status kiln_random_fill_device(const kiln_random_draw *d, kiln_array *out,
                                    kiln_stream *stream) {
  kiln_context *ctx = out->buffer->ctx;
  const kiln_array *operands[1] = {out};
  kiln_ew_layout layout;
  KILN_RETURN_IF_ERROR(kiln_ew_layout_plan(1, operands, &layout));
  if (layout.n == 0) return KILN_OK;
  KILN_RETURN_IF_ERROR(kiln_buffer_use_on_stream(out->buffer, stream));
  int64_t per_block = kiln_random_values_per_block(d), total = layout.n;
  int vector = layout.ndim == 0 && block_vector_type(d) && layout.offsets[0] % per_block == 0;
  if (!vector) return launch_fill(d, ctx, stream, &layout, 0, d->position, total);
  /* whole blocks by the vector kernel, a last partial one by the scalar */
  int64_t whole = total / per_block, offset = layout.offsets[0];
  for (int64_t done = 0; done < whole; done += KILN_RANDOM_VECTOR_BLOCKS) {
    int64_t blocks = whole - done < KILN_RANDOM_VECTOR_BLOCKS ? whole - done
                                                              : KILN_RANDOM_VECTOR_BLOCKS;
    layout.offsets[0] = offset + done * per_block;
    KILN_RETURN_IF_ERROR(launch_fill(d, ctx, stream, &layout, 1, d->position + (uint64_t)done,
                                     blocks * per_block));
  }
  if (total == whole * per_block) return KILN_OK;
  layout.offsets[0] = offset + whole * per_block;
  return launch_fill(d, ctx, stream, &layout, 0, d->position + (uint64_t)whole,
                     total - whole * per_block);
}

kiln_status kiln_random_catalog_add(kiln_catalog *catalog) {
  static const kiln_dtype floats[] = {KILN_FLOAT16, KILN_FLOAT32, KILN_FLOAT64};
  static const kiln_dtype integers[] = {KILN_BOOL,   KILN_INT8,   KILN_UINT8,  KILN_INT16,
                                        KILN_UINT16, KILN_INT32,  KILN_UINT32, KILN_INT64,
                                        KILN_UINT64, KILN_FLOAT32};
  kiln_strbuf source = {0};
  for (int kind = KILN_RANDOM_UNIFORM; kind <= KILN_RANDOM_BERNOULLI; kind++) {
    int is_float = kind <= KILN_RANDOM_EXPONENTIAL;
    int ndtypes = is_float ? 3 : (int)(sizeof integers / sizeof integers[0]);
    for (int t = 0; t < ndtypes; t++)
      for (int wide = 0; wide <= (kind == KILN_RANDOM_INTEGERS); wide++)
        for (int variant = 0; variant <= 3; variant++) { /* ndim 0, 1, 2; vector */
          kiln_random_draw d = {.kind = (kiln_random_kind)kind,
                                .dtype = is_float ? floats[t] : integers[t], .wide = wide};
          int vector = variant == 3;
          if (vector && !block_vector_type(&d)) continue;
          char name[96];
          kernel_name(&d, name, sizeof name);
          if (vector) strcat(name, "_vector");
          kiln_strbuf_appendf(&source, "#define %s %s_%d\n", name, name, variant);
          random_source(&d, vector ? 0 : variant, vector, &source);
          kiln_strbuf_appendf(&source, "#undef %s\n", name);
        }
  }
  kiln_status status = kiln_strbuf_status(&source);
  if (status == KILN_OK) status = kiln_catalog_add(catalog, "random fills", kiln_strbuf_text(&source));
  kiln_strbuf_free(&source);
  return status;
}
