"""raid bars (include/raid/bars.h, docs/column.md "Ticks to bars") on the bundled trades
(data/trades_xxx_2days.csv, highfrequency's sampleTData) and on two interleaved symbols with offsets:
a pandas resample of the same trades reproduces every bar (open, high, low, close, volume, trades
exactly; vwap equal to the exactly rounded sum of the exact products divided by the volume), the cpu path
and the device (PoCL) give the same bytes, and bad input gives FILE:LINE:COL with exit status 2."""
import io
import math
import os
import subprocess
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

import raid

EXACT = {"float_precision": "round_trip"} if int(pd.__version__.split(".")[0]) < 3 else {}


@pytest.fixture
def cli():
    return os.environ.get("RAID_CLI", "raid")


def run(cli, *args):
    r = subprocess.run([cli, "bars", *map(str, args)], capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr


def pandas_bars(df, interval):
    """The bars by a pandas resample (default origin: intervals from the epoch, left-closed)."""
    df = df.copy()
    df["pv"] = [Fraction(p) * Fraction(s) for p, s in zip(df["price"], df["size"])]
    rows = []
    for sym, g in df.groupby("symbol", sort=False):
        r = g.set_index("timestamp").resample(interval)
        o = pd.DataFrame({"open": r["price"].first(), "high": r["price"].max(), "low": r["price"].min(),
                          "close": r["price"].last(), "volume": r["size"].sum(), "trades": r["price"].count()})
        pv = g.set_index("timestamp")["pv"].resample(interval).apply(lambda x: sum(x, Fraction(0)))
        o["vwap"] = [float(v) / vol if vol > 0 else float("nan") for v, vol in zip(pv, o["volume"])]
        o = o[o["trades"] > 0].reset_index()
        o.insert(0, "symbol", sym)
        rows.append(o)
    return pd.concat(rows, ignore_index=True)


@pytest.mark.parametrize("interval,rule", [("1min", "1min"), ("5min", "5min"), ("1h", "1h"), ("1d", "1D")])
def test_bundled_trades(cli, data_dir, interval, rule):
    path = data_dir / "trades_xxx_2days.csv"
    outs = []
    for dev in ("cpu", "opencl") if len(raid.devices()) else ("cpu",):
        rc, out, err = run(cli, path, "--interval", interval, "--device", dev)
        assert rc == 0, err
        outs.append(out)
    assert all(o == outs[0] for o in outs)
    got = pd.read_csv(io.StringIO(outs[0]), **EXACT)
    df = pd.read_csv(path, parse_dates=["timestamp"], **EXACT)
    want = pandas_bars(df, rule)
    assert len(got) == len(want)
    assert got["start"].tolist() == [t.strftime("%Y-%m-%dT%H:%M:%S") for t in want["timestamp"]]
    for c in ("open", "high", "low", "close", "volume", "trades"):
        assert got[c].tolist() == want[c].tolist(), c
    assert got["vwap"].tolist() == want["vwap"].tolist()


def test_symbols_offsets_and_errors(cli, tmp_path):
    p = tmp_path / "t.csv"
    p.write_text("symbol,timestamp,price,size\n"
                 "A,2024-03-08T15:59:59-05:00,10,1\n"
                 "B,2024-03-08T21:00:00Z,20,2\n"
                 "A,2024-03-08T21:00:30Z,11,3\n"
                 "B,2024-03-08T16:00:01-05:00,21,0\n")
    rc, out, err = run(cli, p, "--interval", "1h", "--tz", "America/New_York")
    assert rc == 0, err
    assert out == ("symbol,start,open,high,low,close,volume,vwap,trades\n"
                   "A,2024-03-08T15:00:00,10,10,10,10,1,10,1\n"
                   "A,2024-03-08T16:00:00,11,11,11,11,3,11,1\n"
                   "B,2024-03-08T16:00:00,20,21,20,21,2,20,2\n")
    p.write_text("symbol,timestamp,price,size\nA,2024-01-02T10:00:00,10,1\nA,2024-01-02T09:59:00,10,1\n")
    rc, out, err = run(cli, p, "--interval", "1min")
    assert rc == 2 and ":3:2: timestamp earlier than the previous trade of symbol 'A'" in err and out == ""
    p.write_text("symbol,timestamp,price,size\nA,2024-01-02T10:00:00,-1,1\n")
    rc, _, err = run(cli, p, "--interval", "1min")
    assert rc == 2 and ":2:3: price -1" in err
    p.write_text("symbol,timestamp,px\nA,2024-01-02T10:00:00,1\n")
    rc, _, err = run(cli, p, "--interval", "1min")
    assert rc == 2 and "missing column 'price'" in err
    rc, _, err = run(cli, p, "--interval", "7x")
    assert rc == 1 and err == ("raid bars: --interval: bad interval '7x' (expected Nms, Ns, Nmin, Nh or Nd, N a "
                               "positive integer, at most 3650 days)\n")
    rc, _, err = run(cli, p)
    assert rc == 1 and err == "raid bars: missing --interval (see raid help bars)\n"
    rc, _, err = run(cli, p, "--interval", "1min", "--tz", "Mars/Olympus")
    assert rc == 1 and "unknown time zone" in err


def test_breakit_regressions(cli, data_dir, tmp_path):
    """Timestamps with and without offsets mixed (the order check on
    instants), 1ms bars of 2018 data, starts before year 1 refused."""
    p = tmp_path / "m.csv"
    p.write_text("symbol,timestamp,price,size\nA,2024-01-02T10:00:00-05:00,10,1\nA,2024-01-02T10:30:00,11,1\n")
    rc, out, err = run(cli, p, "--interval", "1h", "--tz", "America/New_York")
    assert rc == 0 and out.endswith("A,2024-01-02T10:00:00,10,11,10,11,2,10.5,2\n"), err
    p.write_text("symbol,timestamp,price,size\nA,2024-01-02T10:30:00,11,1\nA,2024-01-02T10:00:00-05:00,10,1\n")
    rc, _, err = run(cli, p, "--interval", "1h", "--tz", "America/New_York")
    assert rc == 2 and ":3:2: timestamp earlier" in err
    rc, out, err = run(cli, data_dir / "trades_xxx_2days.csv", "--interval", "1ms")
    assert rc == 0 and out.splitlines()[1].startswith("XXX,2018-01-02T09:30:00.125000,158.5,"), err
    p.write_text("symbol,timestamp,price\nA,0001-01-01T00:00:00,1\n")
    rc, out, err = run(cli, p, "--interval", "3650d")
    assert rc == 2 and "before year 1" in err and out == ""


# ---- raid.bars (the library's array entry, raid_bars_compute) and --session ----

def cli_frame(out):
    got = pd.read_csv(io.StringIO(out), **EXACT)
    got["start"] = pd.to_datetime(got["start"]).astype("datetime64[us]")
    got["symbol"] = got["symbol"].astype(str)
    for c in ("open", "high", "low", "close", "volume", "vwap"):
        got[c] = got[c].astype("float64")
    return got


def assert_same_bars(got, want):
    """Two bar frames equal bit for bit (NaN vwap equal)."""
    assert list(got.columns) == ["symbol", "start", "open", "high", "low", "close", "volume", "vwap", "trades"]
    assert len(got) == len(want)
    assert got["symbol"].tolist() == want["symbol"].tolist()
    assert got["start"].tolist() == want["start"].tolist()
    for c in ("open", "high", "low", "close", "volume", "vwap"):
        assert got[c].to_numpy().view("u8").tolist() == want[c].to_numpy().view("u8").tolist(), c
    assert got["trades"].tolist() == want["trades"].tolist()


def test_python_bars_bundled(cli, data_dir):
    path = data_dir / "trades_xxx_2days.csv"
    df = pd.read_csv(path, parse_dates=["timestamp"], **EXACT)
    for interval, rule in (("1min", "1min"), ("5min", "5min"), ("1h", "1h"), ("1d", "1D")):
        rc, out, err = run(cli, path, "--interval", interval)
        assert rc == 0, err
        want = cli_frame(out)
        for dev in ("cpu", "opencl") if len(raid.devices()) else ("cpu",):
            got = raid.bars(df, interval=interval, device=dev)
            assert got["start"].dtype == "datetime64[us]" and got["trades"].dtype == "int64"
            assert_same_bars(got, want)
        pb = pandas_bars(df, rule)
        assert got["start"].tolist() == pb["timestamp"].tolist()
        for c in ("open", "high", "low", "close", "volume", "trades", "vwap"):
            assert got[c].tolist() == pb[c].tolist(), c
    # no size column: one per trade; no symbol column: one symbol ""
    got = raid.bars(df.drop(columns=["symbol", "size"]), "1h")
    assert got["symbol"].unique().tolist() == [""] and (got["volume"] == got["trades"]).all()


def test_python_bars_zones_and_errors(cli, tmp_path):
    p = tmp_path / "t.csv"
    text = ("symbol,timestamp,price,size\n"
            "A,2024-03-08T15:59:59-05:00,10,1\n"
            "B,2024-03-08T21:00:00Z,20,2\n"
            "A,2024-03-08T21:00:30Z,11,3\n"
            "B,2024-03-08T16:00:01-05:00,21,0\n")
    p.write_text(text)
    rc, out, err = run(cli, p, "--interval", "1h", "--tz", "America/New_York")
    assert rc == 0, err
    df = pd.read_csv(p)
    df["timestamp"] = pd.to_datetime(df["timestamp"], utc=True)  # instants: converted to tz
    got = raid.bars(df, "1h", tz="America/New_York")
    assert_same_bars(got, cli_frame(out))
    assert got["vwap"].isna().tolist() == [False, False, False]
    naive = pd.DataFrame({"symbol": ["A", "A"], "timestamp": pd.to_datetime(["2024-01-02T10:00", "2024-01-02T09:59"]),
                          "price": [10.0, 10.0]})
    with pytest.raises(raid.RaidError, match=r"row 1: timestamp earlier than the previous trade of symbol 'A'"):
        raid.bars(naive, "1min")
    naive["timestamp"] = naive["timestamp"].sort_values().to_numpy()
    naive.loc[1, "price"] = -1.0
    with pytest.raises(raid.RaidError, match=r"row 1: price -1"):
        raid.bars(naive, "1min")
    with pytest.raises(raid.RaidError, match="bad interval '7x'"):
        raid.bars(naive, "7x")
    with pytest.raises(raid.RaidError, match="bad session '25:00-26:00'"):
        raid.bars(naive, "1min", session="25:00-26:00")
    with pytest.raises(ValueError, match="must be datetime64"):
        raid.bars(naive.assign(timestamp="2024-01-02"), "1min")


def pandas_session(df, start, end, rule):
    """pandas' between_time (both ends inclusive) and resample; a window across midnight puts its evening
    trades on the next trading date (shifted by a day) for day bars."""
    s = df.set_index("timestamp").between_time(start, end).reset_index()
    if start > end and rule.endswith("D"):
        t = s["timestamp"]  # the trading date's midnight: in time order still, so resample keeps the row order
        s["timestamp"] = t.dt.normalize() + pd.to_timedelta((t.dt.time >= pd.Timestamp(start).time()).astype(int),
                                                            unit="D")
    return pandas_bars(s, rule)


@pytest.mark.parametrize("window,interval,rule", [("10:00-15:00", "1h", "1h"), ("09:30-09:45", "1min", "1min"),
                                                  ("11:30-14:00", "1d", "1D"), ("00:00-24:00", "5min", "5min")])
def test_session_bundled(cli, data_dir, window, interval, rule):
    path = data_dir / "trades_xxx_2days.csv"
    df = pd.read_csv(path, parse_dates=["timestamp"], **EXACT)
    outs = []
    for dev in ("cpu", "opencl") if len(raid.devices()) else ("cpu",):
        rc, out, err = run(cli, path, "--interval", interval, "--session", window, "--device", dev)
        assert rc == 0, err
        outs.append(out)
    assert all(o == outs[0] for o in outs)
    got = cli_frame(outs[0])
    assert_same_bars(raid.bars(df, interval, session=window), got)
    start, end = window.split("-")
    want = pandas_session(df, start, end if end != "24:00" else "23:59:59.999999", rule)
    assert got["start"].tolist() == want["timestamp"].tolist()
    for c in ("open", "high", "low", "close", "volume", "trades", "vwap"):
        assert got[c].tolist() == want[c].tolist(), c


def test_session_edges_and_midnight(cli, tmp_path):
    p = tmp_path / "s.csv"
    rows = ["2024-01-02T09:29:59.999999", "2024-01-02T09:30:00", "2024-01-02T12:00:00", "2024-01-02T16:00:00",
            "2024-01-02T16:00:00.000001", "2024-01-02T16:30:00", "2024-01-02T17:00:00", "2024-01-02T23:59:59",
            "2024-01-03T00:00:00", "2024-01-03T15:59:59", "2024-01-03T16:00:00", "2024-01-03T16:00:01",
            "2024-01-03T17:00:00.5"]
    p.write_text("symbol,timestamp,price,size\n" + "".join(f"S,{t},{10 + i},{i + 1}\n" for i, t in enumerate(rows)))
    df = pd.read_csv(p, **EXACT)
    df["timestamp"] = pd.to_datetime(df["timestamp"], format="ISO8601")
    for window, interval, rule in (("09:30-16:00", "1h", "1h"), ("09:30-16:00", "1d", "1D"),
                                   ("17:00-16:00", "1h", "1h"), ("17:00-16:00", "1d", "1D"),
                                   ("17:00-16:00", "2d", "2D"), ("16:00-16:00", "1min", "1min")):
        rc, out, err = run(cli, p, "--interval", interval, "--session", window)
        assert rc == 0, err
        got = cli_frame(out)
        assert_same_bars(raid.bars(df, interval, session=window), got)
        start, end = window.split("-")
        want = pandas_session(df, start, end, rule)
        assert got["start"].tolist() == want["timestamp"].tolist(), (window, interval)
        for c in ("open", "close", "volume", "trades"):
            assert got[c].tolist() == want[c].tolist(), (window, interval, c)
    # 09:30-16:00 keeps 09:30:00 and 16:00:00, not 09:29:59.999999 nor 16:00:00.000001
    rc, out, _ = run(cli, p, "--interval", "1d", "--session", "09:30-16:00")
    assert out.splitlines()[1].endswith(",3") and out.splitlines()[2].endswith(",2")
    # a window across midnight: Jan 2 17:00 to Jan 3 16:00 is Jan 3's trading date
    rc, out, _ = run(cli, p, "--interval", "1d", "--session", "17:00-16:00")
    assert [line.split(",")[1] for line in out.splitlines()[1:]] == ["2024-01-02T00:00:00", "2024-01-03T00:00:00",
                                                                   "2024-01-04T00:00:00"]
    for bad in ("09:30-24:01", "24:00-24:00", "24:00-01:00", "09:30", "09:60-10:00"):
        rc, out, err = run(cli, p, "--interval", "1h", "--session", bad)
        assert rc == 1 and err.startswith(f"raid bars: --session: bad session '{bad}' (") and out == "", bad
    # rows outside the window are still checked
    p.write_text("timestamp,price\n2024-01-02T08:00:00,-1\n2024-01-02T10:00:00,1\n")
    rc, _, err = run(cli, p, "--interval", "1h", "--session", "09:30-16:00")
    assert rc == 2 and ":2:2: price -1" in err


def test_interval_any_unit_to_3650_days(cli, tmp_path):
    """Every unit takes any N up to 3650 days: 25h, 48h, 1500min, 90000s are bars as 2d is (they were refused
    by the one-day cap of the sampling grid); past the limit, or a bad form, one message listing every form."""
    p = tmp_path / "t.csv"
    p.write_text("timestamp,price,size\n2024-01-01T00:00:00,10,1\n2024-01-01T23:00:00,11,2\n2024-01-02T00:59:59,12,1\n"
                 "2024-01-02T01:00:00,13,1\n2024-01-03T12:00:00,14,1\n")
    df = pd.read_csv(p, parse_dates=["timestamp"])
    same = {"25h": "90000s", "1500min": "90000s", "48h": "2d", "2880min": "2d", "24h": "1d", "1440min": "1d",
            "87600h": "3650d", "90000000ms": "90000s"}
    for iv, twin in same.items():
        rc, out, err = run(cli, p, "--interval", iv)
        rc2, out2, _ = run(cli, p, "--interval", twin)
        assert rc == 0 and rc2 == 0 and out == out2, (iv, err)
        pd.testing.assert_frame_equal(raid.bars(df, iv, device="cpu"), raid.bars(df, twin, device="cpu"))
    # 25h bars counted from 1970-01-01: 2024-01-01T00:00 (473352 h) lies in the bar from 473350 h
    got = raid.bars(df, "25h", device="cpu")
    h = df["timestamp"].to_numpy().astype("datetime64[h]").astype(np.int64)
    assert h[0] == 473352 and got["start"].astype(str).tolist() == ["2023-12-31 22:00:00", "2024-01-01 23:00:00",
                                                                     "2024-01-03 00:00:00"]
    assert got["start"].to_numpy().astype("datetime64[h]").astype(np.int64).tolist() == sorted(set(h // 25 * 25))
    assert got["trades"].tolist() == [1, 3, 1]
    forms = "(expected Nms, Ns, Nmin, Nh or Nd, N a positive integer, at most 3650 days)"
    for bad in ("3651d", "87601h", "5256001min", "315360001s", "0h", "1.5h", "5m", "h"):
        rc, out, err = run(cli, p, "--interval", bad)
        assert rc == 1 and out == "" and err == f"raid bars: --interval: bad interval '{bad}' {forms}\n", bad
        with pytest.raises(raid.RaidError) as e:
            raid.bars(df, bad)
        assert e.value.message == f"bad interval '{bad}' {forms}"
    h = subprocess.run([cli, "help", "bars"], capture_output=True, text=True).stdout
    assert "--interval Nms|Ns|Nmin|Nh|Nd" in h and "Nms, Ns, Nmin, Nh or Nd, N a positive integer,\n" in h
    assert "at most 3650 days" in h


def scaled_ratio(num, den):
    """num / den (positive Fractions) as the bars compute it: each rounded to 53 bits with no exponent range,
    the two significands divided in float64, the quotient scaled back."""
    def split(f):
        k = f.numerator.bit_length() - f.denominator.bit_length()
        while f / Fraction(2) ** k >= 1:
            k += 1
        while f / Fraction(2) ** k < Fraction(1, 2):
            k -= 1
        return float(f / Fraction(2) ** k), k  # in [0.5, 1]: a normal double, rounded once
    (f1, e1), (f2, e2) = split(num), split(den)
    return math.ldexp(f1 / f2, e1 - e2)


def test_vwap_of_sums_beyond_float64(cli, tmp_path):
    """The vwap is the exact sum of the products over the exact volume also where either sum is beyond the
    largest double (its rounded sum is inf): both sums are rounded to 53 bits with no exponent range. A trade
    whose price x size is itself beyond float64 is refused (exit status 2, at its size)."""
    p = tmp_path / "big.csv"
    trades = [("A", "2020-01-02T10:00:00", 1e308, 1.0), ("A", "2020-01-02T10:00:01", 1e308, 1.0),
              ("A", "2020-01-02T10:00:02", 1.0, 1e308),  # products 3e308 in all: inf; vwap about 3
              ("B", "2020-01-02T10:00:00", 1.0, 1e308), ("B", "2020-01-02T10:00:01", 1.5, 1e308),  # volume inf
              ("C", "2020-01-02T10:00:00", 1.7e308, 0.75), ("C", "2020-01-02T10:00:01", 1.7e308, 0.75)]
    p.write_text("symbol,timestamp,price,size\n" + "".join(f"{s},{t},{pr!r},{sz!r}\n" for s, t, pr, sz in trades))
    outs = []
    for dev in ("cpu", "opencl") if len(raid.devices()) else ("cpu",):
        rc, out, err = run(cli, p, "--interval", "1d", "--device", dev)
        assert rc == 0, err
        outs.append(out)
    assert all(o == outs[0] for o in outs)
    got = cli_frame(outs[0])
    for sym, row in zip(got["symbol"], got.itertuples()):
        ts = [t for t in trades if t[0] == sym]
        num = sum((Fraction(pr) * Fraction(sz) for _, _, pr, sz in ts), Fraction(0))
        den = sum((Fraction(sz) for _, _, _, sz in ts), Fraction(0))
        assert math.isfinite(row.vwap) and row.vwap == scaled_ratio(num, den), (sym, row.vwap)
        assert abs(Fraction(row.vwap) / (num / den) - 1) < Fraction(1, 2**51)
    assert got["vwap"].tolist()[:2] == [3.0, 1.25]
    assert got["volume"].tolist()[1] == math.inf
    df = pd.DataFrame(trades, columns=["symbol", "timestamp", "price", "size"])
    df["timestamp"] = pd.to_datetime(df["timestamp"])
    for dev in ("cpu", "opencl") if len(raid.devices()) else ("cpu",):
        assert_same_bars(raid.bars(df, "1d", device=dev), got)
    p.write_text("timestamp,price,size\n2020-01-02T10:00:00,2,1e308\n")
    rc, out, err = run(cli, p, "--interval", "1d")
    assert rc == 2 and ":2:3: size 1e+308: price x size (price 2) is beyond float64's range" in err, err
