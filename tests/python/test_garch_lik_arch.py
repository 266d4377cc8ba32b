"""The float64 cpu path of the GARCH likelihood (src/models/garch_lik.c, printed by the test-only
tests/tools/garch_lik_print) against Python arch's ARCHModel.fix(params).loglikelihood at fixed
parameters, backcast start, on two real series in percent (no rescaling): GARCH, GJR and EGARCH(1,1),
Normal and Student-t, constant and zero mean.

arch computes its backcast once, from the residuals at the starting values of the mean (the sample mean
for a constant mean), and holds it fixed; the C path computes it from the residuals at the current mu.
The two are the same value where mu is the sample mean, so the constant-mean cases are taken there.
Both evaluate the same float64 sums of about 1,500-2,000 terms of one sign in different orders, so they
agree to a few T u (u = 1.1e-16) of the sum at worst: asserted to 1e-12 (measured: 4e-16)."""
import os
import subprocess

import numpy as np
import pytest

arch = pytest.importorskip("arch")

PRINT = os.environ.get("RAID_GARCH_LIK_PRINT")


def series(data_dir):
    dem = np.loadtxt(data_dir / "dem2gbp.csv", delimiter=",", skiprows=1)[:, 1]
    import pandas as pd

    spy = pd.read_csv(data_dir / "spy_realized_measures.csv")["CLOSE"].to_numpy()
    return {"dem2gbp": dem, "spy": 100.0 * np.diff(np.log(spy))}


def c_loglik(r, model, dist, mean, theta):
    out = subprocess.run(
        [PRINT, model, dist, mean, "backcast", "sqrt2pi", *[repr(float(x)) for x in theta]],
        input="\n".join(repr(float(x)) for x in r),
        capture_output=True, text=True, check=True)
    return float(out.stdout)


@pytest.mark.skipif(not PRINT, reason="RAID_GARCH_LIK_PRINT not set (ctest sets it)")
@pytest.mark.parametrize("model", ["garch", "gjr", "egarch"])
@pytest.mark.parametrize("dist", ["normal", "t"])
@pytest.mark.parametrize("mean", ["constant", "zero"])
def test_loglik_equals_arch(data_dir, model, dist, mean):
    for name, r in series(data_dir).items():
        v = float(np.mean(r**2))
        mu = float(np.mean(r))
        if model == "egarch":
            vol = [0.05 * np.log(v) + 0.01, 0.15, -0.08, 0.95]
            am = arch.arch_model(r, mean=mean.capitalize(), vol="EGARCH", p=1, o=1, q=1, dist=dist,
                                 rescale=False)
        else:
            vol = [0.05 * v, 0.08] + ([0.1] if model == "gjr" else []) + [0.85]
            am = arch.arch_model(r, mean=mean.capitalize(), vol="GARCH", p=1, o=1 if model == "gjr" else 0,
                                 q=1, dist=dist, rescale=False)
        theta = ([mu] if mean == "constant" else []) + vol + ([7.0] if dist == "t" else [])
        ref = am.fix(np.array(theta)).loglikelihood
        got = c_loglik(r, model, dist, mean, theta)
        assert got == pytest.approx(ref, rel=1e-12), (name, got, ref)
