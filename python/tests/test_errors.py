"""Bad input from Python: each a Python exception that names the problem, with nothing written, never a crash."""
import numpy as np
import pytest

import parray

pytestmark = pytest.mark.usefixtures("copy_path")
from parray import ParrayError


@pytest.fixture
def types(scope):
    A = scope.declare("A", "paged float [[3][4]]")
    AT = scope.declare("AT", "paged float [[#A_1][#A_0]]")
    B = scope.declare("B", "paged float [[4][3]]")
    return scope, A, AT, B


def untouched(b):
    return bool((b == -1).all())


def test_wrong_dtype(types):
    s, A, AT, B = types
    b = np.full((4, 3), -1, np.float32)
    with pytest.raises(ParrayError, match="holds float .float32. but the array holds float64: wrong dtype") as e:
        parray.copy(B, b, AT, np.zeros((3, 4)))
    assert e.value.name == "ERR_ELM" and untouched(b)
    with pytest.raises(ParrayError, match="int32"):
        parray.copy(B, np.zeros((4, 3), np.int32), AT, np.zeros((3, 4), np.float32))


def test_non_contiguous_and_negative_strides(types):
    s, A, AT, B = types
    b = np.full((4, 3), -1, np.float32)
    big = np.zeros((3, 8), np.float32)
    with pytest.raises(ParrayError, match="not contiguous.*None as its type"):
        parray.copy(B, b, AT, big[:, ::2])
    with pytest.raises(ParrayError, match="negative strides"):
        parray.copy(B, b, AT, np.zeros((3, 4), np.float32)[::-1])
    assert untouched(b)


def test_size_mismatch(types):
    s, A, AT, B = types
    C = s.declare("C", "paged float [[5][3]]")
    b = np.full((5, 3), -1, np.float32)
    with pytest.raises(ParrayError, match="15.*12|12.*15") as e:
        parray.copy(C, b, AT, np.zeros((3, 4), np.float32))
    assert e.value.name == "ERR_SIZE" and untouched(b)


def test_array_too_small_for_the_type(types):
    s, A, AT, B = types
    b = np.full((4, 3), -1, np.float32)
    with pytest.raises(ParrayError, match="reaches offsets 0..11 .48 bytes. but the numpy float32 array of shape "
                                          r"\(10,\) on cpu has 40 bytes"):
        parray.copy(B, b, AT, np.zeros(10, np.float32))
    assert untouched(b)


def test_read_only_destination(types):
    s, A, AT, B = types
    b = np.zeros((4, 3), np.float32)
    b.flags.writeable = False
    with pytest.raises(ParrayError, match="dst: the numpy float32 array .* is read-only"):
        parray.copy(B, b, AT, np.ones((3, 4), np.float32))
    assert not b.any()


def test_not_an_array_and_not_a_type(types):
    s, A, AT, B = types
    with pytest.raises(TypeError, match="src: list is not an array"):
        parray.copy(B, np.zeros((4, 3), np.float32), AT, [1.0] * 12)
    with pytest.raises(TypeError, match="expected a parray.Type"):
        parray.copy("B", np.zeros((4, 3), np.float32), AT, np.zeros((3, 4), np.float32))
    with pytest.raises(TypeError):
        parray.explain("B", AT)


def test_host_array_for_a_device_type(scope):
    D = scope.declare("D", "dmem float [[4]]")
    H = scope.declare("H", "paged float [[4]]")
    with pytest.raises(ParrayError, match="device memory .dmem. but the numpy float32 array .* is in host memory"):
        parray.copy(D, np.zeros(4, np.float32), H, np.zeros(4, np.float32))


def test_big_endian(types):
    s, A, AT, B = types
    with pytest.raises(ParrayError, match="big-endian"):
        parray.copy(B, np.zeros((4, 3), np.float32), AT, np.zeros((3, 4), ">f4"))


def test_bad_declaration_names_the_column(scope):
    with pytest.raises(ParrayError, match="column") as e:
        scope.declare("BAD", "paged float [[3] x [3]]")
    assert e.value.status < 0
    with pytest.raises(KeyError, match="NOPE"):
        scope["NOPE"]


def test_freed_array_and_closed_scope():
    s = parray.Scope()
    A = s.declare("A", "paged double [[2][2]]")
    x = parray.create(A)
    x.free()
    with pytest.raises(ParrayError, match="freed"):
        parray.copy(A, x, A, np.zeros((2, 2)))
    with pytest.raises(ParrayError, match="freed"):
        np.from_dlpack(x)
    y = parray.create(A)
    s.close()
    with pytest.raises(ParrayError, match="scope was closed"):
        parray.copy(A, np.zeros((2, 2)), A, np.zeros((2, 2)))
    with pytest.raises(ParrayError, match="scope was closed"):
        A.size
    with pytest.raises(ParrayError, match="scope was closed"):
        parray.copy(None, np.zeros((2, 2)), None, y)
    del y   # its scope is gone: nothing to free through, and no crash


def test_create_needs_a_memory_type(scope):
    with pytest.raises(ParrayError, match="no memory type"):
        parray.create(scope.declare("A", "float [[2]]"))


def test_errors_carry_the_library_message(scope):
    """A refusal found by the library itself (not by the package's checks) comes with pa_last_error()."""
    A = scope.declare("A", "paged float [[4]]")
    B = scope.declare("B", "paged float [[5]]")
    with pytest.raises(ParrayError) as e:
        parray.explain(B, A)
    assert e.value.name == "ERR_SIZE" and "5" in str(e.value) and "4" in str(e.value)
