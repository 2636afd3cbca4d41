# Conformance tests of the device memory pool (kiln/memory.h): the same
# program with the pool on and off (KILN_POOL=0), same values either way.
kiln_conformance_test(pool SOURCES test_pool.c)
kiln_conformance_test(pool_off SOURCES test_pool.c ENV KILN_POOL=0)
