"""parray for Python: PARRAY array types in the bracket notation, copies between any layouts of NumPy, CuPy and
PyTorch arrays on the host and on GPUs, explanations of those copies, arrays made by parray that the array
libraries take without a copy, and the Star Schema Benchmark engine.

    import numpy as np, parray
    A = parray.declare("A", "paged float [[3][4]]")
    AT = parray.declare("AT", "paged float [[#A_1][#A_0]]")   # A's offsets, columns first
    B = parray.declare("B", "paged float [[4][3]]")
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    b = np.empty((4, 3), np.float32)
    parray.copy(B, b, AT, a)                                   # b == a.T
    print(parray.explain(B, AT))

docs/python.md in the repository describes the package.  Distributed (MPI) arrays are not available from Python.
"""
from ._lib import ParrayError
from .core import Array, copy, copy_async, create, explain, version
from .types import Scope, Type, declare, default_scope, type
from . import ssb
try:
    from ._build import FEATURES, VERSION
except ImportError:   # run from the source tree (PYTHONPATH=python, PARRAY_LIBRARY=build/libparray.so)
    VERSION = version()
    FEATURES = {}

__version__ = VERSION
__all__ = ["Array", "ParrayError", "Scope", "Type", "backends", "build_info", "copy", "copy_async", "create",
           "declare", "default_scope", "explain", "ssb", "type", "version"]


def backends() -> dict:
    """Whether each backend of the loaded library is built and on here (pa_backend_on): pthread, cuda, mpi."""
    from ._lib import lib
    return {name: lib.pa_backend_on(name.encode()) == 1 for name in ("pthread", "cuda", "mpi")}


def build_info() -> dict:
    """What the package was built with: the library's optional parts (cuda, mpi, numa, hwloc, openmp), whether
    the C accelerator of copies is present, and the library's path and version."""
    from . import _lib, core
    return dict(FEATURES, fast_copy=core._fast is not None, library=_lib.path, version=version())
