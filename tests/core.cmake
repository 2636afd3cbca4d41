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
