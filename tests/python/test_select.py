"""raid.kth / median / quantile / min / max / topk (include/raid/select.h, docs/column.md "Selection")
against numpy bit for bit (.view(np.uint64)), on the cpu path and the device (PoCL here): np.partition,
np.median, np.quantile (method='linear', q from 0 to 1), np.min/np.max, np.nanmin/np.nanmax, the ends of
np.sort(kind='stable') and np.argsort(kind='stable'), on random and adversarial arrays (all equal, sorted,
reversed, many NaN, only NaN, -0.0/+0.0, subnormals, +-inf, one element, empty, 2^24 + 1 elements).

Where numpy returns "an element equal to" the answer its choice among equal elements is its introselect's:
for a zero result the sign may differ (raid returns the first zero of the array), for a NaN result the
payload (raid returns the first NaN); those two cases compare as values (== and isnan). Everything else,
the median's mean and the quantile's interpolation included, is compared bit for bit."""
import warnings

import numpy as np
import pytest

import raid

QS = np.array([0.0, 1e-9, 0.01, 0.1, 0.25, 1 / 3, 0.5, 2 / 3, 0.75, 0.9, 0.99, 0.999999, 1.0])


def bits(v):
    return np.asarray(v, dtype=np.float64).reshape(-1).view(np.uint64)


def same(got, want, what):
    """Bit for bit, except zeros (value) and NaN (isnan): numpy's freedom among equal elements."""
    g, w = np.asarray(got, dtype=np.float64).reshape(-1), np.asarray(want, dtype=np.float64).reshape(-1)
    assert g.shape == w.shape, what
    loose = (w == 0) | np.isnan(w)
    assert np.array_equal(bits(g)[~loose], bits(w)[~loose]), f"{what}: {g[~loose]} != {w[~loose]}"
    assert np.array_equal(g[loose], w[loose], equal_nan=True), f"{what}: {g[loose]} != {w[loose]}"


def arrays():
    rng = np.random.default_rng(11)
    out = {
        "normal": rng.normal(size=5001),
        "normal_even": rng.normal(size=5000),
        "bits": rng.integers(0, 2 ** 64, size=4000, dtype=np.uint64).view(np.float64),
        "equal": np.full(777, 3.25),
        "sorted": np.arange(1000) * 0.5 - 3,
        "reversed": (np.arange(1000) * 0.5 - 3)[::-1].copy(),
        "many_nan": np.where(rng.random(3000) < 0.5, np.nan, rng.normal(size=3000)),
        "only_nan": np.full(10, np.nan),
        "zeros": np.where(rng.random(2000) < 0.5, -0.0, 0.0),
        "zeros_and_more": np.where(rng.random(2000) < 0.8, np.where(rng.random(2000) < 0.5, -0.0, 0.0),
                                   rng.normal(size=2000)),
        "subnormal": (rng.integers(0, 2 ** 52, size=3000, dtype=np.uint64) |
                      (rng.integers(0, 2, size=3000, dtype=np.uint64) << np.uint64(63))).view(np.float64),
        "inf": rng.choice([-np.inf, np.inf, 1.0, -2.0, 0.0], size=999),
        "two_inf": np.array([np.inf, -np.inf]),
        "prices": np.round(100 + rng.normal(size=300001), 2),
        "one": np.array([-7.5]),
        "one_negzero": np.array([-0.0]),
        "two": np.array([1.0, 1e308]),
    }
    return out


ARRAYS = arrays()


@pytest.fixture(params=["cpu", "opencl"])
def device(request, have_opencl):
    if request.param == "opencl" and not have_opencl:
        pytest.skip("no OpenCL device")
    return request.param


@pytest.mark.parametrize("name", sorted(ARRAYS))
def test_against_numpy(name, device):
    x = ARRAYS[name]
    n = x.size
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        same(raid.median(x, device=device), np.median(x), "median")
        same(raid.quantile(x, QS, device=device), np.quantile(x, QS), "quantile")
        for q in (0.0, 0.5, 1.0, [0.01, 0.5, 0.99]):  # the last: one sampled pass on the cpu for large x
            same(raid.quantile(x, q, device=device), np.quantile(x, q), f"quantile {q}")
        for k in sorted({0, 1, n // 3, n // 2, n - 2, n - 1, -1} & set(range(-1, n))):
            same(raid.kth(x, k, device=device), np.partition(x, k)[k], f"kth {k}")
        same(raid.min(x, device=device), np.min(x), "min")
        same(raid.max(x, device=device), np.max(x), "max")
        same(raid.min(x, skipna=True, device=device), np.nanmin(x), "nanmin")
        same(raid.max(x, skipna=True, device=device), np.nanmax(x), "nanmax")
    order = np.argsort(x, kind="stable")
    for k in sorted({1, 5, 100, n} & set(range(1, n + 1))):
        v, i = raid.topk(x, k, return_index=True, device=device)
        assert np.array_equal(i, order[-k:][::-1]), f"topk index {k}"
        assert np.array_equal(bits(v), bits(np.sort(x, kind="stable")[-k:][::-1])), f"topk {k}"
        v, i = raid.topk(x, k, largest=False, return_index=True, device=device)
        assert np.array_equal(i, order[:k]), f"bottomk index {k}"
        assert np.array_equal(bits(v), bits(np.sort(x, kind="stable")[:k])), f"bottomk {k}"


def test_special_cases_bitwise():
    """numpy's arithmetic reproduced where it surprises: the median's mean drops -0.0, the quantile's
    index h >= n - 1 gives weight h + 1, inf in the interpolation gives NaN."""
    warnings.simplefilter("ignore", RuntimeWarning)  # numpy's inf - inf, 0 inf and overflow (pytest restores it)
    for x, q in [([-0.0], 1.0), ([-0.0, -0.0], 1.0), ([-0.0, -0.0], 0.0), ([1.0, np.inf], 0.0),
                 ([1.0, np.inf], 1.0), ([np.inf], 0.5), ([-np.inf, np.inf], 0.5), ([1e308, 1e308], 0.5)]:
        x = np.array(x)
        assert bits(raid.quantile(x, q, device="cpu")) == bits(np.quantile(x, q)), (x, q)
        assert bits(raid.median(x, device="cpu")) == bits(np.median(x)), x


def test_empty_and_errors():
    e = np.array([], dtype=np.float64)
    assert np.isnan(raid.median(e, device="cpu"))  # numpy: nan with a RuntimeWarning
    for f in (lambda: raid.quantile(e, 0.5), lambda: raid.kth(e, 0), lambda: raid.min(e),
              lambda: raid.kth(np.ones(3), 3), lambda: raid.quantile(np.ones(3), 1.5),
              lambda: raid.quantile(np.ones(3), np.nan), lambda: raid.topk(np.ones(3), 4)):
        with pytest.raises(raid.RaidError) as ei:
            f()
        assert ei.value.name == "RAID_EINVAL"
    assert raid.topk(e, 0).size == 0


def test_segments(device):
    rng = np.random.default_rng(5)
    x = rng.normal(size=20000)
    x[::13] = np.nan
    off = np.array([7, 7, 100, 101, 5000, 20000])
    med = raid.median(x, offsets=off, device=device)
    qs = raid.quantile(x, QS, offsets=off[1:], device=device)
    mn = raid.min(x, skipna=True, offsets=off[1:], device=device)
    toff = off[[1, 2, 4, 5]]
    top = raid.topk(x, 3, offsets=toff, device=device)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for s in range(off.size - 1):
            seg = x[off[s]:off[s + 1]]
            same(med[s], np.median(seg), f"median of segment {s}")
            if s:
                same(qs[s - 1], np.quantile(seg, QS), f"quantiles of segment {s}")
                same(mn[s - 1], np.nanmin(seg), f"nanmin of segment {s}")
    for s in range(toff.size - 1):
        seg = x[toff[s]:toff[s + 1]]
        assert np.array_equal(bits(top[s]), bits(np.sort(seg, kind="stable")[-3:][::-1])), f"topk of segment {s}"


def test_big(device):
    """2^24 + 1 values: the odd median, quantiles and the extremes."""
    x = np.random.default_rng(3).normal(size=2 ** 24 + 1)
    same(raid.median(x, device=device), np.median(x), "median")
    same(raid.quantile(x, [0.0, 0.01, 0.5, 0.99, 1.0], device=device), np.quantile(x, [0.0, 0.01, 0.5, 0.99, 1.0]),
         "quantile")
    same(raid.max(x, device=device), np.max(x), "max")
