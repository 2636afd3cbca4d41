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
    if (!o->unit[c]) kiln_strbuf_appendf(&element, " * kiln_t%d_%d", k, c);
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
    if (o->unit[c]) kiln_strbuf_appendf(b, "_%d ((int64_t)1)\n", c);
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
    if (o->ndim > 0) {
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
    if (o->ndim > 0) {
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
