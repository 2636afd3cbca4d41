#!/usr/bin/env bash
# ctest entry of numpy_diff: makes (once) the NumPy venv, then runs diff.py
# against the driver. Exit 77 (skip) with the reason when no venv can be
# made. Usage: run.sh <driver> [diff.py arguments]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
driver=$1
shift
py=$(bash "$here/../../ci/numpy-venv.sh" | tail -n 1) || {
  echo "numpy_diff: SKIP: no Python venv with NumPy 2 (see the ci/numpy-venv messages above)"
  exit 77
}
exec "$py" "$here/diff.py" --driver "$driver" "$@"
