/* Compile check for GPU targets this machine does not have: every kernel of
 * the suite (every .kl file in tests/kernels, not invalid/) and every built-in kernel
 * family, composed with the backend's prelude exactly as at run time, is
 * compiled by the backend's compiler library for each target, and each
 * must give a binary. Needs no GPU and no driver: only NVRTC or hiprtc.
 *
 * Environment (set by tests/core.cmake): KILN_CHECK_BACKEND (cuda | hip),
 * KILN_CHECK_TARGETS (comma list: sm_80,sm_90 / gfx90a,gfx1030), and by
 * hand KILN_CHECK_ONLY=text: only the sources whose name contains text
 * (for instance "gemm" while working on it); KILN_CHECK_FIRST_TARGET=1
 * (CI's setting, .ci/run): only the list's first target;
 * KILN_CHECK_SAMPLE=k[:offset] (CI's setting: k=6, the offset drawn from
 * the commit as numpy_diff's seed, so that consecutive commits cover
 * different sixths): only the sources whose catalog index i has
 * (i + offset) % k == 0; the GPU runs and developers leave it unset and
 * compile every source; KILN_CHECK_DUMP=dir: also writes each composed
 * source to dir/<index>_<name>.cu (dump_source; to read NVRTC's PTX with
 * ptxas -v).
 * When the compiler library is missing the program exits 77 (SKIPPED)
 * with the reason. */
#include <ctype.h>
#include <dirent.h>

#include "backends/backend.h"
#include "core/runtime/context_internal.h"
#include "core/catalog/generated_kernels.h"
#include "core/kernel/kernel_internal.h"
#include "harness.h"

static int compare_names(const void *a, const void *b) {
  return strcmp(((const kiln_catalog_entry *)a)->name, ((const kiln_catalog_entry *)b)->name);
}

/* The suite's kernel files, sorted so the output is stable. */
static void add_suite_kernels(kiln_catalog *catalog) {
  DIR *dir = opendir(KILN_TEST_KERNEL_DIR);
  if (!dir) {
    harness_fail(__FILE__, __LINE__, "cannot list %s", KILN_TEST_KERNEL_DIR);
    return;
  }
  int first = catalog->count;
  struct dirent *e;
  while ((e = readdir(dir)) != NULL) {
    size_t n = strlen(e->d_name);
    if (n < 4 || strcmp(e->d_name + n - 3, ".kl") != 0) continue;
    char *source = harness_load_kernel(e->d_name);
    if (source) CHECK_OK(kiln_catalog_add(catalog, e->d_name, source));
    free(source);
  }
  closedir(dir);
  qsort(catalog->entries + first, (size_t)(catalog->count - first), sizeof *catalog->entries,
        compare_names);
}

/* KILN_CHECK_DUMP: the composed source, as the compiler gets it, in a
 * file named after its catalog index and name, every character of the
 * name but letters, digits, '.', '_' and '-' as '_' (names hold spaces
 * and slashes, "reduction ufunc_add pass 100 1/1 vector tail", and repeat
 * across dtypes: the index keeps the files apart). */
static void dump_source(int index, const char *name, const char *full) {
  const char *dir = getenv("KILN_CHECK_DUMP");
  if (!dir || !full) return;
  char file[256], path[1024];
  snprintf(file, sizeof file, "%04d_%s", index, name);
  for (char *c = file; *c; c++)
    if (!isalnum((unsigned char)*c) && *c != '.' && *c != '_' && *c != '-') *c = '_';
  snprintf(path, sizeof path, "%s/%s.cu", dir, file);
  FILE *f = fopen(path, "w");
  if (!f) {
    harness_fail(__FILE__, __LINE__, "cannot write %s", path);
    return;
  }
  fputs(full, f);
  fclose(f);
}

static void test_compile_everything(kiln_context *unused) {
  (void)unused;
  const char *backend = getenv("KILN_CHECK_BACKEND");
  const char *targets = getenv("KILN_CHECK_TARGETS");
  const char *only = getenv("KILN_CHECK_ONLY");
  const kiln_backend_ops *ops = kiln_registry_find(backend);
  if (!ops || !ops->compile_for_target || !targets) {
    harness_fail(__FILE__, __LINE__, "KILN_CHECK_BACKEND=%s has no compile_for_target or "
                 "KILN_CHECK_TARGETS is unset", backend ? backend : "(unset)");
    return;
  }
  kiln_catalog catalog = {0};
  add_suite_kernels(&catalog);
  CHECK_OK(kiln_catalog_add_builtins(&catalog));
  int compiled = 0;
  char list[256];
  snprintf(list, sizeof list, "%s", targets);
  const char *first_only = getenv("KILN_CHECK_FIRST_TARGET");
  if (first_only && strcmp(first_only, "1") == 0) list[strcspn(list, ",")] = '\0';
  harness_sample sample;
  if (!harness_sample_from_env("KILN_CHECK_SAMPLE", &sample)) {
    kiln_catalog_free(&catalog);
    return;
  }
  int considered = 0;
  char shown[256];
  snprintf(shown, sizeof shown, "%s", list); /* strtok_r cuts list up */
  for (char *save = NULL, *target = strtok_r(list, ",", &save); target;
       target = strtok_r(NULL, ",", &save)) {
    for (int i = 0; i < catalog.count; i++) {
      if (only && !strstr(catalog.entries[i].name, only)) continue;
      considered++;
      if (!harness_sample_takes(&sample, (unsigned long)i)) continue;
      char *full = NULL, *log = NULL;
      size_t size = 0;
      CHECK_OK(kiln_source_compose(ops, catalog.entries[i].source, &full));
      dump_source(i, catalog.entries[i].name, full);
      kiln_status s = ops->compile_for_target(full, NULL, target, &size, &log);
      if (s == KILN_ERROR_UNAVAILABLE) {
        harness_skip("%s compiler not available: %s", backend, kiln_last_error());
        free(full);
        free(log);
        kiln_catalog_free(&catalog);
        return;
      }
      if (s != KILN_OK || size == 0)
        harness_fail(__FILE__, __LINE__, "%s for %s: %s (%zu bytes): %s\n%s", catalog.entries[i].name,
                     target, kiln_status_string(s), size, kiln_last_error(), log ? log : "");
      else
        compiled++;
      printf("  %-4s %-8s %-60s %8zu bytes\n", s == KILN_OK ? "ok" : "FAIL", target,
             catalog.entries[i].name, size);
      free(full);
      free(log);
    }
  }
  printf("compiled %d sources for %s targets %s", compiled, backend, shown);
  if (sample.every > 1)
    printf(" (a sample: one in %lu of %d, offset %lu; unset KILN_CHECK_SAMPLE for all)",
           sample.every, considered, sample.offset);
  printf("\n");
  CHECK(compiled > 0);
  kiln_catalog_free(&catalog);
}

static const harness_test tests[] = {
    {"compile_everything", test_compile_everything},
    {0},
};

int main(int argc, char **argv) { return harness_main_no_context(argc, argv, tests); }
