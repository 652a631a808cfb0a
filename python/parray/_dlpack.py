"""DLPack through ctypes: the structures of include/parray/dlpack.h, reading a producer's capsule without taking
it, and handing parray's exports to consumers in capsules (the "dltensor" protocol of DLPack 0.6 to 0.8, which
NumPy, CuPy and PyTorch all accept)."""
from __future__ import annotations

import ctypes
import itertools
from typing import Any, Callable, Dict

KDL_CPU = 1
KDL_CUDA = 2
KDL_CUDA_HOST = 3
KDL_CUDA_MANAGED = 13
DEVICE_NAMES = {KDL_CPU: "cpu", KDL_CUDA: "cuda", KDL_CUDA_HOST: "cuda_host", KDL_CUDA_MANAGED: "cuda_managed"}


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

CAPSULE_NAME = b"dltensor"
USED_NAME = b"used_dltensor"
_api = ctypes.pythonapi
_api.PyCapsule_New.restype = ctypes.py_object
_api.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_IsValid.restype = ctypes.c_int
_api.PyCapsule_IsValid.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_GetName.restype = ctypes.c_char_p
_api.PyCapsule_GetName.argtypes = [ctypes.py_object]


def tensor_of_capsule(capsule: Any) -> DLTensor:
    """The DLTensor in a producer's capsule, borrowed: the capsule keeps ownership (and frees the tensor when it
    dies), so the caller keeps the capsule alive while the tensor is used."""
    if not _api.PyCapsule_IsValid(capsule, CAPSULE_NAME):
        name = _api.PyCapsule_GetName(capsule) if type(capsule).__name__ == "PyCapsule" else None
        raise TypeError("__dlpack__ gave %r, not a capsule named 'dltensor'%s" % (
            type(capsule).__name__, " (named %r: a versioned or used tensor)" % name if name else ""))
    m = ctypes.cast(_api.PyCapsule_GetPointer(capsule, CAPSULE_NAME), ctypes.POINTER(DLManagedTensor))
    return m.contents.dl_tensor


# Exports: each live export is a DLManagedTensor of ours, whose deleter frees parray's tensor and drops the
# reference to the exported object (so that a parray Array outlives every consumer of its memory).
_live: Dict[int, tuple] = {}
_keys = itertools.count(1)


@DELETER
def _deleter(m):  # called by the consumer (or by the capsule's destructor when nobody took it)
    entry = _live.pop(m.contents.manager_ctx, None)
    if entry is not None:
        ours, theirs, owner, on_release = entry
        theirs.contents.deleter(theirs)
        if on_release is not None:
            on_release()


# The capsule destructor may run while the interpreter tears an object down: only C-level calls in it.
_RAW_IS_VALID = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p)(("PyCapsule_IsValid", _api))
_RAW_GET = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p)(("PyCapsule_GetPointer", _api))


@ctypes.CFUNCTYPE(None, ctypes.c_void_p)
def _capsule_destructor(cap):
    """DLPack's rule: a capsule still named "dltensor" was never consumed, so it frees its tensor; a consumer
    renames it "used_dltensor" and calls the deleter itself later."""
    if _RAW_IS_VALID(cap, CAPSULE_NAME):
        m = ctypes.cast(_RAW_GET(cap, CAPSULE_NAME), ctypes.POINTER(DLManagedTensor))
        m.contents.deleter(m)


def wrap_export(theirs: "ctypes._Pointer", owner: Any, on_release: Callable[[], None] = None) -> Any:
    """A capsule holding a copy of parray's exported tensor `theirs` whose deleter also releases `owner`."""
    key = next(_keys)
    ours = DLManagedTensor()
    ours.dl_tensor = theirs.contents.dl_tensor
    ours.manager_ctx = key
    ours.deleter = _deleter
    _live[key] = (ours, theirs, owner, on_release)
    return _api.PyCapsule_New(ctypes.addressof(ours), CAPSULE_NAME, ctypes.cast(_capsule_destructor, ctypes.c_void_p))


def live_exports() -> int:
    """How many exported tensors consumers still hold (for tests)."""
    return len(_live)
