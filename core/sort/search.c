/* core/sort/search.c: kiln_searchsorted, one bisection per value
 * (kernels/builtin/search.kl) over the sorted array in NumPy's promoted
 * dtype, its first steps in a work-group's table of evenly spaced
 * elements; many values in a long array visited in their sorted order
 * (one coarse bisection for a key, a radix sort of the keys). */
#include <stdlib.h>
#include <string.h>

#include "core/sort/indexing_internal.h"
#include "core/sort/sort_internal.h"

/* The dtype a weak scalar takes beside an array of `dtype` (NEP 50). */
static kiln_dtype weak_dtype(const kiln_operand *o, kiln_dtype dtype) {
  if (o->kind != KILN_OPERAND_WEAK_SCALAR) return dtype;
  if (o->dtype == KILN_FLOAT64 && !kiln_dtype_is_float(dtype) && !kiln_dtype_is_complex(dtype))
    return KILN_FLOAT64;
  if (o->dtype == KILN_COMPLEX128 && !kiln_dtype_is_complex(dtype)) return KILN_COMPLEX128;
  return dtype;
}

/* Entries of searchsorted's table in local memory (search.kl's
 * SEARCH_TABLE): 8 KiB of the dtype's elements. */
#define SEARCH_TABLE_BYTES 8192

int64_t kiln_ix_search_table(kiln_dtype dtype) {
  return SEARCH_TABLE_BYTES / (int64_t)kiln_dtype_size(dtype);
}

void kiln_ix_search_defines(kiln_dtype dtype, kiln_strbuf *out) {
  kiln_ix_key_defines(dtype, out);
  kiln_strbuf_appendf(out, "#define SEARCH_TABLE %lld\n", (long long)kiln_ix_search_table(dtype));
}

/* The sorted order: values visited in their sorted order where there
 * are many of them in a long sorted array. Each value's bisection is the
 * same either way (so are the results); what changes is which values
 * neighbouring work-items take. In the input's order every value walks its
 * own path to the bottom of the tree, a cache miss at each of its last
 * steps; sorted, neighbours share the top of the tree and end among
 * nearby elements, which the caches then hold. The order costs a coarse
 * bisection of each value (the work-group table's, to an 11-bit key for
 * 4-byte elements, see below), a radix sort of those bits (two passes over
 * m keys and indices) and the values read through the permutation.
 * Measured on PoCL (2-core AMD EPYC) and the H100 (CUDA and NVIDIA's
 * OpenCL): docs/searching.md; `auto`'s rules below.
 * $KILN_SEARCH_ORDER (auto, sorted, direct; read at each call) fixes it,
 * for bench A/B runs and tests. */
typedef enum search_order { ORDER_AUTO, ORDER_SORTED, ORDER_DIRECT } search_order;

static kiln_status env_search_order(search_order *order) {
  *order = ORDER_AUTO;
  const char *v = getenv("KILN_SEARCH_ORDER");
  if (!v || !*v || strcmp(v, "auto") == 0) return KILN_OK;
  if (strcmp(v, "sorted") == 0 || strcmp(v, "direct") == 0) {
    *order = v[0] == 's' ? ORDER_SORTED : ORDER_DIRECT;
    return KILN_OK;
  }
  return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                        "searchsorted: KILN_SEARCH_ORDER=%s is none of sorted, direct, auto", v);
}

/* The sorted order under `auto` on CPU devices: a sorted array of 2^23
 * elements or more, at least 2^16 values and a value every 64 elements
 * (measured at one every 10 only). PoCL, 2-core AMD EPYC, n/10 values in
 * n, the input's order -> the sorted order in one process, ms: float32
 * 2^22 47-58 -> 52-55 (no gain), 2^23 144-146 -> 109-111, 1e7 189-229 ->
 * 128-134; float64 2^22 69.5 -> 55-57, int64 2^22 46.5 -> 44-51,
 * complex128 2^22 68 -> 72; float64, int64, complex128 2^23 198-207 ->
 * 126-137, 125-128 -> 104-106, 176 -> 151 (docs/searching.md). */
#define SEARCH_SORTED_MIN_LENGTH ((int64_t)1 << 23)
#define SEARCH_SORTED_MIN_VALUES ((int64_t)1 << 16)

/* On GPUs, where the sorted array exceeds 4 times the device's cache and
 * there is a value every 16 elements. H100 (50 MiB of L2), CUDA, the
 * sorted order's time over the input's, n/10 values in n: float32 2^24
 * (67 MB) 1.05, 2^25 (134 MB) 0.95, 2^26 (268 MB) 0.84, 1e8 0.76; float64
 * and int64 2^25 (268 MB) 0.94-0.95, 2^26 0.75, 1e8 0.69-0.70; n values
 * 0.69-0.81 from 268 MB; n/100 values lose below 268 MB and gain 0.84-0.94
 * above (left to the input's order). NVIDIA's OpenCL the same within 0.03,
 * though it reports 4 MiB of first-level caches as its cache: the floor of
 * 32 MiB keeps such a report from taking the order for tables the L2
 * holds (1.2-3x slower there). */
#define SEARCH_SORTED_GPU_CACHE_FLOOR ((uint64_t)32 << 20)

/* Whether kiln_searchsorted visits the values in their sorted order. */
static int sorted_order(const kiln_context *ctx, search_order order, const kiln_array *a,
                        int64_t m) {
  /* the order is a permutation of uint32 indices; one value has no order */
  if (m < 2 || m > (int64_t)UINT32_MAX || a->size < 2) return 0;
  if (order != ORDER_AUTO) return order == ORDER_SORTED;
  if (m < SEARCH_SORTED_MIN_VALUES) return 0;
  if (ctx->info.type == KILN_DEVICE_CPU)
    return a->size >= SEARCH_SORTED_MIN_LENGTH && m >= a->size / 64;
  if (ctx->info.type != KILN_DEVICE_GPU) return 0;
  uint64_t cache = ctx->info.cache_size > SEARCH_SORTED_GPU_CACHE_FLOOR
                       ? ctx->info.cache_size
                       : SEARCH_SORTED_GPU_CACHE_FLOOR;
  return (uint64_t)a->size * kiln_dtype_size(a->dtype) >= 4 * cache && m >= a->size / 16;
}

typedef struct search_state {
  kiln_array *owned[3];
  kiln_array *keys, *perm;
  kiln_ix_output out;
  kiln_strbuf defines;
} search_state;

static kiln_status check_sorter(kiln_context *ctx, kiln_stream *stream, const kiln_array *sorter,
                                int64_t length) {
  const char *what = "searchsorted";
  if (sorter->ndim != 1 || sorter->size != length)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "%s: the sorter has %d dims and %lld elements; it must be 1-D with "
                          "the sorted array's %lld",
                          what, sorter->ndim, (long long)sorter->size, (long long)length);
  if (length == 0) return KILN_OK;
  int64_t min = 0, max = 0;
  KILN_RETURN_IF_ERROR(kiln_ix_min_max(ctx, stream, sorter, &min, &max));
  if (min < 0 || max >= length)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "%s: the sorter holds %lld, out of range for a sorted array of %lld "
                          "elements (NumPy: Sorter index out of range)",
                          what, (long long)(min < 0 ? min : max), (long long)length);
  return KILN_OK;
}

/* One launch of search.kl over the values: into out (int64 positions, or
 * uint32 keys when stop > 0), in perm's order when perm. */
typedef struct search_pass {
  const kiln_array *out, *perm;
  int use_table;
  int64_t stop, shift;
} search_pass;

static kiln_status search_launch(kiln_context *ctx, kiln_stream *stream, search_state *st,
                                 const kiln_array *a, const kiln_array *v, const kiln_array *s,
                                 kiln_side side, const search_pass *pass) {
  kiln_ix_args args = {0};
  kiln_ix_arg_array(&args, pass->out);
  kiln_ix_arg_array(&args, a);
  kiln_ix_arg_array(&args, v);
  kiln_ix_arg_array(&args, s ? s : a);                  /* never read without a sorter */
  kiln_ix_arg_array(&args, pass->perm ? pass->perm : a); /* nor without an order */
  kiln_ix_arg_int(&args, a->size);
  kiln_ix_arg_int(&args, s != NULL);
  kiln_ix_arg_int(&args, side == KILN_SIDE_RIGHT);
  kiln_ix_arg_int(&args, pass->use_table);
  kiln_ix_arg_int(&args, pass->perm != NULL);
  kiln_ix_arg_int(&args, pass->stop);
  kiln_ix_arg_int(&args, pass->shift);
  return kiln_ix_launch(ctx, stream, kiln_builtin_search, kiln_strbuf_text(&st->defines),
                        "kiln_searchsorted", v->size, &args);
}

static kiln_status search(kiln_context *ctx, kiln_operand sorted, kiln_operand values,
                          const kiln_operand *sorter, kiln_side side, kiln_operand output,
                          kiln_stream *stream, search_state *st) {
  const char *what = "searchsorted";
  kiln_dtype ds = kiln_ix_operand_dtype(&sorted);
  if (ds == KILN_DTYPE_COUNT || sorted.kind == KILN_OPERAND_SCALAR)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "%s: the sorted array must be a device array or host memory", what);
  if (side != KILN_SIDE_LEFT && side != KILN_SIDE_RIGHT)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "%s: side %d is neither left nor right",
                          what, (int)side);
  kiln_dtype scalar = weak_dtype(&values, ds);
  kiln_dtype dv = values.kind == KILN_OPERAND_WEAK_SCALAR ? scalar : kiln_ix_operand_dtype(&values);
  if (dv == KILN_DTYPE_COUNT)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "%s: the values must be a device array, host memory or a scalar", what);
  kiln_dtype common = kiln_ix_promote(ds, dv);
  const kiln_array *a = NULL, *v = NULL, *s = NULL;
  KILN_RETURN_IF_ERROR(
      kiln_ix_input(ctx, what, "sorted array", &sorted, ds, common, stream, &a, &st->owned[0]));
  if (a->ndim != 1)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "%s: the sorted array must be 1-D; it has %d dims", what, a->ndim);
  KILN_RETURN_IF_ERROR(
      kiln_ix_input(ctx, what, "values", &values, scalar, common, stream, &v, &st->owned[1]));
  if (sorter) {
    KILN_RETURN_IF_ERROR(kiln_ix_check_index_dtype(what, "sorter's values",
                                                   kiln_ix_operand_dtype(sorter)));
    KILN_RETURN_IF_ERROR(
        kiln_ix_input(ctx, what, "sorter", sorter, KILN_INT64, KILN_INT64, stream, &s,
                      &st->owned[2]));
    KILN_RETURN_IF_ERROR(check_sorter(ctx, stream, s, a->size));
  }
  KILN_RETURN_IF_ERROR(
      kiln_ix_output_begin(ctx, what, &output, KILN_INT64, v->ndim, v->shape, 0, &st->out));
  int64_t table = kiln_ix_search_table(common);
  kiln_ix_search_defines(common, &st->defines);
  KILN_RETURN_IF_ERROR(kiln_strbuf_status(&st->defines));
  /* the table pays its load (per work-group) back where the bisection is
   * long and there are values enough to share it */
  int use_table = a->size >= 4 * table && v->size >= table;
  search_order order;
  KILN_RETURN_IF_ERROR(env_search_order(&order));
  if (!sorted_order(ctx, order, a, v->size)) {
    search_pass pass = {st->out.work, NULL, use_table, 0, 0};
    KILN_RETURN_IF_ERROR(search_launch(ctx, stream, st, a, v, s, side, &pass));
    return kiln_ix_output_finish(ctx, stream, &st->out);
  }
  /* keys: lo >> shift once at most 2^shift elements are left, below
   * 2^key_bits (lo <= length), key_bits = log2(table): the table's
   * bisection alone, no step in global memory (PoCL, 1e6 float32 values
   * in 1e7: 139 ms with 11 bits, 149 with 12, 170 with 16, 143 with 8; the
   * input's order 239) */
  int bits = kiln_sort_bit_length((uint64_t)a->size);
  int key_bits = kiln_sort_bit_length((uint64_t)table) - 1;
  int shift = bits > key_bits ? bits - key_bits : 0;
  int64_t m = v->size;
  KILN_RETURN_IF_ERROR(kiln_array_alloc(ctx, KILN_UINT32, 1, &m, &st->keys));
  KILN_RETURN_IF_ERROR(kiln_buffer_use_on_stream(st->keys->buffer, stream));
  KILN_RETURN_IF_ERROR(kiln_array_alloc(ctx, KILN_UINT32, 1, &m, &st->perm));
  KILN_RETURN_IF_ERROR(kiln_buffer_use_on_stream(st->perm->buffer, stream));
  search_pass coarse = {st->keys, NULL, use_table, (int64_t)1 << shift, shift};
  KILN_RETURN_IF_ERROR(search_launch(ctx, stream, st, a, v, s, side, &coarse));
  KILN_RETURN_IF_ERROR(
      kiln_sort_pairs_device(ctx, stream, st->keys, st->perm, 1, 0, bits - shift));
  /* sorted values share the top of the tree: no table to load */
  search_pass full = {st->out.work, st->perm, 0, 0, 0};
  KILN_RETURN_IF_ERROR(search_launch(ctx, stream, st, a, v, s, side, &full));
  return kiln_ix_output_finish(ctx, stream, &st->out);
}

kiln_status kiln_searchsorted(kiln_context *ctx, kiln_operand sorted, kiln_operand values,
                              const kiln_operand *sorter, kiln_side side, kiln_operand output,
                              kiln_stream *stream) {
  kiln_reduce_clear_new(output);
  KILN_CHECK_ARG(ctx);
  search_state st;
  memset(&st, 0, sizeof st);
  kiln_status status = search(ctx, sorted, values, sorter, side, output, stream, &st);
  kiln_ix_output_free(&st.out);
  kiln_strbuf_free(&st.defines);
  for (int i = 0; i < 3; i++) kiln_array_release(st.owned[i]);
  kiln_array_release(st.keys);
  kiln_array_release(st.perm);
  return status;
}
