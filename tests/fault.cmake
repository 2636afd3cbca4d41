# The fault-injection sweep (tests/fault/test_fault.c): only in builds with
# -DKILN_FAULT_INJECTION=ON (ci/test.sh --sanitize turns it on, so CI runs
# it under ASan + UBSan + LSan on PoCL). kiln's own allocations are routed
# through tests/fault/fault_alloc.c by the linker's --wrap.
if(KILN_FAULT_INJECTION)
  # The sweep is long under ASan (each scenario runs once per injected
  # fault): fault.<backend> runs the first scenarios and the totals, the
  # later ones run as tests of their own (fault_<group>.<backend>), so ctest
  # spreads them over the cores and each has its own timeout.
  kiln_conformance_test(fault SOURCES fault/test_fault.c fault/fault_alloc.c INTERNAL
                        LABELS fault
                        ARGS "arrays,kernel,ufunc_device,ufunc_host,streams,memory,gufunc,matmul,reduce,interop,totals")
  foreach(group "random,fft,fusion" "stats,scan_line,permutation" "sort" "search")
    string(REPLACE "," "_" name "${group}")
    foreach(b ${KILN_TEST_BACKENDS})
      add_test(NAME fault_${name}.${b} COMMAND test_fault ${group})
      set_tests_properties(fault_${name}.${b} PROPERTIES SKIP_RETURN_CODE 77
        LABELS "backend=${b};fault" ENVIRONMENT "KILN_BACKEND=${b}")
    endforeach()
  endforeach()
  # fault_fft_vendor.<backend>: the FFT scenario through the vendor library
  # (KILN_FFT=vendor: its 2-D plan and execution; VkFFT on PoCL where built in)
  foreach(b ${KILN_TEST_BACKENDS})
    add_test(NAME fault_fft_vendor.${b} COMMAND test_fault fft_host)
    set_tests_properties(fault_fft_vendor.${b} PROPERTIES SKIP_RETURN_CODE 77
      LABELS "backend=${b};fault" ENVIRONMENT "KILN_BACKEND=${b};KILN_FFT=vendor")
  endforeach()
  # fault_fft_vendor_cold.<backend>: the same on an empty disk cache each
  # run, so VkFFT's programs are compiled and stored under the faults (the
  # warm one above loads them)
  foreach(b ${KILN_TEST_BACKENDS})
    add_test(NAME fault_fft_vendor_cold.${b} COMMAND test_fault fft_host_cold)
    set_tests_properties(fault_fft_vendor_cold.${b} PROPERTIES SKIP_RETURN_CODE 77
      LABELS "backend=${b};fault"
      ENVIRONMENT "KILN_BACKEND=${b};KILN_FFT=vendor")
  endforeach()
  # fault_fft_vendor_clfft.opencl: the same through clFFT (the default
  # above is VkFFT where built in)
  if("opencl" IN_LIST KILN_TEST_BACKENDS)
    add_test(NAME fault_fft_vendor_clfft.opencl COMMAND test_fault fft_host)
    set_tests_properties(fault_fft_vendor_clfft.opencl PROPERTIES SKIP_RETURN_CODE 77
      LABELS "backend=opencl;fault"
      ENVIRONMENT "KILN_BACKEND=opencl;KILN_FFT=vendor;KILN_OPENCL_FFT=clfft")
  endif()
  # fault_fft_portable.opencl: the fft2 host scenario through kiln's own
  # kernels (its axis 0 in the passes' column form, core/fft/fft.c)
  if("opencl" IN_LIST KILN_TEST_BACKENDS)
    add_test(NAME fault_fft_portable.opencl COMMAND test_fault fft_host)
    set_tests_properties(fault_fft_portable.opencl PROPERTIES SKIP_RETURN_CODE 77
      LABELS "backend=opencl;fault" ENVIRONMENT "KILN_BACKEND=opencl;KILN_FFT=portable")
  endif()

  # fault_gufunc_staged.<backend>: the gufunc scenario with every row staged
  # in local memory (its own kernel and launch with local-memory arguments)
  foreach(b ${KILN_TEST_BACKENDS})
    add_test(NAME fault_gufunc_staged.${b} COMMAND test_fault gufunc)
    set_tests_properties(fault_gufunc_staged.${b} PROPERTIES SKIP_RETURN_CODE 77
      LABELS "backend=${b};fault" ENVIRONMENT "KILN_BACKEND=${b};KILN_GUFUNC_STAGE=always")
  endforeach()
  target_compile_definitions(test_fault PRIVATE KILN_FAULT_INJECTION)
  target_include_directories(test_fault SYSTEM PRIVATE ${KILN_DLPACK_INCLUDE_DIR})
  target_link_options(test_fault PRIVATE -Wl,--wrap=malloc -Wl,--wrap=calloc
                      -Wl,--wrap=realloc -Wl,--wrap=strdup)
endif()
