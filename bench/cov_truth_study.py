#!/usr/bin/env python3
"""How the covariance estimators of `raid cov` compare with the true integrated covariance on simulated data.

Not a test: a study whose table is recorded in docs/measures.md ("How the estimators compare on simulated
data"). For a grid of scenarios (noise sd on the log price x trading rates x number of symbols), it simulates
correlated symbols at asynchronous Poisson trading times with i.i.d. noise (raid.simulate(..., cov=True),
docs/simulate.md "Correlated symbols"), runs each estimator as a user would sample for it (raid.cov), and
reports per estimator and scenario the bias and RMSE of the daily entries relative to the truth, variances
and covariances separately, and the share of days whose matrix has a negative eigenvalue.

    PYTHONPATH=build/python OMP_NUM_THREADS=1 .venv/bin/python bench/cov_truth_study.py \
        [--days 50] [--out docs/cov_truth.csv] [--quick] [--symbols 5] [--gaps 30-60] [--noise 0]
    .venv/bin/python bench/cov_truth_study.py --tables docs/cov_truth.csv   # the tables of docs/measures.md

Model of every scenario: the simulator's stochastic volatility with its defaults (mean_var 1e-4 a day, log
variance OU with kappa 0.2 and xi 0.5, leverage -0.5), no jumps (the truth excludes them), one-factor
correlations R_jk = b_j b_k with b_j evenly spaced in [sqrt(0.3), sqrt(0.6)] (every pairwise correlation in
[0.3, 0.6]), symbols trading at the open, the close and Poisson times of mean gap g_k (evenly spaced over the
scenario's range of gaps), noise N(0, sd^2) on each observed log price. The same seed in every scenario of a
panel: the efficient paths are the same whatever the noise and the trading rates (docs/simulate.md "Random
numbers"), so the scenarios differ by the noise and the sampling only.

Relative errors: (estimate - truth) / truth for each symbol-day (variances) and each pair-day (covariances;
all true covariances are positive here). bias = their mean, rmse = the root of their mean square, se = the
standard error of the bias (the standard deviation of the days' mean errors over sqrt(days)). var_pred: the
mean relative bias of the variances the theory predicts given each day's sampling
(tests/python/cov_theory.py predicted_var_bias, the functions the test tests/python/test_cov_truth.py
uses): 2 n omega^2 / IV for rcov and hy's diagonal (n: the returns spanning two distinct observations of
the symbol: its distinct trade times - 1 on ticks, the grid intervals holding a trade on a calendar grid,
the synchronised returns with refresh time), the share of IV that mrc's bias correction removes, mrc_psd's
uncorrected noise term, rkcov's Parzen-kernel noise term and jittered end points; empty for rbpcov.
The same scenario definitions and simulation (cov_theory.simulate) as the test's.
"""
import argparse
import datetime
import os
import platform
import subprocess
import sys
import time

import numpy as np
import pandas as pd

import raid

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "python"))
from cov_theory import predicted_var_bias, simulate  # noqa: E402  (the scenarios and predictions the test uses)

# label, estimator, raid.cov arguments: as a user would sample for each estimator
ESTIMATORS = [
    ("rcov 5min", "rcov", dict(sample="5min")),
    ("rcov 1min", "rcov", dict(sample="1min")),
    ("rcov tick", "rcov", dict(sample="tick")),
    ("rcov RT", "rcov", dict(refresh_time=True)),
    ("rbpcov 5min", "rbpcov", dict(sample="5min")),
    ("rbpcov RT", "rbpcov", dict(refresh_time=True)),
    ("hy tick", "hy", dict()),
    ("mrc RT", "mrc", dict(refresh_time=True)),
    ("mrc_psd RT", "mrc_psd", dict(refresh_time=True)),
    ("rkcov RT", "rkcov", dict(refresh_time=True)),
]

NOISES = [0.0, 1e-4, 5e-4]
# name, (shortest, longest) mean gap between a symbol's trades in seconds, spread evenly over the symbols
RATES = [("1s", (1.0, 1.0)), ("5-15s", (5.0, 15.0)), ("30-60s", (30.0, 60.0))]
PANELS = [(5, 11), (20, 12)]  # (symbols, seed)
CHUNK_DAYS = 10  # days simulated at once (memory: 20 symbols trading every second are 4.7M rows a chunk)


def run_scenario(n, seed, ndays, noise, gap_range, quick):
    g = np.linspace(*gap_range, n)
    iu_off = np.triu_indices(n, 1)
    per = {lab: dict(var=[], cov=[], pred=[], neg=[], nan=[], n=[]) for lab, _, _ in ESTIMATORS}
    t_sim = t_est = 0.0
    for c0 in range(0, ndays, CHUNK_DAYS):
        days = min(CHUNK_DAYS, ndays - c0)
        t0 = time.perf_counter()
        # a seed per chunk: chunk k of every scenario of the panel has the same efficient paths
        df, truth, own = simulate(n, seed * 1000 + c0, days, noise, g, grids=(300, 60))
        t_sim += time.perf_counter() - t0
        iv = np.diagonal(truth, axis1=1, axis2=2)  # (days, n)
        for lab, est, kw in ESTIMATORS:
            if quick and lab not in ("rcov 5min", "rcov RT", "hy tick", "mrc RT", "rkcov RT"):
                continue
            t0 = time.perf_counter()
            res = raid.cov(df, estimator=est, **kw)
            t_est += time.perf_counter() - t0
            assert res.symbols == [f"S{k + 1:04d}" for k in range(n)], res.symbols
            v = res.values
            assert v.shape == truth.shape, (lab, v.shape, truth.shape)
            ev = np.diagonal(v, axis1=1, axis2=2)
            per[lab]["var"].append((ev - iv) / iv)
            per[lab]["cov"].append((v[:, iu_off[0], iu_off[1]] - truth[:, iu_off[0], iu_off[1]])
                                   / truth[:, iu_off[0], iu_off[1]])
            # the returns that span two distinct observations of the symbol
            sample = kw.get("sample")
            if kw.get("refresh_time"):
                nret = np.broadcast_to(res.n[:, None], iv.shape)
            elif est == "hy" or sample == "tick":
                nret = own["trades"] - 1
            else:
                nret = own["cells300" if sample == "5min" else "cells60"]
            if est in ("rcov", "hy", "mrc", "mrc_psd", "rkcov"):
                theory = "rcov" if est == "hy" else est
                pred = np.array([[predicted_var_bias(theory, iv[d, s], noise ** 2, nret[d, s], xi2_syms=own["xi2"][d])
                                  for s in range(n)] for d in range(days)]) / iv
            else:
                pred = np.full(iv.shape, np.nan)
            per[lab]["pred"].append(pred)
            per[lab]["neg"].append(res.min_eig < 0)
            per[lab]["nan"].append(np.isnan(res.min_eig))
            per[lab]["n"].append(res.n)
    rows = []
    for lab, est, kw in ESTIMATORS:
        p = per[lab]
        if not p["var"]:
            continue
        var = np.concatenate(p["var"])  # (days, n)
        cov = np.concatenate(p["cov"])  # (days, pairs)
        pred = np.concatenate(p["pred"])
        gaps_s = f"{gap_range[0]:g}" if gap_range[0] == gap_range[1] else f"{gap_range[0]:g}-{gap_range[1]:g}"
        row = dict(estimator=lab, noise_sd=noise, gaps_s=gaps_s, symbols=n, days=ndays)
        for name, e in (("var", var), ("cov", cov)):
            daily = np.nanmean(e, axis=1)  # one mean error a day (the entries of a day share its path)
            row[f"{name}_bias"] = float(np.nanmean(e))
            row[f"{name}_se"] = float(np.nanstd(daily, ddof=1) / np.sqrt(np.sum(~np.isnan(daily))))
            row[f"{name}_rmse"] = float(np.sqrt(np.nanmean(e ** 2)))
            row[f"{name}_nan"] = int(np.sum(np.isnan(e)))
        row["var_pred"] = float(np.mean(pred))
        row["nonpsd_share"] = float(np.mean(np.concatenate(p["neg"])))
        row["undefined_days"] = int(np.sum(np.concatenate(p["nan"])))
        row["mean_n"] = float(np.mean(np.concatenate(p["n"])))
        rows.append(row)
    return rows, t_sim, t_est


def commit():
    try:
        here = os.path.dirname(os.path.abspath(__file__))
        return subprocess.run(["git", "-C", here, "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def fmt(x):
    return "" if x != x else f"{x:+.3f}"


def num(x, sign=True):
    """3 significant digits at most, 3 decimals at least below 1: +0.012, +2.69, +161."""
    if x != x:
        return ""
    s = "+" if sign else ""
    a = abs(x)
    return f"{x:{s}.0f}" if a >= 10 else f"{x:{s}.2f}" if a >= 1 else f"{x:{s}.3f}"


def tables(csv):
    """The Markdown tables of docs/measures.md from the CSV of a run."""
    d = pd.read_csv(csv)
    labels = [lab for lab, _, _ in ESTIMATORS if lab in set(d["estimator"])]
    out = []
    for n in sorted(d["symbols"].unique()):
        dn = d[d["symbols"] == n]
        dn = dn.assign(gaps_s=[g.split("-")[0] if g.split("-")[0] == g.split("-")[-1] else g
                               for g in dn["gaps_s"].astype(str)])
        scen = list(dict.fromkeys(zip(dn["gaps_s"], dn["noise_sd"])))
        days = int(dn["days"].iloc[0])
        head = "| estimator | " + " | ".join(f"{g} s, {z:g}" for g, z in scen) + " |"
        rule = "|---|" + "---|" * len(scen)

        def cell(lab, g, z, f):
            r = dn[(dn["estimator"] == lab) & (dn["gaps_s"] == g) & (dn["noise_sd"] == z)]
            return f(r.iloc[0]) if len(r) else ""

        for what, key in (("variances", "var"), ("covariances", "cov")):
            out += [f"**{n} symbols, {what}: relative bias / RMSE** ({days} days a scenario; columns: mean gap "
                    "between a symbol's trades, noise sd)", "", head, rule]
            for lab in labels:
                out.append(f"| {lab} | " + " | ".join(
                    cell(lab, g, z, lambda r: f"{num(r[key + '_bias'])} / {num(r[key + '_rmse'], False)}")
                    for g, z in scen) + " |")
            out.append("")
        noisy = [(g, z) for g, z in scen if z > 0 and (g, 0.0) in scen]
        out += [f"**{n} symbols, variances: the noise's effect, observed / predicted** (the relative bias less the "
                "same estimator's without noise, on the same paths and trading times; the prediction likewise, "
                "given each day's sampling: tests/python/cov_theory.py)", "",
                "| estimator | " + " | ".join(f"{g} s, {z:g}" for g, z in noisy) + " |", "|---|" + "---|" * len(noisy)]

        def effect(lab, g, z):
            r = dn[(dn["estimator"] == lab) & (dn["gaps_s"] == g)]
            a, b = r[r["noise_sd"] == z].iloc[0], r[r["noise_sd"] == 0.0].iloc[0]
            return f"{num(a['var_bias'] - b['var_bias'])} / {num(a['var_pred'] - b['var_pred'])}"

        for lab in labels:
            if dn[dn["estimator"] == lab]["var_pred"].isna().all():
                continue
            out.append(f"| {lab} | " + " | ".join(effect(lab, g, z) for g, z in noisy) + " |")
        out.append("")
        psd = [lab for lab in labels if (dn[dn["estimator"] == lab]["nonpsd_share"] > 0).any()]
        if psd:
            out += [f"**{n} symbols: share of days with a negative eigenvalue** (estimators with any; the others 0)",
                    "", head, rule]
            for lab in psd:
                out.append(f"| {lab} | " + " | ".join(cell(lab, g, z, lambda r: f"{r['nonpsd_share']:.2f}")
                                                      for g, z in scen) + " |")
            out.append("")
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--days", type=int, default=50)
    ap.add_argument("--out", default=None, help="CSV of every row (default: none)")
    ap.add_argument("--quick", action="store_true", help="five estimators, the 5-symbol panel only")
    ap.add_argument("--symbols", type=int, help="only the panel of this many symbols")
    ap.add_argument("--gaps", help="only this range of mean gaps, e.g. 30-60")
    ap.add_argument("--noise", type=float, help="only this noise sd")
    ap.add_argument("--tables", metavar="CSV", help="print the Markdown tables of a run's CSV and exit")
    a = ap.parse_args()
    if a.tables:
        print(tables(a.tables))
        return 0
    print(f"# raid cov against the simulated truth: {a.days} days a scenario; commit {commit()}; "
          f"{datetime.date.today()}; {platform.node()} ({platform.processor() or platform.machine()}), "
          f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')}", flush=True)
    rows = []
    t_all = time.perf_counter()
    for n, seed in PANELS[:1] if a.quick else PANELS:
        for rname, gr in RATES:
            for noise in NOISES:
                if ((a.symbols is not None and n != a.symbols) or (a.gaps is not None and a.gaps != rname.rstrip("s"))
                        or (a.noise is not None and noise != a.noise)):
                    continue
                r, ts, te = run_scenario(n, seed, a.days, noise, gr, a.quick)
                rows += r
                print(f"# N={n} gaps {rname} noise {noise:g}: simulate {ts:.1f} s, estimators {te:.1f} s", flush=True)
                for row in r:
                    print(f"  {row['estimator']:<12} var bias {fmt(row['var_bias'])} (se {row['var_se']:.3f}, "
                          f"pred {fmt(row['var_pred'])}) rmse {row['var_rmse']:.3f} | cov bias {fmt(row['cov_bias'])} "
                          f"(se {row['cov_se']:.3f}) rmse {row['cov_rmse']:.3f} | non-PSD {row['nonpsd_share']:.2f} "
                          f"| n {row['mean_n']:.0f}", flush=True)
    print(f"# total {time.perf_counter() - t_all:.0f} s", flush=True)
    if a.out:
        pd.DataFrame(rows).to_csv(a.out, index=False, float_format="%.6g")
    return 0


if __name__ == "__main__":
    sys.exit(main())
