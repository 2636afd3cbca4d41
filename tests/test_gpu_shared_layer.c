/* tests/test_gpu_shared_layer.c: the logic the CUDA and HIP backends share
 * (backends/gpu), driven here over a mock gpu_runtime whose "device memory"
 * is host memory, so it runs on any machine: argument packing, launch
 * shapes, local-memory opt-in, range checks, context balance, error
 * prefixes, the binary envelope, ELF/PTX/bundle checks and option
 * splitting. The vendor wrappers themselves are exercised by
 * test_gpu_backend_runtime.c on real devices. */
#include <stdarg.h>
#include <stdlib.h>

#include "backends/gpu/gpu_binary.h"
#include "backends/gpu/gpu_internal.h"
#include "backends/gpu/gpu_options.h"
#include "harness.h"

/* ---- the mock runtime ---------------------------------------------------- */

#define MOCK_MAX_PARAMS 64
#define MOCK_STATIC_SHARED 1024
#define MOCK_SHARED_DEFAULT 49152
#define MOCK_SHARED_OPTIN 102400
#define MOCK_L2_BYTES (6 << 20)
#define MOCK_MAX_THREADS 256

static struct {
  int devices;           /* what device_count reports */
  int fail_load, fail_compiler, fail_alloc;
  int depth, max_depth;  /* context nesting */
  int live_allocations, live_streams, live_events, live_modules, contexts_open;
  int synchronizations;
  gpu_stream last_stream;
  char last_options[256];
  /* the last launch */
  unsigned int grid[3], block[3], shared;
  gpu_stream launch_stream;
  int nparams;
  size_t param_sizes[MOCK_MAX_PARAMS]; /* set by the test before a launch */
  unsigned char params[MOCK_MAX_PARAMS][8];
  int launches;
  int set_shared_calls, set_shared_bytes;
  int peer_copies, peer_dst_ordinal, peer_src_ordinal;
} mock;

static char mock_handle_byte; /* handles point at something real */

static kiln_status mock_fail(kiln_status status, const char *call) {
  return kiln_error_set(status, "%s: mockError", call);
}

static kiln_status mock_load(void) {
  return mock.fail_load ? mock_fail(KILN_ERROR_UNAVAILABLE, "mockLoad") : KILN_OK;
}
static kiln_status mock_load_compiler(void) {
  return mock.fail_compiler ? mock_fail(KILN_ERROR_UNAVAILABLE, "mockLoadCompiler") : KILN_OK;
}
static kiln_status mock_device_count(int *count) {
  *count = mock.devices;
  return KILN_OK;
}
static kiln_status mock_device_name(int ordinal, char *name, size_t size) {
  snprintf(name, size, "Mock GPU %d", ordinal);
  return KILN_OK;
}
static kiln_status mock_device_total_memory(int ordinal, uint64_t *bytes) {
  (void)ordinal;
  *bytes = 1ull << 33;
  return KILN_OK;
}
static kiln_status mock_device_attribute(int ordinal, gpu_device_attribute attribute,
                                         int *value) {
  (void)ordinal;
  switch (attribute) {
    case GPU_DEVICE_COMPUTE_UNITS: *value = 7; break;
    case GPU_DEVICE_MAX_THREADS_PER_BLOCK: *value = 1024; break;
    case GPU_DEVICE_MAX_SHARED_PER_BLOCK: *value = MOCK_SHARED_DEFAULT; break;
    case GPU_DEVICE_MAX_SHARED_PER_BLOCK_OPTIN: *value = MOCK_SHARED_OPTIN; break;
    case GPU_DEVICE_WARP_SIZE: *value = 32; break;
    case GPU_DEVICE_L2_CACHE_BYTES: *value = MOCK_L2_BYTES; break;
    default: return mock_fail(KILN_ERROR_INTERNAL, "mockAttribute");
  }
  return KILN_OK;
}
static kiln_status mock_device_architecture(int ordinal, char *architecture, size_t size) {
  (void)ordinal;
  snprintf(architecture, size, "mock_7");
  return KILN_OK;
}
static kiln_status mock_versions(char *text, size_t size) {
  snprintf(text, size, "mock 1.0");
  return KILN_OK;
}
static kiln_status mock_context_open(int ordinal, gpu_context *context) {
  (void)ordinal;
  mock.contexts_open++;
  *context = &mock_handle_byte;
  return KILN_OK;
}
static void mock_context_close(int ordinal, gpu_context context) {
  (void)ordinal;
  (void)context;
  mock.contexts_open--;
}
static kiln_status mock_context_enter(int ordinal, gpu_context context) {
  (void)ordinal;
  (void)context;
  if (++mock.depth > mock.max_depth) mock.max_depth = mock.depth;
  return KILN_OK;
}
static void mock_context_leave(gpu_context context) {
  (void)context;
  mock.depth--;
}
static kiln_status mock_context_synchronize(void) {
  mock.synchronizations++;
  return KILN_OK;
}
static kiln_status mock_memory_alloc(size_t bytes, gpu_address *address) {
  if (mock.fail_alloc) return mock_fail(KILN_ERROR_OUT_OF_MEMORY, "mockMalloc");
  void *p = malloc(bytes);
  if (!p) return mock_fail(KILN_ERROR_OUT_OF_MEMORY, "mockMalloc");
  mock.live_allocations++;
  *address = (gpu_address)(uintptr_t)p;
  return KILN_OK;
}
static kiln_status mock_memory_free(gpu_address address) {
  free((void *)(uintptr_t)address);
  mock.live_allocations--;
  return KILN_OK;
}
static kiln_status mock_host_alloc(size_t bytes, void **host) {
  *host = malloc(bytes);
  if (!*host) return mock_fail(KILN_ERROR_OUT_OF_MEMORY, "mockHostAlloc");
  mock.live_allocations++;
  return KILN_OK;
}
static kiln_status mock_host_free(void *host) {
  free(host);
  mock.live_allocations--;
  return KILN_OK;
}
static kiln_status mock_copy_h2d(gpu_address dst, const void *src, size_t bytes,
                                 gpu_stream stream) {
  mock.last_stream = stream;
  memcpy((void *)(uintptr_t)dst, src, bytes);
  return KILN_OK;
}
static kiln_status mock_copy_d2h(void *dst, gpu_address src, size_t bytes, gpu_stream stream) {
  mock.last_stream = stream;
  memcpy(dst, (const void *)(uintptr_t)src, bytes);
  return KILN_OK;
}
static kiln_status mock_copy_d2d(gpu_address dst, gpu_address src, size_t bytes,
                                 gpu_stream stream) {
  mock.last_stream = stream;
  memcpy((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, bytes);
  return KILN_OK;
}
static kiln_status mock_copy_peer(gpu_address dst, int dst_ordinal, gpu_context dst_context,
                                  gpu_address src, int src_ordinal, gpu_context src_context,
                                  size_t bytes, gpu_stream stream) {
  (void)dst_context, (void)src_context;
  mock.last_stream = stream;
  mock.peer_copies++;
  mock.peer_dst_ordinal = dst_ordinal;
  mock.peer_src_ordinal = src_ordinal;
  memcpy((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, bytes);
  return KILN_OK;
}
static kiln_status mock_stream_create(gpu_stream *stream) {
  *stream = malloc(1);
  mock.live_streams++;
  return KILN_OK;
}
static kiln_status mock_stream_destroy(gpu_stream stream) {
  free(stream);
  mock.live_streams--;
  return KILN_OK;
}
static kiln_status mock_stream_synchronize(gpu_stream stream) {
  mock.last_stream = stream;
  mock.synchronizations++;
  return KILN_OK;
}
static kiln_status mock_stream_wait_event(gpu_stream stream, gpu_event event) {
  (void)event;
  mock.last_stream = stream;
  return KILN_OK;
}
static kiln_status mock_event_create(gpu_event *event) {
  *event = malloc(1);
  mock.live_events++;
  return KILN_OK;
}
static kiln_status mock_event_destroy(gpu_event event) {
  free(event);
  mock.live_events--;
  return KILN_OK;
}
static kiln_status mock_event_record(gpu_event event, gpu_stream stream) {
  (void)event;
  mock.last_stream = stream;
  return KILN_OK;
}
static kiln_status mock_event_synchronize(gpu_event event) {
  (void)event;
  return KILN_OK;
}
static kiln_status mock_event_elapsed_ms(gpu_event start, gpu_event end, float *ms) {
  (void)start;
  (void)end;
  *ms = 1.5f;
  return KILN_OK;
}

/* A minimal well-formed ELF: header plus one null section header. */
#define MOCK_ELF_SIZE 128
static void mock_elf(unsigned char *elf) {
  memset(elf, 0, MOCK_ELF_SIZE);
  memcpy(elf, "\x7f" "ELF", 4);
  elf[4] = 2;  /* 64-bit */
  elf[5] = 1;  /* little-endian */
  elf[40] = 64; /* e_shoff */
  elf[58] = 64; /* e_shentsize */
  elf[60] = 1;  /* e_shnum */
}

static kiln_status mock_compile(const char *architecture, const char *source,
                                const char *options, void **binary, size_t *size,
                                char **log) {
  (void)architecture;
  snprintf(mock.last_options, sizeof mock.last_options, "%s", options ? options : "");
  if (log) *log = strdup(strstr(source, "syntax") ? "kernel:1: error: bad syntax" : "");
  if (strstr(source, "syntax"))
    return kiln_error_set(KILN_ERROR_COMPILE, "mockCompile: failed\nkernel:1: error: bad syntax");
  unsigned char *elf = malloc(MOCK_ELF_SIZE);
  mock_elf(elf);
  *binary = elf;
  *size = MOCK_ELF_SIZE;
  return KILN_OK;
}
static kiln_status mock_binary_check(const void *binary, size_t size) {
  return gpu_binary_check_elf(binary, size);
}
static kiln_status mock_module_load(const void *binary, gpu_module *module) {
  if (memcmp(binary, "\x7f" "ELF", 4) != 0) return mock_fail(KILN_ERROR_INVALID_ARGUMENT, "mockLoad");
  *module = malloc(1);
  mock.live_modules++;
  return KILN_OK;
}
static kiln_status mock_module_unload(gpu_module module) {
  free(module);
  mock.live_modules--;
  return KILN_OK;
}
static kiln_status mock_module_function(gpu_module module, const char *name,
                                        gpu_function *function) {
  (void)module;
  if (strcmp(name, "k") != 0) return mock_fail(KILN_ERROR_NOT_FOUND, "mockGetFunction");
  *function = &mock_handle_byte;
  return KILN_OK;
}
static kiln_status mock_function_attribute(gpu_function function,
                                           gpu_function_attribute attribute, int *value) {
  (void)function;
  *value = attribute == GPU_FUNCTION_MAX_THREADS_PER_BLOCK ? MOCK_MAX_THREADS : MOCK_STATIC_SHARED;
  return KILN_OK;
}
static kiln_status mock_function_set_max_dynamic_shared(gpu_function function, int bytes) {
  (void)function;
  mock.set_shared_calls++;
  mock.set_shared_bytes = bytes;
  return KILN_OK;
}
static kiln_status mock_launch(gpu_function function, const unsigned int grid[3],
                               const unsigned int block[3], unsigned int shared_bytes,
                               gpu_stream stream, void **params) {
  (void)function;
  mock.launches++;
  memcpy(mock.grid, grid, sizeof mock.grid);
  memcpy(mock.block, block, sizeof mock.block);
  mock.shared = shared_bytes;
  mock.launch_stream = stream;
  memset(mock.params, 0, sizeof mock.params);
  for (int i = 0; i < mock.nparams; i++) memcpy(mock.params[i], params[i], mock.param_sizes[i]);
  return KILN_OK;
}

static const gpu_runtime mock_runtime = {
    .name = "mock",
    .vendor = "Mock Vendor",
    .platform = "MockRT",
    .load = mock_load,
    .load_compiler = mock_load_compiler,
    .device_count = mock_device_count,
    .device_name = mock_device_name,
    .device_total_memory = mock_device_total_memory,
    .device_attribute = mock_device_attribute,
    .device_architecture = mock_device_architecture,
    .versions = mock_versions,
    .context_open = mock_context_open,
    .context_close = mock_context_close,
    .context_enter = mock_context_enter,
    .context_leave = mock_context_leave,
    .context_synchronize = mock_context_synchronize,
    .memory_alloc = mock_memory_alloc,
    .memory_free = mock_memory_free,
    .host_alloc = mock_host_alloc,
    .host_free = mock_host_free,
    .copy_h2d = mock_copy_h2d,
    .copy_d2h = mock_copy_d2h,
    .copy_d2d = mock_copy_d2d,
    .copy_peer = mock_copy_peer,
    .stream_create = mock_stream_create,
    .stream_destroy = mock_stream_destroy,
    .stream_synchronize = mock_stream_synchronize,
    .stream_wait_event = mock_stream_wait_event,
    .event_create = mock_event_create,
    .event_destroy = mock_event_destroy,
    .event_record = mock_event_record,
    .event_synchronize = mock_event_synchronize,
    .event_elapsed_ms = mock_event_elapsed_ms,
    .compile = mock_compile,
    .binary_check = mock_binary_check,
    .module_load = mock_module_load,
    .module_unload = mock_module_unload,
    .module_function = mock_module_function,
    .function_attribute = mock_function_attribute,
    .function_set_max_dynamic_shared = mock_function_set_max_dynamic_shared,
    .launch = mock_launch,
};

static void mock_reset(void) {
  memset(&mock, 0, sizeof mock);
  mock.devices = 1;
}

/* Opens device 0 of the mock; NULL (with a failure recorded) if it cannot. */
static kiln_backend_device *mock_open(void) {
  mock_reset();
  kiln_backend_device *device = NULL;
  kiln_status status = gpu_device_open(&mock_runtime, NULL, 0, &device);
  CHECK_MSG(status == KILN_OK, "gpu_device_open: %s", kiln_last_error());
  return device;
}

/* Closes and checks that nothing leaked and every enter had its leave. */
static void mock_close(kiln_backend_device *device) {
  gpu_device_close(device);
  CHECK(mock.depth == 0);
  CHECK(mock.contexts_open == 0);
  CHECK(mock.live_allocations == 0);
  CHECK(mock.live_streams == 0);
  CHECK(mock.live_events == 0);
  CHECK(mock.live_modules == 0);
}

/* ---- devices ------------------------------------------------------------ */

static void test_probe(kiln_context *ctx) {
  (void)ctx;
  int count = -1;
  mock_reset();
  mock.devices = 3;
  CHECK_OK(gpu_probe(&mock_runtime, NULL, &count));
  CHECK(count == 3);

  mock.devices = 0;
  CHECK_STATUS(gpu_probe(&mock_runtime, NULL, &count), KILN_ERROR_UNAVAILABLE);
  CHECK(count == 0);
  CHECK_ERROR_CONTAINS("mock");
  CHECK_ERROR_CONTAINS("no device");

  mock_reset();
  mock.fail_load = 1;
  CHECK_STATUS(gpu_probe(&mock_runtime, NULL, &count), KILN_ERROR_UNAVAILABLE);
  CHECK_ERROR_CONTAINS("mockLoad");

  /* no device wins over a missing compiler: that is what the machine lacks */
  mock_reset();
  mock.devices = 0;
  mock.fail_compiler = 1;
  CHECK_STATUS(gpu_probe(&mock_runtime, NULL, &count), KILN_ERROR_UNAVAILABLE);
  CHECK_ERROR_CONTAINS("no device");
  mock.devices = 2;
  CHECK_STATUS(gpu_probe(&mock_runtime, NULL, &count), KILN_ERROR_UNAVAILABLE);
  CHECK_ERROR_CONTAINS("mockLoadCompiler");
  CHECK(count == 0);
}

static void test_device_info(kiln_context *ctx) {
  (void)ctx;
  mock_reset();
  mock.devices = 2;
  kiln_device_info info;
  CHECK_OK(gpu_device_info(&mock_runtime, NULL, 1, &info));
  CHECK(info.index == 1);
  CHECK(strcmp(info.backend, "mock") == 0);
  CHECK(strcmp(info.name, "Mock GPU 1") == 0);
  CHECK(strcmp(info.vendor, "Mock Vendor") == 0);
  CHECK(strcmp(info.platform, "MockRT") == 0);
  CHECK(strcmp(info.driver_version, "mock 1.0") == 0);
  CHECK(strcmp(info.architecture, "mock_7") == 0);
  CHECK(info.global_memory == 1ull << 33);
  CHECK(info.max_buffer_size == 1ull << 33);
  CHECK(info.local_memory == MOCK_SHARED_OPTIN);
  CHECK(info.compute_units == 7);
  CHECK(info.cache_size == MOCK_L2_BYTES);
  CHECK(info.max_work_group_size == 1024);
  CHECK(info.has_double == 1);
  CHECK_STATUS(gpu_device_info(&mock_runtime, NULL, 2, &info), KILN_ERROR_NOT_FOUND);
  CHECK_ERROR_CONTAINS("no device 2");
  CHECK_STATUS(gpu_device_info(&mock_runtime, NULL, -1, &info), KILN_ERROR_NOT_FOUND);
  kiln_backend_device *device = (kiln_backend_device *)&mock_handle_byte;
  CHECK_STATUS(gpu_device_open(&mock_runtime, NULL, 5, &device), KILN_ERROR_NOT_FOUND);
  CHECK(device == NULL);
}

static void test_open_close(kiln_context *ctx) {
  (void)ctx;
  kiln_backend_device *device = mock_open();
  if (!device) return;
  CHECK(mock.contexts_open == 1);
  CHECK(mock.live_streams == 1); /* the default stream */
  CHECK(device->default_stream != NULL);
  CHECK(device->warp_size == 32);
  CHECK(device->shared_default == MOCK_SHARED_DEFAULT);
  CHECK(device->shared_optin == MOCK_SHARED_OPTIN);
  CHECK(strcmp(device->architecture, "mock_7") == 0);
  mock.synchronizations = 0;
  mock_close(device);
  CHECK(mock.synchronizations >= 1); /* close waits for work */
  gpu_device_close(NULL);            /* accepted */
}

/* ---- memory --------------------------------------------------------------- */

static void fill(unsigned char *data, size_t n) {
  for (size_t i = 0; i < n; i++) data[i] = (unsigned char)(harness_rand_u64() | 1);
}

static void test_copies(kiln_context *ctx) {
  (void)ctx;
  kiln_backend_device *device = mock_open();
  if (!device) return;
  enum { N = 1000 };
  unsigned char host[N], back[N], reference[N];
  fill(host, N);
  kiln_backend_buffer *a = NULL, *b = NULL;
  CHECK_OK(gpu_buffer_alloc(device, N, &a));
  CHECK_OK(gpu_buffer_alloc(device, N, &b));
  if (!a || !b) goto done;

  /* whole buffer there and back, on the default stream, blocking */
  mock.synchronizations = 0;
  CHECK_OK(gpu_copy_h2d(device, NULL, a, 0, host, N, 1));
  CHECK(mock.last_stream == device->default_stream);
  CHECK(mock.synchronizations == 1);
  memset(back, 0, N);
  CHECK_OK(gpu_copy_d2h(device, NULL, back, a, 0, N, 1));
  CHECK(memcmp(back, host, N) == 0);

  /* offsets: a[13..513) -> b[400..900), checked against a host model */
  memcpy(reference, host, N);
  unsigned char b_host[N];
  fill(b_host, N);
  CHECK_OK(gpu_copy_h2d(device, NULL, b, 0, b_host, N, 1));
  memcpy(reference, b_host, N);
  memcpy(reference + 400, host + 13, 500);
  CHECK_OK(gpu_copy_d2d(device, NULL, b, 400, a, 13, 500));
  CHECK_OK(gpu_copy_d2h(device, NULL, back, b, 0, N, 1));
  CHECK(memcmp(back, reference, N) == 0);
  /* a partial read at an offset, not blocking, on a created stream */
  kiln_backend_stream *stream = NULL;
  CHECK_OK(gpu_stream_create(device, &stream));
  mock.synchronizations = 0;
  unsigned char part[77];
  CHECK_OK(gpu_copy_d2h(device, stream, part, b, 923, 77, 0));
  CHECK(mock.last_stream == stream->handle);
  CHECK(mock.synchronizations == 0);
  CHECK(memcmp(part, reference + 923, 77) == 0);
  gpu_stream_destroy(device, stream);

  /* the last byte fits, one more does not */
  CHECK_OK(gpu_copy_h2d(device, NULL, a, N - 1, host, 1, 1));
  CHECK_STATUS(gpu_copy_h2d(device, NULL, a, N - 1, host, 2, 1), KILN_ERROR_OUT_OF_RANGE);
  CHECK_ERROR_CONTAINS("mock device 0");
  CHECK_STATUS(gpu_copy_d2h(device, NULL, back, a, N + 1, 1, 1), KILN_ERROR_OUT_OF_RANGE);
  CHECK_STATUS(gpu_copy_d2h(device, NULL, back, a, UINT64_MAX, 2, 1), KILN_ERROR_OUT_OF_RANGE);
  CHECK_STATUS(gpu_copy_d2d(device, NULL, b, 0, a, 1, N), KILN_ERROR_OUT_OF_RANGE);
  CHECK_STATUS(gpu_copy_d2d(device, NULL, b, 1, a, 0, N), KILN_ERROR_OUT_OF_RANGE);
  /* within one buffer: disjoint is fine, overlapping is refused */
  CHECK_OK(gpu_copy_d2d(device, NULL, a, 500, a, 0, 500));
  CHECK_STATUS(gpu_copy_d2d(device, NULL, a, 100, a, 0, 500), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("overlapping");
  CHECK_STATUS(gpu_copy_h2d(device, NULL, a, 0, NULL, 1, 1), KILN_ERROR_INVALID_ARGUMENT);

  /* vendor failure: the status and the call, prefixed with what was done */
  mock.fail_alloc = 1;
  kiln_backend_buffer *c = (kiln_backend_buffer *)&mock_handle_byte;
  CHECK_STATUS(gpu_buffer_alloc(device, 64, &c), KILN_ERROR_OUT_OF_MEMORY);
  CHECK(c == NULL);
  CHECK_ERROR_CONTAINS("mock device 0: allocating 64 bytes of device memory: mockMalloc");
  mock.fail_alloc = 0;
  CHECK_STATUS(gpu_buffer_alloc(device, 0, &c), KILN_ERROR_INVALID_ARGUMENT);

  void *pinned = NULL;
  CHECK_OK(gpu_host_alloc(device, 4096, &pinned));
  CHECK(pinned != NULL);
  gpu_host_free(device, pinned);

done:
  gpu_buffer_free(device, a);
  gpu_buffer_free(device, b);
  mock_close(device);
}

/* Interop slots (kiln/interop.h): native handles, wrapped memory that is
 * never freed by kiln, copies between two devices. */
static void test_interop(kiln_context *ctx) {
  (void)ctx;
  kiln_backend_device *device = mock_open();
  if (!device) return;
  enum { N = 600 };
  kiln_backend_native native;
  CHECK_OK(gpu_native_handles(device, NULL, &native));
  CHECK(native.context == device->context && native.ordinal == 0 && native.device == NULL);
  CHECK(native.queue == device->default_stream && native.memory_objects == 0);
  kiln_backend_stream *stream = NULL;
  CHECK_OK(gpu_stream_create(device, &stream));
  CHECK_OK(gpu_native_handles(device, stream, &native));
  CHECK(stream && native.queue == stream->handle);
  gpu_stream_destroy(device, stream);

  unsigned char host[N], back[N];
  fill(host, N);
  kiln_backend_buffer *a = NULL, *wrapped = NULL, *peer = NULL;
  CHECK_OK(gpu_buffer_alloc(device, N, &a));
  if (!a) goto done;
  kiln_backend_memory memory;
  CHECK_OK(gpu_buffer_native(device, a, &memory));
  CHECK(memory.address == a->address && memory.object == NULL);
  /* a wrapper over the second half: copies work, freeing it frees nothing */
  kiln_backend_memory half = {.address = a->address + N / 2};
  CHECK_OK(gpu_buffer_wrap(device, &half, N / 2, &wrapped));
  if (!wrapped) goto done;
  CHECK_OK(gpu_copy_h2d(device, NULL, wrapped, 0, host, N / 2, 1));
  CHECK_OK(gpu_copy_d2h(device, NULL, back, a, N / 2, N / 2, 1));
  CHECK(memcmp(back, host, N / 2) == 0);
  CHECK_STATUS(gpu_copy_h2d(device, NULL, wrapped, 1, host, N / 2, 1), KILN_ERROR_OUT_OF_RANGE);
  int live = mock.live_allocations;
  gpu_buffer_free(device, wrapped);
  CHECK(mock.live_allocations == live);
  kiln_backend_memory bad = {.address = 0};
  CHECK_STATUS(gpu_buffer_wrap(device, &bad, 8, &wrapped), KILN_ERROR_INVALID_ARGUMENT);
  CHECK(wrapped == NULL);
  bad.address = a->address;
  bad.object = &bad;
  CHECK_STATUS(gpu_buffer_wrap(device, &bad, 8, &wrapped), KILN_ERROR_INVALID_ARGUMENT);
  bad.object = NULL;
  CHECK_STATUS(gpu_buffer_wrap(device, &bad, 0, &wrapped), KILN_ERROR_INVALID_ARGUMENT);
  bad.address = UINT64_MAX - 3;
  CHECK_STATUS(gpu_buffer_wrap(device, &bad, 8, &wrapped), KILN_ERROR_INVALID_ARGUMENT);

  /* peer copies: the same ordinal is a device copy, another ordinal the
   * driver's peer copy, another runtime (or none) UNIMPLEMENTED */
  mock.devices = 2;
  kiln_backend_device *same = NULL, *other = NULL;
  CHECK_OK(gpu_device_open(&mock_runtime, NULL, 0, &same));
  CHECK_OK(gpu_device_open(&mock_runtime, NULL, 1, &other));
  if (!same || !other) goto close_peers;
  fill(host, N);
  CHECK_OK(gpu_copy_h2d(device, NULL, a, 0, host, N, 1));
  CHECK_OK(gpu_buffer_alloc(other, N, &peer));
  if (!peer) goto close_peers;
  CHECK_OK(gpu_copy_peer(same, peer, 0, device, a, 0, N));
  CHECK(mock.peer_copies == 0);
  CHECK_OK(gpu_copy_d2h(other, NULL, back, peer, 0, N, 1));
  CHECK(memcmp(back, host, N) == 0);
  memset(back, 0, N);
  CHECK_OK(gpu_copy_peer(other, peer, 100, device, a, 7, 300));
  CHECK(mock.peer_copies == 1 && mock.peer_dst_ordinal == 1 && mock.peer_src_ordinal == 0);
  CHECK(mock.last_stream == other->default_stream);
  CHECK_OK(gpu_copy_d2h(other, NULL, back, peer, 100, 300, 1));
  CHECK(memcmp(back, host + 7, 300) == 0);
  CHECK_STATUS(gpu_copy_peer(other, peer, 1, device, a, 0, N), KILN_ERROR_OUT_OF_RANGE);
  gpu_runtime without_peer = mock_runtime;
  without_peer.copy_peer = NULL;
  const gpu_runtime *saved = other->runtime;
  other->runtime = &without_peer;
  CHECK_STATUS(gpu_copy_peer(other, peer, 0, device, a, 0, N), KILN_ERROR_UNIMPLEMENTED);
  other->runtime = saved;
close_peers:
  gpu_buffer_free(other, peer);
  if (other) gpu_device_close(other);
  if (same) gpu_device_close(same);
done:
  gpu_buffer_free(device, a);
  mock_close(device);
}

static void test_streams_events(kiln_context *ctx) {
  (void)ctx;
  kiln_backend_device *device = mock_open();
  if (!device) return;
  kiln_backend_stream *stream = NULL;
  kiln_backend_event *start = NULL, *end = NULL;
  CHECK_OK(gpu_stream_create(device, &stream));
  CHECK_OK(gpu_event_create(device, &start));
  CHECK_OK(gpu_event_create(device, &end));
  if (stream && start && end) {
    CHECK_OK(gpu_event_record(device, start, NULL));
    CHECK(mock.last_stream == device->default_stream);
    CHECK_OK(gpu_stream_wait_event(device, stream, start));
    CHECK(mock.last_stream == stream->handle);
    CHECK_OK(gpu_event_record(device, end, stream));
    CHECK_OK(gpu_event_synchronize(device, end));
    CHECK_OK(gpu_stream_synchronize(device, stream));
    double ms = 0;
    CHECK_OK(gpu_event_elapsed_ms(device, start, end, &ms));
    CHECK(ms == 1.5);
  }
  CHECK_STATUS(gpu_event_record(device, NULL, stream), KILN_ERROR_INVALID_ARGUMENT);
  gpu_event_destroy(device, start);
  gpu_event_destroy(device, end);
  gpu_stream_destroy(device, stream);
  mock_close(device);
}

/* ---- modules and launches -------------------------------------------------- */

static void test_modules(kiln_context *ctx) {
  (void)ctx;
  kiln_backend_device *device = mock_open();
  if (!device) return;
  kiln_backend_module *module = NULL, *again = NULL;
  kiln_backend_function *function = NULL;
  char *log = NULL;
  void *binary = NULL;
  size_t size = 0;

  CHECK_OK(gpu_module_build(device, "good source", "-DN=4", &module, &log));
  CHECK(strcmp(mock.last_options, "-DN=4") == 0);
  CHECK(log != NULL);
  free(log);
  log = NULL;
  if (!module) goto done;

  CHECK_OK(gpu_function_get(device, module, "k", &function));
  uint64_t max_size = 0, multiple = 0;
  if (function) {
    CHECK_OK(gpu_function_limits(device, function, &max_size, &multiple));
    CHECK(max_size == MOCK_MAX_THREADS);
    CHECK(multiple == 32);
  }
  kiln_backend_function *missing = (kiln_backend_function *)&mock_handle_byte;
  CHECK_STATUS(gpu_function_get(device, module, "absent", &missing), KILN_ERROR_NOT_FOUND);
  CHECK(missing == NULL);
  CHECK_ERROR_CONTAINS("finding kernel \"absent\"");
  CHECK_ERROR_CONTAINS("mockGetFunction");

  /* the binary round trip, and what a damaged one gives */
  CHECK_OK(gpu_module_binary(device, module, &binary, &size));
  CHECK(size > MOCK_ELF_SIZE);
  if (binary) {
    CHECK_OK(gpu_module_load_binary(device, binary, size, &again));
    gpu_module_unload(device, again);
    again = NULL;
    unsigned char *bytes = binary;
    bytes[size - 3] ^= 0x40;
    CHECK_STATUS(gpu_module_load_binary(device, binary, size, &again), KILN_ERROR_INVALID_ARGUMENT);
    CHECK_ERROR_CONTAINS("damaged");
    bytes[size - 3] ^= 0x40;
    CHECK_STATUS(gpu_module_load_binary(device, binary, size - 1, &again),
                 KILN_ERROR_INVALID_ARGUMENT);
    CHECK_ERROR_CONTAINS("truncated");
    /* another device's binary */
    unsigned char *arch = memmem(bytes, size, "mock_7", 6);
    CHECK(arch != NULL);
    if (arch) memcpy(arch, "mock_8", 6);
    CHECK_STATUS(gpu_module_load_binary(device, binary, size, &again), KILN_ERROR_INVALID_ARGUMENT);
    CHECK_ERROR_CONTAINS("mock_8");
    CHECK(again == NULL);
  }
  unsigned char raw[MOCK_ELF_SIZE];
  mock_elf(raw);
  CHECK_STATUS(gpu_module_load_binary(device, raw, sizeof raw, &again), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("not a kiln GPU binary");

  /* a compile error keeps the log */
  kiln_backend_module *bad = (kiln_backend_module *)&mock_handle_byte;
  CHECK_STATUS(gpu_module_build(device, "syntax error", NULL, &bad, &log), KILN_ERROR_COMPILE);
  CHECK(bad == NULL);
  CHECK(log && strstr(log, "bad syntax"));
  CHECK_ERROR_CONTAINS("bad syntax");
  CHECK_ERROR_CONTAINS("mock device 0: building a module for mock_7");
  free(log);

done:
  free(binary);
  gpu_function_release(device, function);
  gpu_module_unload(device, module);
  mock_close(device);
}

static kiln_backend_launch launch_1d(uint64_t global, uint64_t local) {
  kiln_backend_launch launch = {1, {global, 1, 1}, {local, 1, 1}};
  return launch;
}

static void test_launch_packing(kiln_context *ctx) {
  (void)ctx;
  kiln_backend_device *device = mock_open();
  if (!device) return;
  kiln_backend_module *module = NULL;
  kiln_backend_function *function = NULL;
  kiln_backend_buffer *buffer = NULL;
  CHECK_OK(gpu_module_build(device, "k", NULL, &module, NULL));
  if (module) CHECK_OK(gpu_function_get(device, module, "k", &function));
  CHECK_OK(gpu_buffer_alloc(device, 256, &buffer));
  if (!function || !buffer) goto done;

  float scale = 2.5f;
  int64_t count = -123456789012345ll;
  kiln_backend_arg args[7] = {
      {.kind = KILN_BACKEND_ARG_BUFFER, .buffer = buffer, .offset = 16},
      {.kind = KILN_BACKEND_ARG_SCALAR, .value = &scale, .size = sizeof scale},
      {.kind = KILN_BACKEND_ARG_LOCAL, .local_bytes = 10},
      {.kind = KILN_BACKEND_ARG_LOCAL, .local_bytes = 100},
      {.kind = KILN_BACKEND_ARG_SCALAR, .value = &count, .size = sizeof count},
      {.kind = KILN_BACKEND_ARG_LOCAL, .local_bytes = 1},
      {.kind = KILN_BACKEND_ARG_BUFFER, .buffer = NULL, .offset = 0},
  };
  size_t sizes[7] = {8, 4, 4, 4, 8, 4, 8};
  mock.nparams = 7;
  memcpy(mock.param_sizes, sizes, sizeof sizes);
  kiln_backend_launch launch = {2, {256, 6, 1}, {64, 2, 1}};
  kiln_backend_stream *stream = NULL;
  CHECK_OK(gpu_stream_create(device, &stream));
  CHECK_OK(gpu_launch(device, stream, function, &launch, 7, args));
  CHECK(mock.launch_stream == (stream ? stream->handle : NULL));
  gpu_stream_destroy(device, stream);
  CHECK(mock.grid[0] == 4 && mock.grid[1] == 3 && mock.grid[2] == 1);
  CHECK(mock.block[0] == 64 && mock.block[1] == 2 && mock.block[2] == 1);
  uint64_t address, null_address;
  uint32_t offsets[3];
  float scale_seen;
  int64_t count_seen;
  memcpy(&address, mock.params[0], 8);
  memcpy(&scale_seen, mock.params[1], 4);
  memcpy(&offsets[0], mock.params[2], 4);
  memcpy(&offsets[1], mock.params[3], 4);
  memcpy(&count_seen, mock.params[4], 8);
  memcpy(&offsets[2], mock.params[5], 4);
  memcpy(&null_address, mock.params[6], 8);
  CHECK(address == buffer->address + 16);
  CHECK(scale_seen == scale);
  CHECK(count_seen == count);
  /* each LOCAL at the running total aligned up to 16 */
  CHECK_MSG(offsets[0] == 0 && offsets[1] == 16 && offsets[2] == 128,
            "local offsets %u %u %u", offsets[0], offsets[1], offsets[2]);
  CHECK_MSG(mock.shared == 129, "dynamic shared %u", mock.shared);
  CHECK(null_address == 0);
  CHECK(mock.set_shared_calls == 0);

  /* above the default shared size: opted in once, to the device's most */
  kiln_backend_arg big = {.kind = KILN_BACKEND_ARG_LOCAL, .local_bytes = 60000};
  mock.nparams = 1;
  mock.param_sizes[0] = 4;
  launch = launch_1d(64, 64);
  CHECK_OK(gpu_launch(device, NULL, function, &launch, 1, &big));
  CHECK(mock.launch_stream == device->default_stream);
  CHECK(mock.shared == 60000);
  CHECK(mock.set_shared_calls == 1);
  CHECK(mock.set_shared_bytes == MOCK_SHARED_OPTIN - MOCK_STATIC_SHARED);
  big.local_bytes = MOCK_SHARED_OPTIN - MOCK_STATIC_SHARED;
  CHECK_OK(gpu_launch(device, NULL, function, &launch, 1, &big));
  CHECK(mock.set_shared_calls == 1);
  big.local_bytes++;
  CHECK_STATUS(gpu_launch(device, NULL, function, &launch, 1, &big), KILN_ERROR_OUT_OF_RANGE);
  CHECK_ERROR_CONTAINS("local memory");

  /* many arguments go through the heap */
  enum { MANY = 40 };
  uint32_t values[MANY];
  kiln_backend_arg many[MANY];
  for (int i = 0; i < MANY; i++) {
    values[i] = (uint32_t)harness_rand_u64();
    many[i] = (kiln_backend_arg){.kind = KILN_BACKEND_ARG_SCALAR, .value = &values[i], .size = 4};
    mock.param_sizes[i] = 4;
  }
  mock.nparams = MANY;
  CHECK_OK(gpu_launch(device, NULL, function, &launch, MANY, many));
  for (int i = 0; i < MANY; i++) {
    uint32_t seen;
    memcpy(&seen, mock.params[i], 4);
    CHECK_MSG(seen == values[i], "argument %d: %u, expected %u", i, seen, values[i]);
  }

  /* bad shapes and arguments, each refused before the driver sees it */
  int launches = mock.launches;
  mock.nparams = 0;
  launch = launch_1d(64 * (MOCK_MAX_THREADS / 64 + 1), MOCK_MAX_THREADS + 64);
  CHECK_STATUS(gpu_launch(device, NULL, function, &launch, 0, NULL), KILN_ERROR_OUT_OF_RANGE);
  CHECK_ERROR_CONTAINS("this kernel's limit of 256");
  launch = launch_1d(100, 64);
  CHECK_STATUS(gpu_launch(device, NULL, function, &launch, 0, NULL), KILN_ERROR_INVALID_ARGUMENT);
  launch = launch_1d(64ull << 32, 64);
  CHECK_STATUS(gpu_launch(device, NULL, function, &launch, 0, NULL), KILN_ERROR_OUT_OF_RANGE);
  launch = launch_1d(64, 64);
  launch.work_dim = 4;
  CHECK_STATUS(gpu_launch(device, NULL, function, &launch, 0, NULL), KILN_ERROR_INVALID_ARGUMENT);
  launch = launch_1d(64, 64);
  kiln_backend_arg zero_local = {.kind = KILN_BACKEND_ARG_LOCAL, .local_bytes = 0};
  CHECK_STATUS(gpu_launch(device, NULL, function, &launch, 1, &zero_local),
               KILN_ERROR_INVALID_ARGUMENT);
  kiln_backend_arg past_end = {.kind = KILN_BACKEND_ARG_BUFFER, .buffer = buffer, .offset = 257};
  CHECK_STATUS(gpu_launch(device, NULL, function, &launch, 1, &past_end), KILN_ERROR_OUT_OF_RANGE);
  kiln_backend_arg no_value = {.kind = KILN_BACKEND_ARG_SCALAR, .value = NULL, .size = 4};
  CHECK_STATUS(gpu_launch(device, NULL, function, &launch, 1, &no_value),
               KILN_ERROR_INVALID_ARGUMENT);
  kiln_backend_arg odd_kind = {.kind = (kiln_backend_arg_kind)99};
  CHECK_STATUS(gpu_launch(device, NULL, function, &launch, 1, &odd_kind),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("mock device 0: launching a kernel");
  CHECK(mock.launches == launches);
  CHECK(mock.depth == 0);

done:
  gpu_buffer_free(device, buffer);
  gpu_function_release(device, function);
  gpu_module_unload(device, module);
  mock_close(device);
}

/* ---- images and options ---------------------------------------------------- */

static void put_le(unsigned char *p, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; i++) p[i] = (unsigned char)(value >> (8 * i));
}

static void test_elf_checks(kiln_context *ctx) {
  (void)ctx;
  /* header, a PROGBITS section of 32 bytes at 192, one segment over it */
  enum { SIZE = 256 };
  unsigned char elf[SIZE];
  memset(elf, 0, SIZE);
  memcpy(elf, "\x7f" "ELF", 4);
  elf[4] = 2;
  elf[5] = 1;
  put_le(elf + 32, 64, 8);  /* e_phoff */
  put_le(elf + 40, 120, 8); /* e_shoff: 64 + 56 */
  put_le(elf + 54, 56, 2);
  put_le(elf + 56, 1, 2);
  put_le(elf + 58, 64, 2);
  put_le(elf + 60, 1, 2);
  unsigned char *segment = elf + 64, *section = elf + 120;
  put_le(segment + 8, 192, 8);
  put_le(segment + 32, 32, 8);
  put_le(section + 4, 1, 4); /* PROGBITS */
  put_le(section + 24, 192, 8);
  put_le(section + 32, 32, 8);
  CHECK_OK(gpu_binary_check_elf(elf, SIZE));
  CHECK(gpu_binary_is_elf(elf, SIZE));
  CHECK_OK(gpu_binary_check_elf(elf, 224));
  CHECK_STATUS(gpu_binary_check_elf(elf, 223), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("past the end");
  CHECK_STATUS(gpu_binary_check_elf(elf, 100), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(gpu_binary_check_elf(elf, 10), KILN_ERROR_INVALID_ARGUMENT);
  put_le(section + 4, 8, 4); /* NOBITS takes no room in the file */
  put_le(section + 32, 1u << 30, 8);
  put_le(segment + 32, 0, 8);
  CHECK_OK(gpu_binary_check_elf(elf, SIZE));
  put_le(section + 4, 1, 4);
  CHECK_STATUS(gpu_binary_check_elf(elf, SIZE), KILN_ERROR_INVALID_ARGUMENT);
  put_le(section + 32, 32, 8);
  put_le(elf + 40, UINT64_MAX - 10, 8); /* offsets that wrap around */
  CHECK_STATUS(gpu_binary_check_elf(elf, SIZE), KILN_ERROR_INVALID_ARGUMENT);
  put_le(elf + 40, 120, 8);
  elf[4] = 1;
  CHECK_STATUS(gpu_binary_check_elf(elf, SIZE), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("64-bit");
  elf[4] = 2;
  elf[0] = 0;
  CHECK(!gpu_binary_is_elf(elf, SIZE));
  CHECK_STATUS(gpu_binary_check_elf(elf, SIZE), KILN_ERROR_INVALID_ARGUMENT);
  elf[0] = 0x7f;

  /* an offload bundle holding a host stub and this ELF */
  unsigned char bundle[512];
  memset(bundle, 0, sizeof bundle);
  memcpy(bundle, "__CLANG_OFFLOAD_BUNDLE__", 24);
  put_le(bundle + 24, 2, 8);
  size_t at = 32;
  const char *triples[2] = {"host-x86_64-unknown-linux", "hipv4-amdgcn-amd-amdhsa--gfx90a"};
  size_t lengths[2] = {0, SIZE}, offsets[2] = {0, 256};
  for (int i = 0; i < 2; i++) {
    put_le(bundle + at, offsets[i], 8);
    put_le(bundle + at + 8, lengths[i], 8);
    put_le(bundle + at + 16, strlen(triples[i]), 8);
    memcpy(bundle + at + 24, triples[i], strlen(triples[i]));
    at += 24 + strlen(triples[i]);
  }
  memcpy(bundle + 256, elf, SIZE);
  CHECK(gpu_binary_is_offload_bundle(bundle, sizeof bundle));
  CHECK_OK(gpu_binary_check_offload_bundle(bundle, sizeof bundle));
  CHECK_STATUS(gpu_binary_check_offload_bundle(bundle, sizeof bundle - 1),
               KILN_ERROR_INVALID_ARGUMENT);
  put_le(bundle + 24, 100, 8); /* entries that are not there */
  CHECK_STATUS(gpu_binary_check_offload_bundle(bundle, sizeof bundle), KILN_ERROR_INVALID_ARGUMENT);

  /* PTX is text ending in NUL */
  const char ptx[] = ".version 8.0\n.target sm_90\n";
  CHECK_OK(gpu_binary_check_text(ptx, sizeof ptx));
  CHECK_STATUS(gpu_binary_check_text(ptx, sizeof ptx - 1), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(gpu_binary_check_text(ptx, 0), KILN_ERROR_INVALID_ARGUMENT);
}

static void test_envelope(kiln_context *ctx) {
  (void)ctx;
  unsigned char payload[300];
  fill(payload, sizeof payload);
  void *envelope = NULL;
  size_t size = 0;
  REQUIRE_OK(gpu_envelope_wrap("cuda", "sm_90", payload, sizeof payload, &envelope, &size));
  const void *inside = NULL;
  size_t inside_size = 0;
  CHECK_OK(gpu_envelope_open("cuda", "sm_90", envelope, size, &inside, &inside_size));
  CHECK(inside_size == sizeof payload);
  CHECK(inside && memcmp(inside, payload, sizeof payload) == 0);
  CHECK_STATUS(gpu_envelope_open("hip", "sm_90", envelope, size, &inside, &inside_size),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("built for cuda sm_90");
  CHECK_STATUS(gpu_envelope_open("cuda", "sm_80", envelope, size, &inside, &inside_size),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK(inside == NULL);
  for (size_t i = 0; i < size; i += 7) {
    unsigned char *bytes = envelope;
    bytes[i] ^= 1;
    CHECK_MSG(gpu_envelope_open("cuda", "sm_90", envelope, size, &inside, &inside_size) ==
                  KILN_ERROR_INVALID_ARGUMENT,
              "a flipped bit at byte %zu went unnoticed", i);
    bytes[i] ^= 1;
  }
  CHECK_STATUS(gpu_envelope_open("cuda", "sm_90", envelope, 20, &inside, &inside_size),
               KILN_ERROR_INVALID_ARGUMENT);
  free(envelope);
  char long_name[100];
  memset(long_name, 'x', sizeof long_name - 1);
  long_name[sizeof long_name - 1] = '\0';
  CHECK_STATUS(gpu_envelope_wrap("cuda", long_name, payload, 1, &envelope, &size),
               KILN_ERROR_INTERNAL);
}

static void check_split(const char *options, int expected_count, ...) {
  char **words = NULL;
  int count = -1;
  kiln_status status = gpu_options_split(options, &words, &count);
  CHECK_MSG(status == KILN_OK, "split \"%s\": %s", options ? options : "(null)",
            kiln_last_error());
  if (status != KILN_OK) return;
  CHECK_MSG(count == expected_count, "split \"%s\": %d words, expected %d",
            options ? options : "(null)", count, expected_count);
  va_list args;
  va_start(args, expected_count);
  for (int i = 0; i < expected_count && i < count; i++) {
    const char *expected = va_arg(args, const char *);
    CHECK_MSG(strcmp(words[i], expected) == 0, "split \"%s\": word %d is \"%s\", expected \"%s\"",
              options, i, words[i], expected);
  }
  va_end(args);
  CHECK(words[count] == NULL);
  free(words);
}

static void test_options(kiln_context *ctx) {
  (void)ctx;
  check_split(NULL, 0);
  check_split("", 0);
  check_split(" \t\n ", 0);
  check_split("-DN=4", 1, "-DN=4");
  check_split("  -DN=4   -DM=5 ", 2, "-DN=4", "-DM=5");
  check_split("-DS=\"a b\" -DT='c \"d\"'", 2, "-DS=a b", "-DT=c \"d\"");
  check_split("-DQ=\"x\\\"y\\\\z\"", 1, "-DQ=x\"y\\z");
  check_split("a\\ b c", 2, "a b", "c");
  check_split("''", 1, "");
  check_split("a b c d e f g h", 8, "a", "b", "c", "d", "e", "f", "g", "h");
  char **words = NULL;
  int count = 0;
  CHECK_STATUS(gpu_options_split("-DX=\"open", &words, &count), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("unterminated");
  CHECK(words == NULL);
  CHECK_STATUS(gpu_options_split("'", &words, &count), KILN_ERROR_INVALID_ARGUMENT);
}

static const harness_test tests[] = {
    {"probe", test_probe},
    {"device_info", test_device_info},
    {"open_close", test_open_close},
    {"copies", test_copies},
    {"interop", test_interop},
    {"streams_events", test_streams_events},
    {"modules", test_modules},
    {"launch_packing", test_launch_packing},
    {"elf_checks", test_elf_checks},
    {"envelope", test_envelope},
    {"options", test_options},
    {0},
};

int main(int argc, char **argv) { return harness_main_no_context(argc, argv, tests); }
