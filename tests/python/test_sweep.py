"""raid.sweep (python/raid/_sweep.py) against `raid sweep` byte for byte (numbers in the fewest digits that
read back), on data/ttrc_daily.csv and on two symbols, with the trades; the worked example of docs/ta_sweep.md; the
argument forms and errors."""
import math
import subprocess

import numpy as np
import pandas as pd
import pytest

import raid
from raid._core import read_csv_exact
from raid._csv import f64_text


def _lines(df, cols):
    """df as `raid sweep` writes it: integers as they are, reals in the fewest digits that read back (f64_text:
    empty when not finite)."""
    out = [",".join(cols)]
    for row in df[cols].itertuples(index=False):
        f = []
        for c, v in zip(cols, row):
            if c in ("symbol",):
                s = str(v)
                f.append('"' + s.replace('"', '""') + '"' if any(ch in s for ch in ',"\r\n') else s)
            elif isinstance(v, (float, np.floating)):
                f.append(f64_text(v))
            else:
                f.append(str(int(v)))
        out.append(",".join(f))
    return "\n".join(out) + "\n"


STAT_COLS = ["fast", "slow", "trades", "total_log_return", "sharpe", "max_drawdown", "exposure"]
TRADE_COLS = ["fast", "slow", "entry_bar", "exit_bar", "entry_price", "exit_price", "side"]


@pytest.mark.parametrize("opts,kw", [([], {}),
                                     (["--short", "--cost-bps", "2.5", "--fill", "next-open", "--bars-per-year", "250"],
                                      dict(short=True, cost_bps=2.5, fill="next-open", bars_per_year=250))])
def test_python_equals_cli(cli, data_dir, tmp_path, opts, kw):
    path = data_dir / "ttrc_daily.csv"
    out, tr = tmp_path / "o.csv", tmp_path / "t.csv"
    r = subprocess.run([cli, "sweep", str(path), "--fast", "5:50:1", "--slow", "20:200:5", *opts, "--device", "cpu",
                        "--trades", str(tr), "-o", str(out)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    df, tdf = raid.sweep(read_csv_exact(path, dtype={"date": str}), fast=(5, 50, 1), slow="20:200:5", trades=True,
                         device="cpu", **kw)
    assert len(df) == 1590
    assert out.read_text() == _lines(df, STAT_COLS)
    assert tr.read_text() == _lines(tdf, TRADE_COLS)
    assert tdf.groupby(["fast", "slow"]).size().sum() == df["trades"].sum()


def test_symbols_equal_cli(cli, data_dir, tmp_path):
    base = read_csv_exact(data_dir / "ttrc_daily.csv", dtype={"date": str})[["date", "open", "close"]]
    a, b = base.iloc[:700].copy(), base.iloc[700:1500].copy()
    a.insert(0, "symbol", "A")
    b.insert(0, "symbol", "B,1")
    df = pd.concat([a, b], ignore_index=True)
    src = tmp_path / "two.csv"
    df.to_csv(src, index=False, float_format="%.17g")
    out = tmp_path / "o.csv"
    r = subprocess.run([cli, "sweep", str(src), "--fast", "3:12:3", "--slow", "10:40:10", "--short", "--device", "cpu",
                        "-o", str(out)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    got = raid.sweep(df, fast=(3, 12, 3), slow=(10, 40, 10), short=True, device="cpu")
    assert list(got.columns) == ["symbol", *STAT_COLS]
    assert out.read_text() == _lines(got, ["symbol", *STAT_COLS])
    # each symbol alone: the same rows
    for s, part in (("A", a), ("B,1", b)):
        one = raid.sweep(part["close"].to_numpy(), fast=(3, 12, 3), slow=(10, 40, 10), short=True)
        pd.testing.assert_frame_equal(got[got["symbol"] == s].drop(columns="symbol").reset_index(drop=True), one)


def test_worked_example():
    """docs/ta_sweep.md: close 10 11 12 11 13 14; mean(1) against mean(2) decides d = 0 1 1 0 1 1."""
    close = np.array([10, 11, 12, 11, 13, 14.0])
    opn = np.array([9.5, 10.5, 11.5, 11.2, 12.5, 13.8])
    df, tdf = raid.sweep(close, fast=1, slow=2, ma="mean", trades=True)
    assert df["trades"].tolist() == [1]
    assert tdf[["entry_bar", "exit_bar", "entry_price", "exit_price", "side"]].values.tolist() == [[2, 4, 12, 13, 1]]
    assert df["total_log_return"][0] == pytest.approx(math.log(13 / 12), rel=1e-15)
    assert df["exposure"][0] == 0.4
    df, tdf = raid.sweep(pd.Series(close), fast=1, slow=2, ma="mean", trades=True, fill="next-open", open=opn)
    assert tdf[["entry_bar", "exit_bar", "entry_price", "exit_price"]].values.tolist() == [[2, 4, 11.5, 12.5],
                                                                                         [5, 5, 13.8, 14]]
    df, tdf = raid.sweep(close, fast=1, slow=2, ma="mean", trades=True, short=True, cost_bps=5)
    assert tdf["side"].tolist() == [1, -1]
    c = math.log1p(-5e-4)
    assert df["total_log_return"][0] == pytest.approx(math.log(13 / 12) + math.log(13 / 14) + 4 * c, rel=1e-14)


def test_errors():
    x = np.linspace(10, 20, 50)
    with pytest.raises(raid.RaidError, match="no combination with fast < slow"):
        raid.sweep(x, fast=(30, 40), slow=(10, 20))
    with pytest.raises(raid.RaidError, match="bad range"):
        raid.sweep(x, fast="5:2")
    with pytest.raises(ValueError, match="fill"):
        raid.sweep(x, fill="open")
    with pytest.raises(raid.RaidError, match="bar 3: close is -1"):
        raid.sweep(np.r_[x[:3], -1.0, x[4:]], fast=2, slow=3)
    with pytest.raises(raid.RaidError, match="needs open prices"):
        raid.sweep(x, fast=2, slow=3, fill="next-open")
    with pytest.raises(KeyError, match="missing column 'px'"):
        raid.sweep(pd.DataFrame({"close": x}), close_col="px")


def test_precision_and_device(tmp_path):
    """precision/formulation as the CLI's; the device sweep (OpenCL, PoCL in CI) against the float64 path:
    equal trades on a random walk, statistics within 1e-12."""
    rng = np.random.default_rng(7)
    close = 30000 * np.exp(np.cumsum(rng.normal(0, 0.01, 3000)))
    ref = raid.sweep(close, fast=(5, 12, 1), slow=(20, 60, 10), device="cpu")
    f32 = raid.sweep(close, fast=(5, 12, 1), slow=(20, 60, 10), device="cpu", precision="f32")
    assert len(f32) == len(ref)
    # the context's precision (raid.context, as raid.realized's): prices whose swings (1e-8 of the level) are
    # below float's resolution cross in float64 and are flat in float32 (every average the same float), on
    # the cpu (emulated) and on a device; the next call's default sets df again on the same context
    flat = 10000 + 1e-4 * np.sin(np.arange(400) / 5)
    kw = dict(fast=(2, 4, 1), slow=(10, 20, 5), ma="mean")
    devices = ["cpu"] + (["opencl"] if len(raid.devices()) else [])
    for d in devices:
        assert (raid.sweep(flat, device=d, precision="f32", **kw)["trades"] == 0).all()
        assert (raid.sweep(flat, device=d, **kw)["trades"] >= 12).all()
    trap = raid.sweep(close, fast=(5, 12, 1), slow=(20, 60, 10), device="cpu", formulation="prefix")
    assert (trap["trades"] != ref["trades"]).any()
    with pytest.raises(ValueError, match="precision"):
        raid.sweep(close, precision="f16")
    with pytest.raises(raid.RaidError, match="applies to hma, wma and mean"):
        raid.sweep(close, ma="ema", precision="f32")
    if len(raid.devices()) == 0:
        pytest.skip("no OpenCL device")
    dev = raid.sweep(close, fast=(5, 12, 1), slow=(20, 60, 10), device="opencl")
    assert (dev["trades"] == ref["trades"]).all() and (dev["exposure"] == ref["exposure"]).all()
    for k in ("total_log_return", "sharpe", "max_drawdown"):
        assert np.max(np.abs(dev[k] - ref[k])) < 1e-12
