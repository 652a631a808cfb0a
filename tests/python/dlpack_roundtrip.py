#!/usr/bin/env python3
"""DLPack round trips between parray and a Python array library, through libparray's C API (ctypes).

    dlpack_roundtrip.py LIBPARRAY.so numpy|torch|torch-cuda|cupy

Per library: a strided (reversed, stepped) view of the library's array is imported into parray
(pa_dlpack_import) and copied by pa_copy into a parray array; that array, and transposed and windowed types of
it, are exported (pa_dlpack_export) and taken back by the library's from_dlpack, and compared with the same
views taken by the library itself.  Exits 77 (skipped) when the library, or for the GPU kinds a GPU, is absent.
"""
import ctypes
import os
import sys

SKIP = 77


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int), ("device_id", ctypes.c_int)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int), ("dtype", DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


class DLManagedTensor(ctypes.Structure):
    pass


DELETER = ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensor))
DLManagedTensor._fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", DELETER)]

CAPSULE_NAME = b"dltensor"   # kept alive for the capsules' lifetime (the C API keeps the pointer)
api = ctypes.pythonapi
api.PyCapsule_New.restype = ctypes.py_object
api.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
api.PyCapsule_GetPointer.restype = ctypes.c_void_p
api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
# The capsule destructor gets a dying object: raw pointers only, no Python references.
api.PyCapsule_IsValid.restype = ctypes.c_int
api.PyCapsule_IsValid.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
RAW_GET = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p)(("PyCapsule_GetPointer", api))
deleted = []


@ctypes.CFUNCTYPE(None, ctypes.c_void_p)
def capsule_destructor(cap):
    """An unconsumed capsule frees its tensor (DLPack's rule); a consumer renamed it and calls the deleter."""
    if api.PyCapsule_IsValid(cap, CAPSULE_NAME):
        m = ctypes.cast(RAW_GET(cap, CAPSULE_NAME), ctypes.POINTER(DLManagedTensor))
        m.contents.deleter(m)
        deleted.append(1)


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


class Parray:
    def __init__(self, path):
        lib = ctypes.CDLL(path)
        self.lib = lib
        lib.pa_last_error.restype = ctypes.c_char_p
        lib.pa_scope_create.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p)]
        lib.pa_scope_destroy.argtypes = [ctypes.c_void_p]
        lib.pa_declare.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p]
        lib.pa_type_get.restype = ctypes.c_void_p
        lib.pa_type_get.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
        lib.pa_create.restype = ctypes.c_void_p
        lib.pa_create.argtypes = [ctypes.c_void_p]
        lib.pa_destroy.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
        lib.pa_copy.argtypes = [ctypes.c_void_p] * 4
        lib.pa_copy_explain.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t]
        lib.pa_dlpack_export.argtypes = [ctypes.c_void_p, ctypes.c_void_p,
                                         ctypes.POINTER(ctypes.POINTER(DLManagedTensor))]
        lib.pa_dlpack_import.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p),
                                         ctypes.POINTER(ctypes.c_void_p)]
        lib.pa_type_format.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t]
        lib.pa_layout_format.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t]
        lib.pa_cuda_device_count.restype = ctypes.c_int
        s = ctypes.c_void_p()
        self.ok(lib.pa_scope_create(None, ctypes.byref(s)), "pa_scope_create")
        self.scope = s

    def ok(self, status, what):
        if status != 0:
            fail("%s: %d: %s" % (what, status, self.lib.pa_last_error().decode()))

    def declare(self, name, decl):
        self.ok(self.lib.pa_declare(self.scope, name.encode(), decl.encode()), "pa_declare " + decl)
        return self.lib.pa_type_get(self.scope, name.encode())

    def layout(self, t):
        buf = ctypes.create_string_buffer(256)
        self.lib.pa_layout_format(t, buf, 256)
        return buf.value.decode()

    def explain(self, d, s):
        buf = ctypes.create_string_buffer(512)
        self.lib.pa_copy_explain(d, s, buf, 512)
        return buf.value.decode()

    def import_capsule(self, cap):
        """Borrows the tensor in a capsule (still named "dltensor": its owner frees it with the capsule)."""
        m = api.PyCapsule_GetPointer(cap, CAPSULE_NAME)
        t, p = ctypes.c_void_p(), ctypes.c_void_p()
        self.ok(self.lib.pa_dlpack_import(self.scope, m, ctypes.byref(t), ctypes.byref(p)), "pa_dlpack_import")
        return t, p

    def export(self, t, p, device):
        m = ctypes.POINTER(DLManagedTensor)()
        self.ok(self.lib.pa_dlpack_export(t, p, ctypes.byref(m)), "pa_dlpack_export")
        return Exported(m, device)


class Exported:
    """What from_dlpack takes: __dlpack__ gives the capsule, __dlpack_device__ the device."""

    def __init__(self, m, device):
        self.m = m
        self.device = device
        self.tensor = m.contents.dl_tensor

    def __dlpack__(self, stream=None, **kwargs):
        return api.PyCapsule_New(ctypes.cast(self.m, ctypes.c_void_p), CAPSULE_NAME,
                                 ctypes.cast(capsule_destructor, ctypes.c_void_p))

    def __dlpack_device__(self):
        return (self.tensor.device.device_type, self.tensor.device.device_id)


why = []   # why frameworks() found a kind unusable, when it knows


def frameworks(kind):
    """(module, make(array of 6x8 float32 0..47), from_dlpack, equal, mtt, device) or None."""
    if kind == "numpy":
        try:
            import numpy as np
        except ImportError as e:
            why.append("import numpy: %s" % e)
            return None
        if not hasattr(np, "from_dlpack"):
            print("numpy %s has no from_dlpack (1.22 and later have)" % np.__version__)
            return None
        return (np, lambda: np.arange(48, dtype=np.float32).reshape(6, 8), np.from_dlpack,
                lambda a, b: a.shape == b.shape and bool((a == b).all()), "paged", "cpu " + np.__version__)
    if kind in ("torch", "torch-cuda"):
        try:
            import torch
            import torch.utils.dlpack
        except ImportError:
            return None
        dev = "cuda" if kind == "torch-cuda" else "cpu"
        if dev == "cuda" and not torch.cuda.is_available():
            return None
        return (torch, lambda: torch.arange(48, dtype=torch.float32, device=dev).reshape(6, 8),
                lambda o: torch.utils.dlpack.from_dlpack(o.__dlpack__()),
                lambda a, b: tuple(a.shape) == tuple(b.shape) and bool(torch.equal(a, b)),
                "dmem" if dev == "cuda" else "paged", dev + " torch " + torch.__version__)
    if kind == "cupy":
        try:
            import cupy
            if cupy.cuda.runtime.getDeviceCount() < 1:
                return None
        except Exception:   # no cupy, or no GPU for it
            return None
        return (cupy, lambda: cupy.arange(48, dtype=cupy.float32).reshape(6, 8), cupy.from_dlpack,
                lambda a, b: a.shape == b.shape and bool((a == b).all()), "dmem", "cuda cupy " + cupy.__version__)
    fail("unknown kind " + kind)


def main():
    if len(sys.argv) != 3:
        fail(__doc__)
    fw = frameworks(sys.argv[2])
    if fw is None:
        # The build found NumPy when it was configured (tests/meson.build): then not finding it is a failure.
        if os.environ.get("PA_DLPACK_REQUIRE") == sys.argv[2]:
            fail("%s was importable when the build was configured, but not now (%s)" % (sys.argv[2], "; ".join(why)))
        print("skipped: %s is not usable here%s" % (sys.argv[2], " (" + "; ".join(why) + ")" if why else ""))
        return SKIP
    mod, make, from_dlpack, equal, mtt, where = fw
    pa = Parray(sys.argv[1])
    if mtt == "dmem" and pa.lib.pa_cuda_device_count() < 1:
        print("skipped: this libparray has no usable GPU")
        return SKIP
    print("round trip with " + where)
    torch_like = sys.argv[2].startswith("torch")   # torch has no negative strides: flip copies
    src = make()
    view = src.flip(0)[:, 1::2] if torch_like else src[::-1, 1::2]   # 6 x 4
    if sys.argv[2] == "cupy":
        # CuPy 14.2's DLPack export writes a negative stride as (2^64 + bytes) / itemsize (-8 elements came out as
        # 2^62 - 8, seen on the H100 machine), so the view it hands over has no reversal; a stepped view only.
        view = src[:, 1::2]

    # In: the library's strided view as a parray type, copied into a parray array.
    cap = view.__dlpack__()
    vt, vp = pa.import_capsule(cap)
    print("imported view: layout %s" % pa.layout(vt))
    D = pa.declare("D", "%s float [[6][4]]" % mtt)
    d = pa.lib.pa_create(D)
    if not d:
        fail("pa_create: " + pa.lib.pa_last_error().decode())
    print("copy in:  " + pa.explain(D, vt))
    pa.ok(pa.lib.pa_copy(D, d, vt, vp), "pa_copy")
    del cap

    # Out: the array, its transposition, a stepped window and (where the library has negative strides) a
    # reversal, each compared with the library's own view of the original.
    checks = [("D", None, lambda a: a),
              ("DT", "[[#D_1][#D_0]]", lambda a: a.t() if torch_like else a.T),
              ("DW", "[[4 # disp(1) # D_0][2 # step(2) # disp(1) # D_1]]", lambda a: a[1:5, 1::2])]
    if not torch_like:
        checks.append(("DR", "[[6 # step(-1) # disp(5) # D_0][#D_1]]", lambda a: a[::-1]))
    whole = None
    for name, decl, lib_view in checks:
        t = D if decl is None else pa.declare(name, decl)
        got = from_dlpack(pa.export(t, d, where))
        want = lib_view(view)
        print("out: %-3s %-50s layout %-16s shape %s" % (name, decl or "[[6][4]]", pa.layout(t), tuple(got.shape)))
        if not equal(got, want):
            fail("%s: from_dlpack gave\n%s\nwant\n%s" % (name, got, want))
        if whole is None:
            whole = got
    # The memory is shared, not copied: rows reversed by parray (through a second array) show in `whole`.
    E = pa.declare("E", "%s float [[6][4]]" % mtt)
    e = pa.lib.pa_create(E)
    pa.ok(pa.lib.pa_copy(E, e, pa.declare("DR2", "[[6 # step(-1) # disp(5) # D_0][#D_1]]"), d), "pa_copy reverse")
    pa.ok(pa.lib.pa_copy(D, d, E, e), "pa_copy back")
    if mtt == "dmem":
        mod.cuda.synchronize() if torch_like else mod.cuda.runtime.deviceSynchronize()
    if not equal(whole, view.flip(0) if torch_like else view[::-1]):
        fail("a change through parray did not show in the exported array:\n%s" % whole)
    print("shared:   rows reversed through parray show in the exported array")
    del whole
    pa.ok(pa.lib.pa_destroy(E, e), "pa_destroy")
    pa.ok(pa.lib.pa_destroy(D, d), "pa_destroy")
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
