"""raid.cov against the true integrated covariance of simulated prices (docs/measures.md "How the estimators
compare on simulated data"): where the theory says an estimator is consistent, its mean error over many days,
less the finite-sample bias the theory predicts (tests/python/cov_theory.py), is within K standard errors of
0; where it says an estimator is biased, the bias is there and of the predicted size, so that the first
kind of check has power.

One scenario, simulated twice with the same seed, with and without noise (the efficient paths and the trading
times are the same: docs/simulate.md "Random numbers"): 5 symbols with one-factor correlations in [0.3, 0.6],
the simulator's stochastic volatility (mean_var 1e-4 a day), no jumps (the truth excludes them), Poisson trading
with mean gaps of 5 to 15 s (about 1,600 to 4,700 trades a day; refresh time gives about 960 returns), noise
sd 5e-4 on the log price (omega^2 / IV about 2e-3, a liquid stock's order of magnitude), 150 days.

Relative errors: (estimate - truth) / truth per symbol-day (variances) and pair-day (covariances, all true
covariances positive). The standard error of their mean is that of the days' mean errors (the entries of a
day share its path), sd / sqrt(days). The bound: |mean| <= K standard errors with K = 3.5 (the seed is
fixed, so the test is deterministic; 3.5 rather than 2 leaves room for the approximations of the
predictions). Against the truth the standard errors are 1 to 3% (the estimators' own daily spread is 15 to
50%), so that check catches gross errors (a wrong bandwidth or normalisation); the effect of the noise
alone, the paired difference between the noisy and the clean simulation, is resolved to 0.1 to 0.25% of IV,
which catches a missing or wrong noise correction.
"""
import numpy as np
import pytest

import raid
from cov_theory import predicted_var_bias, simulate

N = 5
DAYS = 150
SEED = 20
NOISE = 5e-4
GAPS = np.linspace(5.0, 15.0, N)
K = 3.5


@pytest.fixture(scope="module")
def noisy():
    return simulate(N, SEED, DAYS, NOISE, GAPS)


@pytest.fixture(scope="module")
def clean():
    return simulate(N, SEED, DAYS, 0.0, GAPS)


def rel_errors(values, truth, var_bias=0.0):
    """Relative errors of the variances less var_bias (days, N) and of the covariances (days, pairs)."""
    iu = np.triu_indices(N, 1)
    iv = np.diagonal(truth, axis1=1, axis2=2)
    var = (np.diagonal(values, axis1=1, axis2=2) - iv - var_bias) / iv
    cov = values[:, iu[0], iu[1]] / truth[:, iu[0], iu[1]] - 1
    return var, cov


def mean_se(e):
    daily = e.mean(axis=1)
    return daily.mean(), daily.std(ddof=1) / np.sqrt(len(daily))


def var_bias(estimator, res, truth, own, omega2):
    """The predicted bias of each variance (days, N) of an estimate on refresh-time returns."""
    iv = np.diagonal(truth, axis1=1, axis2=2)
    return np.array([[predicted_var_bias(estimator, iv[d, s], omega2, res.n[d], xi2_syms=own["xi2"][d])
                      for s in range(N)] for d in range(DAYS)])


@pytest.mark.parametrize("estimator", ["mrc", "mrc_psd", "rkcov"])
def test_noise_robust_near_truth(noisy, clean, estimator):
    """mrc, mrc_psd and rkcov on refresh-time ticks are consistent under i.i.d. noise and asynchronous trading
    (Christensen, Kinnebrock and Podolskij 2010; Barndorff-Nielsen, Hansen, Lunde and Shephard 2011): their
    mean relative error, less the predicted finite-sample bias of the variances, is within K standard errors
    of 0, for variances and covariances, with noise and without. The predicted biases here (cov_theory):
    mrc -0.6% (its bias correction's share of IV, kn = 31), mrc_psd +0.5% with noise (uncorrected, kn = 62),
    rkcov +4% with noise (the Parzen kernel's 12 n omega^2 / (H+1)^2 at H about 18: 5 standard errors, so
    the prediction is needed; the check without it is below) and -0.2% without. Observed (seed 20, 150
    days): standard errors of 0.8 to 1.4% (variances) and 1.6 to 2.8% (covariances), daily RMSE of 16 to 28%
    (variances) and 29 to 50% (covariances)."""
    for (df, truth, own), omega2 in ((noisy, NOISE ** 2), (clean, 0.0)):
        res = raid.cov(df, estimator=estimator, refresh_time=True)
        assert res.values.shape == truth.shape
        bias = var_bias(estimator, res, truth, own, omega2)
        var, cov = rel_errors(res.values, truth, bias)
        for name, e in (("variances", var), ("covariances", cov)):
            m, se = mean_se(e)
            assert 0.005 < se < 0.03, (estimator, name, se)  # the spread the bound was stated for
            assert abs(m) <= K * se, f"{estimator} {name}: mean relative error {m:+.4f}, se {se:.4f}"
        if estimator == "rkcov" and omega2:
            raw, _ = rel_errors(res.values, truth)
            m, se = mean_se(raw)
            assert m > K * se, (m, se)  # the kernel's noise bias is resolved: the prediction has power
        if estimator in ("mrc_psd", "rkcov"):  # PSD by construction
            scale = np.max(np.abs(res.values), axis=(1, 2))
            assert np.all(res.min_eig >= -1e-12 * scale), estimator


@pytest.mark.parametrize("estimator", ["rcov", "mrc", "mrc_psd", "rkcov"])
def test_noise_effect_paired(noisy, clean, estimator):
    """The effect of the noise alone: the two simulations share the efficient paths and the trading times (so
    the refresh times and n are the same), and the estimate on the noisy prices less the estimate on the
    clean ones, relative to IV, has the mean the theory predicts for the noise (cov_theory: rcov 2 n
    omega^2, about 5.7 IV here; mrc 0, its bias correction removes the noise's expected part exactly;
    mrc_psd n psi1 omega^2 / (kn^2 psi2), +0.9%; rkcov the Parzen kernel's noise term, +4.5%) within K
    standard errors of the paired differences. The efficient paths' error cancels in the difference, so
    these standard errors are about 0.1 to 0.25% of IV (1.6% for rcov): a missing bias correction in mrc
    (+12 omega^2 / IV, 2.2% here) would be 17 of them away. The covariances' noise effect is 0 (independent
    noises across symbols), within K standard errors."""
    rn = raid.cov(noisy[0], estimator=estimator, refresh_time=True)
    rc = raid.cov(clean[0], estimator=estimator, refresh_time=True)
    assert np.array_equal(rn.n, rc.n)  # the same refresh times
    truth = clean[1]
    iv = np.diagonal(truth, axis1=1, axis2=2)
    pred = (var_bias(estimator, rn, truth, noisy[2], NOISE ** 2) - var_bias(estimator, rc, truth, clean[2], 0.0)) / iv
    diff = np.diagonal(rn.values - rc.values, axis1=1, axis2=2) / iv
    m, se = mean_se(diff - pred)
    assert se < (0.03 if estimator == "rcov" else 0.004), (estimator, se)
    assert abs(m) <= K * se, f"{estimator}: noise effect {diff.mean():+.5f}, predicted {pred.mean():+.5f}, se {se:.5f}"
    iu = np.triu_indices(N, 1)
    m, se = mean_se((rn.values - rc.values)[:, iu[0], iu[1]] / truth[:, iu[0], iu[1]])
    assert abs(m) <= K * se, (estimator, m, se)


def test_rcov_noise_bias(noisy, clean):
    """rcov of noisy prices on refresh time and on every tick (previous tick on the union of the trade times)
    is biased upward by 2 n omega^2 on the variances: each of its n returns spans two distinct observations,
    whose independent noises add 2 omega^2 (n: the refresh-time returns; the symbol's distinct trade times
    - 1 on ticks). The observed excess over the truth, divided by the prediction, is 1 within 3% (the noise's
    own sampling error and the efficient part's are about 0.3% and 1% of it here); without noise the same
    estimators are unbiased for the variances (K standard errors). This is the bias the noise-robust
    estimators of the test above remove: about 6 IV on refresh time and 16 IV on ticks here."""
    for how, kw in (("refresh time", dict(refresh_time=True)), ("tick", dict(sample="tick"))):
        df, truth, own = noisy
        res = raid.cov(df, estimator="rcov", **kw)
        iv = np.diagonal(truth, axis1=1, axis2=2)
        n = np.broadcast_to(res.n[:, None], iv.shape) if how == "refresh time" else own["trades"] - 1
        excess = np.diagonal(res.values, axis1=1, axis2=2) - iv
        ratio = excess.sum() / (2 * n * NOISE ** 2).sum()
        assert abs(ratio - 1) < 0.03, (how, ratio)
        assert excess.mean() / iv.mean() > 3, how
        df, truth, _ = clean
        var, _ = rel_errors(raid.cov(df, estimator="rcov", **kw).values, truth)
        m, se = mean_se(var)
        assert abs(m) <= K * se, (how, m, se)


def test_hy_unbiased_asynchronous(noisy, clean):
    """Hayashi-Yoshida on each symbol's own ticks is unbiased for the covariance under asynchronous trading
    without noise (Hayashi and Yoshida 2005): mean relative error within K standard errors (0.5% here).
    Power: on the same ticks, rcov of previous-tick returns on the union of the trade times loses nearly all
    the covariance (the Epps effect: two symbols rarely trade at the same microsecond, so the products of
    their returns are almost all 0), and rcov on refresh time about a quarter of it (each symbol's last
    trade before a refresh time is stale by a part of the interval): both tens of standard errors away.
    With noise independent across symbols HY's covariances stay unbiased (no product of two symbols'
    noises has a mean) but their RMSE grows several-fold; its variances (each symbol's tick RV) carry the
    noise bias of the test above."""
    df, truth, _ = clean
    var, cov = rel_errors(raid.cov(df, estimator="hy").values, truth)
    m, se = mean_se(cov)
    assert se < 0.01, se
    assert abs(m) <= K * se, (m, se)
    m_var, se_var = mean_se(var)
    assert abs(m_var) <= K * se_var, (m_var, se_var)
    _, cov_tick = rel_errors(raid.cov(df, estimator="rcov", sample="tick").values, truth)
    assert mean_se(cov_tick)[0] < -0.9
    _, cov_rt = rel_errors(raid.cov(df, estimator="rcov", refresh_time=True).values, truth)
    m_rt, se_rt = mean_se(cov_rt)
    assert m_rt < -0.15 and m_rt < -10 * se_rt, (m_rt, se_rt)
    df, truth, _ = noisy
    _, cov_noisy = rel_errors(raid.cov(df, estimator="hy").values, truth)
    m_n, se_n = mean_se(cov_noisy)
    assert abs(m_n) <= K * se_n, (m_n, se_n)
    assert np.sqrt(np.mean(cov_noisy ** 2)) > 3 * np.sqrt(np.mean(cov ** 2))
