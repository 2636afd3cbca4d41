# FFT (docs/fft.md): tests/fft/fft_numpy.py checks every transform against
# numpy.fft through tests/fft/fft_driver (fft_numpy.<backend>; skipped with
# the reason when no NumPy venv can be made or no device is present), and
# test_fft the C-level contract (bad input, plans, the cache, round trips).
add_executable(kiln_fft_driver fft/fft_driver.c)
target_link_libraries(kiln_fft_driver PRIVATE kiln)
target_compile_options(kiln_fft_driver PRIVATE ${KILN_WARNINGS})
# kiln_fft_numpy_test(name backend [VAR=value...]): tests/fft/run.sh as
# <name>.<backend> with that environment.
function(kiln_fft_numpy_test name b)
  add_test(NAME ${name}.${b}
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/fft/run.sh $<TARGET_FILE:kiln_fft_driver> --quick)
  set_tests_properties(${name}.${b} PROPERTIES SKIP_RETURN_CODE 77
    LABELS "backend=${b};fft" ENVIRONMENT "KILN_BACKEND=${b};${ARGN}" RESOURCE_LOCK numpy_venv)
endfunction()
foreach(b ${KILN_TEST_BACKENDS})
  kiln_fft_numpy_test(fft_numpy ${b})
endforeach()
kiln_conformance_test(fft SOURCES test_fft.c LABELS fft)
# The portable kernels where a backend has a vendor library (cuda, hip);
# on opencl fft_numpy.opencl already runs them.
foreach(b ${KILN_TEST_BACKENDS})
  if(NOT b STREQUAL "opencl")
    kiln_fft_numpy_test(fft_numpy_portable ${b} KILN_FFT=portable)
  endif()
  # fft_bad_setting.<backend>: a bad KILN_FFT is an error naming it.
  add_test(NAME fft_bad_setting.${b} COMMAND test_fft bad_setting)
  set_tests_properties(fft_bad_setting.${b} PROPERTIES SKIP_RETURN_CODE 77
    LABELS "backend=${b};fft" ENVIRONMENT "KILN_BACKEND=${b};KILN_FFT=bogus")
endforeach()
# cuFFT / hipFFT load checks (no device needed).
kiln_conformance_test(gpu_fft_library SOURCES test_gpu_fft_library.c
                      INTERNAL NO_BACKEND LABELS "backend=cuda;backend=hip;fft")
# fft_vendor.<backend>: the vendor library forced (KILN_FFT=vendor): clFFT on
# PoCL, where the default takes kiln's kernels (a CPU device).
foreach(b ${KILN_TEST_BACKENDS})
  add_test(NAME fft_vendor.${b} COMMAND test_fft vendor)
  set_tests_properties(fft_vendor.${b} PROPERTIES SKIP_RETURN_CODE 77
    LABELS "backend=${b};fft" ENVIRONMENT "KILN_BACKEND=${b};KILN_FFT=vendor")
endforeach()

# The tour's filter example at a smaller size.
if(TARGET fft_filter)
  foreach(b ${KILN_TEST_BACKENDS})
    add_test(NAME example.fft_filter.${b} COMMAND fft_filter 1000)
    set_tests_properties(example.fft_filter.${b} PROPERTIES
      LABELS "backend=${b};example" ENVIRONMENT "KILN_BACKEND=${b}"
      SKIP_REGULAR_EXPRESSION "example_open.*KILN_ERROR_UNAVAILABLE")
  endforeach()
endif()

# The OpenCL FFT libraries one by one (docs/fft.md, "OpenCL: clFFT or
# VkFFT"): fft_vendor.opencl takes the default (VkFFT where built in);
# fft_vendor_clfft.opencl the other; fft_bad_library.opencl a bad choice.
if("opencl" IN_LIST KILN_TEST_BACKENDS)
  add_test(NAME fft_vendor_clfft.opencl COMMAND test_fft vendor)
  set_tests_properties(fft_vendor_clfft.opencl PROPERTIES SKIP_RETURN_CODE 77
    LABELS "backend=opencl;fft" ENVIRONMENT "KILN_BACKEND=opencl;KILN_FFT=vendor;KILN_OPENCL_FFT=clfft")
  add_test(NAME fft_bad_library.opencl COMMAND test_fft bad_library)
  set_tests_properties(fft_bad_library.opencl PROPERTIES SKIP_RETURN_CODE 77
    LABELS "backend=opencl;fft" ENVIRONMENT "KILN_BACKEND=opencl;KILN_FFT=vendor;KILN_OPENCL_FFT=bogus")
endif()
# The portable kernels with radix passes only (KILN_FFT_FUSED=0, the
# tuning knob, and KILN_FFT_ROWS=0: no row kernel for short rows; other
# lengths: tests/fft/run.sh by hand, each compiles its own fused kernels,
# ~20 s on PoCL), and a bad value of it refused naming it (fft_bad_fused).
foreach(b ${KILN_TEST_BACKENDS})
  kiln_fft_numpy_test(fft_numpy_fused0 ${b} KILN_FFT=portable KILN_FFT_FUSED=0 KILN_FFT_ROWS=0)
  add_test(NAME fft_bad_fused.${b} COMMAND test_fft bad_fused)
  set_tests_properties(fft_bad_fused.${b} PROPERTIES SKIP_RETURN_CODE 77
    LABELS "backend=${b};fft" ENVIRONMENT "KILN_BACKEND=${b};KILN_FFT=portable;KILN_FFT_FUSED=100")
endforeach()
# The row kernel (core/fft/fft_rows.c): test_fft's rows (batches of its
# lengths against a C DFT) with 16 points per work-item in groups of 64
# (fft_rows16; the default, 8 in groups of 128, runs in fft.opencl and
# every portable fft_numpy, and through fft_rows_portable where the default
# path is a library), and bad values of the knobs refused naming the
# variable (fft_bad_rows, fft_bad_rows_group).
foreach(b ${KILN_TEST_BACKENDS})
  add_test(NAME fft_rows16.${b} COMMAND test_fft rows)
  set_tests_properties(fft_rows16.${b} PROPERTIES SKIP_RETURN_CODE 77
    LABELS "backend=${b};fft"
    ENVIRONMENT "KILN_BACKEND=${b};KILN_FFT=portable;KILN_FFT_ROWS=16;KILN_FFT_ROWS_GROUP=64")
  # (groups of 512: short complex128 rows would take more than the 48 KiB
  # of static local memory, so the kernel takes fewer rows per group)
  add_test(NAME fft_rows_group512.${b} COMMAND test_fft rows)
  set_tests_properties(fft_rows_group512.${b} PROPERTIES SKIP_RETURN_CODE 77
    LABELS "backend=${b};fft"
    ENVIRONMENT "KILN_BACKEND=${b};KILN_FFT=portable;KILN_FFT_ROWS=8;KILN_FFT_ROWS_GROUP=512")
  if(NOT b STREQUAL "opencl")
    add_test(NAME fft_rows_portable.${b} COMMAND test_fft rows)
    set_tests_properties(fft_rows_portable.${b} PROPERTIES SKIP_RETURN_CODE 77
      LABELS "backend=${b};fft" ENVIRONMENT "KILN_BACKEND=${b};KILN_FFT=portable")
  endif()
  add_test(NAME fft_bad_rows.${b} COMMAND test_fft bad_rows)
  set_tests_properties(fft_bad_rows.${b} PROPERTIES SKIP_RETURN_CODE 77
    LABELS "backend=${b};fft" ENVIRONMENT "KILN_BACKEND=${b};KILN_FFT=portable;KILN_FFT_ROWS=12")
  add_test(NAME fft_bad_rows_group.${b} COMMAND test_fft bad_rows)
  set_tests_properties(fft_bad_rows_group.${b} PROPERTIES SKIP_RETURN_CODE 77
    LABELS "backend=${b};fft"
    ENVIRONMENT "KILN_BACKEND=${b};KILN_FFT=portable;KILN_FFT_ROWS_GROUP=100")
endforeach()
