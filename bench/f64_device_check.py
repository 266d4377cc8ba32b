#!/usr/bin/env python3
"""The binary64 elementary functions on a device against the cpu path, bit for bit: every input of the
worst-case files (tests/data/f64_worst/*.wc, both signs) and --n random inputs per function (uniform bit
patterns, and uniform magnitudes over each function's useful range). Prints one line per function:
inputs, mismatches, the first few. Not a test (the suite's tests compare on PoCL); this is the GPU run of
docs/f64.md's "Tests" (bench/device_session.sh step f64check). Exit status 1 on any mismatch.

usage: f64_device_check.py [--device D] [--n N]"""
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


def compare(name, got, want):
    g, w = got.view(np.uint64), want.view(np.uint64)
    bad = np.flatnonzero(g != w)
    return bad


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--n", type=float, default=1e7)
    args = ap.parse_args()
    rng = np.random.default_rng(20261207)
    failed = 0
    for wc, fn in list(UNARY.items()) + [("atan2", "arctan2"), ("pow", "power")]:
        f = getattr(raid, fn)
        arity = 2 if fn in ("arctan2", "power") else 1
        w = worst(wc, arity)
        r = np.stack([random_inputs(int(args.n), rng) for _ in range(arity)])
        if fn == "power":  # half of the pairs with x > 0 and results in range: the wide path, not NaN or inf
            k = r.shape[1] // 2
            r[0, :k] = np.exp(rng.uniform(-20, 20, k))
            r[1, :k] = rng.uniform(-30, 30, k)
        x = np.concatenate([w, r], axis=1)
        got = f(*x, device=args.device)
        want = f(*x, device="cpu")
        bad = compare(wc, got, want)
        failed += bad.size > 0
        first = ", ".join(f"{wc}({', '.join(v.hex() for v in x[:, i])}) dev {got[i].hex()} cpu {want[i].hex()}"
                          for i in bad[:3])
        print(f"fn={wc} device={args.device} inputs={x.shape[1]} worst_cases={w.shape[1]} mismatches={bad.size}"
              + (f" first: {first}" if first else ""), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
