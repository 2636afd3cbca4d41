"""NumPy's side of tests/test_stats_numpy.c: reads the manifest the test
wrote (one case a line: key=value fields, raw input files and kiln's raw
result), recomputes each case with NumPy 2 and compares. Prints every
disagreement; exits 1 if there was one.

Tolerances: mean/var/std/norm are float sums whose order differs from
NumPy's pairwise summation, so rtol 1e-5 for float32 results and 1e-12 for
float64 (the dtype of the result is compared exactly); norm ord 0, inf and
-inf, isclose, allclose, arange and linspace are compared bit for bit.
"""
import sys
import warnings

import numpy as np


def parse(line):
    return dict(f.split("=", 1) for f in line.split())


def axis_of(s):
    if s == "none":
        return None
    parts = tuple(int(x) for x in s.split(","))
    return parts[0] if len(parts) == 1 else parts


def dtype_of(s):
    return None if s == "none" else np.dtype(s)


def got_of(c, shape):
    got = np.fromfile(c["got"], dtype=np.dtype(c["gotdtype"]))
    return got.reshape(shape)


def compare(c, want, got, exact, problems):
    name = " ".join(f"{k}={v}" for k, v in c.items() if k not in ("in", "got", "a", "b"))
    if want.dtype != got.dtype:
        problems.append(f"{name}: dtype {got.dtype}, NumPy's {want.dtype}")
        return
    if want.shape != got.shape:
        problems.append(f"{name}: shape {got.shape}, NumPy's {want.shape}")
        return
    if exact:
        same = want.tobytes() == got.tobytes()
    else:
        rtol = 1e-5 if want.dtype == np.float32 else 1e-12
        same = np.allclose(got, want, rtol=rtol, atol=0, equal_nan=True)
    if not same:
        g, w = got.ravel(), want.ravel()
        if exact:
            bad = np.flatnonzero([x.tobytes() != y.tobytes() for x, y in zip(g, w)])
        else:
            bad = np.flatnonzero(~np.isclose(g, w, rtol=rtol, atol=0, equal_nan=True))
        i = int(bad[0]) if bad.size else 0
        problems.append(f"{name}: element {i} is {g[i]!r}, NumPy's {w[i]!r}"
                        f" ({bad.size} of {want.size} differ)")


def run_case(c, problems):
    op = c["op"]
    if op in ("mean", "var", "std", "norm"):
        shape = tuple(int(x) for x in c["shape"].split(","))
        x = np.fromfile(c["in"], dtype=np.dtype(c["dtype"])).reshape(shape)
        axis, keep = axis_of(c["axis"]), bool(int(c["keepdims"]))
        if op == "mean":
            want = np.asarray(np.mean(x, axis=axis, keepdims=keep))
        elif op in ("var", "std"):
            f = np.var if op == "var" else np.std
            want = np.asarray(f(x, axis=axis, ddof=int(c["ddof"]), keepdims=keep))
        else:
            ords = {"none": None, "fro": "fro", "inf": np.inf, "-inf": -np.inf}
            ord_ = ords[c["ord"]] if c["ord"] in ords else float(c["ord"])
            want = np.asarray(np.linalg.norm(x, ord=ord_, axis=axis, keepdims=keep))
        got = got_of(c, want.shape)
        exact = op == "norm" and c["ord"] in ("0", "inf", "-inf")
        compare(c, want, got, exact, problems)
        if "item" in c and want.ndim == 0:
            item = float.fromhex(c["item"])
            if not np.isclose(item, float(want), rtol=1e-5 if want.dtype == np.float32 else 1e-12,
                              atol=0, equal_nan=True):
                problems.append(f"{op} item(): {item!r}, NumPy's {want.item()!r}")
    elif op == "isclose":
        dt = np.dtype(c["dtype"])
        a, b = np.fromfile(c["a"], dtype=dt), np.fromfile(c["b"], dtype=dt)
        rtol, atol, eq = float.fromhex(c["rtol"]), float.fromhex(c["atol"]), bool(int(c["equal_nan"]))
        want = np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=eq)
        compare(c, want, got_of(c, want.shape), True, problems)
        for key, aa, bb, rt, at in (("all", a, b, rtol, atol),
                                    ("all_prefix", a[1:31], b[1:31], 1e-3, 1e-8)):
            w = bool(np.allclose(aa, bb, rtol=rt, atol=at, equal_nan=eq))
            if int(c[key]) != int(w):
                problems.append(f"allclose ({key}) {c['dtype']} equal_nan={eq}: {c[key]}, "
                                f"NumPy's {int(w)}")
    elif op == "arange":
        ints = int(c["ints"])
        conv = (lambda s: int(float.fromhex(s))) if ints else float.fromhex
        want = np.arange(conv(c["start"]), conv(c["stop"]), conv(c["step"]),
                         dtype=dtype_of(c["dtype"]))
        compare(c, want, got_of(c, want.shape), True, problems)
    elif op == "linspace":
        want, step = np.linspace(float.fromhex(c["start"]), float.fromhex(c["stop"]),
                                 int(c["num"]), endpoint=bool(int(c["endpoint"])), retstep=True,
                                 dtype=dtype_of(c["dtype"]))
        compare(c, want, got_of(c, want.shape), True, problems)
        got_step = float.fromhex(c["retstep"])
        if not (got_step == step or (np.isnan(got_step) and np.isnan(step))):
            problems.append(f"linspace retstep {got_step!r}, NumPy's {step!r} ({c})")
    else:
        problems.append(f"unknown op {op}")


def main():
    problems = []
    cases = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ddof >= n: NumPy warns and gives NaN, as kiln
        with open(sys.argv[1]) as f:
            for line in f:
                if line.strip():
                    run_case(parse(line), problems)
                    cases += 1
    for p in problems:
        print("MISMATCH", p)
    print(f"stats_numpy: {cases} cases, {len(problems)} disagree with NumPy {np.__version__}")
    sys.exit(1 if problems or cases == 0 else 0)


if __name__ == "__main__":
    main()
