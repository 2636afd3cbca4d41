#line 2 "backends/cuda/prelude.cuh"
/* kiln kernel-language prelude, CUDA C++ dialect (NVRTC).
 *
 * Maps the kernel language's names (docs/kernel-language.md) onto CUDA.
 * Core prepends it to every kernel, before kernels/prelude_common.kl. Only
 * kiln_/KILN_ names, the fixed-width integer types and the -f math
 * spellings may be defined here. NVRTC provides the math functions with
 * float and double overloads and the -f spellings itself. */
#define KILN_DIALECT_CUDA 1
#define KILN_HAS_DOUBLE 1
#define KILN_HAS_ATOMIC_INT64 1

/* ---- types ----------------------------------------------------------------
 * NVRTC defines none of these. The 64-bit ones are long long, as hiprtc and
 * CUDA's own atomics and intrinsics use (C++ accepts a repeated typedef of
 * the same type, should a header define them too). */
typedef signed char int8_t;
typedef unsigned char uint8_t;
typedef short int16_t;
typedef unsigned short uint16_t;
typedef int int32_t;
typedef unsigned int uint32_t;
typedef long long int64_t;
typedef unsigned long long uint64_t;
typedef uint8_t kiln_bool;
typedef int64_t kiln_index;

/* 16-byte vectors of the 4- and 8-byte dtypes, for kiln_vload (components
 * .x .y .z .w); named after the dtype as OpenCL and CUDA/HIP name the
 * 64-bit integer ones differently */
typedef float4 kiln_float32x4;
typedef int4 kiln_int32x4;
typedef uint4 kiln_uint32x4;
typedef longlong2 kiln_int64x2;
typedef ulonglong2 kiln_uint64x2;
typedef double2 kiln_float64x2;

/* ---- qualifiers ----------------------------------------------------------- */
#define KILN_KERNEL extern "C" __global__
/* after KILN_KERNEL: launched with exactly `threads` work-items per group;
 * registers kept low enough for `groups` groups per multiprocessor */
#define KILN_GROUP_BOUNDS(threads, groups) __launch_bounds__(threads, groups)
/* after KILN_KERNEL: always launched with `threads` work-items (OpenCL's
 * register sizing; KILN_GROUP_BOUNDS already says it here) */
#define KILN_GROUP_SIZE_EXACT(threads)
#define KILN_DEVICE static __device__ __forceinline__
#define KILN_GLOBAL
#define KILN_LOCAL
/* file-scope read-only tables: KILN_CONSTANT const float t[] = {...}; */
#define KILN_CONSTANT __constant__
#define KILN_LOCAL_ARRAY(type, name, count) __shared__ __attribute__((aligned(16))) type name[count]

/* Dynamic local memory: the backend packs the LOCAL arguments of a launch
 * into one dynamic shared allocation, each at a 16-byte aligned offset, and
 * passes each parameter that offset (4 bytes, by value). */
extern __shared__ __align__(16) unsigned char kiln_dynamic_local_memory[];

template <typename T>
struct kiln_local_param {
  uint32_t offset;
  __device__ __forceinline__ operator T *() const {
    return reinterpret_cast<T *>(kiln_dynamic_local_memory + offset);
  }
};
#define KILN_LOCAL_PARAM(type) kiln_local_param<type>

/* ---- work-item indexing (64-bit; d outside 0..2 gives 0 for ids and 1 for
 * sizes, as OpenCL does) ---------------------------------------------------- */
KILN_DEVICE int64_t kiln_local_id(int d) {
  return d == 0 ? (int64_t)threadIdx.x
       : d == 1 ? (int64_t)threadIdx.y
       : d == 2 ? (int64_t)threadIdx.z : 0;
}
KILN_DEVICE int64_t kiln_group_id(int d) {
  return d == 0 ? (int64_t)blockIdx.x
       : d == 1 ? (int64_t)blockIdx.y
       : d == 2 ? (int64_t)blockIdx.z : 0;
}
KILN_DEVICE int64_t kiln_local_size(int d) {
  return d == 0 ? (int64_t)blockDim.x
       : d == 1 ? (int64_t)blockDim.y
       : d == 2 ? (int64_t)blockDim.z : 1;
}
KILN_DEVICE int64_t kiln_num_groups(int d) {
  return d == 0 ? (int64_t)gridDim.x
       : d == 1 ? (int64_t)gridDim.y
       : d == 2 ? (int64_t)gridDim.z : 1;
}
KILN_DEVICE int64_t kiln_global_id(int d) {
  return kiln_group_id(d) * kiln_local_size(d) + kiln_local_id(d);
}
KILN_DEVICE int64_t kiln_global_size(int d) {
  return kiln_num_groups(d) * kiln_local_size(d);
}

/* the number of set bits of a uint32_t */
#define kiln_popcount_u32(x) ((uint32_t)__popc(x))
#define kiln_barrier() __syncthreads()
#define kiln_barrier32() __syncwarp()
/* a value of the work-item d places later in the warp (all 32 call it):
 * the reductions' lane tree on registers */
#define KILN_LANE_SHUFFLE 1
#define kiln_lane_shuffle_down(v, d) __shfl_down_sync(0xffffffffu, (v), (d))
/* bit j set when work-item j of the warp (32) passes a nonzero `pred`
 * (all 32 call it): the radix sort's digit match */
#define KILN_LANE_BALLOT 1
#define kiln_lane_ballot(pred) __ballot_sync(0xffffffffu, (pred))
#define kiln_fence() __threadfence()
/* A flag word one work-group publishes and others poll (look-backs):
 * volatile loads and stores go to the device's coherent level, so a value
 * stored is seen by every work-group (docs/kernel-language.md) */
#define KILN_DEVICE_SCOPE_ORDER 1
KILN_DEVICE uint32_t kiln_flag_load(volatile uint32_t *p) { return *p; }
KILN_DEVICE void kiln_flag_store(volatile uint32_t *p, uint32_t v) { *p = v; }
/* a 64-bit status word (a look-back's flag and value in one): the same */
KILN_DEVICE uint64_t kiln_word_load64(volatile uint64_t *p) { return *p; }
KILN_DEVICE void kiln_word_store64(volatile uint64_t *p, uint64_t v) { *p = v; }
/* a hint that the 128-byte line at p is read soon: fetched into L2 with no
 * register waiting for it (the scan's tiles ahead of the running ones) */
#define KILN_PREFETCH_L2 1
KILN_DEVICE void kiln_prefetch_l2(const void *p) { asm volatile("prefetch.global.L2 [%0];" ::"l"(p)); }

/* a product the compiler never fuses into a multiply-add (complex
 * multiplication: NumPy's infinities and NaNs) */
KILN_DEVICE float kiln_mul_rn(float a, float b) { return __fmul_rn(a, b); }
KILN_DEVICE double kiln_mul_rn(double a, double b) { return __dmul_rn(a, b); }

/* the full 64-bit product of two 32-bit words in one IMAD.WIDE.U32
 * (Philox's rounds): NVRTC writes (uint64_t)a * b as a 64-bit multiply, to
 * which ptxas adds a needless add of the zero high words per product */
#define KILN_HAS_MUL_WIDE_U32 1
KILN_DEVICE uint64_t kiln_mul_wide_u32(uint32_t a, uint32_t b) {
  uint64_t r;
  asm("mul.wide.u32 %0, %1, %2;" : "=l"(r) : "r"(a), "r"(b));
  return r;
}

/* sqrtf(x), correctly rounded, for x in [2^-100, FLT_MAX] only (kernels/
 * random.kl's Box-Muller radius): the instructions ptxas emits for
 * sqrt.rn.f32 on that range (MUFU.RSQ, then one Newton step whose last fma
 * rounds correctly), without the range test and the branch to the slow
 * path that 0, subnormals, infinities and NaN take: 5 instructions, not 10 */
#define KILN_HAS_SQRT_RN_NORMAL 1
KILN_DEVICE float kiln_sqrt_rn_normal_f32(float x) {
  float r;
  asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
  float y = __fmul_rn(x, r);
  float h = __fmul_rn(r, 0.5f);
  return __fmaf_rn(__fmaf_rn(-y, y, x), h, y);
}

/* ---- atomics (return the old value); shared memory uses the same
 * instructions through generic pointers --------------------------------- */
KILN_DEVICE int32_t kiln_atomic_add_i32(int32_t *p, int32_t v) { return atomicAdd(p, v); }
KILN_DEVICE uint32_t kiln_atomic_add_u32(uint32_t *p, uint32_t v) { return atomicAdd(p, v); }
KILN_DEVICE float kiln_atomic_add_f32(float *p, float v) { return atomicAdd(p, v); }
KILN_DEVICE uint64_t kiln_atomic_add_u64(uint64_t *p, uint64_t v) { return atomicAdd(p, v); }
KILN_DEVICE int64_t kiln_atomic_add_i64(int64_t *p, int64_t v) {
  return (int64_t)atomicAdd((unsigned long long *)p, (unsigned long long)v);
}
KILN_DEVICE double kiln_atomic_add_f64(double *p, double v) { return atomicAdd(p, v); }
KILN_DEVICE int32_t kiln_atomic_add_local_i32(int32_t *p, int32_t v) { return atomicAdd(p, v); }
KILN_DEVICE uint32_t kiln_atomic_add_local_u32(uint32_t *p, uint32_t v) { return atomicAdd(p, v); }
KILN_DEVICE float kiln_atomic_add_local_f32(float *p, float v) { return atomicAdd(p, v); }
KILN_DEVICE uint64_t kiln_atomic_add_local_u64(uint64_t *p, uint64_t v) {
  return atomicAdd(p, v);
}
KILN_DEVICE int64_t kiln_atomic_add_local_i64(int64_t *p, int64_t v) {
  return (int64_t)atomicAdd((unsigned long long *)p, (unsigned long long)v);
}
KILN_DEVICE double kiln_atomic_add_local_f64(double *p, double v) { return atomicAdd(p, v); }
/* the larger of *p and v into *p (put's last-wins claim, kernels/builtin/move.kl) */
KILN_DEVICE int32_t kiln_atomic_max_i32(int32_t *p, int32_t v) { return atomicMax(p, v); }
/* 64-bit: put's claim of a position and a value packed in one word */
#define KILN_HAS_ATOMIC_MAX_U64 1
KILN_DEVICE uint64_t kiln_atomic_max_u64(uint64_t *p, uint64_t v) {
  return (uint64_t)atomicMax((unsigned long long *)p, (unsigned long long)v);
}

/* ---- math ----------------------------------------------------------------- */
#define KILN_INFINITY __int_as_float(0x7f800000)
#define KILN_NAN __int_as_float(0x7fc00000)
/* hypot: kiln_hypot_float/_double in kernels/prelude_common.kl (glibc's bits) */

/* ---- bits of floats, and float16 conversions ------------------------------
 * PTX's cvt converts to and from f16 on every target NVRTC compiles for,
 * with no header and no extension: the 16 bits live in a .b16 register. */
KILN_DEVICE uint32_t kiln_float_as_uint32(float x) { return __float_as_uint(x); }
KILN_DEVICE float kiln_uint32_as_float(uint32_t x) { return __uint_as_float(x); }
KILN_DEVICE uint64_t kiln_double_as_uint64(double x) {
  return (uint64_t)__double_as_longlong(x);
}
KILN_DEVICE double kiln_uint64_as_double(uint64_t x) { return __longlong_as_double((long long)x); }
#define KILN_HAS_NATIVE_HALF 1
KILN_DEVICE float kiln_half_bits_to_float(uint16_t h) {
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
  return f;
}
KILN_DEVICE uint16_t kiln_float_to_half_bits(float x) {
  uint16_t h;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(x));
  return h;
}
KILN_DEVICE uint16_t kiln_double_to_half_bits(double x) {
  uint16_t h;
  asm("cvt.rn.f16.f64 %0, %1;" : "=h"(h) : "d"(x));
  return h;
}
