"""Time order and values that do not exist, in the Python entry points of the jobs whose answer depends on
the order of a series' rows (docs/input.md "Time order"): raid.ma and raid.sweep on a DataFrame with a date
column, raid.garch and raid.har with dates, refuse a date out of order or repeated as their CLI commands
do (the library's one check); raid.sweep gives NaN, never zeros, for combinations without a value, with
the reasons in .attrs["messages"], and the same rows as `raid sweep`."""
import io
import subprocess

import numpy as np
import pandas as pd
import pytest

import raid


def frame(dates, col="close"):
    n = len(dates)
    return pd.DataFrame({"symbol": ["A"] * n, "date": dates, col: np.linspace(10.0, 12.0, n)})


@pytest.mark.parametrize("job", ["ma", "sweep"])
def test_ma_sweep_dates(job):
    run = (lambda df: raid.ma(df, "mean", 2)) if job == "ma" else \
        (lambda df: raid.sweep(df, fast=1, slow=2, ma="mean"))
    ok = ["2020-01-01", "2020-01-02", "2020-01-03", "2020-01-06"]
    run(frame(ok))
    bad = ["2020-01-01", "2020-01-03", "2020-01-02", "2020-01-06"]
    with pytest.raises(raid.RaidError, match=r"A: row 2: date '2020-01-02' comes before '2020-01-03' on row 1"):
        run(frame(bad))
    with pytest.raises(raid.RaidError, match=r"A: row 2: date '2020-01-03' repeats '2020-01-03' on row 1"):
        run(frame(["2020-01-01", "2020-01-03", "2020-01-03", "2020-01-06"]))
    # datetime64: compared as times, nanoseconds kept (1 ns apart is in order; equal is repeated)
    t = pd.to_datetime(["2020-01-01 10:00:00.000000001", "2020-01-01 10:00:00.000000002",
                        "2020-01-01 10:00:00.000000003", "2020-01-01 10:00:00.000000004"])
    run(frame(t))
    with pytest.raises(raid.RaidError, match=r"time 2020-01-01T10:00:00.000000002 repeats"):
        run(frame(t[[0, 1, 1, 3]]))
    # tz-aware: instants (the hour repeated when summer time ends in New York is in order)
    ny = pd.DatetimeIndex(pd.to_datetime(["2020-11-01 04:00", "2020-11-01 05:30", "2020-11-01 06:10",
                                          "2020-11-01 07:00"], utc=True)).tz_convert("America/New_York")
    run(frame(ny))
    # numbers as numbers (9 before 10), two symbols checked each on its own
    df = pd.DataFrame({"symbol": ["A", "A", "A", "B", "B", "B"], "date": [9, 10, 11, 1, 2, 2],
                       "close": [1.0, 2, 3, 4, 5, 6]})
    with pytest.raises(raid.RaidError, match=r"B: row 5: date '2' repeats '2' on row 4"):
        run(df)
    with pytest.raises(ValueError, match="row 1: missing date"):
        run(frame(["2020-01-01", None, "2020-01-03", "2020-01-06"]))
    # arrays and Series carry no dates: the caller's order
    run(pd.Series([1.0, 2, 3, 4]))


def test_garch_har_dates():
    r = pd.DataFrame({"date": ["2020-01-02", "2020-01-01"], "ret": [0.1, 0.2]})
    with pytest.raises(raid.RaidError, match=r"row 1: date '2020-01-01' comes before '2020-01-02' on row 0"):
        raid.garch(r)
    with pytest.raises(raid.RaidError, match="row 1: date is empty"):
        raid.garch(r.assign(date=["2020-01-02", ""]))
    days = pd.bdate_range("2020-01-01", periods=60).strftime("%Y-%m-%d").tolist()
    i = np.arange(60)
    m = pd.DataFrame({"symbol": "A", "date": days, "rv": 1e-4 * (1.5 + np.sin(0.7 * i) + 0.3 * np.cos(2.3 * i))})
    assert raid.har(m, device="cpu").symbols["estimated"].tolist() == [True]
    days[30] = days[29]
    with pytest.raises(raid.RaidError, match=r"A: row 30: date '2020-02-11' repeats '2020-02-11' on row 29"):
        raid.har(m.assign(date=days), device="cpu")


def test_sweep_no_value(cli, tmp_path):
    """A 2-bar symbol and windows longer than a series: NaN rows and messages, the same rows as the CLI's."""
    df = pd.DataFrame({"symbol": ["A", "A", "B", "B", "B", "B", "B"], "date": [1, 2, 1, 2, 3, 4, 5],
                       "close": [10.0, 11, 10, 11, 12, 11, 13]})
    got = raid.sweep(df, fast=(1, 2), slow=(2, 4), ma="mean", device="cpu")
    assert got["trades"].dtype == np.float64
    a = got[got["symbol"] == "A"]
    assert a[["trades", "total_log_return", "sharpe", "max_drawdown", "exposure"]].isna().all().all()
    b = got[got["symbol"] == "B"].set_index(["fast", "slow"]).drop(columns="symbol")
    assert b.loc[(1, 4)].isna().all() and b.loc[(2, 4)].isna().all()
    assert b.loc[(1, 2), "trades"] == 1 and not np.isnan(b.loc[(1, 3), "sharpe"])
    assert got.attrs["messages"] == [
        "series 0 ('A') has 2 bars (at least 3 are needed): skipped, its combinations have no value",
        "series 1 ('B'): 2 of 5 combinations have no value: a slow mean of period 4 or more has its first value "
        "at bar 3 or later (0-based), too late for a position in 5 bars"]
    p = tmp_path / "in.csv"
    df.to_csv(p, index=False)
    r = subprocess.run([cli, "sweep", str(p), "--ma", "mean", "--fast", "1:2", "--slow", "2:4", "--device", "cpu"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    want = pd.read_csv(io.StringIO(r.stdout), dtype={"symbol": str})
    pd.testing.assert_frame_equal(got.reset_index(drop=True), want, check_exact=True)
    # every series without a value: NaN everywhere (the CLI exits 2 there and writes nothing)
    none = raid.sweep(np.array([10.0, 11, 12]), fast=5, slow=10, ma="hma")
    assert none[["trades", "sharpe"]].isna().all().all() and len(none.attrs["messages"]) == 1
