/* Conformance (white box): the repeat-call cache (core/ufunc/ufunc_call_cache.c)
 * never serves a stale launch. A repeat call reuses what an earlier call of
 * the same ufunc with operands of the same kinds, dtypes, shapes and
 * strides prepared; these tests interleave calls whose keys differ in one
 * thing each (shape, strides, broadcasting, dtypes, the scalar's kind,
 * empty), more of them than the cache holds, so entries are evicted and
 * refilled, and calls that share a key but not their buffers, view offsets
 * or scalar values; every result is checked against a host reference, and
 * the elements of an output's base outside its view must stay untouched.
 * Also: a new ufunc (perhaps at a freed one's address) never finds the old
 * one's launch; bad input after a cached call still gets its status and
 * message; fusion scopes record what the cache would run; threads and
 * streams. */
#include <pthread.h>

#include "core/ufunc/ufunc_internal.h"
#include "ufunc_testing.h"

#define BASE 97 /* elements of a base array sliced into views: a prime */
#define NCASES 12

/* One call: the bases of x, y and out, the views passed (a base itself or a
 * view of it), the scalar a, and which signature NumPy's rules pick. */
typedef struct call {
  kiln_array *base[3], *view[3];
  kiln_operand a;
  double a_value;
  int wide; /* the float64 signature */
} call;

static const char *const case_names[NCASES] = {
    "contiguous float32",       "offset slices (the same key as contiguous)",
    "step -2 and step 2 views (contiguous's shape)", "broadcast (5,1) + (1,7), float32 scalar",
    "transposed x, row y",      "float64 arrays",
    "float32 in, float64 out",  "float64 scalar (float64 signature)",
    "int32 x (contiguous but for its dtype)",                  "empty",
    "61 elements (contiguous but for its shape)",
    "float32 scalar (the float64 scalar's key but for its dtype)"};

static kiln_array *nan_array(kiln_context *ctx, kiln_dtype dtype, int ndim,
                             const int64_t *shape) {
  int64_t n = shape_size(ndim, shape);
  double *host = malloc((size_t)n * 8 + 8);
  float *host32 = (float *)host;
  for (int64_t i = 0; i < n; i++) {
    if (dtype == KILN_FLOAT64) host[i] = NAN;
    else host32[i] = NAN;
  }
  kiln_array *a = NULL;
  kiln_status s = kiln_array_from_host(ctx, dtype, ndim, shape, NULL, host, &a);
  if (s != KILN_OK) harness_fail(__FILE__, __LINE__, "from_host: %s", kiln_last_error());
  free(host);
  return a;
}

static kiln_array *slice1(const kiln_array *base, int64_t start, int64_t stop, int64_t step) {
  kiln_slice s = {start, stop, step};
  kiln_array *v = NULL;
  kiln_status status = kiln_array_slice(base, 1, &s, &v);
  if (status != KILN_OK) harness_fail(__FILE__, __LINE__, "slice: %s", kiln_last_error());
  return v;
}

/* x, y and out: whole arrays of n elements. */
static void plain(kiln_context *ctx, call *c, kiln_dtype x, kiln_dtype y, kiln_dtype out,
                  int64_t n) {
  c->base[0] = random_array(ctx, x, 1, &n, -50, 50);
  c->base[1] = random_array(ctx, y, 1, &n, -1, 1);
  c->base[2] = nan_array(ctx, out, 1, &n);
}

/* Case `which` of round r: fresh arrays (so fresh buffers) of random values,
 * offsets that move with r, a new scalar value. */
static void build(kiln_context *ctx, int which, int r, call *c) {
  memset(c, 0, sizeof *c);
  int64_t n64 = 64, nbase = BASE, empty = 0;
  int64_t s51[2] = {5, 1}, s17[2] = {1, 7}, s57[2] = {5, 7}, s75[2] = {7, 5}, s7 = 7;
  c->a_value = harness_rand_uniform(0.5, 2.0);
  c->a = kiln_operand_float(c->a_value);
  kiln_dtype f32 = KILN_FLOAT32, f64 = KILN_FLOAT64;
  switch (which) {
    case 0:
      plain(ctx, c, f32, f32, f32, n64);
      break;
    case 1:
      plain(ctx, c, f32, f32, f32, nbase);
      c->view[0] = slice1(c->base[0], r % 7, r % 7 + 64, 1);
      c->view[1] = slice1(c->base[1], 2 * r % 9, 2 * r % 9 + 64, 1);
      c->view[2] = slice1(c->base[2], 3 * r % 11, 3 * r % 11 + 64, 1);
      break;
    case 2: { /* contiguous's shape (64,), other strides: x[::-2], y[r%2 :: 2], out[::2] */
      int64_t n127 = 127, n129 = 129, n128 = 128;
      c->base[0] = random_array(ctx, f32, 1, &n127, -1, 1);
      c->base[1] = random_array(ctx, f32, 1, &n129, -1, 1);
      c->base[2] = nan_array(ctx, f32, 1, &n128);
      c->view[0] = slice1(c->base[0], KILN_NONE, KILN_NONE, -2);
      c->view[1] = slice1(c->base[1], r % 2, r % 2 + 128, 2);
      c->view[2] = slice1(c->base[2], KILN_NONE, KILN_NONE, 2);
      break;
    }
    case 3:
      c->base[0] = random_array(ctx, f32, 2, s51, -1, 1);
      c->base[1] = random_array(ctx, f32, 2, s17, -1, 1);
      c->base[2] = nan_array(ctx, f32, 2, s57);
      c->a = kiln_operand_float32((float)c->a_value);
      c->a_value = (float)c->a_value;
      break;
    case 4: {
      c->base[0] = random_array(ctx, f32, 2, s75, -1, 1);
      c->base[1] = random_array(ctx, f32, 1, &s7, -1, 1);
      c->base[2] = nan_array(ctx, f32, 2, s57);
      kiln_status s = kiln_array_transpose(c->base[0], NULL, &c->view[0]);
      if (s != KILN_OK) harness_fail(__FILE__, __LINE__, "transpose: %s", kiln_last_error());
      break;
    }
    case 5:
      plain(ctx, c, f64, f64, f64, n64);
      c->wide = 1;
      break;
    case 6:
      plain(ctx, c, f32, f32, f64, n64);
      break;
    case 7:
      plain(ctx, c, f32, f32, f32, n64);
      c->a = kiln_operand_float64(c->a_value);
      c->wide = 1;
      break;
    case 8:
      plain(ctx, c, KILN_INT32, f32, f32, n64);
      c->wide = 1; /* int32 casts safely to float64 only */
      break;
    case 11:
      plain(ctx, c, f32, f32, f32, n64);
      c->a_value = (float)c->a_value;
      c->a = kiln_operand_float32((float)c->a_value);
      break;
    case 10: {
      int64_t n61 = 61;
      plain(ctx, c, f32, f32, f32, n61);
      break;
    }
    default:
      plain(ctx, c, f32, f32, f32, empty);
      break;
  }
  for (int k = 0; k < 3; k++)
    if (!c->view[k]) c->view[k] = kiln_array_retain(c->base[k]);
}

static void release_call(call *c) {
  for (int k = 0; k < 3; k++) {
    kiln_array_release(c->view[k]);
    kiln_array_release(c->base[k]);
  }
}

/* x * a + y as the chosen signature computes it (no contraction), then
 * stored in out's dtype: the very bits a device computes, so a launch of
 * the other signature (a float64 scalar's key served by a weak float's)
 * shows. */
static double expected(const call *c, double x, double y, kiln_dtype out) {
  double r;
  if (c->wide) {
    volatile double product = x * c->a_value;
    r = product + y;
  } else {
    volatile float product = (float)x * (float)c->a_value;
    r = (float)(product + (float)y);
  }
  return out == KILN_FLOAT32 ? (float)r : r;
}

/* Checks c's output against the reference; 0 with a reason in why. */
static int check_call(const call *c, char *why, size_t size) {
  char *storage[3];
  mirror m[3];
  for (int k = 0; k < 3; k++) m[k] = mirror_of_view(c->base[k], c->view[k], &storage[k]);
  int ok = 1;
  int64_t idx[KILN_MAX_DIMS] = {0}, checked = 0;
  kiln_dtype out_dtype = kiln_array_dtype(c->view[2]);
  if (kiln_array_size(c->view[2]) > 0) {
    do {
      double want = expected(c, mirror_get(&m[0], m[2].ndim, idx),
                             mirror_get(&m[1], m[2].ndim, idx), out_dtype);
      double got = mirror_get(&m[2], m[2].ndim, idx);
      if (got != want) { /* IEEE products and sums, no contraction: exact */
        snprintf(why, size, "element %lld: %.9g, want %.9g", (long long)checked, got, want);
        ok = 0;
      }
      checked++;
    } while (ok && index_next(m[2].ndim, m[2].shape, idx));
  }
  /* the rest of out's base is untouched: NaN as filled */
  int64_t nan = 0, total = kiln_array_size(c->base[2]);
  for (int64_t i = 0; i < total; i++) nan += isnan(harness_get(storage[2], out_dtype, i));
  if (ok && nan != total - kiln_array_size(c->view[2])) {
    snprintf(why, size, "%lld elements of out's base written, the view has %lld",
             (long long)(total - nan), (long long)kiln_array_size(c->view[2]));
    ok = 0;
  }
  for (int k = 0; k < 3; k++) free(storage[k]);
  return ok;
}

static kiln_ufunc *make_axpy(kiln_context *ctx) {
  static const char *const sigs[] = {"float32(float32 x, float32 y, float32 a)",
                                     "float64(float64 x, float64 y, float64 a)"};
  kiln_ufunc *u = NULL;
  kiln_status s = kiln_ufunc_create(ctx, "axpy", 2, sigs, "return x * a + y;", NULL, &u);
  if (s != KILN_OK) harness_fail(__FILE__, __LINE__, "create: %s", kiln_last_error());
  return u;
}

/* Builds case `which` of round r, calls it `times` times (on `stream`),
 * checks; 0 with a reason in why. */
static int run_case(kiln_context *ctx, kiln_ufunc *u, int which, int r, int times,
                    kiln_stream *stream, char *why, size_t size) {
  /* the harness's random numbers are one sequence for all threads */
  static pthread_mutex_t random_lock = PTHREAD_MUTEX_INITIALIZER;
  call c;
  pthread_mutex_lock(&random_lock);
  build(ctx, which, r, &c);
  pthread_mutex_unlock(&random_lock);
  kiln_operand in[3] = {kiln_operand_array(c.view[0]), kiln_operand_array(c.view[1]), c.a};
  kiln_operand out[1] = {kiln_operand_array(c.view[2])};
  int ok = 1;
  for (int t = 0; ok && t < times; t++) {
    kiln_status s = kiln_ufunc_call(u, 3, in, 1, out, stream);
    if (s != KILN_OK) {
      snprintf(why, size, "call %d: %s: %s", t, kiln_status_string(s), kiln_last_error());
      ok = 0;
    }
  }
  if (ok && stream) ok = kiln_stream_synchronize(ctx, stream) == KILN_OK;
  if (ok) ok = check_call(&c, why, size);
  release_call(&c);
  return ok;
}

static void test_interleaved_keys(kiln_context *ctx) {
  kiln_ufunc *u = make_axpy(ctx);
  char why[256] = "";
  for (int r = 0; r < 6; r++) {
    for (int i = 0; i < NCASES; i++) {
      int which = r % 2 ? NCASES - 1 - i : (i * 3 + r) % NCASES; /* orders differ per round */
      CHECK_MSG(run_case(ctx, u, which, r, 1, NULL, why, sizeof why), "round %d, %s: %s", r,
                case_names[which], why);
    }
  }
  /* each case thrice in a row: the second and third calls are hits */
  for (int which = 0; which < NCASES; which++) {
    uint64_t before = kiln_ufunc_cache_hits();
    CHECK_MSG(run_case(ctx, u, which, 7, 3, NULL, why, sizeof why), "%s, thrice: %s",
              case_names[which], why);
    CHECK_MSG(kiln_ufunc_cache_hits() - before >= 2, "%s: %llu cache hits in 3 calls",
              case_names[which], (unsigned long long)(kiln_ufunc_cache_hits() - before));
  }
  kiln_ufunc_release(u);
}

/* A ufunc made after another was released (malloc may give it the same
 * address) must not run the old one's kernel. */
static void test_new_ufunc_never_finds_an_old_launch(kiln_context *ctx) {
  static const char *const sigs[] = {"float32(float32 x, float32 y)"};
  int64_t n = 31;
  kiln_array *x = random_array(ctx, KILN_FLOAT32, 1, &n, -1, 1);
  kiln_array *y = random_array(ctx, KILN_FLOAT32, 1, &n, -1, 1);
  kiln_array *out = NULL;
  REQUIRE_OK(kiln_array_empty(ctx, KILN_FLOAT32, 1, &n, &out));
  float hx[31], hy[31], ho[31];
  REQUIRE_OK(kiln_array_to_host(x, hx, NULL));
  REQUIRE_OK(kiln_array_to_host(y, hy, NULL));
  kiln_operand in[2] = {kiln_operand_array(x), kiln_operand_array(y)};
  kiln_operand o[1] = {kiln_operand_array(out)};
  for (int i = 0; i < 6; i++) {
    int minus = i % 2;
    kiln_ufunc *u = NULL;
    REQUIRE_OK(kiln_ufunc_create(ctx, "same_name", 1, sigs,
                                 minus ? "return x - y;" : "return x + y;", NULL, &u));
    uint64_t before = kiln_ufunc_cache_hits();
    CHECK_OK(kiln_ufunc_call(u, 2, in, 1, o, NULL));
    CHECK_MSG(kiln_ufunc_cache_hits() == before, "a new ufunc's first call was a cache hit");
    CHECK_OK(kiln_ufunc_call(u, 2, in, 1, o, NULL));
    CHECK(kiln_ufunc_cache_hits() == before + 1);
    CHECK_OK(kiln_array_to_host(out, ho, NULL));
    for (int k = 0; k < 31; k++)
      CHECK_MSG(ho[k] == (minus ? hx[k] - hy[k] : hx[k] + hy[k]), "ufunc %d element %d", i, k);
    kiln_ufunc_release(u);
  }
  kiln_array_release(out);
  kiln_array_release(x);
  kiln_array_release(y);
}

static void check_int8(kiln_array *out, const int8_t *x, int add, const char *what) {
  int8_t got[16];
  CHECK_OK(kiln_array_to_host(out, got, NULL));
  for (int i = 0; i < 16; i++)
    CHECK_MSG(got[i] == (int8_t)(x[i] + add), "%s: element %d is %d, want %d", what, i, got[i],
              (int8_t)(x[i] + add));
}

/* What the full path refuses is refused after a cached call of the same
 * key too, with the full path's status and message, and leaves the cache
 * working. */
static void test_bad_input_after_a_cached_call(kiln_context *ctx) {
  kiln_ufunc *add = NULL, *less = NULL;
  REQUIRE_OK(kiln_ufunc_builtin(ctx, "add", &add));
  REQUIRE_OK(kiln_ufunc_builtin(ctx, "less", &less));
  int64_t n = 16, one = 1;
  int8_t hx[16];
  for (int i = 0; i < 16; i++) hx[i] = (int8_t)(i * 7 - 50);
  kiln_array *x = NULL, *out = NULL, *flags = NULL, *single = NULL, *spread = NULL;
  REQUIRE_OK(kiln_array_from_host(ctx, KILN_INT8, 1, &n, NULL, hx, &x));
  REQUIRE_OK(kiln_array_empty(ctx, KILN_INT8, 1, &n, &out));
  REQUIRE_OK(kiln_array_empty(ctx, KILN_BOOL, 1, &n, &flags));
  REQUIRE_OK(kiln_array_empty(ctx, KILN_INT8, 1, &one, &single));
  REQUIRE_OK(kiln_array_broadcast_to(single, 1, &n, &spread));
  kiln_operand o[1] = {kiln_operand_array(out)};

  kiln_operand in[2] = {kiln_operand_array(x), kiln_operand_int(5)};
  CHECK_OK(kiln_ufunc_call(add, 2, in, 1, o, NULL));
  uint64_t before = kiln_ufunc_cache_hits();
  CHECK_OK(kiln_ufunc_call(add, 2, in, 1, o, NULL));
  CHECK(kiln_ufunc_cache_hits() == before + 1);
  check_int8(out, hx, 5, "x + 5");

  /* a weak int out of int8's range: NumPy 2's OverflowError */
  in[1] = kiln_operand_int(1000);
  CHECK_STATUS(kiln_ufunc_call(add, 2, in, 1, o, NULL), KILN_ERROR_OUT_OF_RANGE);
  CHECK(strstr(kiln_last_error(), "out of range") != NULL);
  in[1] = kiln_operand_int(-3);
  CHECK_OK(kiln_ufunc_call(add, 2, in, 1, o, NULL));
  check_int8(out, hx, -3, "x - 3 after the refused call");

  /* NULL, an array of another context, a broadcast output, wrong counts */
  in[1] = kiln_operand_int(5);
  kiln_operand bad[2] = {kiln_operand_array(NULL), kiln_operand_int(5)};
  CHECK_STATUS(kiln_ufunc_call(add, 2, bad, 1, o, NULL), KILN_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(kiln_last_error(), "NULL array") != NULL);
  kiln_context *other = NULL;
  if (kiln_context_create(NULL, &other) == KILN_OK) {
    kiln_array *foreign = NULL;
    CHECK_OK(kiln_array_from_host(other, KILN_INT8, 1, &n, NULL, hx, &foreign));
    bad[0] = kiln_operand_array(foreign);
    CHECK_STATUS(kiln_ufunc_call(add, 2, bad, 1, o, NULL), KILN_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(kiln_last_error(), "another context") != NULL);
    kiln_array_release(foreign);
    kiln_context_release(other);
  }
  kiln_operand to_spread[1] = {kiln_operand_array(spread)};
  CHECK_STATUS(kiln_ufunc_call(add, 2, in, 1, to_spread, NULL), KILN_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(kiln_last_error(), "broadcast view") != NULL);
  CHECK_STATUS(kiln_ufunc_call(add, 1, in, 1, o, NULL), KILN_ERROR_INVALID_ARGUMENT);
  before = kiln_ufunc_cache_hits();
  CHECK_OK(kiln_ufunc_call(add, 2, in, 1, o, NULL));
  CHECK(kiln_ufunc_cache_hits() == before + 1);
  check_int8(out, hx, 5, "x + 5 after the refused calls");

  /* NumPy 2 compares an int8 array with an int out of its range by value:
   * such calls never come from the cache, whatever ran before */
  kiln_operand cmp[2] = {kiln_operand_array(x), kiln_operand_int(5)};
  kiln_operand fo[1] = {kiln_operand_array(flags)};
  for (int round = 0; round < 2; round++) {
    int64_t limits[3] = {5, 1000, -200};
    for (int l = 0; l < 3; l++) {
      cmp[1] = kiln_operand_int(limits[l]);
      CHECK_OK(kiln_ufunc_call(less, 2, cmp, 1, fo, NULL));
      uint8_t got[16];
      CHECK_OK(kiln_array_to_host(flags, got, NULL));
      for (int i = 0; i < 16; i++)
        CHECK_MSG(got[i] == (hx[i] < limits[l]), "x < %lld, element %d", (long long)limits[l],
                  i);
    }
  }
  kiln_array_release(spread);
  kiln_array_release(single);
  kiln_array_release(flags);
  kiln_array_release(out);
  kiln_array_release(x);
  kiln_ufunc_release(less);
  kiln_ufunc_release(add);
}

static void test_streams(kiln_context *ctx) {
  kiln_ufunc *u = make_axpy(ctx);
  kiln_stream *stream = NULL;
  REQUIRE_OK(kiln_stream_create(ctx, &stream));
  char why[256] = "";
  for (int r = 0; r < 3; r++)
    for (int which = 0; which < 5; which++)
      CHECK_MSG(run_case(ctx, u, which, r, 3, r % 2 ? stream : NULL, why, sizeof why),
                "round %d, %s: %s", r, case_names[which], why);
  kiln_stream_release(stream);
  kiln_ufunc_release(u);
}

/* Inside a fusion scope the recorder takes the calls (the cache would run
 * them at once); outside it, repeat calls come from the cache again. */
static void test_fusion_scope(kiln_context *ctx) {
  kiln_ufunc *u = make_axpy(ctx);
  call c;
  build(ctx, 0, 0, &c);
  kiln_operand in[3] = {kiln_operand_array(c.view[0]), kiln_operand_array(c.view[1]), c.a};
  kiln_operand out[1] = {kiln_operand_array(c.view[2])};
  char why[256] = "";
  CHECK_OK(kiln_ufunc_call(u, 3, in, 1, out, NULL));
  CHECK_OK(kiln_ufunc_call(u, 3, in, 1, out, NULL));
  const char *fusion = getenv("KILN_FUSION");
  int fusing = !(fusion && strcmp(fusion, "0") == 0);
  REQUIRE_OK(kiln_fusion_begin(ctx, NULL));
  c.a_value = 1.75;
  in[2] = c.a = kiln_operand_float(c.a_value);
  uint64_t before = kiln_ufunc_cache_hits();
  CHECK_OK(kiln_ufunc_call(u, 3, in, 1, out, NULL));
  CHECK_MSG(!fusing || kiln_ufunc_cache_hits() == before,
            "a call in a fusion scope ran from the cache");
  CHECK_OK(kiln_fusion_end(ctx, NULL));
  CHECK_MSG(check_call(&c, why, sizeof why), "in the scope: %s", why);
  c.a_value = 0.625;
  in[2] = c.a = kiln_operand_float(c.a_value);
  before = kiln_ufunc_cache_hits();
  CHECK_OK(kiln_ufunc_call(u, 3, in, 1, out, NULL));
  CHECK_MSG(kiln_ufunc_cache_hits() == before + 1, "after the scope: not from the cache");
  CHECK_MSG(check_call(&c, why, sizeof why), "after the scope: %s", why);
  release_call(&c);
  kiln_ufunc_release(u);
}

typedef struct worker {
  kiln_context *ctx;
  kiln_ufunc *u;
  int seed, failures;
  char why[256];
} worker;

static void *work(void *data) {
  worker *w = data;
  for (int r = 0; r < 8 && !w->failures; r++) {
    int which = (w->seed + r) % 6;
    if (!run_case(w->ctx, w->u, which, r, 2, NULL, w->why, sizeof w->why)) w->failures++;
  }
  return NULL;
}

/* One ufunc called from several threads with interleaved keys: each
 * thread's cache is its own. */
static void test_threads(kiln_context *ctx) {
  kiln_ufunc *u = make_axpy(ctx);
  worker w[3];
  pthread_t threads[3];
  for (int t = 0; t < 3; t++) {
    w[t] = (worker){.ctx = ctx, .u = u, .seed = t * 2};
    CHECK(pthread_create(&threads[t], NULL, work, &w[t]) == 0);
  }
  for (int t = 0; t < 3; t++) {
    pthread_join(threads[t], NULL);
    CHECK_MSG(w[t].failures == 0, "thread %d: %s", t, w[t].why);
  }
  kiln_ufunc_release(u);
}

static const harness_test tests[] = {
    {"interleaved_keys", test_interleaved_keys},
    {"new_ufunc_never_finds_an_old_launch", test_new_ufunc_never_finds_an_old_launch},
    {"bad_input_after_a_cached_call", test_bad_input_after_a_cached_call},
    {"streams", test_streams},
    {"fusion_scope", test_fusion_scope},
    {"threads", test_threads},
    {0}};

int main(int argc, char **argv) { return harness_main(argc, argv, tests); }
