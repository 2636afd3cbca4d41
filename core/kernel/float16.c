/* core/kernel/float16.c: the kernel language's float16 conversions on the host
 * (the public kiln_float16_* of kiln/dtype.h), compiled from the common
 * prelude's portable code, so host and kernels round alike. */
#include "core/kernel/host_dialect.h"
#include "kiln/dtype.h"

uint16_t kiln_float16_from_float(float x) { return kiln_float_to_half_bits_portable(x); }

uint16_t kiln_float16_from_double(double x) { return kiln_double_to_half_bits_portable(x); }

float kiln_float16_to_float(uint16_t h) { return kiln_half_bits_to_float_portable(h); }
