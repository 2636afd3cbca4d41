/* core/sort/bincount.c: kiln_bincount, and the counting launch it shares
 * with histogram (kernels/builtin/count.kl). */
#include <stdio.h>
#include <string.h>

#include "core/sort/indexing_internal.h"

/* Bins a work-group keeps in local memory, at most (bytes): beyond, its
 * adds go straight to the global bins. A launch argument rather than a
 * compile-time size, so one program serves every bin count. */
#define LOCAL_BIN_BYTES 16384

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
  size_t item = kiln_dtype_size(count_dtype);
  int use_local = job->nbins * (int64_t)item <= LOCAL_BIN_BYTES;
  const char *suffix = count_dtype == KILN_FLOAT64 ? "f64" : count_dtype == KILN_UINT32 ? "u32"
                                                                                       : "u64";
  kiln_strbuf defines = {0};
  kiln_strbuf_appendf(&defines,
                      "#define BIN_KIND %d\n#define COUNT_T %s\n#define ADD kiln_atomic_add_%s\n"
                      "#define ADD_LOCAL kiln_atomic_add_local_%s\n#define WEIGHTED %d\n",
                      job->bin_kind, kiln_dtype_kernel_type(count_dtype), suffix, suffix,
                      job->weights != NULL);
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
  KILN_RETURN_IF_ERROR(status);
  kiln_ix_args args = {0};
  kiln_ix_arg_array(&args, *counts);
  kiln_ix_arg_array(&args, job->x);
  kiln_ix_arg_array(&args, job->weights ? job->weights : job->x);
  kiln_ix_arg_array(&args, job->edges ? job->edges : job->x);
  args.args[args.n++] = (kiln_backend_arg){
      .kind = KILN_BACKEND_ARG_LOCAL,
      .local_bytes = use_local ? (size_t)job->nbins * item : item};
  kiln_ix_arg_int(&args, use_local);
  kiln_ix_arg_int(&args, job->nbins);
  kiln_ix_arg_double(&args, job->denom);
  kiln_ix_arg_double(&args, job->nq);
  kiln_ix_arg_int(&args, n);
  kiln_backend_launch launch = {.work_dim = 1, .global = {1, 1, 1}, .local = {1, 1, 1}};
  kiln_program_grid_1d(ctx, program, n, &launch.global[0], &launch.local[0]);
  /* CPU devices run work-groups a few at a time: a handful per core, each
   * looping, rather than one per element, so the local bins are cleared
   * and added back a handful of times */
  uint64_t cap = (uint64_t)(ctx->info.compute_units ? ctx->info.compute_units : 4) * 4;
  if (ctx->info.type == KILN_DEVICE_CPU && launch.global[0] / launch.local[0] > cap)
    launch.global[0] = cap * launch.local[0];
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
