# Conformance tests of matrix products (docs/linalg.md): kiln_matmul,
# kiln_dot, kiln_vdot against a float64 host reference. Registered per
# backend twice: linalg.<backend> takes the default path (the vendor BLAS
# where the backend loads one, else the portable kernel) and
# linalg_portable.<backend> forces kiln's kernel with KILN_BLAS=portable.
kiln_conformance_test(linalg SOURCES test_linalg.c)
# linalg_bad_setting.<backend>: a bad KILN_BLAS is an error naming it.
foreach(b ${KILN_TEST_BACKENDS})
  add_test(NAME linalg_portable.${b} COMMAND test_linalg)
  set_tests_properties(linalg_portable.${b} PROPERTIES SKIP_RETURN_CODE 77
    LABELS "backend=${b}" ENVIRONMENT "KILN_BACKEND=${b};KILN_BLAS=portable")
  add_test(NAME linalg_bad_setting.${b} COMMAND test_linalg describe)
  set_tests_properties(linalg_bad_setting.${b} PROPERTIES SKIP_RETURN_CODE 77
    LABELS "backend=${b}" ENVIRONMENT "KILN_BACKEND=${b};KILN_BLAS=bogus")
endforeach()

# The tour's matmul example at a smaller size, on both paths.
if(TARGET matmul)
  foreach(b ${KILN_TEST_BACKENDS})
    add_test(NAME example.matmul.${b} COMMAND matmul 200 300 100)
    add_test(NAME example.matmul_portable.${b} COMMAND matmul 200 300 100)
    set_tests_properties(example.matmul.${b} PROPERTIES
      LABELS "backend=${b};example" ENVIRONMENT "KILN_BACKEND=${b}"
      SKIP_REGULAR_EXPRESSION "example_open.*KILN_ERROR_UNAVAILABLE")
    set_tests_properties(example.matmul_portable.${b} PROPERTIES
      LABELS "backend=${b};example" ENVIRONMENT "KILN_BACKEND=${b};KILN_BLAS=portable"
      SKIP_REGULAR_EXPRESSION "example_open.*KILN_ERROR_UNAVAILABLE")
  endforeach()
endif()
