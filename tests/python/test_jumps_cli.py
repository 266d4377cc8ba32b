"""raid jumps (include/raid/jumps.h, docs/measures.md "Jumps: Lee-Mykland"): the Lee-Mykland (2008) statistic
and test against an independent implementation of the paper's formulas written here (plain loops, each window's
bipower sum by math.fsum), on random returns with injected jumps, on series that stress the running window sum,
and on the bundled data through the CLI and raid.jumps: the statistic to 1e-12 relative and the detections
exactly. The simulation: Brownian returns without jumps give about alpha days with a (false) detection, jumps of
10 standard deviations are all detected. Bad input refused (exit 2, FILE:LINE:COL, no output), --window and
--alpha checked (exit 1)."""
import io
import math
import os
import subprocess

import numpy as np
import pandas as pd
import pytest

import raid
from raid._core import ffi, lib

EXACT = {"float_precision": "round_trip"} if int(pd.__version__.split(".")[0]) < 3 else {}
YES, NO, UNTESTED, UNDEFINED = 1, 0, -1, -2


def run(cmd, *args):
    r = subprocess.run([os.environ.get("RAID_CLI", "raid"), cmd, *map(str, args)], capture_output=True)
    return r.returncode, r.stdout, r.stderr.decode()


def read(out):
    return pd.read_csv(io.BytesIO(out), dtype={"symbol": str}, keep_default_na=False, na_values=[""], **EXACT)


# ---- the oracle: Lee and Mykland (2008), Definition 1 and the rejection region of their Lemma 1 ----

def lm_window(nret, ndays):
    """K = ceil(sqrt(252 nret / ndays)), at least 3: the smallest K with K^2 ndays >= 252 nret."""
    k = math.isqrt(252 * nret // ndays)
    while k * k * ndays < 252 * nret:
        k += 1
    while k > 0 and (k - 1) * (k - 1) * ndays >= 252 * nret:
        k -= 1
    return max(k, 3)


def oracle(r, days, K, alpha):
    """The statistic and outcome of every return of one series: r its returns (days back to back), days the
    number of returns of each day. L_i = r_i / sigma_i, sigma_i^2 = 1/(K-2) sum_{j=i-K+2}^{i-1} |r_j||r_{j-1}|
    for i >= K - 1 (0-based); a jump where (|L_i| - C_n)/S_n > beta*, n the returns of r_i's day."""
    r = [float(x) for x in r]
    day_n = [n for n in days for _ in range(n)]
    c = math.sqrt(2 / math.pi)
    beta = -math.log(-math.log1p(-alpha))
    stat, code = [], []
    for i, x in enumerate(r):
        if i < K - 1:
            stat.append(math.nan)
            code.append(UNTESTED)
            continue
        s = math.fsum(abs(r[j]) * abs(r[j - 1]) for j in range(i - K + 2, i))
        L = x / math.sqrt(s / (K - 2)) if s > 0 else math.nan
        stat.append(L)
        n = day_n[i]
        if not s > 0 or n < 2:
            code.append(UNDEFINED)
            continue
        ln = math.log(n)
        root = math.sqrt(2 * ln)
        Cn = root / c - (math.log(math.pi) + math.log(ln)) / (2 * c * root)
        Sn = 1 / (c * root)
        code.append(YES if (abs(L) - Cn) / Sn > beta else NO)
    return np.array(stat), np.array(code, dtype=np.int8)


def capability(r, days, K, alpha):
    """raid_jumps_lm of one series."""
    r = np.ascontiguousarray(r, dtype=np.float64)
    off = np.ascontiguousarray(np.concatenate([[0], np.cumsum(days)]), dtype=np.int64)
    stat = np.full(len(r), 7.0)
    code = np.full(len(r), 9, dtype=np.int8)
    rc = lib.raid_jumps_lm(ffi.from_buffer("double[]", r), ffi.from_buffer("int64_t[]", off), len(days), K, alpha,
                           ffi.from_buffer("double[]", stat), ffi.cast("int8_t *", ffi.from_buffer(code)))
    assert rc == 0, ffi.string(lib.raid_errmsg()).decode()
    return stat, code


def same(got_stat, got_code, want_stat, want_code):
    assert list(got_code) == list(want_code)
    nan = np.isnan(want_stat)
    assert (np.isnan(got_stat) == nan).all()
    rel = np.abs(got_stat[~nan] - want_stat[~nan]) / np.maximum(np.abs(want_stat[~nan]), 1e-300)
    assert rel.max(initial=0) <= 1e-12, rel.max()


def random_days(rng, ndays, lo, hi):
    return [int(x) for x in rng.integers(lo, hi, ndays)]


@pytest.mark.parametrize("seed", range(4))
def test_capability_random_with_jumps(seed):
    """Random day lengths (including days of 0, 1 and 2 returns), runs of zero returns (tick data: windows
    whose bipower sum is 0), injected jumps, the window from 3 to beyond a day."""
    rng = np.random.default_rng(seed)
    days = random_days(rng, 12, 0, 120) + [1, 2, 0, 50]
    N = sum(days)
    sigma = 10.0 ** rng.uniform(-5, -2)
    r = rng.standard_normal(N) * sigma * np.exp(rng.normal(0, 0.5, N))  # varying volatility
    r[rng.random(N) < 0.25] = 0.0
    r[60:75] = 0.0  # a window of zero products for small K
    jumps = rng.choice(N, 8, replace=False)
    r[jumps] += rng.choice([-1, 1], 8) * 10 * sigma
    for K in (3, 4, 17, 100, lm_window(N, len(days)), N + 5):
        for alpha in (0.01, 0.2):
            same(*capability(r, days, K, alpha), *oracle(r, days, K, alpha))


def test_capability_large_return_leaves_window():
    """Returns of 1e-16 and two consecutive returns of 1 (products of 1 among products of 1e-32): once the large
    products leave the window, a running sum alone would keep their rounding errors (about 2^-104, 5e-32: as
    large as the window's sum); the sum restarted from the window's terms matches fsum."""
    rng = np.random.default_rng(7)
    r = rng.uniform(0.5, 1.5, 400) * 1e-16 * rng.choice([-1, 1], 400)
    r[100] = r[101] = 1.0
    r[250] = -0.7
    for K in (3, 10, 60):
        same(*capability(r, [400], K, 0.01), *oracle(r, [400], K, 0.01))


def test_capability_errors():
    r = np.zeros(10)
    for K, alpha in [(2, 0.01), (0, 0.01), ((1 << 40) + 1, 0.01), (5, 0.0), (5, 1.0), (5, math.nan), (5, -0.1)]:
        off = np.array([0, 10], dtype=np.int64)
        st = np.empty(10)
        code = np.empty(10, dtype=np.int8)
        rc = lib.raid_jumps_lm(ffi.from_buffer("double[]", r), ffi.from_buffer("int64_t[]", off), 1, K, alpha,
                               ffi.from_buffer("double[]", st), ffi.cast("int8_t *", ffi.from_buffer(code)))
        assert rc == lib.RAID_EINVAL
    for bad in (math.nan, math.inf, 1e75):
        r2 = np.zeros(10)
        r2[4] = bad
        rc = lib.raid_jumps_lm(ffi.from_buffer("double[]", r2), ffi.from_buffer("int64_t[]", off), 1, 5, 0.01,
                               ffi.from_buffer("double[]", st), ffi.cast("int8_t *", ffi.from_buffer(code)))
        assert rc == lib.RAID_EINVAL and "return 4" in ffi.string(lib.raid_errmsg()).decode()


def test_window_rule():
    """LM's K = sqrt(252 x returns a day), rounded up: their values for 24-hour markets (5, 15, 30 minutes,
    an hour) and 141 for 78 five-minute returns of a 6.5-hour session."""
    for per_day, K in [(288, 270), (96, 156), (48, 110), (24, 78), (78, 141), (1, 16), (0, 3)]:
        assert lib.raid_jumps_lm_window(per_day * 10, 10) == K == lm_window(per_day * 10, 10)
    for nret, ndays in [(7166, 2), (12345, 7), (1, 1), (10 ** 12, 3)]:
        assert lib.raid_jumps_lm_window(nret, ndays) == lm_window(nret, ndays)
    assert lib.raid_jumps_lm_window(5, 0) == 0


def test_simulated_false_detections_and_jumps():
    """Brownian returns, 4,000 days of 390 (one-minute returns), K = 314: for each alpha the number of days
    with a detection is within 4 binomial standard deviations of alpha times the days (LM's critical value
    controls the probability of any false detection in a day of n returns). Then 200 jumps of 10 standard
    deviations: all detected, and no more false detections than before."""
    rng = np.random.default_rng(20080101)
    n, D = 390, 4000
    r = rng.standard_normal(n * D) * 1e-3
    K = lm_window(n * D, D)
    assert K == 314
    for alpha in (0.01, 0.05, 0.1):
        _, code = capability(r, [n] * D, K, alpha)
        days = int((code.reshape(D, n) == YES).any(axis=1).sum())
        sd = math.sqrt(D * alpha * (1 - alpha))
        print(f"alpha {alpha}: {days} of {D} days with a false detection (expected {D * alpha:.0f} +- {sd:.1f})")
        assert abs(days - D * alpha) <= 4 * sd, (alpha, days)
    _, code0 = capability(r, [n] * D, K, 0.01)
    at = rng.choice(np.arange(K, n * D), 200, replace=False)
    rj = r.copy()
    rj[at] += rng.choice([-1, 1], 200) * 10e-3
    _, code = capability(rj, [n] * D, K, 0.01)
    assert (code[at] == YES).all()
    others = np.setdiff1d(np.arange(n * D), at)
    assert (code[others] == YES).sum() <= (code0 == YES).sum() + 2


# ---- the CLI and raid.jumps against the oracle on raid returns' rows ----

def oracle_table(rets, K, alpha):
    """The oracle over raid returns' rows (symbol, date, ret; sorted by symbol then date): per symbol one series,
    K None for LM's per symbol. The rows with their statistic and outcome."""
    out = []
    for _, g in rets.groupby("symbol", sort=False):
        days = list(g.groupby("date", sort=False).size())
        k = K or lm_window(len(g), len(days))
        stat, code = oracle(g["ret"].to_numpy(), days, k, alpha)
        out.append(g.assign(statistic=stat, code=code))
    return pd.concat(out) if out else rets.assign(statistic=[], code=[])


def check_cli(path, opts, K=None, alpha=0.01):
    rc, out, err = run("returns", path, *opts)
    assert rc == 0, err
    want = oracle_table(read(out), K, alpha)
    extra = (["--window", K] if K else []) + ["--alpha", alpha]
    rc, out, err = run("jumps", path, *opts, *extra, "--all")
    assert rc == 0, err
    got = read(out)
    w = want[want["code"] != UNTESTED].reset_index(drop=True)
    assert list(got.columns) == ["symbol", "date", "timestamp", "ret", "statistic", "sign", "jump"]
    assert len(got) == len(w)
    assert list(got["timestamp"]) == list(w["timestamp"]) and list(got["ret"]) == list(w["ret"])
    want_jump = np.where(w["code"] == UNDEFINED, np.nan, (w["code"] == YES).astype(float))
    assert np.array_equal(got["jump"].to_numpy(float), want_jump, equal_nan=True)
    same(got["statistic"].to_numpy(float), w["code"].to_numpy(), w["statistic"].to_numpy(), w["code"].to_numpy())
    assert list(got["sign"]) == list(np.sign(w["ret"]).astype(int))
    rc, out, err = run("jumps", path, *opts, *extra)
    assert rc == 0, err
    only = read(out)
    assert list(only.columns) == ["symbol", "date", "timestamp", "ret", "statistic", "sign"]
    j = got[got["jump"] == 1].drop(columns="jump").reset_index(drop=True)
    pd.testing.assert_frame_equal(only, j, check_dtype=False)
    return got


@pytest.mark.parametrize("name,opts,K", [("trades_xxx_2days.csv", ["--sample", "tick"], None),
                                         ("trades_xxx_2days.csv", ["--sample", "tick"], 50),
                                         ("trades_xxx_2days.csv", ["--sample", "10s"], 20),
                                         ("onemin_stock_market.csv", ["--sample", "5min", "--session", "09:30-16:00"], None),
                                         ("onemin_stock_market.csv", ["--sample", "1min"], None),
                                         ("onemin_stock_market.csv", ["--sample", "1min"], 30)])
def test_cli_bundled(data_dir, name, opts, K):
    got = check_cli(data_dir / name, opts, K)
    print(f"{name} {' '.join(opts)} K={K}: {int((got['jump'] == 1).sum())} jumps in {len(got)} tested returns")


def test_cli_simulated_prices(tmp_path):
    """Prices of two symbols over 5 days of 390 one-minute returns with 10-sigma jumps: every jump detected by
    the CLI, as the oracle says on the returns raid returns gives."""
    rng = np.random.default_rng(11)
    rows, at = [], []
    for sym in ("A", "B"):
        for d in range(5):
            r = rng.standard_normal(390) * 5e-4
            if d >= 2:
                k = int(rng.integers(1, 390))
                r[k] += 5e-3 * rng.choice([-1, 1])
                at.append((sym, f"2020-01-{d + 13}", k))
            p = 100 * np.exp(np.concatenate([[0], np.cumsum(r)]))
            t0 = pd.Timestamp(f"2020-01-{d + 13}T09:30:00")
            rows += [(sym, (t0 + pd.Timedelta(minutes=i)).isoformat(), repr(float(x))) for i, x in enumerate(p)]
    f = tmp_path / "p.csv"
    f.write_text("symbol,timestamp,price\n" + "".join(f"{a},{b},{c}\n" for a, b, c in rows))
    got = check_cli(f, ["--sample", "tick"])
    jumps = got[got["jump"] == 1]
    found = {(s, d, pd.Timestamp(t).hour * 60 + pd.Timestamp(t).minute - 570) for s, d, t in
             zip(jumps["symbol"], jumps["date"], jumps["timestamp"])}
    assert all((s, d, k + 1) in found for s, d, k in at)


@pytest.mark.parametrize("name,kw", [("trades_xxx_2days.csv", {"sample": "tick"}),
                                     ("onemin_stock_market.csv", {"sample": "5min", "session": "09:30-16:00"})])
def test_python_jumps(data_dir, name, kw):
    """raid.jumps of the file and of its DataFrame: the CLI's rows (the jumps, and every tested return)."""
    opts = [a for k, v in kw.items() for a in (f"--{k}", v)]
    df = pd.read_csv(data_dir / name, **EXACT)
    for all_ in (False, True):
        rc, out, err = run("jumps", data_dir / name, *opts, *(["--all"] if all_ else []))
        assert rc == 0, err
        cli = read(out)
        cli["timestamp"] = pd.to_datetime(cli["timestamp"], format="ISO8601").astype("datetime64[us]")
        for src in (data_dir / name, df):
            got = raid.jumps(src, all=all_, **kw)
            assert list(got.columns) == list(cli.columns)
            assert list(got["symbol"]) == list(cli["symbol"]) and list(got["date"]) == list(cli["date"])
            assert (got["timestamp"].to_numpy() == cli["timestamp"].to_numpy()).all()
            for c in ("ret", "statistic") + (("jump",) if all_ else ()):
                assert np.array_equal(got[c].to_numpy(float), cli[c].to_numpy(float), equal_nan=True), c
            assert list(got["sign"]) == list(cli["sign"])
    got = raid.jumps(data_dir / name, **kw)
    K = {s: lm_window(len(g), g["date"].nunique()) for s, g in raid.returns(data_dir / name, **kw).groupby("symbol")}
    assert got.attrs["window"] == K
    with pytest.raises(ValueError, match="window"):
        raid.jumps(df, window=2, **kw)
    with pytest.raises(TypeError, match="window"):
        raid.jumps(df, window=3.5, **kw)
    for a in (0, 1, -0.5, math.nan):
        with pytest.raises(ValueError, match="alpha"):
            raid.jumps(df, alpha=a, **kw)


def test_python_all_is_a_flag(data_dir):
    # all took any object's truth value: "no" and 2 asked for every tested return
    df = pd.read_csv(data_dir / "trades_xxx_2days.csv", **EXACT)
    for v in ("no", 2, None):
        with pytest.raises(ValueError, match=rf"all must be True or False, not {v!r}"):
            raid.jumps(df, sample="tick", all=v)
    a = raid.jumps(df, sample="tick", all=np.bool_(True))
    assert "jump" in a.columns and len(a) == len(raid.jumps(df, sample="tick", all=True))


def test_python_alpha_is_a_number(data_dir):
    # alpha was float(alpha): the text "0.01" was parsed as a number
    df = pd.read_csv(data_dir / "trades_xxx_2days.csv", **EXACT)
    for v in ("0.01", None, True, np.array([0.01])):
        with pytest.raises(ValueError, match=r"alpha must be a real number, not "):
            raid.jumps(df, sample="tick", alpha=v)
    a = raid.jumps(df, sample="tick", alpha=np.float32(0.25))
    b = raid.jumps(df, sample="tick", alpha=float(np.float32(0.25)))
    pd.testing.assert_frame_equal(a, b)


def test_bad_input(tmp_path):
    unsorted = tmp_path / "unsorted.csv"
    unsorted.write_text("symbol,timestamp,price\nA,2020-01-02T10:00:00,10\nA,2020-01-02T09:00:00,11\n")
    out = tmp_path / "out.csv"
    rc, _, err = run("jumps", unsorted, "--sample", "tick", "-o", out)
    assert rc == 2 and f"{unsorted}:3:" in err and "backwards" in err, err
    assert not out.exists()
    f = tmp_path / "bad.csv"
    f.write_text("symbol,timestamp,price\n" + "".join(f"A,2020-01-02T09:{m:02d}:00,{10 + m % 3}\n" for m in range(40))
                 + "A,2020-01-02T09:41:00,-1\n")
    rc, _, err = run("jumps", f, "--sample", "tick", "--window", "5", "--all", "-o", out)
    assert rc == 2 and f"{f}:42:" in err and "price must be positive and finite" in err, err
    assert not out.exists()
    with pytest.raises(raid.RaidError, match=f"{f}:42:"):
        raid.jumps(f, sample="tick")


def test_options(tmp_path):
    f = tmp_path / "p.csv"
    f.write_text("symbol,timestamp,price\nA,2020-01-02T09:00:00,10\nA,2020-01-02T09:01:00,11\n")
    out = tmp_path / "out.csv"
    for bad in ("2", "0", "-3", "abc", "3.5", "", str((1 << 40) + 1)):
        rc, _, err = run("jumps", f, "--window", bad, "-o", out)
        assert rc == 1 and "--window" in err, (bad, err)
        assert not out.exists()
    for bad in ("0", "1", "1.5", "-0.01", "nan", "abc", ""):
        rc, _, err = run("jumps", f, "--alpha", bad, "-o", out)
        assert rc == 1 and "--alpha" in err, (bad, err)
        assert not out.exists()
    rc, _, err = run("returns", f, "--window", "5")
    assert rc == 1 and "unknown option" in err
    rc, _, err = run("jumps", f, "--window", "5", "--window", "6")
    assert rc == 1
    rc, out_, err = run("jumps", f, "--sample", "tick")  # one return: nothing tested, the header only
    assert rc == 0 and out_ == b"symbol,date,timestamp,ret,statistic,sign\n"
    rc, out_, err = run("jumps", f, "--sample", "tick", "--window", "3", "--all")
    assert rc == 0 and out_ == b"symbol,date,timestamp,ret,statistic,sign,jump\n"
