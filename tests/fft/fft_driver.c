/* tests/fft/fft_driver.c: runs kiln's FFT calls on cases read from stdin,
 * for tests/fft/fft_numpy.py, which makes the cases and checks the answers
 * against numpy.fft.
 *
 * A case is one line of tokens, then the input's bytes (C order):
 *   op dtype ndim shape... steps... transpose ns s... naxes axes... norm out stream host
 * op: fft ifft rfft irfft fft2 ifft2 fftn ifftn rfftn irfftn, or one of
 * them prefixed "plan_" (made through kiln_fft_plan_create); steps: one
 * slice step per dim (-1 reverses, 2 takes every other element), applied
 * before transpose (1: reverse the axes); ns / naxes -1: NULL; norm "-":
 * NULL; out 1: into a non-contiguous out array; stream 1: on a new stream;
 * host 1: the input is the view of host memory and out host memory (C
 * order, or Fortran order with out 1).
 * At start the driver prints "ready <the FFT path>" or "nodevice <why>".
 * The answer: "ok dtype ndim shape...\n" and the result's bytes (C order),
 * or "err <status> <message>\n". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kiln/kiln.h"

static int parse_dtype(const char *name, kiln_dtype *out) {
  for (int d = 0; d < 64; d++)
    if (kiln_dtype_size((kiln_dtype)d) && strcmp(kiln_dtype_name((kiln_dtype)d), name) == 0) {
      *out = (kiln_dtype)d;
      return 1;
    }
  return 0;
}

static kiln_status view_of(kiln_array *base, const int64_t *steps, int transpose,
                           kiln_array **out) {
  int nd = kiln_array_ndim(base);
  kiln_slice slices[KILN_MAX_DIMS];
  for (int i = 0; i < nd; i++) slices[i] = (kiln_slice){KILN_NONE, KILN_NONE, steps[i]};
  kiln_array *sliced = NULL;
  kiln_status status = kiln_array_slice(base, nd, slices, &sliced);
  if (status != KILN_OK) return status;
  if (!transpose) {
    *out = sliced;
    return KILN_OK;
  }
  status = kiln_array_transpose(sliced, NULL, out);
  kiln_array_release(sliced);
  return status;
}

static kiln_fft_kind kind_of(const char *op) {
  if (strstr(op, "irfft")) return KILN_FFT_REAL_INVERSE;
  if (strstr(op, "rfft")) return KILN_FFT_REAL_FORWARD;
  if (strstr(op, "ifft")) return KILN_FFT_INVERSE;
  return KILN_FFT_FORWARD;
}

/* One call of op on a (dtype, ndim, shape: its view's) into out. */
static kiln_status call(kiln_context *ctx, const char *op, kiln_operand a, kiln_dtype dtype,
                        int ndim, const int64_t *shape, int ns, const int64_t *s, int naxes,
                        const int *axes, const char *norm, kiln_operand out,
                        kiln_stream *stream) {
  const int64_t *sp = ns < 0 ? NULL : s;
  const int *ap = naxes < 0 ? NULL : axes;
  if (strncmp(op, "plan_", 5) == 0) {
    kiln_fft_plan *plan = NULL;
    kiln_status status = kiln_fft_plan_create(ctx, kind_of(op), dtype, ndim, shape, ns, sp,
                                              naxes, ap, norm, &plan);
    if (status == KILN_OK) status = kiln_fft_plan_execute(plan, a, out, stream);
    kiln_fft_plan_release(plan);
    return status;
  }
  int64_t n = ns < 0 ? KILN_FFT_DEFAULT : s[0];
  int axis = naxes < 0 ? -1 : axes[0];
  if (!strcmp(op, "fft")) return kiln_fft(ctx, a, n, axis, norm, out, stream);
  if (!strcmp(op, "ifft")) return kiln_ifft(ctx, a, n, axis, norm, out, stream);
  if (!strcmp(op, "rfft")) return kiln_rfft(ctx, a, n, axis, norm, out, stream);
  if (!strcmp(op, "irfft")) return kiln_irfft(ctx, a, n, axis, norm, out, stream);
  if (!strcmp(op, "fft2")) return kiln_fft2(ctx, a, sp, ap, norm, out, stream);
  if (!strcmp(op, "ifft2")) return kiln_ifft2(ctx, a, sp, ap, norm, out, stream);
  if (!strcmp(op, "fftn")) return kiln_fftn(ctx, a, ns, sp, naxes, ap, norm, out, stream);
  if (!strcmp(op, "ifftn")) return kiln_ifftn(ctx, a, ns, sp, naxes, ap, norm, out, stream);
  if (!strcmp(op, "rfftn")) return kiln_rfftn(ctx, a, ns, sp, naxes, ap, norm, out, stream);
  return kiln_irfftn(ctx, a, ns, sp, naxes, ap, norm, out, stream);
}

/* The host view of data (C order, shape) as the device view_of makes it:
 * slice steps, then transpose; *first: its first element. */
static void host_view(const void *data, kiln_dtype dtype, int ndim, const int64_t *shape,
                      const int64_t *steps, int transpose, int64_t *vshape, int64_t *vstrides,
                      const char **first) {
  const char *p = data;
  int64_t stride = (int64_t)kiln_dtype_size(dtype);
  for (int d = ndim - 1; d >= 0; d--) {
    int64_t step = steps[d], mag = step < 0 ? -step : step;
    vshape[d] = (shape[d] + mag - 1) / mag;
    vstrides[d] = stride * step;
    if (step < 0 && shape[d] > 0) p += (shape[d] - 1) * stride;
    stride *= shape[d];
  }
  for (int d = 0; transpose && d < ndim / 2; d++) {
    int64_t t = vshape[d];
    vshape[d] = vshape[ndim - 1 - d], vshape[ndim - 1 - d] = t;
    t = vstrides[d];
    vstrides[d] = vstrides[ndim - 1 - d], vstrides[ndim - 1 - d] = t;
  }
  *first = p;
}

static int run_case(kiln_context *ctx, const char *op) {
  char dtype_name[32], norm[32];
  int ndim, transpose, ns, naxes, use_out, use_stream, use_host;
  int64_t shape[KILN_MAX_DIMS], steps[KILN_MAX_DIMS], s[64];
  int axes[64];
  kiln_dtype dtype;
  if (scanf("%31s %d", dtype_name, &ndim) != 2 || !parse_dtype(dtype_name, &dtype) || ndim < 0 ||
      ndim > KILN_MAX_DIMS)
    return 0;
  for (int i = 0; i < ndim; i++)
    if (scanf("%lld", (long long *)&shape[i]) != 1) return 0;
  for (int i = 0; i < ndim; i++)
    if (scanf("%lld", (long long *)&steps[i]) != 1) return 0;
  if (scanf("%d %d", &transpose, &ns) != 2 || ns > 64) return 0;
  for (int i = 0; i < ns; i++)
    if (scanf("%lld", (long long *)&s[i]) != 1) return 0;
  if (scanf("%d", &naxes) != 1 || naxes > 64) return 0;
  for (int i = 0; i < naxes; i++)
    if (scanf("%d", &axes[i]) != 1) return 0;
  if (scanf("%31s %d %d %d", norm, &use_out, &use_stream, &use_host) != 4 || getchar() != '\n')
    return 0;
  int64_t count = 1;
  for (int i = 0; i < ndim; i++) count *= shape[i];
  size_t bytes = (size_t)count * kiln_dtype_size(dtype);
  void *data = malloc(bytes ? bytes : 1);
  if (!data || fread(data, 1, bytes, stdin) != bytes) return 0;
  kiln_array *base = NULL, *a = NULL, *result = NULL, *out = NULL;
  kiln_stream *stream = NULL;
  const char *norm_arg = strcmp(norm, "-") ? norm : NULL;
  /* the input: a device view, or the same view of host memory */
  int64_t vshape[KILN_MAX_DIMS], vstrides[KILN_MAX_DIMS];
  const char *first = NULL;
  host_view(data, dtype, ndim, shape, steps, transpose, vshape, vstrides, &first);
  kiln_operand input = kiln_operand_host(first, dtype, ndim, vshape, vstrides);
  kiln_status status = KILN_OK;
  if (!use_host) {
    status = kiln_array_from_host(ctx, dtype, ndim, shape, NULL, data, &base);
    if (status == KILN_OK) status = view_of(base, steps, transpose, &a);
    input = kiln_operand_array(a);
  }
  if (status == KILN_OK && use_stream) status = kiln_stream_create(ctx, &stream);
  /* the result's shape and dtype, for an out: from a first call */
  kiln_array *probe = NULL;
  if (status == KILN_OK && (use_out || use_host))
    status = call(ctx, op, input, dtype, ndim, vshape, ns, s, naxes, axes, norm_arg,
                  kiln_operand_new(&probe), NULL);
  int rnd = probe ? kiln_array_ndim(probe) : 0;
  int64_t rshape[KILN_MAX_DIMS], fstrides[KILN_MAX_DIMS];
  kiln_dtype rdtype = probe ? kiln_array_dtype(probe) : KILN_FLOAT32;
  for (int i = 0; i < rnd; i++) rshape[i] = kiln_array_shape(probe)[i];
  /* Fortran order: the non-contiguous out (a transposed layout) */
  int64_t stride = (int64_t)kiln_dtype_size(rdtype);
  for (int i = 0; i < rnd; i++) fstrides[i] = stride, stride *= rshape[i];
  void *host_out = NULL;
  kiln_operand output = kiln_operand_new(&result);
  if (status == KILN_OK && use_host) {
    host_out = calloc(1, (size_t)(stride > 0 ? stride : 1));
    output = kiln_operand_host_output(host_out, rdtype, rnd, rshape, use_out ? fstrides : NULL);
  } else if (status == KILN_OK && use_out) {
    int64_t reversed[KILN_MAX_DIMS];
    for (int i = 0; i < rnd; i++) reversed[i] = rshape[rnd - 1 - i];
    kiln_array *t = NULL;
    status = kiln_array_zeros(ctx, rdtype, rnd, reversed, &t);
    /* the fill is on the default stream, the call may be on another */
    if (status == KILN_OK && stream) status = kiln_context_synchronize(ctx);
    if (status == KILN_OK) status = kiln_array_transpose(t, NULL, &out);
    kiln_array_release(t);
    output = kiln_operand_array(out);
  }
  kiln_array_release(probe);
  if (status == KILN_OK)
    status = call(ctx, op, input, dtype, ndim, vshape, ns, s, naxes, axes, norm_arg, output,
                  stream);
  if (status == KILN_OK && stream) status = kiln_stream_synchronize(ctx, stream);
  /* a host out goes back up, to be read as any result */
  if (status == KILN_OK && use_host)
    status = kiln_array_from_host(ctx, rdtype, rnd, rshape, use_out ? fstrides : NULL, host_out,
                                  &result);
  else if (status == KILN_OK && use_out)
    result = kiln_array_retain(out);
  free(host_out);
  free(data);
  if (status != KILN_OK) {
    char message[1024];
    snprintf(message, sizeof message, "%s", kiln_last_error());
    for (char *c = message; *c; c++)
      if (*c == '\n') *c = ' ';
    printf("err %s %s\n", kiln_status_string(status), message);
  } else {
    int nd = kiln_array_ndim(result);
    size_t rbytes = (size_t)kiln_array_nbytes(result);
    void *host = malloc(rbytes ? rbytes : 1);
    status = host ? kiln_array_to_host(result, host, NULL) : KILN_ERROR_OUT_OF_MEMORY;
    if (status != KILN_OK) {
      printf("err %s readback\n", kiln_status_string(status));
    } else {
      printf("ok %s %d", kiln_dtype_name(kiln_array_dtype(result)), nd);
      for (int i = 0; i < nd; i++) printf(" %lld", (long long)kiln_array_shape(result)[i]);
      printf("\n");
      fwrite(host, 1, rbytes, stdout);
    }
    free(host);
  }
  fflush(stdout);
  kiln_array_release(result);
  kiln_array_release(out);
  kiln_array_release(a);
  kiln_array_release(base);
  kiln_stream_release(stream);
  return 1;
}

int main(void) {
  kiln_context *ctx = NULL;
  kiln_status status = kiln_context_create(NULL, &ctx);
  if (status != KILN_OK) {
    printf("nodevice %s\n", kiln_last_error());
    return 0;
  }
  char path[256];
  if (kiln_fft_describe(ctx, path, sizeof path) != KILN_OK)
    snprintf(path, sizeof path, "%s", kiln_last_error());
  printf("ready %s\n", path);
  fflush(stdout);
  char op[32];
  while (scanf("%31s", op) == 1) {
    if (!run_case(ctx, op)) {
      fprintf(stderr, "fft_driver: bad case line\n");
      kiln_context_release(ctx);
      return 2;
    }
  }
  kiln_context_release(ctx);
  return 0;
}
