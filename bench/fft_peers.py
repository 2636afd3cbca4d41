#!/usr/bin/env python3
"""Peers of bench/fft_bench.c on the same cases (issue 27):

  CuPy (GPU, cuFFT): cp.fft.fft / rfft / fft2 with CuPy's plan cache warm;
  device time per call from cupyx.profiler.benchmark (median of its GPU
  times), as fft_bench measures kiln (events around one call).
  NumPy (CPU, pocketfft): wall time per call (median), for the comparison
  with PoCL (kiln's kernels on the same CPU).

Usage: python3 bench/fft_peers.py [--small] [--cpu-only] [--kiln-times FILE] [repeats]
(--small: the divided sizes fft_bench uses on a CPU device; --kiln-times:
fft_bench's times, "default|portable <case index> <ms>" lines, to print
the goals of issue 27 against CuPy measured here: kiln through the library
/ CuPy (goal <= 1.05) and kiln's own kernels' speed in % of cuFFT's (goal
>= 40 on powers of two; within 4x, i.e. >= 25 %, on the prime))
"""
import statistics
import sys
import time

import numpy as np

CASES = [  # name, op, dtype, GPU shape, small shape
    ("c2c complex64 2^24", "fft", np.complex64, (1 << 24,), (1 << 20,)),
    ("c2c complex128 2^24", "fft", np.complex128, (1 << 24,), (1 << 20,)),
    ("rfft float32 2^24", "rfft", np.float32, (1 << 24,), (1 << 20,)),
    ("fft2 complex64 4096x4096", "fft2", np.complex64, (4096, 4096), (1024, 1024)),
    ("batched 16384 x 1024 complex64", "fft", np.complex64, (16384, 1024), (1024, 1024)),
    ("prime 1000003 complex64", "fft", np.complex64, (1000003,), (100003,)),
]


def data(xp, dtype, shape):
    rng = np.random.default_rng(1)
    x = rng.random(shape) - 0.5
    if np.dtype(dtype).kind == "c":
        x = x - 0.5j * x
    return xp.asarray(x.astype(dtype))


def read_kiln_times(path):
    times = {}
    try:
        with open(path) as f:
            for line in f:
                kind, index, ms = line.split()
                times[(kind, int(index))] = float(ms)
    except (OSError, ValueError):
        pass
    return times


def cupy_times(repeats, small, kiln):
    try:
        import cupy as cp
        from cupyx.profiler import benchmark
        cp.cuda.runtime.getDeviceCount()
    except Exception as e:  # no CuPy or no GPU here
        print(f"CuPy: not measured ({type(e).__name__}: {e})")
        return
    print(f"CuPy {cp.__version__} (cuFFT), device ms per call (median of {repeats}):")
    if kiln:
        print(f"  {'case':34s} {'CuPy ms':>10s} {'kiln/CuPy':>10s} {'kernels % of cuFFT':>19s}")
    for index, (name, op, dtype, shape, small_shape) in enumerate(CASES):
        x = data(cp, dtype, small_shape if small else shape)
        f = getattr(cp.fft, op)
        f(x)  # plan into CuPy's cache
        r = benchmark(f, (x,), n_repeat=repeats, n_warmup=2)
        ms = statistics.median(r.gpu_times[0]) * 1e3
        default, portable = kiln.get(("default", index)), kiln.get(("portable", index))
        ratio = f"{default / ms:10.3f}" if default else f"{'-':>10s}"
        share = f"{100 * ms / portable:18.1f}%" if portable else f"{'-':>19s}"
        print(f"  {name:34s} {ms:10.3f}" + (f" {ratio} {share}" if kiln else ""))


def numpy_times(repeats, small):
    print(f"NumPy {np.__version__} (pocketfft, CPU), wall ms per call (median of {repeats}):")
    for name, op, dtype, shape, small_shape in CASES:
        x = data(np, dtype, small_shape if small else shape)
        f = getattr(np.fft, op)
        times = []
        for _ in range(repeats):
            t = time.perf_counter()
            f(x)
            times.append((time.perf_counter() - t) * 1e3)
        print(f"  {name:34s} {statistics.median(times):10.3f}")


def main():
    argv = sys.argv[1:]
    kiln = {}
    if "--kiln-times" in argv:
        at = argv.index("--kiln-times")
        kiln = read_kiln_times(argv[at + 1]) if at + 1 < len(argv) else {}
        del argv[at:at + 2]
    args = [a for a in argv if not a.startswith("--")]
    repeats = int(args[0]) if args else 10
    small = "--small" in argv
    if "--cpu-only" not in argv:
        cupy_times(repeats, small, kiln)
    numpy_times(min(repeats, 5), small)


if __name__ == "__main__":
    main()
