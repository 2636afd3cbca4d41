# Conformance tests of ufuncs (docs/ufuncs.md): the signature parser (no
# device), user ufuncs on device arrays, the host path, every built-in
# against libm, and the examples as tests of the tour.
kiln_conformance_test(ufunc_signature SOURCES test_ufunc_signature.c INTERNAL NO_BACKEND)
kiln_conformance_test(ufunc_variants SOURCES test_ufunc_variants.c INTERNAL)
kiln_conformance_test(ufunc SOURCES test_ufunc.c)
kiln_conformance_test(ufunc_host SOURCES test_ufunc_host.c)
kiln_conformance_test(ufunc_builtin SOURCES test_ufunc_builtin.c)
