/* hidden_layer: the tutorials' neural-network hidden layer as three
 * ufuncs, normalize (greyscale / 255), weigh (value * weight) and activate
 * (tanh written out with exp), the intermediate results kept on the device
 * between steps (device arrays in, device arrays out: no transfer), and
 * the last step writing a host array. Then the same three calls in a
 * fusion scope (kiln/fusion.h, docs/fusion.md): one kernel reads the
 * greyscales and weights and writes the activations, the two intermediates
 * (released inside the scope) never reach memory, and the result has the
 * same bits as the three calls. Both checked against plain C within 1e-5
 * (absolute; activations lie in (-1, 1)). Usage: hidden_layer [n]
 * (default 1000000) */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "example.h"

static kiln_status make(kiln_context *ctx, const char *name, const char *signature,
                        const char *body, kiln_ufunc **out) {
  return kiln_ufunc_create(ctx, name, 1, &signature, body, NULL, out);
}

int main(int argc, char **argv) {
  int64_t n = argc > 1 ? strtoll(argv[1], NULL, 10) : 1000000;
  if (n < 0) n = 0;
  const double tolerance = 1e-5;
  kiln_context *ctx;
  TRY(example_open("hidden_layer", &ctx));
  kiln_ufunc *normalize, *weigh, *activate;
  TRY(make(ctx, "normalize", "float32(float32 greyscale)", "return greyscale / 255;",
           &normalize));
  TRY(make(ctx, "weigh", "float32(float32 value, float32 weight)", "return value * weight;",
           &weigh));
  TRY(make(ctx, "activate", "float32(float32 value)",
           "return (exp(value) - exp(-value)) / (exp(value) + exp(-value));", &activate));

  /* greyscale pixels and normally distributed weights (Box-Muller) */
  float *greyscales = malloc((size_t)n * 4 + 1), *weights = malloc((size_t)n * 4 + 1);
  float *activated = malloc((size_t)n * 4 + 1);
  srand(4);
  for (int64_t i = 0; i < n; i++) {
    greyscales[i] = floorf(255.0f * (float)rand() / (float)RAND_MAX);
    double u1 = (rand() + 1.0) / (RAND_MAX + 2.0), u2 = (rand() + 1.0) / (RAND_MAX + 2.0);
    weights[i] = (float)(0.5 + 0.1 * sqrt(-2 * log(u1)) * cos(6.283185307179586 * u2));
  }
  kiln_array *d_greyscales, *d_weights, *normalized = NULL, *weighted = NULL;
  TRY(kiln_array_from_host(ctx, KILN_FLOAT32, 1, &n, NULL, greyscales, &d_greyscales));
  TRY(kiln_array_from_host(ctx, KILN_FLOAT32, 1, &n, NULL, weights, &d_weights));

  kiln_operand in1[1] = {kiln_operand_array(d_greyscales)};
  kiln_operand out1[1] = {kiln_operand_new(&normalized)};
  TRY(kiln_ufunc_call(normalize, 1, in1, 1, out1, NULL));
  kiln_operand in2[2] = {kiln_operand_array(normalized), kiln_operand_array(d_weights)};
  kiln_operand out2[1] = {kiln_operand_new(&weighted)};
  TRY(kiln_ufunc_call(weigh, 2, in2, 1, out2, NULL));
  kiln_operand in3[1] = {kiln_operand_array(weighted)};
  kiln_operand out3[1] = {kiln_operand_host_output(activated, KILN_FLOAT32, 1, &n, NULL)};
  TRY(kiln_ufunc_call(activate, 1, in3, 1, out3, NULL));

  /* the fused form: the same calls between begin and end */
  float *fused = malloc((size_t)n * 4 + 1);
  kiln_array *t1 = NULL, *t2 = NULL, *d_activated = NULL;
  TRY(kiln_array_empty(ctx, KILN_FLOAT32, 1, &n, &d_activated));
  TRY(kiln_fusion_begin(ctx, NULL));
  kiln_operand out4[1] = {kiln_operand_new(&t1)};
  TRY(kiln_ufunc_call(normalize, 1, in1, 1, out4, NULL));
  kiln_operand in5[2] = {kiln_operand_array(t1), kiln_operand_array(d_weights)};
  kiln_operand out5[1] = {kiln_operand_new(&t2)};
  TRY(kiln_ufunc_call(weigh, 2, in5, 1, out5, NULL));
  kiln_array_release(t1); /* released inside the scope: stays in registers */
  kiln_operand in6[1] = {kiln_operand_array(t2)};
  kiln_operand out6[1] = {kiln_operand_array(d_activated)};
  TRY(kiln_ufunc_call(activate, 1, in6, 1, out6, NULL));
  kiln_array_release(t2);
  TRY(kiln_fusion_end(ctx, NULL)); /* one kernel */
  TRY(kiln_array_to_host(d_activated, fused, NULL));
  kiln_array_release(d_activated);

  double max_error = 0, max_fused_error = 0;
  for (int64_t i = 0; i < n; i++) {
    double v = (double)(greyscales[i] / 255.0f) * weights[i];
    max_error = fmax(max_error, fabs(activated[i] - tanh(v)));
    max_fused_error = fmax(max_fused_error, fabs(fused[i] - tanh(v)));
  }
  int same_bits = n == 0 || memcmp(fused, activated, (size_t)n * 4) == 0;
  printf("n = %lld, max |error| vs plain C = %.3g, fused %.3g (tolerance %g); fused bits %s\n",
         (long long)n, max_error, max_fused_error, tolerance,
         same_bits ? "identical to the three calls" : "DIFFER from the three calls");
  free(fused);
  kiln_array_release(d_greyscales);
  kiln_array_release(d_weights);
  kiln_array_release(normalized);
  kiln_array_release(weighted);
  kiln_ufunc_release(normalize);
  kiln_ufunc_release(weigh);
  kiln_ufunc_release(activate);
  kiln_context_release(ctx);
  free(greyscales);
  free(weights);
  free(activated);
  if (!(max_error <= tolerance) || !(max_fused_error <= tolerance) || !same_bits) {
    printf("FAILED\n");
    return 1;
  }
  printf("ok\n");
  return 0;
}
