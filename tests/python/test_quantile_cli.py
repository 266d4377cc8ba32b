"""raid quantile (include/raid/select.h raid_quantile_run_csv, docs/column.md "raid quantile"): numpy's
np.quantile bit for bit on the bundled trades' prices, per key (np.quantile of each group's non-null
values, NaN for a key without a value), the cpu path and the device (PoCL) byte for byte; bad input."""
import io
import os
import subprocess

import numpy as np
import pandas as pd
import pytest

import raid

EXACT = {"float_precision": "round_trip"} if int(pd.__version__.split(".")[0]) < 3 else {}
QS = "0,0.01,0.25,0.5,0.75,0.99,1"


def run(*args):
    r = subprocess.run([os.environ.get("RAID_CLI", "raid"), "quantile", *map(str, args)], capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr


def test_prices_and_groups(data_dir, tmp_path):
    path = data_dir / "trades_xxx_2days.csv"
    df = pd.read_csv(path, **EXACT)
    qs = [float(q) for q in QS.split(",")]
    for by in (None, "size"):
        outs = []
        for dev in ("cpu", "opencl") if len(raid.devices()) else ("cpu",):
            rc, out, err = run(path, "--col", "price", "--q", QS, "--device", dev, *(["--by", by] if by else []))
            assert rc == 0, err
            outs.append(out)
        assert all(o == outs[0] for o in outs)
        got = pd.read_csv(io.StringIO(outs[0]), **EXACT)
        if by is None:
            assert got.iloc[0].tolist() == np.quantile(df["price"].to_numpy(), qs).tolist()
        else:
            keys = sorted(df[by].unique())
            assert got[by].tolist() == keys
            for k, row in zip(keys, got.itertuples(index=False)):
                want = np.quantile(df["price"][df[by] == k].to_numpy(), qs).tolist()
                assert list(row)[1:] == want
    p = tmp_path / "n.csv"
    p.write_text("k,x\n1,\n2,3\n2,1\n")
    rc, out, err = run(p, "--col", "x", "--q", "0.5", "--by", "k")
    assert rc == 0 and out == "k,q0.5\n1,\n2,2\n", err
    rc, _, err = run(p, "--col", "x", "--q", "0.5,1.5")
    assert rc == 1 and "bad quantile '1.5'" in err
    p.write_text("k,x\n1,2\n1,abc\n")
    rc, out, err = run(p, "--col", "x", "--q", "0.5")
    assert rc == 2 and ":3:2: cannot parse value 'abc'" in err and out == ""
    # no value at all without --by (header only, or only nulls): refused as raid.quantile / np.quantile of an
    # empty array are, and no output file is left; with --by, no rows is no groups
    o = tmp_path / "o.csv"
    for text in ("x\n", "k,x\n1,\n2,\n"):
        p.write_text(text)
        rc, out, err = run(p, "--col", "x", "--q", "0.5", "-o", o)
        assert rc == 2 and f"{p}: column 'x' has no values" in err and out == "" and not o.exists(), err
    with pytest.raises(raid.RaidError, match="empty"):
        raid.quantile(np.array([]), 0.5)
    p.write_text("k,x\n")
    rc, out, err = run(p, "--col", "x", "--q", "0.5", "--by", "k")
    assert rc == 0 and out == "k,q0.5\n", err


def test_q_given_twice(tmp_path):
    """A q named twice (the numbers compared: 0.5 and 0.50 are one q) would write two columns of one q: a
    usage error, exit status 1, no output file, as raid groupby refuses an aggregation named twice. The
    array API keeps numpy's answer (an array has no column names)."""
    p, o = tmp_path / "x.csv", tmp_path / "o.csv"
    p.write_text("k,x\n1,2\n1,3\n2,5\n")
    for qs, msg in (("0.5,0.5", "quantile '0.5' given twice"),
                    ("0.25,0.5,0.50", "quantile '0.50' given twice (the same q as '0.5')"),
                    ("1,0.1,1e0", "quantile '1e0' given twice (the same q as '1')"),
                    ("0,-0", "quantile '-0' given twice (the same q as '0')")):
        for by in ((), ("--by", "k")):
            rc, out, err = run(p, "--col", "x", "--q", qs, *by, "-o", o)
            assert rc == 1 and err == f"raid quantile: {msg}\n" and out == "" and not o.exists(), (qs, rc, err)
    rc, out, err = run(p, "--col", "x", "--q", "0.5,0.25")  # distinct q: still fine, in the order given
    assert rc == 0 and out == "q0.5,q0.25\n3,2.5\n", err
    x = np.array([2.0, 3.0, 5.0, 1.0])
    got = raid.quantile(x, [0.5, 0.5, 0.25])
    assert got.tolist() == np.quantile(x, [0.5, 0.5, 0.25]).tolist()


def test_last_line_without_line_break(tmp_path):
    """A file cut short in its last value cannot be told from a complete one: it is read, with the table
    reader's notice on stderr (as raid realized), and the output is the one of the file with the break."""
    cut, whole = tmp_path / "cut.csv", tmp_path / "whole.csv"
    cut.write_text("k,x\n1,2\n2,5\n1,3")
    whole.write_text("k,x\n1,2\n2,5\n1,3\n")
    rc1, out1, err1 = run(cut, "--col", "x", "--q", "0.5,1", "--by", "k")
    rc2, out2, err2 = run(whole, "--col", "x", "--q", "0.5,1", "--by", "k")
    assert rc1 == rc2 == 0 and out1 == out2 == "k,q0.5,q1\n1,2.5,3\n2,5,5\n" and err2 == ""
    assert err1 == (f"raid quantile: notice: {cut}:4: the last line has no line break at its end; it was read as a "
                    "complete row (if the file was cut short there, its last value is cut short too)\n")
