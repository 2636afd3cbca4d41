# No circles between files (DESIGN.md "Arrows point down only"):
# check_circles.py reads which object file of libkiln calls which (nm) and
# which header includes which, and fails naming each circle it finds.
add_test(NAME no_circles
  COMMAND python3 ${CMAKE_CURRENT_SOURCE_DIR}/circles/check_circles.py
          $<TARGET_FILE:kiln_static> ${PROJECT_SOURCE_DIR})
set_tests_properties(no_circles PROPERTIES LABELS "structure")
