"""Loads libparray.so with ctypes and declares the C functions the package calls.

The library is looked for, in order: the file named by the environment variable PARRAY_LIBRARY (to run the
package from a source tree against a build directory: PARRAY_LIBRARY=build/libparray.so
PYTHONPATH=python), the copy installed inside this package by `pip install`, and the system's libparray.so.0.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import os

c_void_p = ctypes.c_void_p
c_char_p = ctypes.c_char_p
c_int = ctypes.c_int
c_int64 = ctypes.c_int64
c_size_t = ctypes.c_size_t


class ParrayError(Exception):
    """An error reported by parray: `status` is the C status code (negative), `name` its name (such as
    "ERR_SIZE") and the message is the library's own detailed message (pa_last_error()), or the package's
    when the problem was found before calling the library."""

    def __init__(self, message: str, status: int = -1, name: str = "ERR_INVAL") -> None:
        super().__init__(message)
        self.status = status
        self.name = name


def _find() -> str:
    env = os.environ.get("PARRAY_LIBRARY")
    if env:
        if not os.path.exists(env):
            raise ImportError("PARRAY_LIBRARY=%s: no such file" % env)
        return env
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "libparray.so")
    if os.path.exists(here):
        return here
    found = ctypes.util.find_library("parray")
    if found:
        return found
    raise ImportError("libparray.so was not found: install the package with `pip install ./python`, or set "
                      "PARRAY_LIBRARY to the path of a built libparray.so")


path = _find()
lib = ctypes.CDLL(path)

# (name, restype, argtypes) of every C function used; declared once here so that pointers are never truncated
# to C ints.
_SIGNATURES = [
    ("pa_version", c_char_p, [c_void_p, c_void_p, c_void_p]),
    ("pa_last_error", c_char_p, []),
    ("pa_status_name", c_char_p, [c_int]),
    ("pa_error_clear", None, []),
    ("pa_scope_create", c_int, [c_void_p, ctypes.POINTER(c_void_p)]),
    ("pa_scope_destroy", None, [c_void_p]),
    ("pa_scope_set_int", c_int, [c_void_p, c_char_p, c_int64]),
    ("pa_declare", c_int, [c_void_p, c_char_p, c_char_p]),
    ("pa_declare_text", c_int, [c_void_p, c_char_p]),
    ("pa_type_get", c_void_p, [c_void_p, c_char_p]),
    ("pa_type_parse", c_void_p, [c_void_p, c_char_p]),
    ("pa_type_child", c_void_p, [c_void_p, c_int]),
    ("pa_size", c_int64, [c_void_p]),
    ("pa_ndim", c_int, [c_void_p]),
    ("pa_elm", c_char_p, [c_void_p]),
    ("pa_elm_size", c_size_t, [c_void_p]),
    ("pa_mtt", c_char_p, [c_void_p]),
    ("pa_offset", c_int64, [c_void_p, c_int64]),
    ("pa_extent", c_int, [c_void_p, ctypes.POINTER(c_int64), ctypes.POINTER(c_int64)]),
    ("pa_type_name", c_char_p, [c_void_p]),
    ("pa_type_format", c_int, [c_void_p, c_char_p, c_size_t]),
    ("pa_layout_format", c_int, [c_void_p, c_char_p, c_size_t]),
    ("pa_create", c_void_p, [c_void_p]),
    ("pa_destroy", c_int, [c_void_p, c_void_p]),
    ("pa_alloc_bytes", c_size_t, [c_void_p]),
    ("pa_mtt_available", c_int, [c_char_p]),
    ("pa_copy", c_int, [c_void_p, c_void_p, c_void_p, c_void_p]),
    ("pa_copy_async", c_int, [c_void_p, c_void_p, c_void_p, c_void_p, c_void_p]),
    ("pa_copy_explain", c_int, [c_void_p, c_void_p, c_char_p, c_size_t]),
    ("pa_backend_on", c_int, [c_char_p]),
    ("pa_cuda_device_count", c_int, []),
    ("pa_cuda_get_device", c_int, []),
    ("pa_dlpack_export", c_int, [c_void_p, c_void_p, c_void_p]),
    ("pa_dlpack_import", c_int, [c_void_p, c_void_p, ctypes.POINTER(c_void_p), ctypes.POINTER(c_void_p)]),
    # The Star Schema Benchmark (ssb.py).
    ("pa_ssb_generate", c_int, [ctypes.c_double, ctypes.c_uint64, c_int, ctypes.POINTER(c_void_p)]),
    ("pa_ssb_read", c_int, [c_char_p, ctypes.POINTER(c_void_p)]),
    ("pa_ssb_write", c_int, [c_void_p, c_char_p]),
    ("pa_ssb_destroy", None, [c_void_p]),
    ("pa_ssb_scale", ctypes.c_double, [c_void_p]),
    ("pa_ssb_rows", c_int64, [c_void_p, c_int]),
    ("pa_ssb_column", c_void_p, [c_void_p, c_char_p, ctypes.POINTER(c_int64)]),
    ("pa_ssb_dict_string", c_char_p, [c_void_p, c_char_p, ctypes.c_int32]),
    ("pa_ssb_query_name", c_char_p, [c_int]),
    ("pa_ssb_query_index", c_int, [c_char_p]),
    ("pa_ssb_query_sql", c_char_p, [c_int]),
    ("pa_ssb_result_column", c_char_p, [c_int, c_int]),
    ("pa_ssb_run_cpu", c_int, [c_void_p, c_int, c_int, c_void_p]),
    ("pa_ssb_result_destroy", None, [c_void_p]),
]
for _name, _res, _args in _SIGNATURES:
    _f = getattr(lib, _name)
    _f.restype = _res
    _f.argtypes = _args


def error(status: int, what: str = "") -> ParrayError:
    """The exception for a failed call: the library's message, prefixed with what the package was doing."""
    msg = (lib.pa_last_error() or b"").decode(errors="replace")
    name = (lib.pa_status_name(status) or b"ERR").decode()
    if not msg:
        msg = name
    return ParrayError("%s: %s" % (what, msg) if what else msg, status, name)


def check(status: int, what: str = "") -> None:
    """Raises ParrayError for a negative status."""
    if status < 0:
        raise error(status, what)


def version() -> str:
    """The version of the loaded libparray (pa_version)."""
    return lib.pa_version(None, None, None).decode()
