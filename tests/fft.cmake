# FFT (docs/fft.md): tests/fft/fft_numpy.py checks every transform against
# numpy.fft through tests/fft/fft_driver (fft_numpy.<backend>; skipped with
# the reason when no NumPy venv can be made or no device is present), and
# test_fft the C-level contract (bad input, plans, the cache, round trips).
add_executable(kiln_fft_driver fft/fft_driver.c)
target_link_libraries(kiln_fft_driver PRIVATE kiln)
target_compile_options(kiln_fft_driver PRIVATE ${KILN_WARNINGS})
foreach(b ${KILN_TEST_BACKENDS})
  add_test(NAME fft_numpy.${b}
    COMMAND bash -c "py=$(bash ${PROJECT_SOURCE_DIR}/ci/numpy-venv.sh | tail -n 1) || { echo 'fft_numpy: SKIP: no NumPy venv'; exit 77; }; exec \"$py\" ${CMAKE_CURRENT_SOURCE_DIR}/fft/fft_numpy.py --quick --driver $<TARGET_FILE:kiln_fft_driver>")
  set_tests_properties(fft_numpy.${b} PROPERTIES SKIP_RETURN_CODE 77
    LABELS "backend=${b};fft" ENVIRONMENT "KILN_BACKEND=${b}" RESOURCE_LOCK numpy_venv)
endforeach()
