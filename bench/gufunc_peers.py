#!/usr/bin/env python3
"""gufunc_peers: the peers of bench/gufunc_bench.c on the same data and
sizes: l2_norm over an (n, 4) float32 array (default n = 1e7) with
  - CuPy:  cupy.linalg.norm(v, axis=1)
  - Numba: @guvectorize(['void(float32[:], float32[:])'], '(n)->()',
           target='cuda'), output given as a device array
  - CuPy:  a device copy of v (copy bandwidth, bytes read + written)
Device time of one call between two CUDA events of the library's own,
median of `repeats` after 5 warm-up calls; results checked against NumPy.
Then cp.mean(axis=1) over an (n / 10, 100) float32 array (gufunc_bench's
long-core-dim average).
Usage: python3 bench/gufunc_peers.py [n [repeats]]
(CuPy 14, Numba 0.68, NumPy 2.x; Numba needs np.row_stack restored.)"""
import math
import sys

import numpy as np

np.row_stack = np.vstack  # removed in NumPy 2, still imported by Numba 0.68

import cupy as cp  # noqa: E402
from numba import cuda, guvectorize  # noqa: E402


@guvectorize(['void(float32[:], float32[:])'], '(n)->()', target='cuda')
def l2_norm(vec, out):
    acc = 0.0
    for i in range(vec.shape[0]):
        acc += vec[i] * vec[i]
    out[0] = math.sqrt(acc)


def median_ms(call, record_start, record_stop, elapsed, repeats):
    for _ in range(5):
        call()
    times = []
    for _ in range(repeats):
        start, stop = record_start(), None
        call()
        stop = record_stop()
        times.append(elapsed(start, stop))
    times.sort()
    mid = len(times) // 2
    return times[mid] if len(times) % 2 else 0.5 * (times[mid - 1] + times[mid])


def cupy_events():
    def start():
        e = cp.cuda.Event()
        e.record()
        return e

    def stop():
        e = cp.cuda.Event()
        e.record()
        e.synchronize()
        return e

    return start, stop, lambda a, b: cp.cuda.get_elapsed_time(a, b)


def numba_events():
    def start():
        e = cuda.event()
        e.record()
        return e

    def stop():
        e = cuda.event()
        e.record()
        e.synchronize()
        return e

    return start, stop, lambda a, b: cuda.event_elapsed_time(a, b)


def main():
    n = int(float(sys.argv[1])) if len(sys.argv) > 1 else 10_000_000
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 50
    rng = np.random.default_rng(1)
    host = rng.uniform(-1, 1, size=(n, 4)).astype(np.float32)
    want = np.sqrt((host.astype(np.float64) ** 2).sum(axis=1))
    l2_bytes, copy_bytes = 20.0 * n, 32.0 * n
    print(f"gufunc_peers on {cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}: "
          f"l2_norm over ({n}, 4) float32, median of {repeats} repeats")

    v = cp.asarray(host)
    copy_out = cp.empty_like(v)
    t_copy = median_ms(lambda: cp.copyto(copy_out, v), *cupy_events(), repeats)
    print(f"cupy copy      {t_copy:.4f} ms  {copy_bytes / (t_copy * 1e-3) / 1e9:7.1f} GB/s "
          "(read + written: the copy bandwidth)")
    result = {}

    def cupy_call():
        result['cupy'] = cp.linalg.norm(v, axis=1)

    t_cupy = median_ms(cupy_call, *cupy_events(), repeats)
    err = np.max(np.abs(cp.asnumpy(result['cupy']) - want) / np.maximum(want, 1e-30))
    print(f"cupy norm      {t_cupy:.4f} ms  {l2_bytes / (t_cupy * 1e-3) / 1e9:7.1f} GB/s  "
          f"max rel. error {err:.2g}")

    d_v = cuda.to_device(host)
    d_out = cuda.device_array(n, dtype=np.float32)
    t_numba = median_ms(lambda: l2_norm(d_v, d_out), *numba_events(), repeats)
    err = np.max(np.abs(d_out.copy_to_host() - want) / np.maximum(want, 1e-30))
    print(f"numba gufunc   {t_numba:.4f} ms  {l2_bytes / (t_numba * 1e-3) / 1e9:7.1f} GB/s  "
          f"max rel. error {err:.2g}")
    best = min(t_cupy, t_numba)
    print(f"faster peer {best:.4f} ms; kiln's goal <= 0.6x that = {0.6 * best:.4f} ms "
          f"(compare gufunc_bench's 'gufunc l2' line)")

    rows = max(n // 10, 1)
    wide_host = rng.uniform(-1, 1, size=(rows, 100)).astype(np.float32)
    wide = cp.asarray(wide_host)
    means = {}

    def cupy_mean():
        means['cupy'] = cp.mean(wide, axis=1)

    t_mean = median_ms(cupy_mean, *cupy_events(), repeats)
    err = np.max(np.abs(cp.asnumpy(means['cupy']) - wide_host.astype(np.float64).mean(axis=1)))
    print(f"cupy mean      {t_mean:.4f} ms  {4.0 * 100 * rows / (t_mean * 1e-3) / 1e9:7.1f} GB/s "
          f"read  over ({rows}, 100)  max abs. error {err:.2g} (compare gufunc_bench's "
          "'gufunc average' line)")


if __name__ == '__main__':
    main()
