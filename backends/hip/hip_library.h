/* backends/hip/hip_library.h: the HIP runtime and hiprtc, loaded at run
 * time (internal to backends/hip). */
#ifndef KILN_BACKENDS_HIP_LIBRARY_H
#define KILN_BACKENDS_HIP_LIBRARY_H

#include "backends/hip/hip_symbols.h"
#include "kiln/status.h"

/* Pointers to the entry points, one member per line of hip_symbols.h,
 * named as the vendor names them. Optional members may be NULL. */
typedef struct hip_runtime_symbols {
#define KILN_HIP_SYMBOL_MEMBER(ret, name, params) ret(*name) params;
  KILN_HIP_RUNTIME_REQUIRED(KILN_HIP_SYMBOL_MEMBER)
  KILN_HIP_RUNTIME_OPTIONAL(KILN_HIP_SYMBOL_MEMBER)
} hip_runtime_symbols;

typedef struct hip_rtc_symbols {
  KILN_HIPRTC_REQUIRED(KILN_HIP_SYMBOL_MEMBER)
  KILN_HIPRTC_OPTIONAL(KILN_HIP_SYMBOL_MEMBER)
#undef KILN_HIP_SYMBOL_MEMBER
} hip_rtc_symbols;

/* Loads the HIP runtime on the first call (once per process, thread-safe;
 * never unloaded): $KILN_HIP_PATH when set, then libamdhip64.so.7, .6, .5
 * from the library path, then the same names in /opt/rocm/lib. No runtime
 * function is called here. UNAVAILABLE naming each path and dlerror(), or
 * the missing entry point; every later call reports the same. */
kiln_status hip_runtime_load(const hip_runtime_symbols **symbols);

/* Loads hiprtc likewise: $KILN_HIPRTC_PATH when set, then the HIP runtime
 * itself when it carries the hiprtc entry points (ROCm 5), then
 * libhiprtc.so.7, .6, .5 from the library path and /opt/rocm/lib. Calls no
 * runtime function, so it needs no GPU. */
kiln_status hip_rtc_load(const hip_rtc_symbols **symbols);

/* The tables: members valid once the matching load succeeded (each table
 * lives at a fixed address for the process). */
const hip_runtime_symbols *hip_runtime(void);
const hip_rtc_symbols *hip_rtc(void);

#endif
