"""numba reference of the HMA-crossover sweep: the peer of the benchmark (bench_sweep).

The same semantics as RAID's float64 cpu path (docs/ta_sweep.md, src/ta/sweep_cpu.c), written the way a
careful numba user would: float64 throughout, HMA by direct windowed WMA sums (the TTR convention:
HMA(n) = WMA(2 WMA(x, n // 2) - WMA(x, n), floor(sqrt(n)))), one pass per combination for the trades,
the per-bar returns, the drawdown and the exposure, a second pass for the sd. Plain (uncompensated)
float64 sums: the statistics agree with RAID's to rounding, the trades exactly (away from float64 ties).

Timed, end to end (every distinct HMA once, then every combination with fast < slow):
  - on one thread (numba.set_num_threads(1)) and on all threads (prange over periods and combinations);
  - the HMAs and the sweep separately (the sweep alone is the number once the HMAs are cached).
The first call of each compiled function runs outside the timing (on a short series).

Data: a simulated random walk (--bars, --price, --seed: log returns N(0, 0.01^2), open = previous close
times exp(N(0, 0.002^2))) or a CSV with `close` (and `open`) columns (--csv).
numba is not a dependency of the project or its tests: `pip install numba` (0.68 on numpy 2.4 here).

--dump FILE writes the bars, the HMA table and the combinations (little-endian: int64 n, nperiods,
ncomb; float64 close[n], open[n]; int64 periods[nperiods]; float64 hma[nperiods][n]; int64
fast_idx[ncomb], slow_idx[ncomb]) and --stats FILE the statistics (fast,slow,trades,total_log_return,
sharpe,max_drawdown,exposure), for a comparison with RAID's cpu path. --compare FILE reads RAID's sweep
CSV of the same bars and grid (`raid sweep -o FILE`, `bench_sweep --stats FILE`) and prints the
combinations whose trade count differs and the largest |delta| of each statistic (numba's last run
against RAID's).

usage: python3 peers_sweep.py [--bars 150000] [--price 30000] [--seed 1] [--csv FILE]
                              [--fast 5:50:1] [--slow 20:200:1] [--short] [--fill close|next-open]
                              [--cost-bps 0] [--bars-per-year 252] [--threads N] [--dump FILE]
                              [--stats FILE] [--compare FILE]
"""
import argparse
import math
import os
import time

import numpy as np
import numba
from numba import njit, prange


@njit(cache=False)
def wma(x, n):
    """WMA(x, n): sum_{j<n} (n - j) x[t-j] / (n (n+1) / 2), direct; NaN where the window holds a NaN
    or is incomplete (leading NaN shift the output)."""
    m = x.shape[0]
    out = np.empty(m)
    den = n * (n + 1) / 2.0
    for t in range(m):
        if t + 1 < n:
            out[t] = np.nan
            continue
        s = 0.0
        for j in range(n):
            s += (n - j) * x[t - j]
        out[t] = s / den
    return out


@njit(cache=False)
def hma(x, n):
    half = wma(x, n // 2)
    full = wma(x, n)
    return wma(2.0 * half - full, int(math.floor(math.sqrt(n))))


@njit(parallel=True, cache=False)
def hma_table(x, periods):
    tab = np.empty((periods.shape[0], x.shape[0]))
    for p in prange(periods.shape[0]):
        tab[p] = hma(x, periods[p])
    return tab


@njit(cache=False)
def sweep_one(close, open_, lc, lgap, lin, fast, slow, short_side, at_open, c, bpy, r):
    """One combination: (trades, total_log_return, sharpe, max_drawdown, exposure). r: scratch, n-1."""
    n = close.shape[0]
    pos = 0
    entry_price = 0.0
    ntr = 0
    held = 0
    total = 0.0
    eq = 0.0
    peak = 0.0
    mdd = 0.0
    for t in range(1, n):
        last = t == n - 1
        f = fast[t - 1]
        s = slow[t - 1]
        if np.isnan(f) or np.isnan(s):
            target = 0
        elif f > s:
            target = 1
        elif short_side:
            target = -1
        else:
            target = 0
        if last and not at_open:
            target = 0
        old = pos
        sides = 0
        if target != old:
            fp = open_[t] if at_open else close[t]
            if old != 0:
                total += old * math.log(fp / entry_price) + 2.0 * c
                ntr += 1
                sides += 1
            pos = target
            if target != 0:
                entry_price = fp
                sides += 1
        if (not at_open) or pos == old:
            rt = old * lc[t] if old != 0 else 0.0
        else:
            rt = (old * lgap[t] if old != 0 else 0.0) + (pos * lin[t] if pos != 0 else 0.0)
        if old != 0 or (at_open and pos != 0):
            held += 1
        if last and pos != 0:
            total += pos * math.log(close[t] / entry_price) + 2.0 * c
            ntr += 1
            sides += 1
            pos = 0
        if sides:
            rt += sides * c
        r[t - 1] = rt
        eq += rt
        if eq > peak:
            peak = eq
        if peak - eq > mdd:
            mdd = peak - eq
    N = n - 1
    mean = eq / N
    ss = 0.0
    for i in range(N):
        d = r[i] - mean
        ss += d * d
    sd = math.sqrt(ss / (N - 1))
    sharpe = mean / sd * math.sqrt(bpy) if sd > 0.0 else 0.0
    return ntr, total, sharpe, mdd, held / N


@njit(parallel=True, cache=False)
def sweep_all(close, open_, tab, fi, si, short_side, at_open, c, bpy):
    n = close.shape[0]
    lc = np.empty(n)
    lgap = np.empty(n)
    lin = np.empty(n)
    lc[0] = lgap[0] = lin[0] = np.nan
    for t in range(1, n):
        lc[t] = math.log(close[t] / close[t - 1])
        lgap[t] = math.log(open_[t] / close[t - 1])
        lin[t] = math.log(close[t] / open_[t])
    nc = fi.shape[0]
    out = np.empty((nc, 5))
    for k in prange(nc):
        r = np.empty(n - 1)
        ntr, tot, sh, mdd, ex = sweep_one(close, open_, lc, lgap, lin, tab[fi[k]], tab[si[k]], short_side,
                                          at_open, c, bpy, r)
        out[k, 0] = ntr
        out[k, 1] = tot
        out[k, 2] = sh
        out[k, 3] = mdd
        out[k, 4] = ex
    return out


def parse_range(s):
    a, b, st = (int(v) for v in s.split(":"))
    return list(range(a, b + 1, st))


def simulate(n, price, seed):
    rng = np.random.default_rng(seed)
    lp = math.log(price) + np.cumsum(rng.normal(0.0, 0.01, n))
    close = np.exp(lp)
    prev = np.concatenate(([price], close[:-1]))
    open_ = prev * np.exp(rng.normal(0.0, 0.002, n))
    return close, open_


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bars", type=int, default=150000)
    ap.add_argument("--price", type=float, default=30000.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--csv")
    ap.add_argument("--fast", default="5:50:1")
    ap.add_argument("--slow", default="20:200:1")
    ap.add_argument("--short", action="store_true")
    ap.add_argument("--fill", default="close", choices=["close", "next-open"])
    ap.add_argument("--cost-bps", type=float, default=0.0)
    ap.add_argument("--bars-per-year", type=float, default=252.0)
    ap.add_argument("--threads", type=int, default=numba.config.NUMBA_NUM_THREADS)
    ap.add_argument("--dump")
    ap.add_argument("--stats")
    ap.add_argument("--compare")
    a = ap.parse_args()

    if a.csv:
        import csv

        with open(a.csv) as f:
            rows = list(csv.DictReader(f))
        close = np.array([float(r["close"]) for r in rows])
        open_ = np.array([float(r["open"]) for r in rows]) if "open" in rows[0] else close.copy()
    else:
        close, open_ = simulate(a.bars, a.price, a.seed)
    if a.fill == "next-open" and a.csv and "open" not in rows[0]:
        raise SystemExit("--fill next-open needs an open column")
    fast, slow = parse_range(a.fast), parse_range(a.slow)
    periods = np.array(sorted(set(fast) | set(slow)), dtype=np.int64)
    pidx = {int(p): i for i, p in enumerate(periods)}
    combos = [(f, s) for f in fast for s in slow if f < s]
    fi = np.array([pidx[f] for f, _ in combos], dtype=np.int64)
    si = np.array([pidx[s] for _, s in combos], dtype=np.int64)
    c = math.log1p(-a.cost_bps * 1e-4)
    at_open = a.fill == "next-open"

    # compile outside the timing
    small = np.ascontiguousarray(close[:400])
    t_small = hma_table(small, periods[:2])
    sweep_all(small, np.ascontiguousarray(open_[:400]), t_small, np.zeros(1, np.int64), np.ones(1, np.int64),
              a.short, at_open, c, a.bars_per_year)

    print(f"numba {numba.__version__}; {len(close)} bars; {len(periods)} distinct periods; "
          f"{len(combos)} combinations; {os.cpu_count()} cpus")
    for th in sorted({1, a.threads}):
        numba.set_num_threads(th)
        t0 = time.perf_counter()
        tab = hma_table(close, periods)
        t1 = time.perf_counter()
        out = sweep_all(close, open_, tab, fi, si, a.short, at_open, c, a.bars_per_year)
        t2 = time.perf_counter()
        print(f"threads {th}: HMAs {t1 - t0:.3f} s, sweep {t2 - t1:.3f} s, end to end "
              f"{len(combos) / (t2 - t0):.0f} combinations/s (sweep alone {len(combos) / (t2 - t1):.0f}/s)")

    if a.dump:
        with open(a.dump, "wb") as f:
            np.array([len(close), len(periods), len(combos)], dtype="<i8").tofile(f)
            close.astype("<f8").tofile(f)
            open_.astype("<f8").tofile(f)
            periods.astype("<i8").tofile(f)
            tab.astype("<f8").tofile(f)
            fi.astype("<i8").tofile(f)
            si.astype("<i8").tofile(f)
    if a.stats:
        with open(a.stats, "w") as f:
            f.write("fast,slow,trades,total_log_return,sharpe,max_drawdown,exposure\n")
            for k, (fp, sp) in enumerate(combos):
                o = out[k]
                f.write(f"{fp},{sp},{int(o[0])},{float(o[1])!r},{float(o[2])!r},{float(o[3])!r},{float(o[4])!r}\n")
    if a.compare:
        compare(a.compare, combos, out)


def compare(path, combos, out):
    """RAID's sweep CSV (one series) against numba's statistics out[k] of combos[k]."""
    import csv

    with open(path) as f:
        raid = {(int(r["fast"]), int(r["slow"])): r for r in csv.DictReader(f)}
    names = ["total_log_return", "sharpe", "max_drawdown", "exposure"]
    missing, differ, dmax = 0, 0, [0.0] * 4
    for k, key in enumerate(combos):
        r = raid.get(key)
        if r is None:
            missing += 1
            continue
        differ += int(r["trades"]) != int(out[k, 0])
        for j, nm in enumerate(names):
            x = float(r[nm]) if r[nm] else math.nan
            y = float(out[k, j + 1])
            if not (math.isnan(x) and math.isnan(y)):
                d = abs(x - y)
                dmax[j] = math.inf if math.isnan(d) else max(dmax[j], d)
    print(f"numba vs RAID ({path}): {len(combos)} combinations, {missing} missing from RAID's, "
          f"{len(raid) - len(combos) + missing} extra; trade counts differ in {differ}")
    print("numba vs RAID: max |delta| " + "  ".join(f"{nm} {d:.3e}" for nm, d in zip(names, dmax)))


if __name__ == "__main__":
    main()
