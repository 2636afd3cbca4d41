# Conformance tests of searching, counting and indexing (docs/searching.md,
# docs/indexing.md): test_search (searchsorted, bincount, histogram) and
# test_indexing (take, put, along-axis, boolean masks), per backend. They
# compare with plain C references, and with NumPy itself where
# ci/numpy-venv.sh gives a Python with NumPy 2 (tests/search_run.sh puts it
# in KILN_TEST_NUMPY; without one those comparisons print SKIPPED).
foreach(area search indexing search_paths)
  add_executable(test_${area} test_${area}.c)
  target_link_libraries(test_${area} PRIVATE kiln_harness m)
  target_compile_options(test_${area} PRIVATE ${KILN_WARNINGS})
  target_include_directories(test_${area} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
  target_compile_definitions(test_${area} PRIVATE _GNU_SOURCE
    KILN_TESTS_DIR="${CMAKE_CURRENT_SOURCE_DIR}")
  foreach(b ${KILN_TEST_BACKENDS})
    add_test(NAME ${area}.${b}
      COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/search_run.sh $<TARGET_FILE:test_${area}>)
    set_tests_properties(${area}.${b} PROPERTIES SKIP_RETURN_CODE 77
      LABELS "backend=${b}" ENVIRONMENT "KILN_BACKEND=${b}" RESOURCE_LOCK numpy_venv)
  endforeach()
endforeach()

# The example of the tour (examples/search_histogram.c), per backend.
if(TARGET search_histogram)
  foreach(b ${KILN_TEST_BACKENDS})
    add_test(NAME example.search_histogram.${b} COMMAND search_histogram 100003)
    set_tests_properties(example.search_histogram.${b} PROPERTIES
      LABELS "backend=${b};example" ENVIRONMENT "KILN_BACKEND=${b}"
      SKIP_REGULAR_EXPRESSION "example_open.*KILN_ERROR_UNAVAILABLE")
  endforeach()
endif()

# Every variant of search.kl, count.kl and move.kl built by the device's
# own compiler (tests/test_indexing_build.c), per backend.
kiln_conformance_test(indexing_build SOURCES test_indexing_build.c INTERNAL)
# put's claim in many chunks (tests/test_put_chunks.c, kiln_ix_force_put_chunk).
kiln_conformance_test(put_chunks SOURCES test_put_chunks.c INTERNAL)
