/* tests/test_nvrtc_compile_smoke.c: the CUDA backend's compile_for_target
 * (NVRTC only, no driver) for sm_80 and sm_90 with a small plain CUDA C++
 * kernel, its compile errors and the targets it refuses. Skipped when no
 * NVRTC can be loaded. */
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

static const char *const targets[] = {"sm_80", "sm_90", "compute_90", NULL};
static const char *const bad_targets[] = {"gfx90a", "sm_", "sm_9x", "sm_10", "compute_",
                                          "SM_80", "sm_80 ", "", NULL};

static const compile_smoke smoke = {&kiln_backend_cuda, "NVRTC", source, syntax_error,
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
