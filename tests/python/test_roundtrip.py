"""Every CSV that RAID writes reads back through RAID as the same bits (docs/input.md "Round trip"), and the
generic value columns (raid sort --by, raid quantile --col, raid groupby's keys and values) read IEEE 754's
special values as numpy, pandas and polars write them.

- Writer and reader: values of every kind (signed zeros, subnormals, the largest finite, inf, -inf, nan,
  -nan, random bit patterns) go through `raid groupby` (each its own group: first, last, min, max, sum,
  mean) and come out as the same bits, written in the fewest digits (Python's repr's); that output goes
  through groupby, sort and quantile again.
- Every writer whose output is another command's input (realized -> har, bars -> ma and sweep, ma, sweep,
  quantile, groupby): each numeric column of its output, read back through `raid groupby` (its rows
  numbered), gives the bits Python reads from the same text; the natural consumer reads the whole file.
- Specials on input: sort in numpy's order, quantile as numpy's, groupby as raid.groupby on the same numbers,
  cpu and the device (PoCL) byte for byte."""
import io
import math
import os
import random
import struct
import subprocess

import numpy as np
import pandas as pd
import pytest

import raid
from raid._csv import f64_text

DBL_MAX = 1.7976931348623157e308


@pytest.fixture
def cli():
    return os.environ.get("RAID_CLI", "raid")


def run(cli, *args, ok=True):
    r = subprocess.run([cli, *map(str, args)], capture_output=True, text=True)
    if ok:
        assert r.returncode == 0, (args, r.stderr)
    return r


def devices():
    return ["cpu"] + (["opencl"] if len(raid.devices()) else [])


def bits(v):
    return struct.unpack("<Q", struct.pack("<d", v))[0]


def from_bits(b):
    return struct.unpack("<d", struct.pack("<Q", b))[0]


def text_of(v):
    """A text that numpy, pandas and RAID read as v (Python's shortest repr; '-nan' for a NaN with the sign)."""
    if math.isnan(v):
        return "-nan" if bits(v) >> 63 else "nan"
    return repr(v)


def digits(t):
    """The significant digits of a decimal text."""
    return t.lstrip("-").split("e")[0].replace(".", "").strip("0") or "0"


def parse(t):
    """The bits of a field as RAID writes it (Python's float reads 'inf', '-inf', 'nan', '-nan' and decimals)."""
    return None if t == "" else bits(float(t))


def rows_of(text):
    lines = text.rstrip("\n").split("\n")
    return lines[0].split(","), [ln.split(",") for ln in lines[1:]]


def tricky_values(seed=3, nrandom=300):
    v = [0.0, -0.0, 5e-324, -5e-324, 2.2250738585072014e-308, 2.225073858507201e-308, -2.225073858507201e-308,
         DBL_MAX, -DBL_MAX, 1.7e308, 0.1, -0.1, 1 / 3, 2 / 3, 1e16 + 2, 2.0**53 + 2, 123456789012345678.0,
         1e-5, 1e22, 1e23, 9007199254740993.0, 0.30000000000000004, 5e-310, 1.0, -1.0, 100.0,
         math.inf, -math.inf, math.nan, from_bits(0xFFF8000000000000)]
    rng = random.Random(seed)
    while len(v) < 30 + nrandom:
        x = from_bits(rng.getrandbits(64))
        if not math.isnan(x):  # payloads are not written: NaN is the quiet NaN of its sign
            v.append(x)
    return v


def write_values(path, vals):
    path.write_text("k,x\n" + "".join(f"{i},{text_of(x)}\n" for i, x in enumerate(vals)))


def test_groupby_writes_what_it_reads(cli, tmp_path):
    """Each value its own group: first and last are the value's own bits (also -0.0, -nan, subnormals), min,
    max, sum and mean the same value (NaN: the quiet NaN). The output read again gives the same text."""
    vals = tricky_values()
    src = tmp_path / "v.csv"
    write_values(src, vals)
    outs = []
    for dev in devices():
        outs.append(run(cli, "groupby", src, "--by", "k", "--agg", "first:x,last:x,min:x,max:x,sum:x,mean:x,count",
                        "--device", dev).stdout)
    assert all(o == outs[0] for o in outs)
    head, rows = rows_of(outs[0])
    assert head == ["k", "first_x", "last_x", "min_x", "max_x", "sum_x", "mean_x", "count"]
    assert len(rows) == len(vals)
    for r in rows:
        x = vals[int(r[0])]
        assert parse(r[1]) == bits(x) and parse(r[2]) == bits(x), (r, text_of(x))
        if math.isfinite(x):  # the fewest digits (Python's repr's) in %.17g's layout
            assert r[1] == f64_text(x) and len(digits(r[1])) == len(digits(repr(x))), (r[1], repr(x))
        for f in r[3:7]:
            assert parse(f) == (bits(math.nan) if math.isnan(x) else bits(x)), (r, text_of(x))
    g1 = tmp_path / "g1.csv"
    g1.write_text(outs[0])
    # the output read again: the same bits through first and last, the same text
    again = run(cli, "groupby", g1, "--by", "k", "--agg", "first:first_x,last:last_x,first:min_x").stdout
    _, rows2 = rows_of(again)
    assert [r[1:] for r in rows2] == [[r[1], r[2], r[3]] for r in rows]
    # as float64 keys: every distinct value one group (0.0 and -0.0 one, keyed 0; every NaN one, last: nan)
    keys = run(cli, "groupby", g1, "--by", "first_x", "--agg", "count").stdout
    _, krows = rows_of(keys)
    want = sorted({bits(0.0 if x == 0 else x) for x in vals if not math.isnan(x)}, key=lambda b: from_bits(b))
    assert [parse(r[0]) for r in krows] == want + [bits(math.nan)]
    # sorted by the column: numpy's stable order of the same bits (-0.0 beside 0.0 in file order, NaN last)
    out = run(cli, "sort", g1, "--by", "first_x").stdout
    _, srows = rows_of(out)
    firsts = np.array([from_bits(parse(r[1])) for r in rows])
    assert [r[0] for r in srows] == [rows[i][0] for i in np.argsort(firsts, kind="stable")]
    out = run(cli, "sort", g1, "--by", "first_x", "--desc").stdout
    order = pd.Series(firsts).sort_values(ascending=False, kind="stable").index
    assert [r[0] for r in rows_of(out)[1]] == [rows[i][0] for i in order]


def test_quantile_writes_what_it_reads(cli, tmp_path):
    """raid quantile's output read back as the same bits: the q = 0 and q = 1 quantiles of one value are the
    value (numpy's lerp a + (a - a) 0, also for subnormals and DBL_MAX; not for zeros, infinities or NaN, where
    numpy's formula gives +0.0 or NaN: compared with numpy there)."""
    vals = tricky_values(nrandom=100)
    src = tmp_path / "v.csv"
    write_values(src, vals)
    out = run(cli, "quantile", src, "--col", "x", "--by", "k", "--q", "0,1").stdout
    _, rows = rows_of(out)
    for r in rows:
        x = vals[int(r[0])]
        with np.errstate(all="ignore"):
            want = np.quantile(np.array([x]), [0.0, 1.0])
        assert [parse(f) for f in r[1:]] == [bits(float(w)) for w in want], (r, text_of(x))
    q1 = tmp_path / "q.csv"
    q1.write_text(out)
    again = run(cli, "groupby", q1, "--by", "k", "--agg", "first:q0,first:q1").stdout
    assert rows_of(again)[1] == rows


def test_specials_on_input(cli, tmp_path):
    """inf, -inf, nan in the forms numpy, pandas and polars write (and read), case-insensitively: sort in
    numpy's order (nulls last), quantile as numpy's quantile (NaN for a group holding a nan; a group of nulls
    only: empty fields), groupby as raid.groupby on the same numbers (NaN a value), cpu and device byte for
    byte; refused: words that are not IEEE's special values, a decimal beyond float64."""
    spell = ["inf", "-inf", "+inf", "Infinity", "-Infinity", "INF", "nan", "NaN", "-nan", "NAN", "+nan", "1.5",
             "-0.0", "0", "", "1e308", "1e308", "-2.5"]
    keys = [1, 1, 2, 2, 3, 3, 4, 5, 5, 6, 6, 7, 7, 7, 8, 9, 9, 10]
    p = tmp_path / "s.csv"
    p.write_text("k,x\n" + "".join(f"{k},{t}\n" for k, t in zip(keys, spell)))
    x = np.array([float(t) if t else np.nan for t in spell])
    valid = np.array([t != "" for t in spell])
    # sort: numpy's stable order of the numbers (-inf < ... < inf < NaN, -0.0 beside 0), the null last
    order = sorted(range(len(x)), key=lambda i: (not valid[i], bool(np.isnan(x[i])), 0.0 if np.isnan(x[i]) else x[i]))
    for dev in devices():
        out = run(cli, "sort", p, "--by", "x", "--device", dev).stdout
        assert out.split("\n")[1:-1] == [f"{keys[i]},{spell[i]}" for i in order]
    # quantile per key: numpy's quantile of the group's values (bits), empty fields for no value
    outs = [run(cli, "quantile", p, "--col", "x", "--by", "k", "--q", "0,0.5,1", "--device", d).stdout
            for d in devices()]
    assert all(o == outs[0] for o in outs)
    for r in rows_of(outs[0])[1]:
        sel = (np.array(keys) == int(r[0])) & valid
        if not sel.any():
            assert r[1:] == ["", "", ""]
            continue
        with np.errstate(all="ignore"):
            want = np.quantile(x[sel], [0.0, 0.5, 1.0])
        got = [from_bits(parse(f)) for f in r[1:]]
        for g, w in zip(got, want):
            assert (math.isnan(g) and math.isnan(w)) or bits(g) == bits(float(w)), (r, want)
    # groupby: the library's answer on the same numbers (NaN a value), nulls empty
    aggs = ["sum", "mean", "min", "max", "first", "last", "count"]
    for dev in devices():
        out = run(cli, "groupby", p, "--by", "k", "--agg", ",".join(f"{a}:x" for a in aggs), "--device", dev).stdout
        head, rows = rows_of(out)
        ref = raid.groupby(np.array(keys), x, aggs=aggs, valid=valid, device=dev)
        assert [int(r[0]) for r in rows] == list(ref.index)
        for r, (_, want) in zip(rows, ref.iterrows()):
            for a, f in zip(aggs, r[1:]):
                if a == "count":
                    assert int(f) == want[a]
                elif want["count"] == 0 and a != "sum":
                    assert f == "", (r, a)
                else:
                    assert parse(f) == bits(want[a]), (r, a, want[a])
    assert rows_of(out)[1][:6] + rows_of(out)[1][7:8] == [
        ["1", "nan", "nan", "-inf", "inf", "inf", "-inf", "2"], ["2", "inf", "inf", "inf", "inf", "inf", "inf", "2"],
        ["3", "nan", "nan", "-inf", "inf", "-inf", "inf", "2"], ["4", "nan", "nan", "nan", "nan", "nan", "nan", "1"],
        ["5", "nan", "nan", "nan", "nan", "nan", "-nan", "2"], ["6", "nan", "nan", "nan", "nan", "nan", "nan", "2"],
        ["8", "0", "", "", "", "", "", "0"]]
    # float keys: inf, -inf and nan are keys (every NaN one group, the last, written nan; 0 and -0.0 one)
    pk = tmp_path / "keys.csv"
    pk.write_text("k,x\n" + "".join(f"{t},{k}\n" for k, t in zip(keys, spell) if t))
    groups = {}
    for k, t in zip(keys, spell):
        if t:
            v = float(t)
            g = "nan" if math.isnan(v) else 0.0 if v == 0 else v
            groups.setdefault(g, []).append(k)
    want = sorted((g for g in groups if g != "nan")) + ["nan"]
    for dev in devices():
        out = run(cli, "groupby", pk, "--by", "k", "--agg", "count,sum:x", "--device", dev).stdout
        got = rows_of(out)[1]
        assert [r[0] for r in got][-1] == "nan" and [parse(r[0]) for r in got][:-1] == [bits(g) for g in want[:-1]]
        assert [(int(r[1]), int(r[2])) for r in got] == [(len(groups[g]), sum(groups[g])) for g in want]
    # refused: not IEEE's words, a decimal beyond float64, an empty key
    for bad, msg in [("1.#INF", "cannot parse value '1.#INF'"), ("nan(1)", "cannot parse value 'nan(1)'"),
                     ("infinit", "cannot parse value 'infinit'"), ("1e999", "value out of float64's range: '1e999'"),
                     ("NA", "cannot parse value 'NA'")]:
        q = tmp_path / "bad.csv"
        q.write_text(f"k,x\n1,1\n2,{bad}\n")
        for cmd in (["sort", q, "--by", "x"], ["quantile", q, "--col", "x", "--q", "0.5"],
                    ["groupby", q, "--by", "k", "--agg", "sum:x"]):
            r = run(cli, *cmd, ok=False)
            assert r.returncode == 2 and f"bad.csv:3:2: {msg}" in r.stderr, (cmd, r.stderr)
    r = run(cli, "groupby", p, "--by", "x", "--agg", "count", ok=False)
    assert r.returncode == 2 and "s.csv:16:2: cannot parse key ''" in r.stderr
    # prices keep the decimal grammar
    q = tmp_path / "prices.csv"
    q.write_text("timestamp,price\n2020-01-02T10:00:00,1\n2020-01-02T10:01:00,inf\n")
    r = run(cli, "realized", q, ok=False)
    assert r.returncode == 2 and "prices.csv:3:2: cannot parse price 'inf'" in r.stderr


def test_pandas_reads_and_writes(cli, tmp_path):
    """pandas' to_csv of inf, -inf (and NaN as an empty field: a null) is read by RAID; RAID's output is read
    by pandas as the same numbers (nan and -nan as NaN, inf as inf, empty fields as NaN)."""
    df = pd.DataFrame({"k": [1, 1, 2, 3, 3], "x": [np.inf, 1.0, -np.inf, np.nan, 2.0]})
    p = tmp_path / "pd.csv"
    df.to_csv(p, index=False)
    out = run(cli, "groupby", p, "--by", "k", "--agg", "sum:x,max:x,count:x").stdout
    assert out == "k,sum_x,max_x,count_x\n1,inf,inf,2\n2,-inf,-inf,1\n3,2,2,1\n"
    back = pd.read_csv(io.StringIO(run(cli, "groupby", p, "--by", "k", "--agg", "sum:x,first:x").stdout))
    want = df.groupby("k")["x"].agg(["sum", "first"])
    assert back["sum_x"].tolist() == want["sum"].tolist() and back["first_x"].tolist() == want["first"].tolist()
    q = tmp_path / "n.csv"
    q.write_text("k,x\n1,nan\n2,-nan\n3,\n4,inf\n")
    back = pd.read_csv(io.StringIO(run(cli, "groupby", q, "--by", "k", "--agg", "first:x").stdout))
    assert back["first_x"].dtype == np.float64
    assert np.isnan(back["first_x"][:3]).all() and back["first_x"][3] == np.inf


def number_columns(text):
    """The columns of a CSV text whose non-empty fields all read as floats (Python's float)."""
    head, rows = rows_of(text)
    cols = []
    for j, h in enumerate(head):
        fs = [r[j] for r in rows if j < len(r)]
        try:
            [float(f) for f in fs if f != ""]
        except ValueError:
            continue
        if any(f != "" for f in fs):
            cols.append((h, fs))
    return cols


def assert_reads_back(cli, tmp_path, name, text):
    """Each numeric column of RAID's output text, its rows numbered, read back through raid groupby (first):
    the same bits as Python reads from the text (empty fields stay empty)."""
    cols = number_columns(text)
    assert cols, name
    for h, fs in cols:
        p = tmp_path / f"{name}.{h}.csv"
        p.write_text("i,v\n" + "".join(f"{i},{f}\n" for i, f in enumerate(fs)))
        _, rows = rows_of(run(cli, "groupby", p, "--by", "i", "--agg", "first:v").stdout)
        assert [parse(r[1]) for r in rows] == [parse(f) for f in fs], (name, h)


def test_every_writer_reads_back(cli, data_dir, tmp_path):
    """realized -> har; bars -> ma and sweep; ma; sweep; quantile; groupby: each output's numeric columns
    read back through RAID as the bits Python reads from its text, and its consumer takes the whole file."""
    # realized on the bundled quotes -> har
    rz = tmp_path / "rz.csv"
    run(cli, "realized", data_dir / "usdchf_30min.csv", "--sample", "30min", "--device", "cpu", "-o", rz)
    assert_reads_back(cli, tmp_path, "realized", rz.read_text())
    run(cli, "har", rz, "--device", "cpu")
    # bars of the bundled trades -> ma (the close column as read: a window of one gives it back) and sweep
    bars = tmp_path / "bars.csv"
    run(cli, "bars", data_dir / "trades_xxx_2days.csv", "--interval", "1min", "-o", bars)
    bt = bars.read_text()
    assert_reads_back(cli, tmp_path, "bars", bt)
    ma = run(cli, "ma", bars, "--stat", "sum", "--window", "1", "--date-col", "start", "--device", "cpu").stdout
    assert [parse(r[-1]) for r in rows_of(ma)[1]] == [parse(r[5]) for r in rows_of(bt)[1]]
    assert_reads_back(cli, tmp_path, "ma", ma)
    ma5 = run(cli, "ma", bars, "--stat", "var", "--window", "5", "--date-col", "start", "--device", "cpu").stdout
    assert_reads_back(cli, tmp_path, "ma5", ma5)
    sw = run(cli, "sweep", bars, "--fast", "2:4", "--slow", "5:9:2", "--date-col", "start", "--device", "cpu").stdout
    assert_reads_back(cli, tmp_path, "sweep", sw)
    # quantile and groupby of the bars' output
    qo = run(cli, "quantile", bars, "--col", "vwap", "--by", "trades", "--q", "0,0.25,0.5,1").stdout
    assert_reads_back(cli, tmp_path, "quantile", qo)
    go = run(cli, "groupby", bars, "--by", "trades", "--agg", "sum:volume,mean:vwap,min:low,count").stdout
    assert_reads_back(cli, tmp_path, "groupby", go)
    # simulated prices -> realized
    sim = tmp_path / "sim.csv"
    run(cli, "simulate", "--days", "2", "--seed", "1", "-o", sim)
    assert_reads_back(cli, tmp_path, "simulate", sim.read_text())
    run(cli, "realized", sim, "--device", "cpu")
