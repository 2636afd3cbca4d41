/* backends/cuda/cuda_library.h: the CUDA driver and NVRTC, loaded at run
 * time (internal to backends/cuda). */
#ifndef KILN_BACKENDS_CUDA_LIBRARY_H
#define KILN_BACKENDS_CUDA_LIBRARY_H

#include "backends/cuda/cuda_symbols.h"
#include "kiln/status.h"

/* Pointers to the entry points, one member per line of cuda_symbols.h,
 * named as the vendor names them. Optional members may be NULL. */
typedef struct cuda_driver_symbols {
#define KILN_CUDA_SYMBOL_MEMBER(ret, name, params) ret(*name) params;
  KILN_CUDA_DRIVER_REQUIRED(KILN_CUDA_SYMBOL_MEMBER)
  KILN_CUDA_DRIVER_OPTIONAL(KILN_CUDA_SYMBOL_MEMBER)
} cuda_driver_symbols;

typedef struct cuda_nvrtc_symbols {
  KILN_NVRTC_REQUIRED(KILN_CUDA_SYMBOL_MEMBER)
  KILN_NVRTC_OPTIONAL(KILN_CUDA_SYMBOL_MEMBER)
#undef KILN_CUDA_SYMBOL_MEMBER
} cuda_nvrtc_symbols;

/* Loads the driver, "libcuda.so.1" (never the toolkit's unversioned stub),
 * on the first call (once per process, thread-safe; never unloaded). *symbols
 * receives the table. UNAVAILABLE naming the path and dlerror(), or the
 * missing entry point; every later call reports the same. cuInit is not
 * called here. */
kiln_status cuda_driver_load(const cuda_driver_symbols **symbols);

/* Loads NVRTC likewise: $KILN_NVRTC_PATH when set, then libnvrtc.so.13,
 * .12, .11.2, .11.1, .11.0 from the library path, then the same names in
 * /usr/local/cuda/lib64. Needs no driver. */
kiln_status cuda_nvrtc_load(const cuda_nvrtc_symbols **symbols);

/* The driver table: its members are valid once cuda_driver_load succeeded
 * (the table lives at a fixed address for the process). */
const cuda_driver_symbols *cuda_driver(void);

/* The NVRTC table, likewise after cuda_nvrtc_load succeeded. */
const cuda_nvrtc_symbols *cuda_nvrtc(void);

#endif
