# Random arrays (kiln/random.h): device bits equal the host generator's,
# statistics, integer bounds, generators, bad input (tests/test_random.c);
# kiln's own log/exp/sin/cos against long double (tests/test_random_math.c).
kiln_conformance_test(random SOURCES test_random.c)
kiln_conformance_test(random_math SOURCES test_random_math.c INTERNAL NO_BACKEND)
