/* core/sort/sort_keys.c: from a dtype's elements to the permutation that
 * sorts them: the key words of each dtype (least significant first), one
 * stable sort per word, then one by row or segment; and the gather that
 * applies a permutation. */
#include <string.h>

#include "core/sort/sort_internal.h"

kiln_sort_key_format kiln_sort_key_format_of(kiln_dtype dtype) {
  switch (dtype) {
    case KILN_BOOL:
    case KILN_UINT8: return (kiln_sort_key_format){KILN_SORT_KIND_UINT8, 1, 8};
    case KILN_INT8: return (kiln_sort_key_format){KILN_SORT_KIND_INT8, 1, 8};
    case KILN_UINT16: return (kiln_sort_key_format){KILN_SORT_KIND_UINT16, 1, 16};
    case KILN_INT16: return (kiln_sort_key_format){KILN_SORT_KIND_INT16, 1, 16};
    case KILN_FLOAT16: return (kiln_sort_key_format){KILN_SORT_KIND_FLOAT16, 1, 16};
    case KILN_UINT32: return (kiln_sort_key_format){KILN_SORT_KIND_UINT32, 1, 32};
    case KILN_INT32: return (kiln_sort_key_format){KILN_SORT_KIND_INT32, 1, 32};
    case KILN_FLOAT32: return (kiln_sort_key_format){KILN_SORT_KIND_FLOAT32, 1, 32};
    case KILN_UINT64: return (kiln_sort_key_format){KILN_SORT_KIND_UINT64, 1, 64};
    case KILN_INT64: return (kiln_sort_key_format){KILN_SORT_KIND_INT64, 1, 64};
    case KILN_FLOAT64: return (kiln_sort_key_format){KILN_SORT_KIND_FLOAT64, 1, 64};
    case KILN_COMPLEX64: return (kiln_sort_key_format){KILN_SORT_KIND_COMPLEX64, 1, 64};
    default: return (kiln_sort_key_format){KILN_SORT_KIND_COMPLEX128, 2, 64};
  }
}

int kiln_sort_keys_invertible(kiln_dtype dtype) {
  switch (dtype) {
    case KILN_BOOL: case KILN_UINT8: case KILN_INT8: case KILN_UINT16: case KILN_INT16:
    case KILN_UINT32: case KILN_INT32: case KILN_UINT64: case KILN_INT64: return 1;
    default: return 0;
  }
}

int kiln_sort_bit_length(uint64_t v) {
  int b = 0;
  while (v) b++, v >>= 1;
  return b;
}

static kiln_status launch_elements(kiln_context *ctx, kiln_stream *stream,
                                   const kiln_program *program, int64_t n, int nargs,
                                   const kiln_backend_arg *args) {
  if (n <= 0) return KILN_OK;
  kiln_backend_launch launch = {.work_dim = 1, .global = {1, 1, 1}, .local = {1, 1, 1}};
  kiln_program_grid_1d(ctx, program, n, &launch.global[0], &launch.local[0]);
  return kiln_program_launch(ctx, program, stream, &launch, nargs, args);
}

/* keys = word `word` of the key of element perm[i] (i when !use_perm) of
 * the job's source, kind `kind` (a data kind, or ROWS/OFFSETS). */
static kiln_status make_keys(const kiln_sort_job *job, const kiln_array *perm, int use_perm,
                             kiln_sort_key_kind kind, int word, uint64_t flip,
                             const kiln_array *keys) {
  kiln_program *program = NULL;
  KILN_RETURN_IF_ERROR(kiln_sort_program(job->ctx, "sort_make_keys",
                                         (int)kiln_dtype_size(keys->dtype),
                                         (int)kiln_dtype_size(perm->dtype), 4, 256, &program));
  int64_t n = keys->size, row_len = job->row_len > 0 ? job->row_len : 1, nseg = job->nseg;
  int32_t use = use_perm, kind32 = (int32_t)kind, word32 = word;
  const kiln_array *offsets = job->offsets ? job->offsets : keys;
  kiln_backend_arg args[11] = {
      kiln_sort_arg_array(job->src->size ? job->src : keys),
      kiln_sort_arg_array(perm),
      kiln_sort_arg_array(keys),
      kiln_sort_arg_scalar(&n, 8),
      kiln_sort_arg_scalar(&use, 4),
      kiln_sort_arg_scalar(&kind32, 4),
      kiln_sort_arg_scalar(&word32, 4),
      kiln_sort_arg_scalar(&flip, 8),
      kiln_sort_arg_scalar(&row_len, 8),
      kiln_sort_arg_array(offsets),
      kiln_sort_arg_scalar(&nseg, 8)};
  return launch_elements(job->ctx, job->stream, program, n, 11, args);
}

/* Sorts every row or segment (each at most KILN_SORT_TILE) of keys with
 * perm in one launch (iota: perm is written, not read). Short rows share a
 * tile (of 256 keys at least). */
static kiln_status sort_segments(const kiln_sort_job *job, kiln_array *keys, kiln_array *perm,
                                 kiln_array *keys_out, kiln_array *perm_out, int iota, int bits) {
  int64_t row_len = job->row_len, nseg = job->nseg, n = keys->size, rows_per_tile = 1;
  int tile = kiln_sort_tile_for(job->max_segment);
  if (row_len > 0) rows_per_tile = tile / row_len;
  int64_t ntiles = (nseg + rows_per_tile - 1) / rows_per_tile;
  kiln_program *program = NULL;
  KILN_RETURN_IF_ERROR(kiln_sort_program(job->ctx, "sort_segments",
                                         (int)kiln_dtype_size(keys->dtype),
                                         (int)kiln_dtype_size(perm->dtype), 4, tile, &program));
  int32_t use_offsets = job->row_len == 0, begin = 0, end = bits, iota32 = iota;
  kiln_backend_arg args[13] = {
      kiln_sort_arg_array(keys),
      kiln_sort_arg_array(perm),
      kiln_sort_arg_array(keys_out),
      kiln_sort_arg_array(perm_out),
      kiln_sort_arg_array(job->offsets ? job->offsets : keys),
      kiln_sort_arg_scalar(&use_offsets, 4),
      kiln_sort_arg_scalar(&row_len, 8),
      kiln_sort_arg_scalar(&rows_per_tile, 8),
      kiln_sort_arg_scalar(&ntiles, 8),
      kiln_sort_arg_scalar(&n, 8),
      kiln_sort_arg_scalar(&begin, 4),
      kiln_sort_arg_scalar(&end, 4),
      kiln_sort_arg_scalar(&iota32, 4)};
  return kiln_sort_launch_groups(job->ctx, job->stream, program, tile, ntiles, 13, args);
}

static kiln_status permutation(const kiln_sort_job *job, kiln_array **perm, kiln_array **keys,
                               kiln_array **segment_keys) {
  kiln_context *ctx = job->ctx;
  int64_t n = job->src->size;
  kiln_sort_key_format f = kiln_sort_key_format_of(job->src->dtype);
  kiln_dtype key_dtype = f.bits > 32 ? KILN_UINT64 : KILN_UINT32;
  KILN_RETURN_IF_ERROR(kiln_array_alloc(ctx, key_dtype, 1, &n, keys));
  KILN_RETURN_IF_ERROR(kiln_buffer_use_on_stream((*keys)->buffer, job->stream));
  uint64_t flip = job->descending ? (f.bits == 64 ? ~(uint64_t)0 : ((uint64_t)1 << f.bits) - 1) : 0;
  int local = job->max_segment <= KILN_SORT_TILE;
  for (int w = 0; w < f.words; w++) {
    KILN_RETURN_IF_ERROR(make_keys(job, *perm, w > 0, f.kind, w, flip, *keys));
    if (local)
    {
      /* out of place: the sorted keys go to the segment keys' array (unused
       * here), the permutation to a new one */
      kiln_array *next = NULL;
      if (!*segment_keys) {
        KILN_RETURN_IF_ERROR(kiln_array_alloc(ctx, key_dtype, 1, &n, segment_keys));
        KILN_RETURN_IF_ERROR(kiln_buffer_use_on_stream((*segment_keys)->buffer, job->stream));
      }
      KILN_RETURN_IF_ERROR(kiln_array_alloc(ctx, (*perm)->dtype, 1, &n, &next));
      kiln_status status = kiln_buffer_use_on_stream(next->buffer, job->stream);
      if (status == KILN_OK)
        status = sort_segments(job, *keys, *perm, *segment_keys, next, w == 0, f.bits);
      kiln_array_release(*perm);
      *perm = next;
      KILN_RETURN_IF_ERROR(status);
    }
    else
      KILN_RETURN_IF_ERROR(
          kiln_sort_pairs_device(ctx, job->stream, *keys, *perm, w == 0, 0, f.bits));
  }
  if (local || job->nseg <= 1) return KILN_OK;
  /* then stably by row or segment, which keeps the key order inside each */
  int bits = kiln_sort_bit_length((uint64_t)(job->nseg - 1));
  kiln_dtype seg_dtype = bits > 32 ? KILN_UINT64 : KILN_UINT32;
  KILN_RETURN_IF_ERROR(kiln_array_alloc(ctx, seg_dtype, 1, &n, segment_keys));
  KILN_RETURN_IF_ERROR(kiln_buffer_use_on_stream((*segment_keys)->buffer, job->stream));
  KILN_RETURN_IF_ERROR(make_keys(job, *perm, 1,
                                 job->row_len > 0 ? KILN_SORT_KIND_ROWS : KILN_SORT_KIND_OFFSETS,
                                 0, 0, *segment_keys));
  return kiln_sort_pairs_device(ctx, job->stream, *segment_keys, *perm, 0, 0, (bits + 7) / 8 * 8);
}

kiln_status kiln_sort_permutation(const kiln_sort_job *job, kiln_array **perm) {
  int64_t n = job->src->size;
  KILN_RETURN_IF_ERROR(
      kiln_array_alloc(job->ctx, n > (int64_t)UINT32_MAX ? KILN_UINT64 : KILN_UINT32, 1, &n, perm));
  kiln_status status = kiln_buffer_use_on_stream((*perm)->buffer, job->stream);
  kiln_array *keys = NULL, *segment_keys = NULL;
  if (status == KILN_OK && n > 0) status = permutation(job, perm, &keys, &segment_keys);
  kiln_array_release(keys);
  kiln_array_release(segment_keys);
  if (status != KILN_OK) {
    kiln_array_release(*perm);
    *perm = NULL;
  }
  return status;
}

static kiln_status unmake_keys(const kiln_sort_job *job, const kiln_array *keys, uint64_t flip,
                               kiln_sort_key_kind kind, const kiln_array *out) {
  kiln_program *program = NULL;
  int kb = (int)kiln_dtype_size(keys->dtype);
  KILN_RETURN_IF_ERROR(kiln_sort_program(job->ctx, "sort_unmake_keys", kb, kb, 4, 256, &program));
  int64_t n = keys->size;
  int32_t kind32 = (int32_t)kind;
  kiln_backend_arg args[5] = {kiln_sort_arg_array(keys), kiln_sort_arg_array(out),
                              kiln_sort_arg_scalar(&n, 8), kiln_sort_arg_scalar(&kind32, 4),
                              kiln_sort_arg_scalar(&flip, 8)};
  return launch_elements(job->ctx, job->stream, program, n, 5, args);
}

int kiln_sort_keys_alone(kiln_dtype dtype, int64_t n) {
  return kiln_sort_keys_invertible(dtype) ||
         ((dtype == KILN_FLOAT32 || dtype == KILN_FLOAT64) && n > KILN_SORT_TILE);
}

kiln_status kiln_sort_values_by_keys(const kiln_sort_job *job, const kiln_array *dst) {
  kiln_context *ctx = job->ctx;
  int64_t n = job->src->size;
  kiln_sort_key_format f = kiln_sort_key_format_of(job->src->dtype);
  uint64_t flip = job->descending ? (f.bits == 64 ? ~(uint64_t)0 : ((uint64_t)1 << f.bits) - 1) : 0;
  int floats = f.kind == KILN_SORT_KIND_FLOAT32 || f.kind == KILN_SORT_KIND_FLOAT64;
  if (f.bits >= 32 && n > KILN_SORT_TILE) {
    /* the key is the element's own bits, the sign bit flipped for a signed
     * one or a float (whose negatives are inverted: fmask) */
    uint64_t sign = (uint64_t)1 << (f.bits - 1), all = f.bits == 64 ? ~(uint64_t)0 : 2 * sign - 1;
    uint64_t xor_mask = f.kind == KILN_SORT_KIND_UINT32 || f.kind == KILN_SORT_KIND_UINT64 ? 0 : sign;
    return kiln_sort_keys_device(ctx, job->stream, job->src, (kiln_array *)dst, xor_mask ^ flip,
                                 floats ? all ^ sign : 0, f.bits, job->descending);
  }
  kiln_array *keys = NULL;
  kiln_status status =
      kiln_array_alloc(ctx, f.bits > 32 ? KILN_UINT64 : KILN_UINT32, 1, &n, &keys);
  if (status == KILN_OK) status = kiln_buffer_use_on_stream(keys->buffer, job->stream);
  /* (make_keys reads no permutation here: keys stands in for it) */
  if (status == KILN_OK) status = make_keys(job, keys, 0, f.kind, 0, flip, keys);
  if (status == KILN_OK) status = kiln_sort_pairs_device(ctx, job->stream, keys, NULL, 0, 0, f.bits);
  if (status == KILN_OK) status = unmake_keys(job, keys, flip, f.kind, dst);
  kiln_array_release(keys);
  return status;
}

kiln_status kiln_sort_gather(kiln_context *ctx, kiln_stream *stream, const kiln_array *src,
                             const kiln_array *perm, const kiln_array *out,
                             const kiln_array *index, int64_t row_len) {
  int64_t n = perm ? perm->size : src->size;
  if (n == 0) return KILN_OK;
  const kiln_array *any = perm ? perm : src; /* for arguments that are not read */
  kiln_program *program = NULL;
  KILN_RETURN_IF_ERROR(kiln_sort_program(ctx, "sort_gather", 4,
                                         perm ? (int)kiln_dtype_size(perm->dtype) : 4, 4, 256,
                                         &program));
  int32_t itemsize = src ? (int32_t)kiln_dtype_size(src->dtype) : 1, write_values = out != NULL,
          write_index = index != NULL, use_perm = perm != NULL;
  kiln_backend_arg args[10] = {kiln_sort_arg_array(src ? src : any),
                              kiln_sort_arg_array(any),
                              kiln_sort_arg_array(out ? out : any),
                              kiln_sort_arg_array(index ? index : any),
                              kiln_sort_arg_scalar(&n, 8),
                              kiln_sort_arg_scalar(&itemsize, 4),
                              kiln_sort_arg_scalar(&row_len, 8),
                              kiln_sort_arg_scalar(&write_values, 4),
                              kiln_sort_arg_scalar(&write_index, 4),
                              kiln_sort_arg_scalar(&use_perm, 4)};
  return launch_elements(ctx, stream, program, n, 10, args);
}
