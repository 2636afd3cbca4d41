#!/usr/bin/env bash
# Creates the Python virtual environment that bench/reduce_peers.py needs
# for its PyOpenCL part (numpy, pyopencl from PyPI; CuPy comes with the GPU
# machine) and prints its python. Usage: ci/peers-venv.sh [venv-dir]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
venv=${1:-$root/build/peers-venv}
[ -x "$venv/bin/python" ] || python3 -m venv "$venv" >&2
"$venv/bin/python" -m pip install -q --disable-pip-version-check numpy mako pyopencl >&2
echo "$venv/bin/python"
