"""Python arch 8 on the panel of bench_garch (--dump FILE): the peer of its benchmark.

Fitting all 10,000 series with arch takes minutes per core, so a SAMPLE of series is fitted and the
time scaled to the whole panel (the output says which numbers are scaled):
  one process  --sample M series spread over the panel, fitted one after another;
  pool         a multiprocessing pool of all the machine's cores (or --procs P) over --pool-sample series;
  rolling      the first W + N - 1 returns of series 0 (bench_garch's rolling series), windows of W
               returns: the first --roll-sample windows fitted in order, each warm-started from the
               previous window's estimates (arch's own advice for rolling refits), scaled to N windows.
Model: arch_model(r, mean="Constant", vol="GARCH", p=1, q=1, dist="t" | "normal", rescale=False)
.fit(disp="off"), robust standard errors (arch's default) included, as RAID's fit computes them.
usage: python3 peers_garch.py FILE [--dist t] [--sample 100] [--pool-sample 320] [--procs P]
                              [--window 1000] [--windows 1000] [--roll-sample 100]
"""
import argparse
import multiprocessing as mp
import os
import time
import warnings

import numpy as np


def load(path):
    with open(path, "rb") as f:
        S, T = np.fromfile(f, dtype=np.int64, count=2)
        R = np.fromfile(f, dtype=np.float64, count=S * T).reshape(S, T)
    return R


def fit_one(args):
    r, dist, start = args
    from arch import arch_model

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        am = arch_model(r, mean="Constant", vol="GARCH", p=1, q=1, dist=dist, rescale=False)
        res = am.fit(disp="off", starting_values=start)
        _ = res.std_err  # robust standard errors, as RAID computes them
    return res.params.to_numpy(), res.convergence_flag


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("--dist", default="t")
    ap.add_argument("--sample", type=int, default=100)
    ap.add_argument("--pool-sample", type=int, default=0)
    ap.add_argument("--procs", type=int, default=os.cpu_count())
    ap.add_argument("--window", type=int, default=1000)
    ap.add_argument("--windows", type=int, default=1000)
    ap.add_argument("--roll-sample", type=int, default=100)
    a = ap.parse_args()
    import arch

    R = load(a.file)
    S, T = R.shape
    print(f"arch {arch.__version__}; panel {S} x {T}; {os.cpu_count()} cpus")
    idx = np.linspace(0, S - 1, min(a.sample, S)).astype(int)
    fit_one((R[0], a.dist, None))  # imports and first-call costs outside the timing
    t0 = time.perf_counter()
    flags = [fit_one((R[i], a.dist, None))[1] for i in idx]
    dt = time.perf_counter() - t0
    print(f"one process: {len(idx)} fits in {dt:.2f} s = {1e3 * dt / len(idx):.1f} ms/fit "
          f"(arch convergence flag != 0 in {sum(f != 0 for f in flags)}); "
          f"scaled to {S} fits: {dt / len(idx) * S:.1f} s (scaled, not measured)")

    n_pool = a.pool_sample or 20 * a.procs
    pidx = np.linspace(0, S - 1, min(n_pool, S)).astype(int)
    ctx = mp.get_context("fork")
    with ctx.Pool(a.procs) as pool:
        pool.map(fit_one, [(R[0], a.dist, None)] * a.procs)  # warm the workers
        t0 = time.perf_counter()
        pool.map(fit_one, [(R[i], a.dist, None) for i in pidx], chunksize=4)
        dt = time.perf_counter() - t0
    print(f"pool of {a.procs}: {len(pidx)} fits in {dt:.2f} s = {1e3 * dt / len(pidx):.2f} ms/fit of wall; "
          f"scaled to {S} fits: {dt / len(pidx) * S:.1f} s (scaled, not measured)")

    W, N = a.window, a.windows
    if W + N - 1 <= T:
        r = R[0, : W + N - 1]
        m = min(a.roll_sample, N)
        start = fit_one((r[:W], a.dist, None))[0]
        t0 = time.perf_counter()
        for j in range(m):
            start, _ = fit_one((r[j : j + W], a.dist, start))
        dt = time.perf_counter() - t0
        print(f"rolling warm-started: {m} windows of {W} in {dt:.2f} s = {1e3 * dt / m:.1f} ms/window; "
              f"scaled to {N} windows: {dt / m * N:.1f} s (scaled, not measured)")


if __name__ == "__main__":
    main()
