"""The few pytest calls test_gpu.py makes, for machines without pytest (a GPU machine without network): run
`python3 python/tests/test_gpu.py` there.  skip() and importorskip() raise Skipped; raises() checks the
exception type and, like pytest, searches its message for the pattern."""
import importlib
import re


class Skipped(Exception):
    pass


def skip(reason):
    raise Skipped(reason)


def importorskip(name):
    try:
        return importlib.import_module(name)
    except ImportError as e:
        raise Skipped("could not import %r: %s" % (name, e))


def fixture(fn=None, **kwargs):
    return fn if fn is not None else (lambda f: f)


class raises:
    def __init__(self, exc, match=None):
        self.exc, self.match = exc, match

    def __enter__(self):
        return self

    def __exit__(self, et, ev, tb):
        if et is None:
            raise AssertionError("did not raise %s" % self.exc.__name__)
        if not issubclass(et, self.exc):
            return False
        if self.match is not None and not re.search(self.match, str(ev)):
            raise AssertionError("%s message %r does not match %r" % (et.__name__, str(ev), self.match))
        self.value = ev
        return True
