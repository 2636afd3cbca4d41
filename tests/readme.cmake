# The README's list of examples names each example once, and no Python
# bytecode is committed (tests/docs/check_readme_examples.py).
add_test(NAME readme_examples
  COMMAND python3 ${CMAKE_CURRENT_SOURCE_DIR}/docs/check_readme_examples.py ${PROJECT_SOURCE_DIR})
set_tests_properties(readme_examples PROPERTIES LABELS "structure")
