# Conformance tests of fusion (docs/fusion.md): fused against unfused
# (KILN_FUSION=0) bit for bit on random programs, against plain C, the
# order of recorded work, long chains, errors and threads. INTERNAL: the
# fusion counters show what was fused.
kiln_conformance_test(fusion SOURCES test_fusion.c INTERNAL)
# The same on CPU devices with element loops in their GPU form
# (KILN_ELEMENTS_GRID: grid-stride over one work-group of 64 items), so the
# batched trips of fused kernels (kiln_ew_source_batched) run here too.
# Every kernel compiles anew under that option (nothing shared with the
# other tests' cache entries), so only the tests that need few kernels.
kiln_conformance_test(fusion_grid SOURCES test_fusion.c INTERNAL ENV "KILN_ELEMENTS_GRID=64"
  ARGS "hidden_layer,long_chain,order_and_hazards,second_run_compiles_nothing,quads_and_shifted_views")
# What KILN_LOG=debug prints for fused groups (the test captures fds 1, 2).
kiln_conformance_test(fusion_log SOURCES test_fusion_log.c ENV "KILN_LOG=debug")
