/* tests/search_testing.h: what the searching and indexing tests share:
 * device views of host data (contiguous, strided, reversed), element
 * access by dtype, NumPy's sort order on the host, and running NumPy
 * itself (tests/search_numpy.py) where the venv is present. */
#ifndef KILN_TESTS_SEARCH_TESTING_H
#define KILN_TESTS_SEARCH_TESTING_H

#include <unistd.h>

#include "harness.h"

static const kiln_dtype all_dtypes[] = {
    KILN_BOOL,   KILN_INT8,    KILN_UINT8,   KILN_INT16,     KILN_UINT16,
    KILN_INT32,  KILN_UINT32,  KILN_INT64,   KILN_UINT64,    KILN_FLOAT16,
    KILN_FLOAT32, KILN_FLOAT64, KILN_COMPLEX64, KILN_COMPLEX128};
#define NDTYPES ((int)(sizeof all_dtypes / sizeof all_dtypes[0]))

/* Element i of a host buffer as (real, imag) doubles. */
static inline void st_get(const void *data, kiln_dtype dtype, int64_t i, double *re, double *im) {
  *im = 0;
  if (dtype == KILN_COMPLEX64) {
    const float *p = (const float *)data + 2 * i;
    *re = p[0];
    *im = p[1];
  } else if (dtype == KILN_COMPLEX128) {
    const double *p = (const double *)data + 2 * i;
    *re = p[0];
    *im = p[1];
  } else {
    *re = harness_get(data, dtype, i);
  }
}

/* Writes v (real; imag for complex) as element i of dtype; integers wrap
 * (through int64, so that no out-of-range float conversion happens). */
static inline void st_set(void *data, kiln_dtype dtype, int64_t i, double re, double im) {
  switch (dtype) {
    case KILN_BOOL: ((uint8_t *)data)[i] = re != 0; break;
    case KILN_INT8: ((int8_t *)data)[i] = (int8_t)(int64_t)re; break;
    case KILN_UINT8: ((uint8_t *)data)[i] = (uint8_t)(int64_t)re; break;
    case KILN_INT16: ((int16_t *)data)[i] = (int16_t)(int64_t)re; break;
    case KILN_UINT16: ((uint16_t *)data)[i] = (uint16_t)(int64_t)re; break;
    case KILN_INT32: ((int32_t *)data)[i] = (int32_t)(int64_t)re; break;
    case KILN_UINT32: ((uint32_t *)data)[i] = (uint32_t)(int64_t)re; break;
    case KILN_INT64: ((int64_t *)data)[i] = (int64_t)re; break;
    case KILN_UINT64: ((uint64_t *)data)[i] = (uint64_t)re; break;
    case KILN_FLOAT16: ((uint16_t *)data)[i] = kiln_float16_from_double(re); break;
    case KILN_FLOAT32: ((float *)data)[i] = (float)re; break;
    case KILN_FLOAT64: ((double *)data)[i] = re; break;
    case KILN_COMPLEX64:
      ((float *)data)[2 * i] = (float)re;
      ((float *)data)[2 * i + 1] = (float)im;
      break;
    case KILN_COMPLEX128:
      ((double *)data)[2 * i] = re;
      ((double *)data)[2 * i + 1] = im;
      break;
    default: break;
  }
}

/* NumPy's sort order of (re, im) pairs: NaNs last (npy_sort's LT). */
static inline int st_less(double ar, double ai, double br, double bi) {
  if (ar < br) return ai == ai || bi != bi;
  if (ar > br) return bi != bi && ai == ai;
  if (ar == br || (ar != ar && br != br)) return ai < bi || (bi != bi && ai == ai);
  return br != br;
}

/* A device array of the n elements of host h (1-D) as layout 0:
 * contiguous, 1: every other element of a longer array, 2: a reversed
 * view (negative stride) of a reversed copy. NULL after a failure. */
static inline kiln_array *st_view_1d(kiln_context *ctx, const void *h, kiln_dtype dtype,
                                     int64_t n, int layout) {
  size_t item = kiln_dtype_size(dtype);
  kiln_array *base = NULL, *view = NULL;
  if (layout == 0 || n == 0) {
    if (kiln_array_from_host(ctx, dtype, 1, &n, NULL, h, &base) != KILN_OK) return NULL;
    return base;
  }
  int64_t bn = layout == 1 ? 2 * n + 1 : n;
  char *b = calloc((size_t)bn * item + 1, 1);
  for (int64_t i = 0; i < n; i++) {
    int64_t at = layout == 1 ? 1 + 2 * i : n - 1 - i;
    memcpy(b + at * (int64_t)item, (const char *)h + i * (int64_t)item, item);
  }
  kiln_status s = kiln_array_from_host(ctx, dtype, 1, &bn, NULL, b, &base);
  free(b);
  if (s != KILN_OK) return NULL;
  kiln_slice sl = layout == 1 ? (kiln_slice){1, KILN_NONE, 2} : (kiln_slice){KILN_NONE, KILN_NONE, -1};
  s = kiln_array_slice(base, 1, &sl, &view);
  kiln_array_release(base);
  return s == KILN_OK ? view : NULL;
}

/* ---- NumPy (tests/search_numpy.py through the venv's python) ---------------- */

/* The python with NumPy 2 (KILN_TEST_NUMPY, set by tests/search.cmake's
 * wrapper), or NULL with the reason printed once. */
static inline const char *st_numpy(void) {
  const char *py = getenv("KILN_TEST_NUMPY");
  static int said = 0;
  if ((!py || !*py) && !said) {
    printf("NumPy comparisons SKIPPED: no Python with NumPy 2 (ci/numpy-venv.sh made none)\n");
    said = 1;
  }
  return py && *py ? py : NULL;
}

/* Writes n elements of host data to a temporary file; returns its path
 * (static storage per slot 0..7). */
static inline const char *st_write(int slot, const void *data, size_t bytes) {
  static char paths[8][64];
  snprintf(paths[slot], sizeof paths[slot], "/tmp/kiln_search_%d_%d.bin", (int)getpid(), slot);
  FILE *f = fopen(paths[slot], "wb");
  if (!f) return NULL;
  if (bytes) fwrite(data, 1, bytes, f);
  fclose(f);
  return paths[slot];
}

/* Runs `python search_numpy.py <args>` (NumPy computing one call), which
 * writes its result to a file read into out (at most cap bytes; *got
 * receives the size). Returns 0 on success; -1 (after recording a
 * failure) when NumPy failed, with its stderr in the test output. */
static inline int st_run_numpy(const char *args, void *out, size_t cap, size_t *got) {
  const char *py = st_numpy();
  if (!py) return -1;
  char result[64], command[4096];
  snprintf(result, sizeof result, "/tmp/kiln_search_%d_out.bin", (int)getpid());
  snprintf(command, sizeof command, "%s %s/search_numpy.py %s --out %s", py, KILN_TESTS_DIR, args,
           result);
  int rc = system(command);
  if (rc != 0) {
    harness_fail(__FILE__, __LINE__, "NumPy failed: %s", command);
    return -1;
  }
  FILE *f = fopen(result, "rb");
  if (!f) return -1;
  *got = fread(out, 1, cap, f);
  fclose(f);
  remove(result);
  return 0;
}

#endif
