# Tests of the CUDA and HIP backends (owned by backends/gpu, cuda and hip).
# They drive the ops tables directly (INTERNAL), once each (NO_BACKEND):
# what needs a driver, a device or a compiler skips with the reason where
# that is missing, so all of them run here and on a GPU machine alike.

# The shared layer over a mock runtime: needs nothing.
kiln_conformance_test(gpu_shared_layer SOURCES test_gpu_shared_layer.c
                      INTERNAL NO_BACKEND LABELS backend=gpu)

# Without libcuda.so.1 / without an AMD GPU: the no-driver answers.
kiln_conformance_test(cuda_no_driver SOURCES test_gpu_unavailable.c
                      INTERNAL NO_BACKEND LABELS backend=cuda
                      ENV KILN_UNAVAILABLE_BACKEND=cuda)
kiln_conformance_test(hip_no_device SOURCES test_gpu_unavailable.c
                      INTERNAL NO_BACKEND LABELS backend=hip
                      ENV KILN_UNAVAILABLE_BACKEND=hip)

# compile_for_target with only the compiler library.
kiln_conformance_test(nvrtc_compile_smoke SOURCES test_gpu_compile_smoke.c
                      INTERNAL NO_BACKEND LABELS backend=cuda
                      ENV "KILN_SMOKE_BACKEND=cuda;KILN_SMOKE_TARGETS=sm_80,sm_90,compute_90")
kiln_conformance_test(hiprtc_compile_smoke SOURCES test_gpu_compile_smoke.c
                      INTERNAL NO_BACKEND LABELS backend=hip
                      ENV "KILN_SMOKE_BACKEND=hip;KILN_SMOKE_TARGETS=gfx90a,gfx1030")

# Everything on a real device, for each of cuda and hip.
kiln_conformance_test(gpu_backend_runtime SOURCES test_gpu_backend_runtime.c
                      INTERNAL NO_BACKEND LABELS "backend=cuda;backend=hip;requires-gpu")
