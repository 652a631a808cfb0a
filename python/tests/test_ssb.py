"""The Star Schema Benchmark from Python: generate, write, read, run; q1.1 checked against NumPy on the columns."""
import numpy as np
import pytest

import parray
from parray import ParrayError, ssb


@pytest.fixture(scope="module")
def db():
    d = ssb.generate(0.01, seed=7, threads=2)
    yield d
    d.close()


def test_tables(db):
    assert db.rows("date") == 2557
    assert db.rows("lineorder") > 10000
    assert abs(db.scale - 0.01) < 1e-12
    with pytest.raises(ValueError, match="no table"):
        db.rows("orders")


def test_q11_against_numpy(db):
    """q1.1: sum(lo_extendedprice * lo_discount) for 1993, discount 1..3, quantity < 25."""
    col = {n: np.asarray(db.column(n)).astype(np.int64) for n in
           ("lo_orderdate", "lo_discount", "lo_quantity", "lo_extendedprice")}
    year = col["lo_orderdate"] // 10000
    keep = (year == 1993) & (col["lo_discount"] >= 1) & (col["lo_discount"] <= 3) & (col["lo_quantity"] < 25)
    want = int((col["lo_extendedprice"][keep] * col["lo_discount"][keep]).sum())
    r = ssb.run(db, "q1.1")
    assert r.columns == ("revenue",) and r.rows == [(want,)]


def test_grouped_query_rows(db):
    r = ssb.run(db, "q2.1", threads=1)
    assert r.columns == ("d_year", "p_brand1", "revenue")
    assert len(r) > 0
    years = [row[0] for row in r.rows]
    assert years == sorted(years) and all(1992 <= y <= 1998 for y in years)
    assert all(row[1].startswith("MFGR#12") for row in r.rows)   # q2.1: p_category = 'MFGR#12'
    assert ssb.run(db, "2.1", threads=3).rows == r.rows        # any thread count, the same rows
    assert "p_category = 'MFGR#12'" in ssb.sql("q2.1")


def test_write_and_read(db, tmp_path):
    db.write(tmp_path / "ssb")
    with ssb.read(tmp_path / "ssb") as back:
        assert back.rows("lineorder") == db.rows("lineorder")
        for q in ssb.queries():
            assert ssb.run(back, q).rows == ssb.run(db, q).rows, q


def test_bad_input(db, tmp_path):
    with pytest.raises(ParrayError, match="ssb.manifest"):
        ssb.read(tmp_path / "nothing")
    with pytest.raises(ValueError, match="no query"):
        ssb.run(db, "q9.9")
    with pytest.raises(ParrayError):
        ssb.generate(-1)
    with pytest.raises(ParrayError, match="no_such"):
        db.column("no_such")
    d = ssb.generate(0.001)
    d.close()
    with pytest.raises(ParrayError, match="closed"):
        ssb.run(d, "q1.1")
    assert len(ssb.queries()) == 13 and parray.ssb.NQUERIES == 13
