# Random arrays (kiln/random.h): device bits equal the host generator's,
# statistics, integer bounds, generators, bad input (tests/test_random.c);
# kiln's own log/exp/sin/cos against long double (tests/test_random_math.c).
kiln_conformance_test(random SOURCES test_random.c)
kiln_conformance_test(random_math SOURCES test_random_math.c INTERNAL NO_BACKEND)
# The float32 radius and its sqrt on each backend against the host, for
# every input (tests/test_random_sqrt.c).
kiln_conformance_test(random_sqrt SOURCES test_random_sqrt.c INTERNAL)

# The random examples of the tour, run on each backend at a modest size.
foreach(example random_weights monte_carlo_pi)
  if(NOT TARGET ${example})
    continue()
  endif()
  foreach(b ${KILN_TEST_BACKENDS})
    if(example STREQUAL "monte_carlo_pi")
      add_test(NAME example.${example}.${b} COMMAND ${example} 4096 64)
    else()
      add_test(NAME example.${example}.${b} COMMAND ${example} 100003)
    endif()
    set_tests_properties(example.${example}.${b} PROPERTIES
      LABELS "backend=${b};example" ENVIRONMENT "KILN_BACKEND=${b}"
      SKIP_REGULAR_EXPRESSION "example_open.*KILN_ERROR_UNAVAILABLE")
  endforeach()
endforeach()
