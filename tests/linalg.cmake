# Conformance tests of matrix products (docs/linalg.md): kiln_matmul,
# kiln_dot, kiln_vdot against a float64 host reference. Registered per
# backend twice: linalg.<backend> takes the default path (the vendor BLAS
# where the backend loads one, else the portable kernel) and
# linalg_portable.<backend> forces kiln's kernel with KILN_BLAS=portable.
kiln_conformance_test(linalg SOURCES test_linalg.c)
foreach(b ${KILN_TEST_BACKENDS})
  add_test(NAME linalg_portable.${b} COMMAND test_linalg)
  set_tests_properties(linalg_portable.${b} PROPERTIES SKIP_RETURN_CODE 77
    LABELS "backend=${b}" ENVIRONMENT "KILN_BACKEND=${b};KILN_BLAS=portable")
endforeach()
