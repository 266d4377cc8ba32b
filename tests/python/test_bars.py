"""raid bars (include/raid/bars.h, docs/column.md "Ticks to bars") on the bundled trades
(data/trades_xxx_2days.csv, highfrequency's sampleTData) and on two interleaved symbols with offsets:
a pandas resample of the same trades reproduces every bar (open, high, low, close, volume, trades
exactly; vwap equal to the exactly rounded sum of the exact products divided by the volume), the cpu path
and the device (PoCL) give the same bytes, and bad input gives FILE:LINE:COL with exit status 2."""
import io
import os
import subprocess
from fractions import Fraction

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
    assert rc == 1 and "bad or missing --interval 7x" in err
    rc, _, err = run(cli, p, "--interval", "1min", "--tz", "Mars/Olympus")
    assert rc == 1 and "unknown time zone" in err


def test_breakit_regressions(cli, data_dir, tmp_path):
    """The fifth session's break-it round: timestamps with and without offsets mixed (the order check on
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
