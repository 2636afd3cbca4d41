/* tests/numpy_diff/kiln_ufunc_driver.c: runs kiln's built-in ufuncs over
 * operands described on stdin and prints the results, for the differential
 * test against NumPy (tests/numpy_diff/diff.py, docs/ufuncs.md).
 *
 * One case per block of lines; every token is separated by one space:
 *   case <id> <ufunc> <nin> <nout>
 *   in array <dtype> <d|h> <ndim> <shape...> <axes...> <start stop step>... <hex>
 *      a C-order base array of `shape` holding the bytes <hex> ("-" when
 *      empty), viewed as base[start:stop:step, ...].transpose(axes);
 *      d: passed as a device view, h: as host memory with the view's strides
 *   in weak_int <decimal>             a Python int (NEP 50 weak scalar)
 *   in weak_float <16 hex digits>     a Python float, its IEEE bits
 *   in weak_complex <hex> <hex>       a Python complex (real, imag doubles' bits)
 *   in scalar <dtype> <16 hex digits> a typed scalar: a float's IEEE double
 *                                     bits, an integer's 64-bit two's
 *                                     complement
 *   out new                           kiln allocates the output
 *   out array ...                     as `in array`: a given output view
 *   out inplace <k>                   the very same view as input k
 *   end
 * For each case one line: "case <id> ok" and per output
 * " <dtype> <ndim> <shape...> <hex of the elements in C order>", or
 * "case <id> err <status> <message on one line>". Built-in ufuncs are made
 * once per name and kept, so each kernel variant compiles once per run.
 * Exit status 0 unless the input is malformed or no context opens (77).
 * At the end one line on stderr, "profile ...": where the time went (the
 * context's creation; parsing and uploading the operands; the ufunc calls,
 * which compile each new kernel variant; printing, which downloads the
 * results) and the slowest calls, for diff.py to print. */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kiln/kiln.h"

#define MAX_OPS 8
#define MAX_UFUNCS 256

typedef struct operand_storage {
  kiln_array *base, *view; /* device */
  char *host;              /* host base copy (h mode) */
  int64_t shape[KILN_MAX_DIMS];
  kiln_array *result;      /* out new */
} operand_storage;

static struct {
  char name[64];
  kiln_ufunc *ufunc;
} cache[MAX_UFUNCS];
static int ncache;

static kiln_ufunc *get_ufunc(kiln_context *ctx, const char *name) {
  for (int i = 0; i < ncache; i++)
    if (strcmp(cache[i].name, name) == 0) return cache[i].ufunc;
  kiln_ufunc *u = NULL;
  if (kiln_ufunc_builtin(ctx, name, &u) != KILN_OK) return NULL;
  if (ncache < MAX_UFUNCS) {
    snprintf(cache[ncache].name, sizeof cache[ncache].name, "%s", name);
    cache[ncache++].ufunc = u;
  }
  return u;
}

static int hexval(int c) {
  return isdigit(c) ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10 : -1;
}

/* Decodes n bytes of hex at s into out; 0 on malformed input. */
static int unhex(const char *s, unsigned char *out, size_t n) {
  if (n == 0) return strcmp(s, "-") == 0 || *s == '\0';
  if (strlen(s) != 2 * n) return 0;
  for (size_t i = 0; i < n; i++) {
    int hi = hexval((unsigned char)s[2 * i]), lo = hexval((unsigned char)s[2 * i + 1]);
    if (hi < 0 || lo < 0) return 0;
    out[i] = (unsigned char)(hi * 16 + lo);
  }
  return 1;
}

/* A slice field: "n" is None (KILN_NONE). */
static int64_t slice_field(const char *s) {
  return strcmp(s, "n") == 0 ? KILN_NONE : (int64_t)strtoll(s, NULL, 10);
}

static uint64_t hex64(const char *s) { return strtoull(s, NULL, 16); }

/* Parses "array <dtype> <mode> ..." tokens (tok[0] is "array") into a
 * device view and, for host mode, a host operand. */
static kiln_status parse_array(kiln_context *ctx, char **tok, int ntok, operand_storage *st,
                               kiln_operand *op, int output) {
  kiln_dtype dtype;
  if (ntok < 4 || kiln_dtype_from_name(tok[1], &dtype) != KILN_OK) return KILN_ERROR_INTERNAL;
  int host = tok[2][0] == 'h';
  int ndim = atoi(tok[3]);
  if (ndim < 0 || ndim > KILN_MAX_DIMS || ntok != 4 + ndim * 5 + 1) return KILN_ERROR_INTERNAL;
  int64_t size = 1;
  for (int d = 0; d < ndim; d++) {
    st->shape[d] = strtoll(tok[4 + d], NULL, 10);
    size *= st->shape[d];
  }
  int axes[KILN_MAX_DIMS];
  kiln_slice slices[KILN_MAX_DIMS];
  for (int d = 0; d < ndim; d++) {
    axes[d] = atoi(tok[4 + ndim + d]);
    slices[d].start = slice_field(tok[4 + 2 * ndim + 3 * d]);
    slices[d].stop = slice_field(tok[4 + 2 * ndim + 3 * d + 1]);
    slices[d].step = slice_field(tok[4 + 2 * ndim + 3 * d + 2]);
  }
  size_t nbytes = (size_t)size * kiln_dtype_size(dtype);
  unsigned char *data = malloc(nbytes + 1);
  if (!data) return KILN_ERROR_OUT_OF_MEMORY;
  if (!unhex(tok[ntok - 1], data, nbytes)) {
    free(data);
    return KILN_ERROR_INTERNAL;
  }
  kiln_status s = kiln_array_from_host(ctx, dtype, ndim, st->shape, NULL, data, &st->base);
  kiln_array *sliced = NULL;
  if (s == KILN_OK) s = kiln_array_slice(st->base, ndim, slices, &sliced);
  if (s == KILN_OK) s = kiln_array_transpose(sliced, axes, &st->view);
  kiln_array_release(sliced);
  if (s != KILN_OK || !host) {
    free(data);
    if (s == KILN_OK) *op = kiln_operand_array(st->view);
    return s;
  }
  st->host = (char *)data;
  char *at = st->host + kiln_array_offset(st->view);
  if (output)
    *op = kiln_operand_host_output(at, dtype, kiln_array_ndim(st->view),
                                   kiln_array_shape(st->view), kiln_array_strides(st->view));
  else
    *op = kiln_operand_host(at, dtype, kiln_array_ndim(st->view), kiln_array_shape(st->view),
                            kiln_array_strides(st->view));
  return KILN_OK;
}

static kiln_status parse_scalar(char **tok, int ntok, kiln_operand *op) {
  if (strcmp(tok[0], "weak_int") == 0 && ntok == 2) {
    *op = kiln_operand_int((int64_t)strtoll(tok[1], NULL, 10));
    return KILN_OK;
  }
  if (strcmp(tok[0], "weak_float") == 0 && ntok == 2) {
    uint64_t bits = hex64(tok[1]);
    double v;
    memcpy(&v, &bits, sizeof v);
    *op = kiln_operand_float(v);
    return KILN_OK;
  }
  if (strcmp(tok[0], "weak_complex") == 0 && ntok == 3) {
    uint64_t bits[2] = {hex64(tok[1]), hex64(tok[2])};
    double v[2];
    memcpy(v, bits, sizeof v);
    *op = kiln_operand_complex(v[0], v[1]);
    return KILN_OK;
  }
  kiln_dtype dtype;
  if (strcmp(tok[0], "scalar") != 0 || ntok < 3 || kiln_dtype_from_name(tok[1], &dtype))
    return KILN_ERROR_INTERNAL;
  if (kiln_dtype_is_complex(dtype)) { /* scalar <dtype> <real bits> <imag bits> */
    if (ntok != 4) return KILN_ERROR_INTERNAL;
    uint64_t bits[2] = {hex64(tok[2]), hex64(tok[3])};
    double v[2];
    memcpy(v, bits, sizeof v);
    *op = dtype == KILN_COMPLEX64 ? kiln_operand_complex64(v[0], v[1])
                                  : kiln_operand_complex128(v[0], v[1]);
    return KILN_OK;
  }
  if (ntok != 3) return KILN_ERROR_INTERNAL;
  uint64_t bits = hex64(tok[2]);
  memset(op, 0, sizeof *op);
  op->kind = KILN_OPERAND_SCALAR;
  op->dtype = dtype;
  if (kiln_dtype_is_float(dtype)) memcpy(&op->value.f, &bits, sizeof bits);
  else op->value.u = bits;
  return KILN_OK;
}

/* Prints the elements of `view` in C order as hex. */
static int print_array(const kiln_array *view) {
  size_t nbytes = (size_t)kiln_array_nbytes(view);
  unsigned char *data = malloc(nbytes + 1);
  if (!data || kiln_array_to_host(view, data, NULL) != KILN_OK) {
    free(data);
    return 0;
  }
  printf(" %s %d", kiln_dtype_name(kiln_array_dtype(view)), kiln_array_ndim(view));
  for (int d = 0; d < kiln_array_ndim(view); d++)
    printf(" %" PRId64, kiln_array_shape(view)[d]);
  putchar(' ');
  if (nbytes == 0) putchar('-');
  for (size_t i = 0; i < nbytes; i++) printf("%02x", data[i]);
  free(data);
  return 1;
}

/* Host-mode output: prints the view's elements from the host copy. */
static int print_host_output(const operand_storage *st) {
  const kiln_array *v = st->view;
  int ndim = kiln_array_ndim(v);
  const int64_t *shape = kiln_array_shape(v), *strides = kiln_array_strides(v);
  size_t item = kiln_dtype_size(kiln_array_dtype(v));
  printf(" %s %d", kiln_dtype_name(kiln_array_dtype(v)), ndim);
  for (int d = 0; d < ndim; d++) printf(" %" PRId64, shape[d]);
  putchar(' ');
  if (kiln_array_size(v) == 0) {
    putchar('-');
    return 1;
  }
  int64_t idx[KILN_MAX_DIMS] = {0};
  do {
    const unsigned char *at = (const unsigned char *)st->host + kiln_array_offset(v);
    for (int d = 0; d < ndim; d++) at += idx[d] * strides[d];
    for (size_t i = 0; i < item; i++) printf("%02x", at[i]);
    int d = ndim - 1;
    for (; d >= 0; d--) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
    if (d < 0) break;
  } while (1);
  return 1;
}

static void one_line(char *msg) {
  for (char *p = msg; *p; p++)
    if (*p == '\n' || *p == '\r') *p = ' ';
}

static double now_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Where a run's time went (the profile line). */
typedef struct profile {
  double context, parse, call, print;
  int cases, slow_calls; /* calls over 20 ms: almost always a compile */
  double slow_seconds;
  struct { double seconds; char what[128]; } slowest[3];
} profile;

static void profile_call(profile *p, double seconds, const char *id, const char *name) {
  p->call += seconds;
  if (seconds > 0.02) p->slow_calls++, p->slow_seconds += seconds;
  for (int i = 0; i < 3; i++) {
    if (seconds <= p->slowest[i].seconds) continue;
    for (int j = 2; j > i; j--) p->slowest[j] = p->slowest[j - 1];
    p->slowest[i].seconds = seconds;
    snprintf(p->slowest[i].what, sizeof p->slowest[i].what, "case %s %s", id, name);
    break;
  }
}

static void profile_print(const profile *p) {
  fprintf(stderr,
          "profile %d cases: context %.2f s, parse+upload %.2f s, calls %.2f s (%d over 20 ms, "
          "%.2f s: compiles), print+download %.2f s; slowest:",
          p->cases, p->context, p->parse, p->call, p->slow_calls, p->slow_seconds, p->print);
  for (int i = 0; i < 3 && p->slowest[i].seconds > 0; i++)
    fprintf(stderr, " %s %.3f s;", p->slowest[i].what, p->slowest[i].seconds);
  fprintf(stderr, "\n");
}

#define MAX_TOKENS (8 + 6 * KILN_MAX_DIMS)

static int split(char *line, char **tok) {
  int n = 0;
  for (char *p = strtok(line, " \n"); p && n < MAX_TOKENS; p = strtok(NULL, " \n")) tok[n++] = p;
  return n;
}

int main(void) {
  profile prof;
  memset(&prof, 0, sizeof prof);
  double t0 = now_seconds();
  kiln_context *ctx = NULL;
  if (kiln_context_create(NULL, &ctx) != KILN_OK) {
    printf("skip: no context: %s\n", kiln_last_error());
    return 77;
  }
  prof.context = now_seconds() - t0;
  char *line = NULL;
  size_t cap = 0;
  int rc = 0;
  while (getline(&line, &cap, stdin) > 0) {
    double started = now_seconds();
    char *tok[MAX_TOKENS];
    int ntok = split(line, tok);
    if (ntok == 0) continue;
    if (ntok != 5 || strcmp(tok[0], "case") != 0) {
      fprintf(stderr, "driver: expected 'case', got '%s'\n", tok[0]);
      rc = 2;
      break;
    }
    char id[32], name[64];
    snprintf(id, sizeof id, "%s", tok[1]);
    snprintf(name, sizeof name, "%s", tok[2]);
    int nin = atoi(tok[3]), nout = atoi(tok[4]);
    if (nin < 0 || nout < 0 || nin + nout > MAX_OPS) {
      rc = 2;
      break;
    }
    operand_storage st[MAX_OPS];
    kiln_operand ops[MAX_OPS];
    int inplace_of[MAX_OPS];
    memset(st, 0, sizeof st);
    kiln_status s = KILN_OK;
    int k = 0;
    while (getline(&line, &cap, stdin) > 0) {
      ntok = split(line, tok);
      if (ntok == 0) continue;
      if (strcmp(tok[0], "end") == 0) break;
      int output = strcmp(tok[0], "out") == 0;
      if (k >= nin + nout || ntok < 2) {
        s = KILN_ERROR_INTERNAL;
        continue;
      }
      inplace_of[k] = -1;
      if (s != KILN_OK) {
        k++;
        continue;
      }
      if (strcmp(tok[1], "array") == 0) {
        s = parse_array(ctx, tok + 1, ntok - 1, &st[k], &ops[k], output);
      } else if (output && strcmp(tok[1], "new") == 0) {
        ops[k] = kiln_operand_new(&st[k].result);
      } else if (output && strcmp(tok[1], "inplace") == 0 && ntok == 3) {
        int j = atoi(tok[2]);
        if (j < 0 || j >= nin || !st[j].view) s = KILN_ERROR_INTERNAL;
        else {
          ops[k] = ops[j];
          if (ops[k].kind == KILN_OPERAND_HOST) ops[k].value.host.writable = st[j].host +
              kiln_array_offset(st[j].view);
          inplace_of[k] = j;
        }
      } else {
        s = parse_scalar(tok + 1, ntok - 1, &ops[k]);
      }
      k++;
    }
    if (s == KILN_ERROR_INTERNAL || k != nin + nout) {
      fprintf(stderr, "driver: malformed case %s\n", id);
      rc = 2;
    }
    double parsed = now_seconds();
    prof.parse += parsed - started;
    prof.cases++;
    kiln_ufunc *u = s == KILN_OK ? get_ufunc(ctx, name) : NULL;
    if (s == KILN_OK && !u) s = KILN_ERROR_NOT_FOUND;
    if (s == KILN_OK) s = kiln_ufunc_call(u, nin, ops, nout, ops + nin, NULL);
    double called = now_seconds();
    profile_call(&prof, called - parsed, id, name);
    if (s == KILN_OK) {
      printf("case %s ok", id);
      for (int o = nin; o < nin + nout && s == KILN_OK; o++) {
        int j = inplace_of[o] >= 0 ? inplace_of[o] : o;
        int ok = st[o].result ? print_array(st[o].result)
               : st[j].host  ? print_host_output(&st[j])
                             : print_array(st[j].view);
        if (!ok) s = KILN_ERROR_DEVICE;
      }
      printf("\n");
    }
    if (s != KILN_OK) {
      char msg[512];
      snprintf(msg, sizeof msg, "%s", kiln_last_error());
      one_line(msg);
      printf("case %s err %s %s\n", id, kiln_status_string(s), msg);
    }
    fflush(stdout);
    prof.print += now_seconds() - called;
    for (int o = 0; o < MAX_OPS; o++) {
      kiln_array_release(st[o].view);
      kiln_array_release(st[o].base);
      kiln_array_release(st[o].result);
      free(st[o].host);
    }
  }
  free(line);
  profile_print(&prof);
  for (int i = 0; i < ncache; i++) kiln_ufunc_release(cache[i].ufunc);
  kiln_context_release(ctx);
  return rc;
}
