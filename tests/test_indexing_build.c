/* Builds every kernel variant of searching, counting and indexing
 * (kernels/builtin/search.kl, count.kl, move.kl, unique.kl as the catalog of
 * generated kernels lists them: core/sort/indexing_catalog.c) with the
 * device of the backend under test, as at run time: on OpenCL through the
 * platform's own compiler in OpenCL C 1.2 (-cl-std=CL1.2), so that a
 * driver's compiler that rejects or crashes on one of them (NVIDIA's
 * OpenCL once did on count.kl) fails here by name, not in a user's call.
 * On the GPU host: KILN_OPENCL_PLATFORM=NVIDIA ctest -R indexing_build.opencl
 *
 * Variants a device cannot have are skipped with the reason: float64 and
 * complex128 ones without doubles, the 64-bit-atomic ones (float64 sums,
 * uint64 counts) where count.kl says the device lacks them. Environment:
 * KILN_CHECK_ONLY=text builds only the variants whose name contains it. */
#include "core/kernel/kernel_catalog.h"
#include "core/kernel/kernel_internal.h"
#include "core/sort/indexing_internal.h"
#include "harness.h"

/* The entry point of a catalog variant, by its family. */
static const char *entry_of(const char *name) {
  if (strncmp(name, "searchsorted", 12) == 0) return "kiln_searchsorted";
  if (strncmp(name, "count", 5) == 0) return "kiln_count";
  if (strncmp(name, "unique", 6) == 0) return "kiln_unique_flags";
  return "kiln_take_flat";
}

static void test_build_every_variant(kiln_context *ctx) {
  kiln_catalog catalog = {0};
  CHECK_OK(kiln_indexing_catalog_add(&catalog));
  kiln_device_info info;
  CHECK_OK(kiln_context_device_info(ctx, &info));
  const char *only = getenv("KILN_CHECK_ONLY");
  int built = 0, skipped = 0;
  for (int i = 0; i < catalog.count; i++) {
    const char *name = catalog.entries[i].name;
    if (only && !strstr(name, only)) continue;
    if (!info.has_double && (strstr(name, "float64") || strstr(name, "complex128"))) {
      printf("  skip %-60s (the device has no float64)\n", name);
      skipped++;
      continue;
    }
    kiln_program *program = NULL;
    kiln_status s = kiln_program_get(ctx, catalog.entries[i].source, NULL, entry_of(name), &program);
    if (s != KILN_OK && strstr(kiln_last_error(), "need 64-bit atomics, which this device lacks")) {
      printf("  skip %-60s (the device has no 64-bit atomics)\n", name);
      skipped++;
      continue;
    }
    if (s != KILN_OK)
      harness_fail(__FILE__, __LINE__, "%s: %s: %s", name, kiln_status_string(s), kiln_last_error());
    else
      built++;
    printf("  %-4s %s\n", s == KILN_OK ? "ok" : "FAIL", name);
  }
  printf("built %d variants on %s (%s, %s), skipped %d\n", built, info.name, info.backend,
         info.platform, skipped);
  CHECK(built > 0 || only);
  kiln_catalog_free(&catalog);
}

static const harness_test tests[] = {
    {"build_every_variant", test_build_every_variant},
    {0},
};

int main(int argc, char **argv) { return harness_main(argc, argv, tests); }
