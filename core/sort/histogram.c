/* core/sort/histogram.c: kiln_histogram. Equal-width bins follow NumPy's
 * own arithmetic (numpy/lib/_histograms_impl.py: the edges from
 * numpy.linspace in NumPy's dtypes, the bin of a value from its offset
 * over the width, corrected against the edges), so that every value lands
 * in NumPy's bin; explicit edges bisect in NumPy's sort order. Both count
 * with kernels/builtin/count.kl (core/sort/bincount.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sort/indexing_internal.h"

/* v rounded to float dtype d as NumPy computes in it: float32 arithmetic
 * rounds once; float16 computes in float32 and rounds to float16. */
static double round_to(kiln_dtype d, double v) {
  if (d == KILN_FLOAT32) return (float)v;
  if (d == KILN_FLOAT16) return kiln_float16_to_float(kiln_float16_from_float((float)v));
  return v;
}

/* numpy.linspace(first, last, nbins + 1) computed in dt, every operation
 * rounded to it (numpy/_core/function_base.py), into y. */
static void linspace(kiln_dtype dt, double first, double last, int64_t nbins, double *y) {
  double delta = round_to(dt, last - first);
  double step = round_to(dt, delta / (double)nbins);
  for (int64_t k = 0; k <= nbins; k++) {
    double v = round_to(dt, (double)k);
    v = step == 0 ? round_to(dt, round_to(dt, v / (double)nbins) * delta)
                  : round_to(dt, v * step);
    y[k] = round_to(dt, v + first);
  }
  y[nbins] = last;
}

/* What the equal-width kernel computes with (see count.kl). */
typedef struct uniform_plan {
  kiln_dtype bin_type; /* of the edges */
  kiln_dtype dt;       /* linspace computes in */
  int quotient_in_bin_type;
  double first, last, denom, nq;
} uniform_plan;

/* The smallest and largest element of a (contiguous, non-empty, real) as
 * doubles, NaN when a NaN is present; integers also exactly. */
static kiln_status extremes(kiln_context *ctx, kiln_stream *stream, const kiln_array *a,
                            double *min, double *max, int64_t *imin, int64_t *imax) {
  if (kiln_dtype_is_float(a->dtype)) {
    const char *nan_min = "return a != a ? a : b != b ? b : (a < b ? a : b);";
    const char *nan_max = "return a != a ? a : b != b ? b : (a > b ? a : b);";
    KILN_RETURN_IF_ERROR(kiln_ix_reduce(ctx, stream, "histogram_min", a, 0, KILN_FLOAT64,
                                        "kiln_m = (double)v0;", nan_min, min));
    return kiln_ix_reduce(ctx, stream, "histogram_max", a, 0, KILN_FLOAT64,
                          "kiln_m = (double)v0;", nan_max, max);
  }
  /* integers: int64, or uint64 bits for uint64 */
  kiln_dtype acc = a->dtype == KILN_UINT64 ? KILN_UINT64 : KILN_INT64;
  const char *map = a->dtype == KILN_UINT64 ? "kiln_m = v0;" : "kiln_m = (int64_t)v0;";
  KILN_RETURN_IF_ERROR(kiln_ix_reduce(ctx, stream, "histogram_imin", a, 0, acc, map,
                                      "return a < b ? a : b;", imin));
  KILN_RETURN_IF_ERROR(kiln_ix_reduce(ctx, stream, "histogram_imax", a, 0, acc, map,
                                      "return a > b ? a : b;", imax));
  if (acc == KILN_UINT64) {
    *min = (double)(uint64_t)*imin;
    *max = (double)(uint64_t)*imax;
  } else {
    *min = (double)*imin;
    *max = (double)*imax;
  }
  return KILN_OK;
}

/* NumPy's _get_outer_edges and the dtypes of histogram(): see the header
 * comment; `a` is contiguous and real (bool counted as uint8). */
static kiln_status plan_uniform(kiln_context *ctx, kiln_stream *stream, const kiln_array *a,
                                const kiln_histogram_options *o, uniform_plan *p) {
  const char *what = "histogram";
  kiln_dtype f = a->dtype;
  int is_float = kiln_dtype_is_float(f);
  memset(p, 0, sizeof *p);
  p->bin_type = is_float ? f : KILN_FLOAT64;
  p->dt = KILN_FLOAT64;
  p->nq = (double)o->bins;
  if (o->has_range) {
    double r0 = o->range_min, r1 = o->range_max;
    if (r0 > r1)
      return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                            "%s: max must be larger than min in range parameter (range [%g, %g])",
                            what, r0, r1);
    if (!isfinite(r0) || !isfinite(r1))
      return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                            "%s: supplied range of [%g, %g] is not finite", what, r0, r1);
    if (r0 == r1) {
      r0 -= 0.5;
      r1 += 0.5;
    }
    p->first = r0;
    p->last = r1;
    p->denom = r1 - r0;
    return KILN_OK;
  }
  if (a->size == 0) {
    p->first = 0;
    p->last = 1;
    return KILN_OK;
  }
  double min = 0, max = 0;
  int64_t imin = 0, imax = 0;
  KILN_RETURN_IF_ERROR(extremes(ctx, stream, a, &min, &max, &imin, &imax));
  if (!isfinite(min) || !isfinite(max))
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "%s: autodetected range of [%g, %g] is not finite", what, min, max);
  if (is_float) {
    /* everything in a's dtype: the scalars a.min(), a.max() are of it */
    if (min == max) {
      min = round_to(f, min - 0.5);
      max = round_to(f, max + 0.5);
    }
    p->dt = f;
    p->quotient_in_bin_type = 1;
    p->first = min;
    p->last = max;
    p->denom = round_to(f, max - min);
    p->nq = round_to(f, (double)o->bins);
    return KILN_OK;
  }
  p->first = min;
  p->last = max;
  if (imin == imax) {
    p->first = min - 0.5;
    p->last = max + 0.5;
    p->denom = p->last - p->first;
  } else {
    /* _unsigned_subtract: the exact difference as an unsigned integer */
    p->denom = (double)((uint64_t)imax - (uint64_t)imin);
  }
  return KILN_OK;
}

/* The kernel's defines of an equal-width plan (count.kl, BIN_KIND 1). */
static void uniform_defines(const uniform_plan *p, kiln_strbuf *out) {
  const char *half_round = "kiln_half_to_float(kiln_float_to_half(v))";
  const char *b_t = p->bin_type == KILN_FLOAT64 ? "double" : "float";
  const char *b_round = p->bin_type == KILN_FLOAT16 ? half_round : "(v)";
  kiln_strbuf_appendf(out, "#define B_T %s\n#define B_ROUND(v) %s\n", b_t, b_round);
  kiln_strbuf_appendf(out, "#define Q_T %s\n#define Q_ROUND(v) %s\n",
                      p->quotient_in_bin_type ? b_t : "double",
                      p->quotient_in_bin_type ? b_round : "(v)");
  kiln_strbuf_appendf(out, "#define EDGE %s\n#define EDGE_LOAD(e) %s\n",
                      kiln_dtype_kernel_type(p->bin_type),
                      p->bin_type == KILN_FLOAT16 ? "kiln_half_to_float(e)" : "(e)");
}

typedef struct histogram_state {
  kiln_array *owned[4], *edges, *counts;
  kiln_ix_output hist, bin_edges;
  kiln_strbuf defines;
  double *host_edges;
} histogram_state;

/* The equal-width edges on the device (st->edges), checked as NumPy's. */
static kiln_status uniform_edges(kiln_context *ctx, const uniform_plan *p, int64_t bins,
                                 histogram_state *st) {
  size_t n = (size_t)bins + 1, item = kiln_dtype_size(p->bin_type);
  double *y = malloc(n * sizeof *y);
  unsigned char *bytes = malloc(n * item);
  kiln_status status = y && bytes ? KILN_OK
                                  : kiln_error_set(KILN_ERROR_OUT_OF_MEMORY,
                                                   "histogram: out of host memory for %lld "
                                                   "edges",
                                                   (long long)n);
  if (status == KILN_OK) {
    linspace(p->dt, p->first, p->last, bins, y);
    for (size_t k = 0; k < n; k++) {
      y[k] = round_to(p->bin_type, y[k]); /* .astype(bin_type) */
      unsigned char e[8];
      kiln_dtype_float_bytes(p->bin_type, y[k], e);
      memcpy(bytes + k * item, e, item);
      if (k > 0 && !(y[k - 1] < y[k]) && status == KILN_OK)
        status = kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                                "histogram: too many bins for data range: cannot create %lld "
                                "finite-sized bins (edges %zu and %zu are both %g)",
                                (long long)bins, k - 1, k, y[k]);
    }
  }
  int64_t shape = (int64_t)n;
  if (status == KILN_OK)
    status = kiln_array_from_host(ctx, p->bin_type, 1, &shape, NULL, bytes, &st->edges);
  free(y);
  free(bytes);
  return status;
}

/* Explicit edges: checked increasing on the host (as float64), then in
 * the dtype they are compared in. */
static kiln_status given_edges(kiln_context *ctx, kiln_stream *stream, const kiln_operand *edges,
                               kiln_dtype compare, histogram_state *st, const kiln_array **e) {
  const char *what = "histogram";
  const kiln_array *original = NULL, *as_double = NULL;
  KILN_RETURN_IF_ERROR(kiln_ix_input(ctx, what, "edges", edges, KILN_FLOAT64, KILN_DTYPE_COUNT,
                                     stream, &original, &st->owned[2]));
  if (original->ndim != 1)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "%s: the edges (bins) must be 1-D; they have %d dims", what,
                          original->ndim);
  int64_t n = original->size;
  if (n > 0) {
    kiln_array *tmp = NULL;
    KILN_RETURN_IF_ERROR(kiln_ix_contiguous(original, KILN_FLOAT64, stream, &as_double, &tmp));
    st->host_edges = malloc((size_t)n * sizeof(double));
    kiln_status status =
        st->host_edges ? KILN_OK
                       : kiln_error_set(KILN_ERROR_OUT_OF_MEMORY,
                                        "histogram: out of host memory for %lld edges",
                                        (long long)n);
    if (status == KILN_OK && stream) status = kiln_stream_synchronize(ctx, stream);
    if (status == KILN_OK) status = kiln_array_to_host(as_double, st->host_edges, NULL);
    kiln_array_release(tmp);
    KILN_RETURN_IF_ERROR(status);
    for (int64_t k = 1; k < n; k++)
      if (st->host_edges[k - 1] > st->host_edges[k])
        return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                              "%s: bins must increase monotonically (edges[%lld] = %g < "
                              "edges[%lld] = %g)",
                              what, (long long)k, st->host_edges[k], (long long)(k - 1),
                              st->host_edges[k - 1]);
  }
  st->edges = kiln_array_retain((kiln_array *)original);
  return kiln_ix_contiguous(original, compare, stream, e, &st->owned[3]);
}

static kiln_status histogram(kiln_context *ctx, kiln_operand a_operand,
                             const kiln_histogram_options *o, kiln_operand hist,
                             const kiln_operand *bin_edges, kiln_stream *stream,
                             histogram_state *st) {
  const char *what = "histogram";
  if (!o)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "%s: the options are NULL", what);
  kiln_dtype da = kiln_ix_operand_dtype(&a_operand);
  if (da == KILN_DTYPE_COUNT || kiln_dtype_is_complex(da))
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "%s: the input must be a real device array or host memory (it is %s)",
                          what, kiln_dtype_name(da));
  if (da == KILN_BOOL) da = KILN_UINT8; /* NumPy converts bool to uint8 */
  kiln_dtype de = o->edges ? kiln_ix_operand_dtype(o->edges) : KILN_DTYPE_COUNT;
  if (o->edges && (de == KILN_DTYPE_COUNT || kiln_dtype_is_complex(de)))
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "%s: the edges must be real, a device array or host memory (they are "
                          "%s)",
                          what, kiln_dtype_name(de));
  if (!o->edges && o->bins <= 0)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "%s: bins must be positive, when an integer (it is %lld)", what,
                          (long long)o->bins);
  kiln_dtype compare = o->edges ? kiln_ix_promote(da, de) : da;
  const kiln_array *a = NULL, *w = NULL, *e = NULL;
  KILN_RETURN_IF_ERROR(
      kiln_ix_input(ctx, what, "a", &a_operand, da, compare, stream, &a, &st->owned[0]));
  kiln_dtype result = KILN_INT64;
  if (o->weights) {
    result = kiln_ix_operand_dtype(o->weights);
    if (result == KILN_DTYPE_COUNT || kiln_dtype_is_complex(result))
      return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                            "%s: the weights must be real (complex weights are not supported), "
                            "a device array or host memory",
                            what);
    KILN_RETURN_IF_ERROR(kiln_ix_input(ctx, what, "weights", o->weights, KILN_FLOAT64,
                                       KILN_FLOAT64, stream, &w, &st->owned[1]));
    int same = w->ndim == a->ndim;
    for (int d = 0; same && d < a->ndim; d++) same = w->shape[d] == a->shape[d];
    if (!same)
      return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                            "%s: weights should have the same shape as a", what);
  }
  kiln_ix_count_job job = {.x = a, .weights = w};
  kiln_dtype edge_dtype;
  if (o->edges) {
    KILN_RETURN_IF_ERROR(given_edges(ctx, stream, o->edges, compare, st, &e));
    job.bin_kind = 2;
    job.nbins = e->size > 1 ? e->size - 1 : 0;
    job.edges = e;
    kiln_ix_key_defines(compare, &st->defines);
    edge_dtype = st->edges->dtype;
  } else {
    uniform_plan p;
    KILN_RETURN_IF_ERROR(plan_uniform(ctx, stream, a, o, &p));
    KILN_RETURN_IF_ERROR(uniform_edges(ctx, &p, o->bins, st));
    job.bin_kind = 1;
    job.nbins = o->bins;
    job.edges = st->edges;
    job.denom = p.denom;
    job.nq = p.nq;
    uniform_defines(&p, &st->defines);
    edge_dtype = p.bin_type;
  }
  KILN_RETURN_IF_ERROR(kiln_strbuf_status(&st->defines));
  job.defines = kiln_strbuf_text(&st->defines);
  KILN_RETURN_IF_ERROR(kiln_ix_output_begin(ctx, what, &hist, result, 1, &job.nbins, 0, &st->hist));
  if (bin_edges) {
    int64_t nedges = st->edges->size;
    KILN_RETURN_IF_ERROR(kiln_ix_output_begin(ctx, "histogram (bin_edges)", bin_edges, edge_dtype,
                                              1, &nedges, 0, &st->bin_edges));
  }
  KILN_RETURN_IF_ERROR(kiln_ix_count(ctx, stream, &job, &st->counts));
  if (job.nbins > 0)
    KILN_RETURN_IF_ERROR(kiln_ix_copy(st->hist.work, st->counts, stream));
  if (bin_edges && st->edges->size > 0)
    KILN_RETURN_IF_ERROR(kiln_ix_copy(st->bin_edges.work, st->edges, stream));
  KILN_RETURN_IF_ERROR(kiln_ix_output_finish(ctx, stream, &st->hist));
  return bin_edges ? kiln_ix_output_finish(ctx, stream, &st->bin_edges) : KILN_OK;
}

kiln_status kiln_histogram(kiln_context *ctx, kiln_operand a, const kiln_histogram_options *options,
                           kiln_operand hist, const kiln_operand *bin_edges, kiln_stream *stream) {
  kiln_reduce_clear_new(hist);
  if (bin_edges) kiln_reduce_clear_new(*bin_edges);
  KILN_CHECK_ARG(ctx);
  histogram_state st;
  memset(&st, 0, sizeof st);
  kiln_status status = histogram(ctx, a, options, hist, bin_edges, stream, &st);
  kiln_ix_output_free(&st.hist);
  kiln_ix_output_free(&st.bin_edges);
  kiln_strbuf_free(&st.defines);
  kiln_array_release(st.edges);
  kiln_array_release(st.counts);
  for (int i = 0; i < 4; i++) kiln_array_release(st.owned[i]);
  free(st.host_edges);
  return status;
}
