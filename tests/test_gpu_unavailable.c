/* tests/test_gpu_unavailable.c: the CUDA or HIP backend, on a machine where
 * it cannot run, answers UNAVAILABLE from probe, device_info and
 * device_open with a message naming what is missing, prints nothing and
 * keeps answering the same. KILN_UNAVAILABLE_BACKEND (set by
 * tests/gpu_backends.cmake) says which:
 *   cuda (ctest cuda_no_driver): without the NVIDIA driver, the message
 *     names libcuda.so.1 and the loader's reason. Skipped where the driver
 *     is installed.
 *   hip (ctest hip_no_device): with the HIP runtime installed and no AMD
 *     GPU, the message names hipGetDeviceCount and the runtime's own error
 *     name (hipErrorNoDevice...). Skipped where no HIP runtime is installed
 *     or a device exists. */
#include <dlfcn.h>

#include "backends/backend.h"
#include "gpu_test_capture.h"
#include "harness.h"

typedef struct unavailable_case {
  const char *backend;
  const kiln_backend_ops *ops;
  /* the library whose absence is tested (its dlopen failure must be in the
   * message), or NULL: the runtime is there and the probe itself fails */
  const char *absent_library;
  /* a probe failure with this in its message means the runtime is not
   * installed: skipped, that is not what the test is about (or NULL) */
  const char *not_installed;
  const char *expected[3]; /* NULL-terminated: in every message */
} unavailable_case;

static const unavailable_case cases[] = {
    {"cuda", &kiln_backend_cuda, "libcuda.so.1", NULL, {"libcuda.so.1", NULL}},
    /* the runtime's error name, e.g. hipErrorNoDevice */
    {"hip", &kiln_backend_hip, NULL, "cannot load the HIP runtime",
     {"hipGetDeviceCount", "hipError", NULL}},
};

static void check_expected(const unavailable_case *u) {
  for (const char *const *text = u->expected; *text; text++) CHECK_ERROR_CONTAINS(*text);
}

static void test_probe_unavailable(kiln_context *ctx) {
  (void)ctx;
  const char *backend = getenv("KILN_UNAVAILABLE_BACKEND");
  const unavailable_case *u = NULL;
  for (size_t i = 0; backend && i < sizeof cases / sizeof cases[0]; i++)
    if (strcmp(backend, cases[i].backend) == 0) u = &cases[i];
  if (!u) {
    harness_fail(__FILE__, __LINE__, "KILN_UNAVAILABLE_BACKEND=%s is not cuda or hip",
                 backend ? backend : "(unset)");
    return;
  }
  const kiln_backend_ops *ops = u->ops;

  /* Only a library that is absent is opened here: some ROCm releases do not
   * survive being unloaded and loaded again in one process. */
  char reason[512] = "";
  if (u->absent_library) {
    dlerror();
    void *library = dlopen(u->absent_library, RTLD_NOW | RTLD_LOCAL);
    if (library) {
      dlclose(library);
      harness_skip("%s is installed here, so the path without it cannot be seen",
                   u->absent_library);
      return;
    }
    const char *why = dlerror();
    snprintf(reason, sizeof reason, "%s", why ? why : "");
  }

  capture c;
  int capturing = capture_begin(&c);
  int count = -1;
  kiln_status status = ops->probe(NULL, &count);
  char printed[256] = "";
  long length = capturing ? capture_end(&c, printed, sizeof printed) : 0;

  if (status == KILN_OK) {
    harness_skip("this machine has %d %s device(s)", count, u->backend);
    return;
  }
  if (u->not_installed && strstr(kiln_last_error(), u->not_installed)) {
    harness_skip("no %s runtime is installed here: %s", u->backend, kiln_last_error());
    return;
  }
  CHECK_MSG(status == KILN_ERROR_UNAVAILABLE, "probe returned %s: %s",
            kiln_status_string(status), kiln_last_error());
  CHECK(count == 0);
  check_expected(u);
  if (reason[0]) CHECK_ERROR_CONTAINS(reason);
  CHECK_MSG(length == 0, "the probe printed %ld bytes: %s", length, printed);

  /* the outcome is remembered, and every device slot says the same */
  CHECK_STATUS(ops->probe(NULL, &count), KILN_ERROR_UNAVAILABLE);
  check_expected(u);
  kiln_device_info info;
  CHECK_STATUS(ops->device_info(NULL, 0, &info), KILN_ERROR_UNAVAILABLE);
  check_expected(u);
  kiln_backend_device *device = (kiln_backend_device *)&count;
  CHECK_STATUS(ops->device_open(NULL, 0, &device), KILN_ERROR_UNAVAILABLE);
  CHECK(device == NULL);
  check_expected(u);
  CHECK(strcmp(ops->name, u->backend) == 0);
  CHECK(ops->prelude && ops->prelude[0]);
}

static const harness_test tests[] = {
    {"probe_unavailable", test_probe_unavailable},
    {0},
};

int main(int argc, char **argv) { return harness_main_no_context(argc, argv, tests); }
