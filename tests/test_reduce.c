/* Conformance: reductions (kiln/reduce.h) against host references on random
 * data: ufunc reduce over every axis combination of 1-D to 4-D arrays
 * (contiguous, transposed and strided views; sizes 0, 1, primes, several
 * chunks), NumPy's result dtypes and wrapping integer sums, NaN handling,
 * keepdims, given and host outputs, custom map/reduce/post reductions with
 * broadcasting, argmin/argmax (first index on ties, NaN wins), and bad
 * input. The reproducible tests compare bits: across work-group sizes and
 * against a host emulation of kiln's fixed tree. */
#include "reduce_testing.h"

/* ---- host data and views -------------------------------------------------- */

static int64_t product(int ndim, const int64_t *shape) {
  int64_t n = 1;
  for (int d = 0; d < ndim; d++) n *= shape[d];
  return n;
}

/* A device array holding host data h (C order of `shape`) as a view of
 * layout 0: contiguous, 1: transposed (reversed axes of a base), 2: every
 * other element of a base twice as long in the last dim, from offset 1,
 * 3: the same backwards (a negative stride). */
static kiln_array *make_view(kiln_context *ctx, const void *h, kiln_dtype dtype, int ndim,
                             const int64_t *shape, int layout) {
  size_t item = kiln_dtype_size(dtype);
  int64_t n = product(ndim, shape);
  kiln_array *base = NULL, *view = NULL;
  if (layout == 0 || ndim == 0 || n == 0) {
    if (kiln_array_from_host(ctx, dtype, ndim, shape, NULL, h, &base) != KILN_OK) return NULL;
    return base;
  }
  int64_t bshape[KILN_MAX_DIMS];
  char *b = NULL;
  if (layout == 1) {
    for (int d = 0; d < ndim; d++) bshape[d] = shape[ndim - 1 - d];
    b = malloc((size_t)n * item + 1);
    for (int64_t i = 0; i < n; i++) { /* b[reversed index] = h[i] */
      /* base dim bd is view dim ndim-1-bd */
      int64_t r = i, bj = 0, bs = 1, idx[KILN_MAX_DIMS];
      for (int d = ndim - 1; d >= 0; d--) {
        idx[d] = r % shape[d];
        r /= shape[d];
      }
      for (int bd = ndim - 1; bd >= 0; bd--) {
        bj += idx[ndim - 1 - bd] * bs;
        bs *= bshape[bd];
      }
      memcpy(b + bj * (int64_t)item, (const char *)h + i * (int64_t)item, item);
    }
  } else {
    memcpy(bshape, shape, (size_t)ndim * sizeof *shape);
    bshape[ndim - 1] = 2 * shape[ndim - 1] + 1;
    int64_t bn = product(ndim, bshape);
    b = calloc((size_t)bn * item + 1, 1);
    for (int64_t i = 0; i < n; i++) {
      int64_t row = i / shape[ndim - 1], col = i % shape[ndim - 1];
      int64_t at = layout == 2 ? 1 + 2 * col : 2 * shape[ndim - 1] - 1 - 2 * col;
      memcpy(b + (row * bshape[ndim - 1] + at) * (int64_t)item,
             (const char *)h + i * (int64_t)item, item);
    }
  }
  kiln_status s = kiln_array_from_host(ctx, dtype, ndim, bshape, NULL, b, &base);
  free(b);
  if (s != KILN_OK) return NULL;
  if (layout == 1) {
    s = kiln_array_transpose(base, NULL, &view);
  } else {
    kiln_slice slices[KILN_MAX_DIMS];
    for (int d = 0; d < ndim; d++) slices[d] = KILN_SLICE_ALL;
    slices[ndim - 1] = layout == 2 ? (kiln_slice){1, KILN_NONE, 2}
                                   : (kiln_slice){2 * shape[ndim - 1] - 1, KILN_NONE, -2};
    s = kiln_array_slice(base, ndim, slices, &view);
  }
  kiln_array_release(base);
  return s == KILN_OK ? view : NULL;
}

/* Element i of integer data as its 64-bit two's-complement bits. */
static uint64_t get_bits(const void *data, kiln_dtype dtype, int64_t i) {
  switch (dtype) {
    case KILN_BOOL:
    case KILN_UINT8: return ((const uint8_t *)data)[i];
    case KILN_INT8: return (uint64_t)(int64_t)((const int8_t *)data)[i];
    case KILN_INT16: return (uint64_t)(int64_t)((const int16_t *)data)[i];
    case KILN_UINT16: return ((const uint16_t *)data)[i];
    case KILN_INT32: return (uint64_t)(int64_t)((const int32_t *)data)[i];
    case KILN_UINT32: return ((const uint32_t *)data)[i];
    case KILN_INT64:
    case KILN_UINT64: return ((const uint64_t *)data)[i];
    default: return 0; /* floats: compared as doubles */
  }
}

/* ---- the host reference --------------------------------------------------- */

typedef enum { OP_ADD, OP_MUL, OP_MAX, OP_MIN, OP_LAND, OP_LOR, OP_LXOR, OP_BAND, OP_BOR, OP_BXOR } ref_op;

/* Reduces h (C order of shape) over the axes in reduced[] into ref (one
 * double and one integer bits value per output, C order of the kept dims). */
static void reference(ref_op op, const void *h, kiln_dtype dtype, int ndim, const int64_t *shape,
                      const int *reduced, double *ref, uint64_t *bits, int64_t nout) {
  int64_t n = product(ndim, shape);
  char *seen = calloc((size_t)nout + 1, 1);
  for (int64_t o = 0; o < nout; o++) {
    ref[o] = op == OP_MUL ? 1 : 0;
    bits[o] = op == OP_MUL || op == OP_LAND ? 1 : op == OP_BAND ? ~(uint64_t)0 : 0;
  }
  for (int64_t i = 0; i < n; i++) {
    int64_t r = i, o = 0, scale = 1;
    for (int d = ndim - 1; d >= 0; d--) {
      int64_t c = r % shape[d];
      r /= shape[d];
      if (!reduced[d]) {
        o += c * scale;
        scale *= shape[d];
      }
    }
    double v = harness_get(h, dtype, i);
    uint64_t b = get_bits(h, dtype, i);
    switch (op) {
      case OP_ADD:
        ref[o] += v;
        bits[o] += b;
        break;
      case OP_MUL:
        ref[o] *= v;
        bits[o] *= b;
        break;
      case OP_MAX:
      case OP_MIN:
        if (!seen[o] || isnan(v) || (!isnan(ref[o]) && (op == OP_MAX ? v > ref[o] : v < ref[o]))) {
          if (!(seen[o] && isnan(ref[o]))) ref[o] = v;
        }
        break;
      /* logical: truth values (NaN is true); bitwise: the bits */
      case OP_LAND: bits[o] = bits[o] && v != 0; break;
      case OP_LOR: bits[o] = bits[o] || v != 0; break;
      case OP_LXOR: bits[o] = bits[o] != (v != 0); break;
      case OP_BAND: bits[o] &= b; break;
      case OP_BOR: bits[o] |= b; break;
      case OP_BXOR: bits[o] ^= b; break;
    }
    seen[o] = 1;
  }
  free(seen);
}

static const char *op_name(ref_op op) {
  static const char *names[] = {"add",         "multiply",   "maximum",     "minimum",
                                "logical_and", "logical_or", "logical_xor", "bitwise_and",
                                "bitwise_or",  "bitwise_xor"};
  return names[op];
}

/* Reduces with ufunc `op` and checks against the reference; acc is the
 * dtype the result must have. */
static void check_reduce(kiln_context *ctx, ref_op op, kiln_dtype dtype, kiln_dtype acc, int ndim,
                         const int64_t *shape, const kiln_reduce_options *opt, int layout,
                         double lo, double hi) {
  int64_t n = product(ndim, shape);
  size_t item = kiln_dtype_size(dtype);
  void *h = malloc((size_t)n * item + 8);
  harness_fill_random(h, dtype, n, lo, hi);
  /* the logical reductions need zeros (the random fill avoids them): a
   * few for and, most for or, half for xor, so results are of both truths */
  if (op == OP_LAND || op == OP_LOR || op == OP_LXOR)
    for (int64_t i = 0; i < n; i++) {
      uint64_t r = harness_rand_u64() % 600;
      if (op == OP_LAND ? r == 0 : op == OP_LOR ? r != 0 : r < 300)
        memset((char *)h + (size_t)i * item, 0, item);
    }
  kiln_array *a = make_view(ctx, h, dtype, ndim, shape, layout);
  kiln_ufunc *u = NULL;
  CHECK_OK(kiln_ufunc_builtin(ctx, op_name(op), &u));
  int reduced[KILN_MAX_DIMS] = {0};
  for (int d = 0; d < ndim; d++) reduced[d] = opt->all_axes;
  for (int i = 0; i < opt->naxes; i++) reduced[(opt->axes[i] + ndim) % ndim] = 1;
  int64_t nout = 1, K = 1;
  for (int d = 0; d < ndim; d++) {
    if (!reduced[d])
      nout *= shape[d];
    else
      K *= shape[d];
  }
  kiln_array *r = NULL;
  int no_identity = (op == OP_MAX || op == OP_MIN) && K == 0 && nout > 0;
  if (a && u && no_identity) {
    CHECK_STATUS(kiln_ufunc_reduce(u, kiln_operand_array(a), kiln_operand_new(&r), opt, NULL),
                 KILN_ERROR_INVALID_ARGUMENT);
    CHECK_ERROR_CONTAINS("which has no identity");
  } else if (a && u) {
    CHECK_OK(kiln_ufunc_reduce(u, kiln_operand_array(a), kiln_operand_new(&r), opt, NULL));
  }
  if (r) {
    CHECK_MSG(kiln_array_dtype(r) == acc, "%s of %s gives %s, expected %s", op_name(op),
              kiln_dtype_name(dtype), kiln_dtype_name(kiln_array_dtype(r)), kiln_dtype_name(acc));
    int rndim = kiln_array_ndim(r);
    CHECK(rndim == (opt->keepdims ? ndim : ndim - (int)(opt->all_axes ? ndim : opt->naxes)));
    CHECK(kiln_array_size(r) == nout);
    double *ref = malloc((size_t)nout * 8 + 8);
    uint64_t *bits = malloc((size_t)nout * 8 + 8);
    void *got = malloc((size_t)nout * 8 + 8);
    reference(op, h, dtype, ndim, shape, reduced, ref, bits, nout);
    CHECK_OK(kiln_array_to_host(r, got, NULL));
    double rtol = acc == KILN_FLOAT32 ? 2e-6 * (4 + log2((double)K + 1)) : 1e-12;
    for (int64_t o = 0; o < nout && harness_failures < 10; o++) {
      if (kiln_dtype_is_float(acc)) {
        double g = harness_get(got, acc, o);
        CHECK_MSG((isnan(g) && isnan(ref[o])) || fabs(g - ref[o]) <= rtol * fabs(ref[o]) + 1e-30,
                  "%s %s->%s ndim %d layout %d out %lld: %.9g, expected %.9g", op_name(op),
                  kiln_dtype_name(dtype), kiln_dtype_name(acc), ndim, layout, (long long)o, g,
                  ref[o]);
      } else {
        /* min/max: the value itself (exact in a double for these dtypes) */
        uint64_t g = get_bits(got, acc, o), want = get_bits(&bits[o], acc, 0);
        if (op == OP_MAX || op == OP_MIN) g = harness_get(got, acc, o) == ref[o], want = 1;
        CHECK_MSG(g == want, "%s %s->%s ndim %d layout %d out %lld: %llu, expected %llu",
                  op_name(op), kiln_dtype_name(dtype), kiln_dtype_name(acc), ndim, layout,
                  (long long)o, (unsigned long long)g, (unsigned long long)want);
      }
    }
    free(ref);
    free(bits);
    free(got);
  }
  kiln_array_release(r);
  kiln_array_release(a);
  kiln_ufunc_release(u);
  free(h);
}

/* ---- tests -------------------------------------------------------------- */

static const struct {
  int ndim;
  int64_t shape[4];
} shapes[] = {{1, {0}},        {1, {1}},          {1, {7}},          {1, {4099}},
              {1, {10007}},    {2, {3, 5}},       {2, {0, 4}},       {2, {13, 1}},
              {2, {37, 211}},  {2, {5003, 3}},    {2, {2, 8209}},    {3, {2, 3, 7}},
              {3, {5, 1, 11}}, {4, {2, 3, 5, 7}}, {4, {3, 0, 2, 2}}, {4, {1, 17, 2, 3}}};
#define NSHAPES ((int)(sizeof shapes / sizeof shapes[0]))

/* add over every subset of axes (and axis=None), every shape, 3 layouts;
 * maximum, minimum and multiply (wrapping) in one layout each (each a
 * kernel per kept/reduced dims: under KILN_TEST_SAMPLE, a sample of them,
 * a different one of the three for consecutive combinations) */
static void test_every_axis_combination(kiln_context *ctx) {
  unsigned long combination = 0;
  for (int s = 0; s < NSHAPES && harness_failures < 10; s++) {
    int ndim = shapes[s].ndim;
    for (int mask = 0; mask <= (1 << ndim); mask++) {
      kiln_reduce_options opt = {0};
      if (mask == 1 << ndim) {
        opt.all_axes = 1;
      } else {
        for (int d = 0; d < ndim; d++)
          if (mask >> d & 1) opt.axes[opt.naxes++] = (d % 2) ? d - ndim : d; /* some negative */
      }
      for (int layout = 0; layout < 3; layout++) {
        opt.keepdims = (mask + layout) % 2;
        check_reduce(ctx, OP_ADD, KILN_FLOAT32, KILN_FLOAT32, ndim, shapes[s].shape, &opt, layout,
                     0, 1);
      }
      /* the other built-ins, one layout each in turn */
      if (harness_case_variant(combination, 0, 3))
        check_reduce(ctx, OP_MAX, KILN_FLOAT64, KILN_FLOAT64, ndim, shapes[s].shape, &opt,
                     (mask + 1) % 4, -5, 5);
      if (harness_case_variant(combination, 1, 3))
        check_reduce(ctx, OP_MIN, KILN_INT16, KILN_INT16, ndim, shapes[s].shape, &opt, mask % 4,
                     -30000, 30000);
      if (harness_case_variant(combination, 2, 3))
        check_reduce(ctx, OP_MUL, KILN_INT32, KILN_INT64, ndim, shapes[s].shape, &opt,
                     (mask + 2) % 3, -3, 4);
      combination++;
    }
  }
}

/* NumPy's result dtypes and wrapping, every built-in, several dtypes */
static void test_dtypes(kiln_context *ctx) {
  static const struct {
    ref_op op;
    kiln_dtype in, acc;
    double lo, hi;
  } cases[] = {
      {OP_ADD, KILN_INT8, KILN_INT64, -128, 128},
      {OP_ADD, KILN_UINT16, KILN_UINT64, 0, 65536},
      {OP_ADD, KILN_BOOL, KILN_INT64, 0, 2},
      {OP_ADD, KILN_INT64, KILN_INT64, -4e18, 4e18},
      {OP_ADD, KILN_FLOAT64, KILN_FLOAT64, -1, 1},
      {OP_ADD, KILN_UINT64, KILN_UINT64, 0, 1.8e19},
      {OP_MUL, KILN_INT32, KILN_INT64, -1000, 1000},
      {OP_MUL, KILN_FLOAT64, KILN_FLOAT64, 0.5, 1.5},
      {OP_MUL, KILN_UINT8, KILN_UINT64, 0, 256},
      {OP_MAX, KILN_INT16, KILN_INT16, -30000, 30000},
      {OP_MIN, KILN_UINT32, KILN_UINT32, 0, 4e9},
      {OP_MAX, KILN_FLOAT32, KILN_FLOAT32, -5, 5},
      {OP_MIN, KILN_FLOAT64, KILN_FLOAT64, -5, 5},
      {OP_MAX, KILN_BOOL, KILN_BOOL, 0, 2},
      /* NumPy's logical reductions give bool for any input */
      {OP_LAND, KILN_FLOAT32, KILN_BOOL, -0.02, 1},
      {OP_LOR, KILN_INT16, KILN_BOOL, -2, 3},
      {OP_LXOR, KILN_FLOAT64, KILN_BOOL, -1, 1},
      {OP_LAND, KILN_BOOL, KILN_BOOL, 0, 2},
      {OP_BAND, KILN_UINT8, KILN_UINT8, 0, 256},
      {OP_BAND, KILN_BOOL, KILN_BOOL, 0, 2},
      {OP_BOR, KILN_INT32, KILN_INT32, -2e9, 2e9},
      {OP_BXOR, KILN_INT64, KILN_INT64, -9e18, 9e18},
      {OP_BXOR, KILN_UINT16, KILN_UINT16, 0, 65536},
  };
  static const int64_t shape[2] = {6, 1031};
  /* each case over all axes, the rows and the columns (three kernels):
   * under KILN_TEST_SAMPLE every case over one of them, in turn */
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    kiln_reduce_options all = kiln_reduce_all(), rows = kiln_reduce_axis(1),
                        cols = kiln_reduce_axis(0);
    if (harness_case_variant(c, 0, 3))
      check_reduce(ctx, cases[c].op, cases[c].in, cases[c].acc, 2, shape, &all, 0, cases[c].lo,
                   cases[c].hi);
    if (harness_case_variant(c, 1, 3))
      check_reduce(ctx, cases[c].op, cases[c].in, cases[c].acc, 2, shape, &rows, 2, cases[c].lo,
                   cases[c].hi);
    if (harness_case_variant(c, 2, 3))
      check_reduce(ctx, cases[c].op, cases[c].in, cases[c].acc, 2, shape, &cols, 1, cases[c].lo,
                   cases[c].hi);
  }
  /* dtype= makes the accumulator: int8 sums wrap in int8 as NumPy's */
  int8_t h[300];
  int64_t n = 300;
  for (int i = 0; i < 300; i++) h[i] = (int8_t)(100 + i % 7);
  kiln_ufunc *add = NULL;
  REQUIRE_OK(kiln_ufunc_builtin(ctx, "add", &add));
  kiln_reduce_options opt = kiln_reduce_all();
  opt.has_dtype = 1;
  opt.dtype = KILN_INT8;
  int8_t got = 0;
  int64_t scalar_shape[1] = {0};
  (void)scalar_shape;
  CHECK_OK(kiln_ufunc_reduce(add, kiln_operand_host(h, KILN_INT8, 1, &n, NULL),
                             kiln_operand_host_output(&got, KILN_INT8, 0, NULL, NULL), &opt, NULL));
  uint8_t want = 0;
  for (int i = 0; i < 300; i++) want = (uint8_t)(want + (uint8_t)h[i]);
  CHECK_MSG((uint8_t)got == want, "int8 sum wraps: %d, expected %d", got, (int8_t)want);
  kiln_ufunc_release(add);
}

/* NaN: maximum/minimum propagate it, add gives NaN */
static void test_nan(kiln_context *ctx) {
  int64_t n = 5000;
  float *h = malloc((size_t)n * sizeof *h);
  harness_fill_random(h, KILN_FLOAT32, n, -1, 1);
  h[4321] = NAN;
  kiln_array *a = NULL;
  REQUIRE_OK(kiln_array_from_host(ctx, KILN_FLOAT32, 1, &n, NULL, h, &a));
  const char *names[] = {"maximum", "minimum", "add"};
  for (int i = 0; i < 3; i++) {
    kiln_ufunc *u = NULL;
    CHECK_OK(kiln_ufunc_builtin(ctx, names[i], &u));
    float got = 0;
    CHECK_OK(kiln_ufunc_reduce(u, kiln_operand_array(a),
                               kiln_operand_host_output(&got, KILN_FLOAT32, 0, NULL, NULL), NULL,
                               NULL));
    CHECK_MSG(isnan(got), "%s with a NaN gave %g", names[i], got);
    kiln_ufunc_release(u);
  }
  kiln_array_release(a);
  free(h);
}

/* empty extents: the identity, or the error NumPy raises */
static void test_empty(kiln_context *ctx) {
  int64_t shape[2] = {3, 0};
  kiln_array *a = NULL;
  REQUIRE_OK(kiln_array_empty(ctx, KILN_INT32, 2, shape, &a));
  kiln_ufunc *add = NULL, *mul = NULL, *mx = NULL;
  REQUIRE_OK(kiln_ufunc_builtin(ctx, "add", &add));
  REQUIRE_OK(kiln_ufunc_builtin(ctx, "multiply", &mul));
  REQUIRE_OK(kiln_ufunc_builtin(ctx, "maximum", &mx));
  int64_t got[3] = {7, 7, 7}, three = 3;
  kiln_reduce_options rows = kiln_reduce_axis(1);
  CHECK_OK(kiln_ufunc_reduce(add, kiln_operand_array(a),
                             kiln_operand_host_output(got, KILN_INT64, 1, &three, NULL), &rows,
                             NULL));
  CHECK(got[0] == 0 && got[1] == 0 && got[2] == 0);
  CHECK_OK(kiln_ufunc_reduce(mul, kiln_operand_array(a),
                             kiln_operand_host_output(got, KILN_INT64, 1, &three, NULL), &rows,
                             NULL));
  CHECK(got[0] == 1 && got[1] == 1 && got[2] == 1);
  kiln_array *r = NULL;
  CHECK_STATUS(kiln_ufunc_reduce(mx, kiln_operand_array(a), kiln_operand_new(&r), &rows, NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("zero-size array to reduction operation maximum which has no identity");
  CHECK(r == NULL);
  /* reducing the non-empty axis of a (3, 0) array gives an empty result */
  kiln_reduce_options cols = kiln_reduce_axis(0);
  CHECK_OK(kiln_ufunc_reduce(mx, kiln_operand_array(a), kiln_operand_new(&r), &cols, NULL));
  CHECK(r && kiln_array_size(r) == 0);
  /* the logical and bitwise identities, NumPy's: and is true / all bits
   * set (of the input dtype: 0xff for uint8), or and xor false / 0 */
  static const struct {
    const char *name;
    kiln_dtype in, out;
    uint64_t want;
  } ids[] = {{"logical_and", KILN_FLOAT32, KILN_BOOL, 1}, {"logical_or", KILN_INT32, KILN_BOOL, 0},
             {"logical_xor", KILN_UINT8, KILN_BOOL, 0},   {"bitwise_and", KILN_UINT8, KILN_UINT8, 0xff},
             {"bitwise_and", KILN_INT16, KILN_INT16, 0xffff}, {"bitwise_and", KILN_BOOL, KILN_BOOL, 1},
             {"bitwise_or", KILN_INT64, KILN_INT64, 0},  {"bitwise_xor", KILN_UINT32, KILN_UINT32, 0}};
  for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
    kiln_array *e = NULL;
    kiln_ufunc *u = NULL;
    CHECK_OK(kiln_array_empty(ctx, ids[i].in, 2, shape, &e));
    CHECK_OK(kiln_ufunc_builtin(ctx, ids[i].name, &u));
    uint64_t out[3] = {0x5a5a5a5a5a5a5a5aull, 0x5a5a5a5a5a5a5a5aull, 0x5a5a5a5a5a5a5a5aull};
    if (e && u)
      CHECK_OK(kiln_ufunc_reduce(u, kiln_operand_array(e),
                                 kiln_operand_host_output(out, ids[i].out, 1, &three, NULL), &rows,
                                 NULL));
    size_t size = kiln_dtype_size(ids[i].out);
    uint64_t mask = size == 8 ? ~(uint64_t)0 : ((uint64_t)1 << (8 * size)) - 1;
    for (int k = 0; k < 3; k++) {
      uint64_t v = 0;
      memcpy(&v, (char *)out + k * size, size);
      CHECK_MSG(v == (ids[i].want & mask), "%s of an empty %s: %#llx, expected %#llx",
                ids[i].name, kiln_dtype_name(ids[i].in), (unsigned long long)v,
                (unsigned long long)ids[i].want);
    }
    kiln_ufunc_release(u);
    kiln_array_release(e);
  }
  kiln_array_release(r);
  kiln_array_release(a);
  kiln_ufunc_release(add);
  kiln_ufunc_release(mul);
  kiln_ufunc_release(mx);
}

/* given outputs (strided device view, host), keepdims, a user ufunc */
static void test_outputs_and_user_ufunc(kiln_context *ctx) {
  int64_t shape[2] = {64, 33}, n = 64 * 33;
  double *h = malloc((size_t)n * 8);
  harness_fill_random(h, KILN_FLOAT64, n, -3, 3);
  kiln_array *a = NULL, *big = NULL, *col = NULL;
  REQUIRE_OK(kiln_array_from_host(ctx, KILN_FLOAT64, 2, shape, NULL, h, &a));
  int64_t bshape[2] = {64, 3};
  REQUIRE_OK(kiln_array_zeros(ctx, KILN_FLOAT64, 2, bshape, &big));
  REQUIRE_OK(kiln_array_index(big, 1, 2, &col)); /* a strided (64,) view */
  static const char *const sigs[] = {"float64(float64 x, float64 y)"};
  kiln_ufunc *u = NULL;
  REQUIRE_OK(kiln_ufunc_create(ctx, "absmax", 1, sigs, "return fmax(fabs(x), fabs(y));", NULL, &u));
  kiln_reduce_options rows = kiln_reduce_axis(-1);
  CHECK_STATUS(kiln_ufunc_reduce(u, kiln_operand_array(a), kiln_operand_array(col), &rows, NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("kiln_ufunc_declare_reducible");
  kiln_operand zero = kiln_operand_float(0);
  CHECK_OK(kiln_ufunc_declare_reducible(u, &zero));
  CHECK_OK(kiln_ufunc_reduce(u, kiln_operand_array(a), kiln_operand_array(col), &rows, NULL));
  double got[64 * 3];
  CHECK_OK(kiln_array_to_host(big, got, NULL));
  for (int i = 0; i < 64; i++) {
    double m = 0;
    for (int j = 0; j < 33; j++) m = fmax(m, fabs(h[i * 33 + j]));
    CHECK_MSG(got[i * 3 + 2] == m && got[i * 3] == 0, "row %d: %g, expected %g", i, got[i * 3 + 2],
              m);
  }
  /* a user ufunc with a named output, declared with no identity */
  static const char *const named[] = {"(float64 m)(float64 x, float64 y)"};
  kiln_ufunc *bigger = NULL;
  REQUIRE_OK(kiln_ufunc_create(ctx, "bigger", 1, named, "m = x > y ? x : y;", NULL, &bigger));
  CHECK_OK(kiln_ufunc_declare_reducible(bigger, NULL));
  double top = 0, want_top = h[0];
  for (int64_t i = 1; i < n; i++) want_top = h[i] > want_top ? h[i] : want_top;
  CHECK_OK(kiln_ufunc_reduce(bigger, kiln_operand_array(a),
                             kiln_operand_host_output(&top, KILN_FLOAT64, 0, NULL, NULL), NULL,
                             NULL));
  CHECK_MSG(top == want_top, "bigger.reduce: %g, expected %g", top, want_top);
  int64_t empty_shape[1] = {0};
  kiln_array *none = NULL;
  CHECK_STATUS(kiln_ufunc_reduce(bigger, kiln_operand_host(h, KILN_FLOAT64, 1, empty_shape, NULL),
                                 kiln_operand_new(&none), NULL, NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("zero-size array to reduction operation bigger which has no identity");
  /* declared again, now with an identity: the next calls see it (kiln
   * keeps a ufunc's built reductions between calls) */
  kiln_operand floor_value = kiln_operand_float(-7.5);
  CHECK_OK(kiln_ufunc_declare_reducible(bigger, &floor_value));
  double empty_max = 0;
  CHECK_OK(kiln_ufunc_reduce(bigger, kiln_operand_host(h, KILN_FLOAT64, 1, empty_shape, NULL),
                             kiln_operand_host_output(&empty_max, KILN_FLOAT64, 0, NULL, NULL),
                             NULL, NULL));
  CHECK_MSG(empty_max == -7.5, "bigger.reduce of nothing after the identity -7.5: %g", empty_max);
  kiln_ufunc_release(bigger);
  /* keepdims into host memory of shape (1, 33), float32 output (same_kind) */
  kiln_ufunc *add = NULL;
  REQUIRE_OK(kiln_ufunc_builtin(ctx, "add", &add));
  kiln_reduce_options cols = kiln_reduce_axis(0);
  cols.keepdims = 1;
  float sums[33];
  int64_t kshape[2] = {1, 33};
  CHECK_OK(kiln_ufunc_reduce(add, kiln_operand_host(h, KILN_FLOAT64, 2, shape, NULL),
                             kiln_operand_host_output(sums, KILN_FLOAT32, 2, kshape, NULL), &cols,
                             NULL));
  for (int j = 0; j < 33; j++) {
    double s = 0;
    for (int i = 0; i < 64; i++) s += h[i * 33 + j];
    CHECK_CLOSE(sums[j], s, 1e-5, 1e-5);
  }
  /* on a stream */
  kiln_stream *stream = NULL;
  REQUIRE_OK(kiln_stream_create(ctx, &stream));
  kiln_array *r = NULL;
  CHECK_OK(kiln_ufunc_reduce(add, kiln_operand_array(a), kiln_operand_new(&r), NULL, stream));
  CHECK_OK(kiln_stream_synchronize(ctx, stream));
  double total = 0, want = 0;
  if (r) CHECK_OK(kiln_array_to_host(r, &total, NULL));
  for (int64_t i = 0; i < n; i++) want += h[i];
  CHECK_CLOSE(total, want, 1e-12, 1e-12);
  kiln_array_release(r);
  kiln_stream_release(stream);
  kiln_ufunc_release(add);
  kiln_ufunc_release(u);
  kiln_array_release(col);
  kiln_array_release(big);
  kiln_array_release(a);
  free(h);
}

/* custom map/reduce/post: sqrt(sum(x * y)) with y broadcast along rows */
static void test_custom(kiln_context *ctx) {
  kiln_reduction_desc desc = {.name = "weighted_norm",
                              .signature = "float64(float32 x, float64 w)",
                              .accumulator = KILN_FLOAT64,
                              .map_expr = "(double)x * x * w",
                              .reduce_expr = "a + b",
                              .post_expr = "sqrt(a)",
                              .identity = "0"};
  kiln_reduction *red = NULL;
  REQUIRE_OK(kiln_reduction_create(ctx, &desc, &red));
  int64_t shape[2] = {17, 4099}, n = 17 * 4099, wn = 4099;
  float *x = malloc((size_t)n * 4);
  double *w = malloc((size_t)wn * 8);
  harness_fill_random(x, KILN_FLOAT32, n, -2, 2);
  harness_fill_random(w, KILN_FLOAT64, wn, 0, 1);
  kiln_array *xa = make_view(ctx, x, KILN_FLOAT32, 2, shape, 1);
  kiln_operand in[2] = {kiln_operand_array(xa), kiln_operand_host(w, KILN_FLOAT64, 1, &wn, NULL)};
  for (int axis = 0; axis < 3; axis++) {
    kiln_reduce_options opt = axis < 2 ? kiln_reduce_axis(axis) : kiln_reduce_all();
    kiln_array *r = NULL;
    CHECK_OK(kiln_reduction_call(red, 2, in, kiln_operand_new(&r), &opt, NULL));
    if (!r) continue;
    int64_t nout = kiln_array_size(r);
    double *got = malloc((size_t)nout * 8);
    CHECK_OK(kiln_array_to_host(r, got, NULL));
    for (int64_t o = 0; o < nout && harness_failures < 10; o++) {
      double s = 0;
      for (int64_t i = 0; i < 17; i++)
        for (int64_t j = 0; j < 4099; j++) {
          if ((axis == 0 && j != o) || (axis == 1 && i != o)) continue;
          s += (double)x[i * 4099 + j] * x[i * 4099 + j] * w[j];
        }
      CHECK_CLOSE(got[o], sqrt(s), 1e-12, 0);
    }
    free(got);
    kiln_array_release(r);
  }
  /* empty: the identity through the post-map; a scalar input broadcasts */
  int64_t zero = 0;
  float none[1];
  kiln_operand ein[2] = {kiln_operand_host(none, KILN_FLOAT32, 1, &zero, NULL),
                         kiln_operand_float(2.0)};
  double got = 5;
  CHECK_OK(kiln_reduction_call(
      red, 2, ein, kiln_operand_host_output(&got, KILN_FLOAT64, 0, NULL, NULL), NULL, NULL));
  CHECK(got == 0);
  /* bad input: count, dtype */
  kiln_array *r = NULL;
  CHECK_STATUS(kiln_reduction_call(red, 1, in, kiln_operand_new(&r), NULL, NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("takes 2 inputs, 1 given");
  kiln_operand bad[2] = {kiln_operand_host(w, KILN_FLOAT64, 1, &wn, NULL), in[1]};
  CHECK_STATUS(kiln_reduction_call(red, 2, bad, kiln_operand_new(&r), NULL, NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("does not cast safely to float32");
  kiln_reduction *counting = NULL;
  kiln_reduction_desc cdesc = {.name = "count_big", .signature = "int64(int32 x)",
                               .accumulator = KILN_INT64, .map_expr = "x > 5 ? 1 : 0",
                               .reduce_expr = "a + b", .identity = "0"};
  REQUIRE_OK(kiln_reduction_create(ctx, &cdesc, &counting));
  kiln_operand fin[1] = {kiln_operand_float(1e30)};
  CHECK_STATUS(kiln_reduction_call(counting, 1, fin, kiln_operand_new(&r), NULL, NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("float scalar, which does not cast safely to int32");
  fin[0] = kiln_operand_int(3000000000);
  CHECK_STATUS(kiln_reduction_call(counting, 1, fin, kiln_operand_new(&r), NULL, NULL),
               KILN_ERROR_OUT_OF_RANGE);
  CHECK_ERROR_CONTAINS("out of range for int32");
  int64_t got_count = -1;
  fin[0] = kiln_operand_int(7);
  CHECK_OK(kiln_reduction_call(counting, 1, fin,
                               kiln_operand_host_output(&got_count, KILN_INT64, 0, NULL, NULL),
                               NULL, NULL));
  CHECK(got_count == 1);
  kiln_reduction_release(counting);
  kiln_array_release(xa);
  kiln_reduction_release(red);
  free(x);
  free(w);
}

/* a custom reduction with an integer index map: sum of kiln_i */
static void test_custom_index(kiln_context *ctx) {
  kiln_reduction_desc desc = {.name = "index_sum",
                              .signature = "int64(uint8 x)",
                              .accumulator = KILN_INT64,
                              .map_expr = "kiln_i + 0 * x",
                              .reduce_expr = "a + b"};
  kiln_reduction *red = NULL;
  REQUIRE_OK(kiln_reduction_create(ctx, &desc, &red));
  int64_t n = 100003;
  kiln_array *a = NULL;
  REQUIRE_OK(kiln_array_zeros(ctx, KILN_UINT8, 1, &n, &a));
  kiln_operand in[1] = {kiln_operand_array(a)};
  int64_t got = 0;
  CHECK_OK(kiln_reduction_call(
      red, 1, in, kiln_operand_host_output(&got, KILN_INT64, 0, NULL, NULL), NULL, NULL));
  CHECK(got == n * (n - 1) / 2);
  /* empty without identity */
  int64_t zero = 0;
  kiln_operand ein[1] = {kiln_operand_host(&got, KILN_UINT8, 1, &zero, NULL)};
  kiln_array *r = NULL;
  CHECK_STATUS(kiln_reduction_call(red, 1, ein, kiln_operand_new(&r), NULL, NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("no identity");
  kiln_array_release(a);
  kiln_reduction_release(red);
}

/* argmax/argmin: ties give the first index, the first NaN wins */
static void test_arg(kiln_context *ctx) {
  int64_t shape[2] = {9, 5003}, n = 9 * 5003;
  float *h = malloc((size_t)n * 4);
  for (int64_t i = 0; i < n; i++) h[i] = (float)(harness_rand_u64() % 50); /* many ties */
  h[3 * 5003 + 4000] = NAN;
  h[3 * 5003 + 4500] = NAN;
  h[7 * 5003 + 10] = 1000;
  h[7 * 5003 + 4999] = 1000;
  for (int layout = 0; layout < 2; layout++) {
    kiln_array *a = make_view(ctx, h, KILN_FLOAT32, 2, shape, layout == 0 ? 0 : 3);
    for (int sign = -1; sign <= 1; sign += 2) {
      for (int axis = -1; axis < 2; axis++) {
        kiln_reduce_options opt = axis < 0 ? kiln_reduce_all() : kiln_reduce_axis(axis);
        kiln_array *r = NULL;
        kiln_status s =
            sign > 0 ? kiln_argmax(ctx, kiln_operand_array(a), kiln_operand_new(&r), &opt, NULL)
                     : kiln_argmin(ctx, kiln_operand_array(a), kiln_operand_new(&r), &opt, NULL);
        CHECK_OK(s);
        if (!r) continue;
        CHECK(kiln_array_dtype(r) == KILN_INT64);
        int64_t nout = kiln_array_size(r), *got = malloc((size_t)nout * 8);
        CHECK_OK(kiln_array_to_host(r, got, NULL));
        for (int64_t o = 0; o < nout; o++) {
          int64_t count = axis < 0 ? n : shape[axis], best = -1;
          for (int64_t k = 0; k < count; k++) {
            int64_t i = axis < 0 ? k : axis == 0 ? k * 5003 + o : o * 5003 + k;
            int64_t bi = best < 0    ? 0
                         : axis < 0  ? best
                         : axis == 0 ? best * 5003 + o
                                     : o * 5003 + best;
            if (best < 0) {
              best = k;
              continue;
            }
            if (isnan(h[bi])) break;
            if (isnan(h[i]) || (sign > 0 ? h[i] > h[bi] : h[i] < h[bi])) best = k;
          }
          CHECK_MSG(got[o] == best, "arg%s axis %d out %lld: %lld, expected %lld",
                    sign > 0 ? "max" : "min", axis, (long long)o, (long long)got[o],
                    (long long)best);
        }
        free(got);
        kiln_array_release(r);
      }
    }
    kiln_array_release(a);
  }
  int64_t zero = 0;
  kiln_array *r = NULL;
  CHECK_STATUS(kiln_argmax(ctx, kiln_operand_host(h, KILN_FLOAT32, 1, &zero, NULL),
                           kiln_operand_new(&r), NULL, NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("attempt to get argmax of an empty sequence");
  kiln_reduce_options two = {.naxes = 2, .axes = {0, 1}};
  CHECK_STATUS(kiln_argmin(ctx, kiln_operand_host(h, KILN_FLOAT32, 2, shape, NULL),
                           kiln_operand_new(&r), &two, NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  free(h);
}

static void test_bad_input(kiln_context *ctx) {
  int64_t shape[3] = {2, 3, 4};
  kiln_array *a = NULL, *r = NULL;
  REQUIRE_OK(kiln_array_zeros(ctx, KILN_FLOAT64, 3, shape, &a));
  kiln_ufunc *add = NULL, *sq = NULL;
  REQUIRE_OK(kiln_ufunc_builtin(ctx, "add", &add));
  REQUIRE_OK(kiln_ufunc_builtin(ctx, "sqrt", &sq));
  kiln_reduce_options opt = kiln_reduce_axis(3);
  CHECK_STATUS(kiln_ufunc_reduce(add, kiln_operand_array(a), kiln_operand_new(&r), &opt, NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("axis 3 is out of bounds for array of dimension 3");
  opt = (kiln_reduce_options){.naxes = 2, .axes = {1, -2}};
  CHECK_STATUS(kiln_ufunc_reduce(add, kiln_operand_array(a), kiln_operand_new(&r), &opt, NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("duplicate value in 'axis'");
  opt = kiln_reduce_all();
  opt.has_dtype = 1;
  opt.dtype = KILN_INT32;
  CHECK_STATUS(kiln_ufunc_reduce(add, kiln_operand_array(a), kiln_operand_new(&r), &opt, NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("cannot cast the input from float64 to dtype int32");
  CHECK_STATUS(kiln_ufunc_reduce(sq, kiln_operand_array(a), kiln_operand_new(&r), NULL, NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("reduce only supported for binary functions");
  int32_t small[3];
  int64_t three = 3;
  CHECK_STATUS(
      kiln_ufunc_reduce(add, kiln_operand_array(a),
                        kiln_operand_host_output(small, KILN_INT32, 1, &three, NULL), NULL, NULL),
      KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("the output has shape (3,), the result has ()");
  int64_t s2[2] = {2, 3};
  CHECK_STATUS(kiln_ufunc_reduce(add, kiln_operand_array(a),
                                 kiln_operand_host_output(small, KILN_INT32, 2, s2, NULL),
                                 &(kiln_reduce_options){.naxes = 1, .axes = {2}}, NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("same_kind");
  CHECK_STATUS(kiln_ufunc_reduce(add, kiln_operand_float(1.0), kiln_operand_new(&r), NULL, NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_ufunc_reduce(NULL, kiln_operand_array(a), kiln_operand_new(&r), NULL, NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  opt = kiln_reduce_all();
  opt.work_group_size = 48;
  CHECK_STATUS(kiln_ufunc_reduce(add, kiln_operand_array(a), kiln_operand_new(&r), &opt, NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK(r == NULL);
  kiln_reduction *red = NULL;
  kiln_reduction_desc desc = {.name = "bad name",
                              .signature = "float32(float32 x)",
                              .accumulator = KILN_FLOAT32,
                              .map_expr = "x",
                              .reduce_expr = "a+b"};
  CHECK_STATUS(kiln_reduction_create(ctx, &desc, &red), KILN_ERROR_INVALID_ARGUMENT);
  desc.name = "ok";
  desc.signature = "float32(float32 x";
  CHECK_STATUS(kiln_reduction_create(ctx, &desc, &red), KILN_ERROR_INVALID_ARGUMENT);
  desc.signature = "float32(float32 x)";
  desc.reduce_expr = "a +* b";
  REQUIRE_OK(kiln_reduction_create(ctx, &desc, &red));
  float one = 1;
  int64_t n1 = 1;
  kiln_operand in[1] = {kiln_operand_host(&one, KILN_FLOAT32, 1, &n1, NULL)};
  CHECK_STATUS(kiln_reduction_call(red, 1, in, kiln_operand_new(&r), NULL, NULL),
               KILN_ERROR_COMPILE);
  CHECK_ERROR_CONTAINS("reduction 'ok'");
  kiln_reduction_release(red);
  kiln_ufunc_release(add);
  kiln_ufunc_release(sq);
  kiln_array_release(a);
}

/* ---- scans and compaction ------------------------------------------------- */

/* cumsum / ufunc.accumulate element by element against host prefixes */
static void test_scan(kiln_context *ctx) {
  kiln_ufunc *add = NULL, *mx = NULL, *mul = NULL;
  REQUIRE_OK(kiln_ufunc_builtin(ctx, "add", &add));
  REQUIRE_OK(kiln_ufunc_builtin(ctx, "maximum", &mx));
  REQUIRE_OK(kiln_ufunc_builtin(ctx, "multiply", &mul));
  /* float32, flattened (NULL options) from a strided view, several chunks */
  int64_t shape[2] = {3, 5003}, n = 3 * 5003;
  float *x = malloc((size_t)n * 4);
  harness_fill_random(x, KILN_FLOAT32, n, 0, 1);
  kiln_array *a = make_view(ctx, x, KILN_FLOAT32, 2, shape, 3), *r = NULL;
  CHECK_OK(kiln_ufunc_scan(add, kiln_operand_array(a), kiln_operand_new(&r), NULL, NULL));
  if (r) {
    CHECK(kiln_array_ndim(r) == 1 && kiln_array_size(r) == n &&
          kiln_array_dtype(r) == KILN_FLOAT32);
    float *got = malloc((size_t)n * 4);
    CHECK_OK(kiln_array_to_host(r, got, NULL));
    double s = 0;
    for (int64_t i = 0; i < n && harness_failures < 10; i++) {
      s += x[i];
      CHECK_MSG(fabs(got[i] - s) <= 1e-5 * s + 1e-6, "cumsum[%lld] = %.9g, expected %.9g",
                (long long)i, got[i], s);
    }
    free(got);
  }
  kiln_array_release(r);
  kiln_array_release(a);
  free(x);
  /* int8 along each axis of a (37, 9001) array and its transpose: int64, exact */
  int64_t s2[2] = {37, 9001}, n2 = 37 * 9001;
  int8_t *b = malloc((size_t)n2);
  harness_fill_random(b, KILN_INT8, n2, -128, 128);
  for (int layout = 0; layout < 2; layout++) {
    kiln_array *ba = make_view(ctx, b, KILN_INT8, 2, s2, layout);
    for (int axis = -2; axis < 2; axis++) {
      for (int exclusive = 0; exclusive < 2; exclusive++) {
        kiln_scan_options opt = {.axis = axis, .exclusive = exclusive};
        int64_t *got = malloc((size_t)n2 * 8);
        CHECK_OK(kiln_ufunc_scan(add, kiln_operand_array(ba),
                                 kiln_operand_host_output(got, KILN_INT64, 2, s2, NULL), &opt,
                                 NULL));
        int ax = (axis + 2) % 2;
        for (int64_t i = 0; i < 37 && harness_failures < 10; i++)
          for (int64_t j = 0; j < 9001 && harness_failures < 10; j++) {
            int64_t want = 0;
            if (ax == 1)
              for (int64_t k = 0; k < j + !exclusive; k++) want += b[i * 9001 + k];
            else
              for (int64_t k = 0; k < i + !exclusive; k++) want += b[k * 9001 + j];
            CHECK_MSG(got[i * 9001 + j] == want,
                      "int8 cumsum layout %d axis %d excl %d at (%lld, %lld): %lld, expected "
                      "%lld",
                      layout, axis, exclusive, (long long)i, (long long)j,
                      (long long)got[i * 9001 + j], (long long)want);
            if (ax == 1 && j > 300 && j < 8700) j += 97; /* spot checks inside */
          }
        free(got);
      }
    }
    kiln_array_release(ba);
  }
  free(b);
  /* maximum.accumulate with a NaN: NaN from there on; cumprod of int32 wraps in int64 */
  int64_t n3 = 9000;
  double *d = malloc((size_t)n3 * 8);
  harness_fill_random(d, KILN_FLOAT64, n3, -1, 1);
  d[5000] = NAN;
  double *dm = malloc((size_t)n3 * 8);
  CHECK_OK(kiln_ufunc_scan(mx, kiln_operand_host(d, KILN_FLOAT64, 1, &n3, NULL),
                           kiln_operand_host_output(dm, KILN_FLOAT64, 1, &n3, NULL), NULL, NULL));
  double m = d[0];
  for (int64_t i = 0; i < n3 && harness_failures < 10; i++) {
    if (i > 0 && !isnan(m) && (isnan(d[i]) || d[i] > m)) m = d[i];
    CHECK_MSG((isnan(m) && isnan(dm[i])) || dm[i] == m,
              "maximum.accumulate[%lld] = %g, "
              "expected %g",
              (long long)i, dm[i], m);
  }
  /* bitwise_xor.accumulate of int32 (exclusive starts at 0) and
   * logical_and.accumulate of float64 (bool: true until the first zero) */
  {
    kiln_ufunc *bx = NULL, *la = NULL;
    CHECK_OK(kiln_ufunc_builtin(ctx, "bitwise_xor", &bx));
    CHECK_OK(kiln_ufunc_builtin(ctx, "logical_and", &la));
    int32_t *xi = malloc((size_t)n3 * 4), *xo = malloc((size_t)n3 * 4);
    uint8_t *lo = malloc((size_t)n3);
    harness_fill_random(xi, KILN_INT32, n3, -2e9, 2e9);
    d[5000] = 1;
    d[7777] = 0.0;
    kiln_scan_options excl = {.exclusive = 1};
    if (bx)
      CHECK_OK(kiln_ufunc_scan(bx, kiln_operand_host(xi, KILN_INT32, 1, &n3, NULL),
                               kiln_operand_host_output(xo, KILN_INT32, 1, &n3, NULL), &excl,
                               NULL));
    if (la)
      CHECK_OK(kiln_ufunc_scan(la, kiln_operand_host(d, KILN_FLOAT64, 1, &n3, NULL),
                               kiln_operand_host_output(lo, KILN_BOOL, 1, &n3, NULL), NULL, NULL));
    uint32_t acc = 0;
    int truth = 1;
    for (int64_t i = 0; i < n3 && harness_failures < 10; i++) {
      CHECK_MSG((uint32_t)xo[i] == acc, "bitwise_xor exclusive scan[%lld] = %#x, expected %#x",
                (long long)i, (unsigned)xo[i], (unsigned)acc);
      acc ^= (uint32_t)xi[i];
      truth = truth && d[i] != 0;
      CHECK_MSG(lo[i] == truth, "logical_and.accumulate[%lld] = %d, expected %d", (long long)i,
                lo[i], truth);
    }
    free(xi);
    free(xo);
    free(lo);
    kiln_ufunc_release(bx);
    kiln_ufunc_release(la);
  }
  int32_t *p = malloc((size_t)n3 * 4);
  harness_fill_random(p, KILN_INT32, n3, -5, 6);
  int64_t *pg = malloc((size_t)n3 * 8);
  CHECK_OK(kiln_ufunc_scan(mul, kiln_operand_host(p, KILN_INT32, 1, &n3, NULL),
                           kiln_operand_host_output(pg, KILN_INT64, 1, &n3, NULL), NULL, NULL));
  uint64_t prod = 1;
  for (int64_t i = 0; i < n3 && harness_failures < 10; i++) {
    prod *= (uint64_t)(int64_t)p[i];
    CHECK_MSG((uint64_t)pg[i] == prod, "cumprod[%lld]", (long long)i);
  }
  /* bad: exclusive without identity, axis out of range */
  kiln_scan_options excl = {.exclusive = 1, .flatten = 1};
  CHECK_STATUS(kiln_ufunc_scan(mx, kiln_operand_host(d, KILN_FLOAT64, 1, &n3, NULL),
                               kiln_operand_new(&r), &excl, NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("exclusive scan starts with the identity");
  kiln_scan_options bad_axis = {.axis = 1};
  CHECK_STATUS(kiln_ufunc_scan(add, kiln_operand_host(d, KILN_FLOAT64, 1, &n3, NULL),
                               kiln_operand_new(&r), &bad_axis, NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("axis 1 is out of bounds for array of dimension 1");
  free(d);
  free(dm);
  free(p);
  free(pg);
  kiln_ufunc_release(add);
  kiln_ufunc_release(mx);
  kiln_ufunc_release(mul);
}

/* a line longer than 4096 * 4096: three levels of chunk totals */
static void test_scan_long(kiln_context *ctx) {
  int64_t n = 16777259;
  int8_t *x = malloc((size_t)n);
  int64_t *got = malloc((size_t)n * 8);
  harness_fill_random(x, KILN_INT8, n, -128, 128);
  kiln_ufunc *add = NULL;
  REQUIRE_OK(kiln_ufunc_builtin(ctx, "add", &add));
  CHECK_OK(kiln_ufunc_scan(add, kiln_operand_host(x, KILN_INT8, 1, &n, NULL),
                           kiln_operand_host_output(got, KILN_INT64, 1, &n, NULL), NULL, NULL));
  int64_t s = 0;
  for (int64_t i = 0; i < n && harness_failures < 10; i++) {
    s += x[i];
    CHECK_MSG(got[i] == s, "cumsum[%lld] = %lld, expected %lld", (long long)i, (long long)got[i],
              (long long)s);
  }
  kiln_ufunc_release(add);
  free(x);
  free(got);
}

static void test_compact(kiln_context *ctx) {
  static const int64_t sizes[] = {0, 1, 2, 4099, 1000003};
  for (size_t t = 0; t < sizeof sizes / sizeof sizes[0]; t++) {
    int64_t n = sizes[t];
    double *x = malloc((size_t)n * 8 + 8);
    uint8_t *mask = malloc((size_t)n + 1);
    harness_fill_random(x, KILN_FLOAT64, n, -1, 1);
    for (int64_t i = 0; i < n; i++)
      mask[i] = harness_rand_u64() % 10 < 3 ? (uint8_t)(1 + i % 5) : 0;
    if (n == 1) mask[0] = 1;
    int64_t want = 0;
    for (int64_t i = 0; i < n; i++) want += mask[i] != 0;
    kiln_array *r = NULL;
    int64_t count = -1;
    CHECK_OK(kiln_compact(ctx, kiln_operand_host(x, KILN_FLOAT64, 1, &n, NULL),
                          kiln_operand_host(mask, KILN_UINT8, 1, &n, NULL), kiln_operand_new(&r),
                          &count, NULL));
    CHECK_MSG(count == want, "n %lld: count %lld, expected %lld", (long long)n, (long long)count,
              (long long)want);
    if (r) {
      CHECK(kiln_array_size(r) == count);
      double *got = malloc((size_t)count * 8 + 8);
      CHECK_OK(kiln_array_to_host(r, got, NULL));
      for (int64_t i = 0, k = 0; i < n && harness_failures < 10; i++)
        if (mask[i]) {
          CHECK_MSG(got[k] == x[i], "n %lld: element %lld", (long long)n, (long long)k);
          k++;
        }
      free(got);
    }
    kiln_array_release(r);
    free(x);
    free(mask);
  }
  /* 2-D transposed data and a float mask, into longer host memory; too short */
  int64_t shape[2] = {301, 17}, n = 301 * 17;
  int32_t *x = malloc((size_t)n * 4);
  float *mask = malloc((size_t)n * 4);
  harness_fill_random(x, KILN_INT32, n, -1000, 1000);
  harness_fill_random(mask, KILN_FLOAT32, n, -1, 1);
  for (int64_t i = 0; i < n; i++) mask[i] = mask[i] > 0.4f ? mask[i] : 0;
  kiln_array *xa = make_view(ctx, x, KILN_INT32, 2, shape, 1);
  kiln_array *ma = make_view(ctx, mask, KILN_FLOAT32, 2, shape, 2);
  int64_t room = n, count = 0;
  int32_t *got = malloc((size_t)n * 4);
  for (int64_t i = 0; i < n; i++) got[i] = -7777;
  CHECK_OK(kiln_compact(ctx, kiln_operand_array(xa), kiln_operand_array(ma),
                        kiln_operand_host_output(got, KILN_INT32, 1, &room, NULL), &count, NULL));
  int64_t k = 0;
  for (int64_t i = 0; i < n; i++)
    if (mask[i] != 0) {
      CHECK_MSG(got[k] == x[i], "2-D element %lld", (long long)k);
      k++;
    }
  CHECK(count == k && got[k] == -7777);
  int64_t small = k - 1;
  CHECK_STATUS(
      kiln_compact(ctx, kiln_operand_array(xa), kiln_operand_array(ma),
                   kiln_operand_host_output(got, KILN_INT32, 1, &small, NULL), &count, NULL),
      KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("needs at least");
  int64_t other[1] = {n - 1};
  CHECK_STATUS(
      kiln_compact(ctx, kiln_operand_array(xa),
                   kiln_operand_host(mask, KILN_FLOAT32, 1, other, NULL),
                   kiln_operand_host_output(got, KILN_INT32, 1, &room, NULL), &count, NULL),
      KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("they must be equal");
  kiln_array_release(xa);
  kiln_array_release(ma);
  free(x);
  free(mask);
  free(got);
}

/* above 2^31 elements (GPU devices with the memory; skipped on CPU
 * devices, where it would take minutes of a shared CI machine) */
static void test_large(kiln_context *ctx) {
  kiln_device_info info;
  REQUIRE_OK(kiln_context_device_info(ctx, &info));
  int64_t n = ((int64_t)1 << 31) + 11, at = ((int64_t)1 << 31) + 5;
  if (info.type == KILN_DEVICE_CPU || info.global_memory < (uint64_t)(3 * n) ||
      info.max_buffer_size < (uint64_t)n) {
    harness_skip("%lld int8 elements need a GPU device with %lld bytes in one buffer", (long long)n,
                 (long long)n);
    return;
  }
  int8_t one = 1, two = 2;
  kiln_array *a = NULL, *elem = NULL, *src = NULL;
  REQUIRE_OK(kiln_array_full(ctx, KILN_INT8, 1, &n, &one, &a));
  REQUIRE_OK(kiln_array_index(a, 0, at, &elem));
  REQUIRE_OK(kiln_array_full(ctx, KILN_INT8, 0, NULL, &two, &src));
  REQUIRE_OK(kiln_array_copy_into(elem, src));
  kiln_ufunc *add = NULL;
  REQUIRE_OK(kiln_ufunc_builtin(ctx, "add", &add));
  int64_t sum = 0, arg = 0;
  CHECK_OK(kiln_ufunc_reduce(add, kiln_operand_array(a),
                             kiln_operand_host_output(&sum, KILN_INT64, 0, NULL, NULL), NULL,
                             NULL));
  CHECK_MSG(sum == n + 1, "sum of %lld: %lld", (long long)n, (long long)sum);
  CHECK_OK(kiln_argmax(ctx, kiln_operand_array(a),
                       kiln_operand_host_output(&arg, KILN_INT64, 0, NULL, NULL), NULL, NULL));
  CHECK_MSG(arg == at, "argmax %lld, expected %lld", (long long)arg, (long long)at);
  kiln_array_release(src);
  kiln_array_release(elem);
  kiln_array_release(a);
  kiln_ufunc_release(add);
}

/* ---- reproducibility ------------------------------------------------------ */

/* kiln's scan order on the host, float32 add, one line (docs/scan.md):
 * tiles of 8192 (a 4-byte accumulator), lanes of 32 folded left, a
 * Kogge-Stone tree over the 256 lane totals, the tile prefixes folded left
 * over the tile aggregates. */
static void host_tree_scan(const float *x, int64_t n, float *out) {
  float prefix = 0;
  for (int64_t k0 = 0; k0 < n; k0 += 8192) {
    int len = n - k0 < 8192 ? (int)(n - k0) : 8192, nl = (len + 31) / 32;
    float lanes[2][256];
    for (int l = 0; l < nl; l++) {
      lanes[0][l] = x[k0 + l * 32];
      for (int i = 1; i < 32 && l * 32 + i < len; i++) lanes[0][l] += x[k0 + l * 32 + i];
    }
    int src = 0;
    for (int d = 1; d < nl; d *= 2, src ^= 1)
      for (int l = 0; l < nl; l++)
        lanes[src ^ 1][l] = l >= d ? lanes[src][l - d] + lanes[src][l] : lanes[src][l];
    for (int l = 0; l < nl; l++) {
      int has = k0 > 0;
      float base = prefix, run = 0;
      if (l > 0) {
        base = has ? base + lanes[src][l - 1] : lanes[src][l - 1];
        has = 1;
      }
      for (int i = 0; i < 32 && l * 32 + i < len; i++) {
        run = i ? run + x[k0 + l * 32 + i] : x[k0 + l * 32 + i];
        out[k0 + l * 32 + i] = has ? base + run : run;
      }
    }
    prefix = k0 > 0 ? prefix + lanes[src][nl - 1] : lanes[src][nl - 1];
  }
}

static void test_reproducible_scan(kiln_context *ctx) {
  int64_t n = 1000003;
  float *x = malloc((size_t)n * 4), *want = malloc((size_t)n * 4), *got = malloc((size_t)n * 4);
  harness_fill_random(x, KILN_FLOAT32, n, -1, 1);
  host_tree_scan(x, n, want);
  kiln_ufunc *add = NULL;
  REQUIRE_OK(kiln_ufunc_builtin(ctx, "add", &add));
  CHECK_OK(kiln_ufunc_scan(add, kiln_operand_host(x, KILN_FLOAT32, 1, &n, NULL),
                           kiln_operand_host_output(got, KILN_FLOAT32, 1, &n, NULL), NULL, NULL));
  int64_t bad = 0;
  for (int64_t i = 0; i < n; i++) bad += memcmp(&got[i], &want[i], 4) != 0;
  CHECK_MSG(bad == 0, "%lld of %lld cumsum elements differ from kiln's order", (long long)bad,
            (long long)n);
  kiln_ufunc_release(add);
  free(x);
  free(want);
  free(got);
}

static void test_reproducible_work_group_sizes(kiln_context *ctx) {
  static const int64_t sizes[] = {1, 31, 33, 4096, 4097, 1000003, 16777259};
  kiln_ufunc *add = NULL;
  REQUIRE_OK(kiln_ufunc_builtin(ctx, "add", &add));
  for (size_t t = 0; t < sizeof sizes / sizeof sizes[0]; t++) {
    int64_t n = sizes[t];
    float *x = malloc((size_t)n * 4);
    harness_fill_random(x, KILN_FLOAT32, n, -1, 1);
    kiln_array *a = NULL;
    REQUIRE_OK(kiln_array_from_host(ctx, KILN_FLOAT32, 1, &n, NULL, x, &a));
    float want = host_tree_sum(x, n);
    static const int groups[] = {0, 32, 64, 96, 128, 256};
    for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++) {
      kiln_reduce_options opt = kiln_reduce_all();
      opt.work_group_size = groups[g];
      float got = 0;
      CHECK_OK(kiln_ufunc_reduce(add, kiln_operand_array(a),
                                 kiln_operand_host_output(&got, KILN_FLOAT32, 0, NULL, NULL), &opt,
                                 NULL));
      uint32_t gb, wb;
      memcpy(&gb, &got, 4);
      memcpy(&wb, &want, 4);
      CHECK_MSG(gb == wb, "n %lld group %d: %.9g (0x%08x), the tree gives %.9g (0x%08x)",
                (long long)n, groups[g], got, gb, want, wb);
    }
    kiln_array_release(a);
    free(x);
  }
  kiln_ufunc_release(add);
}

/* The same column sums through the row and column variants (a transposed
 * copy) and through every work-group size: identical bits. */
static void test_reproducible_layouts(kiln_context *ctx) {
  int64_t shape[2] = {20011, 7}, n = 20011 * 7;
  float *x = malloc((size_t)n * 4);
  harness_fill_random(x, KILN_FLOAT32, n, 0, 1);
  kiln_ufunc *add = NULL;
  REQUIRE_OK(kiln_ufunc_builtin(ctx, "add", &add));
  float first[7];
  for (int layout = 0; layout < 3; layout++) {
    kiln_array *a = make_view(ctx, x, KILN_FLOAT32, 2, shape, layout);
    for (int g = 32; g <= 256; g *= 2) {
      kiln_reduce_options opt = kiln_reduce_axis(0);
      opt.work_group_size = g;
      float got[7];
      int64_t seven = 7;
      CHECK_OK(kiln_ufunc_reduce(add, kiln_operand_array(a),
                                 kiln_operand_host_output(got, KILN_FLOAT32, 1, &seven, NULL), &opt,
                                 NULL));
      if (layout == 0 && g == 32) memcpy(first, got, sizeof first);
      CHECK_MSG(memcmp(first, got, sizeof got) == 0, "layout %d group %d: other bits", layout, g);
    }
    kiln_array_release(a);
  }
  /* many short rows: the serial variant on CPU devices, the row variant
   * with a forced work-group size, the column variant on a transposed
   * view: the same bits */
  int64_t rshape[2] = {3001, 1000}, rn = 3001 * 1000;
  float *y = malloc((size_t)rn * 4), *sums[3];
  harness_fill_random(y, KILN_FLOAT32, rn, 0, 1);
  for (int layout = 0; layout < 3; layout++) {
    sums[layout] = malloc(3001 * 4);
    kiln_array *a = make_view(ctx, y, KILN_FLOAT32, 2, rshape, layout == 2 ? 1 : 0);
    kiln_reduce_options opt = kiln_reduce_axis(1);
    opt.work_group_size = layout == 1 ? 64 : 0;
    int64_t rows = 3001;
    CHECK_OK(kiln_ufunc_reduce(add, kiln_operand_array(a),
                               kiln_operand_host_output(sums[layout], KILN_FLOAT32, 1, &rows, NULL),
                               &opt, NULL));
    kiln_array_release(a);
  }
  CHECK_MSG(memcmp(sums[0], sums[1], 3001 * 4) == 0, "row sums: default and forced group size");
  CHECK_MSG(memcmp(sums[0], sums[2], 3001 * 4) == 0, "row sums: contiguous and transposed");
  for (int i = 0; i < 3; i++) free(sums[i]);
  free(y);
  kiln_ufunc_release(add);
  free(x);
}

/* float32 sum of values in [0, 1) within 1e-6 of float64 (1e8 values on a
 * GPU; fewer on a CPU device, where 1e8 costs seconds of a shared CI) */
static void test_accuracy(kiln_context *ctx) {
  kiln_device_info info;
  REQUIRE_OK(kiln_context_device_info(ctx, &info));
  int64_t n = info.type == KILN_DEVICE_CPU ? 10000019 : 100000000;
  if (info.type == KILN_DEVICE_CPU)
    printf("accuracy: %lld values (1e8 runs on GPU devices only)\n", (long long)n);
  float *x = malloc((size_t)n * 4);
  if (!x) {
    harness_skip("no host memory for %lld floats", (long long)n);
    return;
  }
  harness_fill_random(x, KILN_FLOAT32, n, 0, 1);
  double want = 0;
  for (int64_t i = 0; i < n; i++) want += x[i];
  kiln_ufunc *add = NULL;
  REQUIRE_OK(kiln_ufunc_builtin(ctx, "add", &add));
  float got = 0;
  CHECK_OK(kiln_ufunc_reduce(add, kiln_operand_host(x, KILN_FLOAT32, 1, &n, NULL),
                             kiln_operand_host_output(&got, KILN_FLOAT32, 0, NULL, NULL), NULL,
                             NULL));
  printf("accuracy: float32 sum of %lld: relative error %.3g\n", (long long)n,
         fabs(got - want) / want);
  CHECK_CLOSE(got, want, 1e-6, 0);
  kiln_ufunc_release(add);
  free(x);
}

/* `out` of another dtype, as NumPy's same_kind casting into out: the
 * reduction runs in its own dtype and the result is cast into out
 * (np.add.reduce(int32, out=float64), np.add.reduce(float32, out=float64),
 * np.maximum.reduce, np.mean(int32, out=float32), np.argmax(out=int32));
 * unsafe kinds (float -> int, complex -> float, argmax's int64 -> float)
 * are refused with both dtypes named. */
static void test_out_casts(kiln_context *ctx) {
  kiln_device_info info;
  kiln_context_device_info(ctx, &info);
  if (!info.has_double) {
    harness_skip("no float64 on this device: the casts into float64 outputs are not run");
    return;
  }
  enum { R = 7, C = 11 };
  int64_t shape[2] = {R, C}, cols = C;
  int32_t xi[R * C];
  float xf[R * C];
  harness_fill_random(xi, KILN_INT32, R * C, -1000, 1000);
  harness_fill_random(xf, KILN_FLOAT32, R * C, -3, 5);
  for (int i = 0; i < R * C; i++) {
    if (xi[i] == 0) xi[i] = 7;
    if (xf[i] == 0) xf[i] = 0.5f;
  }
  kiln_ufunc *add = NULL, *maximum = NULL;
  REQUIRE_OK(kiln_ufunc_builtin(ctx, "add", &add));
  REQUIRE_OK(kiln_ufunc_builtin(ctx, "maximum", &maximum));
  kiln_reduce_options ax0 = kiln_reduce_axis(0);
  kiln_operand ini = kiln_operand_host(xi, KILN_INT32, 2, shape, NULL);
  kiln_operand inf32 = kiln_operand_host(xf, KILN_FLOAT32, 2, shape, NULL);
  /* int32 sums into a device float64 out (exact: small integers) */
  kiln_array *o64 = NULL, *f32 = NULL;
  REQUIRE_OK(kiln_array_empty(ctx, KILN_FLOAT64, 1, &cols, &o64));
  CHECK_OK(kiln_ufunc_reduce(add, ini, kiln_operand_array(o64), &ax0, NULL));
  double got[C];
  CHECK_OK(kiln_array_to_host(o64, got, NULL));
  for (int c = 0; c < C; c++) {
    double want = 0;
    for (int r = 0; r < R; r++) want += xi[r * C + c];
    CHECK_MSG(got[c] == want, "add.reduce(int32, out=float64)[%d]: %g, reference %g", c, got[c],
              want);
  }
  /* float32 sums computed in float32, then cast: the bits of the float32
   * result, widened (NumPy's too: the loop runs in the reduction's dtype) */
  CHECK_OK(kiln_ufunc_reduce(add, inf32, kiln_operand_new(&f32), &ax0, NULL));
  CHECK_OK(kiln_ufunc_reduce(add, inf32, kiln_operand_array(o64), &ax0, NULL));
  float narrow[C];
  if (f32) CHECK_OK(kiln_array_to_host(f32, narrow, NULL));
  CHECK_OK(kiln_array_to_host(o64, got, NULL));
  for (int c = 0; c < C && f32; c++) {
    double ref = 0;
    for (int r = 0; r < R; r++) ref += xf[r * C + c];
    CHECK_MSG(got[c] == (double)narrow[c] && fabs(got[c] - ref) <= 1e-5 * (fabs(ref) + 1),
              "add.reduce(float32, out=float64)[%d]: %.17g, float32 result %.9g, reference %g", c,
              got[c], narrow[c], ref);
  }
  kiln_array_release(f32);
  /* maximum into host float64 out (exact) */
  double hmax[C];
  CHECK_OK(kiln_ufunc_reduce(maximum, inf32, kiln_operand_host_output(hmax, KILN_FLOAT64, 1, &cols,
                                                                       NULL),
                             &ax0, NULL));
  for (int c = 0; c < C; c++) {
    float m = xf[c];
    for (int r = 1; r < R; r++) m = xf[r * C + c] > m ? xf[r * C + c] : m;
    CHECK_MSG(hmax[c] == (double)m, "maximum.reduce(float32, out=float64)[%d]: %g, reference %g",
              c, hmax[c], (double)m);
  }
  /* mean of int32 (float64) into float32: the float64 mean rounded once */
  float meanf = 0;
  double mean64 = 0;
  kiln_reduce_options all = kiln_reduce_all();
  CHECK_OK(kiln_mean(ctx, ini, kiln_operand_host_output(&mean64, KILN_FLOAT64, 0, NULL, NULL),
                     &all, NULL));
  CHECK_OK(kiln_mean(ctx, ini, kiln_operand_host_output(&meanf, KILN_FLOAT32, 0, NULL, NULL), &all,
                     NULL));
  CHECK_MSG(meanf == (float)mean64, "mean(int32, out=float32): %.9g, float64 mean %.17g", meanf,
            mean64);
  /* argmax into int32 (host) equals the int64 indices */
  int32_t a32[C];
  int64_t a64[C];
  CHECK_OK(kiln_argmax(ctx, inf32, kiln_operand_host_output(a32, KILN_INT32, 1, &cols, NULL), &ax0,
                       NULL));
  CHECK_OK(kiln_argmax(ctx, inf32, kiln_operand_host_output(a64, KILN_INT64, 1, &cols, NULL), &ax0,
                       NULL));
  for (int c = 0; c < C; c++) {
    int64_t best = 0;
    for (int r = 1; r < R; r++) best = xf[r * C + c] > xf[best * C + c] ? r : best;
    CHECK_MSG(a64[c] == best && a32[c] == best, "argmax[%d]: int64 %lld, int32 %d, reference %lld",
              c, (long long)a64[c], a32[c], (long long)best);
  }
  /* unsafe kinds refused, naming both dtypes */
  int32_t i32[C];
  CHECK_STATUS(kiln_ufunc_reduce(add, inf32,
                                 kiln_operand_host_output(i32, KILN_INT32, 1, &cols, NULL), &ax0,
                                 NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("the output is int32, but the result is float32");
  float c64[2 * R * C], f1[C];
  for (int i = 0; i < 2 * R * C; i++) c64[i] = (float)(i % 5 + 1);
  CHECK_STATUS(kiln_ufunc_reduce(add, kiln_operand_host(c64, KILN_COMPLEX64, 2, shape, NULL),
                                 kiln_operand_host_output(f1, KILN_FLOAT32, 1, &cols, NULL), &ax0,
                                 NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("the output is float32, but the result is complex64");
  CHECK_STATUS(kiln_argmax(ctx, inf32, kiln_operand_array(o64), &ax0, NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("argmax: the output is float64, but the indices are int64");
  int32_t mi = 0;
  CHECK_STATUS(kiln_mean(ctx, ini, kiln_operand_host_output(&mi, KILN_INT32, 0, NULL, NULL), &all,
                         NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("int32");
  kiln_array_release(o64);
  kiln_ufunc_release(maximum);
  kiln_ufunc_release(add);
}

static const harness_test tests[] = {
    {"conformance_every_axis_combination", test_every_axis_combination},
    {"conformance_dtypes", test_dtypes},
    {"conformance_nan", test_nan},
    {"conformance_empty", test_empty},
    {"conformance_outputs_and_user_ufunc", test_outputs_and_user_ufunc},
    {"conformance_custom", test_custom},
    {"conformance_custom_index", test_custom_index},
    {"conformance_arg", test_arg},
    {"conformance_bad_input", test_bad_input},
    {"conformance_scan", test_scan},
    {"conformance_scan_long", test_scan_long},
    {"conformance_compact", test_compact},
    {"conformance_large", test_large},
    {"reproducible_work_group_sizes", test_reproducible_work_group_sizes},
    {"reproducible_scan", test_reproducible_scan},
    {"reproducible_layouts", test_reproducible_layouts},
    {"conformance_accuracy", test_accuracy},
    {"conformance_out_casts", test_out_casts},
    {0}};

/* Built twice (tests/reduce.cmake): REDUCE_GROUP picks the tests run
 * when no filter is given. */
int main(int argc, char **argv) {
  char *group[3] = {argv[0], (char *)REDUCE_GROUP, NULL};
  if (argc > 1) return harness_main(argc, argv, tests);
  return harness_main(2, group, tests);
}
