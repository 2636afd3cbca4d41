# libFuzzer targets (tests/fuzz/): only in builds with -DKILN_FUZZ=ON and
# clang (ci/fuzz.sh builds them with ASan + UBSan and runs each for a
# bounded time over its seed corpus in tests/fuzz/corpus/<target>).
if(KILN_FUZZ)
  # every tests/fuzz/fuzz_<target>.c is a target (ci/fuzz.sh runs the same list)
  file(GLOB KILN_FUZZ_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/fuzz_*.c)
  foreach(source ${KILN_FUZZ_SOURCES})
    get_filename_component(target ${source} NAME_WE)
    string(REGEX REPLACE "^fuzz_" "" target ${target})
    add_executable(fuzz_${target} fuzz/fuzz_${target}.c)
    target_link_libraries(fuzz_${target} PRIVATE kiln_static)
    target_include_directories(fuzz_${target} PRIVATE ${PROJECT_SOURCE_DIR} ${KILN_EMBED_DIR})
    target_compile_definitions(fuzz_${target} PRIVATE _GNU_SOURCE)
    target_compile_options(fuzz_${target} PRIVATE ${KILN_WARNINGS} -fsanitize=fuzzer)
    target_link_options(fuzz_${target} PRIVATE -fsanitize=fuzzer)
  endforeach()
endif()
