/* core/codegen/core_loop.c: kernels whose body works on a small strided
 * block of each operand per loop element (core_loop.h), built on the
 * element-wise generator's parameters, layouts and grid-stride loop.
 *
 * A generated kernel, for l2_norm "(n)->()" with n = 4 baked and a
 * contiguous row, reads:
 *   KILN_DEVICE float kiln_gufunc_l2_norm_body(KILN_GLOBAL const float *kiln_p0) {
 *     const int64_t n = 4;
 *   #define x(kiln_a0) (kiln_p0[(kiln_a0)])
 *     <body>
 *   #undef x
 *   }
 *   KILN_KERNEL void kiln_gufunc_l2_norm(int64_t n, int64_t base, int64_t shape0,
 *                                        ...p0, o0, t0_0, ...p1, o1, t1_0) {
 *     KILN_ELEMENTS_BEGIN(i, base, n)
 *       ...e0, e1 as element-wise loops compute them...
 *       float kiln_r1 = 0; kiln_r1 = kiln_gufunc_l2_norm_body(p0 + e0);
 *       p1[e1] = kiln_r1;
 *     KILN_ELEMENTS_END
 *   }
 */
#include <stdio.h>
#include <string.h>

#include "core/codegen/core_loop.h"
#include "core/codegen/type_names.h"

void kiln_core_loop_ew_signature(const kiln_core_loop *loop, kiln_ew_signature *sig) {
  memset(sig, 0, sizeof *sig);
  for (int k = 0; k < loop->nin; k++) {
    const kiln_core_operand *o = &loop->operands[k];
    if (o->by_value) sig->scalar_dtypes[sig->nscalars++] = o->body_type;
    else sig->dtypes[sig->ninputs++] = o->memory;
  }
  sig->noperands = sig->ninputs;
  for (int k = loop->nin; k < loop->nin + loop->nout; k++)
    sig->dtypes[sig->noperands++] = loop->operands[k].memory;
}

static void append_name(kiln_strbuf *b, const kiln_core_operand *o) {
  kiln_strbuf_append_n(b, o->name, (size_t)o->name_length);
}

static void separator(kiln_strbuf *b, int *first) {
  if (!*first) kiln_strbuf_append(b, ", ");
  *first = 0;
}

/* "#define A(kiln_a0, kiln_a1) (kiln_p0[(kiln_a0) * kiln_t0_0 + (kiln_a1)])" */
static void append_accessor(const kiln_core_loop *loop, int k, kiln_strbuf *b) {
  const kiln_core_operand *o = &loop->operands[k];
  int input = k < loop->nin;
  kiln_strbuf_append(b, "#define ");
  append_name(b, o);
  kiln_strbuf_append(b, "(");
  for (int c = 0; c < o->ndim; c++) kiln_strbuf_appendf(b, "%skiln_a%d", c ? ", " : "", c);
  kiln_strbuf_append(b, ") (");
  /* an input reads as its signature type (a float16 element as a float
   * value); an output is an lvalue of its memory type */
  kiln_strbuf element = {0};
  kiln_strbuf_appendf(&element, "kiln_p%d[", k);
  for (int c = 0; c < o->ndim; c++) {
    kiln_strbuf_appendf(&element, "%s(kiln_a%d)", c ? " + " : "", c);
    if (!o->unit[c] && !o->staged) kiln_strbuf_appendf(&element, " * kiln_t%d_%d", k, c);
  }
  kiln_strbuf_append(&element, "]");
  if (element.failed) {
    b->failed = 1;
  } else if (input) {
    char load[1024], cast[1200];
    kiln_ew_load_expression(o->memory, element.data, load, sizeof load);
    kiln_ew_cast_expression(o->memory, o->body_type, load, cast, sizeof cast);
    kiln_strbuf_append(b, cast);
  } else {
    kiln_strbuf_append(b, element.data);
  }
  kiln_strbuf_free(&element);
  kiln_strbuf_append(b, ")\n");
  /* KILN_DATA(name) and KILN_STRIDE(name, c) for helper functions */
  kiln_strbuf_append(b, "#define kiln_data_");
  append_name(b, o);
  kiln_strbuf_appendf(b, " kiln_p%d\n", k);
  for (int c = 0; c < o->ndim; c++) {
    kiln_strbuf_append(b, "#define kiln_stride_");
    append_name(b, o);
    if (o->unit[c] || o->staged) kiln_strbuf_appendf(b, "_%d ((int64_t)1)\n", c);
    else kiln_strbuf_appendf(b, "_%d kiln_t%d_%d\n", c, k, c);
  }
}

static void append_undef(kiln_strbuf *b, const char *prefix, const kiln_core_operand *o,
                         int dim) {
  kiln_strbuf_appendf(b, "#undef %s", prefix);
  append_name(b, o);
  if (dim >= 0) kiln_strbuf_appendf(b, "_%d", dim);
  kiln_strbuf_append(b, "\n");
}

static void append_body_function(const kiln_core_loop *loop, kiln_strbuf *b) {
  int nops = loop->nin + loop->nout;
  const char *ret = loop->returns_value
                        ? kiln_ew_value_type(loop->operands[loop->nin].body_type)
                        : "void";
  kiln_strbuf_appendf(b, "KILN_DEVICE %s %s_body(", ret, loop->entry);
  int first = 1;
  for (int d = 0; d < loop->nnames; d++) {
    if (loop->sizes[d] >= 0) continue;
    separator(b, &first);
    kiln_strbuf_appendf(b, "int64_t %s", loop->names[d]);
  }
  for (int k = 0; k < nops; k++) {
    const kiln_core_operand *o = &loop->operands[k];
    int input = k < loop->nin;
    if (k == loop->nin && loop->returns_value) continue;
    separator(b, &first);
    if (o->staged) {
      kiln_strbuf_appendf(b, "KILN_LOCAL const %s *kiln_p%d", kiln_dtype_kernel_type(o->memory),
                          k);
    } else if (o->ndim > 0) {
      kiln_strbuf_appendf(b, "KILN_GLOBAL %s%s *kiln_p%d", input ? "const " : "",
                          kiln_dtype_kernel_type(o->memory), k);
      for (int c = 0; c < o->ndim; c++)
        if (!o->unit[c]) kiln_strbuf_appendf(b, ", int64_t kiln_t%d_%d", k, c);
    } else if (input) {
      kiln_strbuf_appendf(b, "%s ", kiln_ew_value_type(o->body_type));
      append_name(b, o);
    } else {
      kiln_strbuf_appendf(b, "%s *kiln_out_%d", kiln_ew_value_type(o->body_type), k);
    }
  }
  if (first) kiln_strbuf_append(b, "void");
  kiln_strbuf_append(b, ") {\n");
  for (int d = 0; d < loop->nnames; d++)
    if (loop->sizes[d] >= 0 && loop->names[d])
      kiln_strbuf_appendf(b, "  const int64_t %s = %lld;\n", loop->names[d],
                          (long long)loop->sizes[d]);
  for (int k = 0; k < nops; k++) {
    const kiln_core_operand *o = &loop->operands[k];
    if (o->ndim > 0) {
      append_accessor(loop, k, b);
    } else if (k >= loop->nin && !loop->returns_value) {
      kiln_strbuf_append(b, "#define ");
      append_name(b, o);
      kiln_strbuf_appendf(b, " (*kiln_out_%d)\n", k);
    }
  }
  kiln_type_name types[KILN_EW_MAX_OPERANDS];
  for (int k = 0; k < nops; k++)
    types[k] = (kiln_type_name){loop->operands[k].name, loop->operands[k].name_length,
                                loop->operands[k].body_type};
  kiln_type_names_define(b, loop->nin, loop->nout, types);
  kiln_strbuf_append(b, loop->body);
  kiln_strbuf_append(b, "\n");
  kiln_type_names_undef(b, loop->nin, loop->nout, types);
  for (int k = 0; k < nops; k++) {
    const kiln_core_operand *o = &loop->operands[k];
    if (o->ndim == 0 && (k < loop->nin || loop->returns_value)) continue;
    append_undef(b, "", o, -1);
    if (o->ndim > 0) append_undef(b, "kiln_data_", o, -1);
    for (int c = 0; c < o->ndim; c++) append_undef(b, "kiln_stride_", o, c);
  }
  kiln_strbuf_append(b, "}\n");
}

/* One loop element: call the body, store the outputs without core dims. */
static void append_call(const kiln_core_loop *loop, kiln_strbuf *b) {
  int nops = loop->nin + loop->nout;
  int array[KILN_EW_MAX_OPERANDS], scalar[KILN_EW_MAX_OPERANDS];
  int narrays = 0, nscalars = 0;
  for (int k = 0; k < nops; k++) {
    array[k] = loop->operands[k].by_value ? -1 : narrays++;
    scalar[k] = loop->operands[k].by_value ? nscalars++ : -1;
  }
  char cast[288], value[32], load[64], zero[64];
  kiln_strbuf_append(b, "    ");
  for (int k = loop->nin; k < nops; k++)
    if (loop->operands[k].ndim == 0) {
      kiln_ew_zero_expression(loop->operands[k].body_type, zero, sizeof zero);
      kiln_strbuf_appendf(b, "%s kiln_r%d = %s; ",
                          kiln_ew_value_type(loop->operands[k].body_type), k, zero);
    }
  if (loop->returns_value) kiln_strbuf_appendf(b, "kiln_r%d = ", loop->nin);
  kiln_strbuf_appendf(b, "%s_body(", loop->entry);
  int first = 1;
  for (int d = 0; d < loop->nnames; d++) {
    if (loop->sizes[d] >= 0) continue;
    separator(b, &first);
    kiln_strbuf_appendf(b, "kiln_n%d", d);
  }
  for (int k = 0; k < nops; k++) {
    const kiln_core_operand *o = &loop->operands[k];
    if (k == loop->nin && loop->returns_value) continue;
    separator(b, &first);
    if (o->staged) {
      kiln_strbuf_appendf(b, "kiln_l%d + kiln_lane * kiln_pitch%d", k, k);
    } else if (o->ndim > 0) {
      kiln_strbuf_appendf(b, "p%d + e%d", array[k], array[k]);
      for (int c = 0; c < o->ndim; c++)
        if (!o->unit[c]) kiln_strbuf_appendf(b, ", kiln_c%d_%d", k, c);
    } else if (k >= loop->nin) {
      kiln_strbuf_appendf(b, "&kiln_r%d", k);
    } else if (o->by_value) {
      snprintf(value, sizeof value, "s%d", scalar[k]);
      kiln_ew_load_expression(o->body_type, value, load, sizeof load);
      kiln_strbuf_append(b, load);
    } else {
      snprintf(value, sizeof value, "p%d[e%d]", array[k], array[k]);
      kiln_ew_load_expression(o->memory, value, load, sizeof load);
      kiln_ew_cast_expression(o->memory, o->body_type, load, cast, sizeof cast);
      kiln_strbuf_append(b, cast);
    }
  }
  kiln_strbuf_append(b, ");\n");
  for (int k = loop->nin; k < nops; k++) {
    const kiln_core_operand *o = &loop->operands[k];
    if (o->ndim > 0) continue;
    char store[320];
    snprintf(value, sizeof value, "kiln_r%d", k);
    kiln_ew_cast_expression(o->body_type, o->memory, value, cast, sizeof cast);
    kiln_ew_store_expression(o->memory, cast, store, sizeof store);
    kiln_strbuf_appendf(b, "    p%d[e%d] = %s;\n", array[k], array[k], store);
  }
}

int kiln_core_loop_staged(const kiln_core_loop *loop) {
  for (int k = 0; k < loop->nin; k++)
    if (loop->operands[k].staged) return 1;
  return 0;
}

/* Loads in flight per work-item while a block is staged: each trip of the
 * copy loop issues this many loads before its first store, so that a few
 * hundred work-items per multiprocessor keep enough bytes in flight to
 * cover the memory latency (one load at a time would leave it idle). */
enum { STAGE_LOADS = 16 };

/* One trip of append_stage_copy's loop: STAGE_LOADS loads, then their
 * stores; `guarded`: the last trip, whose elements past the block are
 * skipped (the other trips need no test). */
static void append_stage_trip(const kiln_core_operand *o, int k, int array, int guarded,
                              kiln_strbuf *b) {
  int span = o->staged == 2;
  const char *type = kiln_dtype_kernel_type(o->memory);
  const char *step = span ? "        kiln_c += kiln_dr; kiln_x += kiln_dx;\n"
                            "        if (kiln_c >= kiln_w) { kiln_c -= kiln_w; kiln_x += kiln_wrap; }\n"
                          : "        kiln_c += kiln_dr; kiln_x += kiln_dx; kiln_r += kiln_dq;\n"
                            "        if (kiln_c >= kiln_w) { kiln_c -= kiln_w; kiln_x += kiln_wrap; "
                            "kiln_r++; }\n";
  char guard[96] = "";
  for (int u = 0; u < STAGE_LOADS; u++) {
    if (guarded)
      snprintf(guard, sizeof guard, "if (kiln_q + %d * kiln_group < kiln_total) ", u);
    kiln_strbuf_appendf(b, "        %s kiln_v%d; const int32_t kiln_x%d = kiln_x;\n", type, u, u);
    if (span)
      kiln_strbuf_appendf(b, "        %skiln_v%d = kiln_src[kiln_q + %d * kiln_group];\n", guard,
                          u, u);
    else
      kiln_strbuf_appendf(b, "        %skiln_v%d = p%d[kiln_rowbase[kiln_r] + kiln_c * kiln_t];\n",
                          guard, u, array);
    if (!guarded || u + 1 < STAGE_LOADS) kiln_strbuf_append(b, step);
  }
  for (int u = 0; u < STAGE_LOADS; u++) {
    if (guarded)
      snprintf(guard, sizeof guard, "if (kiln_q + %d * kiln_group < kiln_total) ", u);
    kiln_strbuf_appendf(b, "        %skiln_l%d[kiln_x%d] = kiln_v%d;\n", guard, k, u, u);
  }
}

/* The 16-byte vector of four elements of a 4-byte dtype whose elements
 * are copied as they are, or NULL. */
static const char *quad_type(kiln_dtype d) {
  switch (d) {
    case KILN_FLOAT32: return "kiln_float32x4";
    case KILN_INT32: return "kiln_int32x4";
    case KILN_UINT32: return "kiln_uint32x4";
    default: return NULL;
  }
}

enum { STAGE_QUADS = 4 }; /* 16-byte loads in flight per work-item */

/* The copy of a block that is one span of a 4-byte dtype, when its start
 * is 16-byte aligned (the same test for the whole group) and rows have at
 * least 4 elements: work-item t loads elements 4t .. 4t + 3 of the block
 * (then 4(t + group) ...) with one 16-byte load and stores the four where
 * they go (the next row's start, past the padding, for those beyond the
 * row's end: at most one wrap as w >= 4); a quarter of the memory
 * instructions of the scalar copy. The last total % 4 elements one by
 * one. Opens an `else {` that the caller closes around the scalar copy. */
static void append_stage_quads(int k, const char *quad, kiln_strbuf *b) {
  static const char lanes[] = "xyzw";
  kiln_strbuf_append(
      b,
      "      if (kiln_w >= 4 && ((size_t)kiln_src & 15) == 0) {\n"
      "        const int32_t kiln_quads = kiln_total / 4;\n"
      "        const int32_t kiln_dq4 = 4 * kiln_group / kiln_w;\n"
      "        const int32_t kiln_dr4 = 4 * kiln_group - kiln_dq4 * kiln_w;\n"
      "        const int32_t kiln_dx4 = kiln_dq4 * kiln_pitch + kiln_dr4;\n"
      "        int32_t kiln_r4 = 4 * (int32_t)kiln_lane / kiln_w;\n"
      "        int32_t kiln_c4 = 4 * (int32_t)kiln_lane - kiln_r4 * kiln_w;\n"
      "        int32_t kiln_x4 = kiln_r4 * kiln_pitch + kiln_c4;\n"
      "        int32_t kiln_f = (int32_t)kiln_lane;\n");
  for (int guarded = 0; guarded < 2; guarded++) {
    if (guarded)
      kiln_strbuf_append(b, "        if (kiln_f < kiln_quads) {\n");
    else
      kiln_strbuf_appendf(b,
                          "        for (; kiln_f + %d * kiln_group < kiln_quads; "
                          "kiln_f += %d * kiln_group) {\n",
                          STAGE_QUADS - 1, STAGE_QUADS);
    char guard[96] = "";
    for (int u = 0; u < STAGE_QUADS; u++) {
      if (guarded) snprintf(guard, sizeof guard, "if (kiln_f + %d * kiln_group < kiln_quads) ", u);
      kiln_strbuf_appendf(b,
                          "          %s kiln_u%d; const int32_t kiln_cc%d = kiln_c4, "
                          "kiln_xx%d = kiln_x4;\n"
                          "          %skiln_u%d = kiln_vload(%s, kiln_src + 4 * (kiln_f + %d * "
                          "kiln_group));\n"
                          "          kiln_c4 += kiln_dr4; kiln_x4 += kiln_dx4;\n"
                          "          if (kiln_c4 >= kiln_w) { kiln_c4 -= kiln_w; kiln_x4 += "
                          "kiln_wrap; }\n",
                          quad, u, u, u, guard, u, quad, u);
    }
    for (int u = 0; u < STAGE_QUADS; u++) {
      if (guarded) snprintf(guard, sizeof guard, "if (kiln_f + %d * kiln_group < kiln_quads) ", u);
      kiln_strbuf_appendf(b, "          %s{\n            kiln_l%d[kiln_xx%d] = kiln_u%d.x;\n",
                          guard, k, u, u);
      for (int j = 1; j < 4; j++)
        kiln_strbuf_appendf(b,
                            "            kiln_l%d[kiln_xx%d + %d + (kiln_cc%d + %d >= kiln_w ? "
                            "kiln_wrap : 0)] = kiln_u%d.%c;\n",
                            k, u, j, u, j, u, lanes[j]);
      kiln_strbuf_append(b, "          }\n");
    }
    kiln_strbuf_append(b, "        }\n");
  }
  kiln_strbuf_appendf(b,
                      "        for (int32_t kiln_e = 4 * kiln_quads + (int32_t)kiln_lane; kiln_e < "
                      "kiln_total; kiln_e += kiln_group) {\n"
                      "          const int32_t kiln_er = kiln_e / kiln_w;\n"
                      "          kiln_l%d[kiln_er * kiln_pitch + kiln_e - kiln_er * kiln_w] = "
                      "kiln_src[kiln_e];\n"
                      "        }\n"
                      "      } else {\n",
                      k);
}

/* The copy of staged operand k's rows [kiln_first, kiln_first + kiln_count)
 * into kiln_l<k>: element q of the block (row q / w, column q % w, local
 * index x = row * pitch + column) is taken by work-item q % group, so
 * consecutive work-items read consecutive elements of a row (of the whole
 * block when its rows follow one another: staged == 2, where the source is
 * the block's start + q). Column, row and x move by fixed steps per trip:
 * no division in the loop, a few integer instructions per element. */
static void append_stage_copy(const kiln_core_loop *loop, int k, int array, int slot,
                              kiln_strbuf *b) {
  const kiln_core_operand *o = &loop->operands[k];
  int d = o->dims[0], span = o->staged == 2;
  const char *type = kiln_dtype_kernel_type(o->memory);
  kiln_strbuf_append(b, "    {\n");
  if (loop->sizes[d] >= 0)
    kiln_strbuf_appendf(b, "      const int32_t kiln_w = %lld;\n", (long long)loop->sizes[d]);
  else
    kiln_strbuf_appendf(b, "      const int32_t kiln_w = (int32_t)kiln_n%d;\n", d);
  if (span) {
    kiln_strbuf_appendf(b, "      KILN_GLOBAL const %s *kiln_src = p%d + kiln_bases[%d * kiln_rows];\n",
                        type, array, slot);
  } else {
    if (o->unit[0]) kiln_strbuf_append(b, "      const int64_t kiln_t = 1;\n");
    else kiln_strbuf_appendf(b, "      const int64_t kiln_t = kiln_c%d_0;\n", k);
  }
  kiln_strbuf_appendf(
      b,
      "      const int32_t kiln_pitch = (int32_t)kiln_pitch%d;\n"
      "      const int32_t kiln_total = (int32_t)kiln_count * kiln_w;\n"
      "      const int32_t kiln_wrap = kiln_pitch - kiln_w;\n",
      k);
  const char *quad = span ? quad_type(o->memory) : NULL;
  if (quad) append_stage_quads(k, quad, b);
  kiln_strbuf_appendf(
      b,
      "      KILN_LOCAL const int64_t *kiln_rowbase = kiln_bases + %d * kiln_rows;\n"
      "      const int32_t kiln_dq = kiln_group / kiln_w, kiln_dr = kiln_group - kiln_dq * kiln_w;\n"
      "      const int32_t kiln_dx = kiln_dq * kiln_pitch + kiln_dr;\n"
      "      int32_t kiln_r = (int32_t)kiln_lane / kiln_w;\n"
      "      int32_t kiln_c = (int32_t)kiln_lane - kiln_r * kiln_w;\n"
      "      int32_t kiln_x = kiln_r * kiln_pitch + kiln_c;\n"
      "      int32_t kiln_q = (int32_t)kiln_lane;\n"
      "      for (; kiln_q + %d * kiln_group < kiln_total; kiln_q += %d * kiln_group) {\n",
      slot, STAGE_LOADS - 1, STAGE_LOADS);
  append_stage_trip(o, k, array, 0, b);
  kiln_strbuf_append(b, "      }\n"
                        "      if (kiln_q < kiln_total) {\n");
  append_stage_trip(o, k, array, 1, b);
  kiln_strbuf_append(b, "      }\n");
  if (quad) kiln_strbuf_append(b, "      }\n"); /* the else of the quads */
  kiln_strbuf_append(b, "    }\n");
}

/* The staged kernel (kiln_core_loop_staged), after the parameters of the
 * plain one. */
static void append_staged_kernel(const kiln_core_loop *loop, const kiln_ew_signature *sig,
                                 kiln_strbuf *out) {
  int nops = loop->nin + loop->nout;
  int array[KILN_EW_MAX_OPERANDS], narrays = 0, nstaged = 0;
  for (int k = 0; k < nops; k++) array[k] = loop->operands[k].by_value ? -1 : narrays++;
  kiln_strbuf_append(out, ",\n    int64_t kiln_rows");
  for (int k = 0; k < loop->nin; k++)
    if (loop->operands[k].staged) kiln_strbuf_appendf(out, ", int64_t kiln_pitch%d", k);
  kiln_strbuf_append(out, ",\n    KILN_LOCAL_PARAM(int64_t) kiln_bases_memory");
  for (int k = 0; k < loop->nin; k++)
    if (loop->operands[k].staged)
      kiln_strbuf_appendf(out, ", KILN_LOCAL_PARAM(%s) kiln_s%d",
                          kiln_dtype_kernel_type(loop->operands[k].memory), k);
  kiln_strbuf_append(out, ") {\n"
                          "  KILN_LOCAL int64_t *kiln_bases = kiln_bases_memory;\n");
  for (int k = 0; k < loop->nin; k++)
    if (loop->operands[k].staged)
      kiln_strbuf_appendf(out, "  KILN_LOCAL %s *kiln_l%d = kiln_s%d;\n",
                          kiln_dtype_kernel_type(loop->operands[k].memory), k, k);
  kiln_strbuf_append(
      out,
      "  const int64_t kiln_lane = kiln_local_id(0);\n"
      "  const int32_t kiln_group = (int32_t)kiln_local_size(0);\n"
      "  for (int64_t kiln_first = base + kiln_group_id(0) * kiln_rows; kiln_first < n;\n"
      "       kiln_first += kiln_num_groups(0) * kiln_rows) {\n"
      "    const int64_t kiln_count = n - kiln_first < kiln_rows ? n - kiln_first : kiln_rows;\n"
      "    const int kiln_live = kiln_lane < kiln_count;\n"
      "    const int64_t i = kiln_first + (kiln_live ? kiln_lane : 0);\n");
  kiln_ew_append_offsets(sig, loop->loop_ndim, out);
  kiln_strbuf_append(out, "    if (kiln_live) {\n");
  for (int k = 0; k < loop->nin; k++)
    if (loop->operands[k].staged)
      kiln_strbuf_appendf(out, "      kiln_bases[%d * kiln_rows + kiln_lane] = e%d;\n",
                          nstaged++, array[k]);
  kiln_strbuf_append(out, "    }\n    kiln_barrier();\n");
  nstaged = 0;
  for (int k = 0; k < loop->nin; k++)
    if (loop->operands[k].staged) append_stage_copy(loop, k, array[k], nstaged++, out);
  kiln_strbuf_append(out, "    kiln_barrier();\n    if (kiln_live) {\n");
  append_call(loop, out);
  kiln_strbuf_append(out, "    }\n    kiln_barrier();\n  }\n}\n");
}

void kiln_core_loop_source(const kiln_core_loop *loop, kiln_strbuf *out) {
  if (loop->comment) kiln_strbuf_appendf(out, "/* %s */\n", loop->comment);
  kiln_strbuf_append(out, "#ifndef KILN_DATA\n"
                          "#define KILN_DATA(x) kiln_data_##x\n"
                          "#define KILN_STRIDE(x, c) kiln_stride_##x##_##c\n"
                          "#endif\n");
  if (loop->preamble) {
    kiln_strbuf_append(out, loop->preamble);
    kiln_strbuf_append(out, "\n");
  }
  append_body_function(loop, out);
  kiln_ew_signature sig;
  kiln_core_loop_ew_signature(loop, &sig);
  kiln_ew_append_parameters(&sig, loop->loop_ndim, loop->entry, out);
  for (int d = 0; d < loop->nnames; d++)
    if (loop->sizes[d] < 0) kiln_strbuf_appendf(out, ", int64_t kiln_n%d", d);
  for (int k = 0; k < loop->nin + loop->nout; k++)
    for (int c = 0; c < loop->operands[k].ndim; c++)
      if (!loop->operands[k].unit[c]) kiln_strbuf_appendf(out, ", int64_t kiln_c%d_%d", k, c);
  if (kiln_core_loop_staged(loop)) {
    append_staged_kernel(loop, &sig, out);
    return;
  }
  kiln_strbuf_append(out, ") {\n");
  kiln_ew_append_loop_head(&sig, loop->loop_ndim, out);
  append_call(loop, out);
  kiln_ew_append_loop_tail(out);
}

int kiln_core_loop_extra(const kiln_core_loop *loop, const int64_t *sizes,
                         int64_t (*strides)[KILN_CORE_MAX_DIMS], int64_t *extra) {
  int n = 0;
  for (int d = 0; d < loop->nnames; d++)
    if (loop->sizes[d] < 0) extra[n++] = sizes[d];
  for (int k = 0; k < loop->nin + loop->nout; k++)
    for (int c = 0; c < loop->operands[k].ndim; c++)
      if (!loop->operands[k].unit[c]) extra[n++] = strides[k][c];
  return n;
}
