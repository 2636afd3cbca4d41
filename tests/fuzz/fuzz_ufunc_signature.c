/* tests/fuzz/fuzz_ufunc_signature.c: the ufunc signature parser. A text
 * that parses must print back (types and names, canonical spacing) to a
 * signature that parses to the same thing; one that does not must fail
 * with a message that points at a column. */
#include "core/ufunc/ufunc_internal.h"
#include "fuzz_common.h"

static void print_param(char *out, size_t size, const kiln_ufunc_sig *sig, int slot) {
  size_t used = strlen(out);
  snprintf(out + used, size - used, "%s%s %.*s", used && out[used - 1] != '(' ? ", " : "",
           kiln_dtype_name(sig->dtypes[slot]), sig->names[slot].length,
           sig->text + sig->names[slot].start);
}

/* The canonical text of a parsed signature. */
static void print_signature(const kiln_ufunc_sig *sig, char *out, size_t size) {
  out[0] = '\0';
  if (sig->returns_value) {
    snprintf(out, size, "%s(", kiln_dtype_name(sig->dtypes[sig->nin]));
  } else {
    snprintf(out, size, "(");
    for (int k = 0; k < sig->nout; k++) print_param(out, size, sig, sig->nin + k);
    strncat(out, ")(", size - strlen(out) - 1);
  }
  for (int k = 0; k < sig->nin; k++) print_param(out, size, sig, k);
  strncat(out, ")", size - strlen(out) - 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = fuzz_string(data, size);
  if (!text) return 0;
  kiln_ufunc_sig sig, again;
  if (kiln_ufunc_signature_parse(text, 0, &sig) != KILN_OK) {
    FUZZ_ASSERT(strstr(kiln_last_error(), "column") || strstr(kiln_last_error(), "memory"));
    free(text);
    return 0;
  }
  FUZZ_ASSERT(sig.nin >= 1 && sig.nout >= 1);
  FUZZ_ASSERT(sig.nin + sig.nout <= KILN_UFUNC_MAX_OPERANDS);
  static char printed[64 * 1024];
  print_signature(&sig, printed, sizeof printed);
  FUZZ_ASSERT(kiln_ufunc_signature_parse(printed, 0, &again) == KILN_OK);
  FUZZ_ASSERT(again.nin == sig.nin && again.nout == sig.nout);
  FUZZ_ASSERT(again.returns_value == sig.returns_value);
  for (int k = 0; k < sig.nin + sig.nout; k++) {
    FUZZ_ASSERT(again.dtypes[k] == sig.dtypes[k]);
    FUZZ_ASSERT(again.names[k].length == sig.names[k].length);
    FUZZ_ASSERT(memcmp(again.text + again.names[k].start, sig.text + sig.names[k].start,
                       (size_t)sig.names[k].length) == 0);
  }
  kiln_ufunc_signature_free(&again);
  kiln_ufunc_signature_free(&sig);
  free(text);
  return 0;
}
