/* tests/test_opencl_backend.c: the OpenCL backend's ops table driven
 * directly (no core), on PoCL or the platform KILN_OPENCL_PLATFORM names.
 *
 * Kernels here are plain OpenCL C (no kiln prelude): this tests the backend,
 * not the kernel language. Every result is checked against a host
 * computation on random data.
 *
 * Tests whose name starts with "env_" need a special environment (set by
 * tests/opencl_backend.cmake, one process each, since the ICD loader reads
 * it once) and only run when named on the command line. */
#include <pthread.h>

#include "backends/backend.h"
#include "backends/opencl/opencl_backend.h"
#include "backends/opencl/opencl_binary.h"
#include "backends/opencl/opencl_library.h"
#include "harness.h"

static const kiln_backend_ops *ops = &kiln_backend_opencl;
static kiln_backend_config config;

static const char test_source[] =
    "#ifndef SCALE\n"
    "#error \"SCALE must come from -DSCALE=...\"\n"
    "#endif\n"
    "/* y[i] = a * x[mirror of i within its work-group] + SCALE * y[i], the\n"
    " * mirror read through local memory */\n"
    "__kernel void axpy_mirrored(__global float *y, __global const float *x,\n"
    "                            float a, uint n, __local float *scratch) {\n"
    "  size_t i = get_global_id(0), l = get_local_id(0), ls = get_local_size(0);\n"
    "  scratch[l] = i < n ? x[i] : 0.0f;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  if (i < n) y[i] = a * scratch[ls - 1 - l] + SCALE * y[i];\n"
    "}\n"
    "__kernel void add_one(__global int *p, uint n) {\n"
    "  size_t i = get_global_id(0);\n"
    "  if (i < n) p[i] += 1;\n"
    "}\n"
    "__kernel void is_null(__global const int *p, __global int *out) {\n"
    "  out[0] = p == 0 ? 7 : 9;\n"
    "}\n"
    "__kernel void spin(__global uint *data, uint iterations) {\n"
    "  size_t i = get_global_id(0);\n"
    "  uint v = data[i];\n"
    "  for (uint k = 0; k < iterations; k++) v = v * 1103515245u + 12345u;\n"
    "  data[i] = v;\n"
    "}\n";

/* ---- helpers ------------------------------------------------------------ */

static int name_in_list(const char *list, const char *name) {
  size_t n = strlen(name);
  for (const char *p = list; p && (p = strstr(p, name)) != NULL; p += n)
    if ((p == list || p[-1] == ',') && (p[n] == '\0' || p[n] == ',')) return 1;
  return 0;
}

static void fill_random_bytes(unsigned char *p, size_t n) {
  for (size_t i = 0; i < n; i++) p[i] = (unsigned char)(harness_rand_u64() >> 56);
}

static kiln_backend_device *open_device(void) {
  kiln_backend_device *device = NULL;
  kiln_status s = ops->device_open(&config, 0, &device);
  if (s != KILN_OK) {
    harness_fail(__FILE__, __LINE__, "device_open: %s: %s", kiln_status_string(s),
                 kiln_last_error());
    return NULL;
  }
  return device;
}

static kiln_backend_module *build_test_program(kiln_backend_device *device) {
  kiln_backend_module *module = NULL;
  char *log = NULL;
  kiln_status s = ops->module_build(device, test_source, "-DSCALE=2.0f", &module, &log);
  if (s != KILN_OK)
    harness_fail(__FILE__, __LINE__, "module_build: %s: %s", kiln_status_string(s),
                 kiln_last_error());
  else if (!log)
    harness_fail(__FILE__, __LINE__, "module_build gave no log on success");
  free(log);
  return module;
}

static kiln_backend_arg buffer_arg(kiln_backend_buffer *b, uint64_t offset) {
  kiln_backend_arg a = {KILN_BACKEND_ARG_BUFFER, b, offset, NULL, 0, 0};
  return a;
}

static kiln_backend_arg scalar_arg(const void *value, size_t size) {
  kiln_backend_arg a = {KILN_BACKEND_ARG_SCALAR, NULL, 0, value, size, 0};
  return a;
}

static kiln_backend_arg local_arg(size_t bytes) {
  kiln_backend_arg a = {KILN_BACKEND_ARG_LOCAL, NULL, 0, NULL, 0, bytes};
  return a;
}

static kiln_backend_launch launch_1d(uint64_t global, uint64_t local) {
  kiln_backend_launch l = {1, {global, 1, 1}, {local, 1, 1}};
  return l;
}

/* ---- discovery ---------------------------------------------------------- */

static void test_probe(kiln_context *ctx) {
  (void)ctx;
  int count = -1;
  CHECK_OK(ops->probe(&config, &count));
  CHECK(count >= 1);
  CHECK_STATUS(ops->probe(&config, NULL), KILN_ERROR_INVALID_ARGUMENT);
  CHECK(strcmp(ops->name, "opencl") == 0);
  CHECK(ops->prelude != NULL);
  CHECK(ops->compile_for_target == NULL);

  /* the filter is a case-insensitive substring */
  char upper[64];
  snprintf(upper, sizeof upper, "%s", config.platform_filter);
  for (char *p = upper; *p; p++)
    if (*p >= 'a' && *p <= 'z') *p = (char)(*p - 'a' + 'A');
  kiln_backend_config shouting = {upper};
  int shouted = -1;
  CHECK_OK(ops->probe(&shouting, &shouted));
  CHECK(shouted == count);
  /* no filter sees at least the filtered devices */
  kiln_backend_config any = {NULL};
  int all = -1;
  CHECK_OK(ops->probe(&any, &all));
  CHECK(all >= count);
}

static void test_probe_filter_matching_nothing(kiln_context *ctx) {
  (void)ctx;
  kiln_device_info info;
  REQUIRE_OK(ops->device_info(&config, 0, &info));
  kiln_backend_config nothing = {"no-such-platform-xyzzy"};
  int count = -1;
  CHECK_STATUS(ops->probe(&nothing, &count), KILN_ERROR_UNAVAILABLE);
  CHECK(count == 0);
  CHECK_ERROR_CONTAINS("no-such-platform-xyzzy");
  CHECK_ERROR_CONTAINS(info.platform); /* lists the platforms that exist */
  CHECK_STATUS(ops->device_open(&nothing, 0, &(kiln_backend_device *){NULL}),
               KILN_ERROR_UNAVAILABLE);
}

static void test_device_info(kiln_context *ctx) {
  (void)ctx;
  kiln_device_info info;
  memset(&info, 0x5a, sizeof info);
  REQUIRE_OK(ops->device_info(&config, 0, &info));
  CHECK(info.index == 0);
  CHECK(strcmp(info.backend, "opencl") == 0);
  CHECK(info.name[0] != '\0' && memchr(info.name, '\0', sizeof info.name));
  CHECK(info.vendor[0] != '\0' && memchr(info.vendor, '\0', sizeof info.vendor));
  CHECK(info.platform[0] != '\0' && memchr(info.platform, '\0', sizeof info.platform));
  CHECK(info.driver_version[0] != '\0' &&
        memchr(info.driver_version, '\0', sizeof info.driver_version));
  CHECK_MSG(strncmp(info.architecture, "OpenCL C ", 9) == 0, "architecture \"%s\"",
            info.architecture);
  CHECK(info.global_memory >= (1u << 20));
  CHECK(info.local_memory >= 1024);
  CHECK(info.max_buffer_size >= (1u << 20) && info.max_buffer_size <= info.global_memory);
  CHECK(info.compute_units >= 1 && info.compute_units < 1000000);
  CHECK(info.max_work_group_size >= 1);
  CHECK(info.has_double == 0 || info.has_double == 1);
  if (strstr(info.platform, "Portable Computing Language"))
    CHECK_MSG(info.has_double == 1, "PoCL's CPU device has cl_khr_fp64");
  printf("  device \"%s\" (%s), %s, %s, driver %s, %llu MiB, %u CUs, wg %llu, fp64 %d\n",
         info.name, info.vendor, info.platform, info.architecture, info.driver_version,
         (unsigned long long)(info.global_memory >> 20), info.compute_units,
         (unsigned long long)info.max_work_group_size, info.has_double);

  int count = 0;
  REQUIRE_OK(ops->probe(&config, &count));
  CHECK_STATUS(ops->device_info(&config, count, &info), KILN_ERROR_NOT_FOUND);
  CHECK_STATUS(ops->device_info(&config, -1, &info), KILN_ERROR_NOT_FOUND);
  CHECK_STATUS(ops->device_info(&config, 0, NULL), KILN_ERROR_INVALID_ARGUMENT);
  kiln_backend_device *device = NULL;
  CHECK_STATUS(ops->device_open(&config, count, &device), KILN_ERROR_NOT_FOUND);
  CHECK(device == NULL);
}

/* ---- memory ------------------------------------------------------------- */

static void test_copies_round_trip(kiln_context *ctx) {
  (void)ctx;
  kiln_backend_device *device = open_device();
  if (!device) return;
  static const size_t sizes[] = {1, 3, 17, 1000, 4097, 65539, 1048583};
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
    size_t n = sizes[k];
    size_t offset = (size_t)(harness_rand_u64() % 13) + (k % 2); /* odd and even offsets */
    size_t total = n + offset + 7;
    unsigned char *base = malloc(total), *data = malloc(n), *back = malloc(total);
    kiln_backend_buffer *buffer = NULL;
    if (!base || !data || !back) {
      harness_fail(__FILE__, __LINE__, "out of host memory");
      goto next;
    }
    fill_random_bytes(base, total);
    fill_random_bytes(data, n);
    if (ops->buffer_alloc(device, total, &buffer) != KILN_OK) {
      harness_fail(__FILE__, __LINE__, "buffer_alloc(%zu): %s", total, kiln_last_error());
      goto next;
    }
    CHECK_OK(ops->copy_h2d(device, NULL, buffer, 0, base, total, 1));
    /* the sub-range goes in non-blocking, half the time */
    CHECK_OK(ops->copy_h2d(device, NULL, buffer, offset, data, n, (int)(k % 2)));
    CHECK_OK(ops->stream_synchronize(device, NULL));
    memset(back, 0, total);
    CHECK_OK(ops->copy_d2h(device, NULL, back, buffer, 0, total, 1));
    CHECK_MSG(memcmp(back, base, offset) == 0, "bytes before offset %zu changed (n=%zu)", offset,
              n);
    CHECK_MSG(memcmp(back + offset, data, n) == 0, "copied bytes differ (n=%zu offset=%zu)", n,
              offset);
    CHECK_MSG(memcmp(back + offset + n, base + offset + n, total - offset - n) == 0,
              "bytes after the copy changed (n=%zu)", n);
    /* read back just the range at its offset, non-blocking */
    memset(back, 0, n);
    CHECK_OK(ops->copy_d2h(device, NULL, back, buffer, offset, n, 0));
    CHECK_OK(ops->stream_synchronize(device, NULL));
    CHECK_MSG(memcmp(back, data, n) == 0, "offset read differs (n=%zu offset=%zu)", n, offset);
    /* out of range, both ends */
    CHECK_STATUS(ops->copy_h2d(device, NULL, buffer, total - n + 1, data, n, 1),
                 KILN_ERROR_OUT_OF_RANGE);
    CHECK_STATUS(ops->copy_d2h(device, NULL, back, buffer, UINT64_MAX - 1, n, 1),
                 KILN_ERROR_OUT_OF_RANGE);
  next:
    ops->buffer_free(device, buffer);
    free(base);
    free(data);
    free(back);
  }
  ops->device_close(device);
}

static void test_copy_device_to_device(kiln_context *ctx) {
  (void)ctx;
  kiln_backend_device *device = open_device();
  if (!device) return;
  const size_t n = 10007;
  unsigned char *a = malloc(n), *b = malloc(n), *expect = malloc(n), *back = malloc(n);
  kiln_backend_buffer *src = NULL, *dst = NULL;
  if (!a || !b || !expect || !back) goto cleanup;
  fill_random_bytes(a, n);
  fill_random_bytes(b, n);
  if (ops->buffer_alloc(device, n, &src) != KILN_OK || ops->buffer_alloc(device, n, &dst) != KILN_OK) {
    harness_fail(__FILE__, __LINE__, "buffer_alloc: %s", kiln_last_error());
    goto cleanup;
  }
  CHECK_OK(ops->copy_h2d(device, NULL, src, 0, a, n, 1));
  CHECK_OK(ops->copy_h2d(device, NULL, dst, 0, b, n, 1));
  /* three copies at odd offsets, one of them within `src` itself */
  memcpy(expect, b, n);
  CHECK_OK(ops->copy_d2d(device, NULL, dst, 3, src, 1001, 4093));
  memcpy(expect + 3, a + 1001, 4093);
  CHECK_OK(ops->copy_d2d(device, NULL, dst, n - 5, src, 0, 5));
  memcpy(expect + n - 5, a, 5);
  CHECK_OK(ops->copy_d2d(device, NULL, src, 7000, src, 11, 2999));
  CHECK_OK(ops->copy_d2h(device, NULL, back, dst, 0, n, 1));
  CHECK(memcmp(back, expect, n) == 0);
  CHECK_OK(ops->copy_d2h(device, NULL, back, src, 0, n, 1));
  memcpy(a + 7000, a + 11, 2999);
  CHECK(memcmp(back, a, n) == 0);
  /* bad input */
  CHECK_STATUS(ops->copy_d2d(device, NULL, src, 10, src, 0, 100), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("overlap");
  CHECK_STATUS(ops->copy_d2d(device, NULL, dst, 0, src, n - 4, 5), KILN_ERROR_OUT_OF_RANGE);
  CHECK_STATUS(ops->copy_d2d(device, NULL, dst, n, src, 0, 1), KILN_ERROR_OUT_OF_RANGE);
  CHECK_STATUS(ops->copy_d2d(device, NULL, NULL, 0, src, 0, 1), KILN_ERROR_INVALID_ARGUMENT);
cleanup:
  ops->buffer_free(device, src);
  ops->buffer_free(device, dst);
  free(a);
  free(b);
  free(expect);
  free(back);
  ops->device_close(device);
}

static void test_buffer_alloc_errors(kiln_context *ctx) {
  (void)ctx;
  kiln_backend_device *device = open_device();
  if (!device) return;
  kiln_backend_buffer *buffer = NULL;
  CHECK_STATUS(ops->buffer_alloc(device, (size_t)1 << 62, &buffer), KILN_ERROR_OUT_OF_MEMORY);
  CHECK(buffer == NULL);
  CHECK_ERROR_CONTAINS("CL_DEVICE_MAX_MEM_ALLOC_SIZE");
  /* one byte past the limit device_info reports */
  kiln_device_info info;
  REQUIRE_OK(ops->device_info(&config, 0, &info));
  if (info.max_buffer_size < SIZE_MAX) {
    CHECK_STATUS(ops->buffer_alloc(device, (size_t)info.max_buffer_size + 1, &buffer),
                 KILN_ERROR_OUT_OF_MEMORY);
    CHECK(buffer == NULL);
  }
  CHECK_STATUS(ops->buffer_alloc(device, 0, &buffer), KILN_ERROR_INVALID_ARGUMENT);
  ops->buffer_free(device, NULL);
  ops->device_close(device);
}

static void test_pinned_host_memory(kiln_context *ctx) {
  (void)ctx;
  kiln_backend_device *device = open_device();
  if (!device) return;
  const size_t n = (1u << 20) + 13;
  unsigned char *up = NULL, *down = NULL, *leftover = NULL;
  kiln_backend_buffer *buffer = NULL;
  kiln_backend_stream *stream = NULL;
  REQUIRE_OK(ops->host_alloc(device, n, (void **)&up));
  CHECK_OK(ops->host_alloc(device, n, (void **)&down));
  CHECK_OK(ops->host_alloc(device, 100, (void **)&leftover));
  CHECK_OK(ops->buffer_alloc(device, n, &buffer));
  CHECK_OK(ops->stream_create(device, &stream));
  if (!up || !down || !leftover || !buffer || !stream) goto cleanup;
  CHECK(up != down);
  fill_random_bytes(up, n);
  memset(down, 0, n);
  memset(leftover, 1, 100); /* must be writable; device_close frees it */
  CHECK_OK(ops->copy_h2d(device, stream, buffer, 0, up, n, 0));
  CHECK_OK(ops->copy_d2h(device, stream, down, buffer, 0, n, 0));
  CHECK_OK(ops->stream_synchronize(device, stream));
  CHECK(memcmp(up, down, n) == 0);
  void *none = &none;
  CHECK_STATUS(ops->host_alloc(device, 0, &none), KILN_ERROR_INVALID_ARGUMENT);
  CHECK(none == NULL);
cleanup:
  ops->stream_destroy(device, stream);
  ops->buffer_free(device, buffer);
  ops->host_free(device, down);
  ops->host_free(device, up);
  ops->host_free(device, NULL);
  ops->device_close(device); /* also frees `leftover` */
}

/* ---- streams and events --------------------------------------------------- */

static uint32_t spin_reference(uint32_t v, uint32_t iterations) {
  for (uint32_t k = 0; k < iterations; k++) v = v * 1103515245u + 12345u;
  return v;
}

static void test_streams_and_events(kiln_context *ctx) {
  (void)ctx;
  kiln_backend_device *device = open_device();
  if (!device) return;
  const size_t n = 1 << 14;
  const uint32_t iterations = 2000;
  uint32_t *data = malloc(n * sizeof *data), *back = malloc(n * sizeof *back);
  kiln_backend_stream *s1 = NULL, *s2 = NULL;
  kiln_backend_event *start = NULL, *end = NULL, *never = NULL;
  kiln_backend_buffer *buffer = NULL;
  kiln_backend_module *module = NULL;
  kiln_backend_function *spin = NULL;
  if (!data || !back) goto cleanup;
  for (size_t i = 0; i < n; i++) data[i] = (uint32_t)harness_rand_u64();
  REQUIRE_OK(ops->stream_create(device, &s1));
  CHECK_OK(ops->stream_create(device, &s2));
  CHECK_OK(ops->event_create(device, &start));
  CHECK_OK(ops->event_create(device, &end));
  CHECK_OK(ops->event_create(device, &never));
  CHECK_OK(ops->buffer_alloc(device, n * sizeof *data, &buffer));
  module = build_test_program(device);
  if (!s2 || !start || !end || !never || !buffer || !module) goto cleanup;
  REQUIRE_OK(ops->function_get(device, module, "spin", &spin));

  /* an event never recorded: synchronize and waiting on it are no-ops, timing
   * it is an error */
  CHECK_OK(ops->event_synchronize(device, never));
  CHECK_OK(ops->stream_wait_event(device, s2, never));
  double ms = -1;
  CHECK_STATUS(ops->event_elapsed_ms(device, never, end, &ms), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("never recorded");

  /* s1: upload, start, spin, end; s2 waits for `end` and reads back */
  CHECK_OK(ops->copy_h2d(device, s1, buffer, 0, data, n * sizeof *data, 0));
  CHECK_OK(ops->event_record(device, start, s1));
  kiln_backend_arg args[2] = {buffer_arg(buffer, 0), scalar_arg(&iterations, sizeof iterations)};
  kiln_backend_launch geometry = launch_1d(n, 64);
  CHECK_OK(ops->launch(device, s1, spin, &geometry, 2, args));
  CHECK_OK(ops->event_record(device, end, s1));
  CHECK_OK(ops->stream_wait_event(device, s2, end));
  CHECK_OK(ops->copy_d2h(device, s2, back, buffer, 0, n * sizeof *back, 0));
  CHECK_OK(ops->stream_synchronize(device, s2));
  size_t wrong = 0;
  for (size_t i = 0; i < n; i++) wrong += back[i] != spin_reference(data[i], iterations);
  CHECK_MSG(wrong == 0, "%zu of %zu values differ from the host reference", wrong, n);

  CHECK_OK(ops->event_synchronize(device, end));
  CHECK_OK(ops->event_elapsed_ms(device, start, end, &ms));
  CHECK_MSG(ms > 0 && ms < 60000, "elapsed %g ms", ms);
  double back_ms = 0;
  CHECK_OK(ops->event_elapsed_ms(device, end, start, &back_ms));
  CHECK_CLOSE(back_ms, -ms, 1e-9, 1e-9);
  /* re-recording replaces the event; the default stream works too */
  CHECK_OK(ops->event_record(device, start, NULL));
  CHECK_OK(ops->event_record(device, end, NULL));
  CHECK_OK(ops->event_elapsed_ms(device, start, end, &ms));
  CHECK_MSG(ms >= 0 && ms < 60000, "elapsed %g ms", ms);
  CHECK_OK(ops->stream_synchronize(device, NULL));
cleanup:
  ops->function_release(device, spin);
  ops->module_unload(device, module);
  ops->buffer_free(device, buffer);
  ops->event_destroy(device, start);
  ops->event_destroy(device, end);
  ops->event_destroy(device, never);
  ops->stream_destroy(device, s1);
  ops->stream_destroy(device, s2);
  ops->stream_destroy(device, NULL);
  free(data);
  free(back);
  ops->device_close(device);
}

/* ---- programs and launches ------------------------------------------------ */

/* Runs axpy_mirrored over n elements with work-groups of `local` and checks
 * y against the host. */
static void check_axpy(kiln_backend_device *device, kiln_backend_function *axpy, uint32_t n,
                       uint64_t local) {
  uint64_t global = (n + local - 1) / local * local;
  float *x = malloc(global * sizeof *x), *y = malloc(n * sizeof *y), *out = malloc(n * sizeof *y);
  kiln_backend_buffer *xb = NULL, *yb = NULL;
  if (!x || !y || !out) goto cleanup;
  harness_fill_random(x, KILN_FLOAT32, (int64_t)global, -1000, 1000); /* integers: exact */
  harness_fill_random(y, KILN_FLOAT32, n, -1000, 1000);
  for (uint64_t i = 0; i < global; i++) x[i] = floorf(x[i]);
  for (uint32_t i = 0; i < n; i++) y[i] = floorf(y[i]);
  if (ops->buffer_alloc(device, global * sizeof *x, &xb) != KILN_OK ||
      ops->buffer_alloc(device, n * sizeof *y, &yb) != KILN_OK) {
    harness_fail(__FILE__, __LINE__, "buffer_alloc: %s", kiln_last_error());
    goto cleanup;
  }
  CHECK_OK(ops->copy_h2d(device, NULL, xb, 0, x, global * sizeof *x, 1));
  CHECK_OK(ops->copy_h2d(device, NULL, yb, 0, y, n * sizeof *y, 1));
  float a = 3.0f;
  kiln_backend_arg args[5] = {buffer_arg(yb, 0), buffer_arg(xb, 0), scalar_arg(&a, sizeof a),
                              scalar_arg(&n, sizeof n), local_arg(local * sizeof(float))};
  kiln_backend_launch geometry = launch_1d(global, local);
  CHECK_OK(ops->launch(device, NULL, axpy, &geometry, 5, args));
  CHECK_OK(ops->copy_d2h(device, NULL, out, yb, 0, n * sizeof *out, 1));
  size_t wrong = 0;
  for (uint32_t i = 0; i < n; i++) {
    uint64_t base = i / local * local, l = i % local;
    uint64_t j = base + (local - 1 - l);
    float xv = j < n ? x[j] : 0.0f;
    float expect = a * xv + 2.0f * y[i];
    if (out[i] != expect && wrong++ < 5)
      printf("    y[%u] = %g, expected %g\n", i, out[i], expect);
  }
  CHECK_MSG(wrong == 0, "axpy n=%u local=%llu: %zu wrong", n, (unsigned long long)local, wrong);
cleanup:
  ops->buffer_free(device, xb);
  ops->buffer_free(device, yb);
  free(x);
  free(y);
  free(out);
}

static void test_build_and_launch(kiln_context *ctx) {
  (void)ctx;
  kiln_backend_device *device = open_device();
  if (!device) return;
  kiln_backend_module *module = build_test_program(device);
  kiln_backend_function *axpy = NULL, *missing = NULL;
  if (!module) goto cleanup;
  REQUIRE_OK(ops->function_get(device, module, "axpy_mirrored", &axpy));
  uint64_t max_size = 0, multiple = 0;
  CHECK_OK(ops->function_limits(device, axpy, &max_size, &multiple));
  kiln_device_info info;
  CHECK_OK(ops->device_info(&config, 0, &info));
  CHECK(max_size >= 1 && max_size <= info.max_work_group_size);
  CHECK(multiple >= 1 && multiple <= max_size);

  check_axpy(device, axpy, 1, 1);
  check_axpy(device, axpy, 1000, 8);
  check_axpy(device, axpy, 4099, 64);
  check_axpy(device, axpy, 100003, max_size < 256 ? max_size : 256);

  CHECK_STATUS(ops->function_get(device, module, "no_such_kernel", &missing),
               KILN_ERROR_NOT_FOUND);
  CHECK(missing == NULL);
  CHECK_ERROR_CONTAINS("CL_INVALID_KERNEL_NAME");
  CHECK_ERROR_CONTAINS("no_such_kernel");
cleanup:
  ops->function_release(device, axpy);
  ops->module_unload(device, module);
  ops->device_close(device);
}

static void test_launch_bad_arguments(kiln_context *ctx) {
  (void)ctx;
  kiln_backend_device *device = open_device();
  if (!device) return;
  kiln_backend_module *module = build_test_program(device);
  kiln_backend_function *add_one = NULL;
  kiln_backend_buffer *buffer = NULL;
  if (!module) goto cleanup;
  REQUIRE_OK(ops->function_get(device, module, "add_one", &add_one));
  REQUIRE_OK(ops->buffer_alloc(device, 4096, &buffer));
  uint32_t n = 16;
  uint64_t wide = 16;
  kiln_backend_launch geometry = launch_1d(16, 16);
  kiln_backend_arg good[2] = {buffer_arg(buffer, 0), scalar_arg(&n, sizeof n)};
  CHECK_STATUS(ops->launch(device, NULL, add_one, &geometry, 1, good),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("takes 2 arguments");
  kiln_backend_arg wrong_size[2] = {buffer_arg(buffer, 0), scalar_arg(&wide, sizeof wide)};
  CHECK_STATUS(ops->launch(device, NULL, add_one, &geometry, 2, wrong_size),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("clSetKernelArg");
  CHECK_ERROR_CONTAINS("CL_INVALID_ARG_SIZE");
  kiln_backend_arg no_value[2] = {buffer_arg(buffer, 0), scalar_arg(NULL, 4)};
  CHECK_STATUS(ops->launch(device, NULL, add_one, &geometry, 2, no_value),
               KILN_ERROR_INVALID_ARGUMENT);
  kiln_backend_arg bad_kind[2] = {buffer_arg(buffer, 0), scalar_arg(&n, sizeof n)};
  bad_kind[1].kind = (kiln_backend_arg_kind)99;
  CHECK_STATUS(ops->launch(device, NULL, add_one, &geometry, 2, bad_kind),
               KILN_ERROR_INVALID_ARGUMENT);
  kiln_backend_arg past_end[2] = {buffer_arg(buffer, 4097), scalar_arg(&n, sizeof n)};
  CHECK_STATUS(ops->launch(device, NULL, add_one, &geometry, 2, past_end),
               KILN_ERROR_OUT_OF_RANGE);
  kiln_backend_arg null_offset[2] = {buffer_arg(NULL, 64), scalar_arg(&n, sizeof n)};
  CHECK_STATUS(ops->launch(device, NULL, add_one, &geometry, 2, null_offset),
               KILN_ERROR_INVALID_ARGUMENT);
  kiln_backend_launch uneven = launch_1d(17, 16);
  CHECK_STATUS(ops->launch(device, NULL, add_one, &uneven, 2, good), KILN_ERROR_INVALID_ARGUMENT);
  kiln_backend_launch four_d = launch_1d(16, 16);
  four_d.work_dim = 4;
  CHECK_STATUS(ops->launch(device, NULL, add_one, &four_d, 2, good), KILN_ERROR_INVALID_ARGUMENT);
  /* after all that, a good launch still works */
  int32_t host[16];
  for (int i = 0; i < 16; i++) host[i] = (int32_t)(harness_rand_u64() % 1000);
  CHECK_OK(ops->copy_h2d(device, NULL, buffer, 0, host, sizeof host, 1));
  CHECK_OK(ops->launch(device, NULL, add_one, &geometry, 2, good));
  int32_t out[16];
  CHECK_OK(ops->copy_d2h(device, NULL, out, buffer, 0, sizeof out, 1));
  for (int i = 0; i < 16; i++) CHECK(out[i] == host[i] + 1);
cleanup:
  ops->buffer_free(device, buffer);
  ops->function_release(device, add_one);
  ops->module_unload(device, module);
  ops->device_close(device);
}

static void test_buffer_views_as_arguments(kiln_context *ctx) {
  (void)ctx;
  kiln_backend_device *device = open_device();
  if (!device) return;
  kiln_backend_module *module = build_test_program(device);
  kiln_backend_function *add_one = NULL, *is_null = NULL;
  kiln_backend_buffer *buffer = NULL, *flag = NULL;
  const uint32_t count = 4096; /* int32 elements */
  int32_t *host = malloc(count * sizeof *host), *out = malloc(count * sizeof *out);
  if (!module || !host || !out) goto cleanup;
  REQUIRE_OK(ops->function_get(device, module, "add_one", &add_one));
  REQUIRE_OK(ops->function_get(device, module, "is_null", &is_null));
  REQUIRE_OK(ops->buffer_alloc(device, count * sizeof *host, &buffer));
  REQUIRE_OK(ops->buffer_alloc(device, sizeof(int32_t), &flag));
  for (uint32_t i = 0; i < count; i++) host[i] = (int32_t)(harness_rand_u64() % 100000) - 50000;
  CHECK_OK(ops->copy_h2d(device, NULL, buffer, 0, host, count * sizeof *host, 1));

  /* a view at an aligned offset becomes a sub-buffer: only its elements
   * change (the offset is a multiple of every CL_DEVICE_MEM_BASE_ADDR_ALIGN
   * in use: 128 bytes on PoCL, 512 on NVIDIA) */
  const uint64_t offset = 4096;
  const uint32_t n = 100;
  kiln_backend_arg args[2] = {buffer_arg(buffer, offset), scalar_arg(&n, sizeof n)};
  kiln_backend_launch geometry = launch_1d(128, 32);
  CHECK_OK(ops->launch(device, NULL, add_one, &geometry, 2, args));
  CHECK_OK(ops->copy_d2h(device, NULL, out, buffer, 0, count * sizeof *out, 1));
  size_t first = offset / sizeof *host, wrong = 0;
  for (uint32_t i = 0; i < count; i++)
    wrong += out[i] != host[i] + (i >= first && i < first + n ? 1 : 0);
  CHECK_MSG(wrong == 0, "%zu elements wrong after a launch on a view", wrong);

  /* an offset the device cannot express as a sub-buffer */
  if (device->base_address_align > 4) {
    kiln_backend_arg unaligned[2] = {buffer_arg(buffer, 4), scalar_arg(&n, sizeof n)};
    CHECK_STATUS(ops->launch(device, NULL, add_one, &geometry, 2, unaligned),
                 KILN_ERROR_INVALID_ARGUMENT);
    CHECK_ERROR_CONTAINS("not aligned for an OpenCL pointer argument");
  }

  /* a NULL buffer (empty array) arrives as a NULL pointer; a real one not */
  int32_t answer = 0;
  kiln_backend_arg null_args[2] = {buffer_arg(NULL, 0), buffer_arg(flag, 0)};
  kiln_backend_launch one = launch_1d(1, 1);
  CHECK_OK(ops->launch(device, NULL, is_null, &one, 2, null_args));
  CHECK_OK(ops->copy_d2h(device, NULL, &answer, flag, 0, sizeof answer, 1));
  CHECK(answer == 7);
  kiln_backend_arg real_args[2] = {buffer_arg(buffer, 0), buffer_arg(flag, 0)};
  CHECK_OK(ops->launch(device, NULL, is_null, &one, 2, real_args));
  CHECK_OK(ops->copy_d2h(device, NULL, &answer, flag, 0, sizeof answer, 1));
  CHECK(answer == 9);
cleanup:
  ops->buffer_free(device, buffer);
  ops->buffer_free(device, flag);
  ops->function_release(device, add_one);
  ops->function_release(device, is_null);
  ops->module_unload(device, module);
  free(host);
  free(out);
  ops->device_close(device);
}

typedef struct launcher {
  kiln_backend_device *device;
  kiln_backend_function *function;
  kiln_backend_buffer *buffer;
  uint32_t n;
  int launches;
  kiln_status status;
} launcher;

static void *launch_repeatedly(void *p) {
  launcher *job = p;
  kiln_backend_stream *stream = NULL;
  job->status = ops->stream_create(job->device, &stream);
  kiln_backend_arg args[2] = {buffer_arg(job->buffer, 0), scalar_arg(&job->n, sizeof job->n)};
  kiln_backend_launch geometry = launch_1d(job->n, 16);
  for (int i = 0; i < job->launches && job->status == KILN_OK; i++)
    job->status = ops->launch(job->device, stream, job->function, &geometry, 2, args);
  if (job->status == KILN_OK) job->status = ops->stream_synchronize(job->device, stream);
  ops->stream_destroy(job->device, stream);
  return NULL;
}

/* One function launched from several threads at once, each on its own
 * buffer: arguments must not cross between threads. */
static void test_concurrent_launches(kiln_context *ctx) {
  (void)ctx;
  enum { THREADS = 8, LAUNCHES = 400, N = 256 };
  kiln_backend_device *device = open_device();
  if (!device) return;
  kiln_backend_module *module = build_test_program(device);
  kiln_backend_function *add_one = NULL;
  launcher jobs[THREADS];
  pthread_t threads[THREADS];
  int32_t host[THREADS][N], out[N];
  memset(jobs, 0, sizeof jobs);
  if (!module) goto cleanup;
  REQUIRE_OK(ops->function_get(device, module, "add_one", &add_one));
  for (int t = 0; t < THREADS; t++) {
    for (int i = 0; i < N; i++) host[t][i] = (int32_t)(harness_rand_u64() % 1000000);
    jobs[t] = (launcher){device, add_one, NULL, N, LAUNCHES + t, KILN_OK};
    REQUIRE_OK(ops->buffer_alloc(device, sizeof host[t], &jobs[t].buffer));
    CHECK_OK(ops->copy_h2d(device, NULL, jobs[t].buffer, 0, host[t], sizeof host[t], 1));
  }
  for (int t = 0; t < THREADS; t++)
    CHECK(pthread_create(&threads[t], NULL, launch_repeatedly, &jobs[t]) == 0);
  for (int t = 0; t < THREADS; t++) pthread_join(threads[t], NULL);
  for (int t = 0; t < THREADS; t++) {
    CHECK_MSG(jobs[t].status == KILN_OK, "thread %d: %s", t, kiln_status_string(jobs[t].status));
    CHECK_OK(ops->copy_d2h(device, NULL, out, jobs[t].buffer, 0, sizeof out, 1));
    int wrong = 0;
    for (int i = 0; i < N; i++) wrong += out[i] != host[t][i] + LAUNCHES + t;
    CHECK_MSG(wrong == 0, "thread %d: %d of %d elements wrong", t, wrong, N);
  }
cleanup:
  for (int t = 0; t < THREADS; t++) ops->buffer_free(device, jobs[t].buffer);
  ops->function_release(device, add_one);
  ops->module_unload(device, module);
  ops->device_close(device);
}

static void test_compile_error(kiln_context *ctx) {
  (void)ctx;
  kiln_backend_device *device = open_device();
  if (!device) return;
  kiln_backend_module *module = NULL;
  char *log = NULL;
  const char *broken = "__kernel void broken(__global int *p) {\n  p[0] = undeclared_name;\n}\n";
  CHECK_STATUS(ops->module_build(device, broken, NULL, &module, &log), KILN_ERROR_COMPILE);
  CHECK(module == NULL);
  CHECK_ERROR_CONTAINS("clBuildProgram");
  CHECK_ERROR_CONTAINS("CL_BUILD_PROGRAM_FAILURE");
  CHECK_ERROR_CONTAINS("undeclared_name");
  CHECK_MSG(log && strstr(log, "undeclared_name"), "log: %s", log ? log : "(null)");
  free(log);
  log = NULL;
  /* the test program without the macro it needs: #error shows in the log */
  CHECK_STATUS(ops->module_build(device, test_source, NULL, &module, &log), KILN_ERROR_COMPILE);
  CHECK_MSG(log && strstr(log, "SCALE must come from"), "log: %s", log ? log : "(null)");
  free(log);
  log = NULL;
  CHECK_STATUS(ops->module_build(device, NULL, NULL, &module, &log), KILN_ERROR_INVALID_ARGUMENT);
  free(log);
  ops->device_close(device);
}

static void test_binary_round_trip(kiln_context *ctx) {
  (void)ctx;
  kiln_backend_device *device = open_device();
  if (!device) return;
  kiln_backend_module *module = build_test_program(device), *loaded = NULL;
  kiln_backend_function *axpy = NULL;
  void *binary = NULL;
  size_t size = 0;
  if (!module) goto cleanup;
  REQUIRE_OK(ops->module_binary(device, module, &binary, &size));
  CHECK(binary != NULL && size > KILN_OPENCL_BINARY_HEADER_SIZE);
  ops->module_unload(device, module);
  module = NULL;
  REQUIRE_OK(ops->module_load_binary(device, binary, size, &loaded));
  REQUIRE_OK(ops->function_get(device, loaded, "axpy_mirrored", &axpy));
  check_axpy(device, axpy, 3001, 32);
  /* the binary of a loaded module loads again */
  void *again = NULL;
  size_t again_size = 0;
  CHECK_OK(ops->module_binary(device, loaded, &again, &again_size));
  free(again);
cleanup:
  free(binary);
  ops->function_release(device, axpy);
  ops->module_unload(device, loaded);
  ops->module_unload(device, module);
  ops->device_close(device);
}

static void expect_rejected(kiln_backend_device *device, const void *binary, size_t size,
                            const char *what) {
  kiln_backend_module *module = NULL;
  kiln_status s = ops->module_load_binary(device, binary, size, &module);
  CHECK_MSG(s != KILN_OK && module == NULL, "%s was accepted", what);
  CHECK_MSG(s == KILN_ERROR_INVALID_ARGUMENT, "%s: %s: %s", what, kiln_status_string(s),
            kiln_last_error());
  printf("  %s: %s\n", what, kiln_last_error());
  ops->module_unload(device, module);
}

static void test_corrupt_binary_rejected(kiln_context *ctx) {
  (void)ctx;
  kiln_backend_device *device = open_device();
  if (!device) return;
  kiln_backend_module *module = build_test_program(device);
  unsigned char *binary = NULL, *copy = NULL, *junk = NULL;
  void *wrapped = NULL;
  size_t size = 0, wrapped_size = 0;
  if (!module) goto cleanup;
  REQUIRE_OK(ops->module_binary(device, module, (void **)&binary, &size));
  copy = malloc(size);
  junk = malloc(size);
  if (!copy || !junk) goto cleanup;
  fill_random_bytes(junk, size);

  expect_rejected(device, junk, size, "random bytes");
  expect_rejected(device, binary, 7, "a 7-byte prefix");
  expect_rejected(device, binary, size - 1, "a binary missing its last byte");
  memcpy(copy, binary, size);
  copy[KILN_OPENCL_BINARY_HEADER_SIZE + (size - KILN_OPENCL_BINARY_HEADER_SIZE) / 2] ^= 0x40;
  expect_rejected(device, copy, size, "a binary with one bit flipped");
  CHECK_ERROR_CONTAINS("checksum");
  CHECK_STATUS(ops->module_load_binary(device, NULL, 0, &module), KILN_ERROR_INVALID_ARGUMENT);

  /* garbage that passes the envelope reaches the driver, which must refuse
   * it. (Not a truncated real program: PoCL 3.1 fails an assertion in
   * pocl_binary_deserialize on one and aborts, which is why the envelope's
   * size and checksum are checked before the driver sees anything.) */
  const unsigned char *payload = binary + KILN_OPENCL_BINARY_HEADER_SIZE;
  size_t payload_size = size - KILN_OPENCL_BINARY_HEADER_SIZE;
  REQUIRE_OK(kiln_opencl_binary_wrap(device->identity, junk, payload_size, &wrapped,
                                     &wrapped_size));
  expect_rejected(device, wrapped, wrapped_size, "garbage in a valid envelope");
  free(wrapped);
  wrapped = NULL;
  /* a program for another device */
  REQUIRE_OK(kiln_opencl_binary_wrap("another device", payload, payload_size, &wrapped,
                                     &wrapped_size));
  expect_rejected(device, wrapped, wrapped_size, "a binary of another device");
  CHECK_ERROR_CONTAINS("another OpenCL device");
cleanup:
  free(wrapped);
  free(binary);
  free(copy);
  free(junk);
  ops->module_unload(device, module);
  ops->device_close(device);
}

static void test_build_options(kiln_context *ctx) {
  (void)ctx;
  kiln_backend_device *device = open_device();
  if (!device) return;
  kiln_backend_module *module = NULL;
  char *log = NULL;
  /* user options reach the compiler after kiln's -cl-std */
  const char *source = "__kernel void k(__global int *p) { p[0] = VALUE; }\n";
  CHECK_OK(ops->module_build(device, source, "-DVALUE=42 -cl-mad-enable", &module, &log));
  free(log);
  log = NULL;
  if (module) {
    kiln_backend_function *k = NULL;
    kiln_backend_buffer *b = NULL;
    int32_t v = 0;
    CHECK_OK(ops->function_get(device, module, "k", &k));
    CHECK_OK(ops->buffer_alloc(device, sizeof v, &b));
    kiln_backend_arg arg = buffer_arg(b, 0);
    kiln_backend_launch one = launch_1d(1, 1);
    if (k && b) {
      CHECK_OK(ops->launch(device, NULL, k, &one, 1, &arg));
      CHECK_OK(ops->copy_d2h(device, NULL, &v, b, 0, sizeof v, 1));
    }
    CHECK(v == 42);
    ops->buffer_free(device, b);
    ops->function_release(device, k);
    ops->module_unload(device, module);
    module = NULL;
  }
  kiln_status s = ops->module_build(device, source, "-DVALUE=1 -cl-no-such-option", &module, &log);
  CHECK_MSG(s == KILN_ERROR_INVALID_ARGUMENT || s == KILN_ERROR_COMPILE, "bad option: %s",
            kiln_status_string(s));
  CHECK(module == NULL);
  CHECK_ERROR_CONTAINS("-cl-no-such-option");
  free(log);
  ops->device_close(device);
}

/* ---- environments (one process each, see opencl_backend.cmake) ------------ */

static void test_env_no_vendor_driver(kiln_context *ctx) {
  (void)ctx;
  const char *vendors = getenv("OCL_ICD_VENDORS");
  if (!vendors) {
    harness_fail(__FILE__, __LINE__, "run with OCL_ICD_VENDORS set to an empty directory");
    return;
  }
  int count = -1;
  kiln_status s = ops->probe(&config, &count);
  if (s == KILN_ERROR_UNAVAILABLE && strstr(kiln_last_error(), "cannot load")) {
    harness_skip("no ICD loader here: %s", kiln_last_error());
    return;
  }
  CHECK_MSG(s == KILN_ERROR_UNAVAILABLE, "probe: %s", kiln_status_string(s));
  CHECK(count == 0);
  printf("  %s\n", kiln_last_error());
  CHECK_ERROR_CONTAINS("OCL_ICD_VENDORS");
  CHECK_ERROR_CONTAINS("CL_PLATFORM_NOT_FOUND_KHR");
  CHECK_ERROR_CONTAINS("clGetPlatformIDs");
  kiln_device_info info;
  CHECK_STATUS(ops->device_info(&config, 0, &info), KILN_ERROR_UNAVAILABLE);
  kiln_backend_device *device = NULL;
  CHECK_STATUS(ops->device_open(&config, 0, &device), KILN_ERROR_UNAVAILABLE);
  CHECK(device == NULL);
}

static void test_env_library_override_fallback(kiln_context *ctx) {
  (void)ctx;
  const char *path = getenv("KILN_OPENCL_PATH");
  if (!path || strstr(path, "nonexistent") == NULL) {
    harness_fail(__FILE__, __LINE__, "run with KILN_OPENCL_PATH naming a missing file");
    return;
  }
  const kiln_opencl_symbols *cl = NULL;
  kiln_status s = kiln_opencl_library_load(&cl);
  if (s != KILN_OK) {
    /* no ICD loader: the message lists both attempts */
    CHECK_ERROR_CONTAINS(path);
    CHECK_ERROR_CONTAINS("libOpenCL.so.1");
    harness_skip("no ICD loader here: %s", kiln_last_error());
    return;
  }
  CHECK(cl != NULL);
  CHECK(strcmp(kiln_opencl_library_path(), "libOpenCL.so.1") == 0);
}

static void test_env_library_without_symbols(kiln_context *ctx) {
  (void)ctx;
  const char *path = getenv("KILN_OPENCL_PATH");
  if (!path) {
    harness_fail(__FILE__, __LINE__, "run with KILN_OPENCL_PATH naming a non-OpenCL library");
    return;
  }
  int count = -1;
  CHECK_STATUS(ops->probe(&config, &count), KILN_ERROR_UNAVAILABLE);
  CHECK(count == 0);
  printf("  %s\n", kiln_last_error());
  CHECK_ERROR_CONTAINS(path);
  CHECK_ERROR_CONTAINS("clGetPlatformIDs");
  /* the same answer again, from the recorded outcome */
  CHECK_STATUS(ops->probe(&config, &count), KILN_ERROR_UNAVAILABLE);
  CHECK_ERROR_CONTAINS(path);
}

/* A bad KILN_OPENCL_LANE_SHUFFLE (0 or 1: NVIDIA's warp shuffle through
 * inline PTX, opencl_program.c) is an error naming it, on every platform. */
static void test_env_lane_shuffle_bad_value(kiln_context *ctx) {
  (void)ctx;
  const char *value = getenv("KILN_OPENCL_LANE_SHUFFLE");
  if (!value || strcmp(value, "maybe") != 0) {
    harness_fail(__FILE__, __LINE__, "run with KILN_OPENCL_LANE_SHUFFLE=maybe");
    return;
  }
  int count = 0;
  if (ops->probe(&config, &count) != KILN_OK || count == 0) {
    harness_skip("no OpenCL device on platform \"%s\": %s", config.platform_filter,
                 kiln_last_error());
    return;
  }
  kiln_backend_device *device = NULL;
  CHECK_STATUS(ops->device_open(&config, 0, &device), KILN_ERROR_INVALID_ARGUMENT);
  CHECK(device == NULL);
  CHECK_ERROR_CONTAINS("KILN_OPENCL_LANE_SHUFFLE");
  CHECK_ERROR_CONTAINS("maybe");
}

static const harness_test device_tests[] = {
    {"probe", test_probe},
    {"probe_filter_matching_nothing", test_probe_filter_matching_nothing},
    {"device_info", test_device_info},
    {"copies_round_trip", test_copies_round_trip},
    {"copy_device_to_device", test_copy_device_to_device},
    {"buffer_alloc_errors", test_buffer_alloc_errors},
    {"pinned_host_memory", test_pinned_host_memory},
    {"streams_and_events", test_streams_and_events},
    {"build_and_launch", test_build_and_launch},
    {"launch_bad_arguments", test_launch_bad_arguments},
    {"buffer_views_as_arguments", test_buffer_views_as_arguments},
    {"concurrent_launches", test_concurrent_launches},
    {"compile_error", test_compile_error},
    {"build_options", test_build_options},
    {"binary_round_trip", test_binary_round_trip},
    {"corrupt_binary_rejected", test_corrupt_binary_rejected},
    {0, 0}};

static const harness_test environment_tests[] = {
    {"env_no_vendor_driver", test_env_no_vendor_driver},
    {"env_library_override_fallback", test_env_library_override_fallback},
    {"env_library_without_symbols", test_env_library_without_symbols},
    {"env_lane_shuffle_bad_value", test_env_lane_shuffle_bad_value},
    {0, 0}};

int main(int argc, char **argv) {
  const char *platform = getenv("KILN_OPENCL_PLATFORM");
  config.platform_filter = platform && platform[0] ? platform : "pocl";
  if (argc > 1 && strncmp(argv[1], "env_", 4) == 0)
    return harness_main_no_context(argc, argv, environment_tests);

  int count = 0;
  kiln_status s = ops->probe(&config, &count);
  if (s != KILN_OK) {
    printf("opencl probe (platform filter \"%s\"): %s: %s\n", config.platform_filter,
           kiln_status_string(s), kiln_last_error());
    if (s == KILN_ERROR_UNAVAILABLE && !name_in_list(getenv("KILN_TEST_REQUIRE"), "opencl")) {
      printf("SKIP: no OpenCL device on platform \"%s\" (PoCL not installed?)\n",
             config.platform_filter);
      return HARNESS_SKIP;
    }
    return 1;
  }
  return harness_main_no_context(argc, argv, device_tests);
}
