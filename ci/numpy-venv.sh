#!/usr/bin/env bash
# Creates (once) the Python virtual environment the differential test
# against NumPy (tests/numpy_diff/) runs in, with NumPy 2.x from PyPI.
# Idempotent: an existing venv with NumPy 2 is kept; a system python3 that
# already has NumPy 2 (machines without network, e.g. the GPU machine) is
# used as it is. Prints the python to use on its last line. Exit 1 when the venv cannot be made (no
# python3-venv, no network): the ctest test then skips with that reason.
# Usage: ci/numpy-venv.sh [venv-dir]   (default: <repo>/.venv-numpy)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
venv=${1:-${KILN_NUMPY_VENV:-$root/.venv-numpy}}
py="$venv/bin/python"
if [ -x "$py" ] && "$py" -c 'import numpy, sys; sys.exit(int(numpy.__version__.split(".")[0]) < 2)' 2>/dev/null; then
  echo "$py"
  exit 0
fi
if python3 -c 'import numpy, sys; sys.exit(int(numpy.__version__.split(".")[0]) < 2)' 2>/dev/null; then
  command -v python3
  exit 0
fi
python3 -m venv "$venv" >&2 || { echo "ci/numpy-venv: python3 -m venv failed (install python3-venv: ci/install-deps.sh)" >&2; exit 1; }
"$py" -m pip install -q --disable-pip-version-check 'numpy>=2,<3' >&2 ||
  { echo "ci/numpy-venv: pip install numpy failed (no network?)" >&2; exit 1; }
echo "$py"
