/* Conformance: a reduction to one output of several chunks runs its later
 * passes in the first pass's last work-group (the "tail", one launch:
 * core/codegen/reduce_tree.c). The tail must give the bits of separate
 * launches and of kiln's tree emulated on the host, for sums with vector
 * and scalar first passes, integer sums, argmax with ties and a NaN, and a
 * two-input custom reduction, max (whose tail loads in bigger batches:
 * an associative combine), at sizes of 2, 3, 17 chunks and of three
 * passes (the tail running two), in several work-group sizes; its counter
 * must be back at zero after every call (the same reduction again and
 * again on changing data, interleaved with scans sharing the scratch), and
 * kiln_rt_tail_launches must show the tail really ran. */
#include "core/codegen/reduce_tree.h"
#include "reduce_testing.h"

DEFINE_TREE(tree_f64, double)

enum { SUM32, SUM64_STRIDED, SUM_INT8, ARGMAX, CUSTOM, MAX32, NKINDS };
static const char *const kind_names[NKINDS] = {"sum float32", "sum float64 (every other)",
                                               "sum int8",    "argmax float32",
                                               "custom",      "max float32"};

static kiln_reduction *make_custom(kiln_context *ctx) {
  return make_xy_sum(ctx, "tail_custom", "(float)(kiln_i % 7) * x - (float)y");
}

/* Host data for n elements of one kind: x (float32, or float64 at twice
 * the length for the strided view, or int8), y (int32, custom only). */
typedef struct data {
  void *x;
  int32_t *y;
  int64_t n;
} data;

static data make_data(int kind, int64_t n) {
  data d = {NULL, NULL, n};
  if (kind == SUM64_STRIDED) {
    d.x = malloc((size_t)(2 * n) * 8);
    harness_fill_random(d.x, KILN_FLOAT64, 2 * n, -1, 1);
  } else if (kind == SUM_INT8) {
    d.x = malloc((size_t)n);
    harness_fill_random(d.x, KILN_INT8, n, -128, 127);
  } else if (kind == ARGMAX) {
    float *x = malloc((size_t)n * 4);
    for (int64_t i = 0; i < n; i++) x[i] = (float)(harness_rand_u64() % 1000);
    /* ties of the largest value, and a NaN that must win when present */
    x[n / 3] = 5000.0f;
    x[n - 2] = 5000.0f;
    if (n % 4 == 1) x[n / 2 + 1] = NAN;
    d.x = x;
  } else {
    d.x = malloc((size_t)n * 4);
    harness_fill_random(d.x, KILN_FLOAT32, n, kind == MAX32 ? -1 : 0, 1);
  }
  if (kind == CUSTOM) {
    d.y = malloc((size_t)n * 4);
    harness_fill_random(d.y, KILN_INT32, n, -20, 20);
  }
  return d;
}

static void free_data(data *d) {
  free(d->x);
  free(d->y);
}

/* The result kiln's tree gives, as 8 bytes. */
static void reference(int kind, const data *d, unsigned char out[8]) {
  memset(out, 0, 8);
  int64_t n = d->n;
  if (kind == SUM32) {
    float v = host_tree_sum(d->x, n);
    memcpy(out, &v, 4);
  } else if (kind == SUM64_STRIDED) {
    double *every = malloc((size_t)n * 8);
    for (int64_t i = 0; i < n; i++) every[i] = ((const double *)d->x)[2 * i];
    double v = tree_f64(every, n, 0);
    free(every);
    memcpy(out, &v, 8);
  } else if (kind == SUM_INT8) { /* NumPy sums int8 in int64: exact */
    int64_t s = 0;
    for (int64_t i = 0; i < n; i++) s += ((const int8_t *)d->x)[i];
    memcpy(out, &s, 8);
  } else if (kind == MAX32) { /* one of the elements: the same bits in any order */
    const float *x = d->x;
    float v = x[0];
    for (int64_t i = 1; i < n; i++) v = x[i] > v ? x[i] : v;
    memcpy(out, &v, 4);
  } else if (kind == ARGMAX) {
    const float *x = d->x;
    int64_t best = 0;
    for (int64_t i = 1; i < n && !isnan(x[best]); i++)
      if (isnan(x[i]) || x[i] > x[best]) best = i;
    memcpy(out, &best, 8);
  } else {
    float *m = malloc((size_t)n * 4);
    for (int64_t i = 0; i < n; i++)
      m[i] = (float)(i % 7) * ((const float *)d->x)[i] - (float)d->y[i];
    float v = host_tree_sum(m, n);
    free(m);
    memcpy(out, &v, 4);
  }
}

static kiln_dtype out_dtype(int kind) {
  return kind == SUM64_STRIDED ? KILN_FLOAT64 : kind == SUM_INT8 || kind == ARGMAX ? KILN_INT64
                                                                                  : KILN_FLOAT32;
}

/* Device arrays of d (the float64 one as every other element of 2n). */
static kiln_status upload(kiln_context *ctx, int kind, const data *d, kiln_array **x,
                          kiln_array **y) {
  *x = *y = NULL;
  kiln_dtype t = kind == SUM64_STRIDED ? KILN_FLOAT64 : kind == SUM_INT8 ? KILN_INT8 : KILN_FLOAT32;
  int64_t n = kind == SUM64_STRIDED ? 2 * d->n : d->n;
  KILN_RETURN_IF_ERROR(kiln_array_from_host(ctx, t, 1, &n, NULL, d->x, x));
  if (kind == SUM64_STRIDED) {
    kiln_array *view = NULL;
    kiln_slice step2 = {0, KILN_NONE, 2};
    kiln_status s = kiln_array_slice(*x, 1, &step2, &view);
    kiln_array_release(*x);
    *x = view;
    if (s != KILN_OK) return s;
  }
  if (kind == CUSTOM) return kiln_array_from_host(ctx, KILN_INT32, 1, &d->n, NULL, d->y, y);
  return KILN_OK;
}

/* One reduction of kind over all of x (and y), into 8 bytes at out. */
static kiln_status reduce(kiln_context *ctx, int kind, kiln_ufunc *add, kiln_ufunc *max,
                          kiln_reduction *custom,
                          const kiln_array *x, const kiln_array *y, int group, void *out) {
  kiln_reduce_options opt = kiln_reduce_all();
  opt.work_group_size = group;
  kiln_operand o = kiln_operand_host_output(out, out_dtype(kind), 0, NULL, NULL);
  if (kind == ARGMAX) return kiln_argmax(ctx, kiln_operand_array(x), o, &opt, NULL);
  if (kind == MAX32) return kiln_ufunc_reduce(max, kiln_operand_array(x), o, &opt, NULL);
  if (kind == CUSTOM) {
    kiln_operand two[2] = {kiln_operand_array(x), kiln_operand_array(y)};
    return kiln_reduction_call(custom, 2, two, o, &opt, NULL);
  }
  return kiln_ufunc_reduce(add, kiln_operand_array(x), o, &opt, NULL);
}

static void show(int kind, const unsigned char v[8], char *text, size_t size) {
  if (kind == SUM32 || kind == MAX32) snprintf(text, size, "%.9g", harness_get(v, KILN_FLOAT32, 0));
  else if (kind == SUM64_STRIDED) snprintf(text, size, "%.17g", harness_get(v, KILN_FLOAT64, 0));
  else snprintf(text, size, "%lld", (long long)harness_get(v, KILN_INT64, 0));
}

/* Every kind, size and work-group size: the tail's bits, separate
 * launches' bits and the host tree's agree, and the tail ran wherever its
 * later passes fit one work-group. */
static void test_tail_bits(kiln_context *ctx) {
  /* 2, 3 and 17 chunks; 4096 * 4096 + 1: three passes, the tail runs two
   * (in one round of a 64-item group, not in a 32-item one) */
  static const int64_t sizes[] = {4097, 3 * 4096 - 5, 16 * 4096 + 3, 4096 * 4096 + 1};
  static const int groups[] = {0, 32, 64, 160};
  kiln_ufunc *add = NULL, *max = NULL;
  REQUIRE_OK(kiln_ufunc_builtin(ctx, "add", &add));
  REQUIRE_OK(kiln_ufunc_builtin(ctx, "maximum", &max));
  kiln_reduction *custom = make_custom(ctx);
  CHECK_MSG(custom != NULL, "the custom reduction: %s", kiln_last_error());
  for (int kind = 0; kind < NKINDS && custom; kind++) {
    for (size_t t = 0; t < sizeof sizes / sizeof sizes[0]; t++) {
      int64_t n = sizes[t];
      /* the largest size once per kind, in two group sizes */
      if (t == 3 && kind != SUM32 && kind != ARGMAX && kind != MAX32) continue;
      data d = make_data(kind, n);
      kiln_array *x = NULL, *y = NULL;
      CHECK_OK(upload(ctx, kind, &d, &x, &y));
      unsigned char want[8];
      reference(kind, &d, want);
      for (size_t g = 0; g < sizeof groups / sizeof groups[0] && x; g++) {
        if (t == 3 && g != 1 && g != 2) continue;
        int group = groups[g];
        unsigned char fused[8] = {0}, separate[8] = {0};
        uint64_t before = kiln_rt_tail_launches();
        CHECK_OK(reduce(ctx, kind, add, max, custom, x, y, group, fused));
        uint64_t ran = kiln_rt_tail_launches() - before;
        kiln_rt_allow_tail(0);
        CHECK_OK(reduce(ctx, kind, add, max, custom, x, y, group, separate));
        kiln_rt_allow_tail(1);
        /* the later passes fit one round of the group: a chunk a slot */
        int64_t later = (n + 4095) / 4096, slots = (group ? group : 256) / 32;
        int64_t partials = (later + 4095) / 4096;
        int fits = partials <= slots;
        size_t size = kiln_dtype_size(out_dtype(kind));
        char got_text[64], sep_text[64], want_text[64];
        show(kind, fused, got_text, sizeof got_text);
        show(kind, separate, sep_text, sizeof sep_text);
        show(kind, want, want_text, sizeof want_text);
        CHECK_MSG(ran == (uint64_t)fits, "%s n %lld group %d: %llu tail launches, expected %d",
                  kind_names[kind], (long long)n, group, (unsigned long long)ran, fits);
        CHECK_MSG(memcmp(fused, want, size) == 0, "%s n %lld group %d: tail %s, the tree %s",
                  kind_names[kind], (long long)n, group, got_text, want_text);
        CHECK_MSG(memcmp(separate, want, size) == 0,
                  "%s n %lld group %d: separate passes %s, the tree %s", kind_names[kind],
                  (long long)n, group, sep_text, want_text);
      }
      kiln_array_release(x);
      kiln_array_release(y);
      free_data(&d);
    }
  }
  kiln_reduction_release(custom);
  kiln_ufunc_release(max);
  kiln_ufunc_release(add);
}

/* The counter is zero after each call: the same ufunc (hence the same
 * scratch) reduces two arrays in turn, with cumulative sums (which share
 * that scratch) in between; each result is its own array's. */
static void test_tail_again(kiln_context *ctx) {
  int64_t n = 5 * 4096 + 11;
  kiln_ufunc *add = NULL;
  REQUIRE_OK(kiln_ufunc_builtin(ctx, "add", &add));
  data d[2] = {make_data(SUM32, n), make_data(SUM32, n)};
  kiln_array *x[2] = {NULL, NULL}, *unused = NULL, *scanned = NULL;
  float want[2];
  for (int i = 0; i < 2; i++) {
    CHECK_OK(upload(ctx, SUM32, &d[i], &x[i], &unused));
    want[i] = host_tree_sum(d[i].x, n);
  }
  REQUIRE_OK(kiln_array_empty(ctx, KILN_FLOAT32, 1, &n, &scanned));
  uint64_t before = kiln_rt_tail_launches();
  kiln_scan_options flat = {.flatten = 1};
  for (int r = 0; r < 12 && x[0] && x[1]; r++) {
    int i = r % 2;
    float got = 0;
    CHECK_OK(reduce(ctx, SUM32, add, NULL, NULL, x[i], NULL, r % 3 == 0 ? 64 : 0, &got));
    CHECK_MSG(memcmp(&got, &want[i], 4) == 0, "call %d: %.9g, the tree gives %.9g", r, got,
              want[i]);
    if (r % 4 == 1) {
      CHECK_OK(kiln_ufunc_scan(add, kiln_operand_array(x[i]), kiln_operand_array(scanned), &flat,
                               NULL));
      float last = 0;
      kiln_array *tail = NULL;
      kiln_slice end = {n - 1, n, 1};
      CHECK_OK(kiln_array_slice(scanned, 1, &end, &tail));
      if (tail) CHECK_OK(kiln_array_to_host(tail, &last, NULL));
      kiln_array_release(tail);
      double exact = 0;
      for (int64_t k = 0; k < n; k++) exact += ((const float *)d[i].x)[k];
      CHECK_MSG(fabs(last - exact) <= 1e-5 * exact, "cumsum's last %.9g, exact %.9g", last, exact);
    }
  }
  CHECK_MSG(kiln_rt_tail_launches() - before == 12, "%llu of 12 calls ran the tail",
            (unsigned long long)(kiln_rt_tail_launches() - before));
  for (int i = 0; i < 2; i++) {
    kiln_array_release(x[i]);
    free_data(&d[i]);
  }
  kiln_array_release(scanned);
  kiln_ufunc_release(add);
}

/* The generated tail, and where it is not used. */
static void test_tail_source(kiln_context *ctx) {
  (void)ctx;
  kiln_rt_spec sum = float32_sum_spec();
  kiln_strbuf b = {0};
  kiln_rt_pass pass = {1, 0, 0, 1, 4, 1, 1, 1};
  kiln_rt_source(&sum, &pass, "k", &b);
  CHECK(b.data && strstr(b.data, "later passes in the last work-group"));
  CHECK(b.data && strstr(b.data, "kiln_atomic_add_u32(cnt + ocnt, 1u)"));
  CHECK(b.data && strstr(b.data, "KILN_GLOBAL volatile const float *pv"));
  CHECK(b.data && strstr(b.data, "cnt[ocnt] = 0u"));
  kiln_strbuf_free(&b);
  /* a last pass, or the column variant: no tail */
  kiln_rt_pass last = {1, 1, 0, 1, 4, 1, 1, 1}, col = {1, 0, 1, 1, 1, 1, 1, 1};
  kiln_strbuf l = {0}, c = {0};
  kiln_rt_source(&sum, &last, "k", &l);
  kiln_rt_source(&sum, &col, "k", &c);
  CHECK(l.data && !strstr(l.data, "kiln_atomic_add_u32"));
  CHECK(c.data && !strstr(c.data, "kiln_atomic_add_u32"));
  kiln_strbuf_free(&l);
  kiln_strbuf_free(&c);
  /* fits: one chunk a slot of the group, a real accumulator */
  CHECK(kiln_rt_tail_fits(&sum, 2, 32));
  CHECK(kiln_rt_tail_fits(&sum, 8 * 4096, 256));
  CHECK(!kiln_rt_tail_fits(&sum, 8 * 4096 + 1, 256));
  CHECK(!kiln_rt_tail_fits(&sum, 1, 256));
  kiln_rt_spec argmax = sum;
  argmax.arg = 1;
  argmax.out = KILN_INT64;
  CHECK(kiln_rt_tail_fits(&argmax, 2, 256));
  kiln_rt_spec complex_sum = sum;
  complex_sum.inputs[0] = complex_sum.acc = complex_sum.out = KILN_COMPLEX64;
  CHECK(!kiln_rt_tail_fits(&complex_sum, 2, 256));
}

static const harness_test tests[] = {{"tail_source", test_tail_source},
                                     {"tail_bits", test_tail_bits},
                                     {"tail_again", test_tail_again},
                                     {0}};

int main(int argc, char **argv) { return harness_main(argc, argv, tests); }
