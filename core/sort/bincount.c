/* core/sort/bincount.c: kiln_bincount, and the counting launch it shares
 * with histogram (kernels/builtin/count.kl). */
#include <stdio.h>
#include <string.h>

#include "core/sort/indexing_internal.h"

/* The most bins a work-group counts in local memory (uint32 counters):
 * LOCAL_BINS, a fixed-size array, is the power of two at or above the bin
 * count (at least 256, so that small counts share one program), at most
 * this many bytes and half the device's local memory (room for a second
 * group). Beyond, the adds go straight to the global bins. */
#define LOCAL_BIN_BYTES_MAX 32768
#define LOCAL_BINS_MIN 256

int64_t kiln_ix_count_local_bins(const kiln_context *ctx, int64_t nbins, int weighted) {
  if (weighted || nbins <= 0) return 0; /* no 64-bit local atomics in OpenCL 1.2 */
  uint64_t bytes = ctx->info.local_memory / 2;
  if (bytes > LOCAL_BIN_BYTES_MAX) bytes = LOCAL_BIN_BYTES_MAX;
  int64_t bins = LOCAL_BINS_MIN;
  while (bins < nbins) bins *= 2;
  return (uint64_t)bins * sizeof(uint32_t) <= bytes ? bins : 0;
}

void kiln_ix_count_defines(int bin_kind, kiln_dtype count_dtype, int64_t local_bins,
                           kiln_strbuf *out) {
  const char *suffix = count_dtype == KILN_FLOAT64   ? "f64"
                       : count_dtype == KILN_UINT32 ? "u32"
                                                    : "u64";
  kiln_strbuf_appendf(out,
                      "#define BIN_KIND %d\n#define COUNT_T %s\n#define ADD kiln_atomic_add_%s\n"
                      "#define COUNT_64 %d\n#define LOCAL_BINS %lld\n#define WEIGHTED %d\n",
                      bin_kind, kiln_dtype_kernel_type(count_dtype), suffix,
                      count_dtype != KILN_UINT32, (long long)local_bins,
                      count_dtype == KILN_FLOAT64);
}

/* The count kernel's grid: GPUs get about as many work-groups as are
 * resident at once (each loops over its share, so a local copy of the bins
 * is cleared and added back once per group, not once per 256 elements),
 * fewer where the bins would outweigh the elements; CPU devices a handful
 * of groups per core. Every group gets fewer than 2^31 elements, so its
 * uint32 local counts cannot wrap. */
static void count_grid(const kiln_context *ctx, const kiln_program *program, int64_t n,
                       int64_t local_bins, kiln_backend_launch *launch) {
  kiln_program_grid_1d(ctx, program, n, &launch->global[0], &launch->local[0]);
  uint64_t size = launch->local[0], groups = launch->global[0] / size;
  uint64_t units = ctx->info.compute_units ? ctx->info.compute_units : 4;
  uint64_t cap = ctx->info.type == KILN_DEVICE_CPU ? units * 4 : units * 8;
  if (local_bins > 0) {
    uint64_t by_bins = (uint64_t)n / ((uint64_t)local_bins * 8);
    if (by_bins < units) by_bins = units;
    if (cap > by_bins) cap = by_bins;
  }
  if (groups > cap) groups = cap;
  uint64_t least = ((uint64_t)n >> 31) + 1;
  if (groups < least) groups = least;
  launch->global[0] = groups * size;
}

kiln_status kiln_ix_count(kiln_context *ctx, kiln_stream *stream, const kiln_ix_count_job *job,
                          kiln_array **counts) {
  *counts = NULL;
  int64_t n = job->x->size;
  kiln_dtype count_dtype = job->weights ? KILN_FLOAT64
                           : n < ((int64_t)1 << 32) ? KILN_UINT32
                                                    : KILN_UINT64;
  KILN_RETURN_IF_ERROR(kiln_array_alloc(ctx, count_dtype, 1, &job->nbins, counts));
  static const uint64_t zero[2] = {0, 0};
  const kiln_array *used[4] = {*counts, job->x, job->weights, job->edges};
  KILN_RETURN_IF_ERROR(kiln_ix_use_on_stream(stream, 4, used));
  if (job->nbins > 0) KILN_RETURN_IF_ERROR(kiln_ew_fill_on(*counts, zero, stream));
  if (n == 0 || job->nbins == 0) return KILN_OK;
  int64_t local_bins = kiln_ix_count_local_bins(ctx, job->nbins, job->weights != NULL);
  kiln_strbuf defines = {0};
  kiln_ix_count_defines(job->bin_kind, count_dtype, local_bins, &defines);
  if (job->bin_kind != 2)
    kiln_ix_number_defines("X", job->x->dtype, &defines);
  else
    kiln_strbuf_append(&defines, "#define X KEY\n");
  if (job->defines) kiln_strbuf_append(&defines, job->defines);
  kiln_program *program = NULL;
  kiln_status status = kiln_strbuf_status(&defines);
  if (status == KILN_OK)
    status = kiln_ix_program(ctx, kiln_builtin_count, kiln_strbuf_text(&defines), "kiln_count",
                             &program);
  kiln_strbuf_free(&defines);
  /* count.kl's #error where the device lacks them */
  if (status != KILN_OK && strstr(kiln_last_error(), "64-bit atomics, which this device lacks"))
    return kiln_error_set(KILN_ERROR_UNIMPLEMENTED,
                          "%s: %s need 64-bit atomics, which the device lacks (OpenCL: "
                          "cl_khr_int64_base_atomics)",
                          job->bin_kind == 0 ? "bincount" : "histogram",
                          job->weights ? "sums of weights" : "counts of 2^32 elements or more");
  KILN_RETURN_IF_ERROR(status);
  kiln_ix_args args = {0};
  kiln_ix_arg_array(&args, *counts);
  kiln_ix_arg_array(&args, job->x);
  kiln_ix_arg_array(&args, job->weights ? job->weights : job->x);
  kiln_ix_arg_array(&args, job->edges ? job->edges : job->x);
  kiln_ix_arg_int(&args, job->nbins);
  kiln_ix_arg_double(&args, job->denom);
  kiln_ix_arg_double(&args, job->nq);
  kiln_ix_arg_int(&args, n);
  kiln_backend_launch launch = {.work_dim = 1, .global = {1, 1, 1}, .local = {1, 1, 1}};
  count_grid(ctx, program, n, local_bins, &launch);
  return kiln_program_launch(ctx, program, stream, &launch, args.n, args.args);
}

/* ---- bincount -------------------------------------------------------------------- */

typedef struct bincount_state {
  kiln_array *owned[2], *counts;
  kiln_ix_output out;
} bincount_state;

static kiln_status bincount(kiln_context *ctx, kiln_operand x_operand, const kiln_operand *weights,
                            int64_t minlength, kiln_operand output, int64_t *length,
                            kiln_stream *stream, bincount_state *st) {
  const char *what = "bincount";
  kiln_dtype dx = kiln_ix_operand_dtype(&x_operand);
  if (dx == KILN_DTYPE_COUNT)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "%s: x must be a device array or host memory", what);
  KILN_RETURN_IF_ERROR(kiln_ix_check_index_dtype(what, "values of x", dx));
  if (minlength < 0)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "%s: minlength must be non-negative; it is %lld", what,
                          (long long)minlength);
  const kiln_array *x = NULL, *w = NULL;
  KILN_RETURN_IF_ERROR(
      kiln_ix_input(ctx, what, "x", &x_operand, dx, KILN_DTYPE_COUNT, stream, &x, &st->owned[0]));
  if (x->ndim != 1)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "%s: x must be 1-D; it has %d dims", what, x->ndim);
  if (weights) {
    kiln_dtype dw = kiln_ix_operand_dtype(weights);
    if (dw == KILN_DTYPE_COUNT || !kiln_dtype_can_cast_safely(dw, KILN_FLOAT64))
      return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                            "%s: the weights are %s; they must cast safely to float64 (no "
                            "complex), as NumPy's",
                            what, kiln_dtype_name(dw));
    KILN_RETURN_IF_ERROR(kiln_ix_input(ctx, what, "weights", weights, KILN_FLOAT64, KILN_FLOAT64,
                                       stream, &w, &st->owned[1]));
    if (w->ndim != 1 || w->size != x->size)
      return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                            "%s: the weights have %lld elements in %d dims and x %lld; they "
                            "must have x's shape",
                            what, (long long)w->size, w->ndim, (long long)x->size);
  }
  int64_t max = -1;
  if (x->size > 0) {
    /* the largest value, or INT64_MAX where one is negative: one reduction */
    KILN_RETURN_IF_ERROR(kiln_ix_reduce(
        ctx, stream, "bincount_max", x, 0, KILN_INT64,
        "kiln_m = v0 < 0 ? (int64_t)0x7fffffffffffffff : (int64_t)v0;",
        "return a > b ? a : b;", &max));
    if (max == INT64_MAX)
      return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                            "%s: x must have no negative elements", what);
  }
  *length = max + 1 > minlength ? max + 1 : minlength;
  KILN_RETURN_IF_ERROR(kiln_ix_output_begin(ctx, what, &output, w ? KILN_FLOAT64 : KILN_INT64, 1,
                                            length, 1, &st->out));
  kiln_ix_count_job job = {.bin_kind = 0, .x = x, .weights = w, .nbins = *length};
  KILN_RETURN_IF_ERROR(kiln_ix_count(ctx, stream, &job, &st->counts));
  if (*length > 0)
    KILN_RETURN_IF_ERROR(kiln_ix_copy(st->out.work, st->counts, stream));
  return kiln_ix_output_finish(ctx, stream, &st->out);
}

kiln_status kiln_bincount(kiln_context *ctx, kiln_operand x, const kiln_operand *weights,
                          int64_t minlength, kiln_operand output, int64_t *length,
                          kiln_stream *stream) {
  kiln_reduce_clear_new(output);
  KILN_CHECK_ARG(length);
  *length = 0;
  KILN_CHECK_ARG(ctx);
  bincount_state st;
  memset(&st, 0, sizeof st);
  kiln_status status = bincount(ctx, x, weights, minlength, output, length, stream, &st);
  kiln_ix_output_free(&st.out);
  kiln_array_release(st.counts);
  for (int i = 0; i < 2; i++) kiln_array_release(st.owned[i]);
  return status;
}
