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

# Rows staged in local memory (long core dims): forced on and off against a
# host reference with the body's order; and the whole gufunc suite again
# with every row staged (KILN_GUFUNC_STAGE=always), on every backend.
kiln_conformance_test(gufunc_staged SOURCES test_gufunc_staged.c INTERNAL)
foreach(b ${KILN_TEST_BACKENDS})
  add_test(NAME gufunc_all_staged.${b} COMMAND test_gufunc)
  set_tests_properties(gufunc_all_staged.${b} PROPERTIES SKIP_RETURN_CODE 77
    LABELS "backend=${b}" ENVIRONMENT "KILN_BACKEND=${b};KILN_GUFUNC_STAGE=always")
endforeach()
