#!/usr/bin/env bash
# ctest entry of fft_numpy: finds (or makes, once) the NumPy venv with
# ci/numpy-venv.sh, then runs tests/fft/fft_numpy.py against the driver.
# Exit 77 (skip) with the reason when no venv can be made.
# Usage: run.sh <driver> [fft_numpy.py arguments]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
driver=$1
shift
py=$(bash "$here/../../ci/numpy-venv.sh" | tail -n 1) || {
  echo "fft_numpy: SKIP: no Python venv with NumPy 2 (see the ci/numpy-venv messages above)"
  exit 77
}
exec "$py" "$here/fft_numpy.py" --driver "$driver" "$@"
