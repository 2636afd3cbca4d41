/* tests/test_gpu_fft_library.c: loading the CUDA and HIP backends' FFT
 * libraries (cuFFT, hipFFT) with no device needed: either the library loads
 * and describes itself (name, version, the file), or the answer is
 * UNAVAILABLE naming each file tried; a bad override path is reported.
 * The transforms themselves run in fft_numpy.cuda on a GPU machine. */
#include "backends/cuda/cuda_backend.h"
#include "backends/hip/hip_backend.h"
#include "harness.h"

static void check_library(const gpu_fft *fft, const char *library, const char *file) {
  char text[1024];
  kiln_status status = fft->load(text, sizeof text);
  if (status == KILN_OK) {
    printf("  %s\n", text);
    CHECK_MSG(strstr(text, library) && strstr(text, file), "load text: %s", text);
  } else {
    printf("  %s not here: %s\n", library, text);
    CHECK_STATUS(status, KILN_ERROR_UNAVAILABLE);
    CHECK_MSG(strstr(text, file) != NULL, "the message names %s: %s", file, text);
  }
  /* the outcome is kept: a second call says the same */
  char again[1024];
  CHECK(fft->load(again, sizeof again) == status);
  CHECK(strcmp(text, again) == 0);
  CHECK(fft->load(NULL, 0) == status);
}

static void test_cufft(kiln_context *ctx) {
  (void)ctx;
  check_library(&kiln_cuda_fft, "cuFFT", "libcufft.so.");
}

static void test_hipfft(kiln_context *ctx) {
  (void)ctx;
  check_library(&kiln_hip_fft, "hipFFT", "libhipfft.so.0");
}

static const harness_test tests[] = {{"cufft", test_cufft}, {"hipfft", test_hipfft}, {0}};

int main(int argc, char **argv) { return harness_main_no_context(argc, argv, tests); }
