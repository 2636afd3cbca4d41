# The OpenCL backend driven directly through its ops table, without core
# (owned by the OpenCL backend). Runs on PoCL, or on the platform that
# KILN_OPENCL_PLATFORM names; skipped when there is none unless
# KILN_TEST_REQUIRE names opencl.
kiln_conformance_test(opencl_backend SOURCES test_opencl_backend.c INTERNAL NO_BACKEND
                      LABELS backend=opencl)

# Environments the ICD loader reads once per process: one test each, running
# only the env_* case of the same program that needs it.
set(KILN_OPENCL_EMPTY_VENDORS_DIR ${CMAKE_CURRENT_BINARY_DIR}/opencl_empty_vendors)
file(MAKE_DIRECTORY ${KILN_OPENCL_EMPTY_VENDORS_DIR})
function(kiln_opencl_environment_test name case env)
  add_test(NAME opencl_backend.${name} COMMAND test_opencl_backend ${case})
  set_tests_properties(opencl_backend.${name} PROPERTIES SKIP_RETURN_CODE 77
    LABELS "backend=opencl" ENVIRONMENT "${env}")
endfunction()
kiln_opencl_environment_test(no_vendor_driver env_no_vendor_driver
  "OCL_ICD_VENDORS=${KILN_OPENCL_EMPTY_VENDORS_DIR};OCL_ICD_FILENAMES=")
kiln_opencl_environment_test(library_override_fallback env_library_override_fallback
  "KILN_OPENCL_PATH=${CMAKE_CURRENT_BINARY_DIR}/nonexistent/libOpenCL.so.1")
kiln_opencl_environment_test(library_without_symbols env_library_without_symbols
  "KILN_OPENCL_PATH=libm.so.6")
# A bad KILN_OPENCL_LANE_SHUFFLE (NVIDIA's warp shuffle switch) fails the open.
kiln_opencl_environment_test(lane_shuffle_bad_value env_lane_shuffle_bad_value
  "KILN_OPENCL_LANE_SHUFFLE=maybe")
