/* core/kernel/kernel_internal.h: compiled programs, parsed kernel parameters and
 * launches (internal). A kiln_program is one compiled entry point, owned by
 * its context's cache and alive as long as the context; kiln_kernel (the
 * public handle) retains the context and borrows a program. */
#ifndef KILN_CORE_KERNEL_INTERNAL_H
#define KILN_CORE_KERNEL_INTERNAL_H

#include <stdatomic.h>

#include "core/runtime/context_internal.h"
#include "core/runtime/stream_internal.h"
#include "core/runtime/strbuf.h"
#include "kiln/kernel.h"

typedef enum kiln_param_kind {
  KILN_PARAM_ARRAY = 1, /* KILN_GLOBAL T *name */
  KILN_PARAM_SCALAR,    /* T name */
  KILN_PARAM_LOCAL      /* KILN_LOCAL_PARAM(T) name */
} kiln_param_kind;

typedef struct kiln_param {
  kiln_param_kind kind;
  kiln_dtype dtype; /* element type (ARRAY, LOCAL) or value type (SCALAR) */
  char name[64];
} kiln_param;

typedef struct kiln_program {
  kiln_backend_module *module;
  kiln_backend_function *function;
  char *entry;
  kiln_param *params;
  int nparams;
  uint64_t max_work_group_size;
  uint64_t preferred_multiple;
  atomic_int geometry_logged; /* KILN_LOG=debug: launch geometry printed once */
  /* the disk cache entry a compiled module is stored under after its first
   * launch (ops->binary_after_launch), NULL once stored or when none */
  _Atomic(struct kiln_disk_entry *) pending_store;
} kiln_program;

/* Parses the parameter list of kernel `entry` in kernel-language `source`.
 * Errors: INVALID_ARGUMENT when no `KILN_KERNEL void entry(...)` definition
 * is found or a parameter has a type kiln cannot pass (the message names
 * the parameter). *params is malloc'd (caller frees). */
kiln_status kiln_params_parse(const char *source, const char *entry, kiln_param **params,
                              int *count);

/* Full source handed to the compiler: the backend's prelude, the common
 * prelude, a #line marker, then `source`. Malloc'd (caller frees). */
kiln_status kiln_source_compose(const kiln_backend_ops *ops, const char *source,
                                char **full);

/* Lines of the composed source before line 1 of the user's source. */
int kiln_source_prefix_lines(const kiln_backend_ops *ops);

/* Appends a compiler log. Compilers that ignore the #line marker (NVIDIA's
 * OpenCL) count lines from the start of the composed source: then every
 * ":N:" past the preludes is annotated as ":N (kernel:M):", M being the
 * user's line. Logs that already name "kernel" lines are copied as is. */
void kiln_source_append_log(kiln_strbuf *b, const char *log, int prefix_lines);

/* Appends `source` with right-aligned line numbers ("  12 | text"). */
void kiln_source_append_numbered(kiln_strbuf *b, const char *source);

/* Compiles (or finds in ctx's cache) `source` + `options` and looks up
 * `entry`. The program lives as long as ctx. Errors as kiln_kernel_create. */
kiln_status kiln_program_get(kiln_context *ctx, const char *source, const char *options,
                             const char *entry, kiln_program **out);

/* Writes a program's source into *source (on a cache miss only). */
typedef kiln_status (*kiln_source_generator)(void *data, kiln_strbuf *source);

/* As kiln_program_get, for callers that can name a program more cheaply than
 * by its source: `key` (key_length bytes) must identify the source, options
 * and entry, and must not be a kernel source (start it with a byte no source
 * starts with, e.g. '\1'). The source is generated only on a miss. */
kiln_status kiln_program_get_keyed(kiln_context *ctx, const char *key, size_t key_length,
                                   const char *options, const char *entry,
                                   kiln_source_generator generate, void *data,
                                   kiln_program **out);

/* A work-group size for a 1-D launch of `program` over n items, and a group
 * count capped for grid-stride loops (each work-item then loops). Kernels
 * with one element per work-item use kiln_program_launch_elements instead,
 * which also serves CPU devices well. */
void kiln_program_grid_1d(const kiln_context *ctx, const kiln_program *program, int64_t n,
                          uint64_t *global, uint64_t *local);

/* Launches a kernel written with KILN_ELEMENTS_BEGIN(i, base, n) (the
 * kernel-language prelude) so that it visits every index of [0, n) once.
 * args[base_arg] is overwritten with a pointer to each launch's `base` (an
 * int64_t scalar, valid only during the call), so args must be writable;
 * n and the rest are the caller's. GPUs: one launch of a bounded grid (grid-stride). CPU devices:
 * whole work-groups over [0, n - n % group) in launches of < 2^31 items,
 * then the n % group rest as work-groups of one item, so the kernel needs
 * no bound test. n <= 0 launches nothing. Errors as kiln_program_launch. */
kiln_status kiln_program_launch_elements(kiln_context *ctx, const kiln_program *program,
                                         kiln_stream *stream, int64_t n, int nargs,
                                         kiln_backend_arg *args, int base_arg);

/* kiln_program_launch_elements in two steps, for callers that launch one
 * program over one n many times (core/ufunc's repeat-call cache): the
 * geometry, a pure function of ctx, program and n, computed once; then
 * launches of it. */
typedef struct kiln_elements_grid {
  int64_t n;
  int cpu_form;          /* kiln_elements_cpu_form */
  uint64_t global, local; /* GPU form: one launch; CPU form: local = group size */
  uint64_t whole, rest, chunk; /* CPU form: items in whole groups, the rest, per launch */
} kiln_elements_grid;
void kiln_program_elements_grid(kiln_context *ctx, const kiln_program *program, int64_t n,
                                kiln_elements_grid *grid);
kiln_status kiln_program_launch_grid(kiln_context *ctx, const kiln_program *program,
                                     kiln_stream *stream, const kiln_elements_grid *grid,
                                     int nargs, kiln_backend_arg *args, int base_arg);

/* Whether element loops on ctx's device take the CPU form (one index per
 * work-item, exact cover; -DKILN_DEVICE_IS_CPU): CPU devices, unless
 * KILN_ELEMENTS_GRID=<k> (k > 0; read once per process) is in the
 * environment. Then they compile element loops as GPUs do (grid-stride) and
 * launch them over one work-group of at most k items, so that the suite
 * runs the GPU loops (the batched trips of fused kernels) on PoCL too, over
 * several trips per work-item even for small arrays. A test hook. */
int kiln_elements_cpu_form(const kiln_context *ctx);

/* Tests only: programs this process built (memory-cache misses of every
 * context) and modules it compiled (those the disk cache did not hold). */
void kiln_program_cache_counts(uint64_t *built, uint64_t *compiled);

/* Queues a launch with backend arguments as they are (no type checks). */
kiln_status kiln_program_launch(kiln_context *ctx, const kiln_program *program,
                                kiln_stream *stream, const kiln_backend_launch *launch,
                                int nargs, const kiln_backend_arg *args);

#endif
