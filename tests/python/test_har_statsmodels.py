"""raid.har (the package) against statsmodels OLS on SPY realized measures, and against `raid har` (the
built CLI, path in RAID_CLI): every fit here is made by both, whose CSV outputs must be equal byte for
byte (raid.to_csv of the package's DataFrames), and the package's numbers are checked.

For each model (har with none/log/sqrt, har-j with none/log, harq) and each kind of standard error
(ols, white = HC0, nw = HAC with the CLI's default lag floor(4 (n/100)^(2/9)) and no small-sample
correction), on --device cpu and --device opencl (PoCL in CI), the CLI's coefficients agree with
statsmodels to 1e-10 relative and its standard errors to 1e-8. The design is rebuilt here in numpy from
the same CSV, following docs/har.md. A rolling window is checked against statsmodels on a few windows,
and its forecasts and losses against numpy.
"""
import math
import os
import pathlib
import subprocess
import warnings

import numpy as np
import pytest
import statsmodels.api as sm

import raid
from raid._core import read_csv_exact

COEF_TOL, SE_TOL = 1e-10, 1e-8
F = {"none": lambda v: v, "log": np.log, "sqrt": np.sqrt}
FJ = {"none": lambda v: v, "log": np.log1p, "sqrt": np.sqrt}


@pytest.fixture(scope="module")
def spy(data_dir):
    return read_csv_exact(data_dir / "spy_realized_measures.csv")


def design(d, model, transform, lags=(1, 5, 22), h=1):
    """X, y and the column names as docs/har.md defines them."""
    rv = d["RV5"].to_numpy(np.float64)
    fr = F[transform](rv)
    T, M = len(rv), max(lags)
    t = np.arange(M - 1, T - h)
    names = ["const"]
    cols = [np.ones(len(t))]
    sq = np.sqrt(d["RQ5"].to_numpy(np.float64)) if model == "harq" else None
    suffix = {1: "d", 5: "w", 22: "m"}
    for i, L in enumerate(lags):
        cols.append(np.array([fr[s - L + 1:s + 1].mean() for s in t]))
        names.append(f"rv_{suffix.get(L, f'l{L}')}")
        if model == "harq" and i == 0:
            q = sq[t]
            cols.append(rv[t] * (q - q.mean()))
            names.append("rq_rv")
    if model == "har-j":
        bpv = d["BPV5"].to_numpy(np.float64)
        cols.append(FJ[transform](np.maximum(rv - bpv, 0.0))[t])
        names.append("j")
    X = np.column_stack(cols)
    y = np.array([fr[s + 1:s + h + 1].mean() for s in t])
    return X, y, names


def data_path():
    d = os.environ.get("RAID_DATA_DIR")
    root = pathlib.Path(d) if d else pathlib.Path(__file__).resolve().parents[2] / "data"
    return str(root / "spy_realized_measures.csv")


SPY_COLS = dict(date_col="DT", rv_col="RV5", bpv_col="BPV5", rq_col="RQ5")
CLI_OPT = {"model": "--model", "transform": "--transform", "se": "--se", "device": "--device", "h": "--h",
           "lags": "--lags", "nw_lag": "--nw-lag", "window": "--window"}


def fit_both(cli, tmp_path, path, df, **kw):
    """raid.har on df and `raid har` on path with the same options: the CLI's coefficients (and, with a
    window, forecasts and losses) files equal the package's DataFrames written by raid.to_csv. Returns the
    package's fit."""
    out = tmp_path / "har.csv"
    args = [a for k, v in kw.items() if k in CLI_OPT for a in (CLI_OPT[k], str(v))]
    cols = [a for k, v in kw.items() if k.endswith("_col") for a in ("--" + k[:-4].replace("_", "-") + "-col", v)]
    r = subprocess.run([cli, "har", str(path), *cols, *args, "-o", str(out)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        f = raid.har(df, **kw)
    # without a symbol column, the package says so (as `raid realized` does; `raid har` is silent)
    has_sym = "symbol_col" in kw or any(str(c).lower() == "symbol" for c in df.columns)
    assert [str(x.message) for x in w if x.category is raid.RaidNotice] == \
        ([] if has_sym else ["no symbol column 'symbol': the whole file is one series"])
    assert raid.to_csv(f.coefs) == out.read_text()
    if kw.get("window", "full") != "full":
        assert raid.to_csv(f.forecasts) == (tmp_path / "har.forecasts.csv").read_text()
        assert raid.to_csv(f.losses) == (tmp_path / "har.losses.csv").read_text()
    assert f.symbols["estimated"].all()
    return f


def relmax(a, b):
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return float(np.max(np.abs(a - b) / np.abs(b)))


CASES = [("har", "none"), ("har", "log"), ("har", "sqrt"), ("har-j", "none"), ("har-j", "log"), ("harq", "none")]


@pytest.mark.parametrize("device", ["cpu", "opencl"])
@pytest.mark.parametrize("se", ["ols", "white", "nw"])
@pytest.mark.parametrize("model,transform", CASES)
def test_har_full_sample(cli, spy, tmp_path, have_opencl, device, se, model, transform):
    if device == "opencl" and not have_opencl:
        pytest.skip("no OpenCL device")
    res = fit_both(cli, tmp_path, data_path(), spy, **SPY_COLS, model=model, transform=transform, se=se,
                   device=device).coefs
    assert len(res) == 1
    row = res.iloc[0]
    X, y, names = design(spy, model, transform)
    n = len(y)
    if se == "ols":
        ref = sm.OLS(y, X).fit()
    elif se == "white":
        ref = sm.OLS(y, X).fit(cov_type="HC0")
    else:
        L = math.floor(4 * (n / 100) ** (2 / 9))
        ref = sm.OLS(y, X).fit(cov_type="HAC", cov_kwds={"maxlags": L})
    assert row["n"] == n and row["model"] == model and row["transform"] == transform and row["h"] == 1
    beta = [row[c] for c in names]
    bse = [row[c + "_se"] for c in names]
    tval = [row[c + "_t"] for c in names]
    assert relmax(beta, ref.params) < COEF_TOL
    assert relmax(bse, ref.bse) < SE_TOL
    assert relmax(tval, ref.tvalues) < SE_TOL
    assert abs(row["r2"] - ref.rsquared) < 1e-10
    assert abs(row["r2_adj"] - ref.rsquared_adj) < 1e-10


@pytest.mark.parametrize("device", ["cpu", "opencl"])
def test_har_h5_sqrt(cli, spy, tmp_path, have_opencl, device):
    """h = 5 and other lags: y is the mean of the next five transformed days."""
    if device == "opencl" and not have_opencl:
        pytest.skip("no OpenCL device")
    res = fit_both(cli, tmp_path, data_path(), spy, **SPY_COLS, h=5, lags="1,5,10", transform="sqrt", se="nw",
                   nw_lag=7, device=device).coefs
    X, y, _ = design(spy, "har", "sqrt", lags=(1, 5, 10), h=5)
    ref = sm.OLS(y, X).fit(cov_type="HAC", cov_kwds={"maxlags": 7})
    row = res.iloc[0]
    names = ["const", "rv_d", "rv_w", "rv_l10"]
    assert row["n"] == len(y) and row["h"] == 5
    assert relmax([row[c] for c in names], ref.params) < COEF_TOL
    assert relmax([row[c + "_se"] for c in names], ref.bse) < SE_TOL


@pytest.mark.parametrize("device", ["cpu", "opencl"])
@pytest.mark.parametrize("kind", ["rolling", "expanding"])
def test_har_windows(cli, spy, tmp_path, have_opencl, device, kind):
    """Window statistics combined from blocks (device) and edges (cpu) against statsmodels on the window's
    rows; forecasts and losses against numpy."""
    if device == "opencl" and not have_opencl:
        pytest.skip("no OpenCL device")
    N = 300
    f = fit_both(cli, tmp_path, data_path(), spy, **SPY_COLS, transform="log", se="white", window=f"{kind}:{N}",
                 device=device)
    res, fc, losses = f.coefs, f.forecasts, f.losses
    X, y, names = design(spy, "har", "log")
    m = len(y)
    assert len(res) == m - N + 1
    dates = spy["DT"].to_numpy()
    rv = spy["RV5"].to_numpy(np.float64)
    for e in (N - 1, N + 37, N + 50, 2 * N + 13, m - 2, m - 1):
        s0 = e - N + 1 if kind == "rolling" else 0
        ref = sm.OLS(y[s0:e + 1], X[s0:e + 1]).fit(cov_type="HC0")
        row = res.iloc[e - (N - 1)]
        assert row["window_end"] == dates[e + 21 + 1]  # row e is day t = e + 21; its target day t + 1
        assert row["n"] == e + 1 - s0
        assert relmax([row[c] for c in names], ref.params) < COEF_TOL
        assert relmax([row[c + "_se"] for c in names], ref.bse) < SE_TOL
    # forecasts: the window ending at row e forecasts row e + 1 (h = 1), back-transformed by exp
    assert len(fc) == m - N
    for e in (N - 1, N + 100, m - 2):
        row = res.iloc[e - (N - 1)]
        beta = np.array([row[c] for c in names])
        f = math.exp(X[e + 1] @ beta)
        a = rv[e + 1 + 21 + 1]
        got = fc.iloc[e - (N - 1)]
        assert got["date"] == dates[e + 23]
        assert abs(got["forecast"] - f) / f < 1e-12
        assert got["actual"] == a
    a, f = fc["actual"].to_numpy(), fc["forecast"].to_numpy()
    assert abs(losses["mse"][0] - np.mean((a - f) ** 2)) / losses["mse"][0] < 1e-9
    q = a / f - np.log(a / f) - 1
    assert abs(losses["qlike"][0] - q.mean()) / losses["qlike"][0] < 1e-9
    assert losses["n_forecasts"][0] == m - N


@pytest.mark.parametrize("se", ["ols", "white", "nw"])
def test_har_on_raid_realized_output(cli, tmp_path, have_opencl, se):
    """The main pipeline on the bundled data: realized measures of the USD/CHF quotes, then HAR on them,
    by the package (realized_from_prices, har) and by the CLI (`raid realized`, `raid har` on its output),
    against statsmodels on the same rv column."""
    root = pathlib.Path(__file__).resolve().parents[2]
    rm = tmp_path / "rm.csv"
    device = "opencl" if have_opencl else "cpu"
    r = subprocess.run([cli, "realized", str(root / "data" / "usdchf_30min.csv"), "--sample", "30min",
                        "--device", device, "-o", str(rm)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    measures = raid.realized_from_prices(read_csv_exact(root / "data" / "usdchf_30min.csv"), sample="30min",
                                         device=device)
    assert raid.to_csv(measures) == rm.read_text()
    res = fit_both(cli, tmp_path, rm, measures, se=se, device=device).coefs
    d = measures.rename(columns={"rv": "RV5"})
    assert len(res) == 1 and res.iloc[0]["symbol"] == "USDCHF"
    X, y, names = design(d, "har", "none")
    if se == "ols":
        ref = sm.OLS(y, X).fit()
    elif se == "white":
        ref = sm.OLS(y, X).fit(cov_type="HC0")
    else:
        ref = sm.OLS(y, X).fit(cov_type="HAC", cov_kwds={"maxlags": math.floor(4 * (len(y) / 100) ** (2 / 9))})
    row = res.iloc[0]
    assert row["n"] == len(y)
    assert relmax([row[c] for c in names], ref.params) < COEF_TOL
    assert relmax([row[c + "_se"] for c in names], ref.bse) < SE_TOL
