"""The binary64 arithmetic of include/raid/f64.h against Berkeley SoftFloat 3e (the PyPI binding softfloatpy),
an oracle independent of the host's floating-point unit: + - * / sqrt fma and the rounding to integers of
raid.add ... raid.rint and raid.eval, on the cpu path and on the OpenCL device when there is one, over random
bit patterns, magnitudes near one another, the ends of the range and the special values. Results must have
SoftFloat's bits; a NaN result must be a NaN (which NaN is each implementation's own: SoftFloat's default NaN
is 0x7FF8000000000000 in this build, x86-64's 0xFFF8000000000000)."""
import struct

import numpy as np
import pytest
import softfloatpy as sf  # pinned in requirements/dev.txt: a missing install fails here, never skips

import raid

N = 3000


def _devices():
    devs = raid.devices()
    return ["cpu"] + ([devs["device"].iloc[0]] if len(devs) else [])


def _operands(seed):
    rng = np.random.default_rng(seed)
    bits = rng.integers(0, 2**64, N, dtype=np.uint64)
    near = bits.copy()
    near[N // 3:2 * N // 3] &= np.uint64(0x7FEFFFFFFFFFFFFF)
    ends = rng.integers(0, 2**52, N // 3, dtype=np.uint64) | (rng.integers(0, 60, N // 3, dtype=np.uint64) << np.uint64(52))
    near[2 * N // 3:2 * N // 3 + ends.size] = ends
    special = np.array([0, 0x8000000000000000, 0x7FF0000000000000, 0xFFF0000000000000, 0x7FF8000000000000, 1,
                        0x000FFFFFFFFFFFFF, 0x7FEFFFFFFFFFFFFF, 0x3FF0000000000000, 0x3FE0000000000000],
                       dtype=np.uint64)
    near[:special.size] = special
    return near.view(np.float64)


def _sf(x):
    return sf.Float64.from_bytes(struct.pack(">d", float(x)))


def _bits(f):
    return struct.unpack(">Q", f.to_bytes())[0]


def _is_nan(u):
    return (u & 0x7FFFFFFFFFFFFFFF) > 0x7FF0000000000000


def _check(name, got, want_bits):
    got_bits = got.view(np.uint64)
    for i, w in enumerate(want_bits):
        g = int(got_bits[i])
        assert g == w or (_is_nan(g) and _is_nan(w)), f"{name}, element {i}: {g:016x}, SoftFloat {w:016x}"


@pytest.mark.parametrize("device", _devices())
def test_against_softfloat(device):
    a, b, c = _operands(1), _operands(2), _operands(3)
    b[N // 3:2 * N // 3] = np.nextafter(a[N // 3:2 * N // 3], np.inf)  # cancellation, quotients near 1
    A, B, C = [_sf(v) for v in a], [_sf(v) for v in b], [_sf(v) for v in c]
    _check("add", raid.add(a, b, device), [_bits(sf.f64_add(x, y)) for x, y in zip(A, B)])
    _check("sub", raid.subtract(a, b, device), [_bits(sf.f64_sub(x, y)) for x, y in zip(A, B)])
    _check("mul", raid.multiply(a, b, device), [_bits(sf.f64_mul(x, y)) for x, y in zip(A, B)])
    _check("div", raid.divide(a, b, device), [_bits(sf.f64_div(x, y)) for x, y in zip(A, B)])
    _check("sqrt", raid.sqrt(a, device), [_bits(sf.f64_sqrt(x)) for x in A])
    _check("fma", raid.eval("fma(a, b, c)", device, a=a, b=b, c=c),
           [_bits(sf.f64_mul_add(x, y, z)) for x, y, z in zip(A, B, C)])
    modes = [(raid.trunc, sf.RoundingMode.MIN_MAG), (raid.floor, sf.RoundingMode.MIN),
             (raid.ceil, sf.RoundingMode.MAX), (raid.rint, sf.RoundingMode.NEAR_EVEN)]
    with np.errstate(all="ignore"):
        half = np.round(a * 4) / 4  # values at and near integers and halves
    H = [_sf(v) for v in half]
    for f, mode in modes:
        _check(f.__name__, f(half, device), [_bits(sf.f64_round_to_int(x, mode, False)) for x in H])
