# Conformance tests of core: arrays, raw kernels, contexts, no driver.
kiln_conformance_test(array SOURCES test_array.c)
kiln_conformance_test(kernel SOURCES test_kernel.c)
kiln_conformance_test(context SOURCES test_context.c)
# With an empty vendor directory the ICD loader finds no OpenCL platform:
# kiln must fail with a clear message and not crash.
file(MAKE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/no-icd-vendors)
kiln_conformance_test(no_driver SOURCES test_no_driver.c NO_BACKEND
  ENV "OCL_ICD_VENDORS=${CMAKE_CURRENT_BINARY_DIR}/no-icd-vendors;OCL_ICD_FILENAMES=")
kiln_conformance_test(random_host SOURCES test_random_host.c NO_BACKEND)
kiln_conformance_test(float16_host SOURCES test_float16_host.c NO_BACKEND)
kiln_conformance_test(float16 SOURCES test_float16.c)
kiln_conformance_test(complex SOURCES test_complex.c)
# Every kernel of the suite and every built-in kernel, compiled for GPU
# targets this machine lacks (skipped with the reason when the compiler
# library is absent).
kiln_conformance_test(nvrtc_compile SOURCES test_compile_check.c INTERNAL NO_BACKEND
  LABELS compile-check ENV "KILN_CHECK_BACKEND=cuda;KILN_CHECK_TARGETS=sm_80,sm_90")
kiln_conformance_test(hiprtc_compile SOURCES test_compile_check.c INTERNAL NO_BACKEND
  LABELS compile-check ENV "KILN_CHECK_BACKEND=hip;KILN_CHECK_TARGETS=gfx90a,gfx1030")
set_tests_properties(nvrtc_compile hiprtc_compile PROPERTIES COST 500) # long: start them early
# The shared library loads vendor libraries itself: no DT_NEEDED on them.
add_test(NAME no_vendor_link COMMAND ${CMAKE_COMMAND} -DLIBRARY=$<TARGET_FILE:kiln>
         -P ${CMAKE_CURRENT_SOURCE_DIR}/install/check_no_vendor_needed.cmake)
# cmake --install, then find_package(kiln) and pkg-config consumers.
# (A sanitized kiln needs its consumers built with the same compiler and
# sanitizer flags.)
set(KILN_CONSUMER_FLAGS "")
if(KILN_SANITIZE)
  set(KILN_CONSUMER_FLAGS "-fsanitize=address,undefined")
endif()
add_test(NAME install_consumer COMMAND ${CMAKE_COMMAND} -DBUILD=${PROJECT_BINARY_DIR}
         -DCOMPILER=${CMAKE_C_COMPILER} "-DFLAGS=${KILN_CONSUMER_FLAGS}"
         -DSOURCE=${CMAKE_CURRENT_SOURCE_DIR}/install/consumer
         -DWORK=${CMAKE_CURRENT_BINARY_DIR}/install-check
         -P ${CMAKE_CURRENT_SOURCE_DIR}/install/check_install.cmake)

# Several threads sharing one context (also run under ThreadSanitizer by
# ci/tsan.sh).
kiln_conformance_test(threads_stress SOURCES test_threads_stress.c)
