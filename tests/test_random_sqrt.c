/* The float32 Box-Muller radius on the device equals the host's for every
 * one of the 2^24 uniforms, and so does the correctly rounded sqrt it ends
 * with (kiln_sqrt_rn_normal_f32: on CUDA the fast path of ptxas's sqrt
 * without its special cases, docs/random.md) for every float in [1, 4):
 * every mantissa at both exponent parities, all that MUFU.RSQ's
 * approximation depends on. */
#include "core/kernel/host_dialect.h"
#include "harness.h"

static void test_every_radius(kiln_context *ctx) {
  kiln_kernel *kernel = harness_kernel(ctx, "random_sqrt.kl", "every_radius");
  if (!kernel) return;
  int64_t n = (int64_t)1 << 24;
  kiln_array *radius = NULL, *root = NULL;
  REQUIRE_OK(kiln_array_empty(ctx, KILN_FLOAT32, 1, &n, &radius));
  REQUIRE_OK(kiln_array_empty(ctx, KILN_FLOAT32, 1, &n, &root));
  kiln_arg args[3] = {kiln_arg_array(radius), kiln_arg_array(root), kiln_arg_int64(n)};
  CHECK_OK(kiln_kernel_launch(kernel, 1, &n, NULL, 3, args, NULL));
  float *got_radius = malloc((size_t)n * sizeof(float)), *got_root = malloc((size_t)n * sizeof(float));
  if (!got_radius || !got_root) {
    harness_fail(__FILE__, __LINE__, "out of host memory");
    free(got_radius);
    free(got_root);
    kiln_array_release(radius);
    kiln_array_release(root);
    kiln_kernel_release(kernel);
    return;
  }
  CHECK_OK(kiln_array_to_host(radius, got_radius, NULL));
  CHECK_OK(kiln_array_to_host(root, got_root, NULL));
  int64_t radius_diffs = 0, root_diffs = 0, first_radius = -1, first_root = -1;
  for (int64_t k = 0; k < n; k++) {
    float want = kiln_box_muller_radius_f32((uint32_t)k << 8);
    float x = kiln_uint32_as_float(0x3f800000u + (uint32_t)k);
    if (memcmp(&got_radius[k], &want, sizeof want) != 0 && radius_diffs++ == 0) first_radius = k;
    float root_want = sqrtf(x);
    if (memcmp(&got_root[k], &root_want, sizeof root_want) != 0 && root_diffs++ == 0) first_root = k;
  }
  CHECK_MSG(radius_diffs == 0, "%lld of 2^24 radii differ from the host's (first: word %llx)",
            (long long)radius_diffs, (unsigned long long)first_radius << 8);
  CHECK_MSG(root_diffs == 0, "%lld of 2^24 square roots differ from sqrtf (first: %a)",
            (long long)root_diffs,
            first_root < 0 ? 0.0 : (double)kiln_uint32_as_float(0x3f800000u + (uint32_t)first_root));
  free(got_radius);
  free(got_root);
  kiln_array_release(radius);
  kiln_array_release(root);
  kiln_kernel_release(kernel);
}

static const harness_test tests[] = {
    {"every_radius", test_every_radius},
    {0},
};

int main(int argc, char **argv) { return harness_main(argc, argv, tests); }
