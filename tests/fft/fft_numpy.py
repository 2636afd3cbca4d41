"""tests/fft/fft_numpy.py: kiln's FFT against numpy.fft (docs/fft.md).

Makes cases (every transform, dtype and norm; sizes 1, 2, primes, powers
of two, products of small primes, primes that go to Bluestein; crop and
pad; batch dims; reversed and strided views; out and streams; host
input and out, strided; bad arguments), runs them through tests/fft/fft_driver and compares with
NumPy. The bound: relative RMS error <= C * eps(dtype) * log2(N) with N
the transform's size (Bluestein: its padded length), C = 6 (docs/fft.md).
Bad arguments must fail where NumPy raises. Under KILN_FFT=vendor (the
driver's path "vendor: ...") a case the library cannot plan (clFFT: a
prime factor above 13) is UNIMPLEMENTED by design: counted and printed,
not a failure. Exit 77 when no device."""
import argparse
import math
import subprocess
import sys

import numpy as np

C = 6.0
KILN_DTYPE = {np.dtype(t): n for t, n in [
    ("complex64", "complex64"), ("complex128", "complex128"), ("float32", "float32"),
    ("float64", "float64"), ("float16", "float16"), ("int32", "int32"), ("bool", "bool"),
    ("int64", "int64")]}
NP_DTYPE = {v: k for k, v in KILN_DTYPE.items()}


def bluestein_size(n):
    r = n
    for p in (2, 3, 5, 7, 11, 13):
        while r % p == 0:
            r //= p
    if r == 1:
        return n
    m = 1
    while m < 2 * n - 1:
        m *= 2
    return 2 * m  # two transforms of m and the filter's


class Driver:
    def __init__(self, path):
        self.p = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def run(self, case, x, host=False):
        op, s, axes, norm, out, stream, steps, transpose = case
        toks = [op, KILN_DTYPE[x.dtype], str(x.ndim)] + [str(d) for d in x.shape]
        toks += [str(t) for t in steps] + [str(int(transpose))]
        toks += ["-1"] if s is None else [str(len(s))] + [str(v) for v in s]
        toks += ["-1"] if axes is None else [str(len(axes))] + [str(v) for v in axes]
        toks += [norm or "-", str(int(out)), str(int(stream)), str(int(host))]
        self.p.stdin.write((" ".join(toks) + "\n").encode())
        self.p.stdin.write(np.ascontiguousarray(x).tobytes())
        self.p.stdin.flush()
        line = self.p.stdout.readline().decode()
        if not line:
            raise RuntimeError("driver exited")
        f = line.split()
        if f[0] != "ok":
            return None, line.strip()
        dt = np.dtype(f[1])
        shape = tuple(int(v) for v in f[3:3 + int(f[2])])
        nbytes = int(np.prod(shape, dtype=np.int64)) * dt.itemsize
        data = self.p.stdout.read(nbytes)
        return np.frombuffer(data, dtype=dt).reshape(shape), line.strip()


def numpy_call(case, x):
    op, s, axes, norm = case[:4]
    op = op.replace("plan_", "")
    f = getattr(np.fft, op)
    if op in ("fft", "ifft", "rfft", "irfft"):
        return f(x, n=None if s is None or s[0] == -1 else s[0],
                 axis=-1 if axes is None else axes[0], norm=norm)
    kw = {}
    if s is not None:
        kw["s"] = s
    if axes is not None:
        kw["axes"] = axes
    return f(x, norm=norm, **kw)


def random_input(rng, dtype, shape):
    dtype = np.dtype(dtype)
    if dtype.kind == "c":
        return (rng.uniform(-1, 1, shape) + 1j * rng.uniform(-1, 1, shape)).astype(dtype)
    if dtype.kind == "b":
        return rng.integers(0, 2, shape).astype(bool)
    if dtype.kind == "i":
        return rng.integers(-50, 50, shape).astype(dtype)
    return rng.uniform(-1, 1, shape).astype(dtype)


def make_cases(rng, quick):
    cases = []  # (op, s, axes, norm, out, stream, steps, transpose, dtype, shape)
    sizes = [1, 2, 3, 4, 5, 7, 8, 11, 13, 16, 17, 30, 64, 97, 105, 128, 243, 1000, 1009,
             1024, 2018, 160, 2 ** 12, 3 ** 5 * 5 * 7, 10007, 2 ** 16]
    if not quick:
        sizes += [65537]
    norms = [None, "backward", "ortho", "forward"]
    for n in sizes:
        for op in ("fft", "ifft", "rfft", "irfft"):
            for dt in ("complex64", "complex128") if op != "rfft" else ("float32", "float64"):
                norm = norms[rng.integers(4)]
                batch = 3 if n <= 4096 else 1
                cases.append((op, None, None, norm, False, False, [1, 1], False, dt, (batch, n)))
    # other dtypes (promotion), crop and pad, axes, views, out, streams
    for dt in ("float16", "float32", "float64", "int32", "bool", "complex64"):
        for op in ("fft", "ifft", "rfft", "irfft"):
            if op == "rfft" and dt.startswith("complex"):
                continue
            cases.append((op, None, [0], "ortho", False, False, [1, 1], False, dt, (12, 3)))
    for op in ("fft", "ifft", "rfft", "irfft", "plan_fftn"):
        dt = "float64" if op == "rfft" else "complex128"
        for n in (5, 16, 31):
            cases.append((op, [n] if op != "plan_fftn" else [n], [1], None, False, False,
                          [1, 1, 1], False, dt, (2, 20, 3)))
        cases.append((op, None, [-2], "forward", True, True, [-1, 2, 1], False, dt, (4, 14, 3)))
        cases.append((op, None, [0], None, True, False, [2, -1], True, dt, (6, 10)))
    # 2-D and N-D
    for op in ("fft2", "ifft2", "fftn", "ifftn", "rfftn", "irfftn", "plan_rfftn",
               "plan_irfftn", "plan_ifftn"):
        dt = "float32" if "rfftn" in op and "irfftn" not in op else "complex64"
        cases.append((op, None, None, None, False, False, [1, 1, 1], False, dt, (3, 8, 6)))
        cases.append((op, None, None, "ortho", True, True, [-1, 1, 2], False, dt, (5, 7, 18)))
        if op not in ("fft2", "ifft2"):
            cases.append((op, [6, 9], [0, 2], "forward", False, False, [1, 1, 1], False, dt,
                          (4, 3, 10)))
            cases.append((op, [4, 5, 7], [0, 1, 2], None, False, False, [1, 1, 1], True,
                          dt.replace("64", "128").replace("32", "64"), (3, 6, 9)))
        else:
            cases.append((op, [5, 12], [0, 2], None, False, False, [1, 1, 1], False, dt,
                          (4, 3, 10)))
    cases.append(("fftn", None, [1, 1], None, False, False, [1, 1], False, "complex64", (3, 6)))
    # non-last axes of contiguous arrays, transformed where they lie (the
    # column form of the passes; a fused length runs as radix-16 passes
    # there): axis 0 and a middle axis, odd inner sizes, Bluestein beside
    for op, axes, dt, shape in (("fft", [0], "complex64", (256, 24)),
                                ("ifft", [1], "complex128", (3, 1024, 5)),
                                ("fft", [0], "complex64", (4096, 3)),
                                ("fft", [0], "complex128", (97, 4)),
                                ("fft2", None, "complex128", (512, 40)),
                                ("ifft2", None, "complex64", (2, 96, 33)),
                                ("fftn", None, "complex64", (16, 32, 12)),
                                ("ifftn", [0, 2], "complex128", (60, 7, 16))):
        cases.append((op, None, axes, "ortho" if dt == "complex128" else None, False, False,
                      [1] * len(shape), False, dt, shape))
    for op in ("irfftn", "rfftn", "fftn"):
        cases.append((op, None, None, "ortho", False, False, [1, 1], False, "float16", (4, 6)))
    # bad arguments (NumPy raises)
    bad = [("fft", [0], None), ("fft", [-2], None), ("ifft", None, [2]), ("rfft", None, [-3]),
           ("fftn", [4, 4], [0]), ("irfft", None, None), ("fft", None, None)]
    for op, s, axes in bad:
        shape = (0,) if op == "fft" and s is None else (4, 1) if op == "irfft" else (4, 6)
        cases.append((op, s, axes, None, False, False, [1] * len(shape), False, "complex64", shape))
    cases.append(("fft", None, None, "sideways", False, False, [1, 1], False, "complex64", (2, 4)))
    cases.append(("rfft", None, None, None, False, False, [1, 1], False, "complex64", (2, 4)))
    # host operands (an 11th entry): the input a strided / reversed view of
    # host memory, the result written to host memory (C order, or Fortran
    # order with out), on the default stream or another
    host = []
    for op in ("fft", "ifft", "rfft", "irfft", "fft2", "rfftn", "irfftn", "plan_fftn"):
        dt = "float32" if op in ("rfft", "rfftn") else "complex64"
        host.append((op, None, None, None, False, False, [1, 1, 1], False, dt, (2, 5, 12)))
        host.append((op, None, None, "ortho", True, True, [-1, 2, -1], False, dt, (3, 8, 10)))
        host.append((op, None, None, "forward", True, False, [1, -1, 1], True,
                     dt.replace("64", "128").replace("32", "64"), (7, 6, 2)))
    host.append(("fft", [0], None, None, False, False, [1], False, "complex64", (4,)))
    return cases + [c + (True,) for c in host]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--driver", required=True)
    ap.add_argument("--seed", type=int, default=27)
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    drv = Driver(args.driver)
    first = drv.p.stdout.readline().decode().strip()
    if not first.startswith("ready"):
        print("fft_numpy: SKIP:", first or "the driver exited")
        return 77
    print("fft_numpy: path:", first[6:])
    vendor_only = first[6:].startswith("vendor:")
    failures = checked = errors = refused = 0
    worst = 0.0
    for case in make_cases(rng, args.quick):
        op, s, axes, norm, out, stream, steps, transpose, dt, shape = case[:10]
        host = len(case) > 10 and case[10]
        x = random_input(rng, dt, shape)
        view = x[tuple(slice(None, None, st) for st in steps)]
        if transpose:
            view = view.T
        try:
            want = numpy_call(case, view)
            want_err = None
        except Exception as e:  # noqa: BLE001 - any NumPy error means kiln must fail too
            want, want_err = None, f"{type(e).__name__}: {e}"
        if drv.p.poll() is not None:
            break
        got, line = drv.run(case[:8], x, host)
        label = f"{op} {dt}{shape} steps={steps} T={transpose} s={s} axes={axes} norm={norm} out={out} stream={stream} host={host}"
        if want_err is not None:
            errors += 1
            if got is not None:
                failures += 1
                print(f"FAIL {label}: NumPy raised ({want_err}); kiln returned a result")
            continue
        if got is None and vendor_only and "KILN_ERROR_UNIMPLEMENTED" in line:
            refused += 1
            continue
        if got is None:
            failures += 1
            print(f"FAIL {label}: kiln: {line}")
            continue
        checked += 1
        if got.dtype != want.dtype or got.shape != want.shape:
            failures += 1
            print(f"FAIL {label}: kiln {got.dtype}{got.shape}, NumPy {want.dtype}{want.shape}")
            continue
        if want.size == 0:
            continue
        w = want.astype(np.complex128)
        g = got.astype(np.complex128)
        denom = np.sqrt(np.mean(np.abs(w) ** 2))
        rel = np.sqrt(np.mean(np.abs(g - w) ** 2)) / (denom if denom > 0 else 1.0)
        size = 1
        for ax in range(want.ndim):
            if want.shape[ax] != view.shape[ax] or (s is not None) or (axes is not None and ax in [a % view.ndim for a in axes]):
                size = max(size, bluestein_size(max(want.shape[ax], view.shape[ax])))
        size = max(size, max(bluestein_size(d) for d in view.shape))
        eps = np.finfo(np.float32 if got.dtype in (np.complex64, np.float32) else
                       np.float16 if got.dtype == np.float16 else np.float64).eps
        bound = C * eps * max(1.0, math.log2(size))
        worst = max(worst, rel / bound)
        if not rel <= bound:
            failures += 1
            print(f"FAIL {label}: relative RMS error {rel:.3e} > bound {bound:.3e}")
    drv.p.stdin.close()
    drv.p.wait()
    print(f"fft_numpy: {checked} results checked against NumPy, {errors} bad-argument cases, "
          f"worst error {worst:.2f} of its bound, {failures} failures"
          + (f", {refused} cases the library cannot plan (KILN_FFT=vendor: errors)"
             if vendor_only else ""))
    return 1 if failures or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
