"""raid.sin, raid.cos and raid.tan (kernels/raid_f64_trig.h) against MPFR's correctly rounded values
(tests/python/mpfr_oracle.py): every worst case of CORE-MATH's sin.wc, cos.wc and tan.wc
(tests/data/f64_worst/, Lefevre and Muller's searches: the inputs whose results lie closest to a rounding
boundary), random inputs in the ranges where argument reduction is hard (near multiples of pi/2, huge
arguments, the closest approach of a binary64 to a multiple of pi/2) or where the result is nearly the
argument (tiny and subnormal inputs), random bit patterns over the whole domain; the special values against
numpy's bits; the cpu path against the OpenCL device bit for bit. The functions claim 1 ulp; every tested
input is in fact required to be correctly rounded (the error bound of the RaidWide result is 2^-121.8, far
below every worst case's distance to a rounding boundary, which the worst-case test prints)."""
import math
import os
import sys

import gmpy2
import numpy as np
import pytest
from gmpy2 import mpfr

import raid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mpfr_oracle import correctly_rounded, ulp_distance  # noqa: E402

WORST = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data", "f64_worst")
FUNCS = [("sin", raid.sin, gmpy2.sin, np.sin), ("cos", raid.cos, gmpy2.cos, np.cos),
         ("tan", raid.tan, gmpy2.tan, np.tan)]


def _wc(name):
    """The finite inputs of a .wc file (one hexadecimal float a line; '#' comments, NaNs and infinities left
    to test_specials)."""
    xs = []
    with open(os.path.join(WORST, f"{name}.wc")) as f:
        for line in f:
            t = line.split("#")[0].strip()
            if t and "nan" not in t and "inf" not in t:
                xs.append(float.fromhex(t.split()[0]))
    return np.array(xs)


def _margin_bits(f, x):
    """-log2 of the relative distance from f(x) to the nearest midpoint between binary64 neighbours: the
    rounding test decides x whenever the result's relative error is below 2^-(this + 1)."""
    with gmpy2.context(gmpy2.get_context(), precision=400, emin=-(1 << 30), emax=1 << 30):
        v = f(mpfr(x, 53))
        m, e = v.as_mantissa_exp()
        m, e = abs(int(m)), int(e)
        q = max(m.bit_length() - 1 + e, -1022) - 52  # the binary64 ulp is 2^q
        t = gmpy2.mpq(m) * gmpy2.mpq(2) ** (e - q)   # |v| in ulps, exactly
        d = abs(t - gmpy2.floor(t) - gmpy2.mpq(1, 2))  # to the midpoint, in ulps
        return -math.log2(d / t) if d else math.inf


def _check(name, ours, exact, x):
    """Every result correctly rounded; returns the number checked."""
    r = ours(x).view(np.uint64)
    bad = [(xi, hex(int(ri)), hex(correctly_rounded(exact, float(xi)))) for xi, ri in zip(x, r)
           if int(ri) != correctly_rounded(exact, float(xi))]
    assert not bad, f"{name}: {len(bad)} of {len(x)} not correctly rounded, e.g. {bad[:3]}"
    return len(x)


@pytest.mark.parametrize("name,ours,exact,ref", FUNCS, ids=[f[0] for f in FUNCS])
def test_worst_cases(name, ours, exact, ref):
    x = _wc(name)
    x = np.concatenate([x, -x])
    _check(name, ours, exact, x)
    # the closest to a midpoint, relative: |x| >= 1/2 goes through the RaidWide result (error bound 2^-121.8);
    # sin and tan of |x| < 1/2 round x + c from c / ulp(x) (raidF64TrigNearX, tan 0x1.dffffffffff1fp-22 is
    # 2^-132.4 from a midpoint), cos of |x| < 1/2 through the RaidWide result as well
    small = [_margin_bits(exact, float(xi)) for xi in x[: len(x) // 2] if 0 < abs(xi) < 0.5]
    large = [_margin_bits(exact, float(xi)) for xi in x[: len(x) // 2] if abs(xi) >= 0.5]
    print(f"{name}: {len(x)} worst cases correctly rounded; the closest to a midpoint: 2^-{max(small):.1f} "
          f"relative for |x| < 1/2, 2^-{max(large):.1f} for |x| >= 1/2 (the result's error bound: 2^-121.8)")
    assert max(large) < 121.8 and (name == "tan" or max(small) < 121.8)


def _ranges(seed, n):
    """Inputs where sin, cos and tan are hard: their kinds by name."""
    rng = np.random.default_rng(seed)
    sign = np.where(rng.integers(0, 2, n) == 1, -1.0, 1.0)
    pio2 = np.pi / 2
    k = rng.integers(1, 1 << 20, n).astype(np.float64)
    near = k * pio2
    near = near.view(np.int64) + rng.integers(-3, 4, n)  # k pi/2 rounded, and a few neighbours
    return {
        "small": sign * rng.uniform(0, 4, n),
        "tiny": sign * 2.0 ** rng.uniform(-80, -1, n),
        "subnormal": sign * rng.integers(1, 1 << 52, n).astype(np.float64) * 2.0 ** -1074,
        "near k pi/2": sign * near.view(np.float64),
        "huge": sign * rng.uniform(1, 2, n) * 2.0 ** rng.integers(20, 1024, n),
        "bits": rng.integers(0, 0x7FF0000000000000, n, dtype=np.uint64).view(np.float64) * sign,
    }


@pytest.mark.parametrize("name,ours,exact,ref", FUNCS, ids=[f[0] for f in FUNCS])
def test_random_ranges(name, ours, exact, ref):
    total = 0
    for kind, x in _ranges(["sin", "cos", "tan"].index(name) + 100, 1500).items():
        total += _check(f"{name} {kind}", ours, exact, x)
    # the closest approach of a binary64 to a multiple of pi/2 (Muller's Handbook, table 11.1), its
    # neighbours and its multiples by powers of two
    hard = np.array([6381956970095103.0 * 2.0 ** e for e in range(797 - 40, 797 + 172)])
    hard = np.concatenate([hard, np.nextafter(hard, 0), np.nextafter(hard, np.inf), -hard])
    total += _check(f"{name} hard", ours, exact, hard)


def test_specials_match_numpy():
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 5e-324, -5e-324, 2.2250738585072014e-308,
                  1.7976931348623157e308, -1.7976931348623157e308, 1e-300, 1.0, -1.0, 1e22])
    x = np.concatenate([x, np.array([0x7FF0000000000001, 0xFFF4000000000000], dtype=np.uint64).view(np.float64)])
    with np.errstate(all="ignore"):
        for name, ours, exact, ref in FUNCS:
            got, want = ours(x).view(np.uint64), ref(x).view(np.uint64)
            assert (got == want).all(), (name, [(xi, hex(g), hex(w)) for xi, g, w in zip(x, got, want) if g != w])


def test_ulp_histogram_vs_numpy():
    """numpy (glibc) is within 1 ulp of the correctly rounded result where it differs from it; prints how
    often it does (RAID's results are the correctly rounded ones: test_random_ranges)."""
    rng = np.random.default_rng(7)
    x = np.concatenate([rng.uniform(-10, 10, 3000), rng.uniform(1, 2, 1000) * 2.0 ** rng.integers(20, 1000, 1000)])
    for name, ours, exact, ref in FUNCS:
        r, g = ours(x).view(np.uint64), ref(x).view(np.uint64)
        hist = {}
        for ri, gi in zip(r, g):
            d = ulp_distance(int(ri), int(gi))
            hist[d] = hist.get(d, 0) + 1
        print(f"{name}: ulps between raid and numpy on {len(x)} inputs: {dict(sorted(hist.items()))}")


def test_device_matches_cpu():
    devs = raid.devices()
    if not len(devs):
        pytest.skip("no device")
    dev = devs["device"].iloc[0]
    x = np.concatenate([v[:300] for v in _ranges(3, 300).values()])
    x = np.concatenate([x, _wc("sin")[:200], [0.0, -0.0, np.inf, np.nan]])
    a = raid.eval("sin(a) + cos(a) * tan(a)", "cpu", a=x)
    for name, ours, exact, ref in FUNCS:
        assert (ours(x, "cpu").view(np.uint64) == ours(x, dev).view(np.uint64)).all(), name
    assert (raid.eval("sin(a) + cos(a) * tan(a)", dev, a=x).view(np.uint64) == a.view(np.uint64)).all()
