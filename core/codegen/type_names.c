/* core/codegen/type_names.c: see type_names.h. */
#include "core/codegen/type_names.h"

#include "core/codegen/elementwise.h"

static const char *accumulator_type(kiln_dtype d) {
  switch (d) {
  case KILN_BOOL:
  case KILN_INT8:
  case KILN_INT16:
  case KILN_INT32:
    return "int64_t";
  case KILN_UINT8:
  case KILN_UINT16:
  case KILN_UINT32:
    return "uint64_t";
  default:
    return kiln_ew_value_type(d);
  }
}

void kiln_type_names_define(kiln_strbuf *b, int nin, int nout, const kiln_type_name *operands) {
  if (nin > 0) kiln_strbuf_appendf(b, "#define KILN_T %s\n", kiln_ew_value_type(operands[0].dtype));
  if (nout > 0) {
    kiln_dtype out = operands[nin].dtype;
    kiln_strbuf_appendf(b, "#define KILN_OUT_T %s\n", kiln_ew_value_type(out));
    kiln_strbuf_appendf(b, "#define KILN_ACC_T %s\n", accumulator_type(out));
  }
  for (int k = 0; k < nin + nout; k++) {
    if (!operands[k].name || operands[k].length <= 0) continue;
    kiln_strbuf_append(b, "#define KILN_T_");
    kiln_strbuf_append_n(b, operands[k].name, (size_t)operands[k].length);
    kiln_strbuf_appendf(b, " %s\n", kiln_ew_value_type(operands[k].dtype));
  }
}

void kiln_type_names_undef(kiln_strbuf *b, int nin, int nout, const kiln_type_name *operands) {
  if (nin > 0) kiln_strbuf_append(b, "#undef KILN_T\n");
  if (nout > 0) kiln_strbuf_append(b, "#undef KILN_OUT_T\n#undef KILN_ACC_T\n");
  for (int k = 0; k < nin + nout; k++) {
    if (!operands[k].name || operands[k].length <= 0) continue;
    kiln_strbuf_append(b, "#undef KILN_T_");
    kiln_strbuf_append_n(b, operands[k].name, (size_t)operands[k].length);
    kiln_strbuf_append(b, "\n");
  }
}
