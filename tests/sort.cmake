# Conformance tests of sorting (docs/sorting.md): sort, argsort, by key,
# segmented and the internal pairs entry against a C reference (qsort with
# the index as tie-break: the stable order), per backend.
kiln_conformance_test(sort SOURCES test_sort.c INTERNAL)
