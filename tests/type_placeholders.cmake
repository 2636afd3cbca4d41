# Type placeholders of ufunc and gufunc bodies (KILN_T, KILN_OUT_T,
# KILN_ACC_T, KILN_T_<name>; docs/kernel-language.md).
kiln_conformance_test(type_placeholders SOURCES test_type_placeholders.c)
