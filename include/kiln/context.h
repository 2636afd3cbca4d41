/* kiln/context.h: backends, devices and contexts.
 *
 * A context is one device of one backend, opened for use. It owns a default
 * stream on which every kiln operation that names no stream is ordered, and
 * the caches of compiled kernels. A context may be used from several threads
 * at once. Contexts are refcounted: create gives one reference, release
 * drops one; arrays and kernels made from a context hold a reference too. */
#ifndef KILN_CONTEXT_H
#define KILN_CONTEXT_H

#include <stdint.h>
#include "kiln/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kiln_context kiln_context;

/* What kind of processor a device is. */
typedef enum kiln_device_type {
  KILN_DEVICE_GPU = 1,
  KILN_DEVICE_CPU,        /* e.g. PoCL's OpenCL device */
  KILN_DEVICE_OTHER       /* accelerators and anything else */
} kiln_device_type;

/* Properties of one device, as its backend reports them. */
typedef struct kiln_device_info {
  int index;                     /* index within its backend (KILN_DEVICE) */
  char backend[16];              /* "cuda", "hip", "opencl" */
  char name[256];                /* e.g. "NVIDIA H100 80GB HBM3" */
  char vendor[128];
  char platform[128];            /* platform / runtime name */
  char driver_version[64];
  char architecture[64];         /* compile target, e.g. "sm_90", "gfx90a" */
  kiln_device_type type;
  uint64_t global_memory;        /* bytes */
  uint64_t max_buffer_size;      /* bytes one allocation may hold */
  uint64_t local_memory;         /* bytes of work-group local memory */
  uint32_t compute_units;
  uint64_t max_work_group_size;
  int has_double;                /* nonzero when float64 kernels can run */
  /* Bytes of the global memory cache as the driver reports it (0: none
   * reported): the L2 on CUDA and HIP, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE on
   * OpenCL, where NVIDIA's driver gives its first-level caches (4 MiB on
   * the H100, whose L2 holds 50) and PoCL the CPU's last-level cache. */
  uint64_t cache_size;
} kiln_device_info;

/* Settings of a context. Fill with kiln_context_options_init() first: fields
 * left at their defaults are then taken from the environment (KILN_BACKEND,
 * KILN_DEVICE, KILN_OPENCL_PLATFORM, KILN_POOL, KILN_CACHE, KILN_CACHE_DIR,
 * KILN_CACHE_MAX_BYTES); fields set in code win. */
typedef struct kiln_context_options {
  /* Backend name or comma list in order of preference ("cuda,opencl").
   * NULL: $KILN_BACKEND, else "cuda,hip,opencl". */
  const char *backends;
  /* Device index within the chosen backend. -1: $KILN_DEVICE, else 0. */
  int device;
  /* Substring of the platform name to restrict to (OpenCL: "pocl",
   * "NVIDIA"). NULL: $KILN_OPENCL_PLATFORM, else any. */
  const char *platform_filter;
  /* Nonzero (the default) lets unset fields come from the environment; zero
   * makes unset fields take the built-in defaults only. */
  int use_environment;
  /* Device memory pool (kiln/memory.h): 1 caches freed buffers, 0 frees
   * them at once. -1 (the default): $KILN_POOL (0 or 1), else 1. */
  int memory_pool;
  /* The on-disk cache of compiled kernels (docs/environment.md), shared by
   * every process that uses the same directory. Directory; NULL:
   * $KILN_CACHE_DIR, else $XDG_CACHE_HOME/kiln, else $HOME/.cache/kiln.
   * With use_environment = 0 only this field names one (NULL: no disk
   * cache). Created when first written. */
  const char *cache_dir;
  /* 1: read and write the disk cache; 0: never touch it. -1 (the default):
   * $KILN_CACHE ("0" or "1"), else 1. */
  int cache;
  /* Size limit of the disk cache in bytes: past it the least recently used
   * entries are removed. 0 (the default): $KILN_CACHE_MAX_BYTES, else
   * 1 GiB. */
  uint64_t cache_max_bytes;
} kiln_context_options;

/* Fills *options with the defaults described above. */
KILN_API void kiln_context_options_init(kiln_context_options *options);

/* Opens a context on the first backend of the preference list that has a
 * usable device. options may be NULL (= kiln_context_options_init()).
 * Errors: INVALID_ARGUMENT for an unknown backend name or a bad value of
 * KILN_DEVICE, KILN_CACHE or KILN_CACHE_MAX_BYTES or of the matching field
 * (the message names the variable and the valid values); UNAVAILABLE
 * when no backend asked for can be used (the message names each backend,
 * each library path tried and the vendor's reason); NOT_FOUND for a device
 * index past the backend's device count. *out is NULL on failure. */
KILN_API kiln_status kiln_context_create(const kiln_context_options *options,
                                kiln_context **out);

/* Adds a reference. Returns ctx. */
KILN_API kiln_context *kiln_context_retain(kiln_context *ctx);

/* Drops a reference; the last one frees the context after waiting for its
 * queued work. NULL is accepted and ignored. */
KILN_API void kiln_context_release(kiln_context *ctx);

/* Copies the context's device properties into *info. */
KILN_API kiln_status kiln_context_device_info(const kiln_context *ctx,
                                     kiln_device_info *info);

/* Waits until all work queued on the context's default stream is done. */
KILN_API kiln_status kiln_context_synchronize(kiln_context *ctx);

/* ---- discovery, without opening a context ---------------------------- */

/* Number of backends compiled into this libkiln (each may or may not load). */
KILN_API int kiln_backend_count(void);

/* Name of backend i in [0, kiln_backend_count()); NULL when out of range. */
KILN_API const char *kiln_backend_name(int index);

/* Loads backend `name` if needed and counts its devices. options may be NULL
 * (only platform_filter and use_environment are read). Errors: NOT_FOUND for
 * an unknown name; UNAVAILABLE when its libraries cannot be loaded or it has
 * no device, with the paths tried and the vendor's reason in
 * kiln_last_error(). */
KILN_API kiln_status kiln_backend_device_count(const char *name,
                                      const kiln_context_options *options,
                                      int *count);

/* Properties of device `index` of backend `name`, without opening it. */
KILN_API kiln_status kiln_backend_device_info(const char *name,
                                     const kiln_context_options *options,
                                     int index, kiln_device_info *info);

#ifdef __cplusplus
}
#endif
#endif
