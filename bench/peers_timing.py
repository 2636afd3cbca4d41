"""peers_timing: what the bench/*_peers.py scripts share (imported, never
run by itself): the median device time of a CuPy call between CUDA events.
"""
import statistics


def cuda_median_ms(cp, f, repeats, warmup=3):
    """Median over `repeats` calls of f()'s device time (ms), each between
    two CUDA events on the current stream, after `warmup` calls."""
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
