"""Independent float64 implementations of the noise-robust realized measures, written from the papers'
formulas with plain loops (docs/measures.md "Noise-robust measures" states the variants): the oracle of
raid_realized_noise_compute in tests/python/test_realized_noise.py.

Sums are math.fsum (exact, rounded once); the jittered prices and the subsampled returns are formed
exactly with fractions.Fraction from the log prices X_i = r_1 + ... + r_i and rounded once, so that the
oracle does not share the library's way of forming them from the returns.
"""
import math
from fractions import Fraction

import numpy as np

RK_CSTAR = 3.5134  # BNHLS 2009, Parzen: ((12)^2 / 0.269)^(1/5)


def log_prices(r):
    """X_0 = 0, X_i = r_1 + ... + r_i, exactly."""
    x = [Fraction(0)]
    for v in r:
        x.append(x[-1] + Fraction(float(v)))
    return x


def subsampled_returns(X, q, start):
    """The returns of every q-th log price from price `start` (X[start], X[start+q], ...), rounded once."""
    return [float(X[i + q] - X[i]) for i in range(start, len(X) - q, q)]


def xi2(r):
    """BNHLS 2009 section 3.4 on returns: omega^2 = mean over the dense subgrids (every q-th price from price
    j, q = max(1, M // 195)) that have a non-zero return of RV^(j) / (2 n^(j)), n^(j) their non-zero returns;
    IV = RV_sparse, the mean over j < q (q = max(1, M // 20)) of the RV of every q-th price from price j."""
    M = len(r)
    X = log_prices(r)
    qd = max(1, M // 195)
    parts = []
    for j in range(qd):
        y = subsampled_returns(X, qd, j)
        nz = sum(1 for v in y if v != 0.0)
        if nz:
            parts.append(math.fsum(v * v for v in y) / (2.0 * nz))
    omega2 = math.fsum(parts) / len(parts) if parts else 0.0
    qs = max(1, M // 20)
    iv = math.fsum(math.fsum(v * v for v in subsampled_returns(X, qs, j)) for j in range(qs)) / qs
    if omega2 == 0.0:
        return 0.0
    return omega2 / iv if iv > 0.0 else math.inf


def parzen(x):
    if x <= 0.5:
        return 1.0 - 6.0 * x * x + 6.0 * x * x * x
    y = 1.0 - x
    return 2.0 * y * y * y


def rk(r):
    """(rk, H): the realized kernel of BNHLS 2009, non-flat-top Parzen, K = sum_{h=-H}^{H} k(h/(H+1)) gamma_h on
    the prices jittered with m = 2 (X_0 and X_n the means of the first and last two prices), H = max(1,
    ceil(c* xi^(4/5) n^(3/5))) with n = M - 2; NaN where M < 3 or H > n."""
    M = len(r)
    if M < 3:
        return math.nan, math.nan
    n = M - 2
    H = RK_CSTAR * math.pow(xi2(r), 0.4) * math.pow(n, 0.6)
    if not (math.isfinite(H) and math.ceil(H) <= n):
        return math.nan, math.nan
    H = max(1, math.ceil(H))
    X = log_prices(r)
    J = [(X[0] + X[1]) / 2] + X[2:M - 1] + [(X[M - 1] + X[M]) / 2]  # n + 1 prices
    assert len(J) == n + 1
    x = [float(J[i + 1] - J[i]) for i in range(n)]
    terms = []
    for h in range(0, min(H, n - 1) + 1):
        g = math.fsum(x[j] * x[j - h] for j in range(h, n))
        terms.append(g if h == 0 else 2.0 * (parzen(h / (H + 1)) * g))
    return math.fsum(terms), float(H)


def tsrv(r):
    """(tsrv, K): ZMA 2005, [Y,Y]^(avg) the mean of the K subsamples' RVs, nbar = (M - K + 1)/K,
    tsrv = (1 - nbar/M)^-1 ([Y,Y]^(avg) - (nbar/M) [Y,Y]^(all)); K = max(2, ceil((12 xi^4)^(1/3) M^(2/3)));
    NaN where M < 4 or K > M // 2."""
    M = len(r)
    if M < 4:
        return math.nan, math.nan
    x2 = xi2(r)
    K = np.cbrt(12.0 * x2 * x2) * math.pow(M, 2.0 / 3.0)
    if not (math.isfinite(K) and math.ceil(K) <= M // 2):
        return math.nan, math.nan
    K = max(2, math.ceil(K))
    X = log_prices(r)
    avg = math.fsum(math.fsum(v * v for v in subsampled_returns(X, K, j)) for j in range(K)) / K
    nbar = (M - K + 1) / K
    rv = math.fsum(float(v) * float(v) for v in r)
    return math.fsum([avg, -(nbar / M * rv)]) / (1.0 - nbar / M), float(K)


def prv(r):
    """JLMPV 2009 / CKP 2010 with g(x) = min(x, 1-x), kn = ceil(sqrt(M)) (theta = 1): NaN where M < 5
    (kn < 3: with kn = 2 the estimator is 0 whatever the returns)."""
    M = len(r)
    if M < 5:
        return math.nan
    kn = math.isqrt(M - 1) + 1  # the smallest kn with kn^2 >= M
    def g(j):
        t = j / kn
        return 0.0 if j in (0, kn) else min(t, 1.0 - t)
    psi1 = kn * math.fsum((g(j) - g(j - 1)) ** 2 for j in range(1, kn + 1))
    psi2 = math.fsum(g(j) ** 2 for j in range(1, kn)) / kn
    ybar = [math.fsum(g(j) * float(r[i + j - 1]) for j in range(1, kn)) for i in range(0, M - kn + 2)]
    s = math.fsum(y * y for y in ybar)
    rv = math.fsum(float(v) * float(v) for v in r)
    return math.fsum([M / (M - kn + 2.0) / (kn * psi2) * s, -(psi1 / (kn * kn * psi2) * (rv / 2.0))])


def minrv(r):
    """ADS 2012: (pi/(pi-2)) (M/(M-1)) sum_{i=1}^{M-1} min(|r_i|, |r_{i+1}|)^2; NaN where M < 2."""
    M = len(r)
    if M < 2:
        return math.nan
    s = math.fsum(min(abs(float(r[i])), abs(float(r[i + 1]))) ** 2 for i in range(M - 1))
    return math.pi / (math.pi - 2.0) * (M / (M - 1.0)) * s


def all_measures(r):
    """The columns of raid_realized_noise in order: rk, rk_h, tsrv, tsrv_k, prv, minrv."""
    k, h = rk(r)
    t, kk = tsrv(r)
    return [k, h, t, kk, prv(r), minrv(r)]
