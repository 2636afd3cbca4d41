# Conformance tests of generalized ufuncs (docs/gufuncs.md): the layout
# parser and generated source (no device), calls on every backend, and the
# gufunc examples of the tour.
kiln_conformance_test(gufunc_layout SOURCES test_gufunc_layout.c INTERNAL NO_BACKEND)
kiln_conformance_test(gufunc SOURCES test_gufunc.c)

foreach(example gufunc_polar gufunc_average gufunc_l2_norm)
  if(NOT TARGET ${example})
    continue()
  endif()
  foreach(b ${KILN_TEST_BACKENDS})
    add_test(NAME gufunc_example.${example}.${b} COMMAND ${example} 10007)
    set_tests_properties(gufunc_example.${example}.${b} PROPERTIES
      LABELS "backend=${b};example" ENVIRONMENT "KILN_BACKEND=${b}"
      SKIP_REGULAR_EXPRESSION "example_open.*KILN_ERROR_UNAVAILABLE")
  endforeach()
endforeach()
