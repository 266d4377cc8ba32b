"""raid.groupby (include/raid/groupby.h, docs/groupby.md): every group sum equals the exact rational sum of
its float64 values (Python's fractions) rounded once to the nearest float64, on adversarial groups (1e308
and -1e308 with small values between, 1e16 + 1 - 1e16, subnormals down to the smallest, signed zeros,
infinities, NaN, mixed magnitudes, ties), on the cpu path and the device (PoCL) bit for bit; count, mean,
min, max, first and last against pandas' groupby (skipna), and the NaN-propagating default against numpy."""
import math
import random
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

import raid

TINY = 5e-324
MIN_NORMAL = 2.2250738585072014e-308
DBL_MAX = 1.7976931348623157e308
OVERFLOW = Fraction(2**1024 - 2**970)  # the least exact sum that rounds to inf (DBL_MAX + half an ulp: ties to even)


def exact_sum(vals):
    """The IEEE 754 correctly rounded sum of vals: exact rational sum rounded once (specials by IEEE)."""
    if any(math.isnan(v) for v in vals):
        return math.nan
    pinf, ninf = math.inf in vals, -math.inf in vals
    if pinf and ninf:
        return math.nan
    if pinf or ninf:
        return math.inf if pinf else -math.inf
    s = sum((Fraction(v) for v in vals), Fraction(0))
    if s == 0:
        return -0.0 if vals and all(math.copysign(1.0, v) < 0 for v in vals) else 0.0
    if abs(s) >= OVERFLOW:
        return math.inf if s > 0 else -math.inf
    return float(s)  # Fraction -> float is correctly rounded (ties to even)


def exact_mean(vals):
    """The exact mean of vals rounded once (ties to even): Fraction -> float is correctly rounded, also into the
    subnormals and to a signed zero below half the smallest one; a group's special sum (NaN, +-inf) or signed
    zero is its mean; NaN for no value."""
    if not vals:
        return math.nan
    s = exact_sum(vals)
    if math.isnan(s) or (math.isinf(s) and any(math.isinf(v) for v in vals)) or s == 0:
        return s
    return float(sum((Fraction(v) for v in vals), Fraction(0)) / len(vals))


def same(a, b):
    return (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a) == math.copysign(1, b))


ADVERSARIAL = [
    [1e308, 1.0, -1e308, 2.0**-1074, 3.5, -1e308, 1e308],
    [1e16, 1.0, -1e16],
    [DBL_MAX, DBL_MAX],
    [-DBL_MAX, -DBL_MAX, DBL_MAX],
    [DBL_MAX, 2.0**970],
    [DBL_MAX, 2.0**970, -TINY],
    [TINY],
    [TINY, TINY, -TINY, TINY],
    [MIN_NORMAL, -TINY],
    [-MIN_NORMAL, TINY, 0.0],
    [-0.0],
    [-0.0, -0.0, -0.0],
    [0.0, -0.0],
    [-0.0, 0.0],
    [1.0, -1.0],
    [-1.0, 1.0, -0.0],
    [math.inf, -math.inf],
    [math.inf, 1e308, 1e308],
    [-math.inf, -5.0],
    [math.nan, 1.0],
    [1.0, math.nan, math.inf],
    [2.0**53, 1.0],
    [2.0**53, 1.0, TINY],
    [2.0**53, 3.0],
    [0.1, 0.2, 0.3],
    [1e-300, 1e300, -1e300, 1e-300],
    [1.0, 1e100, 1.0, -1e100],
    [3.0] * 1000 + [-1e20, 1e20],
]


def random_group(rng, size):
    pool = [1e308, -1e308, 1e16, -1e16, 1.0, -1.0, TINY, -TINY, MIN_NORMAL, -MIN_NORMAL, 0.0, -0.0, 0.5, 2.0**-1022]
    out = []
    for _ in range(size):
        r = rng.random()
        if r < 0.4:
            out.append(rng.choice(pool))
        elif r < 0.8:
            out.append(math.ldexp(rng.random() - 0.5, rng.randint(-1074, 1023)))
        else:
            out.append(math.ldexp(rng.random() - 0.5, rng.randint(-60, 60)))
    return out


def cases():
    rng = random.Random(11)
    groups = list(ADVERSARIAL) + [random_group(rng, rng.randint(1, 40)) for _ in range(300)]
    keys, vals = [], []
    for g, vs in enumerate(groups):
        keys += [g * 1000003 - 7] * len(vs)  # wide keys: the hash path
        vals += vs
    order = list(range(len(vals)))
    rng.shuffle(order)
    return groups, np.array(keys, dtype=np.int64)[order], np.array(vals)[order]


def devices(have_opencl):
    return ["cpu"] + (["opencl"] if have_opencl else [])


def test_exact_sums_against_fractions(have_opencl):
    groups, k, x = cases()
    expect = [exact_sum(vs) for vs in groups]
    means = [exact_mean(vs) for vs in groups]
    for dev in devices(have_opencl):
        got = raid.groupby(k, x, aggs=["sum", "count", "mean"], device=dev)
        assert list(got.index) == sorted(g * 1000003 - 7 for g in range(len(groups)))
        for g, vs in enumerate(groups):
            s = got["sum"].loc[g * 1000003 - 7]
            assert same(s, expect[g]), f"{dev}: group {g} {vs[:6]}...: {s!r} != {expect[g]!r}"
            assert got["count"].loc[g * 1000003 - 7] == len(vs)
            m = got["mean"].loc[g * 1000003 - 7]
            assert same(m, means[g]), f"{dev}: group {g} {vs[:6]}...: mean {m!r} != {means[g]!r}"


MEANS_BEYOND_SUMS = [  # sums beyond the largest double whose means are finite
    [1.7e308, 1.7e308],
    [DBL_MAX, DBL_MAX, DBL_MAX],
    [-DBL_MAX, -DBL_MAX],
    [DBL_MAX, DBL_MAX, 1.0],
    [DBL_MAX, DBL_MAX, -DBL_MAX, DBL_MAX],
    [1e308] * 7 + [-TINY],
    [DBL_MAX, 2.0**970],  # the sum rounds up to inf (a tie, to even); the mean is DBL_MAX / 2 + 2^969
]


def test_means_of_sums_beyond_float64(have_opencl):
    """The mean is the exact sum divided by the count, rounded once, also where the exact sum is beyond the
    largest double (its rounded sum is inf): 1.7e308 twice has the sum inf and the mean 1.7e308."""
    k = np.repeat(np.arange(len(MEANS_BEYOND_SUMS)), [len(g) for g in MEANS_BEYOND_SUMS])
    x = np.array([v for g in MEANS_BEYOND_SUMS for v in g])
    for dev in devices(have_opencl):
        got = raid.groupby(k, x, aggs=["sum", "mean"], device=dev)
        for g, vs in enumerate(MEANS_BEYOND_SUMS):
            assert same(got["sum"].iloc[g], exact_sum(vs))
            assert math.isfinite(got["mean"].iloc[g])
            assert same(got["mean"].iloc[g], exact_mean(vs)), (dev, g)


def test_device_equals_cpu_bitwise(have_opencl):
    if not have_opencl:
        pytest.skip("no OpenCL device")
    rng = np.random.default_rng(5)
    n = 300_000
    for ngroups in (1, 10, 1000, 100_000):
        k = rng.integers(0, ngroups, n)
        x = rng.standard_normal(n) * 10.0 ** rng.integers(-5, 6, n)
        aggs = ["count", "sum", "mean", "min", "max", "first", "last"]
        a = raid.groupby(k, x, aggs=aggs, device="cpu")
        b = raid.groupby(k, x, aggs=aggs, device="opencl")
        for c in aggs:
            assert np.array_equal(a[c].to_numpy().view(np.int64) if c != "count" else a[c].to_numpy(),
                                  b[c].to_numpy().view(np.int64) if c != "count" else b[c].to_numpy()), c


def test_against_pandas(have_opencl):
    rng = np.random.default_rng(3)
    n = 20_000
    k = rng.integers(-50, 50, n)
    x = np.round(rng.standard_normal(n) * 100, 2)
    x[rng.random(n) < 0.05] = np.nan
    valid = rng.random(n) > 0.1
    k[:3] = 1000  # a group of nulls only
    valid[:3] = False
    aggs = ["count", "sum", "mean", "min", "max", "first", "last"]
    xp = np.where(valid, x, np.nan)
    ref = pd.Series(xp).groupby(k).agg(aggs)
    for dev in devices(have_opencl):
        got = raid.groupby(k, x, aggs=aggs, valid=valid, skipna=True, device=dev)
        assert list(got.index) == list(ref.index)
        for c in ("count", "min", "max", "first", "last"):
            np.testing.assert_array_equal(got[c].to_numpy(), ref[c].to_numpy(), err_msg=c)
        np.testing.assert_allclose(got["sum"].to_numpy(), ref["sum"].to_numpy(), rtol=1e-13, atol=1e-9)
        np.testing.assert_allclose(got["mean"].to_numpy(), ref["mean"].to_numpy(), rtol=1e-13, atol=1e-12, equal_nan=True)
        # sum exact; mean = exact sum / count
        for key in got.index[::7]:
            vs = [float(v) for v in xp[(k == key) & ~np.isnan(xp)]]
            assert same(got["sum"].loc[key], exact_sum(vs))
            assert same(got["mean"].loc[key], exact_mean(vs))
        assert got["count"].loc[1000] == 0 and same(got["sum"].loc[1000], 0.0)
        assert got.loc[1000, ["mean", "min", "max", "first", "last"]].isna().all()


def test_nan_propagates_without_skipna():
    k = np.array([0, 0, 1, 1, 2])
    x = np.array([1.0, np.nan, -0.0, 0.0, np.nan])
    got = raid.groupby(k, x, aggs=["count", "sum", "min", "max", "first", "last"])
    mins = np.full(3, np.inf)
    with np.errstate(invalid="ignore"):
        np.minimum.at(mins, k, x)  # numpy's propagation
    assert np.isnan(got["min"].to_numpy()[[0, 2]]).all() and np.isnan(mins[[0, 2]]).all()
    assert list(got["count"]) == [2, 2, 1]
    assert math.isnan(got["sum"].iloc[0]) and same(got["sum"].iloc[1], 0.0)
    assert same(got["min"].iloc[1], -0.0) and same(got["max"].iloc[1], 0.0)
    assert got["first"].iloc[0] == 1.0 and math.isnan(got["last"].iloc[0])


def test_arguments():
    with pytest.raises(ValueError):
        raid.groupby([1], [1.0], aggs=["median"])
    with pytest.raises(ValueError):
        raid.groupby([1, 2], [1.0])
    with pytest.raises(ValueError):
        raid.groupby([1], None, aggs="sum")
    with pytest.raises(ValueError):
        raid.groupby(["a"], [1.0])  # float keys are accepted (test_groupby_f64.py), text is not
    assert raid.groupby([1, 1], None, aggs="count")["count"].tolist() == [2]
    empty = raid.groupby(np.zeros(0, np.int64), np.zeros(0), aggs=["sum", "count"])
    assert empty.shape == (0, 2)
    with pytest.raises(ValueError, match="aggregation 'sum' given twice"):  # as raid groupby --agg
        raid.groupby([1, 1], [1.0, 2.0], aggs=["sum", "sum"])
    with pytest.raises(ValueError, match="aggregation 'count' given twice"):
        raid.groupby([1, 1], [1.0, 2.0], aggs=["count", "mean", "count"])


def cli_groupby_every_device(path, aggs="sum:x,mean:x,min:x,max:x,first:x,last:x,count:x,count"):
    """raid groupby PATH --by k --agg AGGS on the cpu and the OpenCL device (asserted equal byte for byte):
    the output read by pandas, the input read by pandas (float64 exactly), the output's text."""
    import io
    import os
    import subprocess

    outs = []
    for dev in ("cpu", "opencl") if len(raid.devices()) else ("cpu",):
        r = subprocess.run([os.environ.get("RAID_CLI", "raid"), "groupby", str(path), "--by", "k", "--agg", aggs,
                            "--device", dev], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        outs.append(r.stdout)
    assert all(o == outs[0] for o in outs)
    exact = {"float_precision": "round_trip"} if int(pd.__version__.split(".")[0]) < 3 else {}
    return pd.read_csv(io.StringIO(outs[0]), **exact), pd.read_csv(path, **exact), outs[0]


def test_cli_groupby(tmp_path):
    """raid groupby on a CSV: sums exact (fractions), count/mean/min/max/first/last as pandas' groupby,
    empty fields nulls, cpu and device (PoCL) byte for byte; a bad aggregation list exits 1, a bad key 2."""
    import os
    import subprocess

    cli = os.environ.get("RAID_CLI", "raid")
    rng = np.random.default_rng(3)
    n = 5000
    keys = rng.integers(-50, 50, n)
    vals = rng.standard_normal(n) * 10.0 ** rng.integers(-5, 16, n)
    path = tmp_path / "gb.csv"
    with open(path, "w") as f:
        f.write("k,x\n")
        for i, (k, v) in enumerate(zip(keys, vals)):
            f.write(f"{k},{'' if i % 97 == 0 else repr(float(v))}\n")
    got, df, out = cli_groupby_every_device(path)
    g = df.groupby("k")["x"]
    want = pd.DataFrame({"mean_x": g.mean(), "min_x": g.min(), "max_x": g.max(), "first_x": g.first(),
                         "last_x": g.last(), "count_x": g.count(), "count": g.size()}).reset_index()
    assert got["k"].tolist() == want["k"].tolist()
    for c in ("min_x", "max_x", "first_x", "last_x", "count_x", "count"):
        assert got[c].tolist() == want[c].tolist(), c
    for k, s, m in zip(got["k"], got["sum_x"], got["mean_x"]):
        v = df["x"][(df["k"] == k) & df["x"].notna()].tolist()
        assert same(s, exact_sum(v))
        assert same(m, exact_mean(v))
    r = subprocess.run([cli, "groupby", str(path), "--by", "k", "--agg", "median:x"], capture_output=True, text=True)
    assert r.returncode == 1 and "bad aggregation 'median:x'" in r.stderr
    r = subprocess.run([cli, "groupby", str(path), "--by", "x", "--agg", "count"], capture_output=True, text=True)
    assert r.returncode == 2 and ":2:2: cannot parse key" in r.stderr


def test_cli_breakit_regressions(tmp_path):
    """Keys crafted to collide under a fixed multiplicative hash (the answer is unchanged, and no longer
    quadratic), a value column named twice refused, column names matched case-insensitively, an empty
    option named."""
    import os
    import subprocess

    cli = os.environ.get("RAID_CLI", "raid")
    inv = pow(0x9E3779B97F4A7C15, -1, 2**64)
    keys = [((j * inv) % 2**64) - (2**64 if (j * inv) % 2**64 >= 2**63 else 0) for j in range(20000)]
    p = tmp_path / "adv.csv"
    p.write_text("k,v\n" + "".join(f"{k},1\n" for k in keys))
    r = subprocess.run([cli, "groupby", str(p), "--by", "k", "--agg", "sum:v"], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.count("\n") == 20001
    assert r.stdout.splitlines()[1:] == [f"{k},1" for k in sorted(keys)]
    p.write_text("k,v,v\n1,2,3\n")
    r = subprocess.run([cli, "groupby", str(p), "--by", "k", "--agg", "sum:v"], capture_output=True, text=True)
    assert r.returncode == 2 and "duplicate column 'v'" in r.stderr
    p.write_text("k,v\n1,2\n")
    r = subprocess.run([cli, "groupby", str(p), "--by", "k", "--agg", "sum:v,mean:V"], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout == "k,sum_v,mean_v\n1,2,2\n"
    r = subprocess.run([cli, "groupby", str(p), "--by", "k", "--agg", ""], capture_output=True, text=True)
    assert r.returncode == 1 and "empty --agg" in r.stderr


def test_cli_repeated_options(tmp_path):
    """An aggregation given twice (two output columns of one name) and a string option given twice (the
    second silently replaced the first: --by a --by b sorted by b) are usage errors naming them, with no
    output; a -o that cannot be created is reported under the command's name."""
    import os
    import subprocess

    cli = os.environ.get("RAID_CLI", "raid")
    p = tmp_path / "t.csv"
    p.write_text("k,x,y\n1,2,3\n1,4,5\n")
    cases = [(["groupby", str(p), "--by", "k", "--agg", "count,sum:x,count"], "aggregation 'count' given twice"),
             (["groupby", str(p), "--by", "k", "--agg", "sum:x,sum:X"], "aggregation 'sum:X' given twice"),
             (["sort", str(p), "--by", "x", "--by", "y"], "raid sort: --by given twice ('x', then 'y')"),
             (["quantile", str(p), "--col", "x", "--q", "0.5", "--q", "0.9"], "raid quantile: --q given twice"),
             (["groupby", str(p), "--by", "k", "--agg", "count", "-o", str(tmp_path / "a"), "-o", str(tmp_path / "b")],
              "raid groupby: -o given twice"),
             # every command, through the one check (cli_option_once): the last value no longer wins
             (["realized", str(p), "--sample", "5min", "--sample", "1min"],
              "raid realized: --sample given twice ('5min', then '1min')"),
             (["realized", str(p), "--device", "cpu", "--device", "opencl"], "raid realized: --device given twice"),
             (["realized", str(p), "-o", str(tmp_path / "a"), "--output", str(tmp_path / "b")],
              "raid realized: -o given twice"),
             (["realized", str(p), "--check", "--check"], "raid realized: --check given twice"),
             (["har", str(p), "--model", "har", "--model", "harq"], "raid har: --model given twice ('har', then 'harq')"),
             (["har", str(p), "--rv-col", "a", "--rv-col", "b"], "raid har: --rv-col given twice"),
             (["garch", str(p), "--model", "garch", "--model", "gjr"], "raid garch: --model given twice"),
             (["ma", str(p), "--window", "3", "--window", "4"], "raid ma: --window given twice ('3', then '4')"),
             (["sweep", str(p), "--fast", "2:4", "--fast", "3:5"], "raid sweep: --fast given twice"),
             (["simulate", "--seed", "1", "--seed", "2", "-o", str(tmp_path / "s.csv")], "raid simulate: --seed given twice"),
             (["precision-report", "--seed", "1", "--seed", "2", "-o", str(tmp_path / "p.png")],
              "raid precision-report: --seed given twice"),
             (["bars", str(p), "--interval", "1min", "--interval", "5min"], "raid bars: --interval given twice")]
    for args, words in cases:
        r = subprocess.run([cli, *args], capture_output=True, text=True)
        assert r.returncode == 1 and words in r.stderr and r.stdout == "", (args, r.returncode, r.stderr)
    assert sorted(os.listdir(tmp_path)) == ["t.csv"]
    r = subprocess.run([cli, "sort", str(p), "--by", "x", "-o", str(tmp_path / "no" / "out.csv")], capture_output=True,
                       text=True)
    assert r.returncode != 0 and r.stderr.startswith("raid sort: cannot create"), r.stderr
    p.write_text("symbol,timestamp,price\nA,2020-01-02T10:00:00,100\nA,2020-01-02T10:01:00,101\n")
    r = subprocess.run([cli, "realized", str(p), "--device", "cpu", "-o", str(tmp_path / "no" / "out.csv")],
                       capture_output=True, text=True)
    assert r.returncode != 0 and r.stderr.startswith("raid realized: cannot create"), r.stderr
