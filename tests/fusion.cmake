# Conformance tests of fusion (docs/fusion.md): fused against unfused
# (KILN_FUSION=0) bit for bit on random programs, against plain C, the
# order of recorded work, long chains, errors and threads. INTERNAL: the
# fusion counters show what was fused.
kiln_conformance_test(fusion SOURCES test_fusion.c INTERNAL)
