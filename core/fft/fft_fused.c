/* core/fft/fft_fused.c: kiln's fused Stockham pass: one radix-L pass (the
 * plans take L = 256; the generator takes any power of two from 16 to
 * E/4) whose L-point DFTs run in local memory as radix-16 (8, 4, 2)
 * stages, so that a pass reads and writes the rows once for log2(L)
 * radix-2 steps (2^24 points: 3 passes over memory, not the 6 of radix-16
 * passes).
 *
 * The pass is the radix-R Stockham pass of fft_kernels.c with R = L:
 * column j < m = n / L of a row reads x[j + r m] (r < L), multiplies by
 * exp(sg 2 pi i r k / (ns L)), k = j mod ns, does an L-point DFT and
 * writes output r to (j - k) L + k + r ns. A work-group takes B = E / L
 * consecutive columns (E elements of local memory): it loads them (the B
 * columns' elements are adjacent in memory, so a load of B x L is
 * coalesced; with m < B, L consecutive elements of one column are), runs
 * the L-point DFTs as Stockham stages in local memory (each of the E/16
 * work-items does 16 / R radix-R butterflies per stage, between barriers)
 * and stores them (adjacent for ns >= B, else per column).
 *
 * Twiddles come from a table of the plan (fft_plan1d.c): exp(2 pi i t /
 * n) = lo[t mod S] * hi[t / S], S a power of two near sqrt(n), two small
 * tables (2 sqrt(n) entries) that stay in cache, instead of sin / cos per
 * element. */
#include <math.h>
#include <stdio.h>

#include "core/fft/fft_internal.h"

static const char *real_type(fft_precision p) { return p == FFT_DOUBLE ? "double" : "float"; }

/* A literal of the precision's type. */
static void append_real(kiln_strbuf *b, fft_precision p, double v) {
  if (p == FFT_DOUBLE) kiln_strbuf_appendf(b, "%.17e", v);
  else kiln_strbuf_appendf(b, "%.9ef", v);
}

int kiln_fft_fused_elements(fft_precision p) { return p == FFT_DOUBLE ? 2048 : 4096; }

/* Points per work-item: the largest stage radix, and the registers a
 * stage holds (a stage loads PER complex values, then transforms them).
 * 16 held 96 registers (float) and 161 (double) on sm_90: 25% and 18.75%
 * occupancy, the pass latency-bound at ~21% of the H200's bandwidth
 * (ncu); 8 gives twice the work-items per group, each with half the
 * values in flight. */
#define PER FFT_FUSED_PER_ITEM

static int threads_of(fft_precision p) { return kiln_fft_fused_threads(p); }

/* The groups a CUDA / HIP compute unit should hold at once (the register
 * bound of KILN_GROUP_BOUNDS): 2 x 512 items (float, 64 registers) and
 * 3 x 256 (double, <= 85), what sm_90's ptxas gives unbounded; the bound
 * keeps another compiler version from halving the occupancy. */
static int groups_per_unit(fft_precision p) { return p == FFT_DOUBLE ? 3 : 2; }

int kiln_fft_fused_threads(fft_precision p) { return kiln_fft_fused_elements(p) / PER; }

uint64_t kiln_fft_fused_local_bytes(fft_precision p, int length) {
  const int e = kiln_fft_fused_elements(p);
  /* two arrays of E padded reals, three int64 per column (E / L), the
   * stages' twiddle table (2 x L reals) */
  const uint64_t real = p == FFT_DOUBLE ? 8 : 4;
  return 2ull * (uint64_t)(e + e / 32) * real + 3ull * 8 * (uint64_t)(e / length) +
         2ull * (uint64_t)length * real;
}

static void fused_entry(char *out, size_t size, fft_precision p, int length) {
  snprintf(out, size, "kiln_fft_fused_%s_l%d", p == FFT_DOUBLE ? "f64" : "f32", length);
}

/* The radix-R stage after stages of product q, inside the L-point DFTs
 * of the B columns in local memory: read every butterfly's inputs, wait,
 * twiddle, DFT, write, wait. */
static void append_stage(kiln_strbuf *b, fft_precision p, int L, int B, int R, int q) {
  const char *T = real_type(p);
  const int C = PER / R, threads = threads_of(p);
  kiln_strbuf_appendf(b, "  { /* stage: radix %d after %d */\n", R, q);
  for (int c = 0; c < C; c++) {
    kiln_strbuf_appendf(b, "    const int v%d = tid + %d, b%d = v%d %% %d, jj%d = v%d / %d;\n", c,
                        c * threads, c, c, B, c, c, B);
    for (int t = 0; t < R; t++)
      kiln_strbuf_appendf(b,
                          "    const %s ar%d_%d = lr[P((jj%d + %d) * %d + b%d)], "
                          "ai%d_%d = li[P((jj%d + %d) * %d + b%d)];\n",
                          T, c, t, c, t * (L / R), B, c, c, t, c, t * (L / R), B, c);
  }
  kiln_strbuf_append(b, "    kiln_barrier();\n");
  for (int c = 0; c < C; c++) {
    kiln_strbuf_appendf(b, "    {\n      const int k = jj%d %% %d;\n", c, q);
    for (int t = 0; t < R; t++)
      kiln_strbuf_appendf(b, "      %s xr%d = ar%d_%d, xi%d = ai%d_%d;\n", T, t, c, t, t, c, t);
    if (q > 1) {
      /* w_t = exp(sg 2 pi i t k / (q R)): entry t k L / (q R) of the
       * kernel's table of exp(2 pi i j / L) in local memory */
      kiln_strbuf_append(b, "      if (k > 0) {\n");
      for (int t = 1; t < R; t++)
        kiln_strbuf_appendf(b,
                            "        { const int w = %d * k; const %s wr = lw[2 * w], "
                            "wi = sg * lw[2 * w + 1];\n"
                            "          const %s re = xr%d * wr - xi%d * wi;\n"
                            "          xi%d = xr%d * wi + xi%d * wr; xr%d = re; }\n",
                            t * (L / (q * R)), T, T, t, t, t, t, t, t);
      kiln_strbuf_append(b, "      }\n");
    }
    kiln_fft_append_dft(b, p, R);
    for (int t = 0; t < R; t++)
      kiln_strbuf_appendf(b,
                          "      { const int o = P(((jj%d - k) * %d + k + %d) * %d + b%d); "
                          "lr[o] = yr%d; li[o] = yi%d; }\n",
                          c, R, t * q, B, c, t, t);
    kiln_strbuf_append(b, "    }\n");
  }
  kiln_strbuf_append(b, "    kiln_barrier();\n  }\n");
}

static kiln_status fused_source(void *data, kiln_strbuf *b) {
  const fft_source_args *a = data;
  const fft_precision p = a->precision;
  const char *T = real_type(p);
  const int L = a->points, E = kiln_fft_fused_elements(p), B = E / L, threads = threads_of(p);
  char entry[64];
  fused_entry(entry, sizeof entry, p, L);
  kiln_strbuf_appendf(b,
                      /* local index with one word of padding per 32: the
                       * per-column loads and stores go at stride B, which
                       * the padding spreads over the banks */
                      "#define P(x) ((x) + ((x) >> 5))\n"
                      /* a complex element as one 8- (16-) byte access:
                       * the rows the passes get are aligned */
                      "#define KILN_FFT_LOAD(p, re, im) { const %s2 v_ = "
                      "*(KILN_GLOBAL const %s2 *)(p); re = v_.x; im = v_.y; }\n"
                      "#define KILN_FFT_STORE(p, re, im) { %s2 o_; o_.x = (re); o_.y = (im); "
                      "*(KILN_GLOBAL %s2 *)(p) = o_; }\n"
                      "KILN_DEVICE void kiln_fft_tw(KILN_GLOBAL const %s *tw, int64_t t, "
                      "int64_t shift, %s sg, %s *c, %s *s) {\n"
                      "  const int64_t lo = t & (((int64_t)1 << shift) - 1);\n"
                      "  const int64_t hi = (t >> shift) + ((int64_t)1 << shift);\n"
                      "  %s ar, ai, br, bi;\n"
                      "  KILN_FFT_LOAD(tw + 2 * lo, ar, ai); KILN_FFT_LOAD(tw + 2 * hi, br, bi);\n"
                      "  *c = ar * br - ai * bi; *s = sg * (ar * bi + ai * br);\n"
                      "}\n",
                      T, T, T, T, T, T, T, T, T);
  /* exp(2 pi i j / L), j < L: the stages' twiddles */
  kiln_strbuf_appendf(b, "KILN_CONSTANT const %s kiln_fft_w%d[%d] = {", T, L, 2 * L);
  for (int j = 0; j < L; j++) {
    kiln_strbuf_append(b, j ? ", " : "");
    append_real(b, p, cos(2.0 * M_PI * j / L));
    kiln_strbuf_append(b, ", ");
    append_real(b, p, sin(2.0 * M_PI * j / L));
  }
  kiln_strbuf_append(b, "};\n");
  kiln_strbuf_appendf(b,
                      "KILN_KERNEL KILN_GROUP_BOUNDS(%d, %d) void %s(KILN_GLOBAL const %s *src, "
                      "KILN_GLOBAL %s *dst, "
                      "KILN_GLOBAL const %s *tw, int64_t n, int64_t ns, %s sg, %s scale, "
                      "int64_t total, int64_t shift, int64_t inner) {\n"
                      "  KILN_LOCAL_ARRAY(%s, lr, %d);\n"
                      "  KILN_LOCAL_ARRAY(%s, li, %d);\n"
                      "  KILN_LOCAL_ARRAY(int64_t, lin, %d);\n"
                      "  KILN_LOCAL_ARRAY(int64_t, lout, %d);\n"
                      "  KILN_LOCAL_ARRAY(int64_t, lk, %d);\n"
                      "  KILN_LOCAL_ARRAY(%s, lw, %d);\n"
                      "  const int tid = (int)kiln_local_id(0);\n"
                      "  for (int j = tid; j < %d; j += %d) lw[j] = kiln_fft_w%d[j];\n"
                      "  const int64_t u0 = kiln_group_id(0) * %d, m = n / %d, "
                      "stride = n / (ns * %d), mi = m * inner, nsi = ns * inner;\n"
                      "  for (int b = tid; b < %d; b += %d) {\n"
                      "    const int64_t u = u0 + b, q = u / inner, c = u - q * inner;\n"
                      "    const int64_t row = q / m, j = q - row * m, k = j %% ns;\n"
                      "    lin[b] = (row * n + j) * inner + c; lk[b] = k;\n"
                      "    lout[b] = (row * n + (j - k) * %d + k) * inner + c;\n"
                      "  }\n"
                      "  kiln_barrier();\n",
                      threads, groups_per_unit(p), entry, T, T, T, T, T, T, E + E / 32, T, E + E / 32, B, B, B, T, 2 * L,
                      2 * L, threads, L, B, L, L, B, threads, L);
  /* load (and the pass's twiddle) into local index r B + b = e: with
   * m >= B the work-items take adjacent columns (item tid: column tid mod
   * B, points tid / B + c T / B), one pointer stepped per point; else
   * adjacent points of a column */
  const int per = threads / B; /* points apart of one item's loads */
  kiln_strbuf_appendf(b,
                      "  if (m >= %d || inner >= %d) {\n"
                      "    const int b = tid %% %d, r0 = tid / %d;\n"
                      "    const int ok = u0 + b < total;\n"
                      "    const int64_t step = 2 * %d * mi;\n"
                      "    KILN_GLOBAL const %s *x = src + 2 * (lin[b] + (int64_t)r0 * mi);\n"
                      "    int64_t t = (int64_t)r0 * lk[b] * stride;\n"
                      "    const int64_t tstep = (int64_t)%d * lk[b] * stride;\n",
                      B, B, B, B, per, T, per);
  /* every global load of an item first, into registers, then the local
   * stores: a load after a local store may not be moved above it (the
   * compiler cannot rule out that the global pointer aliases local
   * memory), so interleaved, the PER loads went one DRAM latency each */
  for (int c = 0; c < PER; c++)
    kiln_strbuf_appendf(b, "    %s re%d = (%s)0, im%d = (%s)0;\n", T, c, T, c, T);
  /* (one branch around all loads, one around all twiddles: straight
   * code the scheduler can overlap) */
  kiln_strbuf_append(b, "    if (ok) {\n");
  for (int c = 0; c < PER; c++)
    kiln_strbuf_appendf(b, "      KILN_FFT_LOAD(x + %d * step, re%d, im%d);\n", c, c, c);
  kiln_strbuf_append(b, "      if (ns > 1) {\n");
  for (int c = 0; c < PER; c++)
    kiln_strbuf_appendf(b,
                        "        { %s c, s; kiln_fft_tw(tw, t + %d * tstep, shift, sg, &c, &s);\n"
                        "          const %s v = re%d * c - im%d * s; im%d = re%d * s + im%d * c; "
                        "re%d = v; }\n",
                        T, c, T, c, c, c, c, c, c);
  kiln_strbuf_append(b, "      }\n    }\n");
  for (int c = 0; c < PER; c++)
    kiln_strbuf_appendf(b, "    lr[P(tid + %d)] = re%d; li[P(tid + %d)] = im%d;\n", c * threads,
                        c, c * threads, c);
  kiln_strbuf_append(b, "  } else {\n");
  for (int c = 0; c < PER; c++)
    kiln_strbuf_appendf(b, "    %s re%d = (%s)0, im%d = (%s)0;\n", T, c, T, c, T);
  for (int c = 0; c < PER; c++)
    kiln_strbuf_appendf(b,
                        "    { const int e = tid + %d, r = e %% %d, b = e / %d;\n"
                        "      if (u0 + b < total) {\n"
                        "        KILN_FFT_LOAD(src + 2 * (lin[b] + (int64_t)r * mi), re%d, im%d);\n"
                        "        if (ns > 1) {\n"
                        "          %s c, s; kiln_fft_tw(tw, (int64_t)r * lk[b] * stride, shift, sg, "
                        "&c, &s);\n"
                        "          const %s v = re%d * c - im%d * s; im%d = re%d * s + im%d * c; "
                        "re%d = v;\n"
                        "        }\n"
                        "      }\n"
                        "    }\n",
                        c * threads, L, L, c, c, T, T, c, c, c, c, c, c);
  for (int c = 0; c < PER; c++)
    kiln_strbuf_appendf(b,
                        "    { const int e = tid + %d, r = e %% %d, b = e / %d;\n"
                        "      lr[P(r * %d + b)] = re%d; li[P(r * %d + b)] = im%d; }\n",
                        c * threads, L, L, B, c, B, c);
  kiln_strbuf_append(b, "  }\n  kiln_barrier();\n");
  int q = 1;
  while (q < L) {
    int R = PER;
    while (q * R > L) R /= 2;
    append_stage(b, p, L, B, R, q);
    q *= R;
  }
  /* store: adjacent columns for ns >= B (their outputs are adjacent),
   * else adjacent points of a column */
  kiln_strbuf_appendf(b,
                      "  if (ns >= %d || inner >= %d) {\n"
                      "    const int b = tid %% %d, r0 = tid / %d;\n"
                      "    const int ok = u0 + b < total;\n"
                      "    const int64_t step = 2 * %d * nsi;\n"
                      "    KILN_GLOBAL %s *y = dst + 2 * (lout[b] + (int64_t)r0 * nsi);\n",
                      B, B, B, B, per, T);
  /* (the local reads first, then the global stores, as the loads) */
  for (int c = 0; c < PER; c++)
    kiln_strbuf_appendf(b, "    const %s or%d = lr[P(tid + %d)] * scale, oi%d = li[P(tid + %d)] * scale;\n",
                        T, c, c * threads, c, c * threads);
  for (int c = 0; c < PER; c++)
    kiln_strbuf_appendf(b, "    if (ok) KILN_FFT_STORE(y, or%d, oi%d);\n    y += step;\n", c, c);
  kiln_strbuf_append(b, "  } else {\n");
  for (int c = 0; c < PER; c++)
    kiln_strbuf_appendf(b,
                        "    const int r%d = (tid + %d) %% %d, b%d = (tid + %d) / %d;\n"
                        "    const %s or%d = lr[P(r%d * %d + b%d)] * scale, "
                        "oi%d = li[P(r%d * %d + b%d)] * scale;\n",
                        c, c * threads, L, c, c * threads, L, T, c, c, B, c, c, c, B, c);
  for (int c = 0; c < PER; c++)
    kiln_strbuf_appendf(b,
                        "    if (u0 + b%d < total) "
                        "KILN_FFT_STORE(dst + 2 * (lout[b%d] + (int64_t)r%d * nsi), or%d, oi%d);\n",
                        c, c, c, c, c);
  kiln_strbuf_append(b, "  }\n}\n");
  return kiln_strbuf_status(b);
}

kiln_status kiln_fft_fused_source(fft_precision precision, int length, kiln_strbuf *source) {
  fft_source_args a = {precision, length, 0};
  return fused_source(&a, source);
}

/* The fused pass of `length` points, compiled for ctx. */
static kiln_status fused_program(kiln_context *ctx, fft_precision precision, int length,
                                 kiln_program **program) {
  fft_source_args a = {precision, length, 0};
  char entry[64];
  fused_entry(entry, sizeof entry, precision, length);
  return kiln_fft_program(ctx, entry, fused_source, &a, program);
}

kiln_status kiln_fft_fused_runs(kiln_context *ctx, fft_precision precision, int length,
                                int *runs) {
  kiln_program *program = NULL;
  KILN_RETURN_IF_ERROR(fused_program(ctx, precision, length, &program));
  *runs = program->max_work_group_size >= (uint64_t)threads_of(precision);
  return KILN_OK;
}

kiln_status kiln_fft_launch_fused(kiln_context *ctx, kiln_stream *stream,
                                  fft_precision precision, int length, kiln_backend_arg src,
                                  kiln_backend_arg dst, kiln_backend_arg twiddles, int64_t n,
                                  int64_t ns, int sign, double scale, int64_t batch,
                                  int64_t shift, int64_t inner) {
  kiln_program *program = NULL;
  KILN_RETURN_IF_ERROR(fused_program(ctx, precision, length, &program));
  const int threads = threads_of(precision), B = kiln_fft_fused_elements(precision) / length;
  if (program->max_work_group_size < (uint64_t)threads)
    return kiln_error_set(KILN_ERROR_UNIMPLEMENTED,
                          "fft: the fused pass needs work-groups of %d items; the device runs "
                          "at most %llu",
                          threads, (unsigned long long)program->max_work_group_size);
  int64_t total = batch * (n / length), groups = (total + B - 1) / B;
  const int64_t ints[2] = {n, ns};
  fft_sign_scale values;
  kiln_backend_arg args[10] = {src, dst, twiddles};
  kiln_fft_scalar_args(precision, ints, sign, scale, &values, args + 3);
  args[7] = (kiln_backend_arg){.kind = KILN_BACKEND_ARG_SCALAR, .value = &total, .size = 8};
  args[8] = (kiln_backend_arg){.kind = KILN_BACKEND_ARG_SCALAR, .value = &shift, .size = 8};
  args[9] = (kiln_backend_arg){.kind = KILN_BACKEND_ARG_SCALAR, .value = &inner, .size = 8};
  kiln_backend_launch grid = {.work_dim = 1,
                              .global = {(uint64_t)groups * (uint64_t)threads, 1, 1},
                              .local = {(uint64_t)threads, 1, 1}};
  return kiln_program_launch(ctx, program, stream, &grid, 10, args);
}

kiln_status kiln_fft_fused_catalog_add(kiln_catalog *catalog) {
  kiln_status status = KILN_OK;
  for (int p = 0; p < 2 && status == KILN_OK; p++) {
    kiln_strbuf source = {0};
    status = kiln_fft_fused_source((fft_precision)p, FFT_FUSED_POINTS, &source);
    if (status == KILN_OK)
      status = kiln_catalog_add(catalog, p ? "fft fused pass (double)" : "fft fused pass (float)",
                                kiln_strbuf_text(&source));
    kiln_strbuf_free(&source);
  }
  /* (the row kernels with them: one family entry in core/catalog) */
  return status == KILN_OK ? kiln_fft_rows_catalog_add(catalog) : status;
}
