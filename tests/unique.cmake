# Conformance tests of kiln_unique (docs/sorting.md): both paths (values
# and counts alone; first indices and inverse by permutation) for every
# dtype against a C reference that never sorts, and against NumPy 2
# through tests/unique_numpy.py (test "numpy": skipped with the reason
# when there is no .venv-numpy), per backend.
kiln_conformance_test(unique SOURCES test_unique.c)
target_compile_definitions(test_unique PRIVATE KILN_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
