"""raid.to_csv writes what the CLI writes for the same job, byte for byte, for every job the package and the
CLI share: realized, har (coefficients, forecasts, losses), garch, ma, sweep (statistics and trades), bars,
sort, quantile and group-by; on inputs that exercise the writers' rules: symbols and dates to quote (a
comma, a quote, a leading space), missing values, fractions of a second and whole days in timestamps,
infinite results (bars' volume, group-by sums, quantiles: "inf"), integers. The file is also written
through a path (the library's output files) and a file object."""
import io
import os
import re
import subprocess

import numpy as np
import pandas as pd
import pytest

import raid
from raid._core import read_csv_exact

SYMS = ["A,B", ' q"t', " lead"]


def cli(*args):
    r = subprocess.run([os.environ.get("RAID_CLI", "raid"), *map(str, args), "--device", "cpu"], capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr
    return r.stdout


def written(tmp_path, df):
    """df written to a file with the package's writer, and that file read back (symbols as text)."""
    p = tmp_path / "in.csv"
    raid.to_csv(df, p)
    return p, read_csv_exact(p, dtype={"symbol": str}, keep_default_na=False, na_values=[""])


def same(got_df, want_text):
    got = raid.to_csv(got_df)
    assert got == want_text
    return got


def prices(n_days=3, per_day=40):
    df = raid.simulate(nsymbols=3, ndays=n_days, obs_per_day=per_day, seed=11)
    df["symbol"] = df["symbol"].map(dict(zip(sorted(df["symbol"].unique()), SYMS)))
    return df


def test_realized(tmp_path):
    p, df = written(tmp_path, prices())
    want = cli("realized", p, "--sample", "tick")
    same(raid.realized_from_prices(df, sample="tick", device="cpu"), want)


def test_har(tmp_path):
    m = raid.realized_from_prices(prices(n_days=60, per_day=30), sample="tick", device="cpu")
    p, df = written(tmp_path, m)
    out = tmp_path / "har.csv"
    cli("har", p, "--lags", "1,2,5", "--window", "rolling:20", "-o", out)
    fit = raid.har(df, lags=[1, 2, 5], window="rolling:20", device="cpu")
    same(fit.coefs, out.read_text())
    same(fit.forecasts, (tmp_path / "har.forecasts.csv").read_text())
    same(fit.losses, (tmp_path / "har.losses.csv").read_text())


def test_garch(tmp_path):
    rng = np.random.default_rng(4)
    df = pd.DataFrame({"symbol": np.repeat(SYMS, 300), "date": list(pd.date_range("2001-01-01", periods=300)
                                                                      .strftime("%Y-%m-%d")) * 3,
                       "ret": rng.standard_normal(900)})
    p, df = written(tmp_path, df)
    same(raid.garch(df, device="cpu"), cli("garch", p))
    same(raid.garch(df, window="rolling:250", step=25, device="cpu"), cli("garch", p, "--window", "rolling:250",
                                                                           "--step", "25"))


def test_ma(tmp_path):
    df = prices()
    df = pd.DataFrame({"symbol": df["symbol"], "date": df["timestamp"].dt.strftime("%Y-%m-%d %H:%M"),
                       "close": df["price"]})
    df.loc[[5, 50], "close"] = np.nan  # empty fields: a missing value restarts the series
    p, df = written(tmp_path, df)
    for stat in ("ema", "var", "hma"):
        same(raid.ma(df, stat, 4, device="cpu"), cli("ma", p, "--stat", stat, "--window", 4))


def test_sweep(tmp_path):
    df = prices()
    p, df = written(tmp_path, pd.DataFrame({"symbol": df["symbol"], "date": df["timestamp"], "close": df["price"]}))
    t = tmp_path / "trades.csv"
    want = cli("sweep", p, "--fast", "2:4:1", "--slow", "5:9:2", "--trades", t)
    stats, trades = raid.sweep(df, fast=(2, 4, 1), slow=(5, 9, 2), trades=True, device="cpu")
    same(stats, want)
    same(trades, t.read_text())


def test_bars(tmp_path):
    """Timestamps with a T (the CLI's), a fraction only where there is one, whole days at midnight; an
    infinite volume written inf, as the CLI writes it (sizes of 1e308 at prices below 1.7: a product beyond
    float64 is refused)."""
    t = pd.to_datetime(["2018-01-02 09:30:00.250", "2018-01-02 09:30:00.900", "2018-01-02 09:31:10",
                        "2018-01-03 10:00:00", "2018-01-03 10:00:00.400"], format="ISO8601")
    df = pd.DataFrame({"symbol": [SYMS[0]] * 3 + [SYMS[1]] * 2, "timestamp": t, "price": [10.0, 11.5, 9.0, 0.7, 0.75],
                       "size": [1.0, 2.0, 3.0, 1e308, 1e308]})
    p = tmp_path / "t.csv"
    df.assign(timestamp=t.strftime("%Y-%m-%dT%H:%M:%S.%f")).to_csv(p, index=False, float_format="%.17g")
    for interval in ("500ms", "1min", "1d"):
        got = same(raid.bars(df, interval, device="cpu"), cli("bars", p, "--interval", interval))
        assert ",2018-01-02T" in got and ",inf," in got, got
    assert ",2018-01-02T09:30:00.500000," in raid.to_csv(raid.bars(df, "500ms", device="cpu"))
    assert ",2018-01-02T00:00:00," in raid.to_csv(raid.bars(df, "1d", device="cpu"))


def test_sort(tmp_path):
    """raid sort writes the rows as they are in the file: for a file the package wrote, that is the package's
    table in raid.argsort's order."""
    df = pd.DataFrame({"symbol": SYMS * 4, "x": [3.5, -0.0, 1.7e308, np.nan, 1e-300, 0.0, -5e-324, 2.5, 3.5, 7.0,
                                                  np.nan, -1.0], "n": np.arange(12)})
    p, back = written(tmp_path, df)
    for desc in (False, True):
        want = cli("sort", p, "--by", "x", *(["--desc"] if desc else []))
        same(df.iloc[raid.argsort(back["x"], descending=desc, device="cpu")], want)


def test_quantile(tmp_path):
    df = pd.DataFrame({"k": [3, 1, 1, 3, 2, 2, 1, 4, 4], "x": [1.0, -3.0, 2.0, 0.5, np.nan, np.nan, 4.0, -1.7e308,
                                                                 1.7e308]})
    p, back = written(tmp_path, df)
    qs = ["0", "0.25", "0.5", "1"]
    want = cli("quantile", p, "--col", "x", "--q", ",".join(qs), "--by", "k")
    order = np.argsort(back["k"].to_numpy(), kind="stable")
    keys = back["k"].to_numpy()[order]
    off = np.r_[0, np.flatnonzero(np.diff(keys)) + 1, keys.size]
    x = back["x"].to_numpy()[order]
    q = [float(v) for v in qs]
    seg = [x[a:b][~np.isnan(x[a:b])] for a, b in zip(off[:-1], off[1:])]
    got = np.vstack([raid.quantile(v, q, device="cpu") if v.size else np.full(len(q), np.nan) for v in seg])
    res = pd.DataFrame(got, columns=[f"q{q}" for q in qs], index=pd.Index(keys[off[:-1]], name="k"))
    # the interpolation between -1.7e308 and 1.7e308 overflows (numpy's too): q0 is NaN, a value, which the
    # CLI writes nan (-nan on x86: numpy's inf * 0) while the key without a value gets empty fields; a
    # DataFrame's NaN is pandas' missing value, which raid.to_csv writes empty (docs/python.md "CSV output")
    assert re.search(r",-?nan,inf,-inf,", want) and "\n2,,,,\n" in want, want
    got = same(res, re.sub(r"(?<=,)-?nan(?=[,\n])", "", want))
    assert ",inf," in got and ",-inf" in got
    whole = cli("quantile", p, "--col", "x", "--q", "0.5,1")
    v = back["x"].dropna().to_numpy()
    same(pd.DataFrame([raid.quantile(v, [0.5, 1.0], device="cpu")], columns=["q0.5", "q1"]), whole)


def test_groupby(tmp_path):
    """The table of raid.groupby with the CLI's column names (the array API names its columns by the
    aggregation alone): the key index written as the first column, exact sums, infinite sums inf."""
    df = pd.DataFrame({"k": [5, -2, 5, 9, -2, 9, 0], "x": [0.1, 0.2, np.nan, 1.7e308, 1e300, 1.7e308, np.nan]})
    p, back = written(tmp_path, df)
    aggs = ["sum", "mean", "min", "max", "first", "last", "count"]
    want = cli("groupby", p, "--by", "k", "--agg", ",".join(f"{a}:x" for a in aggs))
    g = raid.groupby(back["k"], back["x"], aggs=aggs, skipna=True, device="cpu")
    assert ",inf," in same(g.rename(columns=lambda a: f"{a}_x").rename_axis("k"), want)


def test_paths_and_buffers(tmp_path):
    df = raid.bars(pd.DataFrame({"timestamp": pd.to_datetime(["2018-01-02 09:30:01"]), "price": [1.0]}), "1min")
    text = raid.to_csv(df)
    assert text == "symbol,start,open,high,low,close,volume,vwap,trades\n,2018-01-02T09:30:00,1,1,1,1,1,1,1\n"
    p = tmp_path / "out.csv"
    assert raid.to_csv(df, p) is None and p.read_text() == text
    assert raid.to_csv(df, str(p)) is None and p.read_text() == text
    buf = io.StringIO()
    raid.to_csv(df, buf)
    assert buf.getvalue() == text
    assert os.listdir(tmp_path) == ["out.csv"]  # the temporary file renamed
    with pytest.raises(raid.RaidError, match="cannot create"):
        raid.to_csv(df, tmp_path / "no" / "out.csv")
    with pytest.raises(TypeError, match="to_frame"):
        raid.to_csv(df["open"])


def test_model_tables_write_nonfinite_empty():
    """The model jobs' writers (raid_csv_put_value) print every non-finite value as an empty field; their
    tables say so, and raid.to_csv follows it (the column jobs print an infinity as inf)."""
    r = np.random.default_rng(1).standard_normal(200) * 0.01
    tables = [raid.realized(r, [0, 200], device="cpu"), raid.garch(r, device="cpu"),
              raid.ma(pd.DataFrame({"close": 100 + r}), "sum", 2, device="cpu"),
              raid.sweep(100 + np.cumsum(r), fast=2, slow=5, device="cpu")]
    for t in tables:
        t = t.copy()
        t.iloc[0, -1] = np.inf
        assert raid.to_csv(t).splitlines()[1].split(",")[-1] == "", t
    g = raid.groupby([1], [np.inf])
    assert raid.to_csv(g) == "key,sum\n1,inf\n"
