#!/usr/bin/env bash
# Runs kiln on a GPU machine (the device tool's lent H100/H200): build, the
# whole suite on CUDA and on NVIDIA's OpenCL, the same suite against a
# libkiln.so built elsewhere (when .carry/libkiln.so.* is present: the
# one-build-everywhere check), then the benchmarks. Logs go to $OUT (or
# ./gpu-logs). Nothing is installed; needs cmake, a C compiler, the driver.
# Usage: ci/gpu.sh [tests|bench|all] (default all): `tests` builds and runs
# the suites, `bench` (after `tests` on the same machine) runs every
# benchmark on CUDA and then each bench/*_peers.py (CuPy/Numba on the same
# data), so both sides see the same machine in one call.
set -uo pipefail
mode=${1:-all}
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$root/gpu-logs}
mkdir -p "$out"
build=/tmp/kiln-gpu-build
if [ "$mode" != bench ] || [ ! -x "$build/tools/kiln-info" ]; then
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release > "$out/build.log" 2>&1 &&
  cmake --build "$build" -j"$(nproc)" >> "$out/build.log" 2>&1 ||
  { tail -40 "$out/build.log"; exit 1; }
fi
nvidia-smi -L
echo "== kiln-info"; "$build/tools/kiln-info"

suite() { # name, label regex, then environment assignments
  local name=$1 label=$2; shift 2
  env "$@" ctest --test-dir "$build" --output-on-failure -j4 -L "$label" > "$out/$name.log" 2>&1
  echo "== $name: $(grep -E 'tests passed|tests failed' "$out/$name.log")"
  grep -E '^\s+[0-9]+ - .*\((Failed|Skipped)' "$out/$name.log" | head -40
}
if [ "$mode" != bench ]; then
suite cuda "backend=cuda" KILN_TEST_REQUIRE=cuda
# CLBlast for NVIDIA's OpenCL, when carried (.carry/libclblast.so.1 from
# Debian's libclblast1: the GPU machine has none)
clblast=$(ls "$root"/.carry/libclblast.so.1 2>/dev/null)
[ -n "$clblast" ] && export KILN_CLBLAST_PATH=$clblast
suite opencl-nvidia "backend=opencl" KILN_TEST_REQUIRE=opencl KILN_OPENCL_PLATFORM=NVIDIA

carried=$(ls "$root"/.carry/libkiln.so.* 2>/dev/null | head -1)
if [ -n "$carried" ]; then
  mkdir -p /tmp/kiln-carried && cp "$carried" /tmp/kiln-carried/libkiln.so.0
  echo "== same build: $(ldd "$build/tests/test_array" | grep libkiln) replaced by $carried"
  LD_LIBRARY_PATH=/tmp/kiln-carried ldd "$build/tests/test_array" | grep libkiln
  suite cuda-carried-lib "backend=cuda" LD_LIBRARY_PATH=/tmp/kiln-carried KILN_TEST_REQUIRE=cuda
fi

fi
[ "$mode" = tests ] && exit 0

for b in "$build"/bench/*; do
  [ -f "$b" ] && [ -x "$b" ] || continue
  echo "== $(basename "$b")"
  KILN_BACKEND=cuda timeout 300 "$b" 2>&1 | tee -a "$out/bench.log"
done
# The same engine on NVIDIA's OpenCL: ufuncs against raw kernels, the
# reductions, random arrays (their device == host check), the sorts (issue 24: within 1.25x of the CUDA figure) and matmul through CLBlast when carried (.carry/libclblast.so.1)
clblast=$(ls "$root"/.carry/libclblast.so.1 2>/dev/null)
clfft=$(ls "$root"/.carry/libclFFT.so.2 2>/dev/null) # FFT through clFFT when carried
for b in ufunc_bench reduce_bench matmul_bench random_bench fusion_bench sort_bench fft_bench; do
  echo "== $b (NVIDIA OpenCL)"
  env KILN_BACKEND=opencl KILN_OPENCL_PLATFORM=NVIDIA ${clblast:+KILN_CLBLAST_PATH=$clblast} \
    ${clfft:+KILN_CLFFT_PATH=$clfft} \
    timeout 300 "$build/bench/$b" 2>&1 | tee -a "$out/bench-opencl.log"
done
export PYTHONUNBUFFERED=1
for p in "$root"/bench/*_peers.py; do
  [ -f "$p" ] || continue
  echo "== $(basename "$p")"
  timeout 300 python3 "$p" 2>&1 | tee -a "$out/peers.log"
done
# kiln and CuPy row by row, from one run of each (bench/side_by_side.py)
echo "== side_by_side reduce (CUDA)"
KILN_BACKEND=cuda timeout 300 python3 "$root/bench/side_by_side.py" "$build/bench/reduce_bench" \
  "$root/bench/reduce_peers.py" 1e8 1e6 100 30 2>&1 | tee -a "$out/peers.log"
# searching, counting, gather/scatter (issue 24): kiln and CuPy row by row
# on CUDA, then NVIDIA's OpenCL (goal: within 1.25x of the CUDA figure)
echo "== side_by_side search (CUDA)"
KILN_BACKEND=cuda timeout 300 python3 "$root/bench/side_by_side.py" "$build/bench/search_bench" \
  "$root/bench/search_peers.py" 1e8 2>&1 | tee -a "$out/peers.log"
echo "== search_bench (NVIDIA OpenCL)"
KILN_BACKEND=opencl KILN_OPENCL_PLATFORM=NVIDIA timeout 300 "$build/bench/search_bench" 2>&1 |
  tee -a "$out/bench-opencl.log"

# DLPack round trip with CuPy (docs/interop.md): no copy in either direction.
echo "== dlpack_cupy"
KILN_BACKEND=cuda python3 "$root/examples/dlpack_cupy.py" "$build" 2>&1 | tee "$out/dlpack_cupy.log"

# Reductions: the bits of every device in one process (CUDA, NVIDIA's
# OpenCL, PoCL); bench/reduce_peers.py ran with the peers above.
echo "== reduce_reproducible_cross"
"$build/tests/test_reduce_reproducible_cross" 2>&1 | tee -a "$out/reduce_cross.log"
