#!/usr/bin/env python3
"""search_peers: the peers' times for what bench/search_bench.c measures,
on the same problems, to put beside kiln's (docs/searching.md,
docs/indexing.md):

  searchsorted of n/10 float32 queries in n sorted float32, histogram of n
  float32 into 256 bins over [-1, 1], bincount of n int32 into 1e6 bins
  (n/100 + 1 below n = 1e8),
  take at n random int64 indices, put (scatter) to a permutation and to
  the random indices (repeats: CuPy keeps any one of them), and
  x[x > 0] (compare included), beside a device copy of n float32.

CuPy (CUDA) where importable: device time between CUDA events, median of
`repeats` after warm-up. NumPy on the CPU always (wall time), the
reference for PoCL. Usage: search_peers.py [n [repeats]] [--only=text]
(only the rows whose name contains text, and the copy); n defaults to
1e8 for CuPy and 1e7 for NumPy (n sets both; NumPy at most 1e7, whose
CPU times at 1e8 take minutes).
"""
import statistics
import sys
import time

import numpy as np
from peer_timing import cupy_median_ms


def problems(xp, n, seed=7):
    rng = np.random.default_rng(seed)
    bins = 1_000_000 if n >= 100_000_000 else n // 100 + 1
    data = xp.asarray(rng.uniform(-1, 1, n).astype(np.float32))
    ints = xp.asarray(rng.integers(0, bins, n, dtype=np.int32))
    idx = xp.asarray(rng.integers(0, n, n, dtype=np.int64))
    perm = xp.asarray(rng.permutation(n).astype(np.int64))
    sorted_ = xp.arange(n, dtype=xp.float32)
    queries = xp.asarray((rng.integers(0, n, n // 10) + 0.5).astype(np.float32))
    out = xp.zeros(n, dtype=xp.float32)
    return [
        ("copy n float32", lambda: data.copy()),
        ("searchsorted n/10 in n", lambda: xp.searchsorted(sorted_, queries)),
        ("histogram 256 bins", lambda: xp.histogram(data, bins=256, range=(-1, 1))),
        ("bincount n", lambda: xp.bincount(ints)),
        ("take n random", lambda: xp.take(data, idx)),
        ("put n, permutation", lambda: xp.put(out, perm, data)),
        ("put n, with repeats", lambda: xp.put(out, idx, data)),
        ("a[a > 0]", lambda: data[data > 0]),
    ]


def report(title, rows):
    print(title)
    print(f"{'operation':22s}  {'ms':>10s} {'x copy':>8s}")
    copy = rows[0][1]
    for name, ms in rows:
        print(f"{name:22s}  {ms:10.3f} {ms / copy:8.2f}")


def cupy_times(n, repeats):
    import cupy as cp

    rows = []
    for name, f in problems(cp, n):
        if name != "copy n float32" and ONLY and not any(o in name for o in ONLY):
            continue
        rows.append((name, cupy_median_ms(cp, f, repeats)))
    dev = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
    report(f"CuPy {cp.__version__} on {dev}: n {n}, median of {repeats}", rows)


def numpy_times(n, repeats):
    rows = []
    for name, f in problems(np, n):
        if name != "copy n float32" and ONLY and not any(o in name for o in ONLY):
            continue
        f()
        ms = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            f()
            ms.append((time.perf_counter() - t0) * 1e3)
        rows.append((name, statistics.median(ms)))
    report(f"NumPy {np.__version__} on the CPU: n {n}, median of {repeats}", rows)


# --only=a,b: the rows whose name contains a or b
ONLY = next((a.split("=", 1)[1].split(",") for a in sys.argv[1:] if a.startswith("--only=")),
            None)


def main():
    nums = [a for a in sys.argv[1:] if not a.startswith("--")]
    n = int(float(nums[0])) if nums else None
    repeats = int(nums[1]) if len(nums) > 1 else 10
    try:
        import cupy  # noqa: F401

        cupy_times(n or 100_000_000, repeats)
    except ImportError:
        print("CuPy not importable: its figures skipped")
    numpy_times(min(n or 10_000_000, 10_000_000), max(3, repeats // 3))


if __name__ == "__main__":
    main()
