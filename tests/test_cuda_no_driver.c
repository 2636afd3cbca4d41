/* tests/test_cuda_no_driver.c: the CUDA backend on a machine without the
 * NVIDIA driver answers UNAVAILABLE naming libcuda.so.1 and the loader's
 * reason, prints nothing and keeps answering the same. Skipped where the
 * driver is installed. */
#include <dlfcn.h>

#include "backends/backend.h"
#include "gpu_test_capture.h"
#include "harness.h"

static void test_probe_without_driver(kiln_context *ctx) {
  (void)ctx;
  dlerror();
  void *driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (driver) {
    dlclose(driver);
    harness_skip("libcuda.so.1 is installed here, so the no-driver path cannot be seen");
    return;
  }
  char reason[512];
  const char *why = dlerror();
  snprintf(reason, sizeof reason, "%s", why ? why : "");

  capture c;
  int capturing = capture_begin(&c);
  int count = -1;
  kiln_status status = kiln_backend_cuda.probe(NULL, &count);
  char printed[256] = "";
  long length = capturing ? capture_end(&c, printed, sizeof printed) : 0;

  CHECK_MSG(status == KILN_ERROR_UNAVAILABLE, "probe returned %s: %s",
            kiln_status_string(status), kiln_last_error());
  CHECK(count == 0);
  CHECK_ERROR_CONTAINS("libcuda.so.1");
  if (reason[0]) CHECK_ERROR_CONTAINS(reason);
  CHECK_MSG(length == 0, "the probe printed %ld bytes: %s", length, printed);

  /* the outcome is remembered, and every device slot says the same */
  CHECK_STATUS(kiln_backend_cuda.probe(NULL, &count), KILN_ERROR_UNAVAILABLE);
  CHECK_ERROR_CONTAINS("libcuda.so.1");
  kiln_device_info info;
  CHECK_STATUS(kiln_backend_cuda.device_info(NULL, 0, &info), KILN_ERROR_UNAVAILABLE);
  CHECK_ERROR_CONTAINS("libcuda.so.1");
  kiln_backend_device *device = (kiln_backend_device *)&count;
  CHECK_STATUS(kiln_backend_cuda.device_open(NULL, 0, &device), KILN_ERROR_UNAVAILABLE);
  CHECK(device == NULL);
  CHECK(strcmp(kiln_backend_cuda.name, "cuda") == 0);
  CHECK(kiln_backend_cuda.prelude && kiln_backend_cuda.prelude[0]);
}

static const harness_test tests[] = {
    {"probe_without_driver", test_probe_without_driver},
    {0},
};

int main(int argc, char **argv) { return harness_main_no_context(argc, argv, tests); }
