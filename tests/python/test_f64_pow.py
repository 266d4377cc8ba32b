"""raid.power (kernels/raid_f64_pow.h) against MPFR's correctly rounded pow (tests/python/mpfr_oracle.py): every
finite pair of CORE-MATH's worst-case list (tests/data/f64_worst/pow.wc) and random pairs over several ranges
must be correctly rounded (the function's claim is 1 ulp; a result that is not correctly rounded is allowed
only within the 2^-113 error bound of a rounding boundary, and none is expected); exact midpoints rounded to
even; numpy's ulps from MPFR's as a histogram (numpy.power on this host is its own SIMD pow, glibc's
differs from both: neither is correctly rounded). Special values bit for bit against numpy (gmpy2's
conventions for NaNs and signed zeros differ: the MPFR comparisons take only finite non-special pairs).
The device's bits against the cpu path's; the expression name."""
import math
import os
import struct

import gmpy2
import numpy as np
import pytest

import raid
from mpfr_oracle import correctly_rounded, ulp_distance

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def mpfr_pow(x, y):
    """MPFR's pow (mpfr_pow through gmpy2's ** on two mpfr operands, in the current context)."""
    return x ** y


def _bits(a):
    return np.asarray(a, dtype=np.float64).view(np.uint64)


def _from_bits(u):
    return np.asarray(u, np.uint64).view(np.float64)


def _worst():
    """The pairs of tests/data/f64_worst/pow.wc ("x, y  # note")."""
    xs, ys = [], []
    with open(os.path.join(ROOT, "tests", "data", "f64_worst", "pow.wc")) as f:
        for line in f:
            line = line.split("#")[0].strip()
            if not line:
                continue
            a, b = (v.strip() for v in line.split(",")[:2])
            xs.append(float.fromhex(a) if "0x" in a else float(a))
            ys.append(float.fromhex(b) if "0x" in b else float(b))
    return np.array(xs), np.array(ys)


def _mpfr_domain(x, y):
    """The pairs MPFR compares: finite, x != 0, +-1, y != 0, and x > 0 or y an integer."""
    with np.errstate(all="ignore"):
        keep = (np.isfinite(x) & np.isfinite(y) & (x != 0) & (np.abs(x) != 1) & (y != 0)
                & ((x > 0) | (y == np.trunc(y))))
    return x[keep], y[keep]


def _near_boundary(x, y, got, want):
    """Whether x^y lies within 2^-113 (raid_f64_pow.h's largest error bound) of the midpoint of got and want."""
    with gmpy2.context(gmpy2.get_context(), precision=1024, emin=-(1 << 30), emax=1 << 30):
        exact = gmpy2.mpfr(x, 53) ** gmpy2.mpfr(y, 53)
        mid = (gmpy2.mpfr(float(_from_bits(got)), 53) + gmpy2.mpfr(float(_from_bits(want)), 53)) / 2
        return abs(exact - mid) < abs(exact) * gmpy2.mpfr(2) ** -113


def _check_cr(x, y, what):
    """raid.power on (x, y) against MPFR: the counts not correctly rounded (must be none here) and numpy's ulp
    histogram, printed."""
    got = _bits(raid.power(x, y, device="cpu"))
    with np.errstate(all="ignore"):
        ref_np = _bits(np.power(x, y))
    bad, hist = [], {}
    for xi, yi, gi, ni in zip(x.tolist(), y.tolist(), got.tolist(), ref_np.tolist()):
        want = correctly_rounded(mpfr_pow, xi, yi)
        if gi != want:
            bad.append((xi.hex(), yi.hex(), hex(gi), hex(want), ulp_distance(gi, want),
                        _near_boundary(xi, yi, gi, want)))
        d = ulp_distance(ni, want)
        hist[d] = hist.get(d, 0) + 1
    print(f"pow {what}: {len(x)} pairs, {len(bad)} not correctly rounded; numpy's ulps from MPFR: "
          f"{sorted(hist.items())}")
    assert all(b[4] <= 1 and b[5] for b in bad), f"beyond the claim: {[b for b in bad if b[4] > 1 or not b[5]][:5]}"
    assert not bad, f"{len(bad)} of {len(x)} not correctly rounded (within the bound), e.g. {bad[:5]}"


def test_worst_cases():
    x, y = _mpfr_domain(*_worst())
    assert len(x) > 9000
    step = int(os.environ.get("RAID_F64_WORST_STEP", "1"))  # 1: all of them (a few seconds)
    _check_cr(x[::step], y[::step], "worst cases")


def _random(rng, n=2000):
    """Pairs over the ranges of tests/test_f64_pow.c."""
    def sgn(k):
        return rng.choice([-1.0, 1.0], k)
    out = []
    x = rng.integers(1, 0x7FF0000000000000, n, dtype=np.uint64).view(np.float64)  # every positive finite x
    out.append((x, np.ldexp(rng.uniform(1, 2, n), rng.integers(-60, 12, n)) * sgn(n)))
    out.append((np.ldexp(rng.uniform(1, 2, n), rng.integers(-20, 20, n)),
                np.ldexp(rng.uniform(1, 2, n), rng.integers(-6, 6, n)) * sgn(n)))
    y = np.ldexp(rng.uniform(1, 2, n), rng.integers(-10, 30, n)) * sgn(n)  # results near overflow / underflow
    t = np.where(rng.random(n) < 0.5, 709.0 + 1.5 * rng.random(n), -(700.0 + 46.0 * rng.random(n)))
    lx = t / y
    ok = np.abs(lx) < 709
    out.append((np.exp(lx[ok]), y[ok]))
    e = rng.integers(1, 53, n)  # x near 1, large y
    d = np.ldexp(rng.uniform(1, 2, n), -e)
    out.append((1 + d * sgn(n), np.ldexp(rng.uniform(1, 2, n), e + rng.integers(-2, 10, n)) * sgn(n)))
    out.append((-np.ldexp(rng.uniform(1, 2, n), rng.integers(-30, 30, n)),  # negative x, integer y
                rng.integers(-60, 61, n).astype(np.float64)))
    out.append((rng.integers(1, 1 << 52, n, dtype=np.uint64).view(np.float64),  # subnormal x
                np.ldexp(rng.uniform(1, 2, n), rng.integers(-12, 1, n)) * sgn(n)))
    return [_mpfr_domain(a, b) for a, b in out]


@pytest.mark.parametrize("part", range(6))
def test_random_against_mpfr(part):
    x, y = _random(np.random.default_rng(34))[part]
    _check_cr(x, y, f"random range {part}")


def test_exact_midpoints():
    """Exact midpoints rounded to even, MPFR's rounding of the exact value: (2^27 - 1)^2, 3^34, (z^2)^(3/2),
    a subnormal 243 2^-1075, 2^-1075, small integer powers of odd integers near 2^54."""
    x = [134217727.0, 3.0, float(262143 ** 2), 3 * 2.0 ** -215, 2.0, 0.5, 2.0 ** -430]
    y = [2.0, 34.0, 1.5, 5.0, -1075.0, 1075.0, 2.5]
    for k in range(2, 35):
        m = int(2 ** (54 / k)) | 1
        x += [float(m), float(m - 2), -float(m)]
        y += [float(k)] * 3
    x, y = np.array(x), np.array(y)
    got = _bits(raid.power(x, y))
    want = np.array([correctly_rounded(mpfr_pow, a, b) for a, b in zip(x.tolist(), y.tolist())], np.uint64)
    assert [hex(v) for v in got] == [hex(v) for v in want]
    assert got[0] == _bits(18014398241046528.0) and got[3] == 122 and got[4] == 0 and got[5] == 0


_SPECIAL_BITS = [0x0, 0x8000000000000000, 0x7FF0000000000000, 0xFFF0000000000000, 0x7FF8000000000000,
                 0xFFF8000000000000, 0x7FF0000000000001, 0xFFF4000000000000, 0x1, 0x8000000000000001,
                 0x3FF0000000000000, 0xBFF0000000000000, 0x3FEFFFFFFFFFFFFF, 0x3FF0000000000001,
                 0xBFEFFFFFFFFFFFFF, 0x7FEFFFFFFFFFFFFF, 0xFFEFFFFFFFFFFFFF]
_SPECIAL_FLOATS = [0.5, -0.5, 2.0, -2.0, 3.0, -3.0, 1.5, -1.5, 0.25, 1e300, -1e300, 2.0 ** 53, -(2.0 ** 53),
                   2.0 ** 53 - 1, 2.0 ** 52 + 1, 2.0 ** 52 - 0.5, 1023.0, 1024.0, -1074.0, -1075.0, 10.0]
SPECIAL = np.concatenate([_from_bits(_SPECIAL_BITS), np.array(_SPECIAL_FLOATS)])


def test_special_values_as_numpy():
    """Every pair of the special operands (NaNs, signed zeros and infinities, +-1 and its neighbours, odd
    and even integers, |y| >= 2^53, the extremes): the special pairs (a NaN, an infinity or a zero operand,
    x = +-1, x < 0 with a non-integer y) bit for bit numpy.power's; the others MPFR's correctly rounded value
    (numpy's, from its SIMD pow on this host, and glibc's are off by 1 ulp on some of them: (1 - 2^-53)^-1 is
    1 + 2^-52, above the midpoint 1 + 2^-53, where both give 1)."""
    x = np.repeat(SPECIAL, len(SPECIAL))
    y = np.tile(SPECIAL, len(SPECIAL))
    with np.errstate(all="ignore"):
        want = _bits(np.power(x, y))
        ordinary = (np.isfinite(x) & np.isfinite(y) & (x != 0) & (np.abs(x) != 1) & (y != 0)
                    & ((x > 0) | (y == np.trunc(y))))
    got = _bits(raid.power(x, y))
    want[ordinary] = [correctly_rounded(mpfr_pow, a, b) for a, b in zip(x[ordinary].tolist(), y[ordinary].tolist())]
    diff = [(float(a).hex(), float(b).hex(), hex(g), hex(w)) for a, b, g, w in zip(x, y, got, want) if g != w]
    assert not diff, f"{len(diff)} of {len(x)} differ, e.g. {diff[:8]}"
    assert (~ordinary).sum() > 700


def test_device_bits_equal_cpu():
    devs = raid.devices()
    if not len(devs):
        pytest.skip("no OpenCL device")
    dev = devs["device"].iloc[0]
    rng = np.random.default_rng(35)
    parts = _random(rng, 300)
    x = np.concatenate([p[0] for p in parts] + [np.repeat(SPECIAL, len(SPECIAL)), [134217727.0, 3 * 2.0 ** -215]])
    y = np.concatenate([p[1] for p in parts] + [np.tile(SPECIAL, len(SPECIAL)), [2.0, 5.0]])
    assert np.array_equal(_bits(raid.power(x, y, device=dev)), _bits(raid.power(x, y, device="cpu")))


def test_expressions():
    a = np.array([0.5, 2.0, -3.0, 10.0])
    b = np.array([3.0, -0.5, 3.0, 2.5])
    r = raid.eval("pow(a, b) + pow(abs(a), 0.5)", device="cpu", a=a, b=b)
    want = raid.add(raid.power(a, b), raid.power(np.abs(a), 0.5))
    assert np.array_equal(_bits(r), _bits(want))
    assert math.isnan(raid.power(np.array([-2.0]), np.array([0.5]))[0])
    assert struct.pack("<d", raid.power(np.array([-0.0]), np.array([-3.0]))[0]) == struct.pack("<d", -math.inf)
