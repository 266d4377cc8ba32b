#!/usr/bin/env python3
"""Binary64 arithmetic and elementary functions on devices against the cpu path, bit for bit.

The functions: every input of the worst-case files (tests/data/f64_worst/*.wc, both signs) and --n random
inputs per function (uniform bit patterns, and uniform magnitudes over each function's useful range). The
arithmetic (+ - * / sqrt and fma): --n TestFloat-style operands per operation (sign, exponent and
significand patterns: all ones, one bit, runs of ones at either end, random; boundary exponents, subnormals,
near overflow; partners with nearby exponents for cancellation; exact and near-halfway quotients and
roots), each result also against the host's IEEE double (numpy) where numpy has the operation. The cpu
result is computed once and compared with each device of --device (comma-separated). Prints one line per
operation and device: inputs, mismatches, the first few. Not a test (the suite's tests compare on PoCL);
this is the GPU run of docs/f64.md's "Tests" (bench/device_session.sh step f64check). Exit status 1 on any
mismatch.

usage: f64_device_check.py [--device D[,D...]] [--n N] [--only NAME,...]"""
import argparse
import pathlib
import sys

import numpy as np

import raid

ROOT = pathlib.Path(__file__).resolve().parents[1]
UNARY = {"log": "log", "log2": "log2", "log10": "log10", "log1p": "log1p", "exp": "exp", "exp2": "exp2",
         "exp10": "exp10", "expm1": "expm1", "sinh": "sinh", "cosh": "cosh", "tanh": "tanh", "sin": "sin",
         "cos": "cos", "tan": "tan", "asin": "arcsin", "acos": "arccos", "atan": "arctan"}


def parse(tok):
    tok = tok.strip()
    sign = -1.0 if tok.startswith("-") else 1.0
    t = tok.lstrip("+-").lower()
    if t in ("nan", "snan", "qnan"):
        return float("nan")
    if t in ("inf", "infinity"):
        return sign * float("inf")
    return sign * float.fromhex(t) if t.startswith("0x") else sign * float(t)


def worst(name, arity):
    """The inputs of tests/data/f64_worst/NAME.wc (columns: arity), both signs."""
    f = ROOT / "tests" / "data" / "f64_worst" / f"{name}.wc"
    if not f.exists():
        return np.zeros((arity, 0))
    rows = []
    for line in f.read_text().splitlines():
        line = line.split("#")[0].strip()
        if not line:
            continue
        parts = [p for p in line.replace(" ", "").split(",")][:arity]
        try:
            rows.append([parse(p) for p in parts])
        except ValueError:
            continue
    a = np.array(rows, dtype=np.float64).T.reshape(arity, -1)
    return np.concatenate([a, -a], axis=1)


def random_inputs(n, rng):
    """Half uniform bit patterns, half uniform in [-50, 50] (the working range of most functions)."""
    bits = rng.integers(0, 2**64, n // 2, dtype=np.uint64).view(np.float64)
    return np.concatenate([bits, rng.uniform(-50, 50, n - n // 2)])


def patterns(n, rng):
    """TestFloat-style binary64 bit patterns (its level-1 and level-2 generators' ideas, vectorised):
    a random sign; an exponent uniform, or at a boundary (0, 1, 2, the bias and around it, 2045, 2046,
    2047); a significand random, all ones, zero, one bit, or a run of ones from the top or the bottom."""
    sign = rng.integers(0, 2, n, dtype=np.uint64) << np.uint64(63)
    edges = np.array([0, 1, 2, 3, 1021, 1022, 1023, 1024, 1025, 2044, 2045, 2046, 2047], dtype=np.uint64)
    exp = np.where(rng.random(n) < 0.5, rng.integers(0, 2048, n, dtype=np.uint64),
                   edges[rng.integers(0, edges.size, n)])
    frac_mask = np.uint64((1 << 52) - 1)
    k = rng.integers(0, 53, n, dtype=np.uint64)
    ones_low = (np.uint64(1) << k) - np.uint64(1)
    kind = rng.integers(0, 6, n)
    frac = rng.integers(0, 2**52, n, dtype=np.uint64)
    frac = np.where(kind == 1, frac_mask, frac)
    frac = np.where(kind == 2, np.uint64(0), frac)
    frac = np.where(kind == 3, (np.uint64(1) << (k % np.uint64(52))), frac)
    frac = np.where(kind == 4, ones_low & frac_mask, frac)
    frac = np.where(kind == 5, (frac_mask ^ (ones_low >> np.uint64(1))) & frac_mask, frac)
    return (sign | (exp << np.uint64(52)) | frac).view(np.float64)


def near(x, rng):
    """Partners of x with exponents within +-60 of x's (cancellation and rounding in + and -, quotients
    and products near 1), patterns otherwise."""
    n = x.size
    b = patterns(n, rng).view(np.uint64)
    e = (x.view(np.uint64) >> np.uint64(52)) & np.uint64(2047)
    d = rng.integers(-60, 61, n).astype(np.int64)
    e2 = np.clip(e.astype(np.int64) + d, 0, 2046).astype(np.uint64)
    b2 = (b & ~(np.uint64(2047) << np.uint64(52))) | (e2 << np.uint64(52))
    return np.where(rng.random(n) < 0.5, b2, b).view(np.float64)


def short(n, rng, bits):
    """Random binary64 with at most BITS significant bits and exponents in [-200, 200]."""
    m = rng.integers(1 << (bits - 1), 1 << bits, n).astype(np.float64)
    return np.ldexp(m, rng.integers(-200, 200, n)) * np.where(rng.random(n) < 0.5, -1.0, 1.0)


def arith_inputs(op, n, rng):
    """The operands of OP (add, subtract, multiply, divide, sqrt, fma), n of them."""
    q = n // 4
    if op == "sqrt":  # patterns, and exact squares of 26-bit numbers and their neighbours (halfway roots)
        r = short(n - q, rng, 26)
        sq = r * r
        step = rng.integers(-2, 3, sq.size)  # a square (0), its neighbour below (< 0) or above (> 0)
        sq = np.where(step == 0, sq, np.nextafter(sq, np.where(step < 0, 0.0, np.inf)))
        return [np.concatenate([patterns(q, rng), sq])]
    x = patterns(n, rng)
    y = near(x, rng)
    if op == "divide":  # exact quotients of short numbers, and their neighbours
        a, b = short(q, rng, 26), short(q, rng, 26)
        c = a * b
        c = np.where(rng.random(q) < 0.5, c, np.nextafter(c, np.where(rng.random(q) < 0.5, -np.inf, np.inf)))
        x[:q], y[:q] = c, b
    if op == "fma":
        z = near(x, rng)
        return [x, y, z]
    return [x, y]


NUMPY = {"add": np.add, "subtract": np.subtract, "multiply": np.multiply, "divide": np.divide, "sqrt": np.sqrt}


def compare(name, got, want):
    g, w = got.view(np.uint64), want.view(np.uint64)
    bad = np.flatnonzero(g != w)
    return bad


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--n", type=float, default=1e7)
    ap.add_argument("--only", default="", help="comma-separated operations (add ... fma, log ... pow)")
    args = ap.parse_args()
    devices = args.device.split(",")
    only = set(filter(None, args.only.split(",")))
    rng = np.random.default_rng(20261207)
    failed = 0

    def report(name, x, got, want, extra=""):
        bad = compare(name, got, want)
        first = ", ".join(f"{name}({', '.join(v.hex() for v in x[:, i])}) got {got[i].hex()} want {want[i].hex()}"
                          for i in bad[:3])
        print(f"fn={name} {extra} inputs={x.shape[1]} mismatches={bad.size}" + (f" first: {first}" if first else ""),
              flush=True)
        return bad.size > 0

    for op in ["add", "subtract", "multiply", "divide", "sqrt", "fma"]:
        if only and op not in only:
            continue
        x = np.stack(arith_inputs(op, int(args.n), rng))
        if op == "fma":
            def run(dev):
                return raid.eval("fma(a, b, c)", a=x[0], b=x[1], c=x[2], device=dev)
        else:
            def run(dev, f=getattr(raid, op)):
                return f(*x, device=dev)
        want = run("cpu")
        if op in NUMPY:  # the cpu path against the host's IEEE double; NaNs compared as NaNs (payload rules
            # are the families' own tests)
            with np.errstate(all="ignore"):
                host = NUMPY[op](*x)
            both_nan = np.isnan(host) & np.isnan(want)
            failed |= report(op, x, np.where(both_nan, host, want), host, "device=cpu-vs-numpy")
        for dev in devices:
            failed |= report(op, x, run(dev), want, f"device={dev}")
    for wc, fn in list(UNARY.items()) + [("atan2", "arctan2"), ("pow", "power")]:
        if only and wc not in only:
            continue
        f = getattr(raid, fn)
        arity = 2 if fn in ("arctan2", "power") else 1
        w = worst(wc, arity)
        r = np.stack([random_inputs(int(args.n), rng) for _ in range(arity)])
        if fn == "power":  # half of the pairs with x > 0 and results in range: the wide path, not NaN or inf
            k = r.shape[1] // 2
            r[0, :k] = np.exp(rng.uniform(-20, 20, k))
            r[1, :k] = rng.uniform(-30, 30, k)
        x = np.concatenate([w, r], axis=1)
        want = f(*x, device="cpu")
        for dev in devices:
            failed |= report(wc, x, f(*x, device=dev), want, f"device={dev} worst_cases={w.shape[1]}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
