"""raid.sort / raid.argsort / raid.sort_pairs (include/raid/sort.h) against numpy bit for bit (compared as
.view(np.uint64)): np.sort(x, kind='stable') and np.argsort(x, kind='stable') on random and adversarial
arrays (NaN of several payloads and signs, only NaN, -0.0/+0.0 mixtures, subnormals, +-inf, all equal,
sorted, reversed, one element, empty), on the cpu path and on the OpenCL device when there is one;
descending against pandas' sort_values(ascending=False, kind='stable'); nulls after NaN; segments against
numpy per segment."""
import numpy as np
import pandas as pd
import pytest

import raid

SPECIAL = np.array([0x0, 0x8000000000000000, 0x7FF0000000000000, 0xFFF0000000000000, 0x7FF8000000000000,
                    0xFFF8000000000000, 0x7FF0000000000001, 0xFFF00000DEADBEEF, 0x7FFFFFFFFFFFFFFF, 0x1,
                    0x8000000000000001, 0x000FFFFFFFFFFFFF, 0x3FF0000000000000, 0xBFF0000000000000],
                   dtype=np.uint64).view(np.float64)


def _devices():
    devs = raid.devices()
    return ["cpu"] + ([devs["device"].iloc[0]] if len(devs) else [])


DEVICES = _devices()


def _arrays():
    rng = np.random.default_rng(11)
    n = 3000
    yield "random bits", rng.integers(0, 2**64, n, dtype=np.uint64).view(np.float64)
    yield "normal", rng.standard_normal(n)
    yield "specials and ties", np.where(rng.random(n) < 0.6, rng.choice(SPECIAL, n), rng.integers(-3, 4, n) * 1.0)
    yield "only NaN", (rng.integers(0, 2**52, n, dtype=np.uint64) | np.uint64(0x7FF0000000000001)
                       | (rng.integers(0, 2, n, dtype=np.uint64) << np.uint64(63))).view(np.float64)
    yield "signed zeros", np.where(rng.random(n) < 0.5, 0.0, -0.0)
    yield "subnormals", (rng.integers(0, 2**52, n, dtype=np.uint64)
                         | (rng.integers(0, 2, n, dtype=np.uint64) << np.uint64(63))).view(np.float64)
    yield "all equal", np.full(n, 2.5)
    yield "sorted", np.arange(n, dtype=np.float64)
    yield "reversed", np.arange(n, 0, -1, dtype=np.float64)
    yield "one", np.array([-0.0])
    yield "empty", np.zeros(0)


def _bits(a):
    return np.asarray(a, dtype=np.float64).view(np.uint64)


@pytest.mark.parametrize("device", DEVICES)
def test_against_numpy(device):
    for name, x in _arrays():
        want = np.sort(x, kind="stable")
        assert np.array_equal(_bits(raid.sort(x, device=device)), _bits(want)), name
        idx = np.argsort(x, kind="stable")
        got = raid.argsort(x, device=device)
        assert got.dtype == np.int64 and np.array_equal(got, idx), name
        got32 = raid.argsort(x, device=device, index_dtype=np.uint32)
        assert got32.dtype == np.uint32 and np.array_equal(got32.astype(np.int64), idx), name


@pytest.mark.parametrize("device", DEVICES)
def test_descending_as_pandas(device):
    for name, x in _arrays():
        s = pd.Series(x)
        idx = s.sort_values(ascending=False, kind="stable", na_position="last").index.to_numpy()
        assert np.array_equal(raid.argsort(x, device=device, descending=True), idx), name
        assert np.array_equal(_bits(raid.sort(x, device=device, descending=True)), _bits(x[idx])), name


@pytest.mark.parametrize("device", DEVICES)
def test_nulls_last(device):
    rng = np.random.default_rng(5)
    x = np.where(rng.random(2000) < 0.3, rng.choice(SPECIAL, 2000), rng.standard_normal(2000))
    valid = rng.random(2000) < 0.8
    order = np.argsort(np.where(valid, x, 0.0), kind="stable")
    want = np.r_[order[valid[order]], np.flatnonzero(~valid)]  # valid ones in numpy's order, then nulls
    assert np.array_equal(raid.argsort(x, device=device, valid=valid), want)
    assert np.array_equal(_bits(raid.sort(x, device=device, valid=valid)), _bits(x[want]))


@pytest.mark.parametrize("device", DEVICES)
def test_segments(device):
    rng = np.random.default_rng(8)
    lens = rng.choice([0, 1, 2, 50, 300], 60)
    off = np.r_[0, np.cumsum(lens)]
    x = np.where(rng.random(off[-1]) < 0.2, rng.choice(SPECIAL, off[-1]), rng.standard_normal(off[-1]))
    got = raid.sort(x, device=device, offsets=off)
    gi = raid.argsort(x, device=device, offsets=off)
    for s in range(lens.size):
        seg = x[off[s]:off[s + 1]]
        assert np.array_equal(_bits(got[off[s]:off[s + 1]]), _bits(np.sort(seg, kind="stable")))
        assert np.array_equal(gi[off[s]:off[s + 1]], off[s] + np.argsort(seg, kind="stable"))


@pytest.mark.parametrize("device", DEVICES)
def test_pairs(device):
    rng = np.random.default_rng(3)
    k = rng.integers(-5, 5, 4000).astype(np.int64)
    k[::7] = np.iinfo(np.int64).min
    k[::11] = np.iinfo(np.int64).max
    v = rng.integers(0, 2**64, 4000, dtype=np.uint64).view(np.float64)
    p = np.argsort(k, kind="stable")
    ko, vo = raid.sort_pairs(k, v, device=device)
    assert np.array_equal(ko, k[p]) and np.array_equal(_bits(vo), _bits(v[p]))


def test_bad_arguments():
    with pytest.raises(ValueError):
        raid.argsort(np.zeros(3), index_dtype=np.float32)
    with pytest.raises(ValueError):
        raid.sort(np.zeros(3), valid=np.ones(2, dtype=bool))
    with pytest.raises(raid.RaidError, match="offsets decrease"):
        raid.sort(np.zeros(3), offsets=[0, 2, 1])
