/* core/codegen/scan_line.c: generating and launching the single-pass scan of
 * one line (see scan_line.h and docs/scan.md). */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/codegen/scan_line.h"
#include "core/runtime/device_order.h"
#include "core/runtime/log.h"

#define WINDOW KILN_SCAN_LANES    /* tiles one look-back step reads at once */
#define CHUNK 16                  /* statuses one lane checks in a look-back step */
#define STR_(v) #v
#define STR(v) STR_(v)            /* a macro's value as a string literal */
/* Rereads of an empty predecessor before the decoupled fallback reduces
 * it (H200, 1e8 float32 cumsum, one call: 64 and 16 1.22-1.24x the copy,
 * 1024 1.20-1.23x, 4 1.47x: early fallbacks redo work that was on its
 * way; the fallback then ran for 0 of 12208 tiles) */
#define FALLBACK_SPINS 64
#define STATE_HEAD 16             /* uint32 before the status words: the tile counter,
                                   * then the decoupled fallback's count (debug log) */
/* Tiles ahead whose input a tile of the look-back pass fetches into L2
 * (prefetch_source). H200, 1e8 float32 cumsum, one run: 0.262 ms with 192
 * against 0.288 and 0.298 with none (copy 0.198); 512: 0.279; 1024: 0.333
 * (32 MiB ahead: L2 no longer holds it until it is read). */
#define PREFETCH_AHEAD 192

/* ---- the path ---------------------------------------------------------------------- */

static atomic_int forced_path;

void kiln_scan_force_path(kiln_scan_path path) { atomic_store(&forced_path, (int)path); }

static atomic_int wide_counts;

void kiln_scan_force_wide_counts(int wide) { atomic_store(&wide_counts, wide); }

const char *kiln_scan_path_name(kiln_scan_path path) {
  return path == KILN_SCAN_PATH_LOOKBACK ? "lookback" : "reduce-then-scan";
}

kiln_status kiln_scan_requested_path(kiln_scan_path *path, kiln_scan_path_source *source) {
  kiln_scan_path p = (kiln_scan_path)atomic_load(&forced_path);
  kiln_scan_path_source from = p != KILN_SCAN_PATH_AUTO ? KILN_SCAN_FROM_TESTS : KILN_SCAN_FROM_DEVICE;
  if (p == KILN_SCAN_PATH_AUTO) {
    const char *v = getenv("KILN_SCAN");
    if (v && !strcmp(v, "lookback"))
      p = KILN_SCAN_PATH_LOOKBACK;
    else if (v && !strcmp(v, "reduce-then-scan"))
      p = KILN_SCAN_PATH_REDUCE_THEN_SCAN;
    else if (v && *v && strcmp(v, "auto"))
      return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                            "KILN_SCAN='%s': expected lookback, reduce-then-scan or auto", v);
    if (p != KILN_SCAN_PATH_AUTO) from = KILN_SCAN_FROM_ENV;
  }
  *path = p;
  if (source) *source = from;
  return KILN_OK;
}

kiln_status kiln_scan_choose_path(const kiln_context *ctx, kiln_dtype acc, kiln_scan_path *path) {
  kiln_scan_path p = KILN_SCAN_PATH_AUTO;
  KILN_RETURN_IF_ERROR(kiln_scan_requested_path(&p, NULL));
  /* the one capability the sort's look-back asks too: resident
   * work-groups keep running while one spins, and the prelude's flag and
   * word accesses and fence are device-scope (CUDA, HIP, NVIDIA's OpenCL
   * through PTX; not PoCL's CPU device nor other OpenCL devices, whose
   * OpenCL 1.2 has no device-scope acquire/release) */
  if (p == KILN_SCAN_PATH_AUTO)
    p = kiln_device_lookback_safe(ctx) ? KILN_SCAN_PATH_LOOKBACK : KILN_SCAN_PATH_REDUCE_THEN_SCAN;
  if (kiln_dtype_is_complex(acc)) p = KILN_SCAN_PATH_REDUCE_THEN_SCAN;
  *path = p;
  return KILN_OK;
}

kiln_status kiln_scan_explain_path(const kiln_context *ctx, char *text, size_t size) {
  kiln_scan_path path = KILN_SCAN_PATH_AUTO;
  kiln_scan_path_source source = KILN_SCAN_FROM_DEVICE;
  KILN_RETURN_IF_ERROR(kiln_scan_requested_path(&path, &source));
  KILN_RETURN_IF_ERROR(kiln_scan_choose_path(ctx, KILN_FLOAT32, &path));
  const char *why;
  if (source == KILN_SCAN_FROM_TESTS)
    why = "forced by the tests' switch";
  else if (source == KILN_SCAN_FROM_ENV)
    why = "forced by KILN_SCAN";
  else if (path == KILN_SCAN_PATH_LOOKBACK)
    why = "the backend gives this GPU device-scope ordering: work-groups keep running while "
          "others spin, flags seen at device scope; scans of values take tile t as work-group t "
          "with the decoupled fallback, compaction takes tile ids from a counter";
  else
    why = "no device-scope ordering known for this device: not a GPU, or an OpenCL platform "
          "without it";
  snprintf(text, size, "%s (%s; complex accumulators always reduce-then-scan)",
           kiln_scan_path_name(path), why);
  return KILN_OK;
}

static atomic_int group_lookback;

/* the tests' decoupled fallback: 0 off, else its spin bound + 1; and
 * whether tiles go to work-groups in reverse */
static atomic_int forced_fallback, forced_reverse;

void kiln_scan_force_fallback(int spins, int reverse) {
  atomic_store(&forced_fallback, spins < 0 ? 0 : spins + 1);
  atomic_store(&forced_reverse, spins >= 0 && reverse);
}

void kiln_scan_force_group_lookback(int on) { atomic_store(&group_lookback, on); }

/* ---- the tile shape ---------------------------------------------------------------- */

int kiln_scan_items(kiln_dtype acc) {
  return kiln_dtype_size(acc) <= 4 ? KILN_SCAN_WIDE_ITEMS : KILN_SCAN_ITEMS;
}

/* ---- the kernels ------------------------------------------------------------------- */

enum {
  MODE_LOOKBACK = KILN_SCAN_LINE_LOOKBACK,
  MODE_AGGREGATE = KILN_SCAN_LINE_AGGREGATE,
  MODE_APPLY = KILN_SCAN_LINE_APPLY,
  MODE_FOLD = KILN_SCAN_LINE_FOLD
};

typedef struct line_request {
  const kiln_scan_line_job *job;
  kiln_dtype in, acc, out; /* out: the stored dtype (data's for COMPACT) */
  int mode, direct;
  int fixed; /* launched with KILN_SCAN_LANES work-items: the generated
              * kernel says so, and its loops over a tile's elements have
              * constant trip counts (unrolled, constant local addresses) */
  int unit; /* every stride is 1: the generated kernel says so (constant
             * index math, fewer instructions per element) */
  int items; /* elements per lane: kiln_scan_items' */
  int warp; /* the look-back on warp 0 where the device has ballots
             * (needs fixed: whole warps) */
  int fallback; /* look-back pass: tile t is work-group t with the
                 * decoupled fallback (Smith, Levien, Owens 2025): a tile
                 * whose predecessor stays empty for `spins` rereads
                 * reduces that tile itself and publishes it, so no tile
                 * waits on a work-group that never runs; else tile ids
                 * come from an atomic counter, in the order work-groups
                 * start (select_tile_order) */
  int spins;
  int reverse; /* with fallback, tests only: tile t is work-group
                * ntiles - 1 - t, so that (work-groups starting about in
                * order) tiles find their predecessors empty and the
                * fallback runs for nearly every one */
  int prefetch; /* look-back pass, unit strides: the input of the tile this
                 * many tiles ahead is fetched into L2 (where the prelude
                 * has KILN_PREFETCH_L2), 0: none */
  char entry[96];
} line_request;

/* How the look-back pass of r (types set) numbers its tiles. Scans of
 * values: tile t is work-group t with the decoupled fallback, which makes
 * progress whatever order work-groups start in (H200, 1e8 float32 cumsum,
 * one call: 0.242-0.248 ms against 0.258-0.263 with the counter, copy
 * 0.198-0.200; NVIDIA's OpenCL 0.263 against 0.270). Compaction and
 * nonzero: the atomic counter, in the order work-groups start (the same
 * call: x[x > 0] 0.670-0.686 ms with it against 0.777-0.792 with the
 * fallback, whose code took their counting kernel from 32 registers to
 * 48). The tests' switch forces the fallback on every kind. */
static void select_tile_order(line_request *r) {
  int forced = atomic_load(&forced_fallback);
  r->fallback = forced || r->job->kind == KILN_SCAN_LINE_VALUES;
  r->spins = forced ? forced - 1 : FALLBACK_SPINS;
  r->reverse = forced && atomic_load(&forced_reverse);
}

/* The fold of reduce-then-scan: P_t for t >= 1 into vi, in one work-item. */
static void fold_source(const line_request *r, kiln_strbuf *b) {
  const char *acc = kiln_dtype_kernel_type(r->acc);
  kiln_strbuf_appendf(b,
                      "KILN_KERNEL void %s(int64_t ntiles, KILN_GLOBAL const %s *va, int64_t ova,\n"
                      "    KILN_GLOBAL %s *vi, int64_t ovi) {\n"
                      "  if (kiln_global_id(0) != 0) return;\n"
                      "  %s prefix = va[ova];\n"
                      "  for (int64_t t = 1; t < ntiles; t++) {\n"
                      "    vi[ovi + t] = prefix;\n"
                      "    prefix = kiln_rt_combine(prefix, va[ova + t]);\n"
                      "  }\n"
                      "}\n",
                      r->entry, acc, acc, acc);
}

/* Publishes this tile's aggregate, finds P_t by looking back, publishes
 * I_t; P_t ends in pre[0]. Two steps, each with every lane at work:
 * 1. find the nearest tile j < t whose inclusive prefix is out, every tile
 *    between having published its aggregate: the lanes read WINDOW
 *    statuses at once, chunks of CHUNK lanes find their first status that
 *    is not "aggregate only", lane 0 the first chunk that has one. Where a
 *    tile has published nothing yet, lane 0 alone spins on it while the
 *    others wait at the barrier (spinning work-groups would take the
 *    issue slots of the tiles still loading), then the next round starts
 *    there;
 * 2. fold I_j op A_{j+1} op ... op A_{t-1} left to right: the lanes load
 *    WINDOW aggregates at once, lane 0 folds them in order. This fold is
 *    what bounds the rate of tiles: a tile's inclusive prefix comes out
 *    one fold after its look-back starts, so the distance d to the nearest
 *    one settles small only while a fold step (one combine) takes less
 *    time than the device takes to start a tile; else d grows to the
 *    number of resident tiles and the tiles come out at one per fold step.
 * No tile waits on another's inclusive prefix, only on aggregates, so no
 * chain of tiles forms. Where the prelude has the warp's ballot, warp 0
 * alone looks back instead (warp_lookback_source). */
/* The look-back's published values, status and value together (CUB's
 * form, no fence anywhere): a value's bits are cut in 32-bit halves, each
 * in a 64-bit word whose high half is its status (1 aggregate, 2
 * inclusive): W = 1 word per tile and kind for accumulators of at most 4
 * bytes, 2 for 8-byte ones; aw[W t + h] for A_t, iw[W t + h] for I_t.
 * Every word is written once, by one store, and read by one load through
 * the prelude's kiln_word_load64/kiln_word_store64 (volatile on CUDA and
 * HIP, PTX's ld/st.volatile.global on NVIDIA's OpenCL), so a word that is
 * not 0 holds its half, and a kind is out when all its W words are. (An
 * 8-byte value behind a flag and fences, the earlier form, read wrong
 * values past ~8000 tiles on NVIDIA's OpenCL, H200, 2026-11-27.) The
 * kernel's helpers kiln_scan_status (the status of a tile from its 2 W
 * words, inclusive first), kiln_scan_value (a value from its W words)
 * and kiln_scan_publish come from lookback_helpers. */
typedef struct lookback_access {
  char decl[400], flag[400], agg[200], inc[200], publish[300], finish[300];
  char load[400];   /* the words of tile m into wi0.., wa0.. */
  char status[96];  /* its status from them */
  char vinc[64], vagg[64]; /* its values from them */
} lookback_access;

static int lookback_words(kiln_dtype acc) { return kiln_dtype_size(acc) <= 4 ? 1 : 2; }

/* The kernel's helpers of lookback_access for accumulator acc. */
static void lookback_helpers(kiln_dtype acc, kiln_strbuf *b) {
  const char *type = kiln_dtype_kernel_type(acc);
  int is_float = kiln_dtype_is_float(acc);
  if (lookback_words(acc) == 1) {
    kiln_strbuf_appendf(
        b,
        "KILN_DEVICE uint32_t kiln_scan_status(uint64_t i0, uint64_t a0) {\n"
        "  return i0 != 0 ? 2u : a0 != 0 ? 1u : 0u;\n"
        "}\n"
        "KILN_DEVICE %s kiln_scan_value(uint64_t w0) { return %s((uint32_t)w0); }\n"
        "KILN_DEVICE void kiln_scan_publish(KILN_GLOBAL volatile uint64_t *w, uint64_t status, %s v) {\n"
        "  kiln_word_store64(w, (status << 32) | (uint64_t)%s(v));\n"
        "}\n",
        type, is_float ? "kiln_uint32_as_float" : "", type,
        is_float ? "kiln_float_as_uint32" : "(uint32_t)");
    return;
  }
  kiln_strbuf_appendf(
      b,
      "KILN_DEVICE uint32_t kiln_scan_status(uint64_t i0, uint64_t i1, uint64_t a0, uint64_t a1) {\n"
      "  return i0 != 0 && i1 != 0 ? 2u : a0 != 0 && a1 != 0 ? 1u : 0u;\n"
      "}\n"
      "KILN_DEVICE %s kiln_scan_value(uint64_t w0, uint64_t w1) {\n"
      "  return %s((w1 << 32) | (uint32_t)w0);\n"
      "}\n"
      "KILN_DEVICE void kiln_scan_publish(KILN_GLOBAL volatile uint64_t *w, uint64_t status, %s v) {\n"
      "  uint64_t bits = %s(v);\n"
      "  kiln_word_store64(w, (status << 32) | (uint32_t)bits);\n"
      "  kiln_word_store64(w + 1, (status << 32) | (bits >> 32));\n"
      "}\n",
      type, is_float ? "kiln_uint64_as_double" : "", type,
      is_float ? "kiln_double_as_uint64" : "(uint64_t)");
}

static void lookback_access_of(const line_request *r, lookback_access *x) {
  int w = lookback_words(r->acc);
  snprintf(x->decl, sizeof x->decl,
           "  KILN_GLOBAL volatile uint64_t *aw = (KILN_GLOBAL volatile uint64_t *)(st + ost + %d);\n"
           "  KILN_GLOBAL volatile uint64_t *iw = aw + %d * ((n + %d) / %d);\n",
           STATE_HEAD, w, KILN_SCAN_LANES * r->items - 1, KILN_SCAN_LANES * r->items);
  snprintf(x->publish, sizeof x->publish,
           "    if (t == 0) kiln_scan_publish(iw, 2, total);\n"
           "    else kiln_scan_publish(aw + %d * t, 1, total);\n", w);
  snprintf(x->finish, sizeof x->finish,
           "      kiln_scan_publish(iw + %d * t, 2, kiln_rt_combine(pre[0], total));\n", w);
  if (w == 1) {
    snprintf(x->flag, sizeof x->flag,
             "kiln_scan_status(kiln_word_load64(iw + @), kiln_word_load64(aw + @))");
    snprintf(x->agg, sizeof x->agg, "kiln_scan_value(kiln_word_load64(aw + @))");
    snprintf(x->inc, sizeof x->inc, "kiln_scan_value(kiln_word_load64(iw + @))");
    snprintf(x->load, sizeof x->load,
             "uint64_t wi0 = kiln_word_load64(iw + m), wa0 = kiln_word_load64(aw + m);");
    snprintf(x->status, sizeof x->status, "kiln_scan_status(wi0, wa0)");
    snprintf(x->vinc, sizeof x->vinc, "kiln_scan_value(wi0)");
    snprintf(x->vagg, sizeof x->vagg, "kiln_scan_value(wa0)");
    return;
  }
  /* all four loads issued before any returns: one round trip */
  snprintf(x->flag, sizeof x->flag,
           "kiln_scan_status(kiln_word_load64(iw + 2 * (@)), kiln_word_load64(iw + 2 * (@) + 1), "
           "kiln_word_load64(aw + 2 * (@)), kiln_word_load64(aw + 2 * (@) + 1))");
  snprintf(x->agg, sizeof x->agg,
           "kiln_scan_value(kiln_word_load64(aw + 2 * (@)), kiln_word_load64(aw + 2 * (@) + 1))");
  snprintf(x->inc, sizeof x->inc,
           "kiln_scan_value(kiln_word_load64(iw + 2 * (@)), kiln_word_load64(iw + 2 * (@) + 1))");
  snprintf(x->load, sizeof x->load,
           "uint64_t wi0 = kiln_word_load64(iw + 2 * m), wi1 = kiln_word_load64(iw + 2 * m + 1);\n"
           "          uint64_t wa0 = kiln_word_load64(aw + 2 * m), wa1 = kiln_word_load64(aw + 2 * m + 1);");
  snprintf(x->status, sizeof x->status, "kiln_scan_status(wi0, wi1, wa0, wa1)");
  snprintf(x->vinc, sizeof x->vinc, "kiln_scan_value(wi0, wi1)");
  snprintf(x->vagg, sizeof x->vagg, "kiln_scan_value(wa0, wa1)");
}

/* Appends text, its FLAG(i), AGG(i) and INC(i) (the look-back's source
 * below names the accesses so) replaced by x's forms with i for "@". */
static void append_access(kiln_strbuf *b, const char *text, const lookback_access *x) {
  for (const char *c = text; *c;) {
    const char *form = NULL;
    size_t skip = 0;
    if (!strncmp(c, "FLAG(", 5)) form = x->flag, skip = 5;
    else if (!strncmp(c, "AGG(", 4)) form = x->agg, skip = 4;
    else if (!strncmp(c, "INC(", 4)) form = x->inc, skip = 4;
    if (!form) {
      kiln_strbuf_appendf(b, "%c", *c++);
      continue;
    }
    const char *arg = c + skip, *end = strchr(arg, ')');
    for (const char *f = form; *f; f++)
      if (*f == '@')
        kiln_strbuf_appendf(b, "%.*s", (int)(end - arg), arg);
      else
        kiln_strbuf_appendf(b, "%c", *f);
    c = end + 1;
  }
}

/* The look-back on warp 0 alone where the prelude has the warp's ballot
 * (KILN_LANE_BALLOT: CUDA, NVIDIA's OpenCL; kiln_barrier32 is then the
 * warp's barrier), the other warps waiting at one barrier. Each round the
 * 32 lanes load the words of the 32 tiles before hi at once and keep each
 * value in seen[] at its tile's distance from t (t - 1 - m, while within
 * WINDOW); two ballots give the nearest inclusive prefix and the nearest
 * tile that published nothing: found where no such tile comes before it,
 * else hi moves past the aggregates before that tile (the warp then
 * rereads it: the spin), or past all 32. Lane 0 then folds I_j op A_{j+1}
 * op ... op A_{t-1} left to right from seen[], each status and value read
 * once (past WINDOW tiles back, from the words again, 32 at a time): the
 * order of the work-group's form, hence the same bits (H200, 1e8 float32:
 * 0.279 ms against 0.296). Opens the #if that the caller closes. */
static void warp_lookback_source(const line_request *r, const char *acc,
                                 const lookback_access *x, kiln_strbuf *b) {
  /* where 32 acc values of lanes[] are free: the half the lane scan did
   * not leave its result in (the fallback's scratch) */
  const char *fb = "(src ^ " STR(KILN_SCAN_LANES) ")";
  /* without the fallback, the source of before (the same kernels, cached) */
  const char *state = r->fallback ? ", wm = -1;\n      int spin = 0" : "";
  char empty[1400] = "        if (mz & before)\n"
                     "          hi -= (int64_t)kiln_popcount_u32((mz & (0u - mz)) - 1u);\n";
  if (r->fallback) {
    /* the nearest empty tile wm, reread `spins` times: the warp reduces it
     * (each lane the subtree of LANES / 32 lane totals, lane 0 the 32
     * subtrees: the balanced tree, i.e. the Kogge-Stone's last value),
     * lane 0 publishes it and rereads it first in the next round (its own
     * store: seen) */
    int per = KILN_SCAN_LANES / 32;
    snprintf(empty, sizeof empty,
             "        if (mz & before) {\n"
             "          hi -= (int64_t)kiln_popcount_u32((mz & (0u - mz)) - 1u);\n"
             "          if (hi - 1 == wm) spin++;\n"
             "          else { wm = hi - 1; spin = 0; }\n"
             "          if (spin >= %d) {\n"
             "            lanes[%s + lid] = kiln_scan_fallback_lanes(p, op, pr, wm * (int64_t)%d, lid * %d, %d);\n"
             "            kiln_barrier32();\n"
             "            if (lid == 0) {\n"
             "              for (int sd = 1; sd < 32; sd <<= 1)\n"
             "                for (int i = 0; i + sd < 32; i += 2 * sd)\n"
             "                  lanes[%s + i] = kiln_rt_combine(lanes[%s + i], lanes[%s + i + sd]);\n"
             "              kiln_scan_fallback_publish(aw, iw, wm, lanes[%s]);\n"
             "              kiln_atomic_add_u32(st + ost + 1, 1u);\n"
             "            }\n"
             "            kiln_barrier32();\n"
             "            wm = -1;\n"
             "          }\n"
             "        }\n",
             r->spins, fb, KILN_SCAN_LANES * r->items, per, per, fb, fb, fb, fb);
  }
  kiln_strbuf_appendf(
      b,
      "#if defined(KILN_LANE_BALLOT)\n"
      "  if (t > 0) {\n"
      "    if (lid < 32) {\n"
      "      int64_t hi = t, j = -1%s;\n"
      "      while (j < 0) {\n"
      "        int64_t m = hi - 1 - lid;\n"
      "        uint32_t f = 2u;\n"
      "        if (m >= 0) {\n"
      "          %s\n"
      "          f = %s;\n"
      "          if (t - 1 - m < %d) seen[t - 1 - m] = f == 2u ? %s : %s;\n"
      "        }\n"
      "        uint32_t mi = kiln_lane_ballot(f == 2u), mz = kiln_lane_ballot(f == 0u);\n"
      /* the lanes before the nearest inclusive prefix (all where none) */
      "        uint32_t before = mi ? (mi & (0u - mi)) - 1u : 0xffffffffu;\n"
      "%s"
      "        else if (mi)\n"
      "          j = hi - 1 - (int64_t)kiln_popcount_u32(before);\n"
      "        else\n"
      "          hi -= 32;\n"
      "      }\n"
      "      kiln_barrier32();\n"
      "      %s p = seen[0];\n"
      "      if (t - 1 - j < %d) {\n"
      "        if (lid == 0) {\n"
      "          int i = (int)(t - 1 - j);\n"
      "          p = seen[i];\n"
      "          for (; i >= 8; i -= 8) {\n"
      "            %s w0 = seen[i - 1], w1 = seen[i - 2], w2 = seen[i - 3], w3 = seen[i - 4];\n"
      "            %s w4 = seen[i - 5], w5 = seen[i - 6], w6 = seen[i - 7], w7 = seen[i - 8];\n"
      "            p = kiln_rt_combine(p, w0); p = kiln_rt_combine(p, w1);\n"
      "            p = kiln_rt_combine(p, w2); p = kiln_rt_combine(p, w3);\n"
      "            p = kiln_rt_combine(p, w4); p = kiln_rt_combine(p, w5);\n"
      "            p = kiln_rt_combine(p, w6); p = kiln_rt_combine(p, w7);\n"
      "          }\n"
      "          for (; i >= 1; i--) p = kiln_rt_combine(p, seen[i - 1]);\n"
      "        }\n"
      "      } else {\n"
      "        p = INC(j);\n"
      "        for (int64_t m0 = j + 1; m0 < t; m0 += 32) {\n"
      "          int cnt = t - m0 < 32 ? (int)(t - m0) : 32;\n"
      "          kiln_barrier32();\n"
      "          if (lid < cnt) seen[lid] = AGG(m0 + lid);\n"
      "          kiln_barrier32();\n"
      "          if (lid == 0)\n"
      "            for (int i = 0; i < cnt; i++) p = kiln_rt_combine(p, seen[i]);\n"
      "        }\n"
      "      }\n"
      "      if (lid == 0) {\n"
      "        pre[0] = p;\n"
      "%s"
      "      }\n"
      "    }\n"
      "    kiln_barrier();\n"
      "  }\n",
      state, x->load, x->status, WINDOW, x->vinc, x->vagg, empty, acc, WINDOW, acc, acc, x->finish);
}

/* Lane 0's wait until tile `m` (an expression without parentheses) has
 * published something: a spin, or with the fallback at most r->spins
 * rereads before lane 0 reduces the tile alone and publishes it (its own
 * store ends the loop). */
static void wait_source(const line_request *r, const char *m, kiln_strbuf *b) {
  if (!r->fallback) {
    kiln_strbuf_appendf(b, "while (FLAG(%s) == 0u) {}", m);
    return;
  }
  kiln_strbuf_appendf(b,
                      "{ int64_t wm = %s; int spin = 0;\n"
                      "        while (FLAG(wm) == 0u)\n"
                      "          if (spin++ >= %d) {\n"
                      "            kiln_scan_fallback_publish(aw, iw, wm,\n"
                      "                kiln_scan_fallback_lanes(p, op, pr, wm * (int64_t)%d, 0, %d));\n"
                      "            kiln_atomic_add_u32(st + ost + 1, 1u);\n"
                      "          } }",
                      m, r->spins, KILN_SCAN_LANES * r->items, KILN_SCAN_LANES);
}

static void lookback_source(const line_request *r, const char *acc, kiln_strbuf *b) {
  lookback_access x;
  lookback_access_of(r, &x);
  kiln_strbuf first = {0}, later = {0};
  wait_source(r, "t - 1", &first);
  wait_source(r, "hi - 1 - i", &later);
  kiln_strbuf text = {0};
  kiln_strbuf_appendf(&text,
                      "%s"
                      "  if (lid == 0) {\n"
                      "%s"
                      "  }\n",
                      x.decl, x.publish);
  if (r->warp) {
    warp_lookback_source(r, acc, &x, &text);
    kiln_strbuf_append(&text, "#else\n");
  }
  kiln_strbuf_appendf(
      &text,
      "  if (t > 0) {\n"
      "    int nw = ls < %d ? ls : %d, nc = (nw + %d) / %d;\n"
      "    if (lid == 0) {\n"
      "      %s\n"
      "      cursor[0] = t;\n"
      "      cursor[1] = -1;\n"
      "    }\n"
      "    kiln_barrier();\n"
      "    while (cursor[1] < 0) {\n"
      "      int64_t hi = cursor[0];\n"
      "      if (lid < nw) {\n"
      "        int64_t j = hi - 1 - lid;\n"
      "        seenf[lid] = j >= 0 ? FLAG(j) : 2u;\n"
      "      }\n"
      "      kiln_barrier();\n"
      "      if (lid < nc) {\n"
      "        int k = lid * %d, e = k + %d < nw ? k + %d : nw;\n"
      "        while (k < e && seenf[k] == 1u) k++;\n"
      "        firsts[lid] = k;\n"
      "      }\n"
      "      kiln_barrier();\n"
      "      if (lid == 0) {\n"
      "        int c = 0;\n"
      "        while (c < nc && firsts[c] == (c + 1) * %d) c++;\n"
      "        int i = c < nc ? firsts[c] : nw;\n"
      "        if (i > nw) i = nw;\n"
      "        if (i < nw && seenf[i] == 2u) {\n"
      "          cursor[1] = hi - 1 - i;\n"
      "        } else {\n"
      "          if (i < nw) %s\n"
      "          cursor[0] = hi - i;\n"
      "        }\n"
      "      }\n"
      "      kiln_barrier();\n"
      "    }\n"
      "    int64_t j = cursor[1];\n"
      "    for (int64_t m0 = j + 1; m0 < t; m0 += nw) {\n"
      "      int cnt = t - m0 < nw ? (int)(t - m0) : nw;\n"
      "      if (lid < cnt) {\n"
      "        seen[lid] = AGG(m0 + lid);\n"
      "      }\n"
      "      kiln_barrier();\n"
      "      if (lid == 0) {\n"
      "        %s p;\n"
      "        if (m0 == j + 1) {\n"
      "          p = INC(j);\n"
      "        } else {\n"
      "          p = pre[0];\n"
      "        }\n"
      /* eight loads ahead of the combines: the fold is the one serial
       * chain between tiles, one step per combine's latency */
      "        int i = 0;\n"
      "        for (; i + 8 <= cnt; i += 8) {\n"
      "          %s w0 = seen[i], w1 = seen[i + 1], w2 = seen[i + 2], w3 = seen[i + 3];\n"
      "          %s w4 = seen[i + 4], w5 = seen[i + 5], w6 = seen[i + 6], w7 = seen[i + 7];\n"
      "          p = kiln_rt_combine(p, w0); p = kiln_rt_combine(p, w1);\n"
      "          p = kiln_rt_combine(p, w2); p = kiln_rt_combine(p, w3);\n"
      "          p = kiln_rt_combine(p, w4); p = kiln_rt_combine(p, w5);\n"
      "          p = kiln_rt_combine(p, w6); p = kiln_rt_combine(p, w7);\n"
      "        }\n"
      "        for (; i < cnt; i++) p = kiln_rt_combine(p, seen[i]);\n"
      "        pre[0] = p;\n"
      "      }\n"
      "      kiln_barrier();\n"
      "    }\n"
      "    if (lid == 0) {\n"
      "      if (j + 1 == t) {\n"
      "        pre[0] = INC(j);\n"
      "      }\n"
      "%s"
      "    }\n"
      "    kiln_barrier();\n"
      "  }\n",
      WINDOW, WINDOW, CHUNK - 1, CHUNK, kiln_strbuf_text(&first), CHUNK, CHUNK, CHUNK, CHUNK,
      kiln_strbuf_text(&later), acc, acc, acc, x.finish);
  if (r->warp) kiln_strbuf_append(&text, "#endif\n");
  append_access(b, kiln_strbuf_text(&text), &x);
  if (kiln_strbuf_status(&text) != KILN_OK || kiln_strbuf_status(&first) != KILN_OK ||
      kiln_strbuf_status(&later) != KILN_OK)
    kiln_strbuf_append(b, "#error out of memory\n");
  kiln_strbuf_free(&text);
  kiln_strbuf_free(&first);
  kiln_strbuf_free(&later);
}

/* The expressions the tile's body is made of. */
typedef struct line_parts {
  const char *acc;
  char load[320];     /* element j of the tile as an accumulator value */
  char store[1100];   /* what q gets from the accumulator value a */
  char identity[256]; /* before the line's first element (exclusive) */
  char zero[64];
  int exclusive;
} line_parts;

/* The tile's elements in the staging buffer: element j of the tile at
 * (j / ITEMS) * (ITEMS + 1) + j % ITEMS (rows padded: lanes hit different
 * banks), ITEMS = r->items. A full tile launched with LANES
 * work-items (full) visits them as lid + k * LANES, k < ITEMS: constant
 * trip counts and constant offsets from one base, no bounds checks. */
static void tile_loop_open(const line_request *r, int full, kiln_strbuf *b) {
  if (full)
    kiln_strbuf_appendf(b,
                        "  for (int k = 0; k < %d; k++) {\n"
                        "    int j = lid + k * %d, jb = (lid / %d + k * %d) * %d + lid %% %d;\n",
                        r->items, KILN_SCAN_LANES, r->items,
                        KILN_SCAN_LANES / r->items, r->items + 1, r->items);
  else
    kiln_strbuf_appendf(b,
                        "  for (int j = lid; j < len; j += ls) {\n"
                        "    int jb = (j / %d) * %d + j %% %d;\n",
                        r->items, r->items + 1, r->items);
  (void)r;
}

/* The tile r->prefetch tiles ahead fetched into L2, one 128-byte line a
 * work-item at a time, after the tile's own loads are issued: that tile
 * is taken about when this one ends, and its loads then hit L2 rather
 * than memory, so the tiles waiting in their look-back do not leave the
 * memory idle. */
static void prefetch_source(const line_request *r, const char *first, kiln_strbuf *b) {
  if (r->mode != MODE_LOOKBACK || !r->unit || r->prefetch <= 0) return;
  int size = (int)kiln_dtype_size(r->in), tile = KILN_SCAN_LANES * r->items;
  kiln_strbuf_appendf(b,
                      "#if defined(KILN_PREFETCH_L2)\n"
                      "  {\n"
                      "    int64_t f0 = %s + (int64_t)%d * %d;\n"
                      "    for (int c = lid * 128; c < %d; c += %d)\n"
                      "      if (f0 + c / %d < n)\n"
                      "        kiln_prefetch_l2((KILN_GLOBAL const char *)(p + op + f0) + c);\n"
                      "  }\n"
                      "#endif\n",
                      first, r->prefetch, tile, tile * size, 128 * KILN_SCAN_LANES, size);
}

/* The apply step of one lane: element i is (base op run_i), base being
 * P_t op X_{l-1} where present (has), or for an exclusive scan the same
 * with run_{i-1}; run folds the lane's elements left to right. */
static void apply_lane(const line_request *r, const line_parts *x, const char *get, int has,
                       const char *bound, kiln_strbuf *b) {
  int kind = r->job->kind;
  kiln_strbuf_appendf(b,
                      "      %s run = %s;\n"
                      "      for (int i = 0; i < %d; i++) if (%s) {\n"
                      "        %s v = %s, y;\n",
                      x->acc, x->zero, r->items, bound, x->acc, get);
  if (x->exclusive)
    kiln_strbuf_appendf(b, "        y = i > 0 ? %s : %s;\n",
                        has ? "kiln_rt_combine(base, run)" : "run", has ? "base" : x->identity);
  kiln_strbuf_append(b, "        run = i > 0 ? kiln_rt_combine(run, v) : v;\n");
  if (!x->exclusive)
    kiln_strbuf_appendf(b, "        y = %s;\n", has ? "kiln_rt_combine(base, run)" : "run");
  if (r->direct) /* complex128 (VALUES only): straight to q */
    kiln_strbuf_appendf(b, "        { %s a = y; q[oq + (k0 + j) * qr] = %s; }\n", x->acc, x->store);
  else if (kind == KILN_SCAN_LINE_VALUES)
    kiln_strbuf_appendf(b, "        buf[l * %d + i] = y;\n", r->items + 1);
  else /* the position where selected, else -1 */
    kiln_strbuf_appendf(b, "        buf[l * %d + i] = v != 0 ? y : (%s)-1;\n", r->items + 1, x->acc);
  kiln_strbuf_append(b, "      }\n");
}

/* Kogge-Stone over the lane totals nl (ping-pong halves of lanes[]): the
 * lane scan X in lanes[src + l], the tile's aggregate in total. */
static void lane_scan_source(const char *acc, kiln_strbuf *b) {
  kiln_strbuf_appendf(b,
                      "  int src = 0;\n"
                      "  for (int d = 1; d < nl; d <<= 1) {\n"
                      "    for (int l = lid; l < nl; l += ls)\n"
                      "      lanes[(src ^ %d) + l] =\n"
                      "          l >= d ? kiln_rt_combine(lanes[src + l - d], lanes[src + l])\n"
                      "                 : lanes[src + l];\n"
                      "    kiln_barrier();\n"
                      "    src ^= %d;\n"
                      "  }\n"
                      "  %s total = lanes[src + nl - 1];\n",
                      KILN_SCAN_LANES, KILN_SCAN_LANES, acc);
}

/* Everything after the tile is known (t, k0, len, nl): load, lane folds,
 * lane scan, the tile's prefix, apply, store. full: a full tile launched
 * with LANES work-items (see tile_loop_open). */
static void tile_body(const line_request *r, const line_parts *x, int full, kiln_strbuf *b) {
  const kiln_scan_line_job *job = r->job;
  int kind = job->kind;
  const char *acc = x->acc;
  char get[400];
  if (r->direct) {
    snprintf(get, sizeof get, "(j = l * %d + i, %s)", r->items, x->load);
    kiln_strbuf_append(b, "  int64_t j;\n");
  } else {
    tile_loop_open(r, full, b);
    kiln_strbuf_appendf(b,
                        "    buf[jb] = %s;\n"
                        "  }\n",
                        x->load);
    prefetch_source(r, "k0", b);
    kiln_strbuf_append(b, "  kiln_barrier();\n");
    snprintf(get, sizeof get, "buf[l * %d + i]", r->items + 1);
  }
  const char *bound = full ? "1" : "i < ni";
  kiln_strbuf_appendf(b,
                      "  for (int l = lid; l < nl; l += ls) {\n"
                      "    int ni = len - l * %d < %d ? len - l * %d : %d;\n"
                      "    int i = 0;\n"
                      "    %s s = %s;\n"
                      "    for (i = 1; i < %d; i++) if (%s) s = kiln_rt_combine(s, %s);\n"
                      "    lanes[l] = s;\n"
                      "    (void)ni;\n"
                      "  }\n"
                      "  kiln_barrier();\n",
                      r->items, r->items, r->items, r->items, acc, get,
                      r->items, bound, get);
  if (r->mode == MODE_AGGREGATE) {
    lane_scan_source(acc, b);
    kiln_strbuf_append(b, "  if (lid == 0) va[ova + t] = total;\n");
    return;
  }
  if (r->mode == MODE_LOOKBACK) {
    lane_scan_source(acc, b);
    lookback_source(r, acc, b);
  } else {
    lane_scan_source(acc, b);
    kiln_strbuf_append(b,
                       "  if (lid == 0 && t > 0) pre[0] = vi[ovi + t];\n"
                       "  kiln_barrier();\n"
                       "  (void)total;\n");
  }
  /* the base of the lane is known before its elements: two loops, so that
   * the elements' code has no choice left in it */
  kiln_strbuf_appendf(b,
                      "  for (int l = lid; l < nl; l += ls) {\n"
                      "    int ni = len - l * %d < %d ? len - l * %d : %d;\n"
                      "    int has = t > 0;\n"
                      "    %s base = has ? pre[0] : %s;\n"
                      "    if (l > 0) {\n"
                      "      base = has ? kiln_rt_combine(base, lanes[src + l - 1]) : lanes[src + l - 1];\n"
                      "      has = 1;\n"
                      "    }\n"
                      "    (void)ni;\n"
                      "    if (has) {\n",
                      r->items, r->items, r->items, r->items, acc,
                      x->zero);
  apply_lane(r, x, get, 1, bound, b);
  kiln_strbuf_append(b, "    } else {\n");
  apply_lane(r, x, get, 0, bound, b);
  kiln_strbuf_append(b, "    }\n  }\n");
  if (r->direct) return;
  kiln_strbuf_append(b, "  kiln_barrier();\n");
  tile_loop_open(r, full, b);
  kiln_strbuf_appendf(b, "    %s a = buf[jb];\n", acc);
  if (kind == KILN_SCAN_LINE_VALUES) {
    kiln_strbuf_appendf(b, "    q[oq + (k0 + j) * qr] = %s;\n", x->store);
  } else if (kind == KILN_SCAN_LINE_COMPACT) {
    kiln_strbuf_append(b, "    if (a >= 0) q[oq + a * qr] = x[ox + (k0 + j) * xr];\n");
  } else {
    kiln_strbuf_append(b, "    if (a >= 0) {\n      int64_t k = k0 + j;\n");
    for (int d = job->ndim - 1; d >= 0; d--)
      kiln_strbuf_appendf(b, "      q[oq + (int64_t)a * %d + %d] = k %% sh%d; k /= sh%d;\n", job->ndim, d, d,
                          d);
    kiln_strbuf_append(b, "    }\n");
  }
  kiln_strbuf_append(b, "  }\n");
}

static void line_parts_of(const line_request *r, line_parts *x) {
  const kiln_scan_line_job *job = r->job;
  int kind = job->kind;
  x->acc = kiln_dtype_kernel_type(r->acc);
  x->exclusive = kind != KILN_SCAN_LINE_VALUES || job->exclusive;
  char element[128];
  kiln_ew_load_expression(r->in, "p[op + (k0 + j) * pr]", element, sizeof element);
  if (kind != KILN_SCAN_LINE_VALUES) {
    char truth[256];
    kiln_ew_cast_expression(r->in, KILN_BOOL, element, truth, sizeof truth);
    snprintf(x->load, sizeof x->load, "(%s)((%s) ? 1 : 0)", x->acc, truth);
  } else {
    kiln_ew_cast_expression(r->in, r->acc, element, x->load, sizeof x->load);
  }
  kiln_ew_zero_expression(r->acc, x->zero, sizeof x->zero);
  if (kind != KILN_SCAN_LINE_VALUES)
    snprintf(x->identity, sizeof x->identity, "(%s)0", x->acc);
  else if (kiln_dtype_is_complex(r->acc))
    snprintf(x->identity, sizeof x->identity, "%s", job->identity ? job->identity : x->zero);
  else
    snprintf(x->identity, sizeof x->identity, "(%s)(%s)", x->acc,
             job->identity ? job->identity : "0");
  x->store[0] = '\0';
  if (kind == KILN_SCAN_LINE_VALUES) {
    char value[1024];
    kiln_rt_spec post = *job->spec;
    post.acc = r->acc;
    post.out = r->out;
    kiln_rt_store_expression(&post, value, sizeof value);
    kiln_ew_store_expression(r->out, value, x->store, sizeof x->store);
  }
}

/* The decoupled fallback's helpers (r->fallback): kiln_scan_fallback_lanes
 * (the balanced tree of lane totals l0 .. l0 + count - 1 of the full tile
 * at k0, count a power of two, lane l0 a multiple of it; each total the
 * lane's left fold of its r->items elements, read from global memory by
 * the same load expression as the tile's own: a subtree of the tile's
 * Kogge-Stone, whose last value over 2^k lanes is that tree, hence the
 * same bits as the tile's aggregate when one work-item does all its lanes)
 * and kiln_scan_fallback_publish (an aggregate in tile m's aggregate words,
 * tile 0's in its inclusive ones, as the tile publishes it itself). Only
 * full tiles are ever reduced so: the line's last tile, the only partial
 * one, precedes none. A plain store suffices where the paper takes a
 * compare-and-swap: the aggregate and inclusive words are apart, and
 * every writer of a word writes the same bits, so a word goes from 0 to
 * its one value whoever writes it first. */
static void fallback_helpers(const line_request *r, kiln_strbuf *b) {
  line_parts x;
  line_parts_of(r, &x);
  int w = lookback_words(r->acc);
  kiln_strbuf_appendf(b,
                      "KILN_DEVICE %s kiln_scan_fallback_lanes(KILN_GLOBAL const %s *p, int64_t op,\n"
                      "    int64_t pr, int64_t k0, int l0, int count) {\n"
                      "  %s tree[16];\n"
                      "  int sp = 0;\n"
                      /* rolled loops: unrolled, the look-back's rare path
                       * took the kernel from 32 registers to 56 (ptxas,
                       * sm_90), 4 a loop 39; rolled, 32 and a stack frame
                       * of 64 bytes that only this path touches. A lane's
                       * elements share cache lines: after the first load,
                       * L1 hits. */
                      "#pragma unroll 1\n"
                      "  for (int c = 0; c < count; c++) {\n"
                      "    int j = (l0 + c) * %d;\n"
                      "    %s s = %s;\n"
                      "#pragma unroll 1\n"
                      "    for (int i = 1; i < %d; i++) {\n"
                      "      j = (l0 + c) * %d + i;\n"
                      "      s = kiln_rt_combine(s, %s);\n"
                      "    }\n"
                      /* a subtree is complete once as many leaves as c + 1
                       * has trailing zero bits have joined it */
                      "    for (int k = c + 1; (k & 1) == 0; k >>= 1) s = kiln_rt_combine(tree[--sp], s);\n"
                      "    tree[sp++] = s;\n"
                      "  }\n"
                      "  return tree[0];\n"
                      "}\n"
                      "KILN_DEVICE void kiln_scan_fallback_publish(KILN_GLOBAL volatile uint64_t *aw,\n"
                      "    KILN_GLOBAL volatile uint64_t *iw, int64_t m, %s v) {\n"
                      "  if (m == 0) kiln_scan_publish(iw, 2, v);\n"
                      "  else kiln_scan_publish(aw + %d * m, 1, v);\n"
                      "}\n",
                      x.acc, kiln_dtype_kernel_type(r->in), x.acc, r->items, x.acc, x.load, r->items,
                      r->items, x.load, x.acc, w);
}

static void line_source(const line_request *r, kiln_strbuf *b) {
  const kiln_scan_line_job *job = r->job;
  int kind = job->kind;
  line_parts x;
  line_parts_of(r, &x);
  const char *acc = x.acc;
  kiln_strbuf_appendf(b, "KILN_KERNEL void %s(int64_t n, KILN_GLOBAL const %s *p, int64_t op,\n"
                         "    int64_t pr",
                      r->entry, kiln_dtype_kernel_type(r->in));
  if (kind == KILN_SCAN_LINE_COMPACT)
    kiln_strbuf_appendf(b, ", KILN_GLOBAL const %s *x, int64_t ox, int64_t xr",
                        kiln_dtype_kernel_type(r->out));
  if (kind == KILN_SCAN_LINE_NONZERO)
    for (int d = 0; d < job->ndim; d++) kiln_strbuf_appendf(b, ", int64_t sh%d", d);
  kiln_strbuf_appendf(b,
                      ",\n    KILN_GLOBAL %s *q, int64_t oq, int64_t qr,\n"
                      "    KILN_GLOBAL uint32_t *st, int64_t ost, KILN_GLOBAL %s *va, int64_t ova,\n"
                      "    KILN_GLOBAL %s *vi, int64_t ovi) {\n",
                      kiln_dtype_kernel_type(r->out), acc, acc);
  kiln_strbuf_appendf(b,
                      "  KILN_LOCAL_ARRAY(%s, buf, %d);\n"
                      "  KILN_LOCAL_ARRAY(%s, lanes, %d);\n"
                      "  KILN_LOCAL_ARRAY(%s, pre, 1);\n",
                      acc, r->direct ? 1 : KILN_SCAN_LANES * (r->items + 1), acc, 2 * KILN_SCAN_LANES, acc);
  if (r->mode == MODE_LOOKBACK)
    kiln_strbuf_appendf(b,
                        "  KILN_LOCAL_ARRAY(%s, seen, %d);\n"
                        "  KILN_LOCAL_ARRAY(uint32_t, seenf, %d);\n"
                        "  KILN_LOCAL_ARRAY(int, firsts, %d);\n"
                        "  KILN_LOCAL_ARRAY(int64_t, cursor, 4);\n",
                        acc, WINDOW, WINDOW, (WINDOW + CHUNK - 1) / CHUNK);
  if (r->fixed)
    kiln_strbuf_appendf(b, "  int lid = (int)kiln_local_id(0);\n  const int ls = %d;\n",
                        KILN_SCAN_LANES);
  else
    kiln_strbuf_append(b, "  int lid = (int)kiln_local_id(0), ls = (int)kiln_local_size(0);\n");
  if (r->unit)
    kiln_strbuf_append(b, kind == KILN_SCAN_LINE_COMPACT ? "  pr = 1; qr = 1; xr = 1;\n"
                                                         : "  pr = 1; qr = 1;\n");
  kiln_strbuf_append(b, "  (void)q; (void)oq; (void)qr; (void)st; (void)ost; (void)va; (void)ova;\n"
                        "  (void)vi; (void)ovi;\n");
  if (r->mode == MODE_LOOKBACK && !r->fallback)
    kiln_strbuf_append(b,
                       "  if (lid == 0) cursor[3] = (int64_t)kiln_atomic_add_u32(st + ost, 1u);\n"
                       "  kiln_barrier();\n"
                       "  int64_t t = cursor[3];\n");
  else if (r->mode == MODE_LOOKBACK && r->fallback && r->reverse)
    kiln_strbuf_appendf(b, "  int64_t t = (n + %d) / %d - 1 - (int64_t)kiln_group_id(0);\n",
                        KILN_SCAN_LANES * r->items - 1, KILN_SCAN_LANES * r->items);
  else
    kiln_strbuf_append(b, "  int64_t t = kiln_group_id(0);\n");
  kiln_strbuf_appendf(b,
                      "  int64_t k0 = t * %d;\n"
                      "  int len = n - k0 < %d ? (int)(n - k0) : %d;\n"
                      "  int nl = (len + %d) / %d;\n",
                      KILN_SCAN_LANES * r->items, KILN_SCAN_LANES * r->items, KILN_SCAN_LANES * r->items, r->items - 1,
                      r->items);
  if (r->fixed && !r->direct) {
    /* every tile but the line's last is full: its own copy of the body,
     * with no bounds in its loops (the branch is the same for the whole
     * work-group, so the barriers inside it are met by every work-item) */
    kiln_strbuf_appendf(b, "  if (len == %d) {\n", KILN_SCAN_LANES * r->items);
    tile_body(r, &x, 1, b);
    kiln_strbuf_append(b, "  } else {\n");
    tile_body(r, &x, 0, b);
    kiln_strbuf_append(b, "  }\n");
  } else {
    tile_body(r, &x, 0, b);
  }
  kiln_strbuf_append(b, "}\n");
}

static kiln_status line_generate(void *data, kiln_strbuf *b) {
  const line_request *r = data;
  const kiln_rt_spec *s = r->job->spec;
  static const char *const modes[] = {"lookback", "aggregate", "apply", "fold"};
  kiln_strbuf_appendf(b, "/* single-pass scan '%s': %s */\n", s->name, modes[r->mode]);
  kiln_rt_append_helpers(s, b);
  if (r->mode == MODE_LOOKBACK) lookback_helpers(r->acc, b);
  if (r->mode == MODE_LOOKBACK && r->fallback) fallback_helpers(r, b);
  if (r->mode == MODE_FOLD)
    fold_source(r, b);
  else
    line_source(r, b);
  return kiln_strbuf_status(b);
}

/* The dtypes of a request for job. */
static void request_types(const kiln_scan_line_job *job, line_request *r) {
  r->job = job;
  r->in = job->in ? job->in->dtype : job->spec->inputs[0];
  if (job->kind == KILN_SCAN_LINE_VALUES) {
    r->acc = job->spec->acc;
    r->out = job->spec->out;
  } else {
    r->acc = job->spec->acc; /* the count: int64, or int32 (kiln_scan_line) */
    r->out = job->kind == KILN_SCAN_LINE_COMPACT ? job->data->dtype : KILN_INT64;
  }
  r->items = kiln_scan_items(r->acc);
}

kiln_status kiln_scan_line_source(const kiln_scan_line_job *job, kiln_scan_line_pass pass,
                                  int direct, const char *entry, kiln_strbuf *out) {
  /* the look-back pass in the form GPUs launch (a full work-group, unit
   * strides), the others in the general form: both forms get compiled */
  int gpu_form = pass == KILN_SCAN_LINE_LOOKBACK;
  line_request r = {.mode = (int)pass, .direct = direct, .fixed = gpu_form, .unit = gpu_form,
                    .warp = gpu_form, .prefetch = gpu_form ? PREFETCH_AHEAD : 0};
  request_types(job, &r);
  select_tile_order(&r);
  snprintf(r.entry, sizeof r.entry, "%s", entry);
  return line_generate(&r, out);
}

static kiln_status line_program(kiln_context *ctx, line_request *r, kiln_program **program) {
  const kiln_scan_line_job *job = r->job;
  const kiln_rt_spec *s = job->spec;
  snprintf(r->entry, sizeof r->entry, "kiln_scan_line_%s", s->name);
  kiln_strbuf key = {0};
  int lookback = r->mode == MODE_LOOKBACK; /* the fallback changes that pass alone */
  kiln_strbuf_appendf(&key, "\1scanline|%s|%d|%d|%d|%d|%d|%d|%d|%d|%d|%d|%d|%d|%d|%d|%d|", s->name,
                      r->mode, (int)job->kind, job->exclusive, r->direct, r->fixed, r->unit, job->ndim,
                      (int)r->in, (int)r->acc, (int)r->out, r->items, r->warp, r->prefetch,
                      lookback ? r->fallback * (1 + r->reverse) : 0,
                      lookback && r->fallback ? r->spins : 0);
  const char *parts[4] = {s->preamble, s->combine, s->post, job->identity};
  for (int i = 0; i < 4; i++) {
    kiln_strbuf_appendf(&key, "|%zu:", parts[i] ? strlen(parts[i]) : (size_t)0);
    if (parts[i]) kiln_strbuf_append(&key, parts[i]);
  }
  kiln_status status = kiln_strbuf_status(&key);
  if (status == KILN_OK)
    status = kiln_program_get_keyed(ctx, key.data, key.length, KILN_RT_OPTIONS, r->entry,
                                    line_generate, r, program);
  if (status != KILN_OK) kiln_error_prefix(status, "scan '%s'", s->name);
  kiln_strbuf_free(&key);
  return status;
}

/* ---- launching --------------------------------------------------------------------- */

typedef struct line_args {
  kiln_backend_arg args[16 + KILN_MAX_DIMS];
  int n;
} line_args;

static void scalar(line_args *l, const int64_t *v) {
  l->args[l->n++] =
      (kiln_backend_arg){.kind = KILN_BACKEND_ARG_SCALAR, .value = v, .size = sizeof(int64_t)};
}

static void buffer(line_args *l, kiln_backend_buffer *b) {
  l->args[l->n++] = (kiln_backend_arg){.kind = KILN_BACKEND_ARG_BUFFER, .buffer = b};
}

static uint64_t align64(uint64_t n) { return (n + 63) / 64 * 64; }

/* Element offsets and strides of a 1-D view (in its dtype's units). */
typedef struct line_view {
  int64_t offset, stride;
} line_view;

static line_view view_of(const kiln_array *a) {
  int64_t size = (int64_t)kiln_dtype_size(a->dtype);
  return (line_view){a->offset / size, a->ndim ? a->strides[0] / size : 0};
}

/* Local memory a staged tile needs (buf, lanes, look-back). */
static uint64_t staged_bytes(kiln_dtype acc, int items) {
  return (uint64_t)(KILN_SCAN_LANES * (items + 1) + 2 * KILN_SCAN_LANES + 1 + WINDOW +
                    KILN_SCAN_LANES / 32) *
             kiln_dtype_size(acc) +
         WINDOW * 4 + (WINDOW + CHUNK - 1) / CHUNK * 4 + 64;
}

typedef struct line_plan {
  int64_t n, ntiles, ost, ova, ovi;
  line_view in, data, out;
  int64_t shape[KILN_MAX_DIMS];
  const kiln_array *pool;
} line_plan;

static kiln_status launch_tiles(kiln_context *ctx, kiln_stream *stream, line_request *r,
                                const line_plan *plan) {
  const kiln_scan_line_job *job = r->job;
  kiln_program *program = NULL;
  KILN_RETURN_IF_ERROR(line_program(ctx, r, &program));
  if (r->fixed && program->max_work_group_size < KILN_SCAN_LANES) {
    /* the kernel takes fewer work-items than the device (registers):
     * the form that reads its work-group size */
    r->fixed = 0;
    r->warp = 0;
    KILN_RETURN_IF_ERROR(line_program(ctx, r, &program));
  }
  line_args l = {.n = 0};
  scalar(&l, &plan->n);
  buffer(&l, job->in->buffer->handle);
  scalar(&l, &plan->in.offset);
  scalar(&l, &plan->in.stride);
  if (job->kind == KILN_SCAN_LINE_COMPACT) {
    buffer(&l, job->data->buffer->handle);
    scalar(&l, &plan->data.offset);
    scalar(&l, &plan->data.stride);
  }
  if (job->kind == KILN_SCAN_LINE_NONZERO)
    for (int d = 0; d < job->ndim; d++) scalar(&l, &plan->shape[d]);
  buffer(&l, job->out->buffer->handle);
  scalar(&l, &plan->out.offset);
  scalar(&l, &plan->out.stride);
  for (int k = 0; k < 3; k++) {
    buffer(&l, plan->pool->buffer->handle);
    scalar(&l, k == 0 ? &plan->ost : k == 1 ? &plan->ova : &plan->ovi);
  }
  uint64_t local = program->max_work_group_size < KILN_SCAN_LANES
                       ? program->max_work_group_size
                       : KILN_SCAN_LANES;
  kiln_backend_launch grid = {.work_dim = 1,
                              .global = {(uint64_t)plan->ntiles * local, 1, 1},
                              .local = {local, 1, 1}};
  return kiln_program_launch(ctx, program, stream, &grid, l.n, l.args);
}

static kiln_status launch_fold(kiln_context *ctx, kiln_stream *stream, line_request *r,
                               const line_plan *plan) {
  kiln_program *program = NULL;
  r->mode = MODE_FOLD;
  KILN_RETURN_IF_ERROR(line_program(ctx, r, &program));
  line_args l = {.n = 0};
  scalar(&l, &plan->ntiles);
  buffer(&l, plan->pool->buffer->handle);
  scalar(&l, &plan->ova);
  buffer(&l, plan->pool->buffer->handle);
  scalar(&l, &plan->ovi);
  kiln_backend_launch grid = {.work_dim = 1, .global = {1, 1, 1}, .local = {1, 1, 1}};
  return kiln_program_launch(ctx, program, stream, &grid, l.n, l.args);
}

/* The debug log's count of the tiles that the decoupled fallback reduced
 * (the state's second word): a measurement aid, it waits for the scan. */
static kiln_status log_fallbacks(kiln_context *ctx, kiln_stream *stream, const kiln_array *pool,
                                 int64_t ntiles) {
  kiln_array word;
  kiln_rt_subview(pool, 0, 1, 4, 1, &word);
  word.offset += KILN_RT_SCRATCH_HEAD + 4;
  word.shape[0] = 4;
  uint8_t bytes[4] = {0};
  kiln_status status = stream ? kiln_stream_synchronize(ctx, stream) : KILN_OK;
  if (status == KILN_OK) status = kiln_array_to_host(&word, bytes, NULL);
  uint32_t count;
  memcpy(&count, bytes, 4);
  if (status == KILN_OK)
    kiln_log(KILN_LOG_DEBUG, "scan: the decoupled fallback reduced %u of %lld tiles", count,
             (long long)ntiles);
  return status;
}

static kiln_status run_line(kiln_context *ctx, kiln_stream *stream, line_request *r,
                            line_plan *plan, kiln_scan_path path, kiln_rt_scratch *scratch) {
  uint64_t item = kiln_dtype_size(r->acc);
  /* the counter and the status words of both kinds */
  uint64_t state =
      align64(4 * (uint64_t)STATE_HEAD + 16 * (uint64_t)lookback_words(r->acc) * (uint64_t)plan->ntiles);
  uint64_t values = align64((uint64_t)plan->ntiles * item);
  kiln_array *pool = NULL, *owned = NULL;
  KILN_RETURN_IF_ERROR(
      kiln_rt_scratch_acquire(ctx, stream, scratch, state + 2 * values, &pool, &owned));
  plan->pool = pool;
  plan->ost = KILN_RT_SCRATCH_HEAD / 4;
  plan->ova = (int64_t)((KILN_RT_SCRATCH_HEAD + state) / item);
  plan->ovi = (int64_t)((KILN_RT_SCRATCH_HEAD + state + values) / item);
  kiln_status status = KILN_OK;
  if (path == KILN_SCAN_PATH_LOOKBACK) {
    /* the counter and the status words start at zero */
    kiln_array flags;
    kiln_rt_subview(pool, 0, 1, (int64_t)state, 1, &flags);
    flags.offset += KILN_RT_SCRATCH_HEAD;
    flags.shape[0] = (int64_t)state;
    static const uint8_t zero = 0;
    status = kiln_ew_fill_on(&flags, &zero, stream);
    r->mode = MODE_LOOKBACK;
    if (status == KILN_OK) status = launch_tiles(ctx, stream, r, plan);
    if (status == KILN_OK && r->fallback && kiln_log_enabled(KILN_LOG_DEBUG))
      status = log_fallbacks(ctx, stream, pool, plan->ntiles);
  } else {
    r->mode = MODE_AGGREGATE;
    status = launch_tiles(ctx, stream, r, plan);
    if (status == KILN_OK && plan->ntiles > 1) status = launch_fold(ctx, stream, r, plan);
    r->mode = MODE_APPLY;
    if (status == KILN_OK) status = launch_tiles(ctx, stream, r, plan);
  }
  kiln_rt_scratch_finish(scratch, stream, pool, owned, status);
  return status;
}

kiln_status kiln_scan_line(kiln_context *ctx, kiln_stream *stream, const kiln_scan_line_job *job,
                           kiln_rt_scratch *scratch) {
  line_plan plan = {.n = job->in->ndim ? job->in->shape[0] : 1};
  if (plan.n == 0) return KILN_OK;
  /* counting (COMPACT, NONZERO): an add-scan of in != 0 */
  int narrow = plan.n <= INT32_MAX && !atomic_load(&wide_counts);
  kiln_rt_spec counting = {.name = job->kind == KILN_SCAN_LINE_COMPACT ? "compact" : "nonzero",
                           .ninputs = 1,
                           .inputs = {job->in->dtype},
                           /* int32 counts where they fit: 4-byte
                            * accumulators take tiles of 8192 and packed
                            * status words (kiln_scan_items) */
                           .acc = narrow ? KILN_INT32 : KILN_INT64,
                           .out = narrow ? KILN_INT32 : KILN_INT64,
                           .combine = "return a + b;"};
  kiln_scan_line_job counted = *job;
  if (job->kind != KILN_SCAN_LINE_VALUES) {
    counted.spec = &counting;
    counted.identity = "0";
    counted.exclusive = 1;
    job = &counted;
  }
  line_request r = {.mode = 0};
  request_types(job, &r);
  int64_t tile = (int64_t)KILN_SCAN_LANES * r.items;
  plan.ntiles = (plan.n + tile - 1) / tile;
  plan.in = view_of(job->in);
  plan.out = view_of(job->out);
  if (job->kind == KILN_SCAN_LINE_COMPACT) plan.data = view_of(job->data);
  if (job->kind == KILN_SCAN_LINE_NONZERO) {
    plan.out.stride = 1;
    memcpy(plan.shape, job->shape, sizeof(int64_t) * (size_t)job->ndim);
  }
  /* a tile staged in local memory so that loads and stores coalesce,
   * unless it does not fit (complex128: CUDA's 48 KiB of static local
   * memory): then read and written in global memory, the same order */
  uint64_t local = ctx->info.local_memory ? ctx->info.local_memory : 48 * 1024;
  if (local > 48 * 1024) local = 48 * 1024;
  r.direct = job->kind == KILN_SCAN_LINE_VALUES && staged_bytes(r.acc, r.items) > local;
  r.fixed = ctx->info.max_work_group_size >= KILN_SCAN_LANES;
  r.warp = r.fixed && !atomic_load(&group_lookback);
  r.unit = plan.in.stride == 1 && plan.out.stride == 1 &&
           (job->kind != KILN_SCAN_LINE_COMPACT || plan.data.stride == 1);
  r.prefetch = PREFETCH_AHEAD;
  select_tile_order(&r);
  kiln_scan_path path = KILN_SCAN_PATH_AUTO;
  KILN_RETURN_IF_ERROR(kiln_scan_choose_path(ctx, r.acc, &path));
  if (path == KILN_SCAN_PATH_LOOKBACK && r.direct) path = KILN_SCAN_PATH_REDUCE_THEN_SCAN;
  if (kiln_log_enabled(KILN_LOG_DEBUG))
    kiln_log(KILN_LOG_DEBUG, "scan '%s': %lld elements, %lld tiles, %s path on %s",
             job->spec ? job->spec->name : "count", (long long)plan.n, (long long)plan.ntiles,
             kiln_scan_path_name(path), ctx->info.name);
  return run_line(ctx, stream, &r, &plan, path, scratch);
}

kiln_status kiln_scan_add_line(kiln_context *ctx, kiln_stream *stream, const kiln_array *in,
                               const kiln_array *out, int exclusive) {
  KILN_CHECK_ARG(ctx);
  KILN_CHECK_ARG(in);
  KILN_CHECK_ARG(out);
  if (in->ndim != 1 || out->ndim != 1 || in->shape[0] != out->shape[0] ||
      kiln_dtype_is_complex(out->dtype) || out->dtype == KILN_BOOL ||
      out->dtype == KILN_FLOAT16)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "scan_add_line: in and out must be 1-D of one length, out of an "
                          "integer, float32 or float64 dtype");
  kiln_rt_spec spec = {.name = "add_line",
                       .ninputs = 1,
                       .inputs = {in->dtype},
                       .acc = out->dtype,
                       .out = out->dtype,
                       .combine = "return a + b;"};
  kiln_scan_line_job job = {.kind = KILN_SCAN_LINE_VALUES,
                            .spec = &spec,
                            .identity = "0",
                            .exclusive = exclusive,
                            .in = in,
                            .out = out};
  return kiln_scan_line(ctx, stream, &job, NULL);
}
