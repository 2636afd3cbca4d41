#!/usr/bin/env bash
# ctest entry of numpy_diff: makes (once) the NumPy venv, then runs diff.py
# against the driver. Exit 77 (skip) with the reason when no venv can be
# made. Usage: run.sh <driver> [diff.py arguments]
# KILN_NUMPY_DIFF_CASES and KILN_NUMPY_DIFF_SEED, when set, override the
# case count and seed (.ci/run: fewer cases, one seed for both of its
# builds, so the second finds its kernels in PoCL's cache).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
driver=$1
shift
py=$(bash "$here/../../ci/numpy-venv.sh" | tail -n 1) || {
  echo "numpy_diff: SKIP: no Python venv with NumPy 2 (see the ci/numpy-venv messages above)"
  exit 77
}
extra=()
[ -n "${KILN_NUMPY_DIFF_CASES:-}" ] && extra+=(--cases "$KILN_NUMPY_DIFF_CASES")
[ -n "${KILN_NUMPY_DIFF_SEED:-}" ] && extra+=(--seed "$KILN_NUMPY_DIFF_SEED")
exec "$py" "$here/diff.py" --driver "$driver" "$@" "${extra[@]}"
