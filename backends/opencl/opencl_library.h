/* backends/opencl/opencl_library.h: the OpenCL ICD loader, loaded at run
 * time (internal to the OpenCL backend). */
#ifndef KILN_BACKENDS_OPENCL_LIBRARY_H
#define KILN_BACKENDS_OPENCL_LIBRARY_H

#include "backends/opencl/opencl_symbols.h"
#include "kiln/status.h"

/* Pointers to the OpenCL entry points, one member per line of
 * opencl_symbols.h, named as the vendor names them. Optional members may be
 * NULL. */
typedef struct kiln_opencl_symbols {
#define KILN_OPENCL_SYMBOL_MEMBER(ret, name, params) ret(KILN_CL_API *name) params;
  KILN_OPENCL_REQUIRED_SYMBOLS(KILN_OPENCL_SYMBOL_MEMBER)
  KILN_OPENCL_OPTIONAL_SYMBOLS(KILN_OPENCL_SYMBOL_MEMBER)
#undef KILN_OPENCL_SYMBOL_MEMBER
} kiln_opencl_symbols;

/* Loads the ICD loader on the first call (once per process, thread-safe):
 * $KILN_OPENCL_PATH first when set, then "libOpenCL.so.1". Sets *symbols to
 * the resolved table, valid until the process exits (the library is never
 * unloaded). UNAVAILABLE when no candidate loads (the message lists each
 * path tried with dlerror()) or when the loaded one lacks a required symbol;
 * every later call returns the same status and message. */
kiln_status kiln_opencl_library_load(const kiln_opencl_symbols **symbols);

/* The path that was loaded ("" before a successful load). */
const char *kiln_opencl_library_path(void);

#endif
