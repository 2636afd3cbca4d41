/* examples/dlpack_cupy_helper.c: the one kiln call of examples/dlpack_cupy.py
 * that is awkward through ctypes (a ufunc call takes unions), as a tiny
 * shared library: libdlpack_cupy_helper.so. */
#include "kiln/kiln.h"

#define HELPER_API __attribute__((visibility("default")))

/* a += value in place with kiln's built-in "add" ufunc (any view of a
 * float array), then waits for the context's default stream. */
HELPER_API kiln_status dlpack_helper_add(kiln_array *a, double value);

kiln_status dlpack_helper_add(kiln_array *a, double value) {
  kiln_ufunc *add;
  kiln_status s = kiln_ufunc_builtin(kiln_array_context(a), "add", &add);
  if (s != KILN_OK) return s;
  kiln_operand in[2] = {kiln_operand_array(a), kiln_operand_float(value)};
  kiln_operand out[1] = {kiln_operand_array(a)};
  s = kiln_ufunc_call(add, 2, in, 1, out, NULL);
  kiln_ufunc_release(add);
  if (s == KILN_OK) s = kiln_context_synchronize(kiln_array_context(a));
  return s;
}
