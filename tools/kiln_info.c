/* kiln-info: lists every backend compiled into libkiln (loaded or not, and
 * why), its devices and their properties, then opens the context the
 * environment selects (KILN_BACKEND, KILN_DEVICE, KILN_OPENCL_PLATFORM).
 * For each backend with a device, the path matrix products and FFTs take
 * (vendor BLAS / FFT library or kiln's portable kernels, and why) and the
 * path of the single-pass scan (look-back or reduce-then-scan, and why).
 * Exit status 0 when that
 * context opens, 1 with the reason otherwise. */
#include <stdio.h>
#include <string.h>

#include "kiln/kiln.h"

static void print_device(const kiln_device_info *d) {
  static const char *const types[] = {"?", "GPU", "CPU", "other"};
  printf("    [%d] %s (%s)\n", d->index, d->name, types[d->type <= KILN_DEVICE_OTHER ? d->type : 0]);
  printf("        vendor %s; platform %s; driver %s; arch %s\n", d->vendor, d->platform,
         d->driver_version, d->architecture);
  printf("        %u compute units, %.1f GiB global memory, %llu KiB local memory,\n"
         "        %.1f MiB global memory cache, work-groups up to %llu, float64 %s\n",
         d->compute_units, (double)d->global_memory / (1024.0 * 1024 * 1024),
         (unsigned long long)(d->local_memory / 1024), (double)d->cache_size / (1024.0 * 1024),
         (unsigned long long)d->max_work_group_size, d->has_double ? "yes" : "no");
}

/* Which path matrix products take on device 0 of a backend, and why. */
static void print_blas(const char *name) {
  kiln_context_options options;
  kiln_context_options_init(&options);
  options.backends = name;
  options.device = 0;
  kiln_context *ctx = NULL;
  char text[1024];
  if (kiln_context_create(&options, &ctx) != KILN_OK)
    printf("    blas: unknown (cannot open device 0: %s)\n", kiln_last_error());
  else if (kiln_linalg_describe(ctx, text, sizeof text) != KILN_OK)
    printf("    blas: %s\n", kiln_last_error());
  else
    printf("    blas: %s\n", text);
  if (ctx && kiln_fft_describe(ctx, text, sizeof text) != KILN_OK)
    printf("    fft: %s\n", kiln_last_error());
  else if (ctx)
    printf("    fft: %s\n", text);
  if (ctx && kiln_scan_describe(ctx, text, sizeof text) == KILN_OK) printf("    scan: %s\n", text);
  kiln_context_release(ctx);
}

static void list_backend(const char *name) {
  int count = 0;
  kiln_status status = kiln_backend_device_count(name, NULL, &count);
  if (status != KILN_OK) {
    printf("  %s: not usable (%s)\n", name, kiln_status_string(status));
    /* indent the reason under the backend */
    const char *why = kiln_last_error();
    printf("    ");
    for (const char *p = why; *p; p++) {
      putchar(*p);
      if (*p == '\n' && p[1]) printf("    ");
    }
    putchar('\n');
    return;
  }
  printf("  %s: %d device%s\n", name, count, count == 1 ? "" : "s");
  for (int i = 0; i < count; i++) {
    kiln_device_info info;
    if (kiln_backend_device_info(name, NULL, i, &info) == KILN_OK) print_device(&info);
    else printf("    [%d] %s\n", i, kiln_last_error());
  }
  if (count > 0) print_blas(name);
}

int main(int argc, char **argv) {
  if (argc > 1 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
    printf("usage: kiln-info\nLists kiln's backends and devices, then opens the context "
           "that KILN_BACKEND / KILN_DEVICE / KILN_OPENCL_PLATFORM select.\n");
    return 0;
  }
  printf("kiln %d.%d.%d backends:\n", KILN_VERSION_MAJOR, KILN_VERSION_MINOR,
         KILN_VERSION_PATCH);
  for (int i = 0; i < kiln_backend_count(); i++) list_backend(kiln_backend_name(i));

  kiln_context *ctx = NULL;
  kiln_status status = kiln_context_create(NULL, &ctx);
  if (status != KILN_OK) {
    fprintf(stderr, "kiln-info: cannot open a context: %s\n%s\n", kiln_status_string(status),
            kiln_last_error());
    return 1;
  }
  kiln_device_info info;
  kiln_context_device_info(ctx, &info);
  printf("selected: %s device %d: %s\n", info.backend, info.index, info.name);
  kiln_context_release(ctx);
  return 0;
}
