#!/usr/bin/env python3
"""Peers of the realized benchmark (not a test; see bench/README.md).

numpy: the same nine measures on N returns in segments of L, with the fastest plain numpy formulation
(vectorised over segments, median of three by min/max), float64.
cupy:  the bandwidth of cupy.sum (CUB's device reduction, one plain float32 sum) over N float32 values
       (and 2N for the df policy's bytes), and of a device-to-device copy, timed with CUDA events.
Prints one key=value line per measurement.
"""
import argparse
import math
import time

import numpy as np


def numpy_measures(r):
    m = r.shape[1]
    a = np.abs(r)
    sq = r * r
    rv = sq.sum(1)
    rs_neg = np.where(r < 0, sq, 0.0).sum(1)
    rs_pos = np.where(r > 0, sq, 0.0).sum(1)
    bpv = math.pi / 2 * (a[:, 1:] * a[:, :-1]).sum(1)
    rq = m / 3 * (sq * sq).sum(1)
    q = a * np.cbrt(a)
    mu43 = 2 ** (2 / 3) * math.gamma(7 / 6) / math.gamma(0.5)
    tpq = m * (m / (m - 2)) * mu43 ** -3 * (q[:, 2:] * q[:, 1:-1] * q[:, :-2]).sum(1)
    x, y, z = a[:, :-2], a[:, 1:-1], a[:, 2:]
    med = np.maximum(np.minimum(x, y), np.minimum(np.maximum(x, y), z))
    medrv = math.pi / (6 - 4 * math.sqrt(3) + math.pi) * (m / (m - 2)) * (med * med).sum(1)
    theta = math.pi ** 2 / 4 + math.pi - 5
    z = math.sqrt(m) * (1 - bpv / rv) / np.sqrt(theta * np.maximum(1, tpq / bpv ** 2))
    from math import erfc
    p = 0.5 * np.vectorize(erfc)(z / math.sqrt(2))
    return rv, bpv, rs_neg, rs_pos, rq, tpq, medrv, z, p


def bench_numpy(n, seg_len, reps):
    rng = np.random.default_rng(42)
    r = 1e-4 * rng.standard_normal((n // seg_len, seg_len))
    best = math.inf
    for _ in range(reps):
        t0 = time.perf_counter()
        numpy_measures(r)
        best = min(best, time.perf_counter() - t0)
    print(f"peer=numpy n={r.size} seg_len={seg_len} wall_s={best:.4f}", flush=True)


def bench_cupy(n, reps):
    import cupy as cp
    for label, count in (("f32", n), ("df", 2 * n)):
        x = cp.random.standard_normal(count, dtype=cp.float32)
        cp.sum(x)
        cp.cuda.runtime.deviceSynchronize()
        start, end = cp.cuda.Event(), cp.cuda.Event()
        best = math.inf
        for _ in range(reps):
            start.record()
            cp.sum(x)
            end.record()
            end.synchronize()
            best = min(best, cp.cuda.get_elapsed_time(start, end) / 1e3)
        y = cp.empty_like(x)
        bc = math.inf
        for _ in range(reps):
            start.record()
            y[...] = x
            end.record()
            end.synchronize()
            bc = min(bc, cp.cuda.get_elapsed_time(start, end) / 1e3)
        nbytes = x.nbytes
        print(f"peer=cupy policy_bytes={label} n={n} bytes={nbytes} sum_s={best:.6f} sum_GBps={nbytes / best / 1e9:.1f} "
              f"copy_GBps={2 * nbytes / bc / 1e9:.1f}", flush=True)
        del x, y
        cp.get_default_memory_pool().free_all_blocks()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seg-len", type=int, default=23400)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--numpy", type=float, nargs="*", default=[])
    ap.add_argument("--cupy", type=float, nargs="*", default=[])
    a = ap.parse_args()
    for n in a.numpy:
        bench_numpy(int(n), a.seg_len, a.reps)
    for n in a.cupy:
        bench_cupy(int(n), a.reps)


if __name__ == "__main__":
    main()
