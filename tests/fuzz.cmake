# libFuzzer targets (tests/fuzz/): only in builds with -DKILN_FUZZ=ON and
# clang (ci/fuzz.sh builds them with ASan + UBSan and runs each for a
# bounded time over its seed corpus in tests/fuzz/corpus/<target>).
if(KILN_FUZZ)
  foreach(target ufunc_signature kernel_params dtype_name environment gufunc_layout
                 disk_cache_entry)
    add_executable(fuzz_${target} fuzz/fuzz_${target}.c)
    target_link_libraries(fuzz_${target} PRIVATE kiln_static)
    target_include_directories(fuzz_${target} PRIVATE ${PROJECT_SOURCE_DIR} ${KILN_EMBED_DIR})
    target_compile_definitions(fuzz_${target} PRIVATE _GNU_SOURCE)
    target_compile_options(fuzz_${target} PRIVATE ${KILN_WARNINGS} -fsanitize=fuzzer)
    target_link_options(fuzz_${target} PRIVATE -fsanitize=fuzzer)
  endforeach()
endif()
