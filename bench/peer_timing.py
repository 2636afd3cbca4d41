"""peer_timing: how the bench/*_peers.py scripts time CuPy (imported by
them; not a benchmark itself)."""
import statistics


def cupy_median_ms(cp, f, repeats):
    """Median device time (ms) of f() between two CUDA events, over
    `repeats` runs after three unmeasured ones."""
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    for _ in range(3):
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
