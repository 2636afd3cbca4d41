/* core/random/random_internal.h: one draw of a distribution, planned on the
 * host and computed by a kernel or by the host generator (internal). */
#ifndef KILN_CORE_RANDOM_INTERNAL_H
#define KILN_CORE_RANDOM_INTERNAL_H

#include <stdatomic.h>

#include "core/kernel/kernel_catalog.h"
#include "kiln/random.h"

/* Blocks a stream offers array draws: the blocks from 2^63 on are the
 * integers' retry blocks (kernels/random.kl). */
#define KILN_RANDOM_MAX_POSITION ((uint64_t)1 << 62)

struct kiln_random_generator {
  atomic_int refcount;
  uint64_t seed, stream;
  _Atomic uint64_t position; /* the next block */
  _Atomic uint64_t children; /* split so far */
};

/* The kinds of draw, with the kernel language's kiln_draw_* kind numbers
 * for the float ones (kernels/random.kl). */
typedef enum kiln_random_kind {
  KILN_RANDOM_UNIFORM = 0,
  KILN_RANDOM_NORMAL = 1,
  KILN_RANDOM_LOGNORMAL = 2,
  KILN_RANDOM_EXPONENTIAL = 3,
  KILN_RANDOM_INTEGERS,
  KILN_RANDOM_BERNOULLI
} kiln_random_kind;

typedef struct kiln_random_draw {
  kiln_random_kind kind;
  kiln_dtype dtype;
  double a, b;       /* floats: uniform low, high - low; (log)normal mean, std;
                        exponential scale, 0 */
  uint64_t low;      /* integers: low (two's complement) */
  uint64_t range;    /* integers: values in the range, 0 meaning 2^64 (wide)
                        or 2^32 (narrow); bernoulli: the threshold */
  int wide;          /* integers: 64-bit words (range > 2^32) */
  uint64_t seed, stream, position; /* the first block, once reserved */
} kiln_random_draw;

/* Takes `blocks` blocks from gen's position (atomically): *first
 * receives the first. OUT_OF_RANGE past 2^62 (gen unchanged). */
kiln_status kiln_random_reserve(kiln_random_generator *gen, uint64_t blocks, uint64_t *first);

/* Values per block: 4 or 2 (kiln/random.h). */
int kiln_random_values_per_block(const kiln_random_draw *draw);

/* The kernel-language type the draw's values are computed in ("float",
 * "double", "uint64_t"), before the cast to the output dtype. */
const char *kiln_random_value_type(const kiln_random_draw *draw);

/* Queues the draw of n elements into device array `out` (any view) on
 * `stream`. */
kiln_status kiln_random_fill_device(const kiln_random_draw *draw, kiln_array *out,
                                    kiln_stream *stream);

/* Computes n elements of the draw on the host into `out`, C-contiguous
 * elements of draw->dtype. */
void kiln_random_fill_host(const kiln_random_draw *draw, int64_t n, void *out);

/* Appends the random fill kernels (every kind, dtype and layout family) to
 * the catalog. */
kiln_status kiln_random_catalog_add(kiln_catalog *catalog);

/* Appends kiln_random_shuffle's row gather (kernels/builtin/shuffle.kl,
 * every word and order width) to the catalog. */
kiln_status kiln_random_shuffle_catalog_add(kiln_catalog *catalog);

#endif
