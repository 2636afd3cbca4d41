/* core/fft/fft_kernels.c: the kernel-language sources of kiln's own FFT,
 * generated per element precision (and per radix for the passes), and
 * their launches.
 *
 * A Stockham pass of radix R over rows of n = R * m elements, Ns being the
 * product of the radices already done (Bainville's formulation, "OpenCL
 * Fast Fourier Transform", 2010): work-item j < m of a row reads
 * x[j + r m] (r < R), multiplies x_r by the twiddle exp(sign 2 pi i r k /
 * (Ns R)) with k = j mod Ns, does an R-point DFT and writes output r to
 * (j / Ns) Ns R + k + r Ns. After the last pass the row is in natural
 * order (auto-sort: no bit reversal). The R-point DFT is written out with
 * its constants (exact 0, +-1, +-i terms as additions), so any prime R
 * works; the plan uses 2, 3, 4, 5, 7, 8, 11, 13 and 16. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/fft/fft_internal.h"
#include "core/runtime/strbuf.h"

static const char *real_type(fft_precision p) { return p == FFT_DOUBLE ? "double" : "float"; }
static const char *tag(fft_precision p) { return p == FFT_DOUBLE ? "f64" : "f32"; }

/* A literal of the precision's type (never an int: "1f" is not C). */
static void append_literal(kiln_strbuf *b, fft_precision p, double v) {
  if (p == FFT_DOUBLE) kiln_strbuf_appendf(b, "%.17e", v);
  else kiln_strbuf_appendf(b, "%.9ef", v);
}

/* Opens a block with the constants c = cos(angle), sn = sg sin(angle). */
static void append_constant_open(kiln_strbuf *b, fft_precision p, double angle) {
  kiln_strbuf_appendf(b, "    { const %s c = ", real_type(p));
  append_literal(b, p, cos(angle));
  kiln_strbuf_append(b, ", sn = sg * ");
  append_literal(b, p, sin(angle));
}

/* The power-of-two R-point DFT as log2(R) radix-2 steps in registers
 * (decimation in time: inputs in bit-reversed order, then butterflies of
 * span 1, 2, 4, ...), about R log2(R) additions and a few products with
 * constants, where the dense form takes R^2 products (radix 16: ~180
 * flops instead of ~960). Step s's values are d<s>r<i>, d<s>i<i>. */
static void append_dft_pow2(kiln_strbuf *b, fft_precision p, int radix) {
  const char *T = real_type(p);
  int bits = 0;
  while ((1 << bits) < radix) bits++;
  for (int i = 0; i < radix; i++) {
    int r = 0;
    for (int k = 0; k < bits; k++) r |= ((i >> k) & 1) << (bits - 1 - k);
    kiln_strbuf_appendf(b, "    const %s d0r%d = xr%d, d0i%d = xi%d;\n", T, i, r, i, r);
  }
  int step = 0;
  for (int span = 1; span < radix; span *= 2, step++) {
    for (int o = 0; o < radix; o += 2 * span) {
      for (int j = 0; j < span; j++) {
        const int lo = o + j, hi = o + j + span, s = step, t = step + 1;
        /* u = W^j d[hi], W = exp(sg 2 pi i / (2 span)) */
        const int q = j * (radix / (2 * span)); /* W^j = exp(sg 2 pi i q / R) */
        kiln_strbuf_appendf(b, "    %s u%dr%d, u%di%d;\n", T, t, hi, t, hi);
        if (q == 0) {
          kiln_strbuf_appendf(b, "    u%dr%d = d%dr%d; u%di%d = d%di%d;\n", t, hi, s, hi, t, hi,
                              s, hi);
        } else if (4 * q == radix) { /* sg i */
          kiln_strbuf_appendf(b, "    u%dr%d = -sg * d%di%d; u%di%d = sg * d%dr%d;\n", t, hi, s,
                              hi, t, hi, s, hi);
        } else {
          append_constant_open(b, p, 2.0 * M_PI * q / radix);
          kiln_strbuf_appendf(b,
                              ";\n      u%dr%d = d%dr%d * c - d%di%d * sn; "
                              "u%di%d = d%dr%d * sn + d%di%d * c; }\n",
                              t, hi, s, hi, s, hi, t, hi, s, hi, s, hi);
        }
        kiln_strbuf_appendf(b,
                            "    const %s d%dr%d = d%dr%d + u%dr%d, d%di%d = d%di%d + u%di%d;\n"
                            "    const %s d%dr%d = d%dr%d - u%dr%d, d%di%d = d%di%d - u%di%d;\n",
                            T, t, lo, s, lo, t, hi, t, lo, s, lo, t, hi, T, t, hi, s, lo, t, hi,
                            t, hi, s, lo, t, hi);
      }
    }
  }
  for (int k = 0; k < radix; k++)
    kiln_strbuf_appendf(b, "    const %s yr%d = d%dr%d, yi%d = d%di%d;\n", T, k, step, k, k,
                        step, k);
}

/* y_k = sum_j x_j W^(jk), W = exp(sg 2 pi i / R), into yr<k>, yi<k>. */
void kiln_fft_append_dft(kiln_strbuf *b, fft_precision p, int radix) {
  const char *T = real_type(p);
  if ((radix & (radix - 1)) == 0 && radix >= 4) {
    append_dft_pow2(b, p, radix);
    return;
  }
  for (int k = 0; k < radix; k++) {
    kiln_strbuf_appendf(b, "    %s yr%d = xr0, yi%d = xi0;\n", T, k, k);
    for (int j = 1; j < radix; j++) {
      int q = (j * k) % radix;
      if (q == 0) {
        kiln_strbuf_appendf(b, "    yr%d += xr%d; yi%d += xi%d;\n", k, j, k, j);
      } else if (2 * q == radix) {
        kiln_strbuf_appendf(b, "    yr%d -= xr%d; yi%d -= xi%d;\n", k, j, k, j);
      } else if (4 * q == radix) { /* W^q = sg i */
        kiln_strbuf_appendf(b, "    yr%d -= sg * xi%d; yi%d += sg * xr%d;\n", k, j, k, j);
      } else if (4 * q == 3 * radix) { /* W^q = -sg i */
        kiln_strbuf_appendf(b, "    yr%d += sg * xi%d; yi%d -= sg * xr%d;\n", k, j, k, j);
      } else {
        append_constant_open(b, p, 2.0 * M_PI * q / radix);
        kiln_strbuf_appendf(b, ";\n      yr%d += xr%d * c - xi%d * sn; yi%d += xr%d * sn + xi%d * c; }\n",
                            k, j, j, k, j, j);
      }
    }
  }
}

void kiln_fft_append_twiddle_product(kiln_strbuf *b, fft_precision p, int r, int a) {
  kiln_strbuf_appendf(b,
                      "      const %s wr%d = wr%d * wr%d - wi%d * wi%d, "
                      "wi%d = wr%d * wi%d + wi%d * wr%d;\n",
                      real_type(p), r, a, r - a, a, r - a, r, a, r - a, a, r - a);
}

void kiln_fft_append_twiddle_apply(kiln_strbuf *b, fft_precision p, int radix) {
  for (int r = 1; r < radix; r++)
    kiln_strbuf_appendf(b,
                        "      { const %s re = xr%d * wr%d - xi%d * wi%d;\n"
                        "        xi%d = xr%d * wi%d + xi%d * wr%d; xr%d = re; }\n",
                        real_type(p), r, r, r, r, r, r, r, r, r, r);
}

static void pass_entry(char *out, size_t size, fft_precision p, int radix, int strided) {
  snprintf(out, size, "kiln_fft_pass_%s_r%d%s", tag(p), radix, strided ? "_s" : "");
}

static kiln_status pass_source(void *data, kiln_strbuf *b) {
  const fft_source_args *a = data;
  const char *T = real_type(a->precision);
  const int R = a->points;
  char entry[64];
  pass_entry(entry, sizeof entry, a->precision, R, a->strided);
  /* each complex element one 8- (16-) byte load and store (float2,
   * double2: the rows the passes get are aligned), half the memory
   * instructions of two scalar ones.
   * strided (the column form): element i of row (o, c) at (o n + i) inner
   * + c, the rows' c adjacent in memory, so that adjacent work-items take
   * adjacent c: every load and store of a warp is one coalesced segment,
   * and a transform along a non-last axis needs no transposing copies */
  kiln_strbuf_appendf(b,
                      "KILN_KERNEL void %s(KILN_GLOBAL const %s *src, KILN_GLOBAL %s *dst, "
                      "int64_t n, int64_t ns, %s sg, %s scale, int64_t count, int64_t base%s) "
                      "{\n"
                      "  KILN_ELEMENTS_BEGIN(t, base, count)\n"
                      "    const int64_t m = n / %d;\n",
                      entry, T, T, T, T, a->strided ? ", int64_t inner" : "", R);
  if (a->strided)
    kiln_strbuf_appendf(b,
                        "    const int64_t q = t / inner, c = t - q * inner;\n"
                        "    const int64_t row = q / m, j = q - row * m, k = j %% ns;\n"
                        "    const int64_t mi = m * inner, nsi = ns * inner;\n"
                        "    KILN_GLOBAL const %s *x = src + 2 * ((row * n + j) * inner + c);\n",
                        T);
  else
    kiln_strbuf_appendf(b,
                        "    const int64_t row = t / m, j = t - row * m, k = j %% ns;\n"
                        "    const int64_t mi = m, nsi = ns;\n"
                        "    KILN_GLOBAL const %s *x = src + 2 * (row * n + j);\n",
                        T);
  for (int r = 0; r < R; r++)
    kiln_strbuf_appendf(b,
                        "    const %s2 v%d = ((KILN_GLOBAL const %s2 *)x)[%d * mi];\n"
                        "    %s xr%d = v%d.x, xi%d = v%d.y;\n",
                        T, r, T, r, T, r, r, r, r);
  kiln_strbuf_appendf(b,
                      "    if (ns > 1) {\n"
                      "      const %s a = sg * (%s)6.283185307179586 * (%s)k / (%s)(ns * %d);\n",
                      T, T, T, T, R);
  /* the twiddles w_r = exp(i r a): cos and sin for r a power of two,
   * else w_p w_(r-p) with p the largest power of two below r (at most 3
   * products deep for r < 16: a few ulps, and 4 sin/cos pairs instead of
   * 15 for radix 16) */
  for (int r = 1; r < R; r++) {
    int p = 1;
    while (2 * p <= r) p *= 2;
    if (p == r)
      kiln_strbuf_appendf(b, "      const %s wr%d = cos(a * (%s)%d), wi%d = sin(a * (%s)%d);\n",
                          T, r, T, r, r, T, r);
    else
      kiln_fft_append_twiddle_product(b, a->precision, r, p);
  }
  kiln_fft_append_twiddle_apply(b, a->precision, R);
  kiln_strbuf_append(b, "    }\n");
  kiln_fft_append_dft(b, a->precision, R);
  kiln_strbuf_appendf(b,
                      "    KILN_GLOBAL %s *y = dst + 2 * ((row * n + (j / ns) * ns * %d + k)%s);\n",
                      T, R, a->strided ? " * inner + c" : "");
  for (int r = 0; r < R; r++)
    kiln_strbuf_appendf(b,
                        "    { %s2 o; o.x = yr%d * scale; o.y = yi%d * scale; "
                        "((KILN_GLOBAL %s2 *)y)[%d * nsi] = o; }\n",
                        T, r, r, T, r);
  kiln_strbuf_append(b, "  KILN_ELEMENTS_END\n}\n");
  return kiln_strbuf_status(b);
}

void kiln_fft_scalar_args(fft_precision precision, const int64_t *ints, int sign, double scale,
                          fft_sign_scale *values, kiln_backend_arg *args) {
  const int d = precision == FFT_DOUBLE;
  *values = (fft_sign_scale){(float)sign, (float)scale, sign, scale};
  for (int i = 0; i < 2; i++)
    args[i] = (kiln_backend_arg){.kind = KILN_BACKEND_ARG_SCALAR, .value = &ints[i],
                                 .size = sizeof(int64_t)};
  args[2] = (kiln_backend_arg){.kind = KILN_BACKEND_ARG_SCALAR,
                               .value = d ? (const void *)&values->sign64
                                          : (const void *)&values->sign32,
                               .size = d ? 8 : 4};
  args[3] = (kiln_backend_arg){.kind = KILN_BACKEND_ARG_SCALAR,
                               .value = d ? (const void *)&values->scale64
                                          : (const void *)&values->scale32,
                               .size = d ? 8 : 4};
}

kiln_status kiln_fft_program(kiln_context *ctx, const char *entry,
                             kiln_source_generator generate, void *data, kiln_program **out) {
  char key[96];
  int key_length = snprintf(key, sizeof key, "\1fft:%s", entry);
  return kiln_program_get_keyed(ctx, key, (size_t)key_length, NULL, entry, generate, data, out);
}

/* Every FFT kernel takes (a, b, int64 n, int64 m, T sign, T scale, int64
 * count, int64 base) and visits [0, count) with KILN_ELEMENTS. */
static kiln_status launch(kiln_context *ctx, kiln_stream *stream, const kiln_program *program,
                          fft_precision precision, kiln_backend_arg a, kiln_backend_arg b,
                          int64_t n, int64_t m, int sign, double scale, int64_t count) {
  int64_t ints[2] = {n, m}, base = 0;
  fft_sign_scale values;
  kiln_backend_arg args[8] = {a, b};
  kiln_fft_scalar_args(precision, ints, sign, scale, &values, args + 2);
  args[6] = (kiln_backend_arg){.kind = KILN_BACKEND_ARG_SCALAR, .value = &count, .size = 8};
  args[7] = (kiln_backend_arg){.kind = KILN_BACKEND_ARG_SCALAR, .value = &base, .size = 8};
  return kiln_program_launch_elements(ctx, program, stream, count, 8, args, 7);
}

kiln_status kiln_fft_launch_pass(kiln_context *ctx, kiln_stream *stream,
                                 fft_precision precision, int radix,
                                 kiln_backend_arg src, kiln_backend_arg dst, int64_t n,
                                 int64_t ns, int sign, double scale, int64_t batch,
                                 int64_t inner) {
  fft_source_args a = {precision, radix, inner > 1};
  char entry[64];
  pass_entry(entry, sizeof entry, precision, radix, a.strided);
  kiln_program *program = NULL;
  KILN_RETURN_IF_ERROR(kiln_fft_program(ctx, entry, pass_source, &a, &program));
  if (!a.strided)
    return launch(ctx, stream, program, precision, src, dst, n, ns, sign, scale,
                  batch * (n / radix));
  int64_t ints[2] = {n, ns}, count = batch * (n / radix), base = 0;
  fft_sign_scale values;
  kiln_backend_arg args[9] = {src, dst};
  kiln_fft_scalar_args(precision, ints, sign, scale, &values, args + 2);
  args[6] = (kiln_backend_arg){.kind = KILN_BACKEND_ARG_SCALAR, .value = &count, .size = 8};
  args[7] = (kiln_backend_arg){.kind = KILN_BACKEND_ARG_SCALAR, .value = &base, .size = 8};
  args[8] = (kiln_backend_arg){.kind = KILN_BACKEND_ARG_SCALAR, .value = &inner, .size = 8};
  return kiln_program_launch_elements(ctx, program, stream, count, 9, args, 7);
}

/* ---- helpers ------------------------------------------------------------- */

static const char *const helper_names[FFT_HELPER_COUNT] = {
    "chirp_in", "chirp_out", "chirp_filter", "multiply", "scale", "hermitian", "real_post",
    "real_pre"};

/* Bodies over element index i < count, with a, b the buffers (T pairs),
 * n, m, sg, scale. kiln_fft_chirp gives w_k = exp(sg pi i (k^2 mod 2n) / n)
 * (the reduction keeps the angle exact for any k). */
static const char *const helper_bodies[FFT_HELPER_COUNT] = {
    /* chirp_in: b rows of m <- a rows of n */
    "const int64_t row = i / m, k = i - row * m;\n"
    "    T re = (T)0, im = (T)0;\n"
    "    if (k < n) {\n"
    "      T c, s; kiln_fft_chirp(k, n, sg, &c, &s);\n"
    "      const T xr = a[2 * (row * n + k)], xi = a[2 * (row * n + k) + 1];\n"
    "      re = xr * c - xi * s; im = xr * s + xi * c;\n"
    "    }\n"
    "    b[2 * i] = re; b[2 * i + 1] = im;\n",
    /* chirp_out: b rows of n <- a rows of m */
    "const int64_t row = i / n, k = i - row * n;\n"
    "    T c, s; kiln_fft_chirp(k, n, sg, &c, &s);\n"
    "    const T xr = a[2 * (row * m + k)], xi = a[2 * (row * m + k) + 1];\n"
    "    b[2 * i] = (xr * c - xi * s) * scale; b[2 * i + 1] = (xr * s + xi * c) * scale;\n",
    /* chirp_filter: a[k], k < m */
    "const int64_t k = i < n ? i : m - i;\n"
    "    T re = (T)0, im = (T)0;\n"
    "    if (k < n) { T c, s; kiln_fft_chirp(k, n, sg, &c, &s); re = c; im = -s; }\n"
    "    a[2 * i] = re; a[2 * i + 1] = im;\n",
    /* multiply: a[i] *= b[i mod m] */
    "const int64_t k = i % m;\n"
    "    const T xr = a[2 * i], xi = a[2 * i + 1], hr = b[2 * k], hi = b[2 * k + 1];\n"
    "    a[2 * i] = xr * hr - xi * hi; a[2 * i + 1] = xr * hi + xi * hr;\n",
    /* scale: a[i], real numbers */
    "a[i] *= scale;\n",
    /* hermitian: a rows of n */
    "const int64_t row = i / n, k = i - row * n;\n"
    "    if (k == 0 || 2 * k == n) a[2 * i + 1] = (T)0;\n"
    "    else if (k > n / 2) {\n"
    "      a[2 * i] = a[2 * (row * n + n - k)];\n"
    "      a[2 * i + 1] = -a[2 * (row * n + n - k) + 1];\n"
    "    }\n",
    /* real_post: b rows of h + 1 <- a rows of h (h = n / 2; fft_real.c):
     * E = (Z_k + conj Z_{h-k}) / 2, O = (Z_k - conj Z_{h-k}) / 2i,
     * X_k = E + w^k O */
    "const int64_t h = n / 2, row = i / (h + 1), k = i - row * (h + 1);\n"
    "    const int64_t p = k == h ? 0 : k, q = k == 0 ? 0 : h - k;\n"
    "    const T zr = a[2 * (row * h + p)], zi = a[2 * (row * h + p) + 1];\n"
    "    const T cr = a[2 * (row * h + q)], ci = -a[2 * (row * h + q) + 1];\n"
    "    const T er = (T)0.5 * (zr + cr), ei = (T)0.5 * (zi + ci);\n"
    "    const T or_ = (T)0.5 * (zi - ci), oi = (T)0.5 * (cr - zr);\n"
    "    T wr, wi; kiln_fft_twiddle(k, n, sg, &wr, &wi);\n"
    "    b[2 * i] = (er + or_ * wr - oi * wi) * scale;\n"
    "    b[2 * i + 1] = (ei + or_ * wi + oi * wr) * scale;\n",
    /* real_pre: b rows of h <- a rows of h + 1: Z_k = (X_k + conj X_{h-k})
     * + i w^k (X_k - conj X_{h-k}), the imaginary parts of X_0, X_h read
     * as 0 */
    "const int64_t h = n / 2, row = i / h, k = i - row * h;\n"
    "    KILN_GLOBAL const T *x = a + 2 * row * (h + 1);\n"
    "    const T xr = x[2 * k], xi = k == 0 ? (T)0 : x[2 * k + 1];\n"
    "    const T cr = x[2 * (h - k)], ci = k == 0 ? (T)0 : -x[2 * (h - k) + 1];\n"
    "    const T dr = xr - cr, di = xi - ci;\n"
    "    T wr, wi; kiln_fft_twiddle(k, n, sg, &wr, &wi);\n"
    "    const T fr = dr * wr - di * wi, fi = dr * wi + di * wr;\n"
    "    b[2 * i] = (xr + cr - fi) * scale;\n"
    "    b[2 * i + 1] = (xi + ci + fr) * scale;\n"};

static void helper_entry(char *out, size_t size, fft_precision p, fft_helper which) {
  snprintf(out, size, "kiln_fft_%s_%s", helper_names[which], tag(p));
}

typedef struct helper_source_args {
  fft_precision precision;
  fft_helper which;
} helper_source_args;

/* Appends text with every identifier T replaced by type (the parameter
 * parser reads the real type names, so no #define). */
static void append_typed(kiln_strbuf *b, const char *text, const char *type) {
  for (const char *c = text; *c; c++) {
    int word = *c == 'T' && (c == text || !(isalnum((unsigned char)c[-1]) || c[-1] == '_')) &&
               !(isalnum((unsigned char)c[1]) || c[1] == '_');
    if (word) kiln_strbuf_append(b, type);
    else kiln_strbuf_append_n(b, c, 1);
  }
}

static kiln_status helper_source(void *data, kiln_strbuf *b) {
  const helper_source_args *h = data;
  const char *T = real_type(h->precision);
  char entry[64];
  helper_entry(entry, sizeof entry, h->precision, h->which);
  append_typed(b,
               "KILN_DEVICE void kiln_fft_chirp(int64_t k, int64_t n, T sg, T *c, T *s) {\n"
               "  const uint64_t q = ((uint64_t)k * (uint64_t)k) % (uint64_t)(2 * n);\n"
               "  const T a = sg * (T)3.141592653589793 * ((T)q / (T)n);\n"
               "  *c = cos(a); *s = sin(a);\n"
               "}\n"
               /* exp(sg 2 pi i k / n), k <= n: the angle reduced to the
                * first octant's neighbourhood would be more exact; k / n
                * is one rounding, as in the passes */
               "KILN_DEVICE void kiln_fft_twiddle(int64_t k, int64_t n, T sg, T *c, T *s) {\n"
               "  const T a = sg * (T)6.283185307179586 * ((T)k / (T)n);\n"
               "  *c = cos(a); *s = sin(a);\n"
               "}\n",
               T);
  kiln_strbuf_appendf(b,
                      "KILN_KERNEL void %s(KILN_GLOBAL %s *a, KILN_GLOBAL %s *b, int64_t n, "
                      "int64_t m, %s sg, %s scale, int64_t count, int64_t base) {\n"
                      "  KILN_ELEMENTS_BEGIN(i, base, count)\n    ",
                      entry, T, T, T, T);
  append_typed(b, helper_bodies[h->which], T);
  kiln_strbuf_append(b, "  KILN_ELEMENTS_END\n}\n");
  return kiln_strbuf_status(b);
}

kiln_status kiln_fft_launch_helper(kiln_context *ctx, kiln_stream *stream,
                                   fft_precision precision, fft_helper which, int nbuffers,
                                   const kiln_backend_arg *buffers, int64_t n, int64_t m,
                                   int sign, double scale, int64_t count) {
  helper_source_args h = {precision, which};
  char entry[64];
  helper_entry(entry, sizeof entry, precision, which);
  kiln_program *program = NULL;
  KILN_RETURN_IF_ERROR(kiln_fft_program(ctx, entry, helper_source, &h, &program));
  return launch(ctx, stream, program, precision, buffers[0], buffers[nbuffers > 1 ? 1 : 0], n,
                m, sign, scale, count);
}

kiln_status kiln_fft_catalog_add(kiln_catalog *catalog) {
  static const int radices[] = {2, 3, 4, 5, 7, 8, 11, 13, 16};
  kiln_status status = KILN_OK;
  for (int p = 0; p < 2 && status == KILN_OK; p++) {
    /* one entry per program: each helper defines the same device function */
    for (int i = 0; i < (int)(sizeof radices / sizeof radices[0]) + FFT_HELPER_COUNT; i++) {
      kiln_strbuf source = {0};
      int r = i < (int)(sizeof radices / sizeof radices[0]);
      if (r) {
        fft_source_args a = {(fft_precision)p, radices[i], 0};
        pass_source(&a, &source);
        kiln_strbuf_append(&source, "\n");
        a.strided = 1;
        pass_source(&a, &source);
      } else {
        helper_source_args h = {(fft_precision)p,
                                (fft_helper)(i - (int)(sizeof radices / sizeof radices[0]))};
        helper_source(&h, &source);
      }
      status = kiln_strbuf_status(&source);
      if (status == KILN_OK)
        status = kiln_catalog_add(catalog, p ? "fft kernel (double)" : "fft kernel (float)",
                                  kiln_strbuf_text(&source));
      kiln_strbuf_free(&source);
      if (status != KILN_OK) break;
    }
  }
  return status;
}
