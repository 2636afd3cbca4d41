/* core/codegen/scan_tree.c: generating and launching the passes of a scan of
 * several lines with a fixed order of operations (see scan_tree.h). */
#include <stdio.h>
#include <string.h>

#include "core/codegen/scan_tree.h"
#include "core/codegen/scan_line.h"

#define ROW (KILN_SCAN_SEGMENT + 1) /* padded: lanes hit different banks */

void kiln_scan_source(const kiln_rt_spec *spec, const char *identity, int totals, int exclusive,
                      int keep_ndim, const char *entry, kiln_strbuf *b) {
  const char *acc = kiln_dtype_kernel_type(spec->acc);
  kiln_strbuf_appendf(b, "/* scan '%s': %s%s */\n", spec->name, totals ? "totals" : "apply",
                      exclusive ? ", exclusive" : "");
  kiln_rt_append_helpers(spec, b);
  kiln_strbuf_appendf(b, "KILN_KERNEL void %s(int64_t M, int64_t K, int64_t nchunks", entry);
  for (int d = 0; d < keep_ndim; d++) kiln_strbuf_appendf(b, ", int64_t ks%d", d);
  kiln_strbuf_appendf(b, ",\n    KILN_GLOBAL const %s *p, int64_t op",
                      kiln_dtype_kernel_type(spec->inputs[0]));
  for (int d = 0; d < keep_ndim; d++) kiln_strbuf_appendf(b, ", int64_t pt%d", d);
  kiln_strbuf_append(b, ", int64_t pr");
  int apply = !totals;
  if (totals) {
    kiln_strbuf_appendf(b, ",\n    KILN_GLOBAL %s *tv, int64_t otv", acc);
  } else {
    kiln_strbuf_appendf(b, ",\n    KILN_GLOBAL const %s *pv, int64_t opv", acc);
    kiln_strbuf_appendf(b, ",\n    KILN_GLOBAL %s *q, int64_t oq",
                        kiln_dtype_kernel_type(spec->out));
    for (int d = 0; d < keep_ndim; d++) kiln_strbuf_appendf(b, ", int64_t qt%d", d);
    kiln_strbuf_append(b, ", int64_t qr");
  }
  /* A chunk is staged in local memory so that loads and stores coalesce:
   * 4128 accumulators, too many for CUDA's 48 KiB of static local memory
   * at 16 bytes (complex128). Those read and write global memory directly
   * instead ("direct"): the same operations in the same order, only the
   * memory traffic differs. */
  int direct = kiln_dtype_size(spec->acc) > 8;
  kiln_strbuf_appendf(b,
                      ") {\n"
                      "  KILN_LOCAL_ARRAY(%s, buf, %d);\n"
                      "  KILN_LOCAL_ARRAY(%s, seg, %d);\n"
                      "  int64_t lane = kiln_local_id(0);\n"
                      "  for (int64_t pair = kiln_group_id(0); pair < M * nchunks;\n"
                      "       pair += kiln_num_groups(0)) {\n"
                      "    int64_t o = pair %% M, c = pair / M;\n"
                      "    int64_t k0 = c * %d, len = K - k0 < %d ? K - k0 : %d;\n"
                      "    int64_t bp = op, bq = 0;\n",
                      acc, direct ? 1 : KILN_RT_LANES * ROW, acc, KILN_RT_LANES, KILN_RT_CHUNK,
                      KILN_RT_CHUNK, KILN_RT_CHUNK);
  const char *offs[2] = {"bp", "bq"}, *strides[2] = {"pt", "qt"};
  int n = apply ? 2 : 1;
  if (apply) kiln_strbuf_append(b, "    bq = oq;\n");
  kiln_rt_append_decompose(b, "    ", "o", keep_ndim, "ks", n, offs, strides);
  char element[128], load[256];
  kiln_ew_load_expression(spec->inputs[0], "p[bp + (k0 + j) * pr]", element, sizeof element);
  kiln_ew_cast_expression(spec->inputs[0], spec->acc, element, load, sizeof load);
  /* element i of this lane's segment: staged, or loaded */
  char get[512];
  if (direct) {
    kiln_strbuf_appendf(b,
                        "    int64_t ns = lane < %d ? len - lane * %d : 0;\n"
                        "    ns = ns < 0 ? 0 : ns > %d ? %d : ns;\n"
                        "    if (ns > 0) {\n"
                        "      int64_t j = lane * %d;\n"
                        "      %s t = %s;\n"
                        "      for (int64_t i = 1; i < ns; i++) {\n"
                        "        j = lane * %d + i;\n"
                        "        t = kiln_rt_combine(t, %s);\n"
                        "      }\n"
                        "      seg[lane] = t;\n"
                        "    }\n"
                        "    kiln_barrier();\n",
                        KILN_RT_LANES, KILN_SCAN_SEGMENT, KILN_SCAN_SEGMENT, KILN_SCAN_SEGMENT,
                        KILN_SCAN_SEGMENT, acc, load, KILN_SCAN_SEGMENT, load);
    snprintf(get, sizeof get, "%s", load);
  } else {
    kiln_strbuf_appendf(
        b,
        "    for (int64_t j = lane; j < len; j += kiln_local_size(0))\n"
        "      buf[(j / %d) * %d + j %% %d] = %s;\n"
        "    kiln_barrier();\n"
        "    int64_t ns = lane < %d ? len - lane * %d : 0, at = lane * %d;\n"
        "    ns = ns < 0 ? 0 : ns > %d ? %d : ns;\n"
        "    if (ns > 0) {\n"
        "      %s t = buf[at];\n"
        "      for (int64_t i = 1; i < ns; i++) t = kiln_rt_combine(t, buf[at + i]);\n"
        "      seg[lane] = t;\n"
        "    }\n"
        "    kiln_barrier();\n",
        KILN_SCAN_SEGMENT, ROW, KILN_SCAN_SEGMENT, load, KILN_RT_LANES, KILN_SCAN_SEGMENT, ROW,
        KILN_SCAN_SEGMENT, KILN_SCAN_SEGMENT, acc);
    snprintf(get, sizeof get, "buf[at + i]");
  }
  if (totals) {
    kiln_strbuf_appendf(
        b,
        "    if (lane == 0) {\n"
        "      %s t = seg[0];\n"
        "      for (int64_t s = 1; s * %d < len; s++) t = kiln_rt_combine(t, seg[s]);\n"
        "      tv[otv + c * M + o] = t;\n"
        "    }\n",
        acc, KILN_SCAN_SEGMENT);
  } else {
    char zero[64];
    kiln_ew_zero_expression(spec->acc, zero, sizeof zero);
    kiln_strbuf_appendf(b,
                        "    if (ns > 0) {\n"
                        "      int has = 0, any = 0;\n"
                        "      %s base = %s, run = %s;\n"
                        "      if (c > 0) { base = pv[opv + (c - 1) * M + o]; has = 1; }\n"
                        "      for (int64_t s = 0; s < lane; s++) {\n"
                        "        base = has ? kiln_rt_combine(base, seg[s]) : seg[s];\n"
                        "        has = 1;\n"
                        "      }\n"
                        "      for (int64_t i = 0; i < ns; i++) {\n"
                        "        int64_t j = lane * %d + i;\n"
                        "        %s v = %s;\n",
                        acc, zero, zero, KILN_SCAN_SEGMENT, acc, get);
    /* the value of element j: into the stage, or straight to q */
    char value[1024], store[1100];
    kiln_rt_store_expression(spec, value, sizeof value);
    kiln_ew_store_expression(spec->out, value, store, sizeof store);
    kiln_strbuf_appendf(b, "        %s kiln_y;\n", acc);
    if (exclusive && kiln_dtype_is_complex(spec->acc)) /* a complex identity is a value */
      kiln_strbuf_appendf(b,
                          "        kiln_y = any ? (has ? kiln_rt_combine(base, run) : run)\n"
                          "                          : (has ? base : %s);\n"
                          "        run = any ? kiln_rt_combine(run, v) : v;\n",
                          identity ? identity : zero);
    else if (exclusive)
      kiln_strbuf_appendf(b,
                          "        kiln_y = any ? (has ? kiln_rt_combine(base, run) : run)\n"
                          "                          : (has ? base : (%s)(%s));\n"
                          "        run = any ? kiln_rt_combine(run, v) : v;\n",
                          acc, identity ? identity : "0");
    else
      kiln_strbuf_append(b,
                         "        run = any ? kiln_rt_combine(run, v) : v;\n"
                         "        kiln_y = has ? kiln_rt_combine(base, run) : run;\n");
    if (direct)
      kiln_strbuf_appendf(b, "        { %s a = kiln_y; q[bq + (k0 + j) * qr] = %s; }\n", acc, store);
    else
      kiln_strbuf_append(b, "        buf[at + i] = kiln_y;\n");
    kiln_strbuf_append(b,
                       "        any = 1;\n"
                       "      }\n"
                       "    }\n"
                       "    kiln_barrier();\n");
    if (!direct)
      kiln_strbuf_appendf(b,
                          "    for (int64_t j = lane; j < len; j += kiln_local_size(0)) {\n"
                          "      %s a = buf[(j / %d) * %d + j %% %d];\n",
                          acc, KILN_SCAN_SEGMENT, ROW, KILN_SCAN_SEGMENT);
    if (!direct) /* else written above */
      kiln_strbuf_appendf(b,
                          "      q[bq + (k0 + j) * qr] = %s;\n"
                          "    }\n",
                          store);
  }
  kiln_strbuf_append(b,
                     "    kiln_barrier();\n"
                     "  }\n"
                     "}\n");
}

typedef struct scan_request {
  const kiln_rt_spec *spec;
  const char *identity;
  int totals, exclusive, keep_ndim;
  const char *entry;
} scan_request;

static kiln_status scan_generate(void *data, kiln_strbuf *source) {
  const scan_request *r = data;
  kiln_scan_source(r->spec, r->identity, r->totals, r->exclusive, r->keep_ndim, r->entry,
                   source);
  return KILN_OK;
}

static kiln_status scan_program(kiln_context *ctx, const scan_request *r, kiln_program **program) {
  const kiln_rt_spec *s = r->spec;
  kiln_strbuf key = {0};
  kiln_strbuf_appendf(&key, "\1scan|%s|%d%d|%d|%d|%d|%d|", s->name, r->totals, r->exclusive,
                      r->keep_ndim, (int)s->inputs[0], (int)s->acc, (int)s->out);
  const char *parts[3] = {s->preamble, s->combine, r->identity};
  for (int i = 0; i < 3; i++) {
    kiln_strbuf_appendf(&key, "|%zu:", parts[i] ? strlen(parts[i]) : (size_t)0);
    if (parts[i]) kiln_strbuf_append(&key, parts[i]);
  }
  kiln_status status = kiln_strbuf_status(&key);
  if (status == KILN_OK)
    status = kiln_program_get_keyed(ctx, key.data, key.length, KILN_RT_OPTIONS, r->entry,
                                    scan_generate, (void *)r, program);
  if (status != KILN_OK) kiln_error_prefix(status, "scan '%s'", s->name);
  kiln_strbuf_free(&key);
  return status;
}

typedef struct scan_args {
  kiln_backend_arg args[16 + 4 * KILN_MAX_DIMS];
  int n;
} scan_args;

static void scalar(scan_args *l, const int64_t *v) {
  l->args[l->n++] =
      (kiln_backend_arg){.kind = KILN_BACKEND_ARG_SCALAR, .value = v, .size = sizeof(int64_t)};
}

static void buffer(scan_args *l, kiln_backend_buffer *b) {
  l->args[l->n++] = (kiln_backend_arg){.kind = KILN_BACKEND_ARG_BUFFER, .buffer = b};
}

/* A pass's program and the arguments both passes start with: sizes,
 * keep dims, the input. */
static kiln_status pass_begin(kiln_context *ctx, const scan_request *r, kiln_program **program,
                              scan_args *l, const int64_t *M, const int64_t *K,
                              const int64_t *nchunks, const kiln_ew_layout *keep,
                              const int64_t *pr) {
  KILN_RETURN_IF_ERROR(scan_program(ctx, r, program));
  scalar(l, M);
  scalar(l, K);
  scalar(l, nchunks);
  for (int d = 0; d < keep->ndim; d++) scalar(l, &keep->shape[d]);
  buffer(l, keep->buffers[0]);
  scalar(l, &keep->offsets[0]);
  for (int d = 0; d < keep->ndim; d++) scalar(l, &keep->strides[0][d]);
  scalar(l, pr);
  return KILN_OK;
}

static kiln_status launch(kiln_context *ctx, kiln_stream *stream, const kiln_program *program,
                          int64_t pairs, const scan_args *l) {
  if (program->max_work_group_size < KILN_RT_LANES)
    return kiln_error_set(KILN_ERROR_UNIMPLEMENTED,
                          "scans need work-groups of %d items; the device runs at most %llu",
                          KILN_RT_LANES, (unsigned long long)program->max_work_group_size);
  /* 32 segment lanes; up to 4x as many items load and store the chunk */
  uint64_t local =
      program->max_work_group_size < 4 * KILN_RT_LANES ? KILN_RT_LANES : 4 * KILN_RT_LANES;
  uint64_t groups = pairs < (1 << 20) ? (uint64_t)pairs : (1 << 20);
  kiln_backend_launch grid = {
      .work_dim = 1, .global = {groups * local, 1, 1}, .local = {local, 1, 1}};
  return kiln_program_launch(ctx, program, stream, &grid, l->n, l->args);
}

static uint64_t align64(uint64_t n) { return (n + 63) / 64 * 64; }

/* Bytes of chunk totals (and their scans) a scan of lines of K elements
 * needs at every level. */
static uint64_t scratch_bytes(int64_t M, int64_t K, size_t accsize) {
  uint64_t bytes = 0;
  for (int64_t n = K; n > KILN_RT_CHUNK; n = (n + KILN_RT_CHUNK - 1) / KILN_RT_CHUNK)
    bytes += 2 * align64((uint64_t)(M * ((n + KILN_RT_CHUNK - 1) / KILN_RT_CHUNK)) * accsize);
  return bytes;
}

/* One level: totals and their scan live in pool (uint8) from *cursor. */
static kiln_status scan_level(kiln_context *ctx, kiln_stream *stream, const kiln_rt_spec *spec,
                              const char *identity, int exclusive, int nkeep,
                              const kiln_array *in, const kiln_array *out,
                              const kiln_array *pool, uint64_t *cursor) {
  int64_t M = 1, K = in->shape[nkeep];
  for (int d = 0; d < nkeep; d++) M *= in->shape[d];
  if (M == 0 || K == 0) return KILN_OK;
  kiln_array views[2];
  const kiln_array *pointers[2];
  kiln_rt_subview(in, 0, nkeep, M, 1, &views[0]);
  kiln_rt_subview(out, 0, nkeep, M, 1, &views[1]);
  pointers[0] = &views[0];
  pointers[1] = &views[1];
  kiln_ew_layout keep;
  KILN_RETURN_IF_ERROR(kiln_rt_merge(2, pointers, &keep));
  int64_t isz = (int64_t)kiln_dtype_size(in->dtype), osz = (int64_t)kiln_dtype_size(out->dtype);
  int64_t pr = in->strides[nkeep] / isz;
  int64_t qr = out->strides[nkeep] / osz;
  int64_t nchunks = (K + KILN_RT_CHUNK - 1) / KILN_RT_CHUNK;
  char entry[96];
  snprintf(entry, sizeof entry, "kiln_scan_%s", spec->name);

  /* chunk totals, scanned (inclusive) by the same algorithm */
  kiln_status status = KILN_OK;
  int64_t item = (int64_t)kiln_dtype_size(spec->acc);
  uint64_t region = align64((uint64_t)(M * nchunks * item));
  int64_t totals_at = (int64_t)*cursor, scanned_at = totals_at + (int64_t)region;
  int64_t totals_off = totals_at / item, scanned_off = scanned_at / item;
  if (nchunks > 1) {
    *cursor += 2 * region;
    int64_t shape[2] = {M, nchunks};
    scan_request req = {spec, identity, 1, 0, keep.ndim, entry};
    kiln_program *program = NULL;
    scan_args l = {.n = 0};
    if (status == KILN_OK)
      status = pass_begin(ctx, &req, &program, &l, &M, &K, &nchunks, &keep, &pr);
    if (status == KILN_OK) {
      buffer(&l, pool->buffer->handle);
      scalar(&l, &totals_off);
      status = launch(ctx, stream, program, M * nchunks, &l);
    }
    if (status == KILN_OK) {
      /* totals[c * M + o] seen as lines o of nchunks elements */
      kiln_array tv, sv;
      int64_t strides[2] = {item, M * item};
      kiln_rt_subview(pool, 0, 0, 1, 0, &tv);
      tv.dtype = spec->acc;
      tv.offset = totals_at;
      tv.ndim = 2;
      tv.size = M * nchunks;
      memcpy(tv.shape, shape, sizeof shape);
      memcpy(tv.strides, strides, sizeof strides);
      sv = tv;
      sv.offset = scanned_at;
      kiln_rt_spec inner = *spec;
      inner.inputs[0] = spec->acc;
      inner.out = spec->acc;
      inner.post = NULL;
      status = scan_level(ctx, stream, &inner, identity, 0, 1, &tv, &sv, pool, cursor);
    }
  }
  scan_request req = {spec, identity, 0, exclusive, keep.ndim, entry};
  kiln_program *program = NULL;
  scan_args l = {.n = 0};
  if (status == KILN_OK) status = pass_begin(ctx, &req, &program, &l, &M, &K, &nchunks, &keep, &pr);
  if (status == KILN_OK) {
    buffer(&l, nchunks > 1 ? pool->buffer->handle : keep.buffers[0]);
    scalar(&l, &scanned_off);
    buffer(&l, out->buffer->handle);
    scalar(&l, &keep.offsets[1]);
    for (int d = 0; d < keep.ndim; d++) scalar(&l, &keep.strides[1][d]);
    scalar(&l, &qr);
    status = launch(ctx, stream, program, M * nchunks, &l);
  }
  return status;
}

kiln_status kiln_scan_run(kiln_context *ctx, kiln_stream *stream, const kiln_rt_spec *spec,
                          const char *identity, int exclusive, int nkeep, const kiln_array *in,
                          const kiln_array *out,
                          kiln_rt_scratch *scratch) {
  int64_t M = 1, K = in->shape[nkeep];
  for (int d = 0; d < nkeep; d++) M *= in->shape[d];
  if (M == 0 || K == 0) return KILN_OK;
  if (M == 1) { /* one line: the single-pass scan */
    kiln_array line[2];
    kiln_rt_subview(in, nkeep, 1, K, 1, &line[0]);
    kiln_rt_subview(out, nkeep, 1, K, 1, &line[1]);
    kiln_scan_line_job job = {.kind = KILN_SCAN_LINE_VALUES,
                              .spec = spec,
                              .identity = identity,
                              .exclusive = exclusive,
                              .in = &line[0],
                              .out = &line[1]};
    return kiln_scan_line(ctx, stream, &job, scratch);
  }
  uint64_t bytes = scratch_bytes(M, K, kiln_dtype_size(spec->acc));
  uint64_t cursor = KILN_RT_SCRATCH_HEAD; /* the head is the reductions' */
  kiln_array *pool = NULL, *owned = NULL;
  KILN_RETURN_IF_ERROR(kiln_rt_scratch_acquire(ctx, stream, scratch, bytes, &pool, &owned));
  kiln_status status =
      scan_level(ctx, stream, spec, identity, exclusive, nkeep, in, out, pool, &cursor);
  kiln_rt_scratch_finish(scratch, stream, pool, owned, status);
  return status;
}
