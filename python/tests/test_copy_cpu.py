"""Copies between NumPy arrays through parray types, each compared with NumPy's own transposes and slicing, on
random shapes, permutations, windows and element types."""
import itertools

import numpy as np
import pytest

import parray

pytestmark = pytest.mark.usefixtures("copy_path")

DTYPES = {"float": np.float32, "double": np.float64, "int": np.int32, "int8_t": np.int8, "unsigned short": np.uint16,
          "long": np.int64, "half": np.float16, "float2": np.complex64, "bool": np.bool_}


def dims(shape):
    return "".join("[%d]" % n for n in shape)


def random_array(rng, shape, dtype):
    if dtype == np.bool_:
        return rng.integers(0, 2, size=shape).astype(np.bool_)
    if dtype == np.complex64:
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(np.complex64)
    return rng.integers(-100, 100, size=shape).astype(dtype) if np.dtype(dtype).kind in "iu" and \
        np.dtype(dtype).kind == "i" else rng.integers(0, 100, size=shape).astype(dtype)


def test_readme_transposition(scope):
    A = scope.declare("A", "paged float [[3][4]]")
    AT = scope.declare("AT", "paged float [[#A_1][#A_0]]")
    B = scope.declare("B", "paged float [[4][3]]")
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    b = np.zeros((4, 3), np.float32)
    parray.copy(B, b, AT, a)
    assert np.array_equal(b, a.T)
    assert "strategy=transpose" in parray.explain(B, AT)


@pytest.mark.parametrize("elm", sorted(DTYPES))
def test_random_permutations(scope, rng, elm):
    """[[n0][n1][n2]] read through [[#A_p0][#A_p1][#A_p2]] into a dense array equals np.transpose(a, p)."""
    dtype = DTYPES[elm]
    for trial in range(6):
        nd = int(rng.integers(2, 5))
        shape = tuple(int(n) for n in rng.integers(1, 7, size=nd))
        perm = tuple(int(p) for p in rng.permutation(nd))
        A = scope.declare("A%d" % trial, "paged %s [%s]" % (elm, dims(shape)))
        P = scope.declare("P%d" % trial, "paged %s [%s]" % (elm, "".join("[#A%d_%d]" % (trial, p) for p in perm)))
        D = scope.declare("D%d" % trial, "paged %s [%s]" % (elm, dims([shape[p] for p in perm])))
        a = random_array(rng, shape, dtype)
        d = np.zeros([shape[p] for p in perm], dtype)
        parray.copy(D, d, P, a)
        assert np.array_equal(d, np.transpose(a, perm)), (shape, perm)
        # And back: writing through the permuted type into a fresh array restores a.
        back = np.zeros_like(a)
        parray.copy(P, back, D, d)
        assert np.array_equal(back, a), (shape, perm)


def test_random_windows(scope, rng):
    """Windows with displacements and steps, read and written, against NumPy slicing."""
    for trial in range(20):
        rows, cols = (int(n) for n in rng.integers(2, 12, size=2))
        r0 = int(rng.integers(0, rows))
        nr = int(rng.integers(1, rows - r0 + 1))
        step = int(rng.integers(1, 4))
        c0 = int(rng.integers(0, cols))
        nc = int(rng.integers(1, (cols - 1 - c0) // step + 2))
        A = scope.declare("W%d" % trial, "paged double [[%d][%d]]" % (rows, cols))
        W = scope.type("[[%d # disp(%d) # W%d_0][%d # step(%d) # disp(%d) # W%d_1]]" % (
            nr, r0, trial, nc, step, c0, trial))
        D = scope.type("paged double [[%d][%d]]" % (nr, nc))
        a = rng.standard_normal((rows, cols))
        want = a[r0:r0 + nr, c0::step][:, :nc]
        d = np.empty((nr, nc))
        parray.copy(D, d, W, a)
        assert np.array_equal(d, want), (rows, cols, r0, nr, c0, nc, step)
        # Writing the window: only its elements change.
        x = rng.standard_normal((nr, nc))
        b = a.copy()
        parray.copy(W, b, D, x)
        expect = a.copy()
        expect[r0:r0 + nr, c0::step][:, :nc] = x
        assert np.array_equal(b, expect)


def test_reversal(scope):
    A = scope.declare("A", "paged int [[6][4]]")
    R = scope.declare("R", "paged int [[6 # step(-1) # disp(5) # A_0][#A_1]]")
    a = np.arange(24, dtype=np.int32).reshape(6, 4)
    out = np.empty_like(a)
    parray.copy(A, out, R, a)
    assert np.array_equal(out, a[::-1])


def test_own_layout_with_none(scope, rng):
    """None as a type: the array's own shape and strides, so non-contiguous and reversed views copy too."""
    a = rng.standard_normal((6, 8)).astype(np.float32)
    out = np.empty((6, 4), np.float32)
    parray.copy(None, out, None, a[::-1, 1::2])
    assert np.array_equal(out, a[::-1, 1::2])
    D = scope.declare("D", "paged float [[8][6]]")
    t = np.empty((8, 6), np.float32)
    parray.copy(D, t, None, a.T)
    assert np.array_equal(t, a.T)
    # Into a strided destination view.
    big = np.zeros((6, 8), np.float32)
    parray.copy(None, big[:, ::2], None, out)
    assert np.array_equal(big[:, ::2], out) and not big[:, 1::2].any()


def test_type_without_memory_type(scope):
    A = scope.declare("A", "float [[2][3]]")
    AT = scope.declare("AT", "[[#A_1][#A_0]]")
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.empty((3, 2), np.float32)
    parray.copy(scope.type("float [[3][2]]"), b, AT, a)
    assert np.array_equal(b, a.T)


def test_copy_async_on_the_host(scope):
    A = scope.declare("A", "paged float [[5][7]]")
    AT = scope.declare("AT", "paged float [[#A_1][#A_0]]")
    B = scope.declare("B", "paged float [[7][5]]")
    a = np.arange(35, dtype=np.float32).reshape(5, 7)
    b = np.empty((7, 5), np.float32)
    parray.copy_async(B, b, AT, a)   # host memory: waits, complete on return
    assert np.array_equal(b, a.T)


def test_create_shares_memory_with_numpy(scope):
    A = scope.declare("A", "paged float [[3][4]]")
    AT = scope.declare("AT", "paged float [[#A_1][#A_0]]")
    x = parray.create(A)
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    parray.copy(A, x, A, a)
    v = np.from_dlpack(x)
    assert v.shape == (3, 4) and np.array_equal(v, a)
    # The transposed type exported over the same memory is a.T, without a copy.
    y = parray.create(A)
    parray.copy(A, y, A, a)
    w = parray.copy(AT, x, A, a * 0)  # zero x through the transposed type
    assert w is None and not v.any()   # v sees parray's write: shared memory
    with pytest.raises(parray.ParrayError, match="still shared"):
        x.free()
    del v
    x.free()
    x.free()   # twice: nothing
    with pytest.raises(parray.ParrayError, match="freed"):
        parray.copy(A, np.empty((3, 4), np.float32), None, x)
    y.free()


def test_array_as_argument(scope):
    A = scope.declare("A", "paged double [[4][4]]")
    AT = scope.declare("AT", "paged double [[#A_1][#A_0]]")
    x = parray.create(A)
    a = np.arange(16, dtype=np.float64).reshape(4, 4)
    parray.copy(None, x, AT, a)      # x in its own type A: a transposed into it
    assert np.array_equal(np.from_dlpack(x), a.T)


def test_types_answer(scope):
    A = scope.declare("A", "paged float [[3][3]][2]")
    assert (A.size, A.ndim, A.elm, A.elm_size, A.mtt) == (18, 2, "float", 4, "paged")
    assert A.child(0).offsets() == [0, 2, 4, 6, 8, 10, 12, 14, 16]
    assert A.layout == "(18):(1)+0"
    B = scope.declare("B", "[[#A_0_1][#A_0_0]][#A_1]")
    assert B.child(0).offsets() == [0, 6, 12, 2, 8, 14, 4, 10, 16]
    assert scope["A_0_1"].size == 3
    assert parray.version() == parray.__version__


def test_parameterised_types(scope):
    scope.declare_text("A = paged float [[4][4]]\nW = <int r> [[2 # disp(r) # A_0][#A_1]]")
    a = np.arange(16, dtype=np.float32).reshape(4, 4)
    for r in range(3):
        out = np.empty((2, 4), np.float32)
        parray.copy(scope.type("paged float [[2][4]]"), out, scope["W<%d>" % r], a)
        assert np.array_equal(out, a[r:r + 2])


def test_many_shapes_against_numpy(scope, rng):
    """Every pair of axes of random 3-D arrays swapped, for several element types at once."""
    for trial, (elm, dtype) in enumerate(itertools.islice(itertools.cycle(DTYPES.items()), 12)):
        shape = tuple(int(n) for n in rng.integers(1, 6, size=3))
        i, j = sorted(rng.choice(3, size=2, replace=False))
        perm = [0, 1, 2]
        perm[i], perm[j] = perm[j], perm[i]
        A = scope.declare("M%d" % trial, "%s [%s]" % (elm, dims(shape)))
        P = scope.type("[%s]" % "".join("[#M%d_%d]" % (trial, p) for p in perm))
        a = random_array(rng, shape, dtype)
        d = np.empty([shape[p] for p in perm], dtype)
        parray.copy(scope.type("%s [%s]" % (elm, dims(d.shape))), d, P, a)
        assert np.array_equal(d, np.swapaxes(a, i, j))


def test_fast_path_is_taken(scope, copy_path):
    """The C module copies valid NumPy pairs itself (0) and leaves the rest to the checked path (1)."""
    from parray import core
    if copy_path != "fast":
        pytest.skip("the C module's own test")
    A = scope.declare("A", "paged float [[3][4]]")
    AT = scope.declare("AT", "paged float [[#A_1][#A_0]]")
    B = scope.declare("B", "paged float [[4][3]]")
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    b = np.zeros((4, 3), np.float32)
    parray.copy(B, b, AT, a)
    assert B._host and AT._host
    b[:] = 0
    assert core._fast.copy(B._host, b, AT._host, a) == 0 and np.array_equal(b, a.T)
    assert core._fast.copy(B._host, b, AT._host, a.astype(np.float64)) == 1        # dtype
    assert core._fast.copy(B._host, b, AT._host, np.zeros((3, 8), np.float32)[:, ::2]) == 1   # contiguity
    assert core._fast.copy(B._host, b, AT._host, np.zeros(11, np.float32)) == 1    # size
    b.flags.writeable = False
    assert core._fast.copy(B._host, b, AT._host, a) == 1                           # read-only
