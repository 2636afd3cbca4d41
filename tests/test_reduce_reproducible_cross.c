/* Reproducibility across backends and devices, in one process: opens a
 * context on every device of every backend it can (CUDA, HIP, each OpenCL
 * platform: NVIDIA's, PoCL, ...), runs the same reductions and scans on the
 * same random data on each, and checks that every device gives the same
 * bits (and, for the float32 sum, the bits of a host emulation of kiln's
 * tree). Prints one line per device and result so the bits can be quoted.
 * Skips (77) with the reason when fewer than two devices can be opened
 * (KILN_TEST_CROSS_SELF=1 compares one device with itself instead). */
#include "reduce_testing.h"

#define MAX_CONTEXTS 16
#define SUM_N 10000019
#define COLS_M 1013
#define COLS_N 37
#define SCAN_N 100003

typedef struct results {
  char name[448];
  float sum32;
  double sum64;
  float cols[COLS_N];
  int64_t argmax;
  float *scan; /* SCAN_N */
  double custom;
  int has_double;
  int ok;
} results;

static void run_on(kiln_context *ctx, const float *x, const double *xd, results *r) {
  r->ok = 0;
  kiln_ufunc *add = NULL;
  if (kiln_ufunc_builtin(ctx, "add", &add) != KILN_OK) return;
  int64_t n = SUM_N, shape[2] = {COLS_M, COLS_N}, ncols = COLS_N, scan_n = SCAN_N;
  kiln_reduce_options cols = kiln_reduce_axis(0);
  kiln_reduction_desc desc = {.name = "cross_custom",
                              .signature = "float64(float64 x)",
                              .accumulator = KILN_FLOAT64,
                              .map_expr = "x * x * 0.5 + x",
                              .reduce_expr = "a + b",
                              .post_expr = "sqrt(a)",
                              .identity = "0"};
  kiln_reduction *custom = NULL;
  kiln_operand cin[1] = {kiln_operand_host(xd, KILN_FLOAT64, 1, &n, NULL)};
  kiln_device_info info;
  if (kiln_context_device_info(ctx, &info) != KILN_OK) return;
  r->has_double = info.has_double;
  r->ok = kiln_ufunc_reduce(add, kiln_operand_host(x, KILN_FLOAT32, 1, &n, NULL),
                            kiln_operand_host_output(&r->sum32, KILN_FLOAT32, 0, NULL, NULL), NULL,
                            NULL) == KILN_OK &&
          (!info.has_double ||
           kiln_ufunc_reduce(add, kiln_operand_host(xd, KILN_FLOAT64, 1, &n, NULL),
                             kiln_operand_host_output(&r->sum64, KILN_FLOAT64, 0, NULL, NULL), NULL,
                             NULL) == KILN_OK) &&
          kiln_ufunc_reduce(add, kiln_operand_host(x, KILN_FLOAT32, 2, shape, NULL),
                            kiln_operand_host_output(r->cols, KILN_FLOAT32, 1, &ncols, NULL), &cols,
                            NULL) == KILN_OK &&
          kiln_argmax(ctx, kiln_operand_host(x, KILN_FLOAT32, 1, &n, NULL),
                      kiln_operand_host_output(&r->argmax, KILN_INT64, 0, NULL, NULL), NULL,
                      NULL) == KILN_OK &&
          kiln_ufunc_scan(add, kiln_operand_host(x, KILN_FLOAT32, 1, &scan_n, NULL),
                          kiln_operand_host_output(r->scan, KILN_FLOAT32, 1, &scan_n, NULL), NULL,
                          NULL) == KILN_OK &&
          (!info.has_double ||
           (kiln_reduction_create(ctx, &desc, &custom) == KILN_OK &&
            kiln_reduction_call(custom, 1, cin,
                                kiln_operand_host_output(&r->custom, KILN_FLOAT64, 0, NULL, NULL),
                                NULL, NULL) == KILN_OK));
  if (!r->ok) harness_fail(__FILE__, __LINE__, "%s: %s", r->name, kiln_last_error());
  kiln_reduction_release(custom);
  kiln_ufunc_release(add);
}

static uint32_t bits32(float v) {
  uint32_t b;
  memcpy(&b, &v, 4);
  return b;
}

static uint64_t bits64(double v) {
  uint64_t b;
  memcpy(&b, &v, 8);
  return b;
}

static void test_reproducible_cross(kiln_context *unused) {
  (void)unused;
  static results res[MAX_CONTEXTS];
  kiln_context *contexts[MAX_CONTEXTS];
  int n = 0;
  for (int b = 0; b < kiln_backend_count(); b++) {
    const char *backend = kiln_backend_name(b);
    kiln_context_options opt;
    kiln_context_options_init(&opt);
    opt.use_environment = 0;
    opt.backends = backend;
    int count = 0;
    if (kiln_backend_device_count(backend, &opt, &count) != KILN_OK) {
      printf("%-8s no devices: %.200s\n", backend, kiln_last_error());
      continue;
    }
    for (int d = 0; d < count && n < MAX_CONTEXTS; d++) {
      opt.device = d;
      kiln_context *ctx = NULL;
      kiln_device_info info;
      if (kiln_context_create(&opt, &ctx) != KILN_OK ||
          kiln_context_device_info(ctx, &info) != KILN_OK) {
        printf("%-8s device %d cannot be opened: %.200s\n", backend, d, kiln_last_error());
        kiln_context_release(ctx);
        continue;
      }
      snprintf(res[n].name, sizeof res[n].name, "%s %d: %s (%s)", backend, d, info.name,
               info.platform);
      contexts[n++] = ctx;
    }
  }
  /* KILN_TEST_CROSS_SELF=1 opens the one device twice: a check of this
   * program itself on a machine with one device */
  const char *self = getenv("KILN_TEST_CROSS_SELF");
  if (n == 1 && self && self[0] == '1') {
    contexts[n] = kiln_context_retain(contexts[0]);
    snprintf(res[n].name, sizeof res[n].name, "%.400s (again)", res[0].name);
    n++;
  }
  if (n < 2) {
    harness_skip("%d device(s) could be opened; the cross-device comparison needs two", n);
    for (int i = 0; i < n; i++) kiln_context_release(contexts[i]);
    return;
  }
  int64_t total = SUM_N;
  float *x = malloc((size_t)total * 4);
  double *xd = malloc((size_t)total * 8);
  harness_fill_random(x, KILN_FLOAT32, total, 0, 1);
  for (int64_t i = 0; i < total; i++) xd[i] = (double)x[i] - 0.5;
  float tree = host_tree_sum(x, total);
  printf("host emulation of the tree: float32 sum %.9g (0x%08x)\n", tree, bits32(tree));
  for (int i = 0; i < n; i++) {
    res[i].scan = malloc((size_t)SCAN_N * 4);
    run_on(contexts[i], x, xd, &res[i]);
    if (!res[i].ok) continue;
    uint64_t scan_hash = 1469598103934665603ull;
    uint64_t col_hash = 1469598103934665603ull;
    for (int64_t k = 0; k < SCAN_N; k++)
      scan_hash = (scan_hash ^ bits32(res[i].scan[k])) * 1099511628211ull;
    for (int k = 0; k < COLS_N; k++)
      col_hash = (col_hash ^ bits32(res[i].cols[k])) * 1099511628211ull;
    printf(
        "%s\n  sum32 0x%08x  sum64 0x%016llx  cols 0x%016llx  argmax %lld  cumsum "
        "0x%016llx  custom 0x%016llx\n",
        res[i].name, bits32(res[i].sum32), (unsigned long long)bits64(res[i].sum64),
        (unsigned long long)col_hash, (long long)res[i].argmax, (unsigned long long)scan_hash,
        (unsigned long long)bits64(res[i].custom));
    CHECK_MSG(bits32(res[i].sum32) == bits32(tree), "%s: float32 sum 0x%08x, the tree 0x%08x",
              res[i].name, bits32(res[i].sum32), bits32(tree));
  }
  for (int i = 1; i < n; i++) {
    if (!res[i].ok || !res[0].ok) continue;
    CHECK_MSG(bits32(res[i].sum32) == bits32(res[0].sum32), "%s vs %s: float32 sum", res[i].name,
              res[0].name);
    int doubles = res[i].has_double && res[0].has_double;
    CHECK_MSG(!doubles || bits64(res[i].sum64) == bits64(res[0].sum64), "%s vs %s: float64 sum",
              res[i].name, res[0].name);
    CHECK_MSG(memcmp(res[i].cols, res[0].cols, sizeof res[0].cols) == 0, "%s vs %s: column sums",
              res[i].name, res[0].name);
    CHECK_MSG(res[i].argmax == res[0].argmax, "%s vs %s: argmax", res[i].name, res[0].name);
    CHECK_MSG(memcmp(res[i].scan, res[0].scan, (size_t)SCAN_N * 4) == 0, "%s vs %s: cumsum",
              res[i].name, res[0].name);
    CHECK_MSG(!doubles || bits64(res[i].custom) == bits64(res[0].custom),
              "%s vs %s: custom reduction", res[i].name, res[0].name);
  }
  printf("%d devices compared\n", n);
  for (int i = 0; i < n; i++) {
    free(res[i].scan);
    kiln_context_release(contexts[i]);
  }
  free(x);
  free(xd);
}

static const harness_test tests[] = {{"reproducible_cross", test_reproducible_cross}, {0}};

int main(int argc, char **argv) { return harness_main_no_context(argc, argv, tests); }
