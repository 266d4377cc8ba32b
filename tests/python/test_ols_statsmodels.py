"""RAID's regression inference against statsmodels on the HAR-RV model of SPY realized variance.

HAR-RV (Corsi 2009): y_t = RV_{t+1}, x_t = [1, RV_t, mean(RV_{t-4..t}), mean(RV_{t-21..t})], rows
t = 21 .. T-2 (0-based), on RV5 of data/spy_realized_measures.csv and on its log and square
root. The sufficient statistics are numpy sums in float64 (the device sums are tested elsewhere); RAID
solves from them (raid_ols_from_stats), computes the meat from the rows (raid_reg_meat_compute) and the
robust errors (raid_ols_robust). statsmodels solves on X itself (pinv). Coefficients agree to 1e-10
relative, standard errors to 1e-8.
"""
import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm

from raid_ctypes import RAID_EINVAL, RAID_ESINGULAR, RAID_SE_NW, RAID_SE_WHITE, RaidError

TRANSFORMS = {"rv": lambda v: v, "log": np.log, "sqrt": np.sqrt}
LAGS = (5, 22)
COEF_TOL, SE_TOL = 1e-10, 1e-8


def har(v):
    """HAR design and target of the series v."""
    T = len(v)
    t = np.arange(21, T - 1)
    week = np.array([v[i - 4:i + 1].mean() for i in t])
    month = np.array([v[i - 21:i + 1].mean() for i in t])
    X = np.column_stack([np.ones(len(t)), v[t], week, month])
    return X, v[t + 1]


@pytest.fixture(scope="module")
def rv5(data_dir):
    d = pd.read_csv(data_dir / "spy_realized_measures.csv", usecols=["DT", "RV5"])
    v = d["RV5"].to_numpy(dtype=np.float64)
    assert len(v) > 1000 and np.all(v > 0)
    return v


def relmax(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return float(np.max(np.abs(a - b) / np.abs(b)))


@pytest.mark.parametrize("name", list(TRANSFORMS))
def test_ols_nonrobust(raid, rv5, name):
    X, y = har(TRANSFORMS[name](rv5))
    o = raid.ols(raid.stats(X, y))
    ref = sm.OLS(y, X).fit()
    assert o.n == len(y) and o.k == 4
    assert relmax(o.vec("beta"), ref.params) < COEF_TOL
    assert relmax(o.vec("se"), ref.bse) < SE_TOL
    assert relmax(o.vec("tstat"), ref.tvalues) < SE_TOL
    assert relmax(o.vec("pvalue"), ref.pvalues) < 1e-6  # t(n-k); p of 1e-60 amplifies the t error
    assert abs(o.ssr - ref.ssr) / ref.ssr < 1e-9
    assert abs(o.r2 - ref.rsquared) < 1e-10
    assert abs(o.r2_adj - ref.rsquared_adj) < 1e-10
    assert 1.0 <= o.cond < 1e6
    print(f"\n{name}: beta {relmax(o.vec('beta'), ref.params):.2e} se {relmax(o.vec('se'), ref.bse):.2e} "
          f"cond {o.cond:.3g}")


@pytest.mark.parametrize("name", list(TRANSFORMS))
def test_hc0_and_hac(raid, rv5, name):
    X, y = har(TRANSFORMS[name](rv5))
    s = raid.stats(X, y)
    o = raid.ols(s)
    L = max(LAGS)
    meat = raid.meat(X, y, [0, len(y)], o.vec("beta"), L)[0]

    ref = sm.OLS(y, X).fit(cov_type="HC0")
    r = raid.robust(s, meat, L, RAID_SE_WHITE, o)
    assert relmax(r.vec("beta"), ref.params) < COEF_TOL
    assert relmax(r.vec("se"), ref.bse) < SE_TOL
    assert relmax(r.vec("pvalue"), ref.pvalues) < 1e-6  # normal, statsmodels' use_t=False
    msg = [f"\n{name}: HC0 se {relmax(r.vec('se'), ref.bse):.2e}"]

    for lag in LAGS:
        ref = sm.OLS(y, X).fit(cov_type="HAC", cov_kwds={"maxlags": lag})
        assert ref.cov_kwds["use_correction"] is False  # statsmodels' default: no n/(n-k) factor
        r = raid.robust(s, meat[: lag + 1], lag, RAID_SE_NW, o)
        assert relmax(r.vec("se"), ref.bse) < SE_TOL
        assert relmax(r.vec("tstat"), ref.tvalues) < SE_TOL
        assert relmax(r.vec("pvalue"), ref.pvalues) < 1e-6
        msg.append(f"NW({lag}) se {relmax(r.vec('se'), ref.bse):.2e}")
    print(" ".join(msg))


def test_meat_several_problems(raid, rv5):
    """One meat call over the three transforms as three problems equals three single calls."""
    designs = [har(f(rv5)) for f in TRANSFORMS.values()]
    X = np.vstack([d[0] for d in designs])
    y = np.concatenate([d[1] for d in designs])
    off = np.cumsum([0] + [len(d[1]) for d in designs])
    betas = [raid.ols(raid.stats(*d)).vec("beta") for d in designs]
    m = raid.meat(X, y, off, np.concatenate(betas), 5)
    for g, (d, b) in enumerate(zip(designs, betas)):
        single = raid.meat(d[0], d[1], [0, len(d[1])], b, 5)[0]
        np.testing.assert_array_equal(m[g], single)
        e = d[1] - d[0] @ b
        u = d[0] * e[:, None]
        np.testing.assert_allclose(m[g][0], u.T @ u, rtol=1e-12)
        np.testing.assert_allclose(m[g][3], u[3:].T @ u[:-3], rtol=1e-10, atol=1e-14 * np.abs(m[g][0]).max())


def test_errors(raid, rv5):
    X, y = har(rv5)
    Xd = np.column_stack([X, X[:, 1]])  # duplicate column
    with pytest.raises(RaidError) as e:
        raid.ols(raid.stats(Xd, y))
    assert e.value.status == RAID_ESINGULAR and "condition number" in str(e.value)
    with pytest.raises(RaidError) as e:
        raid.ols(raid.stats(X[:4], y[:4]))
    assert e.value.status == RAID_EINVAL
    with pytest.raises(RaidError) as e:
        raid.meat(X, y, [0, 10, 5], np.zeros(8), 2)
    assert e.value.status == RAID_EINVAL and "offsets" in str(e.value)
