/* tests/docs/kernel_check.c: compiles one kernel-language block of the docs
 * (a file named on the command line) with kiln_kernel_create on the default
 * backend, so a kernel example that no longer compiles fails test_docs.
 * Exits 0 when it compiles, 1 with the compiler's log when it does not, 77
 * when no backend has a usable device here (ctest's SKIPPED). */
#include <stdio.h>
#include <stdlib.h>

#include "kiln/kiln.h"

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s <kernel source file> <entry>\n", argv[0]);
    return 2;
  }
  FILE *f = fopen(argv[1], "rb");
  if (!f) {
    perror(argv[1]);
    return 2;
  }
  static char source[1 << 20];
  size_t n = fread(source, 1, sizeof source - 1, f);
  fclose(f);
  source[n] = '\0';
  kiln_context *ctx = NULL;
  if (kiln_context_create(NULL, &ctx) != KILN_OK) {
    printf("SKIP: no usable backend: %s\n", kiln_last_error());
    return 77;
  }
  kiln_kernel *kernel = NULL;
  kiln_status s = kiln_kernel_create(ctx, source, argv[2], NULL, &kernel);
  if (s != KILN_OK) fprintf(stderr, "%s: %s\n", kiln_status_string(s), kiln_last_error());
  kiln_kernel_release(kernel);
  kiln_context_release(ctx);
  return s == KILN_OK ? 0 : 1;
}
