/* core/fft/fft_plan1d.c: plans of one length (factorisation, Bluestein's
 * filters) and running them over a batch of contiguous rows. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/fft/fft_internal.h"
#include "core/kernel/kernel_disk_cache.h"
#include "core/runtime/log.h"
#include "core/codegen/elementwise.h"
#include "kiln/stream.h"

static kiln_dtype complex_dtype(fft_precision p) {
  return p == FFT_DOUBLE ? KILN_COMPLEX128 : KILN_COMPLEX64;
}

static kiln_backend_arg buffer_arg(kiln_backend_buffer *buffer, uint64_t offset) {
  return (kiln_backend_arg){.kind = KILN_BACKEND_ARG_BUFFER, .buffer = buffer, .offset = offset};
}

static kiln_backend_arg array_arg(const kiln_array *x) {
  return buffer_arg(x->buffer->handle, (uint64_t)x->offset);
}

/* A contiguous scratch array of `count` complex elements, noted as used on
 * stream (so the pool keeps it until the stream's work is done). */
static kiln_status scratch(kiln_context *ctx, fft_precision p, int64_t count,
                           kiln_stream *stream, kiln_array **out) {
  KILN_RETURN_IF_ERROR(kiln_array_alloc(ctx, complex_dtype(p), 1, &count, out));
  kiln_status status = kiln_buffer_use_on_stream((*out)->buffer, stream);
  if (status != KILN_OK) {
    kiln_array_release(*out);
    *out = NULL;
  }
  return status;
}

/* Whether ctx's device takes fused passes at precision p (local memory
 * and work-group size). */
static int can_fuse(const kiln_context *ctx, fft_precision p, int length) {
  return ctx->info.local_memory >= kiln_fft_fused_local_bytes(p, length) &&
         ctx->info.max_work_group_size >= (uint64_t)kiln_fft_fused_threads(p);
}

/* KILN_FFT_FUSED (docs/environment.md): the fused passes' length, 0 for
 * none (radix passes only), unset for FFT_FUSED_POINTS (a precision takes
 * at most its local elements / 4 points: longer is cut to that); a tuning knob
 * for measuring. Read once per process; -1 when it is not one of those. */
static pthread_once_t fused_once = PTHREAD_ONCE_INIT;
static int fused_setting;

static void fused_read(void) {
  const char *v = getenv("KILN_FFT_FUSED");
  fused_setting = FFT_FUSED_POINTS;
  if (!v || !*v) return;
  char *end = NULL;
  long L = strtol(v, &end, 10);
  int ok = *end == '\0' && (L == 0 || (L >= 16 && L <= 1024 && (L & (L - 1)) == 0));
  fused_setting = ok ? (int)L : -1;
}

static kiln_status fused_length(int *length) {
  pthread_once(&fused_once, fused_read);
  *length = fused_setting;
  if (fused_setting < 0)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "KILN_FFT_FUSED=%s: expected 0 or a power of two from 16 to 1024",
                          getenv("KILN_FFT_FUSED"));
  return KILN_OK;
}

/* Radices whose product is n, powers of two first; 0 when a prime factor
 * is above FFT_MAX_DIRECT_PRIME (Bluestein then). fused[p]: pass p is a
 * fused pass of L points (fft_fused.c; L 0: none). */
static int factorise(const kiln_context *ctx, fft_precision precision, int64_t n, int L,
                     int *radix, int *fused) {
  static const int odd[] = {3, 5, 7, 11, 13};
  int count = 0;
  /* fused passes of 256 points while 256 divides n (2^24: 3 passes), each
   * reading and writing the rows once; the rest of the power of two in
   * radix passes (2^10: 256 then 4). One fused size keeps the kernels
   * compiled per context (and on CPU devices, their compile time) few. */
  /* (a precision takes at most its local elements / 4: 1024 points for
   * complex64, 512 for complex128) */
  if (L > kiln_fft_fused_elements(precision) / 4) L = kiln_fft_fused_elements(precision) / 4;
  if (L > 0 && n % L == 0 && can_fuse(ctx, precision, L))
    while (n % L == 0) {
      fused[count] = 1;
      radix[count++] = L;
      n /= L;
    }
  /* a longer L than 256 (the knob) leaves up to L/2 of the power of two:
   * one more fused pass for it when it is 256 or more (2^9 under 1024:
   * 512, not radix 16, 16, 2) */
  int64_t rest = 1;
  while (n % (2 * rest) == 0 && 2 * rest < L) rest *= 2;
  if (L > 0 && rest >= FFT_FUSED_POINTS && can_fuse(ctx, precision, (int)rest)) {
    fused[count] = 1;
    radix[count++] = (int)rest;
    n /= rest;
  }
  /* radix 16 first: every pass reads and writes the whole row once, so
   * fewer passes are less memory traffic (2^24: 6 passes, not 8) */
  while (n % 16 == 0) n /= 16, radix[count++] = 16;
  if (n % 8 == 0) n /= 8, radix[count++] = 8;
  if (n % 4 == 0) n /= 4, radix[count++] = 4;
  if (n % 2 == 0) n /= 2, radix[count++] = 2;
  for (size_t i = 0; i < sizeof odd / sizeof odd[0]; i++)
    while (n % odd[i] == 0) n /= odd[i], radix[count++] = odd[i];
  return n == 1 ? count : 0;
}

static kiln_status run_on(const fft_plan1d *plan, kiln_stream *stream, int sign, double scale,
                          int64_t batch, kiln_backend_arg in, kiln_backend_arg out);

static int same_place(kiln_backend_arg a, kiln_backend_arg b) {
  return a.buffer == b.buffer && a.offset == b.offset;
}

static kiln_status copy_rows(const fft_plan1d *plan, kiln_stream *stream, int64_t batch,
                             kiln_backend_arg from, kiln_backend_arg to) {
  kiln_context *ctx = plan->ctx;
  size_t bytes = (size_t)(batch * plan->n) * kiln_dtype_size(complex_dtype(plan->precision));
  kiln_backend_stream *s = NULL;
  KILN_RETURN_IF_ERROR(kiln_stream_backend(ctx, stream, &s));
  return ctx->ops->copy_d2d(ctx->device, s, to.buffer, to.offset, from.buffer, from.offset,
                            bytes);
}

/* The passes from in to out, ping-ponging through out and one scratch
 * array so that the last pass writes out (in is only read, unless it is
 * out: then an odd pass count first copies it to the scratch). inner > 1:
 * the column form (kiln_fft_launch_pass). */
static kiln_status run_stockham(const fft_plan1d *plan, kiln_stream *stream, int sign,
                                double scale, int64_t batch, int64_t inner, kiln_backend_arg in,
                                kiln_backend_arg out) {
  kiln_context *ctx = plan->ctx;
  const int P = plan->npasses;
  const int *radix = plan->radix, *fused = plan->fused;
  if (plan->rows_per > 0 && inner == 1)
    return kiln_fft_launch_rows(ctx, stream, plan->precision, plan->n, plan->rows_per, in, out,
                                buffer_arg(plan->twiddles, 0), sign, scale, batch);
  kiln_array *tmp = NULL;
  KILN_RETURN_IF_ERROR(scratch(ctx, plan->precision, batch * plan->n, stream, &tmp));
  kiln_status status = KILN_OK;
  if (same_place(in, out) && P % 2) {
    status = copy_rows(plan, stream, batch, in, array_arg(tmp));
    in = array_arg(tmp);
  }
  int64_t ns = 1;
  for (int p = 0; p < P && status == KILN_OK; p++) {
    /* after pass q the data is in out when P - q is even, else in tmp */
    kiln_backend_arg src = p == 0 ? in : (P - p) % 2 ? array_arg(tmp) : out;
    kiln_backend_arg dst = (P - p - 1) % 2 ? array_arg(tmp) : out;
    double s = p == P - 1 ? scale : 1.0;
    if (fused[p])
      status = kiln_fft_launch_fused(ctx, stream, plan->precision, radix[p], src, dst,
                                     buffer_arg(plan->twiddles, 0), plan->n, ns, sign, s, batch,
                                     plan->twiddle_shift, inner);
    else
      status = kiln_fft_launch_pass(ctx, stream, plan->precision, radix[p], src, dst, plan->n,
                                    ns, sign, s, batch, inner);
    ns *= radix[p];
  }
  kiln_array_release(tmp);
  return status;
}

static kiln_status run_bluestein(const fft_plan1d *plan, kiln_stream *stream, int sign,
                                 double scale, int64_t batch, kiln_backend_arg in,
                                 kiln_backend_arg out) {
  kiln_context *ctx = plan->ctx;
  const int64_t n = plan->n, m = plan->m;
  kiln_array *conv = NULL;
  KILN_RETURN_IF_ERROR(scratch(ctx, plan->precision, batch * m, stream, &conv));
  kiln_backend_arg in_conv[2] = {in, array_arg(conv)};
  kiln_backend_arg product[2] = {array_arg(conv),
                                 buffer_arg(plan->filter[sign > 0 ? 1 : 0], 0)};
  kiln_backend_arg conv_out[2] = {array_arg(conv), out};
  kiln_status status = kiln_fft_launch_helper(ctx, stream, plan->precision, FFT_CHIRP_IN, 2,
                                              in_conv, n, m, sign, 1.0, batch * m);
  if (status == KILN_OK)
    status = run_on(plan->sub, stream, -1, 1.0, batch, in_conv[1], in_conv[1]);
  if (status == KILN_OK)
    status = kiln_fft_launch_helper(ctx, stream, plan->precision, FFT_MULTIPLY, 2, product, n,
                                    m, sign, 1.0, batch * m);
  if (status == KILN_OK)
    status = run_on(plan->sub, stream, 1, 1.0 / (double)m, batch, in_conv[1], in_conv[1]);
  if (status == KILN_OK)
    status = kiln_fft_launch_helper(ctx, stream, plan->precision, FFT_CHIRP_OUT, 2, conv_out, n,
                                    m, sign, scale, batch * n);
  kiln_array_release(conv);
  return status;
}

static kiln_status run_on(const fft_plan1d *plan, kiln_stream *stream, int sign, double scale,
                          int64_t batch, kiln_backend_arg in, kiln_backend_arg out) {
  if (batch == 0) return KILN_OK;
  if (plan->n == 1) /* a length-1 scale is always 1 */
    return same_place(in, out) ? KILN_OK : copy_rows(plan, stream, batch, in, out);
  if (plan->npasses > 0) return run_stockham(plan, stream, sign, scale, batch, 1, in, out);
  return run_bluestein(plan, stream, sign, scale, batch, in, out);
}

kiln_status kiln_fft_plan1d_run(const fft_plan1d *plan, kiln_stream *stream, int sign,
                                double scale, int64_t batch, kiln_array *work) {
  return run_on(plan, stream, sign, scale, batch, array_arg(work), array_arg(work));
}

kiln_status kiln_fft_plan1d_run_into(const fft_plan1d *plan, kiln_stream *stream, int sign,
                                     double scale, int64_t batch, const kiln_array *in,
                                     kiln_array *out) {
  return run_on(plan, stream, sign, scale, batch, array_arg(in), array_arg(out));
}

int kiln_fft_plan1d_has_columns(const fft_plan1d *plan) {
  return !plan->vendor && (plan->n == 1 || plan->npasses > 0);
}

kiln_status kiln_fft_plan1d_run_columns(const fft_plan1d *plan, kiln_stream *stream, int sign,
                                        double scale, int64_t batch, int64_t inner,
                                        const kiln_array *in, kiln_array *out) {
  if (!kiln_fft_plan1d_has_columns(plan))
    return kiln_error_set(KILN_ERROR_INTERNAL, "fft: a column run of a plan without passes");
  if (batch == 0 || plan->n == 1 || inner <= 1)
    return run_on(plan, stream, sign, scale, batch, array_arg(in), array_arg(out));
  return run_stockham(plan, stream, sign, scale, batch, inner, array_arg(in), array_arg(out));
}

static void plan_free(fft_plan1d *plan) {
  if (plan->vendor) plan->ctx->ops->fft_plan_destroy(plan->ctx->device, plan->vendor);
  for (int i = 0; i < 2; i++)
    if (plan->filter[i]) plan->ctx->ops->buffer_free(plan->ctx->device, plan->filter[i]);
  if (plan->twiddles) plan->ctx->ops->buffer_free(plan->ctx->device, plan->twiddles);
  kiln_fft_plan1d_release(plan->sub);
  free(plan);
}

void kiln_fft_plan1d_release(fft_plan1d *plan) {
  if (plan && atomic_fetch_sub(&plan->refcount, 1) == 1) plan_free(plan);
}

/* Bluestein's filters: the chirp's conjugate, wrapped, transformed. */
static kiln_status make_filters(fft_plan1d *plan) {
  kiln_context *ctx = plan->ctx;
  size_t bytes = (size_t)plan->m * kiln_dtype_size(complex_dtype(plan->precision));
  for (int i = 0; i < 2; i++) {
    KILN_RETURN_IF_ERROR(ctx->ops->buffer_alloc(ctx->device, bytes, &plan->filter[i]));
    kiln_backend_arg f = buffer_arg(plan->filter[i], 0);
    int sign = i ? 1 : -1;
    KILN_RETURN_IF_ERROR(kiln_fft_launch_helper(ctx, NULL, plan->precision, FFT_CHIRP_FILTER,
                                                1, &f, plan->n, plan->m, sign, 1.0, plan->m));
    KILN_RETURN_IF_ERROR(run_on(plan->sub, NULL, -1, 1.0, 1, f, f));
  }
  /* the filters are read on any stream from now on */
  return kiln_stream_synchronize(ctx, NULL);
}

/* The fused passes' twiddle table: exp(2 pi i t / n) for t < S = 2^shift,
 * then for t = h S, h < ceil(n / S), S the power of two >= sqrt(n) (a
 * twiddle is one product of two entries), in the plan's precision; with
 * `full` (the row kernel's table), S = n: every twiddle one entry. */
static kiln_status make_twiddles(fft_plan1d *plan, int full) {
  kiln_context *ctx = plan->ctx;
  const int64_t n = plan->n;
  int64_t shift = 0;
  while (((int64_t)1 << (full ? shift : 2 * shift)) < n) shift++;
  const int64_t S = (int64_t)1 << shift, H = (n + S - 1) / S, count = S + H;
  const int d = plan->precision == FFT_DOUBLE;
  const size_t bytes = (size_t)count * 2 * (d ? sizeof(double) : sizeof(float));
  void *host = malloc(bytes);
  if (!host) return kiln_error_set(KILN_ERROR_OUT_OF_MEMORY, "fft: no memory for twiddles");
  for (int64_t i = 0; i < count; i++) {
    /* t mod n, computed exactly in integers; the angle in double */
    int64_t t = i < S ? i : ((i - S) * S) % n;
    double a = 2.0 * M_PI * (double)t / (double)n;
    if (d) ((double *)host)[2 * i] = cos(a), ((double *)host)[2 * i + 1] = sin(a);
    else ((float *)host)[2 * i] = (float)cos(a), ((float *)host)[2 * i + 1] = (float)sin(a);
  }
  kiln_backend_stream *s = NULL;
  kiln_status status = ctx->ops->buffer_alloc(ctx->device, bytes, &plan->twiddles);
  if (status == KILN_OK) status = kiln_stream_backend(ctx, NULL, &s);
  if (status == KILN_OK)
    status = ctx->ops->copy_h2d(ctx->device, s, plan->twiddles, 0, host, bytes, 1);
  free(host);
  plan->twiddle_shift = shift;
  return status;
}

/* Plans radix passes where a fused pass was planned that the device does
 * not run (kiln_fft_fused_runs: its compiled work-group limit). */
static kiln_status check_kernels_run(kiln_context *ctx, fft_plan1d *plan) {
  for (int p = 0; p < plan->npasses; p++) {
    if (!plan->fused[p]) continue;
    int runs = 1;
    KILN_RETURN_IF_ERROR(kiln_fft_fused_runs(ctx, plan->precision, plan->radix[p], &runs));
    if (runs) continue;
    kiln_log(KILN_LOG_DEBUG, "fft: the fused pass of %d does not run here: radix passes",
             plan->radix[p]);
    memset(plan->fused, 0, sizeof plan->fused);
    plan->npasses = factorise(ctx, plan->precision, plan->n, 0, plan->radix, plan->fused);
    return KILN_OK;
  }
  return KILN_OK;
}

kiln_status kiln_fft_plan1d_make(kiln_context *ctx, int64_t n, fft_precision precision,
                                 int vendor_type, int64_t batch, int rank, const int64_t *outer,
                                 kiln_fft_plan1d_get_fn get_sub, fft_plan1d **out) {
  *out = NULL;
  fft_plan1d *plan = calloc(1, sizeof *plan);
  if (!plan) return kiln_error_set(KILN_ERROR_OUT_OF_MEMORY, "fft: no memory for a plan");
  atomic_init(&plan->refcount, 1);
  plan->ctx = ctx;
  plan->n = n;
  plan->precision = precision;
  kiln_status status = KILN_OK;
  if (vendor_type) {
    kiln_backend_program_cache programs; /* VkFFT's kernels in the disk cache */
    kiln_disk_program_cache(ctx, &programs);
    kiln_backend_fft fft = {.type = (kiln_backend_fft_type)vendor_type,
                            .double_precision = precision == FFT_DOUBLE, .n = n, .batch = batch,
                            .rank = rank > 1 ? rank : 1, .programs = &programs};
    for (int d = 0; d + 1 < fft.rank; d++) fft.outer[d] = plan->outer[d] = outer[d];
    plan->vendor_type = (kiln_backend_fft_type)vendor_type;
    plan->batch = batch;
    plan->rank = fft.rank;
    status = ctx->ops->fft_plan_create(ctx->device, &fft, &plan->vendor, &plan->work_bytes);
    kiln_log(KILN_LOG_DEBUG, "fft: library plan type %d, rank %d, n %lld, batch %lld: %s",
             vendor_type, fft.rank, (long long)n, (long long)batch, kiln_status_string(status));
    if (status != KILN_OK) {
      plan_free(plan);
      return status;
    }
    *out = plan;
    return KILN_OK;
  }
  int fused_points = 0;
  status = fused_length(&fused_points);
  if (status != KILN_OK) {
    plan_free(plan);
    return status;
  }
  plan->npasses = n > 1 ? factorise(ctx, precision, n, fused_points, plan->radix, plan->fused) : 0;
  status = check_kernels_run(ctx, plan);
  if (status == KILN_OK) status = kiln_fft_rows_points(ctx, precision, n, &plan->rows_per);
  if (status == KILN_OK && plan->rows_per > 0) {
    int runs = 1;
    status = kiln_fft_rows_runs(ctx, precision, n, plan->rows_per, &runs);
    if (status == KILN_OK && !runs) {
      kiln_log(KILN_LOG_DEBUG, "fft: the row kernel of %lld does not run here: radix passes",
               (long long)n);
      plan->rows_per = 0;
    }
  }
  if (status == KILN_OK && (plan->rows_per > 0 || (plan->npasses > 0 && plan->fused[0])))
    status = make_twiddles(plan, plan->rows_per > 0);
  if (n > 1 && plan->npasses == 0) {
    plan->m = 1;
    while (plan->m < 2 * n - 1) plan->m *= 2;
    status = get_sub(ctx, plan->m, precision, 0, 1, 1, NULL, &plan->sub);
    if (status == KILN_OK) status = make_filters(plan);
  }
  if (status != KILN_OK) {
    plan_free(plan);
    return status;
  }
  *out = plan;
  return KILN_OK;
}
