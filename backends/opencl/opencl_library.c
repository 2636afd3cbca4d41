/* backends/opencl/opencl_library.c: dlopen of the ICD loader and symbol
 * resolution, done once per process. The outcome (table or failure message)
 * is kept so every later call reports the same thing on its own thread. */
#include "backends/opencl/opencl_library.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/runtime/dynlib.h"
#include "core/runtime/error.h"
#include "core/runtime/log.h"
#include "core/runtime/strbuf.h"

#define OPENCL_LIBRARY_NAME "libOpenCL.so.1"

static pthread_once_t library_once = PTHREAD_ONCE_INIT;
static kiln_opencl_symbols library_symbols;
static kiln_status library_status = KILN_ERROR_INTERNAL;
static char *library_message; /* set when library_status != KILN_OK */
static char library_opened[1024];

static void library_fail(kiln_status status, kiln_strbuf *message) {
  library_status = status;
  library_message = kiln_strbuf_take(message);
}

static void library_load_once(void) {
  kiln_strbuf tried = {0};
  kiln_strbuf message = {0};
  const char *names[2] = {getenv("KILN_OPENCL_PATH"), OPENCL_LIBRARY_NAME};
  const char *opened = NULL;
  void *library = kiln_dynlib_open(names, 2, &tried, &opened);
  if (!library) {
    /* kiln_dynlib_open ends each line with '\n'; the message does not */
    const char *text = kiln_strbuf_text(&tried);
    size_t length = strlen(text);
    while (length > 0 && text[length - 1] == '\n') length--;
    kiln_strbuf_append(&message, "opencl: cannot load the OpenCL ICD loader; tried:\n");
    kiln_strbuf_append_n(&message, text, length);
    kiln_strbuf_free(&tried);
    library_fail(KILN_ERROR_UNAVAILABLE, &message);
    return;
  }
  kiln_strbuf_free(&tried);
  size_t opened_length = strlen(opened);
  if (opened_length >= sizeof library_opened) opened_length = sizeof library_opened - 1;
  memcpy(library_opened, opened, opened_length);
  library_opened[opened_length] = '\0';

#define KILN_OPENCL_RESOLVE_REQUIRED(ret, name, params)                          \
  library_symbols.name = (ret(KILN_CL_API *) params)kiln_dynlib_symbol(library, #name); \
  if (!library_symbols.name) {                                                  \
    kiln_strbuf_appendf(&message,                                               \
                        "opencl: %s lacks the required OpenCL 1.2 entry point %s " \
                        "(an OpenCL 1.2 or later ICD loader is needed)",         \
                        library_opened, #name);                                 \
    memset(&library_symbols, 0, sizeof library_symbols);                       \
    kiln_dynlib_close(library);                                                 \
    library_fail(KILN_ERROR_UNAVAILABLE, &message);                             \
    return;                                                                     \
  }
  KILN_OPENCL_REQUIRED_SYMBOLS(KILN_OPENCL_RESOLVE_REQUIRED)
#undef KILN_OPENCL_RESOLVE_REQUIRED

#define KILN_OPENCL_RESOLVE_OPTIONAL(ret, name, params) \
  library_symbols.name = (ret(KILN_CL_API *) params)kiln_dynlib_symbol(library, #name);
  KILN_OPENCL_OPTIONAL_SYMBOLS(KILN_OPENCL_RESOLVE_OPTIONAL)
#undef KILN_OPENCL_RESOLVE_OPTIONAL

  library_status = KILN_OK;
  kiln_log(KILN_LOG_INFO, "opencl: loaded %s", library_opened);
}

kiln_status kiln_opencl_library_load(const kiln_opencl_symbols **symbols) {
  pthread_once(&library_once, library_load_once);
  if (library_status != KILN_OK) {
    *symbols = NULL;
    return kiln_error_set(library_status, "%s",
                          library_message ? library_message
                                          : "opencl: out of host memory loading the OpenCL library");
  }
  *symbols = &library_symbols;
  return KILN_OK;
}

const char *kiln_opencl_library_path(void) { return library_opened; }
