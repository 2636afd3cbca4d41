/* A program using an installed kiln: it must compile and link. */
#include <kiln/kiln.h>
#include <stdio.h>

int main(void) {
  printf("%d backends, first %s\n", kiln_backend_count(), kiln_backend_name(0));
  return 0;
}
