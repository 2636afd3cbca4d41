"""tests/sort_numpy.py: NumPy's side of test_sort's cross-check.

Usage: python sort_numpy.py IN OUT. IN holds float32 values; OUT receives,
one after another: np.argsort(a, kind='stable') (int64, n), np.sort(a,
kind='stable') (float32, n), then np.unique(a, return_index=True,
return_inverse=True, return_counts=True): the count k (int64), the values
(float32, k), index (int64, k), inverse (int64, n), counts (int64, k).

python sort_numpy.py IN OUT DTYPE DESCENDING: IN holds values of DTYPE
(complex64, complex128, ...); OUT receives the stable argsort (int64, n)
and sort (DTYPE, n), ascending, or with DESCENDING 1 kiln's descending
order: the keys reversed, equal ones in input order (the stable argsort
of the reversed input, mapped back and reversed)."""
import sys

import numpy as np

if len(sys.argv) > 3:
    a = np.fromfile(sys.argv[1], dtype=np.dtype(sys.argv[3]))
    if sys.argv[4] == "1":
        order = (a.size - 1 - np.argsort(a[::-1], kind="stable"))[::-1]
    else:
        order = np.argsort(a, kind="stable")
    with open(sys.argv[2], "wb") as out:
        order.astype(np.int64).tofile(out)
        a[order].tofile(out)
    sys.exit(0)

a = np.fromfile(sys.argv[1], dtype=np.float32)
values, index, inverse, counts = np.unique(a, return_index=True, return_inverse=True,
                                           return_counts=True)
with open(sys.argv[2], "wb") as out:
    np.argsort(a, kind="stable").astype(np.int64).tofile(out)
    np.sort(a, kind="stable").astype(np.float32).tofile(out)
    np.array([values.size], dtype=np.int64).tofile(out)
    values.astype(np.float32).tofile(out)
    index.astype(np.int64).tofile(out)
    inverse.reshape(-1).astype(np.int64).tofile(out)
    counts.astype(np.int64).tofile(out)
