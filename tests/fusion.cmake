# Conformance tests of fusion (docs/fusion.md): fused against unfused
# (KILN_FUSION=0) bit for bit on random programs, against plain C, the
# order of recorded work, long chains, errors and threads. INTERNAL: the
# fusion counters show what was fused.
kiln_conformance_test(fusion SOURCES test_fusion.c INTERNAL)
# The same on CPU devices with element loops in their GPU form
# (KILN_ELEMENTS_GRID: grid-stride over one work-group of 64 items), so the
# batched trips of fused kernels (kiln_ew_source_batched) run here too.
kiln_conformance_test(fusion_grid SOURCES test_fusion.c INTERNAL ENV "KILN_ELEMENTS_GRID=64")
