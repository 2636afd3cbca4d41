/* add_kernel: the tutorials' grid-stride add, add_kernel[30, 128](x, y, out),
 * as a raw kiln kernel: 30 work-groups of 128 work-items cover any n by
 * striding through it. Checked against a plain C loop.
 * Usage: add_kernel [n]   (default 1000000) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "example.h"

static const char *source =
    "KILN_KERNEL void add_kernel(int64_t n, KILN_GLOBAL const float *x,\n"
    "                            KILN_GLOBAL const float *y, KILN_GLOBAL float *out) {\n"
    "  for (int64_t i = kiln_global_id(0); i < n; i += kiln_global_size(0))\n"
    "    out[i] = x[i] + y[i];\n"
    "}\n";


int main(int argc, char **argv) {
  int64_t n = argc > 1 ? strtoll(argv[1], NULL, 10) : 1000000;
  if (n < 0) n = 0;
  kiln_context *ctx;
  TRY(example_open("add_kernel", &ctx));

  float *x = malloc((size_t)n * sizeof *x + 1), *y = malloc((size_t)n * sizeof *y + 1);
  float *out = malloc((size_t)n * sizeof *out + 1);
  for (int64_t i = 0; i < n; i++) {
    x[i] = (float)(i % 1000) * 0.5f + 1.0f;
    y[i] = (float)(i % 77) * 2.0f - 3.0f;
  }
  kiln_array *dx, *dy, *dout;
  TRY(kiln_array_from_host(ctx, KILN_FLOAT32, 1, &n, NULL, x, &dx));
  TRY(kiln_array_from_host(ctx, KILN_FLOAT32, 1, &n, NULL, y, &dy));
  TRY(kiln_array_empty(ctx, KILN_FLOAT32, 1, &n, &dout));

  kiln_kernel *add;
  TRY(kiln_kernel_create(ctx, source, "add_kernel", NULL, &add));
  const int64_t blocks = 30, threads = 128, global = blocks * threads;
  kiln_arg args[] = {kiln_arg_int64(n), kiln_arg_array(dx), kiln_arg_array(dy),
                     kiln_arg_array(dout)};
  TRY(kiln_kernel_launch(add, 1, &global, &threads, 4, args, NULL));
  TRY(kiln_array_to_host(dout, out, NULL));

  double max_error = 0;
  for (int64_t i = 0; i < n; i++) max_error = fmax(max_error, fabs((double)out[i] - (double)(x[i] + y[i])));
  printf("n = %lld, grid %lld x %lld, max |error| vs plain C = %g\n", (long long)n,
         (long long)blocks, (long long)threads, max_error);

  kiln_kernel_release(add);
  kiln_array_release(dx);
  kiln_array_release(dy);
  kiln_array_release(dout);
  kiln_context_release(ctx);
  free(x);
  free(y);
  free(out);
  if (max_error != 0) {
    printf("FAILED: the sum must be exact\n");
    return 1;
  }
  printf("ok\n");
  return 0;
}
