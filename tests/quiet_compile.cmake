# A failed compile is silent on stderr unless KILN_LOG asks (issue 28):
# the test captures fd 2 itself.
kiln_conformance_test(quiet_compile SOURCES test_quiet_compile.c ENV "KILN_LOG=")
