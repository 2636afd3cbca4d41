/* core/sort/indexing_keys.c: the kernel-language #defines that make the
 * templates of kernels/builtin/ (search.kl, count.kl) read and compare one
 * dtype: the one place that knows NumPy's sort order per dtype. */
#include <stdio.h>

#include "core/sort/indexing_internal.h"

/* NumPy's order (npy_sort's LT): NaNs after every number; complex numbers
 * by real part, then imaginary part, a NaN part sorting after numbers
 * (CFLOAT_LT: R + Rj < R + nanj < nan + Rj < nan + nanj). Complex adds
 * KILN_KEY_COMPLEX and kiln_key_has_nan (unique.kl: NumPy 2 makes every
 * complex number with a NaN part one value). */
static const char complex_less[] =
    "KILN_DEVICE int kiln_key_less(VALUE a, VALUE b) {\n"
    "  if (a.real < b.real) return a.imag == a.imag || b.imag != b.imag;\n"
    "  if (a.real > b.real) return b.imag != b.imag && a.imag == a.imag;\n"
    "  if (a.real == b.real || (a.real != a.real && b.real != b.real))\n"
    "    return a.imag < b.imag || (b.imag != b.imag && a.imag == a.imag);\n"
    "  return b.real != b.real;\n"
    "}\n"
    "#define KILN_KEY_COMPLEX 1\n"
    "KILN_DEVICE int kiln_key_has_nan(VALUE a) { return a.real != a.real || a.imag != a.imag; }\n";
static const char float_less[] =
    "KILN_DEVICE int kiln_key_less(VALUE a, VALUE b) { return a < b || (b != b && a == a); }\n";
static const char integer_less[] =
    "KILN_DEVICE int kiln_key_less(VALUE a, VALUE b) { return a < b; }\n";

void kiln_ix_key_defines(kiln_dtype dtype, kiln_strbuf *out) {
  const char *key = kiln_dtype_kernel_type(dtype);
  const char *value = key, *load = "(x)", *less = integer_less;
  if (dtype == KILN_FLOAT16) {
    value = "float";
    load = "kiln_half_to_float(x)";
  }
  if (dtype == KILN_BOOL) value = "int";
  if (kiln_dtype_is_float(dtype)) less = float_less;
  if (kiln_dtype_is_complex(dtype)) less = complex_less;
  kiln_strbuf_appendf(out, "#define KEY %s\n#define VALUE %s\n#define LOAD(x) %s\n%s", key, value,
                      load, less);
}

void kiln_ix_number_defines(const char *prefix, kiln_dtype dtype, kiln_strbuf *out) {
  kiln_strbuf_appendf(out, "#define %s %s\n#define %s_LOAD(x) %s\n", prefix,
                      kiln_dtype_kernel_type(dtype), prefix,
                      dtype == KILN_FLOAT16 ? "kiln_half_to_float(x)" : "(x)");
}
