/* core/random/random_permutation.c: permutation and shuffle as NumPy's
 * Generator methods, by random keys: n 64-bit keys drawn from the
 * generator (kiln_random_integers_u64 over the full range, so the keys are
 * the same on every backend and on the host), then the stable order of
 * the keys (ties broken by index), which is unique. On a device the keys
 * are drawn into a device array and ordered by kiln's radix sort
 * (kiln_sort_pairs_device of core/sort, the floor beside random, values
 * the iota 0..n-1); the host generator (ctx NULL, host output) orders them
 * with qsort. Both give the same permutation, bit for bit. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/array/array_internal.h"
#include "core/codegen/elementwise.h"
#include "core/random/random_internal.h"
#include "core/runtime/error.h"
#include "core/sort/indexing_internal.h"
#include "core/sort/sort_internal.h"

extern const char kiln_builtin_shuffle[];

typedef struct keyed_index {
  uint64_t key;
  int64_t index;
} keyed_index;

static int compare_keyed(const void *a, const void *b) {
  const keyed_index *x = a, *y = b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return (x->index > y->index) - (x->index < y->index);
}

/* The host generator: perm[0..n-1] = the stable argsort of n keys drawn
 * from gen on the CPU. */
static kiln_status host_argsort(kiln_random_generator *gen, int64_t n, int64_t *perm) {
  if (n == 0) return KILN_OK;
  uint64_t *keys = malloc((size_t)n * sizeof *keys);
  keyed_index *pairs = malloc((size_t)n * sizeof *pairs);
  kiln_status status = KILN_OK;
  if (!keys || !pairs) {
    status = kiln_error_set(KILN_ERROR_OUT_OF_MEMORY, "random permutation: out of host memory "
                            "(%lld keys)", (long long)n);
  } else {
    status = kiln_random_integers_u64(gen, NULL, 0, UINT64_MAX, 1,
                                      kiln_operand_host_output(keys, KILN_UINT64, 1, &n, NULL),
                                      NULL);
  }
  if (status == KILN_OK) {
    for (int64_t i = 0; i < n; i++) pairs[i] = (keyed_index){keys[i], i};
    qsort(pairs, (size_t)n, sizeof *pairs, compare_keyed);
    for (int64_t i = 0; i < n; i++) perm[i] = pairs[i].index;
  }
  free(keys);
  free(pairs);
  return status;
}

/* The host generator's permutation written into host output `out`. */
static kiln_status host_permutation(kiln_random_generator *gen, const kiln_operand *out,
                                    kiln_dtype dtype, int64_t n) {
  int64_t *perm = malloc((size_t)(n > 0 ? n : 1) * sizeof *perm);
  if (!perm)
    return kiln_error_set(KILN_ERROR_OUT_OF_MEMORY, "random permutation: out of host memory");
  kiln_status status = host_argsort(gen, n, perm);
  int64_t stride = out->value.host.strides ? out->value.host.strides[0]
                                           : (int64_t)kiln_dtype_size(dtype);
  char *base = out->value.host.writable;
  for (int64_t i = 0; status == KILN_OK && i < n; i++) {
    int64_t v = perm[i];
    if (kiln_dtype_size(dtype) == 8) {
      memcpy(base + i * stride, &v, 8);
    } else {
      uint32_t v32 = (uint32_t)v;
      memcpy(base + i * stride, &v32, 4);
    }
  }
  free(perm);
  return status;
}

/* The uint32 (n <= UINT32_MAX) or uint64 dtype of a permutation of n. */
static kiln_dtype order_dtype(int64_t n) {
  return n <= (int64_t)UINT32_MAX ? KILN_UINT32 : KILN_UINT64;
}

/* A view of `a` (any geometry) with its elements read as `dtype` of the
 * same size. */
static kiln_status reinterpret(const kiln_array *a, kiln_dtype dtype, kiln_array **out) {
  return kiln_array_view_new(a, dtype, a->ndim, a->shape, a->strides, a->offset, out);
}

/* order (1-D contiguous uint32 or uint64, n > 0) = the stable argsort of
 * n keys drawn from gen on ctx's device, queued on stream. */
static kiln_status device_argsort(kiln_random_generator *gen, kiln_context *ctx,
                                  kiln_array *order, kiln_stream *stream) {
  int64_t n = order->size;
  kiln_array *keys = NULL;
  KILN_RETURN_IF_ERROR(kiln_array_alloc(ctx, KILN_UINT64, 1, &n, &keys));
  kiln_status status = kiln_random_integers_u64(gen, ctx, 0, UINT64_MAX, 1,
                                                kiln_operand_array(keys), stream);
  if (status == KILN_OK) status = kiln_buffer_use_on_stream(order->buffer, stream);
  if (status == KILN_OK) status = kiln_sort_pairs_device(ctx, stream, keys, order, 1, 0, 64);
  kiln_array_release(keys);
  return status;
}

/* Writes order (the permutation, uint32 or uint64) into `out` of dtype:
 * 64-bit outputs as sort's int64 indices (any view, host memory), 32-bit
 * ones as order's own bits. */
static kiln_status deliver(kiln_context *ctx, const kiln_operand *out, kiln_dtype dtype,
                           const kiln_array *order, kiln_stream *stream) {
  const kiln_array *given = out->kind == KILN_OPERAND_ARRAY ? out->value.array : NULL;
  kiln_array *view = NULL;
  kiln_status status = KILN_OK;
  if (kiln_dtype_size(dtype) == 8) {
    kiln_operand as_int64 = *out;
    as_int64.dtype = KILN_INT64;
    if (given) {
      KILN_RETURN_IF_ERROR(reinterpret(given, KILN_INT64, &view));
      as_int64 = kiln_operand_array(view);
    }
    kiln_sort_input in = {.ndim = 1, .shape = {order->size}, .axis = 0};
    status = kiln_sort_write_output(ctx, "random permutation", "output", &as_int64, KILN_INT64,
                                    &in, NULL, order, 0, stream);
  } else if (given) {
    status = reinterpret(given, KILN_UINT32, &view);
    if (status == KILN_OK) status = kiln_ew_copy_on(view, order, stream);
  } else {
    if (stream) status = kiln_stream_synchronize(ctx, stream);
    if (status == KILN_OK)
      status = kiln_array_to_host(order, out->value.host.writable, out->value.host.strides);
  }
  kiln_array_release(view);
  return status;
}

/* The permutation of n (> 0) drawn and ordered on ctx's device, into out:
 * straight into a contiguous device output whose elements are the order's
 * size, else through a temporary. */
static kiln_status device_permutation(kiln_random_generator *gen, kiln_context *ctx,
                                      const kiln_operand *out, kiln_dtype dtype, int64_t n,
                                      kiln_stream *stream) {
  kiln_dtype odt = order_dtype(n);
  const kiln_array *given = out->kind == KILN_OPERAND_ARRAY ? out->value.array : NULL;
  int direct = given && kiln_dtype_size(dtype) == kiln_dtype_size(odt) &&
               kiln_array_is_contiguous(given);
  kiln_array *order = NULL;
  if (direct) {
    int64_t stride = (int64_t)kiln_dtype_size(odt);
    KILN_RETURN_IF_ERROR(kiln_array_view_new(given, odt, 1, &n, &stride, given->offset, &order));
  } else {
    KILN_RETURN_IF_ERROR(kiln_array_alloc(ctx, odt, 1, &n, &order));
  }
  kiln_status status = device_argsort(gen, ctx, order, stream);
  if (status == KILN_OK && !direct) status = deliver(ctx, out, dtype, order, stream);
  kiln_array_release(order);
  return status;
}

kiln_status kiln_random_permutation(kiln_random_generator *gen, kiln_context *ctx,
                                    kiln_operand out, kiln_stream *stream) {
  KILN_CHECK_ARG(gen);
  int ndim;
  const int64_t *shape;
  kiln_dtype dtype;
  if (out.kind == KILN_OPERAND_ARRAY && out.value.array) {
    ndim = out.value.array->ndim;
    shape = out.value.array->shape;
    dtype = out.value.array->dtype;
    if (ctx && out.value.array->buffer->ctx != ctx)
      return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                            "random permutation: the output array belongs to another context");
  } else if (out.kind == KILN_OPERAND_HOST && (out.value.host.writable ||
                                               (out.value.host.ndim == 1 &&
                                                out.value.host.shape &&
                                                out.value.host.shape[0] == 0))) {
    ndim = out.value.host.ndim;
    shape = out.value.host.shape;
    dtype = out.dtype;
  } else {
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "random permutation: the output must be a device array or a writable "
                          "host output");
  }
  if (ndim != 1 || !shape || shape[0] < 0)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "random permutation: the output must have one dimension (it has %d)",
                          ndim);
  int64_t n = shape[0];
  if (dtype != KILN_INT64 && dtype != KILN_UINT64 && !(dtype == KILN_INT32 && n <= INT32_MAX) &&
      !(dtype == KILN_UINT32 && n <= (int64_t)UINT32_MAX))
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "random permutation: the output dtype %s cannot hold the indices "
                          "0..%lld (int64, uint64, or a 32-bit integer for n < 2^31)",
                          kiln_dtype_name(dtype), (long long)n - 1);
  if (n == 0) return KILN_OK;
  if (out.kind == KILN_OPERAND_HOST && !ctx) return host_permutation(gen, &out, dtype, n);
  if (!ctx) ctx = out.value.array->buffer->ctx;
  return device_permutation(gen, ctx, &out, dtype, n, stream);
}

/* The largest word (8, 4, 2 or 1 bytes) dividing every one of the values. */
static size_t word_dividing(int64_t a, int64_t b, int64_t c) {
  size_t word = 8;
  while (word > 1 && ((a | b | c) & (int64_t)(word - 1))) word /= 2;
  return word;
}

/* The row gather's #defines: words of `word` bytes, an order of
 * order_bytes (4 or 8) per row. */
static void shuffle_defines(int word, int order_bytes, char *out, size_t size) {
  snprintf(out, size, "#define WORD uint%d_t\n#define ORDER_T uint%d_t\n", word * 8,
           order_bytes * 8);
}

kiln_status kiln_random_shuffle_catalog_add(kiln_catalog *catalog) {
  kiln_strbuf source = {0};
  /* as kiln_ix_program composes it (core/sort/indexing_operands.c) */
  kiln_strbuf_append(&source, "#define KILN_IX_AT(T, bytes, offset) "
                              "((KILN_GLOBAL T *)((bytes) + (offset)))\n");
  for (int word = 1; word <= 8; word *= 2)
    for (int order_bytes = 4; order_bytes <= 8; order_bytes += 4) {
      char defines[96];
      shuffle_defines(word, order_bytes, defines, sizeof defines);
      kiln_strbuf_appendf(&source, "#define kiln_shuffle_rows kiln_shuffle_rows_%d_%d\n%s",
                          word, order_bytes, defines);
      kiln_strbuf_append(&source, kiln_builtin_shuffle);
      kiln_strbuf_append(&source, "#undef kiln_shuffle_rows\n#undef WORD\n#undef ORDER_T\n");
    }
  kiln_status status = kiln_strbuf_status(&source);
  if (status == KILN_OK)
    status = kiln_catalog_add(catalog, "random shuffle rows", kiln_strbuf_text(&source));
  kiln_strbuf_free(&source);
  return status;
}

/* moved (C-contiguous, src's shape) = src's rows (C-contiguous) in
 * `order`, one work-item per word, queued on stream. */
static kiln_status gather_rows(kiln_context *ctx, const kiln_array *src, const kiln_array *order,
                               const kiln_array *moved, kiln_stream *stream) {
  int64_t rows = src->shape[0];
  int64_t row_bytes = src->size / rows * (int64_t)kiln_dtype_size(src->dtype);
  size_t word = word_dividing(row_bytes, src->offset, moved->offset);
  char defines[96];
  shuffle_defines((int)word, (int)kiln_dtype_size(order->dtype), defines, sizeof defines);
  kiln_ix_args args = {0};
  kiln_ix_arg_array(&args, moved);
  kiln_ix_arg_array(&args, src);
  kiln_ix_arg_array(&args, order);
  kiln_ix_arg_int(&args, row_bytes / (int64_t)word);
  return kiln_ix_launch(ctx, stream, kiln_builtin_shuffle, defines, "kiln_shuffle_rows",
                        rows * (row_bytes / (int64_t)word), &args);
}

kiln_status kiln_random_shuffle(kiln_random_generator *gen, kiln_array *array,
                                kiln_stream *stream) {
  KILN_CHECK_ARG(gen);
  KILN_CHECK_ARG(array);
  if (array->ndim < 1)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "random shuffle: a 0-d array has no axis to shuffle");
  for (int d = 0; d < array->ndim; d++)
    if (array->strides[d] == 0 && array->shape[d] > 1)
      return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                            "random shuffle: the array is a broadcast view");
  int64_t rows = array->shape[0];
  if (rows == 0) return KILN_OK;
  kiln_context *ctx = array->buffer->ctx;
  /* the rows' order (drawn even when the rows are empty, as the host's
   * permutation of shape[0] would) */
  kiln_array *order = NULL, *owned = NULL, *moved = NULL;
  const kiln_array *src = NULL;
  KILN_RETURN_IF_ERROR(kiln_array_alloc(ctx, order_dtype(rows), 1, &rows, &order));
  kiln_status status = device_argsort(gen, ctx, order, stream);
  if (status == KILN_OK && array->size > 0) {
    status = kiln_ix_contiguous(array, KILN_DTYPE_COUNT, stream, &src, &owned);
    if (status == KILN_OK)
      status = kiln_array_alloc(ctx, array->dtype, array->ndim, array->shape, &moved);
    if (status == KILN_OK) status = kiln_buffer_use_on_stream(moved->buffer, stream);
    if (status == KILN_OK) status = gather_rows(ctx, src, order, moved, stream);
    if (status == KILN_OK) status = kiln_ew_copy_on(array, moved, stream);
  }
  if (status == KILN_OK) status = kiln_stream_synchronize(ctx, stream);
  kiln_array_release(moved);
  kiln_array_release(owned);
  kiln_array_release(order);
  return status;
}
