#!/usr/bin/env python3
"""Peers of bench/matmul_bench.c on the same sizes and data layout
(C-contiguous, values uniform in [-0.5, 0.5)):

  CuPy (GPU): cp.matmul(a, b, out=c) and cp.matmul(a, b) (allocating from
  CuPy's pool), cp.dot for the 1000x1000 case; device time per call from
  cupyx.profiler.benchmark (median of its GPU times), as matmul_bench
  measures kiln (events around one call).
  NumPy (CPU): np.matmul with out=, wall time per call (median), for the
  comparison with PoCL (CLBlast and kiln's portable kernel on the same CPU);
  the 4096^3 and 8192^3 squares, and float16 (NumPy's float16 matmul is a
  plain loop, seconds per call), only with --all.

Usage: python3 bench/matmul_peers.py [--cpu-only] [--all] [repeats]
"""
import statistics
import sys
import time

import numpy as np

CASES = [
    ("1024x2048 @ 2048x512", np.float32, 1024, 2048, 512, False),
    ("1024x2048 @ 2048x512", np.float64, 1024, 2048, 512, False),
    ("dot 1000x1000 @ 1000x1000", np.float32, 1000, 1000, 1000, False),
    ("4096^3", np.float32, 4096, 4096, 4096, True),
    ("4096^3", np.float64, 4096, 4096, 4096, True),
    ("8192^3", np.float32, 8192, 8192, 8192, True),
    ("8192^3", np.float64, 8192, 8192, 8192, True),
    ("1024x2048 @ 2048x512", np.float16, 1024, 2048, 512, False),
    ("8192^3", np.float16, 8192, 8192, 8192, True),
    ("1024x2048 @ 2048x512", np.complex64, 1024, 2048, 512, False),
    ("1024x2048 @ 2048x512", np.complex128, 1024, 2048, 512, False),
]


def data(dtype, m, k, n):
    rng = np.random.default_rng(1)
    a = rng.random((m, k)) - 0.5
    b = rng.random((k, n)) - 0.5
    if np.dtype(dtype).kind == "c":  # as matmul_bench: v - v/2 i
        a, b = a - 0.5j * a, b - 0.5j * b
    return a.astype(dtype), b.astype(dtype)


def cupy_times(repeats):
    try:
        import cupy as cp
        from cupyx.profiler import benchmark
    except Exception as e:  # no CuPy or no GPU here
        print(f"CuPy: not available ({e})")
        return
    print(f"CuPy {cp.__version__} on {cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}")
    print(f"{'case':28s} {'dtype':8s} {'out= ms':>10s} {'alloc ms':>10s} {'TFLOP/s':>8s}")
    for name, dtype, m, k, n, _ in CASES:
        a, b = (cp.asarray(x) for x in data(dtype, m, k, n))
        c = cp.empty((m, n), dtype=dtype)
        big = m >= 8192
        reps = max(3, repeats // 4) if big else repeats
        if name.startswith("dot"):
            with_out = benchmark(cp.dot, (a, b, c), n_repeat=reps, n_warmup=2)
            alloc = benchmark(cp.dot, (a, b), n_repeat=reps, n_warmup=2)
        else:
            with_out = benchmark(lambda: cp.matmul(a, b, out=c), (), n_repeat=reps, n_warmup=2)
            alloc = benchmark(cp.matmul, (a, b), n_repeat=reps, n_warmup=2)
        t_out = statistics.median(with_out.gpu_times[0]) * 1e3
        t_alloc = statistics.median(alloc.gpu_times[0]) * 1e3
        tflops = 2.0 * m * n * k / (t_out * 1e9)
        print(f"{name:28s} {np.dtype(dtype).name:8s} {t_out:10.4f} {t_alloc:10.4f} {tflops:8.2f}")


def numpy_times(repeats, everything):
    print(f"NumPy {np.__version__} on the CPU")
    print(f"{'case':28s} {'dtype':8s} {'ms':>10s} {'GFLOP/s':>9s}")
    for name, dtype, m, k, n, large in CASES:
        if (large or dtype == np.float16) and not everything:
            continue
        a, b = data(dtype, m, k, n)
        c = np.empty((m, n), dtype=dtype)
        times = []
        for r in range(repeats + 1):
            t0 = time.perf_counter()
            np.matmul(a, b, out=c)
            if r:
                times.append((time.perf_counter() - t0) * 1e3)
        t = statistics.median(times)
        print(f"{name:28s} {np.dtype(dtype).name:8s} {t:10.4f} {2.0 * m * n * k / (t * 1e6):9.1f}")


def main():
    args = [x for x in sys.argv[1:] if not x.startswith("--")]
    repeats = int(args[0]) if args else 20
    if "--cpu-only" not in sys.argv:
        cupy_times(repeats)
    numpy_times(max(3, repeats // 4), "--all" in sys.argv)


if __name__ == "__main__":
    main()
