"""Shared fixtures: a seeded random generator whose seed is printed on failure (PARRAY_TEST_SEED sets it)."""
import os

import pytest

np = pytest.importorskip("numpy")


@pytest.fixture
def rng(request):
    seed = int(os.environ.get("PARRAY_TEST_SEED", "20261128"))
    request.node.user_properties.append(("seed", seed))
    print("seed %d (PARRAY_TEST_SEED)" % seed)
    return np.random.default_rng(seed)


@pytest.fixture
def scope():
    import parray
    s = parray.Scope()
    yield s
    s.close()


@pytest.fixture(params=["fast", "checked"])
def copy_path(request, monkeypatch):
    """Runs a test through each of copy()'s paths: the C module's (NumPy arrays; skipped where the build has no
    C module) and the checked Python path that every other array takes."""
    from parray import core
    if request.param == "checked":
        monkeypatch.setattr(core, "_fast", None)
    elif core._fast is None:
        pytest.skip("this build has no C module (parray._fast)")
    return request.param
