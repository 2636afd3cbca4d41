# Element launches (core/kernel: kiln_program_launch_elements, the prelude's
# KILN_ELEMENTS_BEGIN/END): every element once and nothing else, at sizes
# around work-group multiples, through ufuncs, fill and copy; raw kernels
# without a local size still cover every item (docs/performance.md,
# "CPU (PoCL)").
kiln_conformance_test(kernel_elements SOURCES test_kernel_elements.c)
