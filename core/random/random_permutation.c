/* core/random/random_permutation.c: permutation and shuffle as NumPy's
 * Generator methods, by random keys: n 64-bit keys drawn from the
 * generator (kiln_random_integers_u64 over the full range, so the keys are
 * the same on every backend and on the host), then the stable order of
 * the keys. The order is computed on the host for now (qsort of (key,
 * index) pairs: the stable argsort); kiln's device sort (sort issue, on
 * another branch) will replace random_argsort with a sort by key on the
 * device, with the same result since the order of distinct keys (ties
 * broken by index) is unique. */
#include <stdlib.h>
#include <string.h>

#include "core/array/array_internal.h"
#include "core/random/random_internal.h"
#include "core/runtime/error.h"

typedef struct keyed_index {
  uint64_t key;
  int64_t index;
} keyed_index;

static int compare_keyed(const void *a, const void *b) {
  const keyed_index *x = a, *y = b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return (x->index > y->index) - (x->index < y->index);
}

/* perm[0..n-1]: the stable argsort of n keys drawn from gen. */
static kiln_status random_argsort(kiln_random_generator *gen, int64_t n, int64_t *perm) {
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
  int64_t *perm = malloc((size_t)(n > 0 ? n : 1) * sizeof *perm);
  if (!perm)
    return kiln_error_set(KILN_ERROR_OUT_OF_MEMORY, "random permutation: out of host memory");
  kiln_status status = random_argsort(gen, n, perm);
  if (status == KILN_OK && n > 0) {
    if (out.kind == KILN_OPERAND_HOST) {
      int64_t stride = out.value.host.strides ? out.value.host.strides[0]
                                              : (int64_t)kiln_dtype_size(dtype);
      char *base = out.value.host.writable;
      for (int64_t i = 0; i < n; i++) {
        int64_t v = perm[i];
        if (kiln_dtype_size(dtype) == 8) memcpy(base + i * stride, &v, 8);
        else {
          uint32_t v32 = (uint32_t)v;
          memcpy(base + i * stride, &v32, 4);
        }
      }
    } else {
      kiln_array *staged = NULL;
      status = kiln_array_from_host(out.value.array->buffer->ctx, KILN_INT64, 1, &n, NULL, perm,
                                    &staged);
      if (status == KILN_OK && stream) status = kiln_stream_synchronize(ctx ? ctx : out.value.array->buffer->ctx, stream);
      if (status == KILN_OK) status = kiln_array_copy_into((kiln_array *)out.value.array, staged);
      kiln_array_release(staged);
    }
  }
  free(perm);
  return status;
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
  size_t row_bytes = (size_t)(rows > 0 ? array->size / rows : 0) * kiln_dtype_size(array->dtype);
  if (rows == 0) return KILN_OK;
  kiln_context *ctx = array->buffer->ctx;
  int64_t *perm = malloc((size_t)rows * sizeof *perm);
  char *old_rows = malloc((size_t)array->size * kiln_dtype_size(array->dtype) + 1);
  char *new_rows = malloc((size_t)array->size * kiln_dtype_size(array->dtype) + 1);
  kiln_status status = KILN_OK;
  if (!perm || !old_rows || !new_rows)
    status = kiln_error_set(KILN_ERROR_OUT_OF_MEMORY, "random shuffle: out of host memory");
  if (status == KILN_OK) status = random_argsort(gen, rows, perm);
  if (status == KILN_OK && stream) status = kiln_stream_synchronize(ctx, stream);
  if (status == KILN_OK) status = kiln_array_to_host(array, old_rows, NULL);
  if (status == KILN_OK) {
    for (int64_t i = 0; i < rows; i++)
      memcpy(new_rows + (size_t)i * row_bytes, old_rows + (size_t)perm[i] * row_bytes, row_bytes);
    kiln_array *staged = NULL;
    status = kiln_array_from_host(ctx, array->dtype, array->ndim, array->shape, NULL, new_rows,
                                  &staged);
    if (status == KILN_OK) status = kiln_array_copy_into(array, staged);
    kiln_array_release(staged);
  }
  free(perm);
  free(old_rows);
  free(new_rows);
  return status;
}
