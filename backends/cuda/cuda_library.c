/* backends/cuda/cuda_library.c: dlopen of the CUDA driver and of NVRTC,
 * each once per process, with the outcome kept for every later call. */
#include "backends/cuda/cuda_library.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "backends/gpu/gpu_library.h"
#include "core/runtime/dynlib.h"
#include "core/runtime/log.h"

#define CUDA_TOOLKIT_LIBRARY_DIR "/usr/local/cuda/lib64/"

static pthread_once_t driver_once = PTHREAD_ONCE_INIT;
static cuda_driver_symbols driver_symbols;
static gpu_library_outcome driver_outcome;

static pthread_once_t nvrtc_once = PTHREAD_ONCE_INIT;
static cuda_nvrtc_symbols nvrtc_symbols;
static gpu_library_outcome nvrtc_outcome;

/* Resolves one table; a missing required symbol fails the whole library. */
#define KILN_CUDA_RESOLVE_REQUIRED(ret, name, params)                         \
  table->name = (ret(*) params)kiln_dynlib_symbol(library, #name);            \
  if (!table->name) {                                                         \
    gpu_library_fail(outcome, KILN_ERROR_UNAVAILABLE,                         \
                     "cuda: %s lacks the entry point %s (%s)",                \
                     outcome->opened, #name, too_old);                        \
    memset(table, 0, sizeof *table);                                          \
    kiln_dynlib_close(library);                                               \
    return;                                                                   \
  }
#define KILN_CUDA_RESOLVE_OPTIONAL(ret, name, params) \
  table->name = (ret(*) params)kiln_dynlib_symbol(library, #name);

static void driver_load_once(void) {
  const char *names[] = {"libcuda.so.1"};
  cuda_driver_symbols *table = &driver_symbols;
  gpu_library_outcome *outcome = &driver_outcome;
  const char *too_old = "a driver for CUDA 11.0 or later is needed";
  void *library = gpu_library_open(names, 1, "cuda", "the CUDA driver", outcome);
  if (!library) return;
  KILN_CUDA_DRIVER_REQUIRED(KILN_CUDA_RESOLVE_REQUIRED)
  KILN_CUDA_DRIVER_OPTIONAL(KILN_CUDA_RESOLVE_OPTIONAL)
  kiln_log(KILN_LOG_INFO, "cuda: loaded %s", outcome->opened);
}

static void nvrtc_load_once(void) {
  const char *names[] = {
      getenv("KILN_NVRTC_PATH"),
      "libnvrtc.so.13",
      "libnvrtc.so.12",
      "libnvrtc.so.11.2",
      "libnvrtc.so.11.1",
      "libnvrtc.so.11.0",
      CUDA_TOOLKIT_LIBRARY_DIR "libnvrtc.so.13",
      CUDA_TOOLKIT_LIBRARY_DIR "libnvrtc.so.12",
      CUDA_TOOLKIT_LIBRARY_DIR "libnvrtc.so.11.2",
      CUDA_TOOLKIT_LIBRARY_DIR "libnvrtc.so.11.1",
      CUDA_TOOLKIT_LIBRARY_DIR "libnvrtc.so.11.0",
  };
  cuda_nvrtc_symbols *table = &nvrtc_symbols;
  gpu_library_outcome *outcome = &nvrtc_outcome;
  const char *too_old = "NVRTC 11.0 or later is needed";
  void *library = gpu_library_open(names, sizeof names / sizeof names[0], "cuda",
                                   "NVRTC (set KILN_NVRTC_PATH to its path)",
                                   outcome);
  if (!library) return;
  KILN_NVRTC_REQUIRED(KILN_CUDA_RESOLVE_REQUIRED)
  KILN_NVRTC_OPTIONAL(KILN_CUDA_RESOLVE_OPTIONAL)
  kiln_log(KILN_LOG_INFO, "cuda: loaded %s", outcome->opened);
}

kiln_status cuda_driver_load(const cuda_driver_symbols **symbols) {
  pthread_once(&driver_once, driver_load_once);
  *symbols = driver_outcome.status == KILN_OK ? &driver_symbols : NULL;
  return gpu_library_report(&driver_outcome);
}

kiln_status cuda_nvrtc_load(const cuda_nvrtc_symbols **symbols) {
  pthread_once(&nvrtc_once, nvrtc_load_once);
  *symbols = nvrtc_outcome.status == KILN_OK ? &nvrtc_symbols : NULL;
  return gpu_library_report(&nvrtc_outcome);
}

const cuda_driver_symbols *cuda_driver(void) { return &driver_symbols; }

const cuda_nvrtc_symbols *cuda_nvrtc(void) { return &nvrtc_symbols; }
