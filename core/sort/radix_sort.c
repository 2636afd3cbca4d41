/* core/sort/radix_sort.c: the passes of the LSD radix sort over device
 * buffers (kernels/builtin/radix_sort.kl), and the programs it runs. */
#include <stdio.h>
#include <string.h>

#include "core/codegen/elementwise.h"
#include "core/codegen/scan_line.h"
#include "core/runtime/log.h"
#include "core/sort/sort_internal.h"

/* embedded from kernels/builtin/radix_sort.kl at build time */
extern const char kiln_builtin_radix_sort[];

#define SORT_RADIX 256
#define T KILN_SORT_PASS_TILE /* the passes' tile */
/* Most work-groups of a launch over tiles; each loops over the rest. */
#define SORT_MAX_GROUPS 65535

static const char *uint_type(int bytes) { return bytes == 8 ? "uint64_t" : "uint32_t"; }

/* The template with SORT_KEY_T, SORT_VAL_T and SORT_OFF_T replaced, after
 * the tile's geometry; data: a program_shape. */
typedef struct program_shape {
  int bytes[3]; /* key, value (0: keys alone, SORT_VAL_T a stand-in), offset */
  int group, items;
} program_shape;

static kiln_status radix_sort_source(void *data, kiln_strbuf *out) {
  const program_shape *shape = data;
  static const char *names[3] = {"SORT_KEY_T", "SORT_VAL_T", "SORT_OFF_T"};
  kiln_sort_onesweep_shape os = kiln_sort_onesweep(shape->bytes[0], shape->bytes[1]);
  kiln_strbuf_appendf(out,
                      "#define SORT_WG %d\n#define SORT_ITEMS %d\n#define SORT_OS_ITEMS %d\n"
                      "#define SORT_OS_GROUPS %d\n#define SORT_LOOKBACK %d\n"
                      "#define SORT_PREFETCH_TILE %d\n#define SORT_HAS_VALUES %d\n",
                      shape->group, shape->items, os.items, os.groups, os.lookback, os.prefetch,
                      shape->bytes[1] != 0);
  const char *s = kiln_builtin_radix_sort;
  while (*s) {
    const char *next = strstr(s, "SORT_");
    if (!next) {
      kiln_strbuf_append(out, s);
      break;
    }
    kiln_strbuf_append_n(out, s, (size_t)(next - s));
    int i = 0;
    while (i < 3 && strncmp(next, names[i], 10) != 0) i++;
    if (i < 3) {
      kiln_strbuf_append(out, uint_type(shape->bytes[i]));
      s = next + 10;
    } else {
      kiln_strbuf_append_n(out, next, 5);
      s = next + 5;
    }
  }
  return kiln_strbuf_status(out);
}

/* Three tile sizes only (segments up to 256 and 1024 keys, the passes): each is a program per kernel and key width to
 * compile. */
kiln_status kiln_sort_catalog_add(kiln_catalog *catalog) {
  static const int widths[][3] = {{4, 4, 4}, {8, 4, 4}, {4, 8, 8}, {8, 8, 8}, {4, 0, 4}, {8, 0, 4}};
  static const int tiles[] = {256, KILN_SORT_TILE, KILN_SORT_PASS_TILE};
  kiln_status status = KILN_OK;
  for (size_t w = 0; w < sizeof widths / sizeof widths[0] && status == KILN_OK; w++)
    for (size_t t = 0; t < sizeof tiles / sizeof tiles[0] && status == KILN_OK; t++) {
      program_shape shape = {{widths[w][0], widths[w][1], widths[w][2]},
                             kiln_sort_group_size(tiles[t]), 0};
      shape.items = tiles[t] / shape.group;
      kiln_strbuf source = {0};
      char name[96];
      snprintf(name, sizeof name, "radix sort (keys %d, values %d, offsets %d bytes; tile %d)",
               widths[w][0], widths[w][1], widths[w][2], tiles[t]);
      status = radix_sort_source(&shape, &source);
      if (status == KILN_OK) status = kiln_catalog_add(catalog, name, kiln_strbuf_text(&source));
      kiln_strbuf_free(&source);
    }
  return status;
}

int kiln_sort_tile_for(int64_t longest) { return longest <= 256 ? 256 : KILN_SORT_TILE; }

int kiln_sort_group_size(int tile) { return tile <= 256 ? 64 : tile <= 1024 ? 128 : 256; }

kiln_status kiln_sort_program(kiln_context *ctx, const char *entry, int key_bytes, int val_bytes,
                              int off_bytes, int tile, kiln_program **out) {
  char key[96];
  program_shape shape = {{key_bytes, val_bytes, off_bytes}, kiln_sort_group_size(tile), 0};
  shape.items = tile / shape.group;
  int length = snprintf(key, sizeof key, "\1sort:%d%d%d:%d:%s", key_bytes, val_bytes, off_bytes,
                        tile, entry);
  kiln_status status = kiln_program_get_keyed(ctx, key, (size_t)length, NULL, entry,
                                              radix_sort_source, &shape, out);
  if (status == KILN_OK && (*out)->max_work_group_size < (uint64_t)shape.group)
    return kiln_error_set(KILN_ERROR_UNIMPLEMENTED,
                          "sort: the kernels need work-groups of %d work-items; %s (%s) allows "
                          "%llu",
                          shape.group, ctx->info.name, ctx->ops->name,
                          (unsigned long long)(*out)->max_work_group_size);
  return status;
}

kiln_sort_onesweep_shape kiln_sort_onesweep(int key_bytes, int val_bytes) {
  /* Measured on the H200 (CUDA, sort_bench 1e8, one call, 2026-11-27;
   * docs/sorting.md): keys per work-item (the tile's keys and values in
   * local memory, under CUDA's static 48 KiB a work-group), work-groups
   * per multiprocessor (the register bound: ptxas sm_90 gives 80
   * registers at 3 groups of 256, with no spills for these, the early
   * counts' ranking being lighter), look-back words read at once (4: 2-3%
   * faster than 8 for keys alone and than 1 for argsort) and the next tile
   * taken early (it helps keys alone; argsort waits less without it). The 12- and
   * 16-byte widths (8-byte keys with 4- or 8-byte values) take 3 groups
   * and 4 words too (ptxas: 80 and 72 registers, no spills; H200,
   * sort_bench 1e8 5, one call, 2026-11-27). */
  int bytes = key_bytes + val_bytes;
  kiln_sort_onesweep_shape shape;
  if (bytes <= 4) shape = (kiln_sort_onesweep_shape){24, 3, 4, 1}; /* uint32 2.194 ms (16 x 4: 2.654) */
  /* 8-byte keys alone: 20 keys a work-item (40 KiB of keys a tile). H100,
   * sort_bench 1e8 10, one call, two rounds (2026-11-28; CuPy 6.919 and
   * 6.985 in the same call): int64 6.903-6.952 ms, float64 6.786-6.816,
   * against 7.370-7.396 and 7.222-7.241 with 16 (the H200's pick, where 12
   * took 7.625 against 6.383); 18: 7.148-7.156; 16 with 2 groups a
   * multiprocessor 7.651-7.677, with 4 8.488-8.545; 8 look-back words
   * 7.707-7.710; 16 without the early next tile 7.090-7.096. */
  else if (val_bytes == 0) shape = (kiln_sort_onesweep_shape){20, 3, 4, 1};
  else if (bytes <= 8) shape = (kiln_sort_onesweep_shape){16, 3, 4, 0}; /* argsort 4.173 (prefetch: 4.580) */
  else if (bytes <= 12) shape = (kiln_sort_onesweep_shape){12, 3, 4, 0}; /* argsort float64 10.083 (12 x 2, LB 1: 11.996) */
  else shape = (kiln_sort_onesweep_shape){8, 3, 4, 0}; /* uint64 pairs 13.899 (8 x 2, LB 1: 16.520) */
  return shape;
}

kiln_backend_arg kiln_sort_arg_array(const kiln_array *a) {
  return (kiln_backend_arg){.kind = KILN_BACKEND_ARG_BUFFER,
                            .buffer = a->buffer->handle,
                            .offset = (uint64_t)a->offset};
}

kiln_backend_arg kiln_sort_arg_scalar(const void *value, size_t size) {
  return (kiln_backend_arg){.kind = KILN_BACKEND_ARG_SCALAR, .value = value, .size = size};
}

/* The look-back's tile statuses hold a count in 30 bits. */
#define LOOKBACK_MAX_KEYS ((int64_t)1 << 30)

kiln_status kiln_sort_choose_path(kiln_context *ctx, int64_t n, int *lookback) {
  /* One decision with the scan's look-back (core/codegen/scan_line.c):
   * the same switch ($KILN_SCAN, kiln_scan_force_path), else the same
   * capability (kiln_device_lookback_safe) */
  kiln_scan_path path = KILN_SCAN_PATH_AUTO;
  KILN_RETURN_IF_ERROR(kiln_scan_choose_path(ctx, KILN_UINT32, &path));
  *lookback = path == KILN_SCAN_PATH_LOOKBACK && n < LOOKBACK_MAX_KEYS;
  static atomic_int logged = 0; /* once per process and path */
  int bit = *lookback ? 1 : 2;
  if (!(atomic_fetch_or(&logged, bit) & bit))
    kiln_log(KILN_LOG_DEBUG, "sort: %s (%s) uses the %s radix passes", ctx->info.name,
             ctx->ops->name, *lookback ? "onesweep look-back" : "reduce-then-scan");
  return KILN_OK;
}

const char *kiln_sort_path(kiln_context *ctx) {
  int lookback = 0;
  if (kiln_sort_choose_path(ctx, 0, &lookback) != KILN_OK) return "reduce-then-scan";
  return lookback ? "onesweep look-back" : "reduce-then-scan";
}

kiln_status kiln_sort_launch_groups(kiln_context *ctx, kiln_stream *stream,
                                    const kiln_program *program, int tile, int64_t groups,
                                    int nargs, const kiln_backend_arg *args) {
  if (groups <= 0) return KILN_OK;
  if (groups > SORT_MAX_GROUPS) groups = SORT_MAX_GROUPS;
  uint64_t group = (uint64_t)kiln_sort_group_size(tile);
  kiln_backend_launch launch = {.work_dim = 1, .global = {(uint64_t)groups * group, 1, 1},
                                .local = {group, 1, 1}};
  return kiln_program_launch(ctx, program, stream, &launch, nargs, args);
}

/* (0 for absent values: the passes then move keys alone) */
static int bytes_of(const kiln_array *a) { return a ? (int)kiln_dtype_size(a->dtype) : 0; }

/* An array argument, or `instead` where the kernel never reads it. */
static kiln_backend_arg arg_or(const kiln_array *a, const kiln_array *instead) {
  return kiln_sort_arg_array(a ? a : instead);
}

static kiln_status alloc_1d(kiln_context *ctx, kiln_stream *stream, kiln_dtype dtype, int64_t n,
                            kiln_array **out) {
  KILN_RETURN_IF_ERROR(kiln_array_alloc(ctx, dtype, 1, &n, out));
  return kiln_buffer_use_on_stream((*out)->buffer, stream);
}

/* One launch of sort_segments over rows of row_len keys (the last one
 * shorter), in place. */
static kiln_status sort_rows(kiln_context *ctx, kiln_stream *stream, kiln_array *keys,
                             kiln_array *values, int iota, int begin_bit, int end_bit,
                             int64_t row_len) {
  kiln_program *program = NULL;
  int tile = kiln_sort_tile_for(row_len);
  KILN_RETURN_IF_ERROR(kiln_sort_program(ctx, "sort_segments", bytes_of(keys), bytes_of(values),
                                         4, tile, &program));
  int64_t n = keys->size, nseg = (n + row_len - 1) / row_len, one = 1;
  int32_t use_offsets = 0, begin = begin_bit, end = end_bit, iota32 = iota;
  kiln_backend_arg args[13] = {
      kiln_sort_arg_array(keys),          kiln_sort_arg_array(values),
      kiln_sort_arg_array(keys),          kiln_sort_arg_array(values),
      kiln_sort_arg_array(keys), /* offsets: unused */
      kiln_sort_arg_scalar(&use_offsets, 4), kiln_sort_arg_scalar(&row_len, 8),
      kiln_sort_arg_scalar(&one, 8),      kiln_sort_arg_scalar(&nseg, 8),
      kiln_sort_arg_scalar(&n, 8),        kiln_sort_arg_scalar(&begin, 4),
      kiln_sort_arg_scalar(&end, 4),      kiln_sort_arg_scalar(&iota32, 4)};
  return kiln_sort_launch_groups(ctx, stream, program, tile, nseg, 13, args);
}

typedef struct pass_state {
  kiln_array *keys_alt, *values_alt, *hist, *bases, *counts, *status;
  int64_t status_words; /* words of each of status's two regions (sort_onesweep) */
} pass_state;

#define MAX_PASSES 8

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

/* Work-groups that stream over all keys: enough to fill the device. */
static int64_t streaming_groups(kiln_context *ctx, int64_t ntiles) {
  int64_t units = ctx->info.compute_units > 0 ? (int64_t)ctx->info.compute_units : 16;
  return min64(ntiles, 8 * units);
}

/* The up-front histogram of every pass's digits and the digit bases (and
 * skip flags) of each pass, in st->bases. */
static kiln_status sort_bases(kiln_context *ctx, kiln_stream *stream, const kiln_array *keys,
                              int vb, int off_bytes, int begin_bit, int32_t npasses,
                              const uint64_t *transform, pass_state *st) {
  int64_t n = keys->size, ntiles = (n + T - 1) / T;
  int kb = bytes_of(keys);
  kiln_program *histogram = NULL;
  KILN_RETURN_IF_ERROR(kiln_sort_program(ctx, "sort_histogram_all", kb, vb, off_bytes, T, &histogram));
  /* (and after the counts the floats' words: the parts that saw a NaN or
   * -0.0, then 3 counts per part, radix_sort.kl's SORT_SPECIALS_AT; then
   * the counter that finds the histogram's last work-group) */
  int64_t ranges = streaming_groups(ctx, ntiles);
  KILN_RETURN_IF_ERROR(alloc_1d(ctx, stream, KILN_UINT32,
                                2 * SORT_RADIX * npasses + 1 + 3 * ranges + 1, &st->hist));
  KILN_RETURN_IF_ERROR(alloc_1d(ctx, stream, off_bytes == 8 ? KILN_UINT64 : KILN_UINT32,
                                (SORT_RADIX + 1) * MAX_PASSES, &st->bases));
  static const uint32_t zero = 0;
  KILN_RETURN_IF_ERROR(kiln_ew_fill_on(st->hist, &zero, stream));
  int32_t begin = begin_bit;
  /* the look-back passes' first status region, zeroed by the histogram's
   * work-groups (sort_onesweep zeroes the others), and the digit bases
   * made by its last work-group: no launches of their own */
  int64_t clear_words = st->status ? st->status_words : 0;
  kiln_backend_arg hist_args[11] = {kiln_sort_arg_array(keys), kiln_sort_arg_array(st->hist),
                                    kiln_sort_arg_scalar(&n, 8), kiln_sort_arg_scalar(&begin, 4),
                                    kiln_sort_arg_scalar(&npasses, 4),
                                    kiln_sort_arg_scalar(&transform[0], 8),
                                    kiln_sort_arg_scalar(&transform[1], 8),
                                    kiln_sort_arg_scalar(&ranges, 8),
                                    kiln_sort_arg_array(st->status ? st->status : st->hist),
                                    kiln_sort_arg_scalar(&clear_words, 8),
                                    kiln_sort_arg_array(st->bases)};
  return kiln_sort_launch_groups(ctx, stream, histogram, T, ranges, 11, hist_args);
}

/* The reduce-then-scan pass `pass` from k/v into k2/v2: every device. */
static kiln_status pass_reduce_then_scan(kiln_context *ctx, kiln_stream *stream,
                                         kiln_program *const *programs, const kiln_array *k,
                                         kiln_array *v, kiln_array *k2, kiln_array *v2,
                                         int64_t tiles_per, int64_t ngroups, int32_t shift,
                                         int32_t pass, int32_t iota, const uint64_t *xor,
                                         const uint64_t *fmask, pass_state *st) {
  int64_t n = k->size;
  kiln_backend_arg up_args[10] = {kiln_sort_arg_array(k),          kiln_sort_arg_array(st->counts),
                                  kiln_sort_arg_array(st->bases),  kiln_sort_arg_scalar(&n, 8),
                                  kiln_sort_arg_scalar(&tiles_per, 8),
                                  kiln_sort_arg_scalar(&ngroups, 8), kiln_sort_arg_scalar(&shift, 4),
                                  kiln_sort_arg_scalar(&pass, 4), kiln_sort_arg_scalar(&xor[0], 8),
                                  kiln_sort_arg_scalar(fmask, 8)};
  KILN_RETURN_IF_ERROR(kiln_sort_launch_groups(ctx, stream, programs[0], T, ngroups, 10, up_args));
  kiln_backend_arg scan_args[4] = {kiln_sort_arg_array(st->counts), kiln_sort_arg_array(st->bases),
                                   kiln_sort_arg_scalar(&ngroups, 8),
                                   kiln_sort_arg_scalar(&pass, 4)};
  KILN_RETURN_IF_ERROR(kiln_sort_launch_groups(ctx, stream, programs[1], T, SORT_RADIX, 4, scan_args));
  kiln_backend_arg down_args[15] = {
      kiln_sort_arg_array(k),          arg_or(v, k),
      kiln_sort_arg_array(k2),         arg_or(v2, k2),
      kiln_sort_arg_array(st->counts), kiln_sort_arg_array(st->bases),
      kiln_sort_arg_scalar(&n, 8),     kiln_sort_arg_scalar(&tiles_per, 8),
      kiln_sort_arg_scalar(&ngroups, 8), kiln_sort_arg_scalar(&shift, 4),
      kiln_sort_arg_scalar(&pass, 4),  kiln_sort_arg_scalar(&iota, 4),
      kiln_sort_arg_scalar(&xor[0], 8), kiln_sort_arg_scalar(&xor[1], 8),
      kiln_sort_arg_scalar(fmask, 8)};
  return kiln_sort_launch_groups(ctx, stream, programs[2], T, ngroups, 15, down_args);
}

/* Keys per tile of the look-back passes (SORT_OS_TILE; values may be
 * NULL). */
static int64_t onesweep_tile(const kiln_array *keys, const kiln_array *values) {
  return (int64_t)kiln_sort_group_size(T) * kiln_sort_onesweep(bytes_of(keys), bytes_of(values)).items;
}

/* The look-back pass: one kernel, on tile statuses that the histogram
 * (pass 0) or the pass before zeroed. */
static kiln_status pass_lookback(kiln_context *ctx, kiln_stream *stream, kiln_program *program,
                                 const kiln_array *k, kiln_array *v, kiln_array *k2,
                                 kiln_array *v2, int32_t shift, int32_t pass, int32_t iota,
                                 const uint64_t *xor, const uint64_t *fmask, pass_state *st) {
  int64_t n = k->size, tile = onesweep_tile(k, v), ntiles = (n + tile - 1) / tile;
  kiln_backend_arg args[15] = {
      kiln_sort_arg_array(k),         arg_or(v, k),                   kiln_sort_arg_array(k2),
      arg_or(v2, k2),                 kiln_sort_arg_array(st->bases), kiln_sort_arg_array(st->status),
      kiln_sort_arg_scalar(&n, 8),    kiln_sort_arg_scalar(&ntiles, 8),
      kiln_sort_arg_scalar(&shift, 4), kiln_sort_arg_scalar(&pass, 4),
      kiln_sort_arg_scalar(&iota, 4), kiln_sort_arg_scalar(&xor[0], 8),
      kiln_sort_arg_scalar(&xor[1], 8), kiln_sort_arg_scalar(fmask, 8),
      kiln_sort_arg_scalar(&st->status_words, 8)};
  return kiln_sort_launch_groups(ctx, stream, program, T, ntiles, 15, args);
}

/* The passes from src (through the kernels' sort_key_in with transform
 * {xor, fmask} as the first reads) into keys (sort_key_out as the last
 * writes), values in place. Floats (fmask not 0; keys alone): the passes
 * see every NaN as one and -0.0 as 0.0, and sort_place_specials then puts
 * src's own NaNs and zeros in their places (a launch that returns at once
 * when there are none: the choice is made on the device, nothing is read
 * back), so src must still hold the input then. Each pass writes the other
 * of keys and the scratch, the last one keys; src is read by the first
 * alone (and the floats' last step), so for integers it may be keys itself
 * or overlap it (an even number of passes; an odd one writes the scratch
 * first and copies back). */
static kiln_status sort_passes(kiln_context *ctx, kiln_stream *stream, const kiln_array *src,
                               kiln_array *keys, kiln_array *values, int iota, int begin_bit,
                               int end_bit, const uint64_t *transform, int descending,
                               pass_state *st) {
  int64_t n = keys->size, ntiles = (n + T - 1) / T;
  int off_bytes = n > (int64_t)UINT32_MAX ? 8 : 4;
  int kb = bytes_of(keys), vb = bytes_of(values);
  int32_t npasses = (end_bit - begin_bit + 7) / 8;
  int lookback = 0;
  KILN_RETURN_IF_ERROR(kiln_sort_choose_path(ctx, n, &lookback));
  kiln_program *programs[3] = {NULL, NULL, NULL};
  static const char *const rts[3] = {"sort_upsweep", "sort_digit_scan", "sort_downsweep"};
  for (int i = 0; i < (lookback ? 1 : 3); i++)
    KILN_RETURN_IF_ERROR(kiln_sort_program(ctx, lookback ? "sort_onesweep" : rts[i], kb, vb,
                                           off_bytes, T, &programs[i]));
  KILN_RETURN_IF_ERROR(alloc_1d(ctx, stream, keys->dtype, n, &st->keys_alt));
  if (values) KILN_RETURN_IF_ERROR(alloc_1d(ctx, stream, values->dtype, n, &st->values_alt));
  /* reduce-then-scan: each work-group owns a run of whole tiles, so the
   * counts are 256 per work-group, not per tile */
  int64_t ngroups = streaming_groups(ctx, ntiles) / 2;
  if (ngroups < 1) ngroups = 1;
  int64_t tiles_per = (ntiles + ngroups - 1) / ngroups;
  ngroups = (ntiles + tiles_per - 1) / tiles_per;
  if (lookback) { /* two regions: sort_onesweep */
    int64_t tile = onesweep_tile(keys, values);
    st->status_words = 16 + SORT_RADIX * ((n + tile - 1) / tile);
    KILN_RETURN_IF_ERROR(alloc_1d(ctx, stream, KILN_UINT32, 2 * st->status_words, &st->status));
  }
  else
    KILN_RETURN_IF_ERROR(alloc_1d(ctx, stream, off_bytes == 8 ? KILN_UINT64 : KILN_UINT32,
                                  SORT_RADIX * ngroups, &st->counts));
  KILN_RETURN_IF_ERROR(
      sort_bases(ctx, stream, src, vb, off_bytes, begin_bit, npasses, transform, st));
  kiln_array *k[2] = {keys, st->keys_alt}, *v[2] = {values, st->values_alt};
  /* the first pass writes k[cur ^ 1]: the scratch when npasses is even */
  int cur = 0;
  for (int32_t pass = 0; pass < npasses; pass++, cur ^= 1) {
    int32_t shift = begin_bit + 8 * pass, iota32 = iota && pass == 0;
    const kiln_array *from = pass == 0 ? src : k[cur];
    uint64_t xor[2] = {pass == 0 ? transform[0] : 0, pass == npasses - 1 ? transform[0] : 0};
    if (lookback)
      KILN_RETURN_IF_ERROR(pass_lookback(ctx, stream, programs[0], from, v[cur], k[cur ^ 1],
                                         v[cur ^ 1], shift, pass, iota32, xor, &transform[1], st));
    else
      KILN_RETURN_IF_ERROR(pass_reduce_then_scan(ctx, stream, programs, from, v[cur],
                                                 k[cur ^ 1], v[cur ^ 1], tiles_per, ngroups,
                                                 shift, pass, iota32, xor, &transform[1], st));
  }
  if (transform[1] != 0) { /* floats: the NaNs and zeros of the input (an even number of
                             * passes: the result is in keys already) */
    kiln_program *place = NULL;
    KILN_RETURN_IF_ERROR(
        kiln_sort_program(ctx, "sort_place_specials", kb, vb, off_bytes, T, &place));
    int64_t ranges = streaming_groups(ctx, ntiles);
    int32_t desc = descending;
    kiln_backend_arg args[7] = {kiln_sort_arg_array(src),        kiln_sort_arg_array(keys),
                                kiln_sort_arg_array(st->hist),   kiln_sort_arg_scalar(&n, 8),
                                kiln_sort_arg_scalar(&npasses, 4), kiln_sort_arg_scalar(&ranges, 8),
                                kiln_sort_arg_scalar(&desc, 4)};
    KILN_RETURN_IF_ERROR(kiln_sort_launch_groups(ctx, stream, place, T, ranges, 7, args));
  }
  if (cur == 0) return KILN_OK;
  /* an odd number of passes left the result in the scratch: copy it back */
  kiln_backend_stream *bs = NULL;
  KILN_RETURN_IF_ERROR(kiln_stream_backend(ctx, stream, &bs));
  KILN_RETURN_IF_ERROR(ctx->ops->copy_d2d(ctx->device, bs, keys->buffer->handle,
                                          (uint64_t)keys->offset, st->keys_alt->buffer->handle,
                                          0, (size_t)(n * kb)));
  if (!values) return KILN_OK;
  return ctx->ops->copy_d2d(ctx->device, bs, values->buffer->handle, (uint64_t)values->offset,
                            st->values_alt->buffer->handle, 0, (size_t)(n * vb));
}

static void release_state(pass_state *st) {
  kiln_array_release(st->keys_alt);
  kiln_array_release(st->values_alt);
  kiln_array_release(st->hist);
  kiln_array_release(st->bases);
  kiln_array_release(st->counts);
  kiln_array_release(st->status);
}

kiln_status kiln_sort_pairs_device(kiln_context *ctx, kiln_stream *stream, kiln_array *keys,
                                   kiln_array *values, int iota, int begin_bit, int end_bit) {
  KILN_CHECK_ARG(ctx);
  KILN_CHECK_ARG(keys);
  int kb = bytes_of(keys), vb = bytes_of(values);
  if ((keys->dtype != KILN_UINT32 && keys->dtype != KILN_UINT64) ||
      (values && ((values->dtype != KILN_UINT32 && values->dtype != KILN_UINT64) ||
                  values->ndim != 1 || keys->size != values->size ||
                  (keys->size > 1 && values->strides[0] != vb))) ||
      keys->ndim != 1 || (keys->size > 1 && keys->strides[0] != kb) ||
      begin_bit < 0 || end_bit > 8 * kb || begin_bit > end_bit)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "sort: pairs need 1-D contiguous uint32/uint64 keys and values of one "
                          "size and bits within the key");
  if (keys->size == 0 || (!values && begin_bit == end_bit)) return KILN_OK;
  if (!values && keys->size <= KILN_SORT_TILE) {
    /* the local sort moves values: indices, dropped after */
    kiln_array *index = NULL;
    kiln_status status = alloc_1d(ctx, stream, KILN_UINT32, keys->size, &index);
    if (status == KILN_OK)
      status = sort_rows(ctx, stream, keys, index, 1, begin_bit, end_bit, keys->size);
    kiln_array_release(index);
    return status;
  }
  if (keys->size <= KILN_SORT_TILE)
    return sort_rows(ctx, stream, keys, values, iota, begin_bit, end_bit, keys->size);
  if (begin_bit == end_bit) /* nothing to order by: at most the iota to write */
    return iota ? sort_rows(ctx, stream, keys, values, 1, 0, 0, KILN_SORT_TILE) : KILN_OK;
  pass_state st = {NULL, NULL, NULL, NULL, NULL, NULL, 0};
  static const uint64_t none[2] = {0, 0};
  kiln_status status =
      sort_passes(ctx, stream, keys, keys, values, iota, begin_bit, end_bit, none, 0, &st);
  release_state(&st);
  return status;
}

kiln_status kiln_sort_keys_device(kiln_context *ctx, kiln_stream *stream, const kiln_array *src,
                                  kiln_array *dst, uint64_t xor_mask, uint64_t fmask, int bits,
                                  int descending) {
  KILN_CHECK_ARG(ctx);
  KILN_CHECK_ARG(src);
  KILN_CHECK_ARG(dst);
  int kb = bytes_of(dst);
  if ((kb != 4 && kb != 8) || bytes_of(src) != kb || !kiln_array_is_contiguous(src) ||
      !kiln_array_is_contiguous(dst) || src->size != dst->size || src->size <= KILN_SORT_TILE ||
      bits != 8 * kb)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "sort: keys need C-contiguous 32- or 64-bit arrays of one size (more "
                          "than %d) and all their bits", KILN_SORT_TILE);
  pass_state st = {NULL, NULL, NULL, NULL, NULL, NULL, 0};
  uint64_t transform[2] = {xor_mask, fmask};
  kiln_array *copy = NULL;
  kiln_status status = KILN_OK;
  if (fmask && dst->buffer == src->buffer) {
    /* floats in place: sort_place_specials reads the input after the
     * passes have overwritten it, so the passes read a copy (one more n of
     * scratch for this case only) */
    kiln_backend_stream *bs = NULL;
    status = alloc_1d(ctx, stream, src->dtype, src->size, &copy);
    if (status == KILN_OK) status = kiln_stream_backend(ctx, stream, &bs);
    if (status == KILN_OK)
      status = ctx->ops->copy_d2d(ctx->device, bs, copy->buffer->handle, 0, src->buffer->handle,
                                  (uint64_t)src->offset, (size_t)src->size * (size_t)kb);
    src = copy;
  }
  if (status == KILN_OK)
    status = sort_passes(ctx, stream, src, dst, NULL, 0, 0, bits, transform, descending, &st);
  release_state(&st);
  kiln_array_release(copy);
  return status;
}
