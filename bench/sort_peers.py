#!/usr/bin/env python3
"""sort_peers: the peers' times for what bench/sort_bench.c measures, on the
same sizes, to put beside kiln's (docs/sorting.md):

  CuPy (CUDA): cp.sort of n uint32 / float32 / int64 / float64 keys,
  cp.argsort of n float32, cp.sort of n / 100 uint32, cp.sort along axis 1
  of (n / 1e4, 1000) float32, cp.unique of n int32 with n / 100 distinct
  values, and a device copy of n uint32 as the reference; device time
  between CUDA events, median of `repeats` after warm-up.
  NumPy (CPU, for PoCL's figures): the same with kind='stable' at n / 10
  (--numpy), wall time.

Usage: sort_peers.py [n [repeats]] [--numpy] [--only=text]   (defaults 1e8, 10;
only: the rows whose name contains text, and the copy)
Needs CuPy 14 for the GPU figures; NumPy 2.x.
"""
import statistics
import sys
import time

import numpy as np
from peer_timing import cupy_median_ms


def args():
    nums = [a for a in sys.argv[1:] if not a.startswith("--")]
    n = int(float(nums[0])) if len(nums) > 0 else 100_000_000
    repeats = int(nums[1]) if len(nums) > 1 else 10
    return n, repeats, "--numpy" in sys.argv


# --only=a,b: the rows whose name contains a or b
ONLY = next((a.split("=", 1)[1].split(",") for a in sys.argv[1:] if a.startswith("--only=")),
            None)


def wanted(label):
    return label.startswith("copy") or not ONLY or any(o in label for o in ONLY)


def workloads(xp, n, rng):
    """(name, function) pairs over inputs made like sort_bench's."""
    def keys(dtype, count):
        if np.dtype(dtype).kind == "f":
            return xp.asarray(rng.uniform(-1000, 1000, count).astype(dtype))
        return xp.asarray(rng.integers(0, np.iinfo(dtype).max, count, dtype=dtype,
                                       endpoint=True))

    u32, f32, i64, f64 = keys(np.uint32, n), keys(np.float32, n), keys(np.int64, n), \
        keys(np.float64, n)
    small = keys(np.uint32, n // 100)
    rows = keys(np.float32, n // 10).reshape(n // 10000, 1000)
    uniq = xp.asarray(rng.integers(0, n // 100, n, dtype=np.int32))
    copy_out = xp.empty_like(u32)
    stable = {} if xp.__name__ == "cupy" else {"kind": "stable"}
    return [
        ("copy uint32 (reference)", lambda: xp.copyto(copy_out, u32)),
        ("sort uint32", lambda: xp.sort(u32, **stable)),
        ("sort float32", lambda: xp.sort(f32, **stable)),
        ("sort int64", lambda: xp.sort(i64, **stable)),
        ("sort float64", lambda: xp.sort(f64, **stable)),
        ("argsort float32", lambda: xp.argsort(f32, **stable)),
        ("sort uint32 (n/100)", lambda: xp.sort(small, **stable)),
        ("sort rows float32 axis=1", lambda: xp.sort(rows, axis=1, **stable)),
        ("unique int32 (n/100 distinct)", lambda: xp.unique(uniq)),
    ]


def cupy_times(n, repeats):
    import cupy as cp

    name = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
    print(f"CuPy {cp.__version__} on {name}: n {n}, median of {repeats}")
    print(f"{'operation':30s} {'ms':>10s}")
    for label, f in workloads(cp, n, np.random.default_rng(1)):
        if not wanted(label):
            continue
        print(f"{label:30s} {cupy_median_ms(cp, f, repeats, warmup=2):10.3f}")


def numpy_times(n, repeats):
    print(f"NumPy {np.__version__} (CPU, kind='stable'): n {n}, wall time, median of {repeats}")
    print(f"{'operation':30s} {'ms':>10s}")
    for label, f in workloads(np, n, np.random.default_rng(1)):
        if not wanted(label):
            continue
        f()
        ms = []
        for _ in range(repeats):
            t = time.perf_counter()
            f()
            ms.append((time.perf_counter() - t) * 1e3)
        print(f"{label:30s} {statistics.median(ms):10.3f}")


def main():
    n, repeats, with_numpy = args()
    try:
        cupy_times(n, repeats)
    except ImportError as e:
        print(f"CuPy: not available ({e})")
    if with_numpy:
        numpy_times(max(n // 10, 10000), repeats)


if __name__ == "__main__":
    main()
