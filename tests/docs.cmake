# test_docs: every ```c block of README.md and docs/*.md compiles against the
# public headers (fragments inside a wrapper chosen by the fence's marker,
# kernels through kiln_kernel_create), complete programs run on the default
# backend (docs/testing.md, "Code blocks in the docs"). The files are globbed
# when the test runs, so a new page is checked without reconfiguring.
add_executable(docs_kernel_check docs/kernel_check.c)
target_link_libraries(docs_kernel_check PRIVATE kiln)
target_compile_options(docs_kernel_check PRIVATE ${KILN_WARNINGS})
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  set(KILN_DOCS_CFLAGS "")
  if(KILN_SANITIZE)
    set(KILN_DOCS_CFLAGS "-fsanitize=address,undefined -fno-omit-frame-pointer")
  endif()
  add_test(NAME docs
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/docs/test_docs.py
            --source ${PROJECT_SOURCE_DIR} --cc ${CMAKE_C_COMPILER}
            --include ${PROJECT_SOURCE_DIR}/include --lib $<TARGET_FILE:kiln>
            --kernel-check $<TARGET_FILE:docs_kernel_check>
            --work ${CMAKE_CURRENT_BINARY_DIR}/docs-blocks --cflags "${KILN_DOCS_CFLAGS}")
  set_tests_properties(docs PROPERTIES SKIP_RETURN_CODE 77 LABELS "docs" TIMEOUT 600)
endif()
