# Conformance tests of the device memory pool (kiln/memory.h): the same
# program with the pool on and off (KILN_POOL=0), same values either way.
kiln_conformance_test(pool SOURCES test_pool.c)
kiln_conformance_test(pool_off SOURCES test_pool.c ENV KILN_POOL=0)
# driver_out_of_memory_recovery fills the GPU's memory for a moment: run
# these alone, so that no test beside them runs out of memory.
foreach(b ${KILN_TEST_BACKENDS})
  set_tests_properties(pool.${b} pool_off.${b} PROPERTIES RUN_SERIAL TRUE)
endforeach()
