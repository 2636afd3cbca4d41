#!/usr/bin/env python3
"""reduce_peers: the peers' times for what bench/reduce_bench.c measures,
on the same sizes, to put beside kiln's (docs/performance.md):

  CuPy (CUDA): cupy.sum of n float32, row and column sums of a (rows, cols)
  float32 matrix, cupy.argmax, cupy.cumsum, and a device copy as the same
  reference reduce_bench uses; device time between CUDA events, median of
  `repeats` after warm-up.
  PyOpenCL (optional, --opencl): a ReductionKernel sum of n float32 on the
  OpenCL device whose platform name contains --platform (default
  "Portable", i.e. PoCL), wall time of call + finish.

Also prints whether CuPy's cumsum gives the same bits twice (cupy#8350).
Usage: reduce_peers.py [n [rows [cols [repeats]]]] [--opencl] [--platform=P]
Needs CuPy 14 (and PyOpenCL for --opencl); NumPy 2.x.
"""
import statistics
import sys
import time

import numpy as np
from peer_timing import cupy_median_ms


def args():
    nums = [a for a in sys.argv[1:] if not a.startswith("--")]
    n = int(float(nums[0])) if len(nums) > 0 else 100_000_000
    rows = int(float(nums[1])) if len(nums) > 1 else 1_000_000
    cols = int(float(nums[2])) if len(nums) > 2 else 100
    repeats = int(nums[3]) if len(nums) > 3 else 20
    platform = "Portable"
    for a in sys.argv[1:]:
        if a.startswith("--platform="):
            platform = a.split("=", 1)[1]
    return n, rows, cols, repeats, "--opencl" in sys.argv, platform


def cupy_times(n, rows, cols, repeats):
    import cupy as cp

    x = cp.full(n, 0.5, dtype=cp.float32)
    y = cp.empty_like(x)
    m = cp.full((rows, cols), 0.5, dtype=cp.float32)
    def timed(f):
        return cupy_median_ms(cp, f, repeats)

    ops = [
        ("copy (reference)", lambda: cp.copyto(y, x), n * 8),
        ("sum", lambda: cp.sum(x), n * 4),
        ("row sum (axis 1)", lambda: cp.sum(m, axis=1), rows * cols * 4),
        ("column sum (axis 0)", lambda: cp.sum(m, axis=0), rows * cols * 4),
        ("max", lambda: cp.max(x), n * 4),
        ("min", lambda: cp.min(x), n * 4),
        ("argmax", lambda: cp.argmax(x), n * 4),
        ("cumsum", lambda: cp.cumsum(x), n * 8),
    ]
    print(f"CuPy {cp.__version__} on {cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}:"
          f" n {n}, matrix ({rows}, {cols}) float32, median of {repeats}")
    print(f"{'operation':22s} {'ms':>10s} {'GB/s':>10s} {'of copy BW':>12s}")
    copy_gbs = None
    for name, f, nbytes in ops:
        ms = timed(f)
        gbs = nbytes / (ms * 1e6)
        copy_gbs = copy_gbs or gbs
        print(f"{name:22s} {ms:10.3f} {gbs:10.1f} {100 * gbs / copy_gbs:11.1f}%")
    r = cp.random.default_rng(1).random(n, dtype=cp.float32)
    a, b = cp.cumsum(r), cp.cumsum(r)
    same = bool(cp.all(a.view(cp.uint32) == b.view(cp.uint32)))
    print(f"cupy.cumsum twice on the same random data: {'same' if same else 'DIFFERENT'} bits")
    s = float(cp.sum(r, dtype=cp.float32))
    ref = float(cp.sum(r, dtype=cp.float64))
    print(f"cupy.sum float32 relative error vs float64: {abs(s - ref) / ref:.3g}")


def pyopencl_times(n, repeats, platform):
    import pyopencl as cl
    from pyopencl.reduction import ReductionKernel
    import pyopencl.array as cla

    devices = [d for p in cl.get_platforms() if platform.lower() in p.name.lower()
               for d in p.get_devices()]
    if not devices:
        print(f"PyOpenCL: no platform matching {platform!r}")
        return
    ctx = cl.Context([devices[0]])
    queue = cl.CommandQueue(ctx)
    x = cla.to_device(queue, np.full(n, 0.5, dtype=np.float32))
    krnl = ReductionKernel(ctx, np.float32, neutral="0", reduce_expr="a+b",
                           map_expr="x[i]", arguments="__global const float *x")
    for _ in range(3):
        krnl(x).get()
    ms = []
    for _ in range(repeats):
        t = time.perf_counter()
        krnl(x, queue=queue)
        queue.finish()
        ms.append((time.perf_counter() - t) * 1e3)
    med = statistics.median(ms)
    print(f"PyOpenCL ReductionKernel sum on {devices[0].name.strip()}: {med:.3f} ms "
          f"({n * 4 / (med * 1e6):.1f} GB/s), wall time, median of {repeats}")


def main():
    n, rows, cols, repeats, opencl, platform = args()
    try:
        cupy_times(n, rows, cols, repeats)
    except ImportError as e:
        print(f"CuPy: not available ({e})")
    if opencl:
        try:
            pyopencl_times(n, repeats, platform)
        except ImportError as e:
            print(f"PyOpenCL: not available ({e})")


if __name__ == "__main__":
    main()
