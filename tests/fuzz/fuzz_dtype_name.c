/* tests/fuzz/fuzz_dtype_name.c: dtype names. A name that parses maps to a
 * dtype whose canonical name parses back to the same dtype. */
#include "fuzz_common.h"
#include "kiln/kiln.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *name = fuzz_string(data, size);
  if (!name) return 0;
  kiln_dtype dtype = KILN_DTYPE_COUNT, again = KILN_DTYPE_COUNT;
  if (kiln_dtype_from_name(name, &dtype) == KILN_OK) {
    FUZZ_ASSERT(dtype >= 0 && dtype < KILN_DTYPE_COUNT);
    FUZZ_ASSERT(kiln_dtype_size(dtype) > 0);
    FUZZ_ASSERT(kiln_dtype_from_name(kiln_dtype_name(dtype), &again) == KILN_OK);
    FUZZ_ASSERT(again == dtype);
  } else {
    FUZZ_ASSERT(strstr(kiln_last_error(), "dtype") || strstr(kiln_last_error(), "type"));
  }
  free(name);
  return 0;
}
