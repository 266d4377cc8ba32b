"""raid.log, raid.log2, raid.log10, raid.log1p (kernels/raid_f64_log.h): correctly rounded against MPFR
(tests/python/mpfr_oracle.py) on every worst case of CORE-MATH's lists (tests/data/f64_worst/), on random
inputs over the whole domain and in the hard ranges, with an ulp histogram; special values bit for bit
against numpy; the OpenCL device's bits equal the cpu path's; the expression names."""
import os

import gmpy2
import numpy as np
import pytest

import raid
from mpfr_oracle import correctly_rounded, ulp_distance

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FUNCS = {"log": (raid.log, gmpy2.log, np.log), "log2": (raid.log2, gmpy2.log2, np.log2),
         "log10": (raid.log10, gmpy2.log10, np.log10), "log1p": (raid.log1p, gmpy2.log1p, np.log1p)}


def _bits(a):
    return np.asarray(a, dtype=np.float64).view(np.uint64)


def _worst(name):
    """The finite inputs of tests/data/f64_worst/NAME.wc (the special values are tested below)."""
    xs = []
    with open(os.path.join(ROOT, "tests", "data", "f64_worst", f"{name}.wc")) as f:
        for line in f:
            line = line.split(",")[0].strip()  # "0x0p+0, ERANGE": the input, then a note
            if not line or line.startswith("#") or "nan" in line or "inf" in line:
                continue
            xs.append(float.fromhex(line) if "0x" in line else float(line))
    return np.array(xs)


def _in_domain(name, x):
    x = x[np.isfinite(x)]
    return x[x > -1] if name == "log1p" else x[x > 0]


def _check_cr(name, x):
    """Every result of raid's NAME on x is MPFR's correctly rounded one; returns the ulp histogram of numpy's."""
    fn, mp, npf = FUNCS[name]
    r = _bits(fn(x))
    with np.errstate(all="ignore"):
        ref_np = _bits(npf(x))
    bad = []
    hist = {}
    for xi, ri, ni in zip(x.tolist(), r.tolist(), ref_np.tolist()):
        want = correctly_rounded(mp, xi)
        if ri != want:
            bad.append((xi.hex(), hex(ri), hex(want)))
        d = ulp_distance(ni, want)
        hist[d] = hist.get(d, 0) + 1
    assert not bad, f"{name}: {len(bad)} of {len(x)} not correctly rounded, e.g. {bad[:5]}"
    return hist


@pytest.mark.parametrize("name", sorted(FUNCS))
def test_worst_cases(name):
    x = _in_domain(name, _worst(name))
    step = int(os.environ.get("RAID_F64_WORST_STEP", "1"))  # 1: all of them (a few seconds per function)
    hist = _check_cr(name, x[::step])
    print(f"{name}: {len(x[::step])} worst cases correctly rounded; numpy's ulps from them: {sorted(hist.items())}")


def _random(name, seed, n=3000):
    rng = np.random.default_rng(seed)
    u = rng.integers(0, 0x7FF0000000000000, n, dtype=np.uint64).view(np.float64)  # every positive finite
    d = rng.random(n) * 2.0 ** -rng.integers(4, 60, n) * rng.choice([-1.0, 1.0], n)  # near 1 / near 0
    sub = rng.integers(1, 1 << 52, n // 4, dtype=np.uint64).view(np.float64)
    if name == "log1p":
        parts = [u, d, -u[u < 1], -1 + rng.random(n) * 2.0 ** -rng.integers(1, 53, n), sub, -sub,
                 2.0 ** rng.integers(53, 1000, n) * (1 + rng.random(n))]
    else:
        parts = [u, 1 + d, sub, (0x7FE0000000000000 | rng.integers(0, 1 << 52, n, dtype=np.uint64)).view(np.float64)]
    return _in_domain(name, np.concatenate(parts))


@pytest.mark.parametrize("name", sorted(FUNCS))
def test_random_against_mpfr(name):
    x = _random(name, 17 + len(name))
    hist = _check_cr(name, x)
    print(f"{name}: {len(x)} random inputs correctly rounded; numpy's ulps from them: {sorted(hist.items())}")


def test_exact_cases():
    k = np.arange(-1074, 1024)
    assert np.array_equal(_bits(raid.log2(np.ldexp(1.0, k))), _bits(k.astype(np.float64)))
    p = np.array([10.0 ** j for j in range(23)])
    assert np.array_equal(_bits(raid.log10(p)), _bits(np.arange(23.0)))
    for f in (raid.log, raid.log2, raid.log10):
        assert _bits(f(np.array([1.0])))[0] == 0  # +0
    assert np.array_equal(_bits(raid.log1p(np.array([0.0, -0.0]))), _bits(np.array([0.0, -0.0])))


SPECIAL = np.array([0x0, 0x8000000000000000, 0x7FF0000000000000, 0xFFF0000000000000, 0x7FF8000000000000,
                    0xFFF8000000000000, 0x7FF0000000000001, 0xFFF4000000000000, 0x1, 0x8000000000000001,
                    0x000FFFFFFFFFFFFF, 0x0010000000000000, 0x7FEFFFFFFFFFFFFF, 0x3FF0000000000000,
                    0xBFF0000000000000, 0xBFF0000000000001, 0xBFEFFFFFFFFFFFFF, 0x3CA0000000000000,
                    0xBC9FFFFFFFFFFFFF, 0xC000000000000000], dtype=np.uint64).view(np.float64)


@pytest.mark.parametrize("name", sorted(FUNCS))
def test_special_values_as_numpy(name):
    fn, _, npf = FUNCS[name]
    with np.errstate(all="ignore"):
        want = _bits(npf(SPECIAL))
    got = _bits(fn(SPECIAL))
    assert [hex(v) for v in got] == [hex(v) for v in want]


def test_device_bits_equal_cpu():
    devs = raid.devices()
    if not len(devs):
        pytest.skip("no OpenCL device")
    dev = devs["device"].iloc[0]
    rng = np.random.default_rng(5)
    x = np.concatenate([rng.integers(0, 2**64, 1000, dtype=np.uint64).view(np.float64),
                        1 + rng.standard_normal(1000) * 2.0 ** -rng.integers(1, 50, 1000), SPECIAL])
    for name, (fn, _, _) in FUNCS.items():
        assert np.array_equal(_bits(fn(x, device=dev)), _bits(fn(x))), name


def test_expressions():
    x = np.array([0.5, 2.0, 10.0, 1e-300])
    r = raid.eval("log(a) + log2(a) * log10(a) - log1p(a)", a=x)
    want = raid.subtract(raid.add(raid.log(x), raid.multiply(raid.log2(x), raid.log10(x))), raid.log1p(x))
    assert np.array_equal(_bits(r), _bits(want))
