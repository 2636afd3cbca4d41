/* core/reduce/reduce_catalog.c: the reduction and scan kernels kiln
 * generates, for the compile checks on GPU targets absent from the machine
 * (core/kernel/kernel_catalog.h): every pass shape (first, middle, last,
 * row and column variants, merged dims, the vector variant of a first
 * pass where its inputs allow it, a first pass running the later ones in
 * its last work-group), the built-in reducible ufuncs at
 * several dtypes, argmin/argmax, a custom map/reduce/post reduction, the
 * scan passes (inclusive, exclusive), the single-pass line scan (values,
 * compaction, nonzero) and the identity fill.
 * Each kernel defines its helpers, so each is its own source. */
#include <stdio.h>
#include <string.h>

#include "core/reduce/reduce_catalog.h"
#include "core/reduce/reduce_internal.h"

static kiln_status add_source(kiln_catalog *c, const char *what, kiln_strbuf *b) {
  kiln_status status = kiln_strbuf_status(b);
  if (status == KILN_OK) status = kiln_catalog_add(c, what, b->data);
  kiln_strbuf_free(b);
  return status;
}

/* One reduction pass of spec with vec lanes a work-item (1, or the
 * vector variant's kiln_rt_vector_width) and the batch of a wide pass or
 * of one that fills the device. */
static kiln_status add_pass_as(kiln_catalog *c, const kiln_rt_spec *spec, int first, int last,
                               int col, int keep_ndim, int red_ndim, int vec, int wide, int tail) {
  kiln_strbuf b = {0};
  kiln_rt_pass pass = {first,    last,      col,      kiln_rt_batch(spec, wide),
                       vec,      keep_ndim, red_ndim, tail};
  kiln_rt_source(spec, &pass, "kiln_reduce_catalog", &b);
  char what[128];
  snprintf(what, sizeof what, "reduction %s pass %d%d%d %d/%d%s%s%s", spec->name, first, last,
           col, keep_ndim, red_ndim, vec > 1 ? " vector" : "", wide ? " wide" : "",
           tail ? " tail" : "");
  return add_source(c, what, &b);
}

/* One reduction pass of spec: a first pass with the batch of a pass that
 * fills the device, later passes (partials, few) with the wide one, as they
 * usually run. */
static kiln_status add_pass(kiln_catalog *c, const kiln_rt_spec *spec, int first, int last, int col,
                            int keep_ndim, int red_ndim) {
  return add_pass_as(c, spec, first, last, col, keep_ndim, red_ndim, 1, !first, 0);
}

/* The vector variant of spec's first pass (row variant, one reduced dim),
 * the whole reduction and the partials of a wide pass. */
static kiln_status add_vector_passes(kiln_catalog *c, const kiln_rt_spec *spec) {
  int vec = kiln_rt_vector_width(spec);
  if (vec == 1) return KILN_OK;
  kiln_status status = add_pass_as(c, spec, 1, 1, 0, 1, 1, vec, 0, 0);
  if (status == KILN_OK) status = add_pass_as(c, spec, 1, 0, 0, 2, 1, vec, 1, 0);
  if (status == KILN_OK && kiln_rt_tail_fits(spec, 2, KILN_RT_MAX_GROUP))
    status = add_pass_as(c, spec, 1, 0, 0, 1, 1, vec, 0, 1);
  return status;
}

static kiln_status add_scan(kiln_catalog *c, const kiln_rt_spec *spec, const char *identity,
                            int totals, int exclusive) {
  kiln_strbuf b = {0};
  kiln_scan_source(spec, identity, totals, exclusive, 2, "kiln_scan_catalog", &b);
  char what[128];
  snprintf(what, sizeof what, "scan %s %d%d", spec->name, totals, exclusive);
  return add_source(c, what, &b);
}

static kiln_status add_line_scan(kiln_catalog *c, const kiln_scan_line_job *job,
                                 kiln_scan_line_pass pass, int direct) {
  kiln_strbuf b = {0};
  kiln_status status = kiln_scan_line_source(job, pass, direct, "kiln_scan_line_catalog", &b);
  char what[128];
  snprintf(what, sizeof what, "line scan %s kind %d pass %d%s%s", job->spec->name, (int)job->kind,
           (int)pass, job->exclusive ? " exclusive" : "", direct ? " direct" : "");
  if (status != KILN_OK) {
    kiln_strbuf_free(&b);
    return status;
  }
  return add_source(c, what, &b);
}

/* The single-pass scan of one line (core/codegen/scan_line.h): each pass of
 * a float32 cumsum from float16, an exclusive int64 one, a complex128 one
 * read and written in global memory, compaction and nonzero. */
static kiln_status add_line_scans(kiln_catalog *c) {
  kiln_array in = {.dtype = KILN_FLOAT16, .ndim = 1}, data = {.dtype = KILN_FLOAT64, .ndim = 1};
  kiln_rt_spec sum = {.name = "line_sum",
                      .ninputs = 1,
                      .inputs = {KILN_FLOAT16},
                      .acc = KILN_FLOAT32,
                      .out = KILN_FLOAT16,
                      .combine = "return a + b;"};
  kiln_scan_line_job job = {.kind = KILN_SCAN_LINE_VALUES, .spec = &sum, .identity = "0", .in = &in};
  kiln_status status = KILN_OK;
  for (int pass = 0; pass < 4 && status == KILN_OK; pass++)
    status = add_line_scan(c, &job, (kiln_scan_line_pass)pass, 0);
  kiln_rt_spec wide = sum;
  wide.inputs[0] = in.dtype = KILN_INT32;
  wide.acc = wide.out = KILN_INT64;
  job.spec = &wide;
  job.exclusive = 1;
  if (status == KILN_OK) status = add_line_scan(c, &job, KILN_SCAN_LINE_LOOKBACK, 0);
  kiln_rt_spec complex = sum;
  complex.inputs[0] = in.dtype = complex.acc = complex.out = KILN_COMPLEX128;
  complex.combine = "return kiln_complex128_add(a, b);";
  job.spec = &complex;
  job.exclusive = 0;
  job.identity = NULL;
  if (status == KILN_OK) status = add_line_scan(c, &job, KILN_SCAN_LINE_APPLY, 1);
  /* compaction's look-back with int32 counts (lines shorter than 2^31),
   * nonzero's apply with int64 ones */
  kiln_rt_spec count = {.name = "compact",
                        .ninputs = 1,
                        .inputs = {KILN_UINT8},
                        .acc = KILN_INT32,
                        .out = KILN_INT32,
                        .combine = "return a + b;"};
  kiln_rt_spec wide_count = count;
  wide_count.acc = wide_count.out = KILN_INT64;
  int64_t shape[2] = {3, 5};
  in.dtype = KILN_UINT8;
  kiln_scan_line_job compact = {.kind = KILN_SCAN_LINE_COMPACT,
                                .spec = &count,
                                .identity = "0",
                                .exclusive = 1,
                                .in = &in,
                                .data = &data};
  if (status == KILN_OK) status = add_line_scan(c, &compact, KILN_SCAN_LINE_LOOKBACK, 0);
  kiln_scan_line_job nonzero = compact;
  nonzero.kind = KILN_SCAN_LINE_NONZERO;
  nonzero.spec = &wide_count;
  nonzero.data = NULL;
  nonzero.ndim = 2;
  nonzero.shape = shape;
  if (status == KILN_OK) status = add_line_scan(c, &nonzero, KILN_SCAN_LINE_APPLY, 0);
  return status;
}

/* The passes of ufunc u (built-in `name`, or u itself when name is NULL)
 * reducing `in`. */
static kiln_status add_ufunc(kiln_catalog *c, const char *name, kiln_ufunc *u, kiln_dtype in,
                             int all_passes) {
  if (name) KILN_RETURN_IF_ERROR(kiln_ufunc_builtin_make(NULL, name, &u));
  else kiln_ufunc_retain(u);
  kiln_ufunc_op op;
  kiln_status status = kiln_ufunc_op_make(u, "reduce", in, 0, KILN_DTYPE_COUNT, &op);
  if (status == KILN_OK) status = add_pass(c, &op.spec, 1, 1, 0, 1, 1);
  if (status == KILN_OK) status = add_vector_passes(c, &op.spec);
  if (status == KILN_OK && all_passes) {
    status = add_pass(c, &op.spec, 1, 1, KILN_RT_SERIAL, 2, 2);
    if (status == KILN_OK) status = add_pass(c, &op.spec, 1, 0, 1, 2, 2);
    if (status == KILN_OK) status = add_pass(c, &op.spec, 0, 0, 1, 1, 1);
    if (status == KILN_OK) status = add_pass(c, &op.spec, 0, 1, 0, 3, 1);
    if (status == KILN_OK && kiln_rt_tail_fits(&op.spec, 2, KILN_RT_MAX_GROUP))
      status = add_pass_as(c, &op.spec, 1, 0, 0, 1, 2, 1, 0, 1);
    if (status == KILN_OK) status = add_scan(c, &op.spec, op.identity, 1, 0);
    if (status == KILN_OK) status = add_scan(c, &op.spec, op.identity, 0, 0);
    if (status == KILN_OK && op.identity) status = add_scan(c, &op.spec, op.identity, 0, 1);
  }
  if (status == KILN_OK && op.identity) {
    /* the identity fill of an empty reduction (the element-wise generator) */
    kiln_ew_signature sig = {.ninputs = 0, .noperands = 1, .dtypes = {op.spec.out}};
    char store[1024], body[1200];
    kiln_rt_store_expression(&op.spec, store, sizeof store);
    const char *acc = kiln_dtype_kernel_type(op.spec.acc);
    if (kiln_dtype_is_complex(op.spec.acc)) /* already a value: a struct admits no cast */
      snprintf(body, sizeof body, "%s a = %s; v0 = %s;", acc, op.identity, store);
    else
      snprintf(body, sizeof body, "%s a = (%s)(%s); v0 = %s;", acc, acc, op.identity, store);
    kiln_strbuf b = {0};
    kiln_ew_source(&sig, 0, "kiln_reduce_identity", op.spec.preamble, body, &b);
    status = add_source(c, "reduction identity fill", &b);
  }
  kiln_ufunc_op_free(&op);
  kiln_ufunc_release(u);
  return status;
}

kiln_status kiln_reduce_catalog_add(kiln_catalog *c) {
  static const struct {
    const char *name;
    kiln_dtype in;
    int all;
  } ufuncs[] = {{"add", KILN_FLOAT32, 1},     {"add", KILN_INT8, 0},
                {"add", KILN_BOOL, 0},        {"multiply", KILN_FLOAT64, 0},
                {"maximum", KILN_FLOAT64, 1}, {"minimum", KILN_UINT16, 0},
                {"logical_and", KILN_FLOAT32, 0}, {"logical_or", KILN_BOOL, 0},
                {"bitwise_and", KILN_UINT8, 0}, {"bitwise_xor", KILN_INT64, 1},
                /* float16: loaded as float, accumulated in float32, stored rounded */
                {"add", KILN_FLOAT16, 1},
                /* complex: a struct accumulator (zero and identity as values) */
                {"add", KILN_COMPLEX64, 1}, {"multiply", KILN_COMPLEX128, 0},
                {"maximum", KILN_COMPLEX64, 0}};
  kiln_status status = KILN_OK;
  for (size_t i = 0; i < sizeof ufuncs / sizeof ufuncs[0] && status == KILN_OK; i++)
    status = add_ufunc(c, ufuncs[i].name, NULL, ufuncs[i].in, ufuncs[i].all);
  /* a user ufunc with a named output and a helper, declared reducible */
  static const char *const named[] = {"(float64 m)(float64 x, float64 y)"};
  const char *bodies[1] = {"m = larger(x, y);"};
  kiln_ufunc *user = NULL;
  if (status == KILN_OK)
    status = kiln_ufunc_create_with_bodies(
        NULL, "larger_of", 1, named, bodies,
        "KILN_DEVICE double larger(double x, double y) { return x > y ? x : y; }", &user);
  if (status == KILN_OK) status = kiln_ufunc_declare_reducible(user, NULL);
  if (status == KILN_OK) status = add_ufunc(c, NULL, user, KILN_FLOAT32, 1);
  kiln_ufunc_release(user);
  /* argmax/argmin: first and later passes */
  kiln_rt_spec arg = {.name = "argmax",
                      .ninputs = 1,
                      .inputs = {KILN_FLOAT32},
                      .acc = KILN_FLOAT32,
                      .out = KILN_INT64,
                      .arg = 1,
                      .associative = 1};
  if (status == KILN_OK) status = add_pass(c, &arg, 1, 0, 0, 1, 1);
  if (status == KILN_OK) status = add_vector_passes(c, &arg);
  if (status == KILN_OK) status = add_pass(c, &arg, 1, 1, KILN_RT_SERIAL, 1, 1);
  arg.name = "argmin";
  arg.arg = -1;
  arg.inputs[0] = arg.acc = KILN_INT32;
  if (status == KILN_OK) status = add_pass(c, &arg, 0, 1, 1, 2, 1);
  /* a custom reduction: two inputs, kiln_i in the map, a helper, a post-map */
  kiln_rt_spec custom = {
      .name = "custom",
      .ninputs = 2,
      .inputs = {KILN_FLOAT32, KILN_INT16},
      .acc = KILN_FLOAT64,
      .out = KILN_FLOAT32,
      .preamble = "KILN_DEVICE double weight(int64_t i) { return 1.0 / (double)(i + 1); }",
      .map = "float x = v0; double w = (double)v1; kiln_m = (double)(x * w * weight(kiln_i));",
      .combine = "return (double)(a + b);",
      .post = "sqrt(a)"};
  if (status == KILN_OK) status = add_pass(c, &custom, 1, 1, 0, 2, 3);
  /* its vector variant: inputs of one size, contiguous along one dim */
  custom.inputs[1] = KILN_INT32;
  if (status == KILN_OK) status = add_vector_passes(c, &custom);
  if (status == KILN_OK) status = add_line_scans(c);
  return status;
}
