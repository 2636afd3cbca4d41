# Conformance tests of reductions (docs/reductions.md). One source, two
# programs run per backend: reduce.<backend> (values against host
# references, bad input) and reduce_reproducible.<backend> (bits across
# work-group sizes and layouts, and against a host emulation of kiln's
# fixed tree). test_reduce_reproducible_cross compares the bits of every
# backend and device present in one process (registered once).
kiln_conformance_test(reduce SOURCES test_reduce.c)
target_compile_definitions(test_reduce PRIVATE REDUCE_GROUP="conformance_")
kiln_conformance_test(reduce_reproducible SOURCES test_reduce.c)
target_compile_definitions(test_reduce_reproducible PRIVATE REDUCE_GROUP="reproducible")
kiln_conformance_test(reduce_reproducible_cross SOURCES test_reduce_reproducible_cross.c
  NO_BACKEND)

# The reduction examples of the tour, run on each backend at a modest size.
foreach(example reduce_sum reduce_monte_carlo_pi waveform_peaks)
  if(NOT TARGET ${example})
    continue()
  endif()
  foreach(b ${KILN_TEST_BACKENDS})
    add_test(NAME example.${example}.${b} COMMAND ${example} 1000003)
    set_tests_properties(example.${example}.${b} PROPERTIES
      LABELS "backend=${b};example" ENVIRONMENT "KILN_BACKEND=${b}"
      SKIP_REGULAR_EXPRESSION "example_open.*KILN_ERROR_UNAVAILABLE")
  endforeach()
endforeach()

# The vector variant of the first pass against the scalar one and the host
# tree, both forced through an internal switch (core/codegen/reduce_tree.h).
kiln_conformance_test(reduce_vector SOURCES test_reduce_vector.c INTERNAL)

# The later passes run in the first pass's last work-group (the tail)
# against separate launches and the host tree, through an internal switch.
kiln_conformance_test(reduce_tail SOURCES test_reduce_tail.c INTERNAL)

# The single-pass scan of one line (docs/scan.md): both paths forced through
# an internal switch give the bits of kiln's order emulated on the host;
# every dtype; compaction; nonzero/argwhere; the internal prefix sum.
kiln_conformance_test(scan_line SOURCES test_scan_line.c INTERNAL)
