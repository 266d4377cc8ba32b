"""`raid har`'s rolling Newey-West standard errors and the cpu meats against EXACT values
(tests/tools/har_oracle.py: Python integers and fractions), on SPY's HARQ rolling:1000, the case whose
windows the block meat's bound refused before its reference fit (84 of 474 taken): now nearly every window
is taken, and the block meat is within its bound (2^-36 of the meat's scale) of the exact meat, as the
row-wise meat is within a few u. Every 95th window is checked exactly (the full run: tests/golden/README.md)."""
import pathlib
import subprocess
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tools"))
import har_oracle  # noqa: E402

from test_har_statsmodels import SPY_COLS, data_path  # noqa: E402


@pytest.fixture
def harq_out(cli, tmp_path):
    out = tmp_path / "harq.csv"
    r = subprocess.run([cli, "har", data_path(), "--date-col", SPY_COLS["date_col"], "--rv-col", "RV5",
                        "--bpv-col", "BPV5", "--rq-col", "RQ5", "--model", "harq", "--window", "rolling:1000",
                        "--se", "nw", "--device", "cpu", "-o", str(out)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return out


def test_harq_rolling_exact(harq_out):
    res = har_oracle.main([data_path(), "--model", "harq", "--rv-col", "RV5", "--bpv-col", "BPV5", "--rq-col", "RQ5",
                           "--window", "1000", "--meat", "--coefs", str(harq_out), "--every", "95"])
    assert res["windows"] == 474
    assert res["taken"] >= 470  # 473 measured; 84 before the reference fit
    assert res["meat_worst"]["blocks"] < 2.0 ** -36
    assert res["meat_worst"]["rows"] < 4 * 2.0 ** -53
    assert res["se_worst"][0] < 1e-12  # 4.5e-14 at worst over all 474 windows
