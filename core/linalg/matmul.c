/* core/linalg/matmul.c: kiln_matmul, kiln_dot, kiln_vdot: NumPy's shape
 * rules, the plan over element strides, a_nd the choice between the
 * backend's vendor BLAS a_nd the portable kernel. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/codegen/elementwise.h"
#include "core/linalg/linalg_internal.h"
#include "core/runtime/log.h"
#include "core/ufunc/ufunc_internal.h"
#include "kiln/linalg.h"
#include "kiln/ufunc.h"

/* ---- KILN_BLAS ------------------------------------------------------------ */

typedef enum linalg_policy {
  POLICY_AUTO = 0, /* vendor BLAS when usable, else the portable kernel */
  POLICY_PORTABLE,
  POLICY_VENDOR, /* vendor BLAS or an error */
  POLICY_BAD
} linalg_policy;

static pthread_once_t policy_once = PTHREAD_ONCE_INIT;
static linalg_policy policy_value;
static char policy_text[64];

static void policy_read(void) {
  const char *v = getenv("KILN_BLAS");
  snprintf(policy_text, sizeof policy_text, "%s", v ? v : "");
  if (!v || !*v || strcmp(v, "auto") == 0) policy_value = POLICY_AUTO;
  else if (strcmp(v, "portable") == 0) policy_value = POLICY_PORTABLE;
  else if (strcmp(v, "vendor") == 0) policy_value = POLICY_VENDOR;
  else policy_value = POLICY_BAD;
}

static kiln_status policy_get(linalg_policy *policy) {
  pthread_once(&policy_once, policy_read);
  *policy = policy_value;
  if (policy_value == POLICY_BAD)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "KILN_BLAS=%s: expected auto, portable or vendor", policy_text);
  return KILN_OK;
}

kiln_status kiln_linalg_describe(kiln_context *ctx, char *text, size_t size) {
  KILN_CHECK_ARG(ctx);
  KILN_CHECK_ARG(text);
  if (size == 0)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "kiln_linalg_describe: size is 0");
  text[0] = '\0';
  linalg_policy policy;
  KILN_RETURN_IF_ERROR(policy_get(&policy));
  if (policy == POLICY_PORTABLE) {
    snprintf(text, size, "portable kernel (KILN_BLAS=portable)");
    return KILN_OK;
  }
  if (!ctx->ops->blas_describe || !ctx->ops->gemm) {
    snprintf(text, size, "portable kernel (the %s backend has no vendor BLAS table)",
             ctx->ops->name);
    return KILN_OK;
  }
  char vendor[512];
  if (ctx->ops->blas_describe(ctx->device, vendor, sizeof vendor) == KILN_OK)
    snprintf(text, size, "vendor: %s", vendor);
  else
    snprintf(text, size, "%s (%s)",
             policy == POLICY_VENDOR ? "none: KILN_BLAS=vendor a_nd no vendor BLAS"
                                     : "portable kernel",
             kiln_last_error());
  return KILN_OK;
}

/* ---- shapes ----------------------------------------------------------------- */

static void shape_text(const kiln_array *x, char *out, size_t size) {
  size_t used = (size_t)snprintf(out, size, "(");
  for (int i = 0; i < x->ndim && used < size; i++)
    used += (size_t)snprintf(out + used, size - used, "%s%lld", i ? "," : "",
                             (long long)x->shape[i]);
  if (used < size) snprintf(out + used, size - used, "%s)", x->ndim == 1 ? "," : "");
}

/* INVALID_ARGUMENT naming both operands' dtypes and shapes, then detail. */
static kiln_status shape_error(const char *what, const kiln_array *a, const kiln_array *b,
                               const char *format, ...) KILN_PRINTF(4, 5);
static kiln_status shape_error(const char *what, const kiln_array *a, const kiln_array *b,
                               const char *format, ...) {
  char sa[256], sb[256], detail[256];
  shape_text(a, sa, sizeof sa);
  shape_text(b, sb, sizeof sb);
  va_list args;
  va_start(args, format);
  vsnprintf(detail, sizeof detail, format, args);
  va_end(args);
  return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "%s: a %s %s, b %s %s: %s", what,
                        kiln_dtype_name(a->dtype), sa, kiln_dtype_name(b->dtype), sb, detail);
}

/* Fills one operand of the plan from array x (role 0: A, 1: B, 2: C; a
 * 1-D A is a row, a 1-D B a column) over nbatch broadcast batch dims, in
 * elements. 0 when x's strides or offset are not whole elements. */
static int operand_geometry(const kiln_array *x, int role, int matrix_dims, int nbatch,
                            linalg_matrix *out) {
  int64_t e = (int64_t)kiln_dtype_size(x->dtype);
  int nd = x->ndim;
  int64_t row = 0, col = 0;
  if (role == 0) {
    col = x->strides[nd - 1];
    row = nd >= 2 ? x->strides[nd - 2] : 0;
  } else if (role == 1) {
    row = nd >= 2 ? x->strides[nd - 2] : x->strides[0];
    col = nd >= 2 ? x->strides[nd - 1] : 0;
  } else {
    /* C: matrix_dims says which of its two matrix dims exist (1: rows, 2:
     * columns); nd counts only those present */
    int at = nd;
    if (matrix_dims & 2) col = x->strides[--at];
    if (matrix_dims & 1) row = x->strides[--at];
  }
  int xbatch = role == 2 ? nd - ((matrix_dims & 1) + ((matrix_dims & 2) >> 1))
                         : (nd >= 2 ? nd - 2 : 0);
  if (row % e || col % e || x->offset % e) return 0;
  out->buffer = x->buffer->handle;
  out->offset = x->offset / e;
  out->row = row / e;
  out->col = col / e;
  for (int i = 0; i < nbatch; i++) {
    int xi = i - (nbatch - xbatch);
    int64_t s = xi >= 0 && x->shape[xi] != 1 ? x->strides[xi] : 0;
    if (s % e) return 0;
    out->batch[i] = s / e;
  }
  return 1;
}

/* Drops batch dims of one a_nd merges neighbours where all three operands
 * allow; leaves at least one dim. */
static void plan_merge_batch(linalg_plan *p) {
  linalg_matrix *x[3] = {&p->a, &p->b, &p->c};
  int nd = 0;
  for (int i = 0; i < p->nbatch; i++) {
    if (p->batch_shape[i] == 1) continue;
    int merge = nd > 0;
    for (int j = 0; j < 3 && merge; j++)
      merge = x[j]->batch[nd - 1] == x[j]->batch[i] * p->batch_shape[i];
    if (merge) {
      p->batch_shape[nd - 1] *= p->batch_shape[i];
      for (int j = 0; j < 3; j++) x[j]->batch[nd - 1] = x[j]->batch[i];
    } else {
      p->batch_shape[nd] = p->batch_shape[i];
      for (int j = 0; j < 3; j++) x[j]->batch[nd] = x[j]->batch[i];
      nd++;
    }
  }
  if (nd == 0) {
    p->batch_shape[0] = 1;
    for (int j = 0; j < 3; j++) x[j]->batch[0] = 0;
    nd = 1;
  }
  p->nbatch = nd;
}

/* A stored matrix as BLAS takes it: rows x cols with row/col element
 * strides is row-major (transpose 0) or column-major (transpose 1) with a
 * leading dimension. 0 when it is neither. */
static int blas_layout(int64_t rows, int64_t cols, int64_t row, int64_t col, int *transpose,
                       int64_t *ld) {
  if ((cols == 1 || col == 1) && (rows == 1 || row >= (cols > 1 ? cols : 1))) {
    *transpose = 0;
    *ld = rows == 1 ? (cols > 1 ? cols : 1) : row;
    return 1;
  }
  if ((rows == 1 || row == 1) && (cols == 1 || col >= (rows > 1 ? rows : 1))) {
    *transpose = 1;
    *ld = cols == 1 ? (rows > 1 ? rows : 1) : col;
    return 1;
  }
  return 0;
}

/* ---- running a plan ------------------------------------------------------- */

typedef kiln_status (*linalg_path)(kiln_context *ctx, kiln_stream *stream,
                                   const linalg_plan *plan, const linalg_call *call);

static kiln_status gemm_vendor(kiln_context *ctx, kiln_stream *stream, const linalg_plan *plan,
                               const linalg_call *call) {
  kiln_backend_gemm g = {.dtype = plan->type->dtype, .m = plan->m, .n = plan->n,
                         .k = plan->k, .batch = call->batch,
                         .a = plan->a.buffer, .b = plan->b.buffer, .c = plan->c.buffer};
  int c_transpose;
  if (!blas_layout(plan->m, plan->k, plan->a.row, plan->a.col, &g.transpose_a, &g.ld_a) ||
      !blas_layout(plan->k, plan->n, plan->b.row, plan->b.col, &g.transpose_b, &g.ld_b) ||
      !blas_layout(plan->m, plan->n, plan->c.row, plan->c.col, &c_transpose, &g.ld_c) ||
      c_transpose)
    return kiln_error_set(KILN_ERROR_INTERNAL, "matmul: plan not in BLAS layout");
  g.a_offset = (uint64_t)call->offset[0];
  g.b_offset = (uint64_t)call->offset[1];
  g.c_offset = (uint64_t)call->offset[2];
  g.stride_a = call->stride[0];
  g.stride_b = call->stride[1];
  g.stride_c = call->stride[2];
  kiln_backend_stream *s = NULL;
  KILN_RETURN_IF_ERROR(kiln_stream_backend(ctx, stream, &s));
  return ctx->ops->gemm(ctx->device, s, &g);
}

/* Calls `path` once per index of the batch dims before the last one. */
static kiln_status plan_run(kiln_context *ctx, kiln_stream *stream, const linalg_plan *p,
                            linalg_path path) {
  const linalg_matrix *x[3] = {&p->a, &p->b, &p->c};
  int last = p->nbatch - 1;
  int64_t index[KILN_MAX_DIMS] = {0};
  linalg_call call = {.batch = p->batch_shape[last]};
  for (int j = 0; j < 3; j++) call.stride[j] = x[j]->batch[last];
  for (;;) {
    for (int j = 0; j < 3; j++) {
      call.offset[j] = x[j]->offset;
      for (int d = 0; d < last; d++) call.offset[j] += index[d] * x[j]->batch[d];
    }
    KILN_RETURN_IF_ERROR(path(ctx, stream, p, &call));
    int d = last - 1;
    while (d >= 0 && ++index[d] == p->batch_shape[d]) index[d--] = 0;
    if (d < 0) return KILN_OK;
  }
}

/* A C-contiguous copy of x queued on stream, with dtype `dtype`. */
static kiln_status contiguous_copy(const kiln_array *x, kiln_dtype dtype, kiln_stream *stream,
                                   kiln_array **out) {
  KILN_RETURN_IF_ERROR(kiln_array_alloc(x->buffer->ctx, dtype, x->ndim, x->shape, out));
  kiln_status status = kiln_ew_copy_on(*out, x, stream);
  if (status != KILN_OK) {
    kiln_array_release(*out);
    *out = NULL;
  }
  return status;
}

/* Everything one product holds, released by matmul_clear. */
typedef struct matmul_state {
  kiln_array *a, *b; /* operands as used (maybe cast or made contiguous) */
  kiln_array *c;     /* where the kernel writes (out, a new array, or a temporary) */
  kiln_array *result;
} matmul_state;

static void matmul_clear(matmul_state *st) {
  kiln_array_release(st->a);
  kiln_array_release(st->b);
  kiln_array_release(st->c);
  kiln_array_release(st->result);
}

/* NumPy's promotion of two float or complex dtypes: the one the other
 * casts to safely (float16 @ float32 is float32), else complex128
 * (complex64 @ float64). */
static kiln_dtype result_dtype(kiln_dtype a, kiln_dtype b) {
  if (kiln_dtype_can_cast_safely(a, b)) return b;
  if (kiln_dtype_can_cast_safely(b, a)) return a;
  return KILN_COMPLEX128;
}

static kiln_status matmul_checks(const char *what, const kiln_array *a, const kiln_array *b,
                                 const kiln_array *out, kiln_dtype *dtype) {
  if (!a || !b)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "%s: operand %s is NULL", what,
                          a ? "b" : "a");
  if (a->buffer->ctx != b->buffer->ctx || (out && out->buffer->ctx != a->buffer->ctx))
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "%s: arrays of different contexts",
                          what);
  const kiln_array *x[2] = {a, b};
  for (int i = 0; i < 2; i++) {
    if (!kiln_linalg_type(x[i]->dtype))
      return shape_error(what, a, b, "operand %c has dtype %s; matrix products take float16, "
                         "float32, float64, complex64 or complex128", i ? 'b' : 'a', kiln_dtype_name(x[i]->dtype));
  }
  *dtype = result_dtype(a->dtype, b->dtype);
  if ((*dtype == KILN_FLOAT64 || *dtype == KILN_COMPLEX128) && !a->buffer->ctx->info.has_double)
    return kiln_error_set(KILN_ERROR_UNIMPLEMENTED, "%s: %s on %s, which has no float64", what,
                          kiln_dtype_name(*dtype), a->buffer->ctx->info.name);
  for (int i = 0; i < 2; i++)
    if (x[i]->ndim < 1)
      return shape_error(what, a, b, "operand %c is 0-d; matmul needs at least 1 dim",
                         i ? 'b' : 'a');
  return KILN_OK;
}

static kiln_status matmul_impl(const char *what, const kiln_array *a_in, const kiln_array *b_in,
                               kiln_array *out, kiln_stream *stream, kiln_array **result) {
  if (result) *result = NULL;
  kiln_dtype dtype = KILN_FLOAT64;
  KILN_RETURN_IF_ERROR(matmul_checks(what, a_in, b_in, out, &dtype));
  if (!out && !result)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "%s: out a_nd result are both NULL",
                          what);
  linalg_policy policy;
  KILN_RETURN_IF_ERROR(policy_get(&policy));
  kiln_context *ctx = a_in->buffer->ctx;
  const int a_nd = a_in->ndim, b_nd = b_in->ndim;
  const int64_t m = a_nd >= 2 ? a_in->shape[a_nd - 2] : 1, k = a_in->shape[a_nd - 1];
  const int64_t kb = b_nd >= 2 ? b_in->shape[b_nd - 2] : b_in->shape[0];
  const int64_t n = b_nd >= 2 ? b_in->shape[b_nd - 1] : 1;
  if (k != kb)
    return shape_error(what, a_in, b_in, "inner dims differ (%lld != %lld)", (long long)k,
                       (long long)kb);

  /* broadcast batch dims, right-aligned */
  const int abatch = a_nd >= 2 ? a_nd - 2 : 0, bbatch = b_nd >= 2 ? b_nd - 2 : 0;
  linalg_plan plan = {.type = kiln_linalg_type(dtype), .m = m, .n = n, .k = k};
  plan.nbatch = abatch > bbatch ? abatch : bbatch;
  for (int i = 0; i < plan.nbatch; i++) {
    int ai = i - (plan.nbatch - abatch), bi = i - (plan.nbatch - bbatch);
    int64_t da = ai >= 0 ? a_in->shape[ai] : 1, db = bi >= 0 ? b_in->shape[bi] : 1;
    if (da != db && da != 1 && db != 1)
      return shape_error(what, a_in, b_in, "batch dims do not broadcast (%lld vs %lld)",
                         (long long)da, (long long)db);
    plan.batch_shape[i] = da == 1 ? db : da;
  }
  int ndim = plan.nbatch;
  int64_t shape[KILN_MAX_DIMS + 2];
  memcpy(shape, plan.batch_shape, (size_t)plan.nbatch * sizeof *shape);
  if (a_nd >= 2) shape[ndim++] = m;
  if (b_nd >= 2) shape[ndim++] = n;
  if (ndim > KILN_MAX_DIMS)
    return shape_error(what, a_in, b_in, "the result would have %lld dims (max %lld)",
                       (long long)ndim, (long long)KILN_MAX_DIMS);
  if (out) {
    /* NumPy's out: the product's dtype is the operands'; out may be any
     * dtype it casts to same_kind (float32 into float64), cast at the end */
    int same = out->ndim == ndim &&
               (out->dtype == dtype || kiln_ufunc_can_cast_same_kind(dtype, out->dtype));
    for (int i = 0; same && i < ndim; i++) same = out->shape[i] == shape[i];
    if (!same) {
      char so[256];
      shape_text(out, so, sizeof so);
      kiln_array tmp = {.dtype = dtype, .ndim = ndim};
      memcpy(tmp.shape, shape, (size_t)ndim * sizeof *shape);
      char sr[256];
      shape_text(&tmp, sr, sizeof sr);
      return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                            "%s: out is %s %s; the result is %s %s (out needs its shape and "
                            "a dtype it casts to same_kind)", what,
                            kiln_dtype_name(out->dtype), so, kiln_dtype_name(dtype), sr);
    }
    for (int i = 0; i < ndim; i++)
      if (out->shape[i] > 1 && out->strides[i] == 0)
        return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                              "%s: out is a broadcast view (stride 0 on dim %d)", what, i);
  }

  matmul_state st = {0};
  kiln_status status = KILN_OK;
  if (out) {
    st.result = kiln_array_retain(out);
  } else {
    status = kiln_array_alloc(ctx, dtype, ndim, shape, &st.result);
    if (status != KILN_OK) goto cleanup;
  }
  if (st.result->size == 0) goto done;
  if (k == 0) {
    static const uint64_t zero[2] = {0, 0}; /* a complex128 element's width */
    status = kiln_ew_fill_on(st.result, zero, stream);
    goto cleanup_or_done;
  }

  /* the operands as used: cast to dtype where needed */
  const kiln_array *in[2] = {a_in, b_in};
  kiln_array **use[2] = {&st.a, &st.b};
  for (int i = 0; i < 2; i++) {
    if (in[i]->dtype != dtype) status = contiguous_copy(in[i], dtype, stream, use[i]);
    else *use[i] = kiln_array_retain((kiln_array *)in[i]);
    if (status != KILN_OK) goto cleanup;
  }
  if (st.result->dtype == dtype) st.c = kiln_array_retain(st.result);
  else if ((status = kiln_array_alloc(ctx, dtype, ndim, shape, &st.c)) != KILN_OK) goto cleanup;
  const int c_dims = (a_nd >= 2 ? 1 : 0) | (b_nd >= 2 ? 2 : 0);

  /* vendor BLAS first where allowed; it may need operands copied into a
   * layout it takes. The portable kernel takes any strides. */
  int vendor = policy != POLICY_PORTABLE && ctx->ops->gemm != NULL;
  if (policy == POLICY_VENDOR && !vendor) {
    status = kiln_error_set(KILN_ERROR_UNAVAILABLE,
                            "%s: KILN_BLAS=vendor but the %s backend has no vendor BLAS", what,
                            ctx->ops->name);
    goto cleanup;
  }
  for (int attempt = vendor ? 0 : 1; attempt < 2; attempt++) {
    int blas = attempt == 0;
    linalg_plan p = plan;
    int ok = operand_geometry(st.a, 0, 0, plan.nbatch, &p.a) &&
             operand_geometry(st.b, 1, 0, plan.nbatch, &p.b);
    int tr, c_tr = 0;
    int64_t ld;
    if (!ok || (blas && (!blas_layout(m, k, p.a.row, p.a.col, &tr, &ld) ||
                         !blas_layout(k, n, p.b.row, p.b.col, &tr, &ld)))) {
      /* copy both operands to C order (rare: negative or odd strides) */
      for (int i = 0; i < 2; i++) {
        if (kiln_array_is_contiguous(*use[i])) continue;
        kiln_array *copy = NULL;
        status = contiguous_copy(*use[i], dtype, stream, &copy);
        if (status != KILN_OK) goto cleanup;
        kiln_array_release(*use[i]);
        *use[i] = copy;
      }
      operand_geometry(st.a, 0, 0, plan.nbatch, &p.a);
      operand_geometry(st.b, 1, 0, plan.nbatch, &p.b);
    }
    ok = operand_geometry(st.c, 2, c_dims, plan.nbatch, &p.c);
    if (!ok || (blas && !blas_layout(m, n, p.c.row, p.c.col, &c_tr, &ld))) {
      /* a temporary C, copied into out afterwards */
      kiln_array_release(st.c);
      st.c = NULL;
      status = kiln_array_alloc(ctx, dtype, ndim, shape, &st.c);
      if (status != KILN_OK) goto cleanup;
      operand_geometry(st.c, 2, c_dims, plan.nbatch, &p.c);
      c_tr = 0;
    }
    plan_merge_batch(&p);
    if (blas && c_tr) {
      /* C column-major: C^T = B^T A^T, row-major */
      linalg_matrix t = p.a;
      p.a = p.b;
      p.b = t;
      linalg_matrix *x[3] = {&p.a, &p.b, &p.c};
      for (int j = 0; j < 3; j++) {
        int64_t r = x[j]->row;
        x[j]->row = x[j]->col;
        x[j]->col = r;
      }
      p.m = n;
      p.n = m;
    }
    status = plan_run(ctx, stream, &p, blas ? gemm_vendor : kiln_gemm_portable);
    if (blas && policy == POLICY_AUTO &&
        (status == KILN_ERROR_UNAVAILABLE || status == KILN_ERROR_UNIMPLEMENTED)) {
      kiln_log(KILN_LOG_DEBUG, "%s: vendor BLAS not used: %s", what, kiln_last_error());
      continue;
    }
    break;
  }
  if (status == KILN_OK && st.c != st.result) status = kiln_ew_copy_on(st.result, st.c, stream);

cleanup_or_done:
  if (status != KILN_OK) goto cleanup;
done:
  if (result) *result = kiln_array_retain(st.result);
cleanup:
  matmul_clear(&st);
  return status;
}

kiln_status kiln_matmul(const kiln_array *a, const kiln_array *b, kiln_array *out,
                        kiln_stream *stream, kiln_array **result) {
  return matmul_impl("matmul", a, b, out, stream, result);
}

kiln_status kiln_dot(const kiln_array *a, const kiln_array *b, kiln_array *out,
                     kiln_stream *stream, kiln_array **result) {
  if (result) *result = NULL;
  if (a && b && (a->ndim == 0 || b->ndim == 0))
    return shape_error("dot", a, b, "a 0-d operand: use a multiply ufunc");
  if (a && b && b->ndim > 2)
    return kiln_error_set(KILN_ERROR_UNIMPLEMENTED,
                          "dot: b has %d dims; numpy.dot's tensor form (b with 3 or more "
                          "dims) is not implemented: use kiln_matmul for stacks",
                          b->ndim);
  return matmul_impl("dot", a, b, out, stream, result);
}

/* *x replaced by its complex conjugate (a new array), as numpy.vdot takes
 * its first operand. */
static kiln_status conjugate_in_place_of(kiln_array **x, kiln_stream *stream) {
  kiln_ufunc *conjugate = NULL;
  kiln_array *conj = NULL;
  kiln_status status = kiln_ufunc_builtin((*x)->buffer->ctx, "conjugate", &conjugate);
  if (status == KILN_OK) {
    kiln_operand in = kiln_operand_array(*x), out = kiln_operand_new(&conj);
    status = kiln_ufunc_call(conjugate, 1, &in, 1, &out, stream);
  }
  kiln_ufunc_release(conjugate);
  if (status != KILN_OK) return status;
  kiln_array_release(*x);
  *x = conj;
  return KILN_OK;
}

/* A 1-D view of every element of x in C order; a copy when x is not
 * contiguous. */
static kiln_status flat(const kiln_array *x, kiln_stream *stream, kiln_array **out) {
  kiln_array *dense = NULL;
  if (kiln_array_is_contiguous(x)) dense = kiln_array_retain((kiln_array *)x);
  else KILN_RETURN_IF_ERROR(contiguous_copy(x, x->dtype, stream, &dense));
  int64_t size = x->size, stride = (int64_t)kiln_dtype_size(x->dtype);
  kiln_status status = kiln_array_view_new(dense, x->dtype, 1, &size, &stride, dense->offset, out);
  kiln_array_release(dense);
  return status;
}

kiln_status kiln_vdot(const kiln_array *a, const kiln_array *b, kiln_stream *stream,
                      kiln_array **result) {
  KILN_CHECK_ARG(result);
  *result = NULL;
  KILN_CHECK_ARG(a);
  KILN_CHECK_ARG(b);
  kiln_dtype dtype = result_dtype(a->dtype, b->dtype);
  if (a->size != b->size)
    return shape_error("vdot", a, b, "sizes differ (%lld != %lld)", (long long)a->size,
                       (long long)b->size);
  kiln_array *fa = NULL, *fb = NULL, *r = NULL;
  kiln_status status = flat(a, stream, &fa);
  if (status == KILN_OK && kiln_dtype_is_complex(a->dtype))
    status = conjugate_in_place_of(&fa, stream);
  if (status == KILN_OK) status = flat(b, stream, &fb);
  if (status == KILN_OK) status = kiln_array_alloc(a->buffer->ctx, dtype, 0, NULL, &r);
  if (status == KILN_OK) status = matmul_impl("vdot", fa, fb, r, stream, NULL);
  kiln_array_release(fa);
  kiln_array_release(fb);
  if (status == KILN_OK) *result = r;
  else kiln_array_release(r);
  return status;
}
