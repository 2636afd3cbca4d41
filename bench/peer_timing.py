"""peer_timing: how the bench/*_peers.py scripts time CuPy (imported by
them; not a benchmark itself). One copy, so every peer script measures the
same way (fusion, random, reduce, scan, search, sort, stats)."""
import statistics


def cupy_median_ms(cp, f, repeats, warmup=3):
    """Median device time (ms) of f() between two CUDA events on the current
    stream, over `repeats` runs after `warmup` unmeasured ones."""
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    for _ in range(warmup):
        f()
    cp.cuda.Device().synchronize()
    ms = []
    for _ in range(repeats):
        start.record()
        f()
        stop.record()
        stop.synchronize()
        ms.append(cp.cuda.get_elapsed_time(start, stop))
    return statistics.median(ms)
