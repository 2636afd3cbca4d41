/* core/random/random_host.c: the host generator. It runs the kernel
 * language's kiln_draw_* functions compiled for the host (core/kernel/
 * host_dialect.h), so its values are the kernels' bit for bit. */
#include "core/kernel/host_dialect.h"
#include "core/random/random_internal.h"

/* Stores value k of one block, as the fill kernels' casts do. */
static void store_float(kiln_dtype dtype, void *out, int64_t index, double value) {
  switch (dtype) {
  case KILN_FLOAT16: ((uint16_t *)out)[index] = kiln_float_to_half((float)value).bits; break;
  case KILN_FLOAT32: ((float *)out)[index] = (float)value; break;
  default: ((double *)out)[index] = value; break;
  }
}

static void store_integer(kiln_dtype dtype, void *out, int64_t index, uint64_t value) {
  int64_t v = (int64_t)value; /* two's complement, as the kernels' casts */
  switch (dtype) {
  case KILN_BOOL: ((uint8_t *)out)[index] = value != 0; break;
  case KILN_INT8: ((int8_t *)out)[index] = (int8_t)v; break;
  case KILN_UINT8: ((uint8_t *)out)[index] = (uint8_t)value; break;
  case KILN_INT16: ((int16_t *)out)[index] = (int16_t)v; break;
  case KILN_UINT16: ((uint16_t *)out)[index] = (uint16_t)value; break;
  case KILN_INT32: ((int32_t *)out)[index] = (int32_t)v; break;
  case KILN_UINT32: ((uint32_t *)out)[index] = (uint32_t)value; break;
  case KILN_INT64: ((int64_t *)out)[index] = v; break;
  case KILN_UINT64: ((uint64_t *)out)[index] = value; break;
  case KILN_FLOAT16: ((uint16_t *)out)[index] = kiln_float_to_half((float)value).bits; break;
  case KILN_FLOAT32: ((float *)out)[index] = (float)value; break;
  case KILN_FLOAT64: ((double *)out)[index] = (double)value; break;
  default: break; /* refused before drawing */
  }
}

void kiln_random_fill_host(const kiln_random_draw *d, int64_t n, void *out) {
  int per_block = kiln_random_values_per_block(d);
  for (int64_t first = 0; first < n; first += per_block) {
    uint64_t block = d->position + (uint64_t)(first / per_block);
    double values[4];
    uint64_t words[4];
    int integral = d->kind == KILN_RANDOM_INTEGERS || d->kind == KILN_RANDOM_BERNOULLI;
    if (d->kind == KILN_RANDOM_INTEGERS) {
      kiln_random_u64x4 r = kiln_draw_integers(d->seed, d->stream, block, d->low, d->range, d->wide);
      for (int k = 0; k < 4; k++) words[k] = r.v[k];
    } else if (d->kind == KILN_RANDOM_BERNOULLI) {
      kiln_random_u64x4 r = kiln_draw_bernoulli(d->seed, d->stream, block, d->range);
      for (int k = 0; k < 4; k++) words[k] = r.v[k];
    } else if (d->dtype == KILN_FLOAT64) {
      kiln_random_f64x2 r = kiln_draw_f64((int)d->kind, d->seed, d->stream, block, d->a, d->b);
      values[0] = r.v[0];
      values[1] = r.v[1];
    } else {
      kiln_random_f32x4 r =
          d->dtype == KILN_FLOAT16
              ? kiln_draw_f16((int)d->kind, d->seed, d->stream, block, (float)d->a, (float)d->b)
              : kiln_draw_f32((int)d->kind, d->seed, d->stream, block, (float)d->a, (float)d->b);
      for (int k = 0; k < 4; k++) values[k] = r.v[k];
    }
    for (int k = 0; k < per_block && first + k < n; k++) {
      if (integral) store_integer(d->dtype, out, first + k, words[k]);
      else store_float(d->dtype, out, first + k, values[k]);
    }
  }
}
