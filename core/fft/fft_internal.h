/* core/fft/fft_internal.h: kiln's FFT below the public calls (internal).
 *
 * Every transform is a sequence of 1-D transforms along one axis each. A
 * 1-D transform runs on a contiguous work array of `batch` rows of n
 * complex elements (float or double parts, interleaved), made and read back
 * by fft.c with element-wise copies (which do the crop/zero-pad, casts and
 * any strides). fft_plan1d.c plans the length n: a Stockham auto-sort
 * sequence of radix passes (2, 3, 4, 5, 7, 8, 11, 13, 16), or Bluestein's
 * chirp-z convolution over a power of two when n has a larger prime
 * factor. Plans are kept per context in a bounded cache (fft_cache.c). */
#ifndef KILN_CORE_FFT_INTERNAL_H
#define KILN_CORE_FFT_INTERNAL_H

#include <stdatomic.h>

#include "core/array/array_internal.h"
#include "core/kernel/kernel_catalog.h"
#include "core/kernel/kernel_internal.h"

#define FFT_MAX_PASSES 64
/* Largest prime a Stockham pass takes directly (its butterfly is a dense
 * R x R DFT); a larger prime factor sends n to Bluestein. */
#define FFT_MAX_DIRECT_PRIME 13

/* The element precision: 0 float (complex64), 1 double (complex128). */
typedef enum fft_precision { FFT_SINGLE = 0, FFT_DOUBLE = 1 } fft_precision;

typedef struct fft_plan1d fft_plan1d;
struct fft_plan1d {
  atomic_int refcount;
  kiln_context *ctx; /* borrowed: a plan never outlives its context */
  int64_t n;
  fft_precision precision;
  int npasses;
  int radix[FFT_MAX_PASSES];
  /* fused[p]: pass p is a fused pass of radix[p] points (fft_fused.c),
   * reading twiddles from the plan's table: exp(2 pi i t / n) for t <
   * 2^twiddle_shift, then for t = h 2^twiddle_shift (NULL: no fused pass) */
  int fused[FFT_MAX_PASSES];
  kiln_backend_buffer *twiddles;
  int64_t twiddle_shift;
  /* rows_per > 0: contiguous rows (not the column form) run as one row
   * kernel of rows_per points per work-item (fft_rows.c), the twiddle
   * table then exp(2 pi i t / n) for every t < n (twiddle_shift log2 n) */
  int rows_per;
  /* Bluestein (npasses == 0 and n > 1): the convolution length m (a power
   * of two >= 2n - 1), its own plan, and the transformed chirp filter for
   * each direction ([0] forward, [1] inverse), m complex elements each. */
  int64_t m;
  fft_plan1d *sub;
  kiln_backend_buffer *filter[2];
  /* A vendor library's plan instead (vendor != NULL): its transform type,
   * for `batch` rows, needing work_bytes of scratch per execution; rank 2
   * or 3: a multi-dimensional one, each item outer[0] (x outer[1]) x n. */
  kiln_backend_fft_plan *vendor;
  kiln_backend_fft_type vendor_type;
  int64_t batch;
  int rank;
  int64_t outer[2];
  size_t work_bytes;
  /* LRU links of the context's cache */
  fft_plan1d *prev, *next;
};

/* The plan for length n >= 1 at `precision` on ctx, from the context's
 * cache or made (and cached); one reference for the caller. vendor_type 0:
 * kiln's own (any batch; batch ignored); else the backend's library plan
 * of that type for `batch` rows (errors of ops->fft_plan_create), of rank
 * 2 or 3 (outer: the rank - 1 slower lengths) when rank > 1. */
kiln_status kiln_fft_plan1d_get(kiln_context *ctx, int64_t n, fft_precision precision,
                                int vendor_type, int64_t batch, int rank,
                                const int64_t *outer, fft_plan1d **out);
void kiln_fft_plan1d_release(fft_plan1d *plan);

/* Makes a plan (not cached): factorisation, and for Bluestein the sub-plan
 * (asked of get_sub, the cache's kiln_fft_plan1d_get: passed in so that the
 * plans do not call back into the cache that calls them, no call circle)
 * and the filters (computed on the default stream, waited for). */
typedef kiln_status (*kiln_fft_plan1d_get_fn)(kiln_context *ctx, int64_t n,
                                              fft_precision precision, int vendor_type,
                                              int64_t batch, int rank, const int64_t *outer,
                                              fft_plan1d **out);
kiln_status kiln_fft_plan1d_make(kiln_context *ctx, int64_t n, fft_precision precision,
                                 int vendor_type, int64_t batch, int rank, const int64_t *outer,
                                 kiln_fft_plan1d_get_fn get_sub, fft_plan1d **out);

/* Transforms `batch` rows of plan->n elements in `work` (contiguous, the
 * array's own buffer and offset) in place: sign -1 forward, +1 inverse,
 * every output multiplied by scale. Queued on stream. */
kiln_status kiln_fft_plan1d_run(const fft_plan1d *plan, kiln_stream *stream, int sign,
                                double scale, int64_t batch, kiln_array *work);

/* As kiln_fft_plan1d_run from the rows of `in` (contiguous, only read
 * unless it is out) into the rows of `out` (contiguous; not overlapping
 * in unless the same): the caller's arrays go to the passes without
 * copies. */
kiln_status kiln_fft_plan1d_run_into(const fft_plan1d *plan, kiln_stream *stream, int sign,
                                     double scale, int64_t batch, const kiln_array *in,
                                     kiln_array *out);

/* Whether plan runs in the column form (kiln_fft_plan1d_run_columns):
 * kiln's own Stockham passes (not Bluestein, not a library's). */
int kiln_fft_plan1d_has_columns(const fft_plan1d *plan);

/* As kiln_fft_plan1d_run_into along the middle axis of in and out, each
 * batch / inner blocks of n x inner contiguous elements (an axis that is
 * not the last, transformed where it lies: no transposing copies). */
kiln_status kiln_fft_plan1d_run_columns(const fft_plan1d *plan, kiln_stream *stream, int sign,
                                        double scale, int64_t batch, int64_t inner,
                                        const kiln_array *in, kiln_array *out);

/* ---- kernels (fft_kernels.c) ------------------------------------------- */

/* One Stockham pass of radix r over `batch` rows of n elements: src -> dst.
 * inner 1: contiguous rows; inner > 1: the column form, batch / inner
 * blocks of n x inner, row c of a block its column c (element i at
 * i inner + c). */
kiln_status kiln_fft_launch_pass(kiln_context *ctx, kiln_stream *stream,
                                 fft_precision precision, int radix,
                                 kiln_backend_arg src, kiln_backend_arg dst, int64_t n,
                                 int64_t ns, int sign, double scale, int64_t batch,
                                 int64_t inner);

/* The helper kernels, by entry point (fft_kernels.c lists their arguments). */
typedef enum fft_helper {
  FFT_CHIRP_IN,   /* dst[b,k] = k < n ? src[b,k] w_k : 0, rows of m from rows of n */
  FFT_CHIRP_OUT,  /* dst[b,k] = src[b,k] w_k scale, rows of n from rows of m */
  FFT_CHIRP_FILTER, /* dst[k] = conj(w_k) for k < n, conj(w_{m-k}) for m-k < n, else 0 */
  FFT_MULTIPLY,   /* x[b,k] *= h[k], rows of m */
  FFT_SCALE,      /* a[i] *= scale, over count real numbers */
  FFT_HERMITIAN,  /* rows of n: x[k] = conj(x[n-k]) for k > n/2, imaginary parts of
                     x[0] (and x[n/2], n even) zeroed, as NumPy's irfft reads them */
  FFT_REAL_POST,  /* b rows of n/2 + 1 <- a rows of n/2: the r2c split (fft_real.c) */
  FFT_REAL_PRE,   /* b rows of n/2 <- a rows of n/2 + 1: the c2r join (fft_real.c) */
  FFT_HELPER_COUNT
} fft_helper;

/* Launches helper `which` over `count` elements with the given buffer
 * arguments (nbuffers of them, first) and int64 n, m; sign and scale as
 * the kernel takes them (ignored by those that do not). */
kiln_status kiln_fft_launch_helper(kiln_context *ctx, kiln_stream *stream,
                                   fft_precision precision, fft_helper which, int nbuffers,
                                   const kiln_backend_arg *buffers, int64_t n, int64_t m,
                                   int sign, double scale, int64_t count);

/* ---- real transforms of even length (fft_real.c) ---------------------- */

/* r2c (forward != 0) or c2r of even length n along `axis` of src into dst
 * (any views; dst of the result's shape) through `half`, a plan of n/2 of
 * kiln's own: the input cropped or zero-padded, every output multiplied
 * by scale. Queued on stream. */
kiln_status kiln_fft_real_half_step(kiln_context *ctx, kiln_stream *stream,
                                    const fft_plan1d *half, int forward, int sign, double scale,
                                    const kiln_array *src, int axis, int64_t n, kiln_array *dst);

/* A view of x with its `count` axes moved last in that order, each
 * cropped to lengths[j] when lengths is given and lengths[j] >= 0; with
 * as_real, the real parts of complex x (fft_views.c). */
kiln_status kiln_fft_moved_view_n(const kiln_array *x, int count, const int *axes,
                                  const int64_t *lengths, int as_real, kiln_array **out);

/* kiln_fft_moved_view_n of one axis (length < 0: uncropped). */
kiln_status kiln_fft_moved_view(const kiln_array *x, int axis, int64_t length, int as_real,
                                kiln_array **out);

/* What a generated pass kernel depends on: the precision and its points
 * (the radix of a pass; a fused pass's L). The generators' data. */
typedef struct fft_source_args {
  fft_precision precision;
  int points;
  int strided; /* a pass's column form (kiln_fft_launch_pass, inner > 1) */
} fft_source_args;

/* The compiled program of FFT kernel `entry` on ctx (keyed by its name in
 * the context's cache; the source generated only on a miss). */
kiln_status kiln_fft_program(kiln_context *ctx, const char *entry,
                             kiln_source_generator generate, void *data, kiln_program **out);

/* The scalar arguments every FFT kernel takes after its buffers: int64
 * ints[0], ints[1], then sign and scale in the precision's real type
 * (stored in *values, which must outlive the launch), into args[0..3]. */
typedef struct fft_sign_scale {
  float sign32, scale32;
  double sign64, scale64;
} fft_sign_scale;
void kiln_fft_scalar_args(fft_precision precision, const int64_t *ints, int sign, double scale,
                          fft_sign_scale *values, kiln_backend_arg *args);

/* ---- fused passes (fft_fused.c) ----------------------------------------- */

/* The points of a fused pass (the kernel takes any power of two from 16
 * to the local elements / 4; the plans use this one). */
#define FFT_FUSED_POINTS 256

/* Complex elements in local memory per work-group of a fused pass, and
 * the local bytes it takes (the plan fuses only where the device has them). */
int kiln_fft_fused_elements(fft_precision p);
/* Work-items per group of a fused pass: the elements / the points each
 * takes (FFT_FUSED_PER_ITEM). */
#define FFT_FUSED_PER_ITEM 8
int kiln_fft_fused_threads(fft_precision p);
uint64_t kiln_fft_fused_local_bytes(fft_precision p, int length);

/* One fused Stockham pass of radix `length` (a power of two, 16 to
 * kiln_fft_fused_elements / 4) over `batch` rows of n: src -> dst,
 * twiddles the plan's table; inner as kiln_fft_launch_pass (1: rows). */
kiln_status kiln_fft_launch_fused(kiln_context *ctx, kiln_stream *stream,
                                  fft_precision precision, int length, kiln_backend_arg src,
                                  kiln_backend_arg dst, kiln_backend_arg twiddles, int64_t n,
                                  int64_t ns, int sign, double scale, int64_t batch,
                                  int64_t shift, int64_t inner);

/* Compiles the fused pass of `length` points for ctx (kept for its
 * launches) and says in *runs whether the device runs it: a compiler may
 * allow it fewer work-items than it needs (NVIDIA's OpenCL: 256 of the
 * float pass's 512, for its registers), and a plan then takes radix
 * passes instead. */
kiln_status kiln_fft_fused_runs(kiln_context *ctx, fft_precision precision, int length,
                                int *runs);

/* The fused pass's source. */
kiln_status kiln_fft_fused_source(fft_precision precision, int length, kiln_strbuf *source);

/* Adds the fused passes (float and double) to the catalog of the compile
 * checks (core/catalog). */
kiln_status kiln_fft_fused_catalog_add(kiln_catalog *catalog);

/* ---- whole short rows in one kernel (fft_rows.c) ------------------------ */

/* The row kernel's lengths: powers of two from FFT_ROWS_MIN to
 * kiln_fft_rows_max (4096 complex64, 2048 complex128: one buffer of a row
 * in 32 KiB of local memory); its default points per work-item (KILN_FFT_ROWS)
 * and work-items per group (KILN_FFT_ROWS_GROUP). */
#define FFT_ROWS_MIN 32
#define FFT_ROWS_PER_ITEM 8
#define FFT_ROWS_PER_ITEM_AUTO 1 /* KILN_FFT_ROWS unset: 16 for complex64 n >= 2048 */
#define FFT_ROWS_GROUP 128
int kiln_fft_rows_max(fft_precision p);

/* The points per work-item of the row kernel for rows of n at precision p
 * on ctx (0: n is not a row kernel length, the device lacks the local
 * memory or group size, or KILN_FFT_ROWS=0); a bad KILN_FFT_ROWS or
 * KILN_FFT_ROWS_GROUP is INVALID_ARGUMENT naming it. */
kiln_status kiln_fft_rows_points(const kiln_context *ctx, fft_precision p, int64_t n, int *per);

/* The row kernel over `batch` contiguous rows of n from src to dst (the
 * same place allowed), `per` points per work-item, twiddles the plan's
 * full table; sign and scale as the passes. Queued on stream. */
kiln_status kiln_fft_launch_rows(kiln_context *ctx, kiln_stream *stream, fft_precision precision,
                                 int64_t n, int per, kiln_backend_arg src, kiln_backend_arg dst,
                                 kiln_backend_arg twiddles, int sign, double scale,
                                 int64_t batch);

/* As kiln_fft_fused_runs for the row kernel of rows of n, `per` points per
 * work-item. */
kiln_status kiln_fft_rows_runs(kiln_context *ctx, fft_precision p, int64_t n, int per,
                               int *runs);

/* Adds row kernels of a few lengths to the compile checks' catalog. */
kiln_status kiln_fft_rows_catalog_add(kiln_catalog *catalog);

/* Appends the twiddle w_r = w_a w_(r-a) (new wr<r>, wi<r> from wr<a>,
 * wr<r-a>, ...), and the products x_r *= w_r for 0 < r < radix. */
void kiln_fft_append_twiddle_product(kiln_strbuf *b, fft_precision p, int r, int a);
void kiln_fft_append_twiddle_apply(kiln_strbuf *b, fft_precision p, int radix);

/* Appends the R-point DFT y_k = sum_j x_j W^(jk), W = exp(sg 2 pi i / R),
 * of xr<j>, xi<j> into new yr<k>, yi<k>, constants written out. */
void kiln_fft_append_dft(kiln_strbuf *b, fft_precision p, int radix);

/* Every FFT kernel source, for the offline compile checks (core/catalog). */
kiln_status kiln_fft_catalog_add(kiln_catalog *catalog);

#endif
