/* tests/test_gpu_backend_runtime.c: the CUDA and HIP backends driven
 * directly through their ops tables on a real device: properties, memory
 * and copies at offsets, pinned memory, streams and events, kernels with
 * buffer / scalar / local arguments (the LOCAL packing of the kernel
 * language spec: 16-byte aligned 4-byte offsets into dynamic shared memory,
 * above 48 KiB too), 2-D launches, binaries for the disk cache, calls from
 * another thread and the errors of each. Every result is checked against a
 * host computation on random data. Each backend's tests skip, with the
 * reason, where it has no device; the kernels are still compiled for a
 * fixed target (compile_for_target) wherever the compiler exists. */
#include <pthread.h>

#include "backends/backend.h"
#include "harness.h"

/* Plain CUDA / HIP C++ (no prelude): a LOCAL argument is a 4-byte offset
 * into the dynamic shared memory, as the preludes' kiln_local_param. */
static const char kernels[] =
    "struct local_offset { unsigned int offset; };\n"
    "extern __shared__ unsigned char dynamic_shared[];\n"
    "\n"
    "extern \"C\" __global__ void combine(float *out, const float *in, float scale,\n"
    "                                     long long n, local_offset stage,\n"
    "                                     local_offset extra, unsigned int *probe) {\n"
    "  float *staged = (float *)(dynamic_shared + stage.offset);\n"
    "  unsigned int *counts = (unsigned int *)(dynamic_shared + extra.offset);\n"
    "  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  staged[threadIdx.x] = i < n ? in[i] : 0.0f;\n"
    "  counts[threadIdx.x] = threadIdx.x * 3u;\n"
    "  __syncthreads();\n"
    "  unsigned int next = (threadIdx.x + 1) % blockDim.x;\n"
    "  if (i < n) out[i] = scale * staged[next] + (float)counts[next];\n"
    "  if (i == 0) { probe[0] = stage.offset; probe[1] = extra.offset; }\n"
    "}\n"
    "\n"
    "extern \"C\" __global__ void fill2d(int *out, int width) {\n"
    "  int x = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  int y = blockIdx.y * blockDim.y + threadIdx.y;\n"
    "  out[y * width + x] = y * 1000 + x;\n"
    "}\n"
    "\n"
    "/* every thread fills and reads back words spread over both regions */\n"
    "extern \"C\" __global__ void big_local(unsigned int *out, local_offset a,\n"
    "                                       unsigned int a_words, local_offset b,\n"
    "                                       unsigned int b_words) {\n"
    "  unsigned int *pa = (unsigned int *)(dynamic_shared + a.offset);\n"
    "  unsigned int *pb = (unsigned int *)(dynamic_shared + b.offset);\n"
    "  for (unsigned int k = threadIdx.x; k < a_words; k += blockDim.x) pa[k] = k * 7u + 1u;\n"
    "  for (unsigned int k = threadIdx.x; k < b_words; k += blockDim.x) pb[k] = k * 5u + 2u;\n"
    "  __syncthreads();\n"
    "  unsigned int sum = 0;\n"
    "  for (unsigned int k = threadIdx.x; k < a_words; k += blockDim.x) sum += pa[k];\n"
    "  for (unsigned int k = threadIdx.x; k < b_words; k += blockDim.x) sum += pb[k];\n"
    "  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;\n"
    "  if (threadIdx.x == 0 && blockIdx.x == 0) { out[gridDim.x * blockDim.x] = a.offset;\n"
    "    out[gridDim.x * blockDim.x + 1] = b.offset; }\n"
    "}\n";

static const char broken_kernel[] =
    "extern \"C\" __global__ void broken(float *y) { y[0] = 1.0f +; }\n";

/* ---- helpers -------------------------------------------------------------- */

typedef struct backend_case {
  const kiln_backend_ops *ops;
  const char *fixed_target; /* compile_for_target check without a device */
} backend_case;

static const backend_case cuda_case = {&kiln_backend_cuda, "sm_80"};
static const backend_case hip_case = {&kiln_backend_hip, "gfx90a"};

/* Opens device 0, or marks the test skipped with the reason. */
static kiln_backend_device *open_device(const kiln_backend_ops *ops) {
  int count = 0;
  kiln_status status = ops->probe(NULL, &count);
  if (status != KILN_OK) {
    harness_skip("no %s device: %s: %s", ops->name, kiln_status_string(status),
                 kiln_last_error());
    return NULL;
  }
  kiln_backend_device *device = NULL;
  status = ops->device_open(NULL, 0, &device);
  CHECK_MSG(status == KILN_OK, "%s device_open: %s", ops->name, kiln_last_error());
  return device;
}

static void fill_bytes(unsigned char *data, size_t n) {
  for (size_t i = 0; i < n; i++) data[i] = (unsigned char)(harness_rand_u64() % 255 + 1);
}

/* Builds the test kernels and finds `name`. */
static int build(const kiln_backend_ops *ops, kiln_backend_device *device,
                 kiln_backend_module **module, const char *name,
                 kiln_backend_function **function) {
  char *log = NULL;
  kiln_status status = ops->module_build(device, kernels, NULL, module, &log);
  CHECK_MSG(status == KILN_OK, "%s module_build: %s", ops->name, kiln_last_error());
  free(log);
  if (status != KILN_OK) return 0;
  status = ops->function_get(device, *module, name, function);
  CHECK_MSG(status == KILN_OK, "%s function_get(%s): %s", ops->name, name, kiln_last_error());
  return status == KILN_OK;
}

/* ---- the cases, each for one backend ---------------------------------------- */

static void run_compile_fixed_target(const backend_case *c) {
  size_t size = 0;
  char *log = NULL;
  kiln_status status = c->ops->compile_for_target(kernels, NULL, c->fixed_target, &size, &log);
  free(log);
  if (status == KILN_ERROR_UNAVAILABLE) {
    harness_skip("no %s compiler here: %s", c->ops->name, kiln_last_error());
    return;
  }
  CHECK_MSG(status == KILN_OK, "%s kernels for %s: %s", c->ops->name, c->fixed_target,
            kiln_last_error());
  CHECK(size > 0);
}

static void run_device_info(const backend_case *c) {
  const kiln_backend_ops *ops = c->ops;
  int count = 0;
  kiln_status status = ops->probe(NULL, &count);
  if (status != KILN_OK) {
    harness_skip("no %s device: %s", ops->name, kiln_last_error());
    return;
  }
  CHECK(count >= 1);
  kiln_device_info info;
  REQUIRE_OK(ops->device_info(NULL, 0, &info));
  printf("  %s device 0: %s, %s, %s, %llu MiB, %u CUs, local %llu, wg %llu, L2 %llu\n",
         ops->name, info.name, info.architecture, info.driver_version,
         (unsigned long long)(info.global_memory >> 20), info.compute_units,
         (unsigned long long)info.local_memory, (unsigned long long)info.max_work_group_size,
         (unsigned long long)info.cache_size);
  CHECK(strcmp(info.backend, ops->name) == 0);
  CHECK(info.index == 0);
  CHECK(info.name[0] != '\0');
  CHECK(info.vendor[0] != '\0');
  CHECK(info.platform[0] != '\0');
  CHECK(info.driver_version[0] != '\0');
  CHECK(strncmp(info.architecture, strcmp(ops->name, "cuda") == 0 ? "sm_" : "gfx", 3) == 0);
  CHECK(info.global_memory >= (64ull << 20));
  CHECK(info.local_memory >= 16384);
  CHECK(info.compute_units >= 1);
  /* every CUDA and AMD GPU has an L2 of at least 256 KiB */
  CHECK(info.cache_size >= (256u << 10) && info.cache_size < info.global_memory);
  CHECK(info.max_work_group_size >= 256);
  CHECK(info.has_double);
  CHECK_STATUS(ops->device_info(NULL, count, &info), KILN_ERROR_NOT_FOUND);
}

static void run_memory(const backend_case *c) {
  const kiln_backend_ops *ops = c->ops;
  kiln_backend_device *device = open_device(ops);
  if (!device) return;
  const size_t sizes[] = {1, 4097, (1u << 20) + 3};
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
    size_t n = sizes[s];
    unsigned char *host = malloc(n), *back = malloc(n), *reference = malloc(n);
    kiln_backend_buffer *a = NULL, *b = NULL;
    if (!host || !back || !reference) goto next;
    CHECK_OK(ops->buffer_alloc(device, n, &a));
    CHECK_OK(ops->buffer_alloc(device, n, &b));
    if (!a || !b) goto next;
    fill_bytes(host, n);
    CHECK_OK(ops->copy_h2d(device, NULL, a, 0, host, n, 1));
    memset(back, 0, n);
    CHECK_OK(ops->copy_d2h(device, NULL, back, a, 0, n, 1));
    CHECK_MSG(memcmp(back, host, n) == 0, "%zu bytes there and back differ", n);
    if (n > 64) {
      /* b = random, then b[o2, o2 + len) = a[o1, o1 + len), offsets odd */
      size_t o1 = 13, o2 = 29, len = n - 61;
      fill_bytes(reference, n);
      CHECK_OK(ops->copy_h2d(device, NULL, b, 0, reference, n, 1));
      memcpy(reference + o2, host + o1, len);
      CHECK_OK(ops->copy_d2d(device, NULL, b, o2, a, o1, len));
      CHECK_OK(ops->copy_d2h(device, NULL, back, b, 0, n, 1));
      CHECK_MSG(memcmp(back, reference, n) == 0, "d2d at offsets differs (%zu bytes)", n);
      /* a part written at an offset, read at another */
      unsigned char part[50];
      fill_bytes(part, sizeof part);
      memcpy(reference + n - 50, part, 50);
      CHECK_OK(ops->copy_h2d(device, NULL, b, n - 50, part, 50, 1));
      unsigned char tail[60];
      CHECK_OK(ops->copy_d2h(device, NULL, tail, b, n - 60, 60, 1));
      CHECK(memcmp(tail, reference + n - 60, 60) == 0);
    }
    CHECK_STATUS(ops->copy_h2d(device, NULL, a, n, host, 1, 1), KILN_ERROR_OUT_OF_RANGE);
    CHECK_STATUS(ops->copy_d2h(device, NULL, back, a, 1, n, 1), KILN_ERROR_OUT_OF_RANGE);
  next:
    ops->buffer_free(device, a);
    ops->buffer_free(device, b);
    free(host);
    free(back);
    free(reference);
  }

  /* pinned host memory, written and read back through the device */
  void *pinned = NULL;
  kiln_backend_buffer *buffer = NULL;
  const size_t n = 1 << 16;
  CHECK_OK(ops->host_alloc(device, n, &pinned));
  CHECK_OK(ops->buffer_alloc(device, n, &buffer));
  if (pinned && buffer) {
    unsigned char *expected = malloc(n);
    if (expected) {
      fill_bytes(expected, n);
      memcpy(pinned, expected, n);
      CHECK_OK(ops->copy_h2d(device, NULL, buffer, 0, pinned, n, 0));
      CHECK_OK(ops->stream_synchronize(device, NULL));
      memset(pinned, 0, n);
      CHECK_OK(ops->copy_d2h(device, NULL, pinned, buffer, 0, n, 0));
      CHECK_OK(ops->stream_synchronize(device, NULL));
      CHECK(memcmp(pinned, expected, n) == 0);
      free(expected);
    }
  }
  ops->buffer_free(device, buffer);
  ops->host_free(device, pinned);

  /* far more than the device has */
  kiln_backend_buffer *huge = NULL;
  CHECK_STATUS(ops->buffer_alloc(device, (size_t)1 << 50, &huge), KILN_ERROR_OUT_OF_MEMORY);
  CHECK(huge == NULL);
  ops->device_close(device);
}

static void run_streams_events(const backend_case *c) {
  const kiln_backend_ops *ops = c->ops;
  kiln_backend_device *device = open_device(ops);
  if (!device) return;
  const size_t n = 4u << 20;
  kiln_backend_stream *first = NULL, *second = NULL;
  kiln_backend_event *written = NULL, *copied = NULL;
  kiln_backend_buffer *a = NULL, *b = NULL;
  void *pinned = NULL;
  unsigned char *expected = malloc(n), *back = malloc(n);
  CHECK_OK(ops->stream_create(device, &first));
  CHECK_OK(ops->stream_create(device, &second));
  CHECK_OK(ops->event_create(device, &written));
  CHECK_OK(ops->event_create(device, &copied));
  CHECK_OK(ops->buffer_alloc(device, n, &a));
  CHECK_OK(ops->buffer_alloc(device, n, &b));
  CHECK_OK(ops->host_alloc(device, n, &pinned));
  if (first && second && written && copied && a && b && pinned && expected && back) {
    fill_bytes(expected, n);
    memcpy(pinned, expected, n);
    /* first: write a; second waits for that, copies a to b */
    CHECK_OK(ops->copy_h2d(device, first, a, 0, pinned, n, 0));
    CHECK_OK(ops->event_record(device, written, first));
    CHECK_OK(ops->stream_wait_event(device, second, written));
    CHECK_OK(ops->copy_d2d(device, second, b, 0, a, 0, n));
    CHECK_OK(ops->event_record(device, copied, second));
    CHECK_OK(ops->event_synchronize(device, copied));
    double ms = -1;
    CHECK_OK(ops->event_elapsed_ms(device, written, copied, &ms));
    CHECK_MSG(ms >= 0 && ms < 60000, "elapsed %g ms", ms);
    CHECK_OK(ops->copy_d2h(device, second, back, b, 0, n, 1));
    CHECK(memcmp(back, expected, n) == 0);
    CHECK_OK(ops->stream_synchronize(device, first));
  }
  free(expected);
  free(back);
  ops->host_free(device, pinned);
  ops->buffer_free(device, a);
  ops->buffer_free(device, b);
  ops->event_destroy(device, written);
  ops->event_destroy(device, copied);
  ops->stream_destroy(device, first);
  ops->stream_destroy(device, second);
  ops->device_close(device);
}

static void run_kernel_args(const backend_case *c) {
  const kiln_backend_ops *ops = c->ops;
  kiln_backend_device *device = open_device(ops);
  if (!device) return;
  enum { N = 1000, BLOCK = 128, SKIP = 16 };
  kiln_backend_module *module = NULL;
  kiln_backend_function *function = NULL;
  kiln_backend_buffer *in = NULL, *out = NULL, *probe = NULL;
  float host_in[N + SKIP], host_out[N];
  uint32_t offsets[2] = {99, 99};
  if (!build(ops, device, &module, "combine", &function)) goto done;

  uint64_t max_size = 0, multiple = 0;
  CHECK_OK(ops->function_limits(device, function, &max_size, &multiple));
  CHECK(max_size >= BLOCK);
  CHECK(multiple == 32 || multiple == 64);

  for (int i = 0; i < N + SKIP; i++) host_in[i] = (float)harness_rand_uniform(-10, 10);
  CHECK_OK(ops->buffer_alloc(device, sizeof host_in, &in));
  CHECK_OK(ops->buffer_alloc(device, sizeof host_out, &out));
  CHECK_OK(ops->buffer_alloc(device, sizeof offsets, &probe));
  if (!in || !out || !probe) goto done;
  CHECK_OK(ops->copy_h2d(device, NULL, in, 0, host_in, sizeof host_in, 1));

  float scale = 1.75f;
  long long n = N;
  /* odd local sizes: the second one must start 16-byte aligned */
  size_t stage_bytes = BLOCK * sizeof(float) + 4, extra_bytes = BLOCK * sizeof(uint32_t) + 8;
  kiln_backend_arg args[7] = {
      {.kind = KILN_BACKEND_ARG_BUFFER, .buffer = out},
      {.kind = KILN_BACKEND_ARG_BUFFER, .buffer = in, .offset = SKIP * sizeof(float)},
      {.kind = KILN_BACKEND_ARG_SCALAR, .value = &scale, .size = sizeof scale},
      {.kind = KILN_BACKEND_ARG_SCALAR, .value = &n, .size = sizeof n},
      {.kind = KILN_BACKEND_ARG_LOCAL, .local_bytes = stage_bytes},
      {.kind = KILN_BACKEND_ARG_LOCAL, .local_bytes = extra_bytes},
      {.kind = KILN_BACKEND_ARG_BUFFER, .buffer = probe},
  };
  kiln_backend_launch launch = {1, {(N + BLOCK - 1) / BLOCK * BLOCK, 1, 1}, {BLOCK, 1, 1}};
  CHECK_OK(ops->launch(device, NULL, function, &launch, 7, args));
  CHECK_OK(ops->copy_d2h(device, NULL, host_out, out, 0, sizeof host_out, 1));
  CHECK_OK(ops->copy_d2h(device, NULL, offsets, probe, 0, sizeof offsets, 1));
  CHECK_MSG(offsets[0] == 0 && offsets[1] == 528, "local offsets %u and %u, expected 0 and 528",
            offsets[0], offsets[1]);
  int wrong = 0;
  for (int i = 0; i < N; i++) {
    int block = i / BLOCK, next = (i % BLOCK + 1) % BLOCK, j = block * BLOCK + next;
    float value = j < N ? host_in[SKIP + j] : 0.0f;
    double expected = (double)scale * value + 3.0 * next;
    if (fabs(host_out[i] - expected) > 1e-5 * (fabs(expected) + 1) && wrong++ < 5)
      CHECK_MSG(0, "out[%d] = %.9g, expected %.9g", i, host_out[i], expected);
  }

  /* wrong use: too many work-items, local memory beyond the device */
  launch.local[0] = max_size * 2;
  launch.global[0] = max_size * 2;
  CHECK_STATUS(ops->launch(device, NULL, function, &launch, 7, args), KILN_ERROR_OUT_OF_RANGE);
  launch.local[0] = launch.global[0] = BLOCK;
  args[5].local_bytes = (size_t)1 << 30;
  CHECK_STATUS(ops->launch(device, NULL, function, &launch, 7, args), KILN_ERROR_OUT_OF_RANGE);

done:
  ops->buffer_free(device, in);
  ops->buffer_free(device, out);
  ops->buffer_free(device, probe);
  ops->function_release(device, function);
  ops->module_unload(device, module);
  ops->device_close(device);
}

static void run_kernel_2d_and_big_local(const backend_case *c) {
  const kiln_backend_ops *ops = c->ops;
  kiln_backend_device *device = open_device(ops);
  if (!device) return;
  enum { WIDTH = 48, HEIGHT = 20 };
  kiln_backend_module *module = NULL;
  kiln_backend_function *fill = NULL, *big = NULL;
  kiln_backend_buffer *grid = NULL, *sums = NULL;
  if (!build(ops, device, &module, "fill2d", &fill)) goto done;
  CHECK_OK(ops->function_get(device, module, "big_local", &big));
  CHECK_OK(ops->buffer_alloc(device, WIDTH * HEIGHT * sizeof(int), &grid));
  if (!big || !grid) goto done;

  int width = WIDTH;
  kiln_backend_arg fill_args[2] = {
      {.kind = KILN_BACKEND_ARG_BUFFER, .buffer = grid},
      {.kind = KILN_BACKEND_ARG_SCALAR, .value = &width, .size = sizeof width},
  };
  kiln_backend_launch launch2d = {2, {WIDTH, HEIGHT, 1}, {16, 4, 1}};
  CHECK_OK(ops->launch(device, NULL, fill, &launch2d, 2, fill_args));
  int host[WIDTH * HEIGHT];
  CHECK_OK(ops->copy_d2h(device, NULL, host, grid, 0, sizeof host, 1));
  for (int y = 0; y < HEIGHT; y++)
    for (int x = 0; x < WIDTH; x++)
      if (host[y * WIDTH + x] != y * 1000 + x) {
        CHECK_MSG(0, "fill2d (%d, %d) = %d", x, y, host[y * WIDTH + x]);
        y = HEIGHT;
        break;
      }

  /* 60000 bytes of local memory: above CUDA's 48 KiB default */
  kiln_device_info info;
  CHECK_OK(ops->device_info(NULL, 0, &info));
  if (info.local_memory < 65536) {
    printf("  (big_local skipped: the device has %llu bytes of local memory)\n",
           (unsigned long long)info.local_memory);
    goto done;
  }
  enum { BLOCKS = 3, THREADS = 256 };
  uint32_t a_words = 10000, b_words = 5000; /* 40000 + 20000 bytes */
  CHECK_OK(ops->buffer_alloc(device, (BLOCKS * THREADS + 2) * sizeof(uint32_t), &sums));
  if (!sums) goto done;
  kiln_backend_arg big_args[5] = {
      {.kind = KILN_BACKEND_ARG_BUFFER, .buffer = sums},
      {.kind = KILN_BACKEND_ARG_LOCAL, .local_bytes = a_words * 4},
      {.kind = KILN_BACKEND_ARG_SCALAR, .value = &a_words, .size = 4},
      {.kind = KILN_BACKEND_ARG_LOCAL, .local_bytes = b_words * 4},
      {.kind = KILN_BACKEND_ARG_SCALAR, .value = &b_words, .size = 4},
  };
  kiln_backend_launch launch = {1, {BLOCKS * THREADS, 1, 1}, {THREADS, 1, 1}};
  CHECK_OK(ops->launch(device, NULL, big, &launch, 5, big_args));
  uint32_t result[BLOCKS * THREADS + 2];
  CHECK_OK(ops->copy_d2h(device, NULL, result, sums, 0, sizeof result, 1));
  CHECK_MSG(result[BLOCKS * THREADS] == 0 && result[BLOCKS * THREADS + 1] == 40000,
            "big_local offsets %u and %u", result[BLOCKS * THREADS],
            result[BLOCKS * THREADS + 1]);
  for (uint32_t t = 0; t < BLOCKS * THREADS; t++) {
    uint32_t expected = 0, thread = t % THREADS;
    for (uint32_t k = thread; k < a_words; k += THREADS) expected += k * 7u + 1u;
    for (uint32_t k = thread; k < b_words; k += THREADS) expected += k * 5u + 2u;
    if (result[t] != expected) {
      CHECK_MSG(0, "big_local thread %u: %u, expected %u", t, result[t], expected);
      break;
    }
  }

done:
  ops->buffer_free(device, grid);
  ops->buffer_free(device, sums);
  ops->function_release(device, fill);
  ops->function_release(device, big);
  ops->module_unload(device, module);
  ops->device_close(device);
}

static void run_binaries_and_errors(const backend_case *c) {
  const kiln_backend_ops *ops = c->ops;
  kiln_backend_device *device = open_device(ops);
  if (!device) return;
  kiln_backend_module *module = NULL, *loaded = NULL, *bad = NULL;
  kiln_backend_function *function = NULL, *missing = NULL;
  kiln_backend_buffer *grid = NULL;
  void *binary = NULL;
  size_t size = 0;
  char *log = NULL;

  CHECK_STATUS(ops->module_build(device, broken_kernel, NULL, &bad, &log), KILN_ERROR_COMPILE);
  CHECK(bad == NULL);
  CHECK_MSG(log && strstr(log, "error"), "log: %s", log ? log : "(null)");
  CHECK_ERROR_CONTAINS("error");
  free(log);
  log = NULL;

  REQUIRE_OK(ops->module_build(device, kernels, "-DUNUSED=1", &module, &log));
  free(log);
  CHECK_STATUS(ops->function_get(device, module, "no_such_kernel", &missing),
               KILN_ERROR_NOT_FOUND);
  CHECK(missing == NULL);
  CHECK_OK(ops->module_binary(device, module, &binary, &size));
  if (!binary) goto done;
  /* a module from the binary runs */
  CHECK_OK(ops->module_load_binary(device, binary, size, &loaded));
  if (loaded) CHECK_OK(ops->function_get(device, loaded, "fill2d", &function));
  CHECK_OK(ops->buffer_alloc(device, 64 * sizeof(int), &grid));
  if (function && grid) {
    int width = 64;
    kiln_backend_arg args[2] = {
        {.kind = KILN_BACKEND_ARG_BUFFER, .buffer = grid},
        {.kind = KILN_BACKEND_ARG_SCALAR, .value = &width, .size = sizeof width},
    };
    kiln_backend_launch launch = {1, {64, 1, 1}, {32, 1, 1}};
    CHECK_OK(ops->launch(device, NULL, function, &launch, 2, args));
    int host[64];
    CHECK_OK(ops->copy_d2h(device, NULL, host, grid, 0, sizeof host, 1));
    for (int x = 0; x < 64; x++) CHECK(host[x] == x);
  }
  /* damaged and truncated binaries are errors, not crashes */
  unsigned char *bytes = binary;
  bytes[size / 2] ^= 0x10;
  CHECK_STATUS(ops->module_load_binary(device, binary, size, &bad), KILN_ERROR_INVALID_ARGUMENT);
  bytes[size / 2] ^= 0x10;
  CHECK_STATUS(ops->module_load_binary(device, binary, size / 2, &bad),
               KILN_ERROR_INVALID_ARGUMENT);
  unsigned char junk[256];
  fill_bytes(junk, sizeof junk);
  CHECK_STATUS(ops->module_load_binary(device, junk, sizeof junk, &bad),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK(bad == NULL);

done:
  free(binary);
  ops->buffer_free(device, grid);
  ops->function_release(device, function);
  ops->module_unload(device, loaded);
  ops->module_unload(device, module);
  ops->device_close(device);
}

/* Copies on a device opened by another thread. */
typedef struct thread_work {
  const kiln_backend_ops *ops;
  kiln_backend_device *device;
  kiln_status status;
  int same;
} thread_work;

static void *copy_on_thread(void *p) {
  thread_work *work = p;
  unsigned char data[3000], back[3000];
  fill_bytes(data, sizeof data);
  kiln_backend_buffer *buffer = NULL;
  work->status = work->ops->buffer_alloc(work->device, sizeof data, &buffer);
  if (work->status == KILN_OK)
    work->status = work->ops->copy_h2d(work->device, NULL, buffer, 0, data, sizeof data, 1);
  if (work->status == KILN_OK)
    work->status = work->ops->copy_d2h(work->device, NULL, back, buffer, 0, sizeof back, 1);
  work->same = work->status == KILN_OK && memcmp(data, back, sizeof data) == 0;
  work->ops->buffer_free(work->device, buffer);
  return NULL;
}

static void run_other_threads(const backend_case *c) {
  kiln_backend_device *device = open_device(c->ops);
  if (!device) return;
  thread_work work[3];
  pthread_t threads[3];
  int started[3] = {0, 0, 0};
  for (int i = 0; i < 3; i++) {
    work[i] = (thread_work){c->ops, device, KILN_ERROR_INTERNAL, 0};
    started[i] = pthread_create(&threads[i], NULL, copy_on_thread, &work[i]) == 0;
  }
  for (int i = 0; i < 3; i++) {
    if (!started[i]) continue;
    pthread_join(threads[i], NULL);
    CHECK_MSG(work[i].status == KILN_OK && work[i].same, "thread %d: %s", i,
              kiln_status_string(work[i].status));
  }
  c->ops->device_close(device);
}

#define BACKEND_TESTS(prefix, c)                                                           \
  static void prefix##_compile_fixed_target(kiln_context *x) { (void)x; run_compile_fixed_target(&c); } \
  static void prefix##_device_info(kiln_context *x) { (void)x; run_device_info(&c); }     \
  static void prefix##_memory(kiln_context *x) { (void)x; run_memory(&c); }               \
  static void prefix##_streams_events(kiln_context *x) { (void)x; run_streams_events(&c); } \
  static void prefix##_kernel_args(kiln_context *x) { (void)x; run_kernel_args(&c); }     \
  static void prefix##_kernel_2d_and_big_local(kiln_context *x) {                         \
    (void)x;                                                                              \
    run_kernel_2d_and_big_local(&c);                                                      \
  }                                                                                       \
  static void prefix##_binaries_and_errors(kiln_context *x) { (void)x; run_binaries_and_errors(&c); } \
  static void prefix##_other_threads(kiln_context *x) { (void)x; run_other_threads(&c); }

BACKEND_TESTS(cuda, cuda_case)
BACKEND_TESTS(hip, hip_case)

#define BACKEND_ENTRIES(prefix)                                       \
  {#prefix "_compile_fixed_target", prefix##_compile_fixed_target},   \
  {#prefix "_device_info", prefix##_device_info},                     \
  {#prefix "_memory", prefix##_memory},                               \
  {#prefix "_streams_events", prefix##_streams_events},               \
  {#prefix "_kernel_args", prefix##_kernel_args},                     \
  {#prefix "_kernel_2d_and_big_local", prefix##_kernel_2d_and_big_local}, \
  {#prefix "_binaries_and_errors", prefix##_binaries_and_errors},     \
  {#prefix "_other_threads", prefix##_other_threads}

static const harness_test tests[] = {
    BACKEND_ENTRIES(cuda),
    BACKEND_ENTRIES(hip),
    {0},
};

int main(int argc, char **argv) { return harness_main_no_context(argc, argv, tests); }
