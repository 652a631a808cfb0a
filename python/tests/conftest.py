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
