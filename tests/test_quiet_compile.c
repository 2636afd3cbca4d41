/* tests/test_quiet_compile.c: a failed compile prints nothing on the
 * process's stderr unless KILN_LOG asks (PoCL's in-process clang writes
 * "N errors generated." to fd 2; core/runtime/stderr_quiet.c keeps it off),
 * and what other threads write to stderr meanwhile still arrives, in order.
 * The test points fd 2 at a file of its own and reads it back. */
#include <pthread.h>
#include <unistd.h>

#include "harness.h"

typedef struct captured {
  FILE *file;
  int saved;
} captured;

static int capture_begin(captured *c) {
  fflush(stderr);
  c->file = tmpfile();
  c->saved = dup(STDERR_FILENO);
  if (!c->file || c->saved < 0 || dup2(fileno(c->file), STDERR_FILENO) < 0) {
    CHECK_MSG(0, "cannot redirect fd 2 for the test");
    return 0;
  }
  return 1;
}

/* Restores fd 2; returns what was written to it (malloc'd). */
static char *capture_end(captured *c) {
  fflush(stderr);
  dup2(c->saved, STDERR_FILENO);
  close(c->saved);
  fseek(c->file, 0, SEEK_END);
  long size = ftell(c->file);
  rewind(c->file);
  char *text = calloc((size_t)size + 1, 1);
  if (text && size > 0 && fread(text, 1, (size_t)size, c->file) != (size_t)size) text[0] = '\0';
  fclose(c->file);
  return text;
}

static void compile_bad_kernel_and_ufunc(kiln_context *ctx) {
  char *source = harness_load_kernel("invalid/syntax_error.kl");
  if (!source) return;
  kiln_kernel *kernel = NULL;
  CHECK_STATUS(kiln_kernel_create(ctx, source, "syntax_error", NULL, &kernel), KILN_ERROR_COMPILE);
  CHECK(kernel == NULL);
  free(source);
  static const char *const sigs[] = {"float32(float32 x)"};
  kiln_ufunc *u = NULL;
  REQUIRE_OK(kiln_ufunc_create(ctx, "quiet_bad", 1, sigs, "return x + undefined_y + zz;", NULL, &u));
  float host[5] = {1, 2, 3, 4, 5};
  int64_t n = 5;
  kiln_array *r = NULL;
  kiln_operand in[1] = {kiln_operand_host(host, KILN_FLOAT32, 1, &n, NULL)};
  kiln_operand out[1] = {kiln_operand_new(&r)};
  CHECK_STATUS(kiln_ufunc_call(u, 1, in, 1, out, NULL), KILN_ERROR_COMPILE);
  CHECK_ERROR_CONTAINS("undefined_y");
  CHECK(r == NULL);
  kiln_ufunc_release(u);
}

static void test_failed_compile_prints_nothing(kiln_context *ctx) {
  captured c;
  if (!capture_begin(&c)) return;
  compile_bad_kernel_and_ufunc(ctx);
  char *text = capture_end(&c);
  CHECK_MSG(text && text[0] == '\0', "stderr got \"%s\" with KILN_LOG unset", text ? text : "?");
  free(text);
}

enum { WRITER_LINES = 300 };

static void *write_lines(void *unused) {
  (void)unused;
  char line[64];
  for (int i = 0; i < WRITER_LINES; i++) {
    int n = snprintf(line, sizeof line, "writer line %d\n", i);
    if (write(STDERR_FILENO, line, (size_t)n) != n) break;
    if (i % 10 == 0) usleep(1000);
  }
  return NULL;
}

static void test_other_threads_output_arrives(kiln_context *ctx) {
  captured c;
  if (!capture_begin(&c)) return;
  pthread_t writer;
  int started = pthread_create(&writer, NULL, write_lines, NULL) == 0;
  for (int round = 0; round < 3; round++) compile_bad_kernel_and_ufunc(ctx);
  if (started) pthread_join(writer, NULL);
  char *text = capture_end(&c);
  CHECK(started);
  if (!text) return;
  /* every line once, in order, and nothing else */
  const char *p = text;
  char expected[64];
  for (int i = 0; i < WRITER_LINES; i++) {
    int n = snprintf(expected, sizeof expected, "writer line %d\n", i);
    if (strncmp(p, expected, (size_t)n) != 0) {
      CHECK_MSG(0, "line %d of the other thread missing or out of order at \"%.40s\"", i, p);
      break;
    }
    p += n;
  }
  CHECK_MSG(*p == '\0', "stderr has more than the other thread's lines: \"%.80s\"", p);
  free(text);
}

static const harness_test tests[] = {
    {"failed_compile_prints_nothing", test_failed_compile_prints_nothing},
    {"other_threads_output_arrives", test_other_threads_output_arrives},
    {0}};

int main(int argc, char **argv) { return harness_main(argc, argv, tests); }
