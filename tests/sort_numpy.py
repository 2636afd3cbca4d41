"""tests/sort_numpy.py: NumPy's side of test_sort's cross-check.

Usage: python sort_numpy.py IN OUT. IN holds float32 values; OUT receives,
one after another: np.argsort(a, kind='stable') (int64, n), np.sort(a,
kind='stable') (float32, n), then np.unique(a, return_index=True,
return_inverse=True, return_counts=True): the count k (int64), the values
(float32, k), index (int64, k), inverse (int64, n), counts (int64, k)."""
import sys

import numpy as np

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
