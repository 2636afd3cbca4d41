/* tests/fault/test_fault.c: the fault-injection sweep (issue: every failure
 * path tested). Built only with -DKILN_FAULT_INJECTION=ON.
 *
 * For every scenario (array creation, views and transfers, raw kernel
 * compile and launch, ufunc calls on device and on host operands, streams
 * and events, the memory pool and pinned host memory, gufuncs on device
 * and pinned host operands, matrix products, FFTs, reductions, argmax, scans,
 * compaction and custom reductions, native handles, wrapping and DLPack
 * and copies between contexts, random arrays, a fusion scope with a
 * folded reduction, the single-pass scan on both paths and nonzero; every
 * kernel also goes through the disk
 * cache, whose loads and stores are backend calls) and each kind of fault (a call into the backend table, a
 * host allocation in kiln), the driver runs the scenario once per n =
 * 1, 2, ... with call n made to fail, on a fresh context, until a run no
 * longer reaches the fault. Each run must:
 *   - return a non-OK status whose message names what failed (the backend
 *     slot, or "memory" for a host allocation), or return OK with correct
 *     values when kiln recovered (an optional fast path falling back);
 *   - leave the outputs it promised to leave alone untouched (creators
 *     leave *out NULL);
 *   - not crash and not leak (LSan checks the whole sweep at exit);
 *   - leave the context usable: the same scenario, run again on it without
 *     a fault, gives correct values.
 * The counts of injected faults are printed. */
#include <dirent.h>
#include <dlpack/dlpack.h>
#include <unistd.h>

#include "core/codegen/scan_line.h"
#include "core/runtime/fault_injection.h"
#include "harness.h"

#define N 1031 /* elements: a prime, so no chunk or vector width divides it */

static float host_x[N], host_y[N];

static char *saxpy_source; /* tests/kernels/saxpy.kl, loaded before any fault */

/* A scenario returns the first failing status (OK when it completed) and
 * sets *correct when it completed with the right values. It releases all
 * it made, whatever happened. */
typedef kiln_status (*scenario_fn)(kiln_context *ctx, int *correct);

/* Runs a creator that promises *out == NULL on failure. */
#define CREATE(status, call, out)                                                        \
  do {                                                                                   \
    status = (call);                                                                     \
    if (status != KILN_OK && (out) != NULL)                                              \
      harness_fail(__FILE__, __LINE__, "%s failed (%s) but left its output set", #call, \
                   kiln_status_string(status));                                          \
  } while (0)

static int close_to(double got, double want, double tolerance) {
  return fabs(got - want) <= tolerance * (1 + fabs(want));
}

/* from_host, a reversed strided view, astype, copy_into, full, to_host. */
static kiln_status scenario_arrays(kiln_context *ctx, int *correct) {
  int64_t n = N;
  kiln_array *a = NULL, *view = NULL, *wide = NULL, *filled = NULL;
  static double back[N];
  static float filled_back[N];
  kiln_status s;
  CREATE(s, kiln_array_from_host(ctx, KILN_FLOAT32, 1, &n, NULL, host_x, &a), a);
  kiln_slice reverse = {KILN_NONE, KILN_NONE, -2};
  if (s == KILN_OK) CREATE(s, kiln_array_slice(a, 1, &reverse, &view), view);
  if (s == KILN_OK) CREATE(s, kiln_array_astype(view, KILN_FLOAT64, &wide), wide);
  float seven = 7.0f;
  if (s == KILN_OK)
    CREATE(s, kiln_array_full(ctx, KILN_FLOAT32, 1, &n, &seven, &filled), filled);
  if (s == KILN_OK) s = kiln_array_copy_into(filled, a);
  if (s == KILN_OK) s = kiln_array_to_host(wide, back, NULL);
  if (s == KILN_OK) s = kiln_array_to_host(filled, filled_back, NULL);
  if (s == KILN_OK) {
    int ok = kiln_array_size(wide) == (N + 1) / 2;
    for (int64_t i = 0; ok && i < (N + 1) / 2; i++) ok = back[i] == host_x[N - 1 - 2 * i];
    for (int64_t i = 0; ok && i < N; i++) ok = filled_back[i] == host_x[i];
    *correct = ok;
  }
  kiln_array_release(filled);
  kiln_array_release(wide);
  kiln_array_release(view);
  kiln_array_release(a);
  return s;
}

/* Raw kernel: compile, launch (explicit and automatic grid), read back. */
static kiln_status scenario_kernel(kiln_context *ctx, int *correct) {
  int64_t n = N;
  kiln_array *x = NULL, *y = NULL;
  kiln_kernel *k = NULL;
  static float out[N];
  kiln_status s;
  CREATE(s, kiln_array_from_host(ctx, KILN_FLOAT32, 1, &n, NULL, host_x, &x), x);
  if (s == KILN_OK) CREATE(s, kiln_array_from_host(ctx, KILN_FLOAT32, 1, &n, NULL, host_y, &y), y);
  if (s == KILN_OK) CREATE(s, kiln_kernel_create(ctx, saxpy_source, "saxpy", NULL, &k), k);
  if (s == KILN_OK) {
    kiln_arg args[] = {kiln_arg_int64(n), kiln_arg_float32(2.0f), kiln_arg_array(x),
                       kiln_arg_array(y)};
    int64_t global = 64, local = 32;
    s = kiln_kernel_launch(k, 1, &global, &local, 4, args, NULL);
    if (s == KILN_OK) s = kiln_kernel_launch(k, 1, &n, NULL, 4, args, NULL);
  }
  if (s == KILN_OK) s = kiln_array_to_host(y, out, NULL);
  if (s == KILN_OK) {
    int ok = 1;
    for (int i = 0; ok && i < N; i++)
      ok = close_to(out[i], 4.0 * host_x[i] + host_y[i], 1e-5);
    *correct = ok;
  }
  kiln_kernel_release(k);
  kiln_array_release(y);
  kiln_array_release(x);
  return s;
}

static kiln_status make_gaussian(kiln_context *ctx, kiln_ufunc **u) {
  static const char *const signatures[] = {"float32(float32 x, float32 mean, float32 sigma)",
                                           "float64(float64 x, float64 mean, float64 sigma)"};
  kiln_status s;
  CREATE(s,
         kiln_ufunc_create(ctx, "gaussian", 2, signatures,
                           "return exp(-0.5 * ((x - mean) / sigma) * ((x - mean) / sigma));",
                           NULL, u),
         *u);
  return s;
}

static double gaussian(double x, double mean, double sigma) {
  return exp(-0.5 * ((x - mean) / sigma) * ((x - mean) / sigma));
}

/* ufunc on device arrays: a strided view in, a new output, weak scalars. */
static kiln_status scenario_ufunc_device(kiln_context *ctx, int *correct) {
  int64_t shape[2] = {N, 2};
  kiln_array *pairs = NULL, *column = NULL, *result = NULL;
  kiln_ufunc *u = NULL;
  static float both[2 * N], out[N];
  for (int i = 0; i < N; i++) both[2 * i] = host_x[i], both[2 * i + 1] = host_y[i];
  kiln_status s;
  CREATE(s, kiln_array_from_host(ctx, KILN_FLOAT32, 2, shape, NULL, both, &pairs), pairs);
  if (s == KILN_OK) CREATE(s, kiln_array_index(pairs, 1, 1, &column), column);
  if (s == KILN_OK) s = make_gaussian(ctx, &u);
  if (s == KILN_OK) {
    kiln_operand in[3] = {kiln_operand_array(column), kiln_operand_float(0.25),
                          kiln_operand_float(1.5)};
    kiln_operand outs[1] = {kiln_operand_new(&result)};
    CREATE(s, kiln_ufunc_call(u, 3, in, 1, outs, NULL), result);
    /* again into the result, twice: the second call comes from the
     * repeat-call cache (core/ufunc/ufunc_call_cache.c) */
    kiln_operand given[1] = {kiln_operand_array(result)};
    for (int k = 0; k < 2 && s == KILN_OK; k++) s = kiln_ufunc_call(u, 3, in, 1, given, NULL);
  }
  if (s == KILN_OK) s = kiln_array_to_host(result, out, NULL);
  if (s == KILN_OK) {
    int ok = 1;
    for (int i = 0; ok && i < N; i++) ok = close_to(out[i], gaussian(host_y[i], 0.25, 1.5), 1e-5);
    *correct = ok;
  }
  kiln_array_release(result);
  kiln_ufunc_release(u);
  kiln_array_release(column);
  kiln_array_release(pairs);
  return s;
}

/* ufunc on host operands (the staged path: pinned chunks, copy threads),
 * small chunks so several boxes are in flight, on a stream. */
static kiln_status scenario_ufunc_host(kiln_context *ctx, int *correct) {
  kiln_ufunc *u = NULL;
  kiln_stream *stream = NULL;
  static double x64[N], out[N];
  int64_t n = N;
  for (int i = 0; i < N; i++) x64[i] = host_x[i], out[i] = -1;
  kiln_status s = make_gaussian(ctx, &u);
  if (s == KILN_OK) s = kiln_ufunc_set_host_chunk_bytes(u, 1024);
  if (s == KILN_OK) CREATE(s, kiln_stream_create(ctx, &stream), stream);
  if (s == KILN_OK) {
    kiln_operand in[3] = {kiln_operand_host(x64, KILN_FLOAT64, 1, &n, NULL),
                          kiln_operand_float(-0.5), kiln_operand_float(2.0)};
    kiln_operand outs[1] = {kiln_operand_host_output(out, KILN_FLOAT64, 1, &n, NULL)};
    s = kiln_ufunc_call(u, 3, in, 1, outs, stream);
  }
  if (s == KILN_OK) s = kiln_stream_synchronize(ctx, stream);
  if (s == KILN_OK) {
    int ok = 1;
    for (int i = 0; ok && i < N; i++) ok = close_to(out[i], gaussian(x64[i], -0.5, 2.0), 1e-12);
    *correct = ok;
  }
  kiln_stream_release(stream);
  kiln_ufunc_release(u);
  return s;
}

/* Streams and events around a copy, the default stream waiting for one. */
static kiln_status scenario_streams(kiln_context *ctx, int *correct) {
  kiln_stream *stream = NULL;
  kiln_event *start = NULL, *end = NULL;
  kiln_array *a = NULL, *b = NULL;
  int64_t n = N;
  static float back[N];
  kiln_status s;
  CREATE(s, kiln_stream_create(ctx, &stream), stream);
  if (s == KILN_OK) CREATE(s, kiln_event_create(ctx, &start), start);
  if (s == KILN_OK) CREATE(s, kiln_event_create(ctx, &end), end);
  if (s == KILN_OK) CREATE(s, kiln_array_from_host(ctx, KILN_FLOAT32, 1, &n, NULL, host_y, &a), a);
  if (s == KILN_OK) s = kiln_event_record(start, stream);
  if (s == KILN_OK) CREATE(s, kiln_array_copy(a, &b), b);
  if (s == KILN_OK) s = kiln_event_record(end, stream);
  if (s == KILN_OK) s = kiln_stream_wait_event(NULL, end);
  if (s == KILN_OK) s = kiln_event_synchronize(end);
  double ms = -1;
  if (s == KILN_OK) s = kiln_event_elapsed_ms(start, end, &ms);
  if (s == KILN_OK) s = kiln_array_to_host(b, back, NULL);
  if (s == KILN_OK) *correct = ms >= 0 && memcmp(back, host_y, sizeof back) == 0;
  kiln_array_release(b);
  kiln_array_release(a);
  kiln_event_release(end);
  kiln_event_release(start);
  kiln_stream_release(stream);
  return s;
}

/* The memory pool (a block reused after release, a trim) and pinned host
 * memory (allocated and registered, used by transfers). */
static kiln_status scenario_memory(kiln_context *ctx, int *correct) {
  int64_t n = N;
  kiln_array *a = NULL, *b = NULL;
  float *pinned = NULL;
  static float registered[N], back[N];
  int is_registered = 0;
  kiln_status s;
  CREATE(s, kiln_host_alloc(ctx, sizeof registered, (void **)&pinned), pinned);
  if (s == KILN_OK) {
    memcpy(pinned, host_x, sizeof registered);
    CREATE(s, kiln_array_from_host(ctx, KILN_FLOAT32, 1, &n, NULL, pinned, &a), a);
  }
  kiln_array_release(a); /* back to the pool, then taken again */
  a = NULL;
  if (s == KILN_OK) CREATE(s, kiln_array_from_host(ctx, KILN_FLOAT32, 1, &n, NULL, host_y, &a), a);
  if (s == KILN_OK) s = kiln_host_register(ctx, registered, sizeof registered);
  if (s == KILN_OK) is_registered = 1;
  if (s == KILN_OK) CREATE(s, kiln_array_copy(a, &b), b);
  if (s == KILN_OK) s = kiln_array_to_host(b, registered, NULL);
  if (s == KILN_OK) s = kiln_memory_pool_trim(ctx);
  if (s == KILN_OK) s = kiln_array_to_host(a, back, NULL);
  if (s == KILN_OK)
    *correct = memcmp(registered, host_y, sizeof back) == 0 &&
               memcmp(back, host_y, sizeof back) == 0;
  kiln_status cleanup = KILN_OK;
  if (is_registered) cleanup = kiln_host_unregister(ctx, registered);
  if (pinned) {
    kiln_status freed = kiln_host_free(ctx, pinned);
    if (cleanup == KILN_OK) cleanup = freed;
  }
  if (s == KILN_OK) s = cleanup;
  kiln_array_release(b);
  kiln_array_release(a);
  return s;
}

/* gufunc (n)->() on device rows and on pinned host rows (the direct,
 * unstaged host path). */
static kiln_status scenario_gufunc(kiln_context *ctx, int *correct) {
  static const char *const signatures[] = {"float64(float64 x)"};
  int64_t shape[2] = {N, 3};
  static double rows[3 * N], norms[N];
  for (int i = 0; i < N; i++)
    rows[3 * i] = host_x[i], rows[3 * i + 1] = host_y[i], rows[3 * i + 2] = i % 7;
  kiln_gufunc *g = NULL;
  kiln_array *d_rows = NULL, *d_norms = NULL;
  double *pinned = NULL;
  kiln_status s;
  CREATE(s,
         kiln_gufunc_create(ctx, "norm3", "(n)->()", 1, signatures,
                            "double t = 0;\nfor (int64_t i = 0; i < n; i++) t += x(i) * x(i);\n"
                            "return sqrt(t);",
                            NULL, &g),
         g);
  if (s == KILN_OK)
    CREATE(s, kiln_array_from_host(ctx, KILN_FLOAT64, 2, shape, NULL, rows, &d_rows), d_rows);
  if (s == KILN_OK) {
    kiln_operand in[1] = {kiln_operand_array(d_rows)};
    kiln_operand out[1] = {kiln_operand_new(&d_norms)};
    CREATE(s, kiln_gufunc_call(g, 1, in, 1, out, NULL), d_norms);
  }
  if (s == KILN_OK) s = kiln_array_to_host(d_norms, norms, NULL);
  int ok = s == KILN_OK;
  for (int i = 0; ok && i < N; i++)
    ok = close_to(norms[i], sqrt(rows[3 * i] * rows[3 * i] + rows[3 * i + 1] * rows[3 * i + 1] +
                                 rows[3 * i + 2] * rows[3 * i + 2]), 1e-12);
  if (s == KILN_OK) CREATE(s, kiln_host_alloc(ctx, sizeof rows + sizeof norms, (void **)&pinned), pinned);
  if (s == KILN_OK) {
    memcpy(pinned, rows, sizeof rows);
    double *pinned_norms = pinned + 3 * N;
    int64_t n = N;
    kiln_operand in[1] = {kiln_operand_host(pinned, KILN_FLOAT64, 2, shape, NULL)};
    kiln_operand out[1] = {kiln_operand_host_output(pinned_norms, KILN_FLOAT64, 1, &n, NULL)};
    s = kiln_gufunc_call(g, 1, in, 1, out, NULL);
    for (int i = 0; s == KILN_OK && ok && i < N; i++) ok = pinned_norms[i] == norms[i];
  }
  if (s == KILN_OK) *correct = ok;
  if (pinned) {
    kiln_status freed = kiln_host_free(ctx, pinned);
    if (s == KILN_OK) s = freed;
  }
  kiln_array_release(d_norms);
  kiln_array_release(d_rows);
  kiln_gufunc_release(g);
  return s;
}

/* matmul of a (7, 31) matrix by the transpose of a (5, 31) one (the vendor
 * BLAS where there is one, else the portable kernel), and a vdot. */
static kiln_status scenario_matmul(kiln_context *ctx, int *correct) {
  int64_t shape_a[2] = {7, 31}, shape_b[2] = {5, 31};
  kiln_array *a = NULL, *b = NULL, *bt = NULL, *c = NULL, *v = NULL;
  static double product[35], dot;
  kiln_status s;
  CREATE(s, kiln_array_from_host(ctx, KILN_FLOAT32, 2, shape_a, NULL, host_x, &a), a);
  if (s == KILN_OK) CREATE(s, kiln_array_from_host(ctx, KILN_FLOAT32, 2, shape_b, NULL, host_y, &b), b);
  if (s == KILN_OK) CREATE(s, kiln_array_transpose(b, NULL, &bt), bt);
  if (s == KILN_OK) CREATE(s, kiln_matmul(a, bt, NULL, NULL, &c), c);
  if (s == KILN_OK) CREATE(s, kiln_vdot(a, a, NULL, &v), v);
  static float got[35], got_dot;
  if (s == KILN_OK) s = kiln_array_to_host(c, got, NULL);
  if (s == KILN_OK) s = kiln_array_to_host(v, &got_dot, NULL);
  if (s == KILN_OK) {
    int ok = 1;
    dot = 0;
    for (int k = 0; k < 7 * 31; k++) dot += (double)host_x[k] * host_x[k];
    for (int i = 0; i < 7; i++)
      for (int j = 0; j < 5; j++) {
        product[i * 5 + j] = 0;
        for (int k = 0; k < 31; k++)
          product[i * 5 + j] += (double)host_x[i * 31 + k] * host_y[j * 31 + k];
        ok = ok && fabs(got[i * 5 + j] - product[i * 5 + j]) <= 1e-4 * (1 + fabs(product[i * 5 + j]));
      }
    *correct = ok && fabs(got_dot - dot) <= 1e-4 * dot;
  }
  kiln_array_release(v);
  kiln_array_release(c);
  kiln_array_release(bt);
  kiln_array_release(b);
  kiln_array_release(a);
  return s;
}

/* rfft of 512 points (a complex transform of 256: the row kernel, with
 * its plan's twiddle table, and the split pass) and irfft back; X_0 is
 * the sum. Then a c2c of 8192 ones (no row kernel: a fused pass, with its
 * table, and radix passes): X_0 = 8192, X_1 = 0. (Bluestein's plan, with
 * its filters, is in test_fft.) */
static kiln_status scenario_fft(kiln_context *ctx, int *correct) {
  int64_t n = 512, m = 8192;
  kiln_array *a = NULL, *f = NULL, *back = NULL, *ones = NULL, *g = NULL;
  static float spectrum[2 * 257], again[512], flat[2 * 8192];
  const float one = 1;
  kiln_status s;
  CREATE(s, kiln_array_from_host(ctx, KILN_FLOAT32, 1, &n, NULL, host_x, &a), a);
  if (s == KILN_OK) CREATE(s, kiln_rfft(ctx, kiln_operand_array(a), KILN_FFT_DEFAULT, 0, NULL, kiln_operand_new(&f), NULL), f);
  if (s == KILN_OK) CREATE(s, kiln_irfft(ctx, kiln_operand_array(f), n, 0, NULL, kiln_operand_new(&back), NULL), back);
  if (s == KILN_OK) CREATE(s, kiln_array_full(ctx, KILN_FLOAT32, 1, &m, &one, &ones), ones);
  if (s == KILN_OK) CREATE(s, kiln_fft(ctx, kiln_operand_array(ones), KILN_FFT_DEFAULT, 0, NULL, kiln_operand_new(&g), NULL), g);
  if (s == KILN_OK) s = kiln_array_to_host(f, spectrum, NULL);
  if (s == KILN_OK) s = kiln_array_to_host(back, again, NULL);
  if (s == KILN_OK) s = kiln_array_to_host(g, flat, NULL);
  if (s == KILN_OK) {
    double sum = 0;
    int ok = 1;
    for (int i = 0; i < 512; i++) sum += host_x[i];
    for (int i = 0; i < 512; i++) ok = ok && close_to(again[i], host_x[i], 1e-4);
    ok = ok && close_to(flat[0], 8192.0, 1e-4) && close_to(flat[2], 0.0, 1e-2);
    *correct = ok && close_to(spectrum[0], sum, 1e-4);
  }
  kiln_array_release(g);
  kiln_array_release(ones);
  kiln_array_release(back);
  kiln_array_release(f);
  kiln_array_release(a);
  return s;
}

/* fft2 of a 4 x 8 complex64 in host memory (host_x's pairs), written to
 * host memory: the upload, the transform (axis by axis in kiln's kernels;
 * one 2-D library plan and execution under KILN_FFT=vendor, which
 * fault_fft_vendor.<backend> sets) and the copy back; X[0,0] is the sum. */
static kiln_status scenario_fft_host(kiln_context *ctx, int *correct) {
  int64_t shape[2] = {4, 8};
  static float spectrum[2 * 32];
  memset(spectrum, 0, sizeof spectrum);
  kiln_status s = kiln_fft2(ctx, kiln_operand_host(host_x, KILN_COMPLEX64, 2, shape, NULL), NULL,
                            NULL, NULL,
                            kiln_operand_host_output(spectrum, KILN_COMPLEX64, 2, shape, NULL),
                            NULL);
  if (s == KILN_OK) {
    double re = 0, im = 0;
    for (int i = 0; i < 32; i++) re += host_x[2 * i], im += host_x[2 * i + 1];
    *correct = close_to(spectrum[0], re, 1e-4) && close_to(spectrum[1], im, 1e-4);
  }
  return s;
}

/* scenario_fft_host on a cold disk cache: the entries of $KILN_CACHE_DIR
 * (test_fft_host_cold points it at a directory of its own) removed first,
 * so that VkFFT compiles its programs and stores them in every run (the
 * stores' module_binary and host allocations fail in turn);
 * fault_fft_vendor.<backend> finds them stored and loads them. */
static void remove_cache_entries(const char *dir) {
  DIR *d = dir ? opendir(dir) : NULL;
  struct dirent *e;
  while (d && (e = readdir(d)) != NULL) {
    size_t length = strlen(e->d_name);
    if (length > 5 && strcmp(e->d_name + length - 5, ".kiln") == 0) {
      char path[4200];
      snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
      unlink(path);
    }
  }
  if (d) closedir(d);
}

static kiln_status scenario_fft_host_cold(kiln_context *ctx, int *correct) {
  remove_cache_entries(getenv("KILN_CACHE_DIR"));
  return scenario_fft_host(ctx, correct);
}

/* add.reduce, argmax, cumsum, compaction of the positive elements and a
 * custom sum of squares (float64 accumulator), all of host_x on the device. */
static kiln_status scenario_reduce(kiln_context *ctx, int *correct) {
  int64_t n = N;
  static uint8_t mask[N];
  static float kept_host[N], cum_host[N];
  kiln_ufunc *add = NULL;
  kiln_reduction *squares = NULL;
  kiln_array *a = NULL, *sum = NULL, *arg = NULL, *cum = NULL, *kept = NULL, *sq = NULL;
  int64_t count = -1, arg_host = -1;
  float sum_host = 0;
  double sq_host = 0;
  for (int i = 0; i < N; i++) mask[i] = host_x[i] > 0;
  const kiln_reduction_desc desc = {.name = "sum_of_squares",
                                    .signature = "float64(float32 x)",
                                    .accumulator = KILN_FLOAT64,
                                    .map_expr = "(double)x * x",
                                    .reduce_expr = "a + b",
                                    .identity = "0"};
  kiln_status s;
  CREATE(s, kiln_ufunc_builtin(ctx, "add", &add), add);
  if (s == KILN_OK) CREATE(s, kiln_reduction_create(ctx, &desc, &squares), squares);
  if (s == KILN_OK) CREATE(s, kiln_array_from_host(ctx, KILN_FLOAT32, 1, &n, NULL, host_x, &a), a);
  if (s == KILN_OK) {
    kiln_operand in = kiln_operand_array(a);
    CREATE(s, kiln_ufunc_reduce(add, in, kiln_operand_new(&sum), NULL, NULL), sum);
    if (s == KILN_OK) CREATE(s, kiln_argmax(ctx, in, kiln_operand_new(&arg), NULL, NULL), arg);
    if (s == KILN_OK) CREATE(s, kiln_ufunc_scan(add, in, kiln_operand_new(&cum), NULL, NULL), cum);
    if (s == KILN_OK)
      CREATE(s,
             kiln_compact(ctx, in, kiln_operand_host(mask, KILN_BOOL, 1, &n, NULL),
                          kiln_operand_new(&kept), &count, NULL),
             kept);
    if (s == KILN_OK)
      CREATE(s, kiln_reduction_call(squares, 1, &in, kiln_operand_new(&sq), NULL, NULL), sq);
  }
  if (s == KILN_OK) s = kiln_array_to_host(sum, &sum_host, NULL);
  if (s == KILN_OK) s = kiln_array_to_host(arg, &arg_host, NULL);
  if (s == KILN_OK) s = kiln_array_to_host(cum, cum_host, NULL);
  if (s == KILN_OK) s = kiln_array_to_host(sq, &sq_host, NULL);
  if (s == KILN_OK && count > 0) s = kiln_array_to_host(kept, kept_host, NULL);
  if (s == KILN_OK) {
    double want = 0, magnitude = 0, squares_want = 0;
    int64_t best = 0, nkept = 0;
    int ok = 1;
    for (int i = 0; i < N; i++) {
      want += host_x[i];
      magnitude += fabs(host_x[i]);
      squares_want += (double)host_x[i] * host_x[i];
      ok = ok && fabs(cum_host[i] - want) <= 1e-5 * magnitude + 1e-6;
      if (host_x[i] > host_x[best]) best = i;
      if (mask[i]) ok = ok && nkept < count && kept_host[nkept++] == host_x[i];
    }
    ok = ok && nkept == count && arg_host == best;
    ok = ok && fabs(sum_host - want) <= 1e-5 * magnitude && close_to(sq_host, squares_want, 1e-12);
    *correct = ok;
  }
  kiln_array_release(sq);
  kiln_array_release(kept);
  kiln_array_release(cum);
  kiln_array_release(arg);
  kiln_array_release(sum);
  kiln_array_release(a);
  kiln_reduction_release(squares);
  kiln_ufunc_release(add);
  return s;
}

/* A fusion scope: x*2 + x (the intermediate released, kept in a
 * register), its square written, its sum folded into the reduction's map
 * step; the scope is ended whatever failed. */
static kiln_status scenario_fusion(kiln_context *ctx, int *correct) {
  int64_t n = N;
  static float y_host[N];
  float sum_host = 0;
  kiln_ufunc *multiply = NULL, *add = NULL;
  kiln_array *x = NULL, *t1 = NULL, *t2 = NULL, *y = NULL, *sum = NULL;
  kiln_status s;
  int open = 0;
  CREATE(s, kiln_ufunc_builtin(ctx, "multiply", &multiply), multiply);
  if (s == KILN_OK) CREATE(s, kiln_ufunc_builtin(ctx, "add", &add), add);
  if (s == KILN_OK) CREATE(s, kiln_array_from_host(ctx, KILN_FLOAT32, 1, &n, NULL, host_x, &x), x);
  if (s == KILN_OK) open = (s = kiln_fusion_begin(ctx, NULL)) == KILN_OK;
  if (s == KILN_OK) {
    kiln_operand in[2] = {kiln_operand_array(x), kiln_operand_float(2)}, out = kiln_operand_new(&t1);
    CREATE(s, kiln_ufunc_call(multiply, 2, in, 1, &out, NULL), t1);
  }
  if (s == KILN_OK) {
    kiln_operand in[2] = {kiln_operand_array(t1), kiln_operand_array(x)}, out = kiln_operand_new(&t2);
    CREATE(s, kiln_ufunc_call(add, 2, in, 1, &out, NULL), t2);
  }
  kiln_array_release(t1);
  if (s == KILN_OK) {
    kiln_operand in[2] = {kiln_operand_array(t2), kiln_operand_array(t2)}, out = kiln_operand_new(&y);
    CREATE(s, kiln_ufunc_call(multiply, 2, in, 1, &out, NULL), y);
  }
  if (s == KILN_OK)
    CREATE(s, kiln_ufunc_reduce(add, kiln_operand_array(t2), kiln_operand_new(&sum), NULL, NULL),
           sum);
  kiln_array_release(t2);
  if (open) {
    kiln_status end = kiln_fusion_end(ctx, NULL);
    if (s == KILN_OK) s = end;
  }
  if (s == KILN_OK) s = kiln_array_to_host(y, y_host, NULL);
  if (s == KILN_OK) s = kiln_array_to_host(sum, &sum_host, NULL);
  if (s == KILN_OK) {
    double want = 0, magnitude = 0;
    int ok = 1;
    for (int i = 0; i < N; i++) {
      float v = host_x[i] * 2.0f + host_x[i];
      ok = ok && y_host[i] == v * v;
      want += v;
      magnitude += fabs(v);
    }
    *correct = ok && fabs(sum_host - want) <= 1e-5 * magnitude;
  }
  kiln_array_release(y);
  kiln_array_release(sum);
  kiln_array_release(x);
  kiln_ufunc_release(multiply);
  kiln_ufunc_release(add);
  return s;
}

/* The single-pass scan over several tiles on both paths: cumsum on the
 * look-back (its flags' fill and one launch), nonzero on reduce-then-scan
 * (the count, aggregates, their fold, the scan and the column views). */
#define LINE_N (2 * KILN_SCAN_TILE + 7)
static kiln_status scenario_scan_line(kiln_context *ctx, int *correct) {
  int64_t n = LINE_N;
  static float x[LINE_N], cum[LINE_N];
  static int64_t where[LINE_N];
  for (int64_t i = 0; i < n; i++) x[i] = host_x[i % N];
  kiln_ufunc *add = NULL;
  kiln_array *c = NULL, *idx[1] = {NULL};
  int64_t count = -1;
  kiln_status s;
  CREATE(s, kiln_ufunc_builtin(ctx, "add", &add), add);
  kiln_operand in = kiln_operand_host(x, KILN_FLOAT32, 1, &n, NULL);
  kiln_scan_force_path(KILN_SCAN_PATH_LOOKBACK);
  if (s == KILN_OK) CREATE(s, kiln_ufunc_scan(add, in, kiln_operand_new(&c), NULL, NULL), c);
  kiln_scan_force_path(KILN_SCAN_PATH_REDUCE_THEN_SCAN);
  if (s == KILN_OK) CREATE(s, kiln_nonzero(ctx, in, idx, &count, NULL), idx[0]);
  kiln_scan_force_path(KILN_SCAN_PATH_AUTO);
  if (s == KILN_OK) s = kiln_array_to_host(c, cum, NULL);
  if (s == KILN_OK && count > 0) s = kiln_array_to_host(idx[0], where, NULL);
  if (s == KILN_OK) {
    double want = 0, magnitude = 0;
    int64_t k = 0;
    int ok = 1;
    for (int64_t i = 0; i < n; i++) {
      want += x[i];
      magnitude += fabs(x[i]);
      ok = ok && fabs(cum[i] - want) <= 1e-5 * magnitude + 1e-6;
      if (x[i] != 0) ok = ok && k < count && where[k++] == i;
    }
    *correct = ok && k == count;
  }
  kiln_array_release(idx[0]);
  kiln_array_release(c);
  kiln_ufunc_release(add);
  return s;
}

/* kiln/stats.h and kiln/creation.h (issue 28): mean of a device array, std
 * of host memory, the 2-norm, allclose, arange and an item read. */
static kiln_status scenario_stats(kiln_context *ctx, int *correct) {
  int64_t n = N;
  kiln_array *a = NULL, *mean = NULL, *std = NULL, *norm = NULL, *range = NULL;
  double mean_host = 0, std_host = 0, norm_host = 0, last = 0;
  int close = -1;
  kiln_status s;
  CREATE(s, kiln_array_from_host(ctx, KILN_FLOAT32, 1, &n, NULL, host_x, &a), a);
  if (s == KILN_OK)
    CREATE(s, kiln_mean(ctx, kiln_operand_array(a), kiln_operand_new(&mean), NULL, NULL), mean);
  if (s == KILN_OK)
    CREATE(s,
           kiln_std(ctx, kiln_operand_host(host_x, KILN_FLOAT32, 1, &n, NULL),
                    kiln_operand_new(&std), 0, NULL, NULL),
           std);
  if (s == KILN_OK)
    CREATE(s, kiln_norm(ctx, kiln_operand_array(a), kiln_operand_new(&norm), NULL, NULL), norm);
  if (s == KILN_OK)
    s = kiln_allclose(ctx, kiln_operand_array(a), kiln_operand_host(host_x, KILN_FLOAT32, 1, &n, NULL),
                      KILN_ISCLOSE_RTOL, KILN_ISCLOSE_ATOL, 0, &close);
  if (s == KILN_OK)
    CREATE(s, kiln_arange(ctx, kiln_operand_int(0), kiln_operand_int(N), kiln_operand_int(1),
                          KILN_FLOAT32, &range),
           range);
  if (s == KILN_OK) s = kiln_array_item_float64(mean, &mean_host);
  if (s == KILN_OK) s = kiln_array_item_float64(std, &std_host);
  if (s == KILN_OK) s = kiln_array_item_float64(norm, &norm_host);
  if (s == KILN_OK) {
    kiln_array *tail = NULL;
    kiln_slice last_one[1] = {{-1, KILN_NONE, 1}};
    CREATE(s, kiln_array_slice(range, 1, last_one, &tail), tail);
    if (s == KILN_OK) s = kiln_array_item_float64(tail, &last);
    kiln_array_release(tail);
  }
  if (s == KILN_OK) {
    double sum = 0, squares = 0, deviations = 0;
    for (int i = 0; i < N; i++) sum += host_x[i], squares += (double)host_x[i] * host_x[i];
    for (int i = 0; i < N; i++) deviations += (host_x[i] - sum / N) * (host_x[i] - sum / N);
    *correct = close_to(mean_host, sum / N, 1e-5) && close_to(std_host, sqrt(deviations / N), 1e-5) &&
               close_to(norm_host, sqrt(squares), 1e-5) && close == 1 && last == N - 1;
  }
  kiln_array_release(range);
  kiln_array_release(norm);
  kiln_array_release(std);
  kiln_array_release(mean);
  kiln_array_release(a);
  return s;
}

static void count_release(void *user_data) { ++*(int *)user_data; }

/* An array's native memory wrapped as a second array (released through its
 * callback), exported to DLPack and imported back, then copied to the
 * same context as another array: every step without a host copy but the
 * last read. */
static kiln_status scenario_interop(kiln_context *ctx, int *correct) {
  int64_t n = N;
  int released = 0;
  static float back[N];
  kiln_array *a = NULL, *wrapped = NULL, *imported = NULL, *copy = NULL;
  void *tensor = NULL;
  kiln_native_memory memory;
  kiln_status s;
  CREATE(s, kiln_array_from_host(ctx, KILN_FLOAT32, 1, &n, NULL, host_x, &a), a);
  if (s == KILN_OK) s = kiln_array_native(a, &memory);
  /* a's own reference keeps the memory alive until the wrap is released */
  if (s == KILN_OK)
    CREATE(s,
           kiln_array_wrap_native(ctx, &memory, KILN_FLOAT32, 1, &n, NULL, count_release,
                                  &released, &wrapped),
           wrapped);
  if (s == KILN_OK) CREATE(s, kiln_array_to_dlpack(wrapped, &tensor), tensor);
  if (s == KILN_OK) {
    CREATE(s, kiln_array_from_dlpack(ctx, tensor, &imported), imported);
    if (s != KILN_OK) ((DLManagedTensor *)tensor)->deleter((DLManagedTensor *)tensor);
  }
  if (s == KILN_OK) CREATE(s, kiln_array_copy_to_context(imported, ctx, &copy, NULL), copy);
  if (s == KILN_OK) s = kiln_array_to_host(copy, back, NULL);
  int ok = s == KILN_OK;
  for (int i = 0; ok && i < N; i++) ok = back[i] == host_x[i];
  kiln_array_release(copy);
  kiln_array_release(imported);
  kiln_array_release(wrapped);
  /* the callback ran exactly once if the wrap was made, never if not */
  ok = ok && released == (wrapped != NULL);
  CHECK_MSG(released == (wrapped != NULL), "interop: release callback ran %d times", released);
  kiln_array_release(a);
  if (s == KILN_OK) *correct = ok;
  return s;
}

/* Random arrays: generators, a normal draw into a reversed view on a
 * stream, integers into host memory through the device; the values
 * checked against the host generator's. */
static kiln_status scenario_random(kiln_context *ctx, int *correct) {
  int64_t n = N;
  kiln_random_generator *gen = NULL, *check = NULL;
  kiln_stream *stream = NULL;
  kiln_array *a = NULL, *reversed = NULL;
  static float back[N], want[N];
  static int32_t ints[N], want_ints[N];
  kiln_status s;
  CREATE(s, kiln_random_generator_create(7, &gen), gen);
  if (s == KILN_OK) CREATE(s, kiln_random_generator_create(7, &check), check);
  if (s == KILN_OK) CREATE(s, kiln_stream_create(ctx, &stream), stream);
  if (s == KILN_OK) CREATE(s, kiln_array_empty(ctx, KILN_FLOAT32, 1, &n, &a), a);
  kiln_slice reverse = {KILN_NONE, KILN_NONE, -1};
  if (s == KILN_OK) CREATE(s, kiln_array_slice(a, 1, &reverse, &reversed), reversed);
  if (s == KILN_OK) s = kiln_random_normal(gen, NULL, 1.0, 2.0, kiln_operand_array(reversed), stream);
  if (s == KILN_OK) s = kiln_stream_synchronize(ctx, stream);
  if (s == KILN_OK) s = kiln_array_to_host(a, back, NULL);
  if (s == KILN_OK)
    s = kiln_random_integers(gen, ctx, -50, 50, 0,
                             kiln_operand_host_output(ints, KILN_INT32, 1, &n, NULL), NULL);
  if (s == KILN_OK)
    s = kiln_random_normal(check, NULL, 1.0, 2.0,
                           kiln_operand_host_output(want, KILN_FLOAT32, 1, &n, NULL), NULL);
  if (s == KILN_OK)
    s = kiln_random_integers(check, NULL, -50, 50, 0,
                             kiln_operand_host_output(want_ints, KILN_INT32, 1, &n, NULL), NULL);
  if (s == KILN_OK) {
    int ok = memcmp(ints, want_ints, sizeof ints) == 0;
    for (int i = 0; i < N; i++) ok = ok && memcmp(&back[N - 1 - i], &want[i], 4) == 0;
    *correct = ok;
  }
  kiln_array_release(reversed);
  kiln_array_release(a);
  kiln_stream_release(stream);
  kiln_random_generator_release(check);
  kiln_random_generator_release(gen);
  return s;
}

/* kiln_argsort of host_x into host memory: N is more than one tile, so
 * the key kernel, the global radix passes (histogram, digit scan,
 * scatter) and the gather all run. (Only argsort: the sweep's time grows
 * as the square of the calls made; kiln_sort of floats adds no other kind
 * of call, of integers scenario_sort_keys has them.) */
static kiln_status scenario_sort(kiln_context *ctx, int *correct) {
  int64_t n = N;
  static int64_t index[N];
  kiln_status s = kiln_argsort(ctx, kiln_operand_host(host_x, KILN_FLOAT32, 1, &n, NULL),
                               kiln_operand_host_output(index, KILN_INT64, 1, &n, NULL), NULL,
                               NULL);
  if (s == KILN_OK) {
    static unsigned char seen[N];
    memset(seen, 0, sizeof seen);
    int ok = 1;
    for (int64_t i = 0; i < N && ok; i++) {
      ok = index[i] >= 0 && index[i] < N && !seen[index[i]] &&
           (i == 0 || host_x[index[i - 1]] < host_x[index[i]] ||
            (host_x[index[i - 1]] == host_x[index[i]] && index[i - 1] < index[i]));
      if (ok) seen[index[i]] = 1;
    }
    *correct = ok;
  }
  return s;
}

/* kiln_sort of N uint8 values into host memory: an integer sort moves the
 * keys alone (no values) and makes the elements back from them (one
 * 8-bit pass: the sweep stays short). */
static kiln_status scenario_sort_keys(kiln_context *ctx, int *correct) {
  int64_t n = N;
  static uint8_t in[N], out[N];
  for (int64_t i = 0; i < N; i++) in[i] = (uint8_t)(i * 37 % 251);
  kiln_status s = kiln_sort(ctx, kiln_operand_host(in, KILN_UINT8, 1, &n, NULL),
                            kiln_operand_host_output(out, KILN_UINT8, 1, &n, NULL), NULL, NULL);
  if (s == KILN_OK) {
    unsigned counts[256] = {0};
    int ok = 1;
    for (int64_t i = 0; i < N; i++) counts[in[i]]++;
    for (int64_t i = 0; i < N && ok; i++) ok = (i == 0 || out[i - 1] <= out[i]) && counts[out[i]]-- > 0;
    *correct = ok;
  }
  return s;
}

/* kiln_sort of host_x (N float32, no NaN or -0.0) into host memory: the
 * keys-alone passes straight from the input to the output, then the launch
 * that puts NaNs and zeros in place (it finds none here). */
static int compare_floats(const void *a, const void *b) {
  float x = *(const float *)a, y = *(const float *)b;
  return (x > y) - (x < y);
}
static kiln_status scenario_sort_floats(kiln_context *ctx, int *correct) {
  int64_t n = N;
  static float out[N], want[N];
  kiln_status s = kiln_sort(ctx, kiln_operand_host(host_x, KILN_FLOAT32, 1, &n, NULL),
                            kiln_operand_host_output(out, KILN_FLOAT32, 1, &n, NULL), NULL, NULL);
  if (s == KILN_OK) {
    memcpy(want, host_x, sizeof want);
    qsort(want, N, sizeof(float), compare_floats);
    *correct = memcmp(out, want, sizeof want) == 0;
  }
  return s;
}

/* searchsorted, histogram, bincount, take (raise) and a boolean-mask
 * assignment (kiln/search.h, kiln/indexing.h) of host_x, checked on the
 * host. */
static kiln_status scenario_search(kiln_context *ctx, int *correct) {
  int64_t n = N, edges_n = 5, four = 4, length = 0;
  static int64_t at[N], counts[4], taken[N], idx[N];
  static float assigned[N];
  static int32_t bins_of[N];
  static uint8_t mask[N];
  float edges[5] = {-4, -2, 0, 2, 4};
  kiln_histogram_options o = {.bins = 4, .has_range = 1, .range_min = -4, .range_max = 4};
  int64_t bincounts[8] = {0};
  for (int i = 0; i < N; i++) {
    idx[i] = (i * 7) % N - (i % 2 ? N : 0);
    bins_of[i] = (int32_t)(host_x[i] + 4) / 2;
    mask[i] = host_x[i] > 0;
    assigned[i] = host_x[i];
  }
  kiln_operand x = kiln_operand_host(host_x, KILN_FLOAT32, 1, &n, NULL);
  kiln_status s = kiln_searchsorted(ctx, kiln_operand_host(edges, KILN_FLOAT32, 1, &edges_n, NULL),
                                    x, NULL, KILN_SIDE_RIGHT,
                                    kiln_operand_host_output(at, KILN_INT64, 1, &n, NULL), NULL);
  /* the values in their sorted order (core/sort/search.c: a coarse
   * bisection, a radix sort of its keys, the bisection through them) */
  static float sorted_x[N];
  static int64_t at_sorted[N];
  memcpy(sorted_x, host_x, sizeof sorted_x);
  qsort(sorted_x, N, sizeof(float), compare_floats);
  setenv("KILN_SEARCH_ORDER", "sorted", 1);
  if (s == KILN_OK)
    s = kiln_searchsorted(ctx, kiln_operand_host(sorted_x, KILN_FLOAT32, 1, &n, NULL), x, NULL,
                          KILN_SIDE_LEFT,
                          kiln_operand_host_output(at_sorted, KILN_INT64, 1, &n, NULL), NULL);
  unsetenv("KILN_SEARCH_ORDER");
  if (s == KILN_OK)
    s = kiln_histogram(ctx, x, &o, kiln_operand_host_output(counts, KILN_INT64, 1, &four, NULL),
                       NULL, NULL);
  if (s == KILN_OK)
    s = kiln_bincount(ctx, kiln_operand_host(bins_of, KILN_INT32, 1, &n, NULL), NULL, 0,
                      kiln_operand_host_output(bincounts, KILN_INT64, 1, &(int64_t){8}, NULL),
                      &length, NULL);
  if (s == KILN_OK)
    s = kiln_take(ctx, kiln_operand_host(at, KILN_INT64, 1, &n, NULL),
                  kiln_operand_host(idx, KILN_INT64, 1, &n, NULL), KILN_AXIS_FLAT,
                  KILN_INDEX_RAISE, kiln_operand_host_output(taken, KILN_INT64, 1, &n, NULL), NULL);
  if (s == KILN_OK)
    s = kiln_mask_assign(ctx, kiln_operand_host_output(assigned, KILN_FLOAT32, 1, &n, NULL),
                         kiln_operand_host(mask, KILN_BOOL, 1, &n, NULL), kiln_operand_float(0),
                         NULL);
  if (s == KILN_OK) {
    int ok = 1;
    int64_t want_counts[4] = {0}, want_bins[8] = {0}, most = 0;
    for (int i = 0; i < N; i++) {
      int64_t w = 0;
      for (int e = 0; e < 5; e++) w += edges[e] <= host_x[i];
      ok = ok && at[i] == w;
      int64_t smaller = 0;
      for (int j = 0; j < N; j++) smaller += sorted_x[j] < host_x[i];
      ok = ok && at_sorted[i] == smaller;
      want_counts[w < 1 ? 0 : w > 4 ? 3 : w - 1]++;
      want_bins[bins_of[i]]++;
      if (bins_of[i] > most) most = bins_of[i];
      ok = ok && assigned[i] == (mask[i] ? 0.0f : host_x[i]);
    }
    for (int i = 0; i < N; i++) ok = ok && taken[i] == at[(idx[i] + N) % N];
    for (int b = 0; b < 4; b++) ok = ok && counts[b] == want_counts[b];
    ok = ok && length == most + 1;
    for (int b = 0; b < length; b++) ok = ok && bincounts[b] == want_bins[b];
    *correct = ok;
  }
  return s;
}

/* kiln_unique with counts of N int32 (more than a sort tile: the keys
 * alone, the run flags, the count and both compactions), and kiln_put of N
 * values onto 97 targets, float32 (the packed claim) and float64 (the
 * winners pass), and onto a permutation, each checked on the host. */
static kiln_status scenario_unique_put(kiln_context *ctx, int *correct) {
  int64_t n = N, count = 0;
  static int32_t ints[N], values[N];
  static int64_t counts[N], idx[N], perm[N];
  static float a32[N], p32[N];
  static double a64[N], v64[N];
  for (int i = 0; i < N; i++) {
    ints[i] = (int32_t)(host_x[i] * 4);
    idx[i] = (i * 7) % 97;
    perm[i] = (i * 7) % N;
    a32[i] = host_y[i];
    a64[i] = host_y[i];
    v64[i] = host_x[i];
  }
  kiln_operand counts_o = kiln_operand_host_output(counts, KILN_INT64, 1, &n, NULL);
  kiln_unique_outputs extra = {NULL, NULL, &counts_o};
  kiln_status s = kiln_unique(ctx, kiln_operand_host(ints, KILN_INT32, 1, &n, NULL),
                              kiln_operand_host_output(values, KILN_INT32, 1, &n, NULL), &count,
                              &extra, NULL);
  kiln_operand targets = kiln_operand_host(idx, KILN_INT64, 1, &n, NULL);
  if (s == KILN_OK)
    s = kiln_put(ctx, kiln_operand_host_output(a32, KILN_FLOAT32, 1, &n, NULL), targets,
                 kiln_operand_host(host_x, KILN_FLOAT32, 1, &n, NULL), KILN_INDEX_RAISE, NULL);
  if (s == KILN_OK)
    s = kiln_put(ctx, kiln_operand_host_output(a64, KILN_FLOAT64, 1, &n, NULL), targets,
                 kiln_operand_host(v64, KILN_FLOAT64, 1, &n, NULL), KILN_INDEX_RAISE, NULL);
  if (s == KILN_OK) /* distinct targets */
    s = kiln_put(ctx, kiln_operand_host_output(p32, KILN_FLOAT32, 1, &n, NULL),
                 kiln_operand_host(perm, KILN_INT64, 1, &n, NULL),
                 kiln_operand_host(host_x, KILN_FLOAT32, 1, &n, NULL), KILN_INDEX_WRAP, NULL);
  if (s == KILN_OK) {
    int ok = count > 0;
    for (int i = 0; i < N; i++) ok = ok && p32[perm[i]] == host_x[i];
    int64_t total = 0;
    for (int64_t u = 0; ok && u < count; u++) {
      int64_t c = 0;
      for (int i = 0; i < N; i++) c += ints[i] == values[u];
      ok = c == counts[u] && (u == 0 || values[u - 1] < values[u]);
      total += c;
    }
    ok = ok && total == N;
    for (int i = 0; ok && i < N; i++) {
      int last = -1; /* NumPy: the last position aimed at i wins */
      for (int k = 0; k < N; k++)
        if (idx[k] == i) last = k;
      ok = a32[i] == (last < 0 ? host_y[i] : host_x[last]) &&
           a64[i] == (last < 0 ? (double)host_y[i] : (double)host_x[last]);
    }
    *correct = ok;
  }
  return s;
}

/* kiln_random_shuffle of a (17, 3) float32 array on a stream: keys drawn
 * on the device, one tile of the radix sort, the row gather and the copy
 * back; checked against the host generator's permutation. (Shuffle only:
 * the permutation's own outputs are sort's, swept by scenario_sort.) */
static kiln_status scenario_permutation(kiln_context *ctx, int *correct) {
  enum { ROWS = 17 };
  int64_t rows = ROWS, shape[2] = {ROWS, 3};
  static int64_t row_order[ROWS];
  static float moved[ROWS * 3];
  kiln_random_generator *gen = NULL, *check = NULL;
  kiln_stream *stream = NULL;
  kiln_array *m = NULL;
  kiln_status s;
  CREATE(s, kiln_random_generator_create(9, &gen), gen);
  if (s == KILN_OK) CREATE(s, kiln_random_generator_create(9, &check), check);
  if (s == KILN_OK) CREATE(s, kiln_stream_create(ctx, &stream), stream);
  if (s == KILN_OK)
    CREATE(s, kiln_array_from_host(ctx, KILN_FLOAT32, 2, shape, NULL, host_x, &m), m);
  if (s == KILN_OK) s = kiln_random_shuffle(gen, m, stream);
  if (s == KILN_OK) s = kiln_stream_synchronize(ctx, stream); /* to_host reads on the default */
  if (s == KILN_OK) s = kiln_array_to_host(m, moved, NULL);
  if (s == KILN_OK)
    s = kiln_random_permutation(check, NULL,
                                kiln_operand_host_output(row_order, KILN_INT64, 1, &rows, NULL),
                                NULL);
  if (s == KILN_OK) {
    int ok = 1;
    for (int i = 0; i < ROWS * 3; i++)
      ok = ok && memcmp(&moved[i], &host_x[row_order[i / 3] * 3 + i % 3], 4) == 0;
    *correct = ok;
  }
  kiln_array_release(m);
  kiln_stream_release(stream);
  kiln_random_generator_release(check);
  kiln_random_generator_release(gen);
  return s;
}

typedef struct sweep_totals {
  long injected, failed_cleanly, recovered;
} sweep_totals;

static sweep_totals totals[3];

/* KILN_FAULT_SAMPLE=k[:offset] (CI's setting, .ci/run: k = 3, the offset
 * from the commit): past the first few faults, only every k-th n is
 * injected, a different k-th per commit; the sanitized sweeps are the
 * longest tests of CI. Unset (developers, GPU runs): every n. */
static harness_sample fault_sample = {1, 0};
enum { ALWAYS_INJECTED = 8 }; /* the first faults: context, first allocations */

/* One scenario under one kind of fault, n = 1, 2, ... (or the sample of
 * them) until the fault is no longer reached. */
static void sweep(const char *name, scenario_fn run, kiln_fault_kind kind) {
  const char *kind_name = kind == KILN_FAULT_BACKEND ? "backend call" : "host allocation";
  long n, injected = 0;
  for (n = 1; n < 100000; n++) {
    if (n > ALWAYS_INJECTED && !harness_sample_takes(&fault_sample, (unsigned long)n)) continue;
    kiln_context *ctx = NULL;
    if (kiln_context_create(NULL, &ctx) != KILN_OK) {
      harness_fail(__FILE__, __LINE__, "%s: context: %s", name, kiln_last_error());
      return;
    }
    int correct = 0;
    kiln_fault_arm(kind, n);
    kiln_status s = run(ctx, &correct);
    kiln_fault_disarm();
    int fired = kiln_fault_fired();
    const char *message = kiln_last_error();
    if (!fired) {
      CHECK_MSG(s == KILN_OK && correct, "%s without a fault: %s (%s), values %s", name,
                kiln_status_string(s), message, correct ? "correct" : "WRONG");
      kiln_context_release(ctx);
      break;
    }
    totals[kind].injected++;
    injected++;
    if (s != KILN_OK) {
      totals[kind].failed_cleanly++;
      const char *needle = kind == KILN_FAULT_BACKEND ? kiln_fault_operation() : "memory";
      CHECK_MSG(strstr(message, needle) != NULL,
                "%s, %s %ld failed: %s, but the message does not name %s: \"%s\"", name,
                kind_name, n, kiln_status_string(s), needle, message);
    } else {
      totals[kind].recovered++;
      CHECK_MSG(correct, "%s, %s %ld (%s) failed but the call returned OK with wrong values",
                name, kind_name, n, kiln_fault_operation());
    }
    /* the same context must still work */
    correct = 0;
    s = run(ctx, &correct);
    CHECK_MSG(s == KILN_OK && correct, "%s after %s %ld failed: rerun gives %s (%s), values %s",
              name, kind_name, n, kiln_status_string(s), kiln_last_error(),
              correct ? "correct" : "WRONG");
    kiln_context_release(ctx);
    if (harness_failures > 20) return; /* enough to read */
  }
  if (fault_sample.every > 1)
    printf("  %-14s %-15s: %ld of %ld faults injected (KILN_FAULT_SAMPLE)\n", name, kind_name,
           injected, n - 1);
  else
    printf("  %-14s %-15s: %ld faults injected\n", name, kind_name, n - 1);
}

static void sweep_both(const char *name, scenario_fn run) {
  sweep(name, run, KILN_FAULT_BACKEND);
  sweep(name, run, KILN_FAULT_HOST_ALLOC);
}

static void prepare(void) {
  harness_sample_from_env("KILN_FAULT_SAMPLE", &fault_sample);
  if (!saxpy_source) saxpy_source = harness_load_kernel("saxpy.kl");
  harness_fill_random(host_x, KILN_FLOAT32, N, -4, 4);
  harness_fill_random(host_y, KILN_FLOAT32, N, -4, 4);
}

static void test_arrays(kiln_context *ctx) { (void)ctx; prepare(); sweep_both("arrays", scenario_arrays); }
static void test_kernel(kiln_context *ctx) { (void)ctx; prepare(); sweep_both("kernel", scenario_kernel); }
static void test_ufunc_device(kiln_context *ctx) { (void)ctx; prepare(); sweep_both("ufunc_device", scenario_ufunc_device); }
static void test_ufunc_host(kiln_context *ctx) { (void)ctx; prepare(); sweep_both("ufunc_host", scenario_ufunc_host); }
static void test_gufunc(kiln_context *ctx) { (void)ctx; prepare(); sweep_both("gufunc", scenario_gufunc); }
static void test_matmul(kiln_context *ctx) { (void)ctx; prepare(); sweep_both("matmul", scenario_matmul); }
static void test_reduce(kiln_context *ctx) { (void)ctx; prepare(); sweep_both("reduce", scenario_reduce); }
static void test_scan_line(kiln_context *ctx) { (void)ctx; prepare(); sweep_both("scan_line", scenario_scan_line); }
static void test_interop(kiln_context *ctx) { (void)ctx; prepare(); sweep_both("interop", scenario_interop); }
static void test_fft(kiln_context *ctx) { (void)ctx; prepare(); sweep_both("fft", scenario_fft); }
static void test_fft_host(kiln_context *ctx) { (void)ctx; prepare(); sweep_both("fft_host", scenario_fft_host); }
static void test_fft_host_cold(kiln_context *ctx) {
  (void)ctx;
  prepare();
  const char *base = getenv("TMPDIR") && getenv("TMPDIR")[0] ? getenv("TMPDIR") : "/tmp";
  char dir[4096], *saved = getenv("KILN_CACHE_DIR") ? strdup(getenv("KILN_CACHE_DIR")) : NULL;
  snprintf(dir, sizeof dir, "%s/kiln-fault-cold-XXXXXX", base);
  if (!mkdtemp(dir)) {
    harness_fail(__FILE__, __LINE__, "mkdtemp %s failed", dir);
    free(saved);
    return;
  }
  setenv("KILN_CACHE_DIR", dir, 1); /* read by each context the sweep makes */
  sweep_both("fft_host_cold", scenario_fft_host_cold);
  remove_cache_entries(dir);
  if (saved) setenv("KILN_CACHE_DIR", saved, 1);
  else unsetenv("KILN_CACHE_DIR");
  free(saved);
  rmdir(dir);
}
static void test_stats(kiln_context *ctx) { (void)ctx; prepare(); sweep_both("stats", scenario_stats); }
static void test_memory(kiln_context *ctx) { (void)ctx; prepare(); sweep_both("memory", scenario_memory); }
static void test_streams(kiln_context *ctx) { (void)ctx; prepare(); sweep_both("streams", scenario_streams); }
static void test_random(kiln_context *ctx) { (void)ctx; prepare(); sweep_both("random", scenario_random); }
static void test_fusion(kiln_context *ctx) { (void)ctx; prepare(); sweep_both("fusion", scenario_fusion); }
static void test_sort(kiln_context *ctx) {
  (void)ctx;
  prepare();
  sweep_both("sort", scenario_sort);
  /* backend calls only: its host allocations are the argsort's kinds, and
   * their sweep (298 faults, all handled) doubled this group's time */
  sweep("sort keys", scenario_sort_keys, KILN_FAULT_BACKEND);
  sweep("sort floats", scenario_sort_floats, KILN_FAULT_BACKEND);
}
static void test_search(kiln_context *ctx) {
  (void)ctx;
  prepare();
  sweep_both("search", scenario_search);
  sweep("unique put", scenario_unique_put, KILN_FAULT_BACKEND); /* backend calls: as sort keys */
}
static void test_permutation(kiln_context *ctx) { (void)ctx; prepare(); sweep_both("permutation", scenario_permutation); }

static void test_totals(kiln_context *ctx) {
  (void)ctx;
  for (int k = KILN_FAULT_BACKEND; k <= KILN_FAULT_HOST_ALLOC; k++)
    printf("  %s faults: %ld injected, %ld failed with a status, %ld recovered\n",
           k == KILN_FAULT_BACKEND ? "backend" : "host", totals[k].injected,
           totals[k].failed_cleanly, totals[k].recovered);
  CHECK(totals[KILN_FAULT_BACKEND].injected > 0);
  CHECK(totals[KILN_FAULT_HOST_ALLOC].injected > 0);
  free(saxpy_source);
  saxpy_source = NULL;
}

static const harness_test tests[] = {
    {"arrays", test_arrays},         {"kernel", test_kernel},
    {"ufunc_device", test_ufunc_device}, {"ufunc_host", test_ufunc_host},
    {"streams", test_streams},       {"memory", test_memory},
    {"gufunc", test_gufunc},         {"matmul", test_matmul},
    {"reduce", test_reduce},         {"interop", test_interop},
    {"random", test_random},         {"fft", test_fft},
    {"fft_host", test_fft_host},
    {"fusion", test_fusion},         {"stats", test_stats},
    {"scan_line", test_scan_line},   {"sort", test_sort},
    {"search", test_search},         {"permutation", test_permutation},
    {"totals", test_totals},
    {"fft_host_cold", test_fft_host_cold},
    {0}};

int main(int argc, char **argv) { return harness_main(argc, argv, tests); }
