#!/usr/bin/env bash
# ctest entry of test_search / test_indexing: finds (never makes) a Python
# with NumPy 2 for the NumPy comparisons and runs the test with it in
# KILN_TEST_NUMPY; without one the test runs its C references alone.
# Usage: search_run.sh <test binary> [test filter]
here=$(cd "$(dirname "$0")" && pwd)
venv=${KILN_NUMPY_VENV:-$here/../.venv-numpy}
for py in "$venv/bin/python" python3; do
  if "$py" -c 'import numpy, sys; sys.exit(int(numpy.__version__.split(".")[0]) < 2)' 2>/dev/null; then
    export KILN_TEST_NUMPY=$py
    break
  fi
done
exec "$@"
