# Conformance tests of pinned host memory (kiln/memory.h): allocation,
# registration, transfers and ufunc host operands from pinned memory, with
# the memory pool on and off.
kiln_conformance_test(pinned SOURCES test_pinned.c)
kiln_conformance_test(pinned_pool_off SOURCES test_pinned.c ENV KILN_POOL=0)
