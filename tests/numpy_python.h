/* tests/numpy_python.h: where the tests that compare with NumPy itself
 * (test_sort, test_unique) find a Python with NumPy 2. Include it from one
 * test file that defines KILN_SOURCE_DIR (the checkout) and uses harness.h. */
#ifndef KILN_TESTS_NUMPY_PYTHON_H
#define KILN_TESTS_NUMPY_PYTHON_H

#include <stdio.h>
#include <stdlib.h>

#include "harness.h"

/* Whether `py` runs and imports NumPy 2 or later. */
static int numpy_python_has_numpy2(const char *py) {
  char command[1200];
  snprintf(command, sizeof command,
           "'%s' -c 'import numpy, sys; sys.exit(int(numpy.__version__.split(\".\")[0]) < 2)' "
           ">/dev/null 2>&1", py);
  return system(command) == 0;
}

/* The venv's python with NumPy 2 (KILN_NUMPY_VENV, else the checkout's
 * .venv-numpy, which ci/numpy-venv.sh makes), else a python3 on PATH that
 * has NumPy 2 (as ci/numpy-venv.sh falls back to on machines without
 * network, such as the GPU machine), or NULL after printing why the
 * comparison is skipped. */
static const char *numpy_python(void) {
  static char py[1024];
  const char *venv = getenv("KILN_NUMPY_VENV");
  snprintf(py, sizeof py, "%s/bin/python", venv && *venv ? venv : KILN_SOURCE_DIR "/.venv-numpy");
  if (numpy_python_has_numpy2(py)) return py;
  if (numpy_python_has_numpy2("python3")) return "python3";
  harness_skip("no Python with NumPy 2 at %s nor python3 on PATH (ci/numpy-venv.sh makes one; "
               "KILN_NUMPY_VENV names another)", py);
  return NULL;
}

#endif
