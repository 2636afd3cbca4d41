# The differential test against NumPy (tests/numpy_diff/, docs/ufuncs.md):
# kiln_ufunc_driver runs built-in ufuncs over operands described on stdin;
# diff.py generates random cases, runs them through NumPy 2.x (in a venv
# made by ci/numpy-venv.sh) and the driver, and compares. Registered once per
# backend as numpy_diff.<backend>; skipped (77, with the reason) when the
# venv cannot be made or the backend has no device.
add_executable(kiln_ufunc_driver numpy_diff/kiln_ufunc_driver.c)
target_link_libraries(kiln_ufunc_driver PRIVATE kiln)
target_compile_options(kiln_ufunc_driver PRIVATE ${KILN_WARNINGS})
target_compile_definitions(kiln_ufunc_driver PRIVATE _GNU_SOURCE)
set(KILN_NUMPY_DIFF_CASES 3000 CACHE STRING "cases of the numpy_diff test")
foreach(b ${KILN_TEST_BACKENDS})
  add_test(NAME numpy_diff.${b}
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/numpy_diff/run.sh
            $<TARGET_FILE:kiln_ufunc_driver> --cases ${KILN_NUMPY_DIFF_CASES})
  set_tests_properties(numpy_diff.${b} PROPERTIES SKIP_RETURN_CODE 77
    LABELS "backend=${b};numpy_diff" ENVIRONMENT "KILN_BACKEND=${b}"
    RESOURCE_LOCK numpy_venv TIMEOUT 900 COST 1000) # the longest: start it first
endforeach()
