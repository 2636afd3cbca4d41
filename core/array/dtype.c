/* core/array/dtype.c: dtype sizes, names and NumPy's safe-casting table. */
#include <string.h>

#include "core/array/array_internal.h"
#include "core/runtime/error.h"
#include "kiln/dtype.h"

typedef struct dtype_desc {
  const char *name;
  const char *kernel_type;
  size_t size;
  char kind; /* 'b' bool, 'i' signed, 'u' unsigned, 'f' float, 'c' complex */
} dtype_desc;

static const dtype_desc dtypes[KILN_DTYPE_COUNT] = {
    [KILN_BOOL] = {"bool", "kiln_bool", 1, 'b'},
    [KILN_INT8] = {"int8", "int8_t", 1, 'i'},
    [KILN_UINT8] = {"uint8", "uint8_t", 1, 'u'},
    [KILN_INT16] = {"int16", "int16_t", 2, 'i'},
    [KILN_UINT16] = {"uint16", "uint16_t", 2, 'u'},
    [KILN_INT32] = {"int32", "int32_t", 4, 'i'},
    [KILN_UINT32] = {"uint32", "uint32_t", 4, 'u'},
    [KILN_INT64] = {"int64", "int64_t", 8, 'i'},
    [KILN_UINT64] = {"uint64", "uint64_t", 8, 'u'},
    [KILN_FLOAT32] = {"float32", "float", 4, 'f'},
    [KILN_FLOAT64] = {"float64", "double", 8, 'f'},
    [KILN_FLOAT16] = {"float16", "kiln_half", 2, 'f'},
    [KILN_COMPLEX64] = {"complex64", "kiln_complex64", 8, 'c'},
    [KILN_COMPLEX128] = {"complex128", "kiln_complex128", 16, 'c'},
};

static int dtype_valid(kiln_dtype d) { return (int)d >= 0 && d < KILN_DTYPE_COUNT; }

size_t kiln_dtype_size(kiln_dtype dtype) { return dtype_valid(dtype) ? dtypes[dtype].size : 0; }

const char *kiln_dtype_name(kiln_dtype dtype) {
  return dtype_valid(dtype) ? dtypes[dtype].name : "invalid";
}

const char *kiln_dtype_kernel_type(kiln_dtype dtype) {
  return dtype_valid(dtype) ? dtypes[dtype].kernel_type : "invalid";
}

int kiln_dtype_is_float(kiln_dtype dtype) {
  return dtype_valid(dtype) && dtypes[dtype].kind == 'f';
}

int kiln_dtype_is_complex(kiln_dtype dtype) {
  return dtype_valid(dtype) && dtypes[dtype].kind == 'c';
}

kiln_dtype kiln_dtype_component(kiln_dtype dtype) {
  return dtype == KILN_COMPLEX64 ? KILN_FLOAT32 : dtype == KILN_COMPLEX128 ? KILN_FLOAT64 : dtype;
}

kiln_status kiln_dtype_from_name(const char *name, kiln_dtype *out) {
  static const struct {
    const char *alias;
    kiln_dtype dtype;
  } aliases[] = {
      {"?", KILN_BOOL},      {"b1", KILN_BOOL},     {"i1", KILN_INT8},
      {"u1", KILN_UINT8},    {"i2", KILN_INT16},    {"u2", KILN_UINT16},
      {"i4", KILN_INT32},    {"u4", KILN_UINT32},   {"i8", KILN_INT64},
      {"u8", KILN_UINT64},   {"f4", KILN_FLOAT32},  {"f8", KILN_FLOAT64},
      {"float", KILN_FLOAT32}, {"double", KILN_FLOAT64}, {"f2", KILN_FLOAT16},
      {"e", KILN_FLOAT16},     {"half", KILN_FLOAT16},  {"c8", KILN_COMPLEX64},
      {"F", KILN_COMPLEX64},   {"c16", KILN_COMPLEX128}, {"D", KILN_COMPLEX128},
      {"complex", KILN_COMPLEX128},
  };
  KILN_CHECK_ARG(name);
  KILN_CHECK_ARG(out);
  for (int d = 0; d < KILN_DTYPE_COUNT; d++) {
    if (strcmp(name, dtypes[d].name) == 0) {
      *out = (kiln_dtype)d;
      return KILN_OK;
    }
  }
  for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++) {
    if (strcmp(name, aliases[i].alias) == 0) {
      *out = aliases[i].dtype;
      return KILN_OK;
    }
  }
  return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                        "unknown dtype '%s'; valid: bool, int8, uint8, int16, uint16, "
                        "int32, uint32, int64, uint64, float16, float32, float64, complex64, "
                        "complex128",
                        name);
}

/* NumPy's np.can_cast(from, to, 'safe'): bool to anything; an integer to a
 * wider one of a kind that holds every value; ints to a wider float (8-bit
 * ints to float16, 16-bit to float32, 32-bit to float64) and (as NumPy has
 * it) 64-bit ints to float64; floats only widen. A complex dtype takes what
 * its component takes (so int32 -> complex128, float16 -> complex64);
 * complex only widens, never to a real dtype. */
int kiln_dtype_can_cast_safely(kiln_dtype from, kiln_dtype to) {
  if (!dtype_valid(from) || !dtype_valid(to)) return 0;
  if (from == to) return 1;
  const dtype_desc *f = &dtypes[from], *t = &dtypes[to];
  if (t->kind == 'c' && f->kind != 'c')
    return kiln_dtype_can_cast_safely(from, kiln_dtype_component(to));
  switch (f->kind) {
    case 'b': return 1;
    case 'u':
      if (t->kind == 'u') return t->size >= f->size;
      if (t->kind == 'i') return t->size > f->size;
      if (t->kind == 'f') return t->size > f->size || t->size == 8;
      return 0;
    case 'i':
      if (t->kind == 'i') return t->size >= f->size;
      if (t->kind == 'f') return t->size > f->size || t->size == 8;
      return 0;
    case 'f': return t->kind == 'f' && t->size >= f->size;
    case 'c': return t->kind == 'c' && t->size >= f->size;
  }
  return 0;
}

void kiln_dtype_float_bytes(kiln_dtype to, double v, unsigned char out[8]) {
  memset(out, 0, 8);
  if (to == KILN_FLOAT16) {
    uint16_t h = kiln_float16_from_double(v);
    memcpy(out, &h, sizeof h);
  } else if (to == KILN_FLOAT32) {
    float f = (float)v;
    memcpy(out, &f, sizeof f);
  } else {
    memcpy(out, &v, sizeof v);
  }
}

void kiln_dtype_complex_bytes(kiln_dtype to, double re, double im,
                              unsigned char out[KILN_SCALAR_BYTES]) {
  memset(out, 0, KILN_SCALAR_BYTES);
  kiln_dtype part = kiln_dtype_component(to);
  size_t half = kiln_dtype_size(part);
  kiln_dtype_float_bytes(part, re, out);
  unsigned char imag[8];
  kiln_dtype_float_bytes(part, im, imag);
  memcpy(out + half, imag, half);
}
