#line 2 "backends/opencl/prelude.cl"
/* kiln kernel-language prelude, OpenCL C 1.2 dialect.
 *
 * Maps the kernel language's names (docs/kernel-language.md) onto OpenCL C.
 * Core prepends it to every kernel, before kernels/prelude_common.kl. Only
 * kiln_/KILN_ names, the fixed-width integer types and the -f math
 * spellings may be defined here. */
#define KILN_DIALECT_OPENCL 1

/* Reductions define KILN_STRICT_FP: no contraction of a*b+c into an FMA,
 * so their bits do not depend on the compiler. */
#ifdef KILN_STRICT_FP
#pragma OPENCL FP_CONTRACT OFF
#endif

#ifdef cl_khr_fp64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#define KILN_HAS_DOUBLE 1
#endif

/* ---- types ---------------------------------------------------------------- */
typedef char int8_t;
typedef uchar uint8_t;
typedef short int16_t;
typedef ushort uint16_t;
typedef int int32_t;
typedef uint uint32_t;
typedef long int64_t;
typedef ulong uint64_t;
typedef uint8_t kiln_bool;
typedef int64_t kiln_index;

/* 16-byte vectors of the 4- and 8-byte dtypes, for kiln_vload (components
 * .x .y .z .w); named after the dtype as OpenCL and CUDA/HIP name the
 * 64-bit integer ones differently */
typedef float4 kiln_float32x4;
typedef int4 kiln_int32x4;
typedef uint4 kiln_uint32x4;
typedef long2 kiln_int64x2;
typedef ulong2 kiln_uint64x2;
#ifdef KILN_HAS_DOUBLE
typedef double2 kiln_float64x2;
#endif

/* ---- qualifiers ----------------------------------------------------------- */
#define KILN_KERNEL __kernel
/* after KILN_KERNEL: CUDA's register bound; OpenCL has none to give */
#define KILN_GROUP_BOUNDS(threads, groups)
/* after KILN_KERNEL: the work-group size the kernel is always launched
 * with. Telling OpenCL's compiler lets it size registers for `threads`
 * work-items instead of the device's largest work-group: NVIDIA's OpenCL
 * radix sort of 1e8 uint32 took 3.86 ms with it against 5.61 without
 * (CUDA 3.23; H200, docs/sorting.md). A launch of another size is
 * CL_INVALID_WORK_GROUP_SIZE, and the compiler may then take registers
 * that no longer fit a larger group (NVIDIA's did for the FFT's fused
 * pass of 512 work-items, which then ran at most 256): only kernels
 * whose one size is small enough say it. */
#define KILN_GROUP_SIZE_EXACT(threads) __attribute__((reqd_work_group_size(threads, 1, 1)))
#define KILN_DEVICE static inline
#define KILN_GLOBAL __global
#define KILN_LOCAL __local
/* file-scope read-only tables: KILN_CONSTANT const float t[] = {...}; */
#define KILN_CONSTANT __constant
#define KILN_LOCAL_ARRAY(type, name, count) __local type name[count] __attribute__((aligned(16)))
#define KILN_LOCAL_PARAM(type) __local type *

/* ---- work-item indexing --------------------------------------------------- */
KILN_DEVICE int64_t kiln_global_id(int d) { return (int64_t)get_global_id((uint)d); }
KILN_DEVICE int64_t kiln_local_id(int d) { return (int64_t)get_local_id((uint)d); }
KILN_DEVICE int64_t kiln_group_id(int d) { return (int64_t)get_group_id((uint)d); }
KILN_DEVICE int64_t kiln_local_size(int d) { return (int64_t)get_local_size((uint)d); }
KILN_DEVICE int64_t kiln_global_size(int d) { return (int64_t)get_global_size((uint)d); }
KILN_DEVICE int64_t kiln_num_groups(int d) { return (int64_t)get_num_groups((uint)d); }

/* the number of set bits of a uint32_t */
#define kiln_popcount_u32(x) ((uint)popcount((uint)(x)))
#define kiln_barrier() barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE)
#define kiln_barrier32() barrier(CLK_LOCAL_MEM_FENCE)
#define kiln_fence() mem_fence(CLK_GLOBAL_MEM_FENCE)
/* A flag word one work-group publishes and others poll (look-backs):
 * volatile accesses; OpenCL 1.2 does not say when another work-group sees
 * them, so KILN_DEVICE_SCOPE_ORDER (they are seen at device scope) is
 * defined only where the backend knows better (NVIDIA's PTX, below). */
KILN_DEVICE uint32_t kiln_flag_load(volatile __global uint32_t *p) { return *p; }
KILN_DEVICE void kiln_flag_store(volatile __global uint32_t *p, uint32_t v) { *p = v; }
/* a 64-bit status word (a look-back's flag and value in one, or an 8-byte
 * value behind its flag): the same, PTX on NVIDIA's (below) */
KILN_DEVICE uint64_t kiln_word_load64(volatile __global uint64_t *p) { return *p; }
KILN_DEVICE void kiln_word_store64(volatile __global uint64_t *p, uint64_t v) { *p = v; }

/* A value of the work-item d places later in the warp (docs/kernel-
 * language.md): OpenCL 1.2 has no warp shuffle, but NVIDIA's OpenCL
 * compiler takes inline PTX, and its 1-D work-groups are cut into warps of
 * 32 consecutive work-items as CUDA's blocks are. The backend defines
 * KILN_OPENCL_PTX_SHUFFLE on NVIDIA's platform only (opencl_program.c);
 * the reductions' lane tree then runs on registers in the order of the
 * local-memory tree (the same bits). Values move as 32-bit words (the
 * "r" constraint), 8-byte ones as two; volatile keeps the shuffles where
 * every work-item of the warp runs them. */
#ifdef KILN_OPENCL_PTX_SHUFFLE
#define KILN_LANE_SHUFFLE 1
KILN_DEVICE uint kiln_lane_shuffle_word(uint v, uint d) {
  uint r;
  asm volatile("shfl.sync.down.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=r"(r) : "r"(v), "r"(d));
  return r;
}
#define KILN_LANE_SHUFFLE_32(T, as_T)                                               \
  KILN_DEVICE T __attribute__((overloadable)) kiln_lane_shuffle_down(T v, uint d) { \
    return as_T(kiln_lane_shuffle_word(as_uint(v), d));                            \
  }
#define KILN_LANE_SHUFFLE_64(T, as_T)                                               \
  KILN_DEVICE T __attribute__((overloadable)) kiln_lane_shuffle_down(T v, uint d) { \
    uint2 w = as_uint2(v);                                                          \
    w.x = kiln_lane_shuffle_word(w.x, d);                                           \
    w.y = kiln_lane_shuffle_word(w.y, d);                                           \
    return as_T(w);                                                                 \
  }
KILN_LANE_SHUFFLE_32(int, as_int)
KILN_LANE_SHUFFLE_32(uint, as_uint)
KILN_LANE_SHUFFLE_32(float, as_float)
KILN_LANE_SHUFFLE_64(long, as_long)
KILN_LANE_SHUFFLE_64(ulong, as_ulong)
#ifdef KILN_HAS_DOUBLE
KILN_LANE_SHUFFLE_64(double, as_double)
#endif
/* bit j set when work-item j of the warp passes a nonzero pred (all 32
 * call it), through PTX's vote as CUDA's __ballot_sync */
#define KILN_LANE_BALLOT 1
KILN_DEVICE uint kiln_lane_ballot(int pred) {
  uint r;
  asm volatile("{ .reg .pred p; setp.ne.s32 p, %1, 0; vote.sync.ballot.b32 %0, p, 0xffffffff; }"
               : "=r"(r) : "r"(pred));
  return r;
}
/* Device-scope ordering through PTX, as CUDA's: OpenCL 1.2's mem_fence
 * orders one work-item's accesses only (NVIDIA's compiles it to a
 * work-group fence), so kiln_fence is PTX's device-scope membar.gl
 * (__threadfence), and flag words are loaded and stored by ld/st.volatile,
 * which bypass the incoherent L1 (a look-back then sees what another
 * work-group published). kiln_barrier32 is the warp's barrier
 * (__syncwarp: bar.warp.sync orders the warp's memory accesses too) where
 * OpenCL has only the whole work-group's. The backend says so to core
 * (kiln_backend_ops.device_scope_order) while these builds get the PTX. */
#define KILN_DEVICE_SCOPE_ORDER 1
#undef kiln_fence
#define kiln_fence() asm volatile("membar.gl;" ::: "memory")
#undef kiln_barrier32
#define kiln_barrier32() asm volatile("bar.warp.sync 0xffffffff;" ::: "memory")
#define kiln_flag_load kiln_flag_load_ptx
#define kiln_flag_store kiln_flag_store_ptx
#define kiln_word_load64 kiln_word_load64_ptx
#define kiln_word_store64 kiln_word_store64_ptx
KILN_DEVICE uint32_t kiln_flag_load_ptx(volatile __global uint32_t *p) {
  uint r;
  asm volatile("ld.volatile.global.u32 %0, [%1];" : "=r"(r) : "l"((ulong)p) : "memory");
  return r;
}
KILN_DEVICE void kiln_flag_store_ptx(volatile __global uint32_t *p, uint32_t v) {
  asm volatile("st.volatile.global.u32 [%0], %1;" : : "l"((ulong)p), "r"(v) : "memory");
}
KILN_DEVICE uint64_t kiln_word_load64_ptx(volatile __global uint64_t *p) {
  ulong r;
  asm volatile("ld.volatile.global.u64 %0, [%1];" : "=l"(r) : "l"((ulong)p) : "memory");
  return r;
}
KILN_DEVICE void kiln_word_store64_ptx(volatile __global uint64_t *p, uint64_t v) {
  asm volatile("st.volatile.global.u64 [%0], %1;" : : "l"((ulong)p), "l"(v) : "memory");
}
/* the 128-byte line at p fetched into L2 ahead of its reads (as CUDA's) */
#define KILN_PREFETCH_L2 1
KILN_DEVICE void kiln_prefetch_l2(const __global void *p) {
  asm volatile("prefetch.global.L2 [%0];" : : "l"((ulong)p));
}
#endif

/* a product not fused into a multiply-add when it is its own expression:
 * OpenCL C contracts only within one (complex multiplication: NumPy's
 * infinities and NaNs) */
#define kiln_mul_rn(a, b) ((a) * (b))

/* ---- atomics (return the old value) --------------------------------------- */
KILN_DEVICE int32_t kiln_atomic_add_i32(volatile __global int32_t *p, int32_t v) {
  return atomic_add(p, v);
}
KILN_DEVICE uint32_t kiln_atomic_add_u32(volatile __global uint32_t *p, uint32_t v) {
  return atomic_add(p, v);
}
KILN_DEVICE int32_t kiln_atomic_add_local_i32(volatile __local int32_t *p, int32_t v) {
  return atomic_add(p, v);
}
KILN_DEVICE uint32_t kiln_atomic_add_local_u32(volatile __local uint32_t *p, uint32_t v) {
  return atomic_add(p, v);
}
/* the larger of *p and v into *p (put's last-wins claim, kernels/builtin/move.kl):
 * OpenCL 1.1 core for 32 bits, where 64-bit atom_max needs an extension */
KILN_DEVICE int32_t kiln_atomic_max_i32(volatile __global int32_t *p, int32_t v) {
  return atomic_max(p, v);
}
/* 64-bit (put's claim of a position and a value packed in one word): the
 * extension's atom_max, else a compare-and-swap loop over the base 64-bit
 * atomics; neither: KILN_HAS_ATOMIC_MAX_U64 stays undefined */
#if defined(cl_khr_int64_extended_atomics)
#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable
#define KILN_HAS_ATOMIC_MAX_U64 1
KILN_DEVICE uint64_t kiln_atomic_max_u64(volatile __global uint64_t *p, uint64_t v) {
  return atom_max(p, v);
}
#elif defined(cl_khr_int64_base_atomics)
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#define KILN_HAS_ATOMIC_MAX_U64 1
KILN_DEVICE uint64_t kiln_atomic_max_u64(volatile __global uint64_t *p, uint64_t v) {
  uint64_t old = *p;
  while (old < v) {
    uint64_t seen = atom_cmpxchg(p, old, v);
    if (seen == old) break;
    old = seen;
  }
  return old;
}
#endif

/* OpenCL 1.2 has no float atomics: compare-and-swap on the bits until no
 * other work-item changed the value in between. One definition for each
 * address space and width. */
#define KILN_CAS_ADD(name, space, T, U, cmpxchg, as_T, as_U)          \
  KILN_DEVICE T name(volatile space T *p, T v) {                      \
    volatile space U *bits = (volatile space U *)p;                   \
    U old = *bits, expected;                                          \
    do {                                                              \
      expected = old;                                                 \
      old = cmpxchg(bits, expected, as_U(as_T(expected) + v));        \
    } while (old != expected);                                        \
    return as_T(old);                                                 \
  }
KILN_CAS_ADD(kiln_atomic_add_f32, __global, float, uint32_t, atomic_cmpxchg, as_float, as_uint)
KILN_CAS_ADD(kiln_atomic_add_local_f32, __local, float, uint32_t, atomic_cmpxchg, as_float,
             as_uint)

/* 64-bit atomics only where the device has cl_khr_int64_base_atomics. */
#ifdef cl_khr_int64_base_atomics
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#define KILN_HAS_ATOMIC_INT64 1
KILN_DEVICE uint64_t kiln_atomic_add_u64(volatile __global uint64_t *p, uint64_t v) {
  return atom_add(p, v);
}
KILN_DEVICE int64_t kiln_atomic_add_i64(volatile __global int64_t *p, int64_t v) {
  return atom_add(p, v);
}
KILN_DEVICE uint64_t kiln_atomic_add_local_u64(volatile __local uint64_t *p, uint64_t v) {
  return atom_add(p, v);
}
KILN_DEVICE int64_t kiln_atomic_add_local_i64(volatile __local int64_t *p, int64_t v) {
  return atom_add(p, v);
}
#ifdef KILN_HAS_DOUBLE
KILN_CAS_ADD(kiln_atomic_add_f64, __global, double, uint64_t, atom_cmpxchg, as_double,
             as_ulong)
KILN_CAS_ADD(kiln_atomic_add_local_f64, __local, double, uint64_t, atom_cmpxchg, as_double,
             as_ulong)
#endif
#endif

/* ---- math ------------------------------------------------------------------
 * OpenCL's builtins are already overloaded for float and double under the
 * C names (sqrt, exp, isnan, ...). The C -f spellings become the overloaded
 * builtin on a float argument, as in C. */
/* ---- bits of floats, and float16 conversions ------------------------------
 * vload_half / vstore_half_rte are core OpenCL 1.2 (no cl_khr_fp16): half
 * is usable as a pointer target, so the 16 bits are converted through a
 * private pointer. */
KILN_DEVICE uint32_t kiln_float_as_uint32(float x) { return as_uint(x); }
KILN_DEVICE float kiln_uint32_as_float(uint32_t x) { return as_float(x); }
#ifdef KILN_HAS_DOUBLE
KILN_DEVICE uint64_t kiln_double_as_uint64(double x) { return as_ulong(x); }
KILN_DEVICE double kiln_uint64_as_double(uint64_t x) { return as_double(x); }
#endif
#define KILN_HAS_NATIVE_HALF 1
KILN_DEVICE float kiln_half_bits_to_float(uint16_t h) { return vload_half(0, (const half *)&h); }
KILN_DEVICE uint16_t kiln_float_to_half_bits(float x) {
  uint16_t h;
  vstore_half_rte(x, 0, (half *)&h);
  return h;
}
#ifdef KILN_HAS_DOUBLE
KILN_DEVICE uint16_t kiln_double_to_half_bits(double x) {
  uint16_t h;
  vstore_half_rte(x, 0, (half *)&h);
  return h;
}
#endif

#define KILN_INFINITY INFINITY
#define KILN_NAN NAN

#define sqrtf(x) sqrt((float)(x))
#define rsqrtf(x) rsqrt((float)(x))
#define cbrtf(x) cbrt((float)(x))
#define expf(x) exp((float)(x))
#define exp2f(x) exp2((float)(x))
#define exp10f(x) exp10((float)(x))
#define expm1f(x) expm1((float)(x))
#define logf(x) log((float)(x))
#define log2f(x) log2((float)(x))
#define log10f(x) log10((float)(x))
#define log1pf(x) log1p((float)(x))
#define sinf(x) sin((float)(x))
#define cosf(x) cos((float)(x))
#define tanf(x) tan((float)(x))
#define asinf(x) asin((float)(x))
#define acosf(x) acos((float)(x))
#define atanf(x) atan((float)(x))
#define atan2f(y, x) atan2((float)(y), (float)(x))
#define sinhf(x) sinh((float)(x))
#define coshf(x) cosh((float)(x))
#define tanhf(x) tanh((float)(x))
#define asinhf(x) asinh((float)(x))
#define acoshf(x) acosh((float)(x))
#define atanhf(x) atanh((float)(x))
#define powf(x, y) pow((float)(x), (float)(y))
#define hypotf(x, y) hypot((float)(x), (float)(y))
#define fabsf(x) fabs((float)(x))
#define floorf(x) floor((float)(x))
#define ceilf(x) ceil((float)(x))
#define roundf(x) round((float)(x))
#define truncf(x) trunc((float)(x))
#define fmodf(x, y) fmod((float)(x), (float)(y))
#define fminf(x, y) fmin((float)(x), (float)(y))
#define fmaxf(x, y) fmax((float)(x), (float)(y))
#define fmaf(x, y, z) fma((float)(x), (float)(y), (float)(z))
#define copysignf(x, y) copysign((float)(x), (float)(y))
#define erff(x) erf((float)(x))
#define erfcf(x) erfc((float)(x))
#define tgammaf(x) tgamma((float)(x))
#define lgammaf(x) lgamma((float)(x))
