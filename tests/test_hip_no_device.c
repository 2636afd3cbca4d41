/* tests/test_hip_no_device.c: with the HIP runtime installed and no AMD GPU,
 * the HIP backend's probe is UNAVAILABLE naming hipGetDeviceCount and the
 * runtime's own error name, without crashing or printing. Skipped where
 * no HIP runtime is installed or a device exists. */
#include "backends/backend.h"
#include "gpu_test_capture.h"
#include "harness.h"

static void test_probe_without_device(kiln_context *ctx) {
  (void)ctx;
  /* No dlopen/dlclose of the runtime here: some ROCm releases do not
   * survive being unloaded and loaded again in one process. */
  capture c;
  int capturing = capture_begin(&c);
  int count = -1;
  kiln_status status = kiln_backend_hip.probe(NULL, &count);
  char printed[256] = "";
  long length = capturing ? capture_end(&c, printed, sizeof printed) : 0;

  if (status == KILN_OK) {
    harness_skip("this machine has %d AMD GPU(s)", count);
    return;
  }
  if (strstr(kiln_last_error(), "cannot load the HIP runtime")) {
    harness_skip("no HIP runtime is installed here: %s", kiln_last_error());
    return;
  }
  CHECK_MSG(status == KILN_ERROR_UNAVAILABLE, "probe returned %s: %s",
            kiln_status_string(status), kiln_last_error());
  CHECK(count == 0);
  CHECK_ERROR_CONTAINS("hipGetDeviceCount");
  CHECK_ERROR_CONTAINS("hipError"); /* the runtime's name, e.g. hipErrorNoDevice */
  CHECK_MSG(length == 0, "the probe printed %ld bytes: %s", length, printed);

  kiln_backend_device *device = (kiln_backend_device *)&count;
  CHECK_STATUS(kiln_backend_hip.device_open(NULL, 0, &device), KILN_ERROR_UNAVAILABLE);
  CHECK(device == NULL);
  CHECK_ERROR_CONTAINS("hipError");
  CHECK(strcmp(kiln_backend_hip.name, "hip") == 0);
  CHECK(kiln_backend_hip.prelude && kiln_backend_hip.prelude[0]);
}

static const harness_test tests[] = {
    {"probe_without_device", test_probe_without_device},
    {0},
};

int main(int argc, char **argv) { return harness_main_no_context(argc, argv, tests); }
