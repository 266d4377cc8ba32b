"""raid.cov and the noise-robust univariate measures against Python's hfhd (its `hf` module, 0.1.4, numba) on
the same ticks: simulated asynchronous trades of correlated symbols with noise (raid.simulate) and the bundled
one-minute prices of two symbols. Where the conventions match (refresh-time sampling, Hayashi-Yoshida) the two
agree to 1e-12; where they differ (docs/measures.md "Conventions against hfhd") each difference is undone in
the test, from RAID's results and the synchronised returns, and the two then agree to 1e-12 too.

The tolerance is relative to the matrix's scale, |a_ij - b_ij| <= 1e-12 sqrt(s_i s_j) with s the diagonal of
a sum of squares of the same returns: off-diagonal entries and bias-corrected ones are differences of terms of
that size, so an entrywise relative bound would measure the cancellation, not the agreement. What separates
the two at all: hfhd takes log prices and differences them, RAID takes returns log(p_b / p_a) (log1p of the
relative change); hfhd is given log prices that are the running sums, from 0 at each symbol's first price, of
the same returns (so each of its returns is RAID's up to the rounding of a sum of magnitude below 0.1, some
1e-18), and hfhd sums naively (numba loops and BLAS) where RAID sums with TwoSum: both are within a few 1e-16
of the exact sums on these days (a few thousand terms)."""
import math
import pathlib
import sys

import numba
import numpy as np
import pandas as pd
import pytest
from hfhd import hf

import raid

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import cov_oracle  # noqa: E402
import noise_oracle  # noqa: E402

TOL = 1e-12
# hfhd's numba kernels slice arrays that are not contiguous; numba says so at compile time, about hfhd's code
pytestmark = pytest.mark.filterwarnings("ignore::numba.NumbaPerformanceWarning")


@pytest.fixture(scope="module")
def sim():
    """Two days of four correlated symbols trading every 5 to 30 s on average (Poisson), with noise."""
    df = raid.simulate(nsymbols=4, ndays=2, trade_rate=[0.2, 0.1, 0.05, 1 / 30], corr=0.5, noise_sd=2e-4,
                       jump_rate=0, seed=11)
    return [g for _, g in df.groupby(df.timestamp.dt.date, sort=True)]


@pytest.fixture(scope="module")
def onemin(data_dir):
    df = pd.read_csv(data_dir / "onemin_stock_market.csv", parse_dates=["timestamp"])
    return [g for _, g in df.groupby(df.timestamp.dt.date, sort=True)]


def hfhd_series(day, keep="last"):
    """hfhd's input: one pd.Series of log prices per symbol (DatetimeIndex), the running sums of the returns
    log1p((p_b - p_a)/p_a) from 0. keep="last": of several prices at one time only the last (RAID's rule);
    keep=False: all of them, as the tape has them."""
    out = []
    for sym, g in day.groupby("symbol", sort=False):
        if keep:
            g = g.drop_duplicates("timestamp", keep=keep)
        p = g.price.to_numpy()
        x = np.concatenate([[0.0], np.cumsum(np.log1p(np.diff(p) / p[:-1]))])
        out.append(pd.Series(x, index=pd.DatetimeIndex(g.timestamp.to_numpy().astype("datetime64[ns]")), name=sym))
    return out


def indeces_and_values(series):
    """hf._get_indeces_and_values without its first line: it fills a uint64 array with NaN, which numpy 2
    refuses (ValueError); the padding of the times is never read (the lengths come from the values' NaN)."""
    n_max = max(len(s) for s in series)
    ind = np.zeros((len(series), n_max), dtype=np.uint64)
    val = np.full((len(series), n_max), np.nan)
    for i, s in enumerate(series):
        ind[i, :len(s)] = s.index.asi8.astype(np.uint64)
        val[i, :len(s)] = s.to_numpy()
    return ind, val


def hfhd_hy(series):
    """hf.hayashi_yoshida (theta = k = None: the plain estimator) through its numba kernel."""
    ind, val = indeces_and_values(series)
    ret = np.column_stack((np.zeros(len(series)), np.diff(val, axis=1)))
    return hf._hayashi_yoshida_pairwise(ind, ret, None, None)


def sync_returns(series):
    """The returns between hfhd's refresh times (rows: times, columns: symbols)."""
    return np.diff(hf.refresh_time(series).to_numpy(), axis=0)


def raid_cov(day, est, **kw):
    r = raid.cov(day, estimator=est, device="cpu", **kw)
    assert len(r.dates) == 1
    return r.values[0], int(r.n[0])


def scaled_ok(a, b, s, tol=TOL):
    """|a - b| <= tol sqrt(s_i s_j) entrywise (s: the diagonal of a sum of squares of the same returns)."""
    a, b, s = np.asarray(a), np.asarray(b), np.abs(np.asarray(s))
    assert a.shape == b.shape and np.isfinite(a).all() and np.isfinite(b).all()
    err = np.abs(a - b) / np.sqrt(np.outer(s, s))
    assert err.max() <= tol, (err.max(), a, b)
    return err.max()


def pre_weights(kn):
    """g(j/kn), j = 1..kn-1, and psi2 = (1/kn) sum g^2 (the same in RAID and hfhd)."""
    j = np.arange(1, kn) / kn
    g = np.minimum(j, 1 - j)
    return g, np.sum(g * g) / kn


def test_hfhd_wrappers_refuse_numpy2(sim):
    """Why the tests call hfhd's numba kernels for hy: its wrapper (and those of pairwise mrc, msrc, krvm)
    fills a uint64 array with NaN, a ValueError under numpy 2. If hfhd fixes it, this fails: call
    hf.hayashi_yoshida itself then."""
    with pytest.raises(ValueError, match="NaN"):
        hf.hayashi_yoshida(hfhd_series(sim[0]))


def test_refresh_time(sim):
    """hf.refresh_time is RAID's refresh-time sampling (--refresh-time): the same times and prices, so the
    same returns and the same rcov; hf.msrc with one scale (M = 1, pairwise=False) is that rcov too."""
    for day in sim:
        s = hfhd_series(day)
        R = sync_returns(s)
        want, n = raid_cov(day, "rcov", refresh_time=True)
        assert R.shape == (n, 4) and n > 300
        scaled_ok(R.T @ R, want, np.diag(want))
        scaled_ok(hf.msrc(s, M=1, pairwise=False), want, np.diag(want))


def test_hayashi_yoshida(sim, onemin):
    """hf.hayashi_yoshida is RAID's hy: the same half-open intervals, each symbol's own ticks, the diagonal
    its sum of squared returns."""
    for day in sim + onemin[:3]:
        want, _ = raid_cov(day, "hy")
        scaled_ok(hfhd_hy(hfhd_series(day)), want, np.diag(want))


def test_repeated_times():
    """Several prices of a symbol at one time: RAID keeps the last; hfhd keeps all, which gives its HY an
    empty interval (t, t] that still picks up one return of the other symbol, and its refresh time the
    first price at t. With the last price alone hfhd agrees."""
    t0 = pd.Timestamp("2024-03-01 10:00:00")
    sec = [0, 3, 3, 7, 12, 12, 20, 26, 31, 31, 40]
    a = pd.DataFrame({"symbol": "A", "timestamp": [t0 + pd.Timedelta(seconds=x) for x in sec],
                      "price": [10.0, 10.02, 10.05, 10.01, 9.98, 10.03, 10.04, 10.0, 10.06, 10.02, 10.05]})
    b = pd.DataFrame({"symbol": "B", "timestamp": [t0 + pd.Timedelta(seconds=x) for x in [0, 2, 5, 9, 12, 18, 25, 33, 40]],
                      "price": [20.0, 20.1, 19.95, 20.05, 20.2, 20.15, 19.9, 20.0, 20.1]})
    day = pd.concat([a, b]).sort_values("timestamp", kind="stable")
    hy, _ = raid_cov(day, "hy")
    rc, _ = raid_cov(day, "rcov", refresh_time=True)
    raw = hfhd_series(day, keep=False)
    assert np.abs(hfhd_hy(raw) - hy).max() > 1e-6 * hy[0, 1] + 1e-8
    R = sync_returns(raw)
    assert np.abs(R.T @ R - rc).max() > 1e-6
    last = hfhd_series(day, keep="last")
    scaled_ok(hfhd_hy(last), hy, np.diag(hy))
    R = sync_returns(last)
    scaled_ok(R.T @ R, rc, np.diag(rc))


def test_mrc(sim, onemin):
    """hf.mrc(pairwise=False) against mrc and mrc_psd on refresh-time returns. Its conventions: kn given
    (theta = kn/sqrt(n) then, RAID's realised theta; its default theta = 0.4 is another kn), psi1 without
    the term j = kn (RAID's psi1 less 1/kn), and its pre-averaging leaves out the first window
    Ybar_0 = sum_j g(j/kn) r_j (numba's _preaverage starts its windows at the second return). Undone:
    hfhd = RAID - c Ybar_0 Ybar_0' + (1/kn)/(kn^2 psi2) rcov/2, c = n/(n-kn+2)/(kn psi2)."""
    for day in sim + onemin[:2]:
        s = hfhd_series(day)
        R = sync_returns(s)
        rc, n = raid_cov(day, "rcov", refresh_time=True)
        assert R.shape[0] == n
        for est, psd in (("mrc", False), ("mrc_psd", True)):
            got, n2 = raid_cov(day, est, refresh_time=True)
            assert n2 == n
            kn = cov_oracle.kn_mrc(n, psd)
            g, psi2 = pre_weights(kn)
            y0 = g @ R[:kn - 1]
            c = n / (n - kn + 2) / (kn * psi2)
            want = got - c * np.outer(y0, y0)
            if not psd:
                want = want + (1.0 / kn) / (kn * kn * psi2) * rc / 2.0
            h = hf.mrc(s, k=kn, pairwise=False, bias_correction=not psd)
            scaled_ok(h, want, np.diag(rc))
            # the conventions matter: the difference they make is far above the tolerance
            assert np.abs(h - got).max() > 1e-6 * np.abs(np.diag(got)).max()


def test_univariate_prv_tsrv(sim):
    """hf.mrc of one symbol's ticks against prv (same reconciliation as test_mrc), and hf.tsrc against tsrv
    with RAID's K: hfhd's two scales count the N = n + 1 prices where ZMA count the n returns
    (nbar_K = (N - K + 1)/K, nbar_1 = N) and leave out the small-sample factor (1 - nbar/n)^-1; undone from
    RAID's tsrv, its K and rv through [Y,Y]^(avg) = tsrv (1 - nbar/n) + (nbar/n) rv. (hf.tsrc needs two
    series: the symbol's twice.)"""
    for day in sim:
        u = raid.realized_from_prices(day, sample="tick", measures=["rv", "tsrv", "tsrv_k", "prv"], device="cpu")
        for (_, row), s in zip(u.iterrows(), hfhd_series(day)):
            n, K, rv = int(row.n), int(row.tsrv_k), row.rv
            assert len(s) == n + 1
            nbar = (n - K + 1) / K
            avg = row.tsrv * (1 - nbar / n) + nbar / n * rv
            want = avg - ((n + 2 - K) / K) / (n + 1) * rv
            scaled_ok([hf.tsrc([s, s], K=K)[0, 0]], [want], [rv])
            kn = cov_oracle.kn_mrc(n, False)
            g, psi2 = pre_weights(kn)
            r = np.diff(s.to_numpy())
            want = row.prv - n / (n - kn + 2) / (kn * psi2) * (g @ r[:kn - 1]) ** 2 \
                + (1.0 / kn) / (kn * kn * psi2) * rv / 2.0
            scaled_ok([hf.mrc([s], k=kn, pairwise=False)[0, 0]], [want], [rv])


def test_rkcov(sim):
    """hf.krvm's kernel sum is rkcov's once RAID's conventions are put into it: the m = 2 jittered returns,
    the weights k(h/(H+1)) (hfhd: k((h-1)/H), so h = 1 has weight 1: not PSD) and RAID's H (the mean over
    the symbols of c* xi^(4/5) n^(3/5) rounded up; hfhd takes H from the user); its own form differs."""
    for day in sim:
        s = hfhd_series(day)
        R = sync_returns(s)
        got, n = raid_cov(day, "rkcov", refresh_time=True)
        hs = [cov_oracle.CSTAR * noise_oracle.xi2(list(np.diff(x.to_numpy()))) ** 0.4 * (n - 2) ** 0.6 for x in s]
        H = max(1, math.ceil(math.fsum(hs) / len(hs)))
        X = np.vstack([0.5 * R[0] + R[1], R[2:-2], R[-2] + 0.5 * R[-1]])
        hp1 = float(H + 1)

        @numba.njit
        def weight(x):  # hfhd calls kernel((h - 1)/1): x = h - 1
            return hf.parzen_kernel((x + 1.0) / hp1)

        rc, _ = raid_cov(day, "rcov", refresh_time=True)
        scaled_ok(hf._krvm(np.ascontiguousarray(X.T), 1, weight), got, np.diag(rc))
        own = hf.krvm(s, H, pairwise=False, kernel=hf.parzen_kernel)
        assert np.abs(own - got).max() > 1e-3 * np.abs(np.diag(got)).max()
