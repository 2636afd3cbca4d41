/* tests/test_interop.c: native handles, wrapping native memory, and DLPack
 * export/import (kiln/interop.h), on random data, views, edge sizes and
 * every bad input. Memory "owned by another library" is memory of a
 * second kiln array reached only through its native handle, so the test
 * needs no vendor API and runs on every backend. */
#include <dlpack/dlpack.h>

#include "harness.h"

/* ---- helpers ------------------------------------------------------------- */

/* A random float64 array of shape (rows, cols), its values in *host. */
static kiln_array *random_matrix(kiln_context *ctx, int64_t rows, int64_t cols, double **host) {
  int64_t shape[2] = {rows, cols};
  *host = malloc((size_t)(rows * cols + 1) * sizeof **host);
  harness_fill_random(*host, KILN_FLOAT64, rows * cols, -100, 100);
  kiln_array *a = NULL;
  CHECK_OK(kiln_array_from_host(ctx, KILN_FLOAT64, 2, shape, NULL, *host, &a));
  return a;
}

/* Adds `value` (a whole number for integer arrays) to every element of `a`
 * in place with the built-in ufunc. */
static kiln_status add_in_place(kiln_array *a, double value) {
  kiln_ufunc *add;
  kiln_status s = kiln_ufunc_builtin(kiln_array_context(a), "add", &add);
  if (s != KILN_OK) return s;
  kiln_operand in[2] = {kiln_operand_array(a),
                        kiln_dtype_is_float(kiln_array_dtype(a)) ? kiln_operand_float(value)
                                                                 : kiln_operand_int((int64_t)value)};
  kiln_operand out[1] = {kiln_operand_array(a)};
  s = kiln_ufunc_call(add, 2, in, 1, out, NULL);
  kiln_ufunc_release(add);
  return s;
}

static int release_count;
static void count_release(void *user_data) {
  CHECK(user_data == &release_count);
  release_count++;
}

/* ---- native handles ------------------------------------------------------ */

static void test_context_native(kiln_context *ctx) {
  kiln_native_handles h;
  REQUIRE_OK(kiln_context_native(ctx, NULL, &h));
  kiln_device_info info;
  REQUIRE_OK(kiln_context_device_info(ctx, &info));
  CHECK(strcmp(h.backend, info.backend) == 0);
  CHECK(h.queue != NULL);
  CHECK(h.device != NULL || h.device_ordinal >= 0);
  kiln_stream *stream;
  REQUIRE_OK(kiln_stream_create(ctx, &stream));
  kiln_native_handles hs;
  CHECK_OK(kiln_context_native(ctx, stream, &hs));
  CHECK(hs.queue != NULL && hs.queue != h.queue);
  CHECK(hs.context == h.context && hs.device == h.device);
  kiln_stream_release(stream);

  CHECK_STATUS(kiln_context_native(NULL, NULL, &h), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_context_native(ctx, NULL, NULL), KILN_ERROR_INVALID_ARGUMENT);
  kiln_context *other;
  REQUIRE_OK(kiln_context_create(NULL, &other));
  kiln_stream *foreign;
  REQUIRE_OK(kiln_stream_create(other, &foreign));
  CHECK_STATUS(kiln_context_native(ctx, foreign, &h), KILN_ERROR_INVALID_ARGUMENT);
  kiln_stream_release(foreign);
  kiln_context_release(other);
}

static void test_array_native(kiln_context *ctx) {
  double *host;
  kiln_array *a = random_matrix(ctx, 7, 13, &host);
  if (!a) return;
  kiln_native_memory m;
  REQUIRE_OK(kiln_array_native(a, &m));
  CHECK((m.object != NULL) != (m.address != 0));
  CHECK(m.bytes == 7 * 13 * sizeof(double) && m.offset == 0);
  /* a view shares the memory and reports its own offset */
  kiln_slice s[2] = {{2, 6, 1}, {11, 0, -3}};
  kiln_array *v;
  REQUIRE_OK(kiln_array_slice(a, 2, s, &v));
  kiln_native_memory mv;
  REQUIRE_OK(kiln_array_native(v, &mv));
  CHECK(mv.object == m.object && mv.address == m.address && mv.bytes == m.bytes);
  CHECK(mv.offset == kiln_array_offset(v) && mv.offset == (2 * 13 + 11) * 8);
  /* empty arrays have no memory */
  int64_t zero = 0;
  kiln_array *e;
  REQUIRE_OK(kiln_array_empty(ctx, KILN_INT32, 1, &zero, &e));
  kiln_native_memory me;
  CHECK_OK(kiln_array_native(e, &me));
  CHECK(!me.object && !me.address && me.bytes == 0);
  CHECK_STATUS(kiln_array_native(NULL, &me), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_array_native(a, NULL), KILN_ERROR_INVALID_ARGUMENT);
  kiln_array_release(e);
  kiln_array_release(v);
  kiln_array_release(a);
  free(host);
}

/* Wraps the memory of `owner` as a transposed, strided view; writes through
 * the wrapper, reads through the owner; the release callback runs once, when
 * the last view of the wrapper goes. */
static void test_wrap_native(kiln_context *ctx) {
  const int64_t rows = 5, cols = 11; /* primes */
  double *host;
  kiln_array *owner = random_matrix(ctx, rows, cols, &host);
  if (!owner) return;
  kiln_native_memory m;
  REQUIRE_OK(kiln_array_native(owner, &m));
  /* the transpose of rows 1..4, every other column from 1: shape (5, 4) */
  int64_t shape[2] = {5, 4}, strides[2] = {2 * 8, cols * 8};
  kiln_native_memory at = m;
  at.offset = (1 * cols + 1) * 8;
  release_count = 0;
  kiln_array *w;
  REQUIRE_OK(kiln_array_wrap_native(ctx, &at, KILN_FLOAT64, 2, shape, strides, count_release,
                                    &release_count, &w));
  CHECK(kiln_array_offset(w) == at.offset && kiln_array_strides(w)[1] == cols * 8);
  double got[20];
  REQUIRE_OK(kiln_array_to_host(w, got, NULL));
  for (int i = 0; i < 5; i++)
    for (int j = 0; j < 4; j++)
      CHECK(got[i * 4 + j] == host[(1 + j) * cols + 1 + 2 * i]);
  REQUIRE_OK(add_in_place(w, 0.5));
  kiln_array *view;
  kiln_slice first[1] = {{0, 1, 1}};
  REQUIRE_OK(kiln_array_slice(w, 1, first, &view));
  kiln_array_release(w);
  CHECK(release_count == 0); /* `view` still uses the memory */
  kiln_array_release(view);
  CHECK(release_count == 1);
  double *after = malloc((size_t)(rows * cols) * sizeof *after);
  REQUIRE_OK(kiln_array_to_host(owner, after, NULL));
  for (int64_t r = 0; r < rows; r++)
    for (int64_t c = 0; c < cols; c++) {
      int touched = r >= 1 && c % 2 == 1;
      CHECK(after[r * cols + c] == host[r * cols + c] + (touched ? 0.5 : 0.0));
    }
  /* C-order default strides, size 1, and size 0 (callback still runs) */
  kiln_native_memory one = m;
  one.offset = 3 * 8;
  int64_t n1 = 1;
  REQUIRE_OK(kiln_array_wrap_native(ctx, &one, KILN_FLOAT64, 1, &n1, NULL, count_release,
                                    &release_count, &w));
  double x;
  REQUIRE_OK(kiln_array_to_host(w, &x, NULL));
  CHECK(x == after[3]);
  kiln_array_release(w);
  CHECK(release_count == 2);
  int64_t n0 = 0;
  kiln_native_memory none = {0};
  REQUIRE_OK(kiln_array_wrap_native(ctx, &none, KILN_INT8, 1, &n0, NULL, count_release,
                                    &release_count, &w));
  CHECK(kiln_array_size(w) == 0);
  kiln_array_release(w);
  CHECK(release_count == 3);
  /* NULL release: the caller keeps the memory alive */
  REQUIRE_OK(kiln_array_wrap_native(ctx, &m, KILN_FLOAT64, 1, &n1, NULL, NULL, NULL, &w));
  kiln_array_release(w);
  free(after);
  free(host);
  kiln_array_release(owner);
}

static void test_wrap_native_errors(kiln_context *ctx) {
  double *host;
  kiln_array *owner = random_matrix(ctx, 3, 4, &host);
  if (!owner) return;
  kiln_native_memory m;
  REQUIRE_OK(kiln_array_native(owner, &m));
  int64_t shape[1] = {12}, big[1] = {13}, odd[1] = {12};
  kiln_array *w = (kiln_array *)1;
  release_count = 0;
#define WRAP(mem, dt, nd, sh, st) \
  kiln_array_wrap_native(ctx, mem, dt, nd, sh, st, count_release, &release_count, &w)
  CHECK_STATUS(kiln_array_wrap_native(NULL, &m, KILN_FLOAT64, 1, shape, NULL, NULL, NULL, &w),
               KILN_ERROR_INVALID_ARGUMENT);
  CHECK(w == NULL);
  CHECK_STATUS(WRAP(NULL, KILN_FLOAT64, 1, shape, NULL), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_array_wrap_native(ctx, &m, KILN_FLOAT64, 1, shape, NULL, NULL, NULL, NULL),
               KILN_ERROR_INVALID_ARGUMENT);
  kiln_native_memory both = m, neither = m;
  if (m.object) both.address = 64;
  else both.object = &both;
  neither.object = NULL, neither.address = 0;
  CHECK_STATUS(WRAP(&both, KILN_FLOAT64, 1, shape, NULL), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("exactly one");
  CHECK_STATUS(WRAP(&neither, KILN_FLOAT64, 1, shape, NULL), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(WRAP(&m, KILN_FLOAT64, 1, big, NULL), KILN_ERROR_OUT_OF_RANGE);
  kiln_native_memory shifted = m;
  shifted.offset = 8;
  CHECK_STATUS(WRAP(&shifted, KILN_FLOAT64, 1, shape, NULL), KILN_ERROR_OUT_OF_RANGE);
  shifted.offset = -8;
  CHECK_STATUS(WRAP(&shifted, KILN_FLOAT64, 1, shape, NULL), KILN_ERROR_INVALID_ARGUMENT);
  shifted.offset = 4;
  CHECK_STATUS(WRAP(&shifted, KILN_FLOAT64, 1, shape, NULL), KILN_ERROR_INVALID_ARGUMENT);
  int64_t reverse[1] = {-8}, half[1] = {4};
  CHECK_STATUS(WRAP(&m, KILN_FLOAT64, 1, odd, reverse), KILN_ERROR_OUT_OF_RANGE);
  shifted.offset = 11 * 8; /* reversed from the last element: fits */
  REQUIRE_OK(WRAP(&shifted, KILN_FLOAT64, 1, odd, reverse));
  double rev[12];
  REQUIRE_OK(kiln_array_to_host(w, rev, NULL));
  for (int i = 0; i < 12; i++) CHECK(rev[i] == host[11 - i]);
  kiln_array_release(w);
  CHECK(release_count == 1);
  CHECK_STATUS(WRAP(&m, KILN_FLOAT64, 1, shape, half), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("whole number");
  int64_t huge[2] = {INT64_MAX / 4, 3}, huge_strides[2] = {16, INT64_MAX / 2};
  CHECK_STATUS(WRAP(&m, KILN_FLOAT64, 2, huge, huge_strides), KILN_ERROR_OUT_OF_RANGE);
  CHECK_STATUS(WRAP(&m, KILN_DTYPE_COUNT, 1, shape, NULL), KILN_ERROR_INVALID_ARGUMENT);
  int64_t negative[1] = {-1};
  CHECK_STATUS(WRAP(&m, KILN_FLOAT64, 1, negative, NULL), KILN_ERROR_INVALID_ARGUMENT);
  if (m.object) {
    /* a memory object of another context (a second context has its own) */
    kiln_context *other;
    REQUIRE_OK(kiln_context_create(NULL, &other));
    CHECK_STATUS(kiln_array_wrap_native(other, &m, KILN_FLOAT64, 1, shape, NULL, count_release,
                                        &release_count, &w),
                 KILN_ERROR_INVALID_ARGUMENT);
    CHECK_ERROR_CONTAINS("another");
    kiln_context_release(other);
  }
#undef WRAP
  CHECK(release_count == 1); /* failures never call it */
  kiln_array_release(owner);
  free(host);
}

/* ---- DLPack -------------------------------------------------------------- */

static void test_dlpack_export(kiln_context *ctx) {
  double *host;
  kiln_array *a = random_matrix(ctx, 7, 13, &host);
  if (!a) return;
  kiln_slice s[2] = {{1, 7, 2}, {12, 0, -5}};
  kiln_array *v;
  REQUIRE_OK(kiln_array_slice(a, 2, s, &v)); /* shape (3, 3), strides (26, -5) elements */
  kiln_array *t;
  REQUIRE_OK(kiln_array_transpose(v, NULL, &t));
  void *p;
  REQUIRE_OK(kiln_array_to_dlpack(t, &p));
  DLManagedTensor *m = p;
  DLTensor *d = &m->dl_tensor;
  kiln_native_handles h;
  REQUIRE_OK(kiln_context_native(ctx, NULL, &h));
  kiln_native_memory nm;
  REQUIRE_OK(kiln_array_native(t, &nm));
  kiln_device_info info;
  REQUIRE_OK(kiln_context_device_info(ctx, &info));
  CHECK(d->ndim == 2 && d->shape[0] == 3 && d->shape[1] == 3);
  CHECK(d->strides[0] == -5 && d->strides[1] == 26);
  CHECK(d->dtype.code == kDLFloat && d->dtype.bits == 64 && d->dtype.lanes == 1);
  if (nm.object) {
    CHECK(d->data == nm.object && d->byte_offset == (uint64_t)nm.offset);
    CHECK(d->device.device_id == info.index);
  } else {
    CHECK((uint64_t)(uintptr_t)d->data == nm.address + (uint64_t)nm.offset);
    CHECK(d->byte_offset == 0 && d->device.device_id == h.device_ordinal);
  }
  if (harness_backend_is(ctx, "opencl")) CHECK(d->device.device_type == kDLOpenCL);
  if (harness_backend_is(ctx, "cuda")) CHECK(d->device.device_type == kDLCUDA);
  if (harness_backend_is(ctx, "hip")) CHECK(d->device.device_type == kDLROCM);
  CHECK_STATUS(kiln_array_to_dlpack(t, NULL), KILN_ERROR_INVALID_ARGUMENT);
  /* the tensor keeps the memory alive after every kiln view is gone */
  kiln_array_release(t);
  kiln_array_release(v);
  kiln_array_release(a);
  kiln_array *back;
  REQUIRE_OK(kiln_array_from_dlpack(ctx, m, &back));
  double got[9];
  REQUIRE_OK(kiln_array_to_host(back, got, NULL));
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) CHECK(got[i * 3 + j] == host[(1 + 2 * j) * 13 + 12 - 5 * i]);
  kiln_array_release(back); /* calls m's deleter */
  CHECK_STATUS(kiln_array_to_dlpack(NULL, &p), KILN_ERROR_INVALID_ARGUMENT);
  CHECK(p == NULL);
  free(host);
}

/* A consumer-side wrapper that counts deleter calls of an exported tensor. */
typedef struct counted {
  DLManagedTensor outer;
  DLManagedTensor *inner;
  int *deletes;
} counted;

static void counted_delete(DLManagedTensor *m) {
  counted *c = m->manager_ctx;
  (*c->deletes)++;
  c->inner->deleter(c->inner);
  free(c);
}

static DLManagedTensor *counted_wrap(DLManagedTensor *inner, int *deletes) {
  counted *c = malloc(sizeof *c);
  c->outer = *inner;
  c->outer.manager_ctx = c;
  c->outer.deleter = counted_delete;
  c->inner = inner;
  c->deletes = deletes;
  return &c->outer;
}

/* kiln -> DLPack -> kiln for every dtype and edge sizes: values equal,
 * changes through the import seen by the original, the deleter called
 * exactly once when the last imported view goes. */
static void test_dlpack_round_trip(kiln_context *ctx) {
  const int64_t sizes[] = {0, 1, 2, 97, 1009};
  for (int dt = 0; dt < KILN_DTYPE_COUNT; dt++) {
    kiln_dtype dtype = (kiln_dtype)dt;
    size_t item = kiln_dtype_size(dtype);
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
      int64_t n = sizes[k];
      unsigned char *data = malloc((size_t)n * item + 1), *got = malloc((size_t)n * item + 1);
      harness_fill_random(data, dtype, n, 0, 100);
      kiln_array *a;
      REQUIRE_OK(kiln_array_from_host(ctx, dtype, 1, &n, NULL, data, &a));
      void *p;
      REQUIRE_OK(kiln_array_to_dlpack(a, &p));
      if (dtype == KILN_FLOAT16) { /* DLPack's float16: kDLFloat, 16 bits */
        const DLDataType t = ((DLManagedTensor *)p)->dl_tensor.dtype;
        CHECK(t.code == kDLFloat && t.bits == 16 && t.lanes == 1);
      }
      int deletes = 0;
      kiln_array *b;
      REQUIRE_OK(kiln_array_from_dlpack(ctx, counted_wrap(p, &deletes), &b));
      CHECK(kiln_array_dtype(b) == dtype && kiln_array_size(b) == n);
      REQUIRE_OK(kiln_array_to_host(b, got, NULL));
      CHECK_MSG(n == 0 || memcmp(got, data, (size_t)n * item) == 0, "%s n=%lld differs",
                kiln_dtype_name(dtype), (long long)n);
      if (dtype != KILN_BOOL && n > 0) {
        kiln_slice odd[1] = {{1, KILN_NONE, 2}};
        kiln_array *view;
        REQUIRE_OK(kiln_array_slice(b, 1, odd, &view));
        REQUIRE_OK(add_in_place(view, 1));
        kiln_array_release(b);
        CHECK(deletes == 0);
        REQUIRE_OK(kiln_array_to_host(a, got, NULL));
        for (int64_t i = 0; i < n; i++) {
          double want = harness_get(data, dtype, i) + (i % 2 == 1 ? 1.0 : 0.0);
          /* the sum rounds to float32 (complex64: its real part) */
          if (dtype == KILN_FLOAT32 || dtype == KILN_COMPLEX64) want = (float)want;
          if (dtype == KILN_FLOAT16) want = kiln_float16_to_float(kiln_float16_from_double(want));
          CHECK_MSG(harness_get(got, dtype, i) == want, "%s n=%lld [%lld]: %.9g, expected %.9g",
                    kiln_dtype_name(dtype), (long long)n, (long long)i,
                    harness_get(got, dtype, i), want);
        }
        kiln_array_release(view);
      } else {
        kiln_array_release(b);
      }
      CHECK(deletes == 1);
      kiln_array_release(a);
      free(data);
      free(got);
    }
  }
}

/* Imports a hand-made tensor over kiln memory with C-order (NULL) strides
 * and a byte_offset / shifted pointer. */
static void test_dlpack_import_layouts(kiln_context *ctx) {
  int64_t n = 31;
  int32_t data[31];
  harness_fill_random(data, KILN_INT32, n, -1000, 1000);
  kiln_array *a;
  REQUIRE_OK(kiln_array_from_host(ctx, KILN_INT32, 1, &n, NULL, data, &a));
  void *p;
  REQUIRE_OK(kiln_array_to_dlpack(a, &p));
  DLManagedTensor *m = p;
  int64_t shape[2] = {5, 6};
  DLManagedTensor view = *m;
  view.dl_tensor.shape = shape;
  view.dl_tensor.ndim = 2;
  view.dl_tensor.strides = NULL;
  kiln_native_memory nm;
  REQUIRE_OK(kiln_array_native(a, &nm));
  if (nm.object) view.dl_tensor.byte_offset = 4; /* the only way with memory objects */
  else view.dl_tensor.data = (char *)view.dl_tensor.data + 4;
  view.deleter = NULL; /* m stays ours */
  kiln_array *b;
  REQUIRE_OK(kiln_array_from_dlpack(ctx, &view, &b));
  int32_t got[30];
  REQUIRE_OK(kiln_array_to_host(b, got, NULL));
  for (int i = 0; i < 30; i++) CHECK(got[i] == data[i + 1]);
  CHECK(kiln_array_strides(b)[0] == 24 && kiln_array_strides(b)[1] == 4);
  kiln_array_release(b);
  m->deleter(m);
  kiln_array_release(a);
}

static void test_dlpack_import_errors(kiln_context *ctx) {
  int64_t n = 8;
  float data[8];
  harness_fill_random(data, KILN_FLOAT32, n, -1, 1);
  kiln_array *a;
  REQUIRE_OK(kiln_array_from_host(ctx, KILN_FLOAT32, 1, &n, NULL, data, &a));
  void *p;
  REQUIRE_OK(kiln_array_to_dlpack(a, &p));
  DLManagedTensor *m = p;
  int deletes = 0;
  DLManagedTensor *c = counted_wrap(m, &deletes);
  kiln_array *b = (kiln_array *)1;
  DLTensor saved = c->dl_tensor;
#define EXPECT(status, needle)                                   \
  do {                                                           \
    CHECK_STATUS(kiln_array_from_dlpack(ctx, c, &b), status);    \
    CHECK(b == NULL);                                            \
    CHECK_ERROR_CONTAINS(needle);                                \
    c->dl_tensor = saved;                                        \
  } while (0)
  c->dl_tensor.device.device_type = kDLCPU;
  EXPECT(KILN_ERROR_INVALID_ARGUMENT, "kiln_array_from_host");
  c->dl_tensor.device.device_id += 1;
  EXPECT(KILN_ERROR_INVALID_ARGUMENT, "device type");
  c->dl_tensor.dtype.lanes = 2;
  EXPECT(KILN_ERROR_INVALID_ARGUMENT, "lanes");
  c->dl_tensor.dtype.bits = 24;
  EXPECT(KILN_ERROR_INVALID_ARGUMENT, "no kiln dtype");
  c->dl_tensor.dtype.code = kDLBfloat;
  EXPECT(KILN_ERROR_INVALID_ARGUMENT, "no kiln dtype");
  c->dl_tensor.ndim = KILN_MAX_DIMS + 1;
  EXPECT(KILN_ERROR_INVALID_ARGUMENT, "dims");
  int64_t negative = -3, huge_stride = INT64_MAX / 2;
  /* past the memory object even when the pool rounded it up to a size class */
  int64_t too_long = (int64_t)1 << 26;
  c->dl_tensor.shape = &negative;
  EXPECT(KILN_ERROR_INVALID_ARGUMENT, "negative");
  c->dl_tensor.strides = &huge_stride;
  EXPECT(KILN_ERROR_OUT_OF_RANGE, "overflows");
  kiln_native_memory nm;
  REQUIRE_OK(kiln_array_native(a, &nm));
  if (nm.object) { /* only memory objects know their size */
    c->dl_tensor.shape = &too_long;
    EXPECT(KILN_ERROR_OUT_OF_RANGE, "holds");
  }
  c->dl_tensor.data = NULL;
  EXPECT(KILN_ERROR_INVALID_ARGUMENT, "no data");
#undef EXPECT
  CHECK_STATUS(kiln_array_from_dlpack(NULL, c, &b), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_array_from_dlpack(ctx, NULL, &b), KILN_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(kiln_array_from_dlpack(ctx, c, NULL), KILN_ERROR_INVALID_ARGUMENT);
  CHECK(deletes == 0); /* failures leave the tensor to its owner */
  c->deleter(c);
  CHECK(deletes == 1);
  kiln_array_release(a);
}

static const harness_test tests[] = {
    {"context_native", test_context_native},
    {"array_native", test_array_native},
    {"wrap_native", test_wrap_native},
    {"wrap_native_errors", test_wrap_native_errors},
    {"dlpack_export", test_dlpack_export},
    {"dlpack_round_trip", test_dlpack_round_trip},
    {"dlpack_import_layouts", test_dlpack_import_layouts},
    {"dlpack_import_errors", test_dlpack_import_errors},
    {0},
};

int main(int argc, char **argv) { return harness_main(argc, argv, tests); }
