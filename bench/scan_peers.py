#!/usr/bin/env python3
"""scan_peers: CuPy's times for what bench/scan_bench.c measures, on the same
sizes and value distribution, to put beside kiln's (docs/scan.md):

  a device copy of n float32 (the reference), cp.cumsum, x[x > 0] (CuPy's
  boolean indexing: comparison, scan, count, scatter), x[mask] with the
  mask given, cp.nonzero; device time between CUDA events, median of
  `repeats` after warm-up; printed as ms and the ratio to the copy's time.

Usage: scan_peers.py [n [repeats]]   (defaults 1e8, 20). Needs CuPy 14.
"""
import sys

from peer_timing import cupy_median_ms


def main():
    nums = [a for a in sys.argv[1:] if not a.startswith("--")]
    n = int(float(nums[0])) if nums else 100_000_000
    repeats = int(nums[1]) if len(nums) > 1 else 20
    try:
        import cupy as cp
    except ImportError as e:
        print(f"CuPy: not available ({e})")
        return
    # scan_bench's distribution: -0.5, 0, 0.5 equally likely (a third kept)
    rng = cp.random.default_rng(12345)
    x = ((rng.integers(0, 3, n, dtype=cp.int64) - 1) * 0.5).astype(cp.float32)
    y = cp.empty_like(x)
    mask = x > 0

    def timed(f):
        return cupy_median_ms(cp, f, repeats)

    ops = [
        ("copy (reference)", lambda: cp.copyto(y, x)),
        ("cp.cumsum", lambda: cp.cumsum(x, out=y)),
        ("x[x > 0]", lambda: x[x > 0]),
        ("x[mask] (mask given)", lambda: x[mask]),
        ("cp.nonzero", lambda: cp.nonzero(x)),
    ]
    name = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
    print(f"CuPy {cp.__version__} on {name}: n {n} float32, median of {repeats}")
    print(f"{'operation':24s} {'ms':>10s} {'x copy':>9s}")
    copy_ms = None
    for label, f in ops:
        ms = timed(f)
        copy_ms = copy_ms or ms
        print(f"{label:24s} {ms:10.3f} {ms / copy_ms:9.2f}")


if __name__ == "__main__":
    main()
