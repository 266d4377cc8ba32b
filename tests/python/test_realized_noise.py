"""The noise-robust realized measures (raid_realized_noise_compute; raid.realized(measures=...);
`raid realized --measures`) against an independent float64 implementation of the papers' formulas
(noise_oracle.py), on random returns and on the bundled intraday data, their minimum segment lengths,
and a simulation with i.i.d. noise in which rv blows up and rk, tsrv and prv do not."""
import io
import math
import os
import pathlib
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import raid

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import noise_oracle  # noqa: E402

NOISE = ["rk", "rk_h", "tsrv", "tsrv_k", "prv", "minrv"]
NINE = ["rv", "bpv", "rs_neg", "rs_pos", "rq", "tpq", "medrv", "jump_z", "jump_p"]


def rel(a, b):
    if math.isnan(a) and math.isnan(b):
        return 0.0
    if math.isnan(a) or math.isnan(b):
        return math.inf
    return 0.0 if a == b else abs(a - b) / abs(b)


def compare(r, offsets, df):
    """Every row of df (raid.realized(..., measures=NOISE)) against the oracle to 1e-12 relative; the
    bandwidth and subsample counts exactly."""
    assert list(df.columns) == ["n", *NOISE]
    worst = 0.0
    for s in range(len(offsets) - 1):
        seg = r[offsets[s]:offsets[s + 1]]
        want = noise_oracle.all_measures(seg)
        got = df.iloc[s]
        assert got["n"] == len(seg)
        for name, w in zip(NOISE, want):
            d = rel(float(got[name]), w)
            assert d <= 1e-12, f"segment {s} (M={len(seg)}) {name}: {got[name]!r} vs oracle {w!r} ({d:.2e})"
            worst = max(worst, d)
    return worst


def test_names():
    assert raid.measure_names() == NINE
    assert raid.measure_names(noise=True) == NINE + NOISE


def test_random_against_oracle():
    rng = np.random.default_rng(20261207)
    lengths = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 17, 25, 39, 40, 41, 78, 100, 194, 195, 390, 391, 1000, 2500]
    parts = []
    for i, M in enumerate(lengths):
        sigma = 10.0 ** rng.uniform(-4, -2)
        noise = sigma * 10.0 ** rng.uniform(-2, 0.5)
        e = rng.normal(0, sigma / math.sqrt(max(M, 1)), M) + np.diff(rng.normal(0, noise, M + 1))
        if i % 3 == 0:  # zero returns, as trades at an unchanged price give
            e[rng.random(M) < 0.3] = 0.0
        parts.append(e)
    r = np.concatenate(parts)
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    df = raid.realized(r, offsets, device="cpu", measures=NOISE)
    compare(r, offsets, df)


def test_minimum_lengths():
    """NaN below each estimator's minimum M (docs/measures.md): minrv 2, tsrv 4, prv 5; rk 3 with H <= M - 2,
    which for a short segment of non-zero returns (one grid: xi^2 = RV/(2M) / RV = 1/(2M)) holds from M = 5
    (M = 3: H = ceil(3.5134 6^-0.4) = 2 > 1; M = 4: H = ceil(3.5134 8^-0.4 2^0.6) = 3 > 2)."""
    rng = np.random.default_rng(3)
    lengths = list(range(0, 7))
    r = rng.normal(0, 1e-3, sum(lengths))
    df = raid.realized(r, np.concatenate([[0], np.cumsum(lengths)]), device="cpu", measures=NOISE)
    first = {name: next(M for M, v in zip(lengths, df[name]) if not math.isnan(v)) for name in NOISE}
    assert first == {"minrv": 2, "rk": 5, "rk_h": 5, "tsrv": 4, "tsrv_k": 4, "prv": 5}
    for name in NOISE:  # and defined from there on
        assert not df[name].iloc[first[name]:].isna().any(), name


def test_constant_prices_and_pure_noise():
    """All returns zero: every estimator 0 (xi = 0, H = 1, K = 2). A price that bounces between two values
    and is the same at every sparse grid point: RV_sparse = 0 < omega^2, no bandwidth: rk and tsrv NaN."""
    z = np.zeros(400)
    df = raid.realized(z, [0, 400], device="cpu", measures=NOISE)
    assert df.iloc[0][["rk", "tsrv", "prv", "minrv"]].tolist() == [0.0, 0.0, 0.0, 0.0]
    assert df.iloc[0][["rk_h", "tsrv_k"]].tolist() == [1.0, 2.0]
    # M = 400: the sparse grid takes every 20th price, the dense one every 2nd; a period of 4 returns
    # summing to 0 leaves every 20th price unchanged but not every 2nd
    bounce = np.tile([2e-4, 1e-4, -2e-4, -1e-4], 100)
    df = raid.realized(bounce, [0, 400], device="cpu", measures=NOISE)
    assert math.isnan(df["rk"][0]) and math.isnan(df["rk_h"][0])
    assert math.isnan(df["tsrv"][0]) and math.isnan(df["tsrv_k"][0])
    assert not math.isnan(df["prv"][0]) and not math.isnan(df["minrv"][0])
    compare(bounce, [0, 400], df)


def returns_of(path, sample_every=1):
    """Log returns of consecutive prices of each (symbol, date) of a bundled price file, as numpy
    computes them, with the segments' offsets (the library's segmenter is not under test here)."""
    d = pd.read_csv(path)
    d["date"] = d["timestamp"].str[:10]
    parts = []
    for _, g in d.groupby(["symbol", "date"], sort=False):
        p = g["price"].to_numpy(np.float64)[::sample_every]
        parts.append(np.log1p(np.diff(p) / p[:-1]))
    return np.concatenate(parts), np.concatenate([[0], np.cumsum([len(x) for x in parts])])


@pytest.mark.parametrize("name,every", [("trades_xxx_2days.csv", 1), ("onemin_stock_market.csv", 1),
                                        ("onemin_stock_market.csv", 5)])
def test_real_data_against_oracle(data_dir, name, every):
    r, offsets = returns_of(data_dir / name, every)
    df = raid.realized(r, offsets, device="cpu", measures=NOISE)
    compare(r, offsets, df)
    assert (df["rk_h"] >= 1).all()


def test_measures_argument():
    rng = np.random.default_rng(5)
    r = rng.normal(0, 1e-3, 300)
    off = [0, 120, 300]
    full = raid.realized(r, off, device="cpu")
    assert list(full.columns) == ["n", *NINE]
    pick = raid.realized(r, off, device="cpu", measures=["prv", "rv", "rk"])
    assert list(pick.columns) == ["n", "prv", "rv", "rk"]
    assert pick["rv"].tolist() == full["rv"].tolist()
    assert list(raid.realized(r, off, device="cpu", measures=["medrv"]).columns) == ["n", "medrv"]
    with pytest.raises(raid.RaidError, match=r"unknown measure 'rvx' \(valid: rv, bpv, .*, prv, minrv\)"):
        raid.realized(r, off, device="cpu", measures=["rv", "rvx"])
    with pytest.raises(raid.RaidError, match="given twice"):
        raid.realized(r, off, device="cpu", measures=["rv", "rv"])
    with pytest.raises(raid.RaidError, match="empty list"):
        raid.realized(r, off, device="cpu", measures=[])
    with pytest.raises(TypeError, match="list of names"):
        raid.realized(r, off, device="cpu", measures="rv,rk")
    with pytest.raises(ValueError, match="bad measure name"):
        raid.realized(r, off, device="cpu", measures=["rv,rk"])


def test_bad_returns_refused():
    with pytest.raises(raid.RaidError, match="return 2 is not finite"):
        raid.realized(np.array([1e-3, 2e-3, np.nan, 1e-3]), [0, 4], device="cpu", measures=["rk"])


def test_simulated_noise():
    """Brownian log price, sigma constant (IV = sigma^2 a day), 23,400 returns a day (one a second over
    6.5 hours), plus i.i.d. normal noise of standard deviation omega = 5e-4 on each log price (xi^2 =
    omega^2/IV = 2.5e-3, the order BNHLS 2009 report for liquid stocks): E rv = IV + 2 M omega^2, about
    118 IV. The daily standard deviations of rk, tsrv and prv around IV are about 10%, 7% and 9% of IV
    here (measured over 100 such days, two seeds); so over 20 days (fixed seed) each mean must be within
    8% of IV (more than 3.5 standard errors of the mean) and each day within 45% (4.5 standard
    deviations), bounds that rv and minrv miss by two orders of magnitude."""
    rng = np.random.default_rng(7)
    M, days, sigma, omega = 23400, 20, 0.01, 5e-4
    iv = sigma * sigma
    parts = []
    for _ in range(days):
        x = np.concatenate([[0.0], np.cumsum(rng.normal(0, sigma / math.sqrt(M), M))])
        parts.append(np.diff(x + rng.normal(0, omega, M + 1)))
    r = np.concatenate(parts)
    off = np.arange(days + 1) * M
    df = raid.realized(r, off, device="cpu", measures=["rv", "rk", "tsrv", "prv", "minrv"])
    assert (df["rv"] > 50 * iv).all()  # rv blows up with the noise
    for name in ["rk", "tsrv", "prv"]:
        ratio = df[name] / iv
        assert abs(ratio.mean() - 1) < 0.08, (name, ratio.mean())
        assert (abs(ratio - 1) < 0.45).all(), (name, ratio.min(), ratio.max())
    assert (df["minrv"] > 10 * iv).all()  # MinRV is robust to jumps, not to noise


def run_cli(cli, *args):
    return subprocess.run([cli, "realized", *map(str, args)], capture_output=True, text=True)


def test_cli_measures(cli, data_dir, tmp_path):
    path = data_dir / "trades_xxx_2days.csv"
    base = run_cli(cli, path, "--device", "cpu", "--sample", "tick", "-q")
    assert base.returncode == 0, base.stderr
    assert base.stdout.splitlines()[0] == "symbol,date,n," + ",".join(NINE)
    nine = run_cli(cli, path, "--device", "cpu", "--sample", "tick", "-q", "--measures", ",".join(NINE))
    assert nine.stdout == base.stdout
    got = run_cli(cli, path, "--device", "cpu", "--sample", "tick", "-q", "--measures", "rv,bpv,rk,tsrv,prv,minrv")
    assert got.returncode == 0, got.stderr
    g = pd.read_csv(io.StringIO(got.stdout))
    assert list(g.columns) == ["symbol", "date", "n", "rv", "bpv", "rk", "tsrv", "prv", "minrv"]
    b = pd.read_csv(io.StringIO(base.stdout))
    assert g["rv"].tolist() == b["rv"].tolist()
    # the same rows as the Python package's, from the same segmenter
    d = pd.read_csv(path)
    py = raid.realized_from_prices(d, sample="tick", device="cpu", measures=["rv", "bpv", "rk", "tsrv", "prv", "minrv"])
    for c in ["rk", "tsrv", "prv", "minrv"]:
        assert g[c].tolist() == py[c].tolist(), c
    assert list(py.columns) == list(g.columns)
    bad = run_cli(cli, path, "--measures", "rv,RK", "-o", tmp_path / "out.csv")
    assert bad.returncode == 1
    assert "raid realized: --measures: unknown measure 'RK' (valid: rv, bpv, rs_neg, rs_pos, rq, tpq, medrv, " \
           "jump_z, jump_p, rk, rk_h, tsrv, tsrv_k, prv, minrv)" in bad.stderr
    assert not (tmp_path / "out.csv").exists()
