/* Conformance: fusion of ufunc chains (kiln/fusion.h, docs/fusion.md).
 *
 * The differential test runs random programs of ufunc calls (built-ins and
 * user ufuncs, random dtypes, broadcasting, strided and reversed views,
 * scalars, `out` arrays, intermediates kept or released) twice, unfused
 * (KILN_FUSION=0) and fused, and requires every kept result to have the
 * same bytes; the fusion counters show that kernels were fused and values
 * kept in registers, so the comparison cannot pass by running unfused.
 * The other tests check values against plain C, the order of recorded work
 * against everything else that touches the stream, chains longer than one
 * kernel's operands, errors inside a scope, unbalanced scopes and threads. */
#include <pthread.h>

#include "core/fusion/fusion_internal.h"
#include "core/kernel/kernel_internal.h"
#include "harness.h"

static void set_fusion(int on) { setenv("KILN_FUSION", on ? "1" : "0", 1); }

static kiln_ufunc *builtin(kiln_context *ctx, const char *name) {
  kiln_ufunc *u = NULL;
  if (kiln_ufunc_builtin(ctx, name, &u) != KILN_OK)
    harness_fail(__FILE__, __LINE__, "builtin %s: %s", name, kiln_last_error());
  return u;
}

static kiln_status call1(kiln_ufunc *u, kiln_operand a, kiln_operand out, kiln_stream *stream) {
  return kiln_ufunc_call(u, 1, &a, 1, &out, stream);
}

static kiln_status call2(kiln_ufunc *u, kiln_operand a, kiln_operand b, kiln_operand out,
                         kiln_stream *stream) {
  kiln_operand in[2] = {a, b};
  return kiln_ufunc_call(u, 2, in, 1, &out, stream);
}

static kiln_array *upload(kiln_context *ctx, kiln_dtype dtype, int ndim, const int64_t *shape,
                          double lo, double hi) {
  int64_t n = 1;
  for (int d = 0; d < ndim; d++) n *= shape[d];
  void *host = malloc((size_t)(n ? n : 1) * kiln_dtype_size(dtype));
  harness_fill_random(host, dtype, n, lo, hi);
  kiln_array *a = NULL;
  CHECK_OK(kiln_array_from_host(ctx, dtype, ndim, shape, NULL, host, &a));
  free(host);
  return a;
}

/* Bytes of a (C order) on the host; caller frees. */
static unsigned char *download(const kiln_array *a) {
  size_t bytes = (size_t)kiln_array_nbytes(a);
  unsigned char *host = malloc(bytes ? bytes : 1);
  CHECK_OK(kiln_array_to_host(a, host, NULL));
  return host;
}

/* ---- the hidden layer against plain C ---------------------------------------- */

static const char *const tanh_sigs[] = {"float32(float32 x)"};
#define TANH_BODY "return (exp(x) - exp(-x)) / (exp(x) + exp(-x));"

/* act(second(first(a, s), b)) in one scope: returns the result; the two
 * intermediates are released inside the scope (with divide, multiply and
 * tanh_by_exp, s = 255: the hidden layer's normalize, weigh, activate). */
static kiln_array *three_calls(kiln_context *ctx, kiln_array *a, double s, kiln_array *b,
                               kiln_ufunc *first, kiln_ufunc *second, kiln_ufunc *act) {
  kiln_array *t1 = NULL, *t2 = NULL, *out = NULL;
  CHECK_OK(kiln_fusion_begin(ctx, NULL));
  CHECK_OK(call2(first, kiln_operand_array(a), kiln_operand_float(s), kiln_operand_new(&t1), NULL));
  CHECK_OK(call2(second, kiln_operand_array(t1), kiln_operand_array(b), kiln_operand_new(&t2),
                 NULL));
  kiln_array_release(t1);
  CHECK_OK(call1(act, kiln_operand_array(t2), kiln_operand_new(&out), NULL));
  kiln_array_release(t2);
  CHECK_OK(kiln_fusion_end(ctx, NULL));
  return out;
}

static kiln_array *hidden_layer(kiln_context *ctx, kiln_array *g, kiln_array *w,
                                kiln_ufunc *divide, kiln_ufunc *multiply, kiln_ufunc *act) {
  return three_calls(ctx, g, 255.0, w, divide, multiply, act);
}

static void test_hidden_layer(kiln_context *ctx) {
  kiln_ufunc *divide = builtin(ctx, "divide"), *multiply = builtin(ctx, "multiply");
  kiln_ufunc *act = NULL;
  REQUIRE_OK(kiln_ufunc_create(ctx, "tanh_by_exp", 1, tanh_sigs, TANH_BODY, NULL, &act));
  int64_t sizes[] = {1, 7, 1031, 100003};
  for (int c = 0; c < 4; c++) {
    int64_t n = sizes[c];
    float *g = malloc((size_t)n * 4), *w = malloc((size_t)n * 4), *y = malloc((size_t)n * 4);
    harness_fill_random(g, KILN_FLOAT32, n, 0, 255);
    harness_fill_random(w, KILN_FLOAT32, n, -1, 1);
    kiln_array *dg = NULL, *dw = NULL;
    CHECK_OK(kiln_array_from_host(ctx, KILN_FLOAT32, 1, &n, NULL, g, &dg));
    CHECK_OK(kiln_array_from_host(ctx, KILN_FLOAT32, 1, &n, NULL, w, &dw));
    set_fusion(0);
    kiln_array *plain = hidden_layer(ctx, dg, dw, divide, multiply, act);
    set_fusion(1);
    kiln_fusion_counters before, after;
    kiln_fusion_counters_get(&before);
    kiln_array *fused = hidden_layer(ctx, dg, dw, divide, multiply, act);
    kiln_fusion_counters_get(&after);
    CHECK_MSG(after.kernels == before.kernels + 1 && after.fused == before.fused + 3 &&
                  after.stored == before.stored + 1 && after.kept == before.kept + 2,
              "n %lld: %llu kernels, %llu nodes, %llu stored, %llu kept", (long long)n,
              (unsigned long long)(after.kernels - before.kernels),
              (unsigned long long)(after.fused - before.fused),
              (unsigned long long)(after.stored - before.stored),
              (unsigned long long)(after.kept - before.kept));
    unsigned char *a = download(plain), *b = download(fused);
    CHECK_MSG(memcmp(a, b, (size_t)n * 4) == 0, "n %lld: fused bits differ", (long long)n);
    memcpy(y, b, (size_t)n * 4);
    for (int64_t i = 0; i < n; i++) {
      double x = (double)(g[i] / 255.0f) * (double)w[i]; /* float32 steps, as kiln */
      x = (float)x;
      double want = tanh(x);
      CHECK_CLOSE(y[i], want, 1e-5, 1e-6);
    }
    free(a);
    free(b);
    free(g);
    free(w);
    free(y);
    kiln_array_release(plain);
    kiln_array_release(fused);
    kiln_array_release(dg);
    kiln_array_release(dw);
  }
  kiln_ufunc_release(divide);
  kiln_ufunc_release(multiply);
  kiln_ufunc_release(act);
}

/* ---- random programs, fused vs unfused ------------------------------------------ */

#define M 13
#define N 29
#define MAX_VALUES 48

typedef struct rng {
  uint64_t s;
} rng;

static uint64_t next(rng *r) {
  r->s = r->s * 6364136223846793005ull + 1442695040888963407ull;
  return r->s >> 33;
}
static int pick(rng *r, int n) { return (int)(next(r) % (uint64_t)n); }

/* Random values in [0.25, 9) of dtype, made from float64 by astype. */
static kiln_array *upload_seeded(kiln_context *ctx, rng *r, kiln_dtype dtype, int ndim,
                                 const int64_t *shape) {
  int64_t n = 1;
  for (int d = 0; d < ndim; d++) n *= shape[d];
  double *host = malloc((size_t)n * sizeof *host);
  for (int64_t i = 0; i < n; i++) host[i] = 0.25 + (double)(next(r) % 8750) / 1000.0;
  kiln_array *wide = NULL, *a = NULL;
  CHECK_OK(kiln_array_from_host(ctx, KILN_FLOAT64, ndim, shape, NULL, host, &wide));
  if (wide) CHECK_OK(kiln_array_astype(wide, dtype, &a));
  kiln_array_release(wide);
  free(host);
  return a;
}

/* a few of each kind (every distinct call compiles a kernel on its own,
 * which is what the test's time goes to) */
#define NUNARY 5
#define NBINARY 6
static const char *const unary_ops[NUNARY] = {"negative", "sqrt", "tanh", "floor", "log1p"};
static const char *const binary_ops[NBINARY] = {"add",     "subtract", "multiply",
                                                "divide",  "maximum",  "hypot"};
static const kiln_dtype dtypes[] = {KILN_FLOAT32, KILN_FLOAT64, KILN_FLOAT16, KILN_INT32,
                                    KILN_FLOAT32, KILN_FLOAT32, KILN_FLOAT32};

/* user ufuncs: one with a helper, one with two outputs */
static const char *const poly_sigs[] = {"float32(float32 x, float32 c)",
                                        "float64(float64 x, float64 c)"};
#define POLY_PREAMBLE "KILN_DEVICE double fusion_test_half(double v) { return v * 0.5; }"
#define POLY_BODY "return (x * c + (float)fusion_test_half(1.0)) * x - c;"
static const char *const split_sigs[] = {"(float32 lo, float32 hi)(float32 x)",
                                         "(float64 lo, float64 hi)(float64 x)"};
#define SPLIT_BODY "lo = floor(x); hi = x - lo;"

typedef struct program_ufuncs {
  kiln_ufunc *unary[NUNARY], *binary[NBINARY], *poly, *split;
} program_ufuncs;

/* Runs random program `seed`; values[] receives the bytes of every result
 * the program keeps (NULL where released), sizes[] their byte counts. */
static void run_program(kiln_context *ctx, const program_ufuncs *f, uint64_t seed,
                        unsigned char **values, size_t *sizes, int *nvalues) {
  rng r = {seed * 2654435761u + 1};
  kiln_array *v[MAX_VALUES] = {0};
  int held[MAX_VALUES] = {0};
  int n = 0;
  /* inputs: full, broadcast row and column, a strided and reversed view,
   * a 0-d array */
  const int64_t full[2] = {M, N}, row[1] = {N}, column[2] = {M, 1}, wide[2] = {M, 2 * N};
  for (int k = 0; k < 6; k++) {
    kiln_dtype d = dtypes[pick(&r, 7)];
    kiln_array *a = NULL;
    if (k == 0 || k == 1) a = upload_seeded(ctx, &r, d, 2, full);
    else if (k == 2) a = upload_seeded(ctx, &r, d, 1, row);
    else if (k == 3) a = upload_seeded(ctx, &r, d, 2, column);
    else if (k == 4) {
      kiln_array *base = upload_seeded(ctx, &r, d, 2, wide);
      kiln_slice s[2] = {{KILN_NONE, KILN_NONE, -1}, {1, KILN_NONE, 2}};
      CHECK_OK(kiln_array_slice(base, 2, s, &a));
      kiln_array_release(base);
    } else {
      a = upload_seeded(ctx, &r, d, 0, NULL);
    }
    v[n] = a;
    held[n++] = 1;
  }
  int steps = 6 + pick(&r, 8);
  for (int s = 0; s < steps && n < MAX_VALUES - 3; s++) {
    int kind = pick(&r, 10);
    kiln_operand in[2];
    for (int j = 0; j < 2; j++) {
      int which = pick(&r, 8);
      if (which == 0) in[j] = kiln_operand_float(0.5 + pick(&r, 7));
      else if (which == 1) in[j] = kiln_operand_float32(1.25f);
      else {
        int idx = pick(&r, n);
        for (int t = 0; t < n && !held[idx]; t++) idx = (idx + 1) % n;
        in[j] = kiln_operand_array(v[idx]);
      }
    }
    if (in[0].kind != KILN_OPERAND_ARRAY && in[1].kind != KILN_OPERAND_ARRAY) {
      int idx = n - 1;
      while (idx > 0 && !held[idx]) idx--;
      in[0] = kiln_operand_array(v[idx]);
    }
    kiln_array *out1 = NULL, *out2 = NULL;
    kiln_operand outs[2] = {kiln_operand_new(&out1), kiln_operand_new(&out2)};
    kiln_status st;
    if (kind < 4) {
      st = kiln_ufunc_call(f->unary[pick(&r, NUNARY)], 1, in, 1, outs, NULL);
    } else if (kind < 8) {
      st = kiln_ufunc_call(f->binary[pick(&r, NBINARY)], 2, in, 1, outs, NULL);
    } else if (kind == 8) {
      st = kiln_ufunc_call(f->poly, 2, in, 1, outs, NULL);
    } else {
      st = kiln_ufunc_call(f->split, 1, in, 2, outs, NULL);
    }
    if (st != KILN_OK) continue; /* the same in both runs (dispatch is deterministic) */
    if (out1) { v[n] = out1; held[n++] = 1; }
    if (out2) { v[n] = out2; held[n++] = 1; }
    /* release some earlier results inside the scope */
    int drop = pick(&r, 3);
    for (int t = 0; t < drop; t++) {
      int idx = 6 + pick(&r, n - 6 > 0 ? n - 6 : 1);
      if (idx < n && held[idx] && idx != n - 1) {
        kiln_array_release(v[idx]);
        v[idx] = NULL;
        held[idx] = 0;
      }
    }
  }
  for (int k = 0; k < n; k++) {
    values[k] = held[k] ? download(v[k]) : NULL;
    sizes[k] = held[k] ? (size_t)kiln_array_nbytes(v[k]) : 0;
    kiln_array_release(v[k]);
  }
  *nvalues = n;
}

static void test_random_programs(kiln_context *ctx) {
  program_ufuncs f;
  for (int k = 0; k < NUNARY; k++) f.unary[k] = builtin(ctx, unary_ops[k]);
  for (int k = 0; k < NBINARY; k++) f.binary[k] = builtin(ctx, binary_ops[k]);
  REQUIRE_OK(kiln_ufunc_create(ctx, "fusion_poly", 2, poly_sigs, POLY_BODY, POLY_PREAMBLE,
                               &f.poly));
  REQUIRE_OK(kiln_ufunc_create(ctx, "fusion_split", 2, split_sigs, SPLIT_BODY, NULL, &f.split));
  kiln_fusion_counters before, after;
  kiln_fusion_counters_get(&before);
  int programs = 5, compared = 0;
  for (int p = 0; p < programs; p++) {
    unsigned char *plain[MAX_VALUES], *fused[MAX_VALUES];
    size_t plain_sizes[MAX_VALUES], fused_sizes[MAX_VALUES];
    int nplain = 0, nfused = 0;
    uint64_t seed = harness_rand_u64(); /* the same program and inputs twice */
    for (int pass = 0; pass < 2; pass++) {
      set_fusion(pass);
      CHECK_OK(kiln_fusion_begin(ctx, NULL));
      run_program(ctx, &f, seed, pass ? fused : plain, pass ? fused_sizes : plain_sizes,
                  pass ? &nfused : &nplain);
      CHECK_OK(kiln_fusion_end(ctx, NULL));
    }
    CHECK(nplain == nfused);
    for (int k = 0; k < nplain && k < nfused; k++) {
      CHECK((plain[k] == NULL) == (fused[k] == NULL));
      if (plain[k] && fused[k]) {
        CHECK(plain_sizes[k] == fused_sizes[k]);
        CHECK_MSG(memcmp(plain[k], fused[k], plain_sizes[k]) == 0,
                  "program %d (seed %llu): value %d differs fused", p, (unsigned long long)seed,
                  k);
        compared++;
      }
      free(plain[k]);
      free(fused[k]);
    }
  }
  kiln_fusion_counters_get(&after);
  printf("  %d programs, %d values compared; %llu calls recorded, %llu fused kernels of %llu "
         "calls, %llu values kept in registers\n",
         programs, compared, (unsigned long long)(after.recorded - before.recorded),
         (unsigned long long)(after.kernels - before.kernels),
         (unsigned long long)(after.fused - before.fused),
         (unsigned long long)(after.kept - before.kept));
  CHECK(after.kernels > before.kernels && after.kept > before.kept);
  for (int k = 0; k < NUNARY; k++) kiln_ufunc_release(f.unary[k]);
  for (int k = 0; k < NBINARY; k++) kiln_ufunc_release(f.binary[k]);
  kiln_ufunc_release(f.poly);
  kiln_ufunc_release(f.split);
}

/* ---- order: what is not recorded sees what was recorded --------------------------- */

/* An in-place update, a read of the updated array through a reversed view
 * (which one kernel could not order: the group splits), a host read of an
 * intermediate mid-scope and a copy of it; every value checked in C. */
static void test_order_and_hazards(kiln_context *ctx) {
  kiln_ufunc *add = builtin(ctx, "add"), *multiply = builtin(ctx, "multiply");
  int64_t n = 1031;
  double *x = malloc((size_t)n * 8), *got = malloc((size_t)n * 8);
  harness_fill_random(x, KILN_FLOAT64, n, -8, 8);
  kiln_array *dx = NULL, *y = NULL, *z = NULL, *copy = NULL, *reversed = NULL;
  REQUIRE_OK(kiln_array_from_host(ctx, KILN_FLOAT64, 1, &n, NULL, x, &dx));
  kiln_slice back = {KILN_NONE, KILN_NONE, -1};
  CHECK_OK(kiln_array_slice(dx, 1, &back, &reversed));
  set_fusion(1);
  CHECK_OK(kiln_fusion_begin(ctx, NULL));
  /* x = x + 1 in place, then y = reversed(x) * 3 */
  CHECK_OK(call2(add, kiln_operand_array(dx), kiln_operand_float(1), kiln_operand_array(dx), NULL));
  CHECK_OK(call2(multiply, kiln_operand_array(reversed), kiln_operand_float(3),
                 kiln_operand_new(&y), NULL));
  /* z = y * y, read on the host inside the scope, then copied */
  CHECK_OK(call2(multiply, kiln_operand_array(y), kiln_operand_array(y), kiln_operand_new(&z),
                 NULL));
  CHECK_OK(kiln_array_to_host(z, got, NULL));
  for (int64_t i = 0; i < n; i++) {
    double want = (x[n - 1 - i] + 1) * 3;
    CHECK_CLOSE(got[i], want * want, 0, 0);
  }
  CHECK_OK(call2(add, kiln_operand_array(z), kiln_operand_float(-1), kiln_operand_array(z), NULL));
  CHECK_OK(kiln_array_copy(z, &copy));
  CHECK_OK(kiln_fusion_end(ctx, NULL));
  CHECK_OK(kiln_array_to_host(copy, got, NULL));
  for (int64_t i = 0; i < n; i++) {
    double want = (x[n - 1 - i] + 1) * 3;
    CHECK_CLOSE(got[i], want * want - 1, 0, 0);
  }
  CHECK_OK(kiln_array_to_host(dx, got, NULL));
  for (int64_t i = 0; i < n; i++) CHECK_CLOSE(got[i], x[i] + 1, 0, 0);
  kiln_array_release(reversed);
  kiln_array_release(dx);
  kiln_array_release(y);
  kiln_array_release(z);
  kiln_array_release(copy);
  free(x);
  free(got);
  kiln_ufunc_release(add);
  kiln_ufunc_release(multiply);
}

/* ---- a chain longer than one kernel's operands and scalars ---------------------- */

static void test_long_chain(kiln_context *ctx) {
  kiln_ufunc *add = builtin(ctx, "add"), *multiply = builtin(ctx, "multiply");
  enum { TERMS = 80 };
  int64_t n = 257;
  float *host = malloc((size_t)n * 4 * TERMS), *got = malloc((size_t)n * 4);
  harness_fill_random(host, KILN_FLOAT32, n * TERMS, -1, 1);
  kiln_array *terms[TERMS];
  for (int t = 0; t < TERMS; t++)
    REQUIRE_OK(kiln_array_from_host(ctx, KILN_FLOAT32, 1, &n, NULL, host + t * n, &terms[t]));
  kiln_fusion_counters before, after;
  kiln_fusion_counters_get(&before);
  set_fusion(1);
  CHECK_OK(kiln_fusion_begin(ctx, NULL));
  /* acc = ((t0 * 1.5 + t1) * 2.5 + t2) ...: 80 inputs, 80 distinct scalars */
  kiln_array *acc = kiln_array_retain(terms[0]);
  for (int t = 1; t < TERMS; t++) {
    kiln_array *scaled = NULL, *sum = NULL;
    CHECK_OK(call2(multiply, kiln_operand_array(acc), kiln_operand_float(1 + t / 64.0),
                   kiln_operand_new(&scaled), NULL));
    kiln_array_release(acc);
    CHECK_OK(call2(add, kiln_operand_array(scaled), kiln_operand_array(terms[t]),
                   kiln_operand_new(&sum), NULL));
    kiln_array_release(scaled);
    acc = sum;
  }
  CHECK_OK(kiln_fusion_end(ctx, NULL));
  kiln_fusion_counters_get(&after);
  CHECK_MSG(after.kernels - before.kernels >= 3, "%llu kernels for 80 inputs",
            (unsigned long long)(after.kernels - before.kernels));
  CHECK(after.fused - before.fused == 2 * (TERMS - 1));
  CHECK_OK(kiln_array_to_host(acc, got, NULL));
  for (int64_t i = 0; i < n; i++) {
    float want = host[i];
    for (int t = 1; t < TERMS; t++) {
      float scaled = want * (float)(1 + t / 64.0);
      want = scaled + host[t * n + i];
    }
    CHECK_MSG(memcmp(&want, &got[i], 4) == 0, "element %lld: %.9g, C %.9g", (long long)i,
              got[i], want);
  }
  kiln_array_release(acc);
  for (int t = 0; t < TERMS; t++) kiln_array_release(terms[t]);
  free(host);
  free(got);
  kiln_ufunc_release(add);
  kiln_ufunc_release(multiply);
}

/* ---- errors ----------------------------------------------------------------------- */

static void test_errors_in_scope(kiln_context *ctx) {
  kiln_ufunc *add = builtin(ctx, "add"), *sqrt_u = builtin(ctx, "sqrt");
  int64_t n = 101, other = 7;
  kiln_array *a = upload(ctx, KILN_FLOAT32, 1, &n, 1, 4);
  kiln_array *b = upload(ctx, KILN_FLOAT32, 1, &other, 1, 4);
  kiln_array *t = NULL, *bad = NULL, *r = NULL;
  float host_a[101], got[101];
  CHECK_OK(kiln_array_to_host(a, host_a, NULL));
  set_fusion(1);
  CHECK_OK(kiln_fusion_begin(ctx, NULL));
  CHECK_OK(call2(add, kiln_operand_array(a), kiln_operand_float(1), kiln_operand_new(&t), NULL));
  /* a bad shape mid-chain: reported by this call, nothing recorded */
  CHECK_STATUS(call2(add, kiln_operand_array(t), kiln_operand_array(b), kiln_operand_new(&bad),
                     NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("broadcast");
  CHECK(bad == NULL);
  /* a dtype no signature takes */
  CHECK_STATUS(call1(sqrt_u, kiln_operand_complex(1, 1), kiln_operand_array(a), NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  /* the scope goes on */
  CHECK_OK(call1(sqrt_u, kiln_operand_array(t), kiln_operand_new(&r), NULL));
  kiln_array_release(t);
  /* nested and unbalanced scopes */
  CHECK_STATUS(kiln_fusion_begin(ctx, NULL), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("already open");
  CHECK_OK(kiln_fusion_end(ctx, NULL));
  CHECK_STATUS(kiln_fusion_end(ctx, NULL), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("no fusion scope");
  CHECK_STATUS(kiln_fusion_begin(NULL, NULL), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_fusion_end(NULL, NULL), KILN_ERROR_INVALID_ARGUMENT);
  /* the same under KILN_FUSION=0 */
  set_fusion(0);
  CHECK_OK(kiln_fusion_begin(ctx, NULL));
  CHECK_STATUS(kiln_fusion_begin(ctx, NULL), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_OK(kiln_fusion_end(ctx, NULL));
  CHECK_STATUS(kiln_fusion_end(ctx, NULL), KILN_ERROR_INVALID_ARGUMENT);
  set_fusion(1);
  CHECK_OK(kiln_array_to_host(r, got, NULL));
  for (int i = 0; i < 101; i++) CHECK_CLOSE(got[i], sqrtf(host_a[i] + 1), 0, 0);
  kiln_array_release(a);
  kiln_array_release(b);
  kiln_array_release(r);
  kiln_ufunc_release(add);
  kiln_ufunc_release(sqrt_u);
}

/* Two user ufuncs whose helpers share a name: the fused kernel cannot
 * compile, so the group runs call by call, with the same results. */
static void test_fallback_unfused(kiln_context *ctx) {
  static const char *const sigs[] = {"float64(float64 x)"};
  kiln_ufunc *f = NULL, *g = NULL;
  REQUIRE_OK(kiln_ufunc_create(ctx, "twice_h", 1, sigs, "return helper(x);",
                               "KILN_DEVICE double helper(double v) { return 2 * v; }", &f));
  REQUIRE_OK(kiln_ufunc_create(ctx, "plus_h", 1, sigs, "return helper(x);",
                               "KILN_DEVICE double helper(double v) { return v + 5; }", &g));
  int64_t n = 67;
  kiln_array *a = upload(ctx, KILN_FLOAT64, 1, &n, -3, 3), *t = NULL, *r = NULL;
  double host[67], got[67];
  CHECK_OK(kiln_array_to_host(a, host, NULL));
  kiln_fusion_counters before, after;
  kiln_fusion_counters_get(&before);
  set_fusion(1);
  CHECK_OK(kiln_fusion_begin(ctx, NULL));
  CHECK_OK(call1(f, kiln_operand_array(a), kiln_operand_new(&t), NULL));
  CHECK_OK(call1(g, kiln_operand_array(t), kiln_operand_new(&r), NULL));
  kiln_array_release(t);
  CHECK_OK(kiln_fusion_end(ctx, NULL));
  kiln_fusion_counters_get(&after);
  CHECK(after.unfused - before.unfused == 2);
  CHECK_OK(kiln_array_to_host(r, got, NULL));
  for (int i = 0; i < 67; i++) CHECK_CLOSE(got[i], 2 * host[i] + 5, 0, 0);
  kiln_array_release(a);
  kiln_array_release(r);
  kiln_ufunc_release(f);
  kiln_ufunc_release(g);
}

/* ---- threads recording on their own streams ---------------------------------------- */

typedef struct thread_job {
  kiln_context *ctx;
  kiln_ufunc *multiply, *add;
  int index, ok;
} thread_job;

static void *thread_main(void *arg) {
  thread_job *job = arg;
  kiln_stream *stream = NULL;
  int64_t n = 4099;
  float *x = malloc((size_t)n * 4), *got = malloc((size_t)n * 4);
  for (int64_t i = 0; i < n; i++) x[i] = (float)((i * 7 + job->index) % 97) * 0.25f;
  kiln_array *dx = NULL, *t = NULL, *r = NULL;
  job->ok = kiln_stream_create(job->ctx, &stream) == KILN_OK &&
            kiln_array_from_host(job->ctx, KILN_FLOAT32, 1, &n, NULL, x, &dx) == KILN_OK;
  for (int round = 0; round < 20 && job->ok; round++) {
    job->ok &= kiln_fusion_begin(job->ctx, stream) == KILN_OK;
    job->ok &= call2(job->multiply, kiln_operand_array(dx), kiln_operand_float(job->index + 2),
                     kiln_operand_new(&t), stream) == KILN_OK;
    job->ok &= call2(job->add, kiln_operand_array(t), kiln_operand_float(round),
                     kiln_operand_new(&r), stream) == KILN_OK;
    kiln_array_release(t);
    t = NULL;
    job->ok &= kiln_fusion_end(job->ctx, stream) == KILN_OK;
    job->ok &= kiln_stream_synchronize(job->ctx, stream) == KILN_OK;
    job->ok &= r && kiln_array_to_host(r, got, NULL) == KILN_OK;
    for (int64_t i = 0; i < n && job->ok; i++)
      job->ok = got[i] == x[i] * (float)(job->index + 2) + (float)round;
    kiln_array_release(r);
    r = NULL;
  }
  kiln_array_release(dx);
  kiln_stream_release(stream);
  free(x);
  free(got);
  return NULL;
}

static void test_threads(kiln_context *ctx) {
  set_fusion(1);
  enum { THREADS = 4 };
  pthread_t threads[THREADS];
  thread_job jobs[THREADS];
  kiln_ufunc *multiply = builtin(ctx, "multiply"), *add = builtin(ctx, "add");
  for (int k = 0; k < THREADS; k++) {
    jobs[k] = (thread_job){ctx, multiply, add, k, 0};
    pthread_create(&threads[k], NULL, thread_main, &jobs[k]);
  }
  for (int k = 0; k < THREADS; k++) {
    pthread_join(threads[k], NULL);
    CHECK_MSG(jobs[k].ok, "thread %d", k);
  }
  kiln_ufunc_release(multiply);
  kiln_ufunc_release(add);
}


/* ---- reductions fed by a chain ---------------------------------------------------- */

/* sqrt(sum(x*x)), a 2-D chain with a broadcast row and a scalar reduced
 * over each axis (sum, max), its argmax, and a custom map/reduce/post
 * reduction over it with a second, plain input; all compared with the
 * unfused calls bit for bit and the norm with C. */
typedef struct reduce_results {
  unsigned char *norm, *col_sum, *row_max, *arg, *custom;
  size_t col_bytes, row_bytes;
} reduce_results;

static void reductions_once(kiln_context *ctx, kiln_array *x, kiln_array *a, kiln_array *b,
                            kiln_array *c, kiln_reduction *custom, reduce_results *r) {
  kiln_ufunc *multiply = builtin(ctx, "multiply"), *add = builtin(ctx, "add");
  kiln_ufunc *sqrt_u = builtin(ctx, "sqrt"), *subtract = builtin(ctx, "subtract");
  kiln_ufunc *maximum = builtin(ctx, "maximum"), *tanh_u = builtin(ctx, "tanh");
  kiln_array *t = NULL, *s = NULL, *norm = NULL, *d = NULL, *e = NULL;
  kiln_array *col = NULL, *row = NULL, *arg = NULL, *cus = NULL;
  CHECK_OK(kiln_fusion_begin(ctx, NULL));
  CHECK_OK(call2(multiply, kiln_operand_array(x), kiln_operand_array(x), kiln_operand_new(&t),
                 NULL));
  kiln_reduce_options all = kiln_reduce_all();
  CHECK_OK(kiln_ufunc_reduce(add, kiln_operand_array(t), kiln_operand_new(&s), &all, NULL));
  kiln_array_release(t);
  CHECK_OK(call1(sqrt_u, kiln_operand_array(s), kiln_operand_new(&norm), NULL));
  kiln_array_release(s);
  /* e = tanh((a - b) * 2.5), a (M, N) float32, b (N,) float64 */
  CHECK_OK(call2(subtract, kiln_operand_array(a), kiln_operand_array(b), kiln_operand_new(&d),
                 NULL));
  CHECK_OK(call2(multiply, kiln_operand_array(d), kiln_operand_float(2.5), kiln_operand_new(&e),
                 NULL));
  kiln_array_release(d);
  CHECK_OK(call1(tanh_u, kiln_operand_array(e), kiln_operand_array(e), NULL));
  kiln_reduce_options axis0 = kiln_reduce_axis(0), axis1 = kiln_reduce_axis(1);
  CHECK_OK(kiln_ufunc_reduce(add, kiln_operand_array(e), kiln_operand_new(&col), &axis0, NULL));
  CHECK_OK(kiln_ufunc_reduce(maximum, kiln_operand_array(e), kiln_operand_new(&row), &axis1,
                             NULL));
  CHECK_OK(kiln_argmax(ctx, kiln_operand_array(e), kiln_operand_new(&arg), &all, NULL));
  kiln_operand in[2] = {kiln_operand_array(e), kiln_operand_array(c)};
  CHECK_OK(kiln_reduction_call(custom, 2, in, kiln_operand_new(&cus), &all, NULL));
  kiln_array_release(e);
  CHECK_OK(kiln_fusion_end(ctx, NULL));
  if (norm && col && row && arg && cus) {
    r->norm = download(norm);
    r->col_sum = download(col);
    r->row_max = download(row);
    r->arg = download(arg);
    r->custom = download(cus);
    r->col_bytes = (size_t)kiln_array_nbytes(col);
    r->row_bytes = (size_t)kiln_array_nbytes(row);
  }
  kiln_array_release(norm);
  kiln_array_release(col);
  kiln_array_release(row);
  kiln_array_release(arg);
  kiln_array_release(cus);
  kiln_ufunc_release(multiply);
  kiln_ufunc_release(add);
  kiln_ufunc_release(sqrt_u);
  kiln_ufunc_release(subtract);
  kiln_ufunc_release(maximum);
  kiln_ufunc_release(tanh_u);
}

static void test_reductions(kiln_context *ctx) {
  int64_t n = 100003, shape[2] = {37, 129}, row_shape[1] = {129};
  float *host = malloc((size_t)n * 4);
  harness_fill_random(host, KILN_FLOAT32, n, -2, 2);
  kiln_array *x = NULL;
  REQUIRE_OK(kiln_array_from_host(ctx, KILN_FLOAT32, 1, &n, NULL, host, &x));
  kiln_array *a = upload(ctx, KILN_FLOAT32, 2, shape, -1, 1);
  kiln_array *b = upload(ctx, KILN_FLOAT64, 1, row_shape, -1, 1);
  kiln_array *c = upload(ctx, KILN_FLOAT32, 2, shape, 0.5, 2);
  kiln_reduction_desc desc = {
      .name = "weighted_abs", .signature = "float64(float64 v, float32 w)",
      .accumulator = KILN_FLOAT64, .map_expr = "fabs(v) * w", .reduce_expr = "a + b",
      .post_expr = "a / 2", .identity = "0"};
  kiln_reduction *custom = NULL;
  REQUIRE_OK(kiln_reduction_create(ctx, &desc, &custom));
  reduce_results plain = {0}, fused = {0};
  set_fusion(0);
  reductions_once(ctx, x, a, b, c, custom, &plain);
  set_fusion(1);
  kiln_fusion_counters before, after;
  kiln_fusion_counters_get(&before);
  reductions_once(ctx, x, a, b, c, custom, &fused);
  kiln_fusion_counters_get(&after);
  printf("  %llu reductions folded %llu calls\n",
         (unsigned long long)(after.folds - before.folds),
         (unsigned long long)(after.folded - before.folded));
  CHECK(after.folds - before.folds == 5);
  if (plain.norm && fused.norm) {
    CHECK_MSG(memcmp(plain.norm, fused.norm, 4) == 0, "norm bits differ");
    CHECK_MSG(memcmp(plain.col_sum, fused.col_sum, plain.col_bytes) == 0, "column sums differ");
    CHECK_MSG(memcmp(plain.row_max, fused.row_max, plain.row_bytes) == 0, "row maxima differ");
    CHECK_MSG(memcmp(plain.arg, fused.arg, 8) == 0, "argmax differs");
    CHECK_MSG(memcmp(plain.custom, fused.custom, 8) == 0, "custom reduction differs");
    double want = 0;
    for (int64_t i = 0; i < n; i++) want += (double)(host[i] * host[i]);
    float got;
    memcpy(&got, fused.norm, 4);
    CHECK_CLOSE(got, sqrt(want), 1e-5, 0);
  } else {
    CHECK_MSG(0, "a reduction produced no result");
  }
  free(plain.norm), free(plain.col_sum), free(plain.row_max), free(plain.arg), free(plain.custom);
  free(fused.norm), free(fused.col_sum), free(fused.row_max), free(fused.arg), free(fused.custom);
  kiln_reduction_release(custom);
  kiln_array_release(x);
  kiln_array_release(a);
  kiln_array_release(b);
  kiln_array_release(c);
  free(host);
}

/* The compile-check catalog's fused samples (NVRTC and hiprtc build them
 * in CI) compile on this backend too. */
static void test_catalog_sources(kiln_context *ctx) {
  kiln_catalog catalog = {0};
  CHECK_OK(kiln_fusion_catalog_add(&catalog));
  CHECK(catalog.count == 4);
  for (int i = 0; i < catalog.count; i++) {
    kiln_kernel *k = NULL;
    CHECK_MSG(kiln_kernel_create(ctx, catalog.entries[i].source, "kiln_fused", NULL, &k) == KILN_OK,
              "%s: %s", catalog.entries[i].name, kiln_last_error());
    kiln_kernel_release(k);
  }
  kiln_catalog_free(&catalog);
}

/* ---- mean and variance in one pass ----------------------------------------------------- */

/* A custom reduction whose accumulator is a complex128 carries two sums,
 * (sum y, sum y*y), so one pass gives both moments; its post step turns
 * them into (mean, variance) for n elements (a literal). Fed by a recorded
 * chain y = x * 0.5 + 0.25, the chain folds into its map: one kernel
 * reads x. Fused and unfused give the same bits; the values match plain C
 * in double. */
static void moments_once(kiln_context *ctx, kiln_reduction *moments, kiln_array *x,
                         double out[2]) {
  kiln_ufunc *multiply = builtin(ctx, "multiply"), *add = builtin(ctx, "add");
  kiln_array *t = NULL, *y = NULL, *m = NULL;
  CHECK_OK(kiln_fusion_begin(ctx, NULL));
  CHECK_OK(call2(multiply, kiln_operand_array(x), kiln_operand_float(0.5), kiln_operand_new(&t),
                 NULL));
  CHECK_OK(call2(add, kiln_operand_array(t), kiln_operand_float(0.25), kiln_operand_new(&y), NULL));
  kiln_array_release(t);
  kiln_operand in[1] = {kiln_operand_array(y)};
  CHECK_OK(kiln_reduction_call(moments, 1, in, kiln_operand_new(&m), NULL, NULL));
  kiln_array_release(y);
  CHECK_OK(kiln_fusion_end(ctx, NULL));
  out[0] = out[1] = 0;
  if (m) CHECK_OK(kiln_array_to_host(m, out, NULL));
  kiln_array_release(m);
  kiln_ufunc_release(multiply);
  kiln_ufunc_release(add);
}

static void test_moments_one_pass(kiln_context *ctx) {
  int64_t sizes[] = {1, 1031, 100003};
  for (int c = 0; c < 3; c++) {
    int64_t n = sizes[c];
    char post[256];
    snprintf(post, sizeof post,
             "kiln_complex128_make(a.real / %lld.0, a.imag / %lld.0 - (a.real / %lld.0) * "
             "(a.real / %lld.0))", (long long)n, (long long)n, (long long)n, (long long)n);
    kiln_reduction_desc desc = {
        .name = "moments", .signature = "complex128(float32 y)",
        .accumulator = KILN_COMPLEX128,
        .map_expr = "kiln_complex128_make((double)y, (double)y * (double)y)",
        .reduce_expr = "kiln_complex128_add(a, b)", .post_expr = post,
        .identity = "kiln_complex128_make(0, 0)"};
    kiln_reduction *moments = NULL;
    REQUIRE_OK(kiln_reduction_create(ctx, &desc, &moments));
    float *host = malloc((size_t)n * 4);
    harness_fill_random(host, KILN_FLOAT32, n, -2, 2);
    kiln_array *x = NULL;
    REQUIRE_OK(kiln_array_from_host(ctx, KILN_FLOAT32, 1, &n, NULL, host, &x));
    double plain[2], fused[2];
    set_fusion(0);
    moments_once(ctx, moments, x, plain);
    set_fusion(1);
    kiln_fusion_counters before, after;
    kiln_fusion_counters_get(&before);
    moments_once(ctx, moments, x, fused);
    kiln_fusion_counters_get(&after);
    CHECK_MSG(after.folds == before.folds + 1 && after.folded == before.folded + 2 &&
                  after.kernels == before.kernels,
              "n %lld: %llu folds of %llu calls, %llu fused kernels", (long long)n,
              (unsigned long long)(after.folds - before.folds),
              (unsigned long long)(after.folded - before.folded),
              (unsigned long long)(after.kernels - before.kernels));
    CHECK_MSG(memcmp(plain, fused, sizeof plain) == 0, "n %lld: fused moments' bits differ",
              (long long)n);
    double sum = 0, sq = 0;
    for (int64_t i = 0; i < n; i++) {
      float y = host[i] * 0.5f;
      y = y + 0.25f;
      sum += y;
      sq += (double)y * y;
    }
    double mean = sum / (double)n;
    CHECK_CLOSE(fused[0], mean, 1e-12, 1e-14);
    CHECK_CLOSE(fused[1], sq / (double)n - mean * mean, 1e-9, 1e-12);
    free(host);
    kiln_array_release(x);
    kiln_reduction_release(moments);
  }
}

/* ---- a second run of a chain compiles nothing ---------------------------------------- */

/* The fused kernel is cached like every kernel: run again (other arrays of
 * the shape, another scalar value: scalars are kernel arguments) the chain
 * builds no program; in a new context it builds one from the memory-cache
 * miss but compiles none (the disk cache holds it). The kernel-cache
 * counters count builds and compiles; the fusion counters show each run
 * was one fused kernel, and the values are checked against plain C. */
static void test_second_run_compiles_nothing(kiln_context *ctx) {
  set_fusion(1);
  kiln_context *contexts[2] = {ctx, NULL};
  CHECK_OK(kiln_context_create(NULL, &contexts[1]));
  const char *cache = getenv("KILN_CACHE");
  int disk = !(cache && strcmp(cache, "0") == 0);
  int64_t n = 1031;
  for (int c = 0; c < 2 && contexts[c]; c++) {
    kiln_context *cx = contexts[c];
    kiln_ufunc *multiply = builtin(cx, "multiply"), *add = builtin(cx, "add"), *act = NULL;
    REQUIRE_OK(kiln_ufunc_create(cx, "tanh_by_exp", 1, tanh_sigs, TANH_BODY, NULL, &act));
    for (int run = 0; run < 3; run++) {
      double s = 0.25 + run; /* the first run of the first context may compile */
      kiln_array *x = upload(cx, KILN_FLOAT32, 1, &n, -2, 2), *w = upload(cx, KILN_FLOAT32, 1, &n, -1, 1);
      uint64_t built0, compiled0, built1, compiled1;
      kiln_fusion_counters before, after;
      kiln_program_cache_counts(&built0, &compiled0);
      kiln_fusion_counters_get(&before);
      kiln_array *y = three_calls(cx, x, s, w, multiply, add, act); /* tanh(x*s + w) */
      kiln_fusion_counters_get(&after);
      kiln_program_cache_counts(&built1, &compiled1);
      CHECK_MSG(after.kernels == before.kernels + 1 && after.fused == before.fused + 3,
                "context %d run %d: %llu fused kernels, %llu nodes", c, run,
                (unsigned long long)(after.kernels - before.kernels),
                (unsigned long long)(after.fused - before.fused));
      if (run > 0)
        CHECK_MSG(built1 == built0 && compiled1 == compiled0,
                  "context %d run %d: %llu programs built, %llu compiled", c, run,
                  (unsigned long long)(built1 - built0), (unsigned long long)(compiled1 - compiled0));
      if (run == 0 && c == 1) /* its memory cache is empty: the counter must see it */
        CHECK_MSG(built1 > built0, "a new context built no program");
      if (run == 0 && c == 1 && disk)
        CHECK_MSG(compiled1 == compiled0, "a new context compiled %llu modules (built %llu)",
                  (unsigned long long)(compiled1 - compiled0),
                  (unsigned long long)(built1 - built0));
      float hx[1031], hw[1031], hy[1031];
      CHECK_OK(kiln_array_to_host(x, hx, NULL));
      CHECK_OK(kiln_array_to_host(w, hw, NULL));
      CHECK_OK(kiln_array_to_host(y, hy, NULL));
      for (int64_t i = 0; i < n; i++) {
        float v = hx[i] * (float)s + hw[i]; /* float32 steps, no contraction */
        CHECK_CLOSE(hy[i], tanh((double)v), 1e-5, 1e-6);
      }
      kiln_array_release(x);
      kiln_array_release(w);
      kiln_array_release(y);
    }
    kiln_ufunc_release(multiply);
    kiln_ufunc_release(add);
    kiln_ufunc_release(act);
  }
  if (!disk) printf("  (KILN_CACHE=0: the new context's compile from disk is not checked)\n");
  kiln_context_release(contexts[1]);
}

/* ---- four elements per trip, aligned or not ------------------------------------ */

/* Fused kernels over contiguous 4-byte operands take four consecutive
 * elements per trip with 16-byte loads and stores when every operand's
 * first element is 16-byte aligned, else the batched scalar trips
 * (core/codegen/elementwise.c): views shifted by 0..3 elements reach both
 * (and the tails of fewer than four), each checked against the unfused
 * calls' bits and plain C; an int32 chain takes the integer vectors. */
/* less7(add(multiply(a, b), a)) in one scope, intermediates released. */
static kiln_array *int_chain(kiln_context *ctx, kiln_array *a, kiln_array *b, kiln_ufunc *multiply,
                             kiln_ufunc *add, kiln_ufunc *less7) {
  kiln_array *t1 = NULL, *t2 = NULL, *out = NULL;
  CHECK_OK(kiln_fusion_begin(ctx, NULL));
  CHECK_OK(call2(multiply, kiln_operand_array(a), kiln_operand_array(b), kiln_operand_new(&t1), NULL));
  CHECK_OK(call2(add, kiln_operand_array(t1), kiln_operand_array(a), kiln_operand_new(&t2), NULL));
  kiln_array_release(t1);
  CHECK_OK(call1(less7, kiln_operand_array(t2), kiln_operand_new(&out), NULL));
  kiln_array_release(t2);
  CHECK_OK(kiln_fusion_end(ctx, NULL));
  return out;
}

static void test_quads_and_shifted_views(kiln_context *ctx) {
  kiln_ufunc *divide = builtin(ctx, "divide"), *multiply = builtin(ctx, "multiply");
  kiln_ufunc *add = builtin(ctx, "add"), *act = NULL, *less7 = NULL;
  REQUIRE_OK(kiln_ufunc_create(ctx, "tanh_by_exp", 1, tanh_sigs, TANH_BODY, NULL, &act));
  static const char *const int_sigs[] = {"int32(int32 x)"};
  REQUIRE_OK(kiln_ufunc_create(ctx, "less7", 1, int_sigs, "return x - 7;", NULL, &less7));
  int64_t sizes[] = {5, 1031};
  for (int c = 0; c < 2; c++)
    for (int shift = 0; shift < 4; shift++) {
      int64_t n = sizes[c], padded = n + 3;
      float *g = malloc((size_t)padded * 4), *w = malloc((size_t)padded * 4);
      int32_t *a = malloc((size_t)padded * 4), *b = malloc((size_t)padded * 4);
      harness_fill_random(g, KILN_FLOAT32, padded, 0, 255);
      harness_fill_random(w, KILN_FLOAT32, padded, -1, 1);
      harness_fill_random(a, KILN_INT32, padded, -1000, 1000);
      harness_fill_random(b, KILN_INT32, padded, -1000, 1000);
      kiln_array *bg = NULL, *bw = NULL, *ba = NULL, *bb = NULL, *vg = NULL, *vw = NULL,
                 *va = NULL, *vb = NULL;
      CHECK_OK(kiln_array_from_host(ctx, KILN_FLOAT32, 1, &padded, NULL, g, &bg));
      CHECK_OK(kiln_array_from_host(ctx, KILN_FLOAT32, 1, &padded, NULL, w, &bw));
      CHECK_OK(kiln_array_from_host(ctx, KILN_INT32, 1, &padded, NULL, a, &ba));
      CHECK_OK(kiln_array_from_host(ctx, KILN_INT32, 1, &padded, NULL, b, &bb));
      /* g shifted by `shift`, w by 3 - shift: aligned together only at 0
       * and 3 apart; a and b by the same shift */
      kiln_slice sg = {shift, shift + n, 1}, sw = {3 - shift, 3 - shift + n, 1};
      CHECK_OK(kiln_array_slice(bg, 1, &sg, &vg));
      CHECK_OK(kiln_array_slice(bw, 1, &sw, &vw));
      CHECK_OK(kiln_array_slice(ba, 1, &sg, &va));
      CHECK_OK(kiln_array_slice(bb, 1, &sg, &vb));
      set_fusion(0);
      kiln_array *plain = hidden_layer(ctx, vg, vw, divide, multiply, act);
      kiln_array *plain_int = int_chain(ctx, va, vb, multiply, add, less7);
      set_fusion(1);
      kiln_array *fused = hidden_layer(ctx, vg, vw, divide, multiply, act);
      kiln_array *fused_int = int_chain(ctx, va, vb, multiply, add, less7);
      unsigned char *p = download(plain), *f = download(fused);
      unsigned char *pi = download(plain_int), *fi = download(fused_int);
      CHECK_MSG(memcmp(p, f, (size_t)n * 4) == 0, "n %lld shift %d: fused bits differ",
                (long long)n, shift);
      CHECK_MSG(memcmp(pi, fi, (size_t)n * 4) == 0, "n %lld shift %d: fused int32 differs",
                (long long)n, shift);
      for (int64_t i = 0; i < n; i++) {
        float y;
        int32_t z;
        memcpy(&y, f + 4 * i, 4);
        memcpy(&z, fi + 4 * i, 4);
        double x = (float)((double)(g[shift + i] / 255.0f) * (double)w[3 - shift + i]);
        CHECK_CLOSE(y, tanh(x), 1e-5, 1e-6);
        int32_t want = a[shift + i] * b[shift + i] + a[shift + i] - 7;
        CHECK_MSG(z == want, "n %lld shift %d: int32 element %lld is %d, not %d", (long long)n,
                  shift, (long long)i, (int)z, (int)want);
      }
      free(p), free(f), free(pi), free(fi), free(g), free(w), free(a), free(b);
      kiln_array *arrays[] = {plain, fused, plain_int, fused_int, vg, vw, va, vb, bg, bw, ba, bb};
      for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; k++) kiln_array_release(arrays[k]);
    }
  kiln_ufunc_release(divide);
  kiln_ufunc_release(multiply);
  kiln_ufunc_release(add);
  kiln_ufunc_release(act);
  kiln_ufunc_release(less7);
}

static const harness_test tests[] = {
    {"hidden_layer", test_hidden_layer},
    {"random_programs", test_random_programs},
    {"order_and_hazards", test_order_and_hazards},
    {"long_chain", test_long_chain},
    {"errors_in_scope", test_errors_in_scope},
    {"fallback_unfused", test_fallback_unfused},
    {"threads", test_threads},
    {"reductions", test_reductions},
    {"catalog_sources", test_catalog_sources},
    {"second_run_compiles_nothing", test_second_run_compiles_nothing},
    {"moments_one_pass", test_moments_one_pass},
    {"quads_and_shifted_views", test_quads_and_shifted_views},
    {0},
};

int main(int argc, char **argv) { return harness_main(argc, argv, tests); }
