/* core/ufunc/ufunc_dispatch.c: choosing a signature from the input dtypes, as
 * NumPy 2 does for a ufunc with a fixed list of loops.
 *
 * Weak scalars (Python int/float/complex, NEP 50) do not vote: a weak int
 * fits any integer, float or complex parameter, a weak float any float or
 * complex parameter, a weak complex any complex one. Only when no strong
 * input is of a kind as high as the scalar's (an int with only bool arrays,
 * a float with integer arrays, or no strong input at all) does the scalar
 * take its kind's default dtype (int64, float64, complex128) and vote like
 * a typed scalar; a weak complex next to real float arrays stays weak, so
 * float32 + 1j is complex64 (NumPy 2). Then: the first signature that
 * matches the inputs exactly, else the first that each input casts to
 * safely. A weak int out of the range of the integer dtype so chosen for
 * it is an error (NumPy's OverflowError), except in the ufuncs NumPy 2
 * gives by-value promoters (comparisons, true_divide: u->int_scalar_by_value),
 * where it is matched again as a typed int64 scalar: int8 array < 1000
 * then runs the int64 loop, uint64 array < -1 the float64 one (exact for
 * the comparison: no uint64 rounds below zero), int8 array / 1000 the
 * int64 one, which divides in double as NumPy's float64 loop. */
#include <stdio.h>
#include <string.h>

#include "core/ufunc/ufunc_internal.h"

/* NumPy's kind order for same_kind casting: b < u < i < f < c. */
static int kind_order(kiln_dtype d) {
  switch (d) {
    case KILN_BOOL: return 0;
    case KILN_UINT8: case KILN_UINT16: case KILN_UINT32: case KILN_UINT64: return 1;
    case KILN_FLOAT16: case KILN_FLOAT32: case KILN_FLOAT64: return 3;
    case KILN_COMPLEX64: case KILN_COMPLEX128: return 4;
    default: return 2;
  }
}

/* bool 0, integers 1, floats 2, complex 3: the levels NEP 50 compares weak
 * scalars against. */
static int kind_level(kiln_dtype d) {
  return d == KILN_BOOL ? 0 : kiln_dtype_is_float(d) ? 2 : kiln_dtype_is_complex(d) ? 3 : 1;
}

/* A weak scalar's level: int 1, float 2, complex 3. */
static int weak_level(const kiln_operand *o) {
  return o->dtype == KILN_COMPLEX128 ? 3 : o->dtype == KILN_FLOAT64 ? 2 : 1;
}

int kiln_ufunc_can_cast_same_kind(kiln_dtype from, kiln_dtype to) {
  if (kiln_dtype_size(from) == 0 || kiln_dtype_size(to) == 0) return 0;
  return kiln_dtype_can_cast_safely(from, to) || kind_order(from) <= kind_order(to);
}

static kiln_dtype operand_dtype(const kiln_operand *o) {
  return o->kind == KILN_OPERAND_ARRAY ? kiln_array_dtype(o->value.array) : o->dtype;
}

/* What an input brings to matching: a dtype that must match (strong) or a
 * minimum kind level (weak). */
typedef struct input_type {
  kiln_dtype dtype;
  int weak_level; /* 0: strong; 1: weak int; 2: weak float; 3: weak complex */
} input_type;

static int matches(const kiln_ufunc_sig *sig, const input_type *types, int safe) {
  for (int j = 0; j < sig->nin; j++) {
    kiln_dtype want = sig->dtypes[j];
    if (types[j].weak_level) {
      if (want == KILN_BOOL || kind_level(want) < types[j].weak_level) return 0;
    } else if (safe ? !kiln_dtype_can_cast_safely(types[j].dtype, want)
                    : types[j].dtype != want) {
      return 0;
    }
  }
  return 1;
}

/* The first signature matching exactly, else under safe casting; -1. */
static int choose(const kiln_ufunc *u, const input_type *types) {
  for (int pass = 0; pass < 2; pass++)
    for (int i = 0; i < u->nsig; i++)
      if (matches(&u->sigs[i], types, pass)) return i;
  return -1;
}

static void describe_inputs(const kiln_operand *inputs, int nin, kiln_strbuf *b) {
  kiln_strbuf_append(b, "(");
  for (int j = 0; j < nin; j++) {
    const kiln_operand *o = &inputs[j];
    if (j) kiln_strbuf_append(b, ", ");
    if (o->kind == KILN_OPERAND_WEAK_SCALAR)
      kiln_strbuf_append(b, o->dtype == KILN_COMPLEX128 ? "complex scalar"
                            : o->dtype == KILN_FLOAT64  ? "float scalar"
                                                        : "int scalar");
    else
      kiln_strbuf_appendf(b, "%s%s", kiln_dtype_name(operand_dtype(o)),
                          o->kind == KILN_OPERAND_SCALAR ? " scalar" : "");
  }
  kiln_strbuf_append(b, ")");
}

static kiln_status no_match(const kiln_ufunc *u, const kiln_operand *inputs) {
  kiln_strbuf b = {0};
  kiln_strbuf_appendf(&b, "ufunc '%s' has no signature for inputs ", u->name);
  describe_inputs(inputs, u->nin, &b);
  kiln_strbuf_append(&b, " under safe casting; its signatures:");
  for (int i = 0; i < u->nsig; i++) kiln_strbuf_appendf(&b, "\n  %s", u->sigs[i].text);
  kiln_status status = kiln_strbuf_status(&b);
  if (status == KILN_OK) status = kiln_error_set(KILN_ERROR_INVALID_ARGUMENT, "%s", b.data);
  kiln_strbuf_free(&b);
  return status;
}

/* Whether weak int o fits integer dtype `to` (bool and non-integers: 1). */
static int weak_int_fits(const kiln_operand *o, kiln_dtype to) {
  static const struct { int64_t lo; uint64_t hi; } range[KILN_DTYPE_COUNT] = {
      [KILN_INT8] = {INT8_MIN, INT8_MAX},    [KILN_UINT8] = {0, UINT8_MAX},
      [KILN_INT16] = {INT16_MIN, INT16_MAX}, [KILN_UINT16] = {0, UINT16_MAX},
      [KILN_INT32] = {INT32_MIN, INT32_MAX}, [KILN_UINT32] = {0, UINT32_MAX},
      [KILN_INT64] = {INT64_MIN, INT64_MAX}, [KILN_UINT64] = {0, UINT64_MAX},
  };
  if (range[to].hi == 0) return 1; /* bool, floats, complex */
  return o->value.i < 0 ? o->value.i >= range[to].lo : (uint64_t)o->value.i <= range[to].hi;
}

/* Stores scalar input j, converted to `to`, into KILN_SCALAR_BYTES at out. */
kiln_status kiln_ufunc_convert_scalar(const kiln_ufunc *u, int j, const kiln_operand *o,
                                      kiln_dtype to, unsigned char out[KILN_SCALAR_BYTES]) {
  int is_unsigned = o->kind == KILN_OPERAND_SCALAR &&
                    (o->dtype == KILN_UINT8 || o->dtype == KILN_UINT16 ||
                     o->dtype == KILN_UINT32 || o->dtype == KILN_UINT64);
  int is_float = kiln_dtype_is_float(o->dtype), is_complex = kiln_dtype_is_complex(o->dtype);
  memset(out, 0, KILN_SCALAR_BYTES);
  double real = is_complex ? o->value.c.real
                : is_float ? o->value.f
                : is_unsigned ? (double)o->value.u
                              : (double)o->value.i;
  double imag = is_complex ? o->value.c.imag : 0;
  if (u->truth_only) {
    /* NumPy's logical functions take each input's truth before any cast
     * (their promoter picks the bool loop): a scalar passes 1 or 0 in the
     * loop's dtype, so 1e-300 stays true against float32 and a Python int
     * out of an int8 array's range is no error */
    int truth = is_complex ? real != 0 || imag != 0
                : is_float ? o->value.f != 0
                           : o->value.i != 0; /* NaN is true */
    if (kiln_dtype_is_float(to)) kiln_dtype_float_bytes(to, truth, out);
    else if (kiln_dtype_is_complex(to)) kiln_dtype_complex_bytes(to, truth, 0, out);
    else out[0] = (unsigned char)truth; /* bool and integers: little-endian 1 */
    return KILN_OK;
  }
  if (kiln_dtype_is_complex(to)) {
    kiln_dtype_complex_bytes(to, real, imag, out);
    return KILN_OK;
  }
  if (kiln_dtype_is_float(to)) {
    kiln_dtype_float_bytes(to, real, out);
    return KILN_OK;
  }
  if (to == KILN_BOOL) {
    out[0] = o->value.i != 0;
    return KILN_OK;
  }
  /* integer target; strong scalars reach it only by safe casting, so only a
   * weak int can be out of range */
  uint64_t bits = is_unsigned ? o->value.u : (uint64_t)o->value.i;
  if (o->kind == KILN_OPERAND_WEAK_SCALAR && !weak_int_fits(o, to))
    return kiln_error_set(KILN_ERROR_OUT_OF_RANGE,
                          "ufunc '%s': input %d, the int scalar %lld, is out of range for "
                          "%s, the dtype the array operands give it (NumPy 2 raises "
                          "OverflowError here; pass a typed scalar to choose a wider "
                          "signature)",
                          u->name, j, (long long)o->value.i, kiln_dtype_name(to));
  memcpy(out, &bits, kiln_dtype_size(to)); /* little-endian: the low bytes */
  return KILN_OK;
}

kiln_status kiln_ufunc_dispatch(const kiln_ufunc *u, const kiln_operand *inputs,
                                const kiln_operand *outputs, kiln_ufunc_plan *plan) {
  input_type types[KILN_UFUNC_MAX_OPERANDS];
  int strong_level = -1;
  for (int j = 0; j < u->nin; j++) {
    types[j].dtype = operand_dtype(&inputs[j]);
    types[j].weak_level = 0;
    if (inputs[j].kind != KILN_OPERAND_WEAK_SCALAR) {
      int level = kind_level(types[j].dtype);
      if (level > strong_level) strong_level = level;
    }
  }
  for (int j = 0; j < u->nin; j++) {
    if (inputs[j].kind != KILN_OPERAND_WEAK_SCALAR) continue;
    int level = weak_level(&inputs[j]);
    /* a weak complex next to float arrays keeps their precision */
    if (level > strong_level && !(level == 3 && strong_level == 2))
      types[j].dtype = level == 3 ? KILN_COMPLEX128 : level == 2 ? KILN_FLOAT64 : KILN_INT64;
    else
      types[j].weak_level = level;
  }
  int chosen = choose(u, types);
  if (chosen >= 0 && u->int_scalar_by_value) {
    int again = 0;
    for (int j = 0; j < u->nin; j++) {
      if (types[j].weak_level != 1 || weak_int_fits(&inputs[j], u->sigs[chosen].dtypes[j]))
        continue;
      types[j].dtype = KILN_INT64;
      types[j].weak_level = 0;
      again = 1;
    }
    if (again) chosen = choose(u, types);
  }
  if (chosen < 0) return no_match(u, inputs);
  const kiln_ufunc_sig *sig = &u->sigs[chosen];
  plan->signature = chosen;

  for (int k = 0; k < u->nout; k++) {
    const kiln_operand *o = &outputs[k];
    if (o->kind == KILN_OPERAND_NEW) continue;
    kiln_dtype have = operand_dtype(o), want = sig->dtypes[u->nin + k];
    if (!kiln_ufunc_can_cast_same_kind(want, have))
      return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                            "ufunc '%s': output %d is %s, but signature \"%s\" gives %s, "
                            "which casts to it only unsafely (same_kind casting)",
                            u->name, k, kiln_dtype_name(have), sig->text,
                            kiln_dtype_name(want));
  }

  plan->nscalars = 0;
  for (int j = 0; j < u->nin; j++) {
    const kiln_operand *o = &inputs[j];
    if (o->kind != KILN_OPERAND_SCALAR && o->kind != KILN_OPERAND_WEAK_SCALAR) continue;
    if (plan->nscalars == KILN_EW_MAX_SCALARS)
      return kiln_error_set(KILN_ERROR_INVALID_ARGUMENT,
                            "ufunc '%s': more than %d scalar inputs in one call", u->name,
                            KILN_EW_MAX_SCALARS);
    int s = plan->nscalars++;
    kiln_ufunc_operand_plan *op = &plan->operands[j];
    op->where = KILN_UFUNC_BY_VALUE;
    op->dtype = sig->dtypes[j];
    op->scalar = s;
    plan->scalar_dtypes[s] = sig->dtypes[j];
    KILN_RETURN_IF_ERROR(kiln_ufunc_convert_scalar(u, j, o, sig->dtypes[j], plan->scalars[s]));
  }
  return KILN_OK;
}
