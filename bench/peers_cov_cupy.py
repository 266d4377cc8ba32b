#!/usr/bin/env python3
"""Daily rcov by cuBLAS float64 through CuPy (not a test; see bench/README.md): the peer of bench_cov's device path.

    python3 bench/peers_cov_cupy.py RETURNS.npy [--reps 3]

RETURNS.npy: the returns of bench_cov --dump, shape (days, M, N) float64. Per day the N x N matrix R'R in
native float64 on the GPU, two ways: cupy.cublas.syrk (the upper triangle) and matmul (cuBLAS dgemm, the full
matrix), each timed (a) on device-resident returns, the sum of CUDA-event times of the days' calls (the
kernels alone), and (b) end to end from host memory: each day's returns uploaded, the matrix computed and the
full N x N float64 matrix read back to host memory (what raid_cov_compute delivers), wall seconds. Best of
--reps. One line of key=value each, with GFLOP/s counted as bench_cov counts it (N (N+1) M per day).
"""
import argparse
import time

import numpy as np


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("returns")
    ap.add_argument("--reps", type=int, default=3)
    a = ap.parse_args()
    import cupy as cp
    from cupy import cublas

    r = np.load(a.returns)
    days, m, n = r.shape
    flops = float(n) * (n + 1) * m * days
    host_out = np.empty((n, n))
    dev_r = cp.asarray(r)
    fns = {"cublas_syrk": lambda x: cublas.syrk("T", x, lower=False),
           "cublas_dgemm": lambda x: x.T @ x}
    for name, fn in fns.items():
        fn(dev_r[0])
        cp.cuda.Device().synchronize()
        best_k = best_w = float("inf")
        for _ in range(a.reps):
            start, stop = cp.cuda.Event(), cp.cuda.Event()
            start.record()
            for d in range(days):
                fn(dev_r[d])
            stop.record()
            stop.synchronize()
            best_k = min(best_k, cp.cuda.get_elapsed_time(start, stop) * 1e-3)
            t0 = time.perf_counter()
            for d in range(days):
                x = cp.asarray(r[d])
                fn(x).get(out=host_out)
            best_w = min(best_w, time.perf_counter() - t0)
        print(f"peer={name} N={n} M={m} days={days} kernel_s={best_k:.4f} kernel_gflops={flops / best_k * 1e-9:.1f} "
              f"wall_s={best_w:.4f} wall_gflops={flops / best_w * 1e-9:.1f} output_gb={days * n * n * 8e-9:.3f}",
              flush=True)


if __name__ == "__main__":
    main()
