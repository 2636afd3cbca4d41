# Conformance tests of the kernel language (docs/kernel-language.md): every
# name of the preludes run on the device against host references. The
# kernels are files under tests/kernels (those under tests/kernels/invalid
# must fail to compile).
kiln_conformance_test(kernel_language SOURCES test_kernel_language.c)
