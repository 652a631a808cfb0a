"""What an array object is, as parray needs to know it: where its memory is (address, host or which GPU), its
element type, shape and strides.  Read from the object's own protocol, in this order: the NumPy array
interface (__array_interface__), the CUDA array interface (__cuda_array_interface__: CuPy, PyTorch, Numba), and
DLPack (__dlpack__ and __dlpack_device__: PyTorch on the CPU, JAX, anything else).  Nothing is copied."""
from __future__ import annotations

import ctypes
from dataclasses import dataclass
from typing import Any, Optional, Tuple

from . import _dlpack
from ._lib import ParrayError

# Element kinds as NumPy's typestr says them: i (signed), u (unsigned), f (float), c (complex), b (bool).
_DL_KIND = {0: "i", 1: "u", 2: "f", 5: "c", 6: "b"}

# parray's element type names and the (kind, bytes) of the arrays that hold them (src/core/dlpack/dlpack_map.c).
ELEMENTS = {
    "int8_t": ("i", 1), "char": ("i", 1), "signed char": ("i", 1), "uint8_t": ("u", 1), "unsigned char": ("u", 1),
    "int16_t": ("i", 2), "short": ("i", 2), "uint16_t": ("u", 2), "unsigned short": ("u", 2),
    "int32_t": ("i", 4), "int": ("i", 4), "uint32_t": ("u", 4), "unsigned": ("u", 4), "unsigned int": ("u", 4),
    "int64_t": ("i", 8), "long": ("i", 8), "long long": ("i", 8), "uint64_t": ("u", 8), "unsigned long": ("u", 8),
    "unsigned long long": ("u", 8), "size_t": ("u", 8), "half": ("f", 2), "float": ("f", 4), "double": ("f", 8),
    "float2": ("c", 8), "double2": ("c", 16), "bool": ("b", 1),
}
_KIND_WORDS = {"i": "int", "u": "uint", "f": "float", "c": "complex", "b": "bool"}


def dtype_name(kind: str, size: int) -> str:
    """NumPy's name of an element kind and size: float32, int64, complex64, bool."""
    return "bool" if kind == "b" else "%s%d" % (_KIND_WORDS.get(kind, kind), size * 8)


@dataclass
class View:
    """An array's memory as parray sees it.  strides are in bytes (None: C-contiguous)."""
    ptr: int
    nbytes: int
    kind: str
    itemsize: int
    shape: Tuple[int, ...]
    strides: Optional[Tuple[int, ...]]
    device: str            # "cpu", "cuda", "cuda_host" or "cuda_managed"
    device_id: int
    readonly: bool
    library: str           # the object's module, for messages ("numpy", "cupy", "torch")
    keep: Any = None       # what must stay alive while ptr is used (a DLPack capsule)

    def contiguous(self) -> bool:
        if self.strides is None:
            return True
        want = self.itemsize
        for n, s in zip(reversed(self.shape), reversed(self.strides)):
            if n != 1 and s != want:
                return False
            want *= n
        return True

    def describe(self) -> str:
        return "%s %s array of shape %s%s on %s" % (
            self.library, dtype_name(self.kind, self.itemsize), self.shape,
            "" if self.strides is None else " with strides %s bytes" % (self.strides,),
            self.device if self.device == "cpu" else "%s:%d" % (self.device, self.device_id))


def _from_interface(obj: Any, iface: dict, device: str, device_id: int) -> View:
    typestr = iface["typestr"]
    if typestr[0] == ">":
        raise ParrayError("%s array is big-endian (%s): parray copies native little-endian elements" % (
            type(obj).__module__.split(".")[0], typestr), -11, "ERR_ELM")
    kind, itemsize = typestr[1], int(typestr[2:])
    shape = tuple(iface["shape"])
    strides = iface.get("strides")
    if strides is not None:
        strides = tuple(strides)
    if iface.get("offset"):
        raise ParrayError("array interface with an offset is not supported", -12, "ERR_UNSUPPORTED")
    ptr, readonly = iface["data"]
    count = 1
    for n in shape:
        count *= n
    return View(ptr or 0, count * itemsize, kind, itemsize, shape, strides, device, device_id, bool(readonly),
                type(obj).__module__.partition(".")[0])


def _device_id(obj: Any) -> int:
    """The GPU of a CUDA array interface's object (the interface itself does not say): CuPy's .device.id,
    PyTorch's .device.index."""
    dev = getattr(obj, "device", None)
    for attr in ("id", "index"):
        v = getattr(dev, attr, None)
        if isinstance(v, int):
            return v
    return 0


def _from_dlpack(obj: Any) -> View:
    try:
        dev_type, dev_id = obj.__dlpack_device__()
        capsule = obj.__dlpack__()
    except (BufferError, RuntimeError) as e:   # PyTorch: a tensor that requires grad, a conjugate view ...
        raise ParrayError("%s cannot be exported by DLPack: %s" % (type(obj).__name__, e), -1, "ERR_INVAL")
    t = _dlpack.tensor_of_capsule(capsule)
    dt = t.dtype
    if dt.lanes != 1 or dt.code not in _DL_KIND:
        raise ParrayError("DLPack dtype code %d bits %d lanes %d has no parray element type" % (
            dt.code, dt.bits, dt.lanes), -11, "ERR_ELM")
    itemsize = dt.bits // 8
    shape = tuple(t.shape[i] for i in range(t.ndim))
    strides = None if not t.strides else tuple(t.strides[i] * itemsize for i in range(t.ndim))
    count = 1
    for n in shape:
        count *= n
    # A capsule borrowed here was not consumed: its destructor frees the producer's tensor when `keep` goes.
    return View((t.data or 0) + t.byte_offset, count * itemsize, _DL_KIND[dt.code], itemsize, shape, strides,
                _dlpack.DEVICE_NAMES.get(int(dev_type), "device type %d" % int(dev_type)), int(dev_id), False,
                type(obj).__module__.split(".")[0], keep=capsule)


def view_of(obj: Any, what: str) -> View:
    """The View of obj; `what` ("dst", "src") names it in errors."""
    iface = getattr(obj, "__array_interface__", None)
    if iface is not None:
        return _from_interface(obj, iface, "cpu", 0)
    if getattr(obj, "requires_grad", False) is True:   # PyTorch hands such tensors to no one
        raise ParrayError("%s: the torch tensor requires grad: pass tensor.detach()" % what, -1, "ERR_INVAL")
    try:
        iface = getattr(obj, "__cuda_array_interface__", None)
    except Exception:       # PyTorch refuses it for tensors that require grad; DLPack says why below
        iface = None
    if iface is not None:
        return _from_interface(obj, iface, "cuda", _device_id(obj))
    if hasattr(obj, "__dlpack__") and hasattr(obj, "__dlpack_device__"):
        return _from_dlpack(obj)
    raise TypeError("%s: %s is not an array parray can read (it has none of __array_interface__, "
                    "__cuda_array_interface__, __dlpack__)" % (what, type(obj).__name__))
