"""Messages that quote the input show it through one escaping (raid_show_text, include/raid/core.h): printable
ASCII as it is, a backslash doubled, every other byte as \\xHH, at most 80 bytes then the length. A field
holding ESC [ 2 J (which clears a terminal), a CR (which returns the cursor over the message), a line break,
DEL, bytes that are not UTF-8 or a field of 10,000 bytes reach neither the CLI's standard error nor a Python
exception as they are."""
import os
import subprocess

import numpy as np
import pandas as pd
import pytest

import raid

ESC = b"\x1b[2J\x1b[H"
NASTY = [(ESC + b"1", "\\x1B[2J\\x1B[H1"), (b"\"1\r2\"", "1\\x0D2"), (b"\"1\n2\"", "1\\x0A2"),
         (b"1\x7f", "1\\x7F"), (b"1\xff\xfe", "1\\xFF\\xFE"), (b"\xc3\xa9", "\\xC3\\xA9"), (b"C:\\x41", "C:\\\\x41")]


@pytest.fixture
def cli():
    return os.environ.get("RAID_CLI", "raid")


def run(cli, *args):
    r = subprocess.run([cli, *map(str, args)], capture_output=True)
    return r.returncode, r.stderr


def clean(b):
    """Standard error holds printable ASCII and line breaks only (one line per message)."""
    bad = [c for c in b if not (0x20 <= c < 0x7F or c == 0x0A)]
    assert not bad, b
    return b.decode("ascii")


@pytest.mark.parametrize("field,shown", NASTY)
def test_value_fields(cli, tmp_path, field, shown):
    """A bad value field of raid sort, quantile, groupby and realized (exit 2): the field escaped."""
    p = tmp_path / "v.csv"
    p.write_bytes(b"k,x\n1,1\n2," + field + b"\n")
    for cmd in (["sort", p, "--by", "x"], ["quantile", p, "--col", "x", "--q", "0.5"],
                ["groupby", p, "--by", "k", "--agg", "sum:x"], ["groupby", p, "--by", "x", "--agg", "count"]):
        rc, err = run(cli, *cmd)
        assert rc == 2 and f"v.csv:3:2: cannot parse " in clean(err) and f" '{shown}'" in clean(err), (cmd, err)
    q = tmp_path / "p.csv"
    q.write_bytes(b"timestamp,price\n2020-01-02T10:00:00,1\n2020-01-02T10:01:00," + field + b"\n")
    rc, err = run(cli, "realized", q)
    assert rc == 2 and f"p.csv:3:2: cannot parse price '{shown}'" in clean(err)


def test_symbols_and_dates(cli, tmp_path):
    """Valid UTF-8 holding an ESC sequence (a symbol, a date field) is escaped where a message names it."""
    sym = b"A" + ESC
    shown = "A\\x1B[2J\\x1B[H"
    p = tmp_path / "t.csv"
    p.write_bytes(b"symbol,timestamp,price\n" + sym + b",2020-01-02T10:00:00,1\n" + sym + b",2020-01-02T09:00:00,1\n")
    rc, err = run(cli, "realized", p)
    assert rc == 2 and f"time goes backwards for symbol '{shown}'" in clean(err)
    rc, err = run(cli, "bars", p, "--interval", "1h")
    assert rc == 2 and f"previous trade of symbol '{shown}'" in clean(err)
    h = tmp_path / "h.csv"
    h.write_bytes(b"date,rv\n2020-01-02,1\n2020-01" + ESC + b",1\n")
    rc, err = run(cli, "har", h)
    assert rc == 2 and "h.csv:3:1: date '2020-01\\x1B[2J\\x1B[H'" in clean(err)
    m = tmp_path / "m.csv"
    m.write_bytes(b"symbol,date,close\n" + sym + b",d1,1\nB,d1,1\n" + sym + b",d2,1\n")
    rc, err = run(cli, "ma", m, "--stat", "mean", "--window", "1")
    assert rc == 2 and f"symbol '{shown}' again, after other symbols" in clean(err)


def test_long_field(cli, tmp_path):
    """A field of 10,000 bytes: its first 80 bytes and its length."""
    p = tmp_path / "long.csv"
    p.write_bytes(b"k,x\n1," + b"\x1b" * 10000 + b"\n")
    rc, err = run(cli, "sort", p, "--by", "x")
    text = clean(err)
    assert rc == 2 and "cannot parse value '" + "\\x1B" * 80 + "... (10000 bytes)'" in text
    assert len(text) < 600


def test_options(cli, tmp_path):
    """Options quoted back: a bad --tz, --sample, an aggregation list, a device, an unknown option."""
    p = tmp_path / "t.csv"
    p.write_text("timestamp,price\n2020-01-02T10:00:00,1\n")
    for args, shown in [(["realized", p, "--tz", "X\x1b[2J"], "unknown time zone 'X\\x1B[2J'"),
                        (["realized", p, "--sample", "5\rmin"], "bad --sample '5\\x0Dmin'"),
                        (["groupby", p, "--by", "price", "--agg", "med\x1bian:price"], "bad aggregation 'med\\x1Bian:price'"),
                        (["sort", p, "--by", "price", "--device", "gpu\x07"], "unknown device 'gpu\\x07'"),
                        (["sort", p, "--by", "price", "--by", "x\x1b"], "given twice ('price', then 'x\\x1B')"),
                        (["sort", p, "--b\x1b[0m"], "\\x1B[0m")]:
        r = subprocess.run([cli, *map(str, args)], capture_output=True)
        assert r.returncode in (1, 2) and shown in clean(r.stderr), (args, r.stderr)
    r = subprocess.run([cli, "no\x1bcommand"], capture_output=True)
    assert r.returncode == 1 and "unknown command 'no\\x1Bcommand'" in clean(r.stderr)


def test_python_exceptions():
    """The library's messages reach Python escaped; the package's own messages escape as the library does."""
    df = pd.DataFrame({"symbol": ["A\x1b[2J", "A\x1b[2J"], "timestamp": pd.to_datetime(["2024-01-02T10:00", "2024-01-02T09:59"]),
                       "price": [10.0, 10.0]})
    with pytest.raises(raid.RaidError) as e:
        raid.bars(df, "1min")
    assert "symbol 'A\\x1B[2J'" in str(e.value) and "\x1b" not in str(e.value)
    with pytest.raises(raid.RaidError) as e:
        raid.realized_from_prices(df)
    assert "'A\\x1B[2J'" in str(e.value) and "\x1b" not in str(e.value)
    with pytest.raises(raid.RaidError) as e:
        raid.realized_from_prices(df.iloc[:1], sample="5\x1bmin")
    assert "'5\\x1Bmin'" in str(e.value) and "\x1b" not in str(e.value)
    with pytest.raises(KeyError) as e:
        raid.realized_from_prices(df, price_col="p\x1b")
    assert "'p\\x1B'" in e.value.args[0] and "\x1b" not in e.value.args[0]
    with pytest.raises(TypeError) as e:
        raid.simulate(**{"x\x1b": 1})
    assert "'x\\x1B'" in str(e.value) and "\x1b" not in str(e.value)


def test_notices_summary(cli, tmp_path):
    """The CLI's summary of per-series notices names its first series as the messages do (escaped)."""
    p = tmp_path / "g.csv"
    p.write_bytes(b"symbol,date,ret\n" + b"".join(b"S%d\x1b[2J,2020-01-0%d,0.01\n" % (i, d) for i in range(6)
                                                 for d in (1, 2, 3)))
    rc, err = run(cli, "garch", p)
    text = clean(err)
    assert "6 of 6 series: too short" in text and "(first: S0\\x1B[2J, S1\\x1B[2J, S2\\x1B[2J" in text, text
