/* tests/test_hiprtc_compile_smoke.c: the HIP backend's compile_for_target
 * (hiprtc only, no GPU) for gfx90a and gfx1030 with a small plain HIP
 * kernel, its compile errors, and the targets it must refuse without
 * handing them to hiprtc (Debian's ROCm 5.2 hiprtc aborts the process on
 * gfx1100 and gfx942: reaching the end of this test shows kiln did not).
 * Skipped when no hiprtc can be loaded. */
#include "gpu_compile_smoke.h"

static const char source[] =
    "extern \"C\" __global__ void saxpy(float *y, const float *x, float a, long long n) {\n"
    "  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n) y[i] = a * x[i] + y[i] * SCALE;\n"
    "}\n"
    "extern \"C\" __global__ void block_norm(double *out, const double *in) {\n"
    "  extern __shared__ double partial[];\n"
    "  partial[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x];\n"
    "  __syncthreads();\n"
    "  if (threadIdx.x == 0) {\n"
    "    double sum = 0;\n"
    "    for (unsigned i = 0; i < blockDim.x; i++) sum += partial[i] * partial[i];\n"
    "    out[blockIdx.x] = sqrt(sum);\n"
    "  }\n"
    "}\n";

static const char syntax_error[] =
    "extern \"C\" __global__ void broken(float *y) {\n"
    "  y[0] = 1.0f +;\n"
    "}\n";

static const char *const targets[] = {"gfx90a", "gfx1030", NULL};
static const char *const bad_targets[] = {"gfx1100", "gfx942", "gfx90a:xnack+", "gfx",
                                          "sm_80", "GFX90A", "gfx90a ", "", NULL};

static const compile_smoke smoke = {&kiln_backend_hip, "hiprtc", source, syntax_error,
                                    targets, bad_targets};

static void test_targets(kiln_context *ctx) {
  (void)ctx;
  compile_smoke_targets(&smoke);
}

static void test_errors(kiln_context *ctx) {
  (void)ctx;
  compile_smoke_errors(&smoke);
}

static const harness_test tests[] = {
    {"targets", test_targets},
    {"errors", test_errors},
    {0},
};

int main(int argc, char **argv) { return harness_main_no_context(argc, argv, tests); }
