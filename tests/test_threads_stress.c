/* tests/test_threads_stress.c: several threads share one context and at
 * once create, call and release ufuncs, raw kernels, arrays and streams,
 * and call a shared ufunc and a shared kernel; every result is checked
 * exactly (integer arithmetic). Run in every suite, and by ci/tsan.sh under
 * ThreadSanitizer (bounded: KILN_STRESS_ROUNDS rounds per thread). */
#include <pthread.h>

#include "harness.h"

#define THREADS 4
#define N 4099 /* a prime */

static kiln_context *shared_ctx;
static kiln_ufunc *shared_ufunc;
static kiln_kernel *shared_kernel;
static int rounds = 6;

static char *add_scaled_source; /* tests/kernels/add_scaled_i32.kl */

typedef struct worker {
  int index;
  uint64_t rng; /* this thread's own generator (the harness's is not shared-safe) */
  int failures;
  char message[512];
} worker;

#define WORK_CHECK(w, cond, ...)                                          \
  do {                                                                    \
    if (!(cond) && !(w)->failures++)                                      \
      snprintf((w)->message, sizeof (w)->message, __VA_ARGS__);           \
  } while (0)

#define WORK_OK(w, expr)                                                  \
  do {                                                                    \
    kiln_status s_ = (expr);                                              \
    WORK_CHECK(w, s_ == KILN_OK, "%s: %s: %s", #expr, kiln_status_string(s_), \
               kiln_last_error());                                        \
    if (s_ != KILN_OK) goto done;                                         \
  } while (0)

/* splitmix64 */
static uint64_t next_random(worker *w) {
  uint64_t z = (w->rng += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static void one_round(worker *w, int round, int32_t *x, int32_t *y, int32_t *out) {
  int64_t n = N;
  kiln_array *dx = NULL, *dy = NULL, *sum = NULL, *product = NULL;
  kiln_ufunc *own = NULL;
  kiln_kernel *kernel = NULL;
  kiln_stream *stream = NULL;
  int32_t k = 3 + w->index + round;
  for (int64_t i = 0; i < n; i++) {
    x[i] = (int32_t)(next_random(w) % 20001) - 10000 + w->index;
    y[i] = (int32_t)(next_random(w) % 20001) - 10000 + round;
  }
  WORK_OK(w, kiln_stream_create(shared_ctx, &stream));
  WORK_OK(w, kiln_array_from_host(shared_ctx, KILN_INT32, 1, &n, NULL, x, &dx));
  WORK_OK(w, kiln_array_from_host(shared_ctx, KILN_INT32, 1, &n, NULL, y, &dy));

  /* the shared ufunc (x + y) and a ufunc of this thread (x * y - k) */
  kiln_operand in[2] = {kiln_operand_array(dx), kiln_operand_array(dy)};
  kiln_operand o1[1] = {kiln_operand_new(&sum)};
  WORK_OK(w, kiln_ufunc_call(shared_ufunc, 2, in, 1, o1, stream));
  char name[32], body[64];
  snprintf(name, sizeof name, "mul_minus_%d", w->index);
  snprintf(body, sizeof body, "return a * b - %d;", k);
  const char *signature = "int32(int32 a, int32 b)";
  WORK_OK(w, kiln_ufunc_create(shared_ctx, name, 1, &signature, body, NULL, &own));
  kiln_operand o2[1] = {kiln_operand_new(&product)};
  WORK_OK(w, kiln_ufunc_call(own, 2, in, 1, o2, stream));
  WORK_OK(w, kiln_stream_synchronize(shared_ctx, stream));
  WORK_OK(w, kiln_array_to_host(sum, out, NULL));
  for (int64_t i = 0; i < n; i++)
    WORK_CHECK(w, out[i] == x[i] + y[i], "shared ufunc: [%lld] = %d, expected %d", (long long)i,
               out[i], x[i] + y[i]);
  WORK_OK(w, kiln_array_to_host(product, out, NULL));
  for (int64_t i = 0; i < n; i++)
    WORK_CHECK(w, out[i] == x[i] * y[i] - k, "own ufunc: [%lld] = %d, expected %d",
               (long long)i, out[i], x[i] * y[i] - k);

  /* the shared kernel and a kernel of this thread, both y += k * x */
  kiln_arg args[4] = {kiln_arg_int64(n), kiln_arg_int32(k), kiln_arg_array(dx),
                      kiln_arg_array(dy)};
  WORK_OK(w, kiln_kernel_launch(shared_kernel, 1, &n, NULL, 4, args, stream));
  WORK_OK(w, kiln_kernel_create(shared_ctx, add_scaled_source, "add_scaled", NULL, &kernel));
  int64_t global = 256, local = 64;
  WORK_OK(w, kiln_kernel_launch(kernel, 1, &global, &local, 4, args, stream));
  WORK_OK(w, kiln_stream_synchronize(shared_ctx, stream));
  WORK_OK(w, kiln_array_to_host(dy, out, NULL));
  for (int64_t i = 0; i < n; i++)
    WORK_CHECK(w, out[i] == y[i] + 2 * k * x[i], "kernels: [%lld] = %d, expected %d",
               (long long)i, out[i], y[i] + 2 * k * x[i]);
done:
  kiln_kernel_release(kernel);
  kiln_ufunc_release(own);
  kiln_array_release(product);
  kiln_array_release(sum);
  kiln_array_release(dy);
  kiln_array_release(dx);
  kiln_stream_release(stream);
}

static void *work(void *arg) {
  worker *w = arg;
  int32_t *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y), *out = malloc(N * sizeof *out);
  if (!x || !y || !out) {
    w->failures++;
    snprintf(w->message, sizeof w->message, "out of host memory");
  }
  for (int round = 0; x && y && out && round < rounds && !w->failures; round++)
    one_round(w, round, x, y, out);
  free(x);
  free(y);
  free(out);
  return NULL;
}

static void test_shared_context(kiln_context *ctx) {
  const char *env = getenv("KILN_STRESS_ROUNDS");
  if (env && atoi(env) > 0) rounds = atoi(env);
  shared_ctx = ctx;
  add_scaled_source = harness_load_kernel("add_scaled_i32.kl");
  if (!add_scaled_source) return;
  const char *signature = "int32(int32 a, int32 b)";
  REQUIRE_OK(kiln_ufunc_create(ctx, "shared_add", 1, &signature, "return a + b;", NULL,
                               &shared_ufunc));
  REQUIRE_OK(kiln_kernel_create(ctx, add_scaled_source, "add_scaled", NULL, &shared_kernel));
  pthread_t threads[THREADS];
  worker workers[THREADS];
  for (int t = 0; t < THREADS; t++) {
    workers[t] = (worker){.index = t, .rng = harness_rand_u64()};
    CHECK(pthread_create(&threads[t], NULL, work, &workers[t]) == 0);
  }
  for (int t = 0; t < THREADS; t++) {
    pthread_join(threads[t], NULL);
    CHECK_MSG(workers[t].failures == 0, "thread %d: %d failures, first: %s", t,
              workers[t].failures, workers[t].message);
  }
  printf("  %d threads x %d rounds on one context\n", THREADS, rounds);
  kiln_kernel_release(shared_kernel);
  kiln_ufunc_release(shared_ufunc);
  free(add_scaled_source);
}

static const harness_test tests[] = {{"shared_context", test_shared_context}, {0}};

int main(int argc, char **argv) { return harness_main(argc, argv, tests); }
