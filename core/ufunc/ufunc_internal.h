/* core/ufunc/ufunc_internal.h: what a ufunc is made of, and the steps of a call
 * (internal). A call is: check operands, dispatch a signature
 * (ufunc_dispatch.c), broadcast into a plan (ufunc_call.c), then run the
 * plan on the device (ufunc_call.c) or through host staging
 * (ufunc_host.c); either way each launch finds its compiled program in the
 * ufunc's variant table (ufunc_variant.c), generating the source once
 * (ufunc_codegen.c). */
#ifndef KILN_CORE_UFUNC_INTERNAL_H
#define KILN_CORE_UFUNC_INTERNAL_H

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>

#include "core/codegen/elementwise.h"
#include "core/codegen/reduce_tree.h"
#include "core/kernel/kernel_catalog.h"
#include "kiln/ufunc.h"

#define KILN_UFUNC_MAX_OPERANDS KILN_EW_MAX_OPERANDS
#define KILN_UFUNC_NAME_MAX 64

/* A span of a signature's text (a parameter name). */
typedef struct kiln_ufunc_span {
  int start, length;
} kiln_ufunc_span;

typedef struct kiln_ufunc_sig {
  char *text;        /* as given, malloc'd; names point into it */
  const char *body;  /* the body for this signature (borrowed from the ufunc) */
  int nin, nout;
  int returns_value; /* "T(...)" form: the body returns the one output */
  kiln_dtype dtypes[KILN_UFUNC_MAX_OPERANDS]; /* inputs, then outputs */
  kiln_ufunc_span names[KILN_UFUNC_MAX_OPERANDS];
} kiln_ufunc_sig;

/* Parses `text` (see kiln/ufunc.h) into *sig; `index` only numbers the
 * signature in messages. sig->text is a copy (free with
 * kiln_ufunc_signature_free). Errors: INVALID_ARGUMENT quoting the text
 * with a caret at the offending column, OUT_OF_MEMORY. */
kiln_status kiln_ufunc_signature_parse(const char *text, int index, kiln_ufunc_sig *sig);
void kiln_ufunc_signature_free(kiln_ufunc_sig *sig);

/* INVALID_ARGUMENT with the message `<what> "<text>": <format...> at column
 * N`, then the text again with a caret under the (0-based) column; shared
 * by the parsers of signatures and gufunc layouts. */
kiln_status kiln_syntax_error(const char *what, const char *text, int column,
                              const char *format, va_list args);

/* One compiled program: signature, merged layout ndim and the dtypes the
 * kernel reads and writes, packed for memcmp. */
typedef struct kiln_ufunc_variant_key {
  int16_t signature;
  int8_t ndim;
  /* per ufunc operand: array dtype, or KILN_UFUNC_SCALAR_SLOT for a scalar
   * input passed by value; unused slots 0xff */
  uint8_t operands[KILN_UFUNC_MAX_OPERANDS];
} kiln_ufunc_variant_key;
#define KILN_UFUNC_SCALAR_SLOT 0xfe

typedef struct kiln_ufunc_variant {
  kiln_ufunc_variant_key key;
  const kiln_program *program; /* owned by the context's cache */
} kiln_ufunc_variant;

typedef struct kiln_ufunc_staging kiln_ufunc_staging;

struct kiln_ufunc {
  atomic_int refcount;
  uint64_t id; /* process-unique, never 0 (the repeat-call cache's key) */
  kiln_context *ctx;
  char name[KILN_UFUNC_NAME_MAX];
  char *preamble; /* NULL when none */
  char **bodies;  /* nbodies copies; signatures borrow them */
  int nbodies;
  int nin, nout, nsig;
  kiln_ufunc_sig *sigs;
  pthread_mutex_t lock; /* guards everything below */
  kiln_ufunc_variant *variants;
  int nvariants, variant_capacity;
  size_t host_chunk_bytes;
  kiln_ufunc_staging *staging; /* kept from the last host-path call */
  /* NumPy's logical functions: inputs count only by their truth value, so
   * a weak scalar keeps it through the cast (ufunc_dispatch.c) */
  int truth_only;
  /* NumPy 2's comparisons and true_divide: a Python int out of the range of
   * the integer dtype chosen for it is used by value (ufunc_dispatch.c),
   * not refused: int8 array < 1000 is all true, int8 array / 1000 is
   * a / 1000.0 */
  int int_scalar_by_value;
  /* built-in minimum/maximum: the combine returns one of its operands (the
   * first NaN, else the larger/smaller, the later on ties), so a reduction
   * by it is exactly associative (core/codegen/reduce_tree.h) */
  int builtin_picks;
  /* reductions (core/reduce/): set for built-ins by kiln_ufunc_builtin_make,
   * for user ufuncs by kiln_ufunc_declare_reducible */
  int reducible;          /* associative and commutative */
  int has_identity;       /* reduce_identity is the identity */
  int reduce_widens;      /* add/multiply: small ints accumulate in 64 bits */
  kiln_operand reduce_identity;
  kiln_rt_scratch reduce_scratch; /* partials kept from the last reduce */
  /* what core/reduce/ keeps built for its calls (under lock), and how the
   * ufunc frees it */
  void *reduce_ops;
  void (*reduce_ops_free)(void *ops);
};

/* kiln_ufunc_create with one body per signature (built-ins differ per
 * dtype); bodies[i] belongs to signatures[i]. ctx NULL makes an unbound
 * ufunc that can only generate source (compile checks). */
kiln_status kiln_ufunc_create_with_bodies(kiln_context *ctx, const char *name, int nsig,
                                          const char *const *signatures,
                                          const char *const *bodies, const char *preamble,
                                          kiln_ufunc **out);

/* kiln_ufunc_builtin; ctx may be NULL (unbound, as above). */
kiln_status kiln_ufunc_builtin_make(kiln_context *ctx, const char *name, kiln_ufunc **out);

/* Appends the generated sources of every built-in ufunc and of sample
 * user ufuncs to the compile-check catalog (core/ufunc/ufunc_catalog.c). */
kiln_status kiln_ufunc_catalog_add(kiln_catalog *catalog);

/* ---- a call's plan ---------------------------------------------------------- */

typedef enum kiln_ufunc_operand_where {
  KILN_UFUNC_DEVICE = 1, /* a device array (given, new, or uploaded whole) */
  KILN_UFUNC_HOST,       /* host memory */
  KILN_UFUNC_BY_VALUE    /* an input scalar passed as a kernel argument */
} kiln_ufunc_operand_where;

typedef struct kiln_ufunc_operand_plan {
  kiln_ufunc_operand_where where;
  kiln_dtype dtype;         /* element type in memory (BY_VALUE: the signature's) */
  const kiln_array *array;  /* DEVICE */
  const char *host;         /* HOST: element at index 0 */
  char *host_out;           /* HOST outputs */
  int own_ndim;             /* the operand's own shape, before broadcasting */
  const int64_t *own_shape; /* borrowed for the call */
  int64_t own_strides[KILN_MAX_DIMS]; /* bytes */
  int64_t offset;                   /* DEVICE: bytes */
  int64_t strides[KILN_MAX_DIMS];   /* bytes, broadcast shape, 0 where broadcast */
  int scalar;                       /* BY_VALUE: index into scalars */
} kiln_ufunc_operand_plan;

#define KILN_UFUNC_MAX_CORE_DIMS 8

typedef struct kiln_ufunc_plan kiln_ufunc_plan;

/* Runs a plan over views: one array of the broadcast (or chunk) shape per
 * non-BY_VALUE operand, in operand order (with the core dims after the loop
 * dims for gufuncs); nothing runs for an empty shape. A plan's `launch`
 * hook: the host path (ufunc_host.c) launches through it, so it calls no
 * file above it (ufunc_call.c, gufunc_call.c). */
typedef kiln_status (*kiln_ufunc_launcher)(void *self, const kiln_ufunc_plan *plan,
                                           const kiln_array *const *views,
                                           kiln_stream *stream);

struct kiln_ufunc_plan {
  int signature;
  int nin, nout;
  int ndim;
  int64_t shape[KILN_MAX_DIMS]; /* broadcast shape */
  int64_t size;
  kiln_ufunc_operand_plan operands[KILN_UFUNC_MAX_OPERANDS];
  int nscalars;
  kiln_dtype scalar_dtypes[KILN_EW_MAX_SCALARS];
  unsigned char scalars[KILN_EW_MAX_SCALARS][KILN_SCALAR_BYTES]; /* in the signature's dtype */
  /* Generalized ufuncs (core/gufunc/): operand j's views have core_ndim[j]
   * more dims after the loop dims, of core_shape[j] and byte strides
   * core_strides[j] (its device array's or host memory's), and `launch`
   * runs views of loop + core dims. Ufuncs: core_ndim 0, launch the
   * ufunc's own launcher, as kiln_ufunc_plan_operands sets them. */
  int core_ndim[KILN_UFUNC_MAX_OPERANDS];
  int64_t core_shape[KILN_UFUNC_MAX_OPERANDS][KILN_UFUNC_MAX_CORE_DIMS];
  int64_t core_strides[KILN_UFUNC_MAX_OPERANDS][KILN_UFUNC_MAX_CORE_DIMS];
  kiln_ufunc_launcher launch;
  void *launch_self;
};

/* Runs the plan's signature of `ufunc` over `views` (one array of one shape
 * per non-BY_VALUE operand, in operand order), as a ufunc plan's own
 * `launch` hook does; for callers above ufunc/ (fusion) that build plans
 * themselves. Nothing runs for an empty shape. */
kiln_status kiln_ufunc_launch(kiln_ufunc *ufunc, const kiln_ufunc_plan *plan,
                              const kiln_array *const *views, kiln_stream *stream);

/* Picks the signature for the inputs (see kiln/ufunc.h), checks given
 * outputs' dtypes (same_kind), and converts scalar inputs into
 * plan->scalars. Fills plan->signature, operands[].dtype/where of scalars. */
kiln_status kiln_ufunc_dispatch(const kiln_ufunc *ufunc, const kiln_operand *inputs,
                                const kiln_operand *outputs, kiln_ufunc_plan *plan);

/* Checks one operand of a call on its own (kind, NULLs, context, host
 * geometry; scalars and NEW only where they may be). `output` nonzero for
 * outputs; `index` numbers it in the message. */
kiln_status kiln_ufunc_check_operand(const kiln_ufunc *u, int output, int index,
                                     const kiln_operand *o);

/* Fills plan->nin/nout, each operand's where/array/dtype/offset/host
 * from the operands (already checked), core_ndim 0 and `launch` the ufunc's
 * launcher (a gufunc sets its own after); returns nonzero when any operand
 * is host memory. */
int kiln_ufunc_plan_operands(kiln_ufunc *u, const kiln_operand *inputs,
                             const kiln_operand *outputs, kiln_ufunc_plan *plan);

/* NumPy broadcasting of the operands into plan->ndim/shape/size and each
 * operand's strides; given outputs must have the broadcast shape exactly
 * and must not be broadcast views. core_ndim (NULL for ufuncs) strips that
 * many trailing (core) dims of operand j first, so only the leading (loop)
 * dims broadcast, as in a gufunc; own_strides keep all dims. */
kiln_status kiln_ufunc_broadcast(const kiln_ufunc *u, const kiln_operand *inputs,
                                 const kiln_operand *outputs, const int *core_ndim,
                                 kiln_ufunc_plan *plan);

/* Sets every NEW output's *result to NULL, releasing what it held first
 * when `release` (a failed call's cleanup). outputs may be NULL. */
void kiln_ufunc_clear_new_outputs(int nout, const kiln_operand *outputs, int release);

/* NumPy's can_cast(from, to, 'same_kind'). */
int kiln_ufunc_can_cast_same_kind(kiln_dtype from, kiln_dtype to);

/* Finds (or generates, compiles and records) the program for `key`. */
kiln_status kiln_ufunc_variant_get(kiln_ufunc *ufunc, const kiln_ufunc_variant_key *key,
                                   const kiln_program **program);

/* Appends the kernel source of variant `key` (entry kiln_ufunc_entry). */
void kiln_ufunc_source(const kiln_ufunc *ufunc, const kiln_ufunc_variant_key *key,
                       kiln_strbuf *out);

/* The element-wise signature (kernel parameters) of variant `key`. */
void kiln_ufunc_ew_signature(const kiln_ufunc *ufunc, const kiln_ufunc_variant_key *key,
                             kiln_ew_signature *sig);

/* Appends signature s's body as KILN_DEVICE function `<entry>_body`: its
 * parameters are the signature's (inputs, then pointers to the outputs
 * unless the body returns its one value). */
void kiln_ufunc_append_body_function(const kiln_ufunc *ufunc, const kiln_ufunc_sig *s,
                                     const char *entry, kiln_strbuf *b);

/* Writes the kernel's entry-point name for ufunc (>= 80 bytes). */
void kiln_ufunc_entry(const kiln_ufunc *ufunc, char *out, size_t size);

/* Runs a plan with host operands through pinned staging in chunks (of the
 * loop dims, core dims whole); returns when all is written. NEW outputs
 * are already allocated (DEVICE). */
kiln_status kiln_ufunc_run_host(kiln_ufunc *ufunc, kiln_ufunc_plan *plan,
                                kiln_stream *stream);

/* Threads that copy parts of large boxes (core/ufunc/ufunc_host_copy.c). */
typedef struct kiln_copy_pool kiln_copy_pool;

/* Copies a box of `shape` between dense C-order memory and host memory
 * with byte `strides` (to_dense nonzero: gather into dense, else scatter
 * from it). Boxes of a megabyte or more are split over *pool's threads,
 * the pool made on first need (a failure to make it only costs speed). */
void kiln_host_box_copy(kiln_copy_pool **pool, int to_dense, char *dense, char *strided,
                        const int64_t *strides, int ndim, const int64_t *shape,
                        size_t itemsize);

/* Stops and joins the pool's threads; NULL is ignored. */
void kiln_copy_pool_free(kiln_copy_pool *pool);

/* Frees cached host-path staging (buffers, streams). */
void kiln_ufunc_staging_free(kiln_context *ctx, kiln_ufunc_staging *staging);

/* A recorder of device-path calls (core/fusion/ sets it; ufuncs know
 * nothing of fusion): called with a checked, dispatched and broadcast plan
 * whose NEW outputs are allocated, it returns 1 when it took the call
 * (*status is then the call's result), 0 when the call runs now. */
typedef int (*kiln_ufunc_recorder)(kiln_ufunc *ufunc, const kiln_ufunc_plan *plan,
                                   kiln_stream *stream, kiln_status *status);
/* Whether the recorder could take a call of this thread now (a cheap test,
 * no plan needed); when it says no, a repeat call runs from the repeat-call
 * cache, which builds no plan. NULL: always ask the recorder. */
typedef int (*kiln_ufunc_recording)(void);
void kiln_ufunc_set_recorder(kiln_ufunc_recorder recorder, kiln_ufunc_recording recording);

/* ---- the repeat-call cache (ufunc_call_cache.c) ------------------------------ */

typedef struct kiln_ufunc_cache_entry kiln_ufunc_cache_entry;

/* Tests: the calls of this thread the cache ran. */
uint64_t kiln_ufunc_cache_hits(void);

/* A new ufunc's id: unique in the process, never 0. */
uint64_t kiln_ufunc_cache_new_id(void);

/* Runs a call that this thread ran before with operands of the same kinds,
 * dtypes, shapes and strides (nin and nout already match the ufunc's):
 * returns 1 with *status the call's result, or 0 when the call must take
 * the full path (unknown, or something only the full path checks). */
int kiln_ufunc_cache_call(kiln_ufunc *ufunc, const kiln_operand *inputs,
                          const kiln_operand *outputs, kiln_stream *stream,
                          kiln_status *status);

/* The full device path's side: an entry of this thread's cache to record a
 * call into (keyed on the operands, the plan dispatched and broadcast), or
 * NULL when the cache cannot hold it; kiln_ufunc_cache_launch gives the
 * launch to prepare in it (NULL for NULL); kiln_ufunc_cache_store, called
 * once after the launch for every claim, keeps the entry only when the
 * call succeeded and its launch was prepared there. */
kiln_ufunc_cache_entry *kiln_ufunc_cache_claim(kiln_ufunc *ufunc, const kiln_operand *inputs,
                                               const kiln_operand *outputs,
                                               const kiln_ufunc_plan *plan);
kiln_ew_prepared *kiln_ufunc_cache_launch(kiln_ufunc_cache_entry *entry);
void kiln_ufunc_cache_store(kiln_ufunc *ufunc, kiln_ufunc_cache_entry *entry, int prepared);

/* Scalar input j (operand o) converted to `to` as dispatch converts it
 * into plan->scalars; errors as kiln_ufunc_dispatch (a weak int out of
 * range). */
kiln_status kiln_ufunc_convert_scalar(const kiln_ufunc *ufunc, int j, const kiln_operand *o,
                                      kiln_dtype to, unsigned char out[KILN_SCALAR_BYTES]);

/* Compile options of every ufunc program (and of the fused ones, which
 * must round as they do): no floating-point contraction, as reductions
 * (KILN_RT_OPTIONS), so a chain's bits are the same whether each call
 * stores its result or a fused kernel keeps it in a register, and whether
 * a reduction folds the chain into its map step or reads it from memory. */
#define KILN_UFUNC_OPTIONS KILN_RT_OPTIONS

/* "(3, 4)" into out. */
void kiln_ufunc_format_shape(int ndim, const int64_t *shape, char *out, size_t size);

#endif
