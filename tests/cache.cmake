# Conformance tests of the on-disk kernel cache (docs/environment.md,
# docs/architecture.md "Disk cache"): hits and misses, what the key holds,
# every kind of damaged entry, processes writing the same entries at once,
# unwritable directories, KILN_CACHE=0, the settings, the LRU eviction, and
# trust (only entries the user owns and nobody else can write are loaded).
# Each test makes its own temporary directory (under TMPDIR, else /tmp).
kiln_conformance_test(cache SOURCES test_cache.c INTERNAL)
