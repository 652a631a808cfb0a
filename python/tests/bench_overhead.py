"""The overhead of one small parray.copy from Python against NumPy's slice assignment of the same size.

    python bench_overhead.py [N]        (N: elements of float32, default 64)

Times, best of 25 interleaved rounds of 5,000 calls each: `b[...] = a` (NumPy, contiguous), `b[...] = a.T` (NumPy, a
transposition), parray.copy between two plain types, and parray.copy through a transposed type, and prints
each per call with its ratio to the NumPy slice assignment.  Docs/python.md quotes the numbers.
"""
import sys
import timeit

import numpy as np

import parray


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 64
    rows = 8 if n % 8 == 0 else 1
    cols = n // rows
    s = parray.Scope()
    A = s.declare("A", "paged float [[%d][%d]]" % (rows, cols))
    C = s.declare("C", "paged float [[%d][%d]]" % (rows, cols))
    AT = s.declare("AT", "paged float [[#A_1][#A_0]]")
    D = s.declare("D", "paged float [[%d][%d]]" % (cols, rows))
    a = np.arange(n, dtype=np.float32).reshape(rows, cols)
    b = np.empty_like(a)
    t = np.empty((cols, rows), np.float32)
    cases = [
        ("numpy  b[...] = a", lambda: b.__setitem__(Ellipsis, a)),
        ("numpy  t[...] = a.T", lambda: t.__setitem__(Ellipsis, a.T)),
        ("parray copy(C, b, A, a)", lambda: parray.copy(C, b, A, a)),
        ("parray copy(D, t, AT, a)", lambda: parray.copy(D, t, AT, a)),
    ]
    parray.copy(D, t, AT, a)
    assert np.array_equal(t, a.T)
    # Interleaved: each round times every case once, and each case keeps its best round, so that a busy
    # moment of a shared machine does not fall on one case only.
    calls, rounds = 5000, 25
    best = [float("inf")] * len(cases)
    for _ in range(rounds):
        for i, (name, fn) in enumerate(cases):
            best[i] = min(best[i], timeit.timeit(fn, number=calls) / calls * 1e9)
    print("%d float32 elements (%d x %d), fast copy path: %s" % (n, rows, cols,
                                                                 parray.build_info()["fast_copy"]))
    for (name, fn), ns in zip(cases, best):
        print("  %-26s %7.0f ns  %.2fx" % (name, ns, ns / best[0]))


if __name__ == "__main__":
    main()
