/* kiln/random.h: random arrays from Philox4x32-10, the same bits on every
 * backend and on the host (docs/random.md).
 *
 * A generator is NumPy's Generator(Philox) in spirit: a key (the seed), a
 * stream (the counter's upper 64 bits) and a position (the next block of
 * four 32-bit words in that stream). Each call draws whole blocks from the
 * position and advances it, atomically, so one generator may be shared by
 * threads (calls then take disjoint blocks, in the order they reach it);
 * split gives children on streams of their own, for threads or MPI ranks
 * that must not depend on call order.
 *
 * Element j (C order over the output's shape) of a call that starts at
 * position P takes block P + j / V, value j % V, V being 4 for float16 and
 * float32 draws, integers in a range of at most 2^32 and bernoulli, 2 for
 * float64 draws and wider integer ranges. The value of every element is
 * thus a pure function of (seed, stream, block): kernels compute it with
 * the kernel language's kiln_uniform_f32, kiln_normal_f32, ... (docs/
 * kernel-language.md), the host with the same code compiled into the
 * library, and the two agree bit for bit (no vendor math: kiln's own log,
 * exp, sin and cos; accuracy in docs/random.md).
 *
 * Each distribution call fills `out`, which is one of
 *   kiln_operand_array(a): a device array, any view (strided, reversed),
 *     not a broadcast one; the kernel is queued on `stream` (NULL: the
 *     default stream) and the call returns;
 *   kiln_operand_host_output(p, dtype, ndim, shape, strides): host memory,
 *     any byte strides; with a context the values are drawn on its device
 *     and copied back before the call returns, with ctx NULL the host
 *     generator computes them on the CPU (the same values either way).
 * ctx may be NULL for a device array (its context is used). The dtype is
 * the output's. Errors common to all: INVALID_ARGUMENT (NULL generator, an
 * operand that is not a device array or a writable host output, a
 * broadcast view, a dtype the distribution does not produce, a bad
 * parameter: the message says which, an array of another context),
 * OUT_OF_RANGE (the stream's 2^62 blocks would be exhausted), OUT_OF_MEMORY,
 * COMPILE, DEVICE. A failed call leaves the generator's position as it was
 * only when it fails before drawing (bad input); a device failure after
 * that still consumes the blocks. */
#ifndef KILN_RANDOM_H
#define KILN_RANDOM_H

#include <stdint.h>

#include "kiln/context.h"
#include "kiln/status.h"
#include "kiln/stream.h"
#include "kiln/ufunc.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the raw stream --------------------------------------------------------- */

/* One Philox4x32-10 block: out = philox4x32_10(counter, key), as Random123. */
KILN_API void kiln_random_philox4x32_10(const uint32_t counter[4], const uint32_t key[2],
                                        uint32_t out[4]);

/* Word n (n = 0, 1, ...) of stream `stream` of generator `seed`: what the
 * (n+1)-th kiln_rng_next_u32() returns in a kernel after
 * kiln_rng_init(seed, stream). */
KILN_API uint32_t kiln_random_u32(uint64_t seed, uint64_t stream, uint64_t n);

/* kiln_uint32_to_float01 on the host: (0, 1], the top 24 bits, exact. */
KILN_API float kiln_random_u32_to_float01(uint32_t x);

/* ---- generators --------------------------------------------------------------- */

typedef struct kiln_random_generator kiln_random_generator;

/* Where a generator stands: its key, its stream and the next block. */
typedef struct kiln_random_state {
  uint64_t seed;
  uint64_t stream;
  uint64_t position; /* blocks of 4 words already drawn; < 2^62 */
} kiln_random_state;

/* A generator at stream 0, position 0 of `seed` (NumPy's
 * Generator(Philox(key=seed)) in layout, not in values). The caller owns
 * one reference. Errors: INVALID_ARGUMENT (out NULL), OUT_OF_MEMORY. */
KILN_API kiln_status kiln_random_generator_create(uint64_t seed, kiln_random_generator **out);

/* A generator at *state, e.g. stream = the MPI rank for disjoint streams
 * by construction, or a state saved with kiln_random_generator_state.
 * Errors: INVALID_ARGUMENT (NULL, position >= 2^62), OUT_OF_MEMORY. */
KILN_API kiln_status kiln_random_generator_create_state(const kiln_random_state *state,
                                                        kiln_random_generator **out);

/* Adds a reference; returns gen. */
KILN_API kiln_random_generator *kiln_random_generator_retain(kiln_random_generator *gen);

/* Drops a reference. NULL is ignored. */
KILN_API void kiln_random_generator_release(kiln_random_generator *gen);

/* The generator's state now (a snapshot: other threads may draw on). A
 * NULL gen gives all zeros. */
KILN_API kiln_random_state kiln_random_generator_state(const kiln_random_generator *gen);

/* `count` new generators (children[0..count-1], each one reference to the
 * caller) with gen's seed, position 0 and streams of their own: child k's
 * stream is the first two words of Philox4x32-10 under key {seed low ^
 * 0x53504c54 ("SPLT"), seed high} at counter {s low, s high, stream low,
 * stream high}, s being gen's count of children so far (so children of
 * children differ too; two streams coincide with probability ~2^-64 per
 * pair). gen's position does not move. Errors: INVALID_ARGUMENT (NULL,
 * count < 0), OUT_OF_MEMORY (no child is returned then). */
KILN_API kiln_status kiln_random_generator_split(kiln_random_generator *gen, int count,
                                                 kiln_random_generator **children);

/* Advances gen's position by `blocks` blocks (4 words each), as if a call
 * had drawn them: NumPy's Philox.advance in blocks. Errors:
 * INVALID_ARGUMENT (NULL), OUT_OF_RANGE (past 2^62 blocks: unchanged). */
KILN_API kiln_status kiln_random_generator_jump(kiln_random_generator *gen, uint64_t blocks);

/* ---- distributions -------------------------------------------------------------
 * Floats: float16, float32, float64 outputs (computed in float for
 * float16, then rounded to nearest even). */

/* Uniform in [low, high): low + (high - low) u, u in [0, 1) with 24 (float,
 * float16: 11) or 53 random bits, one fma in the output's precision (as
 * NumPy, rounding may give high itself when high - low is not exact).
 * Errors: low >= high, either not finite. */
KILN_API kiln_status kiln_random_uniform(kiln_random_generator *gen, kiln_context *ctx,
                                         double low, double high, kiln_operand out,
                                         kiln_stream *stream);

/* Standard normal: Box-Muller, both outputs of each pair kept. */
KILN_API kiln_status kiln_random_standard_normal(kiln_random_generator *gen, kiln_context *ctx,
                                                 kiln_operand out, kiln_stream *stream);

/* mean + std z (one fma). Errors: std < 0, mean or std not finite. */
KILN_API kiln_status kiln_random_normal(kiln_random_generator *gen, kiln_context *ctx,
                                        double mean, double std, kiln_operand out,
                                        kiln_stream *stream);

/* exp(mean + sigma z), NumPy's lognormal(mean, sigma). Errors: sigma < 0,
 * mean or sigma not finite. */
KILN_API kiln_status kiln_random_lognormal(kiln_random_generator *gen, kiln_context *ctx,
                                           double mean, double sigma, kiln_operand out,
                                           kiln_stream *stream);

/* scale * (-log u), u in (0, 1]: NumPy's exponential(scale), scale = 1 /
 * rate. Errors: scale < 0 or not finite. */
KILN_API kiln_status kiln_random_exponential(kiln_random_generator *gen, kiln_context *ctx,
                                             double scale, kiln_operand out,
                                             kiln_stream *stream);

/* Integers in [low, high) (endpoint 0) or [low, high] (endpoint 1), every
 * value equally likely (Lemire's multiply with rejection, no modulo bias),
 * for any integer output dtype and bool. NumPy's Generator.integers.
 * Errors: an empty range, a range not inside the dtype's (a float or
 * complex dtype). The _u64 form takes unsigned bounds (uint64 ranges past
 * INT64_MAX). */
KILN_API kiln_status kiln_random_integers(kiln_random_generator *gen, kiln_context *ctx,
                                          int64_t low, int64_t high, int endpoint,
                                          kiln_operand out, kiln_stream *stream);
KILN_API kiln_status kiln_random_integers_u64(kiln_random_generator *gen, kiln_context *ctx,
                                              uint64_t low, uint64_t high, int endpoint,
                                              kiln_operand out, kiln_stream *stream);

/* 1 with probability p, else 0 (p resolved to a multiple of 2^-32: one
 * word x gives x < round(p 2^32)), into bool, integer or float outputs.
 * Errors: p outside [0, 1] or NaN, a complex dtype. */
KILN_API kiln_status kiln_random_bernoulli(kiln_random_generator *gen, kiln_context *ctx,
                                           double p, kiln_operand out, kiln_stream *stream);

/* ---- permutations -------------------------------------------------------------
 * By random keys: n 64-bit keys drawn as kiln_random_integers_u64 over the
 * full range would draw them (so the same on every backend), then their
 * stable order: on ctx's device by kiln's radix sort, or with ctx NULL and
 * a host output by the host generator (qsort); the same permutation either
 * way, bit for bit. */

/* NumPy's Generator.permutation(n): a random ordering of 0..n-1 into a
 * 1-D out of n elements (int64, uint64, or int32/uint32 when n fits),
 * device array or host output; consumes ceil(n / 2) blocks. Errors: out
 * not 1-D, a dtype that cannot hold n - 1. */
KILN_API kiln_status kiln_random_permutation(kiln_random_generator *gen, kiln_context *ctx,
                                             kiln_operand out, kiln_stream *stream);

/* NumPy's Generator.shuffle(x): permutes the device array's elements along
 * axis 0 in place (rows moved as a whole), with the permutation
 * kiln_random_permutation would give for shape[0]. Returns when done.
 * Errors: 0-d or broadcast arrays. */
KILN_API kiln_status kiln_random_shuffle(kiln_random_generator *gen, kiln_array *array,
                                         kiln_stream *stream);

#ifdef __cplusplus
}
#endif
#endif
