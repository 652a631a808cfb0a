"""Copies between array objects in any layouts, their explanation, and arrays made by parray.

copy(dst_type, dst, src_type, src) is pa_copy with the pointers taken from Python array objects.  Each type
describes where the elements lie in its array's memory, as offsets from the array's first byte: the array
must be contiguous (C order, as NumPy makes it) and big enough for the type's largest offset, and its element
type must be the type's.  With None as a type the array's own shape and strides are used (through DLPack's
import), which also takes non-contiguous and reversed views.  Every argument is checked before the library is
called, and the library checks again; errors are ParrayError (or TypeError for an object that is no array).
"""
from __future__ import annotations

import ctypes
from typing import Any, Optional, Tuple

from . import _dlpack
from ._buffers import ELEMENTS, View, dtype_name, view_of
from ._lib import ParrayError, check, error, lib
from .types import _HOST_MTTS, Scope, Type

try:   # the C accelerator of copies between NumPy arrays (parray/_fast.c); optional
    from . import _fast
    _fast.init(ctypes.cast(lib.pa_copy, ctypes.c_void_p).value)
except ImportError:
    _fast = None

TypeArg = Optional[Type]


def _fail(msg: str, status: int = -1) -> ParrayError:
    return ParrayError(msg, status, (lib.pa_status_name(status) or b"ERR").decode())


def _check_elm(t: Type, elm: Optional[str], elm_size: int, v: View, what: str) -> None:
    want = ELEMENTS.get(elm) if elm is not None else None
    if want is None:
        if elm is None or elm_size != v.itemsize:
            raise _fail("%s: type %s has element type %s (%d bytes) but the array holds %s" % (
                what, t.name or t.decl, elm, elm_size, dtype_name(v.kind, v.itemsize)), -11)
    elif want != (v.kind, v.itemsize):
        raise _fail("%s: type %s holds %s (%s) but the array holds %s: wrong dtype" % (
            what, t.name or t.decl, elm, dtype_name(*want), dtype_name(v.kind, v.itemsize)), -11)


def _bind(t: TypeArg, obj: Any, what: str, writable: bool, temp: list) -> Tuple[int, int, View]:
    """(type handle, pointer, view) for one side of a copy, after every check."""
    if isinstance(obj, Array):
        if t is None:
            obj._live()
            return obj.type._h, obj.ptr, None
        v = obj._view()
    else:
        v = view_of(obj, what)
    if writable and v.readonly:
        raise _fail("%s: the %s is read-only" % (what, v.describe()))
    if t is None:
        return _import(v, what, temp) + (v,)
    if not isinstance(t, Type):
        raise TypeError("%s type: expected a parray.Type or None, got %s" % (what, type(t).__name__))
    mtt, elm, elm_size, lo, hi, size = t.meta()
    if mtt is None:
        h = t.on("dmem" if v.device == "cuda" else "paged")
    else:
        h = t._h
        host = v.device in ("cpu", "cuda_host")
        if mtt == "dmem" and v.device not in ("cuda", "cuda_managed"):
            raise _fail("%s: type %s is in device memory (dmem) but the %s is in host memory" % (
                what, t.name or t.decl, v.describe()), -9)
        if mtt in _HOST_MTTS and not host:
            raise _fail("%s: type %s is in host memory (%s) but the %s is not" % (
                what, t.name or t.decl, mtt, v.describe()), -9)
    if v.device in ("cuda", "cuda_managed") and lib.pa_cuda_device_count() > 0:
        cur = lib.pa_cuda_get_device()
        if cur >= 0 and v.device_id != cur:
            raise _fail("%s: the %s is on another device than parray's current GPU %d (pa_cuda_set_device)" % (
                what, v.describe(), cur), -14)
    _check_elm(t, elm, elm_size, v, what)
    if not v.contiguous():
        neg = any(s < 0 for s in v.strides)
        raise _fail("%s: the %s is not contiguous%s; a type describes offsets in contiguous memory: pass a "
                    "contiguous copy, or None as its type to copy the view in its own layout" % (
                        what, v.describe(), " (it has negative strides)" if neg else ""), -12)
    need = (hi + 1) * v.itemsize if size > 0 else 0
    if lo < 0 or need > v.nbytes:
        raise _fail("%s: type %s reaches offsets %d..%d (%d bytes) but the %s has %d bytes" % (
            what, t.name or t.decl, lo, hi, need, v.describe(), v.nbytes), -6)
    return h, v.ptr, v


def _import(v: View, what: str, temp: list) -> Tuple[int, int]:
    """The array's own layout as an anonymous type (pa_dlpack_import) of a scope that lives for one call."""
    if v.kind not in ("i", "u", "f", "c", "b"):
        raise _fail("%s: %s arrays have no parray element type" % (what, dtype_name(v.kind, v.itemsize)), -11)
    dev = {"cpu": _dlpack.KDL_CPU, "cuda": _dlpack.KDL_CUDA, "cuda_host": _dlpack.KDL_CUDA_HOST,
           "cuda_managed": _dlpack.KDL_CUDA_MANAGED}.get(v.device)
    if dev is None:
        raise _fail("%s: memory on %s is not one parray knows" % (what, v.device), -9)
    n = len(v.shape)
    shape = (ctypes.c_int64 * max(n, 1))(*v.shape)
    strides = None
    if v.strides is not None:
        if any(s % v.itemsize for s in v.strides):
            raise _fail("%s: the %s has strides that are not whole elements" % (what, v.describe()), -12)
        strides = (ctypes.c_int64 * max(n, 1))(*[s // v.itemsize for s in v.strides])
    code = {"i": 0, "u": 1, "f": 2, "c": 5, "b": 6}[v.kind]
    bits = v.itemsize * 8 // (2 if v.kind == "c" else 1)
    lanes = 2 if v.kind == "c" else 1
    if v.kind == "c":
        code = 2   # complex as float2/double2: DLPack's import takes Complex too; lanes of Float say the same
    t = _dlpack.DLTensor(v.ptr or None, _dlpack.DLDevice(dev, v.device_id), n, _dlpack.DLDataType(code, bits, lanes),
                         ctypes.cast(shape, ctypes.POINTER(ctypes.c_int64)),
                         ctypes.cast(strides, ctypes.POINTER(ctypes.c_int64)) if strides is not None else None, 0)
    s = Scope()
    temp.append(s)
    th, p = ctypes.c_void_p(), ctypes.c_void_p()
    check(lib.pa_dlpack_import(s._live(), ctypes.byref(t), ctypes.byref(th), ctypes.byref(p)),
          "%s: the %s" % (what, v.describe()))
    return th.value, p.value or 0


def _copy(dst_type: TypeArg, dst: Any, src_type: TypeArg, src: Any, stream: Any, queued: bool) -> None:
    temp: list = []
    try:
        dh, dp, dv = _bind(dst_type, dst, "dst", True, temp)
        sh, sp, sv = _bind(src_type, src, "src", False, temp)
        if _fast is not None and not queued:   # the infos of the fast path, for the next call
            for t in (dst_type, src_type):
                if type(t) is Type and t._host is None:
                    _host_info(t)
        if queued:
            check(lib.pa_copy_async(dh, dp, sh, sp, _stream_ptr(stream)), "copy_async")
        else:
            check(lib.pa_copy(dh, dp, sh, sp), "copy")
    finally:
        for s in temp:
            s.close()


def _host_info(t: Type) -> Optional[tuple]:
    """(handle, bytes needed, kind, itemsize) of a host type for the C fast path, or None (any other case
    takes the checked path)."""
    if t._host is None and t.scope._h is not None:
        try:
            want = ELEMENTS.get(t.elm or "")
            if want is None or t.mtt not in (None,) + _HOST_MTTS:
                t._host = ()
            else:
                lo, hi = t.extent
                h = t.on("paged")
                t._host = (h, (hi + 1) * want[1] if t.size > 0 else 0, ord(want[0]), want[1]) if lo >= 0 else ()
        except ParrayError:
            t._host = ()
    return t._host or None


def copy(dst_type: TypeArg, dst: Any, src_type: TypeArg, src: Any) -> None:
    """Copies element k of `src` (at src_type's offset k) to `dst` (at dst_type's offset k), for every k: a
    transposition, a window, any layout change (pa_copy).  dst and src are NumPy, CuPy or PyTorch arrays (any
    object with the array interface, the CUDA array interface or DLPack) or Arrays from create(), in host or
    GPU memory; a type of None means the array's own layout.  Raises ParrayError naming the problem (dtype,
    memory, device, contiguity, sizes) with nothing written, or TypeError for an object that is no array."""
    if _fast is not None:
        # The C module checks that both arrays are NumPy's and the infos tuples (a Type's _host, None until the
        # checked path has made it once); 1 sends the call to the checked path, which says what is wrong.
        try:
            rc = _fast.copy(dst_type._host, dst, src_type._host, src)
        except AttributeError:   # a type that is None or no Type
            rc = 1
        if rc == 0:
            return
        if rc != 1:   # the library refused: its own message
            raise error(rc, "copy")
    _copy(dst_type, dst, src_type, src, None, False)


def _stream_ptr(stream: Any) -> Optional[int]:
    if stream is None:
        return None
    if isinstance(stream, int):
        return stream or None
    for attr in ("ptr", "cuda_stream", "handle"):   # CuPy's Stream.ptr, PyTorch's Stream.cuda_stream
        v = getattr(stream, attr, None)
        if isinstance(v, int):
            return v or None
    raise TypeError("stream: expected a cudaStream_t as an int, a CuPy or a PyTorch stream, got %s" %
                    type(stream).__name__)


def copy_async(dst_type: TypeArg, dst: Any, src_type: TypeArg, src: Any, stream: Any = None) -> None:
    """copy() queued on a CUDA stream (pa_copy_async): an int cudaStream_t, a CuPy stream or a PyTorch stream
    (None: the default stream).  Copies between pinned or device memory return at once and have happened when
    the stream reaches them; others wait for the stream and run as copy() does (explain() says which).  Keep
    both arrays alive until then."""
    _copy(dst_type, dst, src_type, src, stream, True)


def explain(dst_type: Type, src_type: Type) -> str:
    """One line saying how copy(dst_type, ..., src_type, ...) is done: strategy, coalesced shape, run length,
    threads, whether copy_async queues it (pa_copy_explain)."""
    for t, what in ((dst_type, "dst"), (src_type, "src")):
        if not isinstance(t, Type):
            raise TypeError("explain: %s type must be a parray.Type, got %s" % (what, type(t).__name__))
    d, s = dst_type._h, src_type._h
    if dst_type.mtt is None or src_type.mtt is None:
        d, s = dst_type.on(src_type.mtt or "paged"), src_type.on(dst_type.mtt or "paged")
    n = lib.pa_copy_explain(d, s, None, 0)
    check(n, "explain")
    buf = ctypes.create_string_buffer(n + 1)
    check(lib.pa_copy_explain(d, s, buf, n + 1), "explain")
    return buf.value.decode()


class Array:
    """An array made by parray (pa_create) for a type with a memory type: host memory (paged, numa, mmap,
    vmem, pinned) or a GPU's (dmem).  NumPy, CuPy and PyTorch take it without a copy through DLPack
    (numpy.from_dlpack(a), cupy.from_dlpack(a), torch.from_dlpack(a)), in the type's shape and strides; each
    such array keeps the Array alive.  The memory is freed by free() (refused while such arrays live) or when
    the Array and every array taken from it are gone."""

    def __init__(self, t: Type) -> None:
        if not isinstance(t, Type):
            raise TypeError("create: expected a parray.Type, got %s" % type(t).__name__)
        if t.mtt is None:
            raise _fail("create: type %s has no memory type; declare it with one (paged, dmem, ...)" % (
                t.name or t.decl), -9)
        p = lib.pa_create(t._h)
        if not p:
            raise error(-2, "create %s" % (t.name or t.decl))
        self.type = t
        self.ptr: Optional[int] = p
        self.nbytes = int(lib.pa_alloc_bytes(t._h))
        self._exports = 0

    def _live(self) -> int:
        if self.ptr is None:
            raise _fail("the array was freed (Array.free() was called): it has no memory any more")
        self.type.scope._live()
        return self.ptr

    def free(self) -> None:
        """Frees the memory now (pa_destroy).  Refused while NumPy, CuPy or PyTorch arrays taken from it through
        DLPack are alive.  Freeing twice does nothing."""
        if self.ptr is None:
            return
        if self._exports:
            raise _fail("the array is still shared with %d array(s) taken through DLPack: free it after them" %
                        self._exports)
        if self.type.scope._h is not None:
            check(lib.pa_destroy(self.type._h0, self.ptr), "free")
        self.ptr = None

    def __del__(self) -> None:
        if getattr(self, "ptr", None) is not None and lib is not None:
            try:
                self.free()
            except Exception:   # a closed scope at interpreter exit: nothing left to free through
                pass

    def _export(self) -> "ctypes._Pointer":
        m = ctypes.POINTER(_dlpack.DLManagedTensor)()
        check(lib.pa_dlpack_export(self.type._h, self._live(), ctypes.byref(m)),
              "export %s" % (self.type.name or self.type.decl))
        return m

    def __dlpack__(self, stream: Any = None, **kwargs: Any) -> Any:
        """A DLPack capsule of the array (its type's shape and strides; the memory is shared)."""
        m = self._export()
        self._exports += 1

        def released() -> None:
            self._exports -= 1
        return _dlpack.wrap_export(m, self, released)

    def __dlpack_device__(self) -> Tuple[int, int]:
        m = self._export()
        try:
            d = m.contents.dl_tensor.device
            return (int(d.device_type), int(d.device_id))
        finally:
            m.contents.deleter(m)

    def _view(self) -> View:
        p = self._live()
        e = ELEMENTS.get(self.type.elm or "", ("V", self.type.elm_size))
        dev = "cuda" if self.type.mtt == "dmem" else "cpu"
        return View(p, self.nbytes, e[0], e[1], (self.nbytes // max(e[1], 1),), None, dev,
                    lib.pa_cuda_get_device() if dev == "cuda" else 0, False, "parray")

    def __repr__(self) -> str:
        state = "freed" if self.ptr is None else "%d bytes" % self.nbytes
        return "<parray.Array of %s, %s>" % (self.type.name or self.type.decl, state)


def create(t: Type) -> Array:
    """A new array of type t (pa_create), uninitialised; see Array."""
    return Array(t)


def version() -> str:
    """The version of the loaded libparray."""
    return lib.pa_version(None, None, None).decode()

