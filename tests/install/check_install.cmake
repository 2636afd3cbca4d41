# Installs kiln into a fresh prefix, then builds a consumer of it twice:
# with find_package(kiln) (target kiln::kiln) and with pkg-config.
file(REMOVE_RECURSE ${WORK})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD} --prefix ${WORK}/prefix
                RESULT_VARIABLE rc OUTPUT_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install failed")
endif()
foreach(f include/kiln/kiln.h include/kiln/array.h)
  if(NOT EXISTS ${WORK}/prefix/${f})
    message(FATAL_ERROR "missing ${f}")
  endif()
endforeach()
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE} -B ${WORK}/consumer
                        -DCMAKE_PREFIX_PATH=${WORK}/prefix -DCMAKE_C_COMPILER=${COMPILER}
                        "-DCMAKE_C_FLAGS=${FLAGS}"
                RESULT_VARIABLE rc OUTPUT_QUIET)
if(rc EQUAL 0)
  execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK}/consumer RESULT_VARIABLE rc OUTPUT_QUIET)
endif()
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "find_package(kiln) consumer did not build")
endif()
message("find_package(kiln): consumer built")
file(GLOB pcdir ${WORK}/prefix/lib*/pkgconfig)
set(ENV{PKG_CONFIG_PATH} ${pcdir})
execute_process(COMMAND pkg-config --cflags --libs kiln OUTPUT_VARIABLE flags
                RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "pkg-config does not know kiln")
endif()
separate_arguments(flags)
separate_arguments(extra UNIX_COMMAND "${FLAGS}")
execute_process(COMMAND ${COMPILER} -std=c11 ${extra} ${SOURCE}/consumer.c ${flags} -o ${WORK}/pc-consumer
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "pkg-config consumer did not build with: ${flags}")
endif()
message("pkg-config: consumer built with ${flags}")
