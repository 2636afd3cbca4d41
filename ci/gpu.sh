#!/usr/bin/env bash
# Runs kiln on a GPU machine (the device tool's lent H100/H200): build, the
# whole suite on CUDA and on NVIDIA's OpenCL, the same suite against a
# libkiln.so built elsewhere (when .carry/libkiln.so.* is present: the
# one-build-everywhere check), then the benchmarks. Logs go to $OUT (or
# ./gpu-logs). Nothing is installed; needs cmake, a C compiler, the driver.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$root/gpu-logs}
mkdir -p "$out"
build=/tmp/kiln-gpu-build
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release > "$out/build.log" 2>&1 &&
  cmake --build "$build" -j"$(nproc)" >> "$out/build.log" 2>&1 ||
  { tail -40 "$out/build.log"; exit 1; }
nvidia-smi -L
echo "== kiln-info"; "$build/tools/kiln-info"

suite() { # name, label regex, then environment assignments
  local name=$1 label=$2; shift 2
  env "$@" ctest --test-dir "$build" --output-on-failure -j4 -L "$label" > "$out/$name.log" 2>&1
  echo "== $name: $(grep -E 'tests passed|tests failed' "$out/$name.log")"
  grep -E '^\s+[0-9]+ - .*\((Failed|Skipped)' "$out/$name.log" | head -40
}
suite cuda "backend=cuda" KILN_TEST_REQUIRE=cuda
suite opencl-nvidia "backend=opencl" KILN_TEST_REQUIRE=opencl KILN_OPENCL_PLATFORM=NVIDIA

carried=$(ls "$root"/.carry/libkiln.so.* 2>/dev/null | head -1)
if [ -n "$carried" ]; then
  mkdir -p /tmp/kiln-carried && cp "$carried" /tmp/kiln-carried/libkiln.so.0
  echo "== same build: $(ldd "$build/tests/test_array" | grep libkiln) replaced by $carried"
  LD_LIBRARY_PATH=/tmp/kiln-carried ldd "$build/tests/test_array" | grep libkiln
  suite cuda-carried-lib "backend=cuda" LD_LIBRARY_PATH=/tmp/kiln-carried KILN_TEST_REQUIRE=cuda
fi

for b in "$build"/bench/*; do
  [ -f "$b" ] && [ -x "$b" ] || continue
  echo "== $(basename "$b")"
  KILN_BACKEND=cuda "$b" 2>&1 | tee -a "$out/bench.log"
done

# Reductions: the bits of every device in one process (CUDA, NVIDIA's
# OpenCL, PoCL), then the peers on the same sizes as bench/reduce_bench.
echo "== reduce_reproducible_cross"
"$build/tests/test_reduce_reproducible_cross" 2>&1 | tee -a "$out/reduce_cross.log"
echo "== reduce_peers (CuPy)"
python3 "$root/bench/reduce_peers.py" 2>&1 | tee -a "$out/bench.log"
