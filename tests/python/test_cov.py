"""Realized covariance (raid_cov_compute, the job, `raid cov`, raid.cov) against an independent float64
implementation of the papers' formulas (cov_oracle.py) on random asynchronous ticks and on the bundled
one-minute prices of two symbols, refresh-time sampling and Hayashi-Yoshida on hand-made ticks with known
answers, the eigenvalue report on matrices that are not PSD, Higham's projection, the outputs (long CSV,
.npy with its companions) and bad input."""
import io
import os
import math
import pathlib
import subprocess
import sys
import zlib

import numpy as np
import pandas as pd
import pytest

import raid
from raid import ffi, lib

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import cov_oracle  # noqa: E402

ESTIMATORS = ["rcov", "rbpcov", "rsemicov", "hy", "mrc", "mrc_psd", "rkcov"]
SYNC = {"previous": lib.RAID_COV_SYNC_PREVIOUS, "refresh": lib.RAID_COV_SYNC_REFRESH}


def c_day(est, sync, series):
    """raid_cov_compute of one day: (parts, info)."""
    N = len(series)
    t = np.concatenate([np.asarray(s[0], np.int64) for s in series]) if N else np.zeros(0, np.int64)
    p = np.concatenate([np.asarray(s[1], np.float64) for s in series]) if N else np.zeros(0)
    off = np.concatenate([[0], np.cumsum([len(s[0]) for s in series])]).astype(np.int64)
    e = ffi.new("raid_cov_estimator *")
    assert lib.raid_cov_estimator_parse(est.encode(), e) == lib.RAID_OK
    parts = lib.raid_cov_parts(e[0])
    out = np.zeros(max(parts * N * N, 1))
    info = ffi.new("raid_cov_info *")
    st = lib.raid_cov_compute(ffi.NULL, e[0], SYNC[sync], N, ffi.from_buffer("int64_t[]", off),
                              ffi.from_buffer("int64_t[]", t), ffi.from_buffer("double[]", p),
                              ffi.from_buffer("double[]", out), info)
    if st != lib.RAID_OK:
        raise raid.RaidError(st, ffi.string(lib.raid_errmsg()).decode())
    return [out[q * N * N:(q + 1) * N * N].reshape(N, N) for q in range(parts)], info


def rel_ok(a, b, tol=1e-12):
    """Entrywise: both NaN, or |a - b| <= tol |b| (exact zeros equal)."""
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape
    both = np.isnan(a) & np.isnan(b)
    assert not (np.isnan(a) ^ np.isnan(b)).any(), (a, b)
    d = np.abs(a - b)[~both]
    s = np.abs(b)[~both]
    bad = d > tol * s
    assert not bad.any(), (a, b, (d / np.where(s > 0, s, 1))[bad])


def random_day(rng, nsym, nobs, dup=True):
    """Asynchronous ticks: Poisson-like times (microseconds, some repeated), random-walk prices with zero
    returns, some symbols absent or with one observation."""
    series = []
    for _ in range(nsym):
        n = int(rng.integers(*nobs))
        t = np.cumsum(rng.integers(0 if dup else 1, 3_000_000, n)) + 34_200_000_000
        lp = np.cumsum(rng.normal(0, 1e-3, n) * (rng.random(n) < 0.8))
        series.append((t.tolist(), (100.0 * np.exp(lp)).tolist()))
    return series


@pytest.mark.parametrize("est", ESTIMATORS)
@pytest.mark.parametrize("sync", ["previous", "refresh"])
def test_random_days_against_oracle(est, sync):
    if est == "hy" and sync == "refresh":
        pytest.skip("hy does not synchronise")
    rng = np.random.default_rng(zlib.crc32(f"{est},{sync}".encode()))
    for trial in range(10):
        nsym = int(rng.integers(1, 5))
        series = random_day(rng, nsym, (2, 60 if est != "rkcov" else 120))
        if trial >= 8 and nsym > 1:
            series[0] = ([], [])  # an absent symbol
        got, info = c_day(est, sync, series)
        want, n = cov_oracle.day(est, sync, [s if len(s[0]) else None for s in series])
        assert info.n == n or est == "hy"
        for g, w in zip(got, want):
            rel_ok(g, w)


def test_min_returns_give_nan():
    # rkcov needs 3 synchronised returns, mrc 5: with 2 the matrix is NaN and the bandwidth -1
    series = [([0, 1, 2], [1.0, 1.1, 1.2]), ([0, 1, 2], [2.0, 2.1, 2.0])]
    for est in ["rkcov", "mrc"]:
        (m,), info = c_day(est, "previous", series)
        assert np.isnan(m).all() and info.bandwidth == -1 and info.n == 2


def test_refresh_time_hand_made():
    # A at 1,2,3,6,7; B at 2,4,5,8; C at 1,5,9 -> refresh times 2, 5, 9 (then A has no later time):
    # A's prices there 101 (t=2), 102 (t=3), 104 (t=7); B's 200, 202 (t=5), 203 (t=8); C's 50, 51, 52.
    A = ([1, 2, 3, 6, 7], [100.0, 101.0, 102.0, 103.0, 104.0])
    B = ([2, 4, 5, 8], [200.0, 201.0, 202.0, 203.0])
    C = ([1, 5, 9], [50.0, 51.0, 52.0])
    (m,), info = c_day("rcov", "refresh", [A, B, C])
    assert info.n == 2
    lr = cov_oracle.log_return
    ra, rb, rc = [lr(101.0, 102.0), lr(102.0, 104.0)], [lr(200.0, 202.0), lr(202.0, 203.0)], [lr(50.0, 51.0), lr(51.0, 52.0)]
    want = np.array([[math.fsum(x * y for x, y in zip(u, v)) for v in (ra, rb, rc)] for u in (ra, rb, rc)])
    rel_ok(m, want, 1e-15)
    # the union grid instead: times 1..9, previous tick, the first price before a symbol's first time
    (m2,), info2 = c_day("rcov", "previous", [A, B, C])
    assert info2.n == 8
    assert m2[0, 0] == pytest.approx(sum(lr(a, b) ** 2 for a, b in zip(A[1], A[1][1:])), rel=1e-15)


def test_hayashi_yoshida_hand_made():
    lr = cov_oracle.log_return
    # A over (0,2], (2,4]; B over (1,3]: both of A's intervals overlap B's
    A = ([0, 2, 4], [100.0, 110.0, 121.0])
    B = ([1, 3], [50.0, 55.0])
    (m,), _ = c_day("hy", "previous", [A, B])
    want = lr(100.0, 110.0) * lr(50.0, 55.0) + lr(110.0, 121.0) * lr(50.0, 55.0)
    assert m[0, 1] == m[1, 0] == pytest.approx(want, rel=1e-15)
    assert m[0, 0] == pytest.approx(lr(100.0, 110.0) ** 2 + lr(110.0, 121.0) ** 2, rel=1e-15)
    # intervals that only touch at an end do not overlap: (0,2] and (2,3]
    (m,), _ = c_day("hy", "previous", [([0, 2], [1.0, 2.0]), ([2, 3], [1.0, 3.0])])
    assert m[0, 1] == 0.0
    # equal times of one symbol: the last price at the time counts (one return 100 -> 102 over (0,1])
    (m,), _ = c_day("hy", "previous", [([0, 1, 1], [100.0, 101.0, 102.0]), ([0, 1], [10.0, 11.0])])
    assert m[0, 1] == pytest.approx(lr(100.0, 102.0) * lr(10.0, 11.0), rel=1e-15)


def test_hy_merge_is_linear():
    # two symbols of 200,000 ticks: a quadratic pass per pair would be 4e10 steps
    rng = np.random.default_rng(3)
    s = random_day(rng, 2, (200_000, 200_001), dup=False)
    (m,), info = c_day("hy", "previous", s)
    assert info.n == 199_999 and np.isfinite(m).all()


def test_psd_report_and_projection():
    # HY of one return of A over (0,10] against ten equal returns of B: HY_AB^2 = 10 HY_AA HY_BB > HY_AA HY_BB
    A = ([0, 10], [100.0, 110.0])
    B = (list(range(11)), [50.0 * 1.01 ** k for k in range(11)])
    (m,), info = c_day("hy", "previous", [A, B])
    ev = np.linalg.eigvalsh(m)
    assert ev[0] < 0 and info.min_eig[0] == pytest.approx(ev[0], rel=1e-12)
    # rcov of 5 symbols from 3 returns: rank 3, two zero eigenvalues
    rng = np.random.default_rng(7)
    s = [([0, 1, 2, 3], (100 * np.exp(np.cumsum(rng.normal(0, 0.01, 4)))).tolist()) for _ in range(5)]
    (m,), info = c_day("rcov", "previous", s)
    assert abs(info.min_eig[0]) < 1e-15 * np.trace(m)
    # the projection on request keeps the variances and makes the matrix PSD (raid.cov, a DataFrame)
    df = pd.DataFrame({"symbol": ["A"] * 2 + ["B"] * 11,
                       "timestamp": pd.to_datetime(["2024-01-02 10:00:00"] * 13) +
                       pd.to_timedelta(A[0] + B[0], unit="s"), "price": A[1] + B[1]})
    raw = raid.cov(df, estimator="hy")
    proj = raid.cov(df, estimator="hy", psd_project=True)
    assert raw.min_eig[0] < 0 and proj.min_eig[0] == raw.min_eig[0]  # the report is of the estimate
    v = proj.values[0]
    assert np.diag(v) == pytest.approx(np.diag(raw.values[0]), rel=1e-15)
    assert np.linalg.eigvalsh(v)[0] >= -1e-12 * np.trace(v)


def test_higham_example():
    # Higham (2002), section 4: the nearest correlation matrix of [[1,1,0],[1,1,1],[0,1,1]]
    a = np.array([[1.0, 1.0, 0.0], [1.0, 1.0, 1.0], [0.0, 1.0, 1.0]])
    it = ffi.new("int *")
    assert lib.raid_cov_psd_project(ffi.from_buffer("double[]", a), 3, it) == lib.RAID_OK
    want = np.array([[1.0, 0.7607, 0.1573], [0.7607, 1.0, 0.7607], [0.1573, 0.7607, 1.0]])
    assert np.abs(a - want).max() < 1e-4 and it[0] > 1
    out = ffi.new("double *")
    assert lib.raid_cov_min_eig(ffi.from_buffer("double[]", a), 3, out) == lib.RAID_OK
    assert out[0] > -1e-12


def onemin(data_dir):
    return pd.read_csv(data_dir / "onemin_stock_market.csv")


def oracle_days(df, est, sync, symbols):
    """The oracle on the raw ticks of each (symbol, date) of df (timestamps without offset: local = UTC)."""
    t = pd.to_datetime(df["timestamp"])
    us = (t - pd.Timestamp("1970-01-01")) // pd.Timedelta(microseconds=1)
    df = df.assign(us=us, date=t.dt.strftime("%Y-%m-%d"))
    out = {}
    for date, g in df.groupby("date", sort=True):
        series = []
        for s in symbols:
            h = g[g["symbol"] == s]
            series.append((h["us"].tolist(), h["price"].astype(float).tolist()) if len(h) >= 2 else None)
        out[date] = cov_oracle.day(est, sync, series)
    return out


@pytest.mark.parametrize("est,sync", [("rcov", "previous"), ("rbpcov", "refresh"), ("rsemicov", "refresh"),
                                      ("hy", "previous"), ("mrc", "refresh"), ("mrc_psd", "previous"),
                                      ("rkcov", "refresh")])
def test_bundled_data_against_oracle(data_dir, est, sync):
    df = onemin(data_dir)
    res = raid.cov(data_dir / "onemin_stock_market.csv", estimator=est, sample="tick",
                   refresh_time=sync == "refresh")
    want = oracle_days(df, est, sync, res.symbols)
    assert list(res.dates) == sorted(want)
    for i, d in enumerate(res.dates):
        parts, n = want[d]
        got = res.values[i] if est != "rsemicov" else list(res.values[i])
        got = [got] if est != "rsemicov" else got
        assert res.n[i] == n or est == "hy"
        for g, w in zip(got, parts):
            rel_ok(g, w)


def test_one_symbol_is_the_univariate_measures(data_dir):
    # one symbol: rcov, rbpcov, mrc and rkcov are rv, bpv, prv and rk of `raid realized` (tick sampling)
    path = data_dir / "onemin_stock_market.csv"
    rm = raid.realized_from_prices(pd.read_csv(path), sample="tick", measures=["rv", "bpv", "prv", "rk"])
    rm = rm[rm["symbol"] == "STOCK"].reset_index(drop=True)
    for est, col in [("rcov", "rv"), ("rbpcov", "bpv"), ("mrc", "prv"), ("rkcov", "rk")]:
        res = raid.cov(path, estimator=est, sample="tick", symbols=["STOCK"])
        assert list(res.dates) == list(rm["date"])
        rel_ok(res.values[:, 0, 0], rm[col].to_numpy(), 1e-13)


def test_semicovariances_add_up(data_dir):
    path = data_dir / "onemin_stock_market.csv"
    s = raid.cov(path, estimator="rsemicov").values
    c = raid.cov(path, estimator="rcov").values
    P, N, M = s[:, 0], s[:, 1], s[:, 2]
    total = P + N + M + np.transpose(M, (0, 2, 1))
    assert np.abs(total - c).max() <= 1e-15 * np.abs(c).max()
    assert (np.diagonal(M, axis1=1, axis2=2) == 0).all() and (M <= 0).all()


def run(cli, *args):
    return subprocess.run([cli, "cov", *map(str, args)], capture_output=True, text=True)


def test_cli_csv_npy_and_python_agree(cli, data_dir, tmp_path):
    path = data_dir / "onemin_stock_market.csv"
    for est in ["rcov", "rsemicov"]:
        r = run(cli, path, "--estimator", est, "-o", tmp_path / f"{est}.csv", "--info", tmp_path / f"{est}.info")
        assert r.returncode == 0, r.stderr
        r = run(cli, path, "--estimator", est, "-o", tmp_path / f"{est}.npy")
        assert r.returncode == 0, r.stderr
        a = np.load(tmp_path / f"{est}.npy")
        py = raid.cov(path, estimator=est)
        assert np.array_equal(a, py.values, equal_nan=True)
        assert (tmp_path / f"{est}.symbols.txt").read_text().split() == py.symbols
        assert (tmp_path / f"{est}.dates.txt").read_text().split() == list(py.dates)
        long = pd.read_csv(tmp_path / f"{est}.csv", keep_default_na=False, dtype={"value": str})
        sym = {s: i for i, s in enumerate(py.symbols)}
        day = {d: i for i, d in enumerate(py.dates)}
        for row in long.itertuples(index=False):
            q = "PNM".index(row.part) if est == "rsemicov" else None
            v = a[day[row.date], q, sym[row.symbol_i], sym[row.symbol_j]] if q is not None else \
                a[day[row.date], sym[row.symbol_i], sym[row.symbol_j]]
            assert float(row.value) == v
        nP = 3 if est == "rcov" else 2 * 3 + 4  # rows a day: i <= j, M part in full
        assert len(long) == len(py.dates) * nP
        info = pd.read_csv(tmp_path / f"{est}.info")
        assert len(info) == len(py.dates) and (info["n"] == py.n).all()


def test_symbols_list_streams_the_same(cli, data_dir, tmp_path):
    path = data_dir / "onemin_stock_market.csv"
    a = raid.cov(path, estimator="rkcov", refresh_time=True)
    b = raid.cov(path, estimator="rkcov", refresh_time=True, symbols=["MARKET", "STOCK"])
    assert np.array_equal(a.values[:, ::-1, ::-1], b.values, equal_nan=True)


def test_listed_symbol_absent_from_the_input(cli, data_dir, tmp_path):
    # a listed symbol without a price in the input is absent every day (include/raid/cov.h: "a symbol never
    # seen is absent"): its row and column NaN, the days those on which a listed symbol has prices; the CLI
    # and raid.cov (of the path and of its DataFrame) agree
    path = data_dir / "onemin_stock_market.csv"
    df = pd.read_csv(path, parse_dates=["timestamp"])
    for syms in (["STOCK", "NOPE"], ["NOPE"]):
        out = tmp_path / "o.npy"
        r = run(cli, path, "--symbols", ",".join(syms), "-o", out)
        assert r.returncode == 0, r.stderr
        a = np.load(out)
        assert (tmp_path / "o.symbols.txt").read_text().split() == syms
        for src in (path, df):
            c = raid.cov(src, symbols=syms)
            assert c.symbols == syms and np.array_equal(c.values, a, equal_nan=True)
            assert np.isnan(c.values[:, -1, :]).all() and np.isnan(c.values[:, :, -1]).all()
        assert a.shape == ((22, 2, 2) if len(syms) == 2 else (0, 1, 1))
        assert np.isfinite(a[:, 0, 0]).all() if len(syms) == 2 else True


def test_symbols_list_rule(data_dir):
    # an empty list gave every day without a symbol (the CLI refuses an empty --symbols); a missing name
    # (None) was the symbol 'None'; a NUL byte cut the name short
    path = data_dir / "onemin_stock_market.csv"
    with pytest.raises(ValueError, match=r"symbols must name at least one symbol \(None: every symbol\), not \[\]"):
        raid.cov(path, symbols=[])
    with pytest.raises(ValueError, match=r"row 1: missing symbol \(NaN or None\)"):
        raid.cov(path, symbols=["STOCK", None])
    with pytest.raises(ValueError, match=r"row 0: symbol 'STOCK\\x00X' holds a NUL byte"):
        raid.cov(path, symbols=["STOCK\0X"])
    with pytest.raises(raid.RaidError, match="given twice"):
        raid.cov(path, symbols=["STOCK", "STOCK"])
    a = raid.cov(path, symbols=np.array(["MARKET", "STOCK"]))
    b = raid.cov(path, symbols=pd.Series(["MARKET", "STOCK"], dtype="string"))
    assert a.symbols == b.symbols == ["MARKET", "STOCK"] and np.array_equal(a.values, b.values, equal_nan=True)
    # the C entry: an empty list (not NULL) is refused too
    o = ffi.new("raid_cov_opts *")
    lib.raid_cov_opts_init(o)
    o.symbols, o.nsymbols = ffi.new("const char *[]", 1), 0
    jp = ffi.new("raid_cov_job **")
    assert lib.raid_cov_job_create(jp, o) == lib.RAID_EINVAL and jp[0] == ffi.NULL
    assert "empty list of symbols" in ffi.string(lib.raid_errmsg()).decode()


def test_flags_are_booleans(data_dir):
    # refresh_time and psd_project took any object's truth value: "no" and 2 were True
    path = data_dir / "onemin_stock_market.csv"
    for k in ("refresh_time", "psd_project"):
        for v in ("no", 2, None, 1.0):
            with pytest.raises(ValueError, match=rf"{k} must be True or False, not {v!r} \({type(v).__name__}\)"):
                raid.cov(path, **{k: v})
    a = raid.cov(path, refresh_time=np.bool_(True), psd_project=np.True_)
    b = raid.cov(path, refresh_time=True, psd_project=True)
    assert np.array_equal(a.values, b.values, equal_nan=True)


def test_min_obs_integer_rule(data_dir):
    # min_obs past int64 raised cffi's OverflowError; 2.0 and True were taken as 2 and 1
    path = data_dir / "onemin_stock_market.csv"
    with pytest.raises(ValueError, match=r"min_obs = 1180591620717411303424 is out of range \[-9223372036854775808, "
                                         r"9223372036854775807\] \(int64_t\)"):
        raid.cov(path, min_obs=2 ** 70)
    for v in (2.0, True, "3"):
        with pytest.raises(ValueError, match=rf"min_obs must be an integer, not {v!r}"):
            raid.cov(path, min_obs=v)
    for v in (0, -1):
        with pytest.raises(ValueError, match=rf"min_obs must be an integer >= 1, not {v}"):
            raid.cov(path, min_obs=v)
    big = raid.cov(path, min_obs=np.int64(2 ** 62))
    assert np.isnan(big.values).all()


def test_bad_input(cli, tmp_path):
    out = tmp_path / "o.csv"
    bad = tmp_path / "bad.csv"
    bad.write_text("symbol,timestamp,price\nA,2024-01-02T10:00:00,100\nA,2024-01-02T10:01:00,-1\n")
    r = run(cli, bad, "-o", out)
    assert r.returncode == 2 and f"{bad}:3:" in r.stderr and not out.exists()
    r = run(cli, bad, "-o", out, "--estimator", "nope")
    assert r.returncode == 1 and "unknown estimator 'nope'" in r.stderr
    r = run(cli, bad, "-o", out, "--estimator", "hy", "--refresh-time")
    assert r.returncode == 1
    r = run(cli, bad, "-o", out, "--refresh-time", "--sample", "5min")
    assert r.returncode == 1
    r = run(cli, bad, "-o", out, "--symbols", "A,,B")
    assert r.returncode == 1
    r = run(cli, bad, "-o", out, "--symbols", "A,A")
    assert r.returncode == 1 and "twice" in r.stderr
    # local time going back within a day (the end of daylight saving time in New York)
    dst = tmp_path / "dst.csv"
    dst.write_text("symbol,timestamp,price\nA,2024-11-03T05:50:00Z,100\nA,2024-11-03T06:10:00Z,101\n"
                   "B,2024-11-03T05:50:00Z,10\nB,2024-11-03T06:20:00Z,11\n")
    r = run(cli, dst, "-o", out, "--tz", "America/New_York", "--sample", "tick")
    assert r.returncode == 2 and "daylight saving" in r.stderr and not out.exists()
    # the C entry: time going back, a bad price
    with pytest.raises(raid.RaidError, match="time order"):
        c_day("rcov", "previous", [([2, 1], [1.0, 1.0])])
    with pytest.raises(raid.RaidError, match="positive"):
        c_day("rcov", "previous", [([1, 2], [1.0, 0.0])])
    with pytest.raises(raid.RaidError, match="unknown estimator"):
        raid.cov(bad, estimator="nope")


def test_outputs_and_write_errors(cli, data_dir, tmp_path):
    # --info naming an output (or a .npy output's companion) is refused before anything is written: one
    # would overwrite the other; a failed write of the CSV says so (exit 2, no file left)
    path = data_dir / "onemin_stock_market.csv"
    for o, info in (("x.npy", "x.npy"), ("y.npy", "y.dates.txt"), ("a.csv", "a.csv")):
        r = run(cli, path, "-o", tmp_path / o, "--info", tmp_path / info)
        assert r.returncode == 1 and "name the same file" in r.stderr, r.stderr
        assert not (tmp_path / o).exists()
    r = run(cli, path, "-o", "-", "--info", "-")
    assert r.returncode == 1 and "name the same file" in r.stderr
    if os.path.exists("/dev/full"):
        # an output larger than stdio's buffer fails while days are written (the message was empty), a small
        # one when the output is committed
        big = tmp_path / "t20.csv"
        assert subprocess.run([cli, "simulate", "--symbols", "20", "--days", "2", "--obs", "79", "-q", "-o", str(big)]
                              ).returncode == 0
        for src, want in ((big, "write error"), (path, "cannot write standard output")):
            with open("/dev/full", "w") as full:
                r = subprocess.run([cli, "cov", str(src), "-o", "-"], stdout=full, stderr=subprocess.PIPE, text=True)
            assert r.returncode == 2 and want in r.stderr, r.stderr


def test_min_obs_and_device(data_dir, have_opencl, cli, tmp_path):
    path = data_dir / "onemin_stock_market.csv"
    base = raid.cov(path, estimator="mrc", refresh_time=True)
    # a symbol needs min_obs sampled prices on the day: 392 is one more than a day of one-minute prices
    none = raid.cov(path, estimator="mrc", refresh_time=True, min_obs=392)
    assert np.isnan(none.values).all() and np.isnan(none.min_eig).all()
    if have_opencl:
        # the device path sums in double-float: within its bound of the cpu path, entry by entry against the
        # entry's scale (raid cov --check: docs/precision.md "Covariance"); the same NaN pattern and days
        dev = raid.cov(path, estimator="mrc", refresh_time=True, device="opencl")
        assert np.array_equal(np.isnan(dev.values), np.isnan(base.values))
        r = run(cli, path, "--estimator", "mrc", "--refresh-time", "--device", "opencl", "--check",
                "-o", tmp_path / "o.csv")
        assert r.returncode == 0 and "check passed" in r.stderr, r.stderr
        # hy's merge sums run on the device too (kernels/cov.cl cov_hy): within their bound of the cpu path
        r = run(cli, path, "--estimator", "hy", "--device", "opencl", "--check", "-o", tmp_path / "h.csv")
        assert r.returncode == 0 and "check passed" in r.stderr, r.stderr
        dev, cpu = raid.cov(path, estimator="hy", device="opencl"), raid.cov(path, estimator="hy")
        assert np.array_equal(np.isnan(dev.values), np.isnan(cpu.values))
        assert np.array_equal(dev.dates, cpu.dates)


def test_estimator_names():
    # the names come from the library (RAID_COV_NESTIMATORS is a #define that cffi's cdef does not see)
    assert raid.cov_estimators() == ["rcov", "rbpcov", "rsemicov", "hy", "mrc", "mrc_psd", "rkcov"]


def test_psd_project_leaves_psd_days(data_dir):
    # a day whose matrix is already PSD is its own nearest one: --psd-project leaves it bit for bit (the
    # projection's round trip changed last bits); a day that is not PSD is changed and becomes PSD
    path = data_dir / "onemin_stock_market.csv"
    a = raid.cov(path, estimator="rcov")
    b = raid.cov(path, estimator="rcov", psd_project=True)
    assert (a.min_eig >= 0).all()
    assert np.array_equal(a.values, b.values, equal_nan=True)
