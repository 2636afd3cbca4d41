/* core/fft/fft_rows.c: kiln's row kernel: the whole transform of short
 * contiguous rows (n a power of two, FFT_ROWS_MIN to kiln_fft_rows_max) in
 * one kernel, so that each element is read from and written to global
 * memory exactly once (16384 x 1024 complex64: one pass over 256 MiB, where
 * a fused pass of 256 and a radix-4 pass made two).
 *
 * Each row has T = n / E work-items, E the points an item holds (8 or 16);
 * a work-group takes G = W / T whole rows (W items, at least one row). The
 * row's transform is the Stockham sequence of radix-R stages (R = E while
 * it divides what is left, then the rest): at the stage after stages of
 * product q, butterfly v < n / R (item j takes v = j + c T, c < E / R)
 * reads x[v + r n / R], multiplies by exp(sg 2 pi i r k / (q R)), k = v mod
 * q, does an R-point DFT in registers and writes output r to (v - k) R + k
 * + r q. The first stage's inputs are v + r n / R = j + T (c + r E / R):
 * adjacent items read adjacent elements, so they come straight from global
 * memory (coalesced) into registers; the last stage's outputs (q = n / R,
 * k = v) go to v + r q: adjacent items write adjacent elements, straight
 * to global memory. Between stages the values pass through local memory,
 * two buffers in turn (one barrier per stage, not two: a stage writes the
 * buffer the stage before last read, which every item left before the last
 * barrier; rows whose two buffers would pass 48 KiB, 4096 complex64 and
 * 2048 complex128, take one: a stage reads, waits, writes, waits). A group
 * reads all its rows before its first barrier and writes
 * them after its last one, so the kernel also runs in place.
 *
 * A stage's twiddles exp(sg 2 pi i r k / (q R)) are powers of w = exp(sg
 * 2 pi i k / (q R)), entry k n / (q R) of the plan's table of exp(2 pi i
 * t / n), t < n (fft_plan1d.c: the fused pass's table made with S = n;
 * it stays in the L1 / L2 caches): one 8- (16-) byte load per butterfly,
 * the other powers products of two (at most log2 R deep). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/fft/fft_internal.h"

static const char *real_type(fft_precision p) { return p == FFT_DOUBLE ? "double" : "float"; }

int kiln_fft_rows_max(fft_precision p) { return p == FFT_DOUBLE ? 2048 : 4096; }

/* KILN_FFT_ROWS (docs/environment.md): the points per work-item, 8 or 16
 * (unset: FFT_ROWS_PER_ITEM_AUTO, by length), 0 for no row kernel (the
 * fused and radix passes); KILN_FFT_ROWS_GROUP:
 * the work-items per group, 64 to 512 (a power of two). Tuning knobs for
 * measuring, read once per process; -1 when not one of those. */
static pthread_once_t rows_once = PTHREAD_ONCE_INIT;
static int rows_points_setting, rows_group_setting;

static int read_setting(const char *name, int unset, int (*ok)(long)) {
  const char *v = getenv(name);
  if (!v || !*v) return unset;
  char *end = NULL;
  long x = strtol(v, &end, 10);
  return *end == '\0' && ok(x) ? (int)x : -1;
}

static int points_ok(long x) { return x == 0 || x == 8 || x == 16; }
static int group_ok(long x) { return x >= 64 && x <= 512 && (x & (x - 1)) == 0; }

static void rows_read(void) {
  rows_points_setting = read_setting("KILN_FFT_ROWS", FFT_ROWS_PER_ITEM_AUTO, points_ok);
  rows_group_setting = read_setting("KILN_FFT_ROWS_GROUP", FFT_ROWS_GROUP, group_ok);
}

/* The shape of one row kernel. */
typedef struct rows_shape {
  fft_precision p;
  int n, per, items, threads, rows; /* n, E, T = n / E, W, G = W / T */
  int buffers;                      /* local buffers: 2, or 1 (rows of 32 KiB) */
} rows_shape;

/* The local elements apart of a group's rows: n, and T more when a warp
 * (32 items) spans several rows, so that the rows start on different
 * banks (else the rows' items hit the same banks at once: n 32, E 8, 8
 * rows a warp, 8-way conflicts). */
static int row_stride(const rows_shape *s) { return s->n + (s->items < 32 ? s->items : 0); }

/* The buffers' real and imaginary parts: 2 arrays of G rows each. */
static uint64_t local_bytes(const rows_shape *s) {
  return 2ull * (uint64_t)s->buffers * (uint64_t)s->rows * (uint64_t)row_stride(s) *
         (s->p == FFT_DOUBLE ? 8 : 4);
}

/* The most local memory a row kernel's arrays take: the static local
 * arrays' limit of CUDA and HIP (48 KiB, whatever a launch may opt in to
 * for dynamic memory; a kernel over it fails to compile: complex128 rows
 * of 256 in groups of 256 took 64 KiB). */
#define ROWS_LOCAL_LIMIT (48u * 1024u)

/* The shape for `group` items per group: fewer rows per group (and items)
 * while the local arrays pass ROWS_LOCAL_LIMIT; at least one row, and one
 * buffer where a row's two pass it (4096 complex64, 2048 complex128: 32
 * KiB a buffer). */
static rows_shape shape_of(fft_precision p, int n, int per, int group) {
  rows_shape s = {p, n, per, n / per, group, 1, 2};
  if (s.items > group) s.threads = s.items;
  s.rows = s.threads / s.items;
  while (s.rows > 1 && local_bytes(&s) > ROWS_LOCAL_LIMIT) {
    s.rows /= 2;
    s.threads = s.rows * s.items;
  }
  if (local_bytes(&s) > ROWS_LOCAL_LIMIT) s.buffers = 1;
  return s;
}

/* Groups a CUDA / HIP compute unit should hold (KILN_GROUP_BOUNDS): 1024
 * items of 8 float points (64 registers), 512 otherwise. */
static int groups_per_unit(const rows_shape *s) {
  int items = s->p == FFT_SINGLE && s->per == 8 ? 1024 : 512;
  return items / s->threads > 0 ? items / s->threads : 1;
}

kiln_status kiln_fft_rows_points(const kiln_context *ctx, fft_precision p, int64_t n,
                                 int *per) {
  pthread_once(&rows_once, rows_read);
  *per = 0;
  if (rows_points_setting < 0)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "KILN_FFT_ROWS=%s: expected 0, 8 or 16", getenv("KILN_FFT_ROWS"));
  if (rows_group_setting < 0)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "KILN_FFT_ROWS_GROUP=%s: expected a power of two from 64 to 512",
                          getenv("KILN_FFT_ROWS_GROUP"));
  if (rows_points_setting == 0 || n < FFT_ROWS_MIN || n > kiln_fft_rows_max(p) || (n & (n - 1)))
    return KILN_OK;
  /* unset: 8 points per item, 16 for complex64 rows of 2048 and 4096
   * (H200, fft_rows_bench: 0.077 / 0.084 ms against 0.083 / 0.091 with 8;
   * 16 on 32-point rows: 0.198 against 0.081) */
  const int points = rows_points_setting != FFT_ROWS_PER_ITEM_AUTO ? rows_points_setting
                     : p == FFT_SINGLE && n >= 2048                 ? 16
                                                                    : FFT_ROWS_PER_ITEM;
  rows_shape s = shape_of(p, (int)n, points, rows_group_setting);
  if (ctx->info.local_memory >= local_bytes(&s) &&
      ctx->info.max_work_group_size >= (uint64_t)s.threads)
    *per = points;
  return KILN_OK;
}

static void rows_entry(char *out, size_t size, const rows_shape *s) {
  snprintf(out, size, "kiln_fft_rows_%s_n%d_e%d_w%d%s", s->p == FFT_DOUBLE ? "f64" : "f32", s->n,
           s->per, s->threads, s->buffers == 1 ? "_b1" : "");
}

static int log2_of(int x) {
  int k = 0;
  while ((1 << k) < x) k++;
  return k;
}

/* One stage: radix R after stages of product q, from the registers g<e>
 * (the first) or local buffer `from`, to local buffer `to` or (the last)
 * the row in dst. Local element x of a row lies at x ^ ((x >> w) & 31),
 * w = log2 of the radix of the stage that wrote the buffer (in_shift for
 * the reads, log2 R for the writes): the writes go at stride R (q = 1: R
 * items 32 words apart, an R-way bank conflict in plain order) and this
 * swizzle, a bijection on each row (n >= 32) that moves only the low 5
 * bits, spreads both them and the next stage's reads over the 32 banks
 * (a model of every stage's accesses, docs/fft.md). With one buffer
 * (from == to) every item reads all its inputs of the stage, then a
 * barrier, then the writes: two barriers a stage instead of one. */
static void append_stage(kiln_strbuf *b, const rows_shape *s, int R, int q, int first, int last,
                         int from, int to, int in_shift) {
  const char *T = real_type(s->p);
  const int C = s->per / R, n = s->n, stride = n / R, one = s->buffers == 1 && !first;
  kiln_strbuf_appendf(b, "  { /* stage: radix %d after %d */\n", R, q);
  for (int c = 0; c < C && one; c++)
    for (int t = 0; t < R; t++)
      kiln_strbuf_appendf(b,
                          "    %s a%d_%d, b%d_%d; { const int x = j0 + %d, i = base + (x ^ ((x >> "
                          "%d) & 31)); a%d_%d = lr%d[i]; b%d_%d = li%d[i]; }\n",
                          T, c, t, c, t, c * s->items + t * stride, in_shift, c, t, from, c, t,
                          from);
  if (one && !last) kiln_strbuf_append(b, "    kiln_barrier();\n");
  for (int c = 0; c < C; c++) {
    kiln_strbuf_appendf(b, "    {\n      const int v = j0 + %d, k = v & %d;\n", c * s->items,
                        q - 1);
    for (int t = 0; t < R; t++) {
      if (first)
        kiln_strbuf_appendf(b, "      %s xr%d = gr%d, xi%d = gi%d;\n", T, t, c + t * C, t,
                            c + t * C);
      else if (one)
        kiln_strbuf_appendf(b, "      %s xr%d = a%d_%d, xi%d = b%d_%d;\n", T, t, c, t, t, c, t);
      else
        kiln_strbuf_appendf(b,
                            "      %s xr%d, xi%d; { const int x = v + %d, i = base + (x ^ ((x >> "
                            "%d) & 31)); xr%d = lr%d[i]; xi%d = li%d[i]; }\n",
                            T, t, t, t * stride, in_shift, t, from, t, from);
    }
    if (q > 1) {
      /* w_1 = exp(sg 2 pi i k / (q R)) from the table; w_t = w_p w_(t-p),
       * p the largest power of two below t, or w_(t/2)^2 (at most log2 R
       * products deep: a few ulps); one load, not R - 1: the table loads
       * of a warp touch several lines each (k * n / (q R) apart) and took
       * more of the L1's throughput than the local-memory exchanges */
      kiln_strbuf_appendf(b,
                          "      %s wr1, wi1; KILN_FFT_LOAD(tw + 2 * (k * %d), wr1, wi1); "
                          "wi1 *= sg;\n",
                          T, n / (q * R));
      for (int t = 2; t < R; t++) {
        int p = 1;
        while (2 * p < t) p *= 2;
        kiln_fft_append_twiddle_product(b, s->p, t, p);
      }
      kiln_fft_append_twiddle_apply(b, s->p, R);
    }
    kiln_fft_append_dft(b, s->p, R);
    for (int t = 0; t < R; t++) {
      if (last)
        kiln_strbuf_appendf(b, "      if (ok) KILN_FFT_STORE(y + %d, yr%d * scale, yi%d * scale);\n",
                            2 * (c * s->items + t * stride), t, t);
      else
        kiln_strbuf_appendf(b,
                            "      { const int x = (v - k) * %d + k + %d, o = base + (x ^ ((x >> "
                            "%d) & 31)); lr%d[o] = yr%d; li%d[o] = yi%d; }\n",
                            R, t * q, log2_of(R), to, t, to, t);
    }
    kiln_strbuf_append(b, "    }\n");
  }
  if (!last) kiln_strbuf_append(b, "    kiln_barrier();\n");
  kiln_strbuf_append(b, "  }\n");
}

static kiln_status rows_source(void *data, kiln_strbuf *b) {
  const rows_shape *s = data;
  const char *T = real_type(s->p);
  const int n = s->n, E = s->per, size = s->rows * row_stride(s);
  char entry[80];
  rows_entry(entry, sizeof entry, s);
  kiln_strbuf_appendf(b,
                      /* a complex element as one 8- (16-) byte access: the
                       * rows and the table are aligned */
                      "#define KILN_FFT_LOAD(p, re, im) { const %s2 v_ = "
                      "*(KILN_GLOBAL const %s2 *)(p); re = v_.x; im = v_.y; }\n"
                      "#define KILN_FFT_STORE(p, re, im) { %s2 o_; o_.x = (re); o_.y = (im); "
                      "*(KILN_GLOBAL %s2 *)(p) = o_; }\n",
                      T, T, T, T);
  kiln_strbuf_appendf(b,
                      "KILN_KERNEL KILN_GROUP_BOUNDS(%d, %d) void %s(KILN_GLOBAL const %s *src, "
                      "KILN_GLOBAL %s *dst, KILN_GLOBAL const %s *tw, %s sg, %s scale, "
                      "int64_t rows) {\n",
                      s->threads, groups_per_unit(s), entry, T, T, T, T, T);
  for (int i = 0; i < s->buffers; i++)
    kiln_strbuf_appendf(b, "  KILN_LOCAL_ARRAY(%s, lr%d, %d);\n  KILN_LOCAL_ARRAY(%s, li%d, %d);\n",
                        T, i, size, T, i, size);
  kiln_strbuf_appendf(b,
                      "  const int tid = (int)kiln_local_id(0), g = tid / %d, j0 = tid - g * %d;\n"
                      "  const int base = g * %d;\n"
                      "  const int64_t row = kiln_group_id(0) * %d + g;\n"
                      "  const int ok = row < rows;\n"
                      "  KILN_GLOBAL const %s *x = src + 2 * (row * %d + j0);\n"
                      "  KILN_GLOBAL %s *y = dst + 2 * (row * %d + j0);\n",
                      s->items, s->items, row_stride(s), s->rows, T, n, T, n);
  /* every global load first (E in flight per item), then the stages */
  for (int e = 0; e < E; e++)
    kiln_strbuf_appendf(b, "  %s gr%d = (%s)0, gi%d = (%s)0;\n", T, e, T, e, T);
  kiln_strbuf_append(b, "  if (ok) {\n");
  for (int e = 0; e < E; e++)
    kiln_strbuf_appendf(b, "    KILN_FFT_LOAD(x + %d, gr%d, gi%d);\n", 2 * e * s->items, e, e);
  kiln_strbuf_append(b, "  }\n");
  int q = 1, stage = 0, shift = 0;
  while (q < n) {
    int R = E;
    while (n % (q * R)) R /= 2;
    const int last = q * R == n;
    append_stage(b, s, R, q, stage == 0, last, (stage + 1) % s->buffers, stage % s->buffers,
                 shift);
    shift = log2_of(R);
    q *= R;
    stage++;
  }
  kiln_strbuf_append(b, "}\n");
  return kiln_strbuf_status(b);
}

/* The row kernel's shape and compiled program for rows of n, `per` points
 * per work-item. */
static kiln_status rows_program(kiln_context *ctx, fft_precision p, int64_t n, int per,
                                rows_shape *s, kiln_program **program) {
  pthread_once(&rows_once, rows_read);
  *s = shape_of(p, (int)n, per, rows_group_setting);
  char entry[80];
  rows_entry(entry, sizeof entry, s);
  return kiln_fft_program(ctx, entry, rows_source, s, program);
}

kiln_status kiln_fft_rows_runs(kiln_context *ctx, fft_precision p, int64_t n, int per,
                               int *runs) {
  rows_shape s;
  kiln_program *program = NULL;
  KILN_RETURN_IF_ERROR(rows_program(ctx, p, n, per, &s, &program));
  *runs = program->max_work_group_size >= (uint64_t)s.threads;
  return KILN_OK;
}

kiln_status kiln_fft_launch_rows(kiln_context *ctx, kiln_stream *stream, fft_precision precision,
                                 int64_t n, int per, kiln_backend_arg src, kiln_backend_arg dst,
                                 kiln_backend_arg twiddles, int sign, double scale,
                                 int64_t batch) {
  rows_shape s;
  kiln_program *program = NULL;
  KILN_RETURN_IF_ERROR(rows_program(ctx, precision, n, per, &s, &program));
  if (program->max_work_group_size < (uint64_t)s.threads)
    return kiln_error_set(KILN_ERROR_UNIMPLEMENTED,
                          "fft: the row kernel needs work-groups of %d items; the device runs "
                          "at most %llu",
                          s.threads, (unsigned long long)program->max_work_group_size);
  const int64_t groups = (batch + s.rows - 1) / s.rows, ints[2] = {0, 0};
  fft_sign_scale values;
  kiln_backend_arg args[8] = {src, dst, twiddles};
  /* (the scalar helper's two int64 first: only its sign and scale are
   * passed) */
  kiln_backend_arg scalars[4];
  kiln_fft_scalar_args(precision, ints, sign, scale, &values, scalars);
  args[3] = scalars[2];
  args[4] = scalars[3];
  args[5] = (kiln_backend_arg){.kind = KILN_BACKEND_ARG_SCALAR, .value = &batch, .size = 8};
  kiln_backend_launch grid = {.work_dim = 1,
                              .global = {(uint64_t)groups * (uint64_t)s.threads, 1, 1},
                              .local = {(uint64_t)s.threads, 1, 1}};
  return kiln_program_launch(ctx, program, stream, &grid, 6, args);
}

/* The row kernels that the compile checks build: the bench's 1024 (float),
 * the longest of each precision (one local buffer), the shortest, and 16
 * points per item. */
kiln_status kiln_fft_rows_catalog_add(kiln_catalog *catalog) {
  static const struct {
    fft_precision p;
    int n, per;
  } shapes[] = {{FFT_SINGLE, 1024, 8},  {FFT_SINGLE, 4096, 8}, {FFT_SINGLE, 32, 8},
                {FFT_SINGLE, 1024, 16}, {FFT_DOUBLE, 1024, 8}, {FFT_DOUBLE, 2048, 8},
                {FFT_DOUBLE, 64, 16}};
  kiln_status status = KILN_OK;
  for (size_t i = 0; i < sizeof shapes / sizeof shapes[0] && status == KILN_OK; i++) {
    rows_shape s = shape_of(shapes[i].p, shapes[i].n, shapes[i].per, FFT_ROWS_GROUP);
    kiln_strbuf source = {0};
    status = rows_source(&s, &source);
    char name[80];
    snprintf(name, sizeof name, "fft row kernel (%s, n %d, %d per item)",
             shapes[i].p ? "double" : "float", shapes[i].n, shapes[i].per);
    if (status == KILN_OK) status = kiln_catalog_add(catalog, name, kiln_strbuf_text(&source));
    kiln_strbuf_free(&source);
  }
  return status;
}
