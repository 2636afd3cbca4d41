/* Conformance: backend discovery, device properties and the selection
 * rules (options struct over environment, errors that name what failed). */
#include "harness.h"

static const char *current_backend(kiln_context *ctx) {
  static kiln_device_info info;
  kiln_context_device_info(ctx, &info);
  return info.backend;
}

static void test_backend_listing(kiln_context *ctx) {
  CHECK(kiln_backend_count() == 3);
  int found = 0;
  for (int i = 0; i < kiln_backend_count(); i++) {
    const char *name = kiln_backend_name(i);
    CHECK(name != NULL);
    found += name && strcmp(name, current_backend(ctx)) == 0;
  }
  CHECK(found == 1);
  CHECK(kiln_backend_name(-1) == NULL && kiln_backend_name(3) == NULL);
  int count = 0;
  CHECK_OK(kiln_backend_device_count(current_backend(ctx), NULL, &count));
  CHECK(count >= 1);
  int unknown = -1;
  CHECK_STATUS(kiln_backend_device_count("bogus", NULL, &unknown), KILN_ERROR_NOT_FOUND);
  CHECK_ERROR_CONTAINS("cuda, hip, opencl");
  CHECK(unknown == 0);
  kiln_device_info info;
  CHECK_STATUS(kiln_backend_device_info(current_backend(ctx), NULL, count, &info), KILN_ERROR_NOT_FOUND);
}

static void test_device_info(kiln_context *ctx) {
  kiln_device_info info;
  CHECK_OK(kiln_context_device_info(ctx, &info));
  CHECK(info.name[0] && info.vendor[0] && info.platform[0] && info.driver_version[0]);
  CHECK(info.architecture[0]);
  CHECK(info.global_memory > 0 && info.local_memory > 0);
  CHECK(info.compute_units > 0 && info.max_work_group_size > 0);
  CHECK(info.cache_size < info.global_memory);
  if (strcmp(info.backend, "opencl") != 0) CHECK(info.cache_size > 0); /* the L2 */
  CHECK(info.has_double == 0 || info.has_double == 1);
  CHECK(info.type == KILN_DEVICE_GPU || info.type == KILN_DEVICE_CPU || info.type == KILN_DEVICE_OTHER);
  if (strcmp(info.backend, "opencl") != 0) CHECK(info.type == KILN_DEVICE_GPU);
  if (strstr(info.platform, "Portable Computing Language")) CHECK(info.type == KILN_DEVICE_CPU);
  kiln_device_info listed;
  CHECK_OK(kiln_backend_device_info(info.backend, NULL, info.index, &listed));
  CHECK(strcmp(listed.name, info.name) == 0 && listed.global_memory == info.global_memory);
  CHECK_STATUS(kiln_context_device_info(NULL, &info), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_context_device_info(ctx, NULL), KILN_ERROR_INVALID_ARGUMENT);
}

/* Runs create with options and checks the status and a message fragment. */
static void expect_create(const kiln_context_options *o, kiln_status status, const char *needle) {
  kiln_context *c = (kiln_context *)1;
  CHECK_STATUS(kiln_context_create(o, &c), status);
  CHECK(status == KILN_OK ? c != NULL : c == NULL);
  if (needle) CHECK_ERROR_CONTAINS(needle);
  kiln_context_release(status == KILN_OK ? c : NULL);
}

static void test_options_and_environment(kiln_context *ctx) {
  const char *backend = current_backend(ctx);
  char *saved = getenv("KILN_BACKEND") ? strdup(getenv("KILN_BACKEND")) : NULL;
  kiln_context_options o;
  kiln_context_options_init(&o);
  CHECK(o.backends == NULL && o.device == -1 && o.use_environment == 1);

  o.backends = "bogus";
  expect_create(&o, KILN_ERROR_INVALID_ARGUMENT, "valid backends: cuda, hip, opencl");
  expect_create(&o, KILN_ERROR_INVALID_ARGUMENT, "options.backends");
  o.backends = "opencl,,cuda";
  expect_create(&o, KILN_ERROR_INVALID_ARGUMENT, "unknown backend ''");

  /* environment values */
  o.backends = NULL;
  setenv("KILN_BACKEND", "bogus", 1);
  expect_create(&o, KILN_ERROR_INVALID_ARGUMENT, "KILN_BACKEND='bogus'");
  setenv("KILN_BACKEND", backend, 1);
  setenv("KILN_DEVICE", "first", 1);
  expect_create(&o, KILN_ERROR_INVALID_ARGUMENT, "KILN_DEVICE='first'");
  setenv("KILN_DEVICE", "-1", 1);
  expect_create(&o, KILN_ERROR_INVALID_ARGUMENT, "KILN_DEVICE");
  setenv("KILN_DEVICE", "99", 1);
  expect_create(&o, KILN_ERROR_NOT_FOUND, "device 99 does not exist");
  /* the options struct wins over the environment */
  o.device = 0;
  expect_create(&o, KILN_OK, NULL);
  o.device = -2;
  expect_create(&o, KILN_ERROR_INVALID_ARGUMENT, "options.device");
  o.device = -1;
  unsetenv("KILN_DEVICE");
  setenv("KILN_LOG", "loud", 1);
  expect_create(&o, KILN_ERROR_INVALID_ARGUMENT, "KILN_LOG='loud'");
  /* use_environment = 0 ignores all of it */
  o.use_environment = 0;
  o.backends = backend;
  setenv("KILN_DEVICE", "99", 1);
  expect_create(&o, KILN_OK, NULL);
  unsetenv("KILN_DEVICE");
  unsetenv("KILN_LOG");
  o.use_environment = 1;
  /* a comma list falls through to the first usable backend */
  o.backends = strcmp(backend, "opencl") == 0 ? "cuda, hip ,opencl" : backend;
  kiln_context *c = NULL;
  CHECK_OK(kiln_context_create(&o, &c));
  if (c) CHECK(strcmp(current_backend(c), backend) == 0);
  kiln_context_release(c);
  /* a platform filter that matches nothing */
  if (strcmp(backend, "opencl") == 0) {
    o.backends = "opencl";
    o.platform_filter = "no-such-platform-xyz";
    expect_create(&o, KILN_ERROR_UNAVAILABLE, "no-such-platform-xyz");
  }
  if (saved) setenv("KILN_BACKEND", saved, 1);
  else unsetenv("KILN_BACKEND");
  free(saved);
  CHECK_STATUS(kiln_context_create(NULL, NULL), KILN_ERROR_INVALID_ARGUMENT);
  kiln_context_release(NULL);
}

/* A backend asked for by name whose library is absent fails with the
 * library's name; on machines that have it, this is skipped. */
static void test_missing_backend_named(kiln_context *ctx) {
  (void)ctx;
  int count = 0;
  if (kiln_backend_device_count("cuda", NULL, &count) == KILN_OK) {
    harness_skip("CUDA is usable here");
    return;
  }
  kiln_context_options o;
  kiln_context_options_init(&o);
  o.backends = "cuda";
  kiln_context *c = NULL;
  kiln_status s = kiln_context_create(&o, &c);
  CHECK(s == KILN_ERROR_UNAVAILABLE && c == NULL);
  CHECK_ERROR_CONTAINS("options.backends='cuda'");
  CHECK_ERROR_CONTAINS("libcuda.so.1");
}

static const harness_test tests[] = {
    {"backend_listing", test_backend_listing},
    {"device_info", test_device_info},
    {"options_and_environment", test_options_and_environment},
    {"missing_backend_named", test_missing_backend_named},
    {0},
};

int main(int argc, char **argv) { return harness_main(argc, argv, tests); }
