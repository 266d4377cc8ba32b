"""raid returns (include/raid/returns.h, docs/f64.md "Log returns"): the tick returns of the bundled trades
against an independent computation (the formula's quotient in Python floats, log1p and log correctly
rounded by MPFR: the same bits; numpy's log of the price ratio within its own error), the sampled returns
against raid realized's segments (n and rv), the device's output byte for byte against the cpu's (PoCL), and
bad input refused with FILE:LINE:COL, exit 2 and no output file. Also how many returns of the bundled data
change their last bit against glibc's log1p and log (the formula before the correctly rounded functions):
printed, and written in docs/f64.md."""
import math
import os
import subprocess

import gmpy2
import numpy as np
import pandas as pd
import pytest

import raid
from mpfr_oracle import bits_of, correctly_rounded, from_bits

DEVICES = ("cpu", "opencl:0.0") if len(raid.devices()) else ("cpu",)
EXACT = {"float_precision": "round_trip"} if int(pd.__version__.split(".")[0]) < 3 else {}


def run(cmd, *args):
    r = subprocess.run([os.environ.get("RAID_CLI", "raid"), cmd, *map(str, args)], capture_output=True)
    return r.returncode, r.stdout, r.stderr.decode()


def returns_csv(path, *opts, device=None):
    rc, out, err = run("returns", path, *opts, *(["--device", device] if device else []))
    assert rc == 0, err
    return out


def formula(prev, p):
    """The documented formula, independently: q in Python floats (IEEE binary64, as C), log1p and log
    correctly rounded (MPFR)."""
    q = (p - prev) / prev
    if math.isfinite(q) and -0.5 <= q <= 1:
        return from_bits(correctly_rounded(gmpy2.log1p, q))
    return from_bits(correctly_rounded(gmpy2.log, p)) - from_bits(correctly_rounded(gmpy2.log, prev))


def glibc(prev, p):
    """The formula with glibc's log1p and log (Python's math module calls them): the returns before."""
    q = (p - prev) / prev
    if math.isfinite(q) and -0.5 <= q <= 1:
        return math.log1p(q)
    return math.log(p) - math.log(prev)


def read(out):
    import io
    return pd.read_csv(io.BytesIO(out), dtype={"symbol": str}, keep_default_na=False, **EXACT)


def test_tick_returns_of_trades(data_dir):
    path = data_dir / "trades_xxx_2days.csv"
    got = read(returns_csv(path, "--sample", "tick"))
    df = pd.read_csv(path, **EXACT)
    df["date"] = df["timestamp"].str[:10]
    want_ret, want_time, want_date, ratio = [], [], [], []
    for (_, date), g in df.groupby(["symbol", "date"], sort=False):
        p = g["price"].to_numpy()
        want_ret += [formula(a, b) for a, b in zip(p[:-1], p[1:])]
        want_time += list(g["timestamp"].iloc[1:])
        want_date += [date] * (len(p) - 1)
        ratio.append(np.log(p[1:] / p[:-1]))
    assert len(got) == len(want_ret) == len(df) - 2
    assert [bits_of(x) for x in got["ret"]] == [bits_of(x) for x in want_ret]
    # numpy's log of the rounded ratio: an absolute error of about 2^-53 (the ratio's rounding)
    assert np.max(np.abs(got["ret"].to_numpy() - np.concatenate(ratio))) <= 2.0 ** -52
    iso = {"format": "ISO8601"}
    assert list(pd.to_datetime(got["timestamp"], **iso)) == list(pd.to_datetime(pd.Series(want_time), **iso))
    assert list(got["date"]) == want_date


@pytest.mark.parametrize("name,opts", [("trades_xxx_2days.csv", ["--sample", "tick"]),
                                       ("onemin_stock_market.csv", ["--sample", "5min", "--session", "09:30-16:00"]),
                                       ("usdchf_30min.csv", ["--sample", "30min"])])
def test_same_segments_as_realized(data_dir, name, opts):
    """n and rv of every (symbol, date) from the rows of raid returns: raid realized's segments."""
    got = read(returns_csv(data_dir / name, *opts))
    rc, out, err = run("realized", data_dir / name, "--device", "cpu", *opts)
    assert rc == 0, err
    rv = read(out)
    g = got.groupby(["symbol", "date"], sort=False)["ret"]
    n = g.size()
    assert list(n.index) == list(zip(rv["symbol"], rv["date"]))
    assert list(n) == list(rv["n"])
    assert np.allclose(g.apply(lambda r: math.fsum(r * r)).to_numpy(), rv["rv"].to_numpy(), rtol=1e-14, atol=0)


@pytest.mark.parametrize("name,opts", [("trades_xxx_2days.csv", ["--sample", "tick"]),
                                       ("trades_xxx_2days.csv", ["--sample", "1s", "--tz", "America/New_York"]),
                                       ("onemin_stock_market.csv", ["--sample", "5min", "--session", "09:30-16:00"]),
                                       ("usdchf_30min.csv", ["--sample", "30min", "--session", "17:00-16:00"])])
def test_device_same_bytes(data_dir, name, opts):
    if len(DEVICES) < 2:
        pytest.skip("no OpenCL device")
    outs = [returns_csv(data_dir / name, *opts, device=d) for d in (None, *DEVICES)]
    assert len(outs[0]) > 100
    assert all(o == outs[0] for o in outs)


def test_bad_input(tmp_path):
    unsorted = tmp_path / "unsorted.csv"
    unsorted.write_text("symbol,timestamp,price\nA,2020-01-02T10:00:00,10\nA,2020-01-02T09:00:00,11\n")
    out = tmp_path / "out.csv"
    rc, _, err = run("returns", unsorted, "--sample", "tick", "-o", out)
    assert rc == 2 and f"{unsorted}:3:" in err and "backwards" in err, err
    assert not out.exists()
    for bad in ("0", "-1.5", "1e-400"):  # the last underflows to 0
        f = tmp_path / "bad.csv"
        f.write_text(f"symbol,timestamp,price\nA,2020-01-02T09:00:00,10\nA,2020-01-02T09:01:00,{bad}\n")
        for dev in DEVICES:
            rc, _, err = run("returns", f, "--sample", "tick", "--device", dev, "-o", out)
            assert rc == 2 and f"{f}:3:" in err and "price must be positive and finite" in err, err
            assert not out.exists()
    rc, _, err = run("returns", unsorted, "--sample", "7parsecs")
    assert rc == 1 and "bad --sample" in err


def ulp(x):
    return math.ulp(x)


def test_last_bits_against_glibc(data_dir):
    """How many tick returns of the bundled prices differ from glibc's log1p and log: the figures of
    docs/f64.md "Log returns". In the log1p branch at most an ulp of the return (glibc's log1p is within an
    ulp); in the other, within an ulp of each logarithm."""
    total = changed = 0
    for name in ("trades_xxx_2days.csv", "onemin_stock_market.csv", "usdchf_30min.csv"):
        df = pd.read_csv(data_dir / name, **EXACT)
        df["date"] = df["timestamp"].str[:10]
        pairs = [(a, b) for _, g in df.groupby(["symbol", "date"], sort=False)
                 for a, b in zip(g["price"].to_numpy()[:-1], g["price"].to_numpy()[1:])]
        new = read(returns_csv(data_dir / name, "--sample", "tick"))["ret"].to_list()
        assert len(pairs) == len(new)
        diff = 0
        for (a, b), r in zip(pairs, new):
            old = glibc(a, b)
            q = (b - a) / a
            tol = ulp(old) if math.isfinite(q) and -0.5 <= q <= 1 else ulp(math.log(a)) + ulp(math.log(b))
            assert abs(r - old) <= tol, (a, b, r, old)
            diff += bits_of(r) != bits_of(old)
        print(f"{name} --sample tick: {diff} of {len(new)} returns differ from glibc's formula")
        total += len(new)
        changed += diff
    print(f"tick returns of the bundled prices: {changed} of {total} differ from glibc's formula")


@pytest.mark.parametrize("name,kw", [("trades_xxx_2days.csv", {"sample": "tick"}),
                                     ("onemin_stock_market.csv", {"sample": "5min", "session": "09:30-16:00"}),
                                     ("usdchf_30min.csv", {"sample": "30min", "tz": "Europe/Zurich"})])
def test_python_returns(data_dir, name, kw):
    """raid.returns of the file and of its DataFrame (text timestamps, and datetime64): the CLI's rows."""
    opts = [a for k, v in kw.items() for a in (f"--{k}", v)]
    cli = read(returns_csv(data_dir / name, *opts))
    cli["timestamp"] = pd.to_datetime(cli["timestamp"], format="ISO8601")
    df = pd.read_csv(data_dir / name, **EXACT)
    parsed = df.assign(timestamp=pd.to_datetime(df["timestamp"], format="ISO8601"))
    for src, dev in [(data_dir / name, None), (str(data_dir / name), DEVICES[-1]), (df, None), (parsed, DEVICES[-1])]:
        got = raid.returns(src, device=dev, **kw)
        assert list(got.columns) == ["symbol", "date", "timestamp", "ret"]
        assert list(got["symbol"]) == list(cli["symbol"]) and list(got["date"]) == list(cli["date"])
        assert (got["timestamp"].to_numpy() == cli["timestamp"].to_numpy().astype("datetime64[us]")).all()
        assert [bits_of(x) for x in got["ret"]] == [bits_of(x) for x in cli["ret"]]
    with pytest.raises(raid.RaidError, match="price must be positive"):
        raid.returns(df.assign(price=df["price"].where(df.index != 5, -1.0)), sample="tick")


def test_timestamps(tmp_path):
    """The end price's local time: the observation's (tick; across midnight the evening's calendar date
    with the next trading date), the grid point's (sampled; converted to --tz for offsets)."""
    f = tmp_path / "p.csv"
    f.write_text("symbol,timestamp,price\n"
                 "A,2020-01-02T17:30:00,100\nA,2020-01-02T23:59:59.5,101\nA,2020-01-03T00:00:01,102\n"
                 "A,2020-01-03T15:00:00,100\nB,2020-01-03T14:31:00Z,50\nB,2020-01-03T14:40:00Z,51\n"
                 "B,2020-01-03T14:44:59Z,52\n")
    got = read(returns_csv(f, "--sample", "tick", "--session", "17:00-16:00", "--tz", "America/New_York"))
    assert list(got["timestamp"]) == ["2020-01-02T23:59:59.500000", "2020-01-03T00:00:01", "2020-01-03T15:00:00",
                                      "2020-01-03T09:40:00", "2020-01-03T09:44:59"]
    assert list(got["date"]) == ["2020-01-03"] * 5
    got = read(returns_csv(f, "--sample", "5min", "--tz", "America/New_York"))
    b = got[got["symbol"] == "B"]
    assert list(b["timestamp"]) == ["2020-01-03T09:40:00"]  # grid 09:35, 09:40 inside [09:31, 09:44:59]
    assert [bits_of(x) for x in b["ret"]] == [bits_of(formula(50.0, 51.0))]


def test_empty_result_types(tmp_path):
    # a file with a header and no rows: an empty table with the columns' types of a non-empty one
    p = tmp_path / "empty.csv"
    p.write_text("symbol,timestamp,price\n")
    r = raid.returns(str(p), sample="tick")
    assert len(r) == 0 and r["symbol"].dtype == object and r["date"].dtype == object
    assert r["timestamp"].dtype == "datetime64[us]" and r["ret"].dtype == np.float64
    j = raid.jumps(str(p), sample="tick")
    assert len(j) == 0 and j["symbol"].dtype == object and j["date"].dtype == object
