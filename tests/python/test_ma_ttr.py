"""The moving averages of RAID's float64 path (raid.ma, include/raid/ma.h) against R's TTR itself (Debian
r-cran-ttr, installed by scripts/setup.sh; skipped when Rscript or TTR is missing) on data/ttrc_daily.csv
(TTR's own ttrc data set), odd and even windows, to 1e-12 relative; the device path (kernels/ta_ma.cl)
against TTR within its documented bound (docs/ta.md "The device path and its bound") plus that 1e-12; and
raid.ma against `raid ma` byte for byte (values printed in the fewest digits that read back)."""
import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest

import raid
from raid._core import read_csv_exact
from raid._csv import f64_text

WINDOWS = [2, 5, 10, 15, 20, 50, 51, 200]
# TTR's functions in the order of the columns the R script writes; var is runVar's default sample = TRUE
TTR_STATS = {"sum": "runSum(x, n)", "mean": "runMean(x, n)", "var": "runVar(x, n = n)", "wma": "WMA(x, n)",
             "ema": "EMA(x, n)", "hma": "HMA(x, n)"}

R_SCRIPT = """
suppressPackageStartupMessages(library(TTR))
a <- commandArgs(TRUE)
x <- read.csv(a[1])$close
for (n in as.integer(strsplit(a[2], ",")[[1]])) {
  out <- cbind(%s)
  write.table(ifelse(is.na(out), "nan", sprintf("%%.17g", out)), file.path(a[3], paste0("n", n, ".txt")),
              quote = FALSE, row.names = FALSE, col.names = FALSE)
}
""" % ", ".join(TTR_STATS.values())


@pytest.fixture(scope="module")
def ttr(data_dir, tmp_path_factory):
    rscript = shutil.which("Rscript")
    if rscript is None:
        pytest.skip("no Rscript (scripts/setup.sh installs r-base-core and r-cran-ttr)")
    if subprocess.run([rscript, "-e", "library(TTR)"], capture_output=True).returncode != 0:
        pytest.skip("R has no TTR (scripts/setup.sh installs r-cran-ttr)")
    out = tmp_path_factory.mktemp("ttr")
    script = out / "ttr.R"
    script.write_text(R_SCRIPT)
    path = data_dir / "ttrc_daily.csv"
    r = subprocess.run([rscript, str(script), str(path), ",".join(map(str, WINDOWS)), str(out)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return {n: np.loadtxt(out / f"n{n}.txt").reshape(-1, len(TTR_STATS)) for n in WINDOWS}


@pytest.fixture(scope="module")
def close(data_dir):
    return read_csv_exact(data_dir / "ttrc_daily.csv")["close"].to_numpy()


@pytest.mark.parametrize("n", WINDOWS)
@pytest.mark.parametrize("stat", list(TTR_STATS))
def test_against_ttr(ttr, close, stat, n):
    want = ttr[n][:, list(TTR_STATS).index(stat)]
    got = raid.ma(close, stat, n, device="cpu")
    assert want.shape == got.shape
    # the same warm-up: NaN exactly where TTR has NA
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    m = ~np.isnan(want)
    err = np.abs(got[m] - want[m])
    # relative to TTR's value (0 must be 0: a variance of equal closes)
    bad = err > 1e-12 * np.abs(want[m])
    assert not bad.any(), f"{stat}({n}): {bad.sum()} values beyond 1e-12 relative, max {(err / np.abs(want[m])).max()}"


U2 = 2.0 ** -48  # u^2, u = 2^-24


def device_bound(stat, n, want, M):
    """docs/ta.md's bound of |device - float64| (M the largest |x|)."""
    return {"sum": 2 * U2 * n * M, "mean": 2 * U2 * M, "wma": 2 * U2 * M, "hma": 30 * U2 * M,
            "ema": (4 + 7 * (n + 1)) * U2 * M,
            "var": 16 * U2 * M * np.sqrt(n / (n - 1) * np.abs(want)) + 4 * U2 * np.abs(want) + 64 * U2 * U2 * M * M,
            }[stat]


@pytest.mark.parametrize("n", WINDOWS)
@pytest.mark.parametrize("stat", list(TTR_STATS))
def test_device_against_ttr(ttr, close, have_opencl, stat, n):
    if not have_opencl:
        pytest.skip("no OpenCL device")
    want = ttr[n][:, list(TTR_STATS).index(stat)]
    got = raid.ma(close, stat, n, device="opencl")
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    m = ~np.isnan(want)
    err = np.abs(got[m] - want[m])
    tol = device_bound(stat, n, want[m], np.abs(close).max()) + 1e-12 * np.abs(want[m])
    assert (err <= tol).all(), f"{stat}({n}): max |device - TTR| / tolerance {(err / tol).max()}"


def test_ttr_leading_na_shift(ttr, close, tmp_path):
    """Leading NaN shift the output as TTR's do: TTR on x with 7 leading NA equals RAID on the same."""
    rscript = shutil.which("Rscript")
    x = np.r_[np.full(7, np.nan), close[:300]]
    src = tmp_path / "x.txt"
    np.savetxt(src, x, fmt="%.17g")
    r = subprocess.run([rscript, "-e", "suppressPackageStartupMessages(library(TTR)); a <- commandArgs(TRUE); "
                        "x <- as.numeric(readLines(a[1])); out <- cbind(WMA(x, 10), EMA(x, 10), HMA(x, 10), "
                        "runSum(x, 10), runVar(x, n = 10)); "
                        "write.table(ifelse(is.na(out), 'nan', sprintf('%.17g', out)), a[2], quote = FALSE, "
                        "row.names = FALSE, col.names = FALSE)", str(src), str(tmp_path / "o.txt")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    want = np.loadtxt(tmp_path / "o.txt")
    for j, stat in enumerate(["wma", "ema", "hma", "sum", "var"]):
        got = raid.ma(x, stat, 10, device="cpu")
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want[:, j]))
        m = ~np.isnan(want[:, j])
        np.testing.assert_allclose(got[m], want[m, j], rtol=1e-12, atol=0)


@pytest.mark.parametrize("stat,n", [("wma", 10), ("ema", 15), ("hma", 20), ("var", 5), ("sumsq", 3)])
def test_python_equals_cli(cli, data_dir, tmp_path, stat, n):
    """raid.ma on the DataFrame gives `raid ma`'s bytes (dates as read, values in the fewest digits that read
    back, empty for NaN)."""
    path = data_dir / "ttrc_daily.csv"
    out = tmp_path / "o.csv"
    r = subprocess.run([cli, "ma", str(path), "--stat", stat, "--window", str(n), "--device", "cpu", "-o", str(out)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    df = raid.ma(read_csv_exact(path, dtype={"date": str}), stat, n, device="cpu")
    lines = [f"date,{stat}"] + [f"{d},{f64_text(v)}" for d, v in zip(df["date"], df[stat])]
    assert out.read_text() == "\n".join(lines) + "\n"


def test_python_symbols_equal_cli(cli, data_dir, tmp_path):
    """Two symbols (the second with leading and inner empty closes) in one call, as the CLI reads them."""
    base = read_csv_exact(data_dir / "ttrc_daily.csv", dtype={"date": str})[["date", "close"]]
    a, b = base.iloc[:400].copy(), base.iloc[400:900].copy()
    b.loc[b.index[:3], "close"] = np.nan
    b.loc[b.index[100], "close"] = np.nan
    a.insert(0, "symbol", "A")
    b.insert(0, "symbol", "B")
    df = pd.concat([a, b], ignore_index=True)
    src = tmp_path / "two.csv"
    df.to_csv(src, index=False, float_format="%.17g")
    out = tmp_path / "o.csv"
    r = subprocess.run([cli, "ma", str(src), "--stat", "hma", "--window", "9", "--device", "cpu", "-o", str(out)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    got = raid.ma(df, "hma", 9, device="cpu")
    lines = ["symbol,date,hma"] + [f"{s},{d},{f64_text(v)}" for s, d, v in zip(got["symbol"], got["date"], got["hma"])]
    assert out.read_text() == "\n".join(lines) + "\n"
    # B restarts after its inner NaN: 9 - 1 + 3 - 1 = 10 NaN after it
    hb = got["hma"].to_numpy()[400:]
    assert np.isnan(hb[:3 + 10]).all() and not np.isnan(hb[13])
    assert np.isnan(hb[100:111]).all() and not np.isnan(hb[111])
    # the segments in one call equal each series alone
    np.testing.assert_array_equal(got["hma"].to_numpy()[:400], raid.ma(a["close"].to_numpy(), "hma", 9))
    np.testing.assert_array_equal(hb, raid.ma(b["close"].to_numpy(), "hma", 9))


def test_errors():
    with pytest.raises(raid.RaidError, match="window"):
        raid.ma([1.0, 2.0], "hma", 1)
    with pytest.raises(raid.RaidError, match="stat"):
        raid.ma([1.0, 2.0], "SMA", 1)  # "sma" is the mean (TTR), names are lower case
    with pytest.raises(raid.RaidError, match="not a finite"):
        raid.ma([1.0, np.inf], "mean", 1)
    with pytest.raises(ValueError, match="contiguous"):
        raid.ma(pd.DataFrame({"symbol": ["a", "b", "a"], "date": ["1", "2", "3"], "close": [1.0, 2, 3]}), "sum", 1)
