/* With no OpenCL vendor driver (OCL_ICD_VENDORS points at an empty
 * directory, set by tests/core.cmake) and no CUDA/HIP device: creating a
 * context fails with UNAVAILABLE and a message that says what was tried,
 * discovery still answers, and nothing crashes or prints. */
#include "harness.h"

static void test_opencl_named(kiln_context *unused) {
  (void)unused;
  kiln_context_options o;
  kiln_context_options_init(&o);
  o.backends = "opencl";
  kiln_context *c = NULL;
  CHECK_STATUS(kiln_context_create(&o, &c), KILN_ERROR_UNAVAILABLE);
  CHECK(c == NULL);
  kiln_context_release(c);
  CHECK_ERROR_CONTAINS("opencl");
  CHECK_ERROR_CONTAINS("OCL_ICD_VENDORS");
  int count = -1;
  CHECK_STATUS(kiln_backend_device_count("opencl", NULL, &count), KILN_ERROR_UNAVAILABLE);
  CHECK(count == 0);
}

static void test_default_order(kiln_context *unused) {
  (void)unused;
  int cuda = 0, hip = 0;
  if (kiln_backend_device_count("cuda", NULL, &cuda) == KILN_OK ||
      kiln_backend_device_count("hip", NULL, &hip) == KILN_OK) {
    harness_skip("a CUDA or HIP device is usable here");
    return;
  }
  kiln_context_options o;
  kiln_context_options_init(&o);
  o.use_environment = 0; /* the default list cuda,hip,opencl */
  kiln_context *c = NULL;
  CHECK_STATUS(kiln_context_create(&o, &c), KILN_ERROR_UNAVAILABLE);
  CHECK(c == NULL);
  kiln_context_release(c);
  CHECK_ERROR_CONTAINS("default='cuda,hip,opencl'");
  CHECK_ERROR_CONTAINS("- cuda: ");
  CHECK_ERROR_CONTAINS("- hip: ");
  CHECK_ERROR_CONTAINS("- opencl: ");
}

static const harness_test tests[] = {
    {"opencl_named", test_opencl_named},
    {"default_order", test_default_order},
    {0},
};

int main(int argc, char **argv) { return harness_main_no_context(argc, argv, tests); }
