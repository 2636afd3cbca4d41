/* core/kernel/kernel.c: raw kernels: creation and checked launches. */
#include <stdlib.h>
#include <string.h>

#include "core/array/array_internal.h"
#include "core/kernel/kernel_internal.h"

struct kiln_kernel {
  atomic_int refcount;
  kiln_context *ctx;
  kiln_program *program; /* owned by ctx's cache */
};

kiln_status kiln_kernel_create(kiln_context *ctx, const char *source, const char *entry,
                               const char *options, kiln_kernel **out) {
  KILN_CHECK_ARG(out);
  *out = NULL;
  KILN_CHECK_ARG(ctx);
  KILN_CHECK_ARG(source);
  KILN_CHECK_ARG(entry);
  if (!entry[0]) return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "entry is empty");
  kiln_program *program = NULL;
  KILN_RETURN_IF_ERROR(kiln_program_get(ctx, source, options, entry, &program));
  kiln_kernel *k = calloc(1, sizeof *k);
  if (!k) return kiln_error_set(KILN_ERROR_OUT_OF_MEMORY, "out of host memory");
  atomic_init(&k->refcount, 1);
  k->ctx = kiln_context_retain(ctx);
  k->program = program;
  *out = k;
  return KILN_OK;
}

kiln_kernel *kiln_kernel_retain(kiln_kernel *kernel) {
  if (kernel) atomic_fetch_add(&kernel->refcount, 1);
  return kernel;
}

void kiln_kernel_release(kiln_kernel *kernel) {
  if (!kernel || atomic_fetch_sub(&kernel->refcount, 1) != 1) return;
  kiln_context_release(kernel->ctx);
  free(kernel);
}

int kiln_kernel_arg_count(const kiln_kernel *kernel) {
  return kernel ? kernel->program->nparams : 0;
}

/* One scalar converted to the parameter's type, by NumPy's same-kind rule
 * plus a range check for integers (a value that does not fit is an error,
 * never a silent wrap). */
static kiln_status scalar_convert(const kiln_param *param, int index, const kiln_arg *arg,
                                  unsigned char storage[8], size_t *size) {
  kiln_dtype from = arg->dtype, to = param->dtype;
  if (kiln_dtype_size(from) == 0)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "argument %d ('%s'): invalid dtype %d",
                          index, param->name, (int)from);
  if (kiln_dtype_is_complex(from) || kiln_dtype_is_complex(to))
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "argument %d ('%s'): a %s scalar cannot be passed as %s: complex "
                          "scalar arguments are not supported; pass the parts as two "
                          "float/double parameters or a one-element array",
                          index, param->name, kiln_dtype_name(from), kiln_dtype_name(to));
  int from_float = kiln_dtype_is_float(from), to_float = kiln_dtype_is_float(to);
  int from_unsigned = from == KILN_UINT8 || from == KILN_UINT16 || from == KILN_UINT32 ||
                      from == KILN_UINT64;
  if ((from_float && !to_float) || (to == KILN_BOOL && from != KILN_BOOL))
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "argument %d ('%s'): a %s scalar cannot be passed as %s "
                          "(same-kind casting only)",
                          index, param->name, kiln_dtype_name(from), kiln_dtype_name(to));
  *size = kiln_dtype_size(to);
  memset(storage, 0, 8);
  if (to_float) {
    double v = from_float ? arg->value.f
               : from_unsigned ? (double)arg->value.u : (double)arg->value.i;
    kiln_dtype_float_bytes(to, v, storage);
    return KILN_OK;
  }
  /* integer (or bool) target: check the value fits */
  static const struct { int64_t lo; uint64_t hi; } range[KILN_DTYPE_COUNT] = {
      [KILN_BOOL] = {0, 1},
      [KILN_INT8] = {INT8_MIN, INT8_MAX},       [KILN_UINT8] = {0, UINT8_MAX},
      [KILN_INT16] = {INT16_MIN, INT16_MAX},    [KILN_UINT16] = {0, UINT16_MAX},
      [KILN_INT32] = {INT32_MIN, INT32_MAX},    [KILN_UINT32] = {0, UINT32_MAX},
      [KILN_INT64] = {INT64_MIN, INT64_MAX},    [KILN_UINT64] = {0, UINT64_MAX},
  };
  int negative = !from_unsigned && arg->value.i < 0;
  int fits = negative ? arg->value.i >= range[to].lo
                      : (from_unsigned ? arg->value.u : (uint64_t)arg->value.i) <= range[to].hi;
  if (!fits)
    return kiln_error_set(KILN_ERROR_OUT_OF_RANGE,
                          "argument %d ('%s'): value does not fit in %s", index, param->name,
                          kiln_dtype_name(to));
  uint64_t bits = from_unsigned ? arg->value.u : (uint64_t)arg->value.i;
  /* little-endian: the low bytes are the narrower integer */
  memcpy(storage, &bits, *size);
  return KILN_OK;
}

static kiln_status marshal_arg(const kiln_kernel *k, int index, const kiln_arg *arg,
                               unsigned char storage[8], kiln_backend_arg *out) {
  const kiln_param *param = &k->program->params[index];
  memset(out, 0, sizeof *out);
  static const char *const kind_names[] = {"?", "array", "scalar", "local-memory"};
  int kind = arg->kind == KILN_ARG_ARRAY    ? KILN_PARAM_ARRAY
             : arg->kind == KILN_ARG_SCALAR ? KILN_PARAM_SCALAR
             : arg->kind == KILN_ARG_LOCAL  ? KILN_PARAM_LOCAL
                                            : 0;
  if (kind != (int)param->kind)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "argument %d ('%s') of kernel '%s': %s given where the kernel "
                          "takes a%s %s parameter",
                          index, param->name, k->program->entry, kind_names[kind],
                          param->kind == KILN_PARAM_ARRAY ? "n" : "",
                          kind_names[param->kind]);
  switch (param->kind) {
    case KILN_PARAM_ARRAY: {
      const kiln_array *a = arg->value.array;
      if (!a)
        return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "argument %d ('%s') is a NULL array",
                              index, param->name);
      if (a->buffer->ctx != k->ctx)
        return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                              "argument %d ('%s') is an array of another context", index,
                              param->name);
      if (a->dtype != param->dtype)
        return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                              "argument %d ('%s') of kernel '%s': array of %s given for a "
                              "%s pointer",
                              index, param->name, k->program->entry, kiln_dtype_name(a->dtype),
                              kiln_dtype_kernel_type(param->dtype));
      out->kind = KILN_BACKEND_ARG_BUFFER;
      out->buffer = a->buffer->handle;
      out->offset = (uint64_t)a->offset;
      return KILN_OK;
    }
    case KILN_PARAM_SCALAR:
      out->kind = KILN_BACKEND_ARG_SCALAR;
      out->value = storage;
      return scalar_convert(param, index, arg, storage, &out->size);
    case KILN_PARAM_LOCAL:
      if (arg->value.local_bytes == 0)
        return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                              "argument %d ('%s'): local memory of 0 bytes", index, param->name);
      out->kind = KILN_BACKEND_ARG_LOCAL;
      out->local_bytes = arg->value.local_bytes;
      return KILN_OK;
  }
  return kiln_error_set(KILN_ERROR_INTERNAL, "unknown parameter kind");
}

/* Validates sizes and fills the launch geometry; *empty when nothing runs. */
static kiln_status launch_geometry(const kiln_kernel *k, int work_dim, const int64_t *global,
                                   const int64_t *local, kiln_backend_launch *launch,
                                   int *empty) {
  if (work_dim < 1 || work_dim > 3)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "work_dim %d is not 1, 2 or 3", work_dim);
  if (!global) return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "global_size is NULL");
  *empty = 0;
  uint64_t group = 1;
  const kiln_program *p = k->program;
  for (int d = 0; d < 3; d++) {
    launch->global[d] = launch->local[d] = 1;
    if (d >= work_dim) continue;
    if (global[d] < 0)
      return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "global_size[%d] = %lld is negative",
                            d, (long long)global[d]);
    if (global[d] == 0) *empty = 1;
    uint64_t l;
    if (local) {
      if (local[d] <= 0)
        return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "local_size[%d] = %lld is not positive",
                              d, (long long)local[d]);
      l = (uint64_t)local[d];
    } else {
      /* 256 work-items in 1-D, 16x16 in 2-D, 8x8x4 in 3-D, within limits */
      static const uint64_t pick[3][3] = {{256, 1, 1}, {16, 16, 1}, {8, 8, 4}};
      l = pick[work_dim - 1][d];
      while (l > 1 && group * l > p->max_work_group_size) l /= 2;
      uint64_t g = (uint64_t)global[d];
      if (work_dim == 1 && g > 0 && g < l) {
        /* small launches: the preferred multiple above the size is enough */
        uint64_t m = p->preferred_multiple ? p->preferred_multiple : 1;
        uint64_t fit = (g + m - 1) / m * m;
        if (fit < l) l = fit;
      }
    }
    group *= l;
    uint64_t g = (uint64_t)global[d];
    if (g > UINT64_MAX - l)
      return kiln_error_set(KILN_ERROR_OUT_OF_RANGE, "global_size[%d] too large", d);
    launch->local[d] = l;
    launch->global[d] = g == 0 ? l : (g + l - 1) / l * l;
  }
  if (group > p->max_work_group_size)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "work-group of %llu work-items exceeds the kernel's limit of %llu",
                          (unsigned long long)group,
                          (unsigned long long)p->max_work_group_size);
  launch->work_dim = work_dim;
  return KILN_OK;
}

kiln_status kiln_kernel_launch(kiln_kernel *kernel, int work_dim, const int64_t *global_size,
                               const int64_t *local_size, int nargs, const kiln_arg *args,
                               kiln_stream *stream) {
  KILN_CHECK_ARG(kernel);
  const kiln_program *p = kernel->program;
  if (nargs != p->nparams)
    return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                          "kernel '%s' takes %d argument%s, %d given", p->entry, p->nparams,
                          p->nparams == 1 ? "" : "s", nargs);
  if (nargs > 0 && !args) return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "args is NULL");
  kiln_backend_launch launch;
  int empty = 0;
  KILN_RETURN_IF_ERROR(launch_geometry(kernel, work_dim, global_size, local_size, &launch, &empty));

  enum { INLINE_ARGS = 32 };
  kiln_backend_arg inline_args[INLINE_ARGS];
  unsigned char inline_storage[INLINE_ARGS][8];
  kiln_backend_arg *bargs = inline_args;
  unsigned char (*storage)[8] = inline_storage;
  if (nargs > INLINE_ARGS) {
    bargs = malloc((size_t)nargs * sizeof *bargs);
    storage = malloc((size_t)nargs * sizeof *storage);
    if (!bargs || !storage) {
      free(bargs);
      free(storage);
      return kiln_error_set(KILN_ERROR_OUT_OF_MEMORY, "out of host memory");
    }
  }
  kiln_status status = KILN_OK;
  for (int i = 0; i < nargs && status == KILN_OK; i++)
    status = marshal_arg(kernel, i, &args[i], storage[i], &bargs[i]);
  /* the memory pool's stream rule (kiln/memory.h) */
  for (int i = 0; i < nargs && status == KILN_OK && !empty; i++)
    if (args[i].kind == KILN_ARG_ARRAY)
      status = kiln_buffer_use_on_stream(args[i].value.array->buffer, stream);
  if (status == KILN_OK && !empty)
    status = kiln_program_launch(kernel->ctx, p, stream, &launch, nargs, bargs);
  if (bargs != inline_args) {
    free(bargs);
    free(storage);
  }
  return status;
}
