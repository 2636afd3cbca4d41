/* core/codegen/reduce_tree.c: generating and launching the passes of a
 * reduction with kiln's fixed tree (see reduce_tree.h). */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "core/codegen/reduce_tree.h"

void kiln_rt_append_decompose(kiln_strbuf *b, const char *indent, const char *index, int ndim,
                              const char *shape, int noperands, const char *const *offsets,
                              const char *const *strides) {
  if (ndim == 0) return;
  kiln_strbuf_appendf(b, "%s{ int64_t kiln_r = %s;\n", indent, index);
  for (int d = ndim - 1; d >= 0; d--) {
    if (d > 0)
      kiln_strbuf_appendf(b, "%s  { int64_t kiln_c = kiln_r %% %s%d; kiln_r /= %s%d;\n", indent,
                          shape, d, shape, d);
    else
      kiln_strbuf_appendf(b, "%s  { int64_t kiln_c = kiln_r;\n", indent);
    for (int k = 0; k < noperands; k++)
      kiln_strbuf_appendf(b, "%s    %s += kiln_c * %s%d;\n", indent, offsets[k], strides[k], d);
    kiln_strbuf_appendf(b, "%s  }\n", indent);
  }
  kiln_strbuf_appendf(b, "%s}\n", indent);
}

/* The arg comparison: does (b, ib) replace (a, ia)? NumPy: the first NaN
 * wins, else the larger (smaller) value, the smaller index on ties. */
static void append_arg_takes(const kiln_rt_spec *spec, kiln_strbuf *b) {
  const char *t = kiln_dtype_kernel_type(spec->acc);
  const char *better = spec->arg > 0 ? ">" : "<";
  kiln_strbuf_appendf(b, "KILN_DEVICE int kiln_rt_takes(%s a, int64_t ia, %s b, int64_t ib) {\n", t,
                      t);
  if (kiln_dtype_is_float(spec->acc))
    kiln_strbuf_append(b,
                       "  if (isnan(a)) return isnan(b) && ib < ia;\n"
                       "  if (isnan(b)) return 1;\n");
  kiln_strbuf_appendf(b, "  return b %s a || (b == a && ib < ia);\n}\n", better);
  /* the same where b's index is known to be the greater (a lane's
   * elements, in order): no index compare, no tie to break; for floats,
   * b is taken when it is not "a or before" (so also when it is NaN)
   * unless a is NaN, written with & so that it compiles to predicates */
  const char *before = spec->arg > 0 ? "<=" : ">=";
  kiln_strbuf_appendf(b, "KILN_DEVICE int kiln_rt_later_takes(%s a, %s b) {\n", t, t);
  if (kiln_dtype_is_float(spec->acc))
    kiln_strbuf_appendf(b, "  return !(b %s a) & (a == a);\n}\n", before);
  else
    kiln_strbuf_appendf(b, "  return b %s a;\n}\n", better);
}

/* The type of a pass's element index variables (ai, i0..): in a first
 * pass an int, the index less the chunk's start k0 (< KILN_RT_CHUNK),
 * which an arg reduction's lanes select and add with one instruction where
 * an int64_t takes two and two registers (H100, argmax of 1e8 float32: 48
 * registers against 67 with the in-order compare below); k0 is added back
 * where the lanes meet in the tree. Later passes carry the partials'
 * absolute indices. */
static const char *index_type(int first) { return first ? "int" : "int64_t"; }

/* The end of an element's block: the map of the loaded v0.. (and kiln_i)
 * into mvar, kiln_i into ivar (less k0 in a first pass: index_type). */
static void append_map(kiln_strbuf *b, const kiln_rt_spec *spec, int first, const char *mvar,
                       const char *ivar) {
  kiln_strbuf_appendf(b, "            %s kiln_m;\n", kiln_dtype_kernel_type(spec->acc));
  if (spec->map) {
    kiln_strbuf_appendf(b, "            { %s }\n", spec->map);
  } else {
    char cast[128];
    kiln_ew_cast_expression(spec->inputs[0], spec->acc, "v0", cast, sizeof cast);
    kiln_strbuf_appendf(b, "            kiln_m = %s;\n", cast);
  }
  kiln_strbuf_appendf(b, "            %s = kiln_m; %s = %s; }\n", mvar, ivar,
                      first ? "(int)((uint32_t)kiln_i - (uint32_t)k0)" : "kiln_i");
}

/* A block loading reduced element `index` (an expression) of the pass's
 * input into mvar (accumulator) and ivar (its index). */
static void append_element(kiln_strbuf *b, const kiln_rt_spec *spec, int first, int red_ndim,
                           const char *index, const char *mvar, const char *ivar) {
  kiln_strbuf_appendf(b, "          { int64_t kiln_i = %s;\n", index);
  if (!first) {
    /* partials: read at an index clamped into the chunk, so that a batch
     * of loads has no branch between them (the caller combines only those
     * before kend) */
    kiln_strbuf_appendf(b,
                        "            int64_t kiln_l = (kiln_i < kend ? kiln_i : kend - 1) * M + o;\n"
                        "            %s = pv[ov + kiln_l]; %s = %s; }\n",
                        mvar, ivar, spec->arg ? "pi[oi + kiln_l]" : "kiln_i");
    return;
  }
  char names[2][KILN_RT_MAX_INPUTS][16];
  const char *offs[KILN_RT_MAX_INPUTS], *strides[KILN_RT_MAX_INPUTS];
  for (int j = 0; j < spec->ninputs; j++) {
    if (red_ndim == 1)
      kiln_strbuf_appendf(b, "            int64_t e%d = b%d + kiln_i * rt%d_0;\n", j, j, j);
    else
      kiln_strbuf_appendf(b, "            int64_t e%d = b%d;\n", j, j);
    snprintf(names[0][j], sizeof names[0][j], "e%d", j);
    snprintf(names[1][j], sizeof names[1][j], "rt%d_", j);
    offs[j] = names[0][j];
    strides[j] = names[1][j];
  }
  if (red_ndim != 1)
    kiln_rt_append_decompose(b, "            ", "kiln_i", red_ndim, "rs", spec->ninputs, offs,
                             strides);
  for (int j = 0; j < spec->ninputs; j++) {
    char element[32], load[64];
    snprintf(element, sizeof element, "p%d[e%d]", j, j);
    kiln_ew_load_expression(spec->inputs[j], element, load, sizeof load);
    kiln_strbuf_appendf(b, "            %s v%d = %s;\n", kiln_ew_value_type(spec->inputs[j]), j,
                        load);
  }
  append_map(b, spec, first, mvar, ivar);
}

/* Whether a combine's right-hand index is known to be the greater: a
 * lane folding its own elements, which come in index order (the lane
 * trees pair lanes whose indices interleave: RT_ANY_ORDER). */
typedef enum { RT_ANY_ORDER = 0, RT_IN_ORDER = 1 } rt_order;

/* One statement folding (v, i) into (acc, ai): the arg comparison, or
 * acc = combine(acc, v). */
static void append_combine(kiln_strbuf *b, int arg, rt_order order, const char *acc,
                           const char *ai, const char *v, const char *i) {
  if (arg && order == RT_IN_ORDER)
    kiln_strbuf_appendf(b, "if (kiln_rt_later_takes(%s, %s)) { %s = %s; %s = %s; }\n", acc, v, acc,
                        v, ai, i);
  else if (arg)
    kiln_strbuf_appendf(b, "if (kiln_rt_takes(%s, %s, %s, %s)) { %s = %s; %s = %s; }\n", acc, ai, v,
                        i, acc, v, ai, i);
  else
    kiln_strbuf_appendf(b, "%s = kiln_rt_combine(%s, %s);\n", acc, acc, v);
}

/* b<j>: input j's offset of output o (through the kept dims). */
static void append_input_bases(kiln_strbuf *b, const kiln_rt_spec *spec, int keep_ndim,
                               const char *indent) {
  char names[2][KILN_RT_MAX_INPUTS][16];
  const char *offs[KILN_RT_MAX_INPUTS], *strides[KILN_RT_MAX_INPUTS];
  for (int j = 0; j < spec->ninputs; j++) {
    kiln_strbuf_appendf(b, "%sint64_t b%d = o%d;\n", indent, j, j);
    snprintf(names[0][j], sizeof names[0][j], "b%d", j);
    snprintf(names[1][j], sizeof names[1][j], "kt%d_", j);
    offs[j] = names[0][j];
    strides[j] = names[1][j];
  }
  kiln_rt_append_decompose(b, indent, "o", keep_ndim, "ks", spec->ninputs, offs, strides);
}

/* The serial variant's body (one pass, first and last): one work-item per
 * output runs the same lanes and lane tree in private memory, with no
 * barrier (CPU devices, many short reductions). */
static void append_serial_body(const kiln_rt_spec *spec, int keep_ndim, int red_ndim,
                               kiln_strbuf *b) {
  const char *acc = kiln_dtype_kernel_type(spec->acc);
  int arg = spec->arg != 0;
  char zero[64];
  kiln_ew_zero_expression(spec->acc, zero, sizeof zero);
  /* one chunk (k0 = 0): the first pass's relative indices are absolute */
  kiln_strbuf_appendf(b,
                      "  const int64_t k0 = 0;\n"
                      "  for (int64_t o = kiln_global_id(0); o < M; o += kiln_global_size(0)) {\n"
                      "    %s lanes[%d], acc = %s, m0;\n"
                      "    %s idx[%d], ai = 0, i0;\n",
                      acc, KILN_RT_LANES, zero, index_type(1), KILN_RT_LANES);
  append_input_bases(b, spec, keep_ndim, "    ");
  kiln_strbuf_appendf(b, "    for (int64_t lane = 0; lane < %d && lane < K; lane++) {\n",
                      KILN_RT_LANES);
  append_element(b, spec, 1, red_ndim, "lane", "acc", "ai");
  kiln_strbuf_appendf(b, "      for (int64_t kk = lane + %d; kk < K; kk += %d) {\n", KILN_RT_LANES,
                      KILN_RT_LANES);
  append_element(b, spec, 1, red_ndim, "kk", "m0", "i0");
  kiln_strbuf_append(b, "          ");
  append_combine(b, arg, RT_IN_ORDER, "acc", "ai", "m0", "i0");
  kiln_strbuf_appendf(b,
                      "      }\n"
                      "      lanes[lane] = acc; idx[lane] = ai;\n"
                      "    }\n"
                      "    for (int64_t s = %d; s > 0; s /= 2)\n"
                      "      for (int64_t lane = 0; lane < s; lane++)\n"
                      "        if (lane + s < K) {\n          ",
                      KILN_RT_LANES / 2);
  append_combine(b, arg, RT_ANY_ORDER, "lanes[lane]", "idx[lane]", "lanes[lane + s]",
                 "idx[lane + s]");
  kiln_strbuf_appendf(b, "        }\n"
                         "    %s a = lanes[0];\n"
                         "    int64_t eq = oq;\n",
                      acc);
  const char *qoff[1] = {"eq"}, *qstr[1] = {"qt"};
  kiln_rt_append_decompose(b, "    ", "o", keep_ndim, "ks", 1, qoff, qstr);
  char cast[1024], store[1100];
  if (arg) snprintf(cast, sizeof cast, "(%s)idx[0]", kiln_dtype_kernel_type(spec->out));
  else kiln_rt_store_expression(spec, cast, sizeof cast);
  kiln_ew_store_expression(spec->out, cast, store, sizeof store);
  kiln_strbuf_appendf(b,
                      "    q[eq] = %s;\n"
                      "    (void)a; (void)nchunks;\n"
                      "  }\n"
                      "}\n",
                      store);
}

int kiln_rt_vector_width(const kiln_rt_spec *spec) {
  size_t size = kiln_dtype_size(spec->inputs[0]);
  if (size != 4 && size != 8) return 1;
  /* the vectors are of the real dtypes (a complex64 is 8 bytes but two
   * components) */
  for (int j = 0; j < spec->ninputs; j++)
    if (kiln_dtype_size(spec->inputs[j]) != size || kiln_dtype_is_complex(spec->inputs[j]))
      return 1;
  return (int)(16 / size);
}

/* A block loading elements index .. index+vec-1 (all before kend; the
 * first's address 16-byte aligned) of every input as one vector each, and
 * mapping component c into mvars[c], ivars[c] as append_element would. */
static void append_vector_element(kiln_strbuf *b, const kiln_rt_spec *spec, int vec,
                                  const char *index, char mvars[][16], char ivars[][16]) {
  static const char *const comp[4] = {"x", "y", "z", "w"};
  kiln_strbuf_appendf(b, "          { int64_t kiln_e = %s;\n", index);
  for (int j = 0; j < spec->ninputs; j++)
    kiln_strbuf_appendf(b, "            kiln_%sx%d w%d = kiln_vload(kiln_%sx%d, p%d + b%d + kiln_e);\n",
                        kiln_dtype_name(spec->inputs[j]), vec, j, kiln_dtype_name(spec->inputs[j]),
                        vec, j, j);
  for (int c = 0; c < vec; c++) {
    kiln_strbuf_appendf(b, "          { int64_t kiln_i = kiln_e + %d;\n", c);
    for (int j = 0; j < spec->ninputs; j++)
      kiln_strbuf_appendf(b, "            %s v%d = w%d.%s;\n", kiln_ew_value_type(spec->inputs[j]),
                          j, j, comp[c]);
    append_map(b, spec, 1, mvars[c], ivars[c]);
  }
  kiln_strbuf_append(b, "          }\n");
}

/* Runs of t vectors of the work-item's lanes into `streams` accumulator
 * sets at once: for stream s, vectors at[s], at[s] + 32, ... (all before
 * kend) folded into acc_names[s]0.. (indices index_names[s]0..). Every
 * load of every stream is issued first (in flight together), then each
 * stream's vectors are combined into its accumulators in order. With
 * `assign`, each stream's first vector is its lanes' first elements
 * (assigned: the identity is never combined). */
static void append_vector_runs(kiln_strbuf *b, const kiln_rt_spec *spec, int vec, int t,
                               int assign, int streams, const char *const *at,
                               const char *const *acc_names, const char *const *index_names) {
  const char *acc = kiln_dtype_kernel_type(spec->acc);
  int arg = spec->arg != 0;
  char mv[4][16], iv[4][16], av[16], aiv[16], index[96];
  for (int s = 0; s < streams; s++)
    for (int u = 0; u < t; u++) {
      for (int c = 0; c < vec; c++) {
        if (u == 0 && assign) {
          snprintf(mv[c], sizeof mv[c], "%s%d", acc_names[s], c);
          snprintf(iv[c], sizeof iv[c], "%s%d", index_names[s], c);
          continue;
        }
        snprintf(mv[c], sizeof mv[c], "m%d_%d_%d", s, u, c);
        snprintf(iv[c], sizeof iv[c], "i%d_%d_%d", s, u, c);
        kiln_strbuf_appendf(b, "          %s %s; int %s;\n", acc, mv[c], iv[c]);
      }
      snprintf(index, sizeof index, "%s + %d", at[s], u * KILN_RT_LANES);
      append_vector_element(b, spec, vec, index, mv, iv);
    }
  for (int s = 0; s < streams; s++)
    for (int u = assign ? 1 : 0; u < t; u++)
      for (int c = 0; c < vec; c++) {
        char m[16], i[16];
        snprintf(av, sizeof av, "%s%d", acc_names[s], c);
        snprintf(aiv, sizeof aiv, "%s%d", index_names[s], c);
        snprintf(m, sizeof m, "m%d_%d_%d", s, u, c);
        snprintf(i, sizeof i, "i%d_%d_%d", s, u, c);
        kiln_strbuf_append(b, "          ");
        append_combine(b, arg, RT_IN_ORDER, av, aiv, m, i);
      }
}

/* A run of t vectors of the work-item's lanes at `at`, at + 32, ... (all
 * before kend) into acc0.. (ai0..): append_vector_runs of one stream. */
static void append_vector_run(kiln_strbuf *b, const kiln_rt_spec *spec, int vec, int t,
                              int assign, const char *at) {
  const char *acc_name = "acc", *index_name = "ai";
  append_vector_runs(b, spec, vec, t, assign, 1, &at, &acc_name, &index_name);
}

/* The vector at kk reaching past kend, element by element (never read
 * past the end): the lanes' first elements (`assign`) or combined. */
static void append_vector_partial(kiln_strbuf *b, const kiln_rt_spec *spec, int vec, int assign) {
  const char *acc = kiln_dtype_kernel_type(spec->acc);
  char zero[64], index[32], av[16], aiv[16];
  kiln_ew_zero_expression(spec->acc, zero, sizeof zero);
  for (int c = 0; c < vec; c++) {
    snprintf(index, sizeof index, "kk + %d", c);
    snprintf(av, sizeof av, "acc%d", c);
    snprintf(aiv, sizeof aiv, "ai%d", c);
    kiln_strbuf_appendf(b, "        if (%s < kend) {\n", index);
    if (assign) {
      append_element(b, spec, 1, 1, index, av, aiv);
    } else {
      kiln_strbuf_appendf(b, "          %s m = %s; int i = 0;\n", acc, zero);
      append_element(b, spec, 1, 1, index, "m", "i");
      kiln_strbuf_append(b, "          ");
      append_combine(b, spec->arg != 0, RT_IN_ORDER, av, aiv, "m", "i");
    }
    kiln_strbuf_append(b, "        }\n");
  }
}

/* A whole chunk of an exactly associative combine (spec->associative:
 * min/max and arg reductions, whose combine picks an element, so that any
 * grouping of an in-order fold picks the same one, ties and NaNs
 * included): each lane folds the first half of its elements (steps 0-63)
 * into acc and the second half (64-127) into accb at the same time, then
 * acc = combine(acc, accb), the halves in order. Exactly the bits of the
 * one fold, with two independent dependency chains instead of one: a
 * select-based combine (compare, NaN test, select: several dependent
 * instructions) had a lane's chain as the limit of max/argmax, which ran
 * at 0.201 ms for 1e8 float32 on an H100 against sum's 0.151. Sums of
 * floats are not associative and keep the one chain.
 * The halves are read in runs of t vectors each, all 2t loads issued
 * before the combines (append_vector_runs). With runs of one (unrolled 2)
 * ptxas kept 2 loads of 16 bytes in flight per work-item and 42 registers
 * (sm_90): 5 work-groups of 256 a multiprocessor, 660 on an H200 or H100
 * for the 763 of 1e8 float32, so a second wave of 103 work-groups ran
 * alone, each work-item paying 64 round trips to memory one after
 * another: max 0.135 ms against sum's 0.108 (H200), whose 36 registers
 * fit all 763 at once. Runs of 4: 48 registers (still 5 work-groups) and
 * 6-8 loads in flight, so a partial wave is bound by bandwidth, not by
 * latency. The arg reductions (64 registers with their indices) keep runs
 * of one unrolled 4, which ptxas already pipelines to 7 loads in flight. */
static void append_split_chunk(kiln_strbuf *b, const kiln_rt_spec *spec, int vec) {
  const char *acc = kiln_dtype_kernel_type(spec->acc);
  int arg = spec->arg != 0, half = KILN_RT_CHUNK / KILN_RT_LANES / 2;
  int t = arg ? KILN_RT_ARG_SPLIT_RUN : KILN_RT_SPLIT_RUN;
  const char *accs[2] = {"acc", "accb"}, *indices[2] = {"ai", "aib"};
  char first[2][64], step[2][64];
  const char *at[2] = {first[0], first[1]};
  for (int c = 0; c < vec; c++)
    kiln_strbuf_appendf(b, "        %s accb%d; int aib%d = 0;\n", acc, c, c);
  snprintf(first[0], sizeof first[0], "k0 + lane");
  snprintf(first[1], sizeof first[1], "k0 + lane + %d", half * KILN_RT_LANES);
  kiln_strbuf_append(b, "        {\n");
  append_vector_runs(b, spec, vec, t, 1, 2, at, accs, indices);
  kiln_strbuf_append(b, "        }\n");
  if (t == 1) kiln_strbuf_appendf(b, "#pragma unroll %d\n", KILN_RT_ARG_VECTOR_UNROLL);
  kiln_strbuf_appendf(b, "        for (int kiln_j = %d; kiln_j < %d; kiln_j += %d) {\n", t, half, t);
  snprintf(step[0], sizeof step[0], "k0 + lane + kiln_j * 32");
  snprintf(step[1], sizeof step[1], "k0 + lane + (kiln_j + %d) * 32", half);
  at[0] = step[0];
  at[1] = step[1];
  append_vector_runs(b, spec, vec, t, 0, 2, at, accs, indices);
  kiln_strbuf_append(b, "        }\n");
  for (int c = 0; c < vec; c++) {
    char av[16], aiv[16], bv[16], biv[16];
    snprintf(av, sizeof av, "acc%d", c);
    snprintf(aiv, sizeof aiv, "ai%d", c);
    snprintf(bv, sizeof bv, "accb%d", c);
    snprintf(biv, sizeof biv, "aib%d", c);
    kiln_strbuf_append(b, "        ");
    append_combine(b, arg, RT_IN_ORDER, av, aiv, bv, biv);
  }
}

/* The vector variant's lanes (first pass, row variant; kiln_rt_run checks
 * that every input is contiguous along the one reduced dim and 16-byte
 * aligned at each row's start, hence at each chunk's and each vector's):
 * the work-item owns lanes lane .. lane+vec-1 and reads their elements of
 * step j, k0 + 32j + lane + (0..vec-1), as one vector per input: a quarter
 * (half) of the load and index instructions. Each component goes to its own
 * lane's accumulator in the scalar variant's order (the first element
 * assigned, the next ones combined with j ascending), so every lane, and
 * the result, has the same bits. A vector reaching past kend (the last of a
 * chunk whose length is not a multiple of vec) is read element by element,
 * never past the end. */
static void append_vector_lanes(kiln_strbuf *b, const kiln_rt_spec *spec, int vec, int batch) {
  int arg = spec->arg != 0;
  if (vec > 4) vec = 4; /* kiln_rt_vector_width's range, and the names' */
  if (batch > KILN_RT_MAX_BATCH) batch = KILN_RT_MAX_BATCH;
  /* A whole chunk (all but a row's last): every vector is in range, so a
   * loop of constant trip count with no test on kend, which the compilers
   * unroll and pipeline. Measured on an H100 (1e8 float32): sum 0.181 ms
   * through the guarded batches below, 0.160-0.164 this way (unrolled 1:
   * 0.180, 2: 0.160, 4: 0.164, 8: 0.163, 16: 0.161); argmax, with the
   * in-order compare and int indices, 0.184 in batches of 8, 0.180 this
   * way unrolled 2, 0.166-0.167 unrolled 4, 0.171 unrolled 8. */
  kiln_strbuf_appendf(b, "      if (kend - k0 == %d) {\n", KILN_RT_CHUNK);
  if (spec->associative) {
    append_split_chunk(b, spec, vec);
  } else {
    append_vector_run(b, spec, vec, 1, 1, "k0 + lane");
    kiln_strbuf_appendf(b,
                        "#pragma unroll %d\n"
                        "        for (int kiln_j = 1; kiln_j < %d; kiln_j++) {\n",
                        arg ? KILN_RT_ARG_VECTOR_UNROLL : KILN_RT_VECTOR_UNROLL,
                        KILN_RT_CHUNK / KILN_RT_LANES);
    append_vector_run(b, spec, vec, 1, 0, "k0 + lane + kiln_j * 32");
    kiln_strbuf_append(b, "        }\n");
  }
  kiln_strbuf_append(b, "      } else {\n");
  /* A shorter chunk (a row's last, or a short row): the lane's first
   * vector, then runs of `run` vectors while a whole run is before kend,
   * then one run of each smaller power of two that fits, so that every
   * whole vector is read in a run whose loads are in flight together;
   * then the vector reaching past kend. A row of 100 float32 is each
   * lane's first vector and a run of 2 (lane 0: and one more). H100, row
   * sum of a (1e6, 100) float32 matrix, local-memory lane tree: 0.216-0.219
   * ms reading the vectors after the first one at a time, 0.210-0.212 in
   * runs (of 2, 4 or 8 alike). */
  int run = batch > KILN_RT_SHORT_RUN ? batch : KILN_RT_SHORT_RUN;
  kiln_strbuf_appendf(b,
                      "      int64_t kk = k0 + lane;\n"
                      "      if (kk + %d <= kend) {\n",
                      vec);
  append_vector_run(b, spec, vec, 1, 1, "kk");
  kiln_strbuf_append(b, "      } else {\n");
  append_vector_partial(b, spec, vec, 1);
  kiln_strbuf_appendf(b,
                      "      }\n"
                      "      kk += %d;\n"
                      "      for (; kk + %d <= kend; kk += %d) {\n",
                      KILN_RT_LANES, (run - 1) * KILN_RT_LANES + vec, run * KILN_RT_LANES);
  append_vector_run(b, spec, vec, run, 0, "kk");
  kiln_strbuf_append(b, "      }\n");
  /* fewer than `run` whole vectors are left: a run of each power of two */
  int top = 1;
  while (top * 2 < run) top *= 2;
  for (int t = run > 1 ? top : 0; t >= 1; t /= 2) {
    kiln_strbuf_appendf(b, "      if (kk + %d <= kend) {\n", (t - 1) * KILN_RT_LANES + vec);
    append_vector_run(b, spec, vec, t, 0, "kk");
    kiln_strbuf_appendf(b, "        kk += %d;\n      }\n", t * KILN_RT_LANES);
  }
  /* the vector reaching past kend, if any (the next would start past it) */
  kiln_strbuf_append(b, "      if (kk < kend) {\n");
  append_vector_partial(b, spec, vec, 0);
  kiln_strbuf_append(b,
                     "      }\n"
                     "      }\n"); /* the whole chunk's else */
}

void kiln_rt_append_helpers(const kiln_rt_spec *spec, kiln_strbuf *b) {
  const char *acc = kiln_dtype_kernel_type(spec->acc);
  if (spec->preamble) {
    kiln_strbuf_append(b, spec->preamble);
    kiln_strbuf_append(b, "\n");
  }
  if (spec->arg)
    append_arg_takes(spec, b);
  else
    kiln_strbuf_appendf(b, "KILN_DEVICE %s kiln_rt_combine(%s a, %s b) {\n%s\n}\n", acc, acc, acc,
                        spec->combine);
}

/* Where a pass's chunk results go: partials (qv, qi), the output (q,
 * through the post-map), or, in the tail, whichever its run-time nchunks
 * says (one chunk: the output). */
typedef enum { RT_STORE_PARTIAL, RT_STORE_OUT, RT_STORE_EITHER } rt_store;

/* The lane tree's last steps, s < vec: the slot's first work-item pairs
 * its own lanes (v[c], i[c]: their value and index expressions) in the
 * tree's order, skipping lanes past the chunk's end. */
static void append_own_lane_pairs(kiln_strbuf *b, int arg, int vec, char v[][16], char i[][16]) {
  for (int s = vec / 2; s > 0; s /= 2)
    for (int c = 0; c < s; c++) {
      kiln_strbuf_appendf(b, "      if (k0 + %d < kend) ", c + s);
      append_combine(b, arg, RT_ANY_ORDER, v[c], i[c], v[c + s], i[c + s]);
    }
}

/* Whether the row variants' lane tree may run on registers where the
 * backend can move a value between the work-items of a warp
 * (KILN_LANE_SHUFFLE): accumulators of 4 or 8 bytes, real. */
static int lane_shuffle_fits(const kiln_rt_spec *spec) {
  size_t size = kiln_dtype_size(spec->acc);
  return (size == 4 || size == 8) && !kiln_dtype_is_complex(spec->acc);
}

/* The row variant's lane tree on registers, for backends that define
 * KILN_LANE_SHUFFLE (kiln_lane_shuffle_down(v, d): v of the work-item d
 * places after this one in its warp; every work-item of the warp calls
 * it; a slot's work-items are consecutive, in one warp): the same steps as
 * through local memory (lane i takes lane i+16, i+8, ..., the lanes of
 * other work-items first, then those of the work-item itself), so the
 * same bits, without the stores, loads and barriers. H100, row sum of a
 * (1e6, 100) float32 matrix: 0.210-0.213 ms through local memory, 0.141-
 * 0.143 on registers. Emits the #ifdef branch and opens the slot's first
 * work-item's block, which leaves the result where the local-memory tree
 * does (bv[x], bi[x]); append_tree emits the #else branch. */
static void append_shuffle_tree(const kiln_rt_spec *spec, int first, int vec, kiln_strbuf *b) {
  const char *acc = kiln_dtype_kernel_type(spec->acc);
  int arg = spec->arg != 0;
  char av[4][16], aiv[4][16], tv[4][8], tiv[4][8];
  for (int c = 0; c < vec; c++) {
    /* the lanes' variables: acc, ai (vec 1) or acc0, ai0, acc1, ... */
    snprintf(av[c], sizeof av[c], vec > 1 ? "acc%d" : "acc", c);
    snprintf(aiv[c], sizeof aiv[c], vec > 1 ? "ai%d" : "ai", c);
    snprintf(tv[c], sizeof tv[c], "t%d", c);
    snprintf(tiv[c], sizeof tiv[c], "ti%d", c);
  }
  kiln_strbuf_append(b, "#ifdef KILN_LANE_SHUFFLE\n");
  for (int s = KILN_RT_LANES / 2; s >= vec; s /= 2) {
    kiln_strbuf_append(b, "    {\n");
    for (int c = 0; c < vec; c++) {
      kiln_strbuf_appendf(b, "      %s %s = kiln_lane_shuffle_down(%s, %d);\n", acc, tv[c], av[c],
                          s / vec);
      if (arg)
        kiln_strbuf_appendf(b, "      %s %s = kiln_lane_shuffle_down(%s, %d);\n", index_type(first),
                            tiv[c], aiv[c], s / vec);
    }
    kiln_strbuf_appendf(b, "      if (p < npairs && lane < %d) {\n", s);
    for (int c = 0; c < vec; c++) {
      kiln_strbuf_appendf(b, "        if (k0 + lane + %d < kend) ", c + s);
      append_combine(b, arg, RT_ANY_ORDER, av[c], aiv[c], tv[c], tiv[c]);
    }
    kiln_strbuf_append(b, "      }\n    }\n");
  }
  kiln_strbuf_append(b, "    if (p < npairs && lane == 0) {\n");
  append_own_lane_pairs(b, arg, vec, av, aiv);
  kiln_strbuf_appendf(b, "      bv[x] = %s;\n", av[0]);
  if (arg) kiln_strbuf_appendf(b, "      bi[x] = %s%s;\n", first ? "k0 + " : "", aiv[0]);
  kiln_strbuf_append(b, "#else\n");
}

/* The end of a pass (row and column variants): the lanes' values into
 * local memory, the lane tree, the chunk's result stored by lane 0. With
 * vec lanes a work-item (the vector variant), the steps s >= vec pair lanes
 * of different work-items, component by component through local memory as
 * in the scalar variant; the last ones (s < vec) pair lanes of work-item 0,
 * which runs them alone, in the same order, with no barrier. The row
 * variants also get the tree on registers (append_shuffle_tree), which
 * the backends with warp shuffles compile instead. */
static void append_tree(const kiln_rt_spec *spec, int first, rt_store store, int col, int vec,
                        int keep_ndim, kiln_strbuf *b) {
  const char *acc = kiln_dtype_kernel_type(spec->acc);
  int arg = spec->arg != 0;
  const char *k0 = first ? "k0 + " : ""; /* index_type */
  kiln_strbuf_append(b, "    int64_t x = slot * 32 + lane;\n");
  int shuffle = !col && lane_shuffle_fits(spec);
  if (shuffle) append_shuffle_tree(spec, first, vec, b);
  if (vec == 1) {
    kiln_strbuf_append(b, "    bv[x] = acc;\n");
    if (arg) kiln_strbuf_appendf(b, "    bi[x] = %sai;\n", k0);
  }
  for (int c = 0; c < vec && vec > 1; c++) {
    kiln_strbuf_appendf(b, "    bv[x + %d] = acc%d;\n", c, c);
    if (arg) kiln_strbuf_appendf(b, "    bi[x + %d] = %sai%d;\n", c, k0, c);
  }
  /* the row variant's slot is 32 consecutive work-items: its lane tree
   * needs only their barrier (a warp's on CUDA); the column variant's
   * lanes span the work-group */
  const char *sync = col ? "kiln_barrier()" : "kiln_barrier32()";
  if (vec == 1) {
    kiln_strbuf_appendf(b,
                        "    %s;\n"
                        "    for (int64_t s = 16; s > 0; s /= 2) {\n"
                        "      if (p < npairs && lane < s && k0 + lane + s < kend) {\n",
                        sync);
    kiln_strbuf_append(b, "        ");
    append_combine(b, arg, RT_ANY_ORDER, "bv[x]", "bi[x]", "bv[x + s]", "bi[x + s]");
    kiln_strbuf_append(b, "      }\n");
  } else {
    kiln_strbuf_appendf(b,
                        "    %s;\n"
                        "    for (int64_t s = 16; s >= %d; s /= 2) {\n"
                        "      if (p < npairs && lane < s) {\n",
                        sync, vec);
    for (int c = 0; c < vec; c++) {
      char to[32], ti[32], from[32], fi[32];
      snprintf(to, sizeof to, "bv[x + %d]", c);
      snprintf(ti, sizeof ti, "bi[x + %d]", c);
      snprintf(from, sizeof from, "bv[x + %d + s]", c);
      snprintf(fi, sizeof fi, "bi[x + %d + s]", c);
      kiln_strbuf_appendf(b, "        if (k0 + lane + %d + s < kend) ", c);
      append_combine(b, arg, RT_ANY_ORDER, to, ti, from, fi);
    }
    kiln_strbuf_append(b, "      }\n");
  }
  kiln_strbuf_appendf(b,
                      "      %s;\n"
                      "    }\n"
                      "    if (p < npairs && lane == 0) {\n",
                      sync);
  char lv[4][16], li[4][16];
  for (int c = 0; c < vec && c < 4; c++) {
    snprintf(lv[c], sizeof lv[c], "bv[x + %d]", c);
    snprintf(li[c], sizeof li[c], "bi[x + %d]", c);
  }
  append_own_lane_pairs(b, arg, vec, lv, li);
  if (shuffle) kiln_strbuf_append(b, "#endif\n");
  kiln_strbuf_appendf(b, "      %s a = bv[x];\n", acc);
  /* the tail's passes choose at run time: the last has one chunk */
  if (store == RT_STORE_EITHER) kiln_strbuf_append(b, "      if (nchunks == 1) {\n");
  if (store != RT_STORE_PARTIAL) {
    kiln_strbuf_append(b, "      int64_t eq = oq;\n");
    const char *qoff[1] = {"eq"}, *qstr[1] = {"qt"};
    kiln_rt_append_decompose(b, "      ", "o", keep_ndim, "ks", 1, qoff, qstr);
    char cast[1024], value[1100];
    if (arg)
      snprintf(cast, sizeof cast, "(%s)bi[x]", kiln_dtype_kernel_type(spec->out));
    else
      kiln_rt_store_expression(spec, cast, sizeof cast);
    kiln_ew_store_expression(spec->out, cast, value, sizeof value);
    kiln_strbuf_appendf(b, "      q[eq] = %s;\n", value);
  }
  if (store == RT_STORE_EITHER) kiln_strbuf_append(b, "      } else {\n");
  if (store != RT_STORE_OUT) {
    kiln_strbuf_append(b, "      qv[oqv + c * M + o] = a;\n");
    if (arg) kiln_strbuf_append(b, "      qi[oqi + c * M + o] = bi[x];\n");
  }
  if (store == RT_STORE_EITHER) kiln_strbuf_append(b, "      }\n");
  kiln_strbuf_appendf(b,
                      "      (void)a;\n"
                      "    }\n"
                      "    %s;\n"
                      "  }\n"
                      "  }\n",
                      sync);
}

int kiln_rt_batch(const kiln_rt_spec *spec, int wide) {
  /* Measured on an H100 (reduce_bench, batches of 1 to 16): a pass that
   * fills the GPU runs a plain combine fastest as a simple loop, which the
   * compiler pipelines itself (sum of 1e8: 0.158 ms, 0.194 with batches of
   * 8), while the arg comparison, a chain of selects, gains from batches
   * of 8 (argmax of 1e8: 0.311 -> 0.191 ms). A pass of a few chunks (the
   * partials of a large reduction) has one lane's 128 loads as its time. */
  if (wide) return spec->arg ? 16 : KILN_RT_MAX_BATCH;
  return spec->arg ? 8 : 1;
}

/* The loop of a row or column pass over its (output, chunk) pairs, each
 * slot of 32 lanes taking one, work-groups `group` of `ngroups` (the
 * launch's, or "0" of "1" in the tail), as one block. Local arrays bv/bi
 * are the kernel's. */
static void append_pass_loop(const kiln_rt_spec *spec, int first, rt_store store, int col,
                             int batch, int vec, int keep_ndim, int red_ndim, const char *group,
                             const char *ngroups, kiln_strbuf *b) {
  const char *acc = kiln_dtype_kernel_type(spec->acc);
  int arg = spec->arg != 0;
  char zero[64];
  kiln_ew_zero_expression(spec->acc, zero, sizeof zero);
  /* 32 lanes a slot, a slot 32 / vec work-items */
  if (vec < 1 || vec > 4) vec = 1;
  int items = KILN_RT_LANES / vec;
  char lane[32], slot[32];
  if (col) {
    snprintf(lane, sizeof lane, "lid / W");
    snprintf(slot, sizeof slot, "lid %% W");
  } else {
    snprintf(lane, sizeof lane, vec > 1 ? "lid %% %d * %d" : "lid %% %d", items, vec);
    snprintf(slot, sizeof slot, "lid / %d", items);
  }
  /* (o, c) of pair p without a 64-bit division in the usual cases (one
   * output, or one chunk an output): it costs tens of instructions, per
   * slot of a short row */
  kiln_strbuf_appendf(b,
                      "  {\n"
                      "  int64_t lid = kiln_local_id(0), W = kiln_local_size(0) / %d;\n"
                      "  int64_t lane = %s, slot = %s;\n"
                      "  int64_t npairs = M * nchunks;\n"
                      "  for (int64_t base = %s * W; base < npairs; base += %s * W) {\n"
                      "    int64_t p = base + slot;\n"
                      "    int64_t o = M == 1 ? 0 : nchunks == 1 ? p : p %% M;\n"
                      "    int64_t c = M == 1 ? p : nchunks == 1 ? 0 : p / M;\n"
                      "    int64_t k0 = c * %d, kend = k0 + %d < K ? k0 + %d : K;\n",
                      items, lane, slot, group, ngroups, KILN_RT_CHUNK, KILN_RT_CHUNK,
                      KILN_RT_CHUNK);
  for (int c = 0; c < vec; c++) {
    char suffix[8] = "";
    if (vec > 1) snprintf(suffix, sizeof suffix, "%d", c);
    kiln_strbuf_appendf(b,
                        "    %s acc%s = %s;\n"
                        "    %s ai%s = 0;\n",
                        acc, suffix, zero, index_type(first), suffix);
  }
  kiln_strbuf_append(b, "    if (p < npairs) {\n");
  if (first) append_input_bases(b, spec, keep_ndim, "      ");
  if (batch < 1) batch = 1;
  if (batch > KILN_RT_MAX_BATCH) batch = KILN_RT_MAX_BATCH;
  if (vec > 1) {
    append_vector_lanes(b, spec, vec, batch);
    kiln_strbuf_append(b, "    }\n");
    append_tree(spec, first, store, col, vec, keep_ndim, b);
    return;
  }
  /* a lane's elements in order: its first, then the rest in batches of
   * loads, each predicated on the chunk's end so that a whole batch is in
   * flight at once, combined in order (the same bits as one at a time) */
  kiln_strbuf_append(b,
                     "      int64_t kk = k0 + lane;\n"
                     "      if (kk < kend) {\n");
  append_element(b, spec, first, red_ndim, "kk", "acc", "ai");
  kiln_strbuf_appendf(b, "        for (kk += %d; kk < kend; kk += %d) {\n", KILN_RT_LANES,
                      batch * KILN_RT_LANES);
  char mv[KILN_RT_MAX_BATCH][8], iv[KILN_RT_MAX_BATCH][8];
  for (int u = 0; u < batch; u++) {
    char index[32];
    snprintf(index, sizeof index, "kk + %d", u * KILN_RT_LANES);
    snprintf(mv[u], sizeof mv[u], "m%d", u);
    snprintf(iv[u], sizeof iv[u], "i%d", u);
    kiln_strbuf_appendf(b, "          %s %s = %s; %s %s = 0;\n", acc, mv[u], zero, index_type(first),
                        iv[u]);
    if (u > 0 && first) kiln_strbuf_appendf(b, "          if (%s < kend)\n", index);
    append_element(b, spec, first, red_ndim, index, mv[u], iv[u]);
  }
  for (int u = 0; u < batch; u++) {
    kiln_strbuf_append(b, "          ");
    if (u > 0) kiln_strbuf_appendf(b, "if (kk + %d < kend) ", u * KILN_RT_LANES);
    append_combine(b, arg, RT_IN_ORDER, "acc", "ai", mv[u], iv[u]);
  }
  kiln_strbuf_append(b, "        }\n");
  kiln_strbuf_append(b,
                     "      }\n"
                     "    }\n");
  append_tree(spec, first, store, col, 1, keep_ndim, b);
}

/* The tail of a fused first pass (M == 1): every work-group's partials
 * written, the one that finishes last (a global counter at cnt[ocnt],
 * zero before the launch and left zero after it) runs the later passes
 * itself, the same row passes over the same partials as separate launches
 * would, so the same bits, with no launch between them. Each work-item
 * fences its own stores before the group counts itself in, and the last
 * group fences before reading and reads the partials through volatile
 * pointers (other compute units' stores: not through a stale cache; plain
 * loads behind an L1 prefetch read a stale partial on an H100). Pass
 * t reads region t % 2 (region 0: the first pass's qv) and writes the
 * other, or the output once one chunk is left. */
static void append_tail(const kiln_rt_spec *spec, int keep_ndim, kiln_strbuf *b) {
  const char *acc = kiln_dtype_kernel_type(spec->acc);
  int arg = spec->arg != 0;
  kiln_strbuf_append(b,
                     "  /* the later passes, in the work-group that finishes last */\n"
                     "  kiln_fence();\n"
                     "  kiln_barrier();\n"
                     "  if (kiln_local_id(0) == 0)\n"
                     "    kiln_last[0] = kiln_atomic_add_u32(cnt + ocnt, 1u) + 1u ==\n"
                     "                   (uint32_t)kiln_num_groups(0);\n"
                     "  kiln_barrier();\n"
                     "  if (kiln_last[0]) {\n"
                     "    kiln_fence();\n");
  kiln_strbuf_appendf(b, "    KILN_GLOBAL %s *kiln_v0 = qv + oqv, *kiln_v1 = tv + otv;\n", acc);
  if (arg)
    kiln_strbuf_append(b, "    KILN_GLOBAL int64_t *kiln_i0 = qi + oqi, *kiln_i1 = ti + oti;\n");
  kiln_strbuf_appendf(b,
                      "    for (int64_t kiln_n = nchunks, kiln_t = 0; kiln_n > 1; kiln_t++) {\n"
                      "      KILN_GLOBAL volatile const %s *pv = kiln_t %% 2 == 0 ? kiln_v0 : kiln_v1;\n"
                      "      KILN_GLOBAL %s *qv = kiln_t %% 2 == 0 ? kiln_v1 : kiln_v0;\n",
                      acc, acc);
  if (arg)
    kiln_strbuf_append(
        b, "      KILN_GLOBAL volatile const int64_t *pi = kiln_t % 2 == 0 ? kiln_i0 : kiln_i1;\n"
           "      KILN_GLOBAL int64_t *qi = kiln_t % 2 == 0 ? kiln_i1 : kiln_i0;\n"
           "      int64_t oi = 0, oqi = 0;\n");
  kiln_strbuf_appendf(b,
                      "      int64_t ov = 0, oqv = 0, M = 1, K = kiln_n;\n"
                      "      int64_t nchunks = (kiln_n + %d) / %d;\n",
                      KILN_RT_CHUNK - 1, KILN_RT_CHUNK);
  /* the tail's batch of loads: its registers count for the whole kernel,
   * so no more than the first pass's own (H100, sum of 1e8 float32: the
   * kernel keeps 36 registers with a batch of 8 or 10 and 44 with 12 or
   * 16, ptxas for sm_90 of NVRTC 13.0, 7 work-groups a multiprocessor
   * against 5; 8 0.151 ms, 10 0.153-0.154, 12 to 32 0.165-0.172). The tail is the
   * critical path's end: each lane folds its 128 partials in order, a
   * batch of loads at a time, so a batch is one L2 round trip (the tail
   * left out, the same kernel takes 0.144-0.148 ms for sum, 0.150 for
   * max and min, 0.152 for argmax). The first pass of an associative
   * combine (the split chunk, the arg's indices) keeps registers enough
   * for a batch of 16 (one device call, two runs each, ms; 8 / 16 / 32):
   * max 0.158-0.160 / 0.150-0.152 / 0.147-0.149, min 0.159-0.160 /
   * 0.150-0.151 / 0.146-0.150, argmax 0.163-0.165 / 0.156-0.161 /
   * 0.165-0.169. A register bound of 8 groups a multiprocessor
   * (KILN_GROUP_BOUNDS(256, 8)) spills instead: 0.157-0.300. */
  int batch = spec->associative ? KILN_RT_ASSOCIATIVE_TAIL_BATCH : KILN_RT_TAIL_BATCH;
  append_pass_loop(spec, 0, RT_STORE_EITHER, 0, batch, 1, keep_ndim, 1, "0", "1", b);
  kiln_strbuf_append(b,
                     "      kiln_barrier();\n"
                     "      kiln_n = nchunks;\n"
                     "    }\n"
                     "    if (kiln_local_id(0) == 0) cnt[ocnt] = 0u;\n"
                     "  }\n");
}

void kiln_rt_source(const kiln_rt_spec *spec, const kiln_rt_pass *pass, const char *entry,
                    kiln_strbuf *b) {
  const char *acc = kiln_dtype_kernel_type(spec->acc);
  int first = pass->first, col = pass->col, vec = pass->vec;
  int keep_ndim = pass->keep_ndim, red_ndim = pass->red_ndim;
  int tail = pass->tail && first && !pass->last && !col;
  int last = pass->last || tail; /* the kernel writes the output */
  const char *outt = kiln_dtype_kernel_type(last ? spec->out : spec->acc);
  int arg = spec->arg != 0;
  if (!first || col || red_ndim != 1 || vec != kiln_rt_vector_width(spec)) vec = 1;
  char vector[48] = "";
  if (vec > 1) snprintf(vector, sizeof vector, ", vector lanes (%d a work-item)", vec);
  kiln_strbuf_appendf(b, "/* reduction '%s': pass%s%s%s%s%s */\n", spec->name,
                      first ? " first" : "", pass->last ? " last" : "",
                      col == KILN_RT_SERIAL ? ", serial variant"
                      : col                 ? ", column variant"
                                            : "",
                      vector, tail ? ", later passes in the last work-group" : "");
  kiln_rt_append_helpers(spec, b);
  /* parameters */
  kiln_strbuf_appendf(b, "KILN_KERNEL void %s(int64_t M, int64_t K, int64_t nchunks", entry);
  if (first || last)
    for (int d = 0; d < keep_ndim; d++) kiln_strbuf_appendf(b, ", int64_t ks%d", d);
  if (first) {
    for (int d = 0; d < red_ndim; d++) kiln_strbuf_appendf(b, ", int64_t rs%d", d);
    for (int j = 0; j < spec->ninputs; j++) {
      kiln_strbuf_appendf(b, ",\n    KILN_GLOBAL const %s *p%d, int64_t o%d",
                          kiln_dtype_kernel_type(spec->inputs[j]), j, j);
      for (int d = 0; d < keep_ndim; d++) kiln_strbuf_appendf(b, ", int64_t kt%d_%d", j, d);
      for (int d = 0; d < red_ndim; d++) kiln_strbuf_appendf(b, ", int64_t rt%d_%d", j, d);
    }
  } else {
    kiln_strbuf_appendf(b, ",\n    KILN_GLOBAL const %s *pv, int64_t ov", acc);
    if (arg) kiln_strbuf_append(b, ", KILN_GLOBAL const int64_t *pi, int64_t oi");
  }
  if (!pass->last) {
    kiln_strbuf_appendf(b, ",\n    KILN_GLOBAL %s *qv, int64_t oqv", acc);
    if (arg) kiln_strbuf_append(b, ", KILN_GLOBAL int64_t *qi, int64_t oqi");
  }
  if (tail) {
    kiln_strbuf_appendf(b, ",\n    KILN_GLOBAL %s *tv, int64_t otv", acc);
    if (arg) kiln_strbuf_append(b, ", KILN_GLOBAL int64_t *ti, int64_t oti");
    kiln_strbuf_append(b, ", KILN_GLOBAL uint32_t *cnt, int64_t ocnt");
  }
  if (last) {
    kiln_strbuf_appendf(b, ",\n    KILN_GLOBAL %s *q, int64_t oq", outt);
    for (int d = 0; d < keep_ndim; d++) kiln_strbuf_appendf(b, ", int64_t qt%d", d);
  }
  kiln_strbuf_append(b, ") {\n");
  if (col == KILN_RT_SERIAL) {
    append_serial_body(spec, keep_ndim, red_ndim, b);
    return;
  }
  kiln_strbuf_appendf(b, "  KILN_LOCAL_ARRAY(%s, bv, %d);\n", acc, KILN_RT_MAX_GROUP * vec);
  if (arg)
    kiln_strbuf_appendf(b, "  KILN_LOCAL_ARRAY(int64_t, bi, %d);\n", KILN_RT_MAX_GROUP * vec);
  if (tail) kiln_strbuf_append(b, "  KILN_LOCAL_ARRAY(int, kiln_last, 1);\n");
  append_pass_loop(spec, first, pass->last ? RT_STORE_OUT : RT_STORE_PARTIAL, col, pass->batch,
                   vec, keep_ndim, red_ndim, "kiln_group_id(0)", "kiln_num_groups(0)", b);
  if (tail) append_tail(spec, keep_ndim, b);
  kiln_strbuf_append(b, "}\n");
}

void kiln_rt_store_expression(const kiln_rt_spec *spec, char *out, size_t size) {
  if (!spec->post) {
    kiln_ew_cast_expression(spec->acc, spec->out, "a", out, size);
  } else if (spec->out == KILN_BOOL) {
    snprintf(out, size, "(kiln_bool)((%s) != 0)", spec->post);
  } else {
    snprintf(out, size, "(%s)(%s)", kiln_ew_value_type(spec->out), spec->post);
  }
}

kiln_dtype kiln_rt_accumulator(kiln_dtype d) { return d == KILN_FLOAT16 ? KILN_FLOAT32 : d; }

/* ---- launching --------------------------------------------------------------- */

void kiln_rt_subview(const kiln_array *a, int first, int ndim, int64_t size, int with_offset,
                     kiln_array *v) {
  /* field by field: a view is made per operand per call, and zeroing the
   * whole (unused) shape and strides was a measurable part of a call */
  atomic_init(&v->refcount, 0);
  v->buffer = a->buffer;
  v->dtype = a->dtype;
  v->ndim = ndim;
  v->size = size;
  v->offset = with_offset ? a->offset : 0;
  memcpy(v->shape, a->shape + first, (size_t)ndim * sizeof *v->shape);
  memcpy(v->strides, a->strides + first, (size_t)ndim * sizeof *v->strides);
}

kiln_status kiln_rt_merge(int n, const kiln_array *const *views, kiln_ew_layout *layout) {
  KILN_RETURN_IF_ERROR(kiln_ew_layout_plan(n, views, layout));
  if (layout->ndim == 0) {
    layout->ndim = 1;
    layout->shape[0] = layout->n;
    for (int k = 0; k < n; k++) layout->strides[k][0] = 1;
  }
  return KILN_OK;
}

typedef struct rt_request {
  const kiln_rt_spec *spec;
  kiln_rt_pass pass;
  const char *entry;
} rt_request;

static kiln_status rt_generate(void *data, kiln_strbuf *source) {
  const rt_request *r = data;
  kiln_rt_source(r->spec, &r->pass, r->entry, source);
  return KILN_OK;
}

static kiln_status get_program(kiln_context *ctx, const rt_request *r, kiln_program **program) {
  /* built on every call: the numbers in binary (formatting them with
   * printf was a large share of a reduction's host time); the key is
   * compared as bytes of its length */
  kiln_strbuf key = {0};
  const kiln_rt_spec *s = r->spec;
  const kiln_rt_pass *q = &r->pass;
  const char *parts[4] = {s->preamble, s->map, s->combine, s->post};
  int64_t numbers[16 + KILN_RT_MAX_INPUTS] = {
      q->first, q->last, q->col,     q->tail,     q->batch, q->vec,      q->keep_ndim,
      q->red_ndim, s->acc, s->out, s->arg, s->ninputs};
  int count = 12;
  /* lengths keep the parts apart whatever they contain */
  for (int i = 0; i < 4; i++) numbers[count++] = parts[i] ? (int64_t)strlen(parts[i]) : -1;
  for (int j = 0; j < s->ninputs; j++) numbers[count++] = s->inputs[j];
  kiln_strbuf_append(&key, "\1rt|");
  kiln_strbuf_append(&key, s->name);
  kiln_strbuf_append_n(&key, "|", 1);
  kiln_strbuf_append_n(&key, (const char *)numbers, (size_t)count * sizeof numbers[0]);
  for (int i = 0; i < 4; i++)
    if (parts[i]) kiln_strbuf_append(&key, parts[i]);
  kiln_status status = kiln_strbuf_status(&key);
  if (status == KILN_OK)
    status = kiln_program_get_keyed(ctx, key.data, key.length, KILN_RT_OPTIONS, r->entry,
                                    rt_generate, (void *)r, program);
  if (status != KILN_OK) kiln_error_prefix(status, "reduction '%s'", s->name);
  kiln_strbuf_free(&key);
  return status;
}

/* One pass's launch arguments, appended. */
typedef struct arg_list {
  kiln_backend_arg args[8 + 2 * KILN_MAX_DIMS + KILN_RT_MAX_INPUTS * (2 + 2 * KILN_MAX_DIMS) + 8 +
                        KILN_MAX_DIMS];
  int n;
} arg_list;

static void add_scalar(arg_list *l, const int64_t *value) {
  l->args[l->n++] =
      (kiln_backend_arg){.kind = KILN_BACKEND_ARG_SCALAR, .value = value, .size = sizeof(int64_t)};
}

static void add_buffer(arg_list *l, kiln_backend_buffer *buffer) {
  l->args[l->n++] = (kiln_backend_arg){.kind = KILN_BACKEND_ARG_BUFFER, .buffer = buffer};
}

static uint64_t align64(uint64_t n) { return (n + 63) / 64 * 64; }

static atomic_int forced_loads; /* kiln_rt_force_loads */

void kiln_rt_force_loads(kiln_rt_loads loads) { atomic_store(&forced_loads, (int)loads); }

static atomic_int tail_refused; /* kiln_rt_allow_tail(0) */

void kiln_rt_allow_tail(int allow) { atomic_store(&tail_refused, !allow); }

static atomic_uint_fast64_t tail_launches; /* kiln_rt_tail_launches */

uint64_t kiln_rt_tail_launches(void) { return (uint64_t)atomic_load(&tail_launches); }

int kiln_rt_tail_fits(const kiln_rt_spec *spec, int64_t partials, uint64_t local) {
  int64_t later = (partials + KILN_RT_CHUNK - 1) / KILN_RT_CHUNK;
  return !kiln_dtype_is_complex(spec->acc) && partials > 1 &&
         later <= (int64_t)(local / KILN_RT_LANES);
}

kiln_status kiln_rt_scratch_acquire(kiln_context *ctx, kiln_stream *stream,
                                    kiln_rt_scratch *scratch, uint64_t bytes,
                                    kiln_array **buffer, kiln_array **owned) {
  *buffer = *owned = NULL;
  if (bytes == 0) return KILN_OK;
  uint64_t total = KILN_RT_SCRATCH_HEAD + bytes;
  if (scratch && scratch->buffer && scratch->stream == stream &&
      (uint64_t)scratch->buffer->size >= total) {
    *buffer = scratch->buffer;
    return KILN_OK;
  }
  int64_t shape[1] = {(int64_t)total};
  KILN_RETURN_IF_ERROR(kiln_array_alloc(ctx, KILN_UINT8, 1, shape, owned));
  kiln_array head;
  kiln_rt_subview(*owned, 0, 1, KILN_RT_SCRATCH_HEAD, 1, &head);
  head.shape[0] = KILN_RT_SCRATCH_HEAD;
  static const uint8_t zero = 0;
  kiln_status status = kiln_ew_fill_on(&head, &zero, stream);
  if (status != KILN_OK) {
    kiln_array_release(*owned);
    *owned = NULL;
    return status;
  }
  *buffer = *owned;
  return KILN_OK;
}

void kiln_rt_scratch_finish(kiln_rt_scratch *scratch, kiln_stream *stream, kiln_array *buffer,
                            kiln_array *owned, kiln_status status) {
  if (!scratch) {
    kiln_array_release(owned);
    return;
  }
  if (status != KILN_OK) {
    if (buffer && buffer == scratch->buffer) {
      kiln_array_release(scratch->buffer);
      scratch->buffer = NULL;
    }
    kiln_array_release(owned);
    return;
  }
  if (owned) {
    kiln_array_release(scratch->buffer);
    scratch->buffer = owned;
  }
  if (buffer) scratch->stream = stream;
}

/* Can the first pass read input j's rows as vectors of 16 bytes? Its
 * elements must be contiguous along the one merged reduced dim and every
 * row's first element 16-byte aligned: the buffer's base (kiln's own
 * allocations are; wrapped memory is checked by its address, and an OpenCL
 * memory object of another library's is not trusted), the offset, and each
 * kept stride of an extent above 1. Each chunk starts a multiple of 4096
 * elements into its row, each vector a multiple of 4 (2) elements into its
 * chunk: aligned too. */
static int vector_fits(kiln_context *ctx, const kiln_array *input, const kiln_ew_layout *keep,
                       const kiln_ew_layout *red, int j) {
  int64_t size = (int64_t)kiln_dtype_size(input->dtype);
  if (red->ndim != 1 || red->strides[j][0] != 1 || keep->offsets[j] * size % 16 != 0) return 0;
  for (int d = 0; d < keep->ndim; d++)
    if (keep->shape[d] > 1 && keep->strides[j][d] * size % 16 != 0) return 0;
  if (input->buffer->wrapped) {
    kiln_backend_memory memory = {0};
    if (!ctx->ops->buffer_native || !input->buffer->handle ||
        ctx->ops->buffer_native(ctx->device, input->buffer->handle, &memory) != KILN_OK ||
        memory.address == 0 || memory.address % 16 != 0)
      return 0;
  }
  return 1;
}

static _Atomic(kiln_rt_folder) folder;

void kiln_rt_set_folder(kiln_rt_folder f) { atomic_store(&folder, f); }

kiln_status kiln_rt_run(kiln_context *ctx, kiln_stream *stream, const kiln_rt_spec *spec, int nkeep,
                        int nred, const kiln_array *const *inputs, const kiln_array *out,
                        int work_group_size, kiln_rt_scratch *scratch) {
  kiln_rt_folder fold = atomic_load_explicit(&folder, memory_order_acquire);
  kiln_status folded = KILN_OK;
  if (fold && fold(ctx, stream, spec, nkeep, nred, inputs, out, work_group_size, scratch, &folded))
    return folded;
  int nin = spec->ninputs;
  if (nin < 1 || nin > KILN_RT_MAX_INPUTS)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "reduction of %d inputs (1..%d)", nin,
                          KILN_RT_MAX_INPUTS);
  if (work_group_size < 0 || work_group_size % KILN_RT_LANES != 0 ||
      work_group_size > KILN_RT_MAX_GROUP)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "work-group size %d: a multiple of %d up to %d, or 0", work_group_size,
                          KILN_RT_LANES, KILN_RT_MAX_GROUP);
  /* keep dims: the inputs' leading dims and the output, planned together */
  kiln_array keep_views[KILN_RT_MAX_INPUTS + 1], red_views[KILN_RT_MAX_INPUTS];
  const kiln_array *keep_ptr[KILN_RT_MAX_INPUTS + 1], *red_ptr[KILN_RT_MAX_INPUTS];
  int64_t M = 1, K = 1;
  for (int d = 0; d < nkeep; d++) M *= inputs[0]->shape[d];
  for (int d = 0; d < nred; d++) K *= inputs[0]->shape[nkeep + d];
  if (M == 0) return KILN_OK;
  if (K == 0) return kiln_error_set(KILN_ERROR_INTERNAL, "reduction over nothing");
  for (int j = 0; j <= nin; j++) {
    const kiln_array *a = j < nin ? inputs[j] : out;
    kiln_rt_subview(a, 0, nkeep, M, 1, &keep_views[j]);
    keep_ptr[j] = &keep_views[j];
    if (j == nin) break;
    kiln_rt_subview(a, nkeep, nred, K, 0, &red_views[j]);
    red_ptr[j] = &red_views[j];
  }
  kiln_ew_layout keep, red;
  KILN_RETURN_IF_ERROR(kiln_rt_merge(nin + 1, keep_ptr, &keep));
  KILN_RETURN_IF_ERROR(kiln_rt_merge(nin, red_ptr, &red));
  int64_t kin = keep.strides[0][keep.ndim - 1], rin = red.strides[0][red.ndim - 1];
  int col = M > 1 && (kin < 0 ? -kin : kin) < (rin < 0 ? -rin : rin);
  /* CPU devices run many short row reductions without the barriers of the
   * lane tree: same order, one work-item per output */
  int loads = atomic_load(&forced_loads);
  if (!col && ctx->info.type == KILN_DEVICE_CPU && K <= KILN_RT_CHUNK && M >= 64 &&
      work_group_size == 0 && loads == KILN_RT_LOADS_AUTO)
    col = KILN_RT_SERIAL;
  /* the row variant's first pass with vector lanes where every input's
   * rows allow 16-byte loads */
  int vec = col || loads == KILN_RT_LOADS_SCALAR ? 1 : kiln_rt_vector_width(spec);
  for (int j = 0; j < nin && vec > 1; j++)
    if (!vector_fits(ctx, inputs[j], &keep, &red, j)) vec = 1;
  if (loads == KILN_RT_LOADS_VECTOR && vec == 1)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "reduction '%s': vector loads forced, but the first pass %s", spec->name,
                          col ? "is the column variant"
                          : kiln_rt_vector_width(spec) == 1
                              ? "reads elements of 1 or 2 bytes or of several sizes"
                              : "reads a row that is not contiguous or not 16-byte aligned");

  /* chunk counts of the passes and the scratch they need: two regions,
   * pass p writing region p % 2, after the scratch's head (the counter) */
  int64_t counts[16];
  int npasses = 0;
  for (int64_t n = K;; n = (n + KILN_RT_CHUNK - 1) / KILN_RT_CHUNK) {
    counts[npasses++] = (n + KILN_RT_CHUNK - 1) / KILN_RT_CHUNK;
    if (counts[npasses - 1] == 1) break;
  }
  size_t accsize = kiln_dtype_size(spec->acc);
  uint64_t region[2] = {0, 0};
  for (int p = 0; p + 1 < npasses; p++) {
    uint64_t bytes = align64((uint64_t)(counts[p] * M) * accsize) +
                     (spec->arg ? align64((uint64_t)(counts[p] * M) * 8) : 0);
    if (bytes > region[p % 2]) region[p % 2] = bytes;
  }
  /* values at a region's start, indices after them, in elements */
  int64_t region_v[2], region_i[2], counter = 0;
  for (int r = 0; r < 2; r++) {
    /* region r's largest pass is its first, r */
    uint64_t start = KILN_RT_SCRATCH_HEAD + (r == 0 ? 0 : region[0]);
    int64_t values = r < npasses ? counts[r] * M : 0;
    region_v[r] = (int64_t)(start / accsize);
    region_i[r] = (int64_t)((start + align64((uint64_t)values * accsize)) / 8);
  }
  uint64_t local = work_group_size ? (uint64_t)work_group_size : KILN_RT_MAX_GROUP;
  /* one output of several chunks: the first pass's last work-group runs the
   * later passes, which saves their launches and the gaps between them
   * (H100, sum of 1e8 float32: three launches 0.160 ms, one 0.14x) */
  int tail = M == 1 && !col && !atomic_load(&tail_refused) && kiln_rt_tail_fits(spec, counts[0], local);
  kiln_array *buffer = NULL, *owned = NULL;
  KILN_RETURN_IF_ERROR(
      kiln_rt_scratch_acquire(ctx, stream, scratch, region[0] + region[1], &buffer, &owned));

  kiln_status status = KILN_OK;
  for (int p = 0; p < npasses && status == KILN_OK; p++) {
    int first = p == 0, last = p == npasses - 1;
    int64_t Kp = first ? K : counts[p - 1];
    int pcol = first ? col : M > 1;
    char entry[96];
    snprintf(entry, sizeof entry, "kiln_reduce_%s", spec->name);
    /* on a GPU, a pass of fewer chunks than a few per compute unit is
     * bound by latency, not bandwidth */
    int wide = ctx->info.type != KILN_DEVICE_CPU &&
               (uint64_t)(M * counts[p]) < (uint64_t)ctx->info.compute_units * 16;
    rt_request req = {spec,
                      {first, last, pcol, kiln_rt_batch(spec, wide), first ? vec : 1, keep.ndim,
                       red.ndim, first && tail},
                      entry};
    kiln_program *program = NULL;
    status = get_program(ctx, &req, &program);
    if (status != KILN_OK) break;
    arg_list l; /* not zeroed: tens of KB, and only the first n are read */
    l.n = 0;
    add_scalar(&l, &M);
    add_scalar(&l, &Kp);
    add_scalar(&l, &counts[p]);
    if (first || last || tail)
      for (int d = 0; d < keep.ndim; d++) add_scalar(&l, &keep.shape[d]);
    if (first) {
      for (int d = 0; d < red.ndim; d++) add_scalar(&l, &red.shape[d]);
      for (int j = 0; j < nin; j++) {
        add_buffer(&l, keep.buffers[j]);
        add_scalar(&l, &keep.offsets[j]);
        for (int d = 0; d < keep.ndim; d++) add_scalar(&l, &keep.strides[j][d]);
        for (int d = 0; d < red.ndim; d++) add_scalar(&l, &red.strides[j][d]);
      }
    } else {
      add_buffer(&l, buffer->buffer->handle);
      add_scalar(&l, &region_v[(p - 1) % 2]);
      if (spec->arg) {
        add_buffer(&l, buffer->buffer->handle);
        add_scalar(&l, &region_i[(p - 1) % 2]);
      }
    }
    /* partials: region p % 2; a tail's later passes use region 1 too */
    for (int r = p % 2; !last && r < (tail ? 2 : p % 2 + 1); r++) {
      add_buffer(&l, buffer->buffer->handle);
      add_scalar(&l, &region_v[r]);
      if (spec->arg) {
        add_buffer(&l, buffer->buffer->handle);
        add_scalar(&l, &region_i[r]);
      }
    }
    if (tail) {
      add_buffer(&l, buffer->buffer->handle);
      add_scalar(&l, &counter);
    }
    if (last || tail) {
      add_buffer(&l, keep.buffers[nin]);
      add_scalar(&l, &keep.offsets[nin]);
      for (int d = 0; d < keep.ndim; d++) add_scalar(&l, &keep.strides[nin][d]);
    }
    if (pcol == KILN_RT_SERIAL) {
      kiln_backend_launch launch = {.work_dim = 1, .global = {1, 1, 1}, .local = {1, 1, 1}};
      kiln_program_grid_1d(ctx, program, M, &launch.global[0], &launch.local[0]);
      status = kiln_program_launch(ctx, program, stream, &launch, l.n, l.args);
      continue;
    }
    uint64_t plocal = local;
    if (plocal > program->max_work_group_size) plocal = program->max_work_group_size;
    plocal -= plocal % KILN_RT_LANES;
    if (plocal == 0) {
      status = kiln_error_set(KILN_ERROR_UNIMPLEMENTED,
                              "reduction '%s': the device runs work-groups of at most %llu "
                              "items, the reduction tree needs %d",
                              spec->name, (unsigned long long)program->max_work_group_size,
                              KILN_RT_LANES);
      break;
    }
    uint64_t slots = plocal / (KILN_RT_LANES / (uint64_t)req.pass.vec);
    uint64_t pairs = (uint64_t)(M * counts[p]);
    uint64_t groups = (pairs + slots - 1) / slots;
    if (groups > 65535) groups = 65535;
    kiln_backend_launch launch = {
        .work_dim = 1, .global = {groups * plocal, 1, 1}, .local = {plocal, 1, 1}};
    status = kiln_program_launch(ctx, program, stream, &launch, l.n, l.args);
    if (tail) { /* the later passes ran in its last work-group */
      if (status == KILN_OK) atomic_fetch_add(&tail_launches, 1);
      break;
    }
  }
  kiln_rt_scratch_finish(scratch, stream, buffer, owned, status);
  return status;
}
