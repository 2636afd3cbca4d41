#!/usr/bin/env python3
"""examples/dlpack_cupy.py: a DLPack round trip between CuPy and kiln, with
no copy (docs/interop.md). Loads libkiln.so with ctypes.

  1. CuPy -> kiln: a CuPy array (and a strided view of one) goes through
     cupy's __dlpack__ capsule into kiln_array_from_dlpack; kiln adds 1 with
     its built-in "add" ufunc (examples/dlpack_cupy_helper.c); CuPy sees the
     change. The kiln array's device pointer is the CuPy one.
  2. kiln -> CuPy: a kiln array exported with kiln_array_to_dlpack is taken
     by cupy.from_dlpack; CuPy multiplies it by 2; kiln sees the change. The
     CuPy pointer is kiln's.

Run on a CUDA machine, from the repository root after building:
  KILN_BACKEND=cuda python3 examples/dlpack_cupy.py [build-dir]
Prints "ok" and exits 0; 1 on a mismatch; 77 when CuPy or a GPU is missing.
"""
import ctypes
import os
import sys

import numpy as np

build = sys.argv[1] if len(sys.argv) > 1 else "build"
try:
    import cupy
    cupy.cuda.runtime.getDeviceCount()
except Exception as e:  # no CuPy or no GPU: nothing to test here
    print(f"skipped: CuPy with a CUDA device is needed ({e})")
    sys.exit(77)

kiln = ctypes.CDLL(os.path.join(build, "libkiln.so"), mode=ctypes.RTLD_GLOBAL)
helper = ctypes.CDLL(os.path.join(build, "examples", "libdlpack_cupy_helper.so"))

KILN_FLOAT64 = 10
c_void_pp = ctypes.POINTER(ctypes.c_void_p)


class NativeMemory(ctypes.Structure):  # kiln_native_memory
    _fields_ = [("object", ctypes.c_void_p), ("address", ctypes.c_uint64),
                ("bytes", ctypes.c_size_t), ("offset", ctypes.c_int64)]


kiln.kiln_last_error.restype = ctypes.c_char_p
kiln.kiln_context_create.argtypes = [ctypes.c_void_p, c_void_pp]
kiln.kiln_context_release.argtypes = [ctypes.c_void_p]
kiln.kiln_array_from_dlpack.argtypes = [ctypes.c_void_p, ctypes.c_void_p, c_void_pp]
kiln.kiln_array_to_dlpack.argtypes = [ctypes.c_void_p, c_void_pp]
kiln.kiln_array_from_host.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int,
                                      ctypes.POINTER(ctypes.c_int64), ctypes.c_void_p,
                                      ctypes.c_void_p, c_void_pp]
kiln.kiln_array_to_host.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
kiln.kiln_array_native.argtypes = [ctypes.c_void_p, ctypes.POINTER(NativeMemory)]
kiln.kiln_array_release.argtypes = [ctypes.c_void_p]
helper.dlpack_helper_add.argtypes = [ctypes.c_void_p, ctypes.c_double]

# PyCapsule keeps the name pointer, not a copy: names live as long as this module
DLTENSOR, USED_DLTENSOR = b"dltensor", b"used_dltensor"
py = ctypes.pythonapi
py.PyCapsule_GetPointer.restype = ctypes.c_void_p
py.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
py.PyCapsule_GetName.restype = ctypes.c_char_p
py.PyCapsule_GetName.argtypes = [ctypes.py_object]
py.PyCapsule_SetName.argtypes = [ctypes.py_object, ctypes.c_char_p]
py.PyCapsule_New.restype = ctypes.py_object
py.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]


def check(status, what):
    if status != 0:
        raise RuntimeError(f"{what}: status {status}: {kiln.kiln_last_error().decode()}")


def kiln_pointer(array):
    """Device pointer of element 0 of a kiln array."""
    m = NativeMemory()
    check(kiln.kiln_array_native(array, ctypes.byref(m)), "kiln_array_native")
    return m.address + m.offset


failures = 0


def expect(cond, text):
    global failures
    print(("ok   " if cond else "FAIL ") + text)
    failures += 0 if cond else 1


ctx = ctypes.c_void_p()
check(kiln.kiln_context_create(None, ctypes.byref(ctx)), "kiln_context_create")
rng = np.random.default_rng(12)

# ---- 1. CuPy -> kiln --------------------------------------------------------
base = cupy.asarray(rng.uniform(-10, 10, size=(1009, 7)))
for name, index in [("contiguous", (Ellipsis,)),
                    ("strided view [::3, 1::2]", (slice(None, None, 3), slice(1, None, 2)))]:
    x = base[index]
    before = cupy.asnumpy(base)
    cupy.cuda.runtime.deviceSynchronize()  # CuPy's writes are done before kiln reads
    capsule = x.__dlpack__()  # no max_version: the legacy DLManagedTensor capsule
    kind = py.PyCapsule_GetName(capsule)
    if kind != DLTENSOR:
        raise RuntimeError(f"CuPy gave a {kind!r} capsule; kiln takes 'dltensor' (DLManagedTensor)")
    tensor = py.PyCapsule_GetPointer(capsule, DLTENSOR)
    a = ctypes.c_void_p()
    check(kiln.kiln_array_from_dlpack(ctx, tensor, ctypes.byref(a)), "kiln_array_from_dlpack")
    py.PyCapsule_SetName(capsule, USED_DLTENSOR)  # kiln owns the tensor now
    expect(kiln_pointer(a) == x.data.ptr,
           f"cupy -> kiln ({name}): same device pointer 0x{x.data.ptr:x} (no copy)")
    check(helper.dlpack_helper_add(a, 1.0), "kiln add")
    kiln.kiln_array_release(a)  # calls CuPy's deleter
    after = cupy.asnumpy(base)
    want = before.copy()
    want[index] += 1.0
    expect(np.array_equal(after, want), f"cupy -> kiln ({name}): kiln's add seen by CuPy")

# ---- 2. kiln -> CuPy --------------------------------------------------------
host = rng.uniform(-10, 10, size=(4099,))
shape = (ctypes.c_int64 * 1)(host.size)
b = ctypes.c_void_p()
check(kiln.kiln_array_from_host(ctx, KILN_FLOAT64, 1, shape, None,
                                host.ctypes.data_as(ctypes.c_void_p), ctypes.byref(b)),
      "kiln_array_from_host")
tensor = ctypes.c_void_p()
check(kiln.kiln_array_to_dlpack(b, ctypes.byref(tensor)), "kiln_array_to_dlpack")


class Exported:
    """What cupy.from_dlpack asks for: __dlpack__ and __dlpack_device__."""

    def __init__(self, tensor, device_id):
        self.capsule = py.PyCapsule_New(tensor, DLTENSOR, None)
        self.device_id = device_id

    def __dlpack__(self, *args, **kwargs):
        return self.capsule

    def __dlpack_device__(self):
        return (2, self.device_id)  # kDLCUDA


y = cupy.from_dlpack(Exported(tensor.value, cupy.cuda.runtime.getDevice()))
expect(y.data.ptr == kiln_pointer(b), f"kiln -> cupy: same device pointer 0x{y.data.ptr:x} (no copy)")
y *= 2.0
cupy.cuda.runtime.deviceSynchronize()
got = np.empty_like(host)
check(kiln.kiln_array_to_host(b, got.ctypes.data_as(ctypes.c_void_p), None), "kiln_array_to_host")
expect(np.array_equal(got, host * 2.0), "kiln -> cupy: CuPy's multiply seen by kiln")
del y  # CuPy calls kiln's deleter: the export's reference goes
kiln.kiln_array_release(b)
kiln.kiln_context_release(ctx)
print("ok" if failures == 0 else f"FAILED ({failures})")
sys.exit(1 if failures else 0)
