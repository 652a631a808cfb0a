"""The Star Schema Benchmark engine (include/parray/ssb.h, docs/ssb.md): generate or read the five tables,
write them, and run the 13 queries on the CPU, getting their result rows.

    from parray import ssb
    db = ssb.generate(0.01)                 # scale factor 0.01, seed 42
    res = ssb.run(db, "q2.1")
    res.columns                             # ('d_year', 'p_brand1', 'revenue')
    res.rows[:2]                            # [(1992, 'MFGR#121', 1234567), ...]
"""
from __future__ import annotations

import ctypes
import os
from typing import List, Sequence, Tuple, Union

from ._lib import ParrayError, check, error, lib

TABLES = ("lineorder", "customer", "supplier", "part", "date")
NQUERIES = 13


class _Result(ctypes.Structure):
    _fields_ = [("query", ctypes.c_int), ("ngroups", ctypes.c_int), ("nrows", ctypes.c_int64),
                ("groups", ctypes.POINTER(ctypes.c_int32)), ("values", ctypes.POINTER(ctypes.c_int64))]


class Database:
    """The five tables' columns in host memory (pa_ssb_db).  Strings are dictionary codes; columns() gives the
    integers without a copy."""

    def __init__(self, handle: int) -> None:
        self._h = handle

    def _live(self) -> int:
        if self._h is None:
            raise ParrayError("the database was closed", -1, "ERR_INVAL")
        return self._h

    def close(self) -> None:
        """Frees the database (pa_ssb_destroy); closing twice does nothing."""
        if self._h is not None and lib is not None:
            lib.pa_ssb_destroy(self._h)
        self._h = None

    __del__ = close

    def __enter__(self) -> "Database":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @property
    def scale(self) -> float:
        return lib.pa_ssb_scale(self._live())

    def rows(self, table: str) -> int:
        """The rows of a table ("lineorder", "customer", "supplier", "part", "date")."""
        if table not in TABLES:
            raise ValueError("no table %r; the tables are %s" % (table, ", ".join(TABLES)))
        return lib.pa_ssb_rows(self._live(), TABLES.index(table))

    def column(self, name: str) -> memoryview:
        """A column's values ("lo_revenue", "c_region", ...) as a memoryview of int32 sharing the database's
        memory (numpy.asarray takes it without a copy); it keeps the database alive."""
        n = ctypes.c_int64()
        p = lib.pa_ssb_column(self._live(), name.encode(), ctypes.byref(n))
        if not p:
            raise error(-4, "column %s" % name)
        arr = (ctypes.c_int32 * n.value).from_address(p)
        arr._db = self   # the memory is the database's
        return memoryview(arr).cast("B").cast("i")

    def string(self, column: str, code: int) -> str:
        """The string of a dictionary code in a string column."""
        s = lib.pa_ssb_dict_string(self._live(), column.encode(), int(code))
        if s is None:
            raise error(-4, "string %d of %s" % (code, column))
        return s.decode()

    def write(self, directory: Union[str, os.PathLike]) -> None:
        """Writes the columnar format into directory (created if missing), as `parray ssb gen` does."""
        check(lib.pa_ssb_write(self._live(), os.fsencode(directory)), "write")


class Result:
    """A query's result: `columns` names the group columns and the aggregate; `rows` are tuples in the query's
    ORDER BY order, strings decoded from the dictionaries, the aggregate last."""

    def __init__(self, query: str, columns: Tuple[str, ...], rows: List[tuple]) -> None:
        self.query = query
        self.columns = columns
        self.rows = rows

    def __len__(self) -> int:
        return len(self.rows)

    def __repr__(self) -> str:
        return "<parray.ssb.Result %s: %d rows of %s>" % (self.query, len(self.rows), ", ".join(self.columns))


def generate(scale: float = 0.01, seed: int = 42, threads: int = 0) -> Database:
    """Generates the tables at a scale factor (> 0, at most 1000; 1 is about 6 million lineorder rows) with
    `threads` host threads (0: every core); the data depend on scale and seed only."""
    h = ctypes.c_void_p()
    check(lib.pa_ssb_generate(float(scale), int(seed), int(threads), ctypes.byref(h)), "generate")
    return Database(h.value)


def read(directory: Union[str, os.PathLike]) -> Database:
    """Reads a database written by Database.write or `parray ssb gen`, checking every file against the
    manifest (a missing, truncated or corrupt file raises ParrayError naming it)."""
    h = ctypes.c_void_p()
    check(lib.pa_ssb_read(os.fsencode(directory), ctypes.byref(h)), "read %s" % os.fspath(directory))
    return Database(h.value)


def queries() -> Sequence[str]:
    """The query names, q1.1 .. q4.3."""
    return tuple(lib.pa_ssb_query_name(i).decode() for i in range(NQUERIES))


def _index(query: Union[str, int]) -> int:
    q = query if isinstance(query, int) else lib.pa_ssb_query_index(str(query).encode())
    if not 0 <= q < NQUERIES:
        raise ValueError("no query %r; the queries are %s" % (query, ", ".join(queries())))
    return q


def sql(query: Union[str, int]) -> str:
    """A query's SQL text, as the specification gives it."""
    return lib.pa_ssb_query_sql(_index(query)).decode()


def run(db: Database, query: Union[str, int], threads: int = 0) -> Result:
    """Runs a query ("q2.1", "2.1" or its index 0..12) on the CPU with `threads` host threads (0: every core)
    and returns its rows."""
    q = _index(query)
    r = _Result()
    check(lib.pa_ssb_run_cpu(db._live(), q, int(threads), ctypes.byref(r)), "run %s" % queries()[q])
    try:
        names = tuple(lib.pa_ssb_result_column(q, i).decode() for i in range(r.ngroups))
        dicts = []
        for name in names:   # string columns decode through their dictionary; d_year is a number
            dicts.append(name != "d_year" and lib.pa_ssb_dict_string(db._h, name.encode(), 0) is not None)
        lib.pa_error_clear()
        rows = []
        for i in range(r.nrows):
            row = []
            for j, name in enumerate(names):
                v = r.groups[i * 3 + j]
                row.append(db.string(name, v) if dicts[j] else int(v))
            row.append(int(r.values[i]))
            rows.append(tuple(row))
    finally:
        lib.pa_ssb_result_destroy(ctypes.byref(r))
    agg = "profit" if q >= 10 else "revenue"
    return Result(queries()[q], names + (agg,), rows)
