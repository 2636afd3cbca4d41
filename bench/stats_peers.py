#!/usr/bin/env python3
"""stats_peers: CuPy's times for what bench/stats_bench.c measures, on the
same sizes, to put beside kiln's (docs/statistics.md): cupy.sum, mean, var,
std, linalg.norm of n float32, and the row mean of a (rows, cols) float32
matrix; device time between CUDA events, median of `repeats` after warm-up.
Also checks CuPy's results against NumPy's on a small random array.
Usage: stats_peers.py [n [rows [cols [repeats]]]]. Needs CuPy; NumPy 2.x.
"""
import sys

import numpy as np
from peer_timing import cupy_median_ms


def main():
    nums = [a for a in sys.argv[1:] if not a.startswith("--")]
    n = int(float(nums[0])) if len(nums) > 0 else 100_000_000
    rows = int(float(nums[1])) if len(nums) > 1 else 1_000_000
    cols = int(float(nums[2])) if len(nums) > 2 else 100
    repeats = int(nums[3]) if len(nums) > 3 else 20
    try:
        import cupy as cp
    except ImportError as e:
        print("stats_peers: SKIP: no CuPy (%s)" % e)
        return 0
    x = cp.full(n, 0.5, dtype=cp.float32)
    m = cp.full((rows, cols), 0.5, dtype=cp.float32)

    def timed(f):
        return cupy_median_ms(cp, f, repeats)

    ops = [("sum (reference)", lambda: cp.sum(x), 4 * n),
           ("mean", lambda: cp.mean(x), 4 * n),
           ("var", lambda: cp.var(x), 4 * n),
           ("std", lambda: cp.std(x), 4 * n),
           ("norm", lambda: cp.linalg.norm(x), 4 * n),
           ("row mean", lambda: cp.mean(m, axis=1), 4 * rows * cols)]
    print("stats_peers (CuPy %s): n = %d float32, matrix (%d, %d), median of %d" %
          (cp.__version__, n, rows, cols, repeats))
    reference = None
    for name, f, nbytes in ops:
        ms = timed(f)
        reference = reference or ms
        print("  %-16s %9.3f ms  %5.2fx sum  %8.1f GB/s (one read)" %
              (name, ms, ms / reference, nbytes / (ms * 1e6)))
    small = np.random.default_rng(1).standard_normal(1001).astype(np.float32)
    d = cp.asarray(small)
    for name, got, want in [("mean", cp.mean(d), np.mean(small)), ("var", cp.var(d), np.var(small)),
                            ("norm", cp.linalg.norm(d), np.linalg.norm(small))]:
        print("  cupy %s vs numpy: %.9g vs %.9g" % (name, float(got), float(want)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
