"""The simulator's correlated symbols (docs/simulate.md "Correlated symbols"): the true integrated covariance
against numpy, the sample covariance of the simulated returns against the truth (Wishart variance), the
noise's first-order autocovariance, the Poisson trading times' rate, reproducibility by symbol, and the
refusals (library, Python and CLI)."""
import subprocess

import numpy as np
import pandas as pd
import pytest

import raid

SESSION_S = 23400.0


def corr_matrix(n, seed):
    """A random correlation matrix (positive definite) with correlations of both signs."""
    g = np.random.default_rng(seed)
    a = g.standard_normal((n, n + 2))
    c = a @ a.T
    d = 1 / np.sqrt(np.diag(c))
    r = c * d[:, None] * d[None, :]
    r = (r + r.T) / 2
    np.fill_diagonal(r, 1.0)
    return r


def cov_cube(df, n, day_col, i_col, j_col):
    """The long truth (one row per pair i <= j, day by day) as an array (days, n, n)."""
    iu = np.triu_indices(n)
    vals = df["value"].to_numpy().reshape(-1, len(iu[0]))
    out = np.zeros((vals.shape[0], n, n))
    out[:, iu[0], iu[1]] = vals
    out[:, iu[1], iu[0]] = vals
    return out


def write_corr(path, r):
    n = len(r)
    rows = [(f"S{i + 1:04d}", f"S{j + 1:04d}", repr(float(r[i, j]))) for i in range(n) for j in range(i + 1, n)]
    pd.DataFrame(rows, columns=["symbol_i", "symbol_j", "value"]).to_csv(path, index=False)


def test_truth_against_numpy(cli, tmp_path):
    """Constant variances, one per symbol: the truth is the sum over the grid of diag(s) R diag(s) dt, computed
    here in numpy, for the returns, the library's prices and the CLI's file (the same bytes)."""
    n, ndays, obs = 5, 3, 391
    r = corr_matrix(n, 1)
    v = np.array([1e-4, 2e-4, 5e-5, 3e-4, 1.5e-4])
    opts = dict(seed=4, nsymbols=n, ndays=ndays, obs_per_day=obs, mean_var=v, vol_of_logvar=0, jump_rate=0, corr=r)
    _, iv, c = raid.simulate("returns", iv=True, cov=True, **opts)
    dt = 1.0 / (obs - 1)
    s = np.sqrt(v)
    step = (s[:, None] * r * s[None, :]) * dt
    want = np.sum(np.broadcast_to(step, (obs - 1, n, n)), axis=0)
    got = cov_cube(c, n, "day", "series_i", "series_j")
    assert got.shape == (ndays, n, n)
    for d in range(ndays):
        np.testing.assert_allclose(got[d], want, rtol=1e-12, atol=0)
    # the diagonal is the iv, bit for bit
    ivs = iv["iv"].to_numpy().reshape(n, ndays)
    for d in range(ndays):
        assert np.array_equal(np.diag(got[d]), ivs[:, d])
    # the prices' truth file, from the library and from the CLI (matrix from a file), is the same
    _, cp = raid.simulate("prices", cov=True, **opts)
    assert list(cp.columns) == ["date", "symbol_i", "symbol_j", "value"]
    assert np.array_equal(cp["value"].to_numpy(), c["value"].to_numpy())
    assert list(cp["date"].unique()) == ["2020-01-02", "2020-01-03", "2020-01-06"]
    iu = np.triu_indices(n)
    assert list(cp["symbol_i"][:len(iu[0])]) == [f"S{i + 1:04d}" for i in iu[0]]
    assert list(cp["symbol_j"][:len(iu[0])]) == [f"S{j + 1:04d}" for j in iu[1]]
    write_corr(tmp_path / "r.csv", r)
    out = tmp_path / "p.csv"
    truth = tmp_path / "t.csv"
    res = subprocess.run([cli, "simulate", "--seed", "4", "--symbols", str(n), "--days", str(ndays), "--obs", str(obs),
                          "--mean-var", ",".join(repr(float(x)) for x in v), "--vol-of-var", "0", "--jump-rate", "0",
                          "--corr-file", str(tmp_path / "r.csv"), "--truth-cov", str(truth), "-o", str(out)],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    tc = pd.read_csv(truth, dtype={"date": str})
    assert np.array_equal(tc["value"].to_numpy(), c["value"].to_numpy())


def test_truth_stochastic_volatility():
    """With stochastic variances the truth's diagonal is the iv and each covariance is R_jk times a sum of
    products whose Cauchy-Schwarz bound is sqrt(iv_j iv_k); R = I gives exactly the independent model."""
    n = 4
    r = corr_matrix(n, 2)
    _, iv, c = raid.simulate("returns", iv=True, cov=True, seed=9, nsymbols=n, ndays=5, obs_per_day=781, corr=r)
    got = cov_cube(c, n, "day", "series_i", "series_j")
    ivs = iv["iv"].to_numpy().reshape(n, 5)
    for d in range(5):
        assert np.array_equal(np.diag(got[d]), ivs[:, d])
        bound = np.abs(r) * np.sqrt(np.outer(ivs[:, d], ivs[:, d]))
        assert np.all(np.abs(got[d]) <= bound * (1 + 1e-12))
        assert np.all(np.sign(got[d]) == np.sign(r))
        # the variances differ between symbols: not a constant times R
        assert np.linalg.eigvalsh(got[d]).min() > 0
    # the identity matrix: the independent symbols' returns and variances, bit for bit, covariances 0
    a, iva = raid.simulate("returns", iv=True, seed=9, nsymbols=n, ndays=5, obs_per_day=781)
    b, ivb, cb = raid.simulate("returns", iv=True, cov=True, seed=9, nsymbols=n, ndays=5, obs_per_day=781,
                               corr=np.eye(n))
    assert np.array_equal(a["ret"].to_numpy(), b["ret"].to_numpy())
    assert np.array_equal(iva["iv"].to_numpy(), ivb["iv"].to_numpy())
    _, ca = raid.simulate("returns", cov=True, seed=9, nsymbols=n, ndays=5, obs_per_day=781)
    assert np.array_equal(ca["value"].to_numpy(), cb["value"].to_numpy())
    off = ca["series_i"] != ca["series_j"]
    assert (ca["value"][off] == 0).all()


@pytest.mark.parametrize("sv", [False, True])
def test_sample_covariance_converges_to_truth(sv):
    """The realized covariance of the grid's returns (noise 0, no jumps) is an unbiased estimate of the day's
    integrated covariance, with the Wishart variance (C_jj C_kk + C_jk^2) / M per day for M returns of
    constant covariance. Over D days the sum of the errors, divided by its standard deviation, is within
    4.5 for every pair (fixed seed; with stochastic variances the within-day variation makes the variance
    larger by a few per cent at these parameters, well inside the margin), and a correlation 0.05 off is
    far outside it, as is a variance 5% off: the test can tell."""
    n, ndays, obs = 4, 2000, 79
    m = obs - 1
    r = corr_matrix(n, 3)
    opts = dict(seed=21, nsymbols=n, ndays=ndays, obs_per_day=obs, jump_rate=0, corr=r,
                mean_var=[1e-4, 4e-4, 2e-4, 1e-4])
    if not sv:
        opts["vol_of_logvar"] = 0
    ret, c = raid.simulate("returns", cov=True, **opts)
    x = ret["ret"].to_numpy().reshape(n, ndays, m)
    rc = np.einsum("jdi,kdi->djk", x, x)  # realized covariance per day
    truth = cov_cube(c, n, "day", "series_i", "series_j")
    diag = np.einsum("djj->dj", truth)
    var = (diag[:, :, None] * diag[:, None, :] + truth ** 2) / m
    z = (rc - truth).sum(axis=0) / np.sqrt(var.sum(axis=0))
    print("z =", z[np.triu_indices(n)])
    assert np.all(np.abs(z) < 4.5)
    # a variance 5% off, or a correlation 0.05 off, is far outside
    off = ~np.eye(n, dtype=bool)
    wrong = truth * np.where(off, 1.0, 0.95) + np.where(off, 0.05, 0.0) * np.sqrt(diag[:, :, None] * diag[:, None, :])
    z_wrong = (rc - wrong).sum(axis=0) / np.sqrt(var.sum(axis=0))
    print("z of a wrong truth =", z_wrong[np.triu_indices(n)])
    assert np.all(np.abs(z_wrong) > 6)


def day_returns(prices):
    """Tick log returns per (symbol, date), in time order."""
    p = prices.copy()
    p["date"] = p["timestamp"].dt.date
    p["lp"] = np.log(p["price"].to_numpy())
    out = {}
    for key, g in p.groupby(["symbol", "date"], sort=True):
        out[key] = np.diff(g["lp"].to_numpy())
    return out


def test_noise_first_autocovariance():
    """i.i.d. noise of sd omega on the observed log price: the tick returns' first-order autocovariance is
    -omega^2 (the efficient increments are independent of the noise and of each other); without noise it is
    0. A t-test over the symbol-days (independent: constant variance), |t| < 5."""
    omega = 4e-4
    base = dict(seed=5, nsymbols=2, ndays=30, obs_per_day=23401, mean_var=1e-6, vol_of_logvar=0, jump_rate=0,
                corr=0.6, trade_rate=0.05)
    for noise, want in ((omega, -omega ** 2), (0.0, 0.0)):
        rets = day_returns(raid.simulate(noise_sd=noise, **base))
        ac = np.array([np.mean(v[1:] * v[:-1]) for v in rets.values()])
        t = (ac.mean() - want) / (ac.std(ddof=1) / np.sqrt(len(ac)))
        print(noise, ac.mean(), want, t)
        assert abs(t) < 5
        if noise:
            assert abs(ac.mean() / want - 1) < 0.05
            # the noise variance shows in the returns' variance too: 2 omega^2 plus the diffusion's share
            var = np.mean([np.mean(v * v) for v in rets.values()])
            assert abs(var / (2 * omega ** 2) - 1) < 0.05


def test_poisson_trading_times():
    """Each symbol's trades are a Poisson process of its rate: the trades of a day (the rows besides the open
    and the close) average rate * 23400 with a Poisson variance; times are in order, microseconds, within
    the session; every day opens at 09:30:00 and closes at 16:00:00 for every symbol."""
    rates = [0.02, 0.1, 0.005]
    ndays = 20
    p = raid.simulate(seed=8, nsymbols=3, ndays=ndays, obs_per_day=391, trade_rate=rates, corr=0.3, jump_rate=0)
    p["date"] = p["timestamp"].dt.date
    for date, g in p.groupby("date"):
        assert g["timestamp"].is_monotonic_increasing
        first = g.groupby("symbol")["timestamp"].first()
        last = g.groupby("symbol")["timestamp"].last()
        assert (first.dt.strftime("%H:%M:%S.%f") == "09:30:00.000000").all()
        assert (last.dt.strftime("%H:%M:%S.%f") == "16:00:00.000000").all()
    counts = p.groupby(["symbol", "date"]).size().unstack() - 2
    for k, lam in enumerate(rates):
        c = counts.loc[f"S{k + 1:04d}"].to_numpy()
        mu = lam * SESSION_S
        z = (c.sum() - ndays * mu) / np.sqrt(ndays * mu)
        print(lam, c.mean(), mu, z)
        assert abs(z) < 4.5
        # index of dispersion near 1 (Poisson), not 0 (a regular grid)
        assert 0.3 < c.var(ddof=1) / c.mean() < 2.5


def test_adding_a_symbol_keeps_the_others():
    """Symbol k's draws come from its own streams and row k of the Cholesky factor from rows 0..k of R: a
    fourth symbol leaves the first three's returns, prices and covariances unchanged."""
    r4 = corr_matrix(4, 6)
    r3 = r4[:3, :3].copy()
    a, ca = raid.simulate("returns", cov=True, seed=3, nsymbols=3, ndays=2, obs_per_day=391, corr=r3)
    b, cb = raid.simulate("returns", cov=True, seed=3, nsymbols=4, ndays=2, obs_per_day=391, corr=r4)
    assert np.array_equal(a["ret"].to_numpy(), b["ret"].to_numpy()[:len(a)])
    keep = cb["series_j"] < 3
    assert np.array_equal(ca["value"].to_numpy(), cb["value"][keep].to_numpy())
    kw = dict(seed=3, ndays=2, obs_per_day=391, trade_rate=0.01, noise_sd=1e-4)
    pa = raid.simulate(nsymbols=3, corr=r3, **kw)
    pb = raid.simulate(nsymbols=4, corr=r4, **kw)
    pb = pb[pb["symbol"] != "S0004"].reset_index(drop=True)
    pd.testing.assert_frame_equal(pa, pb)
    # and the same seed gives the same bytes, another seed others
    pd.testing.assert_frame_equal(pa, raid.simulate(nsymbols=3, corr=r3, **kw))
    assert not raid.simulate(nsymbols=3, corr=r3, **{**kw, "seed": 4}).equals(pa)


def test_bad_options():
    with pytest.raises(raid.RaidError, match=r"corr must be in \[-1, 1\] \(got 1.5\)"):
        raid.simulate("returns", nsymbols=2, obs_per_day=10, corr=1.5)
    with pytest.raises(raid.RaidError, match=r"Cholesky pivot of symbol 3 \(S0003\) is -0.8 .*-1/\(symbols - 1\)"):
        raid.simulate("returns", nsymbols=3, obs_per_day=10, corr=-0.6)
    bad = np.array([[1, 0.9, 0.9], [0.9, 1, -0.9], [0.9, -0.9, 1]])
    with pytest.raises(raid.RaidError, match=r"not positive semidefinite: the Cholesky pivot of symbol 3 \(S0003\)"):
        raid.simulate("prices", nsymbols=3, obs_per_day=10, corr=bad)
    # positive semidefinite but singular: accepted (corr 1: one path for every symbol)
    ret = raid.simulate("returns", nsymbols=3, obs_per_day=10, corr=1.0, vol_of_logvar=0, jump_rate=0)
    x = ret["ret"].to_numpy().reshape(3, -1)
    assert np.array_equal(x[0], x[1]) and np.array_equal(x[0], x[2])
    nonsym = np.array([[1, 0.5], [0.4, 1]])
    with pytest.raises(raid.RaidError, match="not symmetric"):
        raid.simulate("returns", nsymbols=2, obs_per_day=10, corr=nonsym)
    with pytest.raises(raid.RaidError, match="with itself must be 1"):
        raid.simulate("returns", nsymbols=2, obs_per_day=10, corr=np.array([[1, 0.5], [0.5, 0.9]]))
    with pytest.raises(raid.RaidError, match="trade rate must be in"):
        raid.simulate(nsymbols=2, obs_per_day=10, trade_rate=-1)
    with pytest.raises(raid.RaidError, match="trade rate of symbol 2 must be in"):
        raid.simulate(nsymbols=2, obs_per_day=10, trade_rate=[1, 0])
    with pytest.raises(raid.RaidError, match="trade rates give prices at trading times"):
        raid.simulate("returns", nsymbols=2, obs_per_day=10, trade_rate=1)
    with pytest.raises(raid.RaidError, match="mean variance of symbol 1 must be"):
        raid.simulate("returns", nsymbols=2, obs_per_day=10, mean_var=[-1, 1e-4])
    with pytest.raises(ValueError, match=r"shape \(3,\) for 2 symbols"):
        raid.simulate("returns", nsymbols=2, obs_per_day=10, mean_var=[1, 2, 3])
    with pytest.raises(ValueError, match="must be a number or a matrix"):
        raid.simulate("returns", nsymbols=2, obs_per_day=10, corr=[0.5, 0.5])
    with pytest.raises(TypeError):
        raid.simulate(nsymbols=2, corr_matrix=np.eye(2))


SIM = dict(nsymbols=2, ndays=1, obs_per_day=10)


def test_array_options_refuse_masked_entries():
    # a masked entry is a value to leave out, not one to use (the value under the mask was taken); the
    # package's values rule (docs/python.md "Inputs") refuses it naming the row, as it refuses it elsewhere
    m = np.ma.masked_array([1e-4, 2e-4], mask=[False, True])
    with pytest.raises(ValueError, match=r"row 1: mean_var is masked \(a numpy masked array\)"):
        raid.simulate(**SIM, mean_var=m)
    with pytest.raises(ValueError, match=r"row 0: trade_rate is masked"):
        raid.simulate(**SIM, trade_rate=np.ma.masked_array([0.5, 0.5], mask=[True, False]))
    r = np.ma.masked_array([[1, 0.5], [0.5, 1]], mask=[[False, True], [False, False]])
    with pytest.raises(ValueError, match=r"row 0: corr\[:, 1\] is masked"):
        raid.simulate(**SIM, corr=r)
    raid.simulate(**SIM, mean_var=np.ma.masked_array([1e-4, 2e-4]), corr=np.ma.masked_array(np.eye(2)))


def test_array_options_refuse_nulls():
    # pandas NA and pyarrow nulls became NaN, which the library refused without naming the row or the input
    pa = pytest.importorskip("pyarrow")
    with pytest.raises(ValueError, match=r"row 1: mean_var is NA \(pandas Float64\)"):
        raid.simulate(**SIM, mean_var=pd.Series([1e-4, None], dtype="Float64"))
    with pytest.raises(ValueError, match=r"row 1: trade_rate is null \(pyarrow double\)"):
        raid.simulate(**SIM, trade_rate=pa.array([0.5, None]))
    r = pd.DataFrame({"a": [1.0, 0.5], "b": [pd.NA, 1.0]}, dtype="Float64")
    with pytest.raises(ValueError, match=r"row 0: corr\['b'\] is NA"):
        raid.simulate(**SIM, corr=r)
    # a correlation DataFrame (DataFrame.corr()) and a pyarrow array without nulls are taken
    good = pd.DataFrame({"a": [1.0, 0.5], "b": [0.5, 1.0]})
    a = raid.simulate(**SIM, seed=5, corr=good, trade_rate=pa.array([0.5, 0.25]))
    b = raid.simulate(**SIM, seed=5, corr=good.to_numpy(), trade_rate=[0.5, 0.25])
    pd.testing.assert_frame_equal(a, b)


def test_array_options_refuse_text_and_booleans():
    # text was parsed as numbers (np.array(["0.5", "0.5"], dtype=float)), booleans taken as 0 and 1
    with pytest.raises(TypeError, match=r"trade_rate must be real floating .* not dtype <U3"):
        raid.simulate(**SIM, trade_rate=["0.5", "0.5"])
    with pytest.raises(TypeError, match=r"corr\[:, 0\] must be real floating .* not dtype <U3"):
        raid.simulate(**SIM, corr=[["1", "0.5"], ["0.5", "1"]])
    with pytest.raises(TypeError, match=r"mean_var must be real floating .* not dtype bool"):
        raid.simulate(**SIM, mean_var=[True, True])
    with pytest.raises(ValueError, match=r"trade_rate must be a real number, not '0.5' \(str\)"):
        raid.simulate(**SIM, trade_rate="0.5")
    with pytest.raises(ValueError, match=r"corr must be a number or a matrix \(rows of one length\), not rows of lengths 2, 1$"):
        raid.simulate(**SIM, corr=[[1, 0.5], [0.5]])


def test_flags_are_booleans():
    # iv and cov took any object's truth value: "no" and 2 asked for the tables
    for k in ("iv", "cov"):
        for v in ("no", 2, None):
            with pytest.raises(ValueError, match=rf"{k} must be True or False, not {v!r}"):
                raid.simulate("returns", **SIM, **{k: v})
    df, iv = raid.simulate("returns", **SIM, iv=np.bool_(True), cov=np.False_)
    assert len(iv) == 2


def test_cli_bad_options(cli, tmp_path):
    out = tmp_path / "p.csv"
    usage = [["--corr", "2"], ["--corr", "x"], ["--symbols", "3", "--corr", "-0.6"], ["--trade-rate", "-1"],
             ["--trade-rate", "1e7"], ["--symbols", "2", "--trade-rate", "1,0"], ["--symbols", "3", "--trade-rate", "1,2"],
             ["--symbols", "2", "--mean-var", "1e-4,x"], ["--mean-var", "1e-4,2e-4"], ["--truth-cov", str(out)],
             ["--corr", "0.5", "--corr-file", str(tmp_path / "r.csv")]]
    for args in usage:
        res = subprocess.run([cli, "simulate", "--obs", "10", *args, "-o", str(out)], capture_output=True, text=True)
        assert res.returncode == 1, (args, res.stderr)
        assert res.stderr.startswith("raid simulate: "), res.stderr
        assert not out.exists()
    res = subprocess.run([cli, "simulate", "--obs", "10", "--symbols", "3", "--corr", "-0.6", "-o", str(out)],
                         capture_output=True, text=True)
    assert "Cholesky pivot of symbol 3 (S0003) is -0.8" in res.stderr
    # a bad correlation file: FILE:LINE:COL, exit 2, no output
    cases = [("symbol_i,symbol_j,value\nS0001,S0002,0.5\nS0001,S0003,0.2\nS0002,S0004,0.1\n", ":4:2: symbol 'S0004' is not simulated"),
             ("symbol_i,symbol_j,value\nS0001,S0002,1.5\n", ":2:3: correlation '1.5' is not in [-1, 1]"),
             ("symbol_i,symbol_j,value\nS0001,S0002,0.5\nS0002,S0001,0.5\n", ":3:1: the pair (S0002, S0001) again (first given on line 2)"),
             ("symbol_i,symbol_j,value\nS0001,S0001,0.9\n", ":2:3: the correlation of S0001 with itself must be 1"),
             ("symbol_i,symbol_j,value\nS1,S0002,0.5\n", ":2:1: symbol 'S1' is not simulated"),
             ("symbol_i,symbol_j,value\nS0001,S0002,0.5\n", ": the pair (S0001, S0003) is missing"),
             ("symbol_i,value\nS0001,0.5\n", ":1:1: missing column 'symbol_j'")]
    for text, msg in cases:
        f = tmp_path / "r.csv"
        f.write_text(text)
        n = "3" if "S0003" in text or "missing" in msg else "2"
        res = subprocess.run([cli, "simulate", "--obs", "10", "--symbols", n, "--corr-file", str(f), "-o", str(out)],
                             capture_output=True, text=True)
        assert res.returncode == 2, (text, res.stderr)
        assert str(f) + msg in res.stderr, res.stderr
        assert not out.exists()
    # a matrix that is not positive semidefinite: exit 1, no output
    write_corr(tmp_path / "r.csv", np.array([[1, 0.9, 0.9], [0.9, 1, -0.9], [0.9, -0.9, 1]]))
    res = subprocess.run([cli, "simulate", "--obs", "10", "--symbols", "3", "--corr-file", str(tmp_path / "r.csv"),
                          "-o", str(out), "--truth-cov", str(tmp_path / "t.csv")], capture_output=True, text=True)
    assert res.returncode == 1 and "the Cholesky pivot of symbol 3 (S0003)" in res.stderr
    assert not out.exists() and not (tmp_path / "t.csv").exists()
