/* tests/fuzz/fuzz_kernel_params.c: the raw-kernel parameter-list parser.
 * Input: entry name, NUL, kernel source. A list that parses has sane
 * parameters (a known kind, a dtype, a non-empty NUL-terminated name). */
#include "core/kernel/kernel_internal.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = fuzz_string(data, size);
  if (!text) return 0;
  const char *parts[2];
  fuzz_split(text, size, parts, 2);
  kiln_param *params = NULL;
  int count = -1;
  if (kiln_params_parse(parts[1], parts[0], &params, &count) == KILN_OK) {
    FUZZ_ASSERT(count >= 0);
    for (int i = 0; i < count; i++) {
      FUZZ_ASSERT(params[i].kind >= KILN_PARAM_ARRAY && params[i].kind <= KILN_PARAM_LOCAL);
      FUZZ_ASSERT(params[i].dtype >= 0 && params[i].dtype < KILN_DTYPE_COUNT);
      size_t length = strnlen(params[i].name, sizeof params[i].name);
      FUZZ_ASSERT(length > 0 && length < sizeof params[i].name);
    }
  } else {
    FUZZ_ASSERT(params == NULL && count == 0);
    FUZZ_ASSERT(kiln_last_error()[0] != '\0');
  }
  free(params);
  free(text);
  return 0;
}
