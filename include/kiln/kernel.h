/* kiln/kernel.h: raw kernels written in kiln's kernel language
 * (docs/kernel-language.md).
 *
 * kiln parses the entry point's parameter list, so every launch is checked:
 * the argument count, each array's dtype against the pointer's element
 * type, each scalar against the parameter type (converted when NumPy's
 * same-kind casting allows). Compiled kernels are cached per context by
 * source and options. */
#ifndef KILN_KERNEL_H
#define KILN_KERNEL_H

#include <stddef.h>
#include <stdint.h>
#include "kiln/array.h"
#include "kiln/context.h"
#include "kiln/stream.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kiln_kernel kiln_kernel;

typedef enum kiln_arg_kind {
  KILN_ARG_ARRAY = 1,  /* a device array (any view with a uniform base) */
  KILN_ARG_SCALAR,     /* a typed host value */
  KILN_ARG_LOCAL       /* bytes of work-group local memory */
} kiln_arg_kind;

/* One launch argument; build them with the kiln_arg_*() helpers. */
typedef struct kiln_arg {
  kiln_arg_kind kind;
  kiln_dtype dtype;          /* SCALAR */
  union {
    const kiln_array *array; /* ARRAY: borrowed for the call */
    int64_t i;               /* SCALAR signed ints and bool */
    uint64_t u;              /* SCALAR unsigned ints */
    double f;                /* SCALAR floats */
    size_t local_bytes;      /* LOCAL */
  } value;
} kiln_arg;

static inline kiln_arg kiln_arg_array(const kiln_array *a) {
  kiln_arg r; r.kind = KILN_ARG_ARRAY; r.dtype = KILN_DTYPE_COUNT;
  r.value.array = a; return r;
}
static inline kiln_arg kiln_arg_int32(int32_t v) {
  kiln_arg r; r.kind = KILN_ARG_SCALAR; r.dtype = KILN_INT32;
  r.value.i = v; return r;
}
static inline kiln_arg kiln_arg_int64(int64_t v) {
  kiln_arg r; r.kind = KILN_ARG_SCALAR; r.dtype = KILN_INT64;
  r.value.i = v; return r;
}
static inline kiln_arg kiln_arg_uint32(uint32_t v) {
  kiln_arg r; r.kind = KILN_ARG_SCALAR; r.dtype = KILN_UINT32;
  r.value.u = v; return r;
}
static inline kiln_arg kiln_arg_uint64(uint64_t v) {
  kiln_arg r; r.kind = KILN_ARG_SCALAR; r.dtype = KILN_UINT64;
  r.value.u = v; return r;
}
static inline kiln_arg kiln_arg_float32(float v) {
  kiln_arg r; r.kind = KILN_ARG_SCALAR; r.dtype = KILN_FLOAT32;
  r.value.f = v; return r;
}
static inline kiln_arg kiln_arg_float64(double v) {
  kiln_arg r; r.kind = KILN_ARG_SCALAR; r.dtype = KILN_FLOAT64;
  r.value.f = v; return r;
}
static inline kiln_arg kiln_arg_local(size_t bytes) {
  kiln_arg r; r.kind = KILN_ARG_LOCAL; r.dtype = KILN_DTYPE_COUNT;
  r.value.local_bytes = bytes; return r;
}

/* Compiles `source` (kernel language) and finds the kernel `entry`.
 * options: extra compiler options such as "-DN=4", or NULL.
 * Errors: INVALID_ARGUMENT (NULL args, entry point not declared with
 * KILN_KERNEL or with a parameter kiln cannot pass), COMPILE (the message
 * holds the compiler's log and the numbered source), NOT_FOUND. */
KILN_API kiln_status kiln_kernel_create(kiln_context *ctx, const char *source,
                               const char *entry, const char *options,
                               kiln_kernel **out);

/* Adds a reference; returns kernel. */
KILN_API kiln_kernel *kiln_kernel_retain(kiln_kernel *kernel);

/* Drops a reference. NULL is ignored. */
KILN_API void kiln_kernel_release(kiln_kernel *kernel);

/* Number of parameters of the entry point. */
KILN_API int kiln_kernel_arg_count(const kiln_kernel *kernel);

/* Queues one launch on `stream` (NULL: default). work_dim is 1..3;
 * global_size[d] work-items in dimension d; local_size NULL lets kiln pick
 * the work-group size. The global size is rounded up to a multiple of the
 * work-group size (kernels must bounds-check, as in CUDA); a global size of
 * zero in any dimension launches nothing.
 * Errors: INVALID_ARGUMENT (argument count or types, arrays of another
 * context, bad sizes), OUT_OF_RANGE, DEVICE. */
KILN_API kiln_status kiln_kernel_launch(kiln_kernel *kernel, int work_dim,
                               const int64_t *global_size,
                               const int64_t *local_size, int nargs,
                               const kiln_arg *args, kiln_stream *stream);

#ifdef __cplusplus
}
#endif
#endif
