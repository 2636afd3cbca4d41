/* backends/hip/hip_library.c: dlopen of the HIP runtime and of hiprtc, each
 * once per process, with the outcome kept for every later call. */
#include "backends/hip/hip_library.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "backends/gpu/gpu_library.h"
#include "core/runtime/dynlib.h"
#include "core/runtime/log.h"
#include "core/runtime/strbuf.h"

#define ROCM_LIBRARY_DIR "/opt/rocm/lib/"

static pthread_once_t runtime_once = PTHREAD_ONCE_INIT;
static hip_runtime_symbols runtime_symbols;
static gpu_library_outcome runtime_outcome;
static void *runtime_library;

static pthread_once_t rtc_once = PTHREAD_ONCE_INIT;
static hip_rtc_symbols rtc_symbols;
static gpu_library_outcome rtc_outcome;

/* Resolves one table from `library`; a missing required symbol fails.
 * Libraries are never closed, not even then: ROCm's LLVM aborts the process
 * ("Option ... registered more than once") when libamdhip64 is loaded again
 * after an unload, which a later load of hiprtc could do. */
#define KILN_HIP_RESOLVE_REQUIRED(ret, name, params)                          \
  table->name = (ret(*) params)kiln_dynlib_symbol(library, #name);            \
  if (!table->name) {                                                         \
    gpu_library_fail(outcome, KILN_ERROR_UNAVAILABLE,                         \
                     "hip: %s lacks the entry point %s (ROCm 5.0 or later is " \
                     "needed)",                                               \
                     outcome->opened, #name);                                 \
    memset(table, 0, sizeof *table);                                          \
    return;                                                                   \
  }
#define KILN_HIP_RESOLVE_OPTIONAL(ret, name, params) \
  table->name = (ret(*) params)kiln_dynlib_symbol(library, #name);

static void runtime_load_once(void) {
  const char *names[] = {
      getenv("KILN_HIP_PATH"),
      "libamdhip64.so.7",
      "libamdhip64.so.6",
      "libamdhip64.so.5",
      ROCM_LIBRARY_DIR "libamdhip64.so.7",
      ROCM_LIBRARY_DIR "libamdhip64.so.6",
      ROCM_LIBRARY_DIR "libamdhip64.so.5",
  };
  hip_runtime_symbols *table = &runtime_symbols;
  gpu_library_outcome *outcome = &runtime_outcome;
  void *library = gpu_library_open(names, sizeof names / sizeof names[0], "hip",
                                   "the HIP runtime (set KILN_HIP_PATH to its path)",
                                   outcome);
  if (!library) return;
  KILN_HIP_RUNTIME_REQUIRED(KILN_HIP_RESOLVE_REQUIRED)
  KILN_HIP_RUNTIME_OPTIONAL(KILN_HIP_RESOLVE_OPTIONAL)
  if (!table->hipGetDevicePropertiesR0600 && !table->hipGetDeviceProperties) {
    gpu_library_fail(outcome, KILN_ERROR_UNAVAILABLE,
                     "hip: %s has neither hipGetDevicePropertiesR0600 nor "
                     "hipGetDeviceProperties",
                     outcome->opened);
    memset(table, 0, sizeof *table);
    return;
  }
  runtime_library = library;
  kiln_log(KILN_LOG_INFO, "hip: loaded %s", outcome->opened);
}

static void rtc_resolve(void *library) {
  hip_rtc_symbols *table = &rtc_symbols;
  gpu_library_outcome *outcome = &rtc_outcome;
  KILN_HIPRTC_REQUIRED(KILN_HIP_RESOLVE_REQUIRED)
  KILN_HIPRTC_OPTIONAL(KILN_HIP_RESOLVE_OPTIONAL)
  outcome->status = KILN_OK;
  kiln_log(KILN_LOG_INFO, "hip: hiprtc from %s", outcome->opened);
}

static void rtc_load_once(void) {
  kiln_strbuf tried = {0};
  const char *opened = NULL;
  const char *override[] = {getenv("KILN_HIPRTC_PATH")};
  void *library = kiln_dynlib_open(override, 1, &tried, &opened);

  if (!library) {
    /* ROCm 5 keeps hiprtc inside the runtime library */
    const hip_runtime_symbols *runtime = NULL;
    if (hip_runtime_load(&runtime) == KILN_OK &&
        kiln_dynlib_symbol(runtime_library, "hiprtcCreateProgram")) {
      library = runtime_library;
      opened = runtime_outcome.opened;
    } else if (runtime_outcome.status == KILN_OK) {
      kiln_strbuf_appendf(&tried, "  %s: has no hiprtc entry points\n",
                          runtime_outcome.opened);
    } else {
      kiln_strbuf_append(&tried, "  the HIP runtime: not loadable\n");
    }
  }
  if (!library) {
    const char *names[] = {
        "libhiprtc.so.7",
        "libhiprtc.so.6",
        "libhiprtc.so.5",
        ROCM_LIBRARY_DIR "libhiprtc.so.7",
        ROCM_LIBRARY_DIR "libhiprtc.so.6",
        ROCM_LIBRARY_DIR "libhiprtc.so.5",
    };
    library = kiln_dynlib_open(names, sizeof names / sizeof names[0], &tried, &opened);
  }
  if (!library) {
    const char *text = kiln_strbuf_text(&tried);
    int length = (int)strlen(text);
    while (length > 0 && text[length - 1] == '\n') length--;
    gpu_library_fail(&rtc_outcome, KILN_ERROR_UNAVAILABLE,
                     "hip: cannot load hiprtc (set KILN_HIPRTC_PATH to its path); "
                     "tried:\n%.*s",
                     length, text);
    kiln_strbuf_free(&tried);
    return;
  }
  kiln_strbuf_free(&tried);
  size_t length = strlen(opened);
  if (length >= sizeof rtc_outcome.opened) length = sizeof rtc_outcome.opened - 1;
  memcpy(rtc_outcome.opened, opened, length);
  rtc_outcome.opened[length] = '\0';
  rtc_resolve(library);
}

kiln_status hip_runtime_load(const hip_runtime_symbols **symbols) {
  pthread_once(&runtime_once, runtime_load_once);
  *symbols = runtime_outcome.status == KILN_OK ? &runtime_symbols : NULL;
  return gpu_library_report(&runtime_outcome);
}

kiln_status hip_rtc_load(const hip_rtc_symbols **symbols) {
  pthread_once(&rtc_once, rtc_load_once);
  *symbols = rtc_outcome.status == KILN_OK ? &rtc_symbols : NULL;
  return gpu_library_report(&rtc_outcome);
}

const hip_runtime_symbols *hip_runtime(void) { return &runtime_symbols; }

const hip_rtc_symbols *hip_rtc(void) { return &rtc_symbols; }
