"""Peers of the sort benchmark (bench_sort.c is RAID's side): sort and stable argsort
of N float64 (standard normal draws, or with --data prices 100 + N(0,1) rounded to cents: about 1,000
distinct values, ties everywhere) by numpy (one core: np.sort default and kind='stable',
np.argsort(kind='stable')), polars (all cores: Series.sort, Series.arg_sort, stable by construction) and
CuPy on the GPU (cupy.sort, cupy.argsort: CUB's radix sort; timed with CUDA events after a warm-up,
transfers excluded), and, where the package is importable, RAID itself (raid.sort, raid.argsort on
--device), each best of --reps, printed side by side in one run. The packages that are missing are
said so and skipped; none is a dependency of the project (polars: a throwaway venv, never .venv).

usage: python3 peers_sort.py [--n 10000000] [--reps 5] [--data normal|prices] [--device cpu|opencl|...] [--no-raid]
       [--no-cpu] [--sort-only]
"""
import argparse
import time

import numpy as np


def best(fn, reps):
    fn()  # warm-up
    t = 1e300
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        t = min(t, time.perf_counter() - t0)
    return t


def row(who, op, n, t):
    print(f"{who:<28} {op:<16} n {n}  {t:.4f} s  {n / t * 1e-6:8.1f} M/s", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=float, default=1e7)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--data", choices=("normal", "prices"), default="normal")
    ap.add_argument("--device", default="cpu", help="RAID's device (raid.context spec)")
    ap.add_argument("--no-raid", action="store_true")
    ap.add_argument("--sort-only", action="store_true", help="the sorts of values only (no stable numpy sort, no argsort)")
    ap.add_argument("--no-cpu", action="store_true", help="skip numpy and polars (CuPy and RAID only)")
    a = ap.parse_args()
    n = int(a.n)
    x = np.random.default_rng(42).standard_normal(n)
    if a.data == "prices":
        x = np.round(100 + x, 2)

    if not a.no_cpu:
        row("numpy (1 core)", "sort", n, best(lambda: np.sort(x), a.reps))
        if not a.sort_only:
            row("numpy (1 core)", "sort stable", n, best(lambda: np.sort(x, kind="stable"), a.reps))
            row("numpy (1 core)", "argsort stable", n, best(lambda: np.argsort(x, kind="stable"), a.reps))
        try:
            import polars as pl
            s = pl.Series(x)
            row(f"polars {pl.__version__}", "sort", n, best(lambda: s.sort(), a.reps))
            if not a.sort_only:
                row(f"polars {pl.__version__}", "arg_sort", n, best(lambda: s.arg_sort(), a.reps))
        except ImportError:
            print("polars: not installed (skipped)")

    try:
        import cupy as cp
        d = cp.asarray(x)
        start, end = cp.cuda.Event(), cp.cuda.Event()

        def gpu(fn):
            fn()
            cp.cuda.Device().synchronize()
            t = 1e300
            for _ in range(a.reps):
                start.record()
                fn()
                end.record()
                end.synchronize()
                t = min(t, cp.cuda.get_elapsed_time(start, end) * 1e-3)
            return t

        row(f"cupy {cp.__version__} (GPU)", "sort", n, gpu(lambda: cp.sort(d)))
        row(f"cupy {cp.__version__} (GPU)", "argsort", n, gpu(lambda: cp.argsort(d)))
        row(f"cupy {cp.__version__} (GPU)", "median (sorts)", n, gpu(lambda: cp.median(d)))
        # (int64 key, float64 value) pairs: CuPy has no key-value sort; its argsort of the keys (CUB radix
        # sort of (key, int64 index) pairs) and two gathers, the nearest it offers to raid_sort_i64_f64
        keys = cp.asarray(np.random.default_rng(7).integers(-2**63, 2**63 - 1, n, dtype=np.int64))

        def pairs():
            o = cp.argsort(keys)
            return keys[o], d[o]

        row(f"cupy {cp.__version__} (GPU)", "pairs (argsort+take)", n, gpu(pairs))
    except ImportError:
        print("cupy: not installed (skipped)")
    except Exception as e:  # noqa: BLE001 -- no GPU where CuPy is installed
        print(f"cupy: {e} (skipped)")

    if not a.no_raid:
        try:
            import raid
            want = np.sort(x, kind="stable").view(np.uint64)
            got = raid.sort(x, device=a.device).view(np.uint64)
            who = f"raid ({a.device})"
            print(f"{who}: sort equals numpy's stable sort bit for bit: {bool(np.array_equal(got, want))}")
            row(who, "sort", n, best(lambda: raid.sort(x, device=a.device), a.reps))
            if not a.sort_only:
                row(who, "argsort int64", n, best(lambda: raid.argsort(x, device=a.device), a.reps))
                row(who, "argsort uint32", n,
                    best(lambda: raid.argsort(x, device=a.device, index_dtype=np.uint32), a.reps))
        except ImportError:
            print("raid: not importable (skipped; PYTHONPATH=build/python)")


if __name__ == "__main__":
    main()
