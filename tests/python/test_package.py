"""The package raid against the CLI: the same data and options give the same numbers, and
realized_from_prices gives `raid realized`'s CSV byte for byte (raid.to_csv); errors are RaidError with
the library's status and message."""
import io
import subprocess
import warnings

import numpy as np
import pandas as pd
import pytest

import raid
from raid._core import read_csv_exact

DEVICES = [("cpu", "df"), ("opencl", "df"), ("opencl", "f32")]


def cli_realized(cli, tmp_path, path, *args):
    out = tmp_path / "cli.csv"
    r = subprocess.run([cli, "realized", str(path), *args, "-o", str(out)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return out.read_text(), r.stderr


def device_ok(device, have_opencl):
    if device == "opencl" and not have_opencl:
        pytest.skip("no OpenCL device")


# file, options (CLI spelling), the same as keyword arguments
CASES = [
    ("onemin_stock_market.csv", [], {}),
    ("onemin_stock_market.csv", ["--sample", "tick"], {"sample": "tick"}),
    ("onemin_stock_market.csv", ["--sample", "1min", "--session", "10:00-15:30"],
     {"sample": "1min", "session": "10:00-15:30"}),
    ("usdchf_30min.csv", ["--sample", "30min"], {"sample": "30min"}),
    ("usdchf_30min.csv", ["--sample", "1h", "--session", "17:00-16:00"], {"sample": "1h", "session": "17:00-16:00"}),
    ("trades_xxx_2days.csv", ["--sample", "tick"], {"sample": "tick"}),
    ("trades_xxx_2days.csv", ["--sample", "1s"], {"sample": "1s"}),
]


@pytest.mark.parametrize("device,precision", DEVICES)
@pytest.mark.parametrize("name,args,kw", CASES)
def test_realized_from_prices_equals_cli(cli, data_dir, tmp_path, have_opencl, device, precision, name, args, kw):
    device_ok(device, have_opencl)
    want, _ = cli_realized(cli, tmp_path, data_dir / name, *args, "--device", device, "--precision", precision)
    df = pd.read_csv(data_dir / name)  # timestamps as strings, read as the CLI reads them
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", raid.RaidNotice)
        got = raid.realized_from_prices(df, device=device, precision=precision, **kw)
    assert raid.to_csv(got) == want
    # and with the timestamps parsed by pandas (naive datetime64: wall-clock times)
    df["timestamp"] = pd.to_datetime(df["timestamp"], format="ISO8601")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", raid.RaidNotice)
        assert raid.to_csv(raid.realized_from_prices(df, device=device, precision=precision, **kw)) == want


def test_utc_instants_and_tz(cli, data_dir, tmp_path):
    """Timestamps with an offset (UTC instants) are converted to tz as the CLI converts '...Z' ones;
    shuffled symbols interleave; other column names."""
    df = pd.read_csv(data_dir / "onemin_stock_market.csv")
    t = pd.to_datetime(df["timestamp"], format="ISO8601").dt.tz_localize("America/New_York")
    df["timestamp"] = t.dt.tz_convert("UTC").dt.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    df = df.iloc[np.argsort(np.tile([0, 1], len(df))[:len(df)] + np.arange(len(df)) % 7, kind="stable")]
    df = df.sort_values("timestamp", kind="stable")  # symbols interleaved, each in time order
    df = df.rename(columns={"symbol": "Ticker", "timestamp": "When", "price": "PX"})
    path = tmp_path / "utc.csv"
    df.to_csv(path, index=False)
    args = ["--tz", "America/New_York", "--session", "09:30-16:00", "--symbol-col", "ticker",
            "--time-col", "when", "--price-col", "px"]
    want, _ = cli_realized(cli, tmp_path, path, *args, "--device", "cpu")
    kw = dict(tz="America/New_York", session="09:30-16:00", symbol_col="ticker", time_col="when",
              price_col="px", device="cpu")
    assert raid.to_csv(raid.realized_from_prices(df, **kw)) == want
    # tz-aware datetime64 (instants) give the same
    df["When"] = pd.to_datetime(df["When"], format="ISO8601")
    assert isinstance(df["When"].dtype, pd.DatetimeTZDtype)
    assert raid.to_csv(raid.realized_from_prices(df, **kw)) == want
    assert want.count("\n") > 30


def test_mixed_offsets(cli, data_dir, tmp_path):
    """Strings with and without an offset in one column (and comma fractions): each row read as the CSV
    reader reads it."""
    df = pd.read_csv(data_dir / "onemin_stock_market.csv")
    i = np.arange(len(df))
    df["timestamp"] = df["timestamp"].str.replace(".000000", ",000000", regex=False)
    df.loc[i % 3 == 1, "timestamp"] = df.loc[i % 3 == 1, "timestamp"] + "Z"
    df.loc[i % 3 == 2, "timestamp"] = df.loc[i % 3 == 2, "timestamp"] + "+00:00"
    path = tmp_path / "mixed.csv"
    df.to_csv(path, index=False)
    want, _ = cli_realized(cli, tmp_path, path, "--sample", "1min", "--device", "cpu")
    assert raid.to_csv(raid.realized_from_prices(df, sample="1min", device="cpu")) == want


def test_no_symbol_column(cli, data_dir, tmp_path):
    df = pd.read_csv(data_dir / "usdchf_30min.csv").drop(columns="symbol")
    path = tmp_path / "nosym.csv"
    df.to_csv(path, index=False)
    want, _ = cli_realized(cli, tmp_path, path, "--sample", "30min", "--device", "cpu")
    with pytest.warns(raid.RaidNotice, match="no symbol column 'symbol': the whole file is one series"):
        got = raid.realized_from_prices(df, sample="30min", device="cpu")
    assert (got["symbol"] == "").all()
    assert raid.to_csv(got) == want


@pytest.mark.parametrize("device,precision", DEVICES)
def test_simulated_prices(cli, tmp_path, have_opencl, device, precision, monkeypatch):
    """raid.simulate gives the prices `raid simulate` writes; their measures equal the CLI's, also when
    the segments are taken and computed a few at a time (every 5000 rows pushed)."""
    device_ok(device, have_opencl)
    path = tmp_path / "sim.csv"
    r = subprocess.run([cli, "simulate", "--seed", "7", "--symbols", "3", "--days", "4", "--obs", "4681",
                        "--noise-sd", "1e-4", "-o", str(path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    sim = raid.simulate(seed=7, nsymbols=3, ndays=4, obs_per_day=4681, noise_sd=1e-4)
    ref = read_csv_exact(path)
    assert list(sim.columns) == ["symbol", "timestamp", "price"] and len(sim) == 3 * 4 * 4681
    assert (sim["symbol"] == ref["symbol"]).all()
    assert (sim["timestamp"] == pd.to_datetime(ref["timestamp"], format="ISO8601")).all()
    assert np.array_equal(sim["price"].to_numpy(), ref["price"].to_numpy())
    for sample in ("5min", "tick"):
        want, _ = cli_realized(cli, tmp_path, path, "--sample", sample, "--device", device, "--precision", precision)
        got = raid.realized_from_prices(sim, sample=sample, device=device, precision=precision)
        assert raid.to_csv(got) == want
        with monkeypatch.context() as m:
            m.setattr(raid._realized, "_TAKE_EVERY", 5000)
            got = raid.realized_from_prices(sim, sample=sample, device=device, precision=precision)
        assert raid.to_csv(got) == want


@pytest.mark.parametrize("device,precision", DEVICES)
def test_realized_on_returns_equals_cli(cli, tmp_path, have_opencl, device, precision):
    """raid.realized on numpy returns against `raid realized --input returns` on the same returns."""
    device_ok(device, have_opencl)
    ret, iv = raid.simulate(kind="returns", seed=3, nsymbols=2, ndays=3, obs_per_day=2001, iv=True)
    assert len(ret) == 2 * 3 * 2000 and len(iv) == 6 and (iv["iv"] > 0).all()
    r = ret["ret"].to_numpy()
    seg = ret["series"].to_numpy() * 3 + ret["day"].to_numpy()
    offsets = np.concatenate([[0], np.flatnonzero(np.diff(seg)) + 1, [len(r)]])
    # short segments too: measures undefined (NaN) below their minimum length
    offsets = np.concatenate([[0, 0, 1, 3], offsets[1:] + 3])
    r = np.concatenate([[0.001, -0.002, 0.0005], r])
    got = raid.realized(r, offsets, device=device, precision=precision)
    assert len(got) == len(offsets) - 1 and got["n"].tolist()[:3] == [0, 1, 2]
    days = pd.date_range("2020-01-01", periods=len(offsets) - 1, freq="D").strftime("%Y-%m-%d")
    path = tmp_path / "ret.csv"
    with open(path, "w") as f:
        f.write("symbol,date,ret\n")
        for s in range(len(offsets) - 1):
            for v in r[offsets[s]:offsets[s + 1]]:
                f.write(f"X,{days[s]},{float(v)!r}\n")
    text, _ = cli_realized(cli, tmp_path, path, "--input", "returns", "--device", device, "--precision", precision)
    want = read_csv_exact(io.StringIO(text))
    want = want[want["n"] > 0].reset_index(drop=True)  # a day without rows is no segment in a file
    mine = got[got["n"] > 0].reset_index(drop=True)
    for c in ["n", *raid.measure_names()]:
        assert np.array_equal(mine[c].to_numpy(), want[c].to_numpy(), equal_nan=True), c


def test_devices_and_names():
    d = raid.devices()
    assert list(d.columns)[:3] == ["device", "type", "name"]
    assert all(s == f"{b}:" + (f"{p}.{i}" if b == "opencl" else f"{i}")
               for s, b, p, i in zip(d["device"], d["backend"], d["platform"], d["index"]))
    if raid.backend_absent("cuda") is None:
        assert "cuda" in set(d["backend"])
    assert raid.backend_absent("cpu") is None
    assert raid.measure_names() == ["rv", "bpv", "rs_neg", "rs_pos", "rq", "tpq", "medrv", "jump_z", "jump_p"]
    assert raid.device_name("cpu").startswith("cpu")
    assert raid.__version__ == raid.version()


def test_errors_carry_the_library_message(data_dir):
    with pytest.raises(raid.RaidError) as e:
        raid.realized([0.01, np.inf], [0, 2], device="cpu")
    assert e.value.name == "RAID_EINVAL" and e.value.status == raid.lib.RAID_EINVAL
    assert "return 1 is not finite" in str(e.value)
    with pytest.raises(raid.RaidError, match="offsets decrease"):
        raid.realized([0.01, 0.02], [0, 2, 1], device="cpu")
    with pytest.raises(raid.RaidError, match="unknown device 'gpu9'") as e:
        raid.realized([0.01], [0, 1], device="gpu9")
    assert e.value.reason == "invalid argument"
    assert "cuda or cuda:N" in str(e.value)
    why = raid.backend_absent("cuda")
    if why is not None:  # CUDA strings are known; where CUDA cannot run they name what is missing
        for spec in ("cuda", "cuda:0"):
            with pytest.raises(raid.RaidError, match="CUDA is not available") as e:
                raid.realized([0.01], [0, 1], device=spec)
            assert e.value.name == "RAID_ENODEV" and why in str(e.value)
    with pytest.raises(ValueError):
        raid.realized([0.01], [0, 5])
    df = pd.read_csv(data_dir / "onemin_stock_market.csv")
    with pytest.raises(raid.RaidError, match="unknown time zone 'Mars/Olympus'"):
        raid.realized_from_prices(df, tz="Mars/Olympus")
    with pytest.raises(raid.RaidError, match="bad sample"):
        raid.realized_from_prices(df, sample="5 parsecs")
    with pytest.raises(KeyError, match="missing column 'px'"):
        raid.realized_from_prices(df, price_col="px")
    bad = df.copy()
    bad.loc[5, "price"] = -1.0
    with pytest.raises(raid.RaidError) as e:
        raid.realized_from_prices(bad)
    assert e.value.name == "RAID_EPARSE"
    assert e.value.message == "row 5 (symbol 'STOCK'): price must be positive and finite: -1"
    back = df.copy()
    back.loc[7, "timestamp"] = back.loc[5, "timestamp"]
    with pytest.raises(raid.RaidError, match="backwards") as e:
        raid.realized_from_prices(back)
    assert e.value.name == "RAID_EPARSE"
    with pytest.raises(raid.RaidError, match="symbols"):
        raid.simulate(nsymbols=0)
    with pytest.raises(TypeError, match="unknown option"):
        raid.simulate(n_symbols=2)


def test_empty_inputs(data_dir):
    """No rows, no segments: empty results with the columns and dtypes (a Dask meta)."""
    df = pd.read_csv(data_dir / "onemin_stock_market.csv")
    e = raid.realized_from_prices(df.iloc[:0], device="cpu")
    assert e.empty and list(e.columns) == ["symbol", "date", "n", *raid.measure_names()]
    assert e["n"].dtype == np.int64 and e["rv"].dtype == np.float64
    assert raid.to_csv(e) == "symbol,date,n,rv,bpv,rs_neg,rs_pos,rq,tpq,medrv,jump_z,jump_p\n"
    assert raid.realized(np.zeros(0), [0], device="cpu").empty
    assert raid.realized(np.zeros(0), [0, 0], device="cpu")["n"].tolist() == [0]


def test_sampling_notice(data_dir):
    """The library's notice of a grid finer than the data (the CLI's stderr line) is a RaidNotice."""
    df = pd.read_csv(data_dir / "usdchf_30min.csv").head(2000)
    with pytest.warns(raid.RaidNotice):
        raid.realized_from_prices(df, sample="5min", device="cpu")


def test_har_statuses_and_errors(data_dir):
    """raid.har: an invalid specification is a RaidError with the library's message; a symbol that cannot
    be estimated is reported in the result (status, messages), the others are fitted."""
    d = raid.realized_from_prices(pd.read_csv(data_dir / "onemin_stock_market.csv"), device="cpu")
    f = raid.har(d, device="cpu")  # 22 days: too few for the monthly lag
    assert f.symbols["status"].tolist() == ["RAID_EINVAL", "RAID_EINVAL"] and f.coefs.empty
    assert [m for _, m in f.messages] == [f"{s}: too few observations (0 usable rows of 22 days, need 5)"
                                          for s in ("STOCK", "MARKET")]
    d.loc[3, "rv"] = np.nan
    f = raid.har(d, lags=[1, 5], se="white", device="cpu")
    assert f.coefs["symbol"].tolist() == ["STOCK", "MARKET"] and f.symbols["estimated"].all()
    assert f.coefs["n"].tolist() == [13, 17]
    assert f.messages[0][0] == "STOCK" and "4 of 17 design rows left out" in f.messages[0][1]
    for kw, msg in [(dict(model="harq", transform="log"), "model harq takes transform none only"),
                    (dict(model="garch"), "bad model 'garch'"),
                    (dict(window="rolling:2", lags="1,5"), "window N must exceed the number of regressors"),
                    (dict(lags=[2, 5]), "bad lags")]:
        with pytest.raises(raid.RaidError, match=msg) as e:
            raid.har(d, **kw)
        assert e.value.name == "RAID_EINVAL"
    # datetime64 dates (raid_har_input_add_ymd) give the same fit as the strings
    dt = d.assign(date=pd.to_datetime(d["date"]))
    assert raid.to_csv(raid.har(dt, lags=[1, 5], se="white", device="cpu").coefs) == raid.to_csv(f.coefs)
    with pytest.raises(ValueError, match="contiguous"):
        raid.har(pd.concat([d.iloc[:3], d.iloc[30:], d.iloc[3:30]]))
