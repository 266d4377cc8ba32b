"""Threads that start together: the package's promise of one library context per thread (docs/python.md),
for the threads' first calls too. Each round is a fresh interpreter, because the library starts its OpenCL
devices once per process: 16 threads released by one barrier make their first call at the same instant,
raid.realized on the OpenCL device, then each runs a group-by, a sort, an argsort, a HAR fit and a GARCH fit
(Student t), half of the threads on OpenCL and half on the cpu backend; every answer must equal, bit for
bit, what the same interpreter computes afterwards on one thread. Before the library discovered its devices
once per process, two threads' first raid.realized(..., device="opencl") crashed the interpreter or raised
RaidError RAID_ENODEV. tests/test_threads.c is the C counterpart (and runs under ThreadSanitizer)."""
import subprocess
import sys

import pytest

ROUNDS = 2

SCRIPT = r"""
import sys
import threading

import numpy as np
import pandas as pd

import raid

data_dir = sys.argv[1]
N = 16
rng = np.random.default_rng(7)
returns = rng.normal(0.0, 1e-3, 24000)
offsets = np.arange(0, returns.size + 1, 400)
keys = rng.integers(-2000, 2000, 40000) * 1000003
values = rng.normal(0.0, 1.0, keys.size) * np.where(np.arange(keys.size) % 7 == 0, 1e12, 1.0)
x = np.where(np.arange(60000) % 3 == 0, rng.integers(-150, 150, 60000).astype(float), rng.normal(0.0, 1e3, 60000))
spy = pd.read_csv(data_dir + "/spy_realized_measures.csv")
measures = pd.DataFrame({"date": spy["DT"], "rv": spy["RV5"]})
dem2gbp = pd.read_csv(data_dir + "/dem2gbp.csv")["ret"].to_numpy()


def text(df):
    return df.to_csv()  # repr of every float64: its bits, read back


def jobs(device):
    # the first call of a thread: the realized measures on the OpenCL device
    yield "realized", text(raid.realized(returns, offsets, device="opencl"))
    yield "groupby", text(raid.groupby(keys, values, aggs=("sum", "mean", "min", "max", "count"), device=device))
    yield "sort", raid.sort(x, device=device).tobytes()
    yield "argsort", raid.argsort(x, device=device, descending=True).tobytes()
    fit = raid.har(measures, window="rolling:500", device=device)
    yield "har", text(fit.coefs) + text(fit.forecasts)
    yield "garch", text(raid.garch(dem2gbp, dist="t", device=device))


barrier = threading.Barrier(N)
answers = [None] * N
errors = []


def worker(i):
    barrier.wait()
    try:
        answers[i] = dict(jobs("opencl" if i % 2 else "cpu"))
    except Exception as e:  # noqa: BLE001 (reported below with the thread)
        errors.append(f"thread {i}: {type(e).__name__}: {e}")


threads = [threading.Thread(target=worker, args=(i,)) for i in range(N)]
for t in threads:
    t.start()
for t in threads:
    t.join()
alone = {d: dict(jobs(d)) for d in ("cpu", "opencl")}
for i in range(N):
    if answers[i] is None:
        continue
    want = alone["opencl" if i % 2 else "cpu"]
    for name, got in answers[i].items():
        if got != want[name]:
            errors.append(f"thread {i}: {name} differs from one thread's answer")
print("\n".join(errors) if errors else "ok")
sys.exit(1 if errors else 0)
"""


@pytest.mark.parametrize("round_", range(ROUNDS))
def test_threads_first_calls_at_once(have_opencl, data_dir, round_):
    if not have_opencl:
        pytest.skip("no OpenCL device")
    r = subprocess.run([sys.executable, "-c", SCRIPT, str(data_dir)], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, f"exit status {r.returncode}\n{r.stdout}\n{r.stderr[-3000:]}"
    assert r.stdout.strip() == "ok"
