"""The simulated scenarios of the covariance estimators' study against the truth and the biases the theory
predicts for them (docs/measures.md "How the estimators compare on simulated data"): used by
tests/python/test_cov_truth.py and bench/cov_truth_study.py.

The predictions are expectations given the day's sampling (the number of returns, the bandwidth), for
Gaussian i.i.d. noise of variance omega^2 on each observed log price, independent across symbols, and
an efficient price with independent increments; their derivations are in the docstrings.
"""
import math

import numpy as np

import raid

RK_CSTAR = 3.5134  # BNHLS 2009, Parzen: ((12)^2 / 0.269)^(1/5), as docs/measures.md
SESSION_OPEN_S = 9.5 * 3600.0


def one_factor(n):
    """Correlations b_j b_k with b evenly spaced in [sqrt(0.3), sqrt(0.6)]: every pair in [0.3, 0.6], PSD."""
    b = np.linspace(math.sqrt(0.3), math.sqrt(0.6), n)
    r = np.outer(b, b)
    np.fill_diagonal(r, 1.0)
    return r


def cube(long_values, n):
    """The long layout (one row per pair i <= j, day by day) as an array (days, n, n)."""
    iu = np.triu_indices(n)
    vals = np.asarray(long_values).reshape(-1, len(iu[0]))
    out = np.empty((vals.shape[0], n, n))
    out[:, iu[0], iu[1]] = vals
    out[:, iu[1], iu[0]] = vals
    return out


def simulate(n, seed, days, noise, gaps, grids=()):
    """raid.simulate's correlated symbols (one_factor correlations, default stochastic volatility, no
    jumps), symbol k trading at Poisson times of mean gap gaps[k] seconds, noise sd `noise`.

    Returns (prices, truth, own) with prices sorted by symbol (raid.cov takes each run of one symbol in one
    call: a tape of interleaved symbols is runs of one row), truth (days, n, n), and own a dict of arrays
    (days, n) of each symbol-day's own sampled prices: "trades" (distinct trade times; of several prices
    at one time the last counts, as raid.cov's sampler), "xi2" (the noise ratio of docs/measures.md,
    computed on its own tick returns, as rkcov's bandwidth is), and for each grid interval g (seconds) in
    grids, "cells<g>": the grid intervals (t_{k-1}, t_k] of the session with a trade, the returns of the
    previous-tick grid whose two prices are distinct observations."""
    df, tc = raid.simulate("prices", cov=True, seed=seed, nsymbols=n, ndays=days, corr=one_factor(n),
                           jump_rate=0.0, noise_sd=noise, trade_rate=1.0 / np.asarray(gaps, dtype=np.float64))
    df = df.sort_values("symbol", kind="stable", ignore_index=True)
    truth = cube(tc["value"].to_numpy(), n)
    day = df["timestamp"].dt.normalize()
    sec = (df["timestamp"] - day).dt.total_seconds().to_numpy() - SESSION_OPEN_S
    dcode = day.factorize(sort=True)[0]
    scode = df["symbol"].factorize(sort=True)[0]
    logp = np.log(df["price"].to_numpy())
    own = {"trades": np.zeros((days, n)), "xi2": np.zeros((days, n))}
    for g in grids:
        own[f"cells{g:g}"] = np.zeros((days, n))
    key = scode.astype(np.int64) * days + dcode
    cut = np.flatnonzero(np.diff(key)) + 1
    for a, b in zip(np.concatenate([[0], cut]), np.concatenate([cut, [len(key)]])):
        s, d = divmod(int(key[a]), days)
        t = sec[a:b]
        last = np.flatnonzero(np.append(np.diff(t) != 0, True))  # the last price at each time
        own["trades"][d, s] = len(last)
        own["xi2"][d, s] = xi2(np.diff(logp[a:b][last]))
        for g in grids:
            tt = t[last]
            own[f"cells{g:g}"][d, s] = len(np.unique(np.ceil(tt[tt > 0] / g)))
    return df, truth, own


def xi2(r):
    """The noise ratio omega^2 / IV of docs/measures.md "Noise-robust measures" (BNHLS 2009 section 3.4 on
    returns; tests/python/noise_oracle.py has the exact version), in numpy: omega^2 the mean over the dense
    subgrids (every qd-th log price from price j, qd = max(1, M // 195)) with a non-zero return of their RV
    over twice their non-zero returns, IV the mean RV of the sparse subgrids (qs = max(1, M // 20))."""
    M = len(r)
    X = np.concatenate([[0.0], np.cumsum(r)])
    qd = max(1, M // 195)
    parts = []
    for j in range(qd):
        y = X[j + qd::qd] - X[j:len(X) - qd:qd]
        nz = np.count_nonzero(y)
        if nz:
            parts.append(np.sum(y * y) / (2.0 * nz))
    omega2 = np.mean(parts) if parts else 0.0
    qs = max(1, M // 20)
    iv = np.mean([np.sum((X[j + qs::qs] - X[j:len(X) - qs:qs]) ** 2) for j in range(qs)])
    if omega2 == 0.0:
        return 0.0
    return omega2 / iv if iv > 0 else math.inf


def parzen(x):
    return 1.0 - 6.0 * x * x + 6.0 * x ** 3 if x <= 0.5 else 2.0 * (1.0 - x) ** 3


def psi(kn):
    """The finite-kn constants of pre-averaging with g(x) = min(x, 1 - x) (docs/measures.md, prv)."""
    g = np.minimum(np.arange(kn + 1) / kn, 1 - np.arange(kn + 1) / kn)
    return kn * np.sum(np.diff(g) ** 2), np.sum(g[1:kn] ** 2) / kn


def kn_mrc(n, psd):
    """mrc: the smallest kn with kn^2 >= n; mrc_psd: the smallest kn with kn^5 >= n^3."""
    kn = math.isqrt(n - 1) + 1 if not psd else max(1, int(round(n ** 0.6)) - 1)
    if psd:
        while kn ** 5 < n ** 3:
            kn += 1
    return kn


def rkcov_h(n_sync, xi2_syms):
    """rkcov's bandwidth: H = max(1, ceil(mean_a c* xi_a^(4/5) n^(3/5))), n = M - 2 the jittered returns."""
    n = n_sync - 2
    return max(1, math.ceil(np.mean([RK_CSTAR * x ** 0.4 * n ** 0.6 for x in xi2_syms])))


def predicted_var_bias(estimator, iv, omega2, n_returns, n_sync=None, xi2_syms=None):
    """The expected error E[estimate] - IV of a variance (one symbol-day), given its sampling:

    rcov (and hy's diagonal, the symbol's tick RV): 2 n omega^2, n the returns that span two distinct
      observations (each adds the variance of a difference of two independent noises).
    mrc: -psi1 IV / (2 kn^2 psi2), kn = ceil(sqrt(n)): the bias correction removes the first term's expected
      noise part n psi1 omega^2 / (kn^2 psi2) exactly (its omega^2 is rv / (2n)) and, with it, that share of
      the efficient part of rv / 2 (docs/measures.md, prv: about -6 IV / kn^2).
    mrc_psd: + n psi1 omega^2 / (kn^2 psi2), kn = ceil(n^(3/5)): the first term's noise part, uncorrected (the
      pre-averaged noise sum_j g(j/kn) (e_{i+j} - e_{i+j-1}) has variance omega^2 psi1 / kn).
    rkcov: omega^2 (2 (n - 1) (1 - k(1/(H+1))) + 1) - 1.5 IV / M on the n = M - 2 jittered returns: the noise's
      gamma_0 is (2n - 1) omega^2 (the jittered end points hold half-sums), its gamma_1 -(n - 1) omega^2
      and its other autocovariances 0, so the kernel keeps 2 (n - 1) (1 - k(1/(H+1))) omega^2 + omega^2,
      about 12 n omega^2 / (H+1)^2 with the Parzen kernel: the O(n^(-1/5)) bias of a non-flat-top kernel at
      the bandwidth that balances bias and variance (BNHLS 2008, 2011: the term c^-2 |k''(0)| Omega of their
      limit); the efficient part loses 3/4 of the first and last returns' variance to the jittering.
    """
    if estimator in ("rcov", "hy"):
        return 2.0 * n_returns * omega2
    n = int(n_returns)
    if estimator == "mrc":
        kn = kn_mrc(n, False)
        p1, p2 = psi(kn)
        return -p1 * iv / (2.0 * kn * kn * p2)
    if estimator == "mrc_psd":
        kn = kn_mrc(n, True)
        p1, p2 = psi(kn)
        return n * p1 * omega2 / (kn * kn * p2)
    if estimator == "rkcov":
        H = rkcov_h(n, xi2_syms)
        nj = n - 2
        return omega2 * (2.0 * (nj - 1) * (1.0 - parzen(1.0 / (H + 1))) + 1.0) - 1.5 * iv / n
    raise ValueError(estimator)
