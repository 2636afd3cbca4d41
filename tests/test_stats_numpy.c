/* tests/test_stats_numpy.c: kiln_mean / var / std, kiln_norm, kiln_isclose /
 * allclose, kiln_arange / linspace and kiln_array_item_* against NumPy 2
 * itself (tests/stats_numpy.py). Each case writes its random input (never
 * zeros) and kiln's result as raw files and one manifest line; one Python
 * run then recomputes every case with NumPy and compares (mean/var/std and
 * norm within float-sum tolerances, arange/linspace bit for bit, isclose
 * and allclose exactly). Skipped with the reason when no Python with NumPy 2
 * is found (tests/search_run.sh sets KILN_TEST_NUMPY). */
#include <unistd.h>

#include "harness.h"

static char dir[256];
static FILE *manifest;
static int file_count;

/* Writes bytes to a fresh file of the case directory; returns its path
 * (static storage, copied into the manifest at once). */
static const char *write_file(const void *data, size_t bytes) {
  static char path[320];
  snprintf(path, sizeof path, "%s/f%d.bin", dir, file_count++);
  FILE *f = fopen(path, "wb");
  if (!f) return NULL;
  if (bytes) fwrite(data, 1, bytes, f);
  fclose(f);
  return path;
}

/* Writes a result array's elements (C order, its own dtype) to a file and
 * the manifest's "got=... gotdtype=..." fields. */
static void write_result(const kiln_array *r) {
  int64_t n = kiln_array_size(r);
  kiln_dtype dt = kiln_array_dtype(r);
  size_t bytes = (size_t)n * kiln_dtype_size(dt);
  void *h = malloc(bytes + 1);
  CHECK_OK(kiln_array_to_host(r, h, NULL));
  fprintf(manifest, " got=%s gotdtype=%s", write_file(h, bytes), kiln_dtype_name(dt));
  free(h);
}

/* Random values of dtype in [lo, hi), zeros replaced by 1 (a zero would
 * hide a missing element). */
static void *random_input(kiln_dtype dt, int64_t n, double lo, double hi) {
  void *h = malloc((size_t)n * kiln_dtype_size(dt) + 1);
  harness_fill_random(h, dt, n, lo, hi);
  for (int64_t i = 0; i < n; i++)
    if (harness_get(h, dt, i) == 0) {
      if (dt == KILN_FLOAT32) ((float *)h)[i] = 1;
      else if (dt == KILN_FLOAT64) ((double *)h)[i] = 1;
      else ((int32_t *)h)[i] = 1;
    }
  return h;
}

static const kiln_dtype in_dtypes[] = {KILN_FLOAT32, KILN_FLOAT64, KILN_INT32};
static const int64_t shapes[][3] = {{1, 1, 1}, {1, 1, 97}, {3, 37, 53}, {4, 5, 7}};
static const int shape_ndims[] = {1, 1, 2, 3};

/* mean, var (ddof 0 and 1), std: every input dtype, several shapes, axis
 * None / first / last, keepdims both ways; the 0-d results also read with
 * kiln_array_item_float64. */
static void test_moments(kiln_context *ctx) {
  for (int d = 0; d < 3; d++)
    for (int s = 0; s < 4; s++) {
      kiln_dtype dt = in_dtypes[d];
      int ndim = shape_ndims[s];
      const int64_t *shape = shapes[s] + (3 - ndim);
      int64_t n = 1;
      for (int i = 0; i < ndim; i++) n *= shape[i];
      void *h = random_input(dt, n, dt == KILN_INT32 ? -1000 : -3, dt == KILN_INT32 ? 1000 : 5);
      kiln_array *a = NULL;
      REQUIRE_OK(kiln_array_from_host(ctx, dt, ndim, shape, NULL, h, &a));
      char in_path[320];
      snprintf(in_path, sizeof in_path, "%s", write_file(h, (size_t)n * kiln_dtype_size(dt)));
      for (int op = 0; op < 4; op++)       /* mean, var, var ddof=1, std ddof=1 */
        for (int ax = -1; ax < 2; ax++)    /* None, 0, -1 */
          for (int keep = 0; keep < 2; keep++) {
            kiln_reduce_options o = ax < 0 ? kiln_reduce_all() : kiln_reduce_axis(ax == 0 ? 0 : -1);
            o.keepdims = keep;
            int64_t ddof = op >= 2 ? 1 : 0;
            kiln_array *r = NULL;
            kiln_operand out = kiln_operand_new(&r), in = kiln_operand_array(a);
            kiln_status st = op == 0   ? kiln_mean(ctx, in, out, &o, NULL)
                             : op == 3 ? kiln_std(ctx, in, out, ddof, &o, NULL)
                                       : kiln_var(ctx, in, out, ddof, &o, NULL);
            CHECK_OK(st);
            if (!r) continue;
            static const char *names[] = {"mean", "var", "var", "std"};
            fprintf(manifest, "op=%s in=%s dtype=%s shape=", names[op], in_path,
                    kiln_dtype_name(dt));
            for (int i = 0; i < ndim; i++) fprintf(manifest, "%s%lld", i ? "," : "", (long long)shape[i]);
            fprintf(manifest, " axis=%s keepdims=%d ddof=%lld", ax < 0 ? "none" : ax == 0 ? "0" : "-1",
                    keep, (long long)ddof);
            write_result(r);
            if (kiln_array_ndim(r) == 0) {
              double item = 0;
              CHECK_OK(kiln_array_item_float64(r, &item));
              fprintf(manifest, " item=%a", item);
            }
            fprintf(manifest, "\n");
            kiln_array_release(r);
          }
      kiln_array_release(a);
      free(h);
    }
}

/* numpy.linalg.norm: vector ords 1, 2, inf, -inf, 0, 3 and None along an
 * axis and over a 1-D array, 'fro' and None over matrices. */
static void test_norm(kiln_context *ctx) {
  static const double ps[] = {1, 2, INFINITY, -INFINITY, 0, 3};
  for (int d = 0; d < 3; d++) {
    kiln_dtype dt = in_dtypes[d];
    int64_t shape[2] = {13, 29}, n = 13 * 29;
    void *h = random_input(dt, n, dt == KILN_INT32 ? -50 : -3, dt == KILN_INT32 ? 50 : 5);
    kiln_array *a = NULL;
    REQUIRE_OK(kiln_array_from_host(ctx, dt, 2, shape, NULL, h, &a));
    char in_path[320];
    snprintf(in_path, sizeof in_path, "%s", write_file(h, (size_t)n * kiln_dtype_size(dt)));
    for (int k = -1; k < 8; k++)       /* -1: None, 0..5: p, 6: fro, 7: None over (0, 1) */
      for (int ax = 0; ax < 2; ax++) { /* vector norms along axis 0 or -1 */
        if (k >= 6 && ax) continue;
        kiln_norm_options o = {0};
        const char *ord = "none";
        char pbuf[32];
        if (k >= 0 && k < 6) {
          o.order = KILN_NORM_P;
          o.p = ps[k];
          snprintf(pbuf, sizeof pbuf, "%s", isinf(ps[k]) ? (ps[k] > 0 ? "inf" : "-inf") : "");
          if (!isinf(ps[k])) snprintf(pbuf, sizeof pbuf, "%g", ps[k]);
          ord = pbuf;
        }
        if (k == 6) o.order = KILN_NORM_FRO, ord = "fro";
        if (k >= 6) {
          o.naxes = 2;
          o.axes[0] = 0;
          o.axes[1] = 1;
        } else {
          o.naxes = 1;
          o.axes[0] = ax ? -1 : 0;
        }
        o.keepdims = k == 2;
        kiln_array *r = NULL;
        CHECK_OK(kiln_norm(ctx, kiln_operand_array(a), kiln_operand_new(&r), &o, NULL));
        if (!r) continue;
        fprintf(manifest, "op=norm in=%s dtype=%s shape=13,29 ord=%s axis=%s keepdims=%d", in_path,
                kiln_dtype_name(dt), ord, k >= 6 ? "0,1" : ax ? "-1" : "0", o.keepdims);
        write_result(r);
        fprintf(manifest, "\n");
        kiln_array_release(r);
      }
    kiln_array_release(a);
    free(h);
  }
}

/* isclose / allclose: b near a (inside and outside the tolerance), NaNs
 * and infinities at shared and unshared places, equal_nan both ways. */
static void test_isclose(kiln_context *ctx) {
  for (int d = 0; d < 2; d++) {
    kiln_dtype dt = in_dtypes[d];
    int64_t n = 257;
    double *av = random_input(KILN_FLOAT64, n, -4, 4), *bv = malloc((size_t)n * sizeof *bv);
    for (int64_t i = 0; i < n; i++) {
      double rel = (i % 5 == 0 ? 3e-5 : i % 5 == 1 ? 5e-6 : i % 5 == 2 ? 2e-4 : 0);
      bv[i] = av[i] * (1 + rel) + (i % 7 == 0 ? 5e-9 : 0);
      if (i % 31 == 0) av[i] = bv[i] = NAN;
      if (i % 37 == 0) av[i] = NAN;
      if (i % 41 == 0) av[i] = bv[i] = INFINITY;
      if (i % 43 == 0) bv[i] = -INFINITY;
    }
    size_t isz = kiln_dtype_size(dt);
    void *ah = malloc((size_t)n * isz), *bh = malloc((size_t)n * isz);
    for (int64_t i = 0; i < n; i++) {
      if (dt == KILN_FLOAT32) {
        ((float *)ah)[i] = (float)av[i];
        ((float *)bh)[i] = (float)bv[i];
      } else {
        ((double *)ah)[i] = av[i];
        ((double *)bh)[i] = bv[i];
      }
    }
    char a_path[320], b_path[320];
    snprintf(a_path, sizeof a_path, "%s", write_file(ah, (size_t)n * isz));
    snprintf(b_path, sizeof b_path, "%s", write_file(bh, (size_t)n * isz));
    kiln_operand a = kiln_operand_host(ah, dt, 1, &n, NULL), b = kiln_operand_host(bh, dt, 1, &n, NULL);
    for (int eq = 0; eq < 2; eq++)
      for (int tol = 0; tol < 2; tol++) {
        double rtol = tol ? 1e-4 : KILN_ISCLOSE_RTOL, atol = tol ? 0 : KILN_ISCLOSE_ATOL;
        kiln_array *r = NULL;
        CHECK_OK(kiln_isclose(ctx, a, b, kiln_operand_new(&r), rtol, atol, eq, NULL));
        int all = -1, all_prefix = -1;
        CHECK_OK(kiln_allclose(ctx, a, b, rtol, atol, eq, &all));
        /* the first 30 elements hold no NaN at index > 0 except 0: allclose may be true there */
        int64_t m = 30;
        CHECK_OK(kiln_allclose(ctx, kiln_operand_host((char *)ah + isz, dt, 1, &m, NULL),
                               kiln_operand_host((char *)bh + isz, dt, 1, &m, NULL), 1e-3, 1e-8, eq,
                               &all_prefix));
        if (!r) continue;
        fprintf(manifest, "op=isclose a=%s b=%s dtype=%s rtol=%a atol=%a equal_nan=%d all=%d "
                          "all_prefix=%d",
                a_path, b_path, kiln_dtype_name(dt), rtol, atol, eq, all, all_prefix);
        write_result(r);
        fprintf(manifest, "\n");
        kiln_array_release(r);
      }
    free(av);
    free(bv);
    free(ah);
    free(bh);
  }
}

/* arange and linspace: NumPy's default dtypes and explicit ones, bit for
 * bit, and linspace's retstep. */
static void test_ranges(kiln_context *ctx) {
  static const struct {
    double start, stop, step;
    int ints; /* 1: integer operands (NumPy's int64 default) */
    kiln_dtype dtype;
  } ar[] = {{0, 10, 1, 1, KILN_DTYPE_COUNT},    {-7, 23, 3, 1, KILN_DTYPE_COUNT},
            {5, -6, -2, 1, KILN_INT32},         {0.5, 7.3, 0.7, 0, KILN_DTYPE_COUNT},
            {-1, 1, 0.1, 0, KILN_FLOAT32},      {1e3, -2.5, -0.37, 0, KILN_FLOAT64},
            {0, 1, 1.0 / 3, 0, KILN_FLOAT32},   {2, 20, 1.5, 0, KILN_INT64}};
  for (size_t i = 0; i < sizeof ar / sizeof ar[0]; i++) {
    kiln_array *r = NULL;
    kiln_operand s = ar[i].ints ? kiln_operand_int((int64_t)ar[i].start) : kiln_operand_float(ar[i].start);
    kiln_operand e = ar[i].ints ? kiln_operand_int((int64_t)ar[i].stop) : kiln_operand_float(ar[i].stop);
    kiln_operand st = ar[i].ints ? kiln_operand_int((int64_t)ar[i].step) : kiln_operand_float(ar[i].step);
    CHECK_OK(kiln_arange(ctx, s, e, st, ar[i].dtype, &r));
    if (!r) continue;
    fprintf(manifest, "op=arange start=%a stop=%a step=%a ints=%d dtype=%s", ar[i].start, ar[i].stop,
            ar[i].step, ar[i].ints,
            ar[i].dtype == KILN_DTYPE_COUNT ? "none" : kiln_dtype_name(ar[i].dtype));
    write_result(r);
    fprintf(manifest, "\n");
    kiln_array_release(r);
  }
  static const struct {
    double start, stop;
    int64_t num;
    int endpoint;
    kiln_dtype dtype;
  } li[] = {{0, 1, 50, 1, KILN_DTYPE_COUNT}, {-3.5, 17.25, 101, 0, KILN_DTYPE_COUNT},
            {2, -9, 7, 1, KILN_FLOAT32},     {0, 1, 1, 1, KILN_FLOAT64},
            {0, 100, 9, 1, KILN_INT32},      {-2.5, 2.5, 11, 0, KILN_INT64},
            {1e-3, 1e3, 1000, 1, KILN_FLOAT32}};
  for (size_t i = 0; i < sizeof li / sizeof li[0]; i++) {
    kiln_array *r = NULL;
    double step = 0;
    CHECK_OK(kiln_linspace(ctx, li[i].start, li[i].stop, li[i].num, li[i].endpoint, li[i].dtype,
                           &step, &r));
    if (!r) continue;
    fprintf(manifest, "op=linspace start=%a stop=%a num=%lld endpoint=%d dtype=%s retstep=%a",
            li[i].start, li[i].stop, (long long)li[i].num, li[i].endpoint,
            li[i].dtype == KILN_DTYPE_COUNT ? "none" : kiln_dtype_name(li[i].dtype), step);
    write_result(r);
    fprintf(manifest, "\n");
    kiln_array_release(r);
  }
}

/* The Python with NumPy 2 (KILN_TEST_NUMPY from tests/search_run.sh), or
 * NULL after printing why the comparison is skipped. */
static const char *numpy_python(void) {
  const char *py = getenv("KILN_TEST_NUMPY");
  if (py && *py) return py;
  harness_skip("no Python with NumPy 2 (ci/numpy-venv.sh makes .venv-numpy; KILN_NUMPY_VENV names "
               "another; run through tests/search_run.sh)");
  return NULL;
}

static void test_numpy(kiln_context *ctx) {
  const char *py = numpy_python();
  if (!py) return;
  kiln_device_info info;
  kiln_context_device_info(ctx, &info);
  if (!info.has_double) {
    harness_skip("no float64 on this device: the NumPy comparison needs float64 and int inputs");
    return;
  }
  snprintf(dir, sizeof dir, "/tmp/kiln_stats_numpy_%d", (int)getpid());
  char command[1024];
  snprintf(command, sizeof command, "mkdir -p '%s'", dir);
  if (system(command) != 0) {
    CHECK_MSG(0, "cannot make %s", dir);
    return;
  }
  char manifest_path[320];
  snprintf(manifest_path, sizeof manifest_path, "%s/manifest.txt", dir);
  manifest = fopen(manifest_path, "w");
  if (!manifest) {
    CHECK_MSG(0, "cannot write %s", manifest_path);
    return;
  }
  test_moments(ctx);
  test_norm(ctx);
  test_isclose(ctx);
  test_ranges(ctx);
  fclose(manifest);
  snprintf(command, sizeof command, "'%s' '%s/stats_numpy.py' '%s'", py, KILN_TESTS_DIR,
           manifest_path);
  int rc = system(command);
  CHECK_MSG(rc == 0, "NumPy disagrees (tests/stats_numpy.py printed the cases above): %s", command);
  snprintf(command, sizeof command, "rm -rf '%s'", dir);
  if (system(command) != 0) printf("could not remove %s\n", dir);
}

static const harness_test tests[] = {{"numpy", test_numpy}, {0}};

int main(int argc, char **argv) { return harness_main(argc, argv, tests); }
