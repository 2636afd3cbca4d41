/* tests/fft/fft_driver.c: runs kiln's FFT calls on cases read from stdin,
 * for tests/fft/fft_numpy.py, which makes the cases and checks the answers
 * against numpy.fft.
 *
 * A case is one line of tokens, then the input's bytes (C order):
 *   op dtype ndim shape... steps... transpose ns s... naxes axes... norm out stream
 * op: fft ifft rfft irfft fft2 ifft2 fftn ifftn rfftn irfftn, or one of
 * them prefixed "plan_" (made through kiln_fft_plan_create); steps: one
 * slice step per dim (-1 reverses, 2 takes every other element), applied
 * before transpose (1: reverse the axes); ns / naxes -1: NULL; norm "-":
 * NULL; out 1: into a non-contiguous out array; stream 1: on a new stream.
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

/* The result shape, for out: run once without out (same call) to learn it. */
static kiln_status call(kiln_context *ctx, const char *op, const kiln_array *a, int ns,
                        const int64_t *s, int naxes, const int *axes, const char *norm,
                        kiln_array *out, kiln_stream *stream, kiln_array **result) {
  const int64_t *sp = ns < 0 ? NULL : s;
  const int *ap = naxes < 0 ? NULL : axes;
  if (strncmp(op, "plan_", 5) == 0) {
    kiln_fft_plan *plan = NULL;
    const int64_t *shape = kiln_array_shape(a);
    kiln_status status = kiln_fft_plan_create(ctx, kind_of(op), kiln_array_dtype(a),
                                              kiln_array_ndim(a), shape, ns, sp, naxes, ap,
                                              norm, &plan);
    if (status == KILN_OK) status = kiln_fft_plan_execute(plan, a, out, stream, result);
    kiln_fft_plan_release(plan);
    return status;
  }
  int64_t n = ns < 0 ? KILN_FFT_DEFAULT : s[0];
  int axis = naxes < 0 ? -1 : axes[0];
  if (!strcmp(op, "fft")) return kiln_fft(a, n, axis, norm, out, stream, result);
  if (!strcmp(op, "ifft")) return kiln_ifft(a, n, axis, norm, out, stream, result);
  if (!strcmp(op, "rfft")) return kiln_rfft(a, n, axis, norm, out, stream, result);
  if (!strcmp(op, "irfft")) return kiln_irfft(a, n, axis, norm, out, stream, result);
  if (!strcmp(op, "fft2")) return kiln_fft2(a, sp, ap, norm, out, stream, result);
  if (!strcmp(op, "ifft2")) return kiln_ifft2(a, sp, ap, norm, out, stream, result);
  if (!strcmp(op, "fftn")) return kiln_fftn(a, ns, sp, naxes, ap, norm, out, stream, result);
  if (!strcmp(op, "ifftn")) return kiln_ifftn(a, ns, sp, naxes, ap, norm, out, stream, result);
  if (!strcmp(op, "rfftn")) return kiln_rfftn(a, ns, sp, naxes, ap, norm, out, stream, result);
  return kiln_irfftn(a, ns, sp, naxes, ap, norm, out, stream, result);
}

static int run_case(kiln_context *ctx, const char *op) {
  char dtype_name[32], norm[32];
  int ndim, transpose, ns, naxes, use_out, use_stream;
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
  if (scanf("%31s %d %d", norm, &use_out, &use_stream) != 3 || getchar() != '\n') return 0;
  int64_t count = 1;
  for (int i = 0; i < ndim; i++) count *= shape[i];
  size_t bytes = (size_t)count * kiln_dtype_size(dtype);
  void *data = malloc(bytes ? bytes : 1);
  if (!data || fread(data, 1, bytes, stdin) != bytes) return 0;
  kiln_array *base = NULL, *a = NULL, *result = NULL, *out = NULL;
  kiln_stream *stream = NULL;
  const char *norm_arg = strcmp(norm, "-") ? norm : NULL;
  kiln_status status = kiln_array_from_host(ctx, dtype, ndim, shape, NULL, data, &base);
  free(data);
  if (status == KILN_OK) status = view_of(base, steps, transpose, &a);
  if (status == KILN_OK && use_stream) status = kiln_stream_create(ctx, &stream);
  if (status == KILN_OK && use_out) {
    /* learn the result's shape, then give a transposed (non-contiguous) out */
    kiln_array *probe = NULL, *t = NULL;
    status = call(ctx, op, a, ns, s, naxes, axes, norm_arg, NULL, NULL, &probe);
    if (status == KILN_OK) {
      int nd = kiln_array_ndim(probe);
      int64_t rshape[KILN_MAX_DIMS];
      for (int i = 0; i < nd; i++) rshape[i] = kiln_array_shape(probe)[nd - 1 - i];
      status = kiln_array_zeros(ctx, kiln_array_dtype(probe), nd, rshape, &t);
      if (status == KILN_OK) status = kiln_array_transpose(t, NULL, &out);
    }
    kiln_array_release(probe);
    kiln_array_release(t);
  }
  if (status == KILN_OK)
    status = call(ctx, op, a, ns, s, naxes, axes, norm_arg, out, stream, &result);
  if (status == KILN_OK && stream) status = kiln_stream_synchronize(ctx, stream);
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
