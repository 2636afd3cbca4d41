# The fault-injection sweep (tests/fault/test_fault.c): only in builds with
# -DKILN_FAULT_INJECTION=ON (ci/test.sh --sanitize turns it on, so CI runs
# it under ASan + UBSan + LSan on PoCL). kiln's own allocations are routed
# through tests/fault/fault_alloc.c by the linker's --wrap.
if(KILN_FAULT_INJECTION)
  kiln_conformance_test(fault SOURCES fault/test_fault.c fault/fault_alloc.c INTERNAL
                        LABELS fault)
  target_compile_definitions(test_fault PRIVATE KILN_FAULT_INJECTION)
  target_include_directories(test_fault SYSTEM PRIVATE ${KILN_DLPACK_INCLUDE_DIR})
  target_link_options(test_fault PRIVATE -Wl,--wrap=malloc -Wl,--wrap=calloc
                      -Wl,--wrap=realloc -Wl,--wrap=strdup)
endif()
