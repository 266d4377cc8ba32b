"""The Python package's progress= (docs/python.md "Progress"): a callable(done, total), tqdm-like classes
and bars (fakes: tqdm is not a test dependency), progress=True with tqdm.auto and without tqdm, a bad
value, and a failing callback (raised after the job; the context reports to nobody afterwards), for
raid.ma, raid.garch (windows), raid.sweep and raid.har (windows)."""
import sys
import types

import numpy as np
import pandas as pd
import pytest

import raid


class FakeBar:
    """What the package uses of a tqdm bar."""
    made = []

    def __init__(self, total=None, unit="it", unit_scale=False, desc=None):
        self.total, self.unit, self.unit_scale, self.desc = total, unit, unit_scale, desc
        self.n, self.closed, self.resets = 0, False, 0
        FakeBar.made.append(self)

    def update(self, k):
        assert k >= 0
        self.n += k

    def reset(self, total=None):
        self.total, self.n = total, 0
        self.resets += 1

    def refresh(self):
        pass

    def close(self):
        self.closed = True


def ragged(ns=200000, length=10):
    x = np.linspace(1.0, 2.0, ns * length)
    return x, np.arange(0, ns * length + 1, length, dtype=np.int64)


def test_callable_gets_done_and_total():
    x, off = ragged()
    calls = []
    raid.ma(x, "wma", 3, offsets=off, progress=lambda d, t: calls.append((d, t)), device="cpu")
    assert calls and calls[-1] == (off.size - 1, off.size - 1)
    assert all(a[0] <= b[0] for a, b in zip(calls, calls[1:]))
    assert len(calls) < 1000  # the library's throttle


def test_garch_windows_to_a_tqdm_class(data_dir):
    r = pd.read_csv(data_dir / "dem2gbp.csv")["ret"].to_numpy()
    FakeBar.made = []
    raid.garch(r, window="rolling:500", device="cpu", progress=FakeBar)
    assert len(FakeBar.made) == 1
    b = FakeBar.made[0]
    assert (b.total, b.n, b.unit, b.desc, b.closed) == (1476, 1476, "fit", "garch", True)


def test_tqdm_instance_is_left_open():
    x, off = ragged(1000, 5)
    b = FakeBar(total=None)
    raid.ma(x, "mean", 2, offsets=off, progress=b, device="cpu")
    assert (b.n, b.total, b.unit, b.closed) == (1000, 1000, "series", False)


def test_progress_true_uses_tqdm_auto(monkeypatch):
    x, off = ragged(1000, 5)
    auto = types.ModuleType("tqdm.auto")
    auto.tqdm = FakeBar
    monkeypatch.setitem(sys.modules, "tqdm", types.ModuleType("tqdm"))
    monkeypatch.setitem(sys.modules, "tqdm.auto", auto)
    FakeBar.made = []
    raid.ma(x, "mean", 2, offsets=off, progress=True, device="cpu")
    assert len(FakeBar.made) == 1 and FakeBar.made[0].closed and FakeBar.made[0].n == 1000


def test_progress_true_without_tqdm(monkeypatch):
    monkeypatch.setitem(sys.modules, "tqdm", None)
    monkeypatch.setitem(sys.modules, "tqdm.auto", None)
    with pytest.raises(ImportError, match="pip install tqdm"):
        raid.ma(np.ones(10), "mean", 2, progress=True)


def test_bad_progress_and_a_failing_callback():
    x, off = ragged(1000, 5)
    with pytest.raises(TypeError, match="progress must be"):
        raid.ma(x, "mean", 2, offsets=off, progress=42)

    def boom(done, total):
        raise KeyError("stop")

    with pytest.raises(KeyError, match="stop"):  # raised once the job returned
        raid.ma(x, "mean", 2, offsets=off, progress=boom, device="cpu")
    calls = []  # the context reports to nobody afterwards
    raid.ma(x, "mean", 2, offsets=off, device="cpu")
    raid.ma(x, "mean", 2, offsets=off, device="cpu", progress=lambda d, t: calls.append(d))
    assert calls[-1] == 1000


def test_sweep_and_har_report():
    rng = np.random.default_rng(1)
    close = 100 * np.exp(np.cumsum(rng.normal(0, 0.01, 3000)))
    calls = []
    res = raid.sweep(close, fast=(2, 10, 1), slow=(12, 40, 4), device="cpu", progress=lambda d, t: calls.append((d, t)))
    assert calls[-1] == (len(res), len(res))
    days = pd.bdate_range("2015-01-01", periods=800)
    m = pd.DataFrame({"symbol": "X", "date": days.strftime("%Y-%m-%d"), "rv": np.exp(rng.normal(-9, 0.5, 800))})
    calls = []
    raid.har(m, window="rolling:300", device="cpu", progress=lambda d, t: calls.append((d, t)))
    assert calls and calls[-1][0] == calls[-1][1] > 400
