# Conformance tests of kiln/interop.h (docs/interop.md): native handles,
# wrapped native memory and DLPack on each backend; two contexts used from
# two threads and copies between them.
kiln_conformance_test(interop SOURCES test_interop.c)
target_include_directories(test_interop SYSTEM PRIVATE ${KILN_DLPACK_INCLUDE_DIR})
kiln_conformance_test(interop_devices SOURCES test_multi_device.c)

# The MPI examples with 1, 2 and 3 ranks on each backend (more ranks than
# devices share them; Open MPI must be told it may oversubscribe the cores
# and run as root, as CI does). Skipped, with the reason, without MPI, and
# where the backend has no device.
if(TARGET mpi_sum AND MPIEXEC_EXECUTABLE)
  foreach(example mpi_monte_carlo_pi mpi_sum)
    foreach(np 1 2 3)
      foreach(b ${KILN_TEST_BACKENDS})
        add_test(NAME ${example}.np${np}.${b}
          COMMAND ${MPIEXEC_EXECUTABLE} --oversubscribe ${MPIEXEC_NUMPROC_FLAG} ${np}
                  $<TARGET_FILE:${example}> 100003)
        set_tests_properties(${example}.np${np}.${b} PROPERTIES
          LABELS "backend=${b};example;mpi"
          ENVIRONMENT "KILN_BACKEND=${b};OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_rmaps_base_oversubscribe=1"
          SKIP_REGULAR_EXPRESSION "KILN_ERROR_UNAVAILABLE"
          FAIL_REGULAR_EXPRESSION "FAILED")
        # Under ASan: no leak check in these (address errors are still
        # checked). Open MPI 4.1 keeps ~120 KB from MPI_Init after
        # MPI_Finalize, and LeakSanitizer's tracer at exit sometimes crashes
        # (signal 11) among Open MPI's threads. kiln's own leaks are checked
        # by the interop tests.
        if(NOT CMAKE_VERSION VERSION_LESS 3.22)
          set_tests_properties(${example}.np${np}.${b} PROPERTIES ENVIRONMENT_MODIFICATION
            "ASAN_OPTIONS=string_append::detect_leaks=0")
        endif()
      endforeach()
    endforeach()
  endforeach()
else()
  add_test(NAME mpi_not_found COMMAND ${CMAKE_COMMAND} -E echo
    "skipped: MPI not found at configure time (Debian: apt-get install libopenmpi-dev openmpi-bin)")
  set_tests_properties(mpi_not_found PROPERTIES LABELS "mpi" SKIP_REGULAR_EXPRESSION "skipped: MPI")
endif()
