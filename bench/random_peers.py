#!/usr/bin/env python3
"""random_peers: the peers' times for what bench/random_bench.c measures, on
the same size, printed beside kiln's (docs/random.md):

  CuPy (CUDA): cp.random.standard_normal / random / integers (the legacy
  API, cuRAND XORWOW) and cp.random.Generator(cp.random.Philox4x3210)
  (float32 and float64 normals and uniforms, int32 and int64 integers);
  device time between CUDA events, median of `repeats` after warm-up.
  NumPy (CPU): np.random.Generator(np.random.Philox) standard_normal,
  random, integers, one thread, wall time.
  kiln: build/bench/random_bench run as a subprocess with
  KILN_BACKEND=opencl (PoCL on this machine's CPU) and, when CuPy is
  present, KILN_BACKEND=cuda; its lines are printed as they are.

Usage: random_peers.py [n [repeats]] [--bench=path/to/random_bench] (default:
the first of $KILN_BUILD_DIR, build/, /tmp/kiln-gpu-build that has it)
(defaults 1e8 for CuPy and kiln on CUDA, n / 10 for NumPy and PoCL, 20).
Needs NumPy 2.x; CuPy 14 for the CUDA rows.
"""
import os
import statistics
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peer_timing import cupy_median_ms  # noqa: E402


def args():
    nums = [a for a in sys.argv[1:] if not a.startswith("--")]
    n = int(float(nums[0])) if nums else 100_000_000
    repeats = int(nums[1]) if len(nums) > 1 else 20
    # the build directory: $KILN_BUILD_DIR, the repository's build/, or
    # ci/gpu.sh's /tmp/kiln-gpu-build, whichever has the program
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    candidates = [os.environ.get("KILN_BUILD_DIR", ""), os.path.join(root, "build"),
                  "/tmp/kiln-gpu-build"]
    bench = next((os.path.join(d, "bench", "random_bench") for d in candidates
                  if d and os.access(os.path.join(d, "bench", "random_bench"), os.X_OK)),
                 os.path.join(root, "build", "bench", "random_bench"))
    for a in sys.argv[1:]:
        if a.startswith("--bench="):
            bench = a.split("=", 1)[1]
    return n, repeats, bench


def cupy_rows(n, repeats):
    import cupy as cp

    def timed(f):
        return cupy_median_ms(cp, f, repeats)

    gen = cp.random.Generator(cp.random.Philox4x3210(20261127))
    out32 = cp.empty(n, dtype=cp.float32)
    out64 = cp.empty(n, dtype=cp.float64)
    rows = [
        ("write float32 (cp.copyto of 0)", lambda: cp.copyto(out32, 0), 4),
        ("cp.random.standard_normal f32", lambda: cp.random.standard_normal(n, cp.float32), 4),
        ("cp.random.random f32", lambda: cp.random.random(n, cp.float32), 4),
        ("cp.random.standard_normal f64", lambda: cp.random.standard_normal(n, cp.float64), 8),
        ("cp.random.integers int64", lambda: cp.random.randint(0, 1000, n, cp.int64), 8),
        ("Philox standard_normal f32", lambda: gen.standard_normal(n, cp.float32), 4),
        ("Philox random f32", lambda: gen.random(n, cp.float32), 4),
        ("Philox standard_normal f64", lambda: gen.standard_normal(n, cp.float64), 8),
        ("Philox random f64", lambda: gen.random(n, cp.float64), 8),
        ("Philox integers int32", lambda: gen.integers(0, 1000, n, cp.int32), 4),
        ("Philox integers int64", lambda: gen.integers(0, 1000, n, cp.int64), 8),
        # beside random_bench's permutation rows (cp.random.permutation
        # sorts random keys too)
        ("cp.random.permutation int64", lambda: cp.random.permutation(n), 8),
    ]
    print(f"CuPy {cp.__version__} on {cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}: "
          f"n {n}, median of {repeats}")
    for name, f, width in rows:
        try:
            ms = timed(f)
            print(f"  {name:34s} {ms:9.3f} ms {n * width / (ms * 1e6):8.1f} GB/s")
        except Exception as e:  # an API a CuPy version lacks
            print(f"  {name:34s} unavailable: {e}")
    del out32, out64


def numpy_rows(n, repeats):
    gen = np.random.Generator(np.random.Philox(20261127))
    rows = [
        ("standard_normal float32", lambda: gen.standard_normal(n, dtype=np.float32)),
        ("random float32", lambda: gen.random(n, dtype=np.float32)),
        ("standard_normal float64", lambda: gen.standard_normal(n)),
        ("random float64", lambda: gen.random(n)),
        ("integers int32 [0,1000)", lambda: gen.integers(0, 1000, n, dtype=np.int32)),
        ("integers int64 full", lambda: gen.integers(-2**63, 2**63 - 1, n, dtype=np.int64,
                                                     endpoint=True)),
    ]
    print(f"NumPy {np.__version__} Generator(Philox), one CPU thread: n {n}, median of "
          f"{repeats}")
    for name, f in rows:
        f()
        ts = []
        for _ in range(repeats):
            t = time.perf_counter()
            f()
            ts.append(time.perf_counter() - t)
        print(f"  {name:34s} {statistics.median(ts) * 1e3:9.3f} ms")


def kiln_rows(bench, backend, n, repeats):
    if not os.access(bench, os.X_OK):
        print(f"kiln on {backend}: {bench} not built")
        return
    env = dict(os.environ, KILN_BACKEND=backend)
    try:
        r = subprocess.run([bench, str(n), str(repeats)], env=env, capture_output=True, text=True,
                           timeout=600)
    except subprocess.TimeoutExpired:
        print(f"kiln on {backend}: timed out")
        return
    print(f"kiln ({backend}):")
    for line in (r.stdout + r.stderr).splitlines():
        print("  " + line)


def main():
    n, repeats, bench = args()
    small = max(n // 10, 16)
    have_cupy = True
    try:
        cupy_rows(n, repeats)
    except ImportError:
        have_cupy = False
        print("CuPy not installed: no CUDA rows")
    if have_cupy:
        kiln_rows(bench, "cuda", n, repeats)
    numpy_rows(small, min(repeats, 5))
    kiln_rows(bench, "opencl", small, min(repeats, 5))


if __name__ == "__main__":
    main()
