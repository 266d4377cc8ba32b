"""What the package refuses or reads as the CLI does (a hostile tester's findings): timestamps through the
library's own ISO 8601 parser (raid_ticks_push_text), datetime64 of any unit outside pandas' ns range,
the dtypes realized() takes, symbols that would merge or vanish, HAR dates and lags, integer arguments
out of their C range, simulate's messages; every message naming the DataFrame's 0-based row."""
import subprocess
import warnings

import numpy as np
import pandas as pd
import pytest

import raid

TIMES = ["2020-01-02T09:30:00", "2020-01-02T09:35:00", "2020-01-02T09:40:00", "2020-01-02T09:45:00"]
PRICES = [100.0, 101.0, 100.5, 102.0]


def frame(times, symbols=None, dtype=object):
    df = pd.DataFrame({"symbol": pd.Series(symbols if symbols is not None else ["A"] * len(times), dtype=dtype),
                       "timestamp": pd.Series(times, dtype=object), "price": PRICES[:len(times)]})
    return df


def cli_run(cli, tmp_path, df):
    """`raid realized` on df written as CSV: (return code, stdout CSV or stderr)."""
    path, out = tmp_path / "in.csv", tmp_path / "out.csv"
    df.to_csv(path, index=False)
    r = subprocess.run([cli, "realized", str(path), "--sample", "tick", "--device", "cpu", "-o", str(out)],
                       capture_output=True, text=True)
    return r.returncode, out.read_text() if r.returncode == 0 else r.stderr


def test_dates_outside_pandas_ns_range(cli, tmp_path):
    """Years 2300 and 1600 (outside datetime64[ns]) give the CLI's dates, as text and as datetime64[s]."""
    for year in ("2300", "1600", "9999", "0001"):
        times = [t.replace("2020", year) for t in TIMES]
        df = frame(times)
        rc, want = cli_run(cli, tmp_path, df)
        assert rc == 0
        got = raid.realized_from_prices(df, sample="tick", device="cpu")
        assert got["date"].tolist() == [f"{year}-01-02"]
        assert raid.to_csv(got) == want
        for unit in ("s", "ms", "us"):
            d = df.copy()
            d["timestamp"] = np.array(times, dtype=f"datetime64[{unit}]")
            assert raid.to_csv(raid.realized_from_prices(d, sample="tick", device="cpu")) == want
            d["timestamp"] = pd.Series(np.array(times, dtype=f"datetime64[{unit}]")).dt.tz_localize("UTC")
            assert raid.to_csv(raid.realized_from_prices(d, sample="tick", device="cpu")) == want
    d = frame(TIMES)
    d["timestamp"] = np.array(["2320-01-02T09:30:00", "12000-01-01T00:00:00", "2320-01-02T09:30:00",
                               "2320-01-02T09:30:00"], dtype="datetime64[s]")
    with pytest.raises(ValueError, match="row 1: timestamp .* outside the years 0001 to 9999"):
        raid.realized_from_prices(d)
    d["timestamp"] = np.array(["2020-01-02T09:30", "NaT", "2020-01-02T09:31", "2020-01-02T09:32"],
                              dtype="datetime64[s]")
    with pytest.raises(ValueError, match="row 1: missing timestamp"):
        raid.realized_from_prices(d)


# one row's timestamp (the others plain): does the CLI accept it, and Python exactly when the CLI does
FORMS = ["2020-01-02 09:31", "2020-01-02T0931", "20200102T093100", "2020-1-2T09:31:00", "2020-01-02",
         "09:31:00 +01:00", "2020-01-02t09:31:00", "2020-01-02T09:31:00z", "2020-01-02T09:31:00,5",
         "2020-01-02 09:31:00", "2020-01-02T09:31:00+0000", "2020-01-02T09:31:00-00",
         "20200102T170000+0200", "2020-01-02T09:31:00.123456789Z", "2020-01-02T09:31:00+01:00 "]


@pytest.mark.parametrize("form", FORMS)
def test_timestamps_as_the_cli_reads_them(cli, tmp_path, form):
    times = ["2020-01-02T09:30:00Z", form, "2020-01-02T23:59:00+00:00", "2020-01-02T23:59:30"]
    df = frame(times)
    rc, want = cli_run(cli, tmp_path, df)
    if rc == 0:
        got = raid.realized_from_prices(df, sample="tick", device="cpu")
        assert raid.to_csv(got) == want
    else:
        with pytest.raises(raid.RaidError) as e:
            raid.realized_from_prices(df, sample="tick", device="cpu")
        assert e.value.name == "RAID_EPARSE"
        assert e.value.message.startswith("row 1 (symbol 'A'): cannot parse timestamp")


def test_mixed_offsets_keep_their_offsets(cli, tmp_path):
    times = ["2020-01-02T07:00:00Z", "2020-01-02T10:00:00+02:00", "2020-01-02T09:00:00+0100",
             "2020-01-02T13:30:00+05"]
    df = frame(times)
    rc, want = cli_run(cli, tmp_path, df)
    assert rc == 0
    got = raid.realized_from_prices(df, sample="tick", device="cpu", tz="Europe/Zurich")
    rc2 = subprocess.run([cli, "realized", str(tmp_path / "in.csv"), "--sample", "tick", "--device", "cpu",
                          "--tz", "Europe/Zurich", "-o", str(tmp_path / "z.csv")]).returncode
    assert rc2 == 0 and raid.to_csv(got) == (tmp_path / "z.csv").read_text()
    # datetime objects of mixed offsets (an object column): the same instants
    d = df.copy()
    d["timestamp"] = pd.Series([pd.Timestamp(t) for t in times], dtype=object)
    assert raid.to_csv(raid.realized_from_prices(d, sample="tick", device="cpu", tz="Europe/Zurich")) == \
        raid.to_csv(got)


def test_timestamp_column_values():
    for bad, msg in [([TIMES[0], None, *TIMES[2:]], "row 1: missing timestamp"),
                     ([TIMES[0], np.nan, *TIMES[2:]], "row 1: missing timestamp"),
                     ([TIMES[0], 12, *TIMES[2:]], "row 1: timestamp 12 of type int"),
                     ([TIMES[0], TIMES[1] + "\x00", *TIMES[2:]], "row 1: timestamp .* holds a NUL byte"),
                     ([TIMES[0], TIMES[1] + "\udc80", *TIMES[2:]], "row 1: timestamp .* not valid Unicode")]:
        with pytest.raises(ValueError, match=msg):
            raid.realized_from_prices(frame(bad))
    back = frame(["2020-01-02T09:30:00Z", "2020-01-02T10:00:00+01:00", *TIMES[2:]])
    with pytest.raises(raid.RaidError) as e:
        raid.realized_from_prices(back)
    assert e.value.message == ("row 1 (symbol 'A'): time goes backwards: '2020-01-02T10:00:00+01:00' before "
                               "'2020-01-02T09:30:00Z' (row 0)")


def test_realized_dtypes():
    r = np.array([0.01, -0.02, 0.005])
    want = raid.realized(r, np.array([0, 3]), device="cpu")
    pd.testing.assert_frame_equal(raid.realized(r.astype(np.float32).astype(np.float64), [0, 3], device="cpu"),
                                  raid.realized(r.astype(np.float32), np.array([0, 3], dtype=np.int32),
                                                device="cpu"))
    assert raid.realized(list(r), (0, 3), device="cpu").equals(want)
    ints = np.array([1, -2, 3])  # integers exact in float64 are taken (the values rule), as by every function
    assert raid.realized(ints, [0, 3], device="cpu").equals(raid.realized(ints * 1.0, [0, 3], device="cpu"))
    for ret, off, msg in [(r, np.array([0, 2.7]), "offsets must be integers"),
                          (r, np.array(["0", "3"]), "offsets must be integers"),
                          (r, [0, 2 ** 63], "out of range for int64"),
                          (r, np.array([0, 2 ** 63], dtype=np.uint64), "out of range for int64"),
                          (r, np.array([False, True]), "offsets must be integers"),
                          (r.astype(complex), [0, 3], "returns must be real floating"),
                          (r > 0, [0, 3], "returns must be real floating"),
                          (np.array([1, 2 ** 53 + 1, 3]), [0, 3], "row 1: returns 9007199254740993 is not exactly"),
                          (np.ma.masked_array(r, [0, 1, 0]), [0, 3], "masked arrays are refused")]:
        with pytest.raises(ValueError, match=msg):
            raid.realized(ret, off, device="cpu")


def test_symbols_refused():
    for syms, msg in [(["A", "A\x00B", "A", "A"], "row 1: symbol 'A\\\\x00B' holds a NUL byte"),
                      (["A", "\udc80", "A", "A"], "row 1: symbol .* not valid Unicode"),
                      (["A", None, "A", "A"], "row 1: missing symbol"),
                      (["A", np.nan, "A", "A"], "row 1: missing symbol"),
                      ([1, "1", 1, 1], "row 1: symbol '1' of type str, after symbols of type int")]:
        with pytest.raises(ValueError, match=msg):
            raid.realized_from_prices(frame(TIMES, syms))
    with pytest.raises(ValueError, match="row 2: missing symbol"):
        raid.realized_from_prices(frame(TIMES, pd.Categorical(["A", "A", None, "A"])))
    got = raid.realized_from_prices(frame(TIMES, [7, 7, 8, 8]), sample="tick", device="cpu")
    assert got["symbol"].tolist() == ["7", "8"]


def har_input():
    df = raid.simulate(nsymbols=2, ndays=40, obs_per_day=50, seed=3)
    return raid.realized_from_prices(df, device="cpu")


def test_har_inputs():
    m = har_input()
    d = m.copy()
    d.loc[3, "date"] = None
    with pytest.raises(ValueError, match="^row 3: missing date$"):
        raid.har(d, device="cpu")
    d = m.copy()
    d["date"] = pd.to_datetime(d["date"])
    d.loc[3, "date"] = pd.NaT
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match="^row 3: missing date$"):
            raid.har(d, device="cpu")
    for kw, msg in [(dict(lags=[1, 5.7, 22]), r"lags\[1\] must be an integer"),
                    (dict(lags=[1, 2 ** 40]), r"lags\[1\] = 1099511627776 is out of range"),
                    (dict(h=2 ** 40), "h = 1099511627776 is out of range"),
                    (dict(h=1.5), "h must be an integer"),
                    (dict(nw_lag=2 ** 70), "nw_lag = .* is out of range")]:
        with pytest.raises(ValueError, match=msg):
            raid.har(m, device="cpu", **kw)
    # the symbol column as the index: no symbol column, the CLI's notice (one symbol's rows: one series in
    # time order; both symbols' rows make one series whose dates go back, refused as `raid har` refuses it)
    with pytest.warns(raid.RaidNotice, match="no symbol column 'symbol': the whole file is one series"):
        raid.har(m[m.symbol == "S0001"].set_index("symbol"), lags=[1, 5], device="cpu")
    with pytest.warns(raid.RaidNotice), pytest.raises(raid.RaidError, match=r"\(no symbol\): row 40: date '.*' comes "
                                                                            r"before '.*' on row 39"):
        raid.har(m.set_index("symbol"), lags=[1, 5], device="cpu")
    # rows not contiguous: the row named
    d = pd.concat([m.iloc[:5], m[m.symbol == "S0002"], m.iloc[5:40]], ignore_index=True)
    with pytest.raises(ValueError, match="row 45: symbol 'S0001' again"):
        raid.har(d, device="cpu")


def test_har_row_numbers_are_dataframe_positions():
    m = har_input()
    d = m.copy()
    d.loc[44, "date"] = d.loc[43, "date"]  # S0002's 4th day repeats its 3rd: refused where it is added
    with pytest.raises(raid.RaidError, match=f"raid_har_input_add: S0002: row 44: date '{d.loc[44, 'date']}' repeats "
                                             f"'{d.loc[43, 'date']}' on row 43"):
        raid.har(d, lags=[1, 5], device="cpu")
    d = m.copy()
    d.loc[45, "rv"] = np.nan
    f = raid.har(d, lags=[1, 5], device="cpu")
    msg = [t for s, t in f.messages if s == "S0002"]
    assert msg and f"{d.loc[45, 'date']}, row 45)" in msg[0]
    d = m.copy()
    d.loc[42, "date"] = ""
    with pytest.raises(raid.RaidError, match="raid_har_input_add: S0002: row 42: date is empty"):
        raid.har(d, device="cpu")


def test_har_refuses_what_the_csv_reader_refuses():
    """raid.har's series go through raid_har_input_add, which applies the CSV reader's rules: a date that
    is not a calendar date YYYY-MM-DD, and a negative rv, are refused, naming the symbol and the row."""
    m = har_input()
    for bad in ("2020-02-30", "20200102", "zzzz"):
        d = m.copy()
        d.loc[42, "date"] = bad
        with pytest.raises(raid.RaidError, match=f"raid_har_input_add: S0002: row 42: date '{bad}' is not a "
                                                 "calendar date YYYY-MM-DD"):
            raid.har(d, device="cpu")
    d = m.copy()
    d.loc[43, "rv"] = -1e-4
    with pytest.raises(raid.RaidError, match=r"raid_har_input_add: S0002: row 43: rv is negative \(a realized "
                                             r"variance is non-negative and finite\)"):
        raid.har(d, device="cpu")
    for col, what in (("bpv", "bipower variation"), ("rq", "realized quarticity")):
        d = m.copy()
        d.loc[44, col] = -1e-9
        with pytest.raises(raid.RaidError, match=rf"raid_har_input_add: S0002: row 44: {col} is negative \(a "
                                                 rf"{what} is non-negative\)"):
            raid.har(d, model="harq" if col == "rq" else "har-j", device="cpu")


def test_integer_arguments_out_of_range():
    for kw, msg in [(dict(seed=-1), "seed = -1 is out of range"), (dict(ndays=2 ** 40), "ndays = .* is out of range"),
                    (dict(nsymbols=2.5), "nsymbols must be an integer"),
                    (dict(mean_var="x"), "mean_var must be a real number")]:
        for kind in ("prices", "returns"):
            with pytest.raises(ValueError, match=msg):
                raid.simulate(kind=kind, **kw)


def test_simulate_messages_agree():
    for kw, msg in [(dict(rho=2), "simulate: rho must be in [-1, 1] (got 2)"),
                    (dict(nsymbols=-1), "simulate: symbols must be >= 1 (got -1)"),
                    (dict(vol_of_logvar=1000, ndays=2, obs_per_day=5, seed=4),
                     "simulate: a price left the range of float64")]:
        for kind in ("prices", "returns"):
            with pytest.raises(raid.RaidError) as e:
                raid.simulate(kind=kind, **kw)
            assert e.value.name == "RAID_EINVAL" and e.value.message.startswith(msg), (kind, e.value.message)


FLAG_CALLS = [
    ("descending", lambda v: raid.sort(np.array([2.0, 1.0]), "cpu", descending=v)),
    ("descending", lambda v: raid.argsort(np.array([2.0, 1.0]), "cpu", descending=v)),
    ("descending", lambda v: raid.sort_pairs(np.array([2, 1]), np.array([2.0, 1.0]), "cpu", descending=v)),
    ("skipna", lambda v: raid.min(np.array([2.0, np.nan]), skipna=v, device="cpu")),
    ("skipna", lambda v: raid.max(np.array([2.0, np.nan]), skipna=v, device="cpu")),
    ("skipna", lambda v: raid.groupby(np.array([1, 1]), np.array([2.0, np.nan]), skipna=v, device="cpu")),
    ("largest", lambda v: raid.topk(np.array([2.0, 1.0]), 1, largest=v, device="cpu")),
    ("return_index", lambda v: raid.topk(np.array([2.0, 1.0]), 1, return_index=v, device="cpu")),
]


@pytest.mark.parametrize("name,call", FLAG_CALLS)
@pytest.mark.parametrize("bad", ["no", 2, 1.0, None])
def test_flags_are_true_or_false(name, call, bad):
    """A flag is True or False (Python's or numpy's): "no", 2, 1.0 and None are refused naming the argument,
    not read by their truth value ("no" was descending, None was not)."""
    with pytest.raises(ValueError, match=f"{name} must be True or False, not "):
        call(bad)
    call(True)
    call(np.bool_(False))


def test_har_and_sweep_scalars():
    """raid.har's alpha and raid.sweep's cost_bps and bars_per_year are real numbers (text is not parsed),
    its short and trades flags True or False."""
    rng = np.random.default_rng(5)
    close = 100 * np.exp(np.cumsum(rng.standard_normal(400) * 0.01))
    with pytest.raises(ValueError, match="cost_bps must be a real number, not '5' \\(str\\)"):
        raid.sweep(close, fast=(5, 10, 5), slow=(20, 30, 10), cost_bps="5", device="cpu")
    with pytest.raises(ValueError, match="bars_per_year must be a real number, not True"):
        raid.sweep(close, fast=(5, 10, 5), slow=(20, 30, 10), bars_per_year=True, device="cpu")
    for name in ("short", "trades"):
        with pytest.raises(ValueError, match=f"{name} must be True or False, not 'no'"):
            raid.sweep(close, fast=(5, 10, 5), slow=(20, 30, 10), device="cpu", **{name: "no"})
    raid.sweep(close, fast=(5, 10, 5), slow=(20, 30, 10), cost_bps=5, bars_per_year=np.float64(252),
               short=np.bool_(True), device="cpu")
    days = pd.date_range("2020-01-01", periods=60, freq="B")
    m = pd.DataFrame({"symbol": "A", "date": days.strftime("%Y-%m-%d"), "rv": np.exp(rng.standard_normal(60)) * 1e-4})
    with pytest.raises(ValueError, match="alpha must be a real number, not '0.05' \\(str\\)"):
        raid.har(m, alpha="0.05", device="cpu")
