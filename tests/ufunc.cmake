# Conformance tests of ufuncs (docs/ufuncs.md): the signature parser (no
# device), user ufuncs on device arrays, the host path, every built-in
# against libm, and the examples as tests of the tour.
kiln_conformance_test(ufunc_signature SOURCES test_ufunc_signature.c INTERNAL NO_BACKEND)
kiln_conformance_test(ufunc_variants SOURCES test_ufunc_variants.c INTERNAL)
kiln_conformance_test(ufunc SOURCES test_ufunc.c)
kiln_conformance_test(ufunc_host SOURCES test_ufunc_host.c)
kiln_conformance_test(ufunc_builtin SOURCES test_ufunc_builtin.c)

# The ufunc examples of the tour, run on each backend at a modest size
# (skipped, with the example's own message, where the backend has no
# device).
foreach(example gaussian_pdf polar_distance zero_suppress hidden_layer cartesian_to_polar)
  if(NOT TARGET ${example})
    continue()
  endif()
  foreach(b ${KILN_TEST_BACKENDS})
    add_test(NAME example.${example}.${b} COMMAND ${example} 100003)
    set_tests_properties(example.${example}.${b} PROPERTIES
      LABELS "backend=${b};example" ENVIRONMENT "KILN_BACKEND=${b}"
      SKIP_REGULAR_EXPRESSION "example_open.*KILN_ERROR_UNAVAILABLE")
  endforeach()
endforeach()
kiln_conformance_test(ufunc_numpy SOURCES test_ufunc_numpy.c)
# The repeat-call cache (core/ufunc/ufunc_call_cache.c): interleaved keys,
# shared keys with other buffers, offsets and scalars, against host
# references (issue 29).
kiln_conformance_test(ufunc_call_cache SOURCES test_ufunc_call_cache.c INTERNAL)
