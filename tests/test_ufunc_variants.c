/* Conformance (white box): a ufunc compiles one program per (signature,
 * layout case, operand dtypes) and reuses it: a repeat call adds nothing,
 * the contiguous case is the flat-index variant (ndim 0), strided views
 * get the variant of their merged ndim, and the host path's dense staging
 * reuses the contiguous variant. */
#include "core/ufunc/ufunc_internal.h"
#include "ufunc_testing.h"

static int variant_count(kiln_ufunc *u) {
  pthread_mutex_lock(&u->lock);
  int n = u->nvariants;
  pthread_mutex_unlock(&u->lock);
  return n;
}

static const kiln_ufunc_variant *last_variant(kiln_ufunc *u) {
  return &u->variants[u->nvariants - 1];
}

static void call1(kiln_ufunc *u, const kiln_array *x, kiln_array *out) {
  kiln_operand in[2] = {kiln_operand_array(x), kiln_operand_float(3)};
  kiln_operand o[1] = {kiln_operand_array(out)};
  CHECK_OK(kiln_ufunc_call(u, 2, in, 1, o, NULL));
}

static void test_programs_are_reused(kiln_context *ctx) {
  static const char *const sigs[] = {"float32(float32 x, float32 y)",
                                     "float64(float64 x, float64 y)"};
  kiln_ufunc *u = NULL;
  REQUIRE_OK(kiln_ufunc_create(ctx, "plus", 2, sigs, "return x + y;", NULL, &u));
  CHECK(variant_count(u) == 0);
  int64_t shape[2] = {64, 2}, n = 64;
  kiln_array *points = random_array(ctx, KILN_FLOAT32, 2, shape, -1, 1);
  kiln_array *flat = random_array(ctx, KILN_FLOAT32, 1, &n, -1, 1);
  kiln_array *out = NULL, *column = NULL, *transposed = NULL, *out2 = NULL;
  REQUIRE_OK(kiln_array_empty(ctx, KILN_FLOAT32, 1, &n, &out));
  REQUIRE_OK(kiln_array_index(points, 1, 0, &column));

  call1(u, flat, out);
  CHECK(variant_count(u) == 1);
  const kiln_program *contiguous = last_variant(u)->program;
  CHECK(last_variant(u)->key.ndim == 0 && last_variant(u)->key.signature == 0);
  for (int i = 0; i < 5; i++) call1(u, flat, out);
  CHECK(variant_count(u) == 1);

  call1(u, column, out); /* strided input: the 1-d strided variant */
  CHECK(variant_count(u) == 2);
  CHECK(last_variant(u)->key.ndim == 1);
  call1(u, column, out);
  CHECK(variant_count(u) == 2);

  /* a transposed (2, 64) view in and a C-order (2, 64) out: 2-d */
  int64_t tshape[2] = {2, 64};
  REQUIRE_OK(kiln_array_transpose(points, NULL, &transposed));
  REQUIRE_OK(kiln_array_empty(ctx, KILN_FLOAT32, 2, tshape, &out2));
  call1(u, transposed, out2);
  CHECK(variant_count(u) == 3);
  CHECK(last_variant(u)->key.ndim == 2);

  /* a float64 array picks signature 1: a new variant */
  kiln_array *f64 = random_array(ctx, KILN_FLOAT64, 1, &n, -1, 1);
  kiln_array *r = NULL;
  kiln_operand in[2] = {kiln_operand_array(f64), kiln_operand_float(3)};
  kiln_operand o[1] = {kiln_operand_new(&r)};
  CHECK_OK(kiln_ufunc_call(u, 2, in, 1, o, NULL));
  CHECK(variant_count(u) == 4);
  CHECK(last_variant(u)->key.signature == 1);

  /* the host path stages densely: the contiguous variant again */
  float hx[64], hy[64];
  CHECK_OK(kiln_array_to_host(flat, hx, NULL));
  kiln_operand hin[2] = {kiln_operand_host(hx, KILN_FLOAT32, 1, &n, NULL), kiln_operand_float(3)};
  kiln_operand hout[1] = {kiln_operand_host_output(hy, KILN_FLOAT32, 1, &n, NULL)};
  CHECK_OK(kiln_ufunc_call(u, 2, hin, 1, hout, NULL));
  CHECK(variant_count(u) == 4);
  for (int i = 0; i < 64; i++) CHECK(hy[i] == hx[i] + 3);

  /* a second ufunc with the same name and body gets the same program from
   * the context's cache: compiled once per context */
  kiln_ufunc *twin = NULL;
  REQUIRE_OK(kiln_ufunc_create(ctx, "plus", 2, sigs, "return x + y;", NULL, &twin));
  call1(twin, flat, out);
  CHECK(variant_count(twin) == 1 && last_variant(twin)->program == contiguous);
  kiln_ufunc_release(twin);

  kiln_array *arrays[] = {points, flat, out, column, transposed, out2, f64, r};
  for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++) kiln_array_release(arrays[i]);
  kiln_ufunc_release(u);
}

static const harness_test tests[] = {
    {"programs_are_reused", test_programs_are_reused},
    {0},
};

int main(int argc, char **argv) { return harness_main(argc, argv, tests); }
