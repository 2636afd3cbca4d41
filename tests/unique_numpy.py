"""tests/unique_numpy.py: NumPy's side of test_unique's cross-check.

Usage: python unique_numpy.py IN OUT. IN holds cases one after another:
the dtype's name (int32 length, then the name as kiln_dtype_name gives
it), n (int64), n elements. OUT receives for each case np.unique(a,
return_index=True, return_inverse=True, return_counts=True): the count k
(int64), the values (k elements of a's dtype), index (int64, k), inverse
(int64, n), counts (int64, k)."""
import sys

import numpy as np

with open(sys.argv[1], "rb") as f:
    data = f.read()
at = 0
with open(sys.argv[2], "wb") as out:
    while at < len(data):
        length = int(np.frombuffer(data, np.int32, 1, at)[0])
        name = data[at + 4:at + 4 + length].decode()
        at += 4 + length
        n = int(np.frombuffer(data, np.int64, 1, at)[0])
        at += 8
        dtype = np.dtype(name)
        a = np.frombuffer(data, dtype, n, at)
        at += n * dtype.itemsize
        values, index, inverse, counts = np.unique(a, return_index=True, return_inverse=True,
                                                   return_counts=True)
        np.array([values.size], dtype=np.int64).tofile(out)
        values.astype(dtype).tofile(out)
        index.astype(np.int64).tofile(out)
        inverse.reshape(-1).astype(np.int64).tofile(out)
        counts.astype(np.int64).tofile(out)
