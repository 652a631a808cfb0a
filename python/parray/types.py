"""Types in PARRAY's bracket notation: scopes of declarations and the types declared in them.

    s = Scope()
    A = s.declare("A", "paged float [[3][4]]")
    T = s.declare("T", "paged float [[#A_1][#A_0]]")     # the transposition of A
    W = type("[[2 # disp(1) # A_0][#A_1]]", s)           # an anonymous window of rows 1 and 2

docs/types.md gives the notation.  A type without a memory type ("float [[3][4]]") takes that of the array it
is used with: paged for host arrays, dmem for GPU arrays.
"""
from __future__ import annotations

import ctypes
from typing import Dict, Optional, Tuple

from ._lib import ParrayError, check, error, lib

_HOST_MTTS = ("paged", "numa", "mmap", "vmem", "pinned")


def _text(fn, handle) -> str:
    buf = ctypes.create_string_buffer(512)
    n = fn(handle, buf, 512)
    if n >= 512:
        buf = ctypes.create_string_buffer(n + 1)
        fn(handle, buf, n + 1)
    return buf.value.decode()


class Scope:
    """A scope of declarations (pa_scope): types and integer variables, looked up by name.  Closing it (or
    leaving a `with` block) frees its types; using one of them afterwards raises ParrayError."""

    def __init__(self, parent: Optional["Scope"] = None) -> None:
        h = ctypes.c_void_p()
        check(lib.pa_scope_create(parent._live() if parent is not None else None, ctypes.byref(h)), "Scope")
        self._h: Optional[int] = h.value
        self._parent = parent
        self._types: Dict[int, "Type"] = {}

    def _live(self) -> int:
        if self._h is None:
            raise ParrayError("the scope was closed: its types are gone", -1, "ERR_INVAL")
        return self._h

    def close(self) -> None:
        """Frees the scope and its types (pa_scope_destroy).  Closing twice does nothing."""
        if self._h is not None and lib is not None:
            lib.pa_scope_destroy(self._h)
        self._h = None
        for t in self._types.values():   # the fast copy path holds handles: no more
            t._host = ()

    __del__ = close

    def __enter__(self) -> "Scope":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def declare(self, name: str, decl: str) -> "Type":
        """Declares the type `name` (pa_declare) and returns it.  Raises ParrayError with the parser's message
        (which names the column) for a bad declaration."""
        check(lib.pa_declare(self._live(), name.encode(), decl.encode()), "declare %s = %s" % (name, decl))
        return self[name]

    def declare_text(self, text: str) -> None:
        """Reads several statements (`NAME = DECL`, `parray DECL NAME`, `var n = EXPR`; `;` or newlines
        between them), as `parray -f` does."""
        check(lib.pa_declare_text(self._live(), text.encode()), "declare_text")

    def set_int(self, name: str, value: int) -> None:
        """Sets an integer variable used by later declarations' sizes and displacements."""
        check(lib.pa_scope_set_int(self._live(), name.encode(), int(value)), "set_int %s" % name)

    def type(self, decl: str) -> "Type":
        """An anonymous type of this scope from a declaration (pa_type_parse)."""
        h = lib.pa_type_parse(self._live(), decl.encode())
        if not h:
            raise error(-3, "type %s" % decl)
        return self._wrap(h)

    def __getitem__(self, ref: str) -> "Type":
        """A declared type, a dimension path ("A_0_1") or a parameterised type with its values ("W<1,2>")."""
        h = lib.pa_type_get(self._live(), ref.encode())
        if not h:
            raise KeyError("%s: %s" % (ref, (lib.pa_last_error() or b"").decode()))
        return self._wrap(h)

    def _wrap(self, h: int) -> "Type":
        t = self._types.get(h)
        if t is None:
            t = self._types[h] = Type(h, self)
        return t


_default: Optional[Scope] = None


def default_scope() -> Scope:
    """The package's own scope, used by declare() and type() when no scope is given."""
    global _default
    if _default is None:
        _default = Scope()
    return _default


def declare(name: str, decl: str, scope: Optional[Scope] = None) -> "Type":
    """Declares `name` in `scope` (default: the package's scope) and returns the type."""
    return (scope or default_scope()).declare(name, decl)


def type(decl: str, scope: Optional[Scope] = None) -> "Type":  # noqa: A001 - the natural name here
    """An anonymous type from a declaration, in `scope` (default: the package's scope)."""
    return (scope or default_scope()).type(decl)


class Type:
    """A parray type (const pa_type *): a layout of offsets, a memory type and an element type.  Made by a
    Scope; it lives as long as its scope is open."""

    def __init__(self, handle: int, scope: Scope) -> None:
        self._h0 = handle
        self.scope = scope
        self._on: Dict[str, int] = {}
        self._host: Optional[tuple] = None   # (handle, bytes, kind, itemsize) for the fast copy path (core.py)
        self._meta: Optional[tuple] = None   # (mtt, elm, elm_size, lo, hi, size): a type never changes

    def meta(self) -> tuple:
        """(mtt, elm, elm_size, lowest offset, highest offset, size), asked of the library once: what each
        copy checks."""
        h = self._h
        if self._meta is None:
            lo, hi = self.extent if lib.pa_size(h) > 0 else (0, -1)
            self._meta = (self.mtt, self.elm, self.elm_size, lo, hi, lib.pa_size(h))
        return self._meta

    @property
    def _h(self) -> int:
        self.scope._live()
        return self._h0

    # ---- what the type is ----
    @property
    def name(self) -> str:
        return (lib.pa_type_name(self._h) or b"").decode()

    @property
    def size(self) -> int:
        """The number of elements (pa_size)."""
        return lib.pa_size(self._h)

    def __len__(self) -> int:
        return self.size

    @property
    def ndim(self) -> int:
        return lib.pa_ndim(self._h)

    @property
    def elm(self) -> Optional[str]:
        """The element type's name ("float"), or None when the declaration names none."""
        e = lib.pa_elm(self._h)
        return e.decode() if e else None

    @property
    def elm_size(self) -> int:
        return lib.pa_elm_size(self._h)

    @property
    def mtt(self) -> Optional[str]:
        """The memory type ("paged", "dmem", ...), or None when the declaration names none."""
        m = lib.pa_mtt(self._h)
        return m.decode() if m and m != b"any" else None

    @property
    def extent(self) -> Tuple[int, int]:
        """The smallest and the largest offset."""
        lo, hi = ctypes.c_int64(), ctypes.c_int64()
        check(lib.pa_extent(self._h, ctypes.byref(lo), ctypes.byref(hi)), "extent of %s" % self.name)
        return lo.value, hi.value

    @property
    def layout(self) -> str:
        """The compiled layout, "(sizes):(strides)+base"."""
        return _text(lib.pa_layout_format, self._h)

    @property
    def decl(self) -> str:
        """The canonical declaration."""
        return _text(lib.pa_type_format, self._h)

    def offset(self, i: int) -> int:
        """The offset of element i."""
        if not 0 <= i < self.size:
            raise IndexError("element %d of a type of %d" % (i, self.size))
        return lib.pa_offset(self._h, i)

    def offsets(self) -> list:
        """Every offset, in element order."""
        return [lib.pa_offset(self._h, i) for i in range(self.size)]

    def child(self, i: int) -> "Type":
        """Dimension i (pa_type_child)."""
        h = lib.pa_type_child(self._h, i)
        if not h:
            raise IndexError("%s has no dimension %d" % (self.name, i))
        return self.scope._wrap(h)

    def __repr__(self) -> str:
        if self.scope._h is None:
            return "<parray.Type of a closed scope>"
        return "<parray.Type %s %s layout %s>" % (self.name or "(anonymous)", self.decl, self.layout)

    # ---- for copies ----
    def on(self, mtt: str) -> int:
        """The handle of this type on memory type mtt (itself when it has one)."""
        own = self.mtt
        if own is not None:
            return self._h
        h = self._on.get(mtt)
        if h is None:
            h = lib.pa_type_on(self._h, mtt.encode())
            if not h:
                raise error(-9, "type %s on %s" % (self.name, mtt))
            self._on[mtt] = h
        return h


lib.pa_type_on.restype = ctypes.c_void_p
lib.pa_type_on.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
