"""raid sort (include/raid/sort.h raid_sort_run_csv, docs/column.md "raid sort"): the rows of a CSV file,
each row's bytes unchanged, in pandas' sort_values(kind="stable", na_position="last") order (ascending and
descending), compared byte for byte; on adversarial files (ties, -0.0, huge and tiny exponents, nulls,
quoted fields with commas and line breaks, CRLF, integers beyond 2^53, one row, header only) against a
Python stable sort as well; the cpu path and the device (PoCL) byte for byte; bad input."""
import io
import os
import random
import subprocess

import pandas as pd
import pytest

import raid

EXACT = {"float_precision": "round_trip"} if int(pd.__version__.split(".")[0]) < 3 else {}
DEVICES = ("cpu", "opencl") if len(raid.devices()) else ("cpu",)


def run(*args, stdin=None):
    r = subprocess.run([os.environ.get("RAID_CLI", "raid"), "sort", *map(str, args)], capture_output=True,
                       input=stdin)
    return r.returncode, r.stdout, r.stderr.decode()


def sorted_cli(path, col, desc=False):
    """The output on every device (asserted equal byte for byte)."""
    outs = []
    for dev in DEVICES:
        rc, out, err = run(path, "--by", col, "--device", dev, *(["--desc"] if desc else []))
        assert rc == 0, err
        outs.append(out)
    assert all(o == outs[0] for o in outs)
    return outs[0]


def expect(header, rows, order):
    return b"".join(r + b"\n" for r in [header] + [rows[i] for i in order])


def pandas_order(df, col, desc):
    return df.reset_index(drop=True).sort_values(col, ascending=not desc, kind="stable",
                                                 na_position="last").index.tolist()


@pytest.mark.parametrize("name,col", [("trades_xxx_2days.csv", "price"), ("trades_xxx_2days.csv", "size"),
                                      ("ttrc_daily.csv", "close"), ("ttrc_daily.csv", "volume"),
                                      ("dem2gbp.csv", "ret"), ("spy_realized_measures.csv", "RV5"),
                                      ("usdchf_30min.csv", "price")])
def test_bundled_data(data_dir, name, col):
    path = data_dir / name
    raw = path.read_bytes().split(b"\n")
    assert raw[-1] == b""
    header, rows = raw[0], raw[1:-1]
    df = pd.read_csv(path, **EXACT)
    for desc in (False, True):
        assert sorted_cli(path, col, desc) == expect(header, rows, pandas_order(df, col, desc))


def python_order(fields, desc, as_int):
    """A stable sort of the non-empty fields by value (Python's float(): correctly rounded, as strtod;
    sorted(reverse=True) keeps ties in input order), the empty ones last in input order."""
    conv = int if as_int else float
    valid = [i for i, f in enumerate(fields) if f != ""]
    return sorted(valid, key=lambda i: conv(fields[i]), reverse=desc) + [i for i, f in enumerate(fields) if f == ""]


def write_rows(tmp_path, header, rows, eol=b"\n"):
    p = tmp_path / "in.csv"
    p.write_bytes(b"".join(r + eol for r in [header] + rows))
    return p


def test_adversarial_floats(tmp_path):
    rng = random.Random(11)
    pool = ["0", "-0.0", "0.0", "+0", "-0", "1e-400", "-1e-400", "4.9e-324", "2.5e-324",
            "1.7976931348623157e308", "-1.7976931348623157e308", "1", "1.0", "1.00000000000000001", "-1",
            "0.1", "0.30000000000000004", "0.3", "", "", "9007199254740993", "9007199254740992", "1.5", "2.5",
            "-2.5", ".5", "5.", "1E3", "1000", "-1e-5"]
    for trial in range(6):
        n = [1, 2, 50, 500, 3000, 20000][trial]
        fields = [rng.choice(pool) if rng.random() < 0.7 else repr(rng.uniform(-1e3, 1e3)) for _ in range(n)]
        if trial == 0:
            fields = ["1.5"]
        rows, eol = [], b"\r\n" if trial % 2 else b"\n"
        for i, f in enumerate(fields):  # other columns: quoted text with commas, quotes and line breaks
            txt = rng.choice(['"a,b"', '"say ""hi"""', '"two\nlines"', "plain", '"x\r\ny"', "  spaced  "])
            rows.append(f"{i},{txt},{f}".encode())
        p = write_rows(tmp_path, b"id,text,v", rows, eol)
        df = pd.read_csv(p, **EXACT)
        assert df["id"].tolist() == list(range(n))  # pandas read the rows as they were written
        for desc in (False, True):
            order = python_order(fields, desc, False)
            assert order == pandas_order(df, "v", desc)
            assert sorted_cli(p, "v", desc) == expect(b"id,text,v", rows, order)


def test_integers_beyond_2_53(tmp_path):
    rng = random.Random(5)
    base = 2**53
    fields = [str(base + rng.randrange(-3, 4) * rng.choice([1, 1, 2**10])) if rng.random() < 0.9 else ""
              for _ in range(3000)]
    fields += [str(2**63 - 1), str(-2**63), str(2**63 - 2), "-0", "+0", "0"]
    rows = [f"{f},{i}".encode() for i, f in enumerate(fields)]
    p = write_rows(tmp_path, b"k,i", rows)
    for desc in (False, True):
        order = python_order(fields, desc, True)
        assert order != python_order(fields, desc, False)  # float64 would tie distinct integers
        assert sorted_cli(p, "k", desc) == expect(b"k,i", rows, order)
    df = pd.read_csv(io.StringIO("k,i\n" + "\n".join(f"{f},{i}" for i, f in enumerate(fields) if f) + "\n"))
    assert df["k"].dtype == "int64"  # pandas, without the nulls, sorts int64 the same
    valid = [i for i, f in enumerate(fields) if f]
    assert [valid[j] for j in pandas_order(df, "k", False)] == python_order(fields, False, True)[:len(valid)]


def test_small_files(tmp_path):
    p = tmp_path / "h.csv"
    p.write_bytes(b"a,b\n")
    assert sorted_cli(p, "a") == b"a,b\n"
    p.write_bytes(b"\xef\xbb\xbfa,b\r\n\r\n3,x\r\n\n1,y")  # BOM, blank lines, no final line break
    assert sorted_cli(p, "A") == b"a,b\n1,y\n3,x\n"
    rc, _, err = run(p, "--by", "a")  # the last line said, as raid realized says it (it may be cut short)
    assert rc == 0 and err == f"raid sort: notice: {p}:5: the last line has no line break at its end; it was read " \
        "as a complete row (if the file was cut short there, its last value is cut short too)\n"
    rc, out, _ = run("-", "--by", "a", "--stable", stdin=b"a\n2\n1\n2\n")
    assert rc == 0 and out == b"a\n1\n2\n2\n"


def test_errors(tmp_path):
    p = tmp_path / "e.csv"
    p.write_bytes(b"a,b\n1,x\nfoo,y\n")
    rc, out, err = run(p, "--by", "a")
    assert rc == 2 and out == b"" and f"{p}:3:1: cannot parse value 'foo'" in err
    p.write_bytes(b"a,b\n1,x\n99999999999999999999,y\n")
    rc, out, err = run(p, "--by", "a")
    assert rc == 2 and out == b"" and f"{p}:3:1: integer '99999999999999999999' is beyond the int64 range" in err
    p.write_bytes(b"a,b\n1.5,x\n99999999999999999999,y\n")  # a decimal column: float64 (as pandas)
    assert run(p, "--by", "a")[1] == b"a,b\n1.5,x\n99999999999999999999,y\n"
    # a finite decimal beyond float64 is refused (it would read as inf, which is refused as text); underflow
    # rounds (to 0 or a subnormal) and is kept
    rc, out, err = run("-", "--by", "v", stdin=b"k,v\n1,1e309\n2,1\n")
    assert rc == 2 and out == b"" and "-:2:2: value out of float64's range: '1e309'" in err
    rc, out, err = run("-", "--by", "v", stdin=b"k,v\n1,1\n2," + b"7" * 1_000_000 + b"\n")
    assert rc == 2 and out == b"" and "-:3:2: value out of float64's range: '7777" in err
    rc, out, _ = run("-", "--by", "v", stdin=b"k,v\n1,1\n2,-1e-400\n3,4e-324\n")
    assert rc == 0 and out == b"k,v\n2,-1e-400\n3,4e-324\n1,1\n"
    p.write_bytes(b"a,b\n1,x\n2\n")
    o = tmp_path / "o.csv"
    rc, out, err = run(p, "--by", "a", "-o", o)
    assert rc == 2 and f"{p}:3:1: expected 2 fields, found 1" in err and not o.exists()
    rc, _, err = run(p, "--by", "c")
    assert rc == 2 and "missing column 'c'" in err
    rc, _, err = run(p)
    assert rc == 1 and "--by is required" in err
    rc, _, err = run(tmp_path / "none.csv", "--by", "a")
    assert rc == 2 and "none.csv" in err
