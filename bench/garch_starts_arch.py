"""GARCH-family starts against Python arch (docs/garch.md "Starts"): the log-likelihoods of `raid.garch`
(cpu) and of arch (tol 1e-14) on dem2gbp, SPY, USD/CHF (as tests/python/test_garch.py forms them) and N
simulated GARCH, EGARCH and i.i.d. series of 500 to 2,500 returns, for the 12 specifications; prints every
fit whose log-likelihood arch beats by more than 1e-6 relative, with RAID's status. A measurement, not a
test. Usage (build/python on PYTHONPATH): python bench/garch_starts_arch.py N SEED [garch,gjr,egarch]"""
import os
import sys
import warnings

import arch
import numpy as np
import pandas as pd

import raid

warnings.simplefilter("ignore")
D = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data")


def series():
    dem = pd.read_csv(D + "/dem2gbp.csv")["ret"].to_numpy()
    spy = pd.read_csv(D + "/spy_realized_measures.csv")
    spy_r = 100.0 * np.diff(np.log(spy["CLOSE"].to_numpy()))
    fx = pd.read_csv(D + "/usdchf_30min.csv")
    close = fx.groupby(fx["timestamp"].str[:10])["price"].last()
    fx_r = 100.0 * np.diff(np.log(close.to_numpy()))
    return {"dem2gbp": dem, "spy": spy_r, "usdchf": fx_r}


N=int(sys.argv[1]); seed=int(sys.argv[2]); models=sys.argv[3].split(",") if len(sys.argv)>3 else ["garch","gjr","egarch"]
rng=np.random.default_rng(seed)
def sim(T, kind):
    z = rng.standard_normal(T) if rng.random()<0.5 else rng.standard_t(rng.uniform(4,12),T)/1.0
    r=np.empty(T)
    if kind=="egarch":
        b=rng.uniform(0.3,0.99); a=rng.uniform(0.02,0.3); g=rng.uniform(-0.2,0.05); lh=0.0
        om=(1-b)*np.log(rng.uniform(0.3,3))
        for t in range(T):
            h=np.exp(lh); r[t]=np.sqrt(h)*z[t]; lh=om+a*(abs(z[t])-0.8)+g*z[t]+b*lh
    elif kind=="garch":
        p=rng.uniform(0.3,0.995); a=rng.uniform(0.01,0.2)*p; b=p-a; om=rng.uniform(0.1,2)*(1-p); h=om/(1-p)
        for t in range(T):
            r[t]=np.sqrt(h)*z[t]; h=om+a*r[t]**2+b*h
    else:
        r=z*rng.uniform(0.5,2)
    return r + rng.uniform(-0.05,0.05)
S = dict(series())
for i in range(N):
    kind=["egarch","garch","iid"][i%3]
    S[f"{kind}{i}"]=sim(int(rng.choice([500,1000,2500])),kind)
worst=[]
for model in models:
  for dist in ("normal","t"):
    for mean in ("constant","zero"):
        got=raid.garch(S,model=model,dist=dist,mean=mean,device="cpu")
        nbad=0
        for i,(name,r) in enumerate(S.items()):
            am=arch.arch_model(r,mean=mean.capitalize(),vol="EGARCH" if model=="egarch" else "GARCH",p=1,o=0 if model=="garch" else 1,q=1,dist=dist,rescale=False)
            ref=am.fit(disp="off",tol=1e-14,options={"maxiter":2000})
            row=got.iloc[i]
            d=(ref.loglikelihood-row["loglik"])/abs(ref.loglikelihood)
            if not (d<=1e-6) :
                nbad+=1
                print(f"  {model}-{dist}-{mean} {name}: raid {row['loglik']:.6f} ({row['status']}, beta {row['beta']:.4f}) arch {ref.loglikelihood:.6f} (flag {ref.convergence_flag}, beta {ref.params['beta[1]']:.4f}) d {d:.2e}", flush=True)
        print(f"{model}-{dist}-{mean}: {nbad}/{len(S)} where arch beats raid by >1e-6", flush=True)
