"""pyarrow arrays through the Arrow C data interface (include/raid/arrow.h, python/raid/_arrow.py):
raid.sort / argsort / kth / median / quantile / min / max / topk / groupby on pyarrow Arrays with nulls,
NaN, signed zeros, slices (offsets multiple of 8 and not) and ChunkedArrays (one chunk, several, none),
against pyarrow.compute (sort_indices, min_max, quantile, group_by's count/min/max) and numpy on the valid
values, bit for bit, on the cpu path and the OpenCL device; the release callbacks called (pyarrow's
allocations return to their level); errors; the package without pyarrow."""
import os
import subprocess
import sys

import numpy as np
import pytest

import raid

pa = pytest.importorskip("pyarrow")
pc = pytest.importorskip("pyarrow.compute")


def _devices():
    devs = raid.devices()
    return ["cpu"] + ([devs["device"].iloc[0]] if len(devs) else [])


DEVICES = _devices()


def _bits(a):
    return np.asarray(a, dtype=np.float64).view(np.uint64)


def _values(n, seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(n).round(1)  # ties
    x[rng.random(n) < 0.05] = np.nan
    x[rng.random(n) < 0.05] = -0.0
    x[rng.random(n) < 0.05] = 0.0
    return x, rng.random(n) >= 0.2


def _arrays():
    x, valid = _values(3001, 7)
    full = pa.array(x, mask=~valid)
    yield "nulls", full
    yield "no nulls", pa.array(x)
    yield "slice at 8", full.slice(8, 2000)
    yield "slice at 13", full.slice(13, 2100)
    yield "slice of no nulls", pa.array(x).slice(5, 99)
    yield "one chunk", pa.chunked_array([full.slice(3, 500)])
    yield "three chunks", pa.chunked_array([full.slice(0, 100), full.slice(1000, 7), full.slice(2001, 1000)])
    yield "only nulls", pa.array([None] * 9, type=pa.float64())
    yield "one", pa.array([-0.0])


def _valid_values(a):
    if isinstance(a, pa.ChunkedArray):
        a = a.combine_chunks() if a.num_chunks else pa.array([], pa.float64())
    return a.drop_null().to_numpy(zero_copy_only=False)


@pytest.mark.parametrize("device", DEVICES)
def test_sort_argsort(device):
    for name, a in _arrays():
        n, nulls = len(a), a.null_count
        for desc in (False, True):
            idx = pc.sort_indices(a, sort_keys=[("", "descending" if desc else "ascending")])
            got = raid.argsort(a, device=device, descending=desc)
            assert isinstance(got, pa.Int64Array) and got.to_pylist() == idx.to_pylist(), (name, desc)
            s = raid.sort(a, device=device, descending=desc)
            assert isinstance(s, pa.DoubleArray) and len(s) == n and s.null_count == nulls, name
            assert s.slice(n - nulls).null_count == nulls, name  # nulls last
            want = pc.take(a, idx).slice(0, n - nulls).to_numpy()
            assert np.array_equal(_bits(s.slice(0, n - nulls).to_numpy()), _bits(want)), (name, desc)
            if not desc:
                assert np.array_equal(_bits(want), _bits(np.sort(_valid_values(a), kind="stable"))), name
        u32 = raid.argsort(a, device=device, index_dtype=np.uint32)
        assert u32.type == pa.uint32() and u32.to_numpy().astype(np.int64).tolist() == pc.sort_indices(a).to_pylist()


@pytest.mark.parametrize("device", DEVICES)
def test_selections(device):
    for name, a in _arrays():
        v = _valid_values(a)
        if v.size == 0:
            assert np.isnan(raid.median(a, device=device))
            with pytest.raises(raid.RaidError, match="RAID_EINVAL"):
                raid.min(a, device=device)
            continue
        # the library on the valid values as a numpy array: the same bits
        for f, kw in ((raid.median, {}), (raid.min, {}), (raid.max, {}), (raid.min, {"skipna": True}),
                      (raid.max, {"skipna": True}), (raid.kth, {"k": v.size // 3})):
            got, want = f(a, device=device, **kw), f(v, device=device, **kw)
            assert isinstance(got, np.float64) and _bits(got) == _bits(want), (name, f.__name__, kw)
        q = [0.0, 0.01, 0.25, 0.5, 0.99, 1.0]
        got = raid.quantile(a, q, device=device)
        assert isinstance(got, pa.DoubleArray)
        assert np.array_equal(_bits(got.to_numpy()), _bits(raid.quantile(v, q, device=device))), name
        assert _bits(raid.quantile(a, 0.3, device=device)) == _bits(raid.quantile(v, 0.3, device=device))
        k = min(7, v.size)
        for largest in (True, False):
            vals, idx = raid.topk(a, k, largest=largest, return_index=True, device=device)
            wv, wi = raid.topk(v, k, largest=largest, return_index=True, device=device)
            assert np.array_equal(_bits(vals.to_numpy()), _bits(wv)), name
            # indices into the array (nulls skipped): the same elements
            arr = a.combine_chunks() if isinstance(a, pa.ChunkedArray) else a
            assert np.array_equal(_bits(pc.take(arr, idx).to_numpy()), _bits(wv)), name
            assert pc.take(arr, idx).null_count == 0
        # numpy's values (its choice among equal zeros and NaNs aside) and pyarrow.compute's
        assert np.array_equal(raid.median(a, device=device), np.median(v), equal_nan=True), name
        assert np.array_equal(got.to_numpy(), np.quantile(v, q), equal_nan=True), name
        w = v[~np.isnan(v)]
        if w.size:
            mm = pc.min_max(a)  # skips nulls and NaN: nanmin / nanmax
            assert raid.min(a, skipna=True, device=device) == mm["min"].as_py()
            assert raid.max(a, skipna=True, device=device) == mm["max"].as_py()
            nonan = pc.drop_null(pc.if_else(pc.is_nan(a), None, a)) if w.size < v.size else a
            assert np.array_equal(raid.quantile(nonan, q, device=device).to_numpy(),
                                  pc.quantile(a, q=q).to_numpy()), name  # pyarrow's quantile skips NaN


@pytest.mark.parametrize("device", DEVICES)
def test_quantile_integer_q(device):
    """an integer q (0 or 1) takes the element, as numpy does and raid.quantile does for numpy input
    (np.quantile([inf], 0) is inf, not inf - inf = NaN): pyarrow arrays (nulls skipped, slices, chunks)
    give the numpy path's bits on their valid values"""
    import itertools
    vals = [-0.0, 0.0, -1.0, 5e-324, 1e308, np.inf, -np.inf, np.nan]
    qs = (0, 1, [0, 1], np.array([1, 0], dtype=np.int32), np.int64(0))
    bad = []
    for n in (1, 2, 3):
        for v in itertools.product(vals, repeat=n):
            x = np.array(v)
            for nulls in range(2):  # a null first, or none
                a = pa.array([None] * nulls + list(v), type=pa.float64())
                for q in qs:
                    got, want = raid.quantile(a, q, device=device), raid.quantile(x, q, device=device)
                    if np.ndim(q):
                        assert isinstance(got, pa.DoubleArray) and got.null_count == 0
                        got = got.to_numpy()
                    else:
                        assert isinstance(got, np.float64)
                    if np.any(_bits(got) != _bits(want)):
                        bad.append((v, nulls, q, got, want))
    assert not bad, bad[:10]
    inf = pa.array([np.inf, None])
    assert raid.quantile(inf, 0, device=device) == np.inf == np.quantile([np.inf], 0)
    assert np.isnan(raid.quantile(inf, 0.0, device=device))  # a float q interpolates: inf - inf, as numpy
    assert _bits(raid.quantile(pa.array([-0.0, None, -0.0]), 1, device=device)) == _bits(np.quantile([-0.0, -0.0], 1))
    with pytest.raises(TypeError, match="q must be a number"):  # as for numpy input (it parsed the text)
        raid.quantile(inf, "0.5", device=device)
    for name, a in _arrays():
        v = _valid_values(a)
        if v.size:
            got = raid.quantile(a, [0, 1], device=device).to_numpy()
            assert np.array_equal(_bits(got), _bits(raid.quantile(v, [0, 1], device=device))), name


@pytest.mark.parametrize("device", DEVICES)
def test_groupby(device):
    x, valid = _values(5000, 3)
    keys = np.random.default_rng(4).integers(-5, 40, x.size)
    for off, n in ((0, 5000), (8, 3000), (13, 2001)):
        ka = pa.array(keys).slice(off, n)
        va = pa.array(x, mask=~valid).slice(off, n)
        for skipna in (False, True):
            aggs = ["count", "sum", "mean", "min", "max", "first", "last"]
            t = raid.groupby(ka, va, aggs, skipna=skipna, device=device)
            assert isinstance(t, pa.Table) and t.column_names == ["key"] + aggs
            want = raid.groupby(keys[off:off + n], x[off:off + n], aggs, valid=valid[off:off + n], skipna=skipna,
                                device=device)
            assert t.column("key").to_numpy().tolist() == want.index.tolist()
            for c in t.column_names[1:]:
                got = t.column(c).to_numpy()
                assert np.array_equal(got.view(np.uint64) if got.dtype == np.float64 else got,
                                      want[c].to_numpy().view(np.uint64) if got.dtype == np.float64 else want[c]), c
            if skipna:  # pyarrow's own group-by: counts, min and max (skipping nulls and NaN)
                pt = pa.table({"k": ka, "v": pc.if_else(pc.is_nan(va), None, va)}).group_by("k").aggregate(
                    [("v", "count"), ("v", "min"), ("v", "max")]).sort_by("k")
                assert pt.column("k").to_pylist() == t.column("key").to_pylist()
                assert pt.column("v_count").to_pylist() == t.column("count").to_pylist()
                for agg in ("min", "max"):
                    p, r = pt.column(f"v_{agg}").to_numpy(zero_copy_only=False), t.column(agg).to_numpy()
                    assert np.array_equal(p.astype(np.float64), r, equal_nan=True), agg
    t = raid.groupby(pa.chunked_array([pa.array([3, 1]), pa.array([3])]), None, "count", device=device)
    assert t.column("key").to_pylist() == [1, 3] and t.column("count").to_pylist() == [1, 2]


def test_release_and_errors():
    x, valid = _values(100_000, 9)
    base = pa.total_allocated_bytes()
    a = pa.array(x.tolist(), type=pa.float64())  # in pyarrow's pool
    assert pa.total_allocated_bytes() > base
    for _ in range(20):
        raid.sort(a.slice(3)), raid.median(a), raid.argsort(pa.chunked_array([a]))
    raid.groupby(pa.array(np.zeros(a.__len__(), dtype=np.int64)), a, "sum")
    with pytest.raises(raid.RaidError):
        raid.topk(a.slice(0, 1), 2)  # the library's failure after the export: released too
    del a
    assert pa.total_allocated_bytes() == base  # every export released
    # other Arrow types by the package's values rule (docs/python.md "Inputs"): float32 and integers exact
    # in float64 converted (a float64 copy, its nulls kept), the rest refused naming the type
    assert raid.sort(pa.array([2, 1], type=pa.float32())).to_pylist() == [1.0, 2.0]
    assert raid.median(pa.array([1, 2, None])) == 1.5
    with pytest.raises(TypeError, match=r"x must be real floating .* not dtype pyarrow dictionary<values=double"):
        raid.sort(pa.array([1.0, 2.0, 1.0]).dictionary_encode())
    with pytest.raises(ValueError, match=r"^row 1: keys is null \(pyarrow int64\)"):
        raid.groupby(pa.array([1, None]), pa.array([1.0, 2.0]), "sum")
    with pytest.raises(raid.RaidError, match=r"differ in length \(2 and 3\)"):
        raid.groupby(pa.array([1, 2]), pa.array([1.0, 2.0, 3.0]), "sum")
    with pytest.raises(ValueError, match="offsets is for numpy input"):
        raid.median(pa.array([1.0]), offsets=[0, 1])
    with pytest.raises(ValueError, match="valid is for numpy input"):
        raid.sort(pa.array([1.0]), valid=np.array([True]))
    with pytest.raises(raid.RaidError, match="RAID_EINVAL"):
        raid.topk(pa.array([1.0, None]), 2)  # one valid value


def test_without_pyarrow():
    """The package imports and works on numpy arrays when pyarrow cannot be imported."""
    code = ("import sys; sys.modules['pyarrow'] = None\n"
            "import numpy as np, raid\n"
            "assert raid.median(np.array([3.0, 1.0, 2.0])) == 2.0\n"
            "assert raid.sort(np.array([2.0, 1.0])).tolist() == [1.0, 2.0]\n"
            "assert raid.groupby(np.array([1, 1]), np.array([1.0, 2.0]))['sum'].tolist() == [3.0]\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=dict(os.environ))
    assert r.returncode == 0, r.stderr
