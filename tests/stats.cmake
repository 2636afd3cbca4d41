# mean / var / std, norm, isclose / allclose, arange / linspace, item
# (kiln/stats.h, kiln/creation.h; docs/statistics.md).
kiln_conformance_test(stats SOURCES test_stats.c)

# The same calls against NumPy 2 itself (tests/stats_numpy.py), per backend:
# stats_numpy.<backend>, run through tests/search_run.sh, which finds a
# Python with NumPy 2 (.venv-numpy or KILN_NUMPY_VENV); without one the
# test prints why and is skipped.
add_executable(test_stats_numpy test_stats_numpy.c)
target_link_libraries(test_stats_numpy PRIVATE kiln_harness m)
target_compile_options(test_stats_numpy PRIVATE ${KILN_WARNINGS})
target_include_directories(test_stats_numpy PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
target_compile_definitions(test_stats_numpy PRIVATE _GNU_SOURCE
  KILN_TESTS_DIR="${CMAKE_CURRENT_SOURCE_DIR}")
foreach(b ${KILN_TEST_BACKENDS})
  add_test(NAME stats_numpy.${b}
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/search_run.sh $<TARGET_FILE:test_stats_numpy>)
  set_tests_properties(stats_numpy.${b} PROPERTIES SKIP_RETURN_CODE 77
    LABELS "backend=${b}" ENVIRONMENT "KILN_BACKEND=${b}" RESOURCE_LOCK numpy_venv)
endforeach()
