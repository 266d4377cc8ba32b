#!/usr/bin/env python3
"""Exact oracle for rolling HAR regressions with Newey-West errors (the oracle of the block meat).

Everything is computed EXACTLY (Python integers and fractions; float64 inputs are dyadic rationals), so the
errors it reports are those of RAID's outputs, not of another floating-point computation:

- `--coefs FILE...`: the standard errors of `raid har --window rolling:N --se nw` outputs against the exact
  standard errors of the same windows: the exact least-squares coefficients of the window's design rows
  (the design from raid_har_design, exactly the rows `raid har` uses), exact residuals, the exact Bartlett
  meat, the exact sandwich (X'X)^-1 S (X'X)^-1; relative error |se - sqrt(V_pp)| / sqrt(V_pp). Also the
  coefficients against the exact ones, in units of the exact standard error and relative to themselves.
  A full-sample fit (no --window) is the one window of all the design rows: --window M, M its n.
- `--meat`: the meat of every window from raid_reg_meat_ranges_at on the cpu backend, by block sums
  (meat_block.c) and by rows (RAID_TUNE_MEAT_ROWS), with the same float64 coefficients and centres, against
  the exact meat of those coefficients: the largest |meat - exact| / sqrt(exact_pp exact_qq) over entries
  and lags (the scale of meat_block.c's bound, 2^-36), and how many windows the block path took (its
  meat differs from the rows' bits).

Usage (from the build tree's Python package):
  PYTHONPATH=build/python .venv/bin/python tests/tools/har_oracle.py CSV --model harq --window 1000 \
      [--rv-col RV5 --bpv-col BPV5 --rq-col RQ5] [--nw-lag L] [--meat] [--coefs OUT.csv ...] [--every S]
"""
import argparse
import math
import sys
from fractions import Fraction

import numpy as np
import pandas as pd

from raid import ffi, lib
from raid._core import check
from raid._har import _spec


def design(path, model, rv, bpv, rq, jp):
    d = pd.read_csv(path)
    cols = {c.lower(): c for c in d.columns}

    def col(n):
        if n is None or n.lower() not in cols:
            return None
        return np.ascontiguousarray(d[cols[n.lower()]].to_numpy(np.float64))

    r, b, q, j = col(rv), col(bpv), col(rq), col(jp)
    spec = _spec(model, (1, 5, 22), 1, "none", "nw", None, "full", 0.05)
    n, k = len(r), lib.raid_har_spec_k(spec)
    X, y, ti = np.zeros((n, k)), np.zeros(n), np.zeros(n, np.int64)
    m, fb = ffi.new("size_t *"), ffi.new("size_t *")
    P = lambda a: ffi.NULL if a is None else ffi.from_buffer("double[]", a)  # noqa: E731
    check(lib.raid_har_design(spec, n, P(r), P(b), P(q), P(j), ffi.from_buffer("double[]", X),
                              ffi.from_buffer("double[]", y), ffi.from_buffer("int64_t[]", ti), m, fb))
    return X[:m[0]].copy(), y[:m[0]].copy()


def to_int(a):
    """float64 array -> (object array of ints, s) with a == ints * 2^-s exactly."""
    a = np.asarray(a, np.float64)
    s = 0
    for v in a.ravel():
        if v != 0:
            mant, ex = math.frexp(float(v))
            s = max(s, 53 - ex)
    out = np.empty(a.shape, dtype=object)
    for i, v in np.ndenumerate(a):
        out[i] = int(Fraction(float(v)) * (1 << s)) if s >= 0 else int(Fraction(float(v)) / (1 << -s))
    return out, s


def lagged(U, L):
    """Gamma_l = sum_t U_t U_{t-l}' (object ints), l = 0..L."""
    return [U[l:].T.dot(U[:len(U) - l]) for l in range(L + 1)]


def exact_meat(Xi, sx, yi, sy, b, cen, L):
    """Exact meat blocks of residuals e = y - X b (b float64) and scores e (x - cen): a list of k x k object
    arrays of ints and the power of two they are scaled by (value = int * 2^-scale)."""
    k = Xi.shape[1]
    bi, sb = to_int(b)
    ci, sc = to_int(cen)
    E = max(sy, max(sx[p] + sb for p in range(k)))
    e = yi * (1 << (E - sy))
    for p in range(k):
        e = e - Xi[:, p] * (bi[p] << (E - sx[p] - sb))
    S = max(max(sx), sc)
    xc = np.empty_like(Xi)
    for p in range(k):
        xc[:, p] = Xi[:, p] * (1 << (S - sx[p])) - (ci[p] << (S - sc))
    U = xc * e[:, None]
    return lagged(U, L), 2 * (E + S)


def exact_se(Xi, sx, yi, sy, L):
    """Exact Newey-West standard errors' squares (Fractions) of the least-squares fit of the rows, and the
    exact coefficients (Fractions)."""
    k = Xi.shape[1]
    S = max(sx)
    Xs = np.empty_like(Xi)
    for p in range(k):
        Xs[:, p] = Xi[:, p] * (1 << (S - sx[p]))
    A = [[Fraction(v) for v in row] for row in Xs.T.dot(Xs)]
    c = [Fraction(v) for v in Xs.T.dot(yi)]
    # solve A b = c exactly (Gauss-Jordan on fractions); b in units 2^(S - sy): X b = y
    n = k
    M = [A[i][:] + [c[i]] + [Fraction(int(i == j)) for j in range(n)] for i in range(n)]
    for i in range(n):
        piv = next(r for r in range(i, n) if M[r][i] != 0)
        M[i], M[piv] = M[piv], M[i]
        inv = 1 / M[i][i]
        M[i] = [v * inv for v in M[i]]
        for r in range(n):
            if r != i and M[r][i] != 0:
                f = M[r][i]
                M[r] = [a - f * bb for a, bb in zip(M[r], M[i])]
    b = [M[i][n] for i in range(n)]
    Ainv = [[M[i][n + 1 + j] for j in range(n)] for i in range(n)]
    D = 1
    for v in b:
        D = D * v.denominator // math.gcd(D, v.denominator)
    bi = [int(v * D) for v in b]
    e = yi * D
    for p in range(k):
        e = e - Xs[:, p] * bi[p]  # e * D, in units of y's 2^-sy
    U = Xs * e[:, None]
    G = lagged(U, L)
    Sm = [[Fraction(int(G[0][i, j])) for j in range(k)] for i in range(k)]
    for l in range(1, L + 1):
        w = 1 - Fraction(l, L + 1)
        for i in range(k):
            for j in range(k):
                Sm[i][j] += w * (int(G[l][i, j]) + int(G[l][j, i]))
    # in the integer units (Xs = X 2^S, yi = y 2^sy, e D 2^sy) Ainv is 2^-2S and Sm 2^2S D^2 2^2sy times the
    # real ones, so V = (Ainv Sm Ainv) 2^2S / (D^2 2^2sy)
    scale = Fraction(1 << (2 * S), 1) * Fraction(1, D * D) * Fraction(1, 1 << (2 * sy))
    var = []
    for p in range(k):
        row = [sum(Ainv[p][i] * Sm[i][j] for i in range(k)) for j in range(k)]
        var.append(sum(row[j] * Ainv[j][p] for j in range(k)) * scale)
    return var, [v * Fraction(2) ** (S - sy) for v in b]


def rel_se(se, var):
    """|se - sqrt(var)| / sqrt(var), exactly to first order: |se^2/var - 1| / (1 + se/sqrt(var))."""
    q = Fraction(se) ** 2 / var
    return abs(float(q - 1)) / (1 + math.sqrt(float(q)))


def main(argv=None):
    """Runs the comparisons of argv (the command line's options) and prints them; returns the figures:
    se_worst (per --coefs file, the largest relative error), meat_worst ({"blocks", "rows"}: the largest error
    relative to sqrt(M_pp M_qq)), taken (windows the block path took), windows."""
    ap = argparse.ArgumentParser()
    ap.add_argument("csv")
    ap.add_argument("--model", default="har")
    ap.add_argument("--rv-col", default="rv")
    ap.add_argument("--bpv-col", default="bpv")
    ap.add_argument("--rq-col", default="rq")
    ap.add_argument("--jump-p-col", default="jump_p")
    ap.add_argument("--window", type=int, required=True)
    ap.add_argument("--nw-lag", type=int, default=None)
    ap.add_argument("--meat", action="store_true")
    ap.add_argument("--coefs", nargs="*", default=[])
    ap.add_argument("--every", type=int, default=1, help="every S-th window only")
    a = ap.parse_args(argv)
    res = {}
    X, y = design(a.csv, a.model, a.rv_col, a.bpv_col, a.rq_col, a.jump_p_col)
    m, k = X.shape
    W = a.window
    L = a.nw_lag if a.nw_lag is not None else min(int(math.floor(4 * (W / 100) ** (2 / 9))), W - 1)
    nw = m - W + 1
    wins = list(range(0, nw, a.every))
    Xi = np.empty(X.shape, dtype=object)
    sx = []
    for p in range(k):
        Xi[:, p], s = to_int(X[:, p])
        sx.append(s)
    yi, sy = to_int(y)
    print(f"{a.csv} {a.model}: {m} design rows, k {k}, rolling:{W}, NW({L}), {len(wins)} of {nw} windows")
    res["windows"] = nw
    if a.coefs:
        outs = [pd.read_csv(f) for f in a.coefs]
        names = [c[:-3] for c in outs[0].columns if c.endswith("_se")]
        assert all(len(o) == nw for o in outs), "a window was skipped: match windows by window_end first"
        worst = [[0.0] * k for _ in outs]
        bworst = [[0.0] * k for _ in outs]  # |b - b*| / se*
        brel = [[0.0] * k for _ in outs]  # |b - b*| / |b*|
        perwin = [[] for _ in outs]
        diff = [0.0] * k
        for w in wins:
            var, bx = exact_se(Xi[w:w + W], sx, yi[w:w + W], sy, L)
            for i, o in enumerate(outs):
                ew = 0.0
                for p, nm in enumerate(names):
                    e = rel_se(float(o[nm + "_se"].iloc[w]), var[p])
                    worst[i][p] = max(worst[i][p], e)
                    ew = max(ew, e)
                    db = abs(Fraction(float(o[nm].iloc[w])) - bx[p])
                    bworst[i][p] = max(bworst[i][p], float(db) / math.sqrt(float(var[p])))
                    if bx[p] != 0:
                        brel[i][p] = max(brel[i][p], float(db / abs(bx[p])))
                perwin[i].append(ew)
            if len(outs) == 2:
                for p, nm in enumerate(names):
                    s0, s1 = float(outs[0][nm + "_se"].iloc[w]), float(outs[1][nm + "_se"].iloc[w])
                    diff[p] = max(diff[p], abs(s1 - s0) / abs(s0))
        for i, f in enumerate(a.coefs):
            pw = np.array(perwin[i])
            print(f"  se vs exact, {f}: max " + ", ".join(f"{n} {v:.2e}" for n, v in zip(names, worst[i])) +
                  f"; overall {max(worst[i]):.2e} (window {wins[int(np.argmax(pw))]}), median over windows "
                  f"{np.median(pw):.2e}")
        for i, f in enumerate(a.coefs):
            print(f"  coefficients vs exact, {f}: max |b - b*| / se* " +
                  ", ".join(f"{n} {v:.2e}" for n, v in zip(names, bworst[i])) + "; max |b - b*| / |b*| " +
                  ", ".join(f"{n} {v:.2e}" for n, v in zip(names, brel[i])))
        res["se_worst"] = [max(w) for w in worst]
        res["coef_worst"] = [max(w) for w in bworst]
        if len(outs) == 2:
            print("  se, second file against the first: max relative difference " +
                  ", ".join(f"{n} {v:.2e}" for n, v in zip(names, diff)) + f"; overall {max(diff):.2e}")
    if a.meat:
        st = np.arange(nw, dtype=np.int64)
        en = st + W
        beta, cen = np.zeros((nw, k)), np.zeros((nw, k))
        pp = ffi.new("raid_ctx **")
        check(lib.raid_ctx_create(pp, b"cpu"))
        cpu = ffi.gc(pp[0], lib.raid_ctx_destroy)
        for w in range(nw):
            s = ffi.new("raid_reg_stats *")
            Xw, yw = np.ascontiguousarray(X[w:w + W]), np.ascontiguousarray(y[w:w + W])
            check(lib.raid_reg_stats_compute(cpu, ffi.from_buffer("double[]", Xw), ffi.from_buffer("double[]", yw), k,
                                             ffi.new("int64_t[]", [0, W]), 1, s))
            o = ffi.new("raid_ols *")
            check(lib.raid_ols_from_stats(s, 1, o))
            c = ffi.new("double[]", k)
            lib.raid_reg_stats_centre(s, c)
            beta[w], cen[w] = list(o.beta[0:k]), list(c)
        meats = {}
        for tag, rows in (("blocks", 0), ("rows", 1)):
            pp = ffi.new("raid_ctx **")
            check(lib.raid_ctx_create(pp, b"cpu"))
            ctx = ffi.gc(pp[0], lib.raid_ctx_destroy)
            if rows:
                check(lib.raid_tuning_set(ctx, lib.RAID_TUNE_MEAT_ROWS, 1))
            meat = np.zeros((nw, L + 1, k, k))
            check(lib.raid_reg_meat_ranges_at(ctx, ffi.from_buffer("double[]", X), ffi.from_buffer("double[]", y),
                                              k, ffi.from_buffer("int64_t[]", st), ffi.from_buffer("int64_t[]", en),
                                              nw, ffi.from_buffer("double[]", beta), ffi.from_buffer("double[]", cen),
                                              L, ffi.from_buffer("double[]", meat)))
            meats[tag] = meat
        taken = [w for w in range(nw) if not np.array_equal(meats["blocks"][w], meats["rows"][w])]
        print(f"  meat: the block path took {len(taken)} of {nw} windows (its bits differ from the rows')")
        res["taken"] = len(taken)
        worst = {"blocks": 0.0, "rows": 0.0}
        perwin = {"blocks": [], "rows": []}
        worst_taken = 0.0
        for w in wins:
            G, sc = exact_meat(Xi[w:w + W], sx, yi[w:w + W], sy, beta[w], cen[w], L)
            diag = [Fraction(int(G[0][p, p])) for p in range(k)]
            for tag in worst:
                ew = 0.0
                for l in range(L + 1):
                    for p in range(k):
                        for q in range(k):
                            ex = Fraction(int(G[l][p, q]))
                            got = Fraction(float(meats[tag][w, l, p, q])) * (1 << sc)
                            den = math.sqrt(float(diag[p]) * float(diag[q]))
                            if den == 0:
                                continue
                            r = abs(float(got - ex)) / den
                            worst[tag] = max(worst[tag], r)
                            ew = max(ew, r)
                            if tag == "blocks" and w in taken:
                                worst_taken = max(worst_taken, r)
                perwin[tag].append(ew)
        print(f"  meat vs exact, max |meat - exact| / sqrt(exact_pp exact_qq): block path (as called) "
              f"{worst['blocks']:.2e} (on the windows it took: {worst_taken:.2e}), row-wise {worst['rows']:.2e}; "
              f"bound of the block path 2^-36 = {2.0**-36:.2e}")
        res["meat_worst"] = worst
        for tag in perwin:
            pw = np.array(perwin[tag])
            print(f"  meat vs exact, {tag}: worst window {wins[int(np.argmax(pw))]}, median over windows {np.median(pw):.2e}, "
                  f"90th percentile {np.percentile(pw, 90):.2e}")
    return res


if __name__ == "__main__":
    main()
    sys.exit(0)
