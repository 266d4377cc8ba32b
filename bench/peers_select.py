"""Peers of bench_select: the same selections on the same doubles with numpy, and
with polars and CuPy where they are importable (neither is a dependency of the project: measure polars
from a throwaway venv, never the project's .venv; CuPy on the GPU machine).

Data: --raw FILE, the little-endian float64 values `bench_select --dump FILE` wrote (the very same
doubles), or --n N normal values from numpy's generator (--seed). Each operation is the best of --reps
wall times (CuPy: CUDA events, the data already on the GPU, as RAID's kernel time); printed as
`peer op seconds result`. Results are checked against numpy's where the peer's semantics are numpy's.

  numpy : np.median, np.quantile(x, [0.01, 0.5, 0.99]), np.partition(x, n // 3)[n // 3], np.min + np.max
          (+ nanmin + nanmax, as raid's minmax gives all four), top-1000 by np.partition + sort of 1,000
  polars: Series.median, Series.quantile(q, 'linear') (one call per q), min, max, Series.top_k(1000)
  cupy  : cupy.median (a sort: CUB), cupy.quantile, cupy.partition, cupy.min/max, cupy.sort(x)[-1000:]

usage: python3 peers_select.py [--raw FILE | --n 10000000 --seed 1] [--reps 5] [--threads N]
"""
import argparse
import os
import time

import numpy as np

Q = [0.01, 0.5, 0.99]


def best(f, reps):
    t, r = float("inf"), None
    for _ in range(reps):
        t0 = time.perf_counter()
        r = f()
        t = min(t, time.perf_counter() - t0)
    return t, r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--raw")
    ap.add_argument("--n", type=int, default=10_000_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--threads", type=int, default=0, help="POLARS_MAX_THREADS (0: polars' default)")
    a = ap.parse_args()
    x = np.fromfile(a.raw, dtype="<f8") if a.raw else np.random.default_rng(a.seed).normal(size=a.n)
    n = x.size
    k = n // 3
    print(f"# peers_select: n {n} ({'raw ' + a.raw if a.raw else 'numpy normal, seed %d' % a.seed}), best of {a.reps}")
    ops = {
        "median": lambda: np.median(x),
        "quantile3": lambda: np.quantile(x, Q),
        "kth": lambda: np.partition(x, k)[k],
        "minmax": lambda: (np.min(x), np.max(x), np.nanmin(x), np.nanmax(x)),
        "top1000": lambda: np.sort(np.partition(x, n - 1000)[n - 1000:])[::-1],
    }
    ref = {}
    for name, f in ops.items():
        t, r = best(f, a.reps)
        ref[name] = r
        print(f"numpy {name} {t:.6f} {np.ravel(r)[0]!r}")
    if a.threads:
        os.environ["POLARS_MAX_THREADS"] = str(a.threads)
    try:
        import polars as pl
    except ImportError:
        print("# polars: not importable (skipped)")
    else:
        s = pl.Series(x)
        pops = {
            "median": lambda: s.median(),
            "quantile3": lambda: [s.quantile(q, "linear") for q in Q],
            "minmax": lambda: (s.min(), s.max()),
            "top1000": lambda: s.top_k(1000).sort(descending=True),
        }
        print(f"# polars {pl.__version__}, {pl.thread_pool_size()} threads")
        for name, f in pops.items():
            t, r = best(f, a.reps)
            v = r[0] if isinstance(r, (list, tuple, pl.Series)) else r
            print(f"polars {name} {t:.6f} {v!r}")
    try:
        import cupy as cp
    except ImportError:
        print("# cupy: not importable (skipped)")
        return
    xd = cp.asarray(x)
    cops = {
        "median": lambda: cp.median(xd),
        "quantile3": lambda: cp.quantile(xd, cp.asarray(Q)),
        "kth": lambda: cp.partition(xd, k)[k],
        "minmax": lambda: (cp.min(xd), cp.max(xd)),
        "top1000": lambda: cp.sort(xd)[-1000:][::-1],
        "sort": lambda: cp.sort(xd),
    }
    for name, f in cops.items():
        f()
        cp.cuda.Device().synchronize()
        t = float("inf")
        for _ in range(a.reps):
            e0, e1 = cp.cuda.Event(), cp.cuda.Event()
            e0.record()
            r = f()
            e1.record()
            e1.synchronize()
            t = min(t, cp.cuda.get_elapsed_time(e0, e1) / 1000)
        v = r[0] if isinstance(r, tuple) else r
        print(f"cupy {name} {t:.6f} {float(cp.ravel(cp.asarray(v))[0])!r}")


if __name__ == "__main__":
    main()
