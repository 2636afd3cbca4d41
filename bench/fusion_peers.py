#!/usr/bin/env python3
"""fusion_peers: CuPy's times for what bench/fusion_bench.c measures, on the
same sizes, to put beside kiln's (docs/fusion.md):

  each chain plain (one CuPy call per step, as kiln unfused) and under
  @cupy.fuse (one kernel, CuPy's tracing fusion): hidden_layer, polynomial6,
  broadcast, l2_norm, mean_variance, user_chain; then one add of n float32
  (the reference fusion_bench uses). Device time between CUDA events around
  the chain, median of `repeats` after warm-up. Lines read
  `<name> plain <ms> fused <ms> ratio <fused/plain>` as kiln's.

Usage: fusion_peers.py [n [repeats]] (defaults 1e8, 20). Needs CuPy; prints
a reason and exits 0 without it (no GPU in CI).
"""
import sys

from peer_timing import cupy_median_ms


def main():
    n = int(float(sys.argv[1])) if len(sys.argv) > 1 else 100_000_000
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    try:
        import cupy as cp
    except ImportError as e:
        print(f"fusion_peers: CuPy not available ({e}); nothing measured")
        return 0

    rng = cp.random.default_rng(4)
    g = (rng.random(n, dtype=cp.float32) * 255).astype(cp.float32)
    w = rng.random(n, dtype=cp.float32) * 0.4 + 0.3
    x = rng.random(n, dtype=cp.float32) * 4 - 2
    rows = n // 100
    m = rng.random((rows, 100), dtype=cp.float32) * 2 - 1
    row = rng.random(100, dtype=cp.float32) * 2 - 1
    pairs = rng.random((rows, 2), dtype=cp.float32) * 1.5 + 0.5
    column = pairs[:, 0:1]
    def timed(f):
        return cupy_median_ms(cp, f, repeats)

    def hidden(g, w):
        v = (g / cp.float32(255)) * w
        return (cp.exp(v) - cp.exp(-v)) / (cp.exp(v) + cp.exp(-v))

    def poly(x):
        return ((x * cp.float32(0.25) + cp.float32(0.5)) * x + cp.float32(1.25)) * x - cp.float32(0.75)

    def broadcast(m, row, column):
        return cp.abs((m - row) * column)

    def norm(x):
        return cp.sqrt(cp.sum(x * x))

    def mean_variance(x):
        mean = cp.sum(x) / cp.float32(n)
        return mean, cp.sum(x * x) / cp.float32(n) - mean * mean

    def user(x):
        z = (x - cp.float32(0.5)) / cp.float32(1.5)
        p = cp.exp(cp.float32(-0.5) * z * z) / (cp.float32(1.5) * cp.float32(2.5066283))
        return cp.where(p < cp.float32(0.2), cp.float32(0), p)

    chains = [
        ("hidden_layer", hidden, (g, w)),
        ("polynomial6", poly, (x,)),
        ("broadcast", broadcast, (m, row, column)),
        ("l2_norm", norm, (x,)),
        ("mean_variance", mean_variance, (x,)),
        ("user_chain", user, (x,)),
    ]
    print(f"fusion_peers: CuPy {cp.__version__} on {cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}; "
          f"n {n} float32, median of {repeats}")
    for name, f, a in chains:
        plain_ms = timed(lambda: f(*a))
        try:  # @cupy.fuse takes one reduction, at the end: mean_variance may not fuse
            fused = cp.fuse(f)
            fused_ms = timed(lambda: fused(*a))
        except Exception as e:  # noqa: BLE001 (any CuPy refusal is a result to print)
            print(f"{name} plain {plain_ms:.3f} fused n/a ({type(e).__name__}: {e})")
            continue
        print(f"{name} plain {plain_ms:.3f} fused {fused_ms:.3f} ratio {fused_ms / plain_ms:.3f}")
    y = cp.empty_like(g)
    add_ms = timed(lambda: cp.add(g, w, out=y))
    print(f"add_reference {add_ms:.3f} (one add of n float32)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
