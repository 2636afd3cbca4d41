#!/usr/bin/env python3
"""Differential test of kiln's built-in ufuncs against NumPy 2.x.

Generates random cases (every ufunc in UFUNCS, every dtype and dtype pair,
weak Python scalars and typed NumPy scalars, broadcasting, 0-d and size-0
shapes, strided, reversed and transposed views on the device and in host
memory, given and in-place outputs, special values) and runs each through
NumPy and through the kiln driver (kiln_ufunc_driver, many cases per
process), then compares result dtype, shape and values: exact for integers
and bools, within the ULP bound of ULPS for floats. Known, documented
divergences (docs/ufuncs.md, "Differences from NumPy") are counted apart.

Usage: diff.py --driver PATH [--cases N] [--seed S] [--ufunc NAME ...]
Prints its seed first; --seed replays a run. Exit 0 when nothing diverges.
"""
import argparse
import concurrent.futures
import os
import random
import re
import subprocess
import sys
import time
import warnings

import numpy as np

DTYPES = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32",
          "int64", "uint64", "float16", "float32", "float64", "complex64", "complex128"]
INTS = [d for d in DTYPES if d.startswith(("int", "uint"))]
FLOATS = ["float16", "float32", "float64"]
COMPLEX = ["complex64", "complex128"]
# complex results: norm-wise, |kiln - numpy| <= bound * eps * |numpy| (a
# NaN or infinite part must match exactly, as must every part of the exact
# functions); the formulas take several rounded steps (and GPU compilers
# contract a*b - c*d into FMAs), so these are per function, not UFUNCS'
COMPLEX_EPS = {"add": 0, "subtract": 0, "negative": 0, "positive": 0, "conjugate": 0,
               "multiply": 2, "square": 2, "divide": 4, "reciprocal": 4, "absolute": 2,
               "sign": 4, "power": 64}
COMPLEX_TRANS_EPS = 16
# special complex parts: NaN/inf parts, signed zeros, huge and tiny
SPECIAL_C = [0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 1e300, -1e300, 1e-300,
             3e38, -3e38, 1e-40, 5e-324, 0.5, 2.0, np.pi / 2]

# name: (nin, nout, ulps): ulps is the bound for float results, in units in
# the last place of NumPy's result (0: bit-exact, NaN payloads aside).
# float16 results are computed in float32 and rounded, by NumPy and kiln
# alike: bit-exact where the bound is 0, else at most 1 float16 ulp (a
# float32 result a few ulps off moves the rounding at most one step).
FLOAT16_ULPS = 1
EXACT, BASIC, TRANS = 0, 1, 4
UFUNCS = {
    "add": (2, 1, EXACT), "subtract": (2, 1, EXACT), "multiply": (2, 1, EXACT),
    "divide": (2, 1, BASIC), "negative": (1, 1, EXACT), "absolute": (1, 1, EXACT),
    "power": (2, 1, 16), "minimum": (2, 1, EXACT), "maximum": (2, 1, EXACT),
    "sqrt": (1, 1, BASIC), "exp": (1, 1, TRANS), "expm1": (1, 1, TRANS),
    "log": (1, 1, TRANS), "log1p": (1, 1, TRANS), "log2": (1, 1, TRANS),
    "log10": (1, 1, TRANS), "sin": (1, 1, TRANS), "cos": (1, 1, TRANS),
    "tan": (1, 1, 8), "arcsin": (1, 1, TRANS), "arccos": (1, 1, TRANS),
    "arctan": (1, 1, TRANS), "arctan2": (2, 1, 8), "sinh": (1, 1, TRANS),
    "cosh": (1, 1, TRANS), "tanh": (1, 1, TRANS), "hypot": (2, 1, TRANS),
    "floor": (1, 1, EXACT), "ceil": (1, 1, EXACT),
    "equal": (2, 1, EXACT), "not_equal": (2, 1, EXACT), "less": (2, 1, EXACT),
    "less_equal": (2, 1, EXACT), "greater": (2, 1, EXACT),
    "greater_equal": (2, 1, EXACT),
    "float_power": (2, 1, 16), "floor_divide": (2, 1, EXACT), "remainder": (2, 1, EXACT),
    "fmod": (2, 1, EXACT), "divmod": (2, 2, EXACT), "positive": (1, 1, EXACT),
    "conjugate": (1, 1, EXACT), "sign": (1, 1, EXACT), "square": (1, 1, EXACT),
    "reciprocal": (1, 1, BASIC), "fmin": (2, 1, EXACT), "fmax": (2, 1, EXACT),
    "exp2": (1, 1, TRANS), "logaddexp": (2, 1, TRANS), "logaddexp2": (2, 1, TRANS),
    "cbrt": (1, 1, TRANS), "arcsinh": (1, 1, TRANS), "arccosh": (1, 1, TRANS),
    "arctanh": (1, 1, TRANS), "deg2rad": (1, 1, EXACT), "rad2deg": (1, 1, EXACT),
    "trunc": (1, 1, EXACT), "rint": (1, 1, EXACT), "fabs": (1, 1, EXACT),
    "copysign": (2, 1, EXACT), "nextafter": (2, 1, EXACT), "spacing": (1, 1, EXACT),
    "heaviside": (2, 1, EXACT), "modf": (1, 2, EXACT), "signbit": (1, 1, EXACT),
    "isnan": (1, 1, EXACT), "isinf": (1, 1, EXACT), "isfinite": (1, 1, EXACT),
    "logical_and": (2, 1, EXACT), "logical_or": (2, 1, EXACT),
    "logical_xor": (2, 1, EXACT), "logical_not": (1, 1, EXACT),
    "bitwise_and": (2, 1, EXACT), "bitwise_or": (2, 1, EXACT),
    "bitwise_xor": (2, 1, EXACT), "invert": (1, 1, EXACT), "left_shift": (2, 1, EXACT),
    "right_shift": (2, 1, EXACT), "gcd": (2, 1, EXACT), "lcm": (2, 1, EXACT),
    "bitwise_count": (1, 1, EXACT), "ldexp": (2, 1, EXACT), "frexp": (1, 2, EXACT),
}
# kiln's three-argument where(c, a, b) is numpy.where
NUMPY_NAME = {}

# Special float values mixed into float inputs.
SPECIAL_F = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, np.inf, -np.inf, np.nan,
             5e-324, -5e-324, 2.2250738585072014e-308, 1e-45, 1.1754944e-38,
             3.4028235e38, -3.4028235e38, 1.7976931348623157e308, 65504.0,
             np.pi, -np.pi, 1e300, -1e300, 100.0, -100.0, 3.0, 7.0,
             # float16's edges: smallest subnormal and normal, the overflow
             # threshold, the first odd integer it cannot hold
             5.960464477539063e-08, 6.103515625e-05, 65520.0, 2049.0]

# Python ints at and just past each integer dtype's limits (within int64,
# all kiln_operand_int takes): NumPy 2 compares them by value in equal,
# less, ... and divides by them in true_divide, raises OverflowError in
# integer arithmetic, converts them to the float loop elsewhere
EDGE_INTS = sorted({v for bits in (8, 16, 32, 64) for lo, hi in (
    (-2 ** (bits - 1), 2 ** (bits - 1) - 1), (0, 2 ** bits - 1))
    for v in (lo - 1, lo, hi, hi + 1, 10 * hi + 7, -10 * hi - 7)
    if -2 ** 63 <= v < 2 ** 63} | {1000, -1000, 300, -300, 65536 * 3})

class Case:
    def __init__(self, cid, name, nin, nout):
        self.id, self.name, self.nin, self.nout = cid, name, nin, nout
        self.inputs = []   # (kind, payload) for numpy and the driver line
        self.outputs = []
        self.lines = []


def rand_values(rng, dtype, n):
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return np.array([rng.random() < 0.5 for _ in range(n)], dtype=dt)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        out = []
        for _ in range(n):
            r = rng.random()
            if r < 0.15:
                v = rng.choice([info.min, info.max, 0, 1, -1 if info.min < 0 else 2,
                                info.min + 1 if info.min < 0 else info.max - 1])
            elif r < 0.6:
                v = rng.randint(max(info.min, -20), min(info.max, 20))
            else:
                v = rng.randint(int(info.min), int(info.max))
            out.append(v)
        return np.array(out, dtype=dt)
    if dt.kind == "c":
        part = dt.type(0).real.dtype
        re = rand_values(rng, part, n).astype(np.float64)
        im = rand_values(rng, part, n).astype(np.float64)
        for i in range(n):
            if rng.random() < 0.2:
                if rng.random() < 0.5:
                    re[i] = rng.choice(SPECIAL_C)
                else:
                    im[i] = rng.choice(SPECIAL_C)
        return _complex(re, im, dt)
    out = []
    for _ in range(n):
        r = rng.random()
        if r < 0.2:
            v = rng.choice(SPECIAL_F)
        elif r < 0.7:
            v = rng.uniform(-10, 10)
        else:
            v = rng.choice([-1, 1]) * 10.0 ** rng.uniform(-30, 30)
        out.append(v)
    with np.errstate(all="ignore"):
        return np.array(out, dtype=np.float64).astype(dt)


def _complex(re, im, dt):
    """Complex values from their parts (1j * inf would make NaN parts)."""
    out = np.empty(len(re), dtype=dt)
    with np.errstate(all="ignore"):
        out.real = re
        out.imag = im
    return out


def make_view(rng, dtype, shape):
    """A random view of `shape`: base array, slices, transpose axes."""
    ndim = len(shape)
    axes = list(range(ndim))
    if ndim > 1 and rng.random() < 0.3:
        rng.shuffle(axes)
    pre = [0] * ndim  # shape before transposing: view axis i is pre axis axes[i]
    for i, a in enumerate(axes):
        pre[a] = shape[i]
    base_shape, slices = [], []
    for n in pre:
        step = rng.choice([1, 1, 1, 2, -1, -2]) if rng.random() < 0.5 else 1
        extra = rng.choice([0, 0, 1, 2])
        m = n * abs(step) + extra if n > 0 else extra
        start = rng.randint(0, extra) if extra else 0
        if step > 0:
            sl = (start, start + n * step if n else start, step)
        else:
            first = m - 1 - start
            sl = (first, first + n * step if first + n * step >= 0 else None, step) if n else (0, 0, 1)
        base_shape.append(m)
        slices.append(sl)
    base = rand_values(rng, dtype, int(np.prod(base_shape, dtype=np.int64))).reshape(base_shape)
    # the trailing Ellipsis keeps a 0-d view an array (not a scalar)
    view = base[tuple(slice(*s) for s in slices) + (Ellipsis,)].transpose(axes)
    assert view.shape == tuple(shape), (view.shape, shape, slices, axes)
    mode = "h" if rng.random() < 0.3 else "d"
    toks = ["array", dtype, mode, str(ndim)] + [str(m) for m in base_shape] + \
        [str(a) for a in axes]
    for s in slices:
        toks += ["n" if v is None else str(v) for v in s]
    toks.append(base.tobytes().hex() or "-")
    return base, view, " ".join(toks)


def random_shape(rng):
    ndim = rng.choice([0, 1, 1, 2, 2, 3])
    return tuple(rng.choice([1, 2, 3, 5, 7, 0] if rng.random() < 0.1 else [1, 2, 3, 4, 5, 7])
                 for _ in range(ndim))


def input_shape(rng, shape):
    ndim = rng.randint(0, len(shape)) if rng.random() < 0.3 else len(shape)
    s = list(shape[len(shape) - ndim:])
    for i in range(len(s)):
        if rng.random() < 0.2:
            s[i] = 1
    return tuple(s)


def scalar_for(rng, dtype):
    v = rand_values(rng, dtype, 1)[0]
    return v


POOL = {}
POOL_SIZE = 6


def dtype_pool(rng, name, nin):
    """The input dtype tuples one run draws from for ufunc `name`: a few
    per run (each compiles kernels; a run's cases share them), one dtype
    for all inputs mostly, some mixed. Other seeds draw others."""
    if name not in POOL:
        pool = []
        for i in range(POOL_SIZE):
            if i < POOL_SIZE * 2 // 3:
                d = rng.choice(DTYPES)
                pool.append((d,) * nin)
            else:
                pool.append(tuple(rng.choice(DTYPES) for _ in range(nin)))
        POOL[name] = pool
    return POOL[name]


def build_case(rng, cid, name):
    nin, nout, _ = UFUNCS[name]
    c = Case(cid, name, nin, nout)
    shape = random_shape(rng)
    dtypes = rng.choice(dtype_pool(rng, name, nin))
    np_args = []
    any_array = False
    for j in range(nin):
        dtype = dtypes[j]
        r = rng.random()
        if r < 0.12 and (any_array or j < nin - 1):
            # weak Python scalar
            kind = rng.random()
            if kind < 0.2:
                v = complex(rand_values(rng, "complex128", 1)[0])
                np_args.append(v)
                c.lines.append("in weak_complex %s %s" % (
                    np.float64(v.real).tobytes()[::-1].hex(),
                    np.float64(v.imag).tobytes()[::-1].hex()))
            elif kind < 0.6:
                if rng.random() < 0.4:
                    v = rng.choice(EDGE_INTS)
                else:
                    v = int(rand_values(rng, rng.choice(["int8", "int16", "int64", "uint8"]),
                                        1)[0])
                np_args.append(v)
                c.lines.append("in weak_int %d" % v)
            else:
                v = float(rand_values(rng, "float64", 1)[0])
                np_args.append(v)
                c.lines.append("in weak_float %s" % np.float64(v).tobytes()[::-1].hex())
            c.inputs.append(("weak", None))
        elif r < 0.22:
            v = scalar_for(rng, dtype)
            np_args.append(v)
            if np.dtype(dtype).kind == "c":
                bits = "%s %s" % (np.float64(v.real).tobytes()[::-1].hex(),
                                  np.float64(v.imag).tobytes()[::-1].hex())
            elif np.dtype(dtype).kind == "f":
                bits = np.float64(v).tobytes()[::-1].hex()
            else:
                bits = "%016x" % (int(v) & 0xFFFFFFFFFFFFFFFF)
            c.lines.append("in scalar %s %s" % (dtype, bits))
            c.inputs.append(("scalar", None))
        else:
            s = input_shape(rng, shape)
            base, view, line = make_view(rng, dtype, s)
            np_args.append(view)
            c.lines.append("in " + line)
            c.inputs.append(("array", view))
            any_array = True
    return c, np_args


# NumPy 2.4.6 and 2.5.2 write wrong values when these write a float
# input's answers into a bool `out` whose last axis has a step of 2 or -2
# (np.isnan(x, out=np.zeros((3, 14), bool)[:, ::2]) differs from
# np.isnan(x): found by seed 7401, case 789; checked 2026-11-27): the
# reference computes them without `out` and copies the answer in.
NUMPY_OUT_BUG = {"isnan", "isinf", "isfinite", "signbit"}


def numpy_call(name, args, out):
    fn = getattr(np, NUMPY_NAME.get(name, name))
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if out is None:
            r = fn(*args)
        elif name in NUMPY_OUT_BUG and out[0] is not None:
            want = fn(*args)
            out[0][...] = want
            r = out[0]
        else:
            r = fn(*args, out=out)
    return r if isinstance(r, tuple) else (r,)


def choose_outputs(rng, c, np_args):
    """Decides the outputs from NumPy's own result; returns (error, out
    tuple for numpy or None, what to compare against)."""
    try:
        ref = numpy_call(c.name, [a.copy() if isinstance(a, np.ndarray) else a
                                  for a in np_args], None)
    except Exception as e:  # noqa: BLE001 - any NumPy error counts as "error"
        for _ in range(c.nout):
            c.lines.append("out new")
        return type(e).__name__, None
    ref = [np.asarray(r) for r in ref]
    c.loop_dtypes = [r.dtype for r in ref]
    outs = []
    for k in range(c.nout):
        r = rng.random()
        rd = ref[k].dtype
        if r < 0.15 and c.inputs[0][0] == "array" and np_args[0].dtype == rd and \
                np_args[0].shape == ref[k].shape and k == 0:
            c.lines.append("out inplace 0")
            outs.append(np_args[0])
        elif r < 0.35 and rd.name in DTYPES:
            od = rd.name if rng.random() < 0.7 else rng.choice([d for d in DTYPES
                                                           if np.can_cast(rd, d, "same_kind")])
            base, view, line = make_view(rng, od, ref[k].shape)
            c.lines.append("out " + line)
            outs.append(view)
        else:
            c.lines.append("out new")
            outs.append(None)
    return None, outs


def ulp_distance(a, b, dtype):
    it = {np.float16: np.int16, np.float32: np.int32}.get(dtype, np.int64)
    ia = a.astype(dtype).view(it).astype(np.int64)
    ib = b.astype(dtype).view(it).astype(np.int64)
    mn = np.int64(np.iinfo(it).min)
    ia = np.where(ia < 0, mn - ia, ia)
    ib = np.where(ib < 0, mn - ib, ib)
    return np.abs(ia.astype(object) - ib.astype(object)) if dtype == np.float64 \
        else np.abs(ia - ib)


def compare(name, want, got_dtype, got_shape, got_bytes, loop_dtype, complex_in=False):
    if want.dtype.name != got_dtype:
        return "dtype: numpy %s, kiln %s" % (want.dtype.name, got_dtype)
    if tuple(want.shape) != tuple(got_shape):
        return "shape: numpy %s, kiln %s" % (want.shape, tuple(got_shape))
    got = np.frombuffer(got_bytes, dtype=want.dtype)
    want = np.ascontiguousarray(want).reshape(-1)
    if want.dtype.kind == "c":
        return compare_complex(name, want, got, loop_dtype, complex_in)
    if want.dtype.kind != "f":
        bad = got != want
        if bad.any():
            i = int(np.argmax(bad))
            return "value at flat %d: numpy %r, kiln %r" % (i, want[i], got[i])
        return None
    ulps = UFUNCS[name][2]
    if complex_in and want.dtype.kind == "f":
        # a real result of complex inputs (absolute: hypot): its own bound
        ulps = COMPLEX_EPS.get(name, COMPLEX_TRANS_EPS)
    if loop_dtype.kind == "f" and loop_dtype.itemsize < want.dtype.itemsize:
        # computed in the loop's narrower type, then cast: compare there
        with np.errstate(all="ignore"):  # a float32 output beyond float16's range
            want, got = want.astype(loop_dtype), got.astype(loop_dtype)
    if want.dtype == np.float16 and ulps:
        ulps = FLOAT16_ULPS
    both_nan = np.isnan(want) & np.isnan(got)
    same = (want == got) | both_nan
    if ulps == 0:
        # exact: also the sign of zero
        same &= (np.signbit(want) == np.signbit(got)) | both_nan
    bad = ~same
    if bad.any():
        with np.errstate(all="ignore"):
            finite = np.isfinite(want) & np.isfinite(got)
        dist = np.zeros(want.shape, dtype=object)
        if finite.any():
            dist[finite] = ulp_distance(want[finite], got[finite], want.dtype.type)
        bad &= ~(finite & (dist <= ulps))
        if bad.any():
            i = int(np.argmax(bad))
            return "value at flat %d: numpy %r, kiln %r (%s ulp, bound %d)" % (
                i, want[i], got[i], dist[i] if finite[i] else "inf/nan", ulps)
    return None


def compare_complex(name, want, got, loop_dtype, complex_in=False):
    if loop_dtype.kind != "c" and not want.imag.any() and not got.imag.any():
        # a real loop's result cast to a complex output: compare as the loop's,
        # with its bound (absolute of complex inputs: COMPLEX_EPS's, as for a
        # real output; found as the "flake" of seed 3815766932, case 1162,
        # where NumPy's SIMD complex absolute, max * sqrt(1 + r^2), is 1 ulp
        # below the correctly rounded hypot that kiln gives)
        return compare(name, want.real.copy(), want.real.dtype.name, want.shape,
                       got.real.copy().tobytes(), loop_dtype, complex_in)
    if loop_dtype.kind == "c" and loop_dtype.itemsize < want.dtype.itemsize:
        want, got = want.astype(loop_dtype), got.astype(loop_dtype)
    bound = COMPLEX_EPS.get(name, COMPLEX_TRANS_EPS)
    eps = float(np.finfo(want.real.dtype).eps)
    wr, wi, gr, gi = want.real, want.imag, got.real, got.imag
    with np.errstate(all="ignore"):
        special = ~(np.isfinite(wr) & np.isfinite(wi))
        # a NaN part matches a NaN; an infinite one the same infinity
        part_ok = lambda w, g: (np.isnan(w) & np.isnan(g)) | (np.isinf(w) & (w == g)) | \
            np.isfinite(w)
        bad = special & ~(part_ok(wr, gr) & part_ok(wi, gi) &
                          (np.isfinite(wr) <= np.isfinite(gr)) &
                          (np.isfinite(wi) <= np.isfinite(gi)))
        # the finite parts of a special value: within the bound of the part
        err = np.abs(want.astype(np.complex128) - got.astype(np.complex128))
        scale = np.abs(want.astype(np.complex128))
        if bound == 0:
            ok = ((wr == gr) & (np.signbit(wr) == np.signbit(gr)) |
                  (np.isnan(wr) & np.isnan(gr))) & \
                 ((wi == gi) & (np.signbit(wi) == np.signbit(gi)) |
                  (np.isnan(wi) & np.isnan(gi)))
            bad = ~ok
        else:
            # power is exp(b log a): exp's condition number is |b log a|, at
            # least |log |a^b||, so the bound grows with it (found: a
            # complex128 power of magnitude 1e145 off by 256 eps, NumPy's
            # glibc cexp/clog against kiln's own)
            grow = 1.0
            if name == "power":
                grow = np.where(scale > 0, np.maximum(1.0, np.abs(np.log(np.where(
                    scale > 0, scale, 1.0)))), 1.0)
            bad |= ~special & ~(err <= bound * eps * scale * grow)
    if bad.any():
        i = int(np.argmax(bad))
        return "value at flat %d: numpy %r, kiln %r (bound %d eps norm-wise%s)" % (
            i, want[i], got[i], bound, " times max(1, |log|numpy||)" if name == "power" else "")
    return None


def parse_result(line):
    toks = line.split()
    if toks[2] == "err":
        return ("err", toks[3], " ".join(toks[4:]))
    outs, i = [], 3
    while i < len(toks):
        dtype, ndim = toks[i], int(toks[i + 1])
        shape = tuple(int(t) for t in toks[i + 2:i + 2 + ndim])
        data = b"" if toks[i + 2 + ndim] == "-" else bytes.fromhex(toks[i + 2 + ndim])
        outs.append((dtype, shape, data))
        i += 3 + ndim
    return ("ok", outs)


def known_divergence(c, np_args, np_error, problem):
    """The reason, as listed in docs/ufuncs.md ("Differences from NumPy"),
    when a case is a documented difference, else None."""
    dtypes = [a.dtype.name for a in np_args if isinstance(a, (np.ndarray, np.generic))]
    if c.name in ("float_power", "rint") and "complex" in " ".join(dtypes + [
            type(a).__name__ for a in np_args]) and "INVALID_ARGUMENT" in problem:
        return "float_power and rint have no complex loops in kiln"
    if c.name == "power" and np_error == "ValueError":
        return "integer power with a negative exponent: NumPy raises, kiln gives 0"
    if np_error in ("TypeError", "UFuncTypeError") and "bool" in dtypes:
        return "NumPy refuses bool inputs where kiln casts them safely to int8"
    if c.name == "reciprocal" and any(
            (np.asarray(a) == 0).any() for a in np_args
            if np.asarray(a).dtype.kind in "iub"):
        return "integer reciprocal(0): NumPy's value is the platform's conversion of inf"
    if c.name == "power" and power_phase_undetermined(c, np_args, problem):
        return "complex power whose phase is lost to rounding (|Im(b log a)| * eps > 1)"
    if infinity_sign_unspecified(problem):
        return ("complex special value whose infinite part's sign C99 Annex G leaves "
                "unspecified (the other part NaN)")
    if c.name in ("logaddexp", "logaddexp2") and log_sum_cancelled(c, np_args, problem):
        return ("logaddexp/logaddexp2 cancelling to a result below its larger input: the "
                "device's exp/log1p, within the bound of the larger input as NumPy's libm, "
                "differ in more ulps of the small result")
    if c.name in ("multiply", "square") and product_fused_by_numpy(c, np_args, problem):
        return ("complex product with both products of a part overflowing: NumPy's SIMD loop "
                "fuses them (FMA), kiln rounds each (inf - inf = NaN)")
    return None


def infinity_sign_unspecified(problem):
    """Whether a complex divergence is only the sign of an infinite part
    whose other part is NaN, in both results: Annex G leaves that sign
    unspecified (csinh(inf + i inf) = +-inf + i NaN, casin through casinh,
    ...). Found on CUDA and NVIDIA OpenCL, seeds 7209 (arcsin(inf + nan j):
    NumPy nan+infj, kiln nan-infj) and 7213 (sinh(-inf + inf j): NumPy
    inf+nanj, kiln -inf+nanj)."""
    m = re.search(r"numpy np\.complex\d+\(\(?([^)]*?)\)?\), kiln np\.complex\d+\(\(?([^)]*?)\)?\)",
                  problem)
    if not m:
        return False
    try:
        want, got = complex(m.group(1)), complex(m.group(2))
    except ValueError:
        return False
    pairs = ((want.real, got.real, want.imag, got.imag), (want.imag, got.imag, want.real, got.real))
    differs = False
    for w, g, w_other, g_other in pairs:
        if w == g or (np.isnan(w) and np.isnan(g)):
            continue
        if not (np.isinf(w) and np.isinf(g) and np.isnan(w_other) and np.isnan(g_other)):
            return False
        differs = True
    return differs


def log_sum_cancelled(c, np_args, problem):
    """Whether a logaddexp(2) divergence is the cancellation of
    max(a, b) + log1p(exp(-|a - b|)) (scaled for base 2): the correction
    term, up to ln 2 (1 for base 2), carries the device's exp/log1p error in
    ulps of its own size, which the sum keeps in absolute terms. True when
    the result is smaller than the larger input and kiln is within the
    ufunc's ulp bound of the larger of |a|, |b| and 1 (found on CUDA and
    NVIDIA OpenCL, seed 7203: logaddexp2(-0.586, -1.631) = -0.0156, 32 ulp
    of the result, half an ulp of 1.631)."""
    m = re.search(r"numpy np\.float(\d+)\(([^)]*)\), kiln np\.float\d+\(([^)]*)\)", problem)
    at = inputs_at_flat(np_args, problem)
    if not m or not at or len(at[1]) != 2:
        return False
    real = {"16": np.float16, "32": np.float32, "64": np.float64}.get(m.group(1))
    try:
        want, got = float(m.group(2)), float(m.group(3))
        a, b = float(at[1][0]), float(at[1][1])
    except (TypeError, ValueError):
        return False
    if real is None or not all(np.isfinite(v) for v in (want, got, a, b)):
        return False
    scale = max(abs(a), abs(b), 1.0)
    allowed = UFUNCS[c.name][2] * float(np.spacing(real(scale)))
    return abs(want) < max(abs(a), abs(b)) and abs(got - want) <= allowed


def product_fused_by_numpy(c, np_args, problem):
    """Whether a complex multiply/square divergence is NumPy's FMA. Its
    array loops (npyv_muladdsub, on CPUs with FMA: x86-64-v3 and up) give
    re = fma(a.re, b.re, -(a.im b.im)), im = fma(a.re, b.im, a.im b.re), so
    where both products of a part overflow, NumPy's part is the second
    product, rounded to +-inf; kiln rounds each product, as C99 Annex G and
    NumPy's scalar path do, and gets inf - inf = NaN there. True when kiln
    has exactly the separately rounded parts and NumPy the fused ones."""
    m = re.search(r"numpy np\.complex\d+\(([^)]*)\), kiln np\.complex\d+\(([^)]*)\)",
                  problem)
    dt = np.dtype(c.loop_dtypes[0]) if c.loop_dtypes else None
    at = inputs_at_flat(np_args, problem)
    if not m or not at or dt is None or dt.kind != "c":
        return False
    a, b = (at[1][0], at[1][0]) if c.name == "square" else at[1][:2]
    try:
        want, got = complex(m.group(1)), complex(m.group(2))
    except ValueError:
        return False
    real = np.float32 if dt == np.complex64 else np.float64
    with np.errstate(all="ignore"):
        ar, ai, br, bi = real(a.real), real(a.imag), real(b.real), real(b.imag)
        second = (-(ai * bi), ai * br)  # the product each fused part adds
        separate = ((ar * br) - (ai * bi), (ar * bi) + (ai * br))
        first_finite = (np.isfinite(ar) and np.isfinite(br), np.isfinite(ar) and np.isfinite(bi))
        fused = tuple(s if np.isinf(s) and f else r
                      for s, f, r in zip(second, first_finite, separate))

    def same(x, y):
        return x == y or (np.isnan(x) and np.isnan(y))
    parts = lambda z: (z.real, z.imag)
    return (any(np.isnan(r) and np.isinf(f) for r, f in zip(separate, fused))
            and all(same(g, r) for g, r in zip(parts(got), separate))
            and all(same(w, f) for w, f in zip(parts(want), fused)))


def power_phase_undetermined(c, np_args, problem):
    """Whether a complex power's diverging element has a phase its dtype
    cannot carry: a^b = exp(w), w = b log a, and where |Im w| is above
    1/eps of the loop's dtype, one ulp of w (from one ulp of log a) turns
    the result by over a radian, so signs and directions are noise."""
    dt = np.dtype(c.loop_dtypes[0]) if c.loop_dtypes else None
    at = inputs_at_flat(np_args, problem)
    if not at or dt is None or dt.kind != "c" or len(np_args) != 2:
        return False
    a, b = at[1]
    with np.errstate(all="ignore"):
        w = complex(b) * np.log(complex(a))
    return bool(np.isfinite(w.imag)) and abs(w.imag) * float(np.finfo(dt).eps) > 1


def inputs_at_flat(np_args, problem):
    """(i, the inputs' values broadcast, at flat index i) for the index a
    problem names; None where it names none (or the inputs do not
    broadcast to it)."""
    m = re.search(r"at flat (\d+)", problem)
    if not m:
        return None
    i = int(m.group(1))
    try:
        arrays = np.broadcast_arrays(*[np.asarray(a) for a in np_args])
        return i, tuple(a.ravel()[i] for a in arrays)
    except (ValueError, IndexError):
        return None


def inputs_at(np_args, problem):
    """The inputs' values at the flat index a problem names, as a line to
    print; "" where it names none."""
    at = inputs_at_flat(np_args, problem)
    if not at:
        return ""
    return "\n  inputs at flat %d: %s" % (at[0], ", ".join(repr(v) for v in at[1]))


def run_driver(driver, cases):
    """One driver process over `cases`: (its results by case id, its
    profile line)."""
    text = "".join("case %d %s %d %d\n%s\nend\n" % (c.id, c.name, c.nin, c.nout,
                                                     "\n".join(c.lines)) for c in cases)
    p = subprocess.run([driver], input=text, capture_output=True, text=True)
    if p.returncode == 77:
        print("numpy_diff: SKIP:", p.stdout.strip())
        sys.exit(77)
    if p.returncode != 0:
        print(p.stdout[-2000:], p.stderr[-2000:])
        raise SystemExit("numpy_diff: driver exited %d" % p.returncode)
    results = {}
    for line in p.stdout.splitlines():
        if line.startswith("case "):
            results[int(line.split()[1])] = line
    profile = [l for l in p.stderr.splitlines() if l.startswith("profile ")]
    return results, profile[-1] if profile else "no profile"


def run_batch(driver, cases, jobs):
    """Runs the cases in `jobs` driver processes at once. Nearly all of a
    cold run's time is compiling kernel variants (the profile lines say so),
    which a process does on its own threads, one at a time: so the cases go
    to the processes by ufunc (each ufunc's variants compiled in one
    process only, never twice), the ufuncs dealt round-robin in order of
    their case counts."""
    by_name = {}
    for c in cases:
        by_name.setdefault(c.name, []).append(c)
    groups = [[] for _ in range(max(1, min(jobs, len(by_name))))]
    for i, name in enumerate(sorted(by_name, key=lambda n: -len(by_name[n]))):
        groups[i % len(groups)].extend(by_name[name])
    results = {}
    with concurrent.futures.ThreadPoolExecutor(len(groups)) as pool:
        for j, (part, profile) in enumerate(pool.map(lambda g: run_driver(driver, g), groups)):
            results.update(part)
            print("numpy_diff: driver %d/%d: %s" % (j + 1, len(groups), profile))
    return results


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--driver", required=True)
    ap.add_argument("--cases", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--ufunc", nargs="*", default=None)
    ap.add_argument("--show", type=int, default=20, help="divergences printed")
    ap.add_argument("--only", type=int, nargs="*", default=None,
                    help="run only these case numbers of the seed's cases (replay)")
    ap.add_argument("--jobs", type=int,
                    default=int(os.environ.get("KILN_NUMPY_DIFF_JOBS", "0")) or
                    min(8, os.cpu_count() or 1),
                    help="driver processes at once (default: KILN_NUMPY_DIFF_JOBS, else the "
                         "CPUs, at most 8)")
    args = ap.parse_args()
    seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(4), "little")
    print("numpy_diff: seed %d (replay: --seed %d), numpy %s" % (seed, seed, np.__version__))
    rng = random.Random(seed)
    names = args.ufunc or sorted(UFUNCS)
    t0 = time.time()
    cases, refs = [], {}
    for cid in range(args.cases):
        name = names[cid % len(names)]
        c, np_args = build_case(rng, cid, name)
        err, outs = choose_outputs(rng, c, np_args)
        # the inputs as they were (an output may be written into one)
        before = [np.array(a) if isinstance(a, np.ndarray) else a for a in np_args]
        res = None
        if err is None:
            np_out = tuple(outs) if any(o is not None for o in outs) else None
            try:
                got = numpy_call(name, np_args, np_out)
                res = [np.asarray(o if o is not None else r) for o, r in zip(outs, got)]
            except Exception as e:  # noqa: BLE001 - any NumPy error counts
                err = type(e).__name__
        if args.only is not None and cid not in args.only:
            continue
        refs[cid] = (c, np_args, err, res, before)
        cases.append(c)
    t1 = time.time()
    results = run_batch(args.driver, cases, args.jobs)
    t2 = time.time()
    counts = {"agree": 0, "known": 0, "diverge": 0}
    per_ufunc = {}
    shown = 0
    diverged = []
    for cid, (c, np_args, err, res, before) in refs.items():
        line = results.get(cid)
        problem = None
        if line is None:
            problem = "no result from the driver"
        else:
            r = parse_result(line)
            if err is not None and r[0] == "err":
                problem = None
            elif err is not None:
                problem = "numpy raised %s, kiln succeeded" % err
            elif r[0] == "err":
                problem = "kiln %s: %s" % (r[1], r[2][:300])
            else:
                for k, (dt, shape, data) in enumerate(r[1]):
                    complex_in = any(np.asarray(a).dtype.kind == "c" for a in np_args)
                    problem = compare(c.name, res[k], dt, shape, data, c.loop_dtypes[k],
                                      complex_in)
                    if problem:
                        break
        kind = "agree"
        if problem:
            reason = known_divergence(c, before, err, problem)
            kind = "known" if reason else "diverge"
        counts[kind] += 1
        per_ufunc.setdefault(c.name, {"agree": 0, "known": 0, "diverge": 0})[kind] += 1
        if kind == "diverge":
            diverged.append(cid)
        if kind == "diverge" and shown < args.show:
            shown += 1
            print("DIVERGE case %d %s: %s\n  %s%s" % (cid, c.name, problem,
                                                    "\n  ".join(l[:160] for l in c.lines),
                                                    inputs_at(before, problem)))
    print("numpy_diff: %d cases, %d ufuncs, %.1f s: %d agree, %d known differences "
          "(docs/ufuncs.md), %d diverge; seed %d (numpy %.1f s, kiln %.1f s)" % (
              len(cases), len(names), time.time() - t0, counts["agree"], counts["known"],
              counts["diverge"], seed, t1 - t0, t2 - t1))
    bad = sorted(n for n, v in per_ufunc.items() if v["diverge"])
    if bad:
        print("numpy_diff: diverging ufuncs: " + ", ".join(
            "%s (%d)" % (n, per_ufunc[n]["diverge"]) for n in bad))
    if counts["diverge"]:
        # last, where ctest --output-on-failure shows it
        ids = " ".join(str(i) for i in diverged[:20])
        print("numpy_diff: FAILED with seed %d (%d cases, numpy %s). Replay:\n"
              "  KILN_BACKEND=%s KILN_NUMPY_DIFF_SEED=%d KILN_NUMPY_DIFF_CASES=%d "
              "ctest -R numpy_diff --output-on-failure\n"
              "  KILN_BACKEND=%s %s %s --driver %s --seed %d --cases %d --only %s" % (
                  seed, args.cases, np.__version__, os.environ.get("KILN_BACKEND", ""), seed,
                  args.cases, os.environ.get("KILN_BACKEND", ""), sys.executable,
                  os.path.abspath(__file__), os.path.abspath(args.driver), seed, args.cases,
                  ids))
    return 1 if counts["diverge"] else 0


if __name__ == "__main__":
    sys.exit(main())
