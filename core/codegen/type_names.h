/* core/codegen/type_names.h: the type placeholders a ufunc or gufunc body
 * may use, so one body serves several signatures (CuPy's `T`; internal).
 *
 * Around the body function of each signature the generators define
 *   KILN_T         the first input's type in the body
 *   KILN_OUT_T     the first output's type in the body
 *   KILN_ACC_T     a type to accumulate the first output in: its type,
 *                  but int64_t for bool and signed integers narrower than
 *                  64 bits and uint64_t for narrower unsigned ones (NumPy's
 *                  sum dtypes)
 *   KILN_T_<name>  the type of the parameter or output named <name>
 * as the body sees them (float16 values are float in a body), and undefine
 * them after it. */
#ifndef KILN_CORE_CODEGEN_TYPE_NAMES_H
#define KILN_CORE_CODEGEN_TYPE_NAMES_H

#include "core/runtime/strbuf.h"
#include "kiln/dtype.h"

typedef struct kiln_type_name {
  const char *name; /* not NUL-terminated */
  int length;
  kiln_dtype dtype; /* the signature's dtype */
} kiln_type_name;

/* Appends the #defines for nin inputs then nout outputs. */
void kiln_type_names_define(kiln_strbuf *b, int nin, int nout, const kiln_type_name *operands);
/* Appends the matching #undefs. */
void kiln_type_names_undef(kiln_strbuf *b, int nin, int nout, const kiln_type_name *operands);

#endif
