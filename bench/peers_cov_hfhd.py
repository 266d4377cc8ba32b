#!/usr/bin/env python3
"""Peer of raid cov's cpu path (not a test; see bench/README.md): Python's hfhd 0.1.4 (numba) against RAID on
the same simulated asynchronous ticks, one core each: hy (Hayashi-Yoshida on each symbol's own ticks), mrc
(pre-averaged, all-refresh-time: hfhd's mrc(pairwise=False), its default theta 0.4) and refresh time + rcov
(hfhd's refresh_time and numpy's R'R).

Data: raid.simulate of S symbols over D days, correlated (0.3), trading at Poisson times of rates drawn
uniformly in [1/30, 1/5] per second (about one trade every 5 to 30 s), noise 1e-4 on the log price.

RAID is timed three ways: `raid.cov(df, device="cpu")` from the DataFrame of all days (the sampling and the
synchronisation included: what a user calls), the same on the rows grouped by symbol (raid.cov pushes each
run of rows of one symbol to the segmenter by one call: a tape of interleaved symbols is a call per row), and `raid_cov_compute` day by day from the arrays of times and
prices (the estimator alone, what hfhd's figure also is). hfhd is given each day's pd.Series of log prices
(made outside the timing) and timed after one warm-up call per estimator (numba compiles on the first call).
Its hayashi_yoshida and pairwise wrappers fill a uint64 array with NaN, which numpy 2 refuses: its hy is
timed through its numba kernel _hayashi_yoshida_pairwise with the wrapper's own preparation done in numpy
(tests/python/test_cov_hfhd.py shows it is hfhd's estimator). One thread each: set OMP_NUM_THREADS=1
(RAID) before running; this script sets NUMBA_NUM_THREADS=1 and OPENBLAS_NUM_THREADS=1 for hfhd.

    OMP_NUM_THREADS=1 PYTHONPATH=build/python python bench/peers_cov_hfhd.py --symbols 10,50,100 --days 20

--hfhd-days K times hfhd on the first K days only and scales its figure to D days (printed as such)."""
import argparse
import os
import time

os.environ.setdefault("NUMBA_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from hfhd import hf  # noqa: E402

import raid  # noqa: E402
from raid import ffi, lib  # noqa: E402


def simulate(S, D, seed):
    rng = np.random.default_rng(seed)
    rates = rng.uniform(1 / 30, 1 / 5, S)
    corr = np.full((S, S), 0.3)
    np.fill_diagonal(corr, 1.0)
    return raid.simulate(nsymbols=S, ndays=D, trade_rate=rates, corr=corr, noise_sd=1e-4, jump_rate=0, seed=seed)


def days_of(df):
    """Per day: the arrays of raid_cov_compute (times in us, prices, offsets) and hfhd's series."""
    out = []
    for _, day in df.groupby(df.timestamp.dt.date, sort=True):
        t, p, off, series = [], [], [0], []
        for sym, g in day.groupby("symbol", sort=False):
            g = g.drop_duplicates("timestamp", keep="last")
            ts = g.timestamp.to_numpy().astype("datetime64[us]")
            t.append(ts.astype(np.int64))
            p.append(g.price.to_numpy())
            off.append(off[-1] + len(g))
            series.append(pd.Series(np.log(g.price.to_numpy()), index=pd.DatetimeIndex(ts.astype("datetime64[ns]")),
                                    name=sym))
        out.append((np.concatenate(t), np.concatenate(p), np.array(off, np.int64), series))
    return out


def raid_compute(days, est, sync):
    e = ffi.new("raid_cov_estimator *")
    assert lib.raid_cov_estimator_parse(est.encode(), e) == lib.RAID_OK
    for t, p, off, series in days:
        N = len(off) - 1
        out = np.empty(N * N)
        st = lib.raid_cov_compute(ffi.NULL, e[0], sync, N, ffi.from_buffer("int64_t[]", off),
                                  ffi.from_buffer("int64_t[]", t), ffi.from_buffer("double[]", p),
                                  ffi.from_buffer("double[]", out), ffi.NULL)
        assert st == lib.RAID_OK


def hfhd_hy(series):
    """hf.hayashi_yoshida(series): its wrapper's preparation without the NaN fill of a uint64 array."""
    n_max = max(len(s) for s in series)
    ind = np.zeros((len(series), n_max), dtype=np.uint64)
    val = np.full((len(series), n_max), np.nan)
    for i, s in enumerate(series):
        ind[i, :len(s)] = s.index.asi8.astype(np.uint64)
        val[i, :len(s)] = s.to_numpy()
    ret = np.column_stack((np.zeros(len(series)), np.diff(val, axis=1)))
    return hf._hayashi_yoshida_pairwise(ind, ret, None, None)


def hfhd_rt_rcov(series):
    R = np.diff(hf.refresh_time(series).to_numpy(), axis=0)
    return R.T @ R


HFHD = {"hy": hfhd_hy, "mrc": lambda s: hf.mrc(s, pairwise=False), "rcov_rt": hfhd_rt_rcov}
RAID = {"hy": ("hy", lib.RAID_COV_SYNC_PREVIOUS, False), "mrc": ("mrc", lib.RAID_COV_SYNC_REFRESH, True),
        "rcov_rt": ("rcov", lib.RAID_COV_SYNC_REFRESH, True)}


def best(f, reps):
    wall, cpu = [], []
    for _ in range(reps):
        t0, c0 = time.perf_counter(), time.process_time()
        f()
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    return min(wall), min(cpu)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--symbols", default="10,50,100")
    ap.add_argument("--days", type=int, default=20)
    ap.add_argument("--estimators", default="hy,mrc,rcov_rt")
    ap.add_argument("--reps", type=int, default=3, help="RAID's repetitions (best kept)")
    ap.add_argument("--hfhd-reps", type=int, default=1)
    ap.add_argument("--hfhd-days", type=int, default=0, help="time hfhd on this many days and scale (0: all)")
    ap.add_argument("--seed", type=int, default=7)
    a = ap.parse_args()
    print(f"# OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS')} NUMBA_NUM_THREADS={os.environ['NUMBA_NUM_THREADS']}"
          f" loadavg={os.getloadavg()[0]:.1f}")
    print("S,days,ticks,estimator,raid_cov_wall_s,raid_cov_by_symbol_wall_s,raid_compute_wall_s,raid_compute_cpu_s,hfhd_wall_s,hfhd_cpu_s,"
          "hfhd_days_timed,ratio_compute_cpu,ratio_cov_wall")
    for S in [int(x) for x in a.symbols.split(",")]:
        df = simulate(S, a.days, a.seed)
        days = days_of(df)
        # the same rows grouped by symbol (each symbol's rows in time order: the same input to raid.cov)
        by_symbol = df.iloc[np.argsort(df.symbol.to_numpy(), kind="stable")]
        hd = days[:a.hfhd_days] if a.hfhd_days else days
        for name in a.estimators.split(","):
            est, sync, rt = RAID[name]
            cov_w, _ = best(lambda: raid.cov(df, estimator=est, refresh_time=rt, device="cpu"), a.reps)
            grp_w, _ = best(lambda: raid.cov(by_symbol, estimator=est, refresh_time=rt, device="cpu"), a.reps)
            cmp_w, cmp_c = best(lambda: raid_compute(days, est, sync), a.reps)
            HFHD[name](hd[0][3])  # numba compiles
            hw, hc = best(lambda: [HFHD[name](d[3]) for d in hd], a.hfhd_reps)
            scale = len(days) / len(hd)
            hw, hc = hw * scale, hc * scale
            print(f"{S},{len(days)},{len(df)},{name},{cov_w:.4f},{grp_w:.4f},{cmp_w:.4f},{cmp_c:.4f},{hw:.4f},{hc:.4f},"
                  f"{len(hd)},{hc / cmp_c:.1f},{hw / cov_w:.1f}", flush=True)


if __name__ == "__main__":
    main()
