#!/usr/bin/env python3
"""Daily rcov by numpy/BLAS on the host (not a test; see bench/README.md): the peer of bench_cov's cpu path.

    python3 bench/peers_cov_numpy.py RETURNS.npy [--days K]

RETURNS.npy: the returns of bench_cov --dump, shape (days, M, N) float64. For each of the first K days (all by
default) the N x N matrix R'R by numpy's matmul (BLAS dgemm, the full matrix) and by scipy's BLAS dsyrk (the
upper triangle, half the multiply-adds; where scipy is installed), one line of key=value each: wall seconds, days per second, the rate
in GFLOP/s counted as bench_cov counts it (N (N+1) M per day for both), and seconds per 252 days. The number
of BLAS threads is the environment's (OPENBLAS_NUM_THREADS, OMP_NUM_THREADS): set it to compare per core.
"""
import argparse
import os
import time

import numpy as np


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("returns")
    ap.add_argument("--days", type=int, default=0)
    a = ap.parse_args()
    r = np.load(a.returns, mmap_mode="r")
    days = r.shape[0] if a.days <= 0 else min(a.days, r.shape[0])
    _, m, n = r.shape
    peers = [("numpy_matmul", lambda x: x.T @ x)]
    try:
        from scipy.linalg.blas import dsyrk
        peers.append(("scipy_dsyrk", lambda x: dsyrk(1.0, x, trans=1, lower=0)))
    except ImportError:  # numpy alone: the matmul only
        pass
    threads = os.environ.get("OPENBLAS_NUM_THREADS", os.environ.get("OMP_NUM_THREADS", "default"))
    flops = float(n) * (n + 1) * m * days
    for name, fn in peers:
        fn(np.ascontiguousarray(r[0]))  # warm-up
        wall = 0.0
        for d in range(days):
            x = np.asfortranarray(r[d]) if name == "scipy_dsyrk" else np.ascontiguousarray(r[d])
            t0 = time.perf_counter()
            fn(x)
            wall += time.perf_counter() - t0
        print(f"peer={name} N={n} M={m} days={days} threads={threads} wall_s={wall:.4f} "
              f"days_per_s={days / wall:.2f} gflops={flops / wall * 1e-9:.3f} s_per_252_days={wall / days * 252:.3f}",
              flush=True)


if __name__ == "__main__":
    main()
