"""parray on a GPU from Python: CuPy and PyTorch arrays, host <-> device and on the device, arrays made by parray
in device memory taken by CuPy and PyTorch without a copy, and the refusals.  Skipped (with the reason) where
CuPy or PyTorch, a GPU, or parray's CUDA backend is absent."""
try:
    import numpy as np
except ImportError:   # main() exits 77; under pytest, conftest.py skips the directory
    np = None

try:
    import pytest
except ImportError:   # run as a script where pytest is missing (see the end of this file)
    import _minipytest as pytest

import parray
from parray import ParrayError
from parray._lib import lib


def gpu_usable():
    return lib.pa_cuda_device_count() > 0


def cupy_or_skip():
    cupy = pytest.importorskip("cupy")
    try:
        if cupy.cuda.runtime.getDeviceCount() < 1:
            pytest.skip("CuPy sees no GPU")
    except Exception as e:   # no driver
        pytest.skip("CuPy sees no GPU: %s" % e)
    if not gpu_usable():
        pytest.skip("this libparray has no usable GPU (CUDA backend not built or no device)")
    return cupy


def torch_or_skip():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch sees no GPU")
    if not gpu_usable():
        pytest.skip("this libparray has no usable GPU (CUDA backend not built or no device)")
    return torch


def make_types(scope):
    A = scope.declare("A", "paged float [[5][7]]")
    AT = scope.declare("AT", "paged float [[#A_1][#A_0]]")
    D = scope.declare("D", "dmem float [[7][5]]")
    DT = scope.declare("DT", "dmem float [[#D_1][#D_0]]")
    H = scope.declare("H", "paged float [[5][7]]")
    return scope, A, AT, D, DT, H


@pytest.fixture
def gtypes(scope):
    return make_types(scope)


def test_cupy_host_device_round_trip(gtypes, rng):
    cupy = cupy_or_skip()
    s, A, AT, D, DT, H = gtypes
    a = rng.standard_normal((5, 7)).astype(np.float32)
    d = cupy.zeros((7, 5), cupy.float32)
    parray.copy(D, d, AT, a)                     # host -> device, transposed on the way
    assert np.array_equal(cupy.asnumpy(d), a.T)
    h = np.zeros((5, 7), np.float32)
    parray.copy(H, h, DT, d)                     # device -> host, transposed back
    assert np.array_equal(h, a)
    e = cupy.zeros((5, 7), cupy.float32)
    parray.copy(s.type("dmem float [[5][7]]"), e, DT, d)   # on the device
    assert np.array_equal(cupy.asnumpy(e), a)
    assert "strategy=" in parray.explain(D, AT)


def test_cupy_views_in_their_own_layout(rng):
    cupy = cupy_or_skip()
    c = cupy.asarray(rng.standard_normal((6, 8)).astype(np.float32))
    out = cupy.zeros((6, 4), cupy.float32)
    parray.copy(None, out, None, c[::-1, 1::2])  # CUDA array interface: negative strides are read correctly
    assert np.array_equal(cupy.asnumpy(out), cupy.asnumpy(c)[::-1, 1::2])
    h = np.zeros((6, 4), np.float32)
    parray.copy(None, h, None, c[:, 1::2])       # device view -> host
    assert np.array_equal(h, cupy.asnumpy(c)[:, 1::2])


def test_cupy_takes_a_parray_device_array(gtypes, rng):
    cupy = cupy_or_skip()
    s, A, AT, D, DT, H = gtypes
    x = parray.create(D)
    a = rng.standard_normal((5, 7)).astype(np.float32)
    parray.copy(D, x, AT, a)
    v = cupy.from_dlpack(x)
    assert v.shape == (7, 5) and np.array_equal(cupy.asnumpy(v), a.T)
    v[0, 0] = 42.0                               # shared memory: parray sees CuPy's write
    h = np.zeros((7, 5), np.float32)
    parray.copy(s.type("paged float [[7][5]]"), h, None, x)
    assert h[0, 0] == 42.0
    with pytest.raises(ParrayError, match="still shared"):
        x.free()
    del v
    x.free()


def test_cupy_copy_async_on_a_stream(gtypes, rng):
    cupy = cupy_or_skip()
    s, A, AT, D, DT, H = gtypes
    a = rng.standard_normal((5, 7)).astype(np.float32)
    d = cupy.zeros((7, 5), cupy.float32)
    stream = cupy.cuda.Stream(non_blocking=True)
    parray.copy_async(D, d, AT, a, stream)
    stream.synchronize()
    assert np.array_equal(cupy.asnumpy(d), a.T)


def test_cupy_refusals(gtypes):
    cupy = cupy_or_skip()
    s, A, AT, D, DT, H = gtypes
    d = cupy.zeros((7, 5), cupy.float32)
    with pytest.raises(ParrayError, match="host memory .paged. but the cupy float32 array .* is not"):
        parray.copy(H, d.reshape(5, 7), A, np.zeros((5, 7), np.float32))
    with pytest.raises(ParrayError, match="wrong dtype"):
        parray.copy(D, cupy.zeros((7, 5), cupy.float64), AT, np.zeros((5, 7), np.float32))
    with pytest.raises(ParrayError, match="not contiguous"):
        parray.copy(D, cupy.zeros((7, 10), cupy.float32)[:, ::2], AT, np.zeros((5, 7), np.float32))
    with pytest.raises(ParrayError, match="reaches offsets"):
        parray.copy(D, cupy.zeros(20, cupy.float32), AT, np.zeros((5, 7), np.float32))
    assert not d.any()


def test_cupy_array_on_another_device(gtypes):
    cupy = cupy_or_skip()
    if cupy.cuda.runtime.getDeviceCount() < 2:
        pytest.skip("one GPU: no other device to refuse")
    s, A, AT, D, DT, H = gtypes
    with cupy.cuda.Device(1):
        other = cupy.zeros((7, 5), cupy.float32)
    with pytest.raises(ParrayError, match="another device"):
        parray.copy(D, other, AT, np.zeros((5, 7), np.float32))


def test_torch_host_device_round_trip(gtypes):
    torch = torch_or_skip()
    s, A, AT, D, DT, H = gtypes
    a = torch.arange(35, dtype=torch.float32).reshape(5, 7)     # CPU tensor: DLPack
    d = torch.zeros((7, 5), dtype=torch.float32, device="cuda")  # CUDA tensor: the CUDA array interface
    parray.copy(D, d, AT, a)
    torch.cuda.synchronize()
    assert torch.equal(d.cpu(), a.t())
    h = torch.zeros((5, 7), dtype=torch.float32)
    parray.copy(H, h, DT, d)
    assert torch.equal(h, a)
    # Device to device in the tensors' own layouts (a transposed view).
    e = torch.zeros((5, 7), dtype=torch.float32, device="cuda")
    parray.copy(None, e, None, d.t())
    torch.cuda.synchronize()
    assert torch.equal(e.cpu(), a)


def test_torch_takes_a_parray_device_array(gtypes):
    torch = torch_or_skip()
    s, A, AT, D, DT, H = gtypes
    x = parray.create(D)
    a = np.arange(35, dtype=np.float32).reshape(5, 7)
    parray.copy(D, x, AT, a)
    t = torch.from_dlpack(x)
    assert t.is_cuda and tuple(t.shape) == (7, 5)
    assert torch.equal(t.cpu(), torch.from_numpy(a.T.copy()))
    t.fill_(3.0)
    torch.cuda.synchronize()
    h = np.zeros((7, 5), np.float32)
    parray.copy(s.type("paged float [[7][5]]"), h, None, x)
    assert (h == 3.0).all()
    del t
    x.free()


def test_torch_refusals(gtypes):
    torch = torch_or_skip()
    s, A, AT, D, DT, H = gtypes
    with pytest.raises(ParrayError, match="device memory .dmem. but the torch float32 array .* is in host memory"):
        parray.copy(D, torch.zeros((7, 5)), AT, np.zeros((5, 7), np.float32))
    g = torch.zeros((7, 5), device="cuda", requires_grad=True)
    with pytest.raises(ParrayError, match="requires grad"):
        parray.copy(D, g, AT, np.zeros((5, 7), np.float32))
    with pytest.raises(ParrayError, match="wrong dtype"):
        parray.copy(D, torch.zeros((7, 5), dtype=torch.int64, device="cuda"), AT, np.zeros((5, 7), np.float32))


def main():
    """Runs every test here without pytest: `python3 python/tests/test_gpu.py` with parray importable (PYTHONPATH
    and PARRAY_LIBRARY for a build directory).  Exits 0 when all ran and passed, 1 on a failure, 77 when every
    test was skipped (no GPU, no CuPy or PyTorch, or a library without CUDA)."""
    import inspect
    import sys
    import traceback
    if np is None:
        print("skipped: NumPy is not installed for %s" % sys.executable)
        sys.exit(77)
    seed = 20261128
    ran = failed = 0
    for name, fn in sorted(globals().items()):
        if not name.startswith("test_") or not callable(fn):
            continue
        scope = parray.Scope()
        fixtures = {"scope": scope, "rng": np.random.default_rng(seed), "gtypes": make_types(scope)}
        try:
            fn(*[fixtures[p] for p in inspect.signature(fn).parameters])
            print("PASS %s" % name)
            ran += 1
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException as e:   # a skip (pytest's derives from BaseException), a failure, an error
            if type(e).__name__ == "Skipped":
                print("SKIP %s: %s" % (name, e))
            else:
                print("FAIL %s (seed %d)" % (name, seed))
                traceback.print_exc()
                failed += 1
        finally:
            scope.close()
    print("%d passed, %d failed" % (ran, failed))
    sys.exit(1 if failed else 0 if ran else 77)


if __name__ == "__main__":
    main()
