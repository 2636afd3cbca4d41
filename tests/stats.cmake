# mean / var / std, norm, isclose / allclose, arange / linspace, item
# (kiln/stats.h, kiln/creation.h; docs/statistics.md).
kiln_conformance_test(stats SOURCES test_stats.c)
