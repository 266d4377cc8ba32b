"""RAID's regression inference against statsmodels on the HAR-RV model of SPY realized variance.

HAR-RV (Corsi 2009): y_t = RV_{t+1}, x_t = [1, RV_t, mean(RV_{t-4..t}), mean(RV_{t-21..t})], rows
t = 21 .. T-2 (0-based), on RV5 of data/spy_realized_measures.csv and on its log and square
root. The sufficient statistics are numpy sums in float64 (the device sums are tested elsewhere); RAID
solves from them (raid_ols_from_stats), computes the meat from the rows (raid_reg_meat_compute) and the
robust errors (raid_ols_robust), called through the package's cffi binding (raid.ffi, raid.lib: the
declarations of include/, no struct written twice). statsmodels solves on X itself (pinv). Coefficients
agree to 1e-10 relative, standard errors to 1e-8.
"""
import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm

from raid import RaidError, ffi, lib
from raid._core import check

TRANSFORMS = {"rv": lambda v: v, "log": np.log, "sqrt": np.sqrt}
LAGS = (5, 22)
COEF_TOL, SE_TOL = 1e-10, 1e-8


class Reg:
    """The regression calls of the C API on numpy arrays, with a cpu context for the meat."""

    def __init__(self):
        pp = ffi.new("raid_ctx **")
        check(lib.raid_ctx_create(pp, b"cpu"))
        self.ctx = ffi.gc(pp[0], lib.raid_ctx_destroy)

    @staticmethod
    def stats(X, y):
        """Sufficient statistics of one problem from numpy sums in float64: means, centred cross-products
        (of the columns centred at their float64 means) and raw moments."""
        X = np.ascontiguousarray(X, dtype=np.float64)
        y = np.ascontiguousarray(y, dtype=np.float64)
        n, k = X.shape
        s = ffi.new("raid_reg_stats *")
        s.k, s.n = k, n
        m, my = X.mean(axis=0), y.mean()
        Z, zy = X - m, y - my
        s.mean[0:k + 1] = [*m, my]
        s.cxx[0:k * k] = (Z.T @ Z).ravel().tolist()
        s.xtx[0:k * k] = (X.T @ X).ravel().tolist()
        s.cxy[0:k] = (Z.T @ zy).tolist()
        s.xty[0:k] = (X.T @ y).tolist()
        s.cyy, s.yty, s.ysum = float(zy @ zy), float(y @ y), float(y.sum())
        return s

    @staticmethod
    def ols(s, has_intercept=True):
        o = ffi.new("raid_ols *")
        check(lib.raid_ols_from_stats(s, int(has_intercept), o))
        return o

    def meat(self, X, y, offsets, beta, max_lag):
        """Meat blocks of len(offsets)-1 problems: array (nreg, max_lag+1, k, k)."""
        X = np.ascontiguousarray(X, dtype=np.float64)
        y = np.ascontiguousarray(y, dtype=np.float64)
        off = np.ascontiguousarray(offsets, dtype=np.int64)
        b = np.ascontiguousarray(beta, dtype=np.float64)
        k, nreg = X.shape[1], len(off) - 1
        out = np.zeros((nreg, max_lag + 1, k, k))
        st = lib.raid_reg_meat_compute(self.ctx, ffi.from_buffer("double[]", X), ffi.from_buffer("double[]", y), k,
                                       ffi.from_buffer("int64_t[]", off), nreg, ffi.from_buffer("double[]", b),
                                       max_lag, ffi.from_buffer("double[]", out))
        if st != lib.RAID_OK:
            raise RaidError(st, ffi.string(lib.raid_ctx_errmsg(self.ctx)).decode())
        return out

    @staticmethod
    def robust(s, meat, max_lag, kind, o):
        """A copy of o with robust standard errors from meat (max_lag+1, k, k) of this problem."""
        r = ffi.new("raid_ols *", o[0])
        m = np.ascontiguousarray(meat, dtype=np.float64)
        st = lib.raid_ols_robust(s, ffi.from_buffer("double[]", m), max_lag, kind, r)
        if st != lib.RAID_OK:
            raise RaidError(st, "raid_ols_robust")  # sets no message
        return r


def vec(o, name):
    return np.array(ffi.unpack(getattr(o, name), o.k))


@pytest.fixture(scope="module")
def reg():
    return Reg()


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
def test_ols_nonrobust(reg, rv5, name):
    X, y = har(TRANSFORMS[name](rv5))
    o = reg.ols(reg.stats(X, y))
    ref = sm.OLS(y, X).fit()
    assert o.n == len(y) and o.k == 4
    assert relmax(vec(o, "beta"), ref.params) < COEF_TOL
    assert relmax(vec(o, "se"), ref.bse) < SE_TOL
    assert relmax(vec(o, "tstat"), ref.tvalues) < SE_TOL
    assert relmax(vec(o, "pvalue"), ref.pvalues) < 1e-6  # t(n-k); p of 1e-60 amplifies the t error
    assert abs(o.ssr - ref.ssr) / ref.ssr < 1e-9
    assert abs(o.r2 - ref.rsquared) < 1e-10
    assert abs(o.r2_adj - ref.rsquared_adj) < 1e-10
    assert 1.0 <= o.cond < 1e6
    print(f"\n{name}: beta {relmax(vec(o, 'beta'), ref.params):.2e} se {relmax(vec(o, 'se'), ref.bse):.2e} "
          f"cond {o.cond:.3g}")


@pytest.mark.parametrize("name", list(TRANSFORMS))
def test_hc0_and_hac(reg, rv5, name):
    X, y = har(TRANSFORMS[name](rv5))
    s = reg.stats(X, y)
    o = reg.ols(s)
    L = max(LAGS)
    meat = reg.meat(X, y, [0, len(y)], vec(o, "beta"), L)[0]

    ref = sm.OLS(y, X).fit(cov_type="HC0")
    r = reg.robust(s, meat, L, lib.RAID_SE_WHITE, o)
    assert relmax(vec(r, "beta"), ref.params) < COEF_TOL
    assert relmax(vec(r, "se"), ref.bse) < SE_TOL
    assert relmax(vec(r, "pvalue"), ref.pvalues) < 1e-6  # normal, statsmodels' use_t=False
    msg = [f"\n{name}: HC0 se {relmax(vec(r, 'se'), ref.bse):.2e}"]

    for lag in LAGS:
        ref = sm.OLS(y, X).fit(cov_type="HAC", cov_kwds={"maxlags": lag})
        assert ref.cov_kwds["use_correction"] is False  # statsmodels' default: no n/(n-k) factor
        r = reg.robust(s, meat[: lag + 1], lag, lib.RAID_SE_NW, o)
        assert relmax(vec(r, "se"), ref.bse) < SE_TOL
        assert relmax(vec(r, "tstat"), ref.tvalues) < SE_TOL
        assert relmax(vec(r, "pvalue"), ref.pvalues) < 1e-6
        msg.append(f"NW({lag}) se {relmax(vec(r, 'se'), ref.bse):.2e}")
    print(" ".join(msg))


def test_meat_several_problems(reg, rv5):
    """One meat call over the three transforms as three problems equals three single calls."""
    designs = [har(f(rv5)) for f in TRANSFORMS.values()]
    X = np.vstack([d[0] for d in designs])
    y = np.concatenate([d[1] for d in designs])
    off = np.cumsum([0] + [len(d[1]) for d in designs])
    betas = [vec(reg.ols(reg.stats(*d)), "beta") for d in designs]
    m = reg.meat(X, y, off, np.concatenate(betas), 5)
    for g, (d, b) in enumerate(zip(designs, betas)):
        single = reg.meat(d[0], d[1], [0, len(d[1])], b, 5)[0]
        np.testing.assert_array_equal(m[g], single)
        e = d[1] - d[0] @ b
        u = d[0] * e[:, None]
        np.testing.assert_allclose(m[g][0], u.T @ u, rtol=1e-12)
        np.testing.assert_allclose(m[g][3], u[3:].T @ u[:-3], rtol=1e-10, atol=1e-14 * np.abs(m[g][0]).max())


def test_errors(reg, rv5):
    X, y = har(rv5)
    Xd = np.column_stack([X, X[:, 1]])  # duplicate column
    with pytest.raises(RaidError) as e:
        reg.ols(reg.stats(Xd, y))
    assert e.value.status == lib.RAID_ESINGULAR and "condition number" in str(e.value)
    with pytest.raises(RaidError) as e:
        reg.ols(reg.stats(X[:4], y[:4]))
    assert e.value.status == lib.RAID_EINVAL
    with pytest.raises(RaidError) as e:
        reg.meat(X, y, [0, 10, 5], np.zeros(8), 2)
    assert e.value.status == lib.RAID_EINVAL and "offsets" in str(e.value)


@pytest.mark.parametrize("name", list(TRANSFORMS))
def test_rolling_block_meat(reg, rv5, name):
    """Rolling windows of 1,000 days, Newey-West with 22 lags, their meat in one raid_reg_meat_ranges_at call
    about each window's means: on the cpu backend the block sums of src/regress/meat_block.c. Their standard
    errors against statsmodels on windows spread over the sample, and against the row-wise meat
    (RAID_TUNE_MEAT_ROWS) on every window."""
    X, y = har(TRANSFORMS[name](rv5))
    n, k = X.shape
    W, L = 1000, 22
    nw = n - W + 1
    st = np.arange(nw, dtype=np.int64)
    en = st + W
    stats, fits = [], []
    beta, cen = np.zeros((nw, k)), np.zeros((nw, k))
    for w in range(nw):
        s = reg.stats(X[w:w + W], y[w:w + W])
        o = reg.ols(s)
        c = ffi.new("double[]", k)
        lib.raid_reg_stats_centre(s, c)
        stats.append(s), fits.append(o)
        beta[w], cen[w] = vec(o, "beta"), list(c)
    pp = ffi.new("raid_ctx **")
    check(lib.raid_ctx_create(pp, b"cpu"))
    rows = ffi.gc(pp[0], lib.raid_ctx_destroy)
    check(lib.raid_tuning_set(rows, lib.RAID_TUNE_MEAT_ROWS, 1))
    se = {}
    for tag, ctx in (("blocks", reg.ctx), ("rows", rows)):
        meat = np.zeros((nw, L + 1, k, k))
        check(lib.raid_reg_meat_ranges_at(ctx, ffi.from_buffer("double[]", X), ffi.from_buffer("double[]", y), k,
                                          ffi.from_buffer("int64_t[]", st), ffi.from_buffer("int64_t[]", en), nw,
                                          ffi.from_buffer("double[]", beta), ffi.from_buffer("double[]", cen), L,
                                          ffi.from_buffer("double[]", meat)))
        if tag == "blocks":
            blocks_meat = meat
        else:  # the block path took (nearly) every window: its meat is not the rows' bits
            assert np.sum(np.all(meat == blocks_meat, axis=(1, 2, 3))) < nw // 10
        se[tag] = np.zeros((nw, k))
        for w in range(nw):
            r = ffi.new("raid_ols *", fits[w][0])
            check(lib.raid_ols_robust_at(stats[w], ffi.from_buffer("double[]", np.ascontiguousarray(meat[w])),
                                         ffi.new("double[]", list(cen[w])), L, lib.RAID_SE_NW, r))
            se[tag][w] = vec(r, "se")
    d_rows = float(np.max(np.abs(se["blocks"] - se["rows"]) / se["rows"]))
    assert d_rows < 1e-10
    worst = 0.0
    for w in range(0, nw, nw // 20):
        ref = sm.OLS(y[w:w + W], X[w:w + W]).fit(cov_type="HAC", cov_kwds={"maxlags": L})
        worst = max(worst, relmax(se["blocks"][w], ref.bse))
    assert worst < SE_TOL
    print(f"\n{name}: rolling:{W} NW({L}) se, block meat against the row-wise meat {d_rows:.2e}, "
          f"against statsmodels {worst:.2e}")
