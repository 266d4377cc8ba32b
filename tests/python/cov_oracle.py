"""An independent float64 implementation of RAID's realized covariance estimators (raid_cov_compute) from
the papers' formulas (docs/measures.md "Covariance"): plain loops, every sum a math.fsum of float64 products
(exactly rounded sums), returns correctly rounded by MPFR (mpfr_oracle), the bandwidth's noise ratio by the
univariate oracle (noise_oracle.xi2).

day(est, sync, series) takes a list of (times, prices) per symbol (None or empty: absent) and returns the
list of parts, each an N x N numpy array (NaN rows and columns for absent symbols; NaN everywhere where
the estimator is undefined), and the number of synchronised returns."""
import functools
import math

import gmpy2
import numpy as np

import mpfr_oracle
import noise_oracle

PI = 3.14159265358979323846
CSTAR = 3.5134
MIN_M = {"rcov": 1, "rbpcov": 2, "rsemicov": 1, "mrc": 5, "mrc_psd": 2, "rkcov": 3}


@functools.lru_cache(maxsize=None)
def log_return(prev, p):
    """log(p / prev) as RAID defines it (kernels/raid_f64_returns.h): q = fl(fl(p - prev) / prev); log1p(q)
    correctly rounded for -0.5 <= q <= 1, else fl(log(p) - log(prev)) of correctly rounded logs."""
    q = (p - prev) / prev
    if -0.5 <= q <= 1.0:
        return mpfr_oracle.from_bits(mpfr_oracle.correctly_rounded(gmpy2.log1p, q))
    lp = mpfr_oracle.from_bits(mpfr_oracle.correctly_rounded(gmpy2.log, p))
    lq = mpfr_oracle.from_bits(mpfr_oracle.correctly_rounded(gmpy2.log, prev))
    return lp - lq


def distinct(t, p):
    """One price per distinct time: the last."""
    tt, pp = [], []
    for a, b in zip(t, p):
        if tt and tt[-1] == a:
            pp[-1] = b
        else:
            tt.append(a)
            pp.append(b)
    return tt, pp


def price_at(t, p, tau):
    """Previous tick: the last price at or before tau; before the first time, the first price."""
    i = 0
    while i + 1 < len(t) and t[i + 1] <= tau:
        i += 1
    return p[i]


def sample_times(series, sync):
    if sync == "previous":
        return sorted(set(x for t, _ in series for x in t))
    tau = [max(t[0] for t, _ in series)]  # refresh time, BNHLS 2011
    while True:
        nxt = []
        for t, _ in series:
            after = [x for x in t if x > tau[-1]]
            if not after:
                return tau
            nxt.append(after[0])
        tau.append(max(nxt))


def sync_returns(series, sync):
    """R[a] the synchronised returns of present symbol a."""
    tau = sample_times(series, sync)
    R = []
    for t, p in series:
        px = [price_at(t, p, x) for x in tau]
        R.append([log_return(px[k - 1], px[k]) for k in range(1, len(px))])
    return R, len(tau) - 1


def dot(x, y):
    return math.fsum(a * b for a, b in zip(x, y))


def rbpcov(x, y):
    terms = []
    for k in range(1, len(x)):
        terms.append(abs(x[k] + y[k]) * abs(x[k - 1] + y[k - 1]))
        terms.append(-(abs(x[k] - y[k]) * abs(x[k - 1] - y[k - 1])))
    return PI / 8.0 * math.fsum(terms)


def pre_weights(kn):
    g = [0.0 if j in (0, kn) else min(j / kn, 1.0 - j / kn) for j in range(kn + 1)]
    psi1 = kn * math.fsum((g[j] - g[j - 1]) ** 2 for j in range(1, kn + 1))
    psi2 = math.fsum(g[j] ** 2 for j in range(1, kn)) / kn
    return g, psi1, psi2


def kn_mrc(M, psd):
    """theta = 1: kn = ceil(sqrt(M)) (mrc) or ceil(M^(3/5)) (mrc_psd, CKP's delta = 0.1), in integers."""
    kn = 1
    while (kn ** 5 < M ** 3) if psd else (kn * kn < M):
        kn += 1
    return kn


def mrc(R, M, psd):
    kn = kn_mrc(M, psd)
    g, psi1, psi2 = pre_weights(kn)
    Y = [[math.fsum(g[j] * r[i + j - 1] for j in range(1, kn)) for i in range(M - kn + 2)] for r in R]
    c = M / (M - kn + 2) / (kn * psi2)
    P = len(R)
    O = np.zeros((P, P))
    for a in range(P):
        for b in range(P):
            first = c * dot(Y[a], Y[b])
            O[a, b] = first if psd else math.fsum([first, -(psi1 / (kn * kn * psi2) * (dot(R[a], R[b]) / 2.0))])
    return O, kn


def jitter(r):
    """The m = 2 jittered returns (BNHLS 2009 section 2.2): X'_0 = (X_0+X_1)/2, X'_n = (X_{M-1}+X_M)/2."""
    M = len(r)
    n = M - 2
    if n == 1:
        return [0.5 * r[0] + r[1] + 0.5 * r[2]]
    return [0.5 * r[0] + r[1]] + list(r[2:M - 2]) + [r[M - 2] + 0.5 * r[M - 1]]


def rkcov(R, M, own):
    """BNHLS 2011 with one bandwidth: the mean of c* xi_a^(4/5) n^(3/5) over the symbols, rounded up."""
    n = M - 2
    hs = []
    for r in own:
        x2 = noise_oracle.xi2(r) if len(r) else 0.0
        if math.isinf(x2):
            return None, -1
        hs.append(CSTAR * x2 ** 0.4 * n ** 0.6)
    H = max(1, math.ceil(math.fsum(hs) / len(hs)))
    if H > n:
        return None, -1
    X = [jitter(r) for r in R]
    P = len(R)
    O = np.zeros((P, P))
    for a in range(P):
        for b in range(P):
            terms = []
            for h in range(0, H + 1):
                w = 1.0 if h == 0 else noise_oracle.parzen(h / (H + 1))
                g1 = math.fsum(X[a][j] * X[b][j - h] for j in range(h, n))
                terms.append(w * g1)
                if h:
                    terms.append(w * math.fsum(X[b][j] * X[a][j - h] for j in range(h, n)))
            O[a, b] = math.fsum(terms)
    return O, H


def hy(series):
    """Hayashi and Yoshida (2005): sum over every pair of intervals (t_{k-1}, t_k], (u_{l-1}, u_l] that overlap
    of the product of their returns; a direct double loop (vectorised overlap test)."""
    P = len(series)
    rets = [[log_return(p[k - 1], p[k]) for k in range(1, len(p))] for _, p in series]
    O = np.zeros((P, P))
    for a in range(P):
        for b in range(P):
            t, u = np.array(series[a][0]), np.array(series[b][0])
            if a == b:
                O[a, b] = dot(rets[a], rets[a])
                continue
            if len(t) < 2 or len(u) < 2:
                continue
            ov = (t[:-1, None] < u[None, 1:]) & (u[None, :-1] < t[1:, None])
            ks, ls = np.nonzero(ov)
            O[a, b] = math.fsum(rets[a][k] * rets[b][l] for k, l in zip(ks, ls))
    return O, max((len(r) for r in rets), default=0)


def day(est, sync, series):
    """(parts, n): the estimator's matrices of one day (see the module's text)."""
    N = len(series)
    present = [i for i, s in enumerate(series) if s is not None and len(s[0])]
    ser = [distinct(*series[i]) for i in present]
    nparts = 3 if est == "rsemicov" else 1
    out = [np.full((N, N), np.nan) for _ in range(nparts)]
    if not present:
        return out, 0
    P = len(present)
    if est == "hy":
        O, n = hy(ser)
        Os = [O]
    else:
        R, n = sync_returns(ser, sync)
        if n < MIN_M[est]:
            return out, n
        if est == "rcov":
            Os = [np.array([[dot(R[a], R[b]) for b in range(P)] for a in range(P)])]
        elif est == "rbpcov":
            Os = [np.array([[rbpcov(R[a], R[b]) for b in range(P)] for a in range(P)])]
        elif est == "rsemicov":
            pos = [[max(v, 0.0) for v in r] for r in R]
            neg = [[min(v, 0.0) for v in r] for r in R]
            Os = [np.array([[dot(pos[a], pos[b]) for b in range(P)] for a in range(P)]),
                  np.array([[dot(neg[a], neg[b]) for b in range(P)] for a in range(P)]),
                  np.array([[dot(pos[a], neg[b]) for b in range(P)] for a in range(P)])]
        elif est in ("mrc", "mrc_psd"):
            Os = [mrc(R, n, est == "mrc_psd")[0]]
        elif est == "rkcov":
            own = [[log_return(p[k - 1], p[k]) for k in range(1, len(p))] for _, p in ser]
            O, _ = rkcov(R, n, own)
            if O is None:
                return out, n
            Os = [O]
    for q in range(nparts):
        for a, i in enumerate(present):
            for b, j in enumerate(present):
                out[q][i, j] = Os[q][a, b]
    return out, n
