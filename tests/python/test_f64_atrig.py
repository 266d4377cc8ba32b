"""raid.arcsin, raid.arccos, raid.arctan and raid.arctan2 (kernels/raid_f64_atrig.h) against MPFR's correctly
rounded values (tests/python/mpfr_oracle.py): random inputs over the whole domain and the hard ranges, and
CORE-MATH's worst cases (tests/data/f64_worst/FN.wc). Every result must be within 1 ulp (the functions'
claim); the ones not correctly rounded are counted and printed, and must be none but on atan2's worst cases
(ratios nearer than the 2^-120 error bound to a rounding boundary). Special values against numpy's bits;
the device's bits against the cpu path's."""
import os
import re
import struct

import gmpy2
import numpy as np
import pytest

import raid
from mpfr_oracle import correctly_rounded, ulp_distance

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FUNCS = {"asin": (raid.arcsin, gmpy2.asin, np.arcsin), "acos": (raid.arccos, gmpy2.acos, np.arccos),
         "atan": (raid.arctan, gmpy2.atan, np.arctan), "atan2": (raid.arctan2, gmpy2.atan2, np.arctan2)}
SNAN = struct.unpack("<d", struct.pack("<Q", 0x7FF0000000000001))[0]


def _bits(a):
    return np.asarray(a, np.float64).view(np.uint64)


def _from_bits(u):
    return np.asarray(u, np.uint64).view(np.float64)


def _random(name, rng, n=3000):
    """Random inputs of name's hard ranges (tuples of arrays: the operands)."""
    def exp_range(lo, hi, k=n):  # |v| in [2^lo, 2^hi), random sign
        e = rng.integers(lo, hi, k)
        return np.ldexp(rng.uniform(1, 2, k), e) * rng.choice([-1.0, 1.0], k)
    if name in ("asin", "acos"):
        one_minus = 1 - rng.integers(1, 1 << 20, n) * 2.0 ** -53
        return [(rng.uniform(-1, 1, n),), (one_minus * rng.choice([-1.0, 1.0], n),), (exp_range(-60, -1),)]
    if name == "atan":
        return [(exp_range(-30, 30),), (exp_range(30, 1024),), (exp_range(-1074, -30),),
                (1 + rng.integers(-(1 << 20), 1 << 20, n) * 2.0 ** -52,)]
    return [(exp_range(-30, 30), exp_range(-30, 30)), (exp_range(-1000, 1000), exp_range(-1000, 1000)),
            (exp_range(-1074, -900), exp_range(100, 300))]


def _near_boundary(mp, a, got, want):
    """Whether the exact mp(*a) lies within 2^-120 (the error bound of raid_f64_atrig.h) of the midpoint of the
    neighbours got and want: the one place a result that is not correctly rounded is allowed."""
    with gmpy2.context(gmpy2.get_context(), precision=1024, emin=-(1 << 30), emax=1 << 30):
        exact = mp(*[gmpy2.mpfr(v, 53) for v in a])
        mid = (gmpy2.mpfr(float(_from_bits(got)), 53) + gmpy2.mpfr(float(_from_bits(want)), 53)) / 2
        return abs(exact - mid) < abs(exact) * gmpy2.mpfr(2) ** -120


def _check(name, args, got, allow_not_cr=False):
    """Every result within 1 ulp of the correctly rounded one, and correctly rounded unless the exact value is
    within the error bound of a rounding boundary; the count of those that are not (printed)."""
    mp = FUNCS[name][1]
    not_cr, beyond = 0, []
    for i, g in enumerate(_bits(got)):
        a = tuple(float(x[i]) for x in args)
        if any(np.isnan(v) or np.isinf(v) for v in a) or (name in ("asin", "acos") and abs(a[0]) > 1):
            continue
        want = correctly_rounded(mp, *a)
        if int(g) != want:
            not_cr += 1
            if ulp_distance(int(g), want) > 1 or not _near_boundary(mp, a, np.uint64(g), np.uint64(want)):
                beyond.append((a, hex(int(g)), hex(want)))
    print(f"{name}: {len(got)} inputs, {not_cr} not correctly rounded")
    assert not beyond, beyond[:5]
    if not allow_not_cr:
        assert not_cr == 0
    return not_cr


@pytest.mark.parametrize("name", sorted(FUNCS))
def test_random_inputs_against_mpfr(name):
    rng = np.random.default_rng(20261207)
    for args in _random(name, rng):
        _check(name, args, FUNCS[name][0](*args, device="cpu"))


def _worst(name):
    tok = {"snan": SNAN, "-snan": -SNAN, "+snan": SNAN}
    rows = []
    with open(os.path.join(ROOT, "tests", "data", "f64_worst", f"{name}.wc")) as f:
        for line in f:
            parts = [p for p in re.split(r"[,\s]+", line.split("#")[0]) if p and not p.startswith("E")]
            if parts:
                rows.append(tuple(tok[p] if p in tok else float.fromhex(p) if "0x" in p else float(p)
                                  for p in parts))
    return [np.array(c) for c in zip(*rows)]


@pytest.mark.parametrize("name", sorted(FUNCS))
def test_worst_cases(name):
    """asin, acos, atan: all correctly rounded. atan2: within 1 ulp; its worst cases lie as near as 2^-154 to a
    rounding boundary, past the 2^-120 bound, and those within the bound may round to the other neighbour
    (counted; each checked to lie within 2^-120 of the boundary)."""
    args = _worst(name)
    _check(name, args, FUNCS[name][0](*args, device="cpu"), allow_not_cr=name == "atan2")


SPECIAL = np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, -np.nan, SNAN, 2.0, -2.0, 1 + 2 ** -52,
                    5e-324, -5e-324, 2.2250738585072014e-308, 1e-300, 2 ** -27, -(2 ** -28), 1.7976931348623157e308])
OTHER = np.array([0.5, -0.5, np.pi, 3.0, -7.5, 1e300])


def _special_operand(v):
    return v == 0 or np.isinf(v) or np.isnan(v)


@pytest.mark.parametrize("name", ["asin", "acos", "atan"])
def test_special_values_against_numpy(name):
    """The special values, whose results are exact or tiny (x itself), have numpy's bits (NaNs included);
    other values against MPFR (numpy's acos(0.5) is not correctly rounded: 0x3ff0c152382d7365)."""
    ours, _, ref = FUNCS[name]
    with np.errstate(all="ignore"):
        want = _bits(ref(SPECIAL))
    if name == "acos":  # numpy's arccos (2.4.6, x86-64) flips a NaN operand's sign; RAID returns it quiet with
        nan_in = np.isnan(SPECIAL)  # its sign, as glibc's acos and every other function here (docs/f64.md)
        want[nan_in] ^= np.uint64(1 << 63)
    got = _bits(ours(SPECIAL, device="cpu"))
    assert list(map(hex, got)) == list(map(hex, want))
    _check(name, (OTHER,), ours(OTHER, device="cpu"))


def test_arctan2_special_values_against_numpy():
    """Every pair of the values above: numpy's bits where an operand is a zero, an infinity or a NaN (Annex
    F's table: signed zeros, +-pi, +-pi/2, +-pi/4, +-3pi/4, the first NaN made quiet), else MPFR's."""
    v = np.concatenate([SPECIAL, OTHER])
    y, x = (a.ravel() for a in np.meshgrid(v, v))
    with np.errstate(all="ignore"):
        want = _bits(np.arctan2(y, x))
    got = _bits(raid.arctan2(y, x, device="cpu"))
    special = np.array([_special_operand(a) or _special_operand(b) for a, b in zip(y, x)])
    bad = [(a, b, hex(g), hex(w)) for a, b, g, w in zip(y[special], x[special], got[special], want[special]) if g != w]
    assert not bad, bad[:5]
    _check("atan2", (y[~special], x[~special]), _from_bits(got[~special]))


def test_eval_expressions():
    a = np.array([0.25, -0.75, 3.0])
    b = np.array([2.0, -1.0, -0.5])
    r = raid.eval("atan2(a, b) + asin(a / 4) - acos(a / 4) * atan(b)", device="cpu", a=a, b=b)
    want = np.arctan2(a, b) + np.arcsin(a / 4) - np.arccos(a / 4) * np.arctan(b)
    assert np.max(np.abs(r - want)) < 1e-15


def _device():
    devs = raid.devices()
    return devs["device"].iloc[0] if len(devs) else None


@pytest.mark.skipif(_device() is None, reason="no OpenCL device")
def test_device_bits_equal_cpu():
    rng = np.random.default_rng(7)
    n = 3000
    x = np.concatenate([rng.uniform(-1, 1, n), SPECIAL, OTHER, 1 - rng.integers(1, 1 << 20, 200) * 2.0 ** -53])
    y = np.concatenate([np.ldexp(rng.uniform(-1, 1, n), rng.integers(-1074, 1024, n)), SPECIAL[::-1], OTHER,
                        rng.uniform(-3, 3, 200)])
    dev = _device()
    for f in (raid.arcsin, raid.arccos, raid.arctan):
        assert np.array_equal(_bits(f(x, device=dev)), _bits(f(x, device="cpu"))), f.__name__
        assert np.array_equal(_bits(f(y, device=dev)), _bits(f(y, device="cpu"))), f.__name__
    assert np.array_equal(_bits(raid.arctan2(y, x, device=dev)), _bits(raid.arctan2(y, x, device="cpu")))
