/* Conformance: the vector variant of a reduction's first pass (a work-item
 * owning 4 lanes of a 4-byte or 2 of an 8-byte dtype and reading them as one
 * 16-byte load, core/codegen/reduce_tree.c) gives the bits of the scalar
 * variant and of kiln's tree emulated on the host: add, multiply, maximum,
 * argmax/argmin and a two-input custom map reduction, over rows whose
 * lengths are and are not multiples of the vector, of 32 and of the chunk
 * (K < 32, partial last chunks, a partial vector at a chunk's end), with
 * sentinels right after each row that must never be read. Both variants are
 * forced (kiln_rt_force_loads); forcing the vector where it cannot run
 * (misaligned or strided rows, 1- and 2-byte inputs, the column variant,
 * wrapped memory at an unaligned address) is an error, and kiln's own
 * choice falls back to the scalar loads there. */
#include "core/codegen/reduce_tree.h"
#include "reduce_testing.h"

enum { ADD, MULTIPLY, MAXIMUM, ARGMAX, ARGMIN, CUSTOM };

typedef struct vcase {
  const char *name;
  int kind;
  kiln_dtype in, out;
} vcase;

static const vcase cases[] = {
    {"add float32", ADD, KILN_FLOAT32, KILN_FLOAT32},
    {"add float64", ADD, KILN_FLOAT64, KILN_FLOAT64},
    {"add int32", ADD, KILN_INT32, KILN_INT64}, /* NumPy widens the sum */
    {"add uint64", ADD, KILN_UINT64, KILN_UINT64},
    {"multiply float32", MULTIPLY, KILN_FLOAT32, KILN_FLOAT32},
    {"maximum float64", MAXIMUM, KILN_FLOAT64, KILN_FLOAT64},
    {"argmax float32", ARGMAX, KILN_FLOAT32, KILN_INT64},
    {"argmax float64", ARGMAX, KILN_FLOAT64, KILN_INT64},
    {"argmin int64", ARGMIN, KILN_INT64, KILN_INT64},
    {"custom float32,int32", CUSTOM, KILN_FLOAT32, KILN_FLOAT32},
};

/* ---- host references --------------------------------------------------------- */

DEFINE_TREE(tree_f64, double)

/* The custom reduction's map, as the device computes it (float). */
static float custom_map(float x, int32_t y, int64_t i) { return (float)(i % 5) * x + (float)y; }

/* Row r of case vc (x: M x K of vc->in, y: the custom's int32 input) into
 * 8 bytes at out. */
static void reference(const vcase *vc, const void *x, const int32_t *y, int64_t K, int64_t r,
                      unsigned char out[8]) {
  memset(out, 0, 8);
  size_t size = kiln_dtype_size(vc->in);
  const char *row = (const char *)x + r * K * (int64_t)size;
  if (vc->kind == CUSTOM || (vc->kind <= MULTIPLY && vc->in == KILN_FLOAT32)) {
    float *m = malloc((size_t)K * sizeof *m), v;
    for (int64_t k = 0; k < K; k++) {
      memcpy(&m[k], row + k * 4, 4);
      if (vc->kind == CUSTOM) m[k] = custom_map(m[k], y[r * K + k], k);
    }
    v = vc->kind == ADD || vc->kind == CUSTOM ? host_tree_sum(m, K) : host_tree_f32(m, K, 1);
    memcpy(out, &v, 4);
    free(m);
  } else if (vc->kind == ADD && vc->in == KILN_FLOAT64) {
    double v = tree_f64((const double *)(const void *)row, K, 0);
    memcpy(out, &v, 8);
  } else if (vc->kind == ADD) { /* integers: exact, wrapping, any order */
    uint64_t s = 0;
    for (int64_t k = 0; k < K; k++) {
      int32_t i32;
      uint64_t u64;
      if (vc->in == KILN_INT32) memcpy(&i32, row + 4 * k, 4), s += (uint64_t)(int64_t)i32;
      else memcpy(&u64, row + 8 * k, 8), s += u64;
    }
    memcpy(out, &s, 8);
  } else if (vc->kind == MAXIMUM) { /* no NaN in the data */
    double v = harness_get(row, vc->in, 0);
    for (int64_t k = 1; k < K; k++)
      if (harness_get(row, vc->in, k) > v) v = harness_get(row, vc->in, k);
    memcpy(out, &v, 8);
  } else { /* arg: the first NaN, else the first of the best */
    int64_t best = 0;
    for (int64_t k = 1; k < K; k++) {
      double a = harness_get(row, vc->in, best), b = harness_get(row, vc->in, k);
      if (vc->in == KILN_INT64) {
        int64_t ia, ib;
        memcpy(&ia, row + 8 * best, 8);
        memcpy(&ib, row + 8 * k, 8);
        if (vc->kind == ARGMAX ? ib > ia : ib < ia) best = k;
      } else if (!isnan(a) && (isnan(b) || (vc->kind == ARGMAX ? b > a : b < a))) {
        best = k;
      }
    }
    memcpy(out, &best, 8);
  }
}

/* ---- data and calls ------------------------------------------------------------ */

/* Random elements of case vc: ties and a NaN for arg reductions, values
 * near 1 for products. */
static void fill(const vcase *vc, void *x, int64_t n) {
  if (vc->kind == MULTIPLY) {
    harness_fill_random(x, vc->in, n, 0.995, 1.005);
  } else if (vc->kind == ARGMAX || vc->kind == ARGMIN) {
    for (int64_t i = 0; i < n; i++) {
      int64_t v = (int64_t)(harness_rand_u64() % 40) - 20;
      if (vc->in == KILN_INT64) memcpy((char *)x + 8 * i, &v, 8);
      else if (vc->in == KILN_FLOAT64) ((double *)x)[i] = (double)v;
      else ((float *)x)[i] = (float)v;
    }
    if (vc->in == KILN_FLOAT32 && n > 50) ((float *)x)[n - 7] = NAN;
  } else {
    harness_fill_random(x, vc->in, n, vc->in == KILN_UINT64 ? 0 : -100, 100);
  }
}

/* What the device must never read: the vector of elements after each row. */
static void sentinel(const vcase *vc, void *at) {
  size_t size = kiln_dtype_size(vc->in);
  for (size_t k = 0; k < 16 / size; k++) {
    char *e = (char *)at + k * size;
    if (vc->in == KILN_FLOAT32) *(float *)(void *)e = NAN;
    else if (vc->in == KILN_FLOAT64) *(double *)(void *)e = NAN;
    else if (vc->in == KILN_INT32) *(int32_t *)(void *)e = INT32_MAX;
    else if (vc->in == KILN_UINT64 || vc->kind == ARGMAX) memset(e, 0x7f, 8);
    else *(int64_t *)(void *)e = INT64_MIN; /* argmin int64 */
  }
}

/* A device view of M x K host elements h of `dtype` (C order): the first K
 * columns of rows of K + 16 / itemsize elements whose tail is `tail`. */
static kiln_array *padded_rows(kiln_context *ctx, kiln_dtype dtype, const void *h, const void *tail,
                               int64_t M, int64_t K) {
  size_t size = kiln_dtype_size(dtype);
  int64_t pad = 16 / (int64_t)size, shape[2] = {M, K + pad};
  char *b = malloc((size_t)(M * (K + pad)) * size);
  for (int64_t r = 0; r < M; r++) {
    memcpy(b + (size_t)(r * (K + pad)) * size, (const char *)h + (size_t)(r * K) * size,
           (size_t)K * size);
    memcpy(b + (size_t)(r * (K + pad) + K) * size, tail, 16);
  }
  kiln_array *base = NULL, *view = NULL;
  kiln_status s = kiln_array_from_host(ctx, dtype, 2, shape, NULL, b, &base);
  free(b);
  if (s != KILN_OK) return NULL;
  kiln_slice slices[2] = {KILN_SLICE_ALL, {0, K, 1}};
  s = kiln_array_slice(base, 2, slices, &view);
  kiln_array_release(base);
  return s == KILN_OK ? view : NULL;
}

static kiln_reduction *make_custom(kiln_context *ctx) {
  return make_xy_sum(ctx, "vector_custom", "(float)(kiln_i % 5) * x + (float)y");
}

/* Reduces the rows (axis 1) of a (and b for the custom one) into M
 * elements of vc->out at out, with the given loads and work-group size. */
static kiln_status reduce_rows(kiln_context *ctx, const vcase *vc, kiln_reduction *custom,
                               const kiln_array *a, const kiln_array *b, int64_t M, void *out,
                               kiln_rt_loads loads, int group) {
  kiln_reduce_options opt = kiln_reduce_axis(1);
  opt.work_group_size = group;
  kiln_operand o = kiln_operand_host_output(out, vc->out, 1, &M, NULL);
  kiln_operand in = kiln_operand_array(a);
  kiln_rt_force_loads(loads);
  kiln_status s = KILN_OK;
  if (vc->kind == ARGMAX) {
    s = kiln_argmax(ctx, in, o, &opt, NULL);
  } else if (vc->kind == ARGMIN) {
    s = kiln_argmin(ctx, in, o, &opt, NULL);
  } else if (vc->kind == CUSTOM) {
    kiln_operand two[2] = {in, kiln_operand_array(b)};
    s = kiln_reduction_call(custom, 2, two, o, &opt, NULL);
  } else {
    kiln_ufunc *u = NULL;
    s = kiln_ufunc_builtin(ctx, vc->kind == ADD ? "add" : vc->kind == MULTIPLY ? "multiply" : "maximum",
                           &u);
    if (s == KILN_OK) s = kiln_ufunc_reduce(u, in, o, &opt, NULL);
    kiln_ufunc_release(u);
  }
  kiln_rt_force_loads(KILN_RT_LOADS_AUTO);
  return s;
}

/* ---- tests ----------------------------------------------------------------------- */

/* The same rows through forced vector and scalar loads and kiln's own
 * choice: the host tree's bits each time. The vector variant runs where
 * every row start is 16-byte aligned: one row, or rows of K * itemsize a
 * multiple of 16; elsewhere forcing it is an error. */
static void test_vector_bits(kiln_context *ctx) {
  static const int64_t shapes[][2] = {
      {1, 1},    {1, 2},    {1, 3},    {1, 5},    {1, 31},    {1, 32},   {1, 33},
      {1, 101},  {1, 4095}, {1, 4096}, {1, 4097}, {1, 4099},  {1, 8194}, {1, 12291},
      {1, 65539}, {9, 4},   {9, 8},    {5, 20},   {33, 100},  {7, 102},  {70, 28},
      {3, 4100}, {2, 8196}, {4, 4098}, {2, 12289}, {3, 228}, {2, 260}, {3, 1000}, {2, 2050}};
  static const int groups[] = {0, 32, 64, 96, 256};
  kiln_reduction *custom = make_custom(ctx);
  if (!custom) {
    CHECK_MSG(0, "the custom reduction: %s", kiln_last_error());
    return;
  }
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    const vcase *vc = &cases[c];
    size_t size = kiln_dtype_size(vc->in);
    for (size_t t = 0; t < sizeof shapes / sizeof shapes[0] && harness_failures < 20; t++) {
      int64_t M = shapes[t][0], K = shapes[t][1], n = M * K;
      int group = groups[(c + t) % 5];
      void *x = malloc((size_t)n * size);
      int32_t *y = malloc((size_t)n * 4);
      fill(vc, x, n);
      harness_fill_random(y, KILN_INT32, n, -50, 50);
      unsigned char tail[16], ytail[16];
      sentinel(vc, tail);
      for (int k = 0; k < 4; k++) memcpy(ytail + 4 * k, &(int32_t){INT32_MAX}, 4);
      kiln_array *a = padded_rows(ctx, vc->in, x, tail, M, K);
      kiln_array *b = padded_rows(ctx, KILN_INT32, y, ytail, M, K);
      CHECK(a && b);
      int fits = M == 1 || (K * (int64_t)size) % 16 == 0;
      unsigned char *want = calloc((size_t)M, 8), *got = calloc((size_t)M, 8);
      for (int64_t r = 0; r < M; r++) reference(vc, x, y, K, r, want + 8 * r);
      static const kiln_rt_loads modes[3] = {KILN_RT_LOADS_VECTOR, KILN_RT_LOADS_SCALAR,
                                             KILN_RT_LOADS_AUTO};
      static const char *const names[3] = {"vector", "scalar", "auto"};
      size_t osize = kiln_dtype_size(vc->out);
      for (int m = 0; m < 3 && a && b; m++) {
        memset(got, 0, (size_t)M * 8);
        kiln_status s = reduce_rows(ctx, vc, custom, a, b, M, got, modes[m], group);
        if (modes[m] == KILN_RT_LOADS_VECTOR && !fits) {
          CHECK_MSG(s == KILN_ERROR_INVALID_ARGUMENT, "%s %lldx%lld: forced vector loads gave %s",
                    vc->name, (long long)M, (long long)K, kiln_status_string(s));
          CHECK_ERROR_CONTAINS("not 16-byte aligned");
          continue;
        }
        CHECK_MSG(s == KILN_OK, "%s %lldx%lld %s loads: %s: %s", vc->name, (long long)M,
                  (long long)K, names[m], kiln_status_string(s), kiln_last_error());
        for (int64_t r = 0; r < M; r++)
          CHECK_MSG(memcmp(got + r * (int64_t)osize, want + 8 * r, osize) == 0,
                    "%s %lldx%lld row %lld, %s loads, group %d: %g, the tree gives %g", vc->name,
                    (long long)M, (long long)K, (long long)r, names[m], group,
                    harness_get(got, vc->out, r), harness_get(want + 8 * r, vc->out, 0));
      }
      free(want);
      free(got);
      kiln_array_release(a);
      kiln_array_release(b);
      free(x);
      free(y);
    }
  }
  kiln_reduction_release(custom);
}

/* Where the vector variant cannot run: forcing it is an error naming why,
 * and kiln's choice gives the host's bits with scalar loads. */
static void test_vector_eligibility(kiln_context *ctx) {
  kiln_ufunc *add = NULL;
  REQUIRE_OK(kiln_ufunc_builtin(ctx, "add", &add));
  int64_t n = 1001;
  float *x = malloc((size_t)n * 4);
  harness_fill_random(x, KILN_FLOAT32, n, -1, 1);
  kiln_array *base = NULL, *view = NULL;
  REQUIRE_OK(kiln_array_from_host(ctx, KILN_FLOAT32, 1, &n, NULL, x, &base));
  /* from element 1: 4 bytes past an aligned start */
  kiln_slice from1 = {1, KILN_NONE, 1};
  REQUIRE_OK(kiln_array_slice(base, 1, &from1, &view));
  kiln_reduce_options all = kiln_reduce_all();
  float got = 0, want = host_tree_sum(x + 1, n - 1);
  kiln_operand out = kiln_operand_host_output(&got, KILN_FLOAT32, 0, NULL, NULL);
  kiln_rt_force_loads(KILN_RT_LOADS_VECTOR);
  CHECK_STATUS(kiln_ufunc_reduce(add, kiln_operand_array(view), out, &all, NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("not 16-byte aligned");
  /* every other element: not contiguous */
  kiln_array *strided = NULL;
  kiln_slice step2 = {0, KILN_NONE, 2};
  REQUIRE_OK(kiln_array_slice(base, 1, &step2, &strided));
  CHECK_STATUS(kiln_ufunc_reduce(add, kiln_operand_array(strided), out, &all, NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("not contiguous");
  /* a column sum of a 2-D view: the column variant */
  int64_t shape2[2] = {7, 143};
  kiln_array *mat = NULL;
  REQUIRE_OK(kiln_array_from_host(ctx, KILN_FLOAT32, 2, shape2, NULL, x, &mat));
  kiln_reduce_options axis0 = kiln_reduce_axis(0);
  float cols[143];
  int64_t ncols = 143;
  CHECK_STATUS(kiln_ufunc_reduce(add, kiln_operand_array(mat),
                                 kiln_operand_host_output(cols, KILN_FLOAT32, 1, &ncols, NULL),
                                 &axis0, NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("column variant");
  /* 1- and 2-byte inputs stay scalar */
  static const kiln_dtype small[] = {KILN_FLOAT16, KILN_INT16, KILN_INT8, KILN_BOOL};
  for (size_t i = 0; i < sizeof small / sizeof small[0]; i++) {
    kiln_array *s = NULL;
    REQUIRE_OK(kiln_array_astype(base, small[i], &s));
    double sum = 0;
    CHECK_STATUS(kiln_ufunc_reduce(add, kiln_operand_array(s),
                                   kiln_operand_host_output(&sum, KILN_FLOAT64, 0, NULL, NULL),
                                   &all, NULL),
                 KILN_ERROR_INVALID_ARGUMENT);
    CHECK_ERROR_CONTAINS("1 or 2 bytes");
    kiln_array_release(s);
  }
  /* a scalar broadcast along the reduced dim: stride 0 */
  kiln_reduction *custom = make_custom(ctx);
  CHECK(custom != NULL);
  if (custom) {
    kiln_operand two[2] = {kiln_operand_array(base), kiln_operand_int(3)};
    CHECK_STATUS(kiln_reduction_call(custom, 2, two, out, &all, NULL),
                 KILN_ERROR_INVALID_ARGUMENT);
    CHECK_ERROR_CONTAINS("not contiguous");
  }
  kiln_rt_force_loads(KILN_RT_LOADS_AUTO);
  /* kiln's choice: scalar loads, the tree's bits */
  CHECK_OK(kiln_ufunc_reduce(add, kiln_operand_array(view), out, &all, NULL));
  CHECK_MSG(memcmp(&got, &want, 4) == 0, "misaligned view: %.9g, the tree gives %.9g", got, want);
  kiln_reduction_release(custom);
  kiln_array_release(mat);
  kiln_array_release(strided);
  kiln_array_release(view);
  kiln_array_release(base);
  kiln_ufunc_release(add);
  free(x);
}

/* Memory another library owns: vectors only from an address kiln can see
 * is 16-byte aligned (OpenCL memory objects: never). */
static void test_vector_wrapped(kiln_context *ctx) {
  int64_t n = 4103;
  float *x = malloc((size_t)n * 4);
  harness_fill_random(x, KILN_FLOAT32, n, -1, 1);
  kiln_array *a = NULL;
  REQUIRE_OK(kiln_array_from_host(ctx, KILN_FLOAT32, 1, &n, NULL, x, &a));
  kiln_native_memory mem;
  kiln_status s = kiln_array_native(a, &mem);
  if (s == KILN_ERROR_UNIMPLEMENTED) {
    harness_skip("the backend has no interop");
  } else {
    CHECK_OK(s);
    kiln_ufunc *add = NULL;
    REQUIRE_OK(kiln_ufunc_builtin(ctx, "add", &add));
    kiln_reduce_options all = kiln_reduce_all();
    for (int shift = 0; shift < 2 && s == KILN_OK; shift++) {
      /* the same buffer from its start, or from element 1 as the address */
      kiln_native_memory w = mem;
      int64_t len = n - shift;
      if (w.address) w.address += 4 * (uint64_t)shift, w.bytes -= 4 * (size_t)shift;
      else w.offset = 4 * shift;
      kiln_array *wrapped = NULL;
      CHECK_OK(kiln_array_wrap_native(ctx, &w, KILN_FLOAT32, 1, &len, NULL, NULL, NULL, &wrapped));
      if (!wrapped) break;
      float want = host_tree_sum(x + shift, len), got = 0;
      kiln_operand out = kiln_operand_host_output(&got, KILN_FLOAT32, 0, NULL, NULL);
      kiln_rt_force_loads(KILN_RT_LOADS_VECTOR);
      kiln_status v = kiln_ufunc_reduce(add, kiln_operand_array(wrapped), out, &all, NULL);
      kiln_rt_force_loads(KILN_RT_LOADS_AUTO);
      if (mem.address && shift == 0) {
        CHECK_OK(v);
        CHECK_MSG(memcmp(&got, &want, 4) == 0, "wrapped: %.9g, the tree gives %.9g", got, want);
      } else {
        CHECK_STATUS(v, KILN_ERROR_INVALID_ARGUMENT);
      }
      got = 0;
      CHECK_OK(kiln_ufunc_reduce(add, kiln_operand_array(wrapped), out, &all, NULL));
      CHECK_MSG(memcmp(&got, &want, 4) == 0, "wrapped from %d: %.9g, the tree gives %.9g", shift,
                got, want);
      kiln_array_release(wrapped);
    }
    kiln_ufunc_release(add);
  }
  kiln_array_release(a);
  free(x);
}

/* The generator: which specs get the vector variant, and what it reads. */
static void test_vector_source(kiln_context *ctx) {
  (void)ctx;
  kiln_rt_spec sum = float32_sum_spec();
  CHECK(kiln_rt_vector_width(&sum) == 4);
  kiln_strbuf b = {0};
  kiln_rt_pass whole = {1, 1, 0, 1, 4, 1, 1, 0};
  kiln_rt_source(&sum, &whole, "k", &b);
  CHECK(b.data && strstr(b.data, "kiln_vload(kiln_float32x4, p0 + b0 + kiln_e)"));
  CHECK(b.data && strstr(b.data, "vector lanes (4 a work-item)"));
  kiln_strbuf_free(&b);
  /* not a first row pass with one reduced dim, or the wrong width: scalar */
  static const int other[][5] = {
      {0, 1, 0, 1, 4}, {1, 1, 1, 1, 4}, {1, 1, KILN_RT_SERIAL, 1, 4}, {1, 1, 0, 2, 4},
      {1, 1, 0, 1, 2}};
  for (size_t i = 0; i < sizeof other / sizeof other[0]; i++) {
    kiln_strbuf s = {0};
    kiln_rt_pass pass = {other[i][0], other[i][1], other[i][2], 1, other[i][4], 1, other[i][3], 0};
    kiln_rt_source(&sum, &pass, "k", &s);
    CHECK_MSG(s.data && !strstr(s.data, "kiln_vload") && !strstr(s.data, "vector lanes"),
              "case %zu has vector loads", i);
    kiln_strbuf_free(&s);
  }
  kiln_rt_spec pair = sum;
  pair.ninputs = 2;
  pair.inputs[0] = KILN_FLOAT64;
  pair.inputs[1] = KILN_INT64;
  CHECK(kiln_rt_vector_width(&pair) == 2);
  kiln_strbuf p = {0};
  kiln_rt_pass rows = {1, 0, 0, 8, 2, 2, 1, 0};
  kiln_rt_source(&pair, &rows, "k", &p);
  CHECK(p.data && strstr(p.data, "kiln_vload(kiln_float64x2, p0 + b0 + kiln_e)"));
  CHECK(p.data && strstr(p.data, "kiln_vload(kiln_int64x2, p1 + b1 + kiln_e)"));
  kiln_strbuf_free(&p);
  pair.inputs[1] = KILN_INT32;
  CHECK(kiln_rt_vector_width(&pair) == 1);
  pair.ninputs = 1;
  pair.inputs[0] = KILN_FLOAT16;
  CHECK(kiln_rt_vector_width(&pair) == 1);
}

/* maximum/minimum's combine picks an operand (the first NaN, else the
 * larger/smaller, the later on ties), so kiln folds a lane's whole chunk
 * in two halves at once (reduce_tree.c, append_split_chunk): the bits must
 * still be the one fold's, where they depend on the order: +0/-0 ties
 * (which zero is "the later") and NaNs of different payloads (which is
 * "the first"). The host tree with that combine, bit for bit, through
 * vector, scalar and kiln's own loads, rows of whole and partial chunks. */
static uint32_t pick(uint32_t a, uint32_t b, int max) {
  float fa, fb;
  memcpy(&fa, &a, 4), memcpy(&fb, &b, 4);
  return (max ? fa > fb : fa < fb) || isnan(fa) ? a : b;
}

static uint32_t host_pick_tree(const uint32_t *x, int64_t n, int max) {
  uint32_t *level = malloc((size_t)n * sizeof *level);
  memcpy(level, x, (size_t)n * sizeof *level);
  for (;;) {
    int64_t chunks = (n + KILN_REDUCE_CHUNK - 1) / KILN_REDUCE_CHUNK;
    for (int64_t c = 0; c < chunks; c++) {
      uint32_t lanes[KILN_REDUCE_LANES];
      int64_t k0 = c * KILN_REDUCE_CHUNK;
      int64_t kend = k0 + KILN_REDUCE_CHUNK < n ? k0 + KILN_REDUCE_CHUNK : n;
      for (int l = 0; l < KILN_REDUCE_LANES && k0 + l < kend; l++) {
        lanes[l] = level[k0 + l];
        for (int64_t k = k0 + l + KILN_REDUCE_LANES; k < kend; k += KILN_REDUCE_LANES)
          lanes[l] = pick(lanes[l], level[k], max);
      }
      for (int s = KILN_REDUCE_LANES / 2; s > 0; s /= 2)
        for (int l = 0; l < s; l++)
          if (k0 + l + s < kend) lanes[l] = pick(lanes[l], lanes[l + s], max);
      level[c] = lanes[0];
    }
    n = chunks;
    if (n == 1) break;
  }
  uint32_t r = level[0];
  free(level);
  return r;
}

static void test_pick_ties_bits(kiln_context *ctx) {
  static const int64_t shapes[][2] = {{1, 4096}, {1, 12291}, {2, 8192}, {3, 4100}, {1, 65536}};
  for (int max = 0; max < 2; max++) {
    kiln_ufunc *u = NULL;
    REQUIRE_OK(kiln_ufunc_builtin(ctx, max ? "maximum" : "minimum", &u));
    for (size_t t = 0; t < sizeof shapes / sizeof shapes[0]; t++) {
      int64_t M = shapes[t][0], K = shapes[t][1], n = M * K;
      for (int with_nan = 0; with_nan < 2; with_nan++) {
        uint32_t *x = malloc((size_t)n * 4), want[3], got[3];
        for (int64_t i = 0; i < n; i++) {
          uint64_t r = harness_rand_u64();
          x[i] = r % 2 ? 0x80000000u : 0; /* +0 or -0: all tie */
          /* NaNs of distinct payloads, a few a row, the first one wins */
          if (with_nan && r % 997 == 5) x[i] = 0x7fc00000u | (uint32_t)(i % 4096);
        }
        for (int64_t r = 0; r < M; r++) want[r] = host_pick_tree(x + r * K, K, max);
        kiln_array *a = NULL;
        int64_t shape[2] = {M, K};
        REQUIRE_OK(kiln_array_from_host(ctx, KILN_FLOAT32, 2, shape, NULL, x, &a));
        static const kiln_rt_loads modes[3] = {KILN_RT_LOADS_VECTOR, KILN_RT_LOADS_SCALAR,
                                               KILN_RT_LOADS_AUTO};
        for (int m = 0; m < 3; m++) {
          kiln_reduce_options opt = kiln_reduce_axis(1);
          kiln_operand o = kiln_operand_host_output(got, KILN_FLOAT32, 1, &M, NULL);
          kiln_rt_force_loads(modes[m]);
          kiln_status s = kiln_ufunc_reduce(u, kiln_operand_array(a), o, &opt, NULL);
          kiln_rt_force_loads(KILN_RT_LOADS_AUTO);
          CHECK_MSG(s == KILN_OK, "%s: %s", kiln_ufunc_name(u), kiln_last_error());
          for (int64_t r = 0; s == KILN_OK && r < M; r++)
            CHECK_MSG(got[r] == want[r], "%s %lldx%lld%s row %lld loads %d: %08x, tree %08x",
                      kiln_ufunc_name(u), (long long)M, (long long)K, with_nan ? " NaNs" : "",
                      (long long)r, m, got[r], want[r]);
        }
        kiln_array_release(a);
        free(x);
      }
    }
    kiln_ufunc_release(u);
  }
}

static const harness_test tests[] = {{"vector_source", test_vector_source},
                                     {"vector_bits", test_vector_bits},
                                     {"vector_eligibility", test_vector_eligibility},
                                     {"vector_wrapped", test_vector_wrapped},
                                     {"pick_ties_bits", test_pick_ties_bits},
                                     {0}};

int main(int argc, char **argv) { return harness_main(argc, argv, tests); }
