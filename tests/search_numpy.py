"""NumPy's side of tests/test_search.c and test_indexing.c: computes one
call on operands the test wrote as raw files and writes the result's raw
bytes to --out (for histogram: the counts, then the edges).

  histogram --a FILE --dtype D [--bins N | --edges FILE --edges-dtype D]
            [--range LO HI] [--weights FILE --weights-dtype D]
"""
import argparse
import sys
import warnings

import numpy as np


def load(path, dtype):
    return np.fromfile(path, dtype=np.dtype(dtype))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("op")
    p.add_argument("--a")
    p.add_argument("--dtype")
    p.add_argument("--bins", type=int)
    p.add_argument("--edges")
    p.add_argument("--edges-dtype")
    p.add_argument("--range", nargs=2, type=float)
    p.add_argument("--weights")
    p.add_argument("--weights-dtype")
    p.add_argument("--out", required=True)
    args = p.parse_args()
    if args.op != "histogram":
        sys.exit(f"unknown op {args.op}")
    a = load(args.a, args.dtype)
    bins = load(args.edges, args.edges_dtype) if args.edges else args.bins
    weights = load(args.weights, args.weights_dtype) if args.weights else None
    rng = tuple(args.range) if args.range else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # bool input: NumPy warns it converts to uint8
        hist, edges = np.histogram(a, bins=bins, range=rng, weights=weights)
    with open(args.out, "wb") as f:
        f.write(np.ascontiguousarray(hist).tobytes())
        f.write(np.ascontiguousarray(edges).tobytes())


if __name__ == "__main__":
    main()
