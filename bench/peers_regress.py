#!/usr/bin/env python3
"""Peer of bench_regress (not a test; see bench/README.md): a statsmodels loop over rolling HAR-RV
regressions with Newey-West standard errors, on the same kind of panel (log-normal AR(1) rv, HAR design:
const, rv_d, rv_w, rv_m; y the next day's rv). The full loop (S symbols x windows) would take hours, so it
times R regressions and scales by the number of windows: the printed total is an extrapolation, and says
so."""
import argparse
import time

import numpy as np
import statsmodels.api as sm


def panel_symbol(T, seed):
    rng = np.random.default_rng(seed)
    h = np.zeros(T)
    e = rng.standard_normal(T)
    for t in range(1, T):
        h[t] = 0.95 * h[t - 1] + 0.3 * e[t]
    rv = 1e-4 * np.exp(h)
    t = np.arange(22, T - 1)  # as bench_regress: 22 days of history
    X = np.column_stack([np.ones(len(t)), rv[t],
                         np.array([rv[s - 4:s + 1].mean() for s in t]),
                         np.array([rv[s - 21:s + 1].mean() for s in t])])
    return X, rv[t + 1]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--symbols", type=int, default=10000)
    ap.add_argument("--days", type=int, default=5000)
    ap.add_argument("--window", type=int, default=1000)
    ap.add_argument("--step", type=int, default=1, help="rows between window ends, as bench_regress --step")
    ap.add_argument("--nw-lag", type=int, default=22)
    ap.add_argument("--sample", type=int, default=200, help="regressions actually timed")
    a = ap.parse_args()
    X, y = panel_symbol(a.days, 1)
    n = len(y)
    ends = list(range(a.window, n + 1, a.step))
    t0, c0 = time.perf_counter(), time.process_time()
    done = 0
    pick = np.linspace(0, len(ends) - 1, min(a.sample, len(ends))).astype(int)  # spread over the sample
    while done < a.sample:
        e = ends[pick[done % len(pick)]]
        sm.OLS(y[e - a.window:e], X[e - a.window:e]).fit(cov_type="HAC", cov_kwds={"maxlags": a.nw_lag})
        done += 1
    per = (time.perf_counter() - t0) / done
    per_cpu = (time.process_time() - c0) / done
    total_windows = a.symbols * len(ends)
    print(f"peer=statsmodels regressions_timed={done} per_regression_s={per:.6f} "
          f"per_regression_cpu_s={per_cpu:.6f} windows_per_symbol={len(ends)} "
          f"symbols={a.symbols} extrapolated_total_s={per * total_windows:.1f} (extrapolated, not run)", flush=True)


if __name__ == "__main__":
    main()
