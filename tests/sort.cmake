# Conformance tests of sorting (docs/sorting.md): sort, argsort, by key,
# segmented and the internal pairs entry against a C reference (qsort with
# the index as tie-break: the stable order), per backend.
kiln_conformance_test(sort SOURCES test_sort.c INTERNAL)
# test "numpy" runs tests/sort_numpy.py with .venv-numpy's python (skipped
# with the reason when there is none)
target_compile_definitions(test_sort PRIVATE _GNU_SOURCE
                           KILN_SOURCE_DIR="${PROJECT_SOURCE_DIR}")

# The sorting example of the tour, run on each backend at a modest size.
if(TARGET sort_histogram)
  foreach(b ${KILN_TEST_BACKENDS})
    add_test(NAME example.sort_histogram.${b} COMMAND sort_histogram 100003)
    set_tests_properties(example.sort_histogram.${b} PROPERTIES
      LABELS "backend=${b};example" ENVIRONMENT "KILN_BACKEND=${b}"
      SKIP_REGULAR_EXPRESSION "example_open.*KILN_ERROR_UNAVAILABLE")
  endforeach()
endif()
