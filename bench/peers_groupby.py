"""Group sums of N float64 rows into G groups: raid.groupby (exact; cpu path and a device) beside numpy
(np.bincount with weights, np.add.at), pandas, polars and, where importable, CuPy's float64 atomic
scatter-add (fast, not reproducible), on the same arrays; and how far each peer's sums are from the exact
ones (raid's, checked against Python's fractions by tests/python/test_groupby.py).

    python bench/peers_groupby.py [--rows N] [--groups G,G] [--devices cpu,opencl] [--reps R]

Rows as bench_groupby.c makes them: keys splitmix64(i) mod G, values N(0,1) x 100 (numpy's generator here:
the timing does not depend on the draws). Needs numpy and the raid package (PYTHONPATH=BUILD/python);
pandas, polars and cupy are each optional (a throwaway venv: pip install polars cffi numpy pandas)."""
import argparse
import time

import numpy as np


def splitmix(i):
    z = i.astype(np.uint64) + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def best(f, reps):
    t = []
    out = None
    for _ in range(reps):
        t0 = time.perf_counter()
        out = f()
        t.append(time.perf_counter() - t0)
    return min(t), out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=float, default=1e7)
    ap.add_argument("--groups", default="1000,100000")
    ap.add_argument("--devices", default="cpu,opencl", help="raid's devices; none: the peers only")
    ap.add_argument("--reps", type=int, default=3)
    a = ap.parse_args()
    n = int(a.rows)
    x = np.random.default_rng(1).standard_normal(n) * 100.0
    try:
        import raid
    except ImportError as e:  # the peers alone; their exactness unknown
        print(f"# raid does not import ({e}): peers only, inexact counts unknown", flush=True)
        raid = None
    print("peer,rows,groups,best_s,groups_not_exact,max_rel_err")
    for G in (int(g) for g in a.groups.split(",")):
        k = (splitmix(np.arange(n, dtype=np.uint64)) % np.uint64(G)).astype(np.int64)
        exact = None
        res = {}
        for dev in a.devices.split(",") if raid and a.devices != "none" else []:
            raid.groupby(k[:1000], x[:1000], aggs="sum", device=dev)  # build the kernels
            t, df = best(lambda: raid.groupby(k, x, aggs="sum", device=dev), a.reps)
            if exact is None:
                exact = np.zeros(G)
                exact[df.index.to_numpy()] = df["sum"].to_numpy()
            res[f"raid {dev} (exact)"] = (t, exact)
        res["numpy bincount (keys = ids)"] = best(lambda: np.bincount(k, weights=x, minlength=G), a.reps)

        def unique_bincount():  # the whole job: distinct keys, then their sums
            u, inv = np.unique(k, return_inverse=True)
            s = np.zeros(G)
            s[u] = np.bincount(inv, weights=x)
            return s
        res["numpy unique + bincount"] = best(unique_bincount, a.reps)

        def add_at():
            s = np.zeros(G)
            np.add.at(s, k, x)
            return s
        res["numpy add.at (keys = ids)"] = best(add_at, a.reps)
        try:
            import pandas as pd
            s = pd.Series(x)
            t, r = best(lambda: s.groupby(k).sum(), a.reps)
            out = np.zeros(G)
            out[r.index.to_numpy()] = r.to_numpy()
            res["pandas groupby sum"] = (t, out)
        except ImportError:
            pass
        try:
            import polars as pl
            df = pl.DataFrame({"k": k, "x": x})
            t, r = best(lambda: df.group_by("k").agg(pl.col("x").sum()), a.reps)
            out = np.zeros(G)
            out[r["k"].to_numpy()] = r["x"].to_numpy()
            res[f"polars group_by sum ({pl.thread_pool_size()} threads)"] = (t, out)
        except ImportError:
            pass
        try:
            import cupy as cp
            kd, xd = cp.asarray(k), cp.asarray(x)

            def scatter():
                s = cp.zeros(G)
                cp.add.at(s, kd, xd)
                cp.cuda.Device().synchronize()
                return s
            scatter()
            t, r = best(scatter, a.reps)
            res["cupy add.at (float64 atomics)"] = (t, cp.asnumpy(r))
        except ImportError:
            pass
        for name, (t, out) in res.items():
            if exact is None:
                print(f"{name},{n},{G},{t:.4f},?,?", flush=True)
                continue
            diff = out != exact
            rel = np.max(np.abs(out - exact) / np.maximum(np.abs(exact), 1e-300))
            print(f"{name},{n},{G},{t:.4f},{int(diff.sum())}/{G},{rel:.2g}", flush=True)


if __name__ == "__main__":
    main()
