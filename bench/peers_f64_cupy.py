#!/usr/bin/env python3
"""The peers of bench_f64.c on the lent GPU: CuPy's native float64 element-wise kernels for the same operations
on the same kind of data (standard normal a, b; c = 0.5 + |normal|), device-resident, timed with CUDA events
(best of --reps after a warm-up), with the GB/s of their memory traffic (8 bytes per input and output
element), and one memory pass for scale (a copy of a: read and write once). With --numpy, the same
operations on the same values with numpy on the host (one thread, wall time, best of --reps; numpy has no
fma). Not a test.

usage: peers_f64_cupy.py [--n N] [--reps R] [--numpy]"""
import argparse
import time

import cupy as cp
import numpy as np


def timed(f, reps):
    f()
    start, end = cp.cuda.Event(), cp.cuda.Event()
    best = float("inf")
    for _ in range(reps):
        start.record()
        f()
        end.record()
        end.synchronize()
        best = min(best, cp.cuda.get_elapsed_time(start, end) / 1e3)
    return best


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=float, default=5e7)
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--numpy", action="store_true")
    args = ap.parse_args()
    n = int(args.n)
    rng = cp.random.default_rng(1)
    a, b = rng.standard_normal(n), rng.standard_normal(n)
    c = 0.5 + cp.abs(rng.standard_normal(n))
    fma = cp.ElementwiseKernel("float64 x, float64 y, float64 z", "float64 r", "r = fma(x, y, z)", "raid_peer_fma")
    for name, f, nin in operations(cp, a, b, c, fma):
        s = timed(f, args.reps)
        print(f"peer=cupy op={name} n={n} kernel_s={s:.6f} kernel_GBps={8.0 * n * (nin + 1) / s / 1e9:.1f}", flush=True)
    if args.numpy:
        a, b, c = cp.asnumpy(a), cp.asnumpy(b), cp.asnumpy(c)
        for name, f, nin in operations(np, a, b, c, None):
            best = float("inf")
            with np.errstate(all="ignore"):
                for _ in range(max(2, args.reps // 3)):
                    t = time.perf_counter()
                    f()
                    best = min(best, time.perf_counter() - t)
            print(f"peer=numpy op={name} n={n} wall_s={best:.6f} GBps={8.0 * n * (nin + 1) / best / 1e9:.2f}", flush=True)


def operations(cp, a, b, c, fma):
    """(name, call, inputs) of every operation of bench_f64.c's OPS table, on module CP (cupy or numpy)."""
    out = cp.empty(a.size)
    ops = [("copy (one memory pass)", lambda: cp.copyto(out, a), 1), ("add", lambda: cp.add(a, b, out=out), 2),
           ("mul", lambda: cp.multiply(a, b, out=out), 2), ("div", lambda: cp.divide(a, c, out=out), 2),
           ("sqrt", lambda: cp.sqrt(c, out=out), 1)] + ([("fma", lambda: fma(a, b, c, out), 3)] if fma else []) + [
            ("(a-b)/sqrt(|c|)", lambda: cp.divide(a - b, cp.sqrt(cp.abs(c)), out=out), 3)]
    # the elementary functions on the inputs bench_f64.c gives them (its OPS table: the same expressions;
    # asin and acos of a / (|a| + 1) include that division on both sides)
    ops += [("asin", lambda: cp.arcsin(a / (cp.abs(a) + 1), out=out), 1),
            ("acos", lambda: cp.arccos(a / (cp.abs(a) + 1), out=out), 1), ("atan", lambda: cp.arctan(a, out=out), 1),
            ("atan2", lambda: cp.arctan2(a, b, out=out), 2), ("log", lambda: cp.log(c, out=out), 1),
            ("log2", lambda: cp.log2(c, out=out), 1), ("log10", lambda: cp.log10(c, out=out), 1),
            ("log1p", lambda: cp.log1p(c, out=out), 1), ("exp", lambda: cp.exp(a, out=out), 1),
            ("exp2", lambda: cp.exp2(a, out=out), 1), ("exp10", lambda: cp.power(10.0, a, out=out), 1),
            ("expm1", lambda: cp.expm1(a, out=out), 1), ("sinh", lambda: cp.sinh(a, out=out), 1),
            ("cosh", lambda: cp.cosh(a, out=out), 1), ("tanh", lambda: cp.tanh(a, out=out), 1),
            ("sin", lambda: cp.sin(a, out=out), 1), ("cos", lambda: cp.cos(a, out=out), 1),
            ("tan", lambda: cp.tan(a, out=out), 1), ("sin(1e6 c)", lambda: cp.sin(1e6 * c, out=out), 1),
            ("pow", lambda: cp.power(c, a, out=out), 2), ("pow(a, 3)", lambda: cp.power(a, 3.0, out=out), 1)]
    return ops


if __name__ == "__main__":
    main()
