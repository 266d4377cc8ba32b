"""raid.add, raid.subtract, raid.multiply, raid.divide, raid.sqrt, raid.negative, raid.absolute, raid.minimum,
raid.maximum, raid.copysign, raid.trunc, raid.floor, raid.ceil, raid.rint and raid.eval
(include/raid/f64.h) against numpy bit for bit (compared as .view(np.uint64)) on random bit patterns, the
special values, subnormals and ordinary magnitudes, on the cpu path and on the OpenCL device when there is
one; where both operands are NaN only NaN-ness is compared (which NaN numpy returns then is its loop's
choice); the arguments' checks."""
import numpy as np
import pytest

import raid

SPECIAL = np.array([0x0, 0x8000000000000000, 0x7FF0000000000000, 0xFFF0000000000000, 0x7FF8000000000000,
                    0xFFF8000000000000, 0x7FF0000000000001, 0x1, 0x8000000000000001, 0x000FFFFFFFFFFFFF,
                    0x0010000000000000, 0x7FEFFFFFFFFFFFFF, 0x3FF0000000000000, 0xBFF0000000000000],
                   dtype=np.uint64).view(np.float64)


def _devices():
    devs = raid.devices()
    return ["cpu"] + ([devs["device"].iloc[0]] if len(devs) else [])


DEVICES = _devices()


def _values(seed, n=20000):
    rng = np.random.default_rng(seed)
    parts = [rng.integers(0, 2**64, n // 4, dtype=np.uint64).view(np.float64),
             rng.standard_normal(n // 4) * 10.0 ** rng.integers(-300, 300, n // 4),
             (rng.integers(0, 2**52, n // 4, dtype=np.uint64) | np.uint64(1 << 63) * rng.integers(0, 2, n // 4,
                                                                                               dtype=np.uint64)
              ).view(np.float64),
             rng.choice(SPECIAL, n - 3 * (n // 4))]
    x = np.concatenate(parts)
    rng.shuffle(x)
    return x


def _same(r, want, *inputs):
    ok = r.view(np.uint64) == want.view(np.uint64)
    both = np.isnan(r) & np.isnan(want) & np.logical_and.reduce([np.isnan(v) for v in inputs])
    bad = np.flatnonzero(~(ok | both))
    assert bad.size == 0, f"{bad.size} differ, first at {bad[0]}: {r[bad[0]]!r}, numpy {want[bad[0]]!r}"


BINARY = [(raid.add, np.add), (raid.subtract, np.subtract), (raid.multiply, np.multiply), (raid.divide, np.divide),
          (raid.minimum, np.minimum), (raid.maximum, np.maximum), (raid.copysign, np.copysign)]
UNARY = [(raid.sqrt, np.sqrt), (raid.negative, np.negative), (raid.absolute, np.absolute), (raid.trunc, np.trunc),
         (raid.floor, np.floor), (raid.ceil, np.ceil), (raid.rint, np.rint)]


@pytest.mark.parametrize("device", DEVICES)
def test_functions_match_numpy(device):
    x, y = _values(1), _values(2)
    with np.errstate(all="ignore"):
        for f, g in BINARY:
            _same(f(x, y, device), g(x, y), x, y)
            _same(f(x, 2.5, device), g(x, 2.5), x)
            _same(f(-0.0, y, device), g(-0.0, y), y)
        for f, g in UNARY:
            _same(f(x, device), g(x), x)


@pytest.mark.parametrize("device", DEVICES)
def test_eval_matches_numpy(device):
    a, b, c = _values(3), _values(4), _values(5)
    r = raid.eval("(a * b - 2.5) / sqrt(abs(c)) + -a * 1e-3 - (b - a) / (a + 0.1)", device, a=a, b=b, c=c)
    with np.errstate(all="ignore"):
        want = (a * b - 2.5) / np.sqrt(np.abs(c)) + -a * 1e-3 - (b - a) / (a + 0.1)
    _same(r, want, a, b, c)


def test_devices_agree():
    if len(DEVICES) < 2:
        pytest.skip("no device")
    a, b = _values(6), _values(7)
    for expr in ("a / b", "sqrt(a * a + b * b)", "-(a - b) * (a + b)"):
        cpu = raid.eval(expr, "cpu", a=a, b=b)
        dev = raid.eval(expr, DEVICES[1], a=a, b=b)
        assert (cpu.view(np.uint64) == dev.view(np.uint64)).all(), expr


def test_out_and_arguments():
    x = np.linspace(-3, 3, 101)
    y = np.arange(101, dtype=np.int64)  # integers exact in float64 are converted
    o = np.empty(101)
    assert raid.multiply(x, y, "cpu", out=o) is o
    assert (o == x * y).all()
    z = x.copy()
    raid.add(z, z, "cpu", out=z)  # in place
    assert (z == x + x).all()
    with pytest.raises(ValueError, match="elements"):
        raid.add(x, x[:5], "cpu")
    with pytest.raises(TypeError):
        raid.add(x, x, "cpu", out=np.empty(101, np.float32))
    with pytest.raises(ValueError, match="out has"):
        raid.add(x, x, "cpu", out=np.empty(3))
    with pytest.raises(ValueError, match="column 5: unknown name"):
        raid.eval("a + c", "cpu", a=x, b=x)
    with pytest.raises(ValueError, match="b has 5 elements, a 101"):
        raid.eval("a + b", "cpu", a=x, b=x[:5])
    with pytest.raises(ValueError, match="1 to 8"):
        raid.eval("a", "cpu")
    with pytest.raises(TypeError):
        raid.add(np.array(["a"]), x, "cpu")


def test_nulls_propagate():
    """A result is null where either operand is: pyarrow in, pyarrow out (validity kept); a masked array or a
    pandas nullable array in, the same kind out."""
    import pandas as pd
    import pyarrow as pa
    x = pa.array([1.0, None, 4.0, 9.0])
    y = pa.array([2.0, 3.0, None, 0.5])
    r = raid.multiply(x, y, "cpu")
    assert isinstance(r, pa.Array) and r.type == pa.float64()
    assert r.to_pylist() == [2.0, None, None, 4.5]
    assert raid.sqrt(x, "cpu").to_pylist() == [1.0, None, 2.0, 3.0]
    e = raid.eval("a / b", "cpu", a=x, b=np.array([2.0, 2.0, 2.0, 2.0]))
    assert e.to_pylist() == [0.5, None, 2.0, 4.5]
    m = raid.add(np.ma.masked_array([1.0, 2.0, 3.0], mask=[False, True, False]), 1.0, "cpu")
    assert isinstance(m, np.ma.MaskedArray) and m.mask.tolist() == [False, True, False] and m[0] == 2.0
    s = raid.negative(pd.array([1.5, None], dtype="Float64"), "cpu")
    assert isinstance(s, pd.arrays.FloatingArray) and s[0] == -1.5 and s[1] is pd.NA


CMP = [(raid.equal, np.equal), (raid.not_equal, np.not_equal), (raid.less, np.less), (raid.less_equal, np.less_equal),
       (raid.greater, np.greater), (raid.greater_equal, np.greater_equal)]


@pytest.mark.parametrize("device", DEVICES)
def test_comparisons_match_numpy(device):
    x, y = _values(8), _values(9)
    y[::5] = x[::5]
    y[1::7] = -x[1::7]
    for f, g in CMP:
        r = f(x, y, device)
        assert r.dtype == np.bool_ and (r == g(x, y)).all(), f.__name__
    for f, g in ((raid.isnan, np.isnan), (raid.isinf, np.isinf), (raid.isfinite, np.isfinite)):
        assert (f(x, device) == g(x)).all(), f.__name__
    import pyarrow as pa
    r = raid.less(pa.array([1.0, None, 3.0]), 2.0, device)
    assert isinstance(r, pa.Array) and r.to_pylist() == [True, None, False]


def test_partial_overlap_refused():
    # out overlapping an input without being it would read elements already written (numpy copies first):
    # refused on every device; out being the input itself is fine
    b = np.arange(1.0, 6.0)
    for dev in ("cpu", "opencl:0.0"):
        with pytest.raises(raid.RaidError, match="out overlaps input 0 without being it"):
            raid.log(b[:-1], out=b[1:], device=dev)
        with pytest.raises(raid.RaidError, match="overlaps input 1"):
            raid.add(b[:-1].copy(), b[1:], out=b[:-1], device=dev)
        with pytest.raises(raid.RaidError, match="overlaps input 0"):
            raid.eval("log(a) * 2", a=b[:-1], out=b[1:], device=dev)
    c = np.arange(1.0, 6.0)
    assert raid.log(c, out=c) is c
    np.testing.assert_array_equal(c, np.log(np.arange(1.0, 6.0)))


def test_eval_numpy_names():
    # numpy's names of the functions are the same functions in an expression; an unknown one is named
    x = np.linspace(-0.9, 0.9, 101)
    a = raid.eval("arcsin(a) + arccos(a) * arctan(a) - arctan2(a, 2) + power(a * a, 1.5) + absolute(a)", a=x)
    b = raid.eval("asin(a) + acos(a) * atan(a) - atan2(a, 2) + pow(a * a, 1.5) + abs(a)", a=x)
    np.testing.assert_array_equal(a.view(np.int64), b.view(np.int64))
    with pytest.raises(ValueError, match="column 1: unknown function 'lgamma'"):
        raid.eval("lgamma(a)", a=x)
