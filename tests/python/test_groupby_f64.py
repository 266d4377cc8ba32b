"""Float64 group keys (raid_groupby_compute_f64; raid.groupby with float keys; raid groupby --by on a
column of decimals; docs/groupby.md "Float64 keys"): the groups are pandas' groupby(dropna=False) groups
(0.0 and -0.0 one group, every NaN one group, last), the aggregations pandas' (skipna) and the sums the
exact rational sums (Python fractions) rounded once; the cpu path and the device (PoCL) bit for bit."""
import math
import os
import subprocess

import numpy as np
import pandas as pd

import raid
from test_groupby import cli_groupby_every_device, exact_mean, exact_sum, same

AGGS = ["count", "sum", "mean", "min", "max", "first", "last"]


def devices(have_opencl):
    return ["cpu"] + (["opencl"] if have_opencl else [])


def keys_and_values(n, seed):
    rng = np.random.default_rng(seed)
    pool = np.array([0.0, -0.0, 1.5, -1.5, np.inf, -np.inf, 5e-324, -5e-324, 0.1, 0.30000000000000004, 0.3,
                     1e308, 2.0**53, 2.0**53 + 2])
    k = np.where(rng.random(n) < 0.5, rng.choice(pool, n), np.round(rng.standard_normal(n), 1))
    nans = np.array([0x7FF8000000000000, 0xFFF8000000000000, 0x7FF0000000000001, 0xFFFFFFFFFFFFFFFF],
                    dtype=np.uint64).view(np.float64)
    where = rng.random(n) < 0.08
    k[where] = rng.choice(nans, where.sum())
    x = rng.standard_normal(n) * 10.0 ** rng.integers(-5, 16, n)
    x[rng.random(n) < 0.05] = np.nan
    return k, x


def test_against_pandas(have_opencl):
    k, x = keys_and_values(20_000, 7)
    ref = pd.Series(x).groupby(k, dropna=False, sort=True).agg(["count", "min", "max", "first", "last"])
    outs = []
    for dev in devices(have_opencl):
        got = raid.groupby(k, x, aggs=AGGS, skipna=True, device=dev)
        outs.append(got)
        idx = got.index.to_numpy()
        assert idx.dtype == np.float64
        # the keys: pandas' groups (-0.0 and 0.0 one group: raid's key +0.0; NaN one group, last)
        assert len(idx) == len(ref.index)
        assert np.array_equal(idx, ref.index.to_numpy(), equal_nan=True)
        assert not np.signbit(idx[idx == 0]).any()
        assert np.isnan(idx[-1]) and np.isnan(idx).sum() == 1
        assert idx[-1:].view(np.uint64)[0] == 0x7FF8000000000000
        for c in ("count", "min", "max", "first", "last"):
            np.testing.assert_array_equal(got[c].to_numpy(), ref[c].to_numpy(), err_msg=c)
        isnan_k = np.isnan(k)
        for j, key in enumerate(idx):
            rows = isnan_k if math.isnan(key) else (k == key)
            vs = [float(v) for v in x[rows & ~np.isnan(x)]]
            assert same(got["sum"].iloc[j], exact_sum(vs))
            assert same(got["mean"].iloc[j], exact_mean(vs))
    for c in AGGS:  # cpu and device bit for bit
        assert all(np.array_equal(o[c].to_numpy().view(np.int64), outs[0][c].to_numpy().view(np.int64))
                   for o in outs), c


def test_same_groups_as_int_keys(have_opencl):
    """Integral float keys group as the int64 keys do: every aggregation bit for bit."""
    rng = np.random.default_rng(2)
    ki = rng.integers(-1000, 1000, 50_000)
    x = rng.standard_normal(ki.size)
    for dev in devices(have_opencl):
        a = raid.groupby(ki, x, aggs=AGGS, device=dev)
        b = raid.groupby(ki.astype(np.float64), x, aggs=AGGS, device=dev)
        assert np.array_equal(a.index.to_numpy(), b.index.to_numpy().astype(np.int64))
        for c in AGGS:
            assert np.array_equal(a[c].to_numpy(), b[c].to_numpy(), equal_nan=True), c


def test_small_cases():
    got = raid.groupby([-0.0, 0.0, np.nan, -np.nan, 1.5], [1.0, 2.0, 3.0, 4.0, 5.0], aggs=["sum", "count"])
    assert got.index.tolist()[:2] == [0.0, 1.5] and math.isnan(got.index[2])
    assert got["sum"].tolist() == [3.0, 5.0, 7.0] and got["count"].tolist() == [2, 1, 2]
    assert raid.groupby([1.5], [1.0])["sum"].tolist() == [1.0]


def test_cli_float_keys(tmp_path):
    """raid groupby --by on a column of decimals: float64 keys (pandas' read_csv and groupby); a column of
    integers stays int64 (exact beyond 2^53)."""
    cli = os.environ.get("RAID_CLI", "raid")
    rng = np.random.default_rng(4)
    n = 5000
    pool = ["0", "-0.0", "0.0", "1.5", "-1.5", "1.7976931348623157e308", "-1.7976931348623157e308", "0.1", "0.30000000000000004", "2.5e-324",
            "9007199254740993", "9007199254740992.0", "1e-400", "-1e-400"]
    keys = [pool[i] if i < len(pool) else repr(float(np.round(rng.standard_normal(), 1)))
            for i in rng.integers(0, 2 * len(pool), n)]
    vals = rng.standard_normal(n) * 10.0 ** rng.integers(-5, 16, n)
    path = tmp_path / "gf.csv"
    path.write_text("k,x\n" + "".join(f"{k},{'' if i % 89 == 0 else repr(float(v))}\n"
                                      for i, (k, v) in enumerate(zip(keys, vals))))
    got, df, out = cli_groupby_every_device(path)
    assert df["k"].dtype == np.float64
    g = df.groupby("k")["x"]
    want = pd.DataFrame({"min_x": g.min(), "max_x": g.max(), "first_x": g.first(), "last_x": g.last(),
                         "count_x": g.count(), "count": g.size()}).reset_index()
    assert got["k"].tolist() == want["k"].tolist()
    assert "0" in [ln.split(",")[0] for ln in out.split("\n")] and not out.startswith("-0,") and "\n-0," not in out
    for c in ("min_x", "max_x", "first_x", "last_x", "count_x", "count"):
        assert got[c].tolist() == want[c].tolist(), c
    for key, s in zip(got["k"], got["sum_x"]):
        v = df["x"][(df["k"] == key) & df["x"].notna()].tolist()
        assert same(s, exact_sum(v))
    # integers beyond 2^53: int64 keys, two groups (float64 would make one)
    p = tmp_path / "gi.csv"
    p.write_text("k,x\n9007199254740993,1\n9007199254740992,2\n9007199254740993,4\n")
    r = subprocess.run([cli, "groupby", str(p), "--by", "k", "--agg", "sum:x"], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout == "k,sum_x\n9007199254740992,2\n9007199254740993,5\n", r.stderr
    p.write_text("k,x\n1,1\n99999999999999999999,2\n")
    r = subprocess.run([cli, "groupby", str(p), "--by", "k", "--agg", "sum:x"], capture_output=True, text=True)
    assert r.returncode == 2 and ":3:1: integer key '99999999999999999999' is beyond the int64 range" in r.stderr
    p.write_text("k,x\n1.5,1\n,2\n")
    r = subprocess.run([cli, "groupby", str(p), "--by", "k", "--agg", "sum:x"], capture_output=True, text=True)
    assert r.returncode == 2 and ":3:1: cannot parse key ''" in r.stderr
